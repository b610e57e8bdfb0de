"""Cached number operands: the products of ``torch.mul(t, c)`` bit for bit."""

import math
import random

import pytest
import torch

from bnnsample.integrators import scalars
from bnnsample.integrators.scalars import number, scale_, scaled


def _constants(n: int, seed: int) -> list[float]:
    rnd = random.Random(seed)
    pick = [
        lambda: math.exp(-rnd.uniform(0, 5)),  # OU damping
        lambda: 1 - rnd.random() * 1e-3,  # 1 - h gamma
        lambda: rnd.uniform(-1e5, 1e5),
        lambda: 10 ** rnd.uniform(-45, 38),  # float32 subnormals to near overflow
        lambda: 1 / 3,
        lambda: 0.1,
    ]
    return [rnd.choice(pick)() for _ in range(n)]


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.dtype == b.dtype and torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(), b.nan_to_num())


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
def test_products_are_those_of_a_python_number(dtype):
    # magnitudes from 1e-30 to 1e30: products that round, underflow and overflow in every dtype
    t = (torch.randn(200, 61, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
         * torch.logspace(-30, 30, 61, dtype=torch.float64)).to(dtype)  # fmt: skip
    for c in _constants(300, seed=2):
        assert _same(scaled(t, c), torch.mul(t, c)), c
        assert _same(scale_(t.clone(), c), t.clone().mul_(c)), c


def test_the_number_is_held_at_the_compute_precision():
    # a float32 operand for a float64 tensor would round c: the products would differ
    c = 0.1
    assert number(c, torch.zeros(1, dtype=torch.float64)).dtype == torch.float64
    assert not torch.equal(torch.mul(torch.ones(1, dtype=torch.float64), torch.tensor(c, dtype=torch.float32)),
                           torch.mul(torch.ones(1, dtype=torch.float64), c))  # fmt: skip
    assert number(c, torch.zeros(1, dtype=torch.float16)).dtype == torch.float32


def test_other_dtypes_keep_the_python_number():
    t = torch.arange(5)
    assert number(2.5, t) == 2.5
    assert _same(scaled(t, 2.5), torch.mul(t, 2.5))  # integer tensor times a float: float result
    z = torch.randn(4, dtype=torch.complex64)
    assert _same(scaled(z, 0.3), torch.mul(z, 0.3))


def test_a_number_first_asked_for_under_inference_mode_serves_autograd():
    scalars._number.cache_clear()
    with torch.inference_mode():
        scaled(torch.ones(3), 0.731)
    v = torch.ones(3, requires_grad=True)
    scaled(v, 0.731).sum().backward()  # an inference-tensor operand could not be saved for backward
    assert torch.equal(v.grad, torch.full((3,), 0.731))
