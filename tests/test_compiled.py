"""compile=true (integrators/compiled.py): K steps of an integrator's own ``advance`` compiled
with torch.compile. The compiled block takes the same minibatches and normals as the integrator
run eagerly on them and returns its states to rounding; the sampler uses it only where it pays
and says so in one line. Compiling takes 10-30 s on a 2-core CPU: few tests, one shape each."""

from __future__ import annotations

import shutil

import pytest
import torch

from bnnsample.config import compose
from bnnsample.integrators import StepContext, get_integrator
from bnnsample.integrators import compiled as C
from bnnsample.plumbing.rng import GaussianNoise
from bnnsample.potential import Oracle
from bnnsample.simulate import build_target, make_chains

pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None,
                                reason="torch.compile on the CPU needs a C++ compiler")  # fmt: skip


def _logistic():
    return build_target(["dataset=logistic_synthetic", "dataset.n_train=500", "dataset.n_test=50"]).potential


@pytest.mark.parametrize("scheme", ["ubu"])
def test_compiled_blocks_are_the_eager_steps_on_the_same_batches_and_normals(scheme):
    """Two blocks of 4 compiled steps against two eager ``advance`` calls of 4 steps on the
    minibatches and normals the compiled path drew (recorded), from the same state: equal to
    rounding."""
    pot = _logistic()
    ch = make_chains(pot, scheme, x0=torch.zeros(3, pot.dim), h=0.05, gamma=2.0, batching="iid", batch_size=20,
                     seed=1)  # fmt: skip
    drawn, batches = [], []
    noise, nxt = ch.ctx.noise, ch.schedule.next

    def recording_noise(*shape, like):
        drawn.append(noise(*shape, like=like))
        return drawn[-1]

    def recording_next():
        batches.append(nxt())
        return batches[-1]

    ch.ctx.noise, ch.schedule.next = recording_noise, recording_next
    blocks = C.CompiledBlocks(ch.integrator, pot, ch.schedule, block=4)
    start = ch.state
    with torch.inference_mode():
        got = blocks.advance(start, 8, ch.next_force, ch.ctx)
        replay = C._Replayed(torch.cat([t.reshape(-1) for t in drawn]))
        it = iter(batches)
        ctx = StepContext(h=0.05, gamma=2.0, noise=replay)
        want = start
        for _ in range(2):  # a block is one advance call (UBU merges the half flows inside a call)
            want = ch.integrator.advance(want, 4, lambda: Oracle(pot, next(it), ch.schedule.scale, ch.schedule.eps),
                                         ctx)  # fmt: skip
    assert len(batches) == 8 and replay.used == replay.buf.numel() > 0
    assert torch.allclose(got.x, want.x, rtol=1e-12, atol=1e-12) and torch.allclose(
        got.v, want.v, rtol=1e-12, atol=1e-12
    )
    assert not torch.equal(got.x, start.x)


def test_the_sampler_compiles_only_where_it_pays(tmp_path, monkeypatch, capsys):
    """A short run says why it is not compiled and runs eagerly; with the threshold lowered the
    same run compiles, says so, and writes finite draws of the same shape."""
    import h5py

    from bnnsample import runner

    over = ["dataset=logistic_synthetic", "dataset.n_train=500", "dataset.n_test=50", "integrator=sg_hmc",
            "chains=2", "unit=step", "burn_in=0", "samples=4", "thin=16", "progress=false", "evaluate=false",
            "compile=true", "step_size=0.01"]  # fmt: skip
    runner.run(compose(over), tmp_path / "short")
    out = capsys.readouterr()
    err = out.err + out.out
    assert "compile=true: not compiled (the run has 64 steps, fewer than the 200,000" in err
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
    assert "allowed: em" in C.CompiledBlocks.decide(True, get_integrator("sghmc_adaptive"), pot, ctx, 10**7)
    assert "fewer than" in C.CompiledBlocks.decide(True, get_integrator("ubu"), pot, ctx, 10)
