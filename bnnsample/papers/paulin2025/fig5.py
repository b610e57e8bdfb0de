"""`bnnsample figure paulin2025-fig5`: calibration against ensemble size on Celeb-A, blond vs
brown hair (paulin2025 §5, Fig. 5, App. E.1 and F.1; settings from the authors'
CelebA_SMS_UBU.ipynb via ``conf/dataset/celeba.yaml``).

Algorithm 3 as in Fig. 4 (``image_sets``): 64 runs of 15 Adam + 5 SWA epochs and 40 SMS-UBU
epochs (10 burn-in, 30 draws) of the 1,612,306-parameter Celeb-A CNN on 55,400 training and
6,073 test images at 64x64, lambda_loc 25, gamma 5, effective UBU step 1.25e-4, BatchNorm
statistics from 4,000 training images; standard training, SWA and SMS-UBU ensembles of 1 to 16
runs. The files (torchvision's layout or the Kaggle copy) are not on this machine:
``scale=untested`` writes the section without them.
"""

from __future__ import annotations

from .image_sets import ImageSet, ensemble_claims, image_figure


def _notes(d: ImageSet, m) -> list[str]:
    return ["", "The paper's Fig. 5 has curves and no printed numbers (nor do the authors' notebooks keep any for "
            "Celeb-A), so its claims here are the §5 statements: small accuracy gains, large NLL, ACE and RPS "
            "gains of the Bayesian ensembles over same-size standard-training and SWA ensembles."]  # fmt: skip


LABEL, WHERE, SIZES = "Celeb-A (blond vs brown hair)", "§5, Fig. 5", (1, 2, 4, 8, 16)
CELEBA = ImageSet(
    fig="paulin2025-fig5", where=WHERE, dataset="celeba", label=LABEL, runs=64, sizes=SIZES, n_train=55_400,
    epochs=60, sampling_epochs=40, model="cnn_celeba", printed_params=1_612_306, gflop=1.0649,
    files="torchvision's celeba/ layout or the Kaggle copy, under data_dir", quick_overrides=("dataset.n_train=10000",),
    claims=ensemble_claims(LABEL, WHERE, SIZES), notes=_notes,
)  # fmt: skip
FIGURE = image_figure(CELEBA, ": calibration against ensemble size on Celeb-A, SMS-UBU vs SWA vs standard training "
                      "(paulin2025 Fig. 5, §5)", "Celeb-A calibration vs ensemble size: SMS-UBU vs SWA vs standard "
                      "training (data not included)")  # fmt: skip
