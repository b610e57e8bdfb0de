"""What `bnnsample figure` says around a recipe: where it may write, and the verdict of each
claim the recipe wrote into REPRODUCTION.md (or, without a section, into its claims.csv)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from .common import CLAIMS_CSV, claims_with_reasons, read_sections


def check_out_dir(out_dir: Path) -> str:
    """Why ``out_dir`` must not be written, or "": never inside the installed package."""
    package = Path(__file__).resolve().parents[1]
    if out_dir == package or package in out_dir.parents:
        return f"inside the bnnsample package ({package}); run from another directory or give --out DIR"
    return ""


def section_scale(markdown: str) -> str:
    """The scale a REPRODUCTION.md section was made at: ``scale=X`` of its Command line, quick
    (every recipe's default) when the command names none."""
    import re

    m = re.search(r"Command: `bnnsample figure \S+([^`]*)`", markdown)
    got = re.search(r"(?:^|\s)scale=(\S+)", m.group(1)) if m else None
    return got.group(1) if got else "quick"


def beside_other_scale(out_dir: Path, fig_id: str, scale: str) -> tuple[Path, str] | None:
    """(the folder to write to instead, the scale held) when ``out_dir/REPRODUCTION.md`` holds
    ``fig_id`` made at another scale than ``scale``: results of one scale never silently
    replace those of another; the run goes to ``out_dir/scale-<scale>`` (its own
    REPRODUCTION.md and figure folder). None: write to ``out_dir``."""
    path = out_dir / "REPRODUCTION.md"
    held = read_sections(path.read_text()).get(fig_id) if path.exists() else None
    if held is None or section_scale(held) == scale:
        return None
    return out_dir / f"scale-{scale}", f"scale={section_scale(held)}"


def _claims_of(out_dir: Path, fig_id: str, markdown: str) -> list[tuple[str, str, str]]:
    """(claim, verdict, reason) of a figure: from its claims.csv, or read from its section."""
    from ..rundir import read_csv

    path = out_dir / fig_id / CLAIMS_CSV
    if path.exists():
        return [(str(r["claim"]), str(r["verdict"]), _reason(r)) for r in read_csv(path)]
    return claims_with_reasons(markdown)


def _reason(r: dict) -> str:
    """Why a claims.csv row got its verdict: the outcome's reason, else what we measured and
    the rule it was held to (a verdict is never printed bare)."""
    why = str(r.get("reason") or "").strip()
    if why and why != "nan":
        return why
    ours, rule = str(r.get("ours") or "").strip(), str(r.get("tolerance") or "").strip()
    text = "; ".join(p for p in (f"ours: {ours}" if ours not in ("", "-", "nan") else "",
                                 f"rule: {rule}" if rule not in ("", "-", "nan") else "") if p)  # fmt: skip
    return text if len(text) <= 240 else text[:237] + "..."


def _verdict_lines(fig_id: str, rows, where: str) -> list[str]:
    return [f"[bnnsample] {fig_id}: {len(rows)} claims ({where})",
            *(f"  {claim}: {verdict}" + (f" ({why})" if why else "") for claim, verdict, why in rows)]  # fmt: skip


class Verdicts:
    text = ""


@contextmanager
def before_and_after(out_dir: Path, fig_id: str):
    """Yields a Verdicts whose ``text`` is set, after the block, to one line per claim of the
    REPRODUCTION.md sections that the block wrote or changed (and of ``fig_id``'s)."""
    path = out_dir / "REPRODUCTION.md"

    def sections():
        return read_sections(path.read_text()) if path.exists() else {}

    own = out_dir / fig_id / CLAIMS_CSV  # a recipe without a section (orders) files its claims here only

    def stamp():
        return own.stat().st_mtime_ns if own.exists() else None

    old, old_stamp = sections(), stamp()
    v = Verdicts()
    yield v
    new = sections()
    lines = []
    for fid, md in new.items():
        if old.get(fid) == md and fid != fig_id:
            continue
        lines += _verdict_lines(fid, _claims_of(out_dir, fid, md), f"section in {path}")
    if fig_id not in new and stamp() not in (None, old_stamp):
        lines += _verdict_lines(fig_id, _claims_of(out_dir, fig_id, ""), f"in {own}")
    v.text = "\n".join(lines)


LEDGER = "costs.csv"  # out_dir/costs.csv: what each figure invocation cost on the machine that ran it
LEDGER_COLUMNS = ("figure", "scale", "options", "wall_s", "cpu_s", "date", "machine")


def record_cost(out_dir: Path, fig_id: str, options: dict, wall: float | None, cpu: float) -> None:
    """Record one finished invocation in ``out_dir/costs.csv`` (CPU of this process and of
    the worker processes it waited for), replacing the row of the same figure, scale and
    options. ``wall`` None (blank): the invocation read finished cells of earlier ones back,
    and ``cpu`` sums what all its cells took (``Invocation.finish``)."""
    import csv
    import io
    import os
    import platform
    import time

    from ..rundir import write_file

    path = ledger_path(out_dir)
    scale = options.get("scale") or default_scale(fig_id)
    rest = " ".join(f"{k}={v}" for k, v in sorted(options.items()) if k != "scale")
    # the row of the same figure, scale and options is replaced
    rows = [r for r in ledger_rows(path) if (r["figure"], r["scale"], r["options"]) != (fig_id, scale, rest)]
    rows.append(dict(zip(LEDGER_COLUMNS, [fig_id, scale, rest, "" if wall is None else f"{wall:.0f}", f"{cpu:.0f}",
                                          time.strftime("%Y-%m-%d"),
                                          f"{platform.machine()} {os.cpu_count()} cores"])))  # fmt: skip
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=LEDGER_COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    write_file(path, buf.getvalue())


def ledger_rows(path: Path) -> list[dict]:
    """The rows of the costs.csv at ``path`` ([] without one). Never read through a link, as it
    is never written through one (``rundir.check_writable_target``: UserError)."""
    import csv

    from ..rundir import check_writable_target

    check_writable_target(path)
    if not path.exists():
        return []
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def ledger_path(out_dir: Path) -> Path:
    """The costs.csv of the results folder ``out_dir`` belongs to: a run written beside a
    section of another scale (``results/scale-<scale>/``) records its cost in ``results/``,
    where ``figure --list`` reads it."""
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
    """{(figure, scale): the latest ledger row} of ``out_dir/costs.csv`` (empty without one)."""
    return {(r["figure"], r["scale"]): r for r in ledger_rows(out_dir / LEDGER)}


def _cost_text(row: dict | None) -> str:
    if row is None:
        return "not measured"
    cpu = float(row["cpu_s"] or "nan")
    wall = float(row["wall_s"] or "nan")
    minutes = cpu / 60 if cpu == cpu else wall / 60
    what = "CPU" if cpu == cpu else "wall"
    extra = f" with {row['options']}" if row.get("options") else ""
    return f"{minutes:.1f} {what}-min{extra} ({row['date']}, {row['machine']})"


def recipe_lines(recipe, costs: dict, detail: bool = False) -> list[str]:
    """What ``figure --list`` (or, with ``detail``, ``figure ID --help``) shows of a recipe."""
    lines = [f"{recipe.id}  {recipe.description}"]
    if recipe.scales:
        for i, sc in enumerate(recipe.scales):
            tag = " (default)" if i == 0 else ""
            lines.append(f"    scale={sc}{tag}: {_cost_text(costs.get((recipe.id, sc)))}")
    else:
        lines.append(f"    {_cost_text(costs.get((recipe.id, '')))}")
    if detail:
        opts = ", ".join((*recipe.options, "data_dir"))
        lines += [f"    options: {opts}", "    usage: bnnsample figure " + recipe.id +
                  " [--out DIR] [--replace] [key=value ...]"]  # fmt: skip
    return lines
