"""Neural-network posteriors: flat parameter vectors batched over chains via torch.func.

The sampler sees parameters as one flat vector per chain, x: [C, d]. The force is computed
with ``functional_call`` + ``vmap`` over the chain dimension on a copy of the network whose
BatchNorm layers always use batch statistics (no running buffers): the loss is a function of
the parameters and the minibatch only, as in paulin2025 §4, Algorithm 3. Prediction loads one chain's
parameters into an ordinary module, runs it in train mode on a fixed calibration batch
(BatchNorm momentum 1 copies that batch's statistics) and predicts in eval mode.

Potential (classification, no temperature):
    U_0(x) = (lam/2) ||x_w||^2            (Gaussian prior on all parameters but biases)
    U_i(x) = cross-entropy of datum i

Per-datum gradients with BatchNorm: in a minibatch S the network normalises with the batch's
statistics, which depend on x and on every datum of S, so datum i's loss is a function of the
whole batch. We define U_i^S(x) as the i-th summand of the minibatch loss, the cross-entropy of
datum i in the forward pass of the whole batch, and grad U_i^S its full gradient, including the
dependence through the batch statistics (the rows of the Jacobian of the per-datum loss vector).
Then sum_{i in S} grad U_i^S = grad of the minibatch loss exactly, with or without BatchNorm,
and the gradient covariance estimate is the sample covariance of these summands. Without
BatchNorm U_i^S = U_i, the ordinary per-datum gradient.
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, grad_and_value, jacrev, jvp, replace_all_batch_norm_modules_, vmap

from ..plumbing.errors import UserError
from ..potential import Potential
from . import register
from .cnn import ARCHITECTURES
from .precision import batch_norm_in_state_dtype, network_arithmetic, resolve_precision


class ParamLayout:
    """Maps between a module's parameters and flat vectors [..., d]. The flat order is the
    logical (row-major) order of each parameter whatever its memory format; with
    ``channels_last`` the 4-d convolution kernels handed to ``functional_call`` are laid out
    channels-last (one small copy each), which makes the CPU convolutions take their faster
    channels-last path (``memory_format``)."""

    def __init__(self, module: nn.Module, channels_last: bool = False):
        self.names = [n for n, _ in module.named_parameters()]
        self.shapes = [p.shape for _, p in module.named_parameters()]
        self.sizes = [p.numel() for _, p in module.named_parameters()]
        self.dim = sum(self.sizes)
        self.channels_last = channels_last

    def unflatten(self, flat: torch.Tensor) -> dict[str, torch.Tensor]:
        parts = torch.split(flat, self.sizes, dim=-1)
        lead = flat.shape[:-1]
        out = {n: p.reshape(*lead, *s) for n, p, s in zip(self.names, parts, self.shapes)}
        if self.channels_last and not lead:
            out = {n: p.clone(memory_format=torch.channels_last) if p.dim() == 4 else p for n, p in out.items()}
        return out

    def flatten(self, module: nn.Module) -> torch.Tensor:
        return torch.cat([p.detach().reshape(-1) for p in module.parameters()])

    @torch.no_grad()
    def load(self, module: nn.Module, flat: torch.Tensor) -> None:
        """Copy ``flat`` into the module's own parameter memory. (``vector_to_parameters``
        would make the parameters views of ``flat``: a later in-place update of the module,
        the next run's re-initialisation and Adam steps, would then overwrite ``flat``.)"""
        for p, part in zip(module.parameters(), torch.split(flat, self.sizes)):
            p.copy_(part.view_as(p))

    def prior_mask(self, like: torch.Tensor) -> torch.Tensor:
        """1 for penalised parameters (names without 'bias'), 0 for biases."""
        parts = [torch.full((s,), 0.0 if "bias" in n else 1.0) for n, s in zip(self.names, self.sizes)]
        return torch.cat(parts).to(like)


MEMORY_FORMATS = ("auto", "channels_last", "contiguous")


def resolve_memory_format(memory_format: str, module: nn.Module, device: torch.device) -> str:
    """``auto``: channels-last for a network with 2-d convolutions on the CPU, where oneDNN's
    channels-last kernels measured 1.41x faster for ``cnn_small`` and 1.16x for ``cnn_fmnist``
    (forward + backward, batch 200, one thread; ``scripts/bench.py --suite conv``); contiguous
    elsewhere (on CUDA the choice is measured by the GPU epoch benchmark, not assumed).
    The layout changes the order of floating-point sums only, not the function."""
    if memory_format not in MEMORY_FORMATS:
        raise UserError(f"model.memory_format={memory_format}: allowed values: {', '.join(MEMORY_FORMATS)}")
    if memory_format != "auto":
        return memory_format
    has_conv = any(isinstance(m, nn.Conv2d) for m in module.modules())
    return "channels_last" if has_conv and device.type == "cpu" else "contiguous"


class ClassifierPotential(Potential):
    """Cross-entropy likelihood of a network classifier with a Gaussian prior on weights (on
    every parameter with ``prior_on_bias``). The likelihood is the three methods ``_batch_nll``,
    ``_datum_nll`` and ``_prediction``; ``RegressionNetPotential`` replaces them."""

    task = "classification"

    def __init__(
        self,
        module: nn.Module,
        x_train: torch.Tensor,
        y_train: torch.Tensor,
        x_test: torch.Tensor,
        prior_precision: float = 1.0,
        n_calibration: int = 1000,
        predict_batch: int = 1000,
        chain_batching: str = "auto",
        memory_format: str = "auto",
        prior_on_bias: bool = False,
        precision: str = "auto",
    ):
        self.precision = resolve_precision(precision, x_train.device)
        self.memory_format = resolve_memory_format(memory_format, module, x_train.device)
        if self.memory_format == "channels_last":
            module.to(memory_format=torch.channels_last)  # in place: training and prediction use it too
        self.module = module  # ordinary module, used for prediction
        self.layout = ParamLayout(module, channels_last=self.memory_format == "channels_last")
        self.dim = self.layout.dim
        self.x_train, self.y_train, self.x_test = x_train, y_train, x_test
        self.n_data = x_train.shape[0]
        self.lam = float(prior_precision)
        self.mask = torch.ones(self.dim).to(x_train) if prior_on_bias else self.layout.prior_mask(x_train)
        self.x_calib = x_train[: min(n_calibration, self.n_data)]
        self.predict_batch = predict_batch
        self._functional = copy.deepcopy(module)
        replace_all_batch_norm_modules_(self._functional)
        if self.precision == "bf16":
            for m in (module, self._functional):
                batch_norm_in_state_dtype(m, x_train.dtype)
        self._functional.train()
        self._last_loss = None

        layout, net = self.layout, self._functional

        batch_nll, datum_nll = self._batch_nll, self._datum_nll

        def batch_loss(flat, xb, yb):
            return batch_nll(functional_call(net, layout.unflatten(flat), (xb,)), yb)

        if chain_batching == "auto":
            chain_batching = "vmap" if x_train.is_cuda else "loop"
        if chain_batching not in ("vmap", "loop"):
            raise ValueError(f"chain_batching={chain_batching}: allowed values: auto, vmap, loop")
        self.chain_batching = chain_batching
        one = grad_and_value(batch_loss)
        self._grad_shared = vmap(one, in_dims=(0, None, None))
        self._grad_per_chain = vmap(one, in_dims=(0, 0, 0))
        self._batch_loss = batch_loss

        def datum_losses(flat, xb, yb):
            return datum_nll(functional_call(net, layout.unflatten(flat), (xb,)), yb)

        self._datum_losses = datum_losses
        hess_one = lambda flat, u, xb, yb: jvp(lambda f: grad(batch_loss)(f, xb, yb), (flat,), (u,))[1]  # noqa: E731
        self._hvp_one = hess_one
        self._hvp_shared = vmap(hess_one, in_dims=(0, 0, None, None))
        self._hvp_per_chain = vmap(hess_one, in_dims=(0, 0, 0, 0))

    # -- the likelihood: U_i of the network outputs (a subclass changes these three) ----------
    @staticmethod
    def _batch_nll(out, y):
        """sum_i U_i of a batch's outputs [n, K] and labels [n]: the cross-entropy."""
        return F.cross_entropy(out, y, reduction="sum")

    @staticmethod
    def _datum_nll(out, y):
        """U_i of each datum, [n]."""
        return F.cross_entropy(out, y, reduction="none")

    def _prediction(self, out):
        """What is stored of the outputs at the test points: class probabilities."""
        return F.softmax(out, dim=-1)

    def _autograd_one(self, flat, xb, yb):
        """Gradient and loss of one chain by plain reverse-mode autograd on a flat leaf.
        On CPU this measured 1647 ms against 1803 ms for torch.func's grad_and_value and
        1683 ms for the ordinary module's backward (cnn_fmnist, batch 200, one thread)."""
        leaf = flat.detach().requires_grad_(True)
        with torch.enable_grad():
            loss = self._batch_loss(leaf, xb, yb)
            (g,) = torch.autograd.grad(loss, leaf)
        return g, loss.detach()

    def _loop(self, x, xb, yb, shared: bool):
        # On CPU, vmap over convolutions with per-chain weights measured ~2.4x slower than
        # one autograd pass per chain (cnn_small, 4 chains, batch 200).
        outs = [self._autograd_one(x[c], xb if shared else xb[c], yb if shared else yb[c]) for c in range(x.shape[0])]
        return torch.stack([g for g, _ in outs]), torch.stack([v for _, v in outs])

    def arithmetic(self, autocast: bool = True):
        """The context of the network's forward and backward passes (``model.precision``);
        without ``autocast``, bf16 runs as tf32."""
        precision = "tf32" if self.precision == "bf16" and not autocast else self.precision
        return network_arithmetic(precision, self.x_train.device)

    def compile_force(self) -> None:
        """``compile=true``: the force (the network's forward and backward passes, the prior term)
        through ``torch.compile`` for the shapes it meets (one per batch layout), which training
        (``train_runs``) and sampling then call. The compiled force computes the same function;
        its floating-point sums may be ordered otherwise (tests/models/test_precision.py)."""
        self.force = torch.compile(self.force, dynamic=False)

    def force(self, x, idx, scale):
        shared = idx is None or idx.dim() == 1
        xb = self.x_train if idx is None else self.x_train[idx]
        yb = self.y_train if idx is None else self.y_train[idx]
        with self.arithmetic():
            if self.chain_batching == "loop":
                g, loss = self._loop(x, xb, yb, shared)
            else:
                g, loss = (self._grad_shared if shared else self._grad_per_chain)(x, xb, yb)
        self._last_loss = loss.detach().to(x.dtype) / yb.shape[-1]
        return scale * g.to(x.dtype) + self.lam * self.mask * x

    @torch.no_grad()
    def energy(self, x, idx, scale):
        """U_0(x) + scale * sum_S cross-entropy per chain, [C]. For idx None the data are
        summed in chunks of predict_batch; with BatchNorm each chunk uses its own batch
        statistics, as a force evaluation does for its batch."""
        prior = 0.5 * self.lam * ((self.mask * x) ** 2).sum(1)
        if idx is None:
            chunks = torch.arange(self.n_data, device=x.device).split(self.predict_batch)
            return prior + scale * sum(self._chain_losses(x, c) for c in chunks)
        return prior + scale * self._chain_losses(x, idx)

    def _chain_losses(self, x, idx):
        shared = idx.dim() == 1
        xb, yb = self.x_train[idx], self.y_train[idx]
        with self.arithmetic():
            return torch.stack([self._batch_loss(x[c], xb if shared else xb[c], yb if shared else yb[c])
                                for c in range(x.shape[0])]).to(x.dtype)  # fmt: skip

    def diagnostics(self):
        return {} if self._last_loss is None else {"minibatch_loss": self._last_loss}

    def _batch(self, idx):
        if idx is None:
            return self.x_train, self.y_train
        return self.x_train[idx], self.y_train[idx]

    def per_datum_grads(self, x, idx, max_numbers: int = 2**25):
        """grad U_i^S(x) for each i of the minibatch S, unscaled, no prior: [C, n, d].

        U_i^S is the i-th summand of the minibatch loss (module docstring): the rows of the
        Jacobian of the per-datum cross-entropies of one forward pass over the whole batch,
        so they sum to the minibatch gradient exactly, BatchNorm or not. Computed by
        ``jacrev`` (one vectorised backward pass per datum), one chain at a time, in chunks
        of at most ``max_numbers`` Jacobian entries to bound the working memory.
        """
        xb, yb = self._batch(idx)
        shared = idx is None or idx.dim() == 1
        chunk = max(1, min(yb.shape[-1], max_numbers // self.dim))
        jac = jacrev(self._datum_losses, chunk_size=chunk)
        with self.arithmetic():
            return torch.stack([jac(x[c], xb if shared else xb[c], yb if shared else yb[c])
                                for c in range(x.shape[0])]).to(x.dtype)  # fmt: skip

    def hvp(self, x, u, idx, scale):
        """(Hessian of U_0 + scale * minibatch loss at x) u: [C, d], forward-over-reverse
        (``jvp`` of ``grad``), batched over chains as the force is (vmap or a chain loop).
        The minibatch loss uses the batch statistics, as in ``force``. Under ``precision=bf16``
        the product runs in tf32: autocast does not reach forward-mode dual tensors (a convolution
        of a float32 dual input with bf16 weights fails on the CPU)."""
        xb, yb = self._batch(idx)
        shared = idx is None or idx.dim() == 1
        with self.arithmetic(autocast=False):
            if self.chain_batching == "loop":
                hu = torch.stack([
                    self._hvp_one(x[c], u[c], xb if shared else xb[c], yb if shared else yb[c])
                    for c in range(x.shape[0])
                ])  # fmt: skip
            else:
                hu = (self._hvp_shared if shared else self._hvp_per_chain)(x, u, xb, yb)
        return torch.add(self.lam * self.mask * u, hu.to(u.dtype), alpha=scale)

    @torch.no_grad()
    def predict_one(self, flat: torch.Tensor, x_eval: torch.Tensor | None = None) -> torch.Tensor:
        """The prediction [n_test, K] of one parameter vector, after BN calibration: class
        probabilities (``_prediction``). In float32 whatever ``model.precision`` (models/precision.py)."""
        m = self.module
        self.layout.load(m, flat)
        xs = self.x_test if x_eval is None else x_eval
        with network_arithmetic("float32", flat.device):
            m.train()
            m(self.x_calib)
            m.eval()
            out = [
                self._prediction(m(xs[i : i + self.predict_batch])) for i in range(0, xs.shape[0], self.predict_batch)
            ]
        m.train()
        return torch.cat(out)

    def predict(self, x):
        # One chain at a time: prediction happens once per draw, not per step.
        return torch.stack([self.predict_one(x[c]) for c in range(x.shape[0])])


class RegressionNetPotential(ClassifierPotential):
    """A network regression with a Gaussian likelihood of fixed variance on standardised
    targets, the Gaussian prior of ClassifierPotential, and the same batching over chains,
    BatchNorm handling, per-datum gradients and Hessian-vector products:

        U_i(x) = (f_x(a_i) - y_i)^2 / (2 noise_var)        f_x(a_i): the network's one output

    The stored prediction is the mean in ORIGINAL target units, f_x(a) y_std + y_mean, [n_test, 1]
    (the data's standardisation, as MLPPotential's)."""

    task = "regression"

    def __init__(self, module, x_train, y_train, x_test, noise_var: float, y_mean: float = 0.0, y_std: float = 1.0,
                 **kwargs):  # fmt: skip
        self.noise_var, self.y_mean, self.y_std = float(noise_var), float(y_mean), float(y_std)
        super().__init__(module, x_train, y_train.to(x_train.dtype), x_test, **kwargs)

    def _batch_nll(self, out, y):
        return self._datum_nll(out, y).sum()

    def _datum_nll(self, out, y):
        return (out.reshape(y.shape) - y) ** 2 / (2 * self.noise_var)

    def _prediction(self, out):
        return out.reshape(-1, 1) * self.y_std + self.y_mean


def _build_classifier(name):
    def build(model_cfg, data, device, dtype, seed):
        if data.task != "classification" or data.x_train is None or data.x_train.dim() != 4:
            raise UserError(
                f"model={name} is an image classifier; dataset={data.name} is not an image classification set"
            )
        c, h, w = data.x_train.shape[1:]
        hw = getattr(ARCHITECTURES[name], "image_hw", None)
        if hw is not None and (h, w) != tuple(hw):
            raise UserError(f"model={name} takes {hw[0]}x{hw[1]} images; dataset={data.name} has {h}x{w}")
        kwargs = {"in_channels": c, "n_classes": data.n_classes}
        if name == "cnn_small":
            kwargs["image_size"] = h
        module = ARCHITECTURES[name](**kwargs).to(device, dtype)
        return ClassifierPotential(
            module,
            data.x_train.to(device, dtype),
            data.y_train.to(device),
            data.x_test.to(device, dtype),
            prior_precision=float(model_cfg.prior_precision),
            n_calibration=int(model_cfg.n_calibration),
            chain_batching=str(model_cfg.get("chain_batching", "auto")),
            memory_format=str(model_cfg.get("memory_format", "auto")),
            precision=str(model_cfg.get("precision", "auto")),
        )

    return build


for _name in ARCHITECTURES:
    register(_name)(_build_classifier(_name))
