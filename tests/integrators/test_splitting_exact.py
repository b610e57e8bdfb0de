"""BAOAB and Euler-Maruyama under each schedule, run through the real pipeline, against the
exact stationary moments of their own linear recursions (within 4 Monte Carlo standard
errors). The affine maps are written here from the schemes' equations, independently of
bnnsample.integrators."""

import math

import numpy as np
import pytest

from bnnsample.analysis.stationary import AffineStep, batch_sequences, cycle_moments, recorded_mixture
from bnnsample.evaluate.report import evaluate_run

from ..helpers import assert_theta_matches, run_inprocess

H = np.array([4.0, 0.25])  # per-datum precisions of paulin2025's two-batch Gaussian
R = np.array([-4.0, 0.25])  # P_i mu_i
BURN, THIN, SAMPLES, CHAINS, STEP, GAMMA = 600, 3, 400, 4000, 0.125, 1.0


def lin(A, c=None, q=None):
    A = np.asarray(A, float)
    m = A.shape[0]
    return AffineStep(np.asarray(A, float), np.zeros(m) if c is None else np.asarray(c, float),
                      np.zeros((m, m)) if q is None else np.asarray(q, float))  # fmt: skip


def baoab_step(Hb, rb, h, gamma):
    """On z = (x, v, g): B(h/2) A(h/2) O(h) A(h/2), g <- Hb x - rb, B(h/2)."""
    B = lin([[1, 0, 0], [0, 1, -h / 2], [0, 0, 1]])
    A = lin([[1, h / 2, 0], [0, 1, 0], [0, 0, 1]])
    eta = math.exp(-gamma * h)
    O = lin([[1, 0, 0], [0, eta, 0], [0, 0, 1]], q=np.diag([0, 1 - eta**2, 0]))
    G = lin([[1, 0, 0], [0, 1, 0], [Hb, 0, 0]], c=[0, 0, -rb])
    return B.then(A).then(O).then(A).then(G).then(B)


def em_step(Hb, rb, h, gamma):
    """On z = (x, v): x' = x + h v, v' = v - h (Hb x - rb) - h gamma v + sqrt(2 gamma h) xi."""
    return lin([[1, h], [-h * Hb, 1 - h * gamma]], c=[0, h * rb], q=np.diag([0, 2 * gamma * h]))


def obabo_step(Hb, rb, h, gamma):
    """On z = (x, v, g): O(h/2) B(h/2) A(h) g <- Hb x - rb B(h/2) O(h/2)."""
    e = math.exp(-gamma * h / 2)
    O = lin([[1, 0, 0], [0, e, 0], [0, 0, 1]], q=np.diag([0, 1 - e**2, 0]))
    B = lin([[1, 0, 0], [0, 1, -h / 2], [0, 0, 1]])
    A = lin([[1, h, 0], [0, 1, 0], [0, 0, 1]])
    G = lin([[1, 0, 0], [0, 1, 0], [Hb, 0, 0]], c=[0, 0, -rb])
    return O.then(B).then(A).then(G).then(B).then(O)


def aboba_step(Hb, rb, h, gamma):
    """Chen et al. (2015) SGHMC-S on z = (x, v)."""
    A = lin([[1, h / 2], [0, 1]])
    D = lin([[1, 0], [0, math.exp(-gamma * h / 2)]])
    K = lin([[1, 0], [-h * Hb, 1]], c=[0, h * rb], q=np.diag([0, 2 * gamma * h]))
    return A.then(D).then(K).then(D).then(A)


def sgld_step(Hb, rb, h, gamma):
    """x' = x - h (Hb x - rb) + sqrt(2h) xi, on z = (x,)."""
    return lin([[1 - h * Hb]], c=[h * rb], q=[[2 * h]])


def leapfrog_step(Hb, rb, h, gamma):
    """franzese eq. 31: x* = x + h/2 v; v' = v - h G(x*) - h gamma v + sqrt(2 gamma h) w; x' = x* + h/2 v'."""
    A = lin([[1, h / 2], [0, 1]])
    K = lin([[1, 0], [-h * Hb, 1 - h * gamma]], c=[0, h * rb], q=np.diag([0, 2 * gamma * h]))
    return A.then(K).then(A)


def verlet_step(Hb, rb, h, gamma):
    """Deterministic position Verlet: x* = x + h/2 v; v' = v - h G(x*); x' = x* + h/2 v'."""
    A = lin([[1, h / 2], [0, 1]])
    return A.then(lin([[1, 0], [-h * Hb, 1]], c=[0, h * rb])).then(A)


def refresh(h, gamma):
    a = math.exp(-gamma * h)
    return lin([[1, 0], [0, a]], q=np.diag([0, 1 - a**2]))


# (map, phase offset of recorded states)
SCHEMES = {"baoab": (baoab_step, 1), "em": (em_step, 0), "obabo": (obabo_step, 1), "aboba": (aboba_step, 0),
           "sgld": (sgld_step, 0), "leapfrog": (leapfrog_step, 0), "glt1": (verlet_step, 0), "glt2": (verlet_step, 0)}  # fmt: skip


def exact(scheme, kind):
    step, offset = SCHEMES[scheme]
    scale = 1.0 if kind == "full" else 2.0
    part = [[0], [1]] if kind in ("sms", "reshuffle") else None
    seqs = batch_sequences(kind, 2, 2 if kind == "full" else 1, part)
    maps = [(p, [step(scale * H[list(b)].sum(), scale * R[list(b)].sum(), STEP, GAMMA) for b in s]) for p, s in seqs]
    if scheme.startswith("glt"):  # one integrator step: N_l Verlet steps (a batch each), a refresh over N_l h
        n_l = int(scheme[3:])
        if len(maps[0][1]) % n_l:  # cycles of odd length: two schedule cycles per engine cycle
            maps = [(p * q, a + b) for p, a in maps for q, b in maps]
        maps = [(p, [_compose(ms[i : i + n_l]).then(refresh(n_l * STEP, GAMMA)) for i in range(0, len(ms), n_l)])
                for p, ms in maps]  # fmt: skip
    phases = cycle_moments(maps)
    # BAOAB's g_0 takes the schedule's first batch, so the state after step s has used s+1 batches
    return recorded_mixture(phases, BURN + THIN * np.arange(1, SAMPLES + 1) + offset)


def _compose(steps):
    out = steps[0]
    for st in steps[1:]:
        out = out.then(st)
    return out


PRESETS = [
    ("baoab", "baoab"), ("sg_baoab", "baoab"), ("sg_baoab_wor", "baoab"), ("sms_baoab", "baoab"),
    ("em", "em"), ("sg_em", "em"), ("sg_em_wor", "em"), ("sms_em", "em"),
    ("obabo", "obabo"), ("obabo batching=sms", "obabo"), ("aboba", "aboba"), ("aboba batching=iid", "aboba"),
    ("aboba batching=reshuffle", "aboba"), ("sgld", "sgld"), ("sgld batching=sms", "sgld"),
    ("leapfrog", "leapfrog"), ("leapfrog batching=full", "leapfrog"), ("lie_trotter", "glt1"),
    ("lie_trotter batching=iid", "glt1"), ("generalized_lie_trotter integrator.n_leapfrog=2", "glt2"),
    ("generalized_lie_trotter integrator.n_leapfrog=2 batching=sms", "glt2"),
]  # fmt: skip


@pytest.mark.parametrize("preset,scheme", PRESETS)
def test_two_batch_gaussian_moments(tmp_path, preset, scheme):
    path, cfg = run_inprocess(
        tmp_path,
        [*f"integrator={preset}".split(), "dataset=two_batch_gaussian", f"chains={CHAINS}", f"step_size={STEP}",
         f"friction={GAMMA}", f"burn_in={BURN}", f"thin={THIN}", f"samples={SAMPLES}", "seed=11"],
    )  # fmt: skip
    kind = cfg.batching.name
    mean, cov = exact(scheme, kind)
    m_se, v_se = assert_theta_matches(path, mean[0], cov[0, 0])
    if scheme in ("baoab", "em"):  # the evaluation stage's own exact reference agrees
        table = evaluate_run(path.parent).set_index(["group", "metric"]).value
        assert table[("theta[0]", "scheme_stationary_var")] == pytest.approx(cov[0, 0], rel=1e-9)
        assert table[("theta[0]", "scheme_stationary_mean")] == pytest.approx(mean[0], rel=1e-9)
    # the comparison has power: the law under another schedule is many standard errors away
    other = exact(scheme, "full" if kind == "iid" else "iid")
    assert abs(cov[0, 0] - other[1][0, 0]) > 8 * v_se or abs(mean[0] - other[0][0]) > 8 * m_se


@pytest.mark.parametrize("n_l", [1, 3])
def test_generalized_lie_trotter_uses_n_l_batches_and_alpha(n_l):
    """With zero force and zero noise one step drifts N_l h v and scales v by exp(-h N_l gamma),
    asking the schedule for N_l forces (the moment tests above cannot tell N_l = 1 from 2 at h = 1/8)."""
    import torch

    from bnnsample.integrators import StepContext, get_integrator

    calls = []

    def next_force():
        calls.append(1)
        return lambda x: torch.zeros_like(x)

    ctx = StepContext(h=0.1, gamma=2.0, noise=lambda *shape, like: torch.zeros(*shape, dtype=like.dtype))
    integ = get_integrator("generalized_lie_trotter", n_leapfrog=n_l)
    x, v = torch.tensor([[1.0]], dtype=torch.float64), torch.tensor([[0.5]], dtype=torch.float64)
    from bnnsample.integrators.base import State

    out = integ.advance(State(x, v), 2, next_force, ctx)
    assert len(calls) == 2 * n_l
    alpha = math.exp(-0.1 * n_l * 2.0)
    assert float(out.v) == pytest.approx(0.5 * alpha**2, rel=1e-12)
    assert float(out.x) == pytest.approx(1.0 + n_l * 0.1 * 0.5 * (1 + alpha), rel=1e-12)
