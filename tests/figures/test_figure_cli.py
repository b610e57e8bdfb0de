"""`bnnsample figure`: writes under ./results of the working directory (or --out), never into
the package, and prints each claim's verdict."""

from pathlib import Path

import pytest

import bnnsample
from bnnsample import figures, papers
from bnnsample.cli import main
from bnnsample.figures.common import update_reproduction

SECTION = """## fake-fig1
| claim | paper | ours | verdict |
|---|---|---|---|
| slope of W2 in h | 2 | 1.98 | reproduced |
| ESS per second | 10 | 3 | not reproduced: ten times fewer steps |
"""


@pytest.fixture
def fake_recipe(monkeypatch):
    def make(out_dir, options):
        d = Path(out_dir) / "fake-fig1"
        d.mkdir(parents=True, exist_ok=True)
        (d / "a.csv").write_text("x\n1\n")
        return [d / "a.csv", update_reproduction(Path(out_dir), "fake-fig1", SECTION)]

    monkeypatch.setitem(figures.FIGURES, "fake-fig1", figures.Recipe("fake-fig1", "a test recipe", make))
    monkeypatch.setattr(papers, "_load", lambda: None)


def test_figure_writes_under_the_working_directory_and_prints_verdicts(tmp_path, monkeypatch, capsys, fake_recipe):
    monkeypatch.chdir(tmp_path)
    main(["figure", "fake-fig1"])
    out = capsys.readouterr().out
    assert (tmp_path / "results" / "fake-fig1" / "a.csv").exists()
    assert (tmp_path / "results" / "REPRODUCTION.md").exists()
    assert str(tmp_path / "results") in out
    assert "fake-fig1: 2 claims" in out
    assert "reproduced" in out and "slope of W2 in h" in out and "not reproduced: ten times" in out


def test_figure_refuses_to_write_into_the_package(tmp_path, monkeypatch, capsys, fake_recipe):
    pkg = Path(bnnsample.__file__).resolve().parent
    with pytest.raises(SystemExit) as e:
        main(["figure", "fake-fig1", "--out", str(pkg / "results")])
    assert e.value.code == 2
    assert "inside the bnnsample package" in capsys.readouterr().err
    assert not (pkg / "results").exists()


def test_figure_answers_a_user_error_in_one_line(tmp_path, monkeypatch, capsys):
    """A recipe that stops on bad input (here a run directory it cannot own) prints one line
    naming the figure, no traceback."""
    from bnnsample.rundir import RunDirBusy

    def make(out_dir, options):
        raise RunDirBusy("/x is in use by PID 1")

    monkeypatch.setitem(figures.FIGURES, "fake-busy", figures.Recipe("fake-busy", "a test recipe", make))
    monkeypatch.setattr(papers, "_load", lambda: None)
    with pytest.raises(SystemExit) as e:
        main(["figure", "fake-busy", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert e.value.code == 2
    assert err.strip().splitlines() == ["bnnsample: error: figure fake-busy: /x is in use by PID 1"]


def test_figure_writes_beside_results_of_another_scale(tmp_path, monkeypatch, capsys, fake_recipe):
    """Committed results made at scale=paper are not replaced by a quick run: it writes under
    results/scale-quick/ and says so; --replace replaces them; the same scale replaces."""
    monkeypatch.chdir(tmp_path)
    paper = SECTION + "\nCommand: `bnnsample figure fake-fig1 scale=paper`.\n"
    update_reproduction(tmp_path / "results", "fake-fig1", paper)
    before = (tmp_path / "results" / "REPRODUCTION.md").read_text()
    main(["figure", "fake-fig1"])
    out = capsys.readouterr().out
    assert (tmp_path / "results" / "REPRODUCTION.md").read_text() == before
    assert (tmp_path / "results" / "scale-quick" / "fake-fig1" / "a.csv").exists()
    assert "holds this figure at scale=paper" in out and "--replace" in out
    main(["figure", "fake-fig1", "--replace"])
    assert (tmp_path / "results" / "REPRODUCTION.md").read_text() != before
    update_reproduction(tmp_path / "results", "fake-fig1", paper)
    main(["figure", "fake-fig1", "scale=paper"])  # the scale it holds: replaced in place
    assert "writes beside" not in capsys.readouterr().out


def test_list_and_help_show_scales_options_and_measured_cost(tmp_path, monkeypatch, capsys, fake_recipe):
    """A user's invocation records its cost beside its results (results/<id>/cost.csv), never in
    the ledger results/costs.csv; --record-cost records it there, with the CPU model; `figure --list`
    shows every recipe's scales with the ledger's cost for each, `figure ID --help` also its options."""
    from bnnsample.plumbing.machine import cpu_model

    monkeypatch.chdir(tmp_path)
    main(["figure", "fake-fig1", "scale=paper"])
    own = (tmp_path / "results" / "fake-fig1" / "cost.csv").read_text().splitlines()
    assert own[1].startswith("fake-fig1,paper,") and not (tmp_path / "results" / "costs.csv").exists()
    assert "cost: not measured yet for this setting" in capsys.readouterr().out
    main(["figure", "fake-fig1", "scale=paper", "--record-cost"])
    ledger = (tmp_path / "results" / "costs.csv").read_text().splitlines()
    assert ledger[0] == "figure,scale,options,wall_s,cpu_s,date,machine,cpu_model"
    assert ledger[1].startswith("fake-fig1,paper,") and ledger[1].endswith(cpu_model())
    capsys.readouterr()
    main(["figure", "fake-fig1", "scale=paper"])  # the estimate before the run: the ledger's, and the wall here
    out = capsys.readouterr().out
    assert "cost: 0.0 CPU-s (measured on " in out and "expected wall time here about 0 s (load " in out
    main(["figure", "--list"])
    out = capsys.readouterr().out
    block = out[out.index("fake-fig1") :].splitlines()[:3]
    assert block[1].strip().startswith("scale=quick (default): not measured")
    assert block[2].strip().startswith("scale=paper: 0.0 CPU-s (0 s wall), measured on ") and cpu_model() in block[2]
    main(["figure", "fake-fig1", "--help"])
    assert "options: scale, data_dir" in capsys.readouterr().out


def test_claims_csv_is_the_structured_record(tmp_path, monkeypatch, capsys):
    """A recipe whose section holds claims gets results/<id>/claims.csv (a row per claim with
    its verdict, reason and the command's setting); the index counts from it and the command
    prints the reasons from it."""
    from bnnsample.figures.claims import Claim, not_tested, reproduced
    from bnnsample.figures.driver import Invocation
    from bnnsample.rundir import read_csv

    def make(out_dir, options):
        rows = [
            (Claim("slope 2", "§3", "2", source="printed"), reproduced("1.98 ± 0.03")),
            (Claim("ESS", "§4", "high", source="statement"), not_tested("scale", "-", "needs 10x the steps")),
        ]
        inv = Invocation("fake-fig2", out_dir, options, {"quick": {}})
        return inv.finish(inv.section("none", rows, "", []), [inv.dir / "claims.csv"])

    monkeypatch.setitem(figures.FIGURES, "fake-fig2", figures.Recipe("fake-fig2", "a test recipe", make))
    monkeypatch.setattr(papers, "_load", lambda: None)
    monkeypatch.chdir(tmp_path)
    main(["figure", "fake-fig2"])
    got = read_csv(tmp_path / "results" / "fake-fig2" / "claims.csv")
    assert [r["verdict"] for r in got] == ["reproduced", "not tested: scale"]
    assert got[1]["reason"] == "needs 10x the steps" and got[0]["setting"] == "bnnsample figure fake-fig2 scale=quick"
    assert got[0]["claim_id"] == "fake-fig2#1" and got[0]["source"] == "printed"
    out = capsys.readouterr().out
    assert "ESS: not tested: scale (needs 10x the steps)" in out
    index = (tmp_path / "results" / "REPRODUCTION.md").read_text().split("<a id")[0]
    assert "| [fake-fig2](#fake-fig2) | 1 | 0 | 0 | 1 | 1 | 1 | 0 |" in index


def test_default_scale_and_runs_beside_are_costed_where_list_reads(tmp_path, monkeypatch, capsys, fake_recipe):
    """A run without scale= is recorded under the recipe's default scale, and a run written
    beside a section of another scale records (--record-cost) in results/costs.csv, which --list reads."""
    monkeypatch.chdir(tmp_path)
    main(["figure", "fake-fig1", "scale=paper", "--record-cost"])
    paper = SECTION + "\nCommand: `bnnsample figure fake-fig1 scale=paper`.\n"
    update_reproduction(tmp_path / "results", "fake-fig1", paper)
    main(["figure", "fake-fig1", "--record-cost"])  # writes beside the paper-scale section
    assert (tmp_path / "results" / "scale-quick" / "fake-fig1" / "a.csv").exists()
    assert not (tmp_path / "results" / "scale-quick" / "costs.csv").exists()
    rows = (tmp_path / "results" / "costs.csv").read_text().splitlines()[1:]
    assert sorted(r.split(",")[1] for r in rows) == ["paper", "quick"]
    capsys.readouterr()
    main(["figure", "--list"])
    block = capsys.readouterr().out.split("fake-fig1", 1)[1].splitlines()[:3]
    assert "not measured" not in block[1] and "not measured" not in block[2]


def test_a_verdict_without_a_reason_prints_what_was_measured_and_the_rule():
    from bnnsample.figures.report import _reason

    assert _reason({"reason": "needs 10x the steps", "ours": "1", "tolerance": "t"}) == "needs 10x the steps"
    got = _reason({"reason": "", "ours": "0.101 ± 0.002", "tolerance": "within 2 s.e."})
    assert got == "ours: 0.101 ± 0.002; rule: within 2 s.e."
    assert _reason({"reason": float("nan"), "ours": "-", "tolerance": ""}) == ""


def one_error_line(capsys) -> str:
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith("bnnsample: error: figure"), err
    return err[0]


@pytest.fixture
def counted_recipe(monkeypatch):
    """fake-fig3, a declared Figure with a number option; returns the list of the invocations
    that reached the recipe's work."""
    from bnnsample.figures.driver import Figure, Option, number, register_figure

    calls = []
    monkeypatch.setattr(figures, "FIGURES", type(figures.FIGURES)("figure", message="unknown figure {name!r}"))
    monkeypatch.setattr(papers, "_load", lambda: None)

    def rows(inv, bar):
        calls.append(inv.opt)
        return [{"x": 1}]

    register_figure(Figure("fake-fig3", "", "a test recipe", {"quick": {}}, rows=rows, outcomes=lambda rows, inv: [],
                           settings=lambda rows, inv: "", csv="x.csv",
                           options=(Option("time_limit", number(0, "must be seconds > 0")),)))  # fmt: skip
    return calls


def test_figure_options_are_checked_before_any_work_or_folder(tmp_path, capsys, counted_recipe):
    for value in ("inf", "nan", "-1", "soon"):
        with pytest.raises(SystemExit) as e:
            main(["figure", "fake-fig3", "--out", str(tmp_path / "r"), f"time_limit={value}"])
        assert e.value.code == 2
        assert f"time_limit={value}: must be seconds > 0" in one_error_line(capsys)
    assert counted_recipe == [] and not (tmp_path / "r").exists()
    main(["figure", "fake-fig3", "--out", str(tmp_path / "r"), "time_limit=60"])
    assert counted_recipe == [{"time_limit": 60.0}]


def test_a_link_at_costs_csv_is_refused_before_the_work_and_never_read(tmp_path, monkeypatch, capsys,
                                                                       counted_recipe):  # fmt: skip
    """A link at the ledger: a user's run neither reads (no estimate) nor writes it; one that
    would record there (--record-cost) is refused before any work, as --list is."""
    results = tmp_path / "r"
    results.mkdir()
    elsewhere = tmp_path / "elsewhere.csv"
    elsewhere.write_text("figure,scale,options,wall_s,cpu_s,date,machine\n")
    (results / "costs.csv").symlink_to(elsewhere)
    main(["figure", "fake-fig3", "--out", str(results)])
    assert "cost: not measured yet" in capsys.readouterr().out and len(counted_recipe) == 1
    counted_recipe.clear()
    with pytest.raises(SystemExit) as e:
        main(["figure", "fake-fig3", "--out", str(results), "--record-cost"])
    assert e.value.code == 2
    line = one_error_line(capsys)
    assert "costs.csv is a symbolic link" in line and "--out DIR" in line
    assert counted_recipe == [] and (results / "costs.csv").is_symlink()
    assert elsewhere.read_text() == "figure,scale,options,wall_s,cpu_s,date,machine\n"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").symlink_to(results)
    with pytest.raises(SystemExit):  # --list reads the costs: not through the link either
        main(["figure", "--list"])
    assert "costs.csv is a symbolic link" in one_error_line(capsys)


@pytest.fixture
def read_only_dir(tmp_path):
    """A folder that cannot be written: chmod for a user, a read-only tmpfs for root (skipped
    where mounting is not allowed)."""
    import os
    import subprocess

    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o555)
    if not os.access(d, os.W_OK):
        yield d
        d.chmod(0o755)
        return
    got = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(d)], capture_output=True)
    if got.returncode != 0:
        pytest.skip(f"cannot make a read-only folder here ({got.stderr.decode().strip() or got.returncode})")
    yield d
    subprocess.run(["umount", "-l", str(d)], capture_output=True)


def test_out_on_a_read_only_folder_is_refused_before_the_work(read_only_dir, capsys, counted_recipe):
    with pytest.raises(SystemExit) as e:
        main(["figure", "fake-fig3", "--out", str(read_only_dir / "results")])
    assert e.value.code == 2
    line = one_error_line(capsys)
    assert f"--out {read_only_dir / 'results'}: cannot write there" in line
    assert counted_recipe == []


def test_an_io_error_inside_a_recipe_is_one_line(tmp_path, monkeypatch, capsys):
    def make(out_dir, options):
        raise OSError(5, "Input/output error", str(out_dir / "fake-io" / "rows.csv"))

    monkeypatch.setitem(figures.FIGURES, "fake-io", figures.Recipe("fake-io", "a test recipe", make))
    monkeypatch.setattr(papers, "_load", lambda: None)
    with pytest.raises(SystemExit) as e:
        main(["figure", "fake-io", "--out", str(tmp_path)])
    assert e.value.code == 2
    assert one_error_line(capsys).endswith(f"{tmp_path / 'fake-io' / 'rows.csv'}: Input/output error")


def test_a_second_invocation_of_a_figure_into_one_folder_names_the_holder(tmp_path, monkeypatch, capsys,
                                                                          counted_recipe):  # fmt: skip
    """The first invocation holds results/<id>; a second one says in one line who holds it and
    does no work. The holder's own worker processes (figure ... part=) run under its lock."""
    import os
    import subprocess
    import sys

    from bnnsample.cli import FIGURE_LOCK

    fig_dir = tmp_path / "r" / "fake-fig3"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from bnnsample.rundir import owned\n"
         f"with owned({str(fig_dir)!r}):\n    print('held', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(bnnsample.__file__))),
    )  # fmt: skip
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(SystemExit) as e:
            main(["figure", "fake-fig3", "--out", str(tmp_path / "r")])
        assert e.value.code == 2
        line = one_error_line(capsys)
        assert f"{fig_dir} is in use by PID {holder.pid}" in line and "--out DIR" in line
        assert counted_recipe == []
        monkeypatch.setenv(FIGURE_LOCK, str(fig_dir))  # a worker the holder started
        main(["figure", "fake-fig3", "--out", str(tmp_path / "r")])
        assert len(counted_recipe) == 1
    finally:
        holder.communicate("")
    monkeypatch.delenv(FIGURE_LOCK)
    main(["figure", "fake-fig3", "--out", str(tmp_path / "r")])  # let go: the next one runs
    assert len(counted_recipe) == 2
