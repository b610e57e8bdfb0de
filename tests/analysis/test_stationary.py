"""Exact stationary moments of the discrete schemes (the references the sampling tests use)."""

import numpy as np
import pytest
from scipy.linalg import solve_discrete_lyapunov

from bnnsample.analysis.stationary import linear_scheme_moments, recorded_mixture, ubu_affine

# paulin2025 §3.4, Fig. 1: grad U_i(x) = H_i x - r_i with H = 1/sigma^2, r = mu/sigma^2
H = np.array([[4.0], [0.25]])
R = np.array([[-4.0], [0.25]])
POST_MEAN, POST_VAR = -15 / 17, 1 / 4.25


def moments(kind, h, gamma=1.0, partition=((0,), (1,))):
    part = [list(p) for p in partition] if kind in ("sms", "reshuffle") else None
    return linear_scheme_moments(lambda Hm, r: ubu_affine(Hm, r, h, gamma), H, R, 0.0, 0.0, kind, 1, part)


@pytest.mark.parametrize("h", [0.25, 0.1, 0.03])
def test_full_batch_matches_discrete_lyapunov(h):
    step = ubu_affine(np.diag(H.sum(0)), R.sum(0), h, 1.0)
    mean = np.linalg.solve(np.eye(2) - step.A, step.c)
    cov = solve_discrete_lyapunov(step.A, step.Q)
    ((m, c),) = moments("full", h)
    np.testing.assert_allclose(m, mean, rtol=1e-12)
    np.testing.assert_allclose(c, cov, rtol=1e-10)


def test_full_batch_ubu_variance_bias_is_second_order():
    """Exact stationary moments derived for this project: 1.04e-2, 2.60e-3, 6.51e-4, 1.63e-4,
    4.07e-5; mean exact."""
    expected = [1.04e-2, 2.60e-3, 6.51e-4, 1.63e-4, 4.07e-5]
    for k, e in enumerate(expected):
        ((m, c),) = moments("full", 0.25 / 2**k)
        assert m[0] == pytest.approx(POST_MEAN, abs=1e-12)
        assert abs(c[0, 0] - POST_VAR) == pytest.approx(e, rel=5e-3)


# derived for this project, computed independently (not in the paper): |dvar| of SG-UBU,
# |dmean| and |dvar| of SMS-UBU
# (SMS pooled over end-of-sweep and mid-sweep draws, i.e. phases 0 and 2 of the 4-step sweep).
TABLE = [
    (0.25, 2.15e-1, 2.56e-2, 4.55e-2),
    (0.125, 7.59e-2, 6.57e-3, 4.75e-3),
    (0.0625, 3.38e-2, 1.63e-3, 1.98e-3),
    (0.03125, 1.61e-2, 4.06e-4, 5.33e-4),
]


@pytest.mark.parametrize("h,sg_dvar,sms_dmean,sms_dvar", TABLE)
def test_two_batch_biases_match_derived(h, sg_dvar, sms_dmean, sms_dvar):
    ((m, c),) = moments("iid", h)
    assert m[0] == pytest.approx(POST_MEAN, abs=1e-12)  # unbiased linear force: exact mean
    assert abs(c[0, 0] - POST_VAR) == pytest.approx(sg_dvar, rel=1e-2)
    mean, cov = recorded_mixture(moments("sms", h), [0, 2])
    assert abs(mean[0] - POST_MEAN) == pytest.approx(sms_dmean, rel=1e-2)
    assert abs(cov[0, 0] - POST_VAR) == pytest.approx(sms_dvar, rel=1e-2)


def test_orders_from_exact_moments():
    """SMS-UBU bias ratio -> 4 per halving of h (order 2); SG-UBU variance bias ratio -> 2 (order 1)."""
    hs = [0.0625, 0.03125, 0.015625]
    sms = [abs(recorded_mixture(moments("sms", h), [0])[1][0, 0] - POST_VAR) for h in hs]
    sg = [abs(moments("iid", h)[0][1][0, 0] - POST_VAR) for h in hs]
    assert 3.5 < sms[1] / sms[2] < 4.5
    assert 1.8 < sg[1] / sg[2] < 2.2
