"""ntk_mlp (franzese2021 eq. 104) and two_layer_bnn (sekkat2023 §3.5): closed-form batched
gradients against autograd, per-datum gradients, parameter counts, smoke runs of every
tabular dataset config, and RMSE in original units from the evaluation stage."""

import math

import numpy as np
import pandas as pd
import pytest
import torch
from torch.func import functional_call, grad

from bnnsample.data import load_data
from bnnsample.models import build_potential
from bnnsample.plumbing.errors import UserError
from bnnsample.store import SampleStore
from tests.data.test_uci import write_fixture
from tests.helpers import compose_cfg, run_inprocess

F64 = torch.float64


def potential(dataset, model, overrides=()):
    cfg = compose_cfg([f"dataset={dataset}", f"model={model}", *overrides])
    data = load_data(cfg)
    return build_potential(cfg.model, data, torch.device("cpu"), F64, seed=3), data


CASES = [("boston", "ntk_mlp"), ("wine", "ntk_mlp"), ("breast_cancer", "ntk_mlp"), ("two_class_2d", "two_layer_bnn")]


def module_energy(pot, flat, xb, yb, scale):
    """U_0 + scale * sum_b U_i of one chain, written independently through the nn.Module."""
    out = functional_call(pot.module, pot.layout.unflatten(flat), (xb,))
    if pot.head == "gaussian":
        lik = ((out[:, 0] - yb) ** 2).sum() / (2 * pot.noise_var)
    elif pot.head == "sigmoid":
        p = torch.sigmoid(out[:, 0])
        lik = -(yb * torch.log(p) + (1 - yb) * torch.log1p(-p)).sum()
    else:
        lik = torch.nn.functional.cross_entropy(out, yb, reduction="sum")
    return 0.5 * pot.lam * (flat**2).sum() + scale * lik


@pytest.mark.parametrize("dataset,model", CASES)
def test_force_equals_autograd_of_energy(dataset, model):
    pot, _ = potential(dataset, model)
    gen = torch.Generator().manual_seed(0)
    C = 3
    x = torch.randn(C, pot.dim, generator=gen, dtype=F64)
    for idx, scale in [(None, 1.0), (torch.randint(0, pot.n_data, (16,), generator=gen), 7.5),
                       (torch.randint(0, pot.n_data, (C, 16), generator=gen), 7.5)]:  # fmt: skip
        f = pot.force(x, idx, scale)
        energies = pot.energy(x, idx, scale)
        for c in range(C):
            i = torch.arange(pot.n_data) if idx is None else (idx if idx.dim() == 1 else idx[c])
            xb, yb = pot.x_train[i], pot.y_train[i]
            g = grad(module_energy, argnums=1)(pot, x[c], xb, yb, scale)
            assert torch.allclose(f[c], g, rtol=0, atol=1e-10 * max(1.0, g.abs().max().item())), (f[c] - g).abs().max()
            assert energies[c].item() == pytest.approx(module_energy(pot, x[c], xb, yb, scale).item(), rel=1e-12)
        # and autograd of the potential's own energy
        xr = x.clone().requires_grad_(True)
        (ga,) = torch.autograd.grad(pot.energy(xr, idx, scale).sum(), xr)
        assert (ga - f).abs().max() < 1e-10 * max(1.0, f.abs().max().item())


@pytest.mark.parametrize("dataset,model", CASES)
def test_per_datum_grads_sum_to_the_force(dataset, model):
    pot, _ = potential(dataset, model)
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(2, pot.dim, generator=gen, dtype=F64)
    idx = torch.randint(0, pot.n_data, (2, 12), generator=gen)
    g = pot.per_datum_grads(x, idx)
    assert g.shape == (2, 12, pot.dim)
    scale = pot.n_data / 12
    assert (scale * g.sum(1) + pot.lam * x - pot.force(x, idx, scale)).abs().max() < 1e-10 * pot.force(
        x, idx, scale
    ).abs().max()
    # each row is its own datum's gradient (no prior)
    for c, j in [(0, 0), (1, 5)]:
        i = idx[c, j : j + 1]
        ref = grad(module_energy, argnums=1)(pot, x[c], pot.x_train[i], pot.y_train[i], 1.0) - pot.lam * x[c]
        assert (g[c, j] - ref).abs().max() < 1e-10 * max(1.0, ref.abs().max().item())
    shared = pot.per_datum_grads(x, idx[0])
    assert torch.allclose(shared[0], g[0], atol=1e-12)


@pytest.mark.parametrize("dataset,model", [("boston", "ntk_mlp"), ("two_class_2d", "two_layer_bnn")])
def test_hvp_matches_finite_differences_of_the_force(dataset, model):
    pot, _ = potential(dataset, model)
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(2, pot.dim, generator=gen, dtype=F64)
    u = torch.randn(2, pot.dim, generator=gen, dtype=F64)
    idx = torch.randint(0, pot.n_data, (2, 20), generator=gen)
    hv = pot.hvp(x, u, idx, 3.0)
    eps = 1e-6
    fd = (pot.force(x + eps * u, idx, 3.0) - pot.force(x - eps * u, idx, 3.0)) / (2 * eps)
    assert (hv - fd).abs().max() < 1e-6 * hv.abs().max()


def test_parameter_counts_and_layout():
    pot, _ = potential("boston", "ntk_mlp")  # 13 -> 50 -> 50 -> 50 -> 50 -> 1
    assert pot.dim == (13 * 50 + 50) + 3 * (50 * 50 + 50) + (50 + 1) == 8401
    pot, _ = potential("wine", "ntk_mlp")  # 13 -> 50 -> 50 -> 3
    assert pot.dim == (13 * 50 + 50) + (50 * 50 + 50) + (50 * 3 + 3) == 3403
    pot, _ = potential("two_class_2d", "two_layer_bnn")
    assert pot.dim == 32  # sekkat2023: d = 4 d1, d1 = 8
    assert pot.layout.names == ["layers.0.weight", "layers.0.bias", "layers.1.weight"]
    assert pot.layout.sizes == [16, 8, 8]  # W1, b, W2 (no output bias)


def test_ntk_scaling_and_outputs_by_hand():
    """eq. 104: f = W_2 relu(W_1 x / sqrt(D_0) + b_1) / sqrt(D_1) + b_2 (one hidden layer)."""
    pot, _ = potential("wine", "ntk_mlp", ["model.hidden=[7]"])
    gen = torch.Generator().manual_seed(4)
    flat = torch.randn(1, pot.dim, generator=gen, dtype=F64)
    p = pot.layout.unflatten(flat[0])
    w1, b1, w2, b2 = p["layers.0.weight"], p["layers.0.bias"], p["layers.1.weight"], p["layers.1.bias"]
    xs = pot.x_test
    h = torch.relu(xs @ w1.T / math.sqrt(13) + b1)
    f = h @ w2.T / math.sqrt(7) + b2
    assert torch.allclose(pot.outputs(flat, xs)[0], f, atol=1e-12)
    assert torch.allclose(pot.predict(flat)[0], torch.softmax(f, -1), atol=1e-12)
    # two_layer_bnn: sigmoid(W2 relu(W1 x + b)), no scaling, no output bias
    pot, _ = potential("two_class_2d", "two_layer_bnn")
    flat = torch.randn(1, 32, generator=gen, dtype=F64)
    w1, b, w2 = flat[0, :16].reshape(8, 2), flat[0, 16:24], flat[0, 24:]
    p1 = torch.sigmoid(torch.relu(torch.tensor([1.0, 1.5], dtype=F64) @ w1.T + b) @ w2)
    assert pot.predict(flat)[0, 0, 1].item() == pytest.approx(p1.item(), abs=1e-12)


def test_regression_predict_is_in_original_units():
    pot, data = potential("boston", "ntk_mlp")
    x = torch.randn(2, pot.dim, dtype=F64)
    out = pot.outputs(x, pot.x_test)
    assert torch.allclose(pot.predict(x), out * data.extras["y_std"] + data.extras["y_mean"])
    assert torch.allclose(
        pot.predict(torch.zeros(1, pot.dim, dtype=F64)), torch.tensor(data.extras["y_mean"], dtype=F64)
    )
    assert pot.noise_var == 0.2


@pytest.mark.parametrize("dataset,model,overrides", [
    ("wine", "two_layer_bnn", []),                    # three classes
    ("digits", "ntk_mlp", []),                        # images, not a design matrix
    ("boston", "ntk_mlp", ["~dataset.noise_var"]),    # no noise variance anywhere
    ("boston", "ntk_mlp", ["model.hidden=[0]"]),
])  # fmt: skip
def test_builders_refuse_unsuitable_data_in_one_line(dataset, model, overrides):
    with pytest.raises(UserError) as e:
        potential(dataset, model, overrides)
    assert "\n" not in str(e.value) and "model" in str(e.value)


# a fresh partition: boston's 455, diabetes' 398 and the fixtures' 25-36 training points are not multiples of
# their default batch sizes, which a fixed partition (sms, reshuffle) refuses
SMOKE = ["chains=2", "unit=step", "burn_in=5", "samples=5", "thin=1", "init=zeros", "evaluate=false",
         "batching.partition=fresh"]  # fmt: skip
DATASETS = [("boston", "ntk_mlp"), ("concrete", "ntk_mlp"), ("energy", "ntk_mlp"), ("yacht", "ntk_mlp"),
            ("diabetes", "ntk_mlp"), ("ionosphere", "ntk_mlp"), ("vehicle", "ntk_mlp"),
            ("breast_cancer", "ntk_mlp"), ("wine", "ntk_mlp"), ("two_class_2d", "two_layer_bnn")]  # fmt: skip


@pytest.mark.parametrize("dataset,model", DATASETS)
def test_smoke_run_every_dataset_config(tmp_path, dataset, model):
    cfg = compose_cfg([f"dataset={dataset}"])
    assert cfg.model.name == model  # the dataset config picks its model
    data_dir = tmp_path / "data"
    extra = []
    if dataset in ("concrete", "energy", "yacht", "ionosphere", "vehicle"):
        write_fixture(dataset, data_dir, np.random.default_rng(0))
        extra = ["batch_size=8"]  # the fixtures have 25 to 36 training points
    path, cfg = run_inprocess(
        tmp_path / "run", [f"dataset={dataset}", f"model={model}", f"data_dir={data_dir}", *SMOKE, *extra]
    )
    with SampleStore(path) as s:
        assert s.complete and s.n_draws == 5 and not s.diverged().any()
        theta = s.theta()
        assert theta.shape[:2] == (2, 5) and np.isfinite(theta).all() and np.abs(theta).max() > 0
        pred = s.predictive()
        if data_is_classification := dataset not in ("boston", "concrete", "energy", "yacht", "diabetes"):
            assert pred is not None and np.allclose(pred.sum(-1), 1.0, atol=1e-5)
        assert data_is_classification == (cfg.dataset.get("noise_var") is None)


def test_regression_run_reports_rmse_in_original_units(tmp_path):
    from bnnsample.evaluate.report import evaluate_run

    path, cfg = run_inprocess(tmp_path, ["dataset=boston", *SMOKE])
    data = load_data(cfg)
    y, y_mean, y_std = data.y_test.double().numpy(), data.extras["y_mean"], data.extras["y_std"]
    table = evaluate_run(tmp_path)
    rows = pd.read_csv(tmp_path / "metrics.csv").set_index(["group", "metric"])["value"]
    # the RMSE of the draws' mean prediction, recomputed here from theta
    pot = build_potential(cfg.model, data, torch.device("cpu"), F64)
    with SampleStore(path) as s:
        theta = torch.as_tensor(s.theta(), dtype=F64).reshape(-1, pot.dim)
    mbar = pot.predict(theta)[..., 0].mean(0).numpy()
    assert rows["bayes", "rmse"] == pytest.approx(np.sqrt(np.mean((mbar - y) ** 2)), rel=1e-5)
    assert len(table) == len(rows)
    # a constant predictor (theta = 0 predicts the training mean) has RMSE = the test
    # targets' root-mean-square deviation from that mean, in original units (house prices, $1000s)
    with SampleStore(path, "r+") as s:
        s.f["theta"][...] = 0.0
        if "predictive" in s.f:
            s.f["predictive"][...] = y_mean
    evaluate_run(tmp_path)
    rows = pd.read_csv(tmp_path / "metrics.csv").set_index(["group", "metric"])["value"]
    expected = float(np.sqrt(np.mean((y - y_mean) ** 2)))
    assert 5 < expected < 15  # original units: Boston prices have std about 9.2
    assert rows["bayes", "rmse"] == pytest.approx(expected, rel=1e-6)
    # NLL in original units: one Gaussian N(y_mean, 0.2 y_std^2) per test point
    var = 0.2 * y_std**2
    nll = float(np.mean(0.5 * (y - y_mean) ** 2 / var + 0.5 * np.log(2 * np.pi * var)))
    assert rows["bayes", "nll"] == pytest.approx(nll, rel=1e-6)
