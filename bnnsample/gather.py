"""Row gathers ``table[idx]`` on the hot path of many-chain runs, the fastest way measured.

On the CPU (one thread) ``np.take`` beat torch's gathers at every size tried: 0.4 against
2.0 ns per index (``index_select``) for rows of one or two numbers and 20,000 indices (the
toys of paulin2025 Fig. 1 draw one datum per chain and step: two such gathers per step, the
schedule's batch and the datum's terms), 5.4 against 6.8 ns for rows of 100 float32 and
4,000 indices, 61 against 86 ns for 784-pixel images. (``torch.gather`` took 0.45 ns per
int64 index but 1.2 for float64.) Its conversions cost about 2 us more per call, so fewer
than NUMPY_FROM indices (one shared batch of 100, crossover measured between 300 and 1,000)
keep ``index_select``, as do tensors on a GPU or that autograd tracks.
"""

from __future__ import annotations

import numpy as np
import torch

NUMPY_FROM = 1024
_NUMPY_DTYPES = (torch.float64, torch.float32, torch.float16, torch.int64, torch.int32, torch.uint8, torch.bool)


def take_rows(table: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """``table[idx]``: the rows (along dim 0) of ``table`` [N, *row] at the indices ``idx``
    (any shape), shape [*idx.shape, *row]."""
    if (
        idx.numel() >= NUMPY_FROM
        and table.device.type == "cpu"
        and table.dtype in _NUMPY_DTYPES
        and not table.requires_grad
    ):
        return torch.from_numpy(np.asarray(np.take(table.numpy(), idx.numpy(), axis=0)))
    if idx.dim() == 1:  # one shared batch: no reshapes (a view costs about as much as a small gather)
        return table.index_select(0, idx)
    return table.index_select(0, idx.reshape(-1)).view(idx.shape + table.shape[1:])


def batch_rows(idx: torch.Tensor | None, *tables: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The rows of each of ``tables`` for a minibatch ``idx``: the tables themselves for the
    full batch (None), ``take_rows`` otherwise; one shared batch [n], the one-chain hot path,
    goes straight to ``index_select``."""
    if idx is None:
        return tables
    if idx.dim() == 1:
        return tuple([t.index_select(0, idx) for t in tables])  # a list display: no generator frame per step
    return tuple([take_rows(t, idx) for t in tables])
