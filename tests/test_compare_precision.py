"""scripts/compare_precision.py: two fig4 sections' metrics against their run-to-run noise."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

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
    assert not far["within"].astype(bool).any() and (far["z"] > 2).all()
    assert np.allclose(far["diff"], 0.05)
    assert cp.main([str(a), str(tmp_path / "c"), "--labels", "float32,bf16", "--csv", str(tmp_path / "t.csv")]) == 0
    out = capsys.readouterr().out
    assert "| sms_ubu | 1 | nll |" in out and "0 of 2 measured (method, size, metric) cells within 2 s.e." in out
    assert "- nll at size 1: paired bf16 - float32 over methods +0.05000" in out
    assert "positive for 2 of 2 methods" in out
    assert len(pd.read_csv(tmp_path / "t.csv")) == 2


def test_a_folder_without_runs_csv_is_one_line(tmp_path, capsys):
    a = _runs(tmp_path / "a")
    assert cp.main([str(a), str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "runs.csv: no such file" in err


def test_a_size_with_one_group_is_not_measured(tmp_path):
    """One group (e.g. the ensemble of all runs) has no spread: its cell is shown, not judged."""
    one = [{"method": "swa", "ensemble_size": 8, "group": 0, "runs": 8, "metric": "nll", "value": v} for v in (0.3,)]
    t = cp.compare(pd.DataFrame(one), pd.DataFrame([{**one[0], "value": 0.4}]))
    assert t["within"].isna().all() and np.isnan(t["se"]).all()
    assert "0 of 0 measured" in cp.markdown(t, ("float32", "bf16")) and "| - |" in cp.markdown(t, ("float32", "bf16"))


def test_committed_cpu_comparison_is_what_its_readme_says():
    """results/paulin2025-fig4/precision_cpu: compare.csv is the script's table of the two committed runs.csv,
    and every number of its README comes from that table, the sections' claims or their cost lines."""
    import re

    d = Path(__file__).parents[1] / "results" / "paulin2025-fig4" / "precision_cpu"
    if not d.exists():
        pytest.skip("no committed precision comparison")
    t = cp.compare(pd.read_csv(d / "float32" / "runs.csv"), pd.read_csv(d / "bf16" / "runs.csv"))
    committed = pd.read_csv(d / "compare.csv")
    assert np.allclose(committed["diff"], t["diff"]) and np.allclose(committed["se"], t["se"], equal_nan=True)
    text = (d / "README.md").read_text()
    measured = t[t["within"].notna()]
    assert f"{int(measured['within'].astype(bool).sum())} of {len(measured)} measured" in text
    out = measured[~measured["within"].astype(bool)].sort_values("z", ascending=False)
    assert [(r.method, r.ensemble_size, r.metric) for r in out.itertuples()] == [
        ("cyclical_sghmc", 4, "nll"),
        ("swa", 4, "nll"),
    ]
    assert f"cyclical SG-HMC {out.z.iloc[0]:+.1f} s.e., SWA {out.z.iloc[1]:+.1f} s.e." in text
    nll = t[(t.ensemble_size == 1) & (t.metric == "nll")]["paired"]
    assert f"by {nll.mean():+.5f} on average over the methods (from {nll.min():+.5f} to {nll.max():+.5f})" in text
    assert f"positive\n  for {int((nll > 0).sum())} of {len(nll)} methods" in text
    verdicts = [
        pd.read_csv(d / p / "claims.csv").verdict.str.split(" [(]").str[0].tolist() for p in ("float32", "bf16")
    ]
    assert verdicts[0] == verdicts[1] and f"section's {len(verdicts[0])} claim rows are the same" in text
    cpu = [re.search(r"CPU time (\d+) s", (d / p / "section.md").read_text())[1] for p in ("float32", "bf16")]
    assert f"float32 {cpu[0]} CPU-s, bf16 {cpu[1]} CPU-s" in text


def test_make_runs_the_figure_once_per_precision_then_compares(tmp_path, monkeypatch, capsys):
    """--make DIR: one figure invocation per label (its precision=), each under DIR/LABEL, then the table."""
    import subprocess

    made = []

    def fake_run(cmd):
        made.append(cmd[3:])
        _runs(Path(cmd[-1]) / "paulin2025-fig4")  # what the figure writes: its per-group runs.csv
        return subprocess.CompletedProcess(cmd, 0)

    (tmp_path / "out" / "tf32").mkdir(parents=True)
    (tmp_path / "out" / "bf16").mkdir(parents=True)
    monkeypatch.setattr(subprocess, "run", fake_run)
    assert cp.main(["--make", str(tmp_path / "out"), "--labels", "tf32,bf16", "--device", "cuda"]) == 0
    assert made == [
        [
            "figure",
            "paulin2025-fig4",
            "scale=quick",
            "runs=8",
            "precision=tf32",
            "device=cuda",
            "--out",
            str(tmp_path / "out" / "tf32"),
        ],
        [
            "figure",
            "paulin2025-fig4",
            "scale=quick",
            "runs=8",
            "precision=bf16",
            "device=cuda",
            "--out",
            str(tmp_path / "out" / "bf16"),
        ],
    ]
    assert "| sms_ubu | 1 | nll |" in capsys.readouterr().out


def test_one_label_is_refused_before_anything_runs(tmp_path, capsys, monkeypatch):
    import subprocess

    monkeypatch.setattr(subprocess, "run", lambda cmd: pytest.fail("ran the figure"))
    assert cp.main(["--make", str(tmp_path), "--labels", "tf32"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--labels: two names" in err
