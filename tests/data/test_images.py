"""Image data sets on small fixtures in their real on-disk formats (Fashion-MNIST IDX files,
CIFAR-10 python batches, Celeb-A jpgs + attribute/partition files, chest X-ray JPEG folders), loaded through the same
loaders as the real files, compared with torchvision's own readers where torchvision has
one, plus a 10-step smoke run of each with its model; and the offline MNIST 7-vs-9 PCA set."""

import gzip
import os
import pickle
import struct
import subprocess
import sys

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf
from PIL import Image

from bnnsample.data import LOADERS
from bnnsample.plumbing.errors import DataMissingError, UserError
from bnnsample.store import SampleStore

from ..helpers import run_inprocess

SMOKE = ["chains=2", "unit=step", "burn_in=5", "samples=5", "init=zeros", "store_theta=false"]


def _cfg(tmp_path, name, **kw):
    return OmegaConf.create({"name": name, "data_dir": str(tmp_path), "download": False, **kw})


def _smoke(tmp_path, dataset, model, extra=()):
    path, _ = run_inprocess(tmp_path / "run", [f"dataset={dataset}", f"model={model}", f"data_dir={tmp_path / 'data'}",
                                               *SMOKE, *extra])  # fmt: skip
    with SampleStore(path) as s:
        pred = s.predictive()
        assert s.complete and not s.diverged().any()
        assert np.isfinite(pred).all()
        np.testing.assert_allclose(pred.sum(-1), 1.0, rtol=1e-4)
    return pred


# --------------------------------------------------------------------------- Fashion-MNIST
def write_idx(path, values: np.ndarray, gz: bool):
    """IDX as distributed: 0, 0, type 0x08 (ubyte), ndim, big-endian int32 dims, the bytes."""
    blob = bytes([0, 0, 8, values.ndim]) + struct.pack(f">{values.ndim}i", *values.shape) + values.tobytes()
    if gz:
        path = path.with_name(path.name + ".gz")
        blob = gzip.compress(blob)
    path.write_bytes(blob)


def make_fmnist(root, n_train=40, n_test=12, gz=True, seed=0):
    """FashionMNIST/raw with the four IDX files; classes cycle 0..9 so every class appears."""
    rng = np.random.default_rng(seed)
    raw = root / "FashionMNIST" / "raw"
    raw.mkdir(parents=True)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        write_idx(raw / f"{prefix}-images-idx3-ubyte", rng.integers(0, 256, (n, 28, 28), dtype=np.uint8), gz)
        write_idx(raw / f"{prefix}-labels-idx1-ubyte", (np.arange(n) % 10).astype(np.uint8), gz)
    return raw


@pytest.mark.parametrize("gz", [True, False])
def test_fmnist_fixture_loads_like_torchvision(tmp_path, gz):
    from torchvision import transforms
    from torchvision.datasets import FashionMNIST

    raw = make_fmnist(tmp_path, gz=gz)
    d = LOADERS["fmnist"](_cfg(tmp_path, "fmnist"))
    assert d.x_train.shape == (40, 1, 28, 28) and d.x_test.shape == (12, 1, 28, 28) and d.n_classes == 10
    assert d.x_train.dtype == torch.float32 and d.y_train.dtype == torch.long
    assert d.y_train.tolist() == [i % 10 for i in range(40)]
    if gz:  # torchvision reads only the unpacked files; it gets them the way its download leaves them
        for f in raw.glob("*.gz"):
            f.with_suffix("").write_bytes(gzip.decompress(f.read_bytes()))
    for train, x, y in ((True, d.x_train, d.y_train), (False, d.x_test, d.y_test)):
        tv = FashionMNIST(tmp_path, train=train, transform=transforms.ToTensor())
        torch.testing.assert_close(torch.stack([tv[i][0] for i in range(len(tv))]), x, rtol=0, atol=0)
        assert tv.targets.tolist() == y.tolist()


def _default_cfg(tmp_path, monkeypatch, **kw):
    """The config of a user who gave no data_dir (the default, under a HOME of the test)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return OmegaConf.create({"name": "fmnist", "data_dir": "~/.cache/bnnsample", "download": False, **kw})


def test_fmnist_found_in_data_dir_itself_and_in_system_folders(tmp_path, monkeypatch):
    """Search order: data_dir/FashionMNIST/raw, data_dir, then, when data_dir is the default,
    the system folders (Debian's dataset-fashion-mnist); a folder counts only when it holds all
    four files. A data_dir the user gave is honoured: without the files there, an error naming
    it, never the system copy."""
    make_fmnist(tmp_path / "flat", n_train=30, n_test=10).rename(tmp_path / "flatdir")
    assert LOADERS["fmnist"](_cfg(tmp_path / "flatdir", "fmnist")).n_train == 30
    system = make_fmnist(tmp_path / "sys", n_train=20, n_test=10)
    partial = make_fmnist(tmp_path / "partial", n_train=50, n_test=10)
    (partial / "t10k-labels-idx1-ubyte.gz").unlink()
    monkeypatch.setenv("BNNSAMPLE_SYSTEM_DATA", f"{partial}:{system}")
    found = LOADERS["fmnist"](_default_cfg(tmp_path, monkeypatch))
    assert found.n_train == 20 and found.source == str(system)  # skips the partial folder, says where it read
    found = LOADERS["fmnist"](_cfg(tmp_path / "flatdir", "fmnist"))
    assert found.n_train == 30 and found.source == str(tmp_path / "flatdir")  # data_dir first
    with pytest.raises(DataMissingError, match="data_dir was given, so the system folders are not searched") as e:
        LOADERS["fmnist"](_cfg(tmp_path / "empty", "fmnist"))
    assert str(tmp_path / "empty") in str(e.value) and str(system) not in str(e.value)


def test_fmnist_damaged_file_is_named(tmp_path):
    raw = make_fmnist(tmp_path, n_train=20, n_test=10)
    blob = (raw / "train-images-idx3-ubyte.gz").read_bytes()
    (raw / "train-images-idx3-ubyte.gz").write_bytes(blob[: len(blob) // 2])  # truncated download
    with pytest.raises(DataMissingError, match=r"train-images-idx3-ubyte.gz: damaged \(EOFError"):
        LOADERS["fmnist"](_cfg(tmp_path, "fmnist"))
    (raw / "train-images-idx3-ubyte.gz").write_bytes(blob[:12] + b"garbage" * 50)
    with pytest.raises(DataMissingError, match="train-images-idx3-ubyte.gz: damaged"):
        LOADERS["fmnist"](_cfg(tmp_path, "fmnist"))


def test_fmnist_missing_lists_every_place_and_the_package(tmp_path, monkeypatch):
    monkeypatch.delenv("BNNSAMPLE_SYSTEM_DATA")
    from bnnsample.data import locate

    monkeypatch.setitem(locate.SYSTEM_DATA, "fmnist", [(str(tmp_path / "nosys"), "dataset-fashion-mnist")])
    with pytest.raises(DataMissingError) as e:
        LOADERS["fmnist"](_default_cfg(tmp_path, monkeypatch))
    msg = str(e.value)
    assert "\n" not in msg
    d = tmp_path / "home" / ".cache" / "bnnsample"
    for place in (d / "FashionMNIST" / "raw", d, tmp_path / "nosys"):
        assert str(place) in msg
    assert "apt-get install dataset-fashion-mnist" in msg and "data_dir=" in msg


SYSTEM_FMNIST = "/usr/share/datasets/fashion-mnist"
needs_system_fmnist = pytest.mark.skipif(
    not os.path.isdir(SYSTEM_FMNIST), reason=f"Debian's dataset-fashion-mnist is not installed ({SYSTEM_FMNIST})"
)


@needs_system_fmnist
def test_real_fashion_mnist_from_the_system_folder(tmp_path, monkeypatch):
    """The real files, found with no data_dir: 60,000 / 10,000 images, 6,000 / 1,000 per class,
    pixels in [0, 1]; a stratified subset keeps the class balance."""
    monkeypatch.delenv("BNNSAMPLE_SYSTEM_DATA")
    d = LOADERS["fmnist"](_default_cfg(tmp_path, monkeypatch))
    assert d.x_train.shape == (60000, 1, 28, 28) and d.x_test.shape == (10000, 1, 28, 28)
    assert torch.bincount(d.y_train).tolist() == [6000] * 10 and torch.bincount(d.y_test).tolist() == [1000] * 10
    assert float(d.x_train.min()) >= 0.0 and float(d.x_train.max()) <= 1.0
    sub = LOADERS["fmnist"](_default_cfg(tmp_path, monkeypatch, n_train=1000))
    assert torch.bincount(sub.y_train).tolist() == [100] * 10


@needs_system_fmnist
def test_real_fashion_mnist_run_without_data_dir(tmp_path):
    """`bnnsample run dataset=fmnist` with a tiny schedule and no data_dir runs to completion."""
    env = {k: v for k, v in os.environ.items() if k != "BNNSAMPLE_SYSTEM_DATA"}
    out = subprocess.run(
        [sys.executable, "-m", "bnnsample.cli", "run", "dataset=fmnist", "model=cnn_small", "dataset.n_train=400",
         "dataset.n_test=100", "chains=1", "init.train_epochs=1", "init.swa_epochs=1", "burn_in=1", "samples=1",
         "model.n_calibration=200", "progress=false", f"hydra.run.dir={tmp_path / 'run'}"],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    with SampleStore(tmp_path / "run" / "samples.h5") as s:
        assert s.complete and s.predictive().shape == (1, 1, 100, 10)


def test_fmnist_training_subset_is_stratified_and_seeded(tmp_path):
    make_fmnist(tmp_path, n_train=200, n_test=50)
    full = LOADERS["fmnist"](_cfg(tmp_path, "fmnist"))
    d = LOADERS["fmnist"](_cfg(tmp_path, "fmnist", n_train=50, n_test=20, subset_seed=3))
    assert d.x_train.shape[0] == 50 and d.x_test.shape[0] == 20
    assert np.bincount(d.y_train.numpy(), minlength=10).tolist() == [5] * 10  # 20 per class -> 5 per class
    # the kept images are images of the full set, with their labels
    rows = {bytes(full.x_train[i].numpy()): int(full.y_train[i]) for i in range(200)}
    assert all(rows[bytes(d.x_train[i].numpy())] == int(d.y_train[i]) for i in range(50))
    again = LOADERS["fmnist"](_cfg(tmp_path, "fmnist", n_train=50, n_test=20, subset_seed=3))
    other = LOADERS["fmnist"](_cfg(tmp_path, "fmnist", n_train=50, n_test=20, subset_seed=4))
    assert torch.equal(again.x_train, d.x_train) and not torch.equal(other.x_train, d.x_train)
    with pytest.raises(UserError, match=r"dataset.n_train=500: must be between 1 and 200"):
        LOADERS["fmnist"](_cfg(tmp_path, "fmnist", n_train=500))


def test_fmnist_truncated_file_is_one_line(tmp_path):
    raw = make_fmnist(tmp_path, gz=False)
    blob = (raw / "train-images-idx3-ubyte").read_bytes()
    (raw / "train-images-idx3-ubyte").write_bytes(blob[:-100])
    with pytest.raises(DataMissingError, match="truncated"):
        LOADERS["fmnist"](_cfg(tmp_path, "fmnist"))


def test_fmnist_pipeline_end_to_end(tmp_path):
    """The fmnist config as shipped (cnn_fmnist, Adam -> SWA -> localized SMS-UBU with control
    variates, BatchNorm calibration, predictive streamed) on a fixture, at a tiny schedule."""
    raw = make_fmnist(tmp_path / "data", n_train=40, n_test=12)
    path, cfg = run_inprocess(tmp_path / "run", [
        "dataset=fmnist", f"data_dir={tmp_path / 'data'}", "chains=2", "batch_size=10", "init.train_epochs=1",
        "init.swa_epochs=1", "burn_in=1", "samples=2", "model.n_calibration=20",
    ])  # fmt: skip
    assert cfg.model.name == "cnn_fmnist" and cfg.control_variate and cfg.init.name == "swa"
    with SampleStore(path) as s:
        pred = s.predictive()
        assert s.complete and not s.diverged().any() and "theta" not in s.f
        assert pred.shape == (2, 2, 12, 10) and np.isfinite(pred).all()
        np.testing.assert_allclose(pred.sum(-1), 1.0, rtol=1e-4)
        assert set(s.group("baselines")) >= {"swa", "standard"}
        assert s.attrs["data_source"] == str(raw)  # where the run read Fashion-MNIST from is recorded
    import pandas as pd

    from bnnsample.evaluate.report import evaluate_run

    evaluate_run(path.parent)
    table = pd.read_csv(path.parent / "metrics.csv")
    for method in ("bayes", "swa", "standard"):
        row = table[(table.group == method) & (table.metric == "nll")]
        assert len(row) == 1 and np.isfinite(row.value.iloc[0]), method


# ------------------------------------------------------------------------------- CIFAR-10
def make_cifar10(root, n_per_batch=6, n_test=4, seed=0):
    """cifar-10-batches-py with data_batch_1..5, test_batch, batches.meta: pickled dicts with
    'data' uint8 [n, 3072] (R plane, G plane, B plane, row-major) and 'labels'."""
    rng = np.random.default_rng(seed)
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    sizes = {f"data_batch_{i}": n_per_batch for i in range(1, 6)} | {"test_batch": n_test}
    for name, n in sizes.items():
        d = {"batch_label": name, "labels": rng.integers(0, 10, n).tolist(),
             "data": rng.integers(0, 256, (n, 3072), dtype=np.uint8), "filenames": [f"img_{i}.png" for i in range(n)]}  # fmt: skip
        with open(folder / name, "wb") as f:
            pickle.dump(d, f, protocol=2)
    meta = {"label_names": ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"],
            "num_cases_per_batch": n_per_batch, "num_vis": 3072}  # fmt: skip
    with open(folder / "batches.meta", "wb") as f:
        pickle.dump(meta, f, protocol=2)
    return folder


def test_cifar10_fixture_loads_like_torchvision(tmp_path, monkeypatch):
    from torchvision import transforms
    from torchvision.datasets import CIFAR10

    folder = make_cifar10(tmp_path)
    d = LOADERS["cifar10"](_cfg(tmp_path, "cifar10"))
    assert d.x_train.shape == (30, 3, 32, 32) and d.x_test.shape == (4, 3, 32, 32) and d.n_classes == 10
    assert d.x_train.dtype == torch.float32 and d.y_train.dtype == torch.long
    # channel-first planes: pixel (row 1, col 2) of the green channel is byte 1024 + 32 + 2
    with open(folder / "data_batch_2", "rb") as f:
        raw = pickle.load(f, encoding="latin1")
    assert d.x_train[6, 1, 1, 2].item() == pytest.approx(raw["data"][0, 1024 + 32 + 2] / 255.0)
    assert d.y_train[6:12].tolist() == raw["labels"]
    # torchvision's reader on the same files (its MD5 checks switched off) gives the same tensors
    monkeypatch.setattr(CIFAR10, "_check_integrity", lambda self: True)
    monkeypatch.setattr(CIFAR10, "_load_meta", lambda self: None)
    for train, x, y in ((True, d.x_train, d.y_train), (False, d.x_test, d.y_test)):
        tv = CIFAR10(tmp_path, train=train, transform=transforms.ToTensor())
        torch.testing.assert_close(torch.stack([tv[i][0] for i in range(len(tv))]), x, rtol=0, atol=0)
        assert list(tv.targets) == y.tolist()


def test_cifar10_smoke_run(tmp_path):
    # the 73M-parameter cnn_cifar_wide is too heavy for a CPU test (~90 GFLOP per image and
    # step); tests/models/test_architectures.py checks it. The data path runs here with cnn_small.
    make_cifar10(tmp_path / "data")
    pred = _smoke(tmp_path, "cifar10", "cnn_small", ["batch_size=6", "model.n_calibration=12"])
    assert pred.shape == (2, 5, 4, 10)


# --------------------------------------------------------------------------------- Celeb-A
CELEBA_ATTRS = (
    "5_o_Clock_Shadow Arched_Eyebrows Attractive Bags_Under_Eyes Bald Bangs Big_Lips Big_Nose Black_Hair "
    "Blond_Hair Blurry Brown_Hair Bushy_Eyebrows Chubby Double_Chin Eyeglasses Goatee Gray_Hair Heavy_Makeup "
    "High_Cheekbones Male Mouth_Slightly_Open Mustache Narrow_Eyes No_Beard Oval_Face Pale_Skin Pointy_Nose "
    "Receding_Hairline Rosy_Cheeks Sideburns Smiling Straight_Hair Wavy_Hair Wearing_Earrings Wearing_Hat "
    "Wearing_Lipstick Wearing_Necklace Wearing_Necktie Young"
).split()

# (partition, blond, brown): 0 train, 1 valid, 2 test
CELEBA_ROWS = [(0, 1, 0), (0, 0, 1), (0, 1, 1), (0, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (0, 1, 0),
               (0, 0, 1), (0, 1, 0), (1, 1, 0), (1, 0, 1), (2, 0, 1), (2, 1, 0), (2, 1, 1), (2, 0, 1)]  # fmt: skip


def make_celeba(root, seed=0):
    """celeba/ in torchvision's layout: img_align_celeba/*.jpg (178x218 like the real ones),
    list_attr_celeba.txt, list_eval_partition.txt, identity_CelebA.txt, list_bbox_celeba.txt,
    list_landmarks_align_celeba.txt."""
    rng = np.random.default_rng(seed)
    folder = root / "celeba"
    (folder / "img_align_celeba").mkdir(parents=True)
    names = [f"{i + 1:06d}.jpg" for i in range(len(CELEBA_ROWS))]
    attr_lines, part_lines, id_lines = [str(len(names)), " ".join(CELEBA_ATTRS)], [], []
    bbox = [str(len(names)), "image_id x_1 y_1 width height"]
    marks = [
        str(len(names)),
        "lefteye_x lefteye_y righteye_x righteye_y nose_x nose_y leftmouth_x leftmouth_y rightmouth_x rightmouth_y",
    ]
    for name, (part, blond, brown) in zip(names, CELEBA_ROWS):
        Image.fromarray(rng.integers(0, 256, (218, 178, 3), dtype=np.uint8)).save(folder / "img_align_celeba" / name)
        vals = rng.choice([-1, 1], len(CELEBA_ATTRS))
        vals[CELEBA_ATTRS.index("Blond_Hair")] = 2 * blond - 1
        vals[CELEBA_ATTRS.index("Brown_Hair")] = 2 * brown - 1
        attr_lines.append(name + " " + " ".join(f"{v:2d}" for v in vals))  # the real file pads with spaces
        part_lines.append(f"{name} {part}")
        id_lines.append(f"{name} {int(rng.integers(1, 100))}")
        bbox.append(f"{name}    95  71 226 313")
        marks.append(f"{name} 69  109  106  113   77  142   73  152  108  154")
    (folder / "list_attr_celeba.txt").write_text("\n".join(attr_lines) + "\n")
    (folder / "list_eval_partition.txt").write_text("\n".join(part_lines) + "\n")
    (folder / "identity_CelebA.txt").write_text("\n".join(id_lines) + "\n")
    (folder / "list_bbox_celeba.txt").write_text("\n".join(bbox) + "\n")
    (folder / "list_landmarks_align_celeba.txt").write_text("\n".join(marks) + "\n")
    return folder


def test_celeba_fixture_selects_blond_vs_brown_like_torchvision(tmp_path, monkeypatch):
    from torchvision import transforms
    from torchvision.datasets import CelebA

    make_celeba(tmp_path)
    d = LOADERS["celeba"](_cfg(tmp_path, "celeba", train_multiple=200, split_seed=0))
    # train: partition 0 with exactly one of blond/brown: rows 0,1,4,5,6,7,8,9; test rows 12,13,15
    assert d.x_train.shape == (8, 3, 64, 64) and d.x_test.shape == (3, 3, 64, 64) and d.n_classes == 2
    assert d.y_train.tolist() == [1, 0, 1, 0, 0, 1, 0, 1] and d.y_test.tolist() == [0, 1, 0]
    # torchvision's CelebA on the same files (MD5 checks off), same transforms and selection
    monkeypatch.setattr(CelebA, "_check_integrity", lambda self: True)
    tf = transforms.Compose([transforms.Resize(64), transforms.CenterCrop(64), transforms.ToTensor()])
    for split, x, y in (("train", d.x_train, d.y_train), ("test", d.x_test, d.y_test)):
        tv = CelebA(tmp_path, split=split, transform=tf)
        blond, brown = tv.attr[:, 9], tv.attr[:, 11]
        keep = torch.nonzero(blond + brown == 1)[:, 0].tolist()
        torch.testing.assert_close(torch.stack([tv[i][0] for i in keep]), x, rtol=0, atol=0)
        assert blond[keep].tolist() == y.tolist()
    # train_multiple keeps a seeded subset of whole batches
    d4 = LOADERS["celeba"](_cfg(tmp_path, "celeba", train_multiple=3, split_seed=0))
    assert d4.x_train.shape[0] == 6 and d4.x_test.shape[0] == 3


def make_celeba_kaggle(root, seed=0):
    """The common Kaggle copy of Celeb-A: list_attr_celeba.csv and list_eval_partition.csv (CSV
    with a header row), list_bbox_celeba.csv, and the images in the nested folder
    img_align_celeba/img_align_celeba/; the same images and labels as ``make_celeba``."""
    import csv

    src = make_celeba(root / "torchvision", seed)
    (root / "img_align_celeba").mkdir(parents=True)
    (src / "img_align_celeba").rename(root / "img_align_celeba" / "img_align_celeba")
    attr = (src / "list_attr_celeba.txt").read_text().splitlines()
    with open(root / "list_attr_celeba.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image_id", *attr[1].split()])
        w.writerows(line.split() for line in attr[2:])
    with open(root / "list_eval_partition.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image_id", "partition"])
        w.writerows(line.split() for line in (src / "list_eval_partition.txt").read_text().splitlines())
    (root / "list_bbox_celeba.csv").write_text("image_id,x_1,y_1,width,height\n000001.jpg,95,71,226,313\n")
    return root


def test_celeba_kaggle_copy_reads_like_torchvision_layout(tmp_path):
    """Kaggle's CSV lists and nested image folder, in data_dir or data_dir/celeba, give exactly the
    tensors of torchvision's layout; n_train / n_test keep seeded subsets of them."""
    make_celeba(tmp_path / "tv")
    want = LOADERS["celeba"](_cfg(tmp_path / "tv", "celeba", train_multiple=200, split_seed=0))
    for root in (tmp_path / "kaggle", tmp_path / "kaggle2" / "celeba"):
        make_celeba_kaggle(root)
        data_dir = root if root.name == "kaggle" else root.parent
        got = LOADERS["celeba"](_cfg(data_dir, "celeba", train_multiple=200, split_seed=0))
        for k in ("x_train", "y_train", "x_test", "y_test"):
            torch.testing.assert_close(getattr(got, k), getattr(want, k), rtol=0, atol=0)
    assert got.y_train.tolist() == [1, 0, 1, 0, 0, 1, 0, 1]
    sub = LOADERS["celeba"](_cfg(tmp_path / "kaggle", "celeba", train_multiple=1, split_seed=0, n_train=5, n_test=2))
    assert sub.x_train.shape[0] == 5 and sub.x_test.shape[0] == 2
    rows = [i for i in range(8) if any(torch.equal(sub.x_train[j], want.x_train[i]) for j in range(5))]
    assert len(rows) == 5 and sub.y_train.tolist() == want.y_train[rows].tolist()


def test_celeba_smoke_run(tmp_path):
    make_celeba(tmp_path / "data")
    pred = _smoke(tmp_path, "celeba", "cnn_celeba", ["batch_size=2", "model.n_calibration=4"])
    assert pred.shape == (2, 5, 3, 2)


# ------------------------------------------------------------------------------ chest X-ray
def make_chestxray(root, counts=None, seed=0):
    """chest_xray/{train,test}/{NORMAL,PNEUMONIA}/*.jpeg of varying sizes, RGB and grayscale
    (as in the real release), plus a .DS_Store that must be skipped."""
    rng = np.random.default_rng(seed)
    counts = counts or {
        ("train", "PNEUMONIA"): 3,
        ("train", "NORMAL"): 2,
        ("test", "PNEUMONIA"): 2,
        ("test", "NORMAL"): 2,
    }
    for (split, cls), n in counts.items():
        folder = root / "chest_xray" / split / cls
        folder.mkdir(parents=True)
        (folder / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
        for i in range(n):
            h, w = int(rng.integers(200, 260)), int(rng.integers(220, 300))
            shape = (h, w, 3) if i % 2 else (h, w)
            Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8)).save(folder / f"{cls[:1]}{i:04d}.jpeg")
    return root / "chest_xray"


def test_chestxray_fixture_augments_offline(tmp_path):
    from torchvision import transforms

    folder = make_chestxray(tmp_path)
    cfg = dict(copies={"PNEUMONIA": 2, "NORMAL": 3}, n_train=None, n_test=None, augment_seed=0, image_size=180)
    d = LOADERS["chestxray"](_cfg(tmp_path, "chestxray", **cfg))
    # 3 PNEUMONIA x 2 + 2 NORMAL x 3 augmented copies, originals not kept; labels PNEUMONIA 0, NORMAL 1
    assert d.x_train.shape == (12, 1, 180, 180) and d.x_train.dtype == torch.float32
    assert sorted(d.y_train.tolist()) == [0] * 6 + [1] * 6
    assert d.x_train.min() >= 0.0 and d.x_train.max() <= 1.0
    # copies of one image differ (random crops); the set is reproducible from the seed
    assert len({tuple(x.flatten()[:2000].tolist()) for x in d.x_train}) == 12
    d2 = LOADERS["chestxray"](_cfg(tmp_path, "chestxray", **cfg))
    torch.testing.assert_close(d.x_train, d2.x_train, rtol=0, atol=0)
    # test images: grayscale + Resize((180, 180)) + ToTensor, no augmentation, sorted per class
    tf = transforms.Compose([transforms.Resize((180, 180), antialias=True), transforms.ToTensor()])
    files = sorted((folder / "test" / "PNEUMONIA").glob("*.jpeg")) + sorted((folder / "test" / "NORMAL").glob("*.jpeg"))
    want = torch.stack([tf(Image.open(f).convert("L")) for f in files])
    torch.testing.assert_close(d.x_test, want, rtol=0, atol=0)
    assert d.y_test.tolist() == [0, 0, 1, 1]
    # n_train tops the pool up (one more copy of random images) or cuts it; n_test subsets
    up = LOADERS["chestxray"](_cfg(tmp_path, "chestxray", **(cfg | {"n_train": 15, "n_test": 3})))
    assert up.x_train.shape[0] == 15 and up.x_test.shape[0] == 3 and int((up.y_train == 0).sum()) >= 6
    cut = LOADERS["chestxray"](_cfg(tmp_path, "chestxray", **(cfg | {"n_train": 10})))
    assert cut.x_train.shape[0] == 10
    with pytest.raises(UserError, match="dataset.copies"):
        LOADERS["chestxray"](_cfg(tmp_path, "chestxray", **(cfg | {"copies": {"COVID": 2}})))


def test_chestxray_smoke_run(tmp_path):
    make_chestxray(tmp_path / "data")
    pred = _smoke(
        tmp_path,
        "chestxray",
        "cnn_chestxray",
        [
            "batch_size=2",
            "model.n_calibration=4",
            "dataset.n_train=null",
            "dataset.copies.PNEUMONIA=2",
            "dataset.copies.NORMAL=2",
        ],
    )  # fmt: skip  (3 x 2 + 2 x 2 = 10 training images: batches of 2 cover them)
    assert pred.shape == (2, 5, 4, 2)


# ------------------------------------------------------------------------------ missing files
@pytest.mark.parametrize(
    "name,words",
    [("fmnist", ["train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz", "FashionMNIST/raw", "download=true"]),
     ("cifar10", ["data_batch_1", "test_batch", "cifar-10-batches-py", "download=true"]),
     ("celeba", ["img_align_celeba/", "list_attr_celeba.txt", "list_eval_partition.txt", "download=true",
                 "img_align_celeba/img_align_celeba/", "list_attr_celeba.csv", "list_eval_partition.csv"]),
     ("chestxray", ["chest_xray", "NORMAL", "PNEUMONIA", "train", "test"])],
)  # fmt: skip
def test_missing_files_name_the_expected_files(tmp_path, name, words):
    with pytest.raises(DataMissingError) as e:
        LOADERS[name](_cfg(tmp_path / "empty", name))
    msg = str(e.value)
    assert "\n" not in msg and all(w in msg for w in words), msg


def test_missing_chestxray_class_folder_is_named(tmp_path):
    make_chestxray(tmp_path, counts={("train", "PNEUMONIA"): 1, ("train", "NORMAL"): 1, ("test", "PNEUMONIA"): 1})
    with pytest.raises(DataMissingError, match="test/NORMAL"):
        LOADERS["chestxray"](_cfg(tmp_path, "chestxray"))


def test_missing_celeba_files_cli_one_line(cli, tmp_path):
    out = cli("run", "dataset=celeba", f"data_dir={tmp_path / 'data'}", f"hydra.run.dir={tmp_path / 'run'}")
    assert out.returncode != 0 and "Traceback" not in out.stderr
    lines = [ln for ln in out.stderr.splitlines() if "list_attr_celeba.txt" in ln]
    assert len(lines) == 1 and "img_align_celeba" in lines[0], out.stderr


# ----------------------------------------------------------------------------- MNIST 7 vs 9
def test_mnist79_pca_offline():
    cfg = OmegaConf.create({"name": "mnist79_pca", "components": 20, "constant": True, "standardize": True,
                            "n_test": 200, "split_seed": 0})  # fmt: skip
    d = LOADERS["mnist79_pca"](cfg)
    assert d.x_train.shape == (800, 21) and d.x_test.shape == (200, 21) and d.n_classes == 2
    assert int(d.y_train.sum()) == 400 and int(d.y_test.sum()) == 100  # 500 sevens, 500 nines, stratified
    assert torch.all(d.x_train[:, 0] == 1) and torch.all(d.x_test[:, 0] == 1)
    z = d.x_train[:, 1:]
    torch.testing.assert_close(z.mean(0), torch.zeros(20, dtype=torch.float64), atol=1e-10, rtol=0)
    torch.testing.assert_close(z.std(0, unbiased=False), torch.ones(20, dtype=torch.float64), atol=1e-10, rtol=0)
    cov = z.T @ z / z.shape[0]  # principal component scores are uncorrelated
    torch.testing.assert_close(cov, torch.eye(20, dtype=torch.float64), atol=1e-10, rtol=0)
    b = d.extras["pca_basis"]
    torch.testing.assert_close(b.T @ b, torch.eye(20, dtype=torch.float64), atol=1e-10, rtol=0)
    sek = LOADERS["mnist79_pca"](OmegaConf.merge(cfg, {"components": 100, "constant": False}))
    assert sek.x_train.shape == (800, 100)
    with pytest.raises(UserError, match="dataset.components"):
        LOADERS["mnist79_pca"](OmegaConf.merge(cfg, {"components": 5000}))


def test_mnist79_pca_smoke_run(tmp_path):
    path, cfg = run_inprocess(tmp_path, ["dataset=mnist79_pca", "chains=2", "unit=step", "burn_in=5", "samples=5"])
    assert cfg.model.name == "logistic_regression" and cfg.model.prior_precision == 0.01
    with SampleStore(path) as s:
        assert s.theta().shape == (2, 5, 21) and np.isfinite(s.theta()).all()
        assert s.predictive().shape == (2, 5, 200, 2) and not s.diverged().any()
