"""What `bnnsample figure` says around a recipe: where it may write, and the verdict of each
claim the recipe wrote into REPRODUCTION.md (or, without a section, into its claims.csv), and
how each recipe is listed with its measured costs (the ledger itself: ``costs``)."""

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


def recipe_lines(recipe, costs: dict, detail: bool = False) -> list[str]:
    """What ``figure --list`` (or, with ``detail``, ``figure ID --help``) shows of a recipe: its
    scales with what the ledger (``costs.measured_costs``) holds for each."""
    from .costs import cost_text as _cost_text

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
                  " [--out DIR] [--replace] [--record-cost] [key=value ...]"]  # fmt: skip
    return lines
