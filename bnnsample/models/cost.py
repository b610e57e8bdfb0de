"""What a network run will cost on this device, said before it starts.

A run of a network potential is gradients of one minibatch for every run (chain) at once,
repeated: Adam + SWA training (init=swa), the control variate's per-batch reference gradients
(once, when cached), the sampling steps, plus a forward pass over the calibration and test
images for every draw and for the two baselines. The estimate times two force evaluations of
all chains on a batch of the run's size (after one warm-up, on the run's device) and
multiplies. It is printed as one line before training, so a user learns within a
minute whether a command takes minutes or days. The forward passes of the predictions are timed
too, at the batch sizes a prediction runs them (``time_forward``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch

# what the hint of a long Fashion-MNIST run on a CPU says of experiment=fmnist_cpu (its measured cost:
# results/fmnist_cpu/README.md)
FMNIST_CPU = "the paper's schedule with cnn_small on 10,000 images, 4 runs, about 20 CPU-minutes"


@dataclass
class RunCost:
    seconds_per_step: float  # one force of all chains on one batch
    training_steps: int
    sampling_gradients: int  # sampling steps x gradients per step, plus the reference cache
    prediction_images: int  # images through a forward pass, all chains and draws
    batch_size: int
    seconds_per_image: float = math.nan  # one image through a forward pass without gradients, timed

    @property
    def seconds(self) -> float:
        per_image = self.seconds_per_image
        if not math.isfinite(per_image):  # not timed: backward is about twice the forward
            per_image = self.seconds_per_step / self.batch_size / 3
        return (
            self.seconds_per_step * (self.training_steps + self.sampling_gradients) + per_image * self.prediction_images
        )


def one_thread_cpu(device: torch.device) -> bool:
    """A CPU run on one torch thread: its cost is the process's CPU time, which the timings
    measure (``time.process_time``, user + system), so that other processes on a shared machine
    do not inflate the estimate as they inflate the wall time; elsewhere the wall clock."""
    return device.type == "cpu" and torch.get_num_threads() == 1


def _clock(device: torch.device):
    return time.process_time if one_thread_cpu(device) else time.perf_counter


def time_force(pot, chains: int, batch_size: int, device: torch.device, repeats: int = 2) -> float:
    """Seconds of one force evaluation of ``chains`` chains, each on its own batch of
    ``batch_size`` (the slower, per-chain case), best of ``repeats`` after one warm-up."""
    x = pot.layout.flatten(pot.module).to(device)[None].expand(chains, -1).clone()
    g = torch.Generator().manual_seed(0)
    idx = torch.randint(pot.n_data, (chains, batch_size), generator=g).to(device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    clock = _clock(device)
    best = float("inf")
    for k in range(repeats + 1):
        sync()
        t0 = clock()
        pot.force(x, idx, 1.0)
        sync()
        if k:
            best = min(best, clock() - t0)
    return best


def time_forward(pot, device: torch.device) -> float:
    """Seconds per image of one prediction's forward passes without gradients, timed at the
    batch sizes a prediction runs them (``predict_one`` of models/network.py): a classifier's
    train-mode pass over its whole calibration batch ``x_calib`` (which sets the BatchNorm
    statistics), then eval-mode passes over the test set in chunks of ``predict_batch``, one
    chunk timed and scaled to the test set. The cost per image grows with the batch on a CPU
    (for cnn_small about 2.5 times from 200 to 5,000 images: the activations leave the cache
    and are allocated afresh), so a small timed batch would understate a prediction by as much.
    Divided by the images of one prediction (calibration + test), as ``RunCost`` counts them."""
    m = pot.module
    calib, test = getattr(pot, "x_calib", None), pot.x_test
    chunk = test[: int(getattr(pot, "predict_batch", test.shape[0]))]
    chunks = -(-test.shape[0] // max(1, chunk.shape[0]))
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    clock = _clock(device)
    was_training = m.training

    def timed(x, train: bool) -> float:
        m.train(train)
        sync()
        t0 = clock()
        m(x)
        sync()
        return clock() - t0

    try:
        with torch.no_grad():
            timed(chunk, False)  # warm-up
            seconds = chunks * timed(chunk, False) + (timed(calib, True) if calib is not None else 0.0)
    finally:
        m.train(was_training)
    return seconds / max(1, test.shape[0] + (calib.shape[0] if calib is not None else 0))


def run_cost(cfg, pot, steps_per_epoch: int, total_steps: int, device: torch.device, training: bool) -> RunCost:
    """The cost model of one run (module docstring); ``training``: init=swa trains here."""
    chains, batch = int(cfg.chains), int(cfg.batch_size)
    train = (int(cfg.init.train_epochs) + int(cfg.init.swa_epochs)) * steps_per_epoch if training else 0
    per_step = 1
    cache = 0
    if bool(cfg.get("control_variate", False)):
        if cfg.batching.name in ("sms", "reshuffle"):
            cache = steps_per_epoch  # the reference gradient of each batch, once
        else:
            per_step = 2  # the reference gradient of each i.i.d. batch, every step
    # a classifier calibrates BatchNorm on x_calib before predicting; other networks predict x_test only
    images = sum(
        int(x.shape[0]) for x in (getattr(pot, "x_calib", None), getattr(pot, "x_test", None)) if x is not None
    )
    predictions = chains * (int(cfg.samples) + (2 if training else 0))
    return RunCost(
        seconds_per_step=time_force(pot, chains, batch, device),
        training_steps=train,
        sampling_gradients=total_steps * per_step + cache,
        prediction_images=predictions * images,
        batch_size=batch,
        seconds_per_image=time_forward(pot, device) if images else math.nan,
    )


def duration_text(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} minutes"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} hours"
    return f"{seconds / 86400:.1f} days"


def estimate_line(cost: RunCost, cfg, device: torch.device) -> str:
    """The one line printed before a network run starts."""
    from ..plumbing.machine import expected_wall_text

    cpu = one_thread_cpu(device)
    where = "this CPU, in CPU time of one torch thread" if cpu else device
    line = (
        f"[bnnsample] estimated time on {where}: about {duration_text(cost.seconds)} "
        f"({cost.seconds_per_step:.3g} s per step of {int(cfg.chains)} runs x batch {cost.batch_size}, timed; "
        f"{cost.training_steps:,} training + {cost.sampling_gradients:,} sampling gradient steps, "
        f"{cost.prediction_images:,} images predicted)"
        f"{f'; {expected_wall_text(cost.seconds)}' if cpu else ''}"
    )
    preset = (cfg.get("experiment") or {}).get("name") == "fmnist_cpu"
    if device.type == "cpu" and cfg.dataset.name == "fmnist" and cost.seconds > 3600 and not preset:
        line += f"; a CPU-sized run: experiment=fmnist_cpu ({FMNIST_CPU})"
    return line
