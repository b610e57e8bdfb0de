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

PAPER = "Sekkat & Stoltz (2023), JMLR 24"
LANGEVIN = ("adl", {"thermostat_mass": "inf"})  # OABAO with Gamma = gamma I
BATCHING = {"wor": "iid_wor", "iid": "iid"}
TITLE, HEADING = f" ({PAPER})", "claim (sekkat2023)"  # every section's title after the id, its claims column


def span(v, spec: str = ".3g") -> str:
    """min..max of the values v, or the one value."""
    return f"{min(v):{spec}}..{max(v):{spec}}" if min(v) < max(v) else f"{min(v):{spec}}"
