"""What the sekkat2023 recipes share: the Langevin-OABAO scheme, the batchings, the heading of every section.

Method common to all (deviation from the paper, stated in every section): many independent chains run for a
much shorter time than the paper's one trajectory of length T = 10^6, toy chains started from the exact
posterior (``chains``, which runs them and holds the Gaussian model's runs). Langevin OABAO (§2.4.1,
eqs. 25-28) is ``adl`` with thermostat_mass = inf (the friction frozen at gamma I: O(h/2) A(h/2) B(h) A(h/2)
O(h/2)); the ``obabo`` preset is a different splitting (O B A B O).

Each figure's claims (``FIG3_CLAIMS``, ...) are filed one by one with the rule that measures each and picks
its verdict (``Claims("statement")``: most are the paper's statements); ``fig3_outcomes``, ... apply the rules.
"""

from __future__ import annotations

import math

PAPER = "Sekkat & Stoltz (2023), JMLR 24"
LANGEVIN = ("adl", {"thermostat_mass": "inf"})  # OABAO with Gamma = gamma I
BATCHING = {"wor": "iid_wor", "iid": "iid"}
TITLE, HEADING = f" ({PAPER})", "claim (sekkat2023)"  # every section's title after the id, its claims column


def span(v, spec: str = ".3g") -> str:
    """min..max of the values v, or the one value."""
    return f"{min(v):{spec}}..{max(v):{spec}}" if min(v) < max(v) else f"{min(v):{spec}}"


SIMILAR = (0.8, 1.25)  # the band of a ratio of two errors read as "similar" (sekkat2023-fig3#3, fig4#4)
# the factor this project reads into the paper's "much smaller" (§3.2.3, sekkat2023-fig5#3), "greatly reduces"
# (§3.3.2, fig7#4), "much larger time steps" (fig5#3) and "strongly reduce" (§5, fig8#2)
GREATLY = 3.0


def ratio_se(a: float, a_se: float, b: float, b_se: float) -> tuple[float, float]:
    """a / b and its s.e. by error propagation (a and b independent)."""
    q = a / b
    return q, q * math.hypot(a_se / a, b_se / b)


def band_z(q: float, se: float, band: tuple[float, float] = SIMILAR) -> float:
    """How far the ratio q lies outside ``band``, in its s.e. (0 inside): within 2 s.e. of the band is <= 2."""
    return max(band[0] - q, q - band[1], 0.0) / se


def band_edge(q: float, se: float, band: tuple[float, float] = SIMILAR) -> float:
    """How far the ratio q lies inside ``band`` from its nearer edge, in its s.e."""
    return min(q - band[0], band[1] - q) / se
