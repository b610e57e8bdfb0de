"""`bnnsample figure orders`: measured orders of convergence of every registered integrator
(``analysis.orders``: the method, the targets and the fits) against the orders the papers give
(THEORY; SOURCES and SOURCE_KIND name each claim's source and whether it is printed, stated or
derived), written as orders.csv, orders.png, orders.md and claims.csv (a claim per integrator and
batching with a theoretical order) under ``<out>/orders/``."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..analysis.orders import (
    BATCHINGS,
    EXACT_TOL,
    MAX_EXP,
    START,
    TARGETS,
    Fit,
    Row,
    measure_orders,
    preset_params,
)
from ..plotting import pyplot, save_figure
from ..plumbing.progress import CellBar
from ..rundir import write_csv, write_file
from . import register
from .claims import Claim, Outcome, not_reproduced, partly, reproduced
from .common import CLAIMS_CSV, md_table, recipe_dir, write_claims
from .driver import Option, names, parse_options

# Expected order of the stationary bias per (scheme, batching), from the papers (SOURCES, one entry per
# claim); "exact": no bias on Gaussian targets (var_x at rounding level); None: no claim.
_SPLIT2 = {"full": 2, "iid": 1, "reshuffle": 2, "sms": 2}
_FIRST = {"full": 1, "iid": 1, "reshuffle": 1, "sms": 1}
THEORY: dict[str, dict[str, object]] = {
    "ubu": _SPLIT2,
    "baoab": _SPLIT2,
    "obabo": _SPLIT2,
    "aboba": _SPLIT2,
    "lie_trotter": _SPLIT2,
    "generalized_lie_trotter": _SPLIT2,
    "em": _FIRST,
    "sgld": _FIRST,
    "leapfrog": {"full": 1, "iid": 1, "reshuffle": 1, "sms": None},
    "sghmc": {"full": 1, "iid": 1, "reshuffle": None, "sms": None},
    "mt3": {"full": 3, "iid": 1, "reshuffle": 2, "sms": 2},
    "nogin": {"full": "exact", "iid": None, "reshuffle": None, "sms": None},
    "msgld": {"full": 1, "iid": 1, "reshuffle": None, "sms": None},
    "exact_ou": {"full": "exact", "iid": 1, "reshuffle": 2, "sms": 2},
}
# Where each order comes from, per (scheme, batching) claim: (kind, text). The kind is claims.SOURCES':
# printed (a paper prints this order as a number, for this scheme or for a class of schemes it names that contains
# this one, in a theorem or on its own experiment: paulin2025 §3.4's '(weak order 2)', matthews2018 §3's 'O(h^2)'
# for symmetric strings), statement (a paper gives it in words only, 'second order', 'from two to one', or prints
# the number for another scheme and extends it to this one in words: sekkat2023 Prop. 4's OABAO, 'similar results
# are obtained for other Strang splittings') or derived (this project's, from the results named). One entry per
# claim: no citation stands for a batching it does not cover. Until 2026-11-29 (the twenty-eighth audit) an order
# observed in a figure, or printed for symmetric strings, was a statement even where the paper prints it as a
# numeral (the test the twenty-sixth audit applied to leapfrog / full).
_P22 = ("paulin2025 §2.2 (i.i.d. minibatches: stochastic gradients 'reduce the order of accuracy in the stepsize "
        "from two to one')")  # fmt: skip
_SEKKAT4 = ("sekkat2023 §2.4.2, Prop. 4 (OABAO with minibatches: bias Δt(Δt f_disc + ε(n) f_mb); 'similar results "
            "are obtained for other Strang splittings')")  # fmt: skip
_CHEN_EULER = (
    "chen2015 §4 ('The Euler integrator is known as a 1st-order integrator') and §3.2, Theorem 4 (O(h^K), K = 1)"
)
_THM4_ANY = (
    "Theorem 4: 'only orders of numerical approximations but not the stochastic gradient approximation "
    "affect' the invariant measure (disputed here for K = 2 with i.i.d. batches: orders.md, aboba / iid)"
)
# chen2015 Theorem 4 read for any 2nd-order integrator, with i.i.d. batches (orders.md's disagreements)
_THM4_IID = (
    "chen2015 §3.2 Theorem 4, read for any 2nd-order integrator, would give 2 instead (orders.md, disagreements)"
)
_NO_THM3 = "franzese2021 Thm 3 and Prop. 2 cover random permutations only"


def _iid(base: str) -> str:
    return (f"1: derived for this project: {base}, and i.i.d. minibatches add an O(h) error (stated for order-2 "
            f"splittings by paulin2025 §2.2 and sekkat2023 Prop. 4); {_NO_THM3}")  # fmt: skip


def _sms(what: str) -> str:
    return (f"2: derived for this project from paulin2025 §2.3 (the forward-then-reverse batch order 'ensures that the "
            f"integrator is symmetric ... and therefore has improved weak order properties'; Theorem 5 proves it for "
            f"UBU only), {what}; franzese2021 Thm 3 covers random permutations, not this order")  # fmt: skip


_SOURCES: dict[tuple[str, str], tuple[str, str]] = {
    ("ubu", "full"): ("printed", "paulin2025 §1, §2.1 (UBU 'has strong order two'; 'second order accuracy ... in "
                      "terms of sampling bias'); App. C, Proposition 8 (full-gradient UBU: O(h^2) pathwise error)"),
    ("ubu", "iid"): ("printed", "paulin2025 §2.2 (i.i.d. minibatches: stochastic gradients 'reduce the order of "
                     "accuracy in the stepsize from two to one', after Vollmer et al. 2016 and Sekkat and Stoltz 2023); "
                     "§3.4, Fig. 1 (SG-UBU observed O(h), '(weak order 1)'); App. C, Theorem 15 bounds SG-UBU's Wasserstein bias; "
                     f"{_THM4_IID}"),
    ("ubu", "reshuffle"): ("printed", "paulin2025 §3.4, Fig. 1 (SG-UBU without replacement observed at O(h^2), "
                           "'(weak order 2)'); "
                           "§2.2: 'We do not prove theoretical results for such a version'"),
    ("ubu", "sms"): ("printed", "paulin2025 §2.3, Algorithm 2; §3.3, Theorem 5 (SMS-UBU: W2 bias O(h^2))"),
    ("baoab", "full"): ("printed", "paulin2025 §2.1 (BAOAB, ABOBA and OBABO 'are all second order in the weak "
                        "(sampling bias) sense'); matthews2018 §3 ('a method encoded by a symmetric string will give "
                        "a second order O(h^2) bias'); the scheme: paulin2025 App. A Algorithm 5 with full gradients"),
    ("baoab", "iid"): ("printed", f"{_P22}; §3.4, Fig. 1 (SG-BAOAB observed O(h), '(weak order 1)'); App. A "
                       "Algorithm 5; "
                       f"{_THM4_IID}"),
    ("baoab", "reshuffle"): ("printed", "paulin2025 §3.4, Fig. 1 (SG-BAOAB without replacement observed at O(h^2), "
                             "'(weak order 2)'; "
                             "no theorem)"),
    ("baoab", "sms"): ("printed", "paulin2025 §3.4, Fig. 1 (SMS-BAOAB observed at O(h^2), '(weak order 2)'; no "
                       "theorem); App. A "
                       "Algorithm 6"),
    ("obabo", "full"): ("printed", "paulin2025 §2.1 (BAOAB, ABOBA and OBABO 'are all second order in the weak "
                        "(sampling bias) sense'); matthews2018 §3 ('a method encoded by a symmetric string will give "
                        "a second order O(h^2) bias')"),
    ("obabo", "iid"): ("statement", f"{_P22}; {_SEKKAT4}; {_THM4_IID}"),
    ("obabo", "reshuffle"): ("derived", "2: derived for this project: franzese2021 Thm 3 (batches in uniformly drawn "
                             "permutations: O(η^min(p,2))) with OBABO's p = 2 (paulin2025 §2.1); paulin2025 proves no "
                             "order for minibatches drawn without replacement in sequence (§2.2: its theorem without "
                             "replacement, Theorem 5, is for the symmetric SMS order of §2.3 with UBU) and runs no "
                             "OBABO"),
    ("obabo", "sms"): ("derived", _sms("OBABO being a symmetric order-2 splitting (paulin2025 §2.1)")),
    ("aboba", "full"): ("printed", "chen2015 §4 (the ABOBA scheme), Lemma 8 ('a 2nd-order local integrator') with "
                        "§3.2, Theorem 4 (O(h^K), K = 2) and Remark 9 (h^2)"),
    ("aboba", "iid"): ("statement", f"{_P22}; {_SEKKAT4}. chen2015 §3.2 Theorem 4 with Lemma 8 instead gives 2 (K = 2, "
                       "the stochastic gradient not affecting the order): a disagreement (orders.md; chen2015-fig1#3)"),
    ("aboba", "reshuffle"): ("printed", "franzese2021 Thm 3 (batches in uniformly drawn permutations: O(η^min(p,2))) "
                             "with SYMMETRIC (chen2015's ABOBA) of second order (§5); chen2015 §3.2 Theorem 4 (K = 2; its "
                             "'not the stochastic gradient' reading is disputed here for i.i.d. batches: orders.md, "
                             "aboba / iid)"),
    ("aboba", "sms"): ("derived", _sms("ABOBA being a symmetric order-2 splitting (chen2015 Lemma 8)")),
    ("em", "full"): ("printed", f"{_CHEN_EULER}; the scheme: paulin2025 App. A Algorithm 4 (Euler-Maruyama, SG-HMC)"),
    ("em", "iid"): ("printed", f"{_CHEN_EULER}, with stochastic gradients; paulin2025 §3.4, Fig. 1 (SG-EM observed "
                    "O(h)); the scheme: App. A Algorithm 4"),
    ("em", "reshuffle"): ("printed", f"{_CHEN_EULER}; {_THM4_ANY}; paulin2025 §3.4, Fig. 1 (SG-EM without "
                          "replacement observed O(h)); the scheme: App. A Algorithm 4"),
    ("em", "sms"): ("printed", f"{_CHEN_EULER}; {_THM4_ANY}; paulin2025 §3.4, Fig. 1 (SMS-EM observed O(h)); the "
                    "scheme: App. A Algorithm 4"),
    ("sgld", "full"): ("printed", f"{_CHEN_EULER}; sekkat2023 §2.3.2, Prop. 2 with n = N_data (ε(n) = 0): bias O(Δt)"),
    ("sgld", "iid"): ("printed", "sekkat2023 §2.3.2, Prop. 2 (SGLD with a random batch each step: bias Δt∫φ(f_disc "
                      f"+ ε(n) f_mb)dπ + O(Δt^2)); {_CHEN_EULER}"),
    ("sgld", "reshuffle"): ("printed", f"{_CHEN_EULER}; {_THM4_ANY}; sekkat2023 Prop. 2 covers per-step random "
                            "batches only"),
    ("sgld", "sms"): ("printed", f"{_CHEN_EULER}; {_THM4_ANY}; sekkat2023 Prop. 2 covers per-step random batches "
                      "only"),
    ("leapfrog", "full"): ("printed", "franzese2021 §5 ('the LEAPFROG scheme, which is provably of order 1 for "
                           "SDEs'), App. B.5.1, eq. 31 and §2.2 ('theoretically order-one of "
                           "convergence both in weak and ergodic sense'); with full gradients the x-marginal is exact on "
                           "Gaussian targets (derived for this project), so the order is read on E[v^2]"),
    ("leapfrog", "iid"): ("derived", _iid("the full-batch order is 1 (franzese2021 App. B.5.1)")),
    ("leapfrog", "reshuffle"): ("printed", "franzese2021 Thm 3 (batches in uniformly drawn permutations: "
                                "O(η^min(p,2))) with LEAPFROG's p = 1 (App. B.5.1)"),
    ("generalized_lie_trotter", "full"): ("printed", "franzese2021 §4, eqs. 14-15 (HMC with partial momentum "
                                          "refreshment, leapfrog p = 2) and App. D.1 (ergodic error O(N_l^-p h^p) = "
                                          "O(η^p)); independent of N_l: §4 ('the orders of convergence are independent "
                                          "on N_l') and §5 ('regardless of the N_l value, the scheme enjoys ergodic "
                                          "convergence of order O(η^2)')"),
    ("generalized_lie_trotter", "iid"): ("derived", _iid("the full-batch order is 2 (franzese2021 §4)")),
    ("generalized_lie_trotter", "reshuffle"): ("printed", "franzese2021 App. D.2, Prop. 2 (N_l/K independent random "
                                               "permutations of the K batches: O(η^min(p,2)), p = 2)"),
    ("generalized_lie_trotter", "sms"): ("derived", _sms("each 4-step sms cycle of leapfrog steps (a b b a) being "
                                                         "symmetric on its own (local error O(h^3)); the cycle that a "
                                                         "momentum refresh splits (a b, refresh, b a) adds O(h^3), the "
                                                         "refresh over N_l h being I + O(h); with N_l = 10 the two "
                                                         "trajectories of a 20-step period are each other's reverse "
                                                         "in 1/4 of the batch sequences only")),
    ("lie_trotter", "full"): ("printed", "franzese2021 §4, eqs. 12-13 ('our practical application of LIE-TROTTER is "
                              "of order O(η^2)')"),
    ("lie_trotter", "iid"): ("derived", _iid("the full-batch order is 2 (franzese2021 §4)")),
    ("lie_trotter", "reshuffle"): ("printed", "franzese2021 Thm 3 (batches in uniformly drawn permutations: "
                                   "O(η^min(p,2))) with LIE-TROTTER's p = 2 (§4)"),
    ("lie_trotter", "sms"): ("derived", _sms("LIE-TROTTER's steps (p = 2) composing, up to conjugation by half an "
                                             "OU refresh, to a symmetric sweep")),
    ("exact_ou", "full"): ("printed", "franzese2021 App. E.2, eqs. 88-94 (the exact transition leaves the posterior "
                           "invariant for any η: 'the stationary distribution is indeed the desired one')"),
    ("exact_ou", "iid"): ("derived", "1: derived for this project: franzese2021 App. E.2 treats this case (a datapoint "
                          "drawn with probability 1/2 each step) and shows the stationary law is not the posterior "
                          "(eqs. 95-100) but gives no order; App. E presents this i.i.d. example as 'hinting at the "
                          "presence of a bottleneck in accordance with' Theorem 3 ('an explicit bottleneck of order "
                          "two'), which covers random permutations only; i.i.d. minibatches add an O(h) error "
                          "(paulin2025 §2.2, sekkat2023 Prop. 4)"),
    ("exact_ou", "reshuffle"): ("derived", "2: derived for this project: franzese2021 Thm 3 (batches in uniformly "
                                "drawn permutations: O(η^min(p,2))) with exact flows (p unbounded; App. E links them to "
                                "the bottleneck in words only)"),
    ("exact_ou", "sms"): ("derived", _sms("the sweep of exact per-batch flows being symmetric (franzese2021 App. E.2 "
                                          "treats i.i.d. batches only)")),
    ("mt3", "full"): ("printed", "franzese2021 App. B.5.2, eqs. 39-43 ('the quasi-symplectic scheme of third order'); "
                      "§5 ('the order-3 quasi-symplectic integrator')"),
    ("mt3", "iid"): ("derived", _iid("the full-batch order is 3 (franzese2021 App. B.5.2)")),
    ("mt3", "reshuffle"): ("printed", "franzese2021 Thm 3 (batches in uniformly drawn permutations: O(η^min(p,2))) "
                           "with MT3's p = 3 (App. B.5.2): the bottleneck MT3 is included to show (§2.2)"),
    ("mt3", "sms"): ("derived", _sms("with MT3 (order 3) approximating each batch's flow")),
    ("nogin", "full"): ("printed", "matthews2018 §4.2, Lemma 4.2 (Gaussian target and Gaussian gradient noise: the "
                        "preserved law's θ-marginal is exact, whatever the noise covariance; its momentum's is perturbed "
                        "at O(h^2)); full gradients are the zero-noise case; §3 Algorithm 1; §5.1 ('we expect the NOGIN "
                        "scheme to be exact for Gaussian distributions')"),
    # full gradients: Sigma-hat = 0 and mSGLD is SGLD, whose order chen2015 and sekkat2023 print (until 2026-11-29,
    # the twenty-first audit, this entry cited matthews2018 §5.1's noisy-force result, as the i.i.d. entry does)
    ("msgld", "full"): ("derived", "1: derived for this project: with full gradients the noise estimate Σ̂ = 0 and "
                        "mSGLD is SGLD (x ← x - hG + sqrt(2h)ξ), whose bias is O(h): "
                        f"{_CHEN_EULER}; sekkat2023 §2.3.1 (after eq. 17: the bias of this discretization 'is of "
                        "order O(Δt)'); consistent with matthews2018 §5.1, Fig. 1 (a second order error in their "
                        "h, with eps = h^2/2 in the authors' code), which is for noisy forces"),
    ("msgld", "iid"): ("derived", "1: derived for this project: matthews2018 §5.1, Fig. 1 ('the mSGLD scheme gives a "
                       "second order error') in their h, with eps = h^2/2 in the authors' code: order 1 in the "
                       "implemented step eps (SGLD-type)"),
    ("sghmc", "full"): ("printed", "chen2015 §4 (the Euler integrator, 'a 1st-order integrator', applied to SGHMC), "
                        "Remark 9 ('SGHMC with 1st-order Euler integrators') and §3.2 (full gradients: O(h^K), K = 1); "
                        "franzese2021 §5 ('The LEAPFROG "
                        "scheme, which is provably of order 1 for SDEs, is also used in SGHMC'); ours is Chen et al. "
                        "2014's form, force at the new x (leapfrog at its midpoint)"),
    ("sghmc", "iid"): ("printed", "chen2015 §4 and Remark 10 (SGHMC with the 1st-order Euler integrator) with §3.2, "
                       "Theorem 4 (K = 1, stochastic gradients); franzese2021 §5 ('The LEAPFROG scheme, which is "
                       "provably of order 1 for SDEs, is also used in SGHMC'); ours is Chen et al. 2014's form with "
                       "the noise correction B = h Sigma-hat / 2"),
}  # fmt: skip
SOURCES = {k: text for k, (_, text) in _SOURCES.items()}
SOURCE_KIND = {k: kind for k, (kind, _) in _SOURCES.items()}
# the paper's value of an "exact" claim where only the x-marginal is exact (NOGIN: Lemma 4.2's momentum is O(h^2))
EXACT_PAPER = {"nogin": "x-marginal exact on Gaussian targets"}
# An "exact" claim is reproduced when each of these statistics has |bias| below EXACT_TOL at every h: the law of x and
# the momentum's variance (exact_ou: franzese2021 App. E.2 eq. 94 is the joint law of x and v; E[v] and Cov(x, v)
# not tested), or the x-marginal where the
# claim is the x-marginal only (EXACT_PAPER). Until the fourteenth audit (2026-11-29) both tested Var(x) alone.
_LAW_STATS = ("var_x", "mean_x", "m2_v")
_X_STATS = ("var_x", "mean_x")
_STAT_TEXT = {"var_x": "Var(x)", "mean_x": "E[x]", "m2_v": "E[v^2]"}


def _exact_stats(scheme: str) -> tuple[str, ...]:
    return _X_STATS if scheme in EXACT_PAPER else _LAW_STATS


def _agrees(r: Row, sib: dict) -> str:
    """``Row.agrees``, except that an "exact" claim needs each statistic of ``_exact_stats`` exact
    (``sib``: the rows of r's scheme and batching by statistic)."""
    if r.theory != "exact" or r.status not in ("measured", "exact"):
        return r.agrees
    return "yes" if all(s in sib and sib[s].status == "exact" for s in _exact_stats(r.scheme)) else "no"


def _siblings(rows: list[Row]) -> dict:
    """{(scheme, batching): {statistic: row}}."""
    by_stat: dict = {}
    for r in rows:
        by_stat.setdefault((r.scheme, r.batching), {})[r.statistic] = r
    return by_stat


# (scheme, batching) measured without a claim: why no paper gives one (orders.md)
NO_CLAIM = {
    (
        "leapfrog",
        "sms",
    ): "no paper result for LEAPFROG with sms batches (franzese2021 Thm 3 covers random permutations)",
    ("nogin", "iid"): "matthews2018 makes no claim for minibatch covariance estimates",
    ("nogin", "reshuffle"): "matthews2018 makes no claim for minibatch covariance estimates",
    ("nogin", "sms"): "matthews2018 makes no claim for minibatch covariance estimates",
    ("msgld", "reshuffle"): "matthews2018 gives mSGLD's order for i.i.d. noisy forces only",
    ("msgld", "sms"): "matthews2018 gives mSGLD's order for i.i.d. noisy forces only",
    ("sghmc", "reshuffle"): "no claim: the order-1 bias of var_x here comes from the noise correction "
    "B = h Sigma-hat / 2, calibrated for i.i.d. gradient noise",
    ("sghmc", "sms"): "no claim: the order-1 bias of var_x here comes from the noise correction B = h Sigma-hat / 2, "
    "calibrated for i.i.d. gradient noise",
}


def _grid_text(r: Row) -> str:
    """The row's step sizes as h = 2^-a..2^-b (empty when it has none)."""
    return f"h = 2^-{round(-math.log2(r.h[0]))}..2^-{round(-math.log2(r.h[-1]))}" if r.h else ""


def _verdict(fit: Fit, order: float) -> str:
    """This table's rule for a measured slope against an order (``claim_rows``)."""
    if (fit.lo <= order <= fit.hi) or abs(fit.slope - order) <= 0.25:
        return "reproduced"
    return "partly" if fit.slope > order else "not reproduced"


def _exact_ours(r: Row, sib: dict) -> str:
    """``ours`` of an "exact" claim: the largest |bias| of each exact statistic, the slope of the others."""
    parts = []
    for stat in _LAW_STATS:
        x = sib.get(stat)
        if x is None or x.status not in ("exact", "measured"):
            continue
        parts.append(f"{stat} exact (max |bias| {max(map(abs, x.bias)):.1e})" if x.status == "exact"
                     else f"{_p_ci(x.fit)} on {stat}")  # fmt: skip
    return "; ".join(parts)


def _rule_history(r: Row, sib: dict) -> str:
    """The 3c1bf32 rule change, for a claim judged on E[v^2] because var_x's order is higher (LAW_GAP)."""
    vx = sib.get("var_x")
    if r.statistic != "m2_v" or vx is None or vx.status != "measured" or r.theory in (None, "exact"):
        return ""
    return (f"E[v^2] is the primary statistic here since commit 3c1bf32 (the law's order is its lowest), a rule set "
            f"after this result was seen; var_x, the statistic of the earlier rule, has {_p_ci(vx.fit)} on the same "
            f"grid, which the earlier rule judged {_verdict(vx.fit, r.theory)}")  # fmt: skip


def _exact_history(r: Row, sib: dict) -> str:
    """The fourteenth audit's rule change for an "exact" claim, and what the earlier rule gave."""
    vx = sib.get("var_x")
    old = "reproduced" if vx is not None and vx.status == "exact" else "not reproduced"
    return (
        f"rule since the fourteenth audit (2026-11-29), set with this result known: until then the bias of Var(x) "
        f"alone, which gives {old}"
    )


def _unsettled(r: Row) -> str:
    """The local slopes of a primary statistic whose window did not settle (``analysis.orders``)."""
    if "local slopes not settled" not in r.note or len(r.h) < 2:
        return ""
    s = np.diff(np.log(np.abs(r.bias))) / np.diff(np.log(r.h))
    return (
        f"local slopes of {r.statistic} not settled on this grid: "
        + ", ".join(f"{x:.3f}" for x in s)
        + " from the largest h"
    )


def claim_rows(rows: list[Row]) -> list[tuple[Claim, Outcome]]:
    """A (Claim, Outcome) per primary row that has a theory: reproduced when ``_agrees``;
    partly when the measured order is above the theorem's (its bound holds, not sharply, on this
    target); not reproduced when below. An "exact" claim is judged on the bias of each statistic of
    ``_exact_stats`` at every h (below EXACT_TOL), not on a slope."""
    by_stat = _siblings(rows)
    out = []
    for r in rows:
        if not r.primary or r.theory is None:
            continue
        key, sib = (r.scheme, r.batching), by_stat.get((r.scheme, r.batching), {})
        paper, tolerance, method, ours = _exact_claim(r, sib) if r.theory == "exact" else _order_claim(r)
        claim = Claim(f"{r.scheme} with {r.batching} batches: stationary bias {paper}", SOURCES[key], paper,
                      SOURCE_KIND[key], tolerance=tolerance, method=method)  # fmt: skip
        out.append((claim, _judge(r, sib, ours)))
    return out


def _exact_claim(r: Row, sib: dict) -> tuple[str, str, str, str]:
    """An "exact" row's paper value, tolerance, method and ours: the bias of each statistic of
    ``_exact_stats`` below EXACT_TOL at every h."""
    paper = EXACT_PAPER.get(r.scheme, "exact on Gaussian targets")
    stats = _exact_stats(r.scheme)
    what = ("the x-marginal exact, which is the claim; E[v^2] not tested" if stats == _X_STATS
            else "the law of x and the momentum's variance exact; the whole Gaussian law is the claim, "
            "E[v] and Cov(x, v) not tested")  # fmt: skip
    tolerance = (
        f"reproduced: the bias of {', '.join(_STAT_TEXT[s] for s in stats[:-1])} and {_STAT_TEXT[stats[-1]]} "
        f"each below {EXACT_TOL:g} (rounding level) at every h of the grid ({what}); not reproduced "
        "otherwise; no slope is fitted"
    )
    method = (f"largest |bias| of the exact stationary {', '.join('E[v^2]' if x == 'm2_v' else x for x in stats)} over {_grid_text(r)}, target {r.target}"
              + ("; E[v^2]'s slope reported, not tested" if "m2_v" not in stats else "") + _params_text(r.scheme, r.batching))  # fmt: skip
    ours = _exact_ours(r, sib) or (
        "exact (bias at rounding level)" if r.status == "exact" else f"{_p_ci(r.fit)} on {r.statistic}"
    )
    return paper, tolerance, method, ours


# scheme parameters whose value the claim does not depend on, measured at one value (its preset's): how the
# method names it; the twenty-eighth audit (2026-11-29): orders#28's method did not say N_l = 10
_ONE_VALUE = {"n_leapfrog": "N_l"}


# where a paper's result holds only for some values of such a parameter: (scheme, batching) -> which (the
# twenty-ninth audit, 2026-11-29: franzese2021 App. D.2's Prop. 2 for reshuffled batches assumes N_l = TK)
_SOME_VALUES = {
    ("generalized_lie_trotter", "reshuffle"): "N_l a multiple of the K batches of an epoch (App. D.2 assumes N_l = TK)"
}


def _params_text(scheme: str, batching: str = "") -> str:
    """``method``'s note on a parameter the claim holds for every value of (or the values ``_SOME_VALUES`` names),
    measured at its preset's value only."""
    p = preset_params(scheme)
    which = _SOME_VALUES.get((scheme, batching))
    return "".join(f"; {name} = {p[k]} only (the claim is for every {which or name}; other {name} not tested)"
                   for k, name in _ONE_VALUE.items() if k in p)  # fmt: skip


def _order_claim(r: Row) -> tuple[str, str, str, str]:
    """An order row's paper value, tolerance, method and ours: the slope of log|bias| on log h."""
    tolerance = (
        "reproduced: the order lies in the slope's 95% interval or within 0.25 of the slope (this "
        "project's allowance); partly: the slope above it (the bound holds, not sharply); not "
        "reproduced: below it"
    )
    method = (f"slope of log|bias| on log h of the exact stationary {r.statistic} over {_grid_text(r)}, "
              f"target {r.target}{_params_text(r.scheme, r.batching)}")  # fmt: skip
    ours = "exact (bias at rounding level)" if r.status == "exact" else f"{_p_ci(r.fit)} on {r.statistic}"
    return f"order {r.theory}", tolerance, method, ours


def _judge(r: Row, sib: dict, ours: str) -> Outcome:
    """The row's verdict (``claim_rows``), its reason carrying the row's rule history."""
    history = _exact_history(r, sib) if r.theory == "exact" else _rule_history(r, sib)
    history = "; ".join(filter(None, (_unsettled(r), history)))
    if _agrees(r, sib) == "yes":
        return reproduced(ours, history)
    if r.status == "measured" and r.theory != "exact" and r.fit.slope > r.theory:
        why = "the measured order is higher than the theorem's: its bound holds, not sharply, on this target"
        return partly(ours, "; ".join(filter(None, (why, history))))
    miss = [_STAT_TEXT[s] for s in _exact_stats(r.scheme) if s not in sib or sib[s].status != "exact"]
    miss = f"not exact: {', '.join(miss)}" if r.theory == "exact" and miss else ""
    return not_reproduced(ours, "; ".join(filter(None, (miss, r.note or r.status, history))))


# chen2015 §3.2 Theorem 4 gives the invariant measure's error O(h^K) regardless of the stochastic gradient; with
# i.i.d. minibatches the claims rows follow paulin2025 §2.2 / sekkat2023 Prop. 4 (order 1) instead, so orders.md
# states the disagreement with Theorem 4 for chen2015's own splitting (aboba, K = 2, Lemma 8)
_CHEN_THM4_OTHERS = ("ubu", "baoab", "obabo", "lie_trotter", "generalized_lie_trotter")


def paper_disagreements(rows: list[Row]) -> list[str]:
    """orders.md lines for a paper result the claims rows do not use and the measurement contradicts:
    chen2015 Theorem 4's K = 2 for its ABOBA with i.i.d. minibatches."""
    prim = {(r.scheme, r.batching): r for r in rows if r.primary and r.status == "measured"}
    r = prim.get(("aboba", "iid"))
    if r is None or _verdict(r.fit, 2) != "not reproduced":
        return []
    others = ", ".join(f"{s} {prim[s, 'iid'].fit.slope:.2f}" for s in _CHEN_THM4_OTHERS if (s, "iid") in prim)
    return [f"- **aboba / iid** against chen2015 §3.2 Theorem 4 (the invariant measure's error is O(h^K), 'only "
            f"orders of numerical approximations but not the stochastic gradient approximation affect' it; K = 2 for "
            f"its symmetric splitting, Lemma 8): measured {_p_ci(r.fit)} on {r.statistic}, target {r.target}, "
            f"{_grid_text(r)}: order 2 is not reproduced by this table's rule. The claims row (orders.csv theory 1) "
            f"takes its order from paulin2025 §2.2 and sekkat2023 Prop. 4 (i.i.d. minibatches lower the weak order "
            f"from two to one); franzese2021 App. E also disputes Theorem 4. The same disagreement is "
            f"chen2015-fig1#3 (not reproduced). Read for any K-th-order integrator, Theorem 4 would give 2 for the "
            f"other order-2 schemes with i.i.d. batches as well; their slopes: {others}."]  # fmt: skip


# -- output ------------------------------------------------------------------------------------

CSV_FIELDS = ("scheme", "batching", "target", "statistic", "primary", "theory", "slope", "ci_low", "ci_high",
              "fit_rms", "agrees", "status", "params", "h", "bias", "note")  # fmt: skip


def _fmt(x: float, spec: str = ".3f") -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def _csv_row(r: Row, agrees: str) -> dict:
    return dict(zip(CSV_FIELDS, [
        r.scheme, r.batching, r.target, r.statistic, int(r.primary), "" if r.theory is None else r.theory,
        _fmt(r.fit.slope), _fmt(r.fit.lo), _fmt(r.fit.hi), _fmt(r.fit.rms, ".2e"), agrees, r.status,
        " ".join(f"{k}={v}" for k, v in preset_params(r.scheme).items()),
        ";".join(f"{h:.6g}" for h in r.h), ";".join(f"{b:.6e}" for b in r.bias), r.note,
    ]))  # fmt: skip


def plot(rows: list[Row], path: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(12, 9), squeeze=False)
    names = sorted({r.scheme for r in rows})
    cmap = plt.get_cmap("tab20")
    colours = {n: cmap(i % 20) for i, n in enumerate(names)}
    markers = "osD^v<>phX*"
    for ax, bt in zip(axes.flat, BATCHINGS):
        sel = [r for r in rows if r.batching == bt and r.primary and r.status == "measured"]
        for r in sel:
            lab = f"{r.scheme} ({r.statistic}) p={r.fit.slope:.2f}"
            ax.loglog(r.h, np.abs(r.bias), marker=markers[names.index(r.scheme) % len(markers)], ms=4, lw=1,
                      color=colours[r.scheme], label=lab)  # fmt: skip
        if sel:
            h0 = min(min(r.h) for r in sel)
            b0 = min(min(np.abs(r.bias)) for r in sel)
            hh = np.array([h0, 8 * h0])
            for p, ls in ((1, ":"), (2, "--"), (3, "-.")):
                ax.loglog(hh, b0 * (hh / h0) ** p, "k", ls=ls, lw=0.8, label=f"slope {p}")
        ax.set(title=f"batching = {bt}", xlabel="step size h", ylabel="|stationary bias|")
        ax.legend(fontsize=6, ncol=2)
        ax.grid(True, which="both", lw=0.2)
    fig.suptitle("Exact stationary bias of each integrator (primary statistic, thin=1 recorded law)")
    save_figure(fig, path)


def write_markdown(rows: list[Row], path: Path) -> None:
    lines = [
        "# Measured orders of convergence",
        "",
        "Generated by `bnnsample figure orders`; do not edit by hand (rerun the command).",
        "",
        "Bias of the exact stationary law of the implemented integrators (affine maps read off",
        "`advance` by `bnnsample/analysis/probe.py`, moments over every batch sequence of one schedule",
        "cycle, pooled over the cycle phases as a thin=1 run records them). Friction 1, float64.",
        "`p` is the least-squares slope of log|bias| on log h over the grid shown (h = 2^-e), with a 95%",
        "t-interval; `rms` the residual in natural-log units. Primary statistic: var_x = Var(x) minus",
        "the posterior variance; m2_v = E[v^2] - 1 when var_x is exact for every h or E[v^2]'s bias has",
        "the lower order by more than 0.5 (the law's order is its lowest). `agrees`: the",
        "theory's order lies in the interval or within 0.25 of p; for `exact`, the |bias| of var_x, mean_x",
        f"and m2_v is below {EXACT_TOL:g} at every h (var_x and mean_x only where the claim is the x-marginal:",
        "nogin). Each claim's source and its kind (printed, statement, derived) are listed",
        "at the end. Targets: " + "; ".join(f"`{t.name}` = {t.description}" for t in TARGETS) + ".",
        "",
    ]
    by_key: dict = {}
    for r in rows:
        by_key.setdefault((r.scheme, r.batching), []).append(r)
    sib = _siblings(rows)
    lines += md_table(["scheme", "batching", "target", "stat", "theory", "p", "95% CI", "rms", "h grid", "agrees",
                       "other stats p", "note"], [_table_cells(rs, _agrees(rs[0], sib[k])) for k, rs in by_key.items()])  # fmt: skip
    dis = [_disagreement(r) for r in rows if r.primary and _agrees(r, sib[r.scheme, r.batching]) == "no"]
    pd = paper_disagreements(rows)
    dis = dis or ["No claims row disagrees with the order it cites."]
    if pd:  # a paper result that the claims rows do not cite as their order (chen2015 Theorem 4)
        dis += ["", "With a paper result that no claims row cites as its order:", "", *pd]
    lines += _md_section("Disagreements with the papers", dis)
    lines += _md_section("Measured where no paper makes a claim",
                         [f"- {r.scheme} / {r.batching}: {_p_ci(r.fit)}"
                          + (f" ({NO_CLAIM[r.scheme, r.batching]})" if (r.scheme, r.batching) in NO_CLAIM else "")
                          for r in rows if r.primary and r.status == "measured" and r.theory is None])  # fmt: skip
    lines += _md_section("Not measured", [f"- {r.scheme} / {r.batching}: {r.status}: {r.note}" for r in rows
                                          if r.status in ("not affine", "not applicable", "error", "skipped")])  # fmt: skip
    lines += _md_section(
        "Sources of the theory column",
        [f"- {' / '.join(k)} ({SOURCE_KIND[k]}): {v}" for k, v in SOURCES.items()],
    )
    write_file(path, "\n".join(lines) + "\n")


def _md_section(title: str, items: list[str]) -> list[str]:
    """A '## title' list of orders.md; nothing when there are no items."""
    return ["", f"## {title}", "", *items] if items else []


def _p_ci(f: Fit) -> str:
    return f"p = {f.slope:.3f} [{f.lo:.3f}, {f.hi:.3f}]"


def _table_cells(rs: list[Row], agrees: str) -> list[str]:
    """The orders.md table cells of one (scheme, batching): its primary row (the first), whether it
    agrees with the theory (``_agrees``) and the slopes of its other statistics."""
    r = rs[0]
    mp = ", ".join(f"{x.statistic} " + ("exact" if x.status == "exact" else f"{x.fit.slope:.2f}")
                   for x in rs if not x.primary)  # fmt: skip
    th = "" if r.theory is None else str(r.theory)
    grid = f"2^-{round(-math.log2(r.h[0]))}..2^-{round(-math.log2(r.h[-1]))}" if r.h else ""
    if r.status == "measured":
        p, ci, rms = f"{r.fit.slope:.3f}", f"[{r.fit.lo:.3f}, {r.fit.hi:.3f}]", f"{r.fit.rms:.1e}"
    else:
        p, ci, rms = r.status, "", ""
    return [r.scheme, r.batching, r.target, r.statistic, th, p, ci, rms, grid, agrees, mp, r.note]


def _disagreement(r: Row) -> str:
    b = ", ".join(f"{v:.3e}" for v in r.bias)
    meas = "exact (bias at rounding level)" if r.status == "exact" else _p_ci(r.fit)
    return (f"- **{r.scheme} / {r.batching}**: theory {r.theory} ({SOURCES.get((r.scheme, r.batching), '')}), "
            f"measured {meas} on {r.statistic}, target {r.target}; |bias| at h = "
            f"{', '.join(f'{h:g}' for h in r.h)}: {b}. {r.note}")  # fmt: skip


def _schemes(key: str, text: str) -> list[str]:
    from ..integrators import REGISTRY

    def complaint(bad):
        return f"unknown {', '.join(bad) or '(empty)'}; allowed: {', '.join(REGISTRY)}"

    return names(REGISTRY, complaint)(key, text)


def _grid(key: str, v: str) -> tuple[int, int]:
    try:
        lo, hi = (int(x) for x in v.split(":"))
    except ValueError:
        raise ValueError(f"{key}={v}: expected E1:E2 (h = 2^-E1 .. 2^-E2), e.g. 3:7") from None
    if not (lo >= 0 and hi - lo >= 2 and hi <= MAX_EXP):
        raise ValueError(f"{key}={v}: need 0 <= E1, E2 - E1 >= 2 and E2 <= {MAX_EXP}")
    return lo, hi


def _adapt(key: str, v: str) -> bool:
    if v not in ("0", "1", "true", "false"):
        raise ValueError(f"{key}={v}: allowed values: 0, 1")
    return v in ("1", "true")


OPTIONS = (Option("schemes", _schemes), Option("batchings", lambda k, v: tuple(names(BATCHINGS)(k, v)), BATCHINGS),
           Option("grid", _grid, START), Option("adapt", _adapt, True))  # fmt: skip


@register("orders", "measured order of the stationary bias vs step size, every integrator x batching", scales=(),
          options=tuple(o.key for o in OPTIONS))  # fmt: skip
def make(out_dir: Path, options: dict) -> list[Path]:
    """Write orders.csv, orders.png, orders.md and claims.csv into out_dir/orders. Options:
    schemes=a,b batchings=full,iid grid=E1:E2 (initial window, h = 2^-E) adapt=0|1."""
    from ..integrators import REGISTRY

    keys = [o.key for o in OPTIONS]
    unknown = [k for k in options if k not in keys]
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r} for figure orders; allowed: {', '.join(keys)}")
    opts = parse_options(options, OPTIONS)
    out_dir = recipe_dir(out_dir, "orders")
    schemes = opts["schemes"] or list(REGISTRY)
    bar = CellBar("orders", len(schemes))
    try:
        rows = measure_orders(schemes, opts["batchings"], opts["grid"], opts["adapt"], bar, THEORY)
    finally:
        bar.close()
    paths = [out_dir / "orders.csv", out_dir / "orders.png", out_dir / "orders.md"]
    sib = _siblings(rows)
    write_csv(
        paths[0],
        [_csv_row(r, _agrees(r, sib[r.scheme, r.batching])) for r in rows],
        float_format=None,
        columns=CSV_FIELDS,
    )
    plot(rows, paths[1])
    write_markdown(rows, paths[2])
    setting = " ".join(["bnnsample figure orders", *(f"{k}={v}" for k, v in sorted(options.items()))])
    return [*paths, write_claims(out_dir / CLAIMS_CSV, "orders", claim_rows(rows), setting)]
