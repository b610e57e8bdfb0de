"""Optimisation before sampling: Adam with linear decay, then SWA (paulin2025 Algorithm 3).

Algorithm 3, steps 1-3, as the authors' code does them (fashion_MNIST_SMS_UBU.ipynb):
    1. PyTorch default initialisation.
    2. ``train_epochs`` epochs of Adam(lr) with the learning rate decaying linearly,
       lr_e = lr (1 - e / train_epochs) in epoch e.
    3. ``swa_epochs`` epochs of a fresh Adam(swa_lr) (moment estimates reset); the weights
       are averaged after every optimizer step: x_SWA = mean of all iterates of this phase.
Training loss: mean cross-entropy of the batch + (lam_prior / 2) ||x_w||^2 / N, i.e. U / N.
Minibatches are drawn i.i.d. (with replacement) as in the authors' code.

Two implementations of the same schedule: ``train_adam_swa`` trains one run on the ordinary
module with ``torch.optim.Adam`` (the authors' code, line for line); ``train_runs`` trains R
runs at once on their flat parameter vectors [R, d], each run with its own batches, moments
and average. Adam is elementwise, so R runs stacked along a leading dimension are exactly R
independent runs; the gradients come from the potential's force (a ``vmap`` over runs on
CUDA, one autograd pass per run on the CPU), so the runs share each step's kernels on a GPU.
"""

from __future__ import annotations

import io
import logging
import math
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F

from .batching import Schedule
from .models.network import ClassifierPotential
from .plumbing.stop import _stop, checked

log = logging.getLogger("bnnsample")


@dataclass
class TrainResult:
    standard: torch.Tensor  # flat parameters after the decaying-Adam phase
    swa: torch.Tensor  # SWA average
    final_loss: float


def training_loss(pot: ClassifierPotential):
    """loss(idx) = mean cross-entropy of the batch + (lam/2) ||x_w||^2 / N  (= U(x, S) / N),
    on the ordinary module (BatchNorm in train mode: batch statistics, momentum 1); the forward
    pass in ``model.precision`` (the backward follows the forward's types)."""
    m, n = pot.module, pot.n_data
    mask = pot.layout.unflatten(pot.mask)

    def loss_fn(idx):
        with pot.arithmetic():
            out = m(pot.x_train[idx]).to(pot.x_train.dtype)
        reg = sum(((p**2) * mask[name]).sum() for name, p in m.named_parameters())
        return F.cross_entropy(out, pot.y_train[idx]) + 0.5 * pot.lam * reg / n

    return loss_fn


def adam_steps(opt: torch.optim.Optimizer, loss_fn, batches, after_step=None) -> torch.Tensor:
    """One optimizer step per batch index tensor of ``batches``; ``after_step()`` runs after
    each step (SWA accumulation). Returns the last loss (a tensor: no host sync).

    A stop request ends training after the current step (``_check_stop``)."""
    loss = torch.tensor(float("nan"))
    for idx in batches:
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(idx)
        loss.backward()
        opt.step()
        if after_step is not None:
            after_step()
        _check_stop()
    return loss


def _check_stop(kept: str = "") -> None:
    """A stop request (Ctrl-C, SIGTERM, a time limit: stop.request_stop) ends training after
    the current step with Interrupted, saying what was kept (``kept``; by default nothing: a
    rerun trains again)."""
    from .plumbing.errors import Interrupted

    if _stop["requested"]:
        _stop["requested"] = False
        raise Interrupted("during Adam/SWA training, before sampling" + (kept or "; a rerun trains again"))


@dataclass
class Adam:
    """Adam (Kingma & Ba 2015) on a stacked tensor of parameters, with torch.optim.Adam's
    defaults and arithmetic (betas 0.9, 0.999, eps 1e-8, no weight decay):

        m <- b1 m + (1 - b1) g,    v <- b2 v + (1 - b2) g^2,    t <- t + 1
        x <- x - (lr / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + eps)

    Every operation is elementwise, so the rows of x are independent optimisations."""

    m: torch.Tensor
    v: torch.Tensor
    t: int = 0
    b1: float = 0.9
    b2: float = 0.999
    eps: float = 1e-8

    @classmethod
    def fresh(cls, x: torch.Tensor) -> Adam:
        return cls(torch.zeros_like(x), torch.zeros_like(x))

    def step(self, x: torch.Tensor, g: torch.Tensor, lr: float) -> None:
        self.t += 1
        self.m.lerp_(g, 1 - self.b1)
        self.v.mul_(self.b2).addcmul_(g, g, value=1 - self.b2)
        denom = (self.v.sqrt() / math.sqrt(1 - self.b2**self.t)).add_(self.eps)
        x.addcdiv_(self.m, denom, value=-lr / (1 - self.b1**self.t))


def train_runs(
    pot: ClassifierPotential,
    x0: torch.Tensor,
    *,
    train_epochs: int,
    swa_epochs: int,
    lr: float,
    swa_lr: float,
    batch_size: int,
    generators: list[torch.Generator],
    on_step=None,
    checkpoint: Path | None = None,
    tag: str = "",
) -> TrainResult:
    """Algorithm 3 steps 2-3 for R runs at once from their initial points ``x0`` [R, d]: the
    schedule of ``train_adam_swa`` (Adam with linear decay per epoch, then a fresh Adam whose
    iterates are averaged after every step), run r drawing its i.i.d. batches from
    ``generators[r]`` exactly as ``train_adam_swa`` with that generator does. The gradient of
    the training loss U(x, S) / N is the force with scale N / n divided by N. ``on_step()``
    (a progress bar's tick) runs after every step. Returns standard and swa as [R, d] and
    final_loss, the mean over runs of the last batch's mean cross-entropy.

    With ``checkpoint`` (a file path), a stop request (Ctrl-C, SIGTERM, a run's time limit)
    writes the whole training state there (iterates, Adam moments, SWA sum, batch generators
    and schedules) and raises Interrupted; a later call with the same ``tag`` (a fingerprint
    of the training settings) continues from it and gives the same numbers as an
    uninterrupted run. A checkpoint of other settings is ignored (and replaced later)."""
    n = pot.n_data
    spe = max(1, n // batch_size)
    first_swa, end = train_epochs * spe, (train_epochs + swa_epochs) * spe
    scheds = [Schedule("iid", n, batch_size, generator=g, device=pot.x_train.device) for g in generators]
    t = _TrainingState(x=x0.detach().clone())
    t.opt = Adam.fresh(t.x)
    if checkpoint is not None and checkpoint.exists():
        t.restore(checkpoint, tag, generators, scheds)
    with checked():  # a stop request waits for the end of the step
        while t.k < end:
            if t.k == first_swa and t.standard is None:
                t.standard, t.opt, t.total = t.x.clone(), Adam.fresh(t.x), torch.zeros_like(t.x)
            rate = lr * max(0.0, 1.0 - (t.k // spe) / max(train_epochs, 1)) if t.k < first_swa else swa_lr
            idx = torch.stack([s.next() for s in scheds])
            with torch.no_grad():
                g = pot.force(t.x, idx, n / batch_size).div_(n)
            t.opt.step(t.x, g, rate)
            if t.k >= first_swa:
                t.total.add_(t.x)
                t.count += 1
            t.k += 1
            if on_step is not None:
                on_step()
            if checkpoint is not None and _stop["requested"]:
                t.save(checkpoint, tag, generators, scheds)
            _check_stop(f"; {t.k} of {end} training steps saved in {checkpoint.name}, which a rerun continues"
                        if checkpoint is not None else "")  # fmt: skip
    if t.standard is None:
        t.standard = t.x.clone()
    swa = t.total / t.count if t.count else t.standard.clone()
    loss = pot.diagnostics().get("minibatch_loss")
    return TrainResult(standard=t.standard, swa=swa, final_loss=float("nan") if loss is None else float(loss.mean()))


@dataclass
class _TrainingState:
    """Everything of ``train_runs`` that a checkpoint must hold besides the generators and
    schedules: the step, the iterates, the optimizer, the standard point and the SWA sum."""

    x: torch.Tensor
    k: int = 0
    opt: Adam | None = None
    standard: torch.Tensor | None = None
    total: torch.Tensor | None = None
    count: int = 0

    def save(self, path: Path, tag: str, generators, scheds) -> None:
        from .rundir import write_bytes

        buf = io.BytesIO()
        torch.save({
            "tag": tag, "k": self.k, "x": self.x, "m": self.opt.m, "v": self.opt.v, "t": self.opt.t,
            "standard": self.standard, "total": self.total, "count": self.count,
            "generators": [g.get_state() for g in generators], "schedules": [s.state_dict() for s in scheds],
        }, buf)  # fmt: skip
        write_bytes(path, buf.getvalue())

    def restore(self, path: Path, tag: str, generators, scheds) -> None:
        from .rundir import move_aside

        try:
            d = torch.load(path, map_location=self.x.device, weights_only=True)
        except Exception as e:  # noqa: BLE001  (any unreadable file: named and kept aside, training starts afresh)
            dest = move_aside(path, str(e))
            log.warning("%s is damaged (%s); moved it to %s and trained afresh", path, type(e).__name__, dest.name)
            return
        if d.get("tag") != tag or d["x"].shape != self.x.shape:
            log.warning("%s holds the training of other settings; training afresh", path)
            return
        self.k, self.x, self.count = int(d["k"]), d["x"].to(self.x), int(d["count"])
        self.opt = Adam(d["m"].to(self.x), d["v"].to(self.x), int(d["t"]))
        self.standard = None if d["standard"] is None else d["standard"].to(self.x)
        self.total = None if d["total"] is None else d["total"].to(self.x)
        for g, state in zip(generators, d["generators"]):
            g.set_state(state.cpu())
        for s, state in zip(scheds, d["schedules"]):
            s.load_state_dict(state)
        log.info("training continues from %s at step %d", path, self.k)


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
    n = pot.n_data
    steps_per_epoch = max(1, n // batch_size)
    sched = Schedule("iid", n, batch_size, generator=generator, device=pot.x_train.device)

    def epoch():
        return (sched.next() for _ in range(steps_per_epoch))

    loss_fn = training_loss(pot)
    # the TF32 switches of model.precision for the backward passes too; autocast only around each
    # forward (loss_fn): over the whole loop its cache would keep the first step's bf16 weights
    with pot.arithmetic(autocast=False):
        return _adam_swa(pot, loss_fn, epoch, train_epochs, swa_epochs, lr, swa_lr, on_epoch)


def _adam_swa(pot, loss_fn, epoch, train_epochs, swa_epochs, lr, swa_lr, on_epoch) -> TrainResult:
    m, lay = pot.module, pot.layout
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
