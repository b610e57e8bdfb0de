"""The arithmetic of a network's forward and backward passes (``model.precision``).

The sampler's state (positions, momenta, thermostats) and the integrator's arithmetic stay in the
run's ``dtype`` whatever this says; only the network's convolutions and products change:

    float32  IEEE float32 throughout (TF32 tensor cores off for products and convolutions)
    tf32     TF32 tensor cores for float32 products and convolutions on CUDA (inputs rounded to
             10 mantissa bits, float32 accumulation); on the CPU the same as float32
    bf16     the forward and backward passes under ``torch.autocast`` to bfloat16 (8 mantissa
             bits; losses, softmax and BatchNorm statistics stay float32 by autocast's rules),
             the gradient handed back in the state's dtype
    auto     tf32 on CUDA, float32 elsewhere

Predictions (once per draw) are made in float32 under every choice, so that the metrics of runs
in different precisions compare the draws, not the arithmetic of the evaluation.
"""

from __future__ import annotations

from contextlib import contextmanager

import torch
from torch import nn

from ..plumbing.errors import UserError

PRECISIONS = ("auto", "float32", "tf32", "bf16")


def resolve_precision(precision: str, device: torch.device) -> str:
    """The precision ``auto`` stands for on ``device``; UserError for an unknown one."""
    if precision not in PRECISIONS:
        raise UserError(f"model.precision={precision}: allowed values: {', '.join(PRECISIONS)}")
    if precision != "auto":
        return precision
    return "tf32" if device.type == "cuda" else "float32"


def _tf32_switches() -> list[tuple[object, str, object, object]]:
    """(object, attribute, value for TF32, value for IEEE float32) of cuBLAS's products and cuDNN's
    convolutions: the ``fp32_precision`` settings where torch has them (2.9 and later; torch
    refuses a mix of them and the older ``allow_tf32`` flags, which torch.compile's code sets),
    else the ``allow_tf32`` flags."""
    b = torch.backends
    if hasattr(b.cuda.matmul, "fp32_precision") and hasattr(b.cudnn, "conv"):
        return [(b.cuda.matmul, "fp32_precision", "tf32", "ieee"), (b.cudnn.conv, "fp32_precision", "tf32", "ieee")]
    return [(b.cuda.matmul, "allow_tf32", True, False), (b.cudnn, "allow_tf32", True, False)]


def tf32_enabled() -> tuple[bool, bool]:
    """Whether products and convolutions may use TF32 now (per ``_tf32_switches``)."""
    return tuple(getattr(obj, attr) == on for obj, attr, on, _ in _tf32_switches())


@contextmanager
def network_arithmetic(precision: str, device: torch.device):
    """Within the block, the network's passes run in ``precision`` (a resolved one: float32,
    tf32 or bf16). The TF32 switches are process settings; the previous ones are restored on
    exit, so code outside the network (closed-form targets, evaluation) keeps its own."""
    switches = _tf32_switches()
    before = [getattr(obj, attr) for obj, attr, _, _ in switches]
    for obj, attr, on, off in switches:
        setattr(obj, attr, off if precision == "float32" else on)
    try:
        if precision == "bf16":
            with torch.autocast(device.type, dtype=torch.bfloat16):
                yield
        else:
            yield
    finally:
        for (obj, attr, _, _), value in zip(switches, before):
            setattr(obj, attr, value)


class _StateDtypeNorm:
    """A BatchNorm layer whose statistics and normalisation run in the state's dtype outside
    autocast: under ``vmap`` the batched backward of a bf16 BatchNorm with float32 parameters
    fails on the CPU ("expected scalar type BFloat16 but found Float", torch 2.14), and float32
    statistics are autocast's own practice for reductions."""

    def forward(self, x):
        with torch.autocast(x.device.type, enabled=False):
            return super().forward(x.to(self.state_dtype))


class StateDtypeBatchNorm1d(_StateDtypeNorm, nn.BatchNorm1d):
    pass


class StateDtypeBatchNorm2d(_StateDtypeNorm, nn.BatchNorm2d):
    pass


class StateDtypeBatchNorm3d(_StateDtypeNorm, nn.BatchNorm3d):
    pass


_IN_STATE_DTYPE = {nn.BatchNorm1d: StateDtypeBatchNorm1d, nn.BatchNorm2d: StateDtypeBatchNorm2d,
                   nn.BatchNorm3d: StateDtypeBatchNorm3d}  # fmt: skip


def batch_norm_in_state_dtype(module: nn.Module, dtype: torch.dtype) -> None:
    """In place: every BatchNorm layer of ``module`` (the three standard classes) computes in
    ``dtype`` whatever the autocast around it; parameters, names and function unchanged."""
    for m in module.modules():
        cls = _IN_STATE_DTYPE.get(type(m))
        if cls is not None:
            m.__class__ = cls
            m.state_dtype = dtype
