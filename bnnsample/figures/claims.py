"""Claims as data, and the one writer that turns measured numbers into REPRODUCTION.md rows.

A recipe lists what it checks as a table of ``Claim`` (what the paper says, where it says it,
the paper's value, whether that value is printed in the paper or derived for this project,
what counts as agreement, how we measure it). After its runs it gives each claim an ``Outcome``
(our numbers with their standard errors, a verdict, why) and ``table`` writes the rows. The claims
are filed in a ``Claims``, each beside the rule that decides it (``Claims.family`` for a claim that
repeats per sampler, data set or size)::

    CLAIMS = Claims("statement")

    @CLAIMS.rule("bias_ratio", "Euler has the larger invariant-measure bias", "§5, Fig. 1",
                 "SGHMC-E above SGHMC-S at every h", tolerance="ratio E/S > 1 at every stable h",
                 method="exact stationary bias of each scheme's affine step")
    def _bias_ratio(rows):
        return by_count(n_larger(rows), len(rows), ours="ratio per h: ...")

    markdown = table(CLAIMS.outcomes(rows), heading="claim (chen2015)")

Verdicts (``VERDICTS``):

- *reproduced*: our number agrees with the paper's within the claim's tolerance;
- *partly*: some of the claim's cases agree, or agreement only within a looser tolerance;
- *not reproduced*: a measured disagreement, with its size in standard errors where the
  measurement has one (``not_reproduced(..., z=...)``);
- *not tested*: the claim could not be put to a test here, and why (``NOT_TESTED``: the scale
  that fits on this machine does not resolve it, the data are not available, the experiment
  is not one the paper ran, or the test that resolves it fits this machine, is priced and
  named, and has not been run yet: *not run*, queued in ``scripts/cpu_queue.sh``).

The paper's value is one of ``SOURCES``: a number printed in the paper, a statement of the paper
(qualitative, no number), or a value derived for this project (an exact variance, a rerun of
the authors' code, the saved output of the authors' code standing for a figure's or table's values)
that the paper does not print.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass

from ..stats import z_score

VERDICTS = ("reproduced", "partly", "not reproduced", "not tested")
SOURCES = ("printed", "statement", "derived")
NOT_TESTED = ("scale", "data", "not a paper experiment", "not run")
CHECK = "check"


@dataclass(frozen=True)
class Claim:
    """One claim of a paper. ``source``: "printed" (a number in the paper), "statement" (the
    paper's words, no number) or "derived" (a value computed for this project); "check" marks
    a row that checks our own machinery (Monte Carlo against exact) and is not counted."""

    text: str
    where: str
    paper: str
    source: str = "printed"
    tolerance: str = ""
    method: str = ""

    def __post_init__(self):
        if self.source not in (*SOURCES, CHECK):
            raise ValueError(f"source={self.source}: allowed values: {', '.join((*SOURCES, CHECK))}")


@dataclass(frozen=True)
class Outcome:
    """Our measurement of a claim: ``verdict`` (one of VERDICTS, or "passed"/"failed" for a
    check), ``ours`` (the numbers, with standard errors), ``why`` (the reason, the evidence),
    ``setting`` (the command its numbers came from, where not the section's own)."""

    verdict: str
    ours: str
    why: str = ""
    setting: str = ""


def reproduced(ours: str, why: str = "") -> Outcome:
    return Outcome("reproduced", ours, why)


def partly(ours: str, why: str = "") -> Outcome:
    return Outcome("partly", ours, why)


def not_reproduced(ours: str, why: str = "", z: float | None = None) -> Outcome:
    """A measured disagreement; ``z`` its size in standard errors when the measurement has one."""
    size = f" ({abs(z):.1f} s.e.)" if z is not None and math.isfinite(z) else ""
    return Outcome(f"not reproduced{size}", ours, why)


def not_tested(reason: str, ours: str = "-", why: str = "") -> Outcome:
    """A claim not put to a test; ``reason`` one of NOT_TESTED, ``why`` what it would take."""
    if reason not in NOT_TESTED:
        raise ValueError(f"reason={reason}: allowed values: {', '.join(NOT_TESTED)}")
    return Outcome(f"not tested: {reason}", ours, why)


def check(ok: bool, ours: str, why: str = "") -> Outcome:
    """The outcome of a check of our own machinery (not a paper claim, not counted)."""
    return Outcome("passed" if ok else "FAILED", ours, why)


def by_count(good: int, total: int, ours: str, why: str = "", z: float | None = None) -> Outcome:
    """reproduced when all ``total`` cases agree, partly when some do, not reproduced when none
    does (``z``: the size of the disagreement in standard errors, where measured)."""
    if total == 0:
        return not_tested("scale", ours, why or "no case of the claim was run")
    if good == total:
        return reproduced(ours, why)
    return partly(ours, why) if good else not_reproduced(ours, why, z=z)


def by_resolved(good: int, zs, total: int, ours: str, why: str = "", needs: str = "", reason: str = "scale") -> Outcome:
    """``by_count`` of ``total`` cases of which ``good`` agree and those of ``zs`` (sizes in standard
    errors) disagree measurably, the rest being unresolved: with none agreeing, not reproduced by the
    smallest disagreement, or not tested when none is resolved (``needs``: what would resolve it;
    ``reason``: one of NOT_TESTED, "scale" unless the caller names another, e.g. "not run" where the
    test that would resolve it fits this machine and is queued)."""
    if good == 0 and not zs:
        return not_tested(reason, ours, "; ".join(p for p in (why, needs) if p))
    return by_count(good, total, ours, why, z=min(zs, key=abs) if zs else None)


def by_z(diff: float, se: float, ours: str, why: str = "", k: float = 2.0) -> Outcome:
    """Agreement within ``k`` standard errors: reproduced when |diff| <= k se, else not
    reproduced with the size of the difference in standard errors."""
    z = z_score(diff, se)
    if abs(z) <= k:
        return reproduced(ours, why)
    return not_reproduced(ours, why, z=z)


def by_slope(slope: float, se: float, want: float, tol: float, ours: str, why: str = "", k: float = 2.0) -> Outcome:
    """A fitted rate (slope ± s.e.) against the paper's ``want``: reproduced when within ``tol``
    and within k s.e.; partly when within ``tol`` only (the looser tolerance: higher-order
    terms at the sizes run); not reproduced beyond both, with the size in s.e.; not tested
    (scale) when no slope could be fitted or its s.e. does not resolve ``tol``. A slope of
    exact values (se 0 or NaN) is judged by ``tol`` alone."""
    if not math.isfinite(slope):
        return not_tested("scale", ours, why or "fewer than two points resolved from their noise")
    d = slope - want
    noisy = math.isfinite(se) and se > 0
    if abs(d) <= tol:
        if not noisy or abs(d) <= k * se:
            return reproduced(ours, why)
        return partly(ours, "; ".join(s for s in (why, f"within {tol:g} of {want:g} but {abs(d) / se:.1f} s.e.") if s))
    if noisy and abs(d) <= k * se:
        return not_tested("scale", ours, "; ".join(s for s in (why, f"the slope's s.e. {se:.2g} does not resolve "
                                                                    f"a tolerance of {tol:g}") if s))  # fmt: skip
    return not_reproduced(ours, why, z=d / se if noisy else None)


class Claims(dict):
    """A figure's claims {key: Claim}, each filed with the rule that measures its outcome:
    ``@CLAIMS.rule(key, text, where, paper, tolerance=..., method=...)`` above a function of the
    figure's measurements returning an Outcome; the claim's ``source`` is the figure's ``source``
    unless the rule names another. ``outcomes`` applies the rules in the order they were filed
    (claims.csv ids follow that order); a rule that returns None files no row (a claim the run
    does not test, e.g. a sampler left out by an option).

    A claim that repeats per member (per sampler, per dataset, per size) is one family: one rule
    for all its members, one claim each::

        @CLAIMS.family("w1", ("SMS-UBU", "SG-BAOAB"), "W1 of {} at h = 0.25", "§3.4, Fig. 1",
                       {"SMS-UBU": "0.0071", "SG-BAOAB": "0.0408"}, tolerance="within 10%")
        def _w1(label, cells):
            return by_z(...) if label in cells else None

    Each field (text, where, paper, tolerance, method, source) is a text, the same for every
    member but for each ``{}`` in it, which is the member (``"W1 of {}"``; a tuple member's items
    fill them in turn; other braces stay as written), a mapping {member: text}, or a function of
    the member. The
    members' claims are filed in the order given, under the keys ``(name, member)`` (``(name,
    *member)`` for a tuple member); the rule is called ``fn(member, *args)``."""

    def __init__(self, source: str = "printed"):
        super().__init__()
        self.source, self.rules = source, {}

    def rule(self, key, text: str, where: str, paper: str, **fields):
        def deco(fn):
            self._file(key, Claim(text, where, paper, **{"source": self.source, **fields}), fn)
            return fn

        return deco

    def family(self, name: str, members, text, where, paper, **fields):
        members = tuple(members)
        if not members:
            raise ValueError(f"family {name}: no members")

        def deco(fn):
            for m in members:
                key = (name, *m) if isinstance(m, tuple) else (name, m)
                values = {k: _member_field(v, m) for k, v in (("text", text), ("where", where), ("paper", paper),
                                                              *fields.items())}  # fmt: skip
                self._file(key, Claim(**{"source": self.source, **values}), functools.partial(fn, m))
            return fn

        return deco

    def _file(self, key, claim: Claim, fn) -> None:
        if key in self:
            raise ValueError(f"claim {key!r} filed twice")
        self[key], self.rules[key] = claim, fn

    def outcomes(self, *args) -> list[tuple[Claim, Outcome]]:
        return [(self[k], o) for k, fn in self.rules.items() if (o := fn(*args)) is not None]


def _member_field(value, member) -> str:
    """A family's field for one member: looked up (a mapping), called (a function) or a text
    whose ``{}`` are the member (a tuple member's items in turn)."""
    if isinstance(value, Mapping):
        return value[member]
    if callable(value):
        return value(member)
    parts = value.split("{}")
    items = [str(v) for v in (member if isinstance(member, tuple) else (member,))]
    if len(parts) - 1 > len(items):
        raise ValueError(f"{value!r}: {len(parts) - 1} {{}} for the member {member!r}")
    return "".join(p + (items[i] if i < len(parts) - 1 else "") for i, p in enumerate(parts))


def verdict_of(cell: str) -> str | None:
    """The verdict (one of VERDICTS) a table cell starts with, or None."""
    low = cell.strip().strip("*").lower()
    for v in ("not reproduced", "not tested", "partly", "reproduced"):
        if low.startswith(v):
            return v
    return None


COLUMNS = ("where", "paper", "value", "ours", "verdict", "agreement means · measured by · why")


def row(claim: Claim, outcome: Outcome) -> str:
    """One markdown table row: claim | where | paper | value | ours | verdict | tolerance, method, why."""
    if claim.source == CHECK and verdict_of(outcome.verdict):
        raise ValueError(f"a check row has no paper verdict: {claim.text}")
    if claim.source != CHECK and not verdict_of(outcome.verdict):
        raise ValueError(f"verdict={outcome.verdict!r}: allowed values: {', '.join(VERDICTS)}")
    notes = " · ".join(s for s in (claim.tolerance, claim.method, outcome.why) if s)
    cells = (claim.text, claim.where, claim.paper, claim.source, outcome.ours, outcome.verdict, notes or "-")
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def table(rows, heading: str = "claim") -> str:
    """The markdown table of (Claim, Outcome) pairs, with a header row."""
    rows = list(rows)
    head = "| " + " | ".join((heading, *COLUMNS)) + " |"
    return "\n".join([head, "|" + "---|" * (len(COLUMNS) + 1), *(row(c, o) for c, o in rows)])


CSV_COLUMNS = ("claim_id", "claim", "where", "paper", "source", "ours", "verdict", "reason", "tolerance", "method",
               "setting")  # fmt: skip


def csv_rows(fig_id: str, rows, setting: str) -> list[dict]:
    """claims.csv rows of (Claim, Outcome) pairs: a stable id (the figure and the claim's
    position), the claim and its source, ours, the verdict, its reason, the rule, how we
    measured, and the setting the recipe ran at. Checks of our own machinery are left out."""
    out = []
    for i, (c, o) in enumerate((c, o) for c, o in rows if c.source != CHECK):
        out.append({"claim_id": f"{fig_id}#{i + 1}", "claim": c.text, "where": c.where, "paper": c.paper,
                    "source": c.source, "ours": o.ours, "verdict": o.verdict, "reason": o.why,
                    "tolerance": c.tolerance, "method": c.method, "setting": o.setting or setting})  # fmt: skip
    return out


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").strip() or "-"
