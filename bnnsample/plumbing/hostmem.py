"""Large host arrays backed by transparent huge pages.

A fresh array is paid for in page faults when it is first written: 4 KB at a time for
``torch.empty`` on the CPU, 2 MB at a time for NumPy arrays of 4 MB and more, which NumPy
marks for huge pages (``madvise``; used where the kernel's transparent-huge-page mode is
``madvise`` or ``always``). Measured on the 2-core machine, one thread: writing the two-class
test predictive of 4,000 chains x 2,000 points (64 MB) into a fresh ``torch.empty`` array took
32-38 ms, into a fresh NumPy array 13-15 ms, into one already written 6.6 ms. The arrays a run
allocates afresh for every draw block or schedule cycle come from here.
"""

from __future__ import annotations

import numpy as np
import torch


def empty(shape, dtype: torch.dtype, device: torch.device | str = "cpu") -> torch.Tensor:
    """``torch.empty(shape, dtype=dtype, device=device)``, on the CPU from NumPy's allocator
    (dtypes NumPy lacks, such as bfloat16, from torch's)."""
    if torch.device(device).type != "cpu":
        return torch.empty(shape, dtype=dtype, device=device)
    try:
        np_dtype = torch.empty(0, dtype=dtype).numpy().dtype
    except TypeError:
        return torch.empty(shape, dtype=dtype)
    return torch.from_numpy(np.empty(tuple(shape), dtype=np_dtype))
