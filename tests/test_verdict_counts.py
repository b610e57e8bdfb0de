"""The verdict counts README.md and docs/reproduction.md state are those of the record they count,
results/REPRODUCTION.md's index (scripts/verdict_counts.py; fix: python scripts/verdict_counts.py)."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("verdict_counts", ROOT / "scripts" / "verdict_counts.py")
verdict_counts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(verdict_counts)

pytestmark = pytest.mark.smoke


def test_the_documents_state_the_index_counts():
    counts = verdict_counts.index_counts(verdict_counts.INDEX.read_text())
    for path, rewrite in ((verdict_counts.README, verdict_counts.rewrite_readme),
                          (verdict_counts.PAGE, verdict_counts.rewrite_page)):  # fmt: skip
        text = path.read_text()
        assert rewrite(text, counts) == text, f"{path.name}: run python scripts/verdict_counts.py"


def test_every_stated_count_is_found_and_a_change_is_caught():
    """Power: every paper and section the index counts has its stated line, and one wrong count is seen."""
    counts = verdict_counts.index_counts(verdict_counts.INDEX.read_text())
    papers = {k for k in counts if "-" not in k and k != "all papers"}
    assert papers == {"chen2015", "franzese2021", "matthews2018", "paulin2025", "sekkat2023"}
    readme, page = verdict_counts.README.read_text(), verdict_counts.PAGE.read_text()
    for paper in papers:
        assert f"- **{paper}** (" in readme and f"## {paper}" in page
    missing = [k for k in counts if "-" in k and f"### {k}\n" not in page]
    assert not missing, f"docs/reproduction.md has no section for {missing}"
    wrong = {**counts, "all papers": tuple(n + 1 for n in counts["all papers"])}
    assert verdict_counts.rewrite_readme(readme, wrong) != readme
    some_fig = next(k for k in counts if "-" in k and f"### {k}" in page)
    wrong = {**counts, some_fig: tuple(n + 1 for n in counts[some_fig])}
    assert verdict_counts.rewrite_page(page, wrong) != page


def test_readme_states_the_number_of_paper_recipes():
    """The README's "N recipes" is the number of paper recipes `bnnsample figure --list` offers."""
    import re

    from bnnsample.papers import recipes

    papers = {"chen2015", "franzese2021", "matthews2018", "paulin2025", "sekkat2023"}
    n = sum(fid.split("-")[0] in papers for fid in recipes())
    stated = re.search(r"five papers: (\d+) recipes", (ROOT / "README.md").read_text())
    assert stated and int(stated.group(1)) == n
