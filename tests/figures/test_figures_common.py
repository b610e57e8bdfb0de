"""figures/common.py: REPRODUCTION.md sections (kept, replaced, sorted, verdicts counted), options; the recipes'
CSV writer (rundir.write_csv)."""

import pytest

from bnnsample.figures.claims import (
    SOURCES,
    Claim,
    Outcome,
    by_count,
    by_resolved,
    by_z,
    check,
    not_tested,
    row,
    table,
)
from bnnsample.figures.common import (
    check_options,
    read_sections,
    scale_of,
    update_reproduction,
    verdict_counts,
)
from bnnsample.rundir import write_csv


def test_sections_replaced_kept_and_sorted(tmp_path):
    update_reproduction(tmp_path, "paulin2025-fig2", "## fig2\n| a | reproduced |")
    update_reproduction(tmp_path, "chen2015-table1", "## t1")
    update_reproduction(tmp_path, "paulin2025-fig10", "## fig10")
    update_reproduction(tmp_path, "chen2015-fig3", "## c3")
    update_reproduction(tmp_path, "paulin2025-fig2", "## fig2 again\n| a | not reproduced: why |")
    text = (tmp_path / "REPRODUCTION.md").read_text()
    sections = read_sections(text)
    assert list(sections) == ["chen2015-fig3", "chen2015-table1", "paulin2025-fig2", "paulin2025-fig10"]
    assert sections["paulin2025-fig2"].startswith("## fig2 again")
    assert "| [paulin2025-fig2](#paulin2025-fig2) | 0 | 0 | 1 | 0 | 0 | 0 | 0 |" in text
    assert "| **paulin2025 total** | 0 | 0 | 1 | 0 | 0 | 0 | 0 |" in text
    assert "| **all papers** | 0 | 0 | 1 | 0 | 0 | 0 | 0 |" in text


def test_claims_csv_holds_the_outcomes_of_the_invocations_section_only(tmp_path):
    """claims.csv is the invocation's own record: the outcomes its section was given, written by
    its ``finish``; a table written elsewhere (a test, a helper called alone) files nothing, and
    neither does a section written with update_reproduction alone."""
    from bnnsample.figures.driver import Invocation

    stray = [(Claim("stray", "§1", "1"), by_z(0.0, 0.1, "1.0"))]
    table(stray)
    update_reproduction(tmp_path, "paulin2025-fig2", "## fig2\n| a | reproduced |")
    assert not (tmp_path / "paulin2025-fig2" / "claims.csv").exists()
    inv = Invocation("paulin2025-fig3", tmp_path, {}, {"quick": {}})
    inv.finish(inv.section("s", stray, "", []), [])
    other = Invocation("paulin2025-fig5", tmp_path, {}, {"quick": {}})
    other.finish(other.section("s", [], "", []), [])
    assert (tmp_path / "paulin2025-fig3" / "claims.csv").read_text().count("stray") == 1
    assert "scale=quick" in (tmp_path / "paulin2025-fig3" / "claims.csv").read_text()
    assert not (tmp_path / "paulin2025-fig5" / "claims.csv").exists()


def test_verdict_counts_reads_the_last_verdict_cell():
    md = "\n".join(
        [
            "| claim | paper | ours | verdict |",
            "|---|---|---|---|",
            "| x | reproduced in the paper | 1 | **partly** (noise) |",
            "| y | 2 | 3 | not reproduced: 3 vs 2 |",
            "| z | 2 | 2 | reproduced |",
            "text mentioning reproduced outside a table",
        ]
    )
    counts = verdict_counts(md)
    assert counts == {"not reproduced": 1, "partly": 1, "reproduced": 1, "not tested": 0, **dict.fromkeys(SOURCES, 0)}


def test_claim_table_rows_are_counted_by_verdict_and_source(tmp_path):
    """The one row writer: every verdict and source is counted in the index, per section,
    per paper and overall; check rows and escaped pipes in a cell do not count or split."""
    rows = [
        (Claim("a |x| claim", "Fig. 1", "0.5", tolerance="within 2 s.e."), by_z(0.1, 0.1, "0.6 ± 0.1")),
        (Claim("b", "§3", "smaller", source="statement"), by_z(1.0, 0.2, "1.0 ± 0.2")),
        (Claim("c", "App. E", "0.25", source="derived"), by_count(1, 3, "1 of 3")),
        (Claim("d", "Table 2", "0.9"), not_tested("scale", why="needs 10 CPU-hours")),
        (Claim("MC agrees with exact", "-", "-", source="check"), check(True, "z = 0.3")),
    ]
    md = table(rows, heading="claim (x2020)")
    assert "not reproduced (5.0 s.e.)" in md and "a \\|x\\| claim" in md
    counts = verdict_counts(md)
    assert counts == {"reproduced": 1, "partly": 1, "not reproduced": 1, "not tested": 1,
                      "printed": 2, "statement": 1, "derived": 1}  # fmt: skip
    update_reproduction(tmp_path, "x2020-fig1", md)
    update_reproduction(tmp_path, "x2020-fig2", table(rows[:1]))
    text = (tmp_path / "REPRODUCTION.md").read_text()
    assert "| **x2020 total** | 2 | 1 | 1 | 1 | 3 | 1 | 1 |" in text
    assert "| **all papers** | 2 | 1 | 1 | 1 | 3 | 1 | 1 |" in text


def test_claim_outcomes_refuse_what_the_vocabulary_does_not_have():
    with pytest.raises(ValueError, match="reason=slow: allowed values: scale, data, not a paper experiment, not run"):
        not_tested("slow")
    with pytest.raises(ValueError, match="source=paper: allowed values"):
        Claim("x", "-", "-", source="paper")
    with pytest.raises(ValueError, match="verdict='ok'"):
        row(Claim("x", "-", "-"), Outcome("ok", "1"))
    assert by_count(0, 0, "-").verdict == "not tested: scale"


def test_by_resolved_names_its_not_tested_reason():
    # none resolved: "scale" unless the caller names the reason (a queued test that fits this machine: "not run")
    assert by_resolved(0, [], 3, "-", "why", "needs").verdict == "not tested: scale"
    out = by_resolved(0, [], 3, "-", "why", "needs", reason="not run")
    assert (out.verdict, out.why) == ("not tested: not run", "why; needs")
    # the reason changes nothing once a case is resolved
    assert by_resolved(1, [], 3, "-", reason="not run").verdict == "partly"
    assert by_resolved(0, [-2.5, 4.0], 3, "-", reason="not run").verdict == "not reproduced (2.5 s.e.)"
    with pytest.raises(ValueError, match="reason=later"):
        by_resolved(0, [], 3, "-", reason="later")


def test_options():
    assert scale_of({}) == "quick"
    with pytest.raises(ValueError, match="scale=huge: allowed values: quick, paper"):
        scale_of({"scale": "huge"})
    with pytest.raises(ValueError, match="unknown option 'chians'; allowed: scale, chains"):
        check_options({"chians": "3"}, ("scale", "chains"))


def test_every_recipe_takes_data_dir(tmp_path, cli):
    """data_dir=DIR is accepted by every recipe and becomes an override of every config the
    recipe composes (Fashion-MNIST, CIFAR-10, UCI files are read from there), for that call
    only: nothing of it is left for the next call or for code run outside a recipe."""
    from bnnsample import cli as cli_module
    from bnnsample.config import compose, current_figure_overrides
    from bnnsample.figures import Recipe

    seen = {}

    def make(out_dir, options):
        check_options(options, ("scale",))
        seen.update(options=dict(options), data_dir=compose([]).data_dir, passed_on=current_figure_overrides())
        return []

    cli_module._run_recipe(Recipe("fake-fig1", "a fake", make), tmp_path, {"scale": "quick", "data_dir": str(tmp_path)})
    assert seen == {"options": {"scale": "quick"}, "data_dir": str(tmp_path), "passed_on": (f"data_dir={tmp_path}",)}
    assert compose([]).data_dir != str(tmp_path) and current_figure_overrides() == ()
    with pytest.raises(ValueError, match="allowed: scale, data_dir"):
        check_options({"bogus": "1"}, ("scale",))
    out = cli("figure", "paulin2025-fig4", "scale=bogus", f"data_dir={tmp_path}")
    assert out.returncode != 0 and "scale=bogus: allowed values: quick, reduced, large, paper" in out.stderr
    assert "data_dir" not in out.stderr


def test_write_csv_bytes(tmp_path):
    """The recipes' one CSV writer: union of keys as header, floats as {:.6g} or repr,
    csv quoting, LF line ends; fixed columns give the header even without rows."""
    rows = [{"a": 1, "b": 0.1234567891}, {"b": float("nan"), "c": 'x, "y"'}]
    p = write_csv(tmp_path / "sub" / "t.csv", rows)
    assert p.read_bytes() == b'a,b,c\n1,0.123457,\n,nan,"x, ""y"""\n'
    write_csv(p, rows, float_format=None)
    assert p.read_bytes() == b'a,b,c\n1,0.1234567891,\n,nan,"x, ""y"""\n'
    write_csv(p, [], columns=("a", "b"))
    assert p.read_bytes() == b"a,b\n"
    write_csv(p, [{"b": 2.0, "a": True}], float_format=None, columns=("a", "b"))
    assert p.read_bytes() == b"a,b\nTrue,2.0\n"


def test_the_verdict_column_is_read_not_a_notes_cell_after_it():
    md = "\n".join(
        [
            "| claim | paper | verdict | notes |",
            "|---|---|---|---|",
            "| x | 1 | not reproduced (3.0 s.e.) | reproduced at the other h |",
            "| y | 2 | partly | - |",
            "",
            "| claim | ours | verdict |",
            "|---|---|---|",
            "| z | 3 | reproduced |",
        ]
    )
    counts = verdict_counts(md)
    assert (counts["not reproduced"], counts["partly"], counts["reproduced"]) == (1, 1, 1)


def test_the_reproduction_lock_is_never_taken_through_a_link(tmp_path):
    from bnnsample.plumbing.errors import UserError

    target = tmp_path / "elsewhere.txt"
    target.write_text("keep")
    (tmp_path / ".REPRODUCTION.lock").symlink_to(target)
    with pytest.raises(UserError, match="REPRODUCTION.lock"):
        update_reproduction(tmp_path, "paulin2025-fig2", "## fig2")
    assert target.read_text() == "keep" and not (tmp_path / "REPRODUCTION.md").exists()
