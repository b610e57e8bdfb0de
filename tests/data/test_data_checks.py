"""Data files are checked when they are read: a NaN or Inf, an IDX header of other dimensions, a
label out of range is refused in one line naming the file, the line (row) and the column, before
anything is sampled; never a run whose chains all "diverge", nor an error inside the network."""

import numpy as np
import pytest
import torch

from bnnsample.data import LOADERS
from bnnsample.data.base import Data, check
from bnnsample.data.uci import FILES
from bnnsample.plumbing.errors import UserError

from .test_images import _cfg, make_cifar10, make_fmnist, write_idx
from .test_uci import load, write_fixture


def put(path, line: int, column: int, value: str, sep: str) -> None:
    """Replace the value at ``line``, ``column`` (from 1) of a text table."""
    lines = path.read_text().splitlines()
    cells = lines[line - 1].split(sep.strip() or None)
    cells[column - 1] = value
    lines[line - 1] = (sep.strip() or " ").join(cells)
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
@pytest.mark.parametrize("column", [3, 7], ids=["input", "target"])
def test_a_non_finite_value_in_a_uci_table_is_named_by_file_line_and_column(tmp_path, value, column):
    write_fixture("yacht", tmp_path, np.random.default_rng(0), variant=1)
    path = tmp_path / FILES["yacht"][1]
    path.write_text("\n" + path.read_text())  # a blank first line: lines, not rows, are counted
    put(path, 6, column, value, " ")
    with pytest.raises(UserError) as e:
        load("yacht", [f"data_dir={tmp_path}"])
    assert str(e.value).startswith(f"{path}: line 6, column {column} is {value} (not a finite number)")
    assert "\n" not in str(e.value)


def test_a_non_finite_value_in_a_csv_file_is_named(tmp_path):
    write_fixture("ionosphere", tmp_path, np.random.default_rng(0))
    path = tmp_path / FILES["ionosphere"][0]
    put(path, 3, 10, "NaN", ",")
    with pytest.raises(UserError, match=rf"^{path}: line 3, column 10 is nan \(not a finite number\)"):
        load("ionosphere", [f"data_dir={tmp_path}"])


def test_a_non_finite_value_in_one_of_several_files_names_that_file(tmp_path):
    write_fixture("vehicle", tmp_path, np.random.default_rng(0))
    path = tmp_path / FILES["vehicle"][2]
    put(path, 2, 18, "inf", " ")
    with pytest.raises(UserError, match=rf"^{path}: line 2, column 18 is inf"):
        load("vehicle", [f"data_dir={tmp_path}"])


@pytest.mark.parametrize("gz", [True, False])
def test_an_idx_header_of_other_image_dimensions_is_named_not_a_network_error(tmp_path, gz):
    raw = make_fmnist(tmp_path, n_train=20, n_test=10, gz=gz)
    images = np.random.default_rng(1).integers(0, 256, (20, 28, 28), dtype=np.uint8)
    write_idx(raw / "train-images-idx3-ubyte", images.reshape(20, 14, 56), gz)  # the same bytes, other header
    with pytest.raises(UserError) as e:
        LOADERS["fmnist"](_cfg(tmp_path, "fmnist"))
    name = "train-images-idx3-ubyte" + (".gz" if gz else "")
    assert str(e.value).startswith(
        f"{raw / name}: its IDX header says 20 x 14 x 56; Fashion-MNIST images are N x 28 x 28"
    )


def test_an_idx_label_out_of_range_is_named_with_its_row(tmp_path):
    raw = make_fmnist(tmp_path, n_train=20, n_test=10)
    labels = np.arange(10, dtype=np.uint8)
    labels[6] = 10
    write_idx(raw / "t10k-labels-idx1-ubyte", labels, True)
    with pytest.raises(UserError, match=r"t10k-labels-idx1-ubyte.gz: row 7 has the label 10, not a class in 0..9"):
        LOADERS["fmnist"](_cfg(tmp_path, "fmnist"))


@pytest.mark.parametrize("bad, words", [
    ({"data": np.zeros((4, 1024), np.uint8)}, "its data are 4 x 1024 with 4 labels"),
    ({"labels": [0, 1, 12, 3]}, "row 3 has the label 12, not a class in 0..9"),
])  # fmt: skip
def test_a_cifar_batch_of_other_dimensions_or_labels_is_named(tmp_path, bad, words):
    import pickle

    path = make_cifar10(tmp_path) / "test_batch"
    entry = pickle.loads(path.read_bytes())
    path.write_bytes(pickle.dumps({**entry, **bad}, protocol=2))
    with pytest.raises(UserError) as e:
        LOADERS["cifar10"](_cfg(tmp_path, "cifar10"))
    assert str(e.value).startswith(f"{path}: ") and words in str(e.value)


def test_every_loader_s_data_pass_the_central_check(monkeypatch):
    """A packaged set (no file of ours to name) is checked too, through LOADERS."""
    import sklearn.datasets

    plain = sklearn.datasets.load_wine

    def with_inf(**kw):
        d = plain(**kw)
        d.data[5, 3] = np.inf
        return d

    monkeypatch.setattr(sklearn.datasets, "load_wine", with_inf)
    with pytest.raises(UserError, match=r"^dataset=wine \(inputs\): row 6, column 4 is inf"):
        LOADERS["wine"](_cfg(".", "wine", split=0, n_splits=5, split_seed=0, test_fraction=0.1))


@pytest.mark.parametrize("field, value, words", [
    ("y_test", torch.tensor([0.0, -np.inf]), "dataset=toy (y_test): row 2 is -inf (not a finite number)"),
    ("y_train", torch.tensor([0, 2, 1]), "dataset=toy (y_train): row 2 has the label 2, not a class in 0..1"),
    ("y_train", torch.tensor([0, 1]), "3 inputs (x_train) but 2 targets (y_train)"),
    ("x_test", torch.zeros(2, 4), "training inputs of shape (2,) but test inputs of shape (4,)"),
])  # fmt: skip
def test_the_central_check(field, value, words):
    d = Data(name="toy", task="classification", n_classes=2, x_train=torch.zeros(3, 2), y_train=torch.tensor([0, 1, 1]),
             x_test=torch.zeros(2, 2), y_test=torch.tensor([0.0, 1.0]))  # fmt: skip
    check(d)  # whole data pass
    setattr(d, field, value)
    with pytest.raises(UserError) as e:
        check(d)
    assert words in str(e.value)


@pytest.mark.slow  # end-to-end processes: left out by -m "not slow"
def test_a_run_on_a_file_with_a_nan_ends_in_one_line_exit_2_nothing_sampled(cli, tmp_path):
    write_fixture("yacht", tmp_path / "data", np.random.default_rng(0))
    path = tmp_path / "data" / FILES["yacht"][0]
    put(path, 4, 2, "nan", " ")
    out = cli("run", "dataset=yacht", f"data_dir={tmp_path / 'data'}", f"hydra.run.dir={tmp_path / 'run'}")
    errors = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert out.returncode == 2 and len(errors) == 1, out.stderr[-2000:]
    assert f"{path}: line 4, column 2 is nan" in errors[0] and "Traceback" not in out.stderr
    assert not (tmp_path / "run" / "samples.h5").exists() and "diverged" not in out.stdout + out.stderr
