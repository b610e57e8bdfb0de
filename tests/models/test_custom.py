"""A user's own network, data and log density (docs/custom.md): model=custom, dataset=files,
model=log_density and the Python API (bnnsample.run, load, sample)."""

import shlex
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import bnnsample
from bnnsample.analysis.stationary import linear_scheme_moments, ubu_affine
from bnnsample.plumbing.errors import UserError
from bnnsample.stats import chain_mean_se, chain_var_se
from bnnsample.store import SampleStore
from examples.usernets import COV, MEAN, PRECISION, TwoLayerNet, gaussian_log_density

from ..helpers import run_inprocess

ROOT = Path(__file__).resolve().parents[2]
SHORT = ["unit=step", "burn_in=3", "samples=3", "thin=2"]


def _theta(path):
    with SampleStore(path) as s:
        return s.theta(), s.f["predictive"][:] if "predictive" in s.f else None


def _regression_files(tmp_path, n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    y = x @ np.arange(1.0, d + 1) + 0.3 * rng.normal(size=n) + 5.0
    header = ",".join([f"f{j}" for j in range(d)] + ["target"])
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    np.savetxt(train, np.c_[x[: n - 20], y[: n - 20]], delimiter=",", header=header, comments="")
    np.savetxt(test, np.c_[x[n - 20 :], y[n - 20 :]], delimiter=",", header=header, comments="")
    return train, test


# -- model=custom is the built-in networks' posterior ------------------------------------------------
def test_custom_cnn_matches_builtin(tmp_path):
    """cnn_small given as the user's _target_ (no prior on biases, as the built-in) gives the built-in
    model's draws and predictive bit for bit: Adam+SWA localization, BatchNorm calibration, sms_ubu."""
    common = ["dataset=digits", "chains=2", "batch_size=100", "init.train_epochs=1", "init.swa_epochs=1", *SHORT]
    builtin, _ = run_inprocess(tmp_path / "builtin", ["model=cnn_small", *common])
    custom, _ = run_inprocess(
        tmp_path / "custom",
        ["model=custom", "model.net._target_=bnnsample.models.cnn.cnn_small", "+model.net.in_channels=1",
         "+model.net.n_classes=10", "+model.net.image_size=8", "model.prior_on_bias=false", *common],
    )  # fmt: skip
    (a, pa), (b, pb) = _theta(builtin), _theta(custom)
    assert a.shape == b.shape and np.isfinite(a).all()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(pa, pb)
    # the power of the comparison: another seed gives other draws
    other, _ = run_inprocess(tmp_path / "other", ["model=cnn_small", *common, "seed=1"])
    assert not np.allclose(_theta(other)[0], a)


@pytest.mark.parametrize("batching, control_variate", [("loop", False), ("vmap", True)])
def test_custom_mlp_regression_matches_ntk_mlp(tmp_path, batching, control_variate):
    """ntk_mlp's network given as the user's _target_, on the user's CSV files: the autograd
    potential of model=custom (Gaussian likelihood, predictions in original units) gives the draws
    and predictive of ntk_mlp's hand-written gradients, to rounding, with either chain batching and
    with the control variate."""
    train, test = _regression_files(tmp_path)
    common = ["dataset=files", f"dataset.train={train}", f"dataset.test={test}", "init=zeros", "chains=3",
              "dtype=float64", "batching=reshuffle", "integrator=sg_ubu", "batch_size=10", "step_size=0.05",
              "friction=2.0", f"control_variate={str(control_variate).lower()}", *SHORT]  # fmt: skip
    builtin, _ = run_inprocess(tmp_path / "b", ["model=ntk_mlp", "model.hidden=[8]", "model.noise_var=0.2", *common])
    custom, _ = run_inprocess(
        tmp_path / "c",
        ["model=custom", "model.net._target_=bnnsample.models.mlp.ntk_mlp_module", "+model.net.d_in=3",
         "+model.net.hidden=[8]", "+model.net.d_out=1", "model.noise_var=0.2", f"model.chain_batching={batching}",
         *common],
    )  # fmt: skip
    (a, pa), (b, pb) = _theta(builtin), _theta(custom)
    assert np.isfinite(a).all() and np.abs(a).max() > 0.01
    np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(pb, pa, rtol=1e-9, atol=1e-9)
    assert abs(pa.mean() - 5.0) < 3.0  # means in original units (targets around 5)


def test_custom_run_resumes_bit_exact_and_evaluates(tmp_path, monkeypatch):
    """A model=custom run on dataset=files given by a relative path, stopped after 2 draws and
    resumed by the same command from its directory, gives the uninterrupted run's draws; its
    stored config (absolute data path) rebuilds the target for the evaluation from elsewhere."""
    from bnnsample.evaluate.report import evaluate_run
    from bnnsample.plumbing.errors import Interrupted

    from ..helpers import stop_after_draws

    _regression_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    ovr = ["model=custom", "model.net._target_=examples.usernets.TwoLayerNet", "+model.net.d_in=3",
           "+model.net.hidden=4", "model.noise_var=0.2", "dataset=files", "dataset.train=train.csv",
           "dataset.test=test.csv", "chains=2", "batch_size=8", "init.train_epochs=1", "init.swa_epochs=1",
           "unit=step", "burn_in=3", "samples=5", "thin=2"]  # fmt: skip
    full, _ = run_inprocess(tmp_path / "a", ovr)
    stop_after_draws(monkeypatch, 2)
    with pytest.raises(Interrupted):
        run_inprocess(tmp_path / "b", ovr)
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    resumed, _ = run_inprocess(tmp_path / "b", ovr)
    (a, pa), (b, pb) = _theta(full), _theta(resumed)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(pa, pb)
    monkeypatch.chdir(ROOT)
    table = evaluate_run(tmp_path / "b")
    assert {"rmse", "nll"} <= set(table["metric"])


def _documented_command(doc: str) -> list[str]:
    """The overrides of the `bnnsample run model=custom ...` command of README.md or docs/custom.md."""
    text = (ROOT / doc).read_text().replace("\\\n", " ")
    line = next(ln for ln in text.splitlines() if ln.strip().strip("`").startswith("bnnsample run model=custom"))
    command = shlex.split(line.strip().strip("`").split("bnnsample run", 1)[1])
    return [o for o in command if not o.startswith("hydra.run.dir=")]


@pytest.mark.parametrize("doc", ["README.md", "docs/custom.md"])
def test_documented_example_runs_and_learns(tmp_path, monkeypatch, doc):
    """The documented example as written, from the repository root, through bnnsample.run: the
    user's two-layer network on their CSV (examples/houses.csv, a seeded 20% test split), evaluated;
    bnnsample.load gives draws, predictive and metrics, and the RMSE is near the noise (0.3)."""
    overrides = _documented_command(doc)
    assert "model.net._target_=examples.usernets.TwoLayerNet" in overrides
    monkeypatch.chdir(ROOT)
    run_dir = bnnsample.run([*overrides, "progress=false", f"hydra.run.dir={tmp_path / 'run'}"])
    assert run_dir == tmp_path / "run"
    run = bnnsample.load(run_dir)
    assert run.draws.shape[:2] == (4, 8) and run.predictive.shape == (4, 8, 60, 1) and not run.diverged.any()
    rmse = float(run.metrics.query("metric == 'rmse'")["value"].iloc[0])
    assert 0.2 < rmse < 0.8 < float(np.std(run.targets))  # price = a + 2b + 3c + 5 + noise(0.3), spread 3.7
    assert run.config["dataset"]["train"] == str(ROOT / "examples/houses.csv")  # stored absolute
    idata = run.to_arviz()
    assert idata.posterior["theta"].shape[:2] == (4, 8)


def test_custom_bad_network_is_one_line(tmp_path):
    train, _ = _regression_files(tmp_path)
    base = [
        "dataset=files",
        f"dataset.train={train}",
        "init=zeros",
        "model.noise_var=0.1",
        "model=custom",
        "batch_size=8",
    ]
    cases = {
        "model.net._target_=nomodule_xyz.Net": "model.net._target_=nomodule_xyz.Net: cannot import module nomodule_xyz",
        "model.net._target_=examples.usernets.NoSuchNet": "has no NoSuchNet",
        "model.net._target_=examples.usernets.gaussian_log_density": "building it failed",
        "model.net._target_=examples.usernets.TwoLayerNet": "building it failed (TypeError",  # d_in missing
    }
    for override, expected in cases.items():
        with pytest.raises(UserError) as e:
            run_inprocess(tmp_path / "r", [*base, override])
        assert expected in str(e.value) and "\n" not in str(e.value), str(e.value)
    with pytest.raises(UserError, match=r"outputs of shape \[2, 4\].*needs \[n, 1\]"):
        run_inprocess(tmp_path / "r", [*base, "model.net._target_=examples.usernets.TwoLayerNet", "+model.net.d_in=3",
                                       "+model.net.d_out=4"])  # fmt: skip


# -- a log density -----------------------------------------------------------------------------------
H, GAMMA, CHAINS, BURN, THIN, SAMPLES = 0.5, 1.0, 2000, 300, 2, 300


def test_sample_gaussian_matches_exact_ubu_moments():
    """UBU on the user's Gaussian log density through bnnsample.sample: the pooled mean, both
    variances and the variance of theta_0 + theta_1 (hence the covariance) agree with the exact
    stationary moments of UBU's discrete recursion (analysis.stationary) within 4 standard errors;
    power: the exact moments of the SDE (the target itself) are many standard errors away."""
    out = bnnsample.sample(gaussian_log_density, torch.zeros(CHAINS, 2, dtype=torch.float64), integrator="ubu",
                           step_size=H, friction=GAMMA, burn_in=BURN, samples=SAMPLES, thin=THIN, seed=3)  # fmt: skip
    assert out.draws.shape == (CHAINS, SAMPLES, 2) and not out.diverged.any()
    P, m = PRECISION.numpy(), MEAN.numpy()
    # U(x) = (x - m)^T P (x - m) / 2: force P x - P m, no data (one zero datum term)
    step = lambda Hm, r: ubu_affine(Hm, r, H, GAMMA)  # noqa: E731
    ((mean, cov),) = linear_scheme_moments(step, np.zeros((1, 2)), np.zeros((1, 2)), P, P @ m, "full", 1)
    mean, cov = mean[:2], cov[:2, :2]
    draws = out.draws.numpy()
    for e in (np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([1.0, 1.0])):
        proj = draws @ e
        mu, mu_se = chain_mean_se(proj)
        v, v_se = chain_var_se(proj)
        assert abs(mu - e @ mean) < 4 * mu_se, (e, mu, e @ mean, mu_se)
        assert abs(v - e @ cov @ e) < 4 * v_se, (e, v, e @ cov @ e, v_se)
        if e[1] == 0:  # power: the step-size bias of the variance, O(h^2), is resolved
            assert abs(e @ cov @ e - e @ COV.numpy() @ e) > 6 * v_se
    idata = out.to_arviz()
    assert idata.posterior["theta"].shape == (CHAINS, SAMPLES, 2)


def test_sample_is_the_cli_run(tmp_path):
    """bnnsample.sample and `bnnsample run dataset=none model.fn=...` (model=log_density) give the
    same draws: the same kernel, seeds and blocks."""
    kw = dict(step_size=0.3, friction=1.0, burn_in=20, samples=5, thin=3, seed=4)
    out = bnnsample.sample("examples.usernets.gaussian_log_density", torch.zeros(3, 2, dtype=torch.float64), **kw)
    path, _ = run_inprocess(
        tmp_path,
        ["dataset=none", "model.fn=examples.usernets.gaussian_log_density", "model.dim=2", "chains=3",
         *(f"{k}={v}" for k, v in kw.items())],
    )  # fmt: skip
    np.testing.assert_array_equal(_theta(path)[0], out.draws.numpy())


def test_log_density_errors_are_one_line():
    cases = [
        (("nomodule_xyz.f", torch.zeros(2, 2)), {}, "log_density=nomodule_xyz.f: cannot import module nomodule_xyz"),
        ((lambda t: t.sum(), torch.zeros(2, 2)), {}, "it must return a tensor of shape (2,)"),
        ((gaussian_log_density, torch.zeros(2)), {}, "init has shape (2,); it must be [chains, d]"),
        ((gaussian_log_density, torch.zeros(2, 2)), {"integrator": "nope"}, "integrator=nope: allowed values"),
        ((gaussian_log_density, torch.zeros(2, 2)), {"samples": 0}, "samples=0: must be an integer >= 1"),
    ]
    for args, kw, expected in cases:
        with pytest.raises(UserError) as e:
            bnnsample.sample(*args, burn_in=1, **{"samples": 2, **kw})
        assert expected in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_example_network_module():
    net = TwoLayerNet(3, hidden=4, d_out=2)
    assert net(torch.zeros(5, 3)).shape == (5, 2)


class BNNet(torch.nn.Module):
    """A user's network with PyTorch's default BatchNorm (momentum 0.1)."""

    def __init__(self, d_in: int, n_classes: int):
        super().__init__()
        self.f = torch.nn.Sequential(torch.nn.Linear(d_in, 6), torch.nn.BatchNorm1d(6), torch.nn.Tanh(),
                                     torch.nn.Linear(6, n_classes))  # fmt: skip

    def forward(self, x):
        return self.f(x)


def test_custom_batchnorm_prediction_depends_on_the_draw_only(tmp_path):
    """A draw's predictive is set by its own calibration batch, whatever was predicted before
    (model=custom gives the user's BatchNorm momentum 1, as the built-in networks have); the force is
    the gradient of the energy (batch statistics in both), and the per-datum gradients sum to it."""
    from omegaconf import OmegaConf

    from bnnsample.models import build_potential

    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3))
    np.savez(tmp_path / "d.npz", x=x, y=(x[:, 0] > 0).astype(int))
    from bnnsample.data import load_data

    data = load_data(OmegaConf.create({"dataset": {"name": "files", "train": str(tmp_path / "d.npz")}}))
    cfg = OmegaConf.create({"name": "custom", "net": {"_target_": "tests.models.test_custom.BNNet", "d_in": 3, "n_classes": 2},
                            "prior_precision": 1.0, "n_calibration": 16})  # fmt: skip
    pot = build_potential(cfg, data, torch.device("cpu"), torch.float64, seed=0)
    a, b = torch.randn(2, pot.dim, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    first = pot.predict_one(a)
    pot.predict_one(b)
    torch.testing.assert_close(pot.predict_one(a), first, rtol=0, atol=0)
    # force = grad of energy, per-datum gradients sum to the data part (BatchNorm: the batch's terms)
    x0 = torch.stack([a, b])
    idx = torch.arange(8)
    leaf = x0.clone().requires_grad_(True)
    energy = sum(pot._batch_loss(leaf[c], data.x_train[idx].double(), data.y_train[idx]) for c in range(2))
    (g,) = torch.autograd.grad(energy, leaf)
    prior = pot.lam * pot.mask * x0
    torch.testing.assert_close(pot.force(x0, idx, 1.0), g + prior)
    torch.testing.assert_close(pot.per_datum_grads(x0, idx).sum(1), g)


def test_user_module_from_model_path_and_its_import_errors(tmp_path, monkeypatch):
    """A module outside PYTHONPATH and the current directory is found through model.path; a module
    that imports a missing package, or raises, is named in one line."""
    from bnnsample.models.custom import import_object

    (tmp_path / "usermod_i45.py").write_text("import torch\n\ndef f(theta):\n    return -(theta**2).sum(-1)\n")
    (tmp_path / "usermod_i45_dep.py").write_text("import nosuchpackage_i45\n")
    (tmp_path / "usermod_i45_raises.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "path", list(sys.path))
    with pytest.raises(UserError, match=r"model.fn=usermod_i45.f: cannot import module usermod_i45 \(searched"):
        import_object("usermod_i45.f", "model.fn")
    f = import_object("usermod_i45.f", "model.fn", path=tmp_path)
    assert float(f(torch.ones(1, 2))[0]) == -2.0
    with pytest.raises(UserError, match=r"importing usermod_i45_dep failed: No module named 'nosuchpackage_i45'"):
        import_object("usermod_i45_dep.x", "model.fn", path=tmp_path)
    with pytest.raises(UserError, match=r"importing usermod_i45_raises failed: RuntimeError: boom"):
        import_object("usermod_i45_raises.x", "model.fn", path=tmp_path)
    out = bnnsample.sample("usermod_i45.f", torch.zeros(4, 2), step_size=0.2, burn_in=5, samples=3)
    assert out.draws.shape == (4, 3, 2) and out.draws.dtype == torch.float32


def test_custom_linear_regression_matches_exact_ubu_moments(tmp_path):
    """A user's torch.nn.Linear on their .npz (dataset.standardize=false): Bayesian linear regression,
    theta = (w, b) with prior N(0, I / lam) and likelihood N(y; w.x + b, noise_var), a Gaussian
    posterior with precision A = lam I + Z^T Z / noise_var and A mean = Z^T y / noise_var (Z = [X, 1]).
    UBU's draws (full batch, chains batched by vmap) match the exact stationary moments of UBU's
    discrete recursion on it (within 4 standard errors), and differ from another step size's."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(40, 2))
    y = x @ [0.5, -1.0] + 0.3 + rng.normal(size=40)
    np.savez(tmp_path / "lin.npz", x=x, y=y)
    lam, noise_var, h, gamma, burn, thin, samples, chains = 2.0, 1.0, 0.1, 5.0, 200, 3, 300, 500
    path, _ = run_inprocess(
        tmp_path / "run",
        ["model=custom", "model.net._target_=torch.nn.Linear", "+model.net.in_features=2", "+model.net.out_features=1",
         f"model.prior_precision={lam}", f"model.noise_var={noise_var}", "model.chain_batching=vmap",
         "dataset=files", f"dataset.train={tmp_path / 'lin.npz'}", "dataset.task=regression",
         "dataset.standardize=false", "init=zeros", "integrator=ubu", "dtype=float64", f"chains={chains}",
         f"step_size={h}", f"friction={gamma}", "unit=step", f"burn_in={burn}", f"thin={thin}",
         f"samples={samples}", "seed=2"],
    )  # fmt: skip
    theta, _ = _theta(path)
    assert theta.shape == (chains, samples, 3)
    from bnnsample.config import compose
    from bnnsample.data import load_data

    data = load_data(compose(["dataset=files", f"dataset.train={tmp_path / 'lin.npz'}", "dataset.standardize=false",
                              "dataset.task=regression"]))  # fmt: skip
    Z = np.c_[data.x_train.double().numpy(), np.ones(data.n_train)]  # the flat order: weight (w1, w2), then bias
    A = lam * np.eye(3) + Z.T @ Z / noise_var
    r = Z.T @ data.y_train.double().numpy() / noise_var

    def exact(step):
        ((mean, cov),) = linear_scheme_moments(lambda Hm, rr: ubu_affine(Hm, rr, step, gamma), np.zeros((1, 3)),
                                               np.zeros((1, 3)), A, r, "full", 1)  # fmt: skip
        return mean[:3], cov[:3, :3]

    mean, cov = exact(h)
    np.testing.assert_allclose(mean, np.linalg.solve(A, r), rtol=1e-10)  # UBU's mean is the posterior mean
    other = exact(h / 4)[1]
    for j in range(3):
        m, m_se = chain_mean_se(theta[:, :, j])
        v, v_se = chain_var_se(theta[:, :, j])
        assert abs(m - mean[j]) < 4 * m_se, (j, m, mean[j], m_se)
        assert abs(v - cov[j, j]) < 4 * v_se, (j, v, cov[j, j], v_se)
    # power: the O(h^2) variance bias at h against h / 4 is resolved for the stiffest coordinate
    assert max(abs(cov[j, j] - other[j, j]) / chain_var_se(theta[:, :, j])[1] for j in range(3)) > 6


def test_run_failure_is_run_failed_with_the_commands_line(tmp_path):
    """bnnsample.run of a command that stops raises RunFailed with the line and exit code of the
    command (here one string, split as a shell would), and leaves no run behind."""
    from bnnsample.api import RunFailed

    with pytest.raises(RunFailed) as e:
        bnnsample.run(f"dataset=none model.fn=nomodule_xyz.f model.dim=2 hydra.run.dir={tmp_path / 'r'}")
    assert e.value.code == 2 and str(e.value).startswith("model.fn=nomodule_xyz.f: cannot import module nomodule_xyz")
    assert not (tmp_path / "r" / "samples.h5").exists()
