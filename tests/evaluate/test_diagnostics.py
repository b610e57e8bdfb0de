"""Scheme diagnostics recorded with each draw: a thermostat's friction, SMS-GHMC's acceptance
rate, SGHMC's clipped noise corrections; the last draw agrees with the saved state."""

import numpy as np
import pytest

from bnnsample.store import SampleStore

from ..helpers import run_inprocess

BASE = ["dataset=two_batch_gaussian", "chains=20", "burn_in=20", "samples=5", "thin=4", "evaluate=false"]


@pytest.mark.parametrize(
    "overrides,name",
    [
        (["integrator=adl"], "friction"),
        (["integrator=adl", "integrator.friction_kind=full"], "friction"),
        (["integrator=sgnht"], "friction"),
        (["integrator=ccadl", "dataset=gaussian_points"], "friction"),
        (["integrator=sms_ghmc"], "acceptance_rate"),
        (["integrator=sghmc", "dataset=gaussian_points"], "noise_clipped"),
    ],
)
def test_scheme_diagnostics_follow_the_state(tmp_path, overrides, name):
    path, _ = run_inprocess(tmp_path, [*BASE, *overrides])
    with SampleStore(path) as s:
        diag = s.diagnostics()
        state = s.read_state()
    assert name in diag and diag[name].shape == (20, 5)
    last = diag[name][:, -1]
    if name == "friction":
        xi = state["tensor/xi"]
        expect = np.einsum("cii->c", xi) / xi.shape[1] if xi.ndim == 3 else xi.reshape(20, -1).mean(1)
        np.testing.assert_allclose(last, expect, rtol=1e-12)
        assert np.all(np.diff(diag[name], axis=1) != 0)  # the thermostat moves
    elif name == "acceptance_rate":
        np.testing.assert_allclose(last, state["tensor/accepted"] / state["tensor/proposed"], rtol=1e-12)
        assert np.all((last >= 0) & (last <= 1)) and last.mean() > 0.5
    else:
        np.testing.assert_array_equal(last, state["tensor/noise_clipped"])
