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
