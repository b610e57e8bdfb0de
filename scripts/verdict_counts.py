"""Keep the verdict counts that the README and the manual state equal to the record they count,
the index of results/REPRODUCTION.md (itself counted from each figure's claims.csv):

- README.md, "What the reproductions concluded": the counts over all papers and each paper's
  "(reproduced / partly / not reproduced / not tested)";
- docs/reproduction.md: each paper's "**Verdicts**: ..." line and each section's "Verdicts: ...".

    python scripts/verdict_counts.py            # write the counts of the index into both files
    python scripts/verdict_counts.py --check    # exit 1 if a stated count differs from the index

tests/test_verdict_counts.py runs the check, so a rerun recipe whose verdicts change fails until the
documents say so (the prose around the counts is the author's to reread).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INDEX = ROOT / "results" / "REPRODUCTION.md"
README = ROOT / "README.md"
PAGE = ROOT / "docs" / "reproduction.md"
VERDICTS = ("reproduced", "partly", "not reproduced", "not tested")
_ROW = re.compile(r"^\| (?:\[(?P<fid>[\w-]+)\]\(#[\w-]+\)|\*\*(?P<paper>[\w ]+?)(?: total)?\*\*) \|(?P<cells>.*)\|$")


def index_counts(text: str) -> dict[str, tuple[int, ...]]:
    """{figure id | paper | "all papers": its four verdict counts} of the REPRODUCTION.md index."""
    out = {}
    for line in text.split("<a id", 1)[0].splitlines():
        m = _ROW.match(line)
        if m:
            out[m["fid"] or m["paper"]] = tuple(int(c) for c in m["cells"].split("|")[: len(VERDICTS)])
    return out


def _words(counts) -> str:
    return ", ".join(f"{n} {v}" for n, v in zip(counts, VERDICTS))


def rewrite_readme(text: str, counts: dict) -> str:
    """The README with its stated counts set to ``counts``."""
    total = counts["all papers"]
    text = re.sub(
        r"(\[the full record\]\(results/REPRODUCTION\.md\), )\d+\s+reproduced, \d+ partly, \d+ not reproduced, "
        r"\d+ not tested",
        lambda m: m[1] + _words(total).replace(" reproduced, ", "\nreproduced, ", 1),
        text,
    )
    return re.sub(
        r"^(- \*\*(?P<paper>\w+)\*\* )\(\d+ / \d+ / \d+ / \d+\)",
        lambda m: f"{m[1]}({' / '.join(map(str, counts[m['paper']]))})",
        text,
        flags=re.M,
    )


def rewrite_page(text: str, counts: dict) -> str:
    """docs/reproduction.md with each paper's and each section's verdict line set to ``counts``."""
    out, key = [], None
    for line in text.splitlines(keepends=True):
        heading = re.match(r"^#{2,3} ([\w-]+)\s*$", line)
        if heading and heading[1] in counts:
            key = heading[1]
        elif key is not None:
            line = re.sub(r"(Verdicts\*?\*?: )\d+ reproduced, \d+ partly, \d+ not reproduced, \d+ not tested",
                          lambda m, k=key: m[1] + _words(counts[k]), line)  # fmt: skip
        out.append(line)
    return "".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a stated count differs from the index")
    args = ap.parse_args(argv)
    counts = index_counts(INDEX.read_text())
    stale = []
    for path, rewrite in ((README, rewrite_readme), (PAGE, rewrite_page)):
        text = path.read_text()
        new = rewrite(text, counts)
        if new != text:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(new)
    if args.check and stale:
        print(f"verdict counts differ from results/REPRODUCTION.md in: {', '.join(map(str, stale))}; "
              "run python scripts/verdict_counts.py", file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
