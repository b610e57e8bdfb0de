"""The cost ledger: what each command cost, measured, with the CPU model it was measured on.

``results/costs.csv`` is the one source of every cost the project states: ``figure --list``,
``figure ID --help``, the estimate printed before a figure or a run, and the README's cost table
(tests/figures/test_costs.py checks that its numbers are the ledger's) all read it. A row is a
figure invocation (figure id, scale, its other options) or a ``bnnsample run`` or ``export``
(figure ``run`` or ``export``, no scale, its overrides), with its wall and CPU seconds (CPU: this process and the workers it
waited for), the date, the machine (architecture, cores) and the CPU model.

A user's invocation writes what it measured beside its results, ``<out>/<id>/cost.csv``
(git-ignored), never into the committed ledger: a figure run leaves the checkout as it was. A
maintainer records a measurement in the ledger with ``bnnsample figure ID --record-cost``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ..plumbing.machine import cpu_model, expected_wall_text, machine, wall_text

LEDGER = "costs.csv"  # <results>/costs.csv: the committed ledger
OWN = "cost.csv"  # <out>/<id>/cost.csv: what a user's invocation measured, beside its results
COLUMNS = ("figure", "scale", "options", "wall_s", "cpu_s", "date", "machine", "cpu_model")
RUN = "run"  # the ledger's "figure" of a `bnnsample run`
NEUTRAL = ("time_limit", "progress", "data_dir", "hydra.run.dir")  # options that do not change the work


def key(fig_id: str, options: dict) -> tuple[str, str, str]:
    """(figure, scale, the other options sorted) of an invocation: the ledger's key of a row."""
    scale = options.get("scale") or (default_scale(fig_id) if fig_id != RUN else "")
    rest = " ".join(f"{k}={v}" for k, v in sorted(options.items()) if k != "scale" and k not in NEUTRAL)
    return fig_id, scale, rest


def command_key(command: str) -> tuple[str, str, str] | None:
    """The ledger's key of a command line ``bnnsample figure ID k=v ...``, ``bnnsample run k=v ...``
    or ``bnnsample export RUN_DIR``; None for another command."""
    words = command.split()
    if words[:2] == ["bnnsample", "figure"] and len(words) > 2:
        fig_id, rest = words[2], words[3:]
    elif words[:2] in (["bnnsample", RUN], ["bnnsample", "export"]):
        fig_id, rest = words[1], words[2:]
    else:
        return None
    return key(fig_id, dict(w.split("=", 1) for w in rest if "=" in w and not w.startswith("-")))


def ledger_rows(path: Path) -> list[dict]:
    """The rows of the costs.csv at ``path`` ([] without one). Never read through a link, as it
    is never written through one (``rundir.check_writable_target``: UserError)."""
    from ..rundir import check_writable_target

    check_writable_target(path)
    if not path.exists():
        return []
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def record_cost(path: Path, fig_id: str, options: dict, wall: float | None, cpu: float) -> Path:
    """Record one finished invocation in the costs.csv at ``path``, replacing the row of the same
    figure, scale and options. ``wall`` None (blank): the invocation read finished cells of
    earlier ones back, and ``cpu`` sums what all its cells took (``Invocation.finish``)."""
    import time

    from ..rundir import write_file

    k = key(fig_id, options)
    rows = [r for r in ledger_rows(path) if (r["figure"], r["scale"], r["options"]) != k]
    rows.append(dict(zip(COLUMNS, [*k, "" if wall is None else f"{wall:.0f}", f"{cpu:.1f}" if cpu < 10 else f"{cpu:.0f}",
                                   time.strftime("%Y-%m-%d"), machine(), cpu_model()])))  # fmt: skip
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n", restval="")
    w.writeheader()
    w.writerows(rows)
    return write_file(path, buf.getvalue())


def ledger_path(out_dir: Path) -> Path:
    """The costs.csv of the results folder ``out_dir`` belongs to: a run written beside a
    section of another scale (``results/scale-<scale>/``) belongs to ``results/``."""
    out_dir = Path(out_dir)
    if out_dir.name.startswith("scale-") and (out_dir.parent / "REPRODUCTION.md").exists():
        out_dir = out_dir.parent
    return out_dir / LEDGER


def default_scale(fig_id: str) -> str:
    """The scale a recipe runs at when the command names none (its first), '' without scales."""
    from . import FIGURES

    try:
        scales = FIGURES[fig_id].scales
    except KeyError:
        return ""
    return scales[0] if scales else ""


def measured_costs(out_dir: Path) -> dict[tuple[str, str], dict]:
    """{(figure, scale): its ledger row} of ``out_dir/costs.csv`` (empty without one): the row
    without other options where there is one, else the latest."""
    got: dict = {}
    for r in ledger_rows(Path(out_dir) / LEDGER):
        k = (r["figure"], r["scale"])
        if not r["options"] or k not in got or got[k]["options"]:
            got[k] = r
    return got


def row_of(out_dir: Path, fig_id: str, options: dict) -> dict | None:
    """The ledger row of exactly this invocation (figure, scale, options), else None."""
    k = key(fig_id, options)
    return next((r for r in ledger_rows(Path(out_dir) / LEDGER) if (r["figure"], r["scale"], r["options"]) == k), None)


def _seconds(text: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


def cpu_text(seconds: float) -> str:
    """A CPU time as the README, ``figure --list`` and the estimates write it."""
    if seconds < 10:
        return f"{seconds:.1f} CPU-s"
    if seconds < 120:
        return f"{seconds:.0f} CPU-s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.1f} CPU-minutes"
    return f"{seconds / 3600:.1f} CPU-hours"


def where_measured(row: dict) -> str:
    """ "on <CPU model> (<machine>), <date>" of a ledger row."""
    return f"on {row.get('cpu_model') or 'a CPU model not recorded'} ({row['machine']}), {row.get('date') or 'undated'}"


def cost_text(row: dict | None) -> str:
    """A ledger row as ``figure --list`` and ``figure ID --help`` show it."""
    if row is None:
        return "not measured"
    cpu, wall = _seconds(row["cpu_s"]), _seconds(row["wall_s"])
    what = cpu_text(cpu) if cpu == cpu else f"{wall_text(wall)} wall (CPU not recorded)"
    if cpu == cpu and wall == wall:
        what += f" ({wall_text(wall)} wall)"
    extra = f" with {row['options']}" if row.get("options") else ""
    return f"{what}{extra}, measured {where_measured(row)}"


def estimate_text(cpu_seconds: float, threads: int = 1, measured: str = "") -> str:
    """ "N CPU-minutes (measured ...); expected wall time here about M minutes (load L on C cores)"."""
    return f"{cpu_text(cpu_seconds)}{f' (measured {measured})' if measured else ''}; {expected_wall_text(cpu_seconds, threads)}"


def estimate_of(out_dir: Path, fig_id: str, options: dict, threads: int = 1) -> str:
    """What the ledger says an invocation will cost, for the line printed before it runs."""
    from ..plumbing.errors import UserError

    try:
        row = row_of(out_dir, fig_id, options)
        if row is None:
            row = measured_costs(out_dir).get(key(fig_id, options)[:2])
    except (OSError, ValueError, KeyError, csv.Error, UserError):  # an unreadable ledger only gives no estimate
        row = None
    cpu = _seconds(row["cpu_s"]) if row else float("nan")
    if cpu != cpu:
        return "cost: not measured yet for this setting"
    extra = f"with {row['options']} " if row["options"] and row["options"] != key(fig_id, options)[2] else ""
    return f"cost: {estimate_text(cpu, threads, extra + where_measured(row))}"
