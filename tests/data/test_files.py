"""dataset=files: the user's .npz, .csv and image folders; every bad file is one line naming the
file and what is wrong, and nothing is sampled."""

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf

from bnnsample.data import load_data
from bnnsample.plumbing.errors import UserError


def _load(**ds):
    return load_data(OmegaConf.create({"dataset": {"name": "files", **ds}}))


@pytest.fixture
def tables(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3)) * [1.0, 10.0, 0.1] + [0.0, 5.0, -1.0]
    labels = (x[:, 0] > 0).astype(np.int64) + (x[:, 2] > -1).astype(np.int64)  # 0, 1, 2
    target = x @ [1.0, 0.2, 3.0] + 7.0
    np.savez(tmp_path / "cls.npz", x=x, y=labels)
    np.savetxt(tmp_path / "reg.csv", np.c_[target, x], delimiter=",", header="t,a,b,c", comments="")
    np.savetxt(tmp_path / "reg_test.csv", np.c_[target[:10], x[:10]], delimiter=",", header="t,a,b,c", comments="")
    return tmp_path, x, labels, target


def test_npz_classification_seeded_stratified_split(tables):
    d, x, labels, _ = tables
    a = _load(train=str(d / "cls.npz"), test_fraction=0.2, split_seed=3)
    b = _load(train=str(d / "cls.npz"), test_fraction=0.2, split_seed=3)
    c = _load(train=str(d / "cls.npz"), test_fraction=0.2, split_seed=4)
    assert a.task == "classification" and a.n_classes == 3  # inferred: integer labels
    assert a.x_train.shape == (40, 3) and a.x_test.shape == (10, 3) and a.y_train.dtype == torch.int64
    assert torch.equal(a.x_train, b.x_train) and not torch.equal(a.x_train, c.x_train)
    # standardised with the training statistics, as the UCI sets
    assert torch.allclose(a.x_train.mean(0), torch.zeros(3), atol=1e-6)
    assert torch.allclose(a.x_train.std(0, unbiased=False), torch.ones(3), atol=1e-5)
    tr, te = a.extras["train_index"].numpy(), a.extras["test_index"].numpy()
    np.testing.assert_allclose(a.x_test.numpy(), (x[te] - x[tr].mean(0)) / x[tr].std(0), rtol=1e-5, atol=1e-6)
    assert sorted(np.unique(labels[te])) == [0, 1, 2]  # stratified: every class in the test set


def test_csv_regression_target_column_and_test_file(tables):
    d, x, _, target = tables
    a = _load(train=str(d / "reg.csv"), test=str(d / "reg_test.csv"), target="t")
    assert a.task == "regression" and a.extras["features"] == ["a", "b", "c"]
    assert a.x_train.shape == (50, 3) and a.x_test.shape == (10, 3)
    np.testing.assert_allclose(a.y_test.numpy(), target[:10], rtol=1e-6)  # original units
    np.testing.assert_allclose(a.y_train.numpy(), (target - target.mean()) / target.std(), rtol=1e-5, atol=1e-6)
    assert a.extras["y_mean"] == pytest.approx(target.mean())
    by_index = _load(train=str(d / "reg.csv"), test=str(d / "reg_test.csv"), target=0)
    assert torch.equal(by_index.x_train, a.x_train)


def test_image_folder(tmp_path):
    from PIL import Image

    rng = np.random.default_rng(1)
    for split, n in (("train", 4), ("test", 2)):
        for cls in ("cat", "dog"):
            (tmp_path / split / cls).mkdir(parents=True)
            for i in range(n):
                pixels = rng.integers(0, 256, size=(6, 5), dtype=np.uint8)
                Image.fromarray(pixels, mode="L").save(tmp_path / split / cls / f"{i}.png")
    d = _load(train=str(tmp_path / "train"), test=str(tmp_path / "test"))
    assert d.task == "classification" and d.n_classes == 2 and d.extras["classes"] == ["cat", "dog"]
    assert d.x_train.shape == (8, 1, 6, 5) and float(d.x_train.min()) >= 0 and float(d.x_train.max()) <= 1
    assert d.y_train.tolist() == [0] * 4 + [1] * 4


def _bad_files(tmp_path):
    """(overrides of dataset, the text its one line must hold), one per kind of bad file."""
    from PIL import Image

    rng = np.random.default_rng(2)
    x = rng.normal(size=(20, 2))
    np.savez(tmp_path / "no_y.npz", x=x)
    np.savez(tmp_path / "ragged.npz", x=np.array([[1.0, 2.0], [3.0]], dtype=object), y=np.zeros(2))
    (tmp_path / "ragged.csv").write_text("a,b,y\n1,2,0\n3,1\n")
    (tmp_path / "text.csv").write_text("a,b,y\n1,2,0\n3,x,1\n")
    (tmp_path / "labels.csv").write_text("a,b,y\n1,2,cat\n3,1,dog\n")
    (tmp_path / "nan.csv").write_text("a,b,y\n1,2,0\n3,,1\n4,5,1\n")
    np.savez(tmp_path / "inf.npz", x=np.where(np.arange(40).reshape(20, 2) == 7, np.inf, x), y=np.zeros(20))
    np.savez(tmp_path / "labels.npz", x=x, y=np.arange(20) % 3 + 1)  # 1, 2, 3
    np.savez(tmp_path / "ok.npz", x=x, y=np.arange(20) % 2)
    np.savez(tmp_path / "wide.npz", x=rng.normal(size=(5, 3)), y=np.arange(5) % 2)
    np.savez(tmp_path / "rows.npz", x=x, y=np.zeros(19))
    (tmp_path / "data.txt").write_text("1 2 3\n")
    for cls, size in (("a", (4, 4)), ("b", (5, 4))):
        (tmp_path / "imgs" / cls).mkdir(parents=True)
        Image.fromarray(np.zeros(size[::-1], dtype=np.uint8)).save(tmp_path / "imgs" / cls / "0.png")
    return [
        ({"train": "no_y.npz"}, "dataset.train={}/no_y.npz: missing array y"),
        ({"train": "ragged.npz"}, "ragged.npz: not numeric arrays"),
        ({"train": "ragged.csv"}, "ragged.csv: ragged rows: line 3 has 2 fields"),
        ({"train": "text.csv"}, "text.csv: line 3: column b 'x' is not a number"),
        ({"train": "labels.csv"}, "labels.csv: line 2: the target 'cat' is not a number (classification labels"),
        ({"train": "nan.csv"}, "nan.csv: non-finite inputs (row 1"),
        ({"train": "inf.npz"}, "inf.npz: non-finite inputs (row 3"),
        ({"train": "labels.npz"}, "labels.npz: classification labels must be 0..K-1"),
        ({"train": "ok.npz", "test": "labels.npz"}, "dataset.test={}/labels.npz: classification labels must be 0..K-1"),
        ({"train": "ok.npz", "test": "wide.npz"}, "wide.npz: other features than the training set's (shape [3]"),
        ({"train": "rows.npz"}, "rows.npz: x has 20 rows and y has 19"),
        ({"train": "missing.csv"}, "dataset.train={}/missing.csv: no such file or folder"),
        ({"train": "data.txt"}, "data.txt: unknown format .txt"),
        ({"train": "imgs"}, "imgs: images of different sizes (a/0.png is 4x4, b/0.png is 5x4, width x height)"),
        ({"train": "ok.npz", "task": "regressoin"}, "dataset.task=regressoin: allowed values: classification"),
    ]


def test_every_bad_file_is_one_line(tmp_path):
    for ds, expected in _bad_files(tmp_path):
        paths = {k: str(tmp_path / v) if k in ("train", "test") else v for k, v in ds.items()}
        with pytest.raises(UserError) as e:
            _load(**paths)
        msg = str(e.value)
        assert expected.format(tmp_path) in msg and "\n" not in msg, (ds, msg)


def test_csv_header_mismatch_is_named(tmp_path):
    (tmp_path / "a.csv").write_text("a,b,y\n1,2,0.5\n3,1,0.25\n2,2,1.5\n")
    (tmp_path / "b.csv").write_text("a,c,y\n1,2,0.5\n")
    with pytest.raises(
        UserError, match=r"dataset.test=.*b.csv: other columns than the training set's \(a, c against a, b\)"
    ):
        _load(train=str(tmp_path / "a.csv"), test=str(tmp_path / "b.csv"))


def test_bad_file_through_the_command_line(tmp_path, inprocess, capsys):
    """`bnnsample run dataset=files` on a bad file: exit 2, the one line on stderr, no run left behind."""
    np.savez(tmp_path / "no_y.npz", x=np.zeros((10, 2)))
    run_dir = tmp_path / "run"
    code = inprocess("run", "model=custom", "model.net._target_=examples.usernets.TwoLayerNet", "+model.net.d_in=2",
                     "dataset=files", f"dataset.train={tmp_path / 'no_y.npz'}", f"hydra.run.dir={run_dir}")  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err == [f"bnnsample: error: dataset.train={tmp_path / 'no_y.npz'}: missing array y (the .npz holds: x; "
                   "save it with numpy.savez(path, x=X, y=Y))"]  # fmt: skip
    assert not (run_dir / "samples.h5").exists()


def test_standardize_false_keeps_the_numbers(tables):
    d, x, _, target = tables
    a = _load(train=str(d / "reg.csv"), test=str(d / "reg_test.csv"), target="t", standardize=False)
    np.testing.assert_allclose(a.x_train.numpy(), x, rtol=1e-6)
    np.testing.assert_allclose(a.y_train.numpy(), target, rtol=1e-6)
    assert "y_std" not in a.extras and a.y_test.dtype == torch.float32
    with pytest.raises(UserError, match="dataset.standardize=maybe: allowed values: true, false"):
        _load(train=str(d / "reg.csv"), standardize="maybe")
