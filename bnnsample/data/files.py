"""``dataset=files``: a user's own data, read from files.

``dataset.train=PATH`` and ``dataset.test=PATH`` (or, without a test file, a seeded split of
the training file: ``dataset.test_fraction`` of it, ``dataset.split_seed``, stratified by class
for classification), each in one of three formats, told apart by the path:

    *.npz     arrays ``x`` [N, ...] and ``y`` [N] (numpy.savez)
    *.csv     one row per datum, comma-separated numbers, an optional header line; the
              target is the column ``dataset.target`` (a header name or a column index,
              negative from the end; default the last), the features the other columns
    DIR/      an image folder in torchvision's ``ImageFolder`` layout: one subfolder per class
              (class k = the k-th subfolder name in sorted order), every image of one size

``dataset.task`` (classification | regression) is inferred when null: classification when
every label is an integer, regression otherwise (an integer-valued regression target needs
``dataset.task=regression``). Classification labels must be 0..K-1, every class present in
the training set; K = ``n_classes``. Tabular inputs (npz with x [N, D], csv) are preprocessed as
the UCI sets are (``uci.standardised``: standardised with the training statistics, regression
targets standardised, test targets in original units; ``dataset.standardize=false``: as given);
images are scaled to [0, 1] as the packaged image sets are, shape [N, C, H, W] (C = 1 when
every image is grayscale, else 3).

A file that cannot be used is refused before anything is sampled, in one line naming the file
and what is wrong: missing file or array, ragged rows, non-numeric or non-finite values, labels
that are not 0..K-1, a test set whose features differ from the training set's.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import torch

from ..plumbing.errors import DataMissingError, UserError
from . import register
from .base import Data
from .uci import _int_key, split_indices, standardised

TASKS = ("classification", "regression")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp", ".ppm", ".pgm")
PATH_KEYS = ("train", "test")  # made absolute in the stored config (data/__init__.absolute_paths)


class BadFile(UserError):
    """A data file that cannot be used: ``dataset.KEY=PATH: what is wrong``."""

    def __init__(self, key: str, path, what: str):
        super().__init__(f"dataset.{key}={path}: {what}")


# -- readers: (x, y) as numpy arrays ---------------------------------------------------------
def _read_npz(key: str, path: Path, cfg):
    try:
        with np.load(path, allow_pickle=False) as f:
            names = list(f.files)
            missing = [a for a in ("x", "y") if a not in names]
            if missing:
                raise BadFile(key, path, f"missing array {' and '.join(missing)} (the .npz holds: "
                                         f"{', '.join(names) or 'nothing'}; save it with numpy.savez(path, x=X, y=Y))")  # fmt: skip
            x, y = f["x"], f["y"]
    except BadFile:
        raise
    except ValueError as e:  # object arrays (ragged rows) cannot be loaded without pickle
        raise BadFile(key, path, f"not numeric arrays ({str(e).splitlines()[0]}): ragged rows or objects") from None
    except (OSError, EOFError) as e:
        raise BadFile(key, path, f"not a readable .npz file ({str(e).splitlines()[0]})") from None
    for name, a in (("x", x), ("y", y)):
        if not (np.issubdtype(a.dtype, np.number) or a.dtype == bool):
            raise BadFile(key, path, f"array {name} is not numeric (dtype {a.dtype})")
    if x.ndim < 2:
        raise BadFile(key, path, f"array x has shape {x.shape}; expected [N, features...]")
    if y.ndim != 1 and not (y.ndim == 2 and y.shape[1] == 1):
        raise BadFile(key, path, f"array y has shape {y.shape}; expected [N]")
    y = y.reshape(-1)
    if len(y) != len(x):
        raise BadFile(key, path, f"x has {len(x)} rows and y has {len(y)}")
    return x.astype(np.float64), y, None


def _number(text: str) -> float:
    return float(text) if text.strip() else float("nan")


def _csv_rows(key: str, path: Path) -> tuple[list[str] | None, list[list[str]]]:
    """(the header, or None when the first row is numbers; the non-empty data rows, all of one width)."""
    try:
        with open(path, newline="") as fh:
            rows = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise BadFile(key, path, f"not a readable CSV file ({e})") from None
    if not rows:
        raise BadFile(key, path, "no rows")
    header = None
    try:
        [_number(c) for c in rows[0]]
    except ValueError:
        header, rows = [c.strip() for c in rows[0]], rows[1:]
    if not rows:
        raise BadFile(key, path, "a header and no data rows")
    width = len(header) if header else len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != width:
            line = i + 1 + (header is not None)
            raise BadFile(key, path, f"ragged rows: line {line} has {len(r)} fields, line 1 has {width}")
    return header, rows


def _target_column(path: Path, cfg, header: list[str] | None, width: int) -> int:
    """The index of ``dataset.target`` (a column name or index; default the last column)."""
    target = cfg.get("target")
    if target is None:
        return width - 1
    if header is not None and str(target) in header:
        return header.index(str(target))
    try:
        col = int(target)
    except (TypeError, ValueError):
        raise UserError(f"dataset.target={target}: no such column in {path} (columns: "
                        f"{', '.join(header) if header else f'0..{width - 1}, no header'})") from None  # fmt: skip
    if not -width <= col < width:
        raise UserError(f"dataset.target={target}: {path} has {width} columns")
    return col % width


def _read_csv(key: str, path: Path, cfg):
    header, rows = _csv_rows(key, path)
    width = len(rows[0])
    col = _target_column(path, cfg, header, width)
    if width < 2:
        raise BadFile(key, path, "one column: needs at least one feature and the target")
    table = np.empty((len(rows), width))
    for i, r in enumerate(rows):
        try:
            table[i] = [_number(c) for c in r]
        except ValueError:
            j = next(j for j, c in enumerate(r) if not _is_number(c))
            line = i + 1 + (header is not None)
            what = "the target" if j == col else f"column {header[j] if header else j}"
            hint = " (classification labels must be the numbers 0..K-1)" if j == col else ""
            raise BadFile(key, path, f"line {line}: {what} {r[j].strip()!r} is not a number{hint}") from None
    names = None if header is None else [h for j, h in enumerate(header) if j != col]
    return np.delete(table, col, axis=1), table[:, col], names


def _is_number(text: str) -> bool:
    try:
        _number(text)
        return True
    except ValueError:
        return False


def _class_files(key: str, path: Path) -> tuple[list[str], list[tuple[int, Path]]]:
    """The class subfolders of an image folder (sorted: their index is the label) and its image files
    as (label, file); refused without classes or with a class that holds no image."""
    classes = sorted(p.name for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not classes:
        raise BadFile(
            key, path, "a folder without class subfolders (expected DIR/CLASS/IMAGE, one subfolder per class)"
        )
    files = [(k, f) for k, c in enumerate(classes) for f in sorted((path / c).iterdir())
             if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES]  # fmt: skip
    empty = [c for k, c in enumerate(classes) if not any(kk == k for kk, _ in files)]
    if empty:
        raise BadFile(key, path, f"class folder {empty[0]} holds no image ({', '.join(IMAGE_SUFFIXES)})")
    return classes, files


def _read_images(key: str, path: Path, cfg):
    from PIL import Image, UnidentifiedImageError

    classes, files = _class_files(key, path)
    images = []
    for _, f in files:
        try:
            with Image.open(f) as im:
                images.append(im.convert("L") if im.mode in ("1", "L", "I;16", "I") else im.convert("RGB"))
        except (UnidentifiedImageError, OSError) as e:
            raise BadFile(key, path, f"{f.relative_to(path)} is not a readable image ({e})") from None
    other = next((i for i, im in enumerate(images) if im.size != images[0].size), None)
    if other is not None:
        (w0, h0), (w1, h1), f0, f1 = images[0].size, images[other].size, files[0][1], files[other][1]
        raise BadFile(key, path, f"images of different sizes ({f0.relative_to(path)} is {w0}x{h0}, "
                                 f"{f1.relative_to(path)} is {w1}x{h1}, width x height); resize them to one size")  # fmt: skip
    rgb = any(im.mode == "RGB" for im in images)
    arrays = [np.asarray(im.convert("RGB") if rgb else im, dtype=np.float64) / 255.0 for im in images]
    x = np.stack([a.transpose(2, 0, 1) if rgb else a[None] for a in arrays])
    return x, np.array([k for k, _ in files], dtype=np.int64), classes


def _read(key: str, cfg):
    value = cfg.get(key)
    if not isinstance(value, str) or not value:
        raise UserError(f"dataset.{key}={value}: give a path (.npz with arrays x and y, .csv, or an image folder)")
    path = Path(value).expanduser()
    if not path.exists():
        raise DataMissingError(f"dataset.{key}={value}: no such file or folder")
    if path.is_dir():
        x, y, names = _read_images(key, path, cfg)
        kind = "images"
    elif path.suffix.lower() == ".npz":
        (x, y, names), kind = _read_npz(key, path, cfg), "npz"
    elif path.suffix.lower() == ".csv":
        (x, y, names), kind = _read_csv(key, path, cfg), "csv"
    else:
        raise BadFile(key, value, f"unknown format {path.suffix or '(no suffix)'}: allowed .npz, .csv, an image folder")
    if len(y) == 0:
        raise BadFile(key, value, "no data")
    for name, a in (("x", x), ("y", y)):
        if not np.all(np.isfinite(a)):
            where = np.argwhere(~np.isfinite(a))[0]
            what = "inputs" if name == "x" else "targets"
            raise BadFile(key, value, f"non-finite {what} (row {int(where[0])}: {a[tuple(where)]}); "
                                      "remove or fill missing values")  # fmt: skip
    return x, y.astype(np.float64), names, kind


def _task(cfg, y_tr: np.ndarray) -> str:
    task = cfg.get("task")
    if task is None:
        return "classification" if np.all(y_tr == np.round(y_tr)) else "regression"
    if task not in TASKS:
        raise UserError(f"dataset.task={task}: allowed values: {', '.join(TASKS)} (or null: inferred)")
    return task


def _labels(key: str, path, y: np.ndarray, n_classes: int | None) -> np.ndarray:
    """Integer labels 0..K-1 (K = n_classes, or max + 1 with every class present)."""
    if not np.all(y == np.round(y)):
        bad = y[y != np.round(y)][0]
        raise BadFile(key, path, f"classification labels must be integers 0..K-1; found {bad:g} "
                                 "(set dataset.task=regression for a numeric target)")  # fmt: skip
    labels = y.astype(np.int64)
    found = np.unique(labels)
    k = n_classes if n_classes is not None else int(found.max()) + 1
    if found.min() < 0 or found.max() >= k or (n_classes is None and len(found) != k):
        shown = ", ".join(str(v) for v in found[:8]) + (", ..." if len(found) > 8 else "")
        raise BadFile(key, path, f"classification labels must be 0..K-1, every class present; found {shown} "
                                 "(relabel them, or set dataset.task=regression for a numeric target)")  # fmt: skip
    return labels


def _given_test(cfg, x_tr, names_tr, kind: str):
    """The test set of ``dataset.test``, refused when its features (or classes) are not the training set's."""
    x_te, y_te, names_te, _ = _read("test", cfg)
    if x_te.shape[1:] != x_tr.shape[1:]:
        what = f"shape {list(x_te.shape[1:])} against {list(x_tr.shape[1:])}"
        raise BadFile("test", cfg.test, f"other features than the training set's ({what})")
    if None not in (names_te, names_tr) and names_te != names_tr:
        what = "classes" if kind == "images" else "columns"
        raise BadFile("test", cfg.test, f"other {what} than the training set's ({', '.join(names_te)} against "
                                        f"{', '.join(names_tr)})")  # fmt: skip
    return x_te, y_te


def _split_off(cfg, x_tr, y_tr, task: str, extras: dict):
    """A seeded test split of ``dataset.test_fraction`` of the training file (stratified for classes
    with at least two members each); the indices go to ``extras``. ((x_tr, y_tr, x_te, y_te), text)."""
    frac = cfg.get("test_fraction", 0.2)
    if not (isinstance(frac, (int, float)) and not isinstance(frac, bool) and 0 < frac < 1):
        raise UserError(f"dataset.test_fraction={frac}: must be a number in (0, 1) (or give dataset.test=PATH)")
    n = len(y_tr)
    if n < 3:
        raise BadFile("train", cfg.train, f"{n} rows: too few to split off a test set")
    n_test = min(max(1, round(frac * n)), n - 2)
    seed = _int_key(cfg, "split_seed", 0, default=0)
    strata = None
    if task == "classification":
        counts = np.unique(y_tr, return_counts=True)[1]
        strata = y_tr if counts.min() >= 2 and n_test >= len(counts) else None
    tr, te = split_indices(n, n_test, seed, 0, strata)
    extras.update(train_index=torch.as_tensor(tr), test_index=torch.as_tensor(te))
    text = f"seeded split (split_seed {seed}, test_fraction {frac:g}): {len(tr)} train / {len(te)} test"
    return (x_tr[tr], y_tr[tr], x_tr[te], y_tr[te]), text


@register("files", paths=PATH_KEYS)
def files(cfg) -> Data:
    """The user's files (module docstring)."""
    x_tr, y_tr, names_tr, kind = _read("train", cfg)
    task = _task(cfg, y_tr)
    extras: dict = {}
    if cfg.get("test") is not None:
        x_te, y_te = _given_test(cfg, x_tr, names_tr, kind)
        split = f"{len(y_tr)} train / {len(y_te)} test"
    else:
        (x_tr, y_tr, x_te, y_te), split = _split_off(cfg, x_tr, y_tr, task, extras)
    n_classes = None
    if task == "classification":
        y_tr = _labels("train", cfg.train, y_tr, None)
        n_classes = int(y_tr.max()) + 1
        y_te = _labels("test" if cfg.get("test") is not None else "train", cfg.get("test") or cfg.train, y_te,
                       n_classes)  # fmt: skip
    if cfg.get("noise_var") is not None and task == "regression":
        extras["noise_var"] = float(cfg.noise_var)
    if names_tr is not None:
        extras["features" if kind != "images" else "classes"] = list(names_tr)
    description = f"{cfg.train} ({kind}, {task}"
    description += f", {n_classes} classes); {split}" if n_classes else f"); {split}"
    standardise = cfg.get("standardize", True)
    if not isinstance(standardise, bool):
        raise UserError(f"dataset.standardize={standardise}: allowed values: true, false")
    if kind == "images" or x_tr.ndim != 2 or not standardise:
        # images (and an npz of images [N, C, H, W]) as scaled above or by the user; tabular data
        # as given with dataset.standardize=false
        y_dtype = torch.long if n_classes else torch.float32

        def y_cast(v):
            return torch.as_tensor(v, dtype=y_dtype)

        return Data(name="files", task=task, x_train=torch.as_tensor(x_tr, dtype=torch.float32), y_train=y_cast(y_tr),
                    x_test=torch.as_tensor(x_te, dtype=torch.float32), y_test=y_cast(y_te), n_classes=n_classes,
                    extras=extras, description=description)  # fmt: skip
    return standardised("files", task, x_tr, y_tr, x_te, y_te, n_classes, extras, description)
