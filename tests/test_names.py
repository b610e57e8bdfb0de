"""Names and messages: aliases, "did you mean", complete download errors, no leftover run
folders from runs that failed before sampling."""

from pathlib import Path

import pytest

from bnnsample.cli import one_line
from bnnsample.config import unknown_key_message
from bnnsample.plumbing.suggest import apply_aliases, did_you_mean


def test_aliases_and_did_you_mean():
    assert apply_aliases(["dataset=chest_xray", "chains=2"]) == ["dataset=chestxray", "chains=2"]
    assert apply_aliases(["dataset=mnist5k,chest_xray"]) == ["dataset=mnist5k,chestxray"]
    assert did_you_mean("stepsize", ["step_size", "seed"]) == " (did you mean step_size?)"
    assert did_you_mean("zzz", ["step_size"]) == ""
    assert "did you mean step_size?" in unknown_key_message("stepsize", ["step_size", "samples"])
    hydra = ("In 'config': Could not find 'integrator/sms_ubuu'\n\nAvailable options in 'integrator':\n"
             "\tsg_ubu\n\tsms_ubu\n\tubu\nConfig search path:\n\tprovider=hydra")  # fmt: skip
    assert one_line(hydra) == "integrator=sms_ubuu (did you mean sms_ubu?): allowed values: sg_ubu, sms_ubu, ubu"


def test_offline_download_error_is_complete_and_leaves_no_folders(tmp_path):
    from bnnsample.data.images import _download
    from bnnsample.plumbing.errors import DataMissingError

    root = tmp_path / "cache"

    def fetch():
        (root / "FashionMNIST" / "raw").mkdir(parents=True)
        raise RuntimeError("Error downloading train-images-idx3-ubyte.gz:\nTried https://a, got:\n<urlopen error>")

    with pytest.raises(DataMissingError) as e:
        _download("fmnist", fetch, root)
    msg = str(e.value)
    assert "\n" not in msg and not msg.endswith(":") and "urlopen error" in msg and str(root) in msg
    assert not root.exists()


def test_failed_run_leaves_no_output_folder(tmp_path, inprocess, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert inprocess("run", "dataset=two_batch_gaussian", "step_size=-1") == 2
    assert inprocess("run", "dataset=fmnist", f"data_dir={tmp_path / 'none'}") == 2
    assert not (tmp_path / "outputs").exists()
    # a run directory that holds more than Hydra's files is kept
    keep = tmp_path / "mine"
    keep.mkdir()
    (keep / "notes.txt").write_text("x")
    assert inprocess("run", "step_size=-1", f"hydra.run.dir={keep}") == 2
    # a bad value is refused before Hydra sets the run up: nothing is written there
    assert (keep / "notes.txt").exists() and not Path(keep / ".hydra").exists()


def test_chest_xray_alias_reaches_the_dataset(tmp_path, inprocess, capsys):
    assert inprocess("run", "dataset=chest_xray", f"data_dir={tmp_path}", f"hydra.run.dir={tmp_path / 'r'}") == 2
    err = capsys.readouterr().err
    assert "dataset=chestxray" in err and "allowed values" not in err


@pytest.mark.parametrize(
    "override", ["hydra.job.name=../../../x", "hydra.job.name=a/b", "hydra.sweep.subdir=../x", "hydra.sweep.subdir=/x"]
)
def test_names_never_become_paths_outside_their_directory(tmp_path, inprocess, capsys, override):
    """hydra.job.name names the log RUN_DIR/<name>.log and hydra.sweep.subdir a job's folder in
    the sweep directory: a value that leads outside is refused in one line, nothing written."""
    run_dir = tmp_path / "a" / "b" / "c" / "run"
    args = ["run", "dataset=two_batch_gaussian", "chains=2", "samples=2", "burn_in=1", "progress=false",
            "evaluate=false", f"hydra.run.dir={run_dir}", f"hydra.sweep.dir={run_dir}", override]  # fmt: skip
    assert inprocess(*args) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith(f"bnnsample: error: {override}: allowed values: "), err
    assert list(tmp_path.rglob("*")) == []


def test_a_plain_job_name_names_the_log(tmp_path, inprocess):
    run_dir = tmp_path / "run"
    args = ["run", "dataset=two_batch_gaussian", "chains=2", "samples=2", "burn_in=1", "progress=false",
            "evaluate=false", f"hydra.run.dir={run_dir}", "hydra.job.name=mine"]  # fmt: skip
    assert inprocess(*args) == 0
    assert (run_dir / "mine.log").is_file()
