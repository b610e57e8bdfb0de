import pytest
import torch

from bnnsample.plumbing import hostmem


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.bool, torch.bfloat16])
def test_empty_is_a_fresh_writable_cpu_array_of_the_dtype(dtype):
    a = hostmem.empty((3, 1 << 20), dtype)  # 3M values: above NumPy's huge-page threshold for most dtypes
    b = hostmem.empty((3, 1 << 20), dtype)
    assert a.shape == (3, 1 << 20) and a.dtype == dtype and a.device.type == "cpu" and a.is_contiguous()
    a.fill_(1)
    b.fill_(0)
    assert bool((a == 1).all()) and bool((b == 0).all())  # separate memory


def test_empty_keeps_torch_semantics_for_products_written_into_it():
    x, w = torch.randn(7, 5), torch.randn(11, 5)
    assert torch.equal(torch.matmul(x, w.T, out=hostmem.empty((7, 11), torch.float32)), x @ w.T)
