"""The user's own target: ``model=custom`` (a network of theirs) and ``model=log_density`` (a
density of theirs), both named by dotted paths to importable Python objects (docs/custom.md).

``model=custom``: ``model.net`` is a Hydra ``_target_`` node, ``hydra.utils.instantiate``d into
a ``torch.nn.Module`` (``model.net._target_=mypkg.nets.Net +model.net.hidden=64``), built under
the run's model seed. On classification data it returns logits [n, K] and the posterior is that
of the built-in networks (``ClassifierPotential``: cross-entropy likelihood); on regression
data one mean per datum ([n, 1] or [n]) with a Gaussian likelihood of variance
``model.noise_var`` on standardised targets (``RegressionNetPotential``). The prior is
N(0, 1/prior_precision) on every parameter (``model.prior_on_bias=false``: none on biases, as
the built-in CNNs have). Everything that works for a built-in network works for it: init=swa,
the minibatch and full-batch integrators, control variates, BatchNorm calibration (its
BatchNorm layers get momentum 1, as the built-in ones have: the loss uses the batch's
statistics, and one calibration batch sets the running statistics before each prediction),
chain batching by vmap or a loop, any device.

``model=log_density``: ``model.fn`` names f(theta [C, d]) -> log density [C] (up to a
constant), ``model.dim`` = d. U = -f, its gradient and Hessian-vector products by autograd
(``LogDensityPotential``); there are no data (``dataset=none``), so the minibatch schedules
give the full gradient.

The dotted paths are imported from PYTHONPATH, then from ``model.path`` (a directory, stored
with the run so that evaluate and resume find the module from anywhere), then from the current
directory. A path that cannot be imported, or an object that is not what is needed, is one
line naming the field and the path.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

from ..plumbing.errors import UserError
from ..potential import Potential
from . import register
from .network import ClassifierPotential, RegressionNetPotential


# -- importing the user's objects -----------------------------------------------------------------
def _search_dirs(path) -> list[str]:
    dirs = [str(Path(str(path)).expanduser().absolute())] if path else []
    return [*dirs, os.getcwd()]


def import_object(dotted, field: str, path=None):
    """The object at ``dotted`` ("pkg.module.name"): the longest importable module prefix, then
    attributes. Searched on sys.path, then in ``path`` and the current directory (added to
    sys.path when needed). UserError naming ``field`` otherwise."""
    if not isinstance(dotted, str) or "." not in dotted.strip("."):
        raise UserError(f"{field}={dotted}: give the dotted path of a Python object, e.g. mypkg.nets.Net "
                        "(a module importable from the current directory or PYTHONPATH)")  # fmt: skip
    parts = dotted.split(".")
    for extra in [None, *_search_dirs(path)]:
        if extra is not None and extra not in sys.path:
            sys.path.append(extra)
            importlib.invalidate_caches()
        for k in range(len(parts) - 1, 0, -1):
            name = ".".join(parts[:k])
            try:
                obj = importlib.import_module(name)
            except ModuleNotFoundError as e:
                if e.name is not None and not f"{name}.".startswith(f"{e.name}."):
                    # the module was found, but it imports something that is missing
                    raise UserError(f"{field}={dotted}: importing {name} failed: {e}") from None
                continue
            except Exception as e:  # noqa: BLE001  (the user's module raised while importing)
                raise UserError(f"{field}={dotted}: importing {name} failed: {type(e).__name__}: {e}") from None
            try:
                for attr in parts[k:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                raise UserError(f"{field}={dotted}: module {name} ({getattr(obj, '__file__', '?')}) has no "
                                f"{'.'.join(parts[k:])}") from None  # fmt: skip
            return obj
    where = ", ".join(["PYTHONPATH", *_search_dirs(path)])
    raise UserError(f"{field}={dotted}: cannot import module {parts[0]} (searched {where}); run from the directory "
                    "that holds it, or set model.path=DIR or PYTHONPATH")  # fmt: skip


def _first_line(e: BaseException) -> str:
    """The innermost cause of an exception, in one line."""
    while e.__cause__ is not None:
        e = e.__cause__
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def instantiate_net(model_cfg, seed: int) -> nn.Module:
    """``hydra.utils.instantiate(model.net)`` under ``torch.manual_seed(seed)``: a torch.nn.Module."""
    from hydra.utils import instantiate
    from omegaconf import DictConfig, OmegaConf

    net = model_cfg.get("net")
    target = net.get("_target_") if isinstance(net, (dict, DictConfig)) else None
    if target is None:
        raise UserError("model.net._target_=null: give the network, e.g. model.net._target_=mypkg.nets.Net "
                        "+model.net.hidden=64 (a torch.nn.Module class or a function returning one)")  # fmt: skip
    import_object(target, "model.net._target_", model_cfg.get("path"))  # one line when it cannot be imported
    torch.manual_seed(seed)
    try:
        module = instantiate(OmegaConf.create(net) if isinstance(net, dict) else net)
    except Exception as e:  # noqa: BLE001  (Hydra's InstantiationException around the user's error)
        raise UserError(f"model.net._target_={target}: building it failed ({_first_line(e)})") from None
    if not isinstance(module, nn.Module):
        raise UserError(f"model.net._target_={target}: gave a {type(module).__name__}, not a torch.nn.Module")
    if not any(True for _ in module.parameters()):
        raise UserError(f"model.net._target_={target}: the network has no parameters to sample")
    return module


def _check_outputs(module: nn.Module, data, target: str) -> None:
    """A trial forward pass on two training points: logits [n, K] for K classes, or one output per
    datum for regression."""
    try:
        with torch.no_grad():
            out = module(data.x_train[:2].to(next(module.parameters())))
    except Exception as e:  # noqa: BLE001  (the user's forward)
        shape = list(data.x_train.shape[1:])
        raise UserError(f"model.net._target_={target}: its forward pass fails on inputs of shape [n, "
                        f"{', '.join(map(str, shape))}] of dataset={data.name} ({_first_line(e)})") from None  # fmt: skip
    n = min(2, data.n_train)
    if data.task == "classification":
        ok, want = tuple(out.shape) == (n, data.n_classes), f"[n, {data.n_classes}] logits ({data.n_classes} classes)"
    else:
        ok, want = tuple(out.shape) in ((n,), (n, 1)), "[n, 1] (or [n]) means"
    if not ok:
        raise UserError(f"model.net._target_={target}: gives outputs of shape {list(out.shape)} for n = {n} inputs; "
                        f"dataset={data.name} ({data.task}) needs {want}")  # fmt: skip


@register("custom")
def build_custom(model_cfg, data, device, dtype, seed):
    if data.x_train is None or data.task not in ("classification", "regression"):
        raise UserError(f"model=custom needs inputs with labels or targets; dataset={data.name} has none "
                        "(a density without data is model=log_density)")  # fmt: skip
    target = model_cfg.net.get("_target_") if model_cfg.get("net") is not None else None
    module = instantiate_net(model_cfg, seed).to(device, dtype)
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.track_running_stats:
            # momentum 1, as the built-in networks': before each prediction the calibration batch
            # sets the running statistics (with PyTorch's 0.1 they would mix in the earlier draws')
            m.momentum = 1.0
    _check_outputs(module, data, target)
    kwargs = dict(
        prior_precision=float(model_cfg.get("prior_precision", 1.0)),
        n_calibration=int(model_cfg.get("n_calibration", 1000)),
        chain_batching=str(model_cfg.get("chain_batching", "auto")),
        memory_format=str(model_cfg.get("memory_format", "auto")),
        precision=str(model_cfg.get("precision", "auto")),
        prior_on_bias=bool(model_cfg.get("prior_on_bias", True)),
    )
    x_test = data.x_test.to(device, dtype) if data.x_test is not None else data.x_train[:0].to(device, dtype)
    if data.task == "classification":
        return ClassifierPotential(module, data.x_train.to(device, dtype), data.y_train.to(device), x_test, **kwargs)
    noise_var = model_cfg.get("noise_var")
    noise_var = data.extras.get("noise_var") if noise_var is None else noise_var
    if noise_var is None or not float(noise_var) > 0:
        raise UserError(f"model.noise_var={noise_var}: a regression needs the Gaussian likelihood's variance on "
                        "standardised targets, a number > 0 (e.g. model.noise_var=0.1)")  # fmt: skip
    return RegressionNetPotential(module, data.x_train.to(device, dtype), data.y_train.to(device), x_test,
                                  noise_var=float(noise_var), y_mean=float(data.extras.get("y_mean", 0.0)),
                                  y_std=float(data.extras.get("y_std", 1.0)), **kwargs)  # fmt: skip


# -- a log density ----------------------------------------------------------------------------------
class LogDensityPotential(Potential):
    """U(x) = -f(x) for a log density f: [C, d] -> [C] (up to a constant), by autograd:

        force(x)   = -grad f(x)                    [C, d]
        hvp(x, u)  = -(Hessian of f at x) u        (grad of <grad f, u>, double backward)
        energy(x)  = -f(x)                         [C]

    There are no data (n_data = 1, a placeholder): every minibatch gives the full gradient."""

    task = "density"
    n_data = 1

    def __init__(self, fn: Callable[[torch.Tensor], torch.Tensor], dim: int, name: str = "f"):
        self.fn, self.dim, self.name = fn, int(dim), name

    def _log_density(self, leaf):
        try:
            lp = self.fn(leaf)
        except Exception as e:  # noqa: BLE001  (the user's function, called on the chains' positions)
            raise UserError(f"{self.name}(theta) failed on theta of shape {tuple(leaf.shape)}, {leaf.dtype} on "
                            f"{leaf.device} ({_first_line(e)}); it must take a torch tensor [chains, d] and keep "
                            "its own tensors on theta's device and dtype (e.g. MEAN.to(theta))") from None  # fmt: skip
        if not torch.is_tensor(lp) or tuple(lp.shape) != (leaf.shape[0],):
            got = tuple(lp.shape) if torch.is_tensor(lp) else type(lp).__name__
            raise UserError(f"{self.name}(theta) with theta of shape {tuple(leaf.shape)} returned {got}; it must "
                            f"return a tensor of shape ({leaf.shape[0]},), one log density per chain")  # fmt: skip
        return lp

    def _grad(self, x, create_graph=False):
        leaf = x.detach().requires_grad_(True)
        with torch.enable_grad():
            lp = self._log_density(leaf)
            if not lp.requires_grad:
                raise UserError(f"{self.name}(theta) does not depend on theta through torch operations: "
                                "autograd cannot differentiate it")  # fmt: skip
            (g,) = torch.autograd.grad(lp.sum(), leaf, create_graph=create_graph)
        return leaf, g

    def force(self, x, idx, scale):
        return -self._grad(x)[1]

    def energy(self, x, idx, scale):
        with torch.no_grad():
            return -self._log_density(x.detach())

    def hvp(self, x, u, idx, scale):
        with torch.enable_grad():
            leaf, g = self._grad(x, create_graph=True)
            (hu,) = torch.autograd.grad((g * u).sum(), leaf)
        return -hu


def load_log_density(fn, dim, path=None, field: str = "model.fn") -> LogDensityPotential:
    """The LogDensityPotential of ``fn`` (a callable or a dotted path) in dimension ``dim``."""
    name = fn if isinstance(fn, str) else getattr(fn, "__qualname__", "f")
    if not callable(fn):
        fn = import_object(fn, field, path)
        if not callable(fn):
            raise UserError(f"{field}={name}: not a function (a {type(fn).__name__})")
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise UserError(f"model.dim={dim}: must be an integer >= 1, the dimension d of theta")
    return LogDensityPotential(fn, dim, str(name))


@register("log_density")
def build_log_density(model_cfg, data, device, dtype, seed):
    if data.name != "none":
        raise UserError(f"model=log_density samples a density without data; dataset={data.name}: use dataset=none")
    return load_log_density(model_cfg.get("fn"), model_cfg.get("dim"), model_cfg.get("path"))
