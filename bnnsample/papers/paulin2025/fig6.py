"""`bnnsample figure paulin2025-fig6`: calibration against ensemble size on chest X-rays,
pneumonia vs normal (Kermany et al. 2018; paulin2025 §5, Fig. 6, App. E.1 and F.1; settings
from the authors' chestxray_SMS_UBU.ipynb via ``conf/dataset/chestxray.yaml``).

Algorithm 3 as in Fig. 4 (``image_sets``): 64 runs of 15 Adam + 5 SWA epochs and 40 SMS-UBU
epochs (10 burn-in, 30 draws) of the 870,882-parameter chest X-ray CNN on 47,400 offline
augmented training images (from 5,216 originals) and 600 test images at 180x180 grayscale,
lambda_loc 50, gamma sqrt(50), effective UBU step 2.5e-4, BatchNorm statistics from 2,000
training images; standard training, SWA and SMS-UBU ensembles of 1 to 16 runs. The files are
not on this machine: ``scale=untested`` writes the section without them.
"""

from __future__ import annotations

from .image_sets import ImageSet, ensemble_claims, image_figure


def _notes(d: ImageSet, m) -> list[str]:
    return ["", "The paper's Fig. 6 has curves and no printed numbers (nor do the authors' notebooks keep any for "
            "the chest X-rays), so its claims here are the §5 statements. Where the authors' code and the paper's "
            "text differ we follow the code: the training set is augmented once, offline, by RandomResizedCrop, "
            "RandomRotation(20) and RandomHorizontalFlip (the text also names shifts and brightness changes), 6 "
            "copies per pneumonia and 18 per normal image; the test set is a seeded 600 of the 624 test images."]  # fmt: skip


LABEL, WHERE, SIZES = "chest X-ray (pneumonia vs normal)", "§5, Fig. 6", (1, 2, 4, 8, 16)
CHEST = ImageSet(
    fig="paulin2025-fig6", where=WHERE, dataset="chestxray", label=LABEL, runs=64, sizes=SIZES,
    n_train=47_400, epochs=60, sampling_epochs=40, model="cnn_chestxray", printed_params=870_882, gflop=0.6654,
    files="chest_xray/{train,test}/{NORMAL,PNEUMONIA} of Kermany et al., under data_dir",
    # 1 + 3 copies make a pool of 3,875 + 3 x 1,341 = 7,898 images on the public release, cut at random to 7,800: SMS
    # needs batches of 200 that cover the training set (until 2026-11-30 n_train=null kept the pool, 98 never used)
    quick_overrides=("dataset.copies.PNEUMONIA=1", "dataset.copies.NORMAL=3", "dataset.n_train=7800"),
    claims=ensemble_claims(LABEL, WHERE, SIZES), notes=_notes,
)  # fmt: skip
FIGURE = image_figure(CHEST, ": calibration against ensemble size on chest X-rays, SMS-UBU vs SWA vs standard "
                      "training (paulin2025 Fig. 6, §5)", "chest X-ray calibration vs ensemble size: SMS-UBU vs SWA "
                      "vs standard training (data not included)")  # fmt: skip
