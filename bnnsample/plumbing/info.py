"""`bnnsample info`: one line per config option, read from the packaged conf/ groups."""

from __future__ import annotations

import yaml

from .paths import conf_dir

GROUPS = ("integrator", "batching", "dataset", "model", "init", "experiment")


def group_options(group: str) -> dict[str, str]:
    """{option name: description} of a config group."""
    out = {}
    root = conf_dir() / group
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".yaml"):
            continue
        doc = yaml.safe_load(entry.read_text()) or {}
        body = doc.get(group, doc) if isinstance(doc.get(group), dict) else doc
        desc = body.get("description") or _first_comment(entry.read_text())
        out[entry.name[: -len(".yaml")]] = desc or ""
    return out


def _first_comment(text: str) -> str:
    """The first sentence of the file's first block of comment lines (a sentence may run over
    several lines; `bnnsample info` never cuts one in the middle)."""
    block: list[str] = []
    for line in text.splitlines():
        if line.startswith("# @package"):
            continue
        if line.startswith("#"):
            block.append(line.lstrip("# ").strip())
        elif block:
            break
    return first_sentence(" ".join(block))


# words whose full stop ends no sentence: "Fig. 4", "App. F.2", "Springenberg et al. 2016", "e.g. x"
_ABBREVIATIONS = frozenset("al. Alg. App. cf. e.g. eq. Eq. eqs. Fig. Figs. i.e. i.i.d. vs. Sec.".split())


def first_sentence(text: str) -> str:
    """``text`` up to the end of its first sentence: a full stop followed by a space or the end,
    outside parentheses and brackets, not that of an abbreviation (the whole text if none)."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        elif ch == "." and depth == 0 and (i + 1 == len(text) or text[i + 1] == " "):
            word = text[: i + 1].rsplit(" ", 1)[-1]
            if word not in _ABBREVIATIONS:
                return text[: i + 1]
    return text


def print_info() -> None:
    for group in GROUPS:
        opts = group_options(group)
        print(f"{group}s:" if not group.endswith("s") else f"{group}:")
        width = max(map(len, opts), default=0)
        for name, desc in opts.items():
            print(f"  {name:<{width}}  {desc}")
        print()
