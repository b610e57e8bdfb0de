"""franzese2021 Figs. 8 and 9 (bnnsample/papers/franzese2021/appendix.py): Figs. 4 and 5 over every data set,
at tiny size on the offline sets (wine, the synthetic trig_features)."""

from __future__ import annotations

import csv

import numpy as np

from bnnsample.figures.claims import VERDICTS
from bnnsample.figures.common import read_sections, verdict_counts
from bnnsample.papers import get_recipe
from bnnsample.papers.franzese2021 import appendix, sweeps, uci
from bnnsample.papers.franzese2021 import uci_runs as jobs_uci


def _tiny(scale, opt):
    """h = 0.01: burn-in 2 steps, thin 1, 2 seeds; oracle: LIE-TROTTER h = 0.005, 2 runs of 2 chains x 3 draws."""
    oracle = jobs_uci.OracleSettings(
        "lie_trotter", runs=2, chains_per_run=2, draws=3, t_burn=0.02, t_thin=0.01, h=0.005
    )
    return uci.SweepSettings(steps=[0.01], batches=[0, 8], chains=2, draws=3, t_burn=0.02, t_thin=0.01, oracle=oracle,
                             seeds=tuple(opt["seeds"]))  # fmt: skip


def test_classification_draws_pool_every_class_probability():
    pred = np.arange(2 * 3 * 4 * 2, dtype=float).reshape(2, 3, 4, 2)  # chains, draws, test points, classes
    r = jobs_uci.Result(jobs_uci.Spec("wine", "leapfrog", 0.01), pred, np.zeros(2, bool), 0.0)
    pooled = r.pooled()
    assert pooled.shape == (6, 8) and pooled[4, 3] == pred[1, 1, 1, 1]
    assert jobs_uci.Result(r.spec, pred[..., :1], r.diverged, 0.0).pooled().shape == (6, 4)  # regression: f(x*)


def test_fig8_tiny_runs_classification_per_data_set(tmp_path, monkeypatch):
    monkeypatch.setattr(sweeps, "sweep_settings", _tiny)
    get_recipe(appendix.FIG8).make(tmp_path, {"datasets": "wine,ionosphere", "integrators": "leapfrog,lie_trotter",
                                              "seeds": "0,1"})  # fmt: skip
    rows = list(csv.DictReader((tmp_path / appendix.FIG8 / "distances.csv").read_text().splitlines()))
    assert {(r["dataset"], r["label"], r["batch"], r["seed"]) for r in rows} == {
        ("wine", lab, b, k) for lab in ("SHMC-LEAPFROG", "LIE-TROTTER") for b in ("full", "8") for k in ("0", "1")
    }
    assert all(0 < float(r["akd"]) <= 1 for r in rows)
    md = read_sections((tmp_path / "REPRODUCTION.md").read_text())[appendix.FIG8]
    # Fig. 4's claims for the one data set run (no SGHMC: its row is left out; no 200-draw oracle: no
    # self-distance check), its name in every row
    assert sum(verdict_counts(md)[v] for v in VERDICTS) == len(sweeps.FIG4_CLAIMS) - 2
    assert md.count("| wine (offline stand-in for the paper's classification sets): ") == len(sweeps.FIG4_CLAIMS) - 2
    assert "Not run (data files absent under data_dir): ionosphere" in md or load_present("ionosphere")
    assert "seed-to-seed sd of one cell's AKD" in md and "± " in md


def load_present(name: str) -> bool:
    from bnnsample.data import load_if_present

    return load_if_present(name) is not None


def test_fig9_tiny_runs_the_synthetic_set(tmp_path, monkeypatch):
    monkeypatch.setattr(sweeps, "sweep_settings", _tiny)
    get_recipe(appendix.FIG9).make(tmp_path, {"datasets": "trig_features", "n_leapfrog": "1,2", "seeds": "0,1"})
    rows = list(csv.DictReader((tmp_path / appendix.FIG9 / "distances.csv").read_text().splitlines()))
    assert {r["dataset"] for r in rows} == {"trig_features"} and len(rows) == 2 * 2 * 2
    assert {r["n_leapfrog"] for r in rows} == {"1", "2"}
    md = read_sections((tmp_path / "REPRODUCTION.md").read_text())[appendix.FIG9]
    assert md.count("| trig_features (synthetic, linear model): ") == len(sweeps.FIG5_CLAIMS)
