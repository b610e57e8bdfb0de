"""sekkat2023-fig14: the mixture of §2.5.2 sampled by eAdL with K + 1 = 1, 4, 16, 36 basis functions (§4.4,
Fig. 14), and the projection errors of Sigma_x on those bases (Fig. 15)."""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

from ...figures.claims import Claim, Claims, Outcome, by_count, check, not_tested
from ...figures.common import where
from ...figures.driver import JOBS, Figure, Invocation, register_figure
from ...plotting import pyplot, save_figure
from . import mixture
from .mixture import ETA_MIXTURE, bound_z, l1_text, resolved
from .mixture_runs import EDGES
from .shared import HEADING, TITLE

ID = "sekkat2023-fig14"
EADL_BASES = {0: ([0.0, 1.4], 0), 3: (EDGES, 0), 15: (EDGES, 1), 35: (EDGES, 2)}  # K: (edges, degree)
FIG14 = {
    "quick": {"h": (1e-2,), "n": (5, 15), "chains": 400, "burn": 2.0, "time": 6.0, "cells": 300,
              "replicas": {"n": 5, "h": 1e-2, "K": (0, 3, 15), "seeds": 2}},
    # eps h up to 78 (h = 1e-2 at n = 5): with eta_k = 0.1, fig7's full-matrix AdL (K = 0) error exceeds its noise
    # floor only there, so smaller h cannot show a drop in K (h = 2e-3 cells measured 0.029-0.031, at their floor)
    "paper": {"h": (5e-3, 1e-2), "n": (5, 15), "chains": 1000, "burn": 5.0, "time": 20.0, "cells": 500,
              "replicas": {"n": 5, "h": 1e-2, "K": (0, 3, 15), "seeds": 3}},
}  # fmt: skip
# What eta_k = 1 gave (the value §4.4 prints; fig14_eta1.csv, scale=paper, 1000 chains, h in {0.001, 0.002, 0.005}, no
# seed replicas):
ETA1_OURS = "eta_k = 1 (printed in §4.4; fig14_eta1.csv): K = 15 not below 0.7x K = 3 (not reproduced, 3.7 s.e.)"
# what the K = 3 and residual rules give on the same eta_k = 1 runs (a test recomputes both from fig14_eta1.csv)
ETA1_VERDICTS = {"k3": "not tested: scale", "residual": "partly"}
ETA1_RESULT = ("with eta_k = 1 (§4.4's printed value; fig14_eta1.csv: h in [0.001, 0.002, 0.005], same chains and "
               "time) the K = 0 (AdL) baseline had L1 0.130, 0.224, 0.281 at n = 5 and h = 0.001, 0.002, 0.005, where "
               "fig7's full-matrix AdL with eta = 0.1 has 0.030 at h = 0.001, and its theta_1 > 0.7 mass was 0.43-0.48 "
               "against the exact 0.365: with eta = 1 the chains were metastable (the mode weights drifted), as §3.3.2 "
               "reports for eta > 0.1, and no friction basis corrects a mode weight; K = 15 was then not below 0.7x "
               "K = 3 (not reproduced, 3.7 s.e.). A test at eta_k = 1 needs records long enough for the mode weights to "
               "settle, a time these runs do not measure: each 10x of the recorded time costs about 2.7 CPU-hours for "
               "those 24 settings (their sampling time, 954 CPU-s, x 10). §4.4 also says 'the same parameters as in Section 3.3.2' (eta = 0.1) "
               "and compares its K = 0 with Fig. 7, so eta_k = 0.1 is used here, and h up to 0.01, since with eta = 0.1 "
               "the K = 0 error exceeds its noise floor only at the largest eps h (fig7)")  # fmt: skip


def _plan_row(s: int, settings: dict, n: int, h: float, K: int, replica: int) -> tuple[tuple, dict]:
    edges, deg = EADL_BASES[K]
    params = {"edges": edges, "degree": deg, "friction_kind": "full", "thermostat_mass": ETA_MIXTURE,
              "normalization": "burn_in"}  # fmt: skip
    return (("eadl", params, "iid_wor", n, h, settings["chains"], settings["burn"], settings["time"], s, "eadl"),
            {"K": K, "replica": replica})  # fmt: skip


def fig14_plan(settings: dict, seed: int = 0) -> list[tuple[tuple, dict]]:
    """The runs of fig 14: eAdL per (h, n, K) (replica 0), then ``replicas["seeds"]`` more seeds of the
    ``replicas`` setting per K there: their spread is our seed-to-seed noise."""
    plan, s = [], seed
    for h in settings["h"]:
        for n in settings["n"]:
            for K in EADL_BASES:
                s += 1
                plan.append(_plan_row(s, settings, n, h, K, 0))
    rep = settings.get("replicas")
    for r in range(1, (rep or {}).get("seeds", 0) + 1):
        for K in rep["K"]:
            s += 1
            plan.append(_plan_row(s, settings, rep["n"], rep["h"], K, r))
    return plan


def seed_noise(rows) -> tuple[float, str]:
    """(factor, text): the factor max(1, sd / rms s.e.) by which the bootstrap s.e. of the L1 errors is widened,
    sd the seed-to-seed standard deviation of L1 pooled over the replicated (n, h, K) settings (ddof 1 per
    setting) and rms s.e. the root mean square of their bootstrap s.e. (1 and "none" without replicas)."""
    import numpy as np

    groups: dict = {}
    for r in rows:
        groups.setdefault((r["n"], r["h"], r["K"]), []).append(r)
    groups = {k: g for k, g in groups.items() if len(g) > 1}
    if not groups:
        return 1.0, "no replicated settings: the bootstrap s.e. alone"
    sd = _pooled_sd(rows)
    se = float(np.sqrt(np.mean([r["l1_se"] ** 2 for g in groups.values() for r in g])))
    f = max(1.0, sd / se)
    per = "; ".join(
        f"n={n} h={h:g} K={K}: " + ", ".join(f"{r['l1']:.3f}" for r in g) for (n, h, K), g in groups.items()
    )
    return f, (f"seed-to-seed sd of L1 {sd:.3f} (pooled over {len(groups)} settings x {len(next(iter(groups.values())))} "
               f"seeds: {per}) vs rms bootstrap s.e. {se:.3f}: s.e. widened x{f:.2f}")  # fmt: skip


def _measure(inv: Invocation, bar) -> mixture.Measured:
    m = mixture.reference_and_rows(inv, fig14_plan(inv.st), with_sigma=True)
    m.rows = [{**r, "projection_error": m.proj[f"K={r['K']}"]} for r in m.rows]
    return m


def _plot(m: mixture.Measured, inv: Invocation, png: Path) -> list[Path]:
    st = inv.st
    groups = [(f"n={n} h={h:g}", where(m.rows, n=n, h=h, replica=0)) for h in st["h"] for n in st["n"]]
    return [mixture.plot(png, "K", groups, f"eAdL, full-matrix xi_k, eta_k = {ETA_MIXTURE}"),
            plot_fig15(m.proj, inv.dir / "fig15_projection.png")]  # fmt: skip


def _settings(m: mixture.Measured, inv: Invocation) -> str:
    st = inv.st
    return (mixture.settings_text(st, m.ref) + f" eAdL eq. 75 (`eadl`), full symmetric 2x2 xi_k, eta_k = {ETA_MIXTURE} (fig7's AdL value; see the "
            f"claims for eta_k = 1), "
            "gamma = 1, partition of [0, 1.4]^2 into 4 squares (outer cells extend to infinity: our decision), "
            "K + 1 = 1 (constant: AdL), 4 (indicators), 16 (degree 1), 36 (degree 2) basis functions, normalised "
            f"to unit L2(pi) norm on the second half of the burn-in; without replacement, n in {list(st['n'])}, "
            f"h in {list(st['h'])}, burn-in {st['burn']} and recorded time {st['time']} per chain; seed-to-seed noise "
            f"from {st['replicas']['seeds']} more seeds (runs and minibatches) at n = {st['replicas']['n']}, h = "
            f"{st['replicas']['h']:g}, K in {list(st['replicas']['K'])} (column replica).")  # fmt: skip


def _notes(m: mixture.Measured, inv: Invocation) -> str:
    return f"Posterior mass of theta_1 > 0.7 (exact {1 - m.ref.grid.mass_in(-9, 0.7):.3f}): " + "; ".join(
        f"n={r['n']} h={r['h']:g} K={r['K']}: {r['mass_theta1_gt_0.7']:.3f}" for r in m.rows if r.get("replica", 0) == 0
    ) + _diverged(m.rows) + (". Where this mode weight is off (the largest eps h), the L1 error is dominated by the weight of the two "
         "modes, which the friction basis does not correct at this run length.")  # fmt: skip


def _diverged(rows) -> str:
    bad = [r for r in rows if r.get("diverged_chains", 0)]
    if not bad:
        return ""
    return ". Diverged chains (non-finite, left out): " + ", ".join(
        f"n={r['n']} h={r['h']:g} K={r['K']} replica {r['replica']}: {r['diverged_chains']} of {r['chains']}"
        for r in bad
    )


def plot_fig15(proj, png: Path) -> Path:
    fig, ax = pyplot().subplots(figsize=(5, 4))
    Ks = sorted(EADL_BASES)
    ax.plot(Ks, [proj[f"K={k}"] for k in Ks], "o-")
    ax.set(yscale="log", xlabel="K", ylabel="||Sigma_x - S_K||_L2(pi)", title="Fig. 15: projection error")
    return save_figure(fig, png)


FIG14_CLAIMS = Claims("statement")


def fig14_outcomes(rows, proj, st, scale: str) -> list[tuple[Claim, Outcome]]:
    """The measured outcome of each claim of FIG14_CLAIMS."""
    pe = {K: proj[f"K={K}"] for K in sorted(EADL_BASES)}
    f, noise = seed_noise(rows)
    main = _seed_means(rows, f, _pooled_sd(rows))
    out = FIG14_CLAIMS.outcomes(main, pe, st, scale, mixture.scale_why(main, scale, FIG14, fig14_plan))
    base = [_at(main, 0, n, h) for n, h in _cases(st)]
    now = ("with eta_k = 0.1 the K = 0 (AdL) errors are " + ", ".join(
        f"{r['l1']:.3f} (floor {r['l1_noise_floor']:.3f}, {(r['l1'] - r['l1_noise_floor']) / r['l1_se']:+.1f} s.e.)"
        for r in base) + " at (n, h) = " + ", ".join(f"({n}, {h:g})" for n, h in _cases(st))
        + ": where AdL's error is within 2 s.e. of its floor no drop in K can be measured; resolving one needs a "
        "floor several times lower (chains x time up by the square of that factor)")  # fmt: skip
    eta1 = ("at the printed eta_k = 1 (fig14_eta1.csv: h in {{0.001, 0.002, 0.005}}, no seed replicas; eta_k = 0.1 was "
            "chosen after those runs were seen to be metastable) the same rule gives {}")  # fmt: skip
    extra = {"k3": f"{noise}; {eta1.format(ETA1_VERDICTS['k3'])}", "k15": f"{now}; {noise}; {ETA1_RESULT}",
             "residual": f"{noise}; {eta1.format(ETA1_VERDICTS['residual'])}"}  # fmt: skip
    out = [(c, o if (e := extra.get(k)) is None else replace(o, why="; ".join(w for w in (o.why, e) if w)))
           for k, (c, o) in zip(FIG14_CLAIMS, out)]  # fmt: skip
    # the printed eta_k = 1's outcome beside the reading judged (eta_k = 0.1), where a reader sees the numbers
    return [(c, replace(o, ours=f"{ETA1_OURS}; eta_k = 0.1: {o.ours}") if c is FIG14_CLAIMS["k15"] else o)
            for c, o in out]  # fmt: skip


def _pooled_sd(rows) -> float | None:
    """The seed-to-seed sd of L1 pooled over the replicated (n, h, K) settings (as ``seed_noise``); None
    without replicas."""
    import numpy as np

    groups: dict = {}
    for r in rows:
        groups.setdefault((r["n"], r["h"], r["K"]), []).append(r["l1"])
    groups = {k: g for k, g in groups.items() if len(g) > 1}
    if not groups:
        return None
    dev = sum(float(np.sum((np.array(g) - np.mean(g)) ** 2)) for g in groups.values())
    return float(np.sqrt(dev / sum(len(g) - 1 for g in groups.values())))


def _seed_means(rows, f: float, sd: float | None = None) -> list[dict]:
    """One row per (n, h, K): replica 0's with its bootstrap s.e. widened by ``f`` (``seed_noise``), or, where
    seed replicas ran, the mean L1, floor and mass over the seeds with s.e. = sd / sqrt(seeds), sd the seed
    sd pooled over the replicated settings (``_pooled_sd``; its own seeds' sd when not given) (until
    2026-11-29 replica 0 alone was judged there too)."""
    import numpy as np

    groups: dict = {}
    for r in rows:
        groups.setdefault((r["n"], r["h"], r["K"]), []).append(r)
    out = []
    for g in groups.values():
        r0 = next(r for r in g if r.get("replica", 0) == 0)
        if len(g) == 1:
            out.append({**r0, "l1_se": f * r0["l1_se"]})
            continue
        mean = {k: float(np.mean([r[k] for r in g])) for k in ("l1", "l1_noise_floor", "mass_theta1_gt_0.7")}
        spread = sd if sd is not None else float(np.std([r["l1"] for r in g], ddof=1))
        out.append({**r0, **mean, "l1_se": spread / np.sqrt(len(g)), "seeds": len(g),
                    "diverged_seeds": sum(r.get("diverged_chains", 0) for r in g),
                    "chains_seeds": sum(r["chains"] for r in g)})  # fmt: skip
    return out


def by_bound(zs, ours: str, why: str, untested: str, agree_below: float = -2.0) -> Outcome:
    """The outcome of a claim "x_b below c x_a" over cases with z = ``bound_z``: a case agrees when z <
    ``agree_below``, disagrees when z > 2 and is unresolved in between; not tested (scale) when no case is
    resolved."""
    agree, bad = sum(z < agree_below for z in zs), [z for z in zs if z > 2]
    if not agree and not bad:
        return not_tested("scale", ours, f"{why}; {untested}")
    return by_count(agree, len(zs), ours, why, z=max(bad, default=None))


def _at(rows, K, n, h):
    return next(r for r in rows if r["K"] == K and r["n"] == n and r["h"] == h and r.get("replica", 0) == 0)


def _cases(st) -> list[tuple[int, float]]:
    return [(n, h) for h in st["h"] for n in st["n"]]


def _change(rows, st, a: int, b: int) -> str:
    """The L1 errors at K = a and K = b of each (n, h), and the change in s.e."""
    return "; ".join(f"n={n} h={h:g}: K={a} {l1_text(_at(rows, a, n, h))} -> K={b} {l1_text(_at(rows, b, n, h))} (z = "
                     f"{bound_z(_at(rows, a, n, h), _at(rows, b, n, h)):.1f})" for n, h in _cases(st))  # fmt: skip


@FIG14_CLAIMS.rule("k3", "the bias drops already at K = 3 (vs AdL, K = 0)", "§4.4, Fig. 14 (vs Fig. 7)", "drops",
    tolerance="L1 at K = 3 below that at K = 0 by more than 2 s.e., at each (n, h); s.e. = bootstrap s.e. over chains widened by the measured seed-to-seed noise, and at the (n, h) with seed replicas the mean over its seeds with s.e. = the seed sd pooled over the replicated settings (9 dof) / sqrt(seeds) (until 2026-11-29 replica 0 alone there, which gave not tested; the numbers shown are the seed means); reproduced: at each (n, h); partly: at some (even if others go the other way beyond 2 s.e.); not reproduced: at none, the other way beyond 2 s.e. at some; not tested: none resolved either way; judged at eta_k = 0.1 (the paper prints 1; eta_k = 0.1 was chosen after the eta_k = 1 runs were seen to be metastable; what 1 gives is in the reason)",
    method="independent runs, bootstrap s.e. over chains")  # fmt: skip
def _k3(rows, pe, st, scale, floor_why):
    return by_bound([bound_z(_at(rows, 0, n, h), _at(rows, 3, n, h)) for n, h in _cases(st)], _change(rows, st, 0, 3),
                    f"projection error K = 0 -> 3: {pe[0]:.3f} -> {pe[3]:.3f} ({1 - pe[3] / pe[0]:.0%} lower on our "
                    "data set)", f"no change beyond 2 s.e.; {floor_why}")  # fmt: skip


@FIG14_CLAIMS.rule("k15", "the bias drops dramatically at K = 15, as the projection error does (Fig. 15)",
    "§4.4, Figs. 14-15", "dramatic drop",
    tolerance="L1 at K = 15 below 0.7x that at K = 3 (our lenient reading of 'dramatic': a 30% drop; the projection error's drop is in the reason) by more than 2 s.e., at each (n, h); s.e. = bootstrap s.e. over chains widened by the measured seed-to-seed noise, and at the (n, h) with seed replicas the mean over its seeds with s.e. = the seed sd pooled over the replicated settings (9 dof) / sqrt(seeds) (until 2026-11-29 replica 0 alone there, which gave not tested; the numbers shown are the seed means); reproduced: at each (n, h); partly: at some (even if others go the other way beyond 2 s.e.); not reproduced: at none, the other way beyond 2 s.e. at some; not tested: none resolved either way; judged at eta_k = 0.1 (the paper prints 1; eta_k = 0.1 was chosen after the eta_k = 1 runs were seen to be metastable; what 1 gives is in the reason)",
    method="independent runs, bootstrap s.e. over chains; at scale=paper 5 + 20 time units per chain (the paper's one "
           "trajectory: T = 10^6)")  # fmt: skip
def _k15(rows, pe, st, scale, floor_why):
    z = [bound_z(_at(rows, 3, n, h), _at(rows, 15, n, h), 0.7) for n, h in _cases(st)]
    return by_bound(z, _change(rows, st, 3, 15),
                    f"projection error K = 3 -> 15: {pe[3]:.3f} -> {pe[15]:.3f}; z of L1(K=15) - 0.7 L1(K=3) at (n, h) = "
                    + ", ".join(f"({n}, {h:g}): {v:.1f}" for (n, h), v in zip(_cases(st), z)), floor_why)  # fmt: skip


@FIG14_CLAIMS.rule("residual", "a small bias remains for K >= 15 (probably mostly the time-step error)",
    "§4.4, Fig. 14", "small",
    tolerance="L1 - floor at K = 15 and 35 at most half of L1 - floor at K = 0 (AdL), within 2 s.e. (a case fails "
              "only when the larger K >= 15 excess is above half the K = 0 one by more than 2 s.e.), at each (n, h) "
              "where the K = 0 error exceeds its floor by > 2 s.e. (s.e. widened by the measured seed-to-seed noise; "
              "at the (n, h) with seed replicas the seeds' mean, s.e. = the pooled seed sd / sqrt(seeds), replica 0 alone "
              "until 2026-11-29, which gave not tested); "
              "reproduced: at each such (n, h); partly: some; not reproduced: none; not tested: no (n, h) whose K = 0 "
              "error is resolved; judged at eta_k = 0.1",
    method="the attribution to the time step needs several h")  # fmt: skip
def _residual(rows, pe, st, scale, floor_why):
    res = [(n, h) for n, h in _cases(st) if resolved(_at(rows, 0, n, h))]
    z = dict(zip(res, (max(bound_z(_at(rows, 0, n, h), _at(rows, K, n, h), 0.5, excess=True) for K in (15, 35))
                       for n, h in res)))  # fmt: skip
    ours = "L1 - floor: " + "; ".join(f"n={n} h={h:g}: " + ", ".join(_excess(rows, K, n, h) for K in (0, 15, 35))
                                      + (f" (z = {z[n, h]:.1f})" if (n, h) in z else " (K = 0 within 2 s.e. of its floor)")
                                      for n, h in _cases(st))  # fmt: skip
    z = list(z.values())
    mass = "; ".join(f"n={n} h={h:g}: " + ", ".join(f"K={K} {_at(rows, K, n, h)['mass_theta1_gt_0.7']:.3f}"
                                            for K in sorted(EADL_BASES)) for n, h in _cases(st))  # fmt: skip
    return by_bound(z, ours, f"where not small the error is a mode-weight error: mass of theta_1 > 0.7 {mass} (exact "
                    f"{rows[0]['exact_mass_gt_0.7']:.3f}); the time-step attribution is not tested{_left_out(rows)}",
                    f"AdL (K = 0) errors at their noise floor; {floor_why}", agree_below=2.0)  # fmt: skip


def _left_out(rows) -> str:
    """The chains that diverged (non-finite, left out of the L1) per (n, h, K), if any: over every seed
    where seed replicas ran (``_seed_means``)."""
    bad = [r for r in rows if r.get("diverged_seeds", r.get("diverged_chains", 0))]
    return (
        "; diverged chains left out: "
        + ", ".join(
            f"n={r['n']} h={r['h']:g} K={r['K']}: {r.get('diverged_seeds', r['diverged_chains'])} of "
            + (f"{r['chains_seeds']} ({r['seeds']} seeds)" if "seeds" in r else f"{r['chains']}")
            for r in bad
        )  # fmt: skip
        if bad
        else ""
    )


def _excess(rows, K, n, h) -> str:
    r = _at(rows, K, n, h)
    return f"K={K} {r['l1'] - r['l1_noise_floor']:.3f} ± {r['l1_se']:.3f}"


@FIG14_CLAIMS.rule("monotone", "projection error non-increasing in K (nested bases on one partition)", "Fig. 15",
    "non-increasing", source="check")  # fmt: skip
def _monotone(rows, pe, st, scale, floor_why):
    return check(all(b <= a + 1e-12 for a, b in itertools.pairwise(pe.values())),
                 ", ".join(f"K={k}: {v:.3f}" for k, v in pe.items()))  # fmt: skip


FIGURE = register_figure(Figure(
    ID, TITLE, "sekkat2023 Figs. 14-15: eAdL L1 error and projection error vs K (mixture)", FIG14,
    rows=_measure, tables=lambda m: {"fig14.csv": m.rows}, plot=_plot, png="fig14.png",
    outcomes=lambda m, inv: fig14_outcomes(m.rows, m.proj, inv.st, inv.scale), settings=_settings, notes=_notes,
    options=(JOBS,), heading=HEADING))  # fmt: skip
