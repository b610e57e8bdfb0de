"""Write the configuration reference of the manual, docs/reference/config.md, from conf/: every
top-level key with its default, allowed values and meaning, and every option of every config
group with its description, the keys it sets, their defaults and the allowed values where the
config checks them. Nothing is written by hand: the meanings are the configs' own comments, the
allowed values the rules of ``bnnsample.config`` (asked with a value no rule accepts).

    python scripts/config_reference.py            # rewrite docs/reference/config.md
    python scripts/config_reference.py --check    # exit 1 if the committed file is not what conf/ gives

tests/test_config_reference.py runs the check, so a config change without the regenerated page fails.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "reference" / "config.md"
BAD = "\x00"  # a value no rule accepts: the complaint states what is allowed
_LINE = re.compile(r"^(?P<indent>\s*)(?P<key>[A-Za-z_][\w.]*):(?P<rest>.*)$")


def _comments(text: str) -> dict[str, str]:
    """{dotted key: its inline comment} of a YAML file (block style, as conf/ writes it)."""
    out, stack = {}, []  # stack of (indent, key)
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m or line.lstrip().startswith("#"):
            continue
        indent = len(m["indent"])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, m["key"]))
        rest = m["rest"]
        # a comment starts at " #" outside quotes; the values in conf/ hold no quoted "#"
        cut = rest.find(" #")
        if cut >= 0:
            out[".".join(k for _, k in stack)] = rest[cut + 2 :].strip()
    return out


def _header_comment(text: str) -> list[str]:
    """The file's leading comment block (after ``# @package``) as markdown lines: its prose as
    one paragraph, its indented lines (example commands) as a code block."""
    prose, code = [], []
    for line in text.splitlines():
        if line.startswith("# @package"):
            continue
        if not line.startswith("#"):
            break
        body = line[1:]
        if body.startswith("   ") and body.strip():
            code.append("    " + body.strip())
        else:
            prose.append(body.strip())
    out = [" ".join(p for p in prose if p).strip()] if any(prose) else []
    if code:
        out += ["", *code]
    return out


def _flat(node, prefix: str = "") -> dict[str, object]:
    """{dotted key: leaf value} of a nested dict (lists and empty dicts are leaves)."""
    out = {}
    for k, v in node.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.update(_flat(v, key + "."))
        else:
            out[key] = v
    return out


def _value(v) -> str:
    if v is None:
        return "`null`"
    if isinstance(v, bool):
        return f"`{str(v).lower()}`"
    text = yaml.safe_dump(v, default_flow_style=True, width=10_000).strip()
    text = text.removesuffix("\n...").removesuffix("...").strip()
    return f"`{text}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _allowed(dotted: str, default) -> str:
    """What ``bnnsample.config`` accepts for a key ('' where no rule checks it)."""
    from bnnsample.config import CHECKED_KEYS, check_value

    if dotted not in CHECKED_KEYS or dotted == "reference":
        return ""  # not checked by the config (the integrator or the loader checks it when the run starts)
    complaint = check_value(dotted, BAD) or ""
    said = complaint.split(f"{dotted}={BAD}: ", 1)[-1]
    said = said.removeprefix("allowed values: ").removeprefix("must be ")
    if default is None and "null" not in said:
        said += " (or null)"
    return said


_CHOICES = re.compile(r"^([\w.-]+(?: \| [\w.-]+)+)")


def _allowed_or_listed(dotted: str, default, note: str) -> str:
    """The config's rule for the key, else the choices its comment lists (``a | b | c``)."""
    said = _allowed(dotted, default)
    if not said and (m := _CHOICES.match(note)):
        said = ", ".join(m[1].split(" | "))
    return said


def _group_key(group: str, key: str) -> str:
    """The dotted key a group option's key is checked under (model.n_calibration, ...)."""
    return f"{group}.{key}"


def _keys_table(rows: list[tuple[str, str, str, str]]) -> list[str]:
    out = ["| key | default | allowed values | meaning |", "|---|---|---|---|"]
    out += [f"| `{k}` | {_cell(d)} | {_cell(a)} | {_cell(m)} |" for k, d, a, m in rows]
    return out


def _defaults_line(doc: dict) -> str:
    """'picks model=cnn_fmnist, init=swa' from a config's ``defaults: [override /model: ...]``."""
    picks = []
    for item in doc.get("defaults") or []:
        if isinstance(item, dict):
            for k, v in item.items():
                if k != "_self_":
                    picks.append(f"{k.replace('override ', '').lstrip('/')}={'null' if v is None else v}")
    return ", ".join(f"`{p}`" for p in picks)


def top_level() -> list[str]:
    path = ROOT / "conf" / "config.yaml"
    text = path.read_text()
    doc = yaml.safe_load(text)
    notes = _comments(text)
    rows = []
    for key, default in doc.items():
        if key in ("defaults", "hydra"):
            continue
        rows.append((key, _value(default), _allowed_or_listed(key, default, notes.get(key, "")), notes.get(key, "")))
    groups = _defaults_line({"defaults": [d for d in doc["defaults"] if isinstance(d, dict)]})
    out = [
        "## Top-level keys",
        "",
        f"Set on the command line as `key=value` (`conf/config.yaml`). Default groups: {groups}.",
        "",
    ]
    return out + _keys_table(rows) + [""]


def group_section(group: str, folder: Path, checked_prefix: str | None, shown_prefix: str = "") -> list[str]:
    out = [f"## `{group}`", ""]
    options = sorted(p for p in folder.iterdir() if p.suffix == ".yaml")
    listing = []
    details = []
    for path in options:
        name = path.stem
        text = path.read_text()
        doc = yaml.safe_load(text) or {}
        body = doc.get(group) if isinstance(doc.get(group), dict) else doc
        glob = isinstance(doc.get(group), dict) or text.startswith("# @package _global_")
        desc = (body.get("description") if isinstance(body, dict) else None) or " ".join(_header_comment(text)[:1])
        from bnnsample.plumbing.info import first_sentence

        listing.append(f"| [`{name}`](#{group.replace('/', '-')}-{name}) | {_cell(first_sentence(desc or ''))} |")
        notes = _comments(text)
        details += [f"### {group}={name} {{ #{group.replace('/', '-')}-{name} }}", ""]
        header = _header_comment(text)
        if header:
            details += [*header, ""]
        picks = _defaults_line(doc)
        if picks:
            details += [f"Picks {picks}.", ""]
        rows = []
        if glob:
            in_group = body if isinstance(doc.get(group), dict) else {}
            for key, default in _flat(in_group).items():
                if key == "description":
                    continue
                dotted = f"{group}.{key}"
                rows.append(
                    (
                        dotted,
                        _value(default),
                        _allowed_or_listed(dotted, default, notes.get(dotted, "")),
                        notes.get(dotted, ""),
                    )
                )
            for key, default in _flat({k: v for k, v in doc.items() if k not in ("defaults", group)}).items():
                rows.append(
                    (key, _value(default), _allowed_or_listed(key, default, notes.get(key, "")), notes.get(key, ""))
                )
        else:
            for key, default in _flat(doc).items():
                if key == "description":
                    continue
                dotted = _group_key(checked_prefix, key) if checked_prefix else key
                shown = f"{checked_prefix}.{key}" if checked_prefix else shown_prefix + key
                rows.append(
                    (
                        shown,
                        _value(default),
                        _allowed_or_listed(dotted, default, notes.get(key, "")),
                        notes.get(key, ""),
                    )
                )
        if rows:
            details += _keys_table(rows) + [""]
    return out + ["| option | description |", "|---|---|"] + listing + [""] + details


def render() -> str:
    from bnnsample.plumbing.info import GROUPS

    out = [
        "# Configuration reference",
        "",
        "<!-- generated by `python scripts/config_reference.py` from conf/; do not edit by hand:",
        "     tests/test_config_reference.py fails when this file and conf/ disagree -->",
        "",
        "Every key of a run, every option of every config group, their defaults and the values the",
        "config accepts (checked before a run starts, one line per bad value). Pick an option with",
        "`GROUP=OPTION` (`integrator=sg_ubu`), set a key with `key=value` or `group.key=value`",
        "(`init.train_epochs=4`). Options marked with keys outside their group (a data set's",
        "`batch_size`, `step_size`, ...) set those top-level defaults; the command line overrides them.",
        "`bnnsample info` lists the options with their descriptions; `bnnsample run --help` shows",
        "Hydra's view of the composed config.",
        "",
    ]
    out += top_level()
    for group in GROUPS:
        out += group_section(group, ROOT / "conf" / group, checked_prefix=group)
    launcher = ROOT / "conf" / "hydra" / "launcher"
    if launcher.is_dir():
        out += group_section("hydra/launcher", launcher, checked_prefix=None, shown_prefix="hydra.launcher.")
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is out of date: run python scripts/config_reference.py", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
