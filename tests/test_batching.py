"""Minibatch schedules: the batch sequences each kind promises."""

import collections
import itertools
import math

import numpy as np
import pytest
import torch

from bnnsample.batching import Schedule, divisors_near, partition_error


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def draw(s, n):
    return [s.next() for _ in range(n)]


def as_sets(batches):
    return [frozenset(b.tolist()) for b in batches]


@pytest.mark.parametrize("partition", ["fixed", "fresh"])
def test_sms_is_palindromic_and_uses_each_batch_twice(partition):
    N, n = 12, 3
    s = Schedule("sms", N, n, partition=partition, generator=gen())
    m = N // n
    assert s.period == 2 * m and s.scale == N / n
    sweeps = [as_sets(draw(s, 2 * m)) for _ in range(5)]
    for sw in sweeps:
        assert sw[:m] == sw[m:][::-1]  # forward then backward
        assert sorted(map(sorted, sw[:m])) == sorted(map(sorted, set(sw[:m])))  # distinct batches
        assert set().union(*sw[:m]) == set(range(N))  # a partition of the data
    orders = {tuple(map(tuple, map(sorted, sw[:m]))) for sw in sweeps}
    assert len(orders) > 1  # a fresh order each sweep
    if partition == "fixed":
        assert len({frozenset(sw[:m]) for sw in sweeps}) == 1  # the same minibatches, reordered


def test_reshuffle_visits_each_batch_once_per_epoch():
    N, n = 10, 2
    s = Schedule("reshuffle", N, n, generator=gen(1))
    for _ in range(6):
        epoch = as_sets(draw(s, 5))
        assert len(set(epoch)) == 5 and set().union(*epoch) == set(range(N))


@pytest.mark.parametrize("kind", ["sms", "reshuffle"])
def test_a_fixed_partition_must_cover_the_data(kind):
    """n not dividing N: a fixed partition would never use the N mod n leftover points (the chain would
    sample a tempered posterior of the rest), so it is refused, naming divisors near n; a fresh partition
    is allowed and reaches every point; the kinds without a partition take any n."""
    with pytest.raises(ValueError, match=r"batch_size=3 must divide the training set's 11 points.*never be used.*"
                                         r"divisors near it: 1.*partition=fresh"):  # fmt: skip
        Schedule(kind, 11, 3, generator=gen())
    assert divisors_near(160, 64) == [32, 40, 80] and divisors_near(455, 32) == [7, 13, 35, 65]
    s = Schedule(kind, 11, 3, partition="fresh", generator=gen())
    assert set().union(*as_sets(draw(s, 40 * 3))) == set(range(11))
    for other in ("iid", "iid_wor"):
        Schedule(other, 11, 3, generator=gen())
    assert partition_error(kind, "fixed", 12, 3) == "" and partition_error(kind, "fresh", 11, 3) == ""


def test_iid_draws_with_replacement_and_iid_wor_without():
    s = Schedule("iid", 5, 4, generator=gen(2))
    batches = draw(s, 300)
    assert any(len(set(b.tolist())) < 4 for b in batches)  # repeats happen
    counts = torch.bincount(torch.cat(batches), minlength=5).float()
    assert (counts / counts.sum() - 0.2).abs().max() < 0.05
    w = Schedule("iid_wor", 5, 4, generator=gen(3))
    assert all(len(set(b.tolist())) == 4 for b in draw(w, 300))


@pytest.mark.parametrize("N,n,chains", [(5, 3, None), (12, 3, 40), (400, 20, 8)])
def test_iid_wor_subsets_are_uniform(N, n, chains):
    """Both rules (ranking N keys when n(n-1) > N, redrawing repeats otherwise) give n
    distinct indices whose set is uniform over the C(N, n) subsets (chi-square over subsets,
    or over pairs when there are too many subsets), independently across chains."""
    from scipy import stats

    s = Schedule("iid_wor", N, n, chains=chains, generator=gen(7))
    b = torch.stack(draw(s, 4096 if chains is None else 256)).reshape(-1, n)
    assert all(len(set(r)) == n for r in b.tolist()) and int(b.min()) >= 0 and int(b.max()) < N
    if math.comb(N, n) <= 500:
        keys = [tuple(sorted(r)) for r in b.tolist()]
        counts = np.array(list(collections.Counter(keys).values()))
        assert len(counts) == math.comb(N, n)
    else:  # each index appears with probability n / N
        counts = torch.bincount(b.reshape(-1), minlength=N).numpy()
    assert stats.chisquare(counts).pvalue > 1e-3


def test_per_chain_schedules_are_independent_and_sms_per_chain():
    C, N = 64, 4
    s = Schedule("sms", N, 1, chains=C, generator=gen(4))
    seq = torch.stack(draw(s, 8))[..., 0]  # [8, C]
    assert seq.shape == (8, C)
    assert torch.equal(seq[:4], seq[4:].flip(0))
    for c in range(C):
        assert sorted(seq[:4, c].tolist()) == [0, 1, 2, 3]
    assert len({tuple(seq[:4, c].tolist()) for c in range(C)}) > 10
    # every order of the batches is equally likely: all 24 permutations appear
    seqs = torch.stack(draw(s, 8 * 50))[..., 0].reshape(50, 8, C)[:, :4].permute(0, 2, 1).reshape(-1, 4)
    assert {tuple(p) for p in seqs.tolist()} == set(itertools.permutations(range(4)))


def test_full_batch_and_state_roundtrip():
    assert Schedule("full", 7, 7, generator=gen()).next() is None
    a = Schedule("sms", 20, 4, generator=gen(5))
    draw(a, 7)
    b = Schedule("sms", 20, 4, generator=gen(99))
    b.load_state_dict(a.state_dict())
    b.generator.set_state(a.generator.get_state())
    assert all(torch.equal(x, y) for x, y in zip(draw(a, 30), draw(b, 30)))


@pytest.mark.parametrize("kind", ["sms", "reshuffle"])
def test_fixed_partition_state_holds_batch_numbers_and_old_index_tables_still_resume(kind):
    """With a fixed partition the resume state keeps the cycle's batch numbers ([L, C], not the
    [L, C, n] data indices); a state saved with the index table (as stores written before) is
    read as indices and resumes the same stream."""
    C, N, n = 5, 40, 4
    a = Schedule(kind, N, n, chains=C, generator=gen(6))
    draw(a, 7)
    state = a.state_dict()
    assert "table" not in state and state["batch_table"].shape[1:] == (C,)
    old = {**{k: v for k, v in state.items() if k != "batch_table"}, "table": a.fixed_partition[state["batch_table"]]}
    for saved in (state, old):
        b = Schedule(kind, N, n, chains=C, generator=gen(99))
        b.load_state_dict(saved)
        b.generator.set_state(a.generator.get_state())
        a2 = Schedule(kind, N, n, chains=C, generator=gen(99))
        a2.load_state_dict(state)
        a2.generator.set_state(a.generator.get_state())
        # past the end of the loaded cycle (L = 64 steps) into fresh ones
        assert all(torch.equal(x, y) for x, y in zip(draw(a2, 150), draw(b, 150)))


@pytest.mark.parametrize("kind", ["sms", "reshuffle"])
@pytest.mark.parametrize("chains", [None, 3])
def test_fixed_partition_batches_are_its_rows_at_the_block_batch_numbers(kind, chains):
    """Each step's batch is the fixed partition's row at the block's batch number for that step
    (shared batches: the row itself, per chain: gathered), across block ends (64 steps) and
    after a resume mid-block."""
    s = Schedule(kind, 32, 4, chains=chains, generator=gen(8))
    for step in range(150):
        idx = s.next()
        state = s.state_dict()
        assert torch.equal(idx, s.fixed_partition[state["batch_table"][int(state["pos"]) - 1]]), step
        if step == 70:
            r = Schedule(kind, 32, 4, chains=chains, generator=gen(99))
            r.load_state_dict(state)
            r.generator.set_state(s.generator.get_state())
            s = r


def test_bad_arguments():
    with pytest.raises(ValueError, match="batch_size"):
        Schedule("iid", 5, 6, generator=gen())
    with pytest.raises(ValueError, match="unknown batching"):
        Schedule("nope", 5, 1, generator=gen())


@pytest.mark.parametrize("kind", ["sms", "reshuffle"])
@pytest.mark.parametrize("chains", [None, 300])
@pytest.mark.parametrize("n_data", [4, 6])
def test_sweep_tables_are_those_of_argsort(kind, chains, n_data, monkeypatch):
    """The fixed partition's step tables (many chains: written straight into one step-major
    array) give the index stream of the plain construction: the epochs' orders (argsort of
    random keys; two batches: one random bit each), transposed, the mirror concatenated for sms."""
    import bnnsample.batching as batching

    def run(fast):
        if not fast:
            monkeypatch.setattr(batching.Schedule, "_sweeps", plain)
        s = Schedule(kind, n_data, 2, chains=chains, generator=torch.Generator().manual_seed(3))
        out = torch.stack([s.next() for _ in range(200)])
        monkeypatch.undo()
        return out

    def plain(self, cycles):
        lead = (cycles,) if self.chains is None else (cycles, self.chains)
        if self.n_batches == 2:
            first = self._fair_bits(lead).long()
            order = torch.stack((first, 1 - first), dim=-1)
        else:
            order = torch.argsort(torch.rand(*lead, self.n_batches, generator=self.generator), dim=-1)
        order = order if self.chains is None else order.transpose(1, 2)
        return torch.cat([order, order.flip(1)], dim=1) if self.kind == "sms" else order

    assert torch.equal(run(True), run(False))


@pytest.mark.parametrize("lead", [(40_000, 5), (3, 7), (1,)])
def test_fair_bits_are_fair_and_independent(lead):
    """The random orders of two batches and the i.i.d. indices of two data points
    (``_fair_bits``): every bit is fair, and bits at lags 1..16 (neighbours within a byte and across bytes, across chains and cycles) are
    independent: each pair's four joint frequencies within 5 standard errors of 1/4. The
    first draws of two schedules of different seeds differ, and a seed's draws repeat."""
    s = Schedule("sms", 4, 2, chains=None, generator=torch.Generator().manual_seed(5))
    b = s._fair_bits(lead)
    assert b.shape == lead and b.dtype == torch.bool
    if b.numel() < 1000:
        return
    x = b.reshape(-1).double()
    m = x.numel()
    assert abs(x.mean() - 0.5) < 5 * 0.5 / m**0.5
    for lag in range(1, 17):
        u, v = x[:-lag], x[lag:]
        for pu in (0, 1):
            for pv in (0, 1):
                f = ((u == pu) & (v == pv)).double().mean()
                assert abs(f - 0.25) < 5 * (0.25 * 0.75 / u.numel()) ** 0.5, (lag, pu, pv)
    again = Schedule("sms", 4, 2, generator=torch.Generator().manual_seed(5))._fair_bits(lead)
    other = Schedule("sms", 4, 2, generator=torch.Generator().manual_seed(6))._fair_bits(lead)
    assert torch.equal(b, again) and not torch.equal(b, other)


@pytest.mark.parametrize("chains", [None, 500])
@pytest.mark.parametrize("n", [1, 2])
def test_iid_batches_of_two_data_points_are_fair(chains, n):
    """i.i.d. batches from two data points (the toys' one-bit draws): shapes, values in {0, 1},
    each index 1 with frequency 1/2 (within 5 s.e.), per step and chain independent of the last."""
    s = Schedule("iid", 2, n, chains=chains, generator=torch.Generator().manual_seed(2))
    idx = torch.stack([s.next() for _ in range(400)])
    assert idx.shape == ((400, n) if chains is None else (400, chains, n)) and idx.dtype == torch.long
    assert set(idx.unique().tolist()) == {0, 1}
    x = idx.double()
    assert abs(x.mean() - 0.5) < 5 * 0.5 / x.numel() ** 0.5
    same = (x[1:] == x[:-1]).double().mean()  # consecutive steps agree half the time
    assert abs(same - 0.5) < 5 * 0.5 / x[1:].numel() ** 0.5


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.int64, torch.bfloat16])
@pytest.mark.parametrize("idx_shape", [(), (7,), (4, 3), (5, 1)])
def test_take_rows_is_index_select(dtype, idx_shape):
    from bnnsample.gather import take_rows

    table = (torch.arange(6 * 4).reshape(6, 2, 2) * 3 - 5).to(dtype)
    idx = torch.randint(6, idx_shape, generator=torch.Generator().manual_seed(1))
    got = take_rows(table, idx)
    assert got.shape == (*idx_shape, 2, 2) and got.dtype == dtype
    assert torch.equal(got, table[idx])
    assert torch.equal(take_rows(table[:, 0, 0], idx), table[:, 0, 0][idx])  # rows of one number
    w = table.double().requires_grad_()  # autograd keeps index_select, and its gradient
    take_rows(w, idx).sum().backward()
    assert torch.equal(w.grad[:, 0, 0], torch.bincount(idx.reshape(-1), minlength=6).double())
