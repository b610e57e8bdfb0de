"""paulin2025 Algorithm 3 in memory, for the diagnostics of Fig. 3 (§3.4) and Fig. 7 (App. D.2): the
Fashion-MNIST network of ``experiment=paulin2025_fig4_sms_ubu`` (its batch, prior, step, friction,
lambda_loc, bounces and Adam/SWA schedule), R networks trained together (steps 1-3), SMS-UBU paths on
the localized target around ONE SWA point from perturbed starts (step 4, with control variates at
that point) recording each epoch's mean training loss, and the Hessian of the log-posterior as a
product with a vector summed over a partition of the data.

Fig. 3 starts its paths at x_SWA plus Gaussian noise, while ``bnnsample run`` starts each chain at
its own SWA point, so the paths are made here from the library's pieces (``simulate.make_chains``,
``potential.ControlVariate``, ``Localized``, ``ElasticBox``) rather than by runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ...potential import Wrapped

EXPERIMENT = "experiment=paulin2025_fig4_sms_ubu"


def fmnist_target(model: str, overrides=(), device: str = "cpu"):
    """The config, data and potential (``simulate.Target``) of the Fig. 4 SMS-UBU experiment with
    ``model`` and Hydra ``overrides`` (e.g. ``dataset=...``, ``batch_size=...``), float32, one torch
    thread on the CPU."""
    from ...simulate import build_target

    return build_target([EXPERIMENT, f"model={model}", *overrides], dtype="float32", device=device,
                        threads=1 if device == "cpu" else None)  # fmt: skip


@dataclass
class Trained:
    """R networks of Algorithm 3 steps 1-3: initial (random) weights, after Adam ("standard
    training") and the SWA averages, each [R, d]."""

    random: torch.Tensor
    standard: torch.Tensor
    swa: torch.Tensor


def train(target, runs: int, seed: int, train_epochs: int, swa_epochs: int) -> Trained:
    """``runs`` networks from PyTorch's default initialisation (seeds ``initial.training_seeds``), trained
    together by ``train.train_runs`` with the experiment's learning rates and batch."""
    from ...initial import default_weights, training_seeds
    from ...plumbing.rng import make_generator
    from ...train import train_runs

    cfg, pot = target.cfg, target.potential
    seeds = training_seeds(seed, runs)
    x0 = default_weights(pot, seeds).to(pot.x_train)
    res = train_runs(pot, x0, train_epochs=train_epochs, swa_epochs=swa_epochs, lr=float(cfg.init.lr),
                     swa_lr=float(cfg.init.swa_lr), batch_size=int(cfg.batch_size),
                     generators=[make_generator(pot.x_train.device, s) for s in seeds])  # fmt: skip
    return Trained(x0, res.standard, res.swa)


class EpochLoss(Wrapped):
    """The base potential, summing each chain's minibatch loss (mean cross-entropy of the step's
    batch, ``diagnostics()["minibatch_loss"]``) over the force evaluations since the last ``take``."""

    def __init__(self, base):
        super().__init__(base)
        self.reset()

    def reset(self) -> None:
        self.total, self.count = 0.0, 0

    def force(self, x, idx, scale):
        f = self.base.force(x, idx, scale)
        self.total = self.total + self.base.diagnostics()["minibatch_loss"].detach()
        self.count += 1
        return f

    def take(self) -> torch.Tensor:
        """The mean minibatch loss per chain since the last call, [C]."""
        out = self.total / max(self.count, 1)
        self.reset()
        return out


def local_paths(target, center: torch.Tensor, starts: torch.Tensor, epochs: int, seed: int) -> dict:
    """SMS-UBU (the experiment's integrator, step, friction, batch) on the target localized around
    ``center`` [d] (lambda_loc, bounces at bounce_width / sqrt(lambda_loc), control variates at
    ``center`` cached per batch of the schedule's fixed partition), C paths from ``starts`` [C, d]
    with velocities N(0, I), each path its own batch order (the paper's independent paths) and
    noise. Returns ``loss`` [C, epochs]: each epoch's mean training loss (mean cross-entropy per
    datum, BatchNorm on batch statistics; under SMS an epoch visits every batch once, so this is the
    training loss averaged along the epoch's path) and ``bounces`` [C, epochs]: each path's bounces up to the
    end of each epoch (cumulative)."""
    from ...potential import ControlVariate, ElasticBox, Localized
    from ...simulate import Chains, make_chains, preset_scheme
    from ...simulate import run as run_blocks

    cfg, pot = target.cfg, target.potential
    chains = starts.shape[0]
    lam, width = float(cfg.init.localization), float(cfg.init.bounce_width)
    name, params, batching, partition = preset_scheme("sms_ubu")
    rec = EpochLoss(pot)
    ch = make_chains(rec, name, params, x0=starts, h=float(cfg.step_size), gamma=float(cfg.friction),
                     batching=batching, batch_size=int(cfg.batch_size), partition=partition, seed=seed,
                     device=starts.device, dtype=starts.dtype)  # fmt: skip
    part = ch.schedule.fixed_partition  # cached whatever its size: uncached, EpochLoss would also sum the reference's
    cv = ControlVariate(rec, center, batches=part, chunk=int(cfg.batch_size), cache_limit=part.shape[0] * pot.dim)
    rec.reset()  # the reference gradients are not the paths' losses
    box_center = center.expand(chains, -1)
    ch = Chains(Localized(cv, box_center, lam), ch.integrator, ch.schedule, ch.ctx, ch.state)
    ch.ctx.boundary = box = ElasticBox.for_localization(box_center, lam, width)
    per_epoch = ch.schedule.n_batches
    ch.integrator.check_run(0, epochs * per_epoch)
    loss, bounces = [], []
    for blk in run_blocks(ch.integrator, ch.state, ch.next_force, ch.ctx, total=epochs * per_epoch, thin=per_epoch):
        if blk.draw:
            loss.append(rec.take())
            bounces.append(box.counts.clone())
    return {"loss": torch.stack(loss, 1).cpu(), "bounces": torch.stack(bounces, 1).cpu()}


def hessian_matvec(pot, x: torch.Tensor, batches: torch.Tensor, scale: float = 1.0):
    """u -> (Hessian of U at x) u for U = U_0 + ``scale`` x the sum over the rows of ``batches``
    [K, n] of each batch's summed cross-entropy (BatchNorm on that batch's statistics, as in the
    force): the log-posterior Hessian of paulin2025 App. D.2 without the localization term (which
    adds lambda_loc to every eigenvalue) when the rows partition the data and ``scale`` = 1, an
    unbiased estimate of it from K of the N_m batches with ``scale`` = N_m / K. One HVP per batch."""
    prior = pot.lam * pot.mask

    def matvec(u: torch.Tensor) -> torch.Tensor:
        data = torch.zeros_like(u)
        for b in batches:
            data += pot.hvp(x[None], u[None], b, 1.0)[0] - prior * u
        return prior * u + scale * data

    return matvec
