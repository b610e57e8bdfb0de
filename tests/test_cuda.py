"""device=cuda: the sampling loop stays on the GPU (no host synchronisation per step) and agrees
with the CPU. Every test is marked ``cuda`` and skips where no CUDA device exists.

CPU/GPU agreement: the two devices' random streams differ (NumPy/torch CPU generators vs the
CUDA generator), so the agreement test feeds both devices the SAME noise and the same
minibatch sequence (drawn on the CPU, copied to each device) and compares the trajectories of
Algorithm 3's sampler (localized SMS-UBU with bounces and cached control variates on a
BatchNorm CNN, float64) within a tolerance. The full pipeline on CUDA is checked separately.
"""

import numpy as np
import pytest
import torch

from bnnsample.batching import Schedule
from bnnsample.integrators import StepContext, get_integrator
from bnnsample.models.cnn import ARCHITECTURES
from bnnsample.models.network import ClassifierPotential
from bnnsample.potential import ControlVariate, ElasticBox, Localized, Oracle

from .helpers import run_inprocess

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]
D = torch.float64


class SharedNoise:
    """Standard normals from one CPU stream, copied to the device asked for."""

    def __init__(self, seed):
        self.g = torch.Generator().manual_seed(seed)

    def __call__(self, *shape, like):
        return torch.randn(*shape, generator=self.g, dtype=like.dtype).to(like.device)


def algorithm3_target(device, chain_batching="auto", n=80, batch=20):
    g = torch.Generator().manual_seed(0)
    xs, ys = torch.rand(n, 1, 8, 8, generator=g, dtype=D), torch.randint(3, (n,), generator=g)
    torch.manual_seed(0)
    module = ARCHITECTURES["cnn_small"](in_channels=1, n_classes=3, image_size=8).to(device, D)
    pot = ClassifierPotential(module, xs.to(device), ys.to(device), xs[:10].to(device), chain_batching=chain_batching)
    partition = torch.randperm(n, generator=torch.Generator().manual_seed(1))[: (n // batch) * batch]
    partition = partition.view(n // batch, batch).to(device)
    x_ref = pot.layout.flatten(module)[None].repeat(2, 1)
    x_ref[1] += 0.01 * torch.randn(pot.dim, generator=g, dtype=D).to(device)
    cv = ControlVariate(pot, x_ref, batches=partition)
    assert cv.cached
    return Localized(cv, x_ref, 50.0), ElasticBox.for_localization(x_ref.clone(), 50.0), partition, x_ref


def run_steps(device, steps=30):
    target, box, partition, x_ref = algorithm3_target(device)
    order = torch.randint(len(partition), (steps,), generator=torch.Generator().manual_seed(3))
    ctx = StepContext(h=2e-3, gamma=50**0.5, noise=SharedNoise(4), boundary=box)
    integ = get_integrator("ubu")
    state = integ.init_state(x_ref, ctx)
    it = iter(order.tolist())
    scale = target.n_data / partition.shape[1]
    state = integ.advance(state, steps, lambda: Oracle(target, partition[next(it)], scale), ctx)
    return state.x.cpu(), state.v.cpu(), target.predict(state.x).cpu(), box.counts.cpu()


def test_cpu_and_gpu_trajectories_agree_float64():
    x_c, v_c, p_c, b_c = run_steps("cpu")
    x_g, v_g, p_g, b_g = run_steps("cuda")
    assert torch.isfinite(x_c).all()
    torch.testing.assert_close(x_g, x_c, rtol=1e-8, atol=1e-9)
    torch.testing.assert_close(v_g, v_c, rtol=1e-7, atol=1e-8)
    torch.testing.assert_close(p_g, p_c, rtol=1e-7, atol=1e-9)
    assert torch.equal(b_g, b_c)
    # power: the trajectory moved away from its start by far more than the tolerance
    _, _, _, x0 = algorithm3_target("cpu")
    assert (x_c - x0).abs().max() > 1e-3


def test_sampling_steps_make_no_host_synchronisation():
    """The per-step path (schedule, oracle, cached control variate, localization, bounces,
    UBU with CUDA noise, vmap over chains) under CUDA's sync debug mode "error": any
    device-to-host synchronisation (.item(), .cpu(), nonzero, a 0-dim index) raises."""
    from bnnsample.plumbing.rng import GaussianNoise

    target, box, partition, x_ref = algorithm3_target("cuda", chain_batching="vmap")
    sched = Schedule("sms", target.n_data, partition.shape[1], generator=torch.Generator("cuda").manual_seed(1),
                     device="cuda")  # fmt: skip
    sched._fixed = partition
    ctx = StepContext(h=2e-3, gamma=50**0.5, noise=GaussianNoise("cuda", 5), boundary=box)
    integ = get_integrator("ubu")
    state = integ.init_state(x_ref, ctx)

    def nf():
        return Oracle(target, sched.next(), sched.scale, sched.eps)

    state = integ.advance(state, 2, nf, ctx)  # warm-up (lazy initialisations may sync once)
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        state = integ.advance(state, 3 * sched.n_batches, nf, ctx)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert torch.isfinite(state.x).all()


def test_pipeline_on_cuda_end_to_end(tmp_path):
    """The whole run (Adam -> SWA, localized SMS-UBU with cached control variates, predictive
    streamed to HDF5) on device=cuda: finite draws, normalised probabilities, a model that
    learnt, and a resumable state saved from the device."""
    from bnnsample.store import SampleStore

    path, _ = run_inprocess(
        tmp_path,
        ["dataset=digits", "device=cuda", "chains=2", "init.train_epochs=2", "init.swa_epochs=1", "burn_in=1",
         "samples=3", "model.n_calibration=200", "control_variate=true", "evaluate=false"],
    )  # fmt: skip
    with SampleStore(path) as s:
        assert s.complete and not s.diverged().any() and s.attrs["device"].startswith("cuda")
        pred = s.predictive()
        np.testing.assert_allclose(pred.sum(-1), 1.0, rtol=1e-5)
        acc = (s.group("baselines")["swa"].mean(0).argmax(-1) == s.array("targets")).mean()
        assert acc > 0.5
        assert np.isfinite(s.theta()).all()


def test_two_network_runs_of_one_seed_agree_bit_for_bit(tmp_path):
    """Adam -> SWA on a CNN, then localized SMS-UBU with cached control variates, twice with
    one seed on the GPU: the same SWA point and draws, bit for bit (runner's deterministic
    kernels; without them the two runs differed at the fifth digit of the SWA point on an
    H100)."""
    from bnnsample.store import SampleStore

    ovr = ["dataset=digits", "device=cuda", "chains=2", "init.train_epochs=1", "init.swa_epochs=1", "burn_in=1",
           "samples=3", "model.n_calibration=100", "dataset.n_test=97", "control_variate=true", "evaluate=false"]  # fmt: skip
    a, _ = run_inprocess(tmp_path / "a", ovr)
    b, _ = run_inprocess(tmp_path / "b", ovr)
    with SampleStore(a) as s, SampleStore(b) as t:
        np.testing.assert_array_equal(s.array("init/x0"), t.array("init/x0"))
        np.testing.assert_array_equal(s.theta(), t.theta())
        np.testing.assert_array_equal(s.predictive(), t.predictive())
