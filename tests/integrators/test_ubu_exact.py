"""UBU under each schedule, run through the real pipeline, against the exact stationary
moments of its own discrete recursion (within 4 Monte Carlo standard errors)."""

import numpy as np
import pytest

from bnnsample.analysis.stationary import linear_scheme_moments, recorded_mixture, ubu_affine

from ..helpers import assert_theta_matches, run_inprocess

H = np.array([[4.0], [0.25]])
R = np.array([[-4.0], [0.25]])
BURN, THIN, SAMPLES, CHAINS, STEP = 600, 3, 400, 4000, 0.125


@pytest.mark.parametrize(
    "integrator", ["ubu", "sg_ubu", "sg_ubu_wor", pytest.param("sms_ubu", marks=pytest.mark.smoke)]
)
def test_two_batch_gaussian_moments(tmp_path, integrator):
    path, cfg = run_inprocess(
        tmp_path,
        [f"integrator={integrator}", "dataset=two_batch_gaussian", f"chains={CHAINS}", f"step_size={STEP}",
         f"burn_in={BURN}", f"thin={THIN}", f"samples={SAMPLES}", "seed=7"],
    )  # fmt: skip
    kind = cfg.batching.name
    part = [[0], [1]] if kind in ("sms", "reshuffle") else None
    phases = linear_scheme_moments(lambda Hm, r: ubu_affine(Hm, r, STEP, 1.0), H, R, 0.0, 0.0, kind, 1, part)
    # thin = 3 is coprime to the sweep lengths, so draws fall on every phase of the cycle
    mean, cov = recorded_mixture(phases, BURN + THIN * np.arange(1, SAMPLES + 1))
    m_se, v_se = assert_theta_matches(path, mean[0], cov[0, 0])

    # the test can tell the schemes apart: i.i.d. batches inflate the variance by O(h), the
    # without-replacement schedules shift the mean by O(h^2), both by many standard errors
    def exact(k):
        part_k = [[0], [1]] if k in ("sms", "reshuffle") else None
        ph = linear_scheme_moments(lambda Hm, r: ubu_affine(Hm, r, STEP, 1.0), H, R, 0.0, 0.0, k, 1, part_k)
        return recorded_mixture(ph, BURN + THIN * np.arange(1, SAMPLES + 1))

    other = exact("full" if kind == "iid" else "iid")
    assert abs(cov[0, 0] - other[1][0, 0]) > 8 * v_se
    if kind in ("sms", "reshuffle"):
        assert abs(mean[0] - exact("full")[0][0]) > 8 * m_se
