"""paulin2025 Algorithm 3 as the authors' code does it (fashion_MNIST_SMS_UBU.ipynb): Adam with linear decay,
a fresh Adam for SWA averaging after every step, BatchNorm momentum 1 with batch statistics
and a large-batch calibration before predicting, prior on non-bias parameters, bounces at
6/sqrt(lambda_loc), the step-size convention, and the Fig. 4 experiment configs."""

import math
from typing import ClassVar

import numpy as np
import pytest
import torch
from torch import nn

from bnnsample import train as train_mod
from bnnsample.models.cnn import ARCHITECTURES
from bnnsample.models.network import ClassifierPotential
from bnnsample.potential import ElasticBox

from .helpers import compose_cfg, run_inprocess


def tiny_potential(n=60, n_calibration=40, seed=0, prior=1.0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, 1, 8, 8, generator=g)
    y = torch.randint(3, (n,), generator=g)
    torch.manual_seed(seed)
    module = ARCHITECTURES["cnn_small"](in_channels=1, n_classes=3, image_size=8)
    return ClassifierPotential(module, x, y, x[:20], prior_precision=prior, n_calibration=n_calibration)


class RecordingAdam(torch.optim.Adam):
    log: ClassVar[list] = []

    def step(self, closure=None):
        out = super().step(closure)
        p = torch.cat([q.detach().reshape(-1) for g in self.param_groups for q in g["params"]]).clone()
        RecordingAdam.log.append(
            (id(self), self.param_groups[0]["lr"], self.state_dict()["state"][0]["step"].item(), p)
        )
        return out


def test_adam_linear_decay_then_fresh_adam_swa_average_of_every_step(monkeypatch):
    pot = tiny_potential()
    RecordingAdam.log = []
    monkeypatch.setattr(train_mod.torch.optim, "Adam", RecordingAdam)
    E, S, bs = 3, 2, 20
    steps = pot.n_data // bs
    res = train_mod.train_adam_swa(pot, train_epochs=E, swa_epochs=S, lr=1e-2, swa_lr=1e-3, batch_size=bs,
                                   generator=torch.Generator().manual_seed(1))  # fmt: skip
    log = RecordingAdam.log
    assert len(log) == (E + S) * steps
    train, swa = log[: E * steps], log[E * steps :]
    # lr in epoch e is 1e-2 (1 - e / E), constant within an epoch (PolynomialLR power 1)
    lrs = [lr for _, lr, _, _ in train]
    expect = [1e-2 * (1 - e / E) for e in range(E) for _ in range(steps)]
    np.testing.assert_allclose(lrs, expect, rtol=1e-12)
    # a second, fresh optimizer: another instance, moment estimates reset (step count restarts)
    assert len({i for i, *_ in train}) == 1 and len({i for i, *_ in swa}) == 1 and train[0][0] != swa[0][0]
    assert [s for _, _, s, _ in swa] == list(range(1, S * steps + 1))
    assert all(lr == 1e-3 for _, lr, _, _ in swa)
    # standard = parameters after the decaying phase; SWA = mean of the iterates after every SWA step
    torch.testing.assert_close(res.standard, train[-1][3])
    torch.testing.assert_close(res.swa, torch.stack([p for *_, p in swa]).mean(0))
    # power: averaging once per epoch would give a different point
    per_epoch = torch.stack([swa[(k + 1) * steps - 1][3] for k in range(S)]).mean(0)
    assert (per_epoch - res.swa).abs().max() > 1e-6


def test_training_loss_is_mean_ce_plus_prior_over_n(monkeypatch):
    """The training objective is U / N: mean cross-entropy + (lam/2) ||x_w||^2 / N on the
    penalised (non-bias) parameters, so one Adam gradient is grad U(x, S) / N up to scale."""
    pot = tiny_potential(prior=3.0)
    captured = {}
    orig = train_mod.F.cross_entropy

    def spy(out, y, *a, **k):
        captured["ce"] = orig(out, y, *a, **k)
        return captured["ce"]

    monkeypatch.setattr(train_mod.F, "cross_entropy", spy)
    x0 = pot.layout.flatten(pot.module).clone()
    losses = []
    orig_backward = torch.Tensor.backward

    def record_backward(self, *a, **k):
        losses.append(self.detach().clone())
        return orig_backward(self, *a, **k)

    monkeypatch.setattr(torch.Tensor, "backward", record_backward)
    train_mod.train_adam_swa(pot, train_epochs=1, swa_epochs=0, lr=0.0, swa_lr=0.0, batch_size=pot.n_data,
                             generator=torch.Generator().manual_seed(0))  # fmt: skip
    reg = 0.5 * 3.0 * float(((pot.mask * x0) ** 2).sum()) / pot.n_data
    assert float(losses[0]) == pytest.approx(float(captured["ce"].detach()) + reg, rel=1e-6)


def test_every_batchnorm_has_momentum_one_and_sampling_uses_batch_statistics():
    for name, build in ARCHITECTURES.items():
        if name == "cnn_cifar_wide":
            continue  # 73M parameters; its builder uses the same _bn2/_bn1 helpers
        kwargs = {"image_size": 8} if name == "cnn_small" else {}
        bns = [m for m in build(**kwargs).modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
        assert bns and all(m.momentum == 1.0 for m in bns), name
    pot = tiny_potential()
    fbns = [m for m in pot._functional.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    assert fbns and all(not m.track_running_stats and m.running_mean is None for m in fbns)
    # the force of a batch depends on that batch only (no running buffers carried between calls)
    x = pot.layout.flatten(pot.module)[None]
    a = pot.force(x, torch.arange(20), 3.0)
    pot.force(x, torch.arange(20, 60), 1.5)
    torch.testing.assert_close(pot.force(x, torch.arange(20), 3.0), a)


def test_prediction_calibrates_batchnorm_on_one_large_batch():
    """predict_one: train-mode pass over the first n_calibration training images (momentum 1
    copies their statistics), then eval mode. Equals a hand-made eval with those statistics;
    a calibration on other images gives other predictions (power)."""
    pot = tiny_potential(n=60, n_calibration=40)
    flat = pot.layout.flatten(pot.module).clone() + 0.3 * torch.randn(
        pot.dim, generator=torch.Generator().manual_seed(4)
    )
    got = pot.predict_one(flat)
    ref = ARCHITECTURES["cnn_small"](in_channels=1, n_classes=3, image_size=8)
    pot.layout.load(ref, flat)
    ref.train()
    with torch.no_grad():
        ref(pot.x_train[:40])
        ref.eval()
        want = torch.softmax(ref(pot.x_test), -1)
        torch.testing.assert_close(got, want)
        ref.train()
        ref(pot.x_train[40:60])
        ref.eval()
        other = torch.softmax(ref(pot.x_test), -1)
    assert (other - got).abs().max() > 1e-3


def test_prior_on_non_bias_parameters_only():
    pot = tiny_potential(prior=2.0)
    for name, part in zip(pot.layout.names, torch.split(pot.mask, pot.layout.sizes)):
        assert torch.all(part == (0.0 if "bias" in name else 1.0)), name
    assert any(n.endswith("weight") and "bias" not in n for n in pot.layout.names)
    x = torch.randn(2, pot.dim, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(pot.force(x, torch.arange(10), 0.0), 2.0 * pot.mask * x)


def test_bounce_width_and_localization_defaults():
    cfg = compose_cfg(["dataset=fmnist"])
    assert cfg.init.localization == 50.0 and cfg.init.bounce_width == 6.0
    box = ElasticBox.for_localization(torch.zeros(1, 3), cfg.init.localization, cfg.init.bounce_width)
    assert box.delta == pytest.approx(0.8485, abs=1e-4)
    assert cfg.friction == pytest.approx(math.sqrt(cfg.init.localization))
    # step-size convention: the authors' h = 2.5e-4 is an effective UBU step of h/2
    assert cfg.step_size == pytest.approx(2.5e-4 / 2)
    assert (cfg.init.train_epochs, cfg.init.swa_epochs, cfg.burn_in, cfg.samples, cfg.thin, cfg.unit) == (
        15, 5, 10, 30, 1, "epoch")  # fmt: skip
    assert cfg.batch_size == 200 and cfg.model.prior_precision == 1.0 and cfg.control_variate is True
    assert cfg.model.n_calibration == 4000  # the paper's 20 batches of 200


@pytest.mark.parametrize(
    "name, integrator, batching, h, lam",
    [
        ("sms_ubu", "ubu", "sms", 1.25e-4, 50.0),
        ("sg_ubu", "ubu", "iid", 1.25e-4, 50.0),
        ("sg_ubu_wor", "ubu", "reshuffle", 1.25e-4, 50.0),
        ("sg_hmc", "em", "iid", 2.5e-4, 0.0),
        ("cyclical_sghmc", "cyclical_sghmc", "iid", 2.5e-4, 0.0),
    ],
)
def test_fig4_experiment_configs(name, integrator, batching, h, lam):
    cfg = compose_cfg([f"experiment=paulin2025_fig4_{name}"])
    assert cfg.dataset.name == "fmnist" and cfg.model.name == "cnn_fmnist"
    assert (cfg.integrator.name, cfg.batching.name) == (integrator, batching)
    assert cfg.step_size == pytest.approx(h) and cfg.init.localization == lam
    assert cfg.friction == pytest.approx(math.sqrt(50)) and cfg.control_variate is True
    if name == "cyclical_sghmc":
        assert cfg.integrator.cycle_length == 1 and cfg.integrator.cycle_unit == "epoch"


def test_reuse_swa_points_of_another_run(tmp_path):
    """init.reuse: a second sampler starts from the first run's SWA points and copies its
    baselines, without training (train_epochs would otherwise change the points)."""
    base = ["dataset=digits", "chains=2", "init.train_epochs=1", "init.swa_epochs=1", "burn_in=1", "samples=1",
            "model.n_calibration=100", "store_theta=false", "evaluate=false", "dataset.n_test=97"]  # fmt: skip
    first, _ = run_inprocess(tmp_path / "a", base)
    second, _ = run_inprocess(tmp_path / "b", [*base, "integrator=sg_hmc", "init.localization=0",
                                               f"init.reuse={tmp_path / 'a'}", "init.train_epochs=3"])  # fmt: skip
    from bnnsample.store import SampleStore

    with SampleStore(first) as a, SampleStore(second) as b:
        np.testing.assert_array_equal(a.array("init/x0"), b.array("init/x0"))
        np.testing.assert_array_equal(a.group("baselines")["swa"], b.group("baselines")["swa"])
    from bnnsample.plumbing.errors import UserError

    with pytest.raises(UserError, match="init.reuse"):
        run_inprocess(tmp_path / "c", [*base, "chains=3", f"init.reuse={tmp_path / 'a'}"])


def test_each_runs_init_point_is_its_own_swa_average(tmp_path, monkeypatch):
    """Regression: loading a flat vector into the module must copy it. With views (as
    torch.nn.utils.vector_to_parameters makes), run c+1's re-initialisation and Adam steps
    wrote into run c's SWA vector, so init/x0[c] became run c+1's last Adam iterate: the
    localization centre, bounce box and control-variate reference of every run but the last
    were the wrong point. init/x0[c] must equal run c's SWA average as train_runs returned
    it, and the stored SWA baseline must be the prediction at init/x0[c]."""
    returned = []
    real = train_mod.train_runs

    def spy(*args, **kwargs):
        res = real(*args, **kwargs)
        returned.extend(res.swa.clone())  # a private copy, taken before anything else runs
        return res

    monkeypatch.setattr(train_mod, "train_runs", spy)
    base = ["dataset=digits", "chains=3", "init.train_epochs=1", "init.swa_epochs=1", "burn_in=1", "samples=1",
            "model.n_calibration=100", "store_theta=false", "evaluate=false", "dataset.n_test=97", "device=cpu"]  # fmt: skip
    path, _ = run_inprocess(tmp_path / "a", base)
    from bnnsample.store import SampleStore

    with SampleStore(path) as st:
        x0 = st.array("init/x0")
        swa_pred = st.group("baselines")["swa"]
    assert len(returned) == 3
    for c in range(3):
        np.testing.assert_array_equal(x0[c], returned[c].numpy())
    assert not np.array_equal(x0[0], x0[1])
    # the SWA baseline is the predictive at the stored centre (same calibration, same module)
    cfg = compose_cfg(base)
    from bnnsample.data import load_data
    from bnnsample.models import build_potential

    pot = build_potential(cfg.model, load_data(cfg), torch.device("cpu"), torch.float32, seed=int(cfg.seed) * 2 + 7919)
    for c in range(3):
        np.testing.assert_allclose(pot.predict_one(torch.as_tensor(x0[c])).numpy(), swa_pred[c], atol=1e-6)


def test_load_copies_instead_of_aliasing():
    pot = tiny_potential()
    flat = pot.layout.flatten(pot.module).clone() + 1.0
    kept = flat.clone()
    pot.layout.load(pot.module, flat)
    with torch.no_grad():
        for p in pot.module.parameters():
            p.zero_()
    torch.testing.assert_close(flat, kept)
    torch.testing.assert_close(pot.layout.flatten(pot.module), torch.zeros_like(flat))
