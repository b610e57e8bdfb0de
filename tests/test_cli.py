"""The command line as a user meets it: composition, bad input, divergence, the HDF5 contract."""

import math

import h5py
import numpy as np
import pandas as pd
import pytest
import torch

from bnnsample.plumbing.info import GROUPS
from bnnsample.plumbing.paths import conf_dir

from .helpers import compose_cfg


def all_options():
    for group in GROUPS:
        for f in sorted((conf_dir() / group).iterdir(), key=lambda p: p.name):
            if f.name.endswith(".yaml"):
                yield group, f.name[:-5]


@pytest.mark.parametrize("group,option", list(all_options()))
def test_every_config_composes(group, option):
    from bnnsample.config import validate

    cfg = compose_cfg([f"{group}={option}"])
    validate(cfg)
    if group == "dataset":
        assert cfg.dataset.name == option


@pytest.mark.smoke
def test_info_and_help(cli):
    out = cli("info")
    assert out.returncode == 0
    for word in ("sms_ubu", "sg_ubu_wor", "two_batch_gaussian", "mnist5k", "cnn_small", "reshuffle"):
        assert word in out.stdout
    out = cli("--help")
    assert out.returncode == 0 and "bnnsample run" in out.stdout.replace("commands:", "bnnsample run")


@pytest.mark.smoke
def test_info_descriptions_end_at_a_sentence_end():
    """Options described by their comment block get its first whole sentence, never a cut line."""
    from bnnsample.plumbing.info import first_sentence, group_options

    assert first_sentence("A (x. y). B.") == "A (x. y)."
    assert first_sentence("see Fig. 4 and Springenberg et al. 2016 with i.i.d. batches. Next") == (
        "see Fig. 4 and Springenberg et al. 2016 with i.i.d. batches."
    )
    assert first_sentence("no full stop") == "no full stop"
    for group in GROUPS:
        for name, desc in group_options(group).items():
            assert desc.count("(") == desc.count(")"), (group, name, desc)  # no sentence cut inside brackets
    assert group_options("experiment")["fmnist_cpu"].endswith(".")


@pytest.mark.smoke
def test_count_bounds_read_as_at_least_not_as_2_to_the_53(cli, tmp_path):
    from bnnsample.config import check_value

    assert check_value("chains", 0) == "chains=0: must be an integer >= 1"
    assert check_value("chains", 2**60).endswith("must be an integer >= 1, at most 2^53")
    assert check_value("seed", -1) == "seed=-1: must be an integer in 0..4294967295"
    out = cli("run", "dataset=two_batch_gaussian", "thin=0", f"hydra.run.dir={tmp_path}")
    assert (
        out.returncode == 2 and "thin=0: must be an integer >= 1" in out.stderr and "9007199254740992" not in out.stderr
    )


BAD = [
    (["step_size=-1"], "step_size"),
    (["step_size=abc"], "step_size"),
    (["chains=0"], "chains"),
    (["thin=0"], "thin"),
    (["samples=1.5"], "samples"),
    (["dtype=float16"], "dtype"),
    (["device=tpu"], "device"),
    (["batch_size=5000"], "batch_size"),
    (["integrator=sg_nogin"], "batch_size >= 2"),  # covariance estimate from batches of 1
    (["integrator=sghmc", "integrator.noise_correction=maybe"], "noise_correction"),
    (["control_variate=maybe"], "control_variate"),
    (["integrator=eadl", "burn_in=0"], "burn_in"),
    (["integrator=eadl", "integrator.edges=[[0,1],[0,1]]"], "edges"),
    (["runs=64"], "runs: no such key in the config; independent runs are chains=N"),
    (["+runs=64"], "runs=64: unknown key; independent runs are chains=N"),
    (["+stepsize=0.1"], "stepsize=0.1: unknown key (did you mean step_size?); top-level keys: batch_size"),
]


@pytest.mark.parametrize("overrides,field", BAD)
def test_bad_input_gives_one_line(cli, tmp_path, overrides, field):
    out = cli("run", "dataset=two_batch_gaussian", *overrides, f"hydra.run.dir={tmp_path}")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr + out.stdout
    lines = [ln for ln in out.stderr.splitlines() if "error" in ln.lower()]
    assert len(lines) == 1 and field in lines[0], out.stderr


def test_batch_size_larger_than_data_names_the_size(cli, tmp_path):
    out = cli("run", "dataset=two_batch_gaussian", "batch_size=3", f"hydra.run.dir={tmp_path}")
    assert out.returncode != 0 and "batch_size=3" in out.stderr and "2 points" in out.stderr


@pytest.mark.smoke
def test_unknown_option_lists_choices(cli, tmp_path):
    out = cli("run", "dataset=nope", f"hydra.run.dir={tmp_path}")
    assert out.returncode != 0
    assert "two_batch_gaussian" in out.stderr and "mnist5k" in out.stderr


@pytest.mark.smoke
def test_missing_image_files_one_line(cli, tmp_path):
    out = cli("run", "dataset=fmnist", f"data_dir={tmp_path / 'data'}", f"hydra.run.dir={tmp_path / 'run'}")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert "train-images-idx3-ubyte.gz" in out.stderr and "download=true" in out.stderr


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_non_finite_rows_is_isfinite_per_chain(dtype):
    """The divergence check flags exactly the rows with a NaN or an infinity in x or v, and
    never a row of finite entries, however large (whose plain sum would overflow)."""
    from bnnsample.sampler import non_finite_rows

    dt = getattr(torch, dtype)
    big = torch.finfo(dt).max
    g = torch.Generator().manual_seed(0)
    x, v = torch.randn(40, 7, generator=g).to(dt), torch.randn(40, 7, generator=g).to(dt)
    x[:4], v[4:8] = big, -big  # finite, summing past the largest float
    for t, r, c, val in ((x, 10, 3, math.nan), (x, 11, 0, math.inf), (v, 12, 6, -math.inf), (v, 13, 2, math.nan),
                         (x, 14, 1, math.inf), (v, 14, 1, -math.inf)):  # fmt: skip
        t[r, c] = val
    want = ~(torch.isfinite(x).all(dim=1) & torch.isfinite(v).all(dim=1))
    assert want[10:15].all() and not want[:10].any() and not want[15:].any()
    assert torch.equal(non_finite_rows(x, v), want)
    p = torch.ones(40, 3, 2, dtype=dt)  # a predictive [C, n_test, K]: any non-finite entry flags its row
    p[5, 2, 1] = math.nan
    assert non_finite_rows(p).nonzero().flatten().tolist() == [5]


def test_divergent_chains_are_flagged_and_others_go_on(tmp_path):
    """Chains started far out in a potential whose force overflows there turn Inf/NaN at once;
    they are flagged, the others keep sampling and stay finite."""
    import torch

    from bnnsample.batching import Schedule
    from bnnsample.integrators import StepContext, get_integrator
    from bnnsample.models.analytic import GaussianMean
    from bnnsample.plumbing.rng import GaussianNoise
    from bnnsample.sampler import LoopSettings, Sampler
    from bnnsample.store import SampleStore

    class Overflowing(GaussianMean):
        def force(self, x, idx, scale):
            f = super().force(x, idx, scale)
            return torch.where(x.abs() > 50, f * 1e308 * 1e308, f)

    pot = Overflowing(torch.tensor([[-1.0], [1.0]], dtype=torch.float64), torch.tensor([0.5, 2.0], dtype=torch.float64))
    x0 = torch.zeros(10, 1, dtype=torch.float64)
    x0[:3] = 100.0
    ctx = StepContext(h=0.1, gamma=1.0, noise=GaussianNoise("cpu", 0))
    integ = get_integrator("ubu")
    store = SampleStore.create(tmp_path / "s.h5", chains=10, draws=20, dim=1, store_theta=True, theta_dtype="float64")
    sched = Schedule("sms", 2, 1, chains=10, generator=torch.Generator().manual_seed(1))
    sampler = Sampler(pot, integ, sched, ctx, LoopSettings(burn_in=50, samples=20, thin=5, progress=False), store)
    sampler.run(integ.init_state(x0, ctx))
    store.close()
    with SampleStore(tmp_path / "s.h5") as s:
        div, theta = s.diverged(), s.theta()
    assert div.tolist() == [True] * 3 + [False] * 7
    assert np.isfinite(theta[~div]).all() and theta.shape == (10, 20, 1)
    assert np.abs(theta[~div].mean() + 15 / 17) < 0.3


def test_chains_with_finite_weights_and_overflowing_predictions_are_flagged(tmp_path):
    """A chain whose parameters stay finite but whose stored test predictive overflows (the
    outputs of large weights) is flagged diverged at that draw, so no metric reads its NaN;
    chains whose predictive stays finite are not."""
    import torch

    from bnnsample.batching import Schedule
    from bnnsample.integrators import StepContext, get_integrator
    from bnnsample.models.analytic import GaussianMean
    from bnnsample.plumbing.rng import GaussianNoise
    from bnnsample.sampler import LoopSettings, Sampler
    from bnnsample.store import SampleStore

    class Overflowing(GaussianMean):
        predictive_shape = (3, 1)

        def predict(self, x):  # exp(x * 1e3) overflows float32 for the chains near x = 100
            return torch.exp(x * 1e3)[:, None, :].expand(-1, 3, 1)

    pot = Overflowing(torch.tensor([[-1.0], [1.0]], dtype=torch.float64), torch.tensor([0.5, 2.0], dtype=torch.float64))
    x0 = torch.zeros(6, 1, dtype=torch.float64)
    x0[:2] = 100.0
    ctx = StepContext(h=0.01, gamma=1.0, noise=GaussianNoise("cpu", 0))
    integ = get_integrator("ubu")
    store = SampleStore.create(tmp_path / "s.h5", chains=6, draws=1, dim=1, store_theta=True, theta_dtype="float64",
                               predictive_shape=(3, 1))  # fmt: skip
    sched = Schedule("full", 2, 2, chains=6, generator=torch.Generator().manual_seed(1))
    sampler = Sampler(pot, integ, sched, ctx, LoopSettings(burn_in=0, samples=1, thin=1, progress=False), store)
    sampler.run(integ.init_state(x0, ctx))
    store.close()
    with SampleStore(tmp_path / "s.h5") as s:
        div, theta, pred = s.diverged(), s.theta(), s.predictive()
    assert np.isfinite(theta).all()
    assert (~np.isfinite(pred[:2])).all() and np.isfinite(pred[2:]).all()
    assert div.tolist() == [True] * 2 + [False] * 4


@pytest.mark.smoke
def test_hdf5_contract_and_metrics(cli, tmp_path):
    out = cli(
        "run", "dataset=two_batch_gaussian", "chains=300", "burn_in=200", "samples=40", "thin=2",
        f"hydra.run.dir={tmp_path}",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    with h5py.File(tmp_path / "samples.h5") as f:
        assert f["theta"].shape == (300, 40, 1)
        assert f["diverged"].shape == (300,) and f["diverged"].dtype == bool
        assert f["diagnostics/kinetic_temperature"].shape == (300, 40)
        for key in ("tensor/x", "tensor/v", "rng/noise", "rng/batch", "step", "draws"):
            assert key in f["state"], key
        assert int(f["state/step"][()]) == 200 + 40 * 2
        assert f.attrs["complete"] and f.attrs["draws"] == 40
        assert "two_batch_gaussian" in f.attrs["config"]
        assert f.attrs["integrator"] == "ubu" and f.attrs["batching"] == "sms"
        assert f.attrs["torch_version"] == torch.__version__ and f.attrs["numpy_version"] == np.__version__
        assert f.attrs["step_size"] == 0.0625 and f.attrs["batch_size"] == 1
    table = pd.read_csv(tmp_path / "metrics.csv")
    w1 = table.query("metric == 'w1'").value.iloc[0]
    assert 0 < w1 < 0.1
    value = table.set_index("metric").value
    assert w1 <= value["w2"] < 0.2  # W1 <= W2 for any pair of laws
    assert value["relative_var_error"] == pytest.approx(abs(value["var"] / value["posterior_var"] - 1), rel=1e-9)
    assert (tmp_path / "config.yaml").exists() and (tmp_path / "plots" / "marginal_theta0.png").exists()
    # `evaluate` alone reproduces the table
    (tmp_path / "metrics.csv").unlink()
    again = cli("evaluate", str(tmp_path))
    assert again.returncode == 0 and pd.read_csv(tmp_path / "metrics.csv").equals(table)


def test_file_grows_with_the_draws_written_not_the_draws_planned(tmp_path):
    """A run planned for 10^6 draws and stopped after 10 leaves a file of megabytes: theta and
    the per-draw diagnostics are chunked, so HDF5 allocates them as they are written."""
    from bnnsample.store import SampleStore

    chains, planned = 2000, 1_000_000  # contiguous, one float64 diagnostic would be 16 GB
    s = SampleStore.create(tmp_path / "s.h5", chains=chains, draws=planned, dim=1, store_theta=True)
    s.append(theta=np.zeros((chains, 10, 1), "float32"), diagnostics={"kinetic_temperature": np.ones((chains, 10))})
    s.close()
    assert (tmp_path / "s.h5").stat().st_size < 64 * 2**20
    with SampleStore(tmp_path / "s.h5") as s:
        assert s.f["diagnostics/kinetic_temperature"].shape == (chains, planned)
        assert s.f["diagnostics/kinetic_temperature"][:, :10].sum() == chains * 10


def test_evaluate_names_unreadable_runs(cli, tmp_path):
    bad = tmp_path / "0"
    bad.mkdir()
    (bad / "samples.h5").write_bytes(b"not hdf5")
    out = cli("evaluate", str(tmp_path))
    assert out.returncode != 0 and str(bad) in out.stdout


def test_help_names_the_files_a_run_writes(tmp_path, cli):
    """Every file the top-level --help says a run writes is in the run directory afterwards."""
    import re

    from bnnsample.cli import USAGE

    named = re.search(r"Output goes to .*?: (.*?)\.\s", USAGE, re.S).group(1).replace("\n", " ")
    files = [f.strip() for f in named.split(",")]
    assert "bnnsample.log" in files and "samples.h5" in files
    out = cli("run", "dataset=two_batch_gaussian", "chains=10", "samples=5", f"hydra.run.dir={tmp_path}")
    assert out.returncode == 0, out.stderr[-1000:]
    for f in files:
        assert (tmp_path / f.rstrip("/")).exists(), f


def test_stop_message_names_what_was_kept(tmp_path):
    """A run stopped while it trains its initial points names its training checkpoint, not
    'nothing was written'; the draws win once the store exists."""
    from bnnsample.cli import _kept_after_stop

    assert _kept_after_stop(tmp_path) == "nothing was written"
    (tmp_path / "training.pt").write_bytes(b"x")
    assert _kept_after_stop(tmp_path) == f"the training state is in {tmp_path / 'training.pt'}"
    (tmp_path / "samples.h5").write_bytes(b"x")
    assert _kept_after_stop(tmp_path).startswith("draws written so far are in")
