"""Minibatch schedules, orthogonal to the integrator.

A schedule yields, step after step, the data indices of the minibatch used by that step's
force: a LongTensor [n] shared by all chains, or [C, n] with one minibatch per chain
(``per_chain=True``, what the many-chain toy studies use), or None for the full batch.

kinds
    full       every step uses all N data points (force scale 1)
    iid        n points drawn uniformly with replacement, fresh each step
    iid_wor    n distinct points drawn uniformly, fresh each step
    reshuffle  one pass over the N_m = floor(N/n) minibatches of a partition per epoch, in a
               fresh random order each epoch ("random reshuffling", SG-UBU without replacement)
    sms        symmetric minibatch splitting (paulin2025 §2.3, Algorithm 2): a fresh random order
               S_1..S_Nm of the minibatches is swept forward then backward,
               S_1, ..., S_Nm, S_Nm, ..., S_1, so each batch is used twice per sweep of
               2 N_m steps (the last batch twice in a row at the turn).

partition (reshuffle and sms)
    fixed      the data are cut into N_m minibatches once (from one random permutation); each
               epoch/sweep permutes the order of these batches. This is the SMS-UBU authors'
               code. n must divide N: otherwise the N - N_m n leftover points would never be
               used in the whole run and the chain would sample a tempered posterior of the
               other points (force scale N/n on N_m n points), so such a schedule is refused
               (``partition_error``; until 2026-11-30 it was built and dropped them).
    fresh      each epoch/sweep cuts a fresh random permutation of the data into N_m batches,
               as the SMS-UBU paper's text describes; leftover points change every sweep, so
               each step's force is unbiased for any n (a pass no longer sums to the full force).

The force scale is N/n for every kind but full, which makes the estimator unbiased.
"""

from __future__ import annotations

import math

import torch

from .gather import take_rows
from .plumbing import hostmem
from .potential import covariance_factor

KINDS = ("full", "iid", "iid_wor", "reshuffle", "sms")
PARTITIONS = ("fixed", "fresh")

# Schedules pre-draw about this many steps at a time (whole cycles, independent of each
# other) to keep the per-step overhead small.
_BLOCK_STEPS = 64

_BIT_SHIFTS = torch.arange(8, dtype=torch.uint8)


def divisors_near(n_data: int, batch_size: int, count: int = 2) -> list[int]:
    """Up to ``count`` divisors of ``n_data`` below and above ``batch_size`` (at least 1, at most
    n_data / 2: two minibatches), nearest first on each side, in increasing order."""
    divs = [d for d in range(1, n_data // 2 + 1) if n_data % d == 0]
    below = [d for d in divs if d < batch_size][-count:]
    above = [d for d in divs if d > batch_size][:count]
    return below + above


def partition_error(kind: str, partition: str, n_data: int, batch_size: int) -> str:
    """Why a fixed partition into minibatches of ``batch_size`` cannot cover ``n_data`` points, or ''
    (the kinds without a partition, a fresh partition, or n dividing N)."""
    if kind not in ("reshuffle", "sms") or partition != "fixed" or n_data % batch_size == 0:
        return ""
    near = ", ".join(map(str, divisors_near(n_data, batch_size)))
    return (
        f"must divide the training set's {n_data} points with batching={kind} and a fixed partition (else "
        f"{n_data % batch_size} points would never be used); divisors near it: {near}; or batching.partition=fresh"
    )


class Schedule:
    def __init__(
        self,
        kind: str,
        n_data: int,
        batch_size: int,
        *,
        chains: int | None = None,
        partition: str = "fixed",
        generator: torch.Generator,
        device: torch.device | str = "cpu",
    ):
        if kind not in KINDS:
            raise ValueError(f"unknown batching {kind!r}; allowed: {', '.join(KINDS)}")
        if partition not in PARTITIONS:
            raise ValueError(f"unknown partition {partition!r}; allowed: {', '.join(PARTITIONS)}")
        if kind != "full" and not 1 <= batch_size <= n_data:
            raise ValueError(f"batch_size must be in 1..{n_data}, got {batch_size}")
        if why := partition_error(kind, partition, n_data, batch_size):
            raise ValueError(f"batch_size={batch_size} {why}")
        self.kind = kind
        self.n_data = n_data
        self.batch_size = n_data if kind == "full" else batch_size
        self.chains = chains
        self.partition = partition
        self.generator = generator
        self.device = torch.device(device)
        self.n_batches = n_data // self.batch_size
        self.scale = 1.0 if kind == "full" else n_data / self.batch_size
        self._eps = (
            0.0 if kind == "full" else covariance_factor(self.batch_size, n_data, with_replacement=kind == "iid")
        )
        self._fixed = None
        if kind in ("reshuffle", "sms") and partition == "fixed":
            perm = torch.randperm(n_data, generator=generator, device=self.device)
            self._fixed = perm[: self.n_batches * self.batch_size].view(self.n_batches, self.batch_size)
        # the current block of steps: data indices [L, n] or [L, C, n]; with a fixed partition,
        # batch numbers [L] or [L, C] into it (the indices of 4,000 chains' SMS cycle are 640 MB
        # of int64 to build and to save with the resume state, the batch numbers 6.4 MB)
        self._table: torch.Tensor | None = None
        self._rows: tuple[torch.Tensor, ...] = ()  # what ``next`` hands out at each step of the block
        self._by_batch = self._fixed is not None
        self._gather = False  # rows are per-chain batch numbers, gathered into indices at each step
        self._pos = 0

    @property
    def fixed_partition(self) -> torch.Tensor | None:
        """The fixed partition's minibatches as data indices [N_m, n] (reshuffle and sms with
        partition=fixed), else None."""
        return self._fixed

    @property
    def period(self) -> int:
        """Steps after which the schedule's law repeats (1 for full and iid kinds)."""
        return {"reshuffle": self.n_batches, "sms": 2 * self.n_batches}.get(self.kind, 1)

    @property
    def eps(self) -> float:
        """epsilon(n) = Cov(force estimate) / Sigma_x for one step's batch (sekkat2023 eq. 13):
        0 for full, N(N-1)/n for iid (with replacement), N(N-n)/n for the other kinds."""
        return self._eps

    # -- drawing -----------------------------------------------------------------------
    def _rand_perms(self, cycles: int, m: int) -> torch.Tensor:
        """Independent uniformly random permutations of range(m): [cycles, m] or [cycles, C, m]."""
        lead = (cycles,) if self.chains is None else (cycles, self.chains)
        if m == 2:
            first = self._fair_bits(lead).long()
            return torch.stack((first, 1 - first), dim=-1)
        return torch.argsort(torch.rand(*lead, m, generator=self.generator, device=self.device), dim=-1)

    def _fair_bits(self, lead: tuple[int, ...]) -> torch.Tensor:
        """Independent fair bits [*lead] (bool), eight from every uniform byte drawn: the random
        order of two batches (True: the second first) and the i.i.d. indices of two data points.
        For the toys of paulin2025 Fig. 1 (20,000 chains, 64 steps a block) the orders cost 0.07
        ns per chain-step against 1.1 as the argsort of two uniform keys (16 times the random
        numbers), the i.i.d. indices 0.07 against 2.3 with randint (one thread)."""
        m = math.prod(lead)
        octets = torch.randint(256, ((m + 7) // 8, 1), dtype=torch.uint8, generator=self.generator, device=self.device)
        bits = octets.bitwise_right_shift(_BIT_SHIFTS.to(self.device)).bitwise_and_(1)  # [m/8, 8], bit j of each byte
        return bits.view(-1)[:m].view(lead).bool()

    def _epoch_tables(self, cycles: int) -> torch.Tensor:
        """The batches of `cycles` independent epochs in sweep order: with a fixed partition
        their numbers [cycles, N_m] or [cycles, N_m, C], else data indices [cycles, N_m, n]
        or [cycles, N_m, C, n]."""
        if self._fixed is not None:
            order = self._rand_perms(cycles, self.n_batches)  # [K, N_m] or [K, C, N_m]
            return order if self.chains is None else order.transpose(1, 2)
        perm = self._rand_perms(cycles, self.n_data)[..., : self.n_batches * self.batch_size]
        if self.chains is None:
            return perm.view(cycles, self.n_batches, self.batch_size)
        return perm.view(cycles, self.chains, self.n_batches, self.batch_size).transpose(1, 2)

    def _new_cycle(self) -> torch.Tensor:
        """The next block of steps (whole cycles): indices [L, n] or [L, C, n], batch numbers
        [L] or [L, C] with a fixed partition."""
        shape = (_BLOCK_STEPS,) + ((self.chains,) if self.chains is not None else ())
        if self.kind == "iid":
            if self.n_data == 2:  # one fair bit per index (the two-point toys): 1/8 of randint's random numbers
                return self._fair_bits(shape + (self.batch_size,)).long()
            return torch.randint(self.n_data, shape + (self.batch_size,), generator=self.generator, device=self.device)
        if self.kind == "iid_wor":
            return self._distinct(shape)
        tables = self._sweeps(max(1, _BLOCK_STEPS // self.period))
        return tables.reshape(-1, *tables.shape[2:])

    def _sweeps(self, cycles: int) -> torch.Tensor:
        """``cycles`` independent epochs in step order, each followed by its mirror for sms:
        [cycles, L, ...] with L = N_m (reshuffle) or 2 N_m (sms), the trailing dimensions
        those of ``_epoch_tables``.

        The batch numbers of many chains are written straight into one step-major array
        [cycles, L, C]: for the toys of paulin2025 Fig. 1 (N_m = 2, 20,000 chains) stacking,
        transposing, mirroring and concatenating separate arrays made ``next`` cost 139 against
        76 us per step, a quarter of the SMS-UBU step besides its normals."""
        m, sms = self.n_batches, self.kind == "sms"
        if self._fixed is None or self.chains is None:
            tables = self._epoch_tables(cycles)
            return torch.cat([tables, tables.flip(1)], dim=1) if sms else tables
        out = hostmem.empty((cycles, 2 * m if sms else m, self.chains), torch.long, self.device)
        if m == 2:
            first = self._fair_bits((cycles, self.chains))
            out[:, 0] = first
            torch.logical_not(first, out=out[:, 1])
        else:
            out[:, :m] = self._epoch_tables(cycles)
        if sms:
            for j in range(m):  # the mirror, one slice at a time: no temporary of the flipped epoch
                out[:, 2 * m - 1 - j] = out[:, j]
        return out

    def _distinct(self, shape: tuple[int, ...]) -> torch.Tensor:
        """[*shape, n] rows of n distinct indices, each row a uniformly random n-subset.

        For n(n - 1) <= N (at most one repeated pair expected per row): draw n indices with
        replacement and redraw the repeats until none is left. The rule commutes with any
        relabelling of the data, so the law of the resulting subset is invariant under
        permutations of range(N), and the only such law on n-subsets is the uniform one. It
        costs O(n log n) per row instead of the O(N) of ranking N random keys, the rule
        used for larger batches."""
        n, N = self.batch_size, self.n_data
        if n * (n - 1) > N:
            keys = torch.rand(shape + (N,), generator=self.generator, device=self.device)
            return torch.topk(keys, n, dim=-1).indices
        idx = torch.randint(N, shape + (n,), generator=self.generator, device=self.device)
        flat = idx.view(-1, n)
        rows = flat
        pending = None  # row numbers of `rows` in `flat` (None: all rows)
        while True:
            ranked, order = rows.sort(dim=-1)
            repeat = ranked[:, 1:] == ranked[:, :-1]  # a copy of the value before it
            bad = repeat.any(dim=-1)
            if not bool(bad.any()):  # host syncs: a few per block of steps
                return idx
            redraw = torch.zeros_like(rows, dtype=torch.bool).scatter_(-1, order[:, 1:], repeat)
            rows = rows.clone()
            rows[redraw] = torch.randint(N, (int(redraw.sum()),), generator=self.generator, device=self.device)
            where = bad.nonzero()[:, 0] if pending is None else pending[bad]
            flat[where] = rows[bad]
            rows, pending = rows[bad], where

    def next(self) -> torch.Tensor | None:
        """Indices of the next step's minibatch (None: the full data set)."""
        if self.kind == "full":
            return None
        if self._pos == len(self._rows):  # also before the first cycle: no rows, position 0
            self._set_block(self._new_cycle(), self._fixed is not None)
            self._pos = 0
        idx = self._rows[self._pos]
        self._pos += 1
        return take_rows(self._fixed, idx) if self._gather else idx

    def _set_block(self, table: torch.Tensor, by_batch: bool) -> None:
        """Make ``table`` (data indices, or batch numbers when ``by_batch``) the current block
        and lay out its steps as ``next`` hands them out: views, a tuple lookup per step. One
        batch shared by the chains is its row of the fixed partition itself on the CPU (``next``
        0.5 against 7.5 us per step when it gathered the row with a 0-dim index, one thread),
        per-chain batch numbers [C] are gathered at each step, and on a GPU the numbers stay
        there (no host sync)."""
        self._table, self._by_batch = table, by_batch
        self._gather = by_batch and (table.dim() > 1 or table.device.type != "cpu")
        if by_batch and not self._gather:
            partition = self._fixed.unbind(0)
            self._rows = tuple([partition[b] for b in table.tolist()])
        else:
            self._rows = table.unbind(0)

    # -- resume ------------------------------------------------------------------------
    def state_dict(self) -> dict[str, torch.Tensor]:
        out = {"pos": torch.tensor(self._pos)}
        if self._table is not None:
            out["batch_table" if self._by_batch else "table"] = self._table
        if self._fixed is not None:
            out["fixed_partition"] = self._fixed
        return out

    def load_state_dict(self, d: dict[str, torch.Tensor]) -> None:
        self._pos = int(d["pos"])
        # "table" holds data indices (also in stores written before batch numbers were kept)
        table = d.get("batch_table", d.get("table"))
        if "fixed_partition" in d:
            self._fixed = d["fixed_partition"].to(self.device)
        if table is not None:
            self._set_block(table.to(self.device), "batch_table" in d)
        else:
            self._table, self._rows, self._by_batch = None, (), "batch_table" in d
