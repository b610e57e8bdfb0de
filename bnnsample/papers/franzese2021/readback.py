"""franzese2021's sections judged again from their committed CSVs, no run made: for a rule changed after the
runs were seen when the runs themselves (results/<id>/runs/, git-ignored) are gone, or their data are not on
this machine. Each recipe's own tables, plot, outcomes, settings and notes (``driver.drive``) run on the rows its
committed CSV holds (``Figure.rows`` replaced by a reader of it), so the section and claims.csv are written by the
recipe's code; the section's command line keeps the timing the committed section gives (that of the invocation
that wrote the CSV) and says that the rows were judged again since.

    python -m bnnsample.papers.franzese2021.readback franzese2021-table2 scale=paper datasets=ionosphere,vehicle
    python -m bnnsample.papers.franzese2021.readback franzese2021-table3 scale=paper

(a committed plot is kept: delete it first where its drawing changed, as table3.png's did 2026-11-29.)

A table's or a distance sweep's rows can also be merged from another invocation of the same recipe at the same
scale (``--merge DIR``: its --out folder, whose ``<id>/runs.csv`` or ``<id>/distances.csv`` and REPRODUCTION.md
section it wrote, e.g. for the data sets the committed runs lacked, or a data set run on a larger grid): its rows
replace the committed rows of the same data sets (their own seconds kept), and the section's Command line is
followed by a sentence naming the data sets merged, that invocation's command and its timing (kept by later
readbacks). A sweep judges each data set on its own grid (``sweeps.own_grid``), its settings name each data set's
grid where they differ (``sweeps.grids_text``), and each row's setting is the command its rows came from.

    python -m bnnsample.papers.franzese2021.readback franzese2021-table1 scale=paper --merge /tmp/table1-energy
    python -m bnnsample.papers.franzese2021.readback franzese2021-fig9 scale=paper \
        datasets=trig_features,breast_cancer,wine steps=0.005,0.01,0.02 batches=0,32 n_leapfrog=1,5,25 seeds=0,1,2 \
        --merge /tmp/fig9-wine
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import replace
from pathlib import Path

from ...figures.common import _TIMING, read_sections
from ...figures.driver import Invocation, drive
from ...rundir import read_csv
from . import appendix, sweeps, table3, tables, toys, uci, uci_runs
from .toy_cells import TrigCell

# cells added to a committed CSV by a run of their own and merged into it: what the section's command line says
# (in place of what it said before; each data set's CPU-s is its run's process time, the oracle included)
MERGED = {
    appendix.FIG8: "h = 0.16 and 0.32 (the 5 samplers x batches full/32/16/8 x seeds 0, 1, 2) added on both data "
    "sets 2026-11-29 by a run of those cells alone per data set with this sweep's oracle (LIE-TROTTER, h = 0.0025: "
    "its band, and a committed cell run again, came out equal to every digit) and merged into distances.csv: wine's "
    "(the twenty-second audit) 51 CPU-s, breast_cancer's (the twenty-fourth audit, once a chain whose predictive or "
    "gradient covariance overflows was flagged diverged instead of stopping the run) 79 CPU-s, the oracle included "
    "(the runs' own sampling seconds in distances.csv)",
}


class ReadBack(Invocation):
    """An invocation that makes no run: its section's command line keeps the committed section's timing (that of
    the invocation that wrote the CSV), or where it has none gives this one's (reading the CSV back), and says that
    the rows were judged again from ``source``, and what cells were added to it (``MERGED``, in place of what an
    earlier readback said of them, ``_ADDED``); the sentence naming
    rows merged from another invocation follows it (this readback's with the committed section's on other data
    sets, else the committed section's: one a merged invocation, since 2026-11-29 several)."""

    source = ""
    merge_from: Path | None = None  # another invocation's --out folder whose rows are merged in
    merged = ""  # the sentences naming rows merged from other invocations (``merged_sentence``), or ""

    def section(self, settings: str, outcomes, notes: str, files: list[Path]) -> str:
        text = super().section(settings, outcomes, notes, files)
        mine = _TIMING.search(text)
        path = self.out_dir / "REPRODUCTION.md"
        committed = read_sections(path.read_text()).get(self.fig_id, "") if path.is_file() else ""
        kept = _TIMING.search(committed)
        if mine is None:
            return text
        said = "judged again from the committed"
        if kept is not None and said in kept.group(0):
            timing = kept.group(0)
        elif kept is not None:
            timing = kept.group(0).replace(
                "; the wall time includes", f"; rows since {said} {self.source}, no run made; the wall time includes", 1
            )
        else:
            timing = mine.group(0).replace(
                "; the wall time includes", f"; rows {said} {self.source}, no run made: the time of reading it back, "
                "the runs' in results/costs.csv; the wall time includes", 1)  # fmt: skip
        added = MERGED.get(self.fig_id)
        before = _ADDED.search(timing)
        if added and before:  # what an earlier readback said of the cells added, said anew
            timing = timing[: before.start(1)] + added + timing[before.end(1) :]
        elif added:
            timing = timing.replace("; the wall time includes", f"; {added}; the wall time includes", 1)
        text = text[: mine.start()] + timing + text[mine.end() :]
        merged = self.merged or " ".join(m.group(0) for m in _MERGED.finditer(committed))
        return text.replace(f"{timing}. Files:", f"{timing}. {merged} Files:", 1) if merged else text

    added_cells = ""  # the cells added to the CSV by runs of their own (``MERGED``), named in each row's setting

    def finish(self, section: str, files: list[Path]) -> list[Path]:
        """As an invocation's, each row's setting (claims.csv) naming what its numbers came from beside this command
        (the twenty-sixth audit): the cells added to the CSV (``added_cells``), or the invocation whose rows of some
        data sets were merged in (the section's sentence, ``_MERGED``)."""
        self.outcomes = [(c, replace(o, setting=_setting_of(c.text, self.command, self.added_cells, section)
                                     or o.setting)) for c, o in self.outcomes]  # fmt: skip
        return super().finish(section, files)


def _setting_of(claim: str, command: str, added: str, section: str) -> str:
    """A row's setting: ``command``, with the cells ``added`` to its CSV, or, where the section names rows of some data
    sets merged from another invocation, that invocation's command for a claim on those data sets (its text starts
    with one: 'energy: ...') and both commands for a claim on every data set; "" where neither applies (the
    section's command)."""
    if added:
        return f"{command} + {added}"
    merges = []
    for m in _MERGED.finditer(section):
        datasets, other = merged_parts(m.group(0))
        if any(d not in OFFLINE for d in datasets):
            other += " data_dir=DIR (DIR: the UCI_Datasets/ files, docs/guide/data.md)"
        merges.append((datasets, other))
    if not merges:
        return ""
    on = _ON_DATASET.match(claim)
    if on is not None:
        return next((f"{other}, its rows merged into {command}'s" for ds, other in merges if on.group(1) in ds), "")
    return (f"{command} + " + " + ".join(f"{other} ({', '.join(ds)})" for ds, other in merges)
            + (", its rows merged in" if len(merges) == 1 else ", their rows merged in"))  # fmt: skip


# the data sets that need no files on disk (scikit-learn's, the synthetic set): a merged invocation of them is
# repeated without data_dir
OFFLINE = frozenset((*tables.CLASSIFICATION_OFFLINE, *appendix.STAND_INS, appendix.SYNTHETIC))

# a claim on one data set: its text starts with the data set's name, alone ('energy: ...') or followed by what it
# is (an appendix figure's panel, 'wine (offline stand-in for ...): ...'; until 2026-11-29 only the first was read)
_ON_DATASET = re.compile(r"([a-z_]+)(?: \([^()]*\))?: ")


def merged_parts(sentence: str) -> tuple[list[str], str]:
    """(the data sets, the command) that a sentence naming rows merged from another invocation
    (``merged_sentence``) gives."""
    datasets = re.match(r"Rows of (.*?) merged into", sentence).group(1).split(", ")
    return datasets, re.search(r"from `([^`]*)`", sentence).group(1)


def added_cells(rows: list[dict], steps) -> str:
    """The cells of ``rows`` at step sizes not in ``steps`` (the command's), added by runs of their own (``MERGED``):
    their step sizes, samplers, batches and seeds per data set, and their burn-in and spacing of draws in time
    (which can differ from the command's, as their steps are rounded)."""
    new = [r for r in rows if r["step_size"] not in set(steps)]
    if not new:
        return ""

    def joined(key, fmt=str) -> str:
        return "/".join(fmt(v) for v in dict.fromkeys(r[key] for r in new))

    burn = sorted({round(r["step_size"] * r["burn_in_steps"], 4) for r in new})
    thin = sorted({round(r["step_size"] * r["thin_steps"], 4) for r in new})
    return (f"h = {', '.join(f'{h:g}' for h in sorted({r['step_size'] for r in new}))} merged ({joined('label')} x "
            f"batches {joined('batch', lambda b: 'full' if b in (0, 'full') else str(b))} x seeds {joined('seed')} on "
            f"{joined('dataset')}, by runs of their own; burn-in time {'/'.join(f'{x:g}' for x in burn)}, draws "
            f"{'/'.join(f'{x:g}' for x in thin)} apart)")  # fmt: skip


# what an earlier readback said of the cells added (``MERGED``): the clause its timing gives before "; the wall time
# includes", after "no run made" (a section written by a run) or after the time of reading back (one that was not)
_ADDED = re.compile(r"(?:no run made|the runs' in results/costs\.csv); ([^\n]*?); the wall time includes")

# a sentence of a Command line naming rows merged from another invocation (``merged_sentence``)
_MERGED = re.compile(r"Rows of [^\n]*? merged into \S+ from `[^`]*` \(wall time [^\n]*?; the wall time includes "
                     r"waiting on a shared machine\)\.")  # fmt: skip


def merged_sentence(datasets: list[str], source: str, section: str) -> str:
    """The sentence that names the data sets whose rows were merged into ``source`` from another invocation, with
    that invocation's command and timing as its own section (``section``) gives them."""
    command = re.search(r"Command: (`bnnsample figure [^`]*`)", section)
    timing = _TIMING.search(section)
    if command is None or timing is None:
        raise ValueError("the merged invocation's section has no Command line with its timing")
    return f"Rows of {', '.join(datasets)} merged into {source} from {command.group(1)} {timing.group(0)}."


def _merge(inv: Invocation, rows: list[dict], source: str) -> list[dict]:
    """``rows`` with those of the data sets that ``inv.merge_from`` (another invocation's --out folder, of the same
    recipe at the same scale) holds replaced by its rows, in the order of the section's data sets; ``inv.merged``
    names them."""
    other = read_csv(inv.merge_from / inv.fig_id / source)
    section = read_sections((inv.merge_from / "REPRODUCTION.md").read_text())[inv.fig_id]
    new = distinct_datasets(other)
    sentence = merged_sentence(new, source, section)
    scale = re.search(r" scale=(\S+)", merged_parts(sentence)[1])
    if scale is None or scale.group(1) != inv.scale:
        raise ValueError(
            f"{inv.fig_id}: the invocation merged is not at scale={inv.scale}: {merged_parts(sentence)[1]}"
        )
    kept = []  # the committed section's merges of other data sets stay named
    for earlier in _committed_merges(inv):
        datasets = set(merged_parts(earlier)[0])
        if datasets & set(new) and not datasets <= set(new):
            raise ValueError(f"{inv.fig_id}: {earlier} names data sets merged again and others")
        if not datasets & set(new):
            kept.append(earlier)
    inv.merged = " ".join([*kept, sentence])
    order = {d: i for i, d in enumerate(dict.fromkeys([*distinct_datasets(rows), *new]))}
    kept = [r for r in rows if r["dataset"] not in new]
    return sorted(kept + other, key=lambda r: order[r["dataset"]])


def _missing(inv: Invocation, rows: list[dict]) -> list[str]:
    """The data sets asked for that the committed rows do not hold (not on disk when the runs were made)."""
    present = {r["dataset"] for r in rows}
    return [d for d in inv.opt["datasets"] if d not in present]


def _table(inv: Invocation, untimed: bool) -> dict:
    """Table 1 or 2's rows from runs.csv (``untimed``: its seconds are not the runs' sampling times, NaN), as
    ``tables._measure`` returns them."""
    _, _, metrics, _, _ = tables.TABLES[inv.fig_id]
    rows = read_csv(inv.dir / "runs.csv")
    if untimed:
        rows = [{**r, "seconds": math.nan} for r in rows]
    if inv.merge_from is not None:
        rows = _merge(inv, rows, "runs.csv")
    # an empty cell is a score a diverged run does not have (``tables.score`` leaves it out), as the recipe's rows
    rows = [{k: v for k, v in r.items() if v != ""} for r in rows]
    return {"rows": rows, "summary": tables.summarise(rows, metrics), "missing": _missing(inv, rows),
            "stand_ins": [n for n in distinct_datasets(rows) if n in tables.CLASSIFICATION_OFFLINE]}  # fmt: skip


def distinct_datasets(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(r["dataset"] for r in rows))


_SWEEP_KEY = {uci.FIG4: "integrators", uci.FIG5: "n_leapfrog", uci.FIG10: "frictions", appendix.FIG8: "integrators",
              appendix.FIG9: "n_leapfrog"}  # fmt: skip


def _committed_merges(inv: Invocation) -> list[str]:
    """The sentences of the committed section naming rows merged from other invocations (``_MERGED``)."""
    path = inv.out_dir / "REPRODUCTION.md"
    committed = read_sections(path.read_text()).get(inv.fig_id, "") if path.is_file() else ""
    return [m.group(0) for m in _MERGED.finditer(committed)]


def _merged_in(inv: Invocation) -> dict:
    """{data set: the command of the invocation its rows were merged from}: this readback's merges
    (``inv.merged``), else the committed section's (``_MERGED``); {} where none."""
    sentences = [m.group(0) for m in _MERGED.finditer(inv.merged)] if inv.merged else _committed_merges(inv)
    return {d: command for datasets, command in map(merged_parts, sentences) for d in datasets}


def _sweep(inv: Invocation, untimed: bool) -> dict:
    """A distance sweep's rows from distances.csv, as ``sweeps._sweep``'s measure returns them; with
    ``inv.merge_from``, those of the data sets it holds replaced by its rows (``_merge``). ``merged_from``: the data
    sets whose rows came from another invocation (this merge's or an earlier one's), with its command; the step
    sizes of the others are checked against the command's."""
    rows = read_csv(inv.dir / "distances.csv")
    if untimed:
        rows = [{**r, "seconds": math.nan} for r in rows]
    s = uci.sweep_settings(inv.scale, inv.opt)
    if inv.merge_from is not None:
        rows = _merge(inv, rows, "distances.csv")
    merged = _merged_in(inv)
    steps = {r["step_size"] for r in rows if r["dataset"] not in merged}
    if steps and (not set(s.steps) <= steps or (steps - set(s.steps) and inv.fig_id not in MERGED)):
        raise ValueError(f"{inv.fig_id}: distances.csv's step sizes are not those of {inv.command}")
    return {"rows": rows, "s": s, "vals": inv.opt[_SWEEP_KEY[inv.fig_id]], "missing": _missing(inv, rows),
            "merged_from": merged}  # fmt: skip


def _fig1(inv: Invocation, untimed: bool) -> dict:
    """Fig. 1's cells from kolmogorov.csv (AKDs to 5 digits, exact AKDs to 4), as ``toys._trig_cells`` returns them."""
    from ...simulate import build_target

    rows = read_csv(inv.dir / "kolmogorov.csv")
    s = {**inv.st, **inv.opt, "gamma": float(build_target(["dataset=trig_features"], threads=1).cfg.friction)}
    if sorted({r["h"] for r in rows}) != sorted(s["steps"]):
        raise ValueError(f"{inv.fig_id}: kolmogorov.csv's step sizes are not those of {inv.command}")

    def num(v) -> float:
        return math.nan if v == "" else float(v)

    cells = [TrigCell(r["scheme"], r["integrator"], r["batch"], r["h"], akd=num(r["akd"]),
                      exact_akd=num(r["exact_stationary_akd"]), diverged=bool(r["diverged"]),
                      steps=r["steps_per_chain"], seconds=math.nan if untimed else r["seconds"]) for r in rows]  # fmt: skip
    first = rows[0]
    band = {k: float(first[f"self_distance_{k}"]) for k in ("mean", "low", "high")}
    return {"cells": cells, "band": band, "s": s}


def _table3(inv: Invocation, untimed: bool) -> list[dict]:
    """Table 3's rows from table3.csv, as ``table3.table3_rows`` returns them but for the timing: a CSV written since
    2026-11-29 holds ``sampling_cpu_s``, the oracle runs' own CPU seconds of sampling; the one written 2026-11-28
    holds ``seconds``, the wall seconds its ``uci_runs.run_spec`` timed around each run (perf_counter, any wait on
    another process owning the run included), read as ``wall_s`` (until 2026-11-29, the thirtieth audit, read as
    CPU seconds); NaN when ``untimed``. A row without the oracle's key gets it (``_oracle_of``). Data sets the rows
    hold that the command's ``datasets=`` does not name are refused (until 2026-11-30, the thirty-third audit, the
    section then named the command's data sets over the rows of others)."""
    rows = [{("wall_s" if k == "seconds" else k): v for k, v in r.items()} for r in read_csv(inv.dir / "table3.csv")]
    extra = [d for d in distinct_datasets(rows) if d not in inv.opt["datasets"]]
    if extra:
        raise ValueError(f"{inv.fig_id}: table3.csv holds {', '.join(extra)}, which {inv.command} does not ask for "
                         "(datasets=)")  # fmt: skip
    rows = [_oracle_of(inv, r) for r in rows]
    timing = ("wall_s", "sampling_cpu_s")
    return [{**r, **{k: math.nan for k in timing if k in r}} for r in rows] if untimed else rows


def _oracle_of(inv: Invocation, row: dict) -> dict:
    """``row`` with its oracle run's key (``oracle_key``) and, where the row does not say, no fingerprint of its
    draws (``oracle_sha`` empty): table3.csv's rows written 2026-11-28, before the rows named their oracle
    (2026-11-30, the thirty-third audit). The key is that of the Spec of the row's data set at the command's scale
    (``uci_runs.oracle_spec``), which the row's own h, burn-in, spacing, chains and draws are checked against; it is
    the key the code of those rows gave (checked 2026-11-30 against uci_runs.py of cc8cad4). The draws are gone, so
    no fingerprint: a run kept under that key today may be another realisation of the Spec."""
    if "oracle_key" in row:
        return row
    spec = uci_runs.oracle_spec(row["dataset"], table3.oracle_settings(inv.st))
    burn, thin = spec.steps()
    own = (row["h"], row["burn_in_steps"], row["thin_steps"], row["chains"] + row["diverged_chains"],
           row["draws_per_chain"])  # fmt: skip
    if own != (spec.h, burn, thin, spec.chains, spec.draws):
        raise ValueError(f"{inv.fig_id}: {row['dataset']}'s row is not of the oracle Spec of {inv.command}")
    return {**row, "oracle_key": spec.key(), "oracle_sha": ""}


READERS = {
    tables.TABLE1: (tables.TABLE1_FIGURE, _table, "runs.csv"),
    tables.TABLE2: (tables.TABLE2_FIGURE, _table, "runs.csv"),
    uci.FIG4: (sweeps.FIGURE4, _sweep, "distances.csv"),
    uci.FIG5: (sweeps.FIGURE5, _sweep, "distances.csv"),
    uci.FIG10: (sweeps.FIGURE10, _sweep, "distances.csv"),
    appendix.FIG8: (appendix.FIGURE8, _sweep, "distances.csv"),
    appendix.FIG9: (appendix.FIGURE9, _sweep, "distances.csv"),
    toys.FIG1: (toys.FIGURE1, _fig1, "kolmogorov.csv"),
    table3.ID: (table3.FIGURE, _table3, "table3.csv"),
}


def judge_again(fig_id: str, out_dir: Path, options: dict, untimed: bool = False, merge: Path | None = None
                ) -> list[Path]:  # fmt: skip
    """Write ``fig_id``'s files, section and claims.csv again from its committed CSV under ``out_dir``, invoked
    with ``options`` (those of the committed section's command); ``untimed``: the CSV's seconds are not the runs'
    sampling times (written as NaN; the CSV read is then removed before it is written, as a rewrite that differs
    only in its timing columns would keep it); ``merge`` (Tables 1-2 and the distance sweeps, since 2026-11-29):
    another invocation's --out folder, whose rows replace those of the same data sets (its own seconds kept) and
    whose command the section names."""
    fig, reader, source = READERS[fig_id]
    if merge is not None and reader not in (_table, _sweep):
        raise ValueError(f"{fig_id}: only the tables' and the sweeps' rows can be merged from another invocation")
    inv = ReadBack(fig.id, Path(out_dir), options, fig.scales, fig.options, fig.title, fig.heading)
    inv.source, inv.merge_from = source, None if merge is None else Path(merge)
    m = reader(inv, untimed)
    if fig_id in MERGED:
        inv.added_cells = added_cells(m["rows"], m["s"].steps)
    if untimed:
        (inv.dir / source).unlink()
    plot = fig.plot and (lambda m_, inv_, path: path if path.is_file() else fig.plot(m_, inv_, path))
    # the committed plot is kept: drawn from the same rows (at the precision the runs had, where the CSV rounds)
    return drive(replace(fig, rows=lambda _inv, _bar: m, cells=None, start=None, plot=plot), inv)


if __name__ == "__main__":  # python -m ... <id> [key=value ...] [--untimed] [--out results] [--merge DIR]
    args = sys.argv[1:]
    out = Path(args[args.index("--out") + 1]) if "--out" in args else Path("results")
    merge = Path(args[args.index("--merge") + 1]) if "--merge" in args else None
    opts = dict(a.split("=", 1) for a in args[1:] if "=" in a)
    print("\n".join(map(str, judge_again(args[0], out, opts, untimed="--untimed" in args, merge=merge))))
