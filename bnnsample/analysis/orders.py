"""Measured orders of convergence of the registered integrators: the exact stationary bias on
linear-Gaussian targets against the step size, and its log-log slope.
Method (exact, no Monte Carlo). On a linear-Gaussian target each step of a scheme is an
affine map with Gaussian noise for a given minibatch; ``analysis.probe`` reads that map off
the integrator's own ``advance``. The exact stationary law under a schedule follows from
``analysis.stationary.cycle_moments`` over every batch sequence of one schedule cycle. The
statistic is the law a thin=1 run records: the mixture over all phases of the cycle. The
stationary bias b(h) of

    var_x   Var(x) - posterior variance        (the primary statistic)
    m2_v    E[v^2] - 1                         (used when var_x is exact for every h, or when its
                                               bias has the lower order: the law's order)
    mean_x  E[x] - posterior mean              (reported alongside)

is fitted as log|b| = a + p log h by least squares on a geometric grid h = 2^-e; p is the
measured order, with a 95% confidence interval from the regression (t distribution, n - 2
degrees of freedom) and the RMS residual in natural-log units. The window of five points
starts at e = 3..7 and slides to smaller h until the bias keeps one sign and its local
slopes agree to 0.1 (the asymptotic regime), at most to e = 13 and never into |b| < 1e-9.
A statistic whose bias is below 1e-11 at every h is "exact". State coordinates that a
scheme never touches (SGLD's velocity) are dropped before the moments are solved.

Targets: paulin2025's two-batch Gaussian (y = (-1, 1), sd = (0.5, 2), N = 2, batch 1) for
every scheme; schemes that fail there (the gradient-covariance estimate needs batches of 2 or
more) use a four-point target with equal noise (y = (-1, -0.5, 0.25, 1), sd 1, N = 4,
batch 2), whose minibatch covariance estimate does not depend on x. Reshuffle and sms use
the fixed partition {0..n-1}, {n..2n-1}, ... (the default partition=fixed). Friction 1.
Scheme parameters come from conf/integrator/<name>.yaml when that preset names the scheme.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ..stats import fit_loglog

# torch, the integrators and the probe are imported inside the functions: `figure --list` stays fast.

GAMMA = 1.0
BATCHINGS = ("full", "iid", "reshuffle", "sms")
START = (3, 7)  # initial window of exponents e, h = 2^-e
MAX_EXP = 13
SLOPE_SPREAD = 0.1  # the window is asymptotic when its local slopes agree to this
EXACT_TOL = 1e-11  # |bias| below this at every h: exact (rounding level)
FLOOR = 1e-9  # the window does not slide to an h whose |bias| is below this (rounding noise)
MAX_SEQUENCES = 1024
# probes run after burn-in, away from step 0: schemes with step-dependent rules show it
TIMES = {"step": 20_000, "burn_in": 10_000, "total_steps": 1_000_000}
TIMES_OTHER = {"step": 500_007, "burn_in": 10_000, "total_steps": 1_000_000}


@dataclass(frozen=True)
class OrderTarget:
    name: str
    y: tuple[float, ...]
    sd: tuple[float, ...]
    batch: int
    description: str

    @property
    def n_data(self) -> int:
        return len(self.y)

    def potential(self):
        import torch

        from ..models.analytic import GaussianMean

        return GaussianMean(torch.tensor(self.y, dtype=torch.float64), torch.tensor(self.sd, dtype=torch.float64))

    def partition(self) -> list[list[int]]:
        n = self.batch
        return [list(range(b * n, (b + 1) * n)) for b in range(self.n_data // n)]


TARGETS = (
    OrderTarget("two_batch", (-1.0, 1.0), (0.5, 2.0), 1, "paulin2025 two-batch Gaussian, N=2, batch 1"),
    OrderTarget("four_point", (-1.0, -0.5, 0.25, 1.0), (1.0,) * 4, 2, "4 points, equal noise sd 1, batch 2"),
)

# Schemes whose stationary law is not that of a fixed per-batch map: not measured.
NOT_APPLICABLE = {
    "sghmc_adaptive": "adapts step size/friction during burn-in; the sampled law depends on the adaptation",
    "cyclical_sghmc": "cyclical step size: the step depends on the global step index",
    "sms_ghmc": "Metropolis-adjusted (accept/reject): not an affine map",
}


@dataclass
class Fit:
    slope: float = math.nan
    lo: float = math.nan
    hi: float = math.nan
    rms: float = math.nan


@dataclass
class Row:
    scheme: str
    batching: str
    target: str = ""
    statistic: str = ""
    primary: bool = True
    theory: object = None
    status: str = "measured"  # measured | exact | not affine | not applicable | error | skipped
    fit: Fit = field(default_factory=Fit)
    h: list[float] = field(default_factory=list)
    bias: list[float] = field(default_factory=list)
    note: str = ""

    @property
    def agrees(self) -> str:
        th = self.theory
        if th is None or self.status not in ("measured", "exact"):
            return ""
        if th == "exact":
            return "yes" if self.status == "exact" or "var_x exact" in self.note else "no"
        if self.status == "exact":
            return "no"
        f = self.fit
        return "yes" if (f.lo <= th <= f.hi) or abs(f.slope - th) <= 0.25 else "no"


def fit_order(h, bias) -> Fit:
    """Least-squares slope of log|bias| on log h with a 95% t-interval and the RMS residual
    (``stats.fit_loglog``)."""
    f = fit_loglog(h, bias)
    return Fit() if f is None else Fit(f.slope, f.lo, f.hi, f.rms)


def preset_params(name: str) -> dict:
    """Scheme parameters of conf/integrator/<name>.yaml when that preset is the scheme itself."""
    import yaml

    from ..plumbing.paths import conf_dir

    f = conf_dir() / "integrator" / f"{name}.yaml"
    if not f.exists():
        return {}
    body = (yaml.safe_load(f.read_text()) or {}).get("integrator") or {}
    if body.get("name") != name:
        return {}
    return {k: v for k, v in body.items() if k not in ("name", "description")}


class _Scheme:
    """One integrator on one target: per-step affine maps (cached) and stationary statistics."""

    def __init__(self, name: str, target: OrderTarget, defaults: bool = False):
        from ..integrators import get_integrator

        self.name, self.target = name, target
        self.params, self.note = ({}, "") if defaults else (preset_params(name), "")
        if defaults and preset_params(name):
            self.note = f"preset parameters {preset_params(name)} fail here; constructor defaults used"
        self.factory = lambda: get_integrator(name, **self.params)
        self.pot = target.potential()
        self.post_mean, post_cov = (t.numpy() for t in self.pot.exact_posterior())
        self.post_var = float(post_cov[0, 0])
        self._maps: dict = {}
        self._layout: dict = {}

    def _oracle_args(self, batching: str):
        from ..potential import covariance_factor

        N, n = self.target.n_data, self.target.batch
        if batching == "full":
            return 1.0, 0.0
        return N / n, covariance_factor(n, N, with_replacement=batching == "iid")

    def layout(self, batching: str, h: float):
        import torch

        from .probe import discover_layout

        if batching not in self._layout:
            scale, eps = self._oracle_args(batching)
            batch = None if batching == "full" else torch.arange(self.target.batch)
            self._layout[batching] = discover_layout(self.factory(), self.pot, batch, scale, eps, h, GAMMA, **TIMES)
        return self._layout[batching]

    def step_map(self, batching: str, batches: tuple, h: float, times=TIMES):
        import torch

        from .probe import probe_step

        key = (batching, batches, h, tuple(times.values()))
        if key not in self._maps:
            scale, eps = self._oracle_args(batching)
            idx = [None if b is None else torch.tensor(b, dtype=torch.long) for b in batches]
            layout, _ = self.layout(batching, h)
            self._maps[key] = probe_step(self.factory, self.pot, idx, scale=scale, eps=eps, h=h, gamma=GAMMA,
                                         layout=layout, **times)  # fmt: skip
        return self._maps[key]

    def sequences(self, batching: str, k: int):
        """(probability, [per-step batch tuples]) over one cycle of whole steps, k batches a step."""
        from .probe import ProbeError
        from .stationary import batch_sequences

        if batching == "full":
            return [(1.0, [(None,) * k])]
        N, n = self.target.n_data, self.target.batch
        part = self.target.partition() if batching in ("reshuffle", "sms") else None
        base = batch_sequences(batching, N, n, part)
        L = len(base[0][1])
        r = math.lcm(L, k) // L
        if len(base) ** r > MAX_SEQUENCES:
            raise ProbeError(f"{len(base)}^{r} batch sequences per cycle (more than {MAX_SEQUENCES})")
        out = []
        for combo in itertools.product(base, repeat=r):
            p = math.prod(c[0] for c in combo)
            flat = [tuple(b) for c in combo for b in c[1]]
            out.append((p, [tuple(flat[i : i + k]) for i in range(0, len(flat), k)]))
        return out

    def check_stationary_rule(self, batching: str, h: float) -> None:
        from .probe import ProbeError

        _, k = self.layout(batching, h)
        seq = self.sequences(batching, k)[0][1][0]
        a = self.step_map(batching, seq, h, TIMES)
        b = self.step_map(batching, seq, h, TIMES_OTHER)
        if not (np.allclose(a.A, b.A, atol=1e-12) and np.allclose(a.c, b.c, atol=1e-12)
                and np.allclose(a.Q, b.Q, atol=1e-12)):  # fmt: skip
            raise ProbeError("the step map depends on the global step index")

    def statistics(self, batching: str, h: float) -> dict[str, float]:
        from .stationary import AffineStep, active_coordinates, cycle_moments, recorded_mixture

        layout, k = self.layout(batching, h)
        seqs = self.sequences(batching, k)
        seqs = [(p, [self.step_map(batching, s, h).affine_step() for s in steps]) for p, steps in seqs]
        keep = active_coordinates(seqs)
        seqs = [(p, [AffineStep(a.A[np.ix_(keep, keep)], a.c[keep], a.Q[np.ix_(keep, keep)]) for a in steps])
                for p, steps in seqs]  # fmt: skip
        moments = cycle_moments(seqs)
        mean, cov = recorded_mixture(moments, np.arange(len(moments)))
        pos = {j: i for i, j in enumerate(keep)}
        ix, iv = pos[layout.index("x").start], pos.get(layout.index("v").start)
        return {
            "var_x": cov[ix, ix] - self.post_var,
            "m2_v": math.nan if iv is None else cov[iv, iv] + mean[iv] ** 2 - 1.0,
            "mean_x": mean[ix] - float(self.post_mean[0]),
        }


def _bias(scheme: _Scheme, batching: str, e: int, cache: dict) -> dict[str, float]:
    if e not in cache:
        cache[e] = scheme.statistics(batching, 2.0**-e)
    return cache[e]


def _is_exact(b) -> bool:
    return bool(np.all(np.abs(np.asarray(b)) < EXACT_TOL))


def _asymptotic(b) -> bool:
    b = np.asarray(b)
    if np.any(np.sign(b) != np.sign(b[0])):
        return False
    s = np.diff(np.log(np.abs(b))) / -math.log(2.0)
    return float(s.max() - s.min()) <= SLOPE_SPREAD


STATS = ("var_x", "m2_v", "mean_x")


# E[v^2]'s order below var_x's by more than this: the law's bias is E[v^2]'s (var_x super-convergent)
LAW_GAP = 0.5


def measure(scheme: _Scheme, batching: str, start=START, adapt: bool = True, theory=None) -> list[Row]:
    """Rows (one per statistic: the primary one first) for one scheme and batching; ``theory``
    the expected order of the primary statistic (None: no claim). The primary statistic is var_x
    unless E[v^2]'s bias has the lower order by more than LAW_GAP on the same window: the order of
    the stationary law's bias is its lowest (leapfrog's x-marginal is exact on Gaussians, so its
    var_x carries only the minibatch error)."""
    hs, ser, prim = _settled_window(scheme, batching, start, adapt)
    if prim == "var_x" and _lower_law_order(hs, ser):
        prim = "m2_v"
    rows = []
    for stat in (prim, *(k for k in STATS if k != prim)):
        vals = [float(v) for v in ser[stat]]
        if any(math.isnan(v) for v in vals):
            continue
        exact, first = _is_exact(vals), stat == prim
        rows.append(Row(scheme.name, batching, scheme.target.name, stat, first, theory if first else None,
                        "exact" if exact else "measured", Fit() if exact else fit_order(hs, vals), hs, vals,
                        _primary_note(scheme, prim, vals, ser["var_x"], batching) if first else ""))  # fmt: skip
    return rows


def _settled_window(scheme: _Scheme, batching: str, start, adapt: bool):
    """(grid h = 2^-e over the window, {statistic: biases on it}, primary statistic). With
    ``adapt`` the window slides from ``start`` to smaller h until the primary bias is exact or
    asymptotic, at most to MAX_EXP and never into |bias| < FLOOR."""
    cache: dict = {}
    lo, hi = start
    while True:
        ser = {k: [_bias(scheme, batching, e, cache)[k] for e in range(lo, hi + 1)] for k in STATS}
        prim = "var_x" if not _is_exact(ser["var_x"]) else "m2_v"
        b = ser[prim]
        if (_is_exact(b) or _asymptotic(b) or not adapt or hi >= MAX_EXP
                or abs(_bias(scheme, batching, hi + 1, cache)[prim]) < FLOOR):  # fmt: skip
            return [2.0**-e for e in range(lo, hi + 1)], ser, prim
        lo, hi = lo + 1, hi + 1


def _lower_law_order(hs, ser) -> bool:
    """E[v^2]'s bias measured (not exact, no NaN) with an order below var_x's by more than LAW_GAP."""
    v, m = ser["var_x"], ser["m2_v"]
    if any(math.isnan(float(x)) for x in (*v, *m)) or _is_exact(v) or _is_exact(m):
        return False
    return fit_order(hs, m).slope < fit_order(hs, v).slope - LAW_GAP


def _primary_note(scheme: _Scheme, prim: str, bias, var_x=None, batching: str = "") -> str:
    if prim == "m2_v" and _is_exact(bias):
        return "var_x and E[v^2] exact on this target"
    notes = [scheme.note] if scheme.note else []
    if prim == "m2_v" and var_x is not None and not _is_exact(var_x):
        why = "" if batching == "full" else " (the minibatch error only)"  # full batches: no minibatch error
        notes.append(f"var_x's bias of higher order{why}; order of the law measured on E[v^2]")
    elif prim == "m2_v":
        notes.append("var_x exact on this target; order measured on E[v^2]")
    if not (_is_exact(bias) or _asymptotic(bias)):
        notes.append("local slopes not settled on the grid")
    if scheme.target.name != TARGETS[0].name:
        notes.append(f"target {scheme.target.name}")
    return "; ".join(notes)


def _probe_target(name: str, target: OrderTarget, batchings, defaults: bool = False) -> dict[str, str]:
    """Errors per batching of probing one step at h = 2^-3 (empty dict: all fine)."""
    from .probe import NotAffine

    errors = {}
    try:
        sch = _Scheme(name, target, defaults)
    except Exception as e:  # noqa: BLE001
        return {bt: f"{type(e).__name__}: {e}" for bt in batchings}
    for bt in batchings:
        try:
            sch.check_stationary_rule(bt, 2.0 ** -START[0])
        except NotAffine as e:
            errors[bt] = f"not affine on Gaussian targets ({e})"
        except Exception as e:  # noqa: BLE001  (a scheme that raises is listed with its reason)
            errors[bt] = f"{type(e).__name__}: {e}"
    return errors


def measure_orders(schemes=None, batchings=BATCHINGS, start=START, adapt=True, bar=None, theory=None) -> list[Row]:
    """Every requested registered scheme x batching; failures become rows with the reason.
    ``theory`` {scheme: {batching: expected order or "exact"}} fills each row's ``theory`` (and
    so ``agrees``). ``bar.done`` after each scheme."""
    from ..integrators import REGISTRY

    names = list(REGISTRY) if schemes is None else list(schemes)
    rows: list[Row] = []
    for name in names:
        got = _scheme_rows(name, batchings, start, adapt, (theory or {}).get(name, {}))
        rows += got
        if bar:
            bar.done(f"{name}: " + ", ".join(f"{r.batching} " + (f"p={r.fit.slope:.2f}" if r.status == "measured"
                                                                 else r.status) for r in got if r.primary))  # fmt: skip
    return rows


def _scheme_rows(name: str, batchings, start, adapt, theory: dict) -> list[Row]:
    """The rows of one scheme of ``measure_orders`` (``theory``: its expected order per batching)."""
    if name in NOT_APPLICABLE:
        return [Row(name, bt, status="not applicable", note=NOT_APPLICABLE[name]) for bt in batchings]

    # the paulin2025 target with the preset's parameters unless another choice probes better
    def score(errs):
        return (sum(not e.startswith("not affine") for e in errs.values()), len(errs))

    best = (TARGETS[0], False, _probe_target(name, TARGETS[0], batchings))
    for target, defaults in ((TARGETS[1], False), (TARGETS[0], True), (TARGETS[1], True)):
        if score(best[2])[0] == 0:
            break
        if defaults and not preset_params(name):
            continue
        errs = _probe_target(name, target, batchings, defaults)
        if score(errs) < score(best[2]):
            best = (target, defaults, errs)
    target, defaults, errors = best
    sch = _Scheme(name, target, defaults)
    rows: list[Row] = []
    for bt in batchings:
        th = theory.get(bt)
        if bt in errors:
            status = "not affine" if errors[bt].startswith("not affine") else "error"
            rows.append(Row(name, bt, target.name, theory=th, status=status, note=errors[bt]))
            continue
        try:
            rows += measure(sch, bt, start, adapt, th)
        except Exception as e:  # noqa: BLE001
            rows.append(Row(name, bt, target.name, theory=th, status="error", note=f"{type(e).__name__}: {e}"))
    return rows
