"""`bnnsample figure paulin2025-fig1`: W1 bias of 9 samplers on the 1-D two-batch Gaussian (paulin2025 §3.4,
Fig. 1).

Target U = U_1 + U_2, U_i(x) = (x - mu_i)^2 / (2 s_i^2), mu = (-1, 1), s = (0.5, 2) (dataset
``two_batch_gaussian``), posterior N(-15/17, 1/4.25); two batches of one point, force scale N/n = 2.
Samplers: {SMS, SG, SG without replacement} x {UBU, BAOAB, EM}, the presets of ``SAMPLERS`` (integrator x
schedule, nothing re-implemented here), at h = 2^-(k+2), k = 0..3. The paper prints no number: the
references are the saved output of the authors' notebook (``NOTEBOOK``, ``PAPER_W1``).

The protocol (the notebook's: chains from x = 0, burn-in, pooled records, W1 = the integral of |F_n - Phi|
against the exact posterior) is the section's settings text (``_settings_text``), the Monte Carlo floor of W1
its notes (``_notes``). Next to each cell stand the exact moments of its recorded law (``analysis.stationary``
on affine maps probed off the same integrator), which the Monte Carlo moments must match; a spectral radius
>= 1 of the second-moment recursion proves divergence.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from ...figures.claims import Claims, by_count, by_resolved, check, not_reproduced, not_tested, partly, reproduced
from ...figures.driver import SCALE, Figure, Invocation, Option, integer, labelled, number, register_figure
from ...plotting import pyplot, save_figure
from .two_batch import GAMMA_TWO_BATCH, NOISE_FLOORS, STEPS, Cell, noise_floor, run_cell

FIG_ID = "paulin2025-fig1"
TITLE = ": W1 bias of 9 samplers on the two-batch Gaussian (paulin2025 Fig. 1, §3.4)"
DATASET = "two_batch_gaussian"
# The authors' BAOAB_hconst uses eta = exp(-gamma h / 2) in the O step (NOTEBOOK), i.e. the
# textbook BAOAB (ours) with friction gamma / 2: the BAOAB rows run at this friction to reproduce
# their numbers (option baoab_friction=1 runs the textbook scheme at the paper's gamma = 1).
BAOAB_FRICTION = 0.5
NOTEBOOK = "bias_test_wass.ipynb (the authors' repository github.com/paulindani/SMS_Kinetic_Langevin)"

# (label, preset); the preset fixes the integrator and the schedule
SAMPLERS = (
    ("SMS-UBU", "sms_ubu"), ("SG-UBU", "sg_ubu"), ("SG-UBU wor", "sg_ubu_wor"),
    ("SMS-BAOAB", "sms_baoab"), ("SG-BAOAB", "sg_baoab"), ("SG-BAOAB wor", "sg_baoab_wor"),
    ("SMS-EM", "sms_em"), ("SG-EM", "sg_em"), ("SG-EM wor", "sg_em_wor"),
)  # fmt: skip

# the authors' notebook (NOTEBOOK): its saved W1 (rows h, as in STEPS); None = diverged (nan). h = 0.25 ... 0.0625:
# the saved Wass_arr tensor, to 4 decimals (cell 71); h = 0.03125: the same cell's (70) saved stdout, to 8 decimals
# (its last loop pass; the tensor rounds them to 0.0005 ... 0.0289). The paper's Fig. 1 plots these values and
# prints no number: for this project they are derived values
PAPER_W1 = {
    "SMS-UBU": (0.0412, 0.0071, 0.0021, 0.00052296),
    "SG-UBU": (0.1147, 0.0483, 0.0231, 0.01132481),
    "SG-UBU wor": (0.0273, 0.0060, 0.0017, 0.00047957),
    "SMS-BAOAB": (0.0408, 0.0071, 0.0018, 0.00063052),
    "SG-BAOAB": (0.4789, 0.1226, 0.0514, 0.02402091),
    "SG-BAOAB wor": (0.0879, 0.0086, 0.0016, 0.00049352),
    "SMS-EM": (None, 0.1826, 0.0652, 0.02882943),
    "SG-EM": (None, 0.3648, 0.1025, 0.04265445),
    "SG-EM wor": (None, 0.1903, 0.0659, 0.02885849),
}
# the notebook's SMS-BAOAB used the fixed batch order 0,1,1,0 (it never applies its random permutation). The
# reference at h = 0.25 is derived for this project with that order: the exact W1 to the posterior of the stationary
# recorded law of our BAOAB (friction BAOAB_FRICTION) under the periodic order 0,1,1,0 (``notebook_order_w1``: phase
# laws from probed affine maps and ``analysis.stationary.cycle_moments``, records alternating sweep end and
# mid-sweep, W1 of the two-Gaussian mixture by quadrature); the run recomputes it (CSV column derived_w1)
DERIVED_SMS_BAOAB_025 = 0.04090
# the h = 0.25 reference until 2026-11-26 (commit 0abd184), changed after the result was seen: a randomised-order
# re-run that no script of this project produced (``_old_reference``: what the rule gives with it)
OLD_SMS_BAOAB_025 = 0.1646
# §3.4: bias O(h^2) for SMS and without-replacement UBU/BAOAB, O(h) for the others; slope of
# log W1 on log h over the three smallest steps (the tolerances are this project's)
EXPECTED_SLOPE = {"SMS-UBU": (2, 0.4), "SG-UBU wor": (2, 0.4), "SG-BAOAB wor": (2, 0.4), "SMS-BAOAB": (2, 0.4),
                  "SG-UBU": (1, 0.3), "SG-BAOAB": (1, 0.3), "SMS-EM": (1, 0.3), "SG-EM": (1, 0.3),
                  "SG-EM wor": (1, 0.3)}  # fmt: skip
# the notebook's runs of a sampler whose scheme differs from ours (its slope is quoted beside ours)
NOTEBOOK_SCHEME = {
    "SMS-BAOAB": " (its SMS-BAOAB keeps the fixed batch order 0,1,1,0; ours randomises the order per "
    "sweep, the paper's SMS scheme)"
}
# derived for this project (exact stationary moments, not in the paper): (|dmean|, |dvar|) per h; SMS records at
# sweep ends and mid-sweeps, wor at epoch ends; SG-UBU's mean is exact
DERIVED_EXACT = {
    "SG-UBU": ((0.0, 2.15e-1), (0.0, 7.59e-2), (0.0, 3.38e-2), (0.0, 1.61e-2)),
    "SG-UBU wor": ((2.10e-2, 2.26e-2), (5.95e-3, 1.65e-3), (1.56e-3, 1.28e-3), (3.99e-4, 4.30e-4)),
    "SMS-UBU": ((2.56e-2, 4.55e-2), (6.57e-3, 4.75e-3), (1.63e-3, 1.98e-3), (4.06e-4, 5.33e-4)),
}
W1_TOL = 0.10  # relative agreement with the notebook's value (this project's tolerance)
# the band adds our own Monte Carlo noise: at h = 0.03125 one s.e. (7.3e-5) is 15% of the notebook's 0.00048, so
# the 10% alone would be missed by a sampler whose true W1 equals the notebook's about half the time (the
# twenty-second audit, 2026-11-29: until then W1_TOL alone, a miss within 2 s.e. unresolved, ``_w1_old``)
W1_NOISE_SE = 2.0
# until 2026-11-29 the h = 0.03125 references were the tensor's 4 decimals, and a value of one significant digit
# (0.0005, 0.0006) was judged by its rounding interval widened by 2 s.e.; the notebook's stdout has them to 8
# decimals (the sixth audit), so every value is judged by W1_TOL, and the rows say what the old rule gave
OLD_ROUNDED = {"SMS-UBU": 0.0005, "SG-UBU wor": 0.0005, "SMS-BAOAB": 0.0006, "SG-BAOAB wor": 0.0005}
W1_ROUNDING = 0.5e-4
# what resolves the cells and slopes below 3 floors at scale=quick: the floors of scale=paper at h = 0.0625 and
# 0.03125 were measured (noise_floor, seed 0: 14.5 and 27.2 CPU-s); its CPU time is estimated from the quick run's
# 66 CPU-s (12x the chain-epochs) and the W1 of 2e7 records per cell (about 12 CPU-s each)
SCALE_WHY = (
    "scale=paper (20,000 chains x 1,000 records, thinning 1/3/7/15 epochs) lowers the floors at h = 0.0625 "
    "and 0.03125 to 0.00015 and 0.000084 (measured), below a third of the notebook's W1 values there; "
    "about 15 CPU-min"
)


def _paper_text(v: float) -> str:
    """A notebook value as printed here: 4 decimals, or 3 significant digits below 0.001."""
    return f"{v:.4f}" if v >= 1e-3 else f"{v:.3g}"


def _w1_paper(label: str) -> str:
    """The notebook's W1 of ``label`` per h ("div.": diverged; SMS-BAOAB at h = 0.25: the derived value ‡)."""
    values = ["div." if v is None else _paper_text(v) for v in PAPER_W1[label]]
    if label == "SMS-BAOAB":
        values[0] = f"{DERIVED_SMS_BAOAB_025:.4f}‡ (notebook {PAPER_W1[label][0]})"
    return " / ".join(values)


def _w1_tolerance(label: str) -> str:
    rule = (f"each h: |ours - the notebook's value{' (or the derived ‡)' if label == 'SMS-BAOAB' else ''}| within "
            f"{W1_TOL:.0%} of that value (relative, this project's) + {W1_NOISE_SE:g} MC s.e. of ours (our run-to-run "
            "noise, measured: the delta-method s.e. over the chains); both diverged also agrees; outside it: a "
            "disagreement, unresolved where ours is below the noise floors; reproduced: every h agrees; partly: some "
            "do; not reproduced: none does (until 2026-11-29, the twenty-second audit, the band was the ±10% alone, "
            "narrower than one MC s.e. at h = 0.03125, and a miss within 2 s.e. was unresolved; changed after the "
            "result was seen; the reason says what that rule gave where it differs)")  # fmt: skip
    if label in OLD_ROUNDED:
        rule += (f" (until 2026-11-29 the h = 0.03125 reference was the rounded {OLD_ROUNDED[label]}, judged by its "
                 f"rounding interval ±{W1_ROUNDING:g} widened by 2 MC s.e.)")  # fmt: skip
    if label == "SMS-BAOAB":
        rule += (f" (until 2026-11-26 the h = 0.25 reference was {OLD_SMS_BAOAB_025}, a randomised-order re-run; "
                 "changed after the result was seen; the reason says what it gives)")  # fmt: skip
    return rule


def _w1_method(label: str) -> str:
    method = (f"the values are the saved output of the authors' notebook {NOTEBOOK} (the data plotted in Fig. 1; the "
              "paper prints no number): its Wass_arr tensor to 4 decimals, and at h = 0.03125 the same cell's stdout "
              "to 8; ours: exact W1 of the pooled records ± delta-method s.e. over chains")  # fmt: skip
    if label == "SMS-BAOAB":
        method += (
            "; ‡ h = 0.25, derived for this project: the exact W1 to the posterior of the stationary recorded law of "
            "BAOAB (friction 0.5) with the authors' fixed batch order 0,1,1,0 (per-batch affine maps probed off our "
            "integrator, stationary phase laws by `analysis.stationary.cycle_moments`, records alternating sweep "
            "end and mid-sweep: a mixture of two Gaussians, W1 by quadrature); the notebook prints 0.0408 (same "
            "fixed order); our SMS-BAOAB randomises the order per sweep (the paper's SMS scheme)"
        )
    return method


# the claims of the samplers a run has (option samplers): the rules of the others file no row
CLAIMS = Claims("statement")
LABELS = tuple(label for label, _ in SAMPLERS)


SCALES = {
    # chains, records per chain, thin in epochs for k = 0..3 (odd), burn-in epochs 50 * 2^k
    "quick": {"chains": 10_000, "records": 300, "thin": (1, 1, 3, 7)},
    "paper": {"chains": 20_000, "records": 1_000, "thin": (1, 3, 7, 15)},
}
OPTIONS = (Option("seed", integer(0), 0), Option("chains", integer(2), SCALE), Option("records", integer(2), SCALE),
           Option("samplers", labelled(SAMPLERS), list(SAMPLERS)), Option("baoab_friction", number(), BAOAB_FRICTION))  # fmt: skip


# -- this figure ---------------------------------------------------------------------------------


def _reference(c: Cell):
    """(reference W1, derived?) of a cell: the notebook's value, except SMS-BAOAB at h = 0.25, whose
    reference is the derived exact W1 with the authors' fixed order (the run's, else the constant)."""
    k = STEPS.index(c.h)
    if c.label == "SMS-BAOAB" and k == 0:
        return (c.derived_w1 if math.isfinite(c.derived_w1) else DERIVED_SMS_BAOAB_025), True
    return PAPER_W1[c.label][k], False


def _exact_slopes(cells: list[Cell]) -> tuple[str, str]:
    """Slopes of the exact |mean bias| and |variance bias| over the three smallest h ("exact" below 1e-12). A
    bias that changes sign over them has no order there (its |.| passes through 0): "sign change" with the
    h where it changes and, where the two smallest h share a sign, the local slope between them."""
    from ...stats import fit_loglog

    cs = sorted(cells, key=lambda c: c.h)[:3]
    mean, var = PAULIN_POSTERIOR
    out = []
    for key, ref in (("mean", mean), ("var", var)):
        b = [c.exact[key] - ref for c in cs]
        if max(map(abs, b)) < 1e-12:
            out.append("exact")
            continue
        flips = [f"{cs[i + 1].h:g} and {cs[i].h:g}" for i in range(len(cs) - 1) if b[i] * b[i + 1] < 0]
        if flips:
            local = (f"; local slope {math.log2(b[1] / b[0]):.2f} between h = {cs[1].h:g} and {cs[0].h:g}"
                     if len(b) > 1 and b[0] * b[1] > 0 else "")  # fmt: skip
            out.append(f"n/a (the signed bias changes sign between h = {', '.join(flips)}: no order{local})")
            continue
        fit = fit_loglog([c.h for c in cs], [abs(x) for x in b])
        out.append("n/a" if fit is None else f"{fit.slope:.2f}")
    return out[0], out[1]


CSV_FIELDS = ("sampler", "preset", "h", "friction", "chains", "records", "thin_epochs", "burn_epochs", "w1", "w1_se",
              "w1_floor_exact_sampler", "w1_iid_draws", "noise_limited", "paper_w1", "derived_w1", "rel_dev", "diverged",
              "diverged_frac", "max_abs_x", "mc_mean", "mc_mean_se", "mc_var", "mc_var_se", "exact_mean", "exact_var",
              "exact_rho", "exact_cycle_steps", "mixed_in_burn_in", "z_mean", "z_var", "seconds")  # fmt: skip


def _row(c: Cell, k: int) -> list:
    pv = PAPER_W1[c.label][k]  # printed by the notebook only; computed references are in derived_w1
    rel = (c.w1 - pv) / pv if pv and math.isfinite(c.w1) else math.nan
    mc, ex = c.mc, c.exact
    z_m = (mc["mean"] - ex["mean"]) / mc["mean_se"] if mc else math.nan
    z_v = (mc["var"] - ex["var"]) / mc["var_se"] if mc else math.nan

    def f(x):
        return "" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.6g}"

    return [c.label, c.preset, c.h, c.gamma, c.chains, c.records, c.thin_epochs, c.burn_epochs, f(c.w1), f(c.w1_se),
            f(c.w1_floor), f(c.w1_iid), int(c.noise_limited), f(pv), f(c.derived_w1), f(rel), int(c.diverged), f(c.diverged_frac),
            f(c.max_abs), f(mc.get("mean")), f(mc.get("mean_se")), f(mc.get("var")), f(mc.get("var_se")),
            f(ex["mean"]), f(ex["var"]), f(ex["rho"]), ex["cycle"], int(c.mixed), f(z_m), f(z_v), f"{c.seconds:.1f}"]  # fmt: skip


def cells_from_rows(rows: list[dict]) -> dict[str, list[Cell]]:
    """The cells of a written w1.csv (``rundir.read_csv`` rows, values to 6 digits): what the W1 and slope rows
    are judged from without a rerun. The chains' W1 influences are not written, so the 'best' row's paired s.e.
    (``_diff_se``) cannot be computed from them (best.csv holds them)."""

    def num(x) -> float:
        return math.nan if x == "" else float(x)

    cells: dict[str, list[Cell]] = {}
    for r in rows:
        mc = {k: num(r[f"mc_{k}"]) for k in ("mean", "mean_se", "var", "var_se")} if r["mc_mean"] != "" else {}
        exact = {"mean": num(r["exact_mean"]), "var": num(r["exact_var"]), "rho": num(r["exact_rho"]),
                 "cycle": int(r["exact_cycle_steps"]), "stable": not (r["diverged"] and not num(r["diverged_frac"]))}  # fmt: skip
        cells.setdefault(r["sampler"], []).append(Cell(
            r["sampler"], r["preset"], float(r["h"]), float(r["friction"]), int(r["chains"]), int(r["records"]),
            int(r["thin_epochs"]), int(r["burn_epochs"]), w1=num(r["w1"]), w1_se=num(r["w1_se"]),
            w1_floor=num(r["w1_floor_exact_sampler"]), w1_iid=num(r["w1_iid_draws"]), derived_w1=num(r["derived_w1"]),
            diverged_frac=num(r["diverged_frac"]), max_abs=num(r["max_abs_x"]), mc=mc, exact=exact,
            seconds=float(r["seconds"])))  # fmt: skip
    return cells


def _plot(cells: dict, path: Path, mu_var: tuple[float, float]) -> Path:
    fig, (a1, a2) = pyplot().subplots(1, 2, figsize=(13, 5))
    colours = {"UBU": "C0", "BAOAB": "C1", "EM": "C2"}
    styles = {"SMS": "-", "SG": ":", "wor": "--"}
    for label, cs in cells.items():
        integ = label.split()[0].split("-")[1]
        kind = "wor" if label.endswith("wor") else label.split("-")[0]
        hs = [c.h for c in cs]
        col, ls = colours[integ], styles[kind]
        a1.loglog(hs, [c.w1 for c in cs], ls=ls, color=col, marker="o", ms=4, label=label)
        ks = [STEPS.index(c.h) for c in cs]
        pv = [PAPER_W1[label][k] for k in ks]
        a1.loglog(hs, [np.nan if v is None else v for v in pv], ls="none", color=col, marker="x", ms=6)
        dv = [abs(c.exact["var"] - mu_var[1]) if c.exact.get("stable") else np.nan for c in cs]
        a2.loglog(hs, dv, ls=ls, color=col, marker="o", ms=4, label=label)
    floor = [c.w1_floor for cs in cells.values() for c in cs if math.isfinite(c.w1_floor)]
    if floor:
        hs = [c.h for c in next(iter(cells.values()))]
        fl = [c.w1_floor for c in next(iter(cells.values()))]
        a1.loglog(hs, fl, color="grey", lw=0.8, ls="-.", label="MC floor (exact sampler, same protocol)")
    for ax, t in ((a1, "W1 to the posterior (o ours, x paper's notebook)"),
                  (a2, "exact |Var - posterior var| of the recorded law")):  # fmt: skip
        ax.set(xlabel="step size h", title=t)
        ax.grid(True, which="both", lw=0.2)
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle("paulin2025 Fig. 1: two-batch Gaussian, friction 1")
    return save_figure(fig, path)


def _settings_text(s: dict) -> str:
    return (
        f"{s['chains']} chains from x = 0 per cell, burn-in 50·2^k epochs (simulated time 25), "
        f"{s['records']} records per chain every {'/'.join(map(str, s['thin']))} epochs for h = "
        f"{', '.join(f'{h:g}' for h in STEPS)} (odd, so SMS records alternate sweep end and mid-sweep); friction 1 "
        f"for UBU and EM, {s['baoab_friction']:g} for BAOAB (the authors' BAOAB O step uses exp(-γh/2) in {NOTEBOOK}: "
        "the textbook BAOAB at friction γ/2); BAOAB without replacement and SMS-BAOAB record one step after the "
        "epoch's end, where the notebook records (our first-same-as-last step takes its last force from the next "
        "batch, the notebook's from the current one: `two_batch.notebook_phase`; until 2026-11-29 at the epoch's "
        "end, which put SG-BAOAB wor's W1 at h = 0.25 at 0.0814 against the notebook's 0.0879); float64; "
        "per-chain batches, fixed partition {0},{1}. W1: the exact W1 of "
        "the pooled records to N(-15/17, 1/4.25) (`wasserstein1_normal`, exact quantiles). Paper values: the saved "
        f"output of the authors' notebook {NOTEBOOK}, printed to 4 decimals (§3.4 and Fig. 1 print no number); the "
        "notebook ran 20,000 chains for 2000·2^k epochs recording every epoch (4·10^7 values per cell at h = 0.25, "
        "2^k times that at the k-th h) and took W1 "
        "against as many fresh normal draws. CSV: `paper_w1` holds only the notebook's printed values; `derived_w1` "
        "the values computed for this project (SMS-BAOAB: exact W1 with the notebook's fixed batch order 0,1,1,0, "
        "`notebook_order_w1`; the reference at h = 0.25); `rel_dev` is against `paper_w1`. Exact moments: stationary law of the recorded states from affine maps probed off the same "
        "integrators (`analysis.probe`, `analysis.stationary`)."
    )


# the batch schedule's cycle (the steps over which exact_rho is a radius): the cycle of SMS is a sweep of 4 steps,
# of sampling without replacement an epoch of 2, of i.i.d. batches 1 step
def _rho_text(c: Cell) -> str:
    """The spectral radius of the cell's exact second-moment recursion per schedule cycle (``exact_rho``, over
    ``exact_cycle_steps`` steps) and, for a cycle of several steps, per step (its cycle-th root): radii of
    cycles of different lengths compare per step only."""
    rho, cycle = c.exact["rho"], c.exact["cycle"]
    if cycle == 1:
        return f"spectral radius {rho:.3f} per step"
    return f"spectral radius {rho:.3f} per {cycle}-step cycle ({rho ** (1 / cycle):.3f} per step)"


def _w1_text(c: Cell) -> str:
    if not math.isfinite(c.w1):
        return "div."
    return f"{_paper_text(c.w1)} ± {c.w1_se:.2g}" + ("*" if c.noise_limited else "")


def _w1_band(c: Cell, pv: float) -> float:
    """The agreement band of a cell against the reference ``pv``: W1_TOL of it plus W1_NOISE_SE of our s.e."""
    return W1_TOL * pv + W1_NOISE_SE * c.w1_se


def _w1_agrees(label: str, c: Cell, pv: float, derived: bool) -> tuple[bool, list[str]]:
    """Whether our W1 agrees with the reference ``pv``: |ours - pv| <= W1_TOL pv + W1_NOISE_SE s.e. (``_w1_band``);
    and the notes on a changed reference (the derived ‡, or the notebook's 8 decimals for a value once read
    rounded to one significant digit) and on a cell that agrees by the noise allowance only."""
    ok = abs(c.w1 - pv) <= _w1_band(c, pv)
    if derived:
        return ok, [
            f"h={c.h:g}: reference changed on 2026-11-26, after the result was seen, from {OLD_SMS_BAOAB_025} (a "
            f"randomised-order re-run no script of this project produced) to the derived {pv:.4f}‡ (authors' fixed "
            f"order 0,1,1,0; the notebook prints {PAPER_W1[label][0]}); ours, with the order randomised per sweep "
            f"(the paper's SMS scheme), is {c.w1 / pv:.1f}x it: the notebook's point at h = 0.25 is the fixed "
            f"order, not the SMS scheme; against the old {OLD_SMS_BAOAB_025} ours is "
            f"{100 * (c.w1 / OLD_SMS_BAOAB_025 - 1):+.1f}% (within {W1_TOL:.0%}: the old reference agreed at this h)"
        ]
    notes = []
    old = OLD_ROUNDED.get(label) if c.h == STEPS[-1] else None
    if old is not None:
        lo, hi = old - W1_ROUNDING - 2 * c.w1_se, old + W1_ROUNDING + 2 * c.w1_se
        notes.append(f"h={c.h:g}: the notebook's {pv:.8f} (its stdout; the rounded {old} before 2026-11-29, whose "
                     f"rounding interval widened by 2 s.e., [{lo:.5f}, {hi:.5f}], put ours {c.w1:.5f} "
                     f"{'inside' if lo <= c.w1 <= hi else 'outside'})")  # fmt: skip
    if ok and abs(c.w1 - pv) > W1_TOL * pv:
        notes.append(f"h={c.h:g}: {(c.w1 - pv) / pv:+.0%} = {(c.w1 - pv) / c.w1_se:+.1f} s.e., within ±{W1_TOL:.0%} + "
                     f"{W1_NOISE_SE:g} s.e. = ±{_w1_band(c, pv):#.2g} (outside the ±{W1_TOL:.0%} alone, the rule "
                     "until 2026-11-29: unresolved there)")  # fmt: skip
    return ok, notes


def _w1_cell(label: str, c: Cell) -> tuple:
    """(agrees, z of a resolved disagreement or None, notes, noise-limited miss) of one h: both
    diverged agrees; a cell outside the band (``_w1_agrees``) disagrees where our W1 is above the
    noise floors, else it is not resolved at this scale (counts for neither side)."""
    pv, derived = _reference(c)
    if pv is None and c.diverged:
        return True, None, [], False
    if pv is None:
        return False, math.inf, [f"h={c.h:g}: the notebook diverged, ours W1 {c.w1:.4f}"], False
    if c.diverged:
        return False, math.inf, [f"h={c.h:g}: ours diverged ({_rho_text(c)})"], False
    z = (c.w1 - pv) / c.w1_se
    ok, notes = _w1_agrees(label, c, pv, derived)
    if ok:
        return True, None, notes, False
    tag = " (*, not resolved)" if c.noise_limited else ""
    notes.append(f"h={c.h:g}: {(c.w1 - pv) / pv:+.0%} = {z:+.1f} s.e. = {(c.w1 - pv) / c.w1_floor:+.1f} MC floors, "
                 f"beyond ±{W1_TOL:.0%} + {W1_NOISE_SE:g} s.e. = ±{_w1_band(c, pv):#.2g}{tag}")  # fmt: skip
    return False, None if c.noise_limited else z, notes, c.noise_limited


def _w1_old(label: str, cs: list[Cell]) -> str:
    """The verdict of the rule until 2026-11-29 (the twenty-second audit): a cell agrees within W1_TOL of its
    reference alone; outside it, a disagreement only over 2 s.e. away and above the noise floors."""
    good, zs = 0, []
    for c in cs:
        pv, _ = _reference(c)
        if pv is None and c.diverged:
            good += 1
        elif pv is None or c.diverged:
            zs.append(math.inf)
        elif abs(c.w1 - pv) <= W1_TOL * pv:
            good += 1
        elif not c.noise_limited and abs(c.w1 - pv) > 2 * c.w1_se:
            zs.append((c.w1 - pv) / c.w1_se)
    return by_resolved(good, zs, len(cs), "-").verdict


@CLAIMS.family("w1", LABELS, "W1 of {} to the posterior at h = 0.25 / 0.125 / 0.0625 / 0.03125", "§3.4, Fig. 1",
    _w1_paper, source="derived", tolerance=_w1_tolerance, method=_w1_method)  # fmt: skip
def _w1_rule(label: str, cells: dict):
    return _w1_outcome(label, cells[label]) if label in cells else None


def _w1_outcome(label: str, cs: list[Cell]):
    """Each h agrees (or both diverged) by ``_w1_cell``; all: reproduced, some: partly; where the rule until
    2026-11-29 (``_w1_old``) gives another verdict, the reason says which."""
    per = [_w1_cell(label, c) for c in cs]
    notes = [n for _, _, ns, _ in per for n in ns]
    if any(noise for *_, noise in per):
        notes.append(
            f"*: ours below {NOISE_FLOORS} MC floors, mostly sampling noise (which the s.e. does not "
            f"measure): not resolved at this scale; {SCALE_WHY}"
        )
    ours = " / ".join(_w1_text(c) for c in cs)
    out = by_resolved(sum(ok for ok, *_ in per), [z for _, z, *_ in per if z is not None], len(cs), ours,
                      "; ".join(notes))  # fmt: skip
    if any(_reference(c)[1] for c in cs):
        out = replace(out, why=f"{out.why}; {_old_reference(label, cs)}")
    old = _w1_old(label, cs)
    if old != out.verdict:
        out = replace(out, why="; ".join(w for w in (out.why, f"the rule until 2026-11-29 (the twenty-second audit: "
                      f"±{W1_TOL:.0%} alone, a miss within 2 s.e. unresolved) gave {old}") if w))  # fmt: skip
    return out


def _old_reference(label: str, cs: list[Cell]) -> str:
    """What this rule gives with SMS-BAOAB's h = 0.25 reference before 2026-11-26 (``OLD_SMS_BAOAB_025``), and
    what the row was on that day, before the change as after it (h = 0.03125 was then held to ±10% of the
    notebook's rounded 0.0006, which ours missed)."""
    per = [_w1_cell(label, replace(c, derived_w1=OLD_SMS_BAOAB_025) if _reference(c)[1] else c) for c in cs]
    verdict = by_resolved(sum(ok for ok, *_ in per), [z for _, z, *_ in per if z is not None], len(cs), "-").verdict
    return (f"with the reference before 2026-11-26 ({OLD_SMS_BAOAB_025} at h = 0.25) this rule gives {verdict} "
            f"({sum(ok for ok, *_ in per)} of {len(cs)} h agree); on 2026-11-26 the row was partly before the change "
            "as after it (h = 0.03125 then outside ±10% of the notebook's rounded 0.0006)")  # fmt: skip


@CLAIMS.family("slope", LABELS, lambda lab: f"bias of {lab} is O(h{'^2' if EXPECTED_SLOPE[lab][0] == 2 else ''}) "
    f"(weak order {EXPECTED_SLOPE[lab][0]})", "§3.4, Fig. 1", lambda lab: f"slope {EXPECTED_SLOPE[lab][0]}",
    source="printed",  # §3.4 prints '(weak order 2)' / '(weak order 1)'; 'statement' until 2026-11-29 (28th audit)
    tolerance=lambda lab: f"reproduced: the 3-point slope within {EXPECTED_SLOPE[lab][0]} ± {EXPECTED_SLOPE[lab][1]} "
              "(this project's); partly: outside, and the local slope between the two smallest h within it "
              "(pre-asymptotic); not reproduced: neither; not tested: 2 or 3 of the W1 values below "
              f"{NOISE_FLOORS} Monte Carlo floors",
    method="least squares of log W1 on log h over h = 0.125, 0.0625, 0.03125; MC s.e. of the slope from the W1 "
           "s.e.")  # fmt: skip
def _slope_rule(label: str, cells: dict):
    return _slope_outcome(label, cells[label]) if label in cells else None


def _slope_outcome(label: str, cs: list[Cell]):
    """Least-squares slope over the three smallest h with its Monte Carlo s.e. (from the W1
    s.e.); a fit with 2 or 3 of its points below the noise floors is not a measurement."""
    from ...stats import fit_loglog

    order, tol = EXPECTED_SLOPE[label]
    fin = sorted((c for c in cs if math.isfinite(c.w1)), key=lambda c: c.h)[:3]
    fit = fit_loglog([c.h for c in fin], [c.w1 for c in fin]) if len(fin) == 3 else None
    if fit is None:
        return not_reproduced("-", "fewer than 3 finite W1 values")
    rel_se = np.array([c.w1_se / c.w1 for c in fin])
    se = float(np.sqrt(np.sum(((np.log([c.h for c in fin]) - fit.x_mean) / fit.sxx) ** 2 * rel_se**2)))
    local = math.log2(fin[1].w1 / fin[0].w1)
    local_se = math.hypot(rel_se[0], rel_se[1]) / math.log(2)
    ours = (
        f"{fit.slope:.2f} ± {se:.2g} (MC s.e.); local slope {local:.2f} ± {local_se:.2g} between h = "
        f"{fin[1].h:g} and {fin[0].h:g}"
    )
    pv = [PAPER_W1[label][STEPS.index(c.h)] for c in fin]
    pfit = fit_loglog([c.h for c in fin], pv) if None not in pv else None
    ex = _exact_slopes(cs)
    why = "" if pfit is None else f"the notebook's W1 values give {pfit.slope:.2f}{NOTEBOOK_SCHEME.get(label, '')}; "
    why += (
        f"95% CI of the 3-point fit (its residuals) [{fit.lo:.2f}, {fit.hi:.2f}]; exact slopes of the recorded "
        f"law: |Δmean| {ex[0]}, |Δvar| {ex[1]}"
    )
    nl = sum(c.noise_limited for c in fin)
    if nl >= 2:
        return not_tested("scale", ours, f"{nl} of the 3 W1 values are below {NOISE_FLOORS} MC floors, so the fit "
                          f"measures sampling noise (it flattens the slope); {SCALE_WHY}; {why}")  # fmt: skip
    if nl:
        why += f"; {nl} of the 3 W1 values is below {NOISE_FLOORS} MC floors"
    if abs(fit.slope - order) <= tol:
        return reproduced(ours, why)
    if abs(local - order) <= tol:
        return partly(ours, f"the 3-point slope is {(fit.slope - order) / se:+.0f} s.e. from {order}, outside the "
                      "tolerance, and the local slope at the smallest h is within it: the slope still falls towards "
                      f"{order} as h decreases (pre-asymptotic); {why}")  # fmt: skip
    return not_reproduced(ours, why, z=(fit.slope - order) / se)


@CLAIMS.rule("em_diverge", "the EM variants diverge at the largest step size h = 0.25", "§3.4, Fig. 1", "diverged",
    tolerance="all three diverge", method="spectral radius of the exact second-moment recursion over one cycle of the "
    "batch schedule (SMS: a 4-step sweep; without replacement: a 2-step epoch; i.i.d.: 1 step; w1.csv exact_rho over "
    "exact_cycle_steps) >= 1: the variance grows geometrically; per step: the radius to the power 1 / cycle steps "
    "(until 2026-11-29, the twenty-first audit, the radii were printed per cycle without the cycle's length)")  # fmt: skip
def _em_outcome(cells: dict):
    """Each EM variant at h = 0.25 diverged (``Cell.diverged``: its exact second-moment recursion has a
    spectral radius >= 1 per schedule cycle, which holds per step as well, the per-step radius being the
    cycle's to the power 1 / cycle steps)."""
    if not any("EM" in lab and cs[0].h == 0.25 for lab, cs in cells.items()):
        return None
    em = [c for lab, cs in cells.items() if "EM" in lab for c in cs if c.h == 0.25]
    ours = ", ".join(f"{c.label}: {_rho_text(c)}, max |x| {c.max_abs:.3g}, "
                     f"{c.diverged_frac:.0%} non-finite" for c in em)  # fmt: skip
    return by_count(sum(c.diverged for c in em), len(em), ours,
                    "non-finite once the run is long enough; the other samplers' radii are < 1")  # fmt: skip


BEST = ("SMS-UBU", "SG-UBU wor")


def _diff_se(a: Cell, b: Cell, paired: bool = True) -> float:
    """The s.e. of a.w1 - b.w1: paired over chains where both cells hold their chains' influences for as many
    chains (every sampler at one h runs with one seed, ``_cells``: chain c of each draws from the same random
    stream, so their W1 errors are correlated), else (or ``paired`` False) as if the two were independent."""
    pa, pb = a.w1_psi, b.w1_psi
    if paired and pa is not None and pb is not None and pa.shape == pb.shape and pa.size > 1:
        return float(np.std(pa - pb, ddof=1) / math.sqrt(pa.size))
    return math.hypot(a.w1_se, b.w1_se)


def _best_at(cells: dict, k: int, paired: bool = True) -> tuple | None:
    """(held, z of each sampler below the larger of BEST by more than 2 s.e., text) at h = STEPS[k]:
    every other sampler's W1 against the larger of the two, above by more than 2 s.e. of the difference
    (``_diff_se``) (held), below (failed) or within 2 s.e. (a tie, not resolved); None where a sampler of
    BEST is missing or below the noise floors (or no other sampler has a W1)."""
    at = {lab: cs[k] for lab, cs in cells.items() if k < len(cs) and math.isfinite(cs[k].w1)}
    others = [c for lab, c in at.items() if lab not in BEST]
    if not others or any(b not in at or at[b].noise_limited for b in BEST):
        return None
    top = max((at[b] for b in BEST), key=lambda c: c.w1)
    z = {c.label: (c.w1 - top.w1) / _diff_se(c, top, paired) for c in others}
    below, ties = [lab for lab, v in z.items() if v < -2], [lab for lab, v in z.items() if abs(v) <= 2]
    return not below and not ties, [z[lab] for lab in below], _best_text(STEPS[k], at, others, z, below, ties)


def _best_text(h: float, at: dict, others: list, z: dict, below: list, ties: list) -> str:
    part = f"h={h:g}: SMS-UBU {_w1_text(at['SMS-UBU'])}, SG-UBU wor {_w1_text(at['SG-UBU wor'])}"
    for kind, labs in (("below the larger by > 2 s.e.", below), ("within 2 s.e. of the larger", ties)):
        if labs:
            part += f"; {kind}: " + ", ".join(f"{lab} {_w1_text(at[lab])} (z={_z_text(z[lab])})" for lab in labs)
    if not below and not ties:
        nxt = min(others, key=lambda c: c.w1)
        part += f"; next {nxt.label} {_w1_text(nxt)} (z={_z_text(z[nxt.label])})"
    return part


def _z_text(z: float) -> str:
    """z to one decimal, to two near the 2 s.e. line (-1.955 is a tie, not '-2.0')."""
    return f"{z:+.2f}" if 1.9 <= abs(z) < 2.1 else f"{z:+.1f}"


@CLAIMS.rule("best", "SMS-UBU and SG-UBU wor perform similarly and slightly outperform all other methods",
    "§3.4, Fig. 1", "the two smallest W1", tolerance=f"at each h where both are above {NOISE_FLOORS} MC floors, "
    "every other sampler's W1 more than 2 s.e. above the larger of the two, the s.e. of each difference paired over "
    "chains (every sampler at one h runs with the same seed, so their W1 errors are correlated); within 2 s.e.: a "
    "tie, not resolved; reproduced: held at every counted h; partly: at some; not reproduced: at none, failing "
    "(another sampler below by more than 2 s.e.) at some (until 2026-11-29, the seventeenth audit, the s.e. of a "
    "difference took the samplers as independent, the two s.e. in quadrature; the reason says what that gave)",
    method=f"W1 ± s.e. per h; z = difference / its s.e. from the chains' paired delta-method influences "
    f"(`wasserstein1_normal_influence`); h where SMS-UBU or SG-UBU wor is below {NOISE_FLOORS} floors are not "
    "counted; best.csv holds each difference with its paired and independent s.e. and z (until 2026-11-29, the "
    "twenty-first audit, the paired s.e. were in no committed file)")  # fmt: skip
def _best_outcome(cells: dict):
    """``_best_at`` at each h: held at all counted h: reproduced, at some: partly (with at least three
    samplers, the two among them); the reason adds what the independent s.e. (the rule until 2026-11-29) and
    the SMS-BAOAB that Fig. 1 plots (``_fixed_order_text``) give."""
    if len(cells) < 3 or not set(BEST) <= set(cells):
        return None
    got = _best_all(cells)
    unresolved = [f"{h:g}" for h, g in got.items() if g is None]
    why = [_best_tally(got)]
    if unresolved:
        why.append(f"h = {', '.join(unresolved)} not counted (a sampler of the two below {NOISE_FLOORS} MC floors)")
    old = _best_all(cells, paired=False)
    why.append(f"with the s.e. of each difference as if the samplers were independent (the rule until 2026-11-29): "
               f"{_best_tally(old)}: {_best_verdict(old, '').verdict}")  # fmt: skip
    why += [t for t in (_fixed_order_text(cells), _similar_text(cells)) if t]
    return _best_verdict(got, "; ".join(why))


def _best_all(cells: dict, paired: bool = True) -> dict:
    return {h: _best_at(cells, k, paired) for k, h in enumerate(STEPS)}


def _best_verdict(got: dict, why: str):
    """Held at every counted h (``_best_at`` not None): reproduced; at some: partly; at none: not reproduced
    if it failed somewhere (``by_resolved``)."""
    counted = [g for g in got.values() if g is not None]
    return by_resolved(sum(held for held, _, _ in counted), [z for _, zs, _ in counted for z in zs], len(counted),
                       "; ".join(part for *_, part in counted) or "-", why)  # fmt: skip


def _best_tally(got: dict) -> str:
    """Which counted h (``_best_at`` not None) held, failed (another sampler below by > 2 s.e.) or tied."""
    kinds = {"held": lambda g: g[0], "failed": lambda g: bool(g[1]), "tied": lambda g: not g[0] and not g[1]}
    tally = {kind: [f"{h:g}" for h, g in got.items() if g is not None and test(g)] for kind, test in kinds.items()}
    return "; ".join(f"{kind} at h = {', '.join(hs)}" for kind, hs in tally.items() if hs)


def _fixed_order_text(cells: dict) -> str:
    """What the rule gives with the SMS-BAOAB that Fig. 1 plots in place of ours where the two differ (the h of
    the W1 row's derived reference ‡): the authors' notebook keeps the batch order 0,1,1,0, ours randomises it
    per sweep (the paper's SMS scheme, §2.3); that order's exact W1 (``notebook_order_w1``) has no MC noise."""
    cs = cells.get("SMS-BAOAB")
    swap = [k for k, c in enumerate(cs or ()) if _reference(c)[1] and math.isfinite(c.derived_w1)]
    if not swap:
        return ""
    alt = list(cs)
    for k in swap:
        c = cs[k]
        alt[k] = replace(c, w1=c.derived_w1, w1_se=0.0, w1_psi=None if c.w1_psi is None else np.zeros_like(c.w1_psi))
    got = _best_all({**cells, "SMS-BAOAB": alt})
    parts = []
    for k in swap:
        top = max((cells[b][k] for b in BEST), key=lambda c: c.w1)
        z = (alt[k].w1 - top.w1) / _diff_se(alt[k], top)
        parts.append(f"at h = {STEPS[k]:g} our SMS-BAOAB randomises its batch order per sweep (the paper's SMS "
                     f"scheme, §2.3; W1 {cs[k].w1:.4f}); the SMS-BAOAB Fig. 1 plots keeps the authors' fixed order "
                     f"0,1,1,0 (its exact W1 {alt[k].w1:.4f}, `notebook_order_w1`, the ‡ reference of its W1 row; "
                     f"the notebook prints {PAPER_W1['SMS-BAOAB'][k]}), z={z:+.1f} against the larger of the two")  # fmt: skip
    return "; ".join(parts) + f"; with it in place of ours: {_best_tally(got)}: {_best_verdict(got, '').verdict}"


BEST_FIELDS = ("h", "sampler", "reference", "reference_is_larger", "w1", "w1_reference", "diff", "se_paired",
               "se_independent", "z_paired", "z_independent")  # fmt: skip
FIXED_ORDER_LABEL = "SMS-BAOAB fixed order 0,1,1,0 (exact)"


def _best_rows(cells: dict) -> list[dict]:
    """best.csv: at each h, every sampler's W1 (finite) against each of BEST, with the difference's s.e. paired
    over chains (``_diff_se``; the chains' influences are not written) and as if independent, and both z: what
    the 'best' row's z, gaps and tallies are computed from (the rule reads the rows whose reference is the larger
    of the two, ``reference_is_larger``, and whose sampler is not one of them). Where SMS-BAOAB has a derived
    fixed-order W1 (``_fixed_order_text``), that value (no MC noise) stands as a further sampler."""

    def f(x):
        return f"{x:.6g}"

    rows = []
    for k, h in enumerate(STEPS):
        at = {lab: cs[k] for lab, cs in cells.items() if k < len(cs) and math.isfinite(cs[k].w1)}
        refs = [at[b] for b in BEST if b in at]
        if not refs:
            continue
        top = max(refs, key=lambda c: c.w1)
        fixed = at.get("SMS-BAOAB")
        if fixed is not None and _reference(fixed)[1] and math.isfinite(fixed.derived_w1):
            psi = None if fixed.w1_psi is None else np.zeros_like(fixed.w1_psi)
            fixed = replace(fixed, label=FIXED_ORDER_LABEL, w1=fixed.derived_w1, w1_se=0.0, w1_psi=psi)
        else:
            fixed = None
        for ref in refs:
            for c in [*at.values(), *([fixed] if fixed else [])]:
                if c.label == ref.label:
                    continue
                d, paired, indep = c.w1 - ref.w1, _diff_se(c, ref), _diff_se(c, ref, paired=False)
                rows.append(dict(zip(BEST_FIELDS, (h, c.label, ref.label, int(ref is top), f(c.w1), f(ref.w1), f(d),
                                                   f(paired), f(indep), f(d / paired), f(d / indep)))))  # fmt: skip
    return rows


def _similar_text(cells: dict) -> str:
    """The "perform similarly" half of the claim, not judged (the paper gives no measure of similar): the two's
    gap per h, ours in paired s.e. (as if independent until 2026-11-29) and the notebook's."""
    a, b = (cells[lab] for lab in BEST)
    pairs = [(k, c, d) for k, (c, d) in enumerate(zip(a, b)) if math.isfinite(c.w1) and math.isfinite(d.w1)]
    gaps = [f"h={c.h:g}: {c.w1 - d.w1:+.4f} ({(c.w1 - d.w1) / _diff_se(c, d):+.0f} s.e.; notebook "
            f"{PAPER_W1[BEST[0]][k] - PAPER_W1[BEST[1]][k]:+.4f})" for k, c, d in pairs]  # fmt: skip
    old = " / ".join(f"{(c.w1 - d.w1) / _diff_se(c, d, paired=False):+.0f}" for _, c, d in pairs)
    return (
        "'perform similarly' is not part of the rule (the paper gives no measure of similar); SMS-UBU - SG-UBU "
        f"wor (paired s.e.): {', '.join(gaps)} (until 2026-11-29 quoted as if independent: {old} s.e.)"
    )


@CLAIMS.family("exact", DERIVED_EXACT, "exact (|Δmean|, |Δvar|) of {}'s recorded law = an independent exact "
    "computation (derived for this project, not in the paper)", "Fig. 1 setting",
    lambda lab: " / ".join(f"{m:.2e}, {v:.2e}" for m, v in DERIVED_EXACT[lab]), source="check",
    tolerance="largest relative difference < 5%", method="stationary moments from affine maps probed off our "
    "integrators")  # fmt: skip
def _exact_check(label: str, cells: dict):
    if label not in cells:
        return None
    cs = cells[label]
    mean, var = PAULIN_POSTERIOR
    ref = DERIVED_EXACT[label]
    ours, worst = [], 0.0
    for c in cs:
        k = STEPS.index(c.h)
        dm, dv = abs(c.exact["mean"] - mean), abs(c.exact["var"] - var)
        ours.append(f"{dm:.2e}, {dv:.2e}")
        for a, b in ((dm, ref[k][0]), (dv, ref[k][1])):
            worst = max(worst, abs(a - b) / b if b else (0.0 if a < 1e-8 else math.inf))
    return check(worst < 0.05, " / ".join(ours), f"largest relative difference {worst:.1%}")


@CLAIMS.rule("mc", "Monte Carlo moments = exact stationary moments of the recorded law", "Fig. 1 setting", "-",
    source="check", tolerance="largest |z| < 4.5",
    method="z = (MC - exact) / MC standard error over independent chains")  # fmt: skip
def _mc_check(cells: dict):
    if not any(c.mc and c.mixed for cs in cells.values() for c in cs):
        return None
    zs = [abs(c.mc[k] - c.exact[k]) / c.mc[f"{k}_se"] for cs in cells.values() for c in cs if c.mc and c.mixed
          for k in ("mean", "var")]  # fmt: skip
    slow = [f"{c.label} h={c.h:g} ({_rho_text(c)})" for cs in cells.values() for c in cs
            if c.mc and not c.mixed]  # fmt: skip
    why = "left out, second moments not mixed within the burn-in: " + ", ".join(slow) if slow else ""
    return check(max(zs) < 4.5, f"largest |z| = {max(zs):.2f} over {len(zs)} means/variances", why)


def _notes(cells: dict) -> str:
    floors = ", ".join(f"{c.w1_floor:.5f}" for c in next(iter(cells.values())))
    return (
        f"`*`: below {NOISE_FLOORS} Monte Carlo floors (the floor is the W1 of the exact full-batch flow `exact_ou` "
        f"run with the same chains, burn-in and records: {floors} for h = 0.25 ... 0.03125; W1 of as many i.i.d. "
        "exact draws is in the CSV); such values mostly measure sampling noise. ±: the delta-method Monte Carlo "
        "standard error of W1 over the independent chains (`wasserstein1_normal_se`; it does not include the "
        "upward bias of a W1 near its floor)."
    )


PAULIN_POSTERIOR = (-15 / 17, 1 / 4.25)


def _cells(inv: Invocation, bar) -> dict:
    """Every sampler at every h, against the Monte Carlo floor of the exact OU chain at the same protocol."""
    from ...simulate import build_target

    s = {**inv.st, **inv.opt}
    pot = build_target([f"dataset={DATASET}"], threads=1).potential
    cells: dict[str, list[Cell]] = {}
    floors = [noise_floor(pot, k, s["chains"], s["records"], s["thin"][k], s["seed"] + 1000 * k) for k in range(4)]
    print(f"[{FIG_ID}] W1 floor (exact_ou, same protocol): " + ", ".join(f"{f:.5f}" for f in floors), flush=True)
    for label, preset in s["samplers"]:
        for k in range(len(STEPS)):
            gamma = s["baoab_friction"] if "BAOAB" in label else GAMMA_TWO_BATCH
            c = run_cell(pot, label, preset, k, s["chains"], s["records"], s["thin"][k], s["seed"] + 1000 * k,
                         gamma, floors[k])  # fmt: skip
            cells.setdefault(label, []).append(c)
            bar.done(f"{label:<13} h={c.h:<8g} W1={c.w1:.5f} floor={c.w1_floor:.5f} diverged={c.diverged} "
                     f"({c.seconds:.1f}s)")  # fmt: skip
    return {"cells": cells, "s": s}


def _tables(cells: dict) -> dict:
    """w1.csv (a row per cell) and, where a run has SMS-UBU or SG-UBU wor, best.csv (``_best_rows``)."""
    w1 = [dict(zip(CSV_FIELDS, _row(c, STEPS.index(c.h)))) for cs in cells.values() for c in cs]
    best = _best_rows(cells)
    return {"w1.csv": w1, **({"best.csv": best} if best else {})}


FIGURE = register_figure(Figure(
    FIG_ID, TITLE, "paulin2025 Fig. 1: W1 bias vs h of 9 samplers (SMS/SG/wor x UBU/BAOAB/EM), two-batch Gaussian",
    SCALES, rows=_cells, cells=lambda inv: len(inv.opt["samplers"]) * len(STEPS),
    tables=lambda m: _tables(m["cells"]),
    float_format=None, plot=lambda m, inv, path: _plot(m["cells"], path, PAULIN_POSTERIOR), png="w1.png",
    outcomes=lambda m, inv: CLAIMS.outcomes(m["cells"]), settings=lambda m, inv: _settings_text(m["s"]),
    notes=lambda m, inv: _notes(m["cells"]), options=OPTIONS, heading="claim (paulin2025)"))  # fmt: skip
