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
    for line in text.splitlines():
        if line.startswith("#") and not line.startswith("# @package"):
            return line.lstrip("# ").strip()
    return ""


def print_info() -> None:
    for group in GROUPS:
        opts = group_options(group)
        print(f"{group}s:" if not group.endswith("s") else f"{group}:")
        width = max(map(len, opts), default=0)
        for name, desc in opts.items():
            print(f"  {name:<{width}}  {desc}")
        print()
