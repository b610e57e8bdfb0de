"""`bnnsample export RUN_DIR` writes the run as an ArviZ InferenceData that round-trips through
arviz.from_netcdf with the stored draws, and R-hat computed by ArviZ from it equals the one
`bnnsample evaluate` reports."""

import arviz as az
import numpy as np
import pandas as pd
import pytest

from bnnsample.store import SampleStore

from ..helpers import run_inprocess


def test_export_round_trip_and_rhat_equal_to_evaluate(tmp_path, cli):
    run_inprocess(tmp_path / "r", ["dataset=two_batch_gaussian", "chains=6", "samples=40"])
    assert cli("evaluate", str(tmp_path / "r")).returncode == 0
    out = cli("export", str(tmp_path / "r"))
    assert out.returncode == 0, out.stderr
    idata = az.from_netcdf(tmp_path / "r" / "posterior.nc")
    with SampleStore(tmp_path / "r" / "samples.h5") as s:
        theta, diag = s.theta(), s.diagnostics()
    post = idata.posterior["theta"]
    assert post.dims == ("chain", "draw", "theta_dim") and post.shape == theta.shape
    np.testing.assert_array_equal(post.values, theta)
    np.testing.assert_array_equal(idata.sample_stats["kinetic_temperature"].values, diag["kinetic_temperature"])
    assert not idata.sample_stats["diverging"].values.any()
    metrics = pd.read_csv(tmp_path / "r" / "metrics.csv")
    want = metrics[(metrics.group == "theta[0]") & (metrics.metric == "rhat")]["value"].iloc[0]
    got = float(az.rhat(idata.posterior, method="rank")["theta"].values[0])
    assert got == want


@pytest.mark.smoke
def test_export_of_a_classifier_holds_its_predictive(tmp_path, cli):
    run_inprocess(tmp_path / "r", ["dataset=digits", "model=cnn_small", "chains=2", "init=zeros", "unit=step",
                                   "burn_in=2", "samples=3", "store_theta=false", "evaluate=false",
                                   "dataset.n_test=20"])  # fmt: skip
    assert cli("export", str(tmp_path / "r")).returncode == 0
    idata = az.from_netcdf(tmp_path / "r" / "posterior.nc")
    assert idata.predictions["probabilities"].shape == (2, 3, 20, 10)
    assert idata.observed_data["y"].shape == (20,) and "posterior" not in idata.groups()
    bad = cli("export", str(tmp_path / "nothing"))
    assert bad.returncode == 2 and bad.stderr.startswith("bnnsample: error: export:") and "Traceback" not in bad.stderr


def test_export_names_a_networks_coordinates_by_parameter_and_index(tmp_path, cli):
    run_inprocess(tmp_path / "r", ["dataset=digits", "model=cnn_small", "chains=2", "init=zeros", "unit=step",
                                   "burn_in=1", "samples=2", "evaluate=false", "dataset.n_test=20"])  # fmt: skip
    assert cli("export", str(tmp_path / "r")).returncode == 0
    names = [str(n) for n in az.from_netcdf(tmp_path / "r" / "posterior.nc").posterior["theta_dim"].values]
    with SampleStore(tmp_path / "r" / "samples.h5") as s:
        assert len(names) == s.theta_dim == len(set(names))
    assert names[:2] == ["0.weight[0,0,0,0]", "0.weight[0,0,0,1]"]  # the first convolution, row-major
    assert names[-1].endswith(".bias[9]")  # the last layer's bias, one per class
