"""Products of a CPU tensor and a Python number, ``torch.mul(t, c)`` bit for bit, cheaper.

torch turns a Python number operand into a fresh double 0-dim tensor and converts it to the
tensor's dtype on every call (an allocation and an ``aten::to``): 2.8 against 1.6 us for a
[1, 100] float32 mul on one thread here, a few per cent of a one-chain step. The number held
once in a 0-dim tensor of the compute precision gives the same products: the CPU kernels
read a 0-dim operand as one scalar of the op's compute type (float for float32, float16 and
bfloat16 tensors, double for float64), which is what the Python number is rounded to as
well, and a 0-dim operand never changes the result's dtype (tests/integrators/test_scalars.py checks
the products bit for bit). Other dtypes and devices keep the Python number: on a GPU the
launch, not the operand, is the cost.
"""

from __future__ import annotations

import functools

import torch

_HELD = {torch.float64: torch.float64, torch.float32: torch.float32, torch.float16: torch.float32,
         torch.bfloat16: torch.float32}  # fmt: skip


@functools.lru_cache(maxsize=1024)
def _number(c: float, dtype: torch.dtype) -> torch.Tensor:
    # a normal tensor even when first asked for under inference mode: an op under autograd
    # may save it for backward, which an inference tensor cannot be
    with torch.inference_mode(False):
        return torch.tensor(c, dtype=dtype)


_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)


def number(c: float, t: torch.Tensor) -> torch.Tensor | float:
    """``c`` as the operand of a product with ``t``: a cached 0-dim tensor of the product's
    compute precision for a floating CPU tensor, ``c`` itself otherwise (and inside a
    ``torch.compile``d block, whose graph holds it as a constant)."""
    held = _HELD.get(t.dtype) if t.is_cpu and not _compiling() else None
    return c if held is None else _number(c, held)


def scaled(t: torch.Tensor, c: float) -> torch.Tensor:
    """``t * c`` as a new tensor, the numbers of ``torch.mul(t, c)``."""
    return torch.mul(t, number(c, t))


def scale_(t: torch.Tensor, c: float) -> torch.Tensor:
    """``t *= c`` in place, the numbers of ``t.mul_(c)``."""
    return t.mul_(number(c, t))
