"""chen2015-fig4: §5's LDA and SBN experiments, the paper's numbers and claims not tested for want of data."""

import csv

from bnnsample.figures.common import read_sections, verdict_counts
from bnnsample.papers import get_recipe
from bnnsample.papers.chen2015 import fig4


def test_fig4_writes_the_papers_numbers_and_data_rows(tmp_path):
    files = get_recipe(fig4.ID).make(tmp_path, {})
    assert {f.name for f in files} == {"paper.csv", "fig4.png"}
    rows = list(csv.DictReader((tmp_path / fig4.ID / "paper.csv").read_text().splitlines()))
    got = {(r["model"], int(r["size"]), r["sampler"]): int(r["paper"]) for r in rows}
    assert got[("LDA", 200, "SGHMC-S")] == 1168 and got[("LDA", 500, "SGLD")] == 2511
    assert got[("SBN", 100, "SGHMC-E")] == 105 and got[("SBN", 200, "SGHMC-S")] == 98 and len(got) == 12
    md = read_sections((tmp_path / "REPRODUCTION.md").read_text())[fig4.ID]
    counts = verdict_counts(md)
    assert counts["not tested"] == 6 == len(fig4.FIG4_CLAIMS) and counts["printed"] == 5 and counts["statement"] == 1
    claims = list(csv.DictReader((tmp_path / fig4.ID / "claims.csv").read_text().splitlines()))
    assert {c["verdict"] for c in claims} == {"not tested: data"}
    assert all("a test takes" in c["reason"] and "CPU-hours" in c["reason"] for c in claims)
    assert claims[0]["paper"] == "SGHMC-S 1168, SGHMC-E 1180, SGLD 2496"


def test_fig4_run_counts_include_the_seeds_their_rules_need():
    """The ninth audit: a rule against our run-to-run spread needs seeds at each sampler's best setting
    beyond the one grid run; the divergence row needs none. The tolerances state their tiers."""
    assert fig4.row_runs("LDA", 2, 1).startswith("this row alone: 48 runs at one topic count (42 of the grid, 6 more")
    assert "34 runs" in fig4.row_runs("SBN", 2, 1) and "82-510 CPU-hours" in fig4.row_runs("SBN", 2, 1)
    assert fig4.row_runs("SBN", 1, 0).startswith("this row alone: 14 runs") and "its best setting" in fig4.row_runs(
        "SBN", 1, 0
    )
    assert fig4.row_runs("LDA", 2, 0, seeds=False) == "this row alone: 36 runs at one topic count"
    for c in fig4.FIG4_CLAIMS.values():
        assert "reproduced:" in c.tolerance and "not reproduced:" in c.tolerance, c


def test_sbn_cost_is_linear_in_the_hidden_units():
    """The twenty-second audit: a Gibbs sweep touches every hidden unit once, so a 100-unit row costs half a
    200-unit one; LDA rows carry no CPU-hours."""
    import re

    import pytest

    hours = {u: [float(x) for x in re.search(r"about (\d+)-(\d+) CPU-hours", fig4.row_runs("SBN", 2, 1, units=u)).groups()]
             for u in (100, 200)}  # fmt: skip
    assert hours[100] == pytest.approx([h / 2 for h in hours[200]], abs=1)
    assert "CPU-hours" not in fig4.row_runs("LDA", 2, 1, units=200)
