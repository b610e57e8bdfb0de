"""Writing a committed paulin2025 section's claims again from its files, without a rerun (Fig. 3's committed run
took 3,385 CPU-s; Fig. 4's paper-scale runs were made on a lent GPU and not kept): the section's claims table and
its folder's claims.csv through the writers a run uses, the rest of the section (its Command line with what the
run cost, Files, notes) kept as the run wrote it."""

from __future__ import annotations

import csv
import re
from pathlib import Path


def read_rows(path: Path) -> list[dict]:
    """A committed CSV's rows, each value an int, else a float, else the text (a run's rows as its recipe made
    them, for the rules to read back)."""

    def value(text: str):
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
        return text

    with Path(path).open(newline="") as f:
        return [{k: value(v) for k, v in r.items()} for r in csv.DictReader(f)]


def section_of(out_dir: Path, fig_id: str) -> str:
    """The section of ``fig_id`` in ``out_dir``/REPRODUCTION.md."""
    from ...figures.common import read_sections

    return read_sections((Path(out_dir) / "REPRODUCTION.md").read_text())[fig_id]


def command_of(section: str) -> str:
    """The command a section's run was made with (its Command line)."""
    return re.search(r"Command: `([^`]*)`", section).group(1)


def rewrite_claims(out_dir: Path, fig_id: str, outcomes, heading: str, settings: str | None = None) -> None:
    """Replace the claims table of ``fig_id``'s section with ``outcomes`` ((Claim, Outcome) pairs) and write its
    claims.csv afresh (the writer keeps a file that differs in timing only) with the section's command as the
    setting; ``settings``: the section's Settings paragraph written again too."""
    from ...figures.claims import table
    from ...figures.common import CLAIMS_CSV, update_reproduction, write_claims

    out_dir = Path(out_dir)
    section = section_of(out_dir, fig_id)
    head, rest = section.split(f"\n\n| {heading} |", 1)
    notes = rest.split("\n\n", 1)[1] if "\n\n" in rest else ""
    if settings is not None:
        head = re.sub(r"Settings: .*?(?=\n\n|\Z)", lambda _: f"Settings: {settings}", head, count=1, flags=re.S)
    path = out_dir / fig_id / CLAIMS_CSV
    path.unlink(missing_ok=True)
    write_claims(path, fig_id, outcomes, command_of(section))
    body = f"{head}\n\n{table(outcomes, heading=heading)}" + (f"\n\n{notes.strip()}" if notes.strip() else "")
    update_reproduction(out_dir, fig_id, body + "\n")
