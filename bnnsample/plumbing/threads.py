"""The default number of torch CPU threads of `bnnsample run` and `evaluate`: one.

The runs are many small operations (a few chains of a small network, minibatches of 200);
on a shared 2-core machine a second thread mostly waits for the other and costs 5-6x the
CPU time of one thread for the same run (docs/getting-started.md, Threads). Set OMP_NUM_THREADS=N
to use N threads (a large network on an idle many-core machine); local parallel sweeps
(joblib) set cores // parallel jobs themselves.
"""

from __future__ import annotations

import os
import sys

DEFAULT = "1"


def set_default() -> None:
    """OMP_NUM_THREADS=1 unless the user set it (torch reads it when first imported; if torch
    is imported already, its thread count is set directly)."""
    if "OMP_NUM_THREADS" in os.environ:
        return
    os.environ["OMP_NUM_THREADS"] = DEFAULT
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(int(DEFAULT))
