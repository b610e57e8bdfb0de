"""Names users reach for: aliases of config-group options and "did you mean" for typos."""

from __future__ import annotations

import difflib

# group -> {alias: option}; e.g. the chest X-ray data sit in a folder chest_xray/
ALIASES = {"dataset": {"chest_xray": "chestxray", "chest-xray": "chestxray", "mnist": "mnist5k"}}


def did_you_mean(word: str, options) -> str:
    """' (did you mean X?)' for the closest option by difflib's ratio (>= 0.6), else ''."""
    close = difflib.get_close_matches(str(word), [str(o) for o in options], n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def apply_aliases(argv: list[str]) -> list[str]:
    """Command-line overrides with aliased group values replaced (also inside a sweep a,b,c)."""
    out = []
    for a in argv:
        key, eq, value = a.partition("=")
        table = ALIASES.get(key.lstrip("+~"))
        if eq and table:
            a = key + "=" + ",".join(table.get(v, v) for v in value.split(","))
        out.append(a)
    return out
