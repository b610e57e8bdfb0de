"""sekkat2023-fig14: the mixture of §2.5.2 sampled by eAdL with K + 1 = 1, 4, 16, 36 basis functions (§4.4,
Fig. 14), and the projection errors of Sigma_x on those bases (Fig. 15)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
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
    # burn-in 30 time units: past 3 A eta at every (n, h) (at most 27.1, at (5, 0.01); A from fig7.csv), the
    # stationarity gate of the claims about K (5 until 2026-11-29, which passed it at (15, 0.005) only)
    "paper": {"h": (5e-3, 1e-2), "n": (5, 15), "chains": 1000, "burn": 30.0, "time": 20.0, "cells": 500,
              "replicas": {"n": 5, "h": 1e-2, "K": (0, 3, 15), "seeds": 3}},
}  # fmt: skip
# What eta_k = 1 gave (the value §4.4 prints; fig14_eta1.csv: 1000 chains, burn-in ETA1_BURN and the paper scale's
# record, h in {0.001, 0.002, 0.005}, no seed replicas):
ETA1_BURN = 5.0
ETA1_OURS = (
    "eta_k = 1 (printed in §4.4; fig14_eta1.csv): not counted (no (n, h) shown stationary, the chains "
    "metastable; the rule before 2026-11-29 gave not reproduced, 3.7 s.e.)"
)
# what the rules give on the eta_k = 1 runs (fig14_eta1.csv, judged with eta = 1 and fig7's frictions), and what they gave
# until 2026-11-29, when every (n, h) was counted (a test recomputes both)
ETA1_VERDICTS = {"k3": "not tested: scale", "k15": "not tested: scale", "residual": "not tested: scale"}
ETA1_OLD = {"k3": "not tested: scale", "k15": "not reproduced (3.7 s.e.)", "residual": "partly"}


def record_cost(secs: float, burn: float, time: float, factors=(10, 100)) -> str:
    """What runs that took ``secs`` CPU-s for ``burn`` + ``time`` time units cost with their record ``time``
    lengthened ``factors`` times: linear in the simulated time, secs (burn + m time) / (burn + time); until
    2026-11-29 (the twenty-eighth audit) the rows said 'each 10x ... costs' the first 10x's amount."""
    hours = [secs * (burn + m * time) / (burn + time) / 3600 for m in factors]
    return ", ".join(f"{'a record ' if i == 0 else ''}{m}x {'as long ' if i == 0 else ''}about "
                     f"{x:.{1 if x < 10 else 0}f}{' CPU-hours' if i == 0 else ''}"
                     for i, (m, x) in enumerate(zip(factors, hours)))  # fmt: skip


ETA1_SECONDS = 954.16  # fig14_eta1.csv's 24 runs, their seconds summed (a test reads them again)
ETA1_RESULT = ("with eta_k = 1 (§4.4's printed value; fig14_eta1.csv: h in [0.001, 0.002, 0.005], same chains and "
               "time) the K = 0 (AdL) baseline had L1 0.130, 0.224, 0.281 at n = 5 and h = 0.001, 0.002, 0.005, where "
               "fig7's full-matrix AdL with eta = 0.1 has 0.030 at h = 0.001, and its theta_1 > 0.7 mass was 0.43-0.48 "
               "against the exact 0.365: with eta = 1 the chains were metastable (the mode weights drifted), as §3.3.2 "
               "reports for eta > 0.1, and no friction basis corrects a mode weight; K = 15 was then not below 0.7x "
               "K = 3 at some (n, h), which the rule before 2026-11-29 (every (n, h) counted) called not reproduced (3.7 s.e.); "
               "now no (n, h) is counted: the burn-in, 5 time units, is below 3 A eta_k = 3 A at each (A from fig7's "
               "friction means at those (n, h), 3.6-43.8: 10.7-131.5 time units), and the mode weights were off. A "
               "test at eta_k = 1 needs burn-ins past that and records long enough for the mode weights to "
               "settle, a time these runs do not measure: the cost grows with the recorded time, for those 24 "
               f"settings {record_cost(ETA1_SECONDS, ETA1_BURN, FIG14['paper']['time'])} (their sampling time, "
               f"{ETA1_SECONDS:.0f} CPU-s, {FIG14['paper']['time']:g} of whose {ETA1_BURN + FIG14['paper']['time']:g} "
               "time units are recorded). §4.4 also says 'the same parameters as in Section 3.3.2' (eta = 0.1) "
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


def fig14_outcomes(rows, proj, st, scale: str, fric=(), eta: float = ETA_MIXTURE) -> list[tuple[Claim, Outcome]]:
    """The measured outcome of each claim of FIG14_CLAIMS; ``fric``: full-matrix AdL's rows of sekkat2023-fig7's
    fig7.csv (``fig7_frictions``), whose mean frictions decide which (n, h) are stationary (``gate``) at
    thermostat mass ``eta``."""
    pe = {K: proj[f"K={K}"] for K in sorted(EADL_BASES)}
    f, noise = seed_noise(rows)
    main = _seed_means(rows, f, _pooled_sd(rows))
    g = gate(main, rows, st, fric, eta)

    def floor_why(drop: float | None = None) -> str:
        """The shared clause on a lower floor; ``drop``: the relative drop the claim predicts (fig14#1's K = 3)."""
        return "; ".join(
            w for w in (mixture.scale_why(main, scale, FIG14, fig14_plan), floor_test(main, st, g, rows, drop)) if w
        )

    out = FIG14_CLAIMS.outcomes(main, pe, st, scale, floor_why, g)
    eta1 = ("at the printed eta_k = 1 (fig14_eta1.csv: h in {{0.001, 0.002, 0.005}}, no seed replicas; eta_k = 0.1 was "
            "chosen after those runs were seen to be metastable) the same rule gives {} (no (n, h) counted: none "
            "stationary; until 2026-11-29: {})")  # fmt: skip
    extra = {k: f"{noise}; {eta1.format(ETA1_VERDICTS[k], ETA1_OLD[k])}" for k in ("k3", "residual")}
    extra["k15"] = f"{noise}; {ETA1_RESULT}"
    out = [(c, o if (e := extra.get(k)) is None else replace(o, why="; ".join(w for w in (o.why, e) if w)))
           for k, (c, o) in zip(FIG14_CLAIMS, out)]  # fmt: skip
    # the printed eta_k = 1's outcome beside the reading judged (eta_k = 0.1), where a reader sees the numbers
    return [(c, replace(o, ours=f"{ETA1_OURS}; eta_k = 0.1: {o.ours}") if c is FIG14_CLAIMS["k15"] else o)
            for c, o in out]  # fmt: skip


# -- which (n, h) test a claim about K (the seventeenth audit, 2026-11-29) ----------------------------------------
FIG7_ID = "sekkat2023-fig7"  # its fig7.csv holds full-matrix AdL's mean friction, the sampler eAdL is at K = 0


def fig7_frictions(out_dir) -> list[dict]:
    """The full-matrix AdL rows of sekkat2023-fig7's committed fig7.csv under ``out_dir`` ([] without it): eAdL's
    K = 0, run there with fig14's chains and record (scale=paper) and a burn-in of 5 from xi_0 = gamma."""
    from ...rundir import read_csv

    path = Path(out_dir) / FIG7_ID / "fig7.csv"
    return [r for r in read_csv(path) if r["scheme"] == "adl_full"] if path.is_file() else []


def mean_friction(fric, n: int, h: float) -> float | None:
    """A at (n, h): fig7's mean friction tr(xi)/d of full-matrix AdL at the same n, linear in h between fig7's h
    (exact at fig7's own h); None outside them. A mean over a record in which the friction still rises from gamma
    is a lower bound."""
    import numpy as np

    pts = sorted((r["h"], r["friction_mean"]) for r in fric if r["n"] == n)
    if not pts or not pts[0][0] <= h <= pts[-1][0]:
        return None
    return float(np.interp(h, [p[0] for p in pts], [p[1] for p in pts]))


@dataclass
class Gate:
    """Which (n, h) count for the claims about K: ``closed[(n, h)]`` why one does not (absent: it counts); ``text``
    what each (n, h) showed; ``cost`` what a test at the (n, h) not shown stationary takes."""

    closed: dict
    text: str
    cost: str


def mode_z(r0) -> float:
    """AdL's mass of theta_1 > 0.7 against the exact one in binomial s.e. sqrt(p (1 - p) / chains) (every seed's
    chains): the chains do not cross between the modes within these records (a burn-in of 5 or 30 time units
    with the same seeds gave the same masses within 0.006), so the split the start-up left stays."""
    p = r0["exact_mass_gt_0.7"]
    return (r0["mass_theta1_gt_0.7"] - p) / math.sqrt(p * (1 - p) / r0.get("chains_seeds", r0["chains"]))


def _cell(r0, burn: float, a: float | None, eta: float) -> tuple[list[str], str]:
    """(why not counted, what it showed) of one (n, h): its AdL row ``r0``, burn-in and A (``mean_friction``)."""
    need = None if a is None else 3 * a * eta
    zm = mode_z(r0)
    why = (([] if resolved(r0) else ["no drop measurable"])
           + ([] if need is not None and burn >= need else ["not shown stationary"])
           + ([] if abs(zm) <= 2 else ["mode weights off"]))  # fmt: skip
    z0 = (r0["l1"] - r0["l1_noise_floor"]) / r0["l1_se"]
    relax = "no fig7 friction at this (n, h)" if need is None else f"3 A eta = {need:.1f} (A = {a:.1f})"
    return why, (f"({r0['n']}, {r0['h']:g}): AdL's error {z0:+.1f} s.e. above its floor, burn-in {burn:g} vs {relax}, "
                 f"mode weight {zm:+.1f} s.e. from the exact: "
                 + ("counted" if not why else "not counted, " + " and ".join(why)))  # fmt: skip


def gate(main, rows, st, fric, eta: float = ETA_MIXTURE) -> Gate:
    """The (n, h) that count: (a) AdL's (K = 0) error above its floor by more than 2 s.e. (``resolved``), else no
    drop in K can be measured; (b) the burn-in past 3 A eta (sekkat2023-fig13's criterion), A = ``mean_friction``,
    else the friction (and the mode weights it heats) has not relaxed; (c) AdL's mode weight within 2 binomial s.e.
    of the exact (``mode_z``), else its error is the start-up's split between the modes, which these records do not
    mix and no friction basis corrects. ``main``: the rows judged (``_seed_means``);
    ``rows``: every run, for the mode-weight correlation and the seconds."""
    closed, parts = {}, []
    for n, h in _cases(st):
        why, text = _cell(_at(main, 0, n, h), st["burn"], mean_friction(fric, n, h), eta)
        parts.append(text)
        if why:
            closed[(n, h)] = " and ".join(why)
    src = "A from fig7.csv" if fric else "no fig7.csv to read A from"
    text = "; ".join(parts) + f" (eta = {eta:g}; {src}){_mode_corr(rows)}"
    return Gate(closed, text, "; ".join(c for c in (_test_cost(rows, st, closed, fric, eta),
                                                      _mixing_cost(rows, st, closed)) if c))  # fmt: skip


def _mode_corr(rows) -> str:
    """How closely the L1 errors of ``rows`` follow their mode-weight error 2 |mass of theta_1 > 0.7 - exact|."""
    import numpy as np

    dm = [2 * abs(r["mass_theta1_gt_0.7"] - r["exact_mass_gt_0.7"]) for r in rows]
    if len(rows) < 3 or np.std(dm) == 0 or np.std([r["l1"] for r in rows]) == 0:
        return ""
    corr = float(np.corrcoef(dm, [r["l1"] for r in rows])[0, 1])
    return (f"; correlation of the L1 error with the mode-weight error 2 |mass of theta_1 > 0.7 - exact| over all "
            f"{len(rows)} runs: {corr:.2f}")  # fmt: skip


def _test_cost(rows, st, closed, fric, eta) -> str:
    """A burn-in past 3 A eta at the (n, h) not shown stationary: their runs (every K and seed) again at
    (3 A eta + record) / (burn-in + record) of their committed seconds."""
    need = {c: 3 * a * eta for c, why in closed.items() if "stationary" in why and (a := mean_friction(fric, *c))}
    if not need:
        return ""
    runs = [r for r in rows if (r["n"], r["h"]) in need]
    now = sum(r.get("seconds", 0.0) for r in runs)
    then = sum(r.get("seconds", 0.0) * (need[r["n"], r["h"]] + st["time"]) / (st["burn"] + st["time"]) for r in runs)
    return ("a test needs a burn-in past 3 A eta where not stationary ("
            + ", ".join(f"({n}, {h:g}): {v:.1f}" for (n, h), v in need.items())
            + f" time units instead of {st['burn']:g}): their {len(runs)} runs again, about {then:.0f} CPU-s (their "
            f"seconds in fig14.csv, {now:.0f}, each x (3 A eta + {st['time']:g}) / ({st['burn']:g} + {st['time']:g})); "
            "A is a lower bound where the friction still rises, so the burn-in needed may be longer, and whether the "
            "mode weights then settle is not measured")  # fmt: skip


def pooled_mass(main, n: int, h: float) -> tuple[float, float, int]:
    """(mass, exact mass, chains) of theta_1 > 0.7 at (n, h) pooled over every K (and seed): the chains' mean mass."""
    sel = [r for r in main if (r["n"], r["h"]) == (n, h)]
    chains = [r.get("chains_seeds", r["chains"]) for r in sel]
    mass = sum(r["mass_theta1_gt_0.7"] * c for r, c in zip(sel, chains)) / sum(chains)
    return mass, sel[0]["exact_mass_gt_0.7"], sum(chains)


def pooled_mode_z(main, n: int, h: float) -> tuple[float, int]:
    """(z, chains) of the mass of theta_1 > 0.7 at (n, h) pooled over every K (and seed): the chains' mean mass
    against the exact in binomial s.e. sqrt(p (1 - p) / chains), as ``mode_z`` for one K."""
    mass, p, chains = pooled_mass(main, n, h)
    return (mass - p) / math.sqrt(p * (1 - p) / chains), chains


def floor_test(main, st, g: Gate, rows=(), drop: float | None = None) -> str:
    """Why the test of a lower noise floor (``mixture.scale_why``: FLOOR_CUT^2 x the chains) would likely leave the
    claims about K untested where gate (c) would close the (n, h), and what the files leave open elsewhere. With the
    chains, (c)'s binomial s.e. falls FLOOR_CUT x: where the mode weights pooled over K are already off beyond 2 s.e.
    (c) would close the (n, h). Where they are within 2 s.e. (the thirty-first audit) the files do not decide: a
    shift that persisted would sit at (mass - exact) / s.e. of one run with FLOOR_CUT^2 x its chains, and (c) would
    close those too; the start's sampling noise (the chains keep the split they start with) would fall with the
    chains, and (c) pass; AdL's error there bounds its bias only by L1 + 2 s.e. (E L1 >= the bias, by Jensen),
    set beside the least bias FLOOR_CUT^2 x the chains would resolve, (floor + 2 s.e.) / FLOOR_CUT; ``rows`` (every
    run) price those (n, h)'s runs; ``drop``: where the claim predicts a drop of that fraction of the bias (fig14#1:
    the projection error's, K = 0 -> 3), whether that test could resolve it (``_drop_resolvable``). A longer record
    does not lower the split between the modes. '' where every (n, h) counts."""
    shut = [c for c in _cases(st) if c in g.closed]
    if not shut:
        return ""
    z = {c: pooled_mode_z(main, *c) for c in shut}
    off = [c for c in shut if abs(z[c][0]) > 2]
    near = [c for c in shut if c not in off]
    k = mixture.FLOOR_CUT
    parts = [f"with {k * k}x the chains gate (c)'s binomial s.e. falls {k}x too"]
    if off:
        parts.append("that test would likely leave the claim untested where the mode weights are already off beyond "
                     "noise pooled over K: " + ", ".join(f"({n}, {h:g}): {z[n, h][0]:+.1f} s.e. over {z[n, h][1]} "
                                                          "chains" for n, h in off)
                     + ", so (c) would likely close them")  # fmt: skip
    if near:
        parts.append(_near_cells(main, st, near, z, rows, drop))
    parts.append(
        "a longer record does not lower the split between the modes (the chains do not cross): the test "
        "that binds where they are off is a record in which they cross, whose length is not measured, hence 'scale'"
    )
    return "; ".join(parts)


def _near_cells(main, st, near, z, rows, drop: float | None = None) -> str:
    """``floor_test``'s clause on the (n, h) whose pooled mode weights are within 2 s.e.: what the files leave open;
    with ``drop``, what the claim's predicted drop leaves (``_drop_resolvable``)."""
    k = mixture.FLOOR_CUT
    text, shifted, bounds = [], [], []
    for n, h in near:
        mass, p, _ = pooled_mass(main, n, h)
        r0 = _at(main, 0, n, h)
        more = k * k * r0.get("chains_seeds", r0["chains"])
        se = math.sqrt(p * (1 - p) / more)
        text.append(f"({n}, {h:g}): {z[n, h][0]:+.1f}, mass {mass:.4f} against the exact {p:.4f} ({mass - p:+.4f})")
        shifted.append(f"{(mass - p) / se:+.1f}")
        bounds.append((r0["l1"] - r0["l1_noise_floor"], r0["l1_se"], r0["l1"] + 2 * r0["l1_se"],
                       (r0["l1_noise_floor"] + 2 * r0["l1_se"]) / k))  # fmt: skip
    runs = [r for r in rows if (r["n"], r["h"]) in set(near)]
    secs = sum(r.get("seconds", 0.0) for r in runs)
    verdict, never = _drop_resolvable(main, near, bounds, drop)
    cost = (f"; those (n, h)'s {len(runs)} runs (every K) with {k * k}x the chains: about {secs * k * k / 3600:.1f} "
            f"CPU-hours (their {secs:.0f} CPU-s in fig14.csv x {k * k}), not queued, as a test that "
            f"{'would' if never else 'may'} leave the claim unresolved ('not run' names a test that resolves it)"
            if secs > 0 else "")  # fmt: skip
    return (
        "where the mode weights pooled over K are within 2 s.e. (" + "; ".join(text) + ") the files do not decide: "
        f"a shift that persisted would sit at {' / '.join(shifted)} s.e. of AdL's run with {k * k}x its chains, and "
        f"(c) would close those (n, h) too; the start's sampling noise (a chain keeps the split it starts "
        f"with) would fall {k}x with the chains instead, and (c) pass (AdL's runs alone: "
        + ", ".join(f"{mode_z(_at(main, 0, n, h)):+.1f}" for n, h in near)
        + " s.e.); AdL's error there stands "
        + ", ".join(f"{e:.3f} ± {se:.3f}" for e, se, _, _ in bounds)
        + " above its floor, which bounds its bias "
        "only by L1 + 2 s.e. (E L1 >= the bias): "
        + ", ".join(f"{u:.3f}" for *_, u, _ in bounds)
        + f", while {k * k}x the chains would resolve one from about "
        + ", ".join(f"{t:.3f}" for *_, t in bounds)
        + " ((floor + 2 s.e.) / "
        + f"{k}): {verdict}"
        + cost
    )


def _drop_resolvable(main, near, bounds, drop: float | None) -> tuple[str, bool]:
    """(what the clause says of the test with FLOOR_CUT^2 x the chains, whether it says that test would not resolve
    the claim). Without ``drop``: not known. With it (fig14#1, the thirty-second audit): a bias at most L1 + 2 s.e.
    at K = 0 that fell by the fraction ``drop`` drops by at most that much, against 2 s.e. of the K = 3 - K = 0
    difference with FLOOR_CUT^2 x the chains (2 hypot(s.e.) / FLOOR_CUT); below it at every (n, h): that test would
    not resolve the claim."""
    if drop is None:
        return "whether that test resolves the claim there is not known", False
    k = mixture.FLOOR_CUT
    most = [u * drop for *_, u, _ in bounds]
    two = [2 * math.hypot(_at(main, 0, *c)["l1_se"], _at(main, 3, *c)["l1_se"]) / k for c in near]
    never = all(m < t for m, t in zip(most, two))
    return (f"if the bias fell as the projection error does (§4.4), by {drop:.1%} from K = 0 to 3, a bias of at most "
            + ", ".join(f"{u:.3f}" for *_, u, _ in bounds) + " drops by at most " + ", ".join(f"{m:.4f}" for m in most)
            + f", {'below' if never else 'against'} the " + ", ".join(f"{t:.4f}" for t in two)
            + f" that 2 s.e. of the K = 3 - K = 0 difference reach with {k * k}x the chains (2 hypot(s.e.) / {k}): "
            + ("that test would not resolve this claim there (since 2026-11-29, the thirty-second audit: until then "
               "'whether that test resolves the claim there is not known')" if never
               else "whether that test resolves the claim there is not known"), never)  # fmt: skip


def _mixing_cost(rows, st, closed) -> str:
    """Where the mode weights are off: records long enough for the chains to cross between the modes, a time these
    runs do not measure; priced per 10x of the record for the runs (every K and seed) at those (n, h)."""
    cells = [c for c, why in closed.items() if "mode weights" in why]
    if not cells:
        return ""
    runs = [r for r in rows if (r["n"], r["h"]) in cells]
    secs = sum(r.get("seconds", 0.0) for r in runs)
    return (f"where the mode weights are off ({', '.join(f'({n}, {h:g})' for n, h in cells)}) a test needs records in "
            "which the chains cross between the modes, a time these runs do not measure (no mass moved by more than "
            f"0.006 when the burn-in went from 5 to 30 time units): the cost grows with the recorded time, for their "
            f"{len(runs)} runs {record_cost(secs, st['burn'], st['time'], (10, 100, 1000))} (their {secs:.0f} CPU-s "
            f"in fig14.csv, {st['time']:g} of whose {st['burn'] + st['time']:g} time units are recorded); how long a "
            "record the crossings need is not measured, so this is a lower bound")  # fmt: skip


def _gated(zs: dict, g: Gate, ours: str, why: str, untested: str, agree_below: float = -2.0,
           scope: str = "every (n, h)") -> Outcome:  # fmt: skip
    """``by_bound`` over the (n, h) of ``zs`` that ``g`` counts (not tested: scale where none does); the reason
    gives what each (n, h) showed and what counting every one of ``zs`` gave (the rule until 2026-11-29)."""
    old = by_bound(list(zs.values()), ours, why, untested, agree_below).verdict
    note = f"{g.text}; until 2026-11-29 (the seventeenth audit) {scope} was counted, which gave {old}"
    counted = [z for c, z in zs.items() if c not in g.closed]
    if not counted:
        return not_tested("scale", ours, "; ".join(w for w in (why, "no (n, h) counted", note, g.cost, untested) if w))
    return by_bound(counted, ours, f"{why}; {note}", untested, agree_below)


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
                    "seconds_seeds": sum(r.get("seconds", 0.0) for r in g),
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


# which (n, h) the claims about K count (``gate``), and the tiers of ``_gated``
GATE = ("an (n, h) counts only where (a) AdL's (K = 0) error exceeds its floor by more than 2 s.e. (else no drop "
        "in K can be measured) and (b) the burn-in passes 3 A eta, the stationarity criterion of sekkat2023-fig12/fig13, "
        "A the mean friction tr(xi)/d of full-matrix AdL (eAdL at K = 0) at that (n, h) in sekkat2023-fig7's fig7.csv "
        "(the same chains and record, burn-in 5; linear in h between its h; a lower bound while the friction still "
        "rises; the K > 0 frictions are not recorded) and (c) AdL's mass of theta_1 > 0.7 is within 2 binomial s.e. of "
        "the exact (else its error is the start-up's split between the modes, which these records do not mix: "
        "since 2026-11-29, the twenty-second audit, which found (5, 0.01) counted on frozen mode weights and gave "
        "not reproduced for the K = 15 and residual claims, not tested for the K = 3 one); reproduced: at each "
        "counted (n, h); partly: at some (even if "
        "others go the other way beyond 2 s.e.); not reproduced: at none, the other way beyond 2 s.e. at some; not "
        "tested: no (n, h) counted, or none resolved either way (the (a) and (b) gate since 2026-11-29, the "
        "seventeenth audit, after the results were seen: the one (n, h) the other way, (5, 0.01), had a friction far "
        "from stationary and an error that follows the mode weight; until then {} was counted, and what that gave is "
        "in the reason; at scale=paper a burn-in of 30 time units since 2026-11-29, the twenty-first audit, 5 until "
        "then, which passed (b) at (15, 0.005) only, where (a) failed: no (n, h) counted, not tested)")  # fmt: skip
SEEDS = ("s.e. = bootstrap s.e. over chains widened by the measured seed-to-seed noise, and at the (n, h) with seed "
         "replicas the mean over its seeds with s.e. = the seed sd pooled over the replicated settings (9 dof) / "
         "sqrt(seeds) (until 2026-11-29 replica 0 alone there, which gave not tested; the numbers shown are the seed "
         "means)")  # fmt: skip
LOWER = "where AdL's (K = 0) error is at its noise floor a test needs a lower floor: "
ETA_NOTE = ("judged at eta_k = 0.1 (the paper prints 1; eta_k = 0.1 was chosen after the eta_k = 1 runs were seen to be "
            "metastable; what 1 gives is in the reason)")  # fmt: skip


@FIG14_CLAIMS.rule("k3", "the bias drops already at K = 3 (vs AdL, K = 0)", "§4.4, Fig. 14 (vs Fig. 7)", "drops",
    tolerance=f"L1 at K = 3 below that at K = 0 by more than 2 s.e., at each counted (n, h); {GATE.format('every (n, h)')}; "
              f"{SEEDS}; {ETA_NOTE}",
    method="independent runs, bootstrap s.e. over chains")  # fmt: skip
def _k3(rows, pe, st, scale, floor_why, g):
    return _gated({c: bound_z(_at(rows, 0, *c), _at(rows, 3, *c)) for c in _cases(st)}, g, _change(rows, st, 0, 3),
                  f"projection error K = 0 -> 3: {pe[0]:.3f} -> {pe[3]:.3f} ({1 - pe[3] / pe[0]:.0%} lower on our "
                  "data set)", f"no change beyond 2 s.e.; {_k3_cost(rows, pe, st, g)}{LOWER}{floor_why(1 - pe[3] / pe[0])}")  # fmt: skip


def _k3_cost(rows, pe, st, g) -> str:
    """What resolving the drop at K = 3 takes at the counted (n, h) if the bias fell as the projection error does
    (§4.4 ties one to the other): AdL's excess over its floor x the projection error's relative drop, resolved at
    2 s.e. of the difference; the s.e. falls as 1/sqrt(chains), so the runs' seconds scale by (2 s.e. / drop)^2."""
    parts = []
    for c in (c for c in _cases(st) if c not in g.closed):
        a, b = _at(rows, 0, *c), _at(rows, 3, *c)
        drop = (a["l1"] - a["l1_noise_floor"]) * (1 - pe[3] / pe[0])
        se = math.hypot(a["l1_se"], b["l1_se"])
        times = (2 * se / drop) ** 2
        secs = sum(r.get("seconds_seeds", r.get("seconds", 0.0)) for r in (a, b))
        parts.append(f"at {c}: a drop of {drop:.4f} (AdL's excess {a['l1'] - a['l1_noise_floor']:.3f} x "
                     f"{1 - pe[3] / pe[0]:.1%}) against an s.e. of the difference of {se:.3f}: {times:,.0f}x the "
                     f"chains of its K = 0 and 3 runs, about {times * secs / 3600:,.0f} CPU-hours (their "
                     f"{secs:.0f} CPU-s)")  # fmt: skip
    if not parts:
        return ""
    return (
        "if the bias fell as the projection error does (§4.4), the drop to resolve is that small: "
        + "; ".join(parts)
        + "; "
    )


@FIG14_CLAIMS.rule("k15", "the bias drops dramatically at K = 15, as the projection error does (Fig. 15)",
    "§4.4, Figs. 14-15", "dramatic drop",
    tolerance="L1 at K = 15 below 0.7x that at K = 3 (our lenient reading of 'dramatic': a 30% drop; the projection "
              f"error's drop is in the reason) by more than 2 s.e., at each counted (n, h); {GATE.format('every (n, h)')}; "
              f"{SEEDS}; {ETA_NOTE}",
    method="independent runs, bootstrap s.e. over chains; at scale=paper 30 + 20 time units per chain (the paper's one "
           "trajectory: T = 10^6)")  # fmt: skip
def _k15(rows, pe, st, scale, floor_why, g):
    z = {c: bound_z(_at(rows, 3, *c), _at(rows, 15, *c), 0.7) for c in _cases(st)}
    return _gated(z, g, _change(rows, st, 3, 15),
                  f"projection error K = 3 -> 15: {pe[3]:.3f} -> {pe[15]:.3f}; z of L1(K=15) - 0.7 L1(K=3) at (n, h) = "
                  + ", ".join(f"({n}, {h:g}): {v:.1f}" for (n, h), v in z.items()), LOWER + floor_why())  # fmt: skip


RESIDUAL_SCOPE = "every (n, h) with (a)"


@FIG14_CLAIMS.rule("residual", "a small bias remains for K >= 15 (probably mostly the time-step error)",
    "§4.4, Fig. 14", "small",
    tolerance="L1 - floor at K = 15 and 35 at most half of L1 - floor at K = 0 (AdL), within 2 s.e. (a case fails "
              "only when the larger K >= 15 excess is above half the K = 0 one by more than 2 s.e.), at each counted "
              f"(n, h); {GATE.format(RESIDUAL_SCOPE)}; s.e. widened by the measured seed-to-seed noise; at the (n, h) with seed "
              "replicas the seeds' mean, s.e. = the pooled seed sd / sqrt(seeds), replica 0 alone until 2026-11-29, "
              "which gave not tested; judged at eta_k = 0.1; 'remains' (a K >= 15 excess above its floor beyond "
              "2 s.e.) is not judged, only 'small' (the excesses are in ours), nor the attribution to the time step "
              "(since 2026-11-29, the thirtieth audit: until then the method column held that caveat)",
    method="independent runs, bootstrap s.e. over chains; L1 - floor: the excess over the histogram-noise floor")  # fmt: skip
def _residual(rows, pe, st, scale, floor_why, g):
    res = [(n, h) for n, h in _cases(st) if resolved(_at(rows, 0, n, h))]
    z = {c: max(bound_z(_at(rows, 0, *c), _at(rows, K, *c), 0.5, excess=True) for K in (15, 35)) for c in res}
    ours = "L1 - floor: " + "; ".join(f"n={n} h={h:g}: " + ", ".join(_excess(rows, K, n, h) for K in (0, 15, 35))
                                      + (f" (z = {z[n, h]:.1f})" if (n, h) in z else " (K = 0 within 2 s.e. of its floor)")
                                      for n, h in _cases(st))  # fmt: skip
    mass = "; ".join(f"n={n} h={h:g}: " + ", ".join(f"K={K} {_at(rows, K, n, h)['mass_theta1_gt_0.7']:.3f}"
                                            for K in sorted(EADL_BASES)) for n, h in _cases(st))  # fmt: skip
    return _gated(z, g, ours, f"where not small the error is a mode-weight error: mass of theta_1 > 0.7 {mass} (exact "
                  f"{rows[0]['exact_mass_gt_0.7']:.3f}); a non-zero residual ('remains') is not tested: it needs the "
                  "K >= 15 excess resolved above its floor at a counted (n, h); the time-step attribution is not tested"
                  f"{_left_out(rows)}",
                  LOWER + floor_why(), agree_below=2.0, scope=RESIDUAL_SCOPE)  # fmt: skip


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
def _monotone(rows, pe, st, scale, floor_why, g):
    return check(all(b <= a + 1e-12 for a, b in itertools.pairwise(pe.values())),
                 ", ".join(f"K={k}: {v:.3f}" for k, v in pe.items()))  # fmt: skip


FIGURE = register_figure(Figure(
    ID, TITLE, "sekkat2023 Figs. 14-15: eAdL L1 error and projection error vs K (mixture)", FIG14,
    rows=_measure, tables=lambda m: {"fig14.csv": m.rows}, plot=_plot, png="fig14.png",
    outcomes=lambda m, inv: fig14_outcomes(m.rows, m.proj, inv.st, inv.scale, fig7_frictions(inv.out_dir)),
    settings=_settings, notes=_notes,
    options=(JOBS,), heading=HEADING))  # fmt: skip
