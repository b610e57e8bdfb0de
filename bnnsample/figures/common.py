"""What figure recipes share: the ``scale`` option, the output folder, option checks and the
REPRODUCTION.md section writer; rows picked by their values (``where``, ``distinct``), markdown
tables (``md_table``) and error-bar series (``series``). Runs go through the simulation kernel
``bnnsample.simulate``, or through ``bnnsample.jobs.runs`` for whole runs; CSV files through
``rundir.write_csv``, plots through ``bnnsample.plotting``."""

from __future__ import annotations

import fcntl
import os
import re
from pathlib import Path

from ..config import compose  # noqa: F401  (compose: the recipes' config composer)
from ..plumbing.errors import UserError
from ..rundir import read_csv, write_csv, write_file
from .claims import SOURCES, VERDICTS, verdict_of

SCALES = ("quick", "paper")

HEADER = """# Reproduction of the papers' figures and tables

Each section is written by `bnnsample figure <id>` (the command is in the section) from
runs actually made; the files it wrote are under `results/<id>/`. A row per claim: where the
paper makes it, the paper's value and whether that value is *printed* in the paper, a
*statement* of the paper (no number) or *derived* for this project (an exact variance, a rerun
of the authors' code, the saved output of the authors' code that a figure plots or a table's
cells stand for where the paper's text does not print them), our numbers with standard errors,
and a verdict:

- **reproduced**: agreement within the tolerance the row states;
- **partly**: some of the claim's cases agree, or agreement only within a looser tolerance;
- **not reproduced**: a measured disagreement, with its size in standard errors where the
  measurement has one;
- **not tested**: not put to a test here, and why: the *scale* that fits on this machine does
  not resolve it, the *data* are not available, it is *not a paper experiment*, or the test
  that resolves it fits this machine and is priced and named in the row but was *not run* yet
  (queued in scripts/cpu_queue.sh).

Rows marked *check* test our own machinery and are not counted. Sections are replaced when
their recipe is rerun; the others stay. The measured orders of convergence of every integrator
(`bnnsample figure orders`: results/orders/orders.md and its claims.csv) are not counted here
either: they hold the implemented schemes, in each batching with a claim, to the order a paper
proves or observes or, in the rows marked derived, the order this project derives from the
papers' results, most of them for schemes and batchings no figure or table runs; where a
figure does report an order (paulin2025 Fig. 1), its own section counts it, and counting it
here too would count it twice.
"""


_BLOCK = re.compile(r"<!-- begin (\S+) -->\n(.*?)\n<!-- end \1 -->", re.DOTALL)
_PIPE = re.compile(r"(?<!\\)\|")


def read_sections(text: str) -> dict[str, str]:
    """{fig_id: markdown} of the sections in a REPRODUCTION.md text."""
    return {m.group(1): m.group(2) for m in _BLOCK.finditer(text)}


def _order(fig_id: str):
    paper, _, item = fig_id.partition("-")
    kind = re.match(r"[a-z]*", item).group(0)
    num = re.search(r"\d+", item)
    return paper, kind != "fig", int(num.group(0)) if num else 0, item


def _rows(markdown: str):
    """(claim, verdict cell, source or "") of each table row with a verdict: the cell under a
    "verdict" header when the table has one, else the last cell that starts with a verdict (a
    notes cell after the verdict column is never read as the verdict)."""
    column = None
    for line in markdown.splitlines():
        if not line.lstrip().startswith("|"):
            column = None
            continue
        cells = [c.strip().strip("*") for c in _PIPE.split(line.strip().strip("|"))]
        if set("".join(cells)) <= set("-: "):
            continue
        heads = [c.lower() for c in cells]
        if "verdict" in heads:
            column = heads.index("verdict")
            continue
        if len(cells) < 2:
            continue
        found = [column] if column is not None and column < len(cells) else range(len(cells) - 1, -1, -1)
        for i in found:
            if verdict_of(cells[i]):
                notes = cells[i + 1] if i + 1 < len(cells) else ""
                yield cells[0], cells[i], next((c for c in cells if c in SOURCES), ""), notes
                break


def claims(markdown: str) -> list[tuple[str, str]]:
    """(claim, verdict cell) of each table row of a section whose cell (the last such) starts
    with a verdict; the claim is the row's first cell."""
    return [(claim, cell) for claim, cell, *_ in _rows(markdown)]


def claims_with_reasons(markdown: str) -> list[tuple[str, str, str]]:
    """(claim, verdict cell, reason) of each row: the reason is the last part of the row's
    notes cell ("agreement means · measured by · why"), where the outcome's why stands."""
    out = []
    for claim, cell, _, notes in _rows(markdown):
        parts = [p.strip() for p in notes.replace("\\|", "|").split(" · ") if p.strip() and p.strip() != "-"]
        out.append((claim, cell, parts[-1] if len(parts) >= 3 or (parts and verdict_of(cell) != "reproduced") else ""))
    return out


def verdict_counts(markdown: str) -> dict[str, int]:
    """Verdicts in the last cell of a section's table rows (rows whose last cell starts with
    one), and how many of the rows' paper values are of each source ("printed", "statement",
    "derived")."""
    counts = dict.fromkeys((*VERDICTS, *SOURCES), 0)
    for _, cell, source, _ in _rows(markdown):
        counts[verdict_of(cell)] += 1
        if source:
            counts[source] += 1
    return counts


def _index_row(label: str, c: dict) -> str:
    return "| " + " | ".join([label, *(str(c[k]) for k in (*VERDICTS, *SOURCES))]) + " |"


def render(sections: dict[str, str], out_dir: Path | None = None) -> str:
    """The whole REPRODUCTION.md: header, index of verdict counts per section (from each
    figure's claims.csv under ``out_dir`` where there is one) with totals per paper and
    overall, sorted sections."""
    ids = sorted(sections, key=_order)
    keys = (*VERDICTS, *SOURCES)
    lines = [HEADER, "| id | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
    total = dict.fromkeys(keys, 0)
    papers: dict[str, dict] = {}
    for fid in ids:
        c = claims_counts(out_dir, fid, sections[fid])
        lines.append(_index_row(f"[{fid}](#{fid})", c))
        paper = papers.setdefault(fid.partition("-")[0], dict.fromkeys(keys, 0))
        for k in keys:
            paper[k] += c[k]
            total[k] += c[k]
    lines += [_index_row(f"**{p} total**", c) for p, c in papers.items()]
    lines.append(_index_row("**all papers**", total))
    body = [f'<a id="{fid}"></a>\n<!-- begin {fid} -->\n{sections[fid]}\n<!-- end {fid} -->' for fid in ids]
    return "\n".join(lines) + "\n\n" + "\n\n".join(body) + "\n"


def scale_of(options: dict, default: str = "quick", allowed: tuple[str, ...] = SCALES) -> str:
    """The ``scale=quick|paper`` option, or a recipe's own list of scales (ValueError names
    the allowed values)."""
    scale = options.get("scale", default)
    if scale not in allowed:
        raise ValueError(f"scale={scale}: allowed values: {', '.join(allowed)}")
    return scale


def recipe_dir(out_dir, fig_id: str) -> Path:
    """The folder ``<out_dir>/<fig_id>`` a recipe writes its files to, created."""
    out = Path(out_dir) / fig_id
    out.mkdir(parents=True, exist_ok=True)
    return out


def fmt(x, spec=".3g") -> str:
    """``format(x, spec)``, or "nan" for None and non-finite floats."""
    import math

    return "nan" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x, spec)


COMMON_OPTIONS = ("data_dir",)


def check_options(options: dict, allowed: tuple[str, ...]) -> None:
    """ValueError for an option the recipe does not know, naming the ones it does (and those
    every recipe takes, COMMON_OPTIONS, which the CLI applies: ``config.figure_overrides``)."""
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r}; allowed: {', '.join((*allowed, *COMMON_OPTIONS))}")


def update_reproduction(out_dir: Path, fig_id: str, markdown: str) -> Path:
    """Replace (or append) the section of ``fig_id`` in ``out_dir/REPRODUCTION.md``.

    The section is everything between ``<!-- begin fig_id -->`` and ``<!-- end fig_id -->``;
    sections are sorted by paper, then figures before tables in numeric order, under an index
    that counts each section's verdicts. A lock file serializes recipes that run at the same
    time. A section that differs from the one there only in its command's timing (``untimed``)
    is not replaced, and a file that would not change is not written: a rerun that reproduces
    the committed numbers leaves REPRODUCTION.md byte-identical.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "REPRODUCTION.md"
    lock = out_dir / ".REPRODUCTION.lock"
    try:  # never through a link: O_NOFOLLOW, and nothing is written to the lock file
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise UserError(f"{lock}: cannot take the lock of REPRODUCTION.md ({e.strerror or e}; a symbolic link "
                        "there is refused)") from None  # fmt: skip
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        old = path.read_text() if path.exists() else None
        sections = read_sections(old) if old is not None else {}
        new = markdown.strip()
        if sections.get(fig_id) is None or untimed(sections[fig_id]) != untimed(new):
            sections[fig_id] = new  # a rerun that measured the same keeps the committed section
        text = render(sections, out_dir)
        if text != old:
            write_file(path, text)
    finally:
        os.close(fd)
    return path


# the timing a section's Command line states (driver.Invocation.section): not part of what it measured
_TIMING = re.compile(r"\(wall time [^\n]*?; the wall time includes waiting on a shared machine\)")
TIMING_COLUMNS = ("seconds", "wall_s", "cpu_s")  # a CSV's timing columns (and ms_per_*, seconds_per_*, *_seconds)


def untimed(section: str) -> str:
    """A section without its Command line's wall and CPU time: two runs that measured the same
    give the same text."""
    return _TIMING.sub("(timing)", section)


def is_timing(column: str) -> bool:
    return column in TIMING_COLUMNS or column.startswith(("ms_per_", "seconds_per_")) or column.endswith("_seconds")


def same_but_timing(old: bytes, new: bytes) -> bool:
    """Whether two CSV files hold the same header and the same values outside their timing
    columns (``is_timing``)."""
    import csv
    import io

    def rows(data: bytes):
        r = csv.reader(io.StringIO(data.decode("utf-8", "replace")))
        header = next(r, [])
        keep = [i for i, c in enumerate(header) if not is_timing(c)]
        return header, [[row[i] if i < len(row) else None for i in keep] for row in r]

    return rows(old) == rows(new)


def write_rows(path: Path, rows: list[dict], float_format: str | None = "{:.6g}", columns=None) -> Path:
    """``rundir.write_csv``, except that a file there whose values differ only in their timing
    columns (``same_but_timing``) is kept as it is: a rerun that reproduces the committed numbers
    leaves the committed CSV byte-identical."""
    from ..rundir import write_bytes

    path = Path(path)
    old = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    write_csv(path, rows, float_format=float_format, columns=columns)
    if old is not None and path.read_bytes() != old and same_but_timing(old, path.read_bytes()):
        write_bytes(path, old, durable=False)
    return path


CLAIMS_CSV = "claims.csv"


def write_claims(path: Path, fig_id: str, rows, setting: str) -> Path:
    """results/<id>/claims.csv: one structured row per claim (``claims.csv_rows``)."""
    from .claims import CSV_COLUMNS, csv_rows

    return write_rows(path, csv_rows(fig_id, rows, setting), float_format=None, columns=CSV_COLUMNS)


def claims_counts(out_dir: Path, fig_id: str, markdown: str) -> dict[str, int]:
    """The verdict and source counts of a figure, from its claims.csv when it has one (the
    structured record), else read from the section's markdown."""
    path = Path(out_dir) / fig_id / CLAIMS_CSV if out_dir is not None else None
    if path is None or not path.exists():
        return verdict_counts(markdown)
    counts = dict.fromkeys((*VERDICTS, *SOURCES), 0)
    for r in read_csv(path):
        counts[verdict_of(str(r["verdict"]))] += 1
        if r["source"] in SOURCES:
            counts[r["source"]] += 1
    return counts


def where(rows, **eq) -> list[dict]:
    """The rows whose values of the keys named equal the values given."""
    return [r for r in rows if all(r[k] == v for k, v in eq.items())]


def distinct(rows, *keys: str) -> list:
    """The distinct values of ``keys`` (a tuple for several) in the rows, in order of appearance."""
    return list(dict.fromkeys(r[keys[0]] if len(keys) == 1 else tuple(r[k] for k in keys) for r in rows))


def md_table(head, rows) -> list[str]:
    """The lines of a markdown table: its header cells ``head``, then a line per row of cells."""
    return ["| " + " | ".join(map(str, head)) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(map(str, r)) + " |" for r in rows)]  # fmt: skip


def series(ax, rows, x, y, se=None, **style):
    """``ax.errorbar`` of the rows' ``x`` against ``y`` (keys, or functions of a row), with bars of 2 ``se``."""

    def get(k):
        return [k(r) if callable(k) else r[k] for r in rows]

    return ax.errorbar(get(x), get(y), yerr=None if se is None else [2 * v for v in get(se)], **style)
