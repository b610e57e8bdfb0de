"""What `bnnsample figure` says around a recipe: where it may write, and the verdict of each
claim the recipe wrote into REPRODUCTION.md."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from .common import claims, read_sections


def check_out_dir(out_dir: Path) -> str:
    """Why ``out_dir`` must not be written, or "": never inside the installed package."""
    package = Path(__file__).resolve().parents[1]
    if out_dir == package or package in out_dir.parents:
        return f"inside the bnnsample package ({package}); run from another directory or give --out DIR"
    return ""


class Verdicts:
    text = ""


@contextmanager
def before_and_after(out_dir: Path, fig_id: str):
    """Yields a Verdicts whose ``text`` is set, after the block, to one line per claim of the
    REPRODUCTION.md sections that the block wrote or changed (and of ``fig_id``'s)."""
    path = out_dir / "REPRODUCTION.md"

    def sections():
        return read_sections(path.read_text()) if path.exists() else {}

    old = sections()
    v = Verdicts()
    yield v
    new = sections()
    lines = []
    for fid, md in new.items():
        if old.get(fid) == md and fid != fig_id:
            continue
        rows = claims(md)
        lines.append(f"[bnnsample] {fid}: {len(rows)} claims (section in {path})")
        lines += [f"  {claim}: {verdict}" for claim, verdict in rows]
    v.text = "\n".join(lines)
