"""model.precision (models/precision.py): the network's passes in float32, TF32 or bf16 autocast,
the sampler's state and arithmetic in the run's dtype. The laws at tiny sizes on the CPU: tf32 is
float32 there (its switches act on CUDA only); bf16's draws of a Gaussian posterior keep the exact
stationary law of the discrete scheme within Monte Carlo error and bf16's rounding."""

import numpy as np
import pytest
import torch

from bnnsample.analysis.stationary import linear_scheme_moments, ubu_affine
from bnnsample.models.cnn import cnn_small
from bnnsample.models.network import ClassifierPotential
from bnnsample.models.precision import network_arithmetic, resolve_precision, tf32_enabled
from bnnsample.plumbing.errors import UserError
from bnnsample.stats import chain_mean_se, chain_var_se
from bnnsample.train import train_adam_swa, train_runs

from ..helpers import run_inprocess
from .test_custom import _theta

BF16_UNIT = 2.0**-8  # bfloat16's unit roundoff (8 significant bits)


def _switches():
    return tf32_enabled()


def test_auto_is_tf32_on_cuda_float32_elsewhere_and_unknown_names_the_field():
    assert resolve_precision("auto", torch.device("cuda")) == "tf32"
    assert resolve_precision("auto", torch.device("cpu")) == "float32"
    assert resolve_precision("bf16", torch.device("cpu")) == "bf16"
    with pytest.raises(UserError, match=r"model.precision=fp8: allowed values: auto, float32, tf32, bf16"):
        resolve_precision("fp8", torch.device("cpu"))


@pytest.mark.parametrize("precision, tf32", [("float32", False), ("tf32", True), ("bf16", True)])
def test_switches_inside_and_restored_after(precision, tf32):
    before = _switches()
    with network_arithmetic(precision, torch.device("cpu")):
        assert _switches() == (tf32, tf32)
        assert torch.is_autocast_enabled("cpu") == (precision == "bf16")
    assert _switches() == before and not torch.is_autocast_enabled("cpu")


def _potential(precision, chain_batching="loop"):
    torch.manual_seed(0)
    module = cnn_small(in_channels=1, n_classes=10, image_size=12)
    g = torch.Generator().manual_seed(1)
    x, y = torch.rand(64, 1, 12, 12, generator=g), torch.randint(10, (64,), generator=g)
    return ClassifierPotential(module, x, y, x[:8], chain_batching=chain_batching, memory_format="contiguous",
                               precision=precision)  # fmt: skip


@pytest.mark.parametrize("batching", ["loop", "vmap"])
def test_bf16_force_is_float32_close_to_float32_and_not_equal(batching):
    """The force comes back in the state's dtype; bf16 moves it by a few units of bf16's
    roundoff relative to its size (the passes round every product's inputs), and does move it
    (autocast is on: the test fails if the option does nothing). tf32 gives float32's bits on
    the CPU, and so do Hessian-vector products under bf16 (no autocast for forward mode). The
    prediction is float32 arithmetic under every precision."""
    pots = {p: _potential(p, batching) for p in ("float32", "tf32", "bf16")}
    x = pots["float32"].layout.flatten(pots["float32"].module)[None].repeat(2, 1)
    x[1] += 0.01 * torch.randn(x.shape[1], generator=torch.Generator().manual_seed(2))
    idx = torch.randint(64, (2, 16), generator=torch.Generator().manual_seed(3))
    f = {p: pot.force(x, idx, 4.0) for p, pot in pots.items()}
    assert all(v.dtype == torch.float32 for v in f.values())
    assert torch.equal(f["tf32"], f["float32"])
    rel = ((f["bf16"] - f["float32"]).norm(dim=1) / f["float32"].norm(dim=1)).max().item()
    assert 0 < rel < 40 * BF16_UNIT, rel
    u = torch.randn_like(x)
    hv32, hv16 = pots["float32"].hvp(x, u, idx, 4.0), pots["bf16"].hvp(x, u, idx, 4.0)
    assert torch.equal(hv16, hv32)  # forward-mode products run in tf32 (= float32 on the CPU) under bf16
    assert torch.equal(pots["bf16"].predict(x), pots["float32"].predict(x))


def test_bf16_training_same_on_both_paths_and_near_float32():
    """Adam/SWA in bf16: the stacked path (train_runs, through the force) and the ordinary
    module's path (train_adam_swa) give the same float32 iterates, as they do in float32 (a
    stale autocast cache of the module's bf16 weights, held over the steps, broke this), and
    they differ from float32 training's by a fraction of the distance trained."""
    out = {}
    kw = dict(train_epochs=2, swa_epochs=1, lr=1e-3, swa_lr=1e-3, batch_size=16)
    for p in ("float32", "bf16"):
        pot = _potential(p)
        x0 = pot.layout.flatten(pot.module)[None].clone()
        out[p, "runs"] = train_runs(pot, x0, generators=[torch.Generator().manual_seed(4)], **kw).swa[0]
        out[p, "module"] = train_adam_swa(_potential(p), generator=torch.Generator().manual_seed(4), **kw).swa
    b = out["bf16", "runs"]
    assert b.dtype == torch.float32 and torch.isfinite(b).all()
    assert torch.equal(out["float32", "runs"], out["float32", "module"]) and torch.equal(b, out["bf16", "module"])
    moved = (out["float32", "runs"] - x0[0]).norm()
    assert 0 < (b - out["float32", "runs"]).norm() < 0.3 * moved


def test_bf16_ubu_draws_keep_the_exact_stationary_law(tmp_path):
    """Bayesian linear regression through a user's torch.nn.Linear (a Gaussian posterior, as in
    test_custom's float64 test), UBU with full batches, float32 state, the network's passes in
    bf16: each coordinate's mean and variance agree with the exact stationary moments of UBU's
    discrete recursion within 4 standard errors plus bf16's rounding (its unit roundoff times
    the coordinate's posterior scale); the draws differ from float32's of the same seed."""
    from bnnsample.config import compose
    from bnnsample.data import load_data

    rng = np.random.default_rng(5)
    x = rng.normal(size=(40, 2))
    np.savez(tmp_path / "lin.npz", x=x, y=x @ [0.5, -1.0] + 0.3 + rng.normal(size=40))
    lam, h, gamma = 2.0, 0.1, 5.0
    data_args = ["dataset=files", f"dataset.train={tmp_path / 'lin.npz'}", "dataset.task=regression",
                 "dataset.standardize=false"]  # fmt: skip
    theta = {}
    for p in ("float32", "bf16"):
        path, _ = run_inprocess(
            tmp_path / p,
            ["model=custom", "model.net._target_=torch.nn.Linear", "+model.net.in_features=2",
             "+model.net.out_features=1", f"model.prior_precision={lam}", "model.noise_var=1.0",
             "model.chain_batching=vmap", f"model.precision={p}", *data_args, "init=zeros", "integrator=ubu",
             "dtype=float32", "chains=250", f"step_size={h}", f"friction={gamma}", "unit=step", "burn_in=200",
             "thin=3", "samples=300", "seed=2"],
        )  # fmt: skip
        theta[p] = _theta(path)[0]
    data = load_data(compose(data_args))
    z = np.c_[data.x_train.double().numpy(), np.ones(data.n_train)]
    a = lam * np.eye(3) + z.T @ z
    r = z.T @ data.y_train.double().numpy()
    ((mean, cov),) = linear_scheme_moments(lambda hm, rr: ubu_affine(hm, rr, h, gamma), np.zeros((1, 3)),
                                           np.zeros((1, 3)), a, r, "full", 1)  # fmt: skip
    t = theta["bf16"]
    assert t.dtype == np.float32 and 1e-5 < np.abs(t - theta["float32"]).max() < 0.05
    for j in range(3):
        m, m_se = chain_mean_se(t[:, :, j])
        v, v_se = chain_var_se(t[:, :, j])
        scale = abs(mean[j]) + cov[j, j] ** 0.5
        assert abs(m - mean[j]) < 4 * m_se + BF16_UNIT * scale, (j, m, mean[j], m_se)
        assert abs(v - cov[j, j]) < 4 * v_se + 2 * BF16_UNIT * cov[j, j], (j, v, cov[j, j], v_se)


def test_compiled_network_force_is_the_same_function(tmp_path, capfd):
    """compile=true on a network target: the force goes through torch.compile (training and sampling
    call it), computing the eager force's numbers up to the order of float32 sums; a run's draws stay
    within float32 rounding of the eager run's of the same seed."""
    pot = _potential("float32")
    x = pot.layout.flatten(pot.module)[None].repeat(2, 1)
    idx = torch.randint(64, (2, 16), generator=torch.Generator().manual_seed(3))
    eager = pot.force(x, idx, 4.0)
    pot.compile_force()
    compiled = pot.force(x, idx, 4.0)
    assert hasattr(pot.force, "_torchdynamo_orig_callable")  # the instance's force is the compiled one
    assert torch.allclose(compiled, eager, rtol=1e-4, atol=1e-4 * eager.abs().max().item())
    rng = np.random.default_rng(5)
    xs = rng.normal(size=(40, 2))
    np.savez(tmp_path / "lin.npz", x=xs, y=xs @ [0.5, -1.0] + 0.3 + rng.normal(size=40))
    args = ["model=custom", "model.net._target_=torch.nn.Linear", "+model.net.in_features=2",
            "+model.net.out_features=1", "model.noise_var=1.0", "model.chain_batching=vmap", "dataset=files",
            f"dataset.train={tmp_path / 'lin.npz'}", "dataset.task=regression", "dataset.standardize=false",
            "init=zeros", "integrator=ubu", "dtype=float32", "chains=20", "step_size=0.1", "unit=step",
            "burn_in=20", "samples=10", "seed=2", "evaluate=false"]  # fmt: skip
    theta = {}
    for c in ("false", "true"):
        theta[c] = _theta(run_inprocess(tmp_path / c, [*args, f"compile={c}"])[0])[0]
        out = capfd.readouterr()
        assert ("the network's force (forward and backward) compiled" in out.out + out.err) == (c == "true")
    assert np.abs(theta["true"] - theta["false"]).max() < 1e-4
