"""The simulation kernel (bnnsample/simulate.py): ``bnnsample run`` (Sampler.run plus the HDF5
sink) and the in-memory kernel give bit-identical chains for the same seed and block layout;
the record callback sees every draw and nothing else; the block layout; the one seed rule."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bnnsample import simulate as K
from bnnsample.store import SampleStore
from tests.helpers import run_inprocess

pytestmark = pytest.mark.smoke  # python -m pytest -m smoke: the in-process run and its kernel

# device=cpu: K.simulate below runs on the CPU, and the CUDA generators give other draws
TOY = ["dataset=two_batch_gaussian", "chains=6", "burn_in=11", "samples=9", "thin=3", "check_every=7", "unit=step",
       "init=zeros", "evaluate=false", "device=cpu"]  # fmt: skip


@pytest.mark.parametrize("preset", ["sms_ubu", "sg_baoab_wor", "nogin"])
def test_sampler_run_and_kernel_give_identical_chains(tmp_path, preset):
    path, cfg = run_inprocess(tmp_path, [*TOY, f"integrator={preset}"])
    with SampleStore(path) as s:
        stored = s.theta()  # [C, draws, d]
        temperature = s.diagnostics()["kinetic_temperature"]
    target = K.build_target([*TOY, f"integrator={preset}"])
    name, params, batching, partition = K.preset_scheme(preset)
    seen, temp = [], []

    def record(t, state):
        seen.append(state.x.numpy().copy())
        temp.append((state.v**2).mean(dim=1).numpy())

    burn, thin = int(cfg.burn_in), int(cfg.thin)
    K.simulate(target.potential, name, params, x0=torch.zeros(6, target.potential.dim, dtype=torch.float64),
               h=float(cfg.step_size), gamma=float(cfg.friction), steps=burn + thin * int(cfg.samples), burn_in=burn,
               thin=thin, record=record, check_every=int(cfg.check_every), batching=batching,
               batch_size=int(cfg.batch_size), partition=partition, seed=int(cfg.seed))  # fmt: skip
    np.testing.assert_array_equal(np.stack(seen, 1), stored)
    np.testing.assert_array_equal(np.stack(temp, 1), temperature)


def test_record_sees_every_draw_and_only_draws():
    pot = K.build_target(["dataset=two_batch_gaussian"]).potential
    calls = []
    for step_sizes in (None, lambda l: 0.1 / l):
        calls.clear()
        K.simulate(pot, "ubu", x0=torch.zeros(3, 1), h=0.1, gamma=1.0, steps=25, burn_in=4, thin=3,
                   record=lambda t, st: calls.append((t, st.x.clone())), step_sizes=step_sizes)  # fmt: skip
        assert [t for t, _ in calls] == [7, 10, 13, 16, 19, 22, 25]
        assert all(x.shape == (3, 1) for _, x in calls)
        assert not torch.equal(calls[0][1], calls[1][1])


def test_blocks_layout():
    # draw steps, total, multiples of check_every: Sampler.run's layout
    got = [(t, n, d) for t, n, d in K.blocks(20, burn_in=5, thin=4, check_every=7)]
    ends = [t + n for t, n, _ in got]
    assert ends == [7, 9, 13, 14, 17, 20]
    assert [d for *_, d in got] == [False, True, True, False, True, False]
    assert sum(n for _, n, _ in got) == 20
    # a burn-in phase of blocks of at most burn_block steps ending at burn_in, then one block per draw
    ends = [t + n for t, n, _ in K.blocks(2600, burn_in=2500, thin=50, burn_block=1000)]
    assert ends == [1000, 2000, 2500, 2550, 2600]
    # a resumed run retraces the uninterrupted one from a block boundary
    full = list(K.blocks(40, burn_in=11, thin=3, check_every=7))
    assert list(K.blocks(40, start=21, burn_in=11, thin=3, check_every=7)) == [b for b in full if b[0] >= 21]
    assert [n for _, n, _ in K.blocks(5, thin=2, single=True)] == [1] * 5


def test_seed_rule_is_that_of_bnnsample_run():
    assert K.Seeds.of(4) == K.Seeds(noise=8, batches=9, target=10_007 * 4 + 3, model=2 * 4 + 7919)
    pot = K.build_target(["dataset=two_batch_gaussian"]).potential

    def chains(**kw):
        return K.simulate(pot, "ubu", x0=torch.zeros(4, 1), h=0.2, gamma=1.0, steps=10,
                          batching="iid", batch_size=1, **kw).x  # fmt: skip

    assert torch.equal(chains(seed=3), chains(seeds=K.Seeds(noise=6, batches=7)))
    assert not torch.equal(chains(seed=3), chains(seed=4))
    assert not torch.equal(chains(seeds=K.Seeds(noise=6, batches=7)), chains(seeds=K.Seeds(noise=6, batches=8)))


def test_target_with_own_noise_is_reseeded():
    pot = K.build_target(["dataset=noisy_gaussian"], seed=0).potential

    assert hasattr(pot, "generator")

    def run(seeds=None):
        return K.simulate(pot, "baoab", x0=torch.zeros(4, 1), h=0.2, gamma=1.0, steps=10, seed=2, seeds=seeds).x

    first = run()
    assert torch.equal(first, run())  # the target's generator is reseeded, not left where the last run put it
    kept = K.Seeds(noise=4, batches=5)  # the same streams without reseeding the target
    assert not torch.equal(run(kept), run(kept))


@pytest.mark.parametrize("preset", ["sms_ubu", "sg_hmc", "sg_baoab"])
def test_closed_form_targets_step_under_inference_mode_with_the_same_numbers(preset, monkeypatch):
    """A target whose every method is tensor arithmetic (``closed_form``) is stepped under
    torch.inference_mode: the yielded states are inference tensors, and the chains are the
    ones the same loop gives with autograd's bookkeeping on, bit for bit."""
    from bnnsample.models.logistic import LogisticRegression

    pot = K.build_target(["dataset=logistic_synthetic", "dataset.n_train=500", "dataset.n_test=50"]).potential
    assert isinstance(pot, LogisticRegression) and pot.closed_form
    name, params, batching, partition = K.preset_scheme(preset)

    def chains():
        out = []
        K.simulate(pot, name, params, x0=torch.zeros(3, pot.dim, dtype=torch.float64), h=0.01, gamma=2.0, steps=40, burn_in=10, thin=5,
                   record=lambda t, s: out.append((s.x.is_inference(), s.x.clone())), batching=batching,
                   batch_size=50, partition=partition, seed=3)  # fmt: skip
        return out

    fast = chains()
    monkeypatch.setattr(LogisticRegression, "closed_form", False)
    plain = chains()
    assert all(inf for inf, _ in fast) and not any(inf for inf, _ in plain)
    assert all(torch.equal(a, b) for (_, a), (_, b) in zip(fast, plain)) and len(fast) == 6


def test_targets_with_autograd_are_not_closed_form_and_wrappers_follow_their_base():
    from bnnsample.models.toys import MixtureMeans
    from bnnsample.potential import Localized

    logistic = K.build_target(["dataset=logistic_synthetic", "dataset.n_train=200", "dataset.n_test=20"]).potential
    assert logistic.closed_form and Localized(logistic, torch.zeros(logistic.dim), 1.0).closed_form
    assert not MixtureMeans.closed_form  # its Hessian-vector products differentiate the force
    assert not K.build_target(["dataset=digits"], dtype="float32").potential.closed_form  # a network, autograd
    assert not K.build_target(["dataset=boston", "model=ntk_mlp"]).potential.closed_form
