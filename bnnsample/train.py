"""Optimisation before sampling: Adam with linear decay, then SWA (paulin2025 Algorithm 3).

Algorithm 3, steps 1-3, as the authors' code does them (fashion_MNIST_SMS_UBU.ipynb):
    1. PyTorch default initialisation.
    2. ``train_epochs`` epochs of Adam(lr) with the learning rate decaying linearly,
       lr_e = lr (1 - e / train_epochs) in epoch e.
    3. ``swa_epochs`` epochs of a fresh Adam(swa_lr) (moment estimates reset); the weights
       are averaged after every optimizer step: x_SWA = mean of all iterates of this phase.
Training loss: mean cross-entropy of the batch + (lam_prior / 2) ||x_w||^2 / N, i.e. U / N.
Minibatches are drawn i.i.d. (with replacement) as in the authors' code.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from .batching import Schedule
from .models.network import ClassifierPotential


@dataclass
class TrainResult:
    standard: torch.Tensor  # flat parameters after the decaying-Adam phase
    swa: torch.Tensor  # SWA average
    final_loss: float


def training_loss(pot: ClassifierPotential):
    """loss(idx) = mean cross-entropy of the batch + (lam/2) ||x_w||^2 / N  (= U(x, S) / N),
    on the ordinary module (BatchNorm in train mode: batch statistics, momentum 1)."""
    m, n = pot.module, pot.n_data
    mask = pot.layout.unflatten(pot.mask)

    def loss_fn(idx):
        out = m(pot.x_train[idx])
        reg = sum(((p**2) * mask[name]).sum() for name, p in m.named_parameters())
        return F.cross_entropy(out, pot.y_train[idx]) + 0.5 * pot.lam * reg / n

    return loss_fn


def adam_steps(opt: torch.optim.Optimizer, loss_fn, batches, after_step=None) -> torch.Tensor:
    """One optimizer step per batch index tensor of ``batches``; ``after_step()`` runs after
    each step (SWA accumulation). Returns the last loss (a tensor: no host sync).

    A stop request (Ctrl-C, SIGTERM: sampler.request_stop) ends training after the current
    step with Interrupted; nothing of the training is kept (a rerun trains again)."""
    from .errors import Interrupted
    from .sampler import _stop

    loss = torch.tensor(float("nan"))
    for idx in batches:
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(idx)
        loss.backward()
        opt.step()
        if after_step is not None:
            after_step()
        if _stop["requested"]:
            _stop["requested"] = False
            raise Interrupted("during Adam/SWA training, before sampling; a rerun trains again")
    return loss


def train_adam_swa(
    pot: ClassifierPotential,
    *,
    train_epochs: int,
    swa_epochs: int,
    lr: float,
    swa_lr: float,
    batch_size: int,
    generator: torch.Generator,
    on_epoch=None,
) -> TrainResult:
    """``on_epoch()`` (a progress bar's tick) runs after every epoch of both phases."""
    m, lay = pot.module, pot.layout
    n = pot.n_data
    steps_per_epoch = max(1, n // batch_size)
    sched = Schedule("iid", n, batch_size, generator=generator, device=pot.x_train.device)

    def epoch():
        return (sched.next() for _ in range(steps_per_epoch))

    loss_fn = training_loss(pot)

    m.train()
    opt = torch.optim.Adam(m.parameters(), lr=lr)
    decay = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: max(0.0, 1.0 - e / max(train_epochs, 1)))
    loss = torch.tensor(float("nan"))
    for _ in range(train_epochs):
        loss = adam_steps(opt, loss_fn, epoch())
        decay.step()
        if on_epoch is not None:
            on_epoch()
    standard = lay.flatten(m).clone()

    opt = torch.optim.Adam(m.parameters(), lr=swa_lr)
    total = torch.zeros_like(standard)
    count = [0]

    def accumulate():
        total.add_(lay.flatten(m))
        count[0] += 1

    for _ in range(swa_epochs):
        loss = adam_steps(opt, loss_fn, epoch(), accumulate)
        if on_epoch is not None:
            on_epoch()
    swa = total / count[0] if count[0] else standard.clone()
    return TrainResult(standard=standard, swa=swa, final_loss=float(loss.detach()))
