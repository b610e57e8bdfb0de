"""franzese2021-fig2 (SDE paths for several C), -fig7 (exact vs LEAPFROG predictive) and -table3 (ACF(1) of the
oracles): the recipes at a tiny size, the ACF of the oracle draws on a known process, and each rule on rows built by
hand that pass, fail and cannot be measured."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from bnnsample.figures.claims import SOURCES, VERDICTS
from bnnsample.figures.common import read_sections, verdict_counts
from bnnsample.papers import recipes
from bnnsample.papers.franzese2021 import fig2, fig7, table3


def _section_is_complete(tmp_path, key, claims):
    section = read_sections((tmp_path / "REPRODUCTION.md").read_text())[key]
    paper = [c for c in claims.values() if c.source != "check"]
    counts = verdict_counts(section)
    assert sum(counts[v] for v in VERDICTS) == len(paper) == sum(counts[s] for s in SOURCES)
    assert all(f"| {c.text} | {c.where} |" in section for c in paper)
    assert (tmp_path / key / "claims.csv").exists()
    return section


# -- the recipes at a tiny size ----------------------------------------------------------------------------------
def test_fig2_tiny(tmp_path, monkeypatch):
    monkeypatch.setitem(fig2.FIG2, "quick", {"C": (0.5, 50.0), "h": 0.02, "chains": 20, "records": 10,
                                            "burn_time": 20.0, "lag_time": 1.0, "path_time": 2.0})  # fmt: skip
    made = recipes()["franzese2021-fig2"].make(tmp_path, {})
    assert [p.name for p in made] == ["fig2.csv", "fig2_paths.csv", "fig2.png"]
    _section_is_complete(tmp_path, "franzese2021-fig2", fig2.FIG2_CLAIMS)
    rows = (tmp_path / "franzese2021-fig2" / "fig2.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 * 2  # a row per (C, coordinate)
    with pytest.raises(ValueError, match="seed=-1"):
        recipes()["franzese2021-fig2"].make(tmp_path, {"seed": "-1"})


def test_fig7_tiny(tmp_path, monkeypatch):
    monkeypatch.setitem(fig7.FIG7, "quick", {"cells": (("full", 0.02),), "chains": 4, "draws": 5, "seeds": 2})
    made = recipes()["franzese2021-fig7"].make(tmp_path, {})
    assert [p.name for p in made] == ["fig7.csv", "fig7_exact.csv", "fig7_band.csv", "fig7.png"]
    section = _section_is_complete(tmp_path, "franzese2021-fig7", fig7.FIG7_CLAIMS)
    assert "| passed |" in section or "| FAILED |" in section  # the check row is shown, not counted
    assert len((tmp_path / "franzese2021-fig7" / "fig7.csv").read_text().splitlines()) == 1 + 2


def test_table3_tiny(tmp_path, monkeypatch):
    monkeypatch.setitem(table3.TABLE3, "quick", {"datasets": ["boston"], "runs": 2, "chains": 2, "draws": 3})
    from bnnsample.data import load_if_present

    if load_if_present("boston") is None:
        pytest.skip("boston is not on disk")
    made = recipes()["franzese2021-table3"].make(tmp_path, {})
    assert [p.name for p in made] == ["table3.csv", "table3.png"]
    _section_is_complete(tmp_path, "franzese2021-table3", table3.TABLE3_CLAIMS)
    assert (tmp_path / "franzese2021-fig4" / "runs").is_dir()  # the oracle runs the UCI figures share
    # each row names its oracle: the Spec's key and the fingerprint of that run's draws
    from bnnsample.papers.franzese2021 import uci_runs
    from bnnsample.rundir import read_csv
    from bnnsample.store import SampleStore

    spec = uci_runs.oracle_spec("boston", table3.oracle_settings(table3.TABLE3["quick"]))
    (row,) = read_csv(tmp_path / "franzese2021-table3" / "table3.csv")
    assert row["oracle_key"] == spec.key()
    with SampleStore(tmp_path / "franzese2021-fig4" / "runs" / spec.key() / "samples.h5") as store:
        assert row["oracle_sha"] == table3.draws_sha(store.predictive())
    with pytest.raises(ValueError, match="allowed"):
        recipes()["franzese2021-table3"].make(tmp_path, {"datasets": "mnist"})


# -- computations ------------------------------------------------------------------------------------------------
def test_oracle_acf_of_ar1_draws():
    """Predictive draws that are an AR(1) of coefficient 0.3 along the draws: ACF(1) 0.3 within 4 s.e. of Bartlett's
    formula (sqrt((1 - phi^2) / n)); the s.e. over runs is of that size."""
    rng = np.random.default_rng(3)
    C, D, T, phi = 40, 50, 20, 0.3
    x = np.empty((C, D, T))
    x[:, 0] = rng.standard_normal((C, T))
    for t in range(1, D):
        x[:, t] = phi * x[:, t - 1] + math.sqrt(1 - phi * phi) * rng.standard_normal((C, T))
    out = table3.oracle_acf(x, runs=4)
    se = math.sqrt((1 - phi**2) / (C * (D - 1) * T))
    assert abs(out["acf1"] - phi) < 4 * se + 1 / (C * D)
    assert 0.2 * se * math.sqrt(4) < out["acf1_se"] < 5 * se * math.sqrt(4)
    assert len(out["acf1_runs"].split()) == 4


# -- the rules on rows built by hand -----------------------------------------------------------------------------
def _acf_row(ds, acf, se=0.02, pooled=None):
    return {
        "dataset": ds,
        "acf1": acf if pooled is None else pooled,
        "acf1_se": se,
        "acf1_median": acf,
        "acf1_max": acf + 0.1,
        "test_points": 51,
        "acf1_runs": f"{acf - 0.01:.3f} {acf:.3f} {acf + 0.01:.3f}",
    }


def test_table3_rule():
    rule = table3.TABLE3_CLAIMS.rules["acceptable"]
    assert rule([_acf_row("boston", 0.05), _acf_row("concrete", 0.1)], []).verdict == "reproduced"
    assert rule([_acf_row("boston", 0.05), _acf_row("concrete", 0.5)], []).verdict == "partly"
    assert rule([_acf_row("boston", 0.5)], ["energy"]).verdict.startswith("not reproduced")
    assert rule([_acf_row("boston", 0.21, se=0.01)], []).verdict == "reproduced"  # within 2 s.e. of 0.2
    assert rule([], ["boston", "concrete"]).verdict == "not tested: data"
    # the eleventh audit: the mean of the runs is judged (its s.e. is theirs), not the value pooled over all chains
    assert rule([_acf_row("boston", 0.15, se=0.01, pooled=0.3)], []).verdict == "reproduced"
    assert (
        "0.150 ± 0.010 over 3 runs (pooled over all chains 0.300"
        in rule([_acf_row("boston", 0.15, 0.01, 0.3)], []).ours
    )


def test_table3_reason_prices_the_sets_not_run_and_names_what_the_verdict_turns_on():
    """The twenty-fourth audit: the data sets not run are not 'not on disk' (franzese2021-table1 ran energy and yacht
    from a data_dir): the reason names their files and the command, priced from the committed runs' CPU seconds;
    it says the verdict turns on the project's threshold (the thresholds that would change it, from the rows) and
    on what is not known of the paper's oracle; the notes put the s.e. beside the runs' mean it is of."""
    rule = table3.TABLE3_CLAIMS.rules["acceptable"]
    rows = [dict(_acf_row("boston", 0.15, se=0.005), sampling_cpu_s=1200.0),
            dict(_acf_row("concrete", 0.3, se=0.005), sampling_cpu_s=1800.0)]  # fmt: skip
    out = rule(rows, ["energy", "yacht"])
    assert out.verdict == "partly" and "data not on disk" not in out.why
    assert "reproduced at any threshold above 0.2900, not reproduced at one at or below 0.1400" in out.why
    assert "how its h = 0.005 maps onto pysgmcmc's lr" in out.why
    assert ("`bnnsample figure franzese2021-table3 scale=paper datasets=energy,yacht data_dir=<a folder holding "
            "them>`: about 40-60 CPU-minutes, one oracle per data set at the 1,200-1,800 CPU-s of sampling one took "
            "here (table3.csv's sampling_cpu_s)") in out.why  # fmt: skip
    assert "no result there can change the verdict, partly" in out.why
    assert "can change the verdict" not in rule(rows[:1], ["energy"]).why  # boston alone below: reproduced so far
    notes = table3.notes([dict(r, chains=50, draws_per_chain=20, acf1=0.4) for r in rows], None)
    assert "| boston | 0.150 ± 0.005 | 0.400 |" in notes and "the runs' mean ± s.e. | pooled over all chains" in notes


TABLE1_SGHMC = {"boston": 100.0, "concrete": 150.0, "energy": 150.0, "yacht": 100.0}  # CPU-s per run


def test_table3_prices_the_sets_not_run_from_cpu_seconds_not_wall_seconds():
    """The thirtieth audit (table3#1): the committed table3.csv's seconds are wall seconds (the run's timing around
    each run, a wait on another process included), read back as wall_s: the data sets not run are priced from CPU
    seconds, the ledger's for the invocation scaled by franzese2021-table1's SGHMC CPU seconds per data set, bounded
    by the two readings of what the ledger's seconds were spent on; the reason says what the wall seconds gave."""
    rule = table3.TABLE3_CLAIMS.rules["acceptable"]
    rows = [dict(_acf_row("boston", 0.15, se=0.005), wall_s=1200.0),
            dict(_acf_row("concrete", 0.3, se=0.005), wall_s=1800.0)]  # fmt: skip
    basis = {"ledger_cpu_s": 1500.0, "table1": TABLE1_SGHMC}
    why = rule(rows, ["energy", "yacht"], basis).why
    # spread over both oracles: 1500 x 250 / 250 = 1500 CPU-s; concrete's alone: 1500 x 250 / 150 = 2500 CPU-s
    assert ("about 25-42 CPU-minutes, the ledger's 1,500 CPU-s for the invocation that ran boston and concrete "
            "(results/costs.csv) scaled by franzese2021-table1's mean CPU-s of sampling of an adaptive-SGHMC run per "
            "data set (its runs.csv: boston 100, concrete 150, energy 150, yacht 100): spread over every oracle run "
            "(25), or spent on concrete's alone (42)") in why  # fmt: skip
    assert ("(until 2026-11-29, the thirtieth audit, about 40-60 CPU-minutes, from table3.csv's 1,200-1,800 s per "
            "data set run read as CPU seconds: they are the wall seconds of each run") in why  # fmt: skip
    assert "of sampling one took here" not in why  # wall seconds never price a run
    # without a CPU measurement: not priced (the wall seconds are not used)
    assert "not priced here: no CPU seconds of the oracles' sampling at hand" in rule(rows, ["energy"], {}).why
    # the runs' own CPU seconds of sampling, scaled by table1's ratios: 3000 x 250 / 250 = 3000 CPU-s
    own = [dict(r, sampling_cpu_s=c) for r, c in zip(rows, (1200.0, 1800.0))]
    why = rule(own, ["energy", "yacht"], basis).why
    assert "about 50 CPU-minutes, the 3,000 CPU-s of sampling of the oracles run here (table3.csv's sampling_cpu_s)" \
        in why and "the ledger's" not in why  # fmt: skip


def test_table3_cpu_basis_and_readback_of_the_wall_seconds(tmp_path):
    """``cpu_basis`` reads the ledger's row of the invocation and table1's SGHMC runs; the readback reads the
    committed table3.csv's ``seconds`` (wall seconds) as ``wall_s``, never as the runs' CPU seconds."""
    from types import SimpleNamespace

    from bnnsample.papers.franzese2021 import readback

    (tmp_path / "costs.csv").write_text("figure,scale,options,wall_s,cpu_s,date,machine,cpu_model\n"
                                        "franzese2021-table3,paper,,3477,1487,2026-11-28,x86_64 2 cores,AMD EPYC\n")  # fmt: skip
    (tmp_path / "franzese2021-table1").mkdir()
    (tmp_path / "franzese2021-table1" / "runs.csv").write_text(
        "dataset,split,method,seconds\nboston,0,SHMC,90\nboston,0,SGHMC,100\nboston,1,SGHMC,110\nyacht,0,SGHMC,80\n"
    )
    basis = table3.cpu_basis(tmp_path, {"scale": "paper"})
    assert basis == {"ledger_cpu_s": 1487.0, "table1": {"boston": 105.0, "yacht": 80.0}}
    assert math.isnan(table3.cpu_basis(tmp_path, {"scale": "quick"})["ledger_cpu_s"])  # no row of that invocation
    (tmp_path / "franzese2021-table3").mkdir()
    (tmp_path / "franzese2021-table3" / "table3.csv").write_text(
        "dataset,acf1,seconds,oracle_key\nboston,0.15,2037.1,k\n"
    )
    inv = SimpleNamespace(dir=tmp_path / "franzese2021-table3", opt={"datasets": ["boston"]})
    assert readback._table3(inv, False) == [{"dataset": "boston", "acf1": 0.15, "wall_s": 2037.1, "oracle_key": "k"}]
    assert math.isnan(readback._table3(inv, True)[0]["wall_s"])


def test_table3_progress_line_prints_the_estimator_judged_and_the_oracle():
    """The thirty-third audit: the line printed the value pooled over all chains beside the runs' s.e., and was read
    against the row's runs' mean. It prints the runs' mean first, names the pooled value, and names the oracle run."""
    row = {"dataset": "boston", "acf1": 0.163138, "acf1_se": 0.00845, "acf1_runs": "0.136 0.134 0.157 0.166 0.178",
           "sampling_cpu_s": 484.3, "oracle_key": "boston_k", "oracle_sha": "sha1:e7a19646d03b"}  # fmt: skip
    line = table3.progress_line(row, reused=True)
    assert line == ("boston: ACF(1) 0.154 ± 0.008, the runs' mean (pooled over all chains 0.163); oracle boston_k "
                    "sha1:e7a19646d03b, reused, 484 CPU-s of sampling")  # fmt: skip
    assert ", reused" not in table3.progress_line(row, reused=False)


def test_draws_sha_tells_two_realisations_apart_and_reads_back_as_text(tmp_path):
    from bnnsample.rundir import read_csv, write_csv

    pred = np.random.default_rng(0).standard_normal((4, 3, 5, 1)).astype(np.float32)
    other = pred.copy()
    other[0, 0, 0, 0] = np.nextafter(other[0, 0, 0, 0], np.float32(np.inf))  # one ulp apart
    assert table3.draws_sha(pred) == table3.draws_sha(pred.copy()) != table3.draws_sha(other)
    sha = "sha1:" + "1e" + "0" * 10  # digits alone would read back as a number: the prefix keeps it text
    assert table3.draws_sha(pred).startswith("sha1:") and len(table3.draws_sha(pred)) == len(sha)
    write_csv(tmp_path / "t.csv", [{"oracle_sha": sha}])
    assert read_csv(tmp_path / "t.csv") == [{"oracle_sha": sha}]


def _table3_inv(tmp_path, csv_text: str, datasets):
    from types import SimpleNamespace

    (tmp_path / "table3.csv").write_text(csv_text)
    return SimpleNamespace(dir=tmp_path, opt={"datasets": list(datasets)}, st=table3.TABLE3["paper"],
                           fig_id=table3.ID, command=f"bnnsample figure {table3.ID} scale=paper")  # fmt: skip


_COMMITTED_TABLE3 = (
    "dataset,h,burn_in_steps,thin_steps,chains,diverged_chains,draws_per_chain,test_points,acf1,acf1_se,acf1_median,"
    "acf1_max,acf1_runs,wall_s\n"
    "boston,0.005,2000,500,50,0,20,51,0.155756,0.00282966,0.150307,0.28863,0.150 0.139 0.151 0.143 0.155,2037.1\n"
    "concrete,0.005,2000,500,50,0,20,103,0.285656,0.0037776,0.283507,0.596791,0.259 0.275 0.273 0.282 0.276,1435.7\n"
)


def test_table3_readback_refuses_rows_of_data_sets_the_command_does_not_ask_for(tmp_path):
    """The thirty-third audit: ``readback ... datasets=energy,yacht`` wrote a section naming energy and yacht over
    the committed rows of boston and concrete."""
    from bnnsample.papers.franzese2021 import readback

    with pytest.raises(ValueError, match="holds boston, concrete, which .* does not ask for"):
        readback._table3(_table3_inv(tmp_path, _COMMITTED_TABLE3, ["energy", "yacht"]), False)
    with pytest.raises(ValueError, match="holds concrete,"):
        readback._table3(_table3_inv(tmp_path, _COMMITTED_TABLE3, ["boston", "energy"]), False)
    rows = readback._table3(_table3_inv(tmp_path, _COMMITTED_TABLE3, ["boston", "concrete", "energy", "yacht"]), False)
    assert [r["dataset"] for r in rows] == ["boston", "concrete"]


def test_table3_readback_gives_the_rows_of_2026_11_28_their_oracle_key_and_no_fingerprint(tmp_path):
    """The rows written 2026-11-28 get the key of their Spec (the one uci_runs.py of cc8cad4, which wrote them, gives:
    boston's ..._55279159c0), an empty fingerprint (their draws are gone), and their numbers unchanged; a row that is
    not of the command's Spec is refused; a row that names its oracle keeps it."""
    from bnnsample.papers.franzese2021 import readback

    inv = _table3_inv(tmp_path, _COMMITTED_TABLE3, table3.TABLE3["paper"]["datasets"])
    boston, concrete = readback._table3(inv, False)
    assert boston["oracle_key"] == "boston_sghmc_adaptive_h0.005_full_55279159c0"
    assert concrete["oracle_key"] == "concrete_sghmc_adaptive_h0.005_full_1a95f6cb05"
    assert boston["oracle_sha"] == concrete["oracle_sha"] == ""
    assert boston["acf1_runs"] == "0.150 0.139 0.151 0.143 0.155" and boston["acf1_se"] == 0.00282966
    with pytest.raises(ValueError, match="boston's row is not of the oracle Spec"):
        readback._table3(_table3_inv(tmp_path, _COMMITTED_TABLE3.replace(",20,51,", ",10,51,"), ["boston", "concrete"]),
                         False)  # fmt: skip
    named = "dataset,acf1,oracle_key,oracle_sha\nboston,0.15,boston_x,sha1:abc\n"
    assert readback._table3(_table3_inv(tmp_path, named, ["boston"]), False) == [
        {"dataset": "boston", "acf1": 0.15, "oracle_key": "boston_x", "oracle_sha": "sha1:abc"}
    ]


def _fig2_row(C, coord, mean=1.0, var=0.2, acf=0.3, se=0.01):
    return {"kind": "summary", "C": C, "coord": coord, "mean": mean, "mean_se": se, "var": var, "var_se": se,
            "acf_lag": acf, "acf_se": se}  # fmt: skip


def test_fig2_rules():
    same = fig2.FIG2_CLAIMS.rules["same_law"]
    differ = fig2.FIG2_CLAIMS.rules["paths_differ"]
    good = [_fig2_row(C, k, acf=a) for C, a in ((0.5, -0.6), (5.0, 0.2), (50.0, 0.9)) for k in (1, 2)]
    assert same(good).verdict == "reproduced" and differ(good).verdict == "reproduced"
    shifted = [{**r, "mean": 1.2} if r["C"] == 50.0 else r for r in good]
    # the seventeenth audit: Theorem 1 states exact independence, so the rule is binary: the two pairs with C = 50
    # differ by 14 s.e. (the third agrees), which is no partial agreement (the count rule gave partly)
    assert same(shifted).verdict == "not reproduced (14.1 s.e.)"
    assert same(good).ours.endswith("max |z| = 0.0 over 12 comparisons, 12 within 4 s.e.")
    tol = fig2.FIG2_CLAIMS["same_law"].tolerance
    assert "reproduced: every comparison within it; not reproduced: any beyond it" in tol and "partly" in tol
    apart = [{**r, "mean": r["C"], "var": r["C"]} for r in good]
    assert same(apart).verdict.startswith("not reproduced")
    alike = [{**r, "acf_lag": 0.3} for r in good]
    assert differ(alike).verdict.startswith("not reproduced")
    two_alike = [{**r, "acf_lag": 0.2} if r["C"] == 50.0 else r for r in good]
    assert differ(two_alike).verdict == "partly"
    one_c = [r for r in good if r["C"] == 5.0]
    assert same(one_c).verdict == "not tested: scale" and differ(one_c).verdict == "not tested: scale"


def _fig7_run(batch, akd, seed=0):
    return {"kind": "run", "batch": batch, "h": 0.005, "seed": seed, "samples": 200, "akd": akd, "akd_2000": akd,
            "self_mean": 0.086, "self_low": 0.08, "self_high": 0.09}  # fmt: skip


def test_fig7_rules():
    below = fig7.FIG7_CLAIMS.rules["below_0_1"]
    good = [_fig7_run("full", a, i) for i, a in enumerate((0.084, 0.086, 0.085))]
    bad = [_fig7_run("8", a, i) for i, a in enumerate((0.11, 0.12, 0.115))]
    assert below(good).verdict == "reproduced"
    # the paper's one example names no setting: one setting below 0.1 beyond 2 s.e. is enough, the others listed
    both = below(good + bad)
    assert (
        both.verdict == "reproduced"
        and "batch 8 h=0.005 (0.115" in both.why
        and "until 2026-11-29): partly" in both.why
    )
    near = [
        {**_fig7_run("8", a, i), "h": 0.001} for i, a in enumerate((0.095, 0.099, 0.104))
    ]  # below 0.1 within 2 s.e.
    assert below(near + bad).verdict == "partly"
    assert below(bad).verdict.startswith("not reproduced")
    assert below(good[:1]).verdict == "not tested: scale"  # one seed: no s.e.
    assert fig7.FIG7_CLAIMS.rules["floor"](good).verdict == "passed"
    assert fig7.FIG7_CLAIMS.rules["floor"]([{**good[0], "self_mean": 0.05}]).verdict == "FAILED"


def test_table3_judged_again_from_its_committed_csv(tmp_path):
    """Table 3 is read back from table3.csv (readback.READERS, no run): the data sets asked for that the rows lack
    are those not run, whatever is under data_dir now; the section keeps the committed command's timing."""
    from bnnsample.papers.franzese2021 import readback
    from bnnsample.rundir import write_csv

    rows = [dict(_acf_row(ds, v, se=0.005), h=0.005, burn_in_steps=2000, thin_steps=500, chains=50,
                 diverged_chains=0, draws_per_chain=20, seconds=s)
            for ds, v, s in (("boston", 0.15, 2000.0), ("concrete", 0.3, 1400.0))]  # fmt: skip
    write_csv(tmp_path / table3.ID / "table3.csv", rows, float_format=None)
    readback.judge_again(table3.ID, tmp_path, {"scale": "paper"})
    claim = next(csv.DictReader((tmp_path / table3.ID / "claims.csv").open()))
    assert claim["verdict"] == "partly" and "not run: energy, yacht, their files" in claim["reason"]
    # the thirtieth audit: the committed seconds are wall seconds, written back as wall_s and never a price
    assert ", not priced here: no CPU seconds of the oracles' sampling at hand (until 2026-11-29, the thirtieth " \
        "audit, about 47-67 CPU-minutes" in claim["reason"]  # fmt: skip
    assert (tmp_path / table3.ID / "table3.csv").read_text().splitlines()[0].endswith(",wall_s,oracle_key,oracle_sha")
    # the thirty-third audit: rows written before the rows named their oracle get its key, and no fingerprint
    assert (
        (tmp_path / table3.ID / "table3.csv")
        .read_text()
        .splitlines()[1]
        .endswith(",boston_sghmc_adaptive_h0.005_full_55279159c0,")
    )
    # with the ledger's row of the invocation and table1's runs beside it, priced from their CPU seconds
    (tmp_path / "costs.csv").write_text("figure,scale,options,wall_s,cpu_s,date,machine,cpu_model\n"
                                        "franzese2021-table3,paper,,3400,1500,2026-11-28,x86_64 2 cores,AMD EPYC\n")  # fmt: skip
    write_csv(tmp_path / "franzese2021-table1" / "runs.csv", [{"dataset": d, "method": "SGHMC", "seconds": v}
                                                              for d, v in TABLE1_SGHMC.items()], float_format=None)  # fmt: skip
    readback.judge_again(table3.ID, tmp_path, {"scale": "paper"})
    claim = next(csv.DictReader((tmp_path / table3.ID / "claims.csv").open()))
    assert "about 25-42 CPU-minutes, the ledger's 1,500 CPU-s" in claim["reason"]
    section = read_sections((tmp_path / "REPRODUCTION.md").read_text())[table3.ID]
    assert "judged again from the committed table3.csv, no run made" in section
