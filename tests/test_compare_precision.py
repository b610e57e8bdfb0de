"""scripts/compare_precision.py: two fig4 sections' metrics against their run-to-run noise."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd

_spec = importlib.util.spec_from_file_location(
    "compare_precision", Path(__file__).parents[1] / "scripts" / "compare_precision.py"
)
cp = importlib.util.module_from_spec(_spec)
sys.modules["compare_precision"] = cp
_spec.loader.exec_module(cp)


def _runs(folder: Path, shift=0.0, jitter=0.0, groups=8) -> Path:
    rng = np.random.default_rng(0)
    base = rng.normal(0.3, 0.01, groups)  # one value per group: the run-to-run scatter, sd 0.01
    rows = [{"method": m, "ensemble_size": 1, "group": g, "runs": g, "metric": "nll",
             "value": base[g] + shift + jitter * rng.standard_normal()} for m in ("sms_ubu", "swa") for g in range(groups)]  # fmt: skip
    folder.mkdir()
    pd.DataFrame(rows).to_csv(folder / "runs.csv", index=False)
    return folder


def test_same_runs_are_within_and_a_shift_beyond_the_noise_is_not(tmp_path, capsys):
    a = _runs(tmp_path / "a")
    near = cp.compare(pd.read_csv(a / "runs.csv"), pd.read_csv(_runs(tmp_path / "b", jitter=1e-4) / "runs.csv"))
    assert near["within"].all() and (near["paired"].abs() < 1e-3).all() and (near["paired_groups"] == 8).all()
    # the unpaired s.e. is the run-to-run scatter's (sd ~0.01 over 8 groups each), not the paired one's
    assert (near["se"] > 2e-3).all() and (near["paired_se"] < 1e-4).all()
    far = cp.compare(pd.read_csv(a / "runs.csv"), pd.read_csv(_runs(tmp_path / "c", shift=0.05) / "runs.csv"))
    assert not far["within"].any() and (far["z"] > 2).all()
    assert np.allclose(far["diff"], 0.05)
    assert cp.main([str(a), str(tmp_path / "c"), "--labels", "float32,bf16", "--csv", str(tmp_path / "t.csv")]) == 0
    out = capsys.readouterr().out
    assert "| sms_ubu | 1 | nll |" in out and "0 of 2 (method, size, metric) cells within 2 s.e." in out
    assert len(pd.read_csv(tmp_path / "t.csv")) == 2


def test_a_folder_without_runs_csv_is_one_line(tmp_path, capsys):
    a = _runs(tmp_path / "a")
    assert cp.main([str(a), str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "runs.csv: no such file" in err
