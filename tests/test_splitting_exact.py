"""BAOAB and Euler-Maruyama under each schedule, run through the real pipeline, against the
exact stationary moments of their own linear recursions (within 4 Monte Carlo standard
errors). The affine maps are written here from the schemes' equations, independently of
bnnsample.integrators."""

import math

import numpy as np
import pytest

from bnnsample.evaluate.report import evaluate_run
from bnnsample.evaluate.metrics import chain_mean_se, chain_var_se
from bnnsample.evaluate.stationary import AffineStep, batch_sequences, cycle_moments, recorded_mixture
from bnnsample.store import SampleStore

from .helpers import run_inprocess

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


# (map, phase offset of recorded states)
SCHEMES = {"baoab": (baoab_step, 1), "em": (em_step, 0), "obabo": (obabo_step, 1), "aboba": (aboba_step, 0),
           "sgld": (sgld_step, 0)}  # fmt: skip


def exact(scheme, kind):
    step, offset = SCHEMES[scheme]
    scale = 1.0 if kind == "full" else 2.0
    part = [[0], [1]] if kind in ("sms", "reshuffle") else None
    seqs = batch_sequences(kind, 2, 2 if kind == "full" else 1, part)
    maps = [(p, [step(scale * H[list(b)].sum(), scale * R[list(b)].sum(), STEP, GAMMA) for b in s]) for p, s in seqs]
    phases = cycle_moments(maps)
    # BAOAB's g_0 takes the schedule's first batch, so the state after step s has used s+1 batches
    return recorded_mixture(phases, BURN + THIN * np.arange(1, SAMPLES + 1) + offset)


PRESETS = [
    ("baoab", "baoab"), ("sg_baoab", "baoab"), ("sg_baoab_wor", "baoab"), ("sms_baoab", "baoab"),
    ("em", "em"), ("sg_em", "em"), ("sg_em_wor", "em"), ("sms_em", "em"),
    ("obabo", "obabo"), ("obabo batching=sms", "obabo"), ("aboba", "aboba"), ("aboba batching=iid", "aboba"),
    ("aboba batching=reshuffle", "aboba"), ("sgld", "sgld"), ("sgld batching=sms", "sgld"),
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
    with SampleStore(path) as s:
        theta = s.theta()[:, :, 0]
        assert not s.diverged().any()
    m, m_se = chain_mean_se(theta)
    v, v_se = chain_var_se(theta)
    assert abs(m - mean[0]) < 4 * m_se, (m, mean[0], m_se)
    assert abs(v - cov[0, 0]) < 4 * v_se, (v, cov[0, 0], v_se)
    if scheme in ("baoab", "em"):  # the evaluation stage's own exact reference agrees
        table = evaluate_run(path.parent).set_index(["group", "metric"]).value
        assert table[("theta[0]", "scheme_stationary_var")] == pytest.approx(cov[0, 0], rel=1e-9)
        assert table[("theta[0]", "scheme_stationary_mean")] == pytest.approx(mean[0], rel=1e-9)
    # the comparison has power: the law under another schedule is many standard errors away
    other = exact(scheme, "full" if kind == "iid" else "iid")
    assert abs(cov[0, 0] - other[1][0, 0]) > 8 * v_se or abs(mean[0] - other[0][0]) > 8 * m_se
