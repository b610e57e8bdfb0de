"""The resolved config stored in samples.h5 is the record every metric is computed from: it
carries a SHA-256 written with it, and a changed digit or YAML that does not parse is a
damaged store in one line, never silently other metrics."""

import h5py
import pytest

from .helpers import run_inprocess

OVR = ["dataset=two_batch_gaussian", "chains=20", "samples=10", "evaluate=false"]


@pytest.mark.parametrize("edit, rehash, words", [
    (lambda c: c.replace("step_size: 0.0625", "step_size: 0.0626"), False, "changed after the run"),
    (lambda c: c + "\n  : [unclosed", True, "not valid YAML"),  # written so, checksum and all
])  # fmt: skip
def test_a_changed_stored_config_is_named_not_evaluated(tmp_path, cli, edit, rehash, words):
    import hashlib

    path, _ = run_inprocess(tmp_path / "r", OVR)
    with h5py.File(path, "r+") as f:
        assert len(f.attrs["config_sha256"]) == 64
        f.attrs["config"] = text = edit(str(f.attrs["config"]))
        if rehash:
            f.attrs["config_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    out = cli("evaluate", str(tmp_path / "r"))
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("bnnsample: error")]
    assert out.returncode != 0 and len(lines) == 1 and words in lines[0], out.stderr[-1500:]
    assert "Traceback" not in out.stderr and not (tmp_path / "r" / "metrics.csv").exists()


def test_a_complete_run_without_its_resume_state_is_evaluated(tmp_path, cli):
    path, _ = run_inprocess(tmp_path / "r", OVR)
    with h5py.File(path, "r+") as f:
        del f["state"]
    out = cli("evaluate", str(tmp_path / "r"))
    assert out.returncode == 0, out.stderr[-1500:]
    assert (tmp_path / "r" / "metrics.csv").exists()
