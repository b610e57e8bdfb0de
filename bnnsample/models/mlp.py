"""Fully connected ReLU networks with closed-form gradients batched over chains.

Two models:

- ``ntk_mlp`` (franzese2021 App. F.1, eq. 104), NTK parameterisation:
      f_1 = W_1 x / sqrt(D_0) + b_1,   f_l = W_l relu(f_{l-1}) / sqrt(D_{l-1}) + b_l  (l = 2..L+1)
  prior N(0, I) on all weights and biases. The activation is not applied to the raw input
  (the usual reading of eq. 104). Regression: L = 4 hidden layers of 50 ("4 layers and 50
  nodes", read as 4 hidden layers), one output, Gaussian likelihood with a fixed noise
  variance per dataset (Boston 0.2, Concrete 0.05, Energy 0.01, Yacht 0.005, on
  standardised targets). Classification: 2 hidden layers of 50, K outputs, softmax
  cross-entropy (franzese2021 does not state the likelihood).
- ``two_layer_bnn`` (sekkat2023 §3.5): N_theta(x) = sigmoid(W2 relu(W1 x + b)), d1 = 8 hidden
  units, no output bias, no scaling; d = d1 (D_0 + 2) = 32 for 2-D inputs, flat order W1
  (row-major [d1, D_0]), b, W2; prior N(0, I); Bernoulli likelihood f^y (1 - f)^(1 - y)
  (eq. 70 with its sign fixed).

Potential, theta flat [C, d] (layout: ``ParamLayout`` of the equivalent ``ScaledMLP`` module):
    U_0(theta) = (lam/2) ||theta||^2            (lam = prior_precision, 1 in both papers)
    U_i(theta) = (y_i - f(x_i))^2 / (2 sigma^2)            gaussian head
               = logsumexp(f(x_i)) - f(x_i)_{y_i}          softmax head
               = softplus(f(x_i)) - y_i f(x_i)             sigmoid head
(additive constants dropped). The force is one batched forward and backward pass written
out by hand (matmuls over [C, n, width] activations), so many chains cost little more than
one; per-datum gradients are the outer products of the same backward pass. Hessian-vector
products use torch.func (jvp of grad of the module's functional_call, vmapped over chains).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, jvp, vmap

from ..plumbing.errors import UserError
from ..potential import Potential
from . import register
from .batched import two_class
from .network import ParamLayout


class ScaledLinear(nn.Module):
    """y = scale * x W^T + b (b optional)."""

    def __init__(self, d_in: int, d_out: int, bias: bool, scale: float):
        super().__init__()
        self.scale = float(scale)
        self.weight = nn.Parameter(torch.randn(d_out, d_in))
        self.bias = nn.Parameter(torch.randn(d_out)) if bias else None

    def forward(self, x):
        out = self.scale * (x @ self.weight.T)
        return out if self.bias is None else out + self.bias


class ScaledMLP(nn.Module):
    """ScaledLinear layers with ReLU between them (none after the last)."""

    def __init__(self, widths: list[int], bias: list[bool], scales: list[float]):
        super().__init__()
        self.layers = nn.ModuleList(
            ScaledLinear(a, b, bb, s) for a, b, bb, s in zip(widths[:-1], widths[1:], bias, scales)
        )

    def forward(self, x):
        for k, layer in enumerate(self.layers):
            x = layer(x if k == 0 else torch.relu(x))
        return x


def ntk_mlp_module(d_in: int, hidden: list[int], d_out: int) -> ScaledMLP:
    widths = [d_in, *hidden, d_out]
    return ScaledMLP(widths, [True] * (len(widths) - 1), [1.0 / math.sqrt(w) for w in widths[:-1]])


def two_layer_module(d_in: int, d1: int) -> ScaledMLP:
    return ScaledMLP([d_in, d1, 1], [True, False], [1.0, 1.0])


HEADS = ("gaussian", "softmax", "sigmoid")


class MLPPotential(Potential):
    """Posterior of a ScaledMLP with a Gaussian prior and one of the HEADS likelihoods."""

    def __init__(
        self,
        module: ScaledMLP,
        head: str,
        x_train: torch.Tensor,
        y_train: torch.Tensor,
        x_test: torch.Tensor | None = None,
        prior_precision: float = 1.0,
        noise_var: float = 1.0,
        y_mean: float = 0.0,
        y_std: float = 1.0,
    ):
        if head not in HEADS:
            raise ValueError(f"head={head}: allowed values: {', '.join(HEADS)}")
        self.module, self.head = module, head
        self.layout = ParamLayout(module)
        self.dim = self.layout.dim
        self.task = "regression" if head == "gaussian" else "classification"
        self.x_train, self.x_test = x_train, x_test
        self.y_train = y_train.to(x_train.dtype) if head != "softmax" else y_train.long()
        self.n_data = x_train.shape[0]
        self.lam = float(prior_precision)
        self.noise_var = float(noise_var)
        self.y_mean, self.y_std = float(y_mean), float(y_std)
        self.scales = [layer.scale for layer in module.layers]
        self.has_bias = [layer.bias is not None for layer in module.layers]
        self._last_loss = None

        layout, net = self.layout, module

        def energy_one(flat, xb, yb, scale):
            """U_0 + scale * sum_b U_i for one chain, through the module (autograd path)."""
            out = functional_call(net, layout.unflatten(flat), (xb,))
            return 0.5 * self.lam * (flat**2).sum() + scale * self._datum_losses(out, yb).sum()

        self._energy_one = energy_one

        def hess_one(flat, u, xb, yb, s):
            return jvp(lambda f: grad(energy_one)(f, xb, yb, s), (flat,), (u,))[1]

        self._hvp_shared = vmap(hess_one, in_dims=(0, 0, None, None, None))
        self._hvp_per_chain = vmap(hess_one, in_dims=(0, 0, 0, 0, None))

    # -- pieces ---------------------------------------------------------------------------
    def _datum_losses(self, out, y):
        """U_i from the network outputs out [..., n, K]: [..., n]."""
        if self.head == "gaussian":
            return (out[..., 0] - y) ** 2 / (2 * self.noise_var)
        if self.head == "sigmoid":
            return F.softplus(out[..., 0]) - y * out[..., 0]
        return torch.logsumexp(out, -1) - out.gather(-1, y.expand(out.shape[:-1])[..., None])[..., 0]

    def _dloss(self, out, y):
        """dU_i / d out: [C, n, K]."""
        if self.head == "gaussian":
            return (out - y[..., None]) / self.noise_var
        if self.head == "sigmoid":
            return torch.sigmoid(out) - y[..., None]
        return torch.softmax(out, -1) - F.one_hot(y, out.shape[-1]).to(out.dtype)

    def _params(self, x):
        p = self.layout.unflatten(x)
        return [(p[f"layers.{k}.weight"], p.get(f"layers.{k}.bias")) for k in range(len(self.scales))]

    def _forward(self, x, xb):
        """Outputs [C, n, K] and the cache (layer inputs a_k, pre-activations z_k)."""
        params = self._params(x)
        acts, pres = [], []
        a = xb
        for k, ((w, b), s) in enumerate(zip(params, self.scales)):
            if k:
                pres.append(a)
                a = torch.relu(a)
            acts.append(a)
            z = torch.matmul(a, w.transpose(-1, -2))  # [C, n, out] ([n, in] @ [C, in, out] broadcasts)
            z = z * s if s != 1.0 else z
            a = z if b is None else z + b[:, None, :]
        return a, (params, acts, pres)

    def _backward(self, dout, cache, per_datum: bool):
        """Gradients of sum_n (dout . out) w.r.t. the flat parameters: [C, d], or per datum
        [C, n, d] when per_datum."""
        params, acts, pres = cache
        grads = []
        delta = dout  # d/dz_k of the summed loss, [C, n, out_k]
        for k in range(len(params) - 1, -1, -1):
            (w, b), s, a = params[k], self.scales[k], acts[k]
            a = a.expand(delta.shape[0], *a.shape[-2:]) if a.dim() == 2 else a
            if per_datum:
                gw = s * delta[..., :, None] * a[..., None, :]  # [C, n, out, in]
                gb = delta if b is not None else None
                grads.append((gw.flatten(-2), gb))
            else:
                gw = torch.matmul(delta.transpose(-1, -2), a)  # [C, out, in]
                gw = gw * s if s != 1.0 else gw
                gb = delta.sum(-2) if b is not None else None
                grads.append((gw.flatten(-2), gb))
            if k:
                # one output (sekkat2023's BNN): an outer product, which a batched matmul makes slowly
                back = delta * w if delta.shape[-1] == 1 else torch.matmul(delta, w)
                back = back * s if s != 1.0 else back
                # relu's own backward (back where the pre-activation is > 0, else 0) in one pass:
                # `back * (pres > 0)` took three (compare, bool-to-float copy, product), the same values
                delta = torch.ops.aten.threshold_backward(back, pres[k - 1], 0.0)
        parts = [t for gw, gb in reversed(grads) for t in ((gw,) if gb is None else (gw, gb))]
        return torch.cat(parts, dim=-1)

    def _batch(self, idx):
        if idx is None:
            return self.x_train, self.y_train
        return self.x_train[idx], self.y_train[idx]

    # -- Potential ------------------------------------------------------------------------
    def force(self, x, idx, scale):
        xb, yb = self._batch(idx)
        out, cache = self._forward(x, xb)
        self._last_loss = self._datum_losses(out, yb).detach().mean(-1)
        g = self._backward(self._dloss(out, yb), cache, per_datum=False)
        return torch.add(self.lam * x, g, alpha=scale)

    def per_datum_grads(self, x, idx):
        """grad U_i(theta) for each i of the batch, unscaled, no prior: [C, n, d]."""
        xb, yb = self._batch(idx)
        out, cache = self._forward(x, xb)
        return self._backward(self._dloss(out, yb), cache, per_datum=True)

    def energy(self, x, idx, scale):
        xb, yb = self._batch(idx)
        out, _ = self._forward(x, xb)
        return 0.5 * self.lam * (x**2).sum(-1) + scale * self._datum_losses(out, yb).sum(-1)

    def hvp(self, x, u, idx, scale):
        xb, yb = self._batch(idx)
        fn = self._hvp_per_chain if xb.dim() == 3 else self._hvp_shared
        return fn(x, u, xb, yb, float(scale))

    def outputs(self, x, xs):
        """Network outputs [C, n, K] at inputs xs."""
        return self._forward(x, xs)[0]

    def predict(self, x):
        """Regression: means in ORIGINAL target units, [C, n_test, 1]; classification: class
        probabilities [C, n_test, K] (sigmoid head: (1 - p, p))."""
        if self.x_test is None:
            return None
        out = self.outputs(x, self.x_test)
        if self.head == "gaussian":
            return out * self.y_std + self.y_mean
        if self.head == "sigmoid":
            return two_class(torch.sigmoid(out[..., 0]))
        return torch.softmax(out, -1)

    def diagnostics(self):
        return {} if self._last_loss is None else {"minibatch_loss": self._last_loss}


def _tabular(name, data):
    if data.x_train is None or data.x_train.dim() != 2 or data.task not in ("regression", "classification"):
        raise UserError(f"model={name} needs a 2-D design [N, D] with labels or targets (dataset={data.name})")


@register("ntk_mlp")
def build_ntk_mlp(model_cfg, data, device, dtype, seed):
    _tabular("ntk_mlp", data)
    regression = data.task == "regression"
    hidden = model_cfg.get("hidden", "auto")
    if hidden == "auto":
        hidden = model_cfg.hidden_regression if regression else model_cfg.hidden_classification
    hidden = [int(h) for h in hidden]
    if not hidden or min(hidden) < 1:
        raise UserError(f"model.hidden={hidden}: must be auto or a non-empty list of positive widths")
    noise_var = model_cfg.get("noise_var")
    if regression:
        noise_var = data.extras.get("noise_var") if noise_var is None else noise_var
        if noise_var is None or not float(noise_var) > 0:
            raise UserError(f"model.noise_var={noise_var}: must be a number > 0 (or set dataset.noise_var)")
    d_out = 1 if regression else int(data.n_classes)
    torch.manual_seed(seed)
    module = ntk_mlp_module(data.x_train.shape[1], hidden, d_out).to(device, dtype)
    return MLPPotential(
        module,
        "gaussian" if regression else "softmax",
        data.x_train.to(device, dtype),
        data.y_train.to(device),
        data.x_test.to(device, dtype) if data.x_test is not None else None,
        prior_precision=float(model_cfg.get("prior_precision", 1.0)),
        noise_var=float(noise_var) if regression else 1.0,
        y_mean=float(data.extras.get("y_mean", 0.0)),
        y_std=float(data.extras.get("y_std", 1.0)),
    )


@register("two_layer_bnn")
def build_two_layer_bnn(model_cfg, data, device, dtype, seed):
    _tabular("two_layer_bnn", data)
    if data.task != "classification" or data.n_classes != 2:
        raise UserError(f"model=two_layer_bnn needs binary labels (dataset={data.name} has task {data.task}, "
                        f"{data.n_classes} classes)")  # fmt: skip
    d1 = int(model_cfg.get("hidden", 8))
    if d1 < 1:
        raise UserError(f"model.hidden={d1}: must be an integer >= 1")
    torch.manual_seed(seed)
    module = two_layer_module(data.x_train.shape[1], d1).to(device, dtype)
    return MLPPotential(
        module,
        "sigmoid",
        data.x_train.to(device, dtype),
        data.y_train.to(device),
        data.x_test.to(device, dtype) if data.x_test is not None else None,
        prior_precision=float(model_cfg.get("prior_precision", 1.0)),
    )
