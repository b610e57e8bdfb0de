"""compile=true (integrators/compiled.py): K steps of an integrator's own ``advance`` compiled
with torch.compile. The compiled block takes the same minibatches and normals as the integrator
run eagerly on them and returns its states to rounding; the sampler uses it only where it pays
and says so in one line. Compiling takes 10-30 s on a 2-core CPU: few tests, one shape each."""

from __future__ import annotations

import shutil

import pytest
import torch

from bnnsample.batching import Schedule
from bnnsample.config import compose
from bnnsample.integrators import StepContext, get_integrator
from bnnsample.integrators import compiled as C
from bnnsample.plumbing.rng import GaussianNoise, make_generator
from bnnsample.potential import Oracle
from bnnsample.simulate import build_target

pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None,
                                reason="torch.compile on the CPU needs a C++ compiler")  # fmt: skip


def _logistic():
    return build_target(["dataset=logistic_synthetic", "dataset.n_train=500", "dataset.n_test=50"]).potential


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def test_compiled_blocks_are_the_eager_steps_on_the_same_batches_and_normals(device):
    """Two blocks of 4 compiled UBU steps against two eager ``advance`` calls of 4 steps on the
    minibatches and normals the compiled path drew (recorded), from the same state: equal to
    rounding (float64; on a GPU the blocks are CUDA graphs)."""
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    pot = build_target(["dataset=logistic_synthetic", "dataset.n_train=500", "dataset.n_test=50"],
                       device=device).potential  # fmt: skip
    sched = Schedule("iid", pot.n_data, 20, generator=make_generator(device, 1), device=device)
    ctx = StepContext(h=0.05, gamma=2.0, noise=GaussianNoise(device, 2))
    integ = get_integrator("ubu")
    start = integ.init_state(torch.zeros(3, pot.dim, dtype=torch.float64, device=device), ctx)
    drawn, batches = [], []
    noise, nxt = ctx.noise, sched.next

    def recording_noise(*shape, like):
        drawn.append(noise(*shape, like=like))
        return drawn[-1]

    def recording_next():
        batches.append(nxt())
        return batches[-1]

    ctx.noise, sched.next = recording_noise, recording_next
    blocks = C.CompiledBlocks(integ, pot, sched, block=4)
    with torch.inference_mode():
        got = blocks.advance(start, 8, lambda: Oracle(pot, sched.next(), sched.scale, sched.eps), ctx)
        replay = C.Replayed(torch.cat([t.reshape(-1) for t in drawn]))
        it = iter(batches)
        want = start
        for _ in range(2):  # a block is one advance call (UBU merges the half flows inside a call)
            want = integ.advance(want, 4, lambda: Oracle(pot, next(it), sched.scale, sched.eps),
                                 StepContext(h=0.05, gamma=2.0, noise=replay))  # fmt: skip
    assert len(batches) == 8 and replay.used == replay.buf.numel() > 0
    assert torch.allclose(got.x, want.x, rtol=1e-12, atol=1e-12) and torch.allclose(
        got.v, want.v, rtol=1e-12, atol=1e-12
    )
    assert not torch.equal(got.x, start.x)


def test_the_sampler_compiles_only_where_it_pays(tmp_path, monkeypatch, capsys):
    """A short run says why it is not compiled and runs eagerly; with the threshold lowered the
    same run compiles, says so, and writes finite draws of the same shape. On the CPU: a GPU machine's
    default device has its own threshold (MIN_STEPS_GPU)."""
    import h5py

    from bnnsample import runner

    over = ["dataset=logistic_synthetic", "dataset.n_train=500", "dataset.n_test=50", "integrator=sg_hmc",
            "chains=2", "unit=step", "burn_in=0", "samples=4", "thin=16", "progress=false", "evaluate=false",
            "compile=true", "step_size=0.01", "device=cpu"]  # fmt: skip
    runner.run(compose(over), tmp_path / "short")
    out = capsys.readouterr()
    err = out.err + out.out
    assert "compile=true: no compiled blocks of steps (the run has 64 steps, fewer than the 200,000" in err
    monkeypatch.setattr(C, "MIN_STEPS", 0)
    path = runner.run(compose(over), tmp_path / "compiled")
    out = capsys.readouterr()
    assert "compile=true: blocks of 16 steps of em compiled" in out.err + out.out
    with h5py.File(path) as f:
        th = f["theta"][:]
    assert th.shape[:2] == (2, 4) and torch.isfinite(torch.as_tensor(th)).all()


def test_compile_decisions_name_the_reason():
    pot = _logistic()
    ctx = StepContext(h=0.1, gamma=1.0, noise=GaussianNoise("cpu", 0))
    assert C.CompiledBlocks.decide(False, get_integrator("ubu"), pot, ctx, 10**7) == ""
    assert C.CompiledBlocks.decide(True, get_integrator("ubu"), pot, ctx, 10**7) == ""
    assert "allowed: aboba, baoab, em, obabo, sgld, ubu" in C.CompiledBlocks.decide(
        True, get_integrator("sghmc_adaptive"), pot, ctx, 10**7
    )
    assert "fewer than" in C.CompiledBlocks.decide(True, get_integrator("ubu"), pot, ctx, 10)
