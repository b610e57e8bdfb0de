"""Smoke test of the paulin2025-fig2 recipe's pieces at tiny size (not the quick scale)."""

import csv

import numpy as np
import pytest
import torch

from bnnsample.data.base import Data
from bnnsample.figures import paulin2025_fig2 as fig2


def tiny_data(n=240, n_test=60, D=6, K=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(K, D, generator=g) * 2
    x = torch.rand(n + n_test, D, generator=g)
    y = torch.argmax(x @ w.T + torch.randn(n + n_test, K, generator=g), dim=1)  # noisy linear classes
    return Data("tiny", "classification", y[:n], x[:n], x[n:], y[n:], K)


def test_options_and_step_grid():
    with pytest.raises(ValueError, match="unknown option 'bogus'; allowed: scale, seed, data_dir"):
        fig2.make(None, {"bogus": "1"})
    with pytest.raises(ValueError, match="scale=huge: allowed values: quick, paper"):
        fig2.make(None, {"scale": "huge"})
    assert fig2.step_grid(60_000, 6) == (1.0, list(fig2.PAPER_HS))
    factor, hs = fig2.step_grid(4_000, 3)
    assert factor == 4 and np.allclose(hs, [8e-3, 4e-3, 2e-3])


def test_map_is_the_minimiser():
    pot = fig2.build_potential(tiny_data(), torch.float64)
    x = fig2.find_map(pot)
    g, g0 = pot.force(x[None], None, 1.0), pot.force(torch.zeros_like(x)[None], None, 1.0)
    assert float(g.norm()) < 1e-4 * float(g0.norm())
    for _ in range(3):  # U is strictly convex: every perturbation raises it
        u = torch.randn_like(x) * 0.05
        assert float(pot.energy((x + u)[None], None, 1.0)) > float(pot.energy(x[None], None, 1.0))


def test_recipe_end_to_end_tiny(tmp_path, monkeypatch):
    """The whole recipe on a tiny 6 -> 3 problem with two short levels: files, a REPRODUCTION
    section with one row per claim, and finite metrics whose accuracy beats chance."""
    monkeypatch.setattr(fig2, "load_problem", lambda data_dir: (tiny_data(), "tiny synthetic"))
    monkeypatch.setitem(fig2.SCALES, "quick", {"levels": 2, "time": 0.4, "chains": 2, "chunks": 4})
    paths = fig2.make(tmp_path, {"scale": "quick", "data_dir": str(tmp_path)})
    names = {p.name for p in paths}
    assert {"bias.csv", "metrics.csv", "fig2.png", "REPRODUCTION.md"} <= names
    with open(tmp_path / fig2.FIG_ID / "bias.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * len(fig2.SAMPLERS)
    assert all(np.isfinite(float(r["se"])) and float(r["noise_floor"]) > 0 for r in rows)
    with open(tmp_path / fig2.FIG_ID / "metrics.csv") as fh:
        mets = list(csv.DictReader(fh))
    assert len(mets) == 3 * len(fig2.SAMPLERS)
    assert all(float(m["accuracy"]) > 0.5 for m in mets)  # chance is about 1/3
    md = (tmp_path / "REPRODUCTION.md").read_text()
    assert "<!-- begin paulin2025-fig2 -->" in md and "tiny synthetic" in md
    table = md.split("| claim (paper) | ours | verdict |")[1].split("\n\n")[0]
    assert table.count("\n| ") == 8  # one row per claim
    assert all(v in ("reproduced", "partly", "not reproduced", "not resolved")
               for v in (line.rsplit("|", 2)[1].strip() for line in table.strip().splitlines()[1:]))  # fmt: skip
