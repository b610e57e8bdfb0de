"""The peers suite of scripts/bench.py: bnnsample's pipeline against blackjax and posteriors, like for like.

Target: Bayesian logistic regression on logistic_synthetic (N = 10,000, d = 100, Gaussian
prior of precision 1), float32, minibatches of n = 100 drawn uniformly with replacement,
U(x) = (1/2)|x|^2 + (N/n) sum_{i in S} [softplus(a_i.x) - y_i a_i.x], all chains started
at x = 0 with v ~ N(0, I). Every method makes, per chain and step, one minibatch gradient
of U at the current position; h = 0.02, gamma = 5. The SGHMC of all three is the same
Euler scheme (paulin2025 Algorithm 4, bnnsample's ``em``):

    x_{k+1} = x_k + h v_k
    v_{k+1} = (1 - h gamma) v_k - h grad U(x_k, S_{k+1}) + sqrt(2 gamma h) xi_{k+1}

blackjax's ``sgmcmc.diffusions.sghmc(alpha, beta)`` step and posteriors'
``sgmcmc.sghmc.update`` are this update with step_size = lr = h, alpha = gamma, beta = 0,
temperature 1 (posteriors: sigma = 1) and log-density -U, one standard normal per
coordinate and step. Variants, each run for the same chains and steps:

  bnnsample sg_hmc   ``runner.run`` with integrator=sg_hmc (em, iid batches): the whole
                     pipeline (data, config checks, schedule, divergence checks, one draw and
                     its test-set predictive written to HDF5, the store's layout and resume
                     state checked)
  bnnsample sms_ubu  the same with integrator=sms_ubu: UBU with the sms schedule draws TWO
                     normals per coordinate and step (the OU flow's position and velocity
                     parts) and sweeps a fixed partition in the sms order instead of iid batches
  blackjax           ``jax.jit`` of ``lax.scan`` over steps of ``jax.vmap`` over chains of
                     blackjax's ``grad_estimator`` (N x mean of the vmapped per-datum
                     log-likelihood + log-prior) and its SGHMC diffusion step; minibatch
                     indices and noise keys drawn inside the scan. Compilation (lower +
                     compile) is timed once per setting and reported apart. blackjax's
                     top-level ``blackjax.sghmc`` kernel is not used: it redraws the momentum
                     at every call and reuses one minibatch for its num_integration_steps
                     gradients, so it cannot make one fresh-minibatch SGHMC step per call.
  posteriors vmap    ``torch.func.vmap`` (randomness="different") over chains of
                     posteriors' ``sghmc`` transform's ``update`` on (params, momenta), one
                     Python call per step, the minibatch drawn with torch per step; with
                     per-chain minibatches at most VMAP_PER_CHAIN_CHAIN_STEPS chain-steps a
                     round (its row says how many steps ran; its rate is per chain-step)
  torch floor        not a sampler (shared batches only): per step only the torch kernels that
                     any eager torch SGHMC of this target must run, each once, in a Python
                     loop: the gather of the batch's rows and labels (index_select; the
                     indices of all steps drawn at once), the two products (logits
                     x A_S^T, gradient r A_S) and the chains' normals (torch.randn); no
                     sigmoid, no update; under torch.inference_mode, as bnnsample steps
                     closed-form targets. Its rate bounds what bnnsample can reach with
                     torch's kernels, and floor / peer bounds the ratios above it (|x| is
                     not meaningful for it)
  posteriors 1 chain posteriors as its documentation runs it: one chain, ``update(...,
                     inplace=True)`` per step; the C chains one after another, of which the
                     first ``k = min(C, ceil(LOOP_CHAIN_STEPS / steps))`` are run (each chain
                     costs the same); its rate is per chain-step of those k chains

Batching: "shared" gives all chains the same minibatch each step (bnnsample's default for a
classification target), "per-chain" one minibatch per chain and step (bnnsample:
batching.per_chain=true; blackjax and posteriors vmap: the minibatch vmapped over chains);
with one chain the two are the same and only "shared" is run.

Each round runs every variant once, in the order above, and rounds are interleaved. Reported:
chain-steps per CPU-second (process CPU time, all threads) and per wall-second, median
[min, max] over rounds; CPU/wall (about 1 with one thread on an idle core; more means a
library used more threads than pinned, less that the process waited for a core: the process
is bound to as many cores as threads, so it cannot exceed 1 with one thread); the ratios bnnsample / peer of chain-steps per second, per round
before the median; and |x| at the end (mean over chains) as the check that all variants run
the same dynamics on the same target (equal up to Monte Carlo noise, about 0.5 for one chain).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from bench_common import Timing, interleaved, load_text, logistic_cfg, median_spread, ratio_spread, spread_text, timed

BNNSAMPLE = ("sg_hmc", "sms_ubu")
PER_RUN = "bnnsample sg_hmc, 1 step"  # the per-run cost: a run of one step and one draw
COMPILED = "sg_hmc, compile=true"  # on a GPU: sg_hmc in compiled blocks, each a CUDA graph
PEERS = ("blackjax", "posteriors vmap", "posteriors 1 chain")
FLOOR = "torch floor"
# chain-steps of the posteriors one-chain variant per round at the least (its chains run one after another)
LOOP_CHAIN_STEPS = 2000
# chain-steps per run of the default step count: the slowest variant takes a few CPU-seconds a round
DEFAULT_CHAIN_STEPS = 100_000


# a long cell, where real runs live: 10,000 steps with shared minibatches at every chain count
# (30 CPU-s of bnnsample sg_hmc at 4000 chains; with 750 steps, as before 2026-11-27, the per-run
# cost was 5% of the cell there); with per-chain minibatches, whose variants run 5-10x slower,
# 10,000 steps or LONG_CHAIN_STEPS chain-steps where fewer (at least 13 CPU-s of bnnsample sg_hmc)
LONG_STEPS = 10_000
LONG_CHAIN_STEPS = 3_000_000
# chain-steps per round at the most of posteriors vmap with per-chain minibatches: it makes about
# 20,000 chain-steps per CPU-s there, so a long cell's 3M would take minutes a round (its rate is per chain-step)
VMAP_PER_CHAIN_CHAIN_STEPS = 300_000
# the goal at few chains counts blackjax's compile time against a run of this many steps
COMPILE_RUN_STEPS = 100_000


def default_steps(chains: int) -> int:
    """Steps per run of a short cell: DEFAULT_CHAIN_STEPS / chains rounded to a multiple of 10,
    at least 50, at most 10,000."""
    return int(min(10_000, max(50, round(DEFAULT_CHAIN_STEPS / chains / 10) * 10)))


def long_steps(chains: int, batching: str = "per-chain") -> int:
    """Steps per run of a long cell: 10,000 with shared minibatches; with per-chain ones 10,000,
    or LONG_CHAIN_STEPS / chains (rounded up to a multiple of 10) where that is fewer."""
    if batching == "shared":
        return LONG_STEPS
    return int(min(LONG_STEPS, math.ceil(LONG_CHAIN_STEPS / chains / 10) * 10))


def loop_chains(chains: int, steps: int) -> int:
    """How many of the C chains the one-chain-at-a-time variant runs: enough for LOOP_CHAIN_STEPS chain-steps."""
    return min(chains, math.ceil(LOOP_CHAIN_STEPS / steps))


def pin_threads(threads: int) -> str:
    """One thread (or ``threads``) for torch and XLA, and the process bound to that many cores;
    must run before jax is imported. Returns what was set.

    The core binding is what holds XLA to them: with the flags alone, jax 0.10's CPU runtime
    still ran a second busy thread on an idle second core (CPU / wall 1.4-2.0 for blackjax on a
    quiet 2-core machine), so its CPU time counted work that one pinned thread would not do."""
    if "jax" in sys.modules:
        raise RuntimeError("pin_threads must run before jax is imported (XLA reads its flags once)")
    cores = sorted(os.sched_getaffinity(0))[:threads] if hasattr(os, "sched_setaffinity") else []
    if cores:
        os.sched_setaffinity(0, cores)
    xla = f"--xla_cpu_multi_thread_eigen={'true' if threads > 1 else 'false'} intra_op_parallelism_threads={threads}"
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + xla).strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    torch.set_num_threads(threads)
    with contextlib.suppress(RuntimeError):  # settable once, before any inter-op work
        torch.set_num_interop_threads(threads)
    return (
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, torch intra-op {torch.get_num_threads()} "
        f"and inter-op {torch.get_num_interop_threads()} threads, XLA_FLAGS='{os.environ['XLA_FLAGS']}', "
        f"process bound to core(s) {','.join(map(str, cores)) or 'unbound (no sched_setaffinity)'}"
    )


@dataclass(frozen=True)
class Problem:
    """The data and settings every variant of one table block shares."""

    a: torch.Tensor  # [N, d] features, float32
    y: torch.Tensor  # [N] labels in {0, 1}, float32
    lam: float
    h: float
    gamma: float
    batch: int
    chains: int
    steps: int
    per_chain: bool
    device: str = "cpu"

    @property
    def n_data(self) -> int:
        return self.a.shape[0]

    @property
    def dim(self) -> int:
        return self.a.shape[1]


@dataclass(frozen=True)
class Measured:
    """One run of one variant: its timing, the chain-steps it made, mean |x| over chains at the end."""

    timing: Timing
    chain_steps: int
    end_norm: float
    steps: int | None = None  # steps each chain made, where fewer than the block's

    @property
    def cpu_rate(self) -> float:
        return self.chain_steps / self.timing.cpu

    @property
    def wall_rate(self) -> float:
        return self.chain_steps / self.timing.wall


def _mean_norm(x) -> float:
    return float(torch.as_tensor(x).double().cpu().norm(dim=-1).mean())


def _synced(fn: Callable[[], object], device: str) -> Callable[[], object]:
    """``fn`` followed by a wait for the device's queue (the work timed is the work done)."""
    if not device.startswith("cuda"):
        return fn

    def run():
        out = fn()
        torch.cuda.synchronize()
        return out

    return run


def bnnsample_variant(cfg) -> Callable[[], Measured]:
    """``runner.run`` of ``cfg`` into a fresh directory; |x| from the last stored draw (read after the timing)."""
    import h5py

    from bnnsample import runner

    chain_steps = int(cfg.chains) * int(cfg.samples) * int(cfg.thin)

    def run() -> Measured:
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()):
            path, t = timed(lambda: runner.run(cfg, Path(d)))
            with h5py.File(path, "r") as f:
                end = f["theta"][:, -1]
        return Measured(t, chain_steps, _mean_norm(end))

    return run


def blackjax_variant(p: Problem) -> tuple[Timing, Callable[[], Measured]]:
    """(compile timing, run): blackjax's SGHMC diffusion and gradient estimator, jit(scan(vmap))."""
    import jax
    import jax.numpy as jnp
    from blackjax.sgmcmc.diffusions import sghmc
    from blackjax.sgmcmc.gradients import grad_estimator

    a, y = jnp.asarray(p.a.cpu().numpy()), jnp.asarray(p.y.cpu().numpy())
    N, C, n = p.n_data, p.chains, p.batch

    def logprior(x):
        return -0.5 * p.lam * jnp.sum(x**2)

    def loglik(x, datum):
        ai, yi = datum
        z = ai @ x
        return yi * z - jax.nn.softplus(z)

    grad = grad_estimator(logprior, loglik, N)
    diffusion = sghmc(alpha=p.gamma, beta=0.0)

    def chain_step(x, v, key, minibatch):
        return diffusion(key, x, v, grad(x, minibatch), p.h)

    vstep = jax.vmap(chain_step, in_axes=(0, 0, 0, 0 if p.per_chain else None))

    def body(carry, key):
        k_batch, k_noise = jax.random.split(key)
        idx = jax.random.randint(k_batch, (C, n) if p.per_chain else (n,), 0, N)
        return vstep(*carry, jax.random.split(k_noise, C), (a[idx], y[idx])), None

    def run_chains(x, v, key):
        (x, v), _ = jax.lax.scan(body, (x, v), jax.random.split(key, p.steps))
        return x, v

    x0 = jnp.zeros((C, p.dim), jnp.float32)
    v0 = jax.random.normal(jax.random.key(1), (C, p.dim), jnp.float32)
    key = jax.random.key(0)
    compiled, compile_t = timed(lambda: jax.jit(run_chains).lower(x0, v0, key).compile())
    rounds = iter(range(1 << 30))

    def run() -> Measured:
        k = jax.random.fold_in(key, next(rounds))
        (x, _), t = timed(lambda: jax.block_until_ready(compiled(x0, v0, k)))
        return Measured(t, C * p.steps, _mean_norm(np.array(x)))  # a writable copy for torch

    return compile_t, run


def _posteriors_transform(p: Problem):
    from posteriors.sgmcmc import sghmc

    N, n = p.n_data, p.batch

    def log_posterior(x, minibatch):
        ab, yb = minibatch
        z = ab @ x
        return (N / n) * (yb * z - torch.nn.functional.softplus(z)).sum() - 0.5 * p.lam * (x**2).sum(), z

    return sghmc, sghmc.build(log_posterior, lr=p.h, alpha=p.gamma, beta=0.0, sigma=1.0, temperature=1.0)


def posteriors_vmap_variant(p: Problem) -> Callable[[], Measured]:
    """posteriors' sghmc update under torch.func.vmap over the chains, one call per step."""
    sghmc, transform = _posteriors_transform(p)
    N, C, n = p.n_data, p.chains, p.batch

    def chain_step(x, m, minibatch):
        state, _ = transform.update(sghmc.SGHMCState(x, m), minibatch)
        return state.params, state.momenta

    vstep = torch.func.vmap(chain_step, in_dims=(0, 0, 0 if p.per_chain else None), randomness="different")
    shape = (C, n) if p.per_chain else (n,)
    steps = min(p.steps, math.ceil(VMAP_PER_CHAIN_CHAIN_STEPS / C / 10) * 10) if p.per_chain else p.steps

    def chains() -> torch.Tensor:
        x, m = torch.zeros(C, p.dim, device=p.device), torch.randn(C, p.dim, device=p.device)
        for _ in range(steps):
            idx = torch.randint(N, shape, device=p.device)
            x, m = vstep(x, m, (p.a[idx], p.y[idx]))
        return x

    def run() -> Measured:
        x, t = timed(_synced(chains, p.device))
        return Measured(t, C * steps, _mean_norm(x), steps if steps < p.steps else None)

    return run


def floor_variant(p: Problem) -> Callable[[], Measured]:
    """``torch floor``: the torch kernels of one SGHMC step of this target with a minibatch
    shared by the chains and nothing else (gather, two products, normals), once per step, under
    torch.inference_mode as bnnsample steps a closed-form target; the indices of all steps
    drawn at once, as bnnsample's schedules draw a cycle of batches."""
    N, C, n, d = p.n_data, p.chains, p.batch, p.dim
    g = torch.Generator(device=p.device).manual_seed(0)

    @torch.inference_mode()
    def steps() -> torch.Tensor:
        x = torch.zeros(C, d, device=p.device)
        table = torch.randint(N, (p.steps, n), generator=g, device=p.device)
        for idx in table:
            a, y = p.a.index_select(0, idx), p.y.index_select(0, idx)
            torch.addmm(x, torch.nn.functional.linear(x, a), a)
            torch.randn(C, d, generator=g, device=p.device)
        return y

    def run() -> Measured:
        _, t = timed(_synced(steps, p.device))
        return Measured(t, C * p.steps, math.nan)

    return run


def posteriors_loop_variant(p: Problem) -> Callable[[], Measured]:
    """posteriors' sghmc as documented, one chain at a time: ``loop_chains`` of the C chains, one after another."""
    _, transform = _posteriors_transform(p)
    k = loop_chains(p.chains, p.steps)

    def chains() -> list[torch.Tensor]:
        ends = []
        for _ in range(k):
            state = transform.init(torch.zeros(p.dim))
            for _ in range(p.steps):
                idx = torch.randint(p.n_data, (p.batch,))
                state, _ = transform.update(state, (p.a[idx], p.y[idx]), inplace=True)
            ends.append(state.params.clone())
        return ends

    def run() -> Measured:
        ends, t = timed(chains)
        return Measured(t, k * p.steps, _mean_norm(torch.stack(ends)))

    return run


@dataclass
class Block:
    """The measurements of one (chains, batching) setting."""

    chains: int
    steps: int
    batching: str
    rounds: dict[str, list[Measured]]
    compile_s: float | None = None


def measure(chains: int, steps: Callable[[str], int], repeats: int, device: str = "cpu") -> list[Block]:
    """Build every variant for ``chains`` chains and ``steps(batching)`` steps (shared and, for more
    than one chain, per-chain minibatches), run them in ``repeats`` interleaved rounds after one
    warm-up call each; one Block per batching. On a GPU (``device`` cuda) bnnsample also runs with
    ``compile=true`` (CUDA graphs; compiled whatever the run's length, measured rather than
    decided by the rule), blackjax where jax has the GPU, and posteriors one chain at a time not."""
    from bnnsample.data import load_data

    gpu = device.startswith("cuda")
    batchings = ("shared", "per-chain") if chains > 1 else ("shared",)
    on = [f"device={device}"]
    cfgs = {
        (name, b): logistic_cfg(chains, steps(b), name, "float32", draws=1,
                                overrides=[f"batching.per_chain={str(b == 'per-chain').lower()}", *on])
        for b in batchings for name in BNNSAMPLE
    }  # fmt: skip
    one_step = logistic_cfg(chains, 1, "sg_hmc", "float32", draws=1, overrides=on)
    cfg = next(iter(cfgs.values()))
    data = load_data(cfg)
    variants: dict[tuple[str, str], Callable[[], Measured]] = {}
    compile_s = {}
    for b in batchings:
        p = Problem(data.x_train.float().to(device), data.y_train.float().to(device), float(cfg.model.prior_precision),
                    float(cfg.step_size), float(cfg.friction), int(cfg.batch_size), chains, steps(b),
                    per_chain=b == "per-chain", device=device)  # fmt: skip
        for name in BNNSAMPLE:
            variants[(f"bnnsample {name}", b)] = bnnsample_variant(cfgs[(name, b)])
        if gpu and b == "shared":
            from bnnsample.integrators import compiled

            compiled.MIN_STEPS_GPU = min(compiled.MIN_STEPS_GPU, steps(b))
            variants[(f"bnnsample {COMPILED}", b)] = bnnsample_variant(
                logistic_cfg(chains, steps(b), "sg_hmc", "float32", draws=1, overrides=[*on, "compile=true"])
            )
        if not gpu or _imports("blackjax"):
            compile_t, variants[("blackjax", b)] = blackjax_variant(p)
            compile_s[b] = compile_t.wall
        if not gpu or _imports("posteriors"):
            variants[("posteriors vmap", b)] = posteriors_vmap_variant(p)
        if b == "shared":  # one chain has one minibatch; per-chain, the cost is in how rows are gathered: no one floor
            variants[(PER_RUN, b)] = bnnsample_variant(one_step)
            variants[(FLOOR, b)] = floor_variant(p)
            if not gpu:
                variants[("posteriors 1 chain", b)] = posteriors_loop_variant(p)
    for fn in variants.values():  # warm-up: caches, allocator, first-call dispatch
        fn()
    res = interleaved(variants, repeats)
    return [
        Block(chains, steps(b), b, {name: r for (name, bb), r in res.items() if bb == b}, compile_s.get(b))
        for b in batchings
    ]


def _rate_text(rs: list[Measured], attr: str) -> str:
    return spread_text(median_spread([getattr(r, attr) for r in rs]), ",.0f")


def rates_table(blocks: list[Block]) -> str:
    """Markdown: one row per (chains, batching, variant) with the rates, CPU/wall, compile time, |x| at the end."""
    rows = [
        "| chains | steps | batching | variant | chain-steps / CPU-s | chain-steps / wall-s | CPU / wall "
        "| compile s | \\|x\\| at end |",
        "|---:|---:|---|---|---:|---:|---:|---:|---:|",
    ]
    for bl in blocks:
        for name, rs in bl.rounds.items():
            if name == PER_RUN:
                continue
            steps = rs[0].steps or bl.steps
            k = rs[0].chain_steps // steps
            label = f"{name} ({k} of {bl.chains} chains run)" if k != bl.chains else name
            label += f" ({steps} of {bl.steps} steps run)" if steps != bl.steps else ""
            cw = median_spread([r.timing.cpu / r.timing.wall for r in rs])[0]
            comp = f"{bl.compile_s:.2f}" if name == "blackjax" else ""
            norm = median_spread([r.end_norm for r in rs])[0]
            rows.append(f"| {bl.chains} | {bl.steps} | {bl.batching} | {label} | {_rate_text(rs, 'cpu_rate')} "
                        f"| {_rate_text(rs, 'wall_rate')} | {cw:.2f} | {comp} | {'' if math.isnan(norm) else f'{norm:.2f}'} |")  # fmt: skip
    return "\n".join(rows)


def ratios_table(blocks: list[Block]) -> str:
    """Markdown: bnnsample / peer of chain-steps per second, per CPU-second and per wall-second,
    median [min, max] of the per-round ratios."""
    rows = [
        "| chains | batching | bnnsample / peer | CPU-s ratio | wall-s ratio |",
        "|---:|---|---|---:|---:|",
    ]
    for bl in blocks:
        for ours in (*BNNSAMPLE, COMPILED, FLOOR):
            mine = bl.rounds.get(f"bnnsample {ours}") or bl.rounds.get(ours)
            if mine is None:
                continue
            for peer in PEERS:
                if peer not in bl.rounds:
                    continue
                theirs = bl.rounds[peer]
                cpu = ratio_spread([r.cpu_rate for r in mine], [r.cpu_rate for r in theirs])
                wall = ratio_spread([r.wall_rate for r in mine], [r.wall_rate for r in theirs])
                rows.append(f"| {bl.chains} | {bl.batching} | {ours} / {peer} | {spread_text(cpu)} "
                            f"| {spread_text(wall)} |")  # fmt: skip
    return "\n".join(rows)


def per_run_lines(blocks: list[Block]) -> list[str]:
    """One line per chain count: bnnsample's per-run cost (CPU time of a 1-step, 1-draw sg_hmc
    run: configuration checks, data, schedule, store creation, one draw with its test predictive,
    the after-write check) and its share of a 10,000-step run at that chain count, whose per-step
    cost comes from this block's sg_hmc run (per round: (run - per-run) / steps)."""
    lines = []
    for bl in blocks:
        if PER_RUN not in bl.rounds:
            continue
        fixed = [r.timing.cpu for r in bl.rounds[PER_RUN]]
        per_step = [(r.timing.cpu - f) / bl.steps for r, f in zip(bl.rounds["bnnsample sg_hmc"], fixed)]
        share = [f / (f + LONG_STEPS * s) for f, s in zip(fixed, per_step)]
        lines.append(f"- per-run cost at {bl.chains} chains: {spread_text(median_spread([1e3 * f for f in fixed]), '.1f')} "
                     f"CPU-ms; sg_hmc step {spread_text(median_spread([1e6 * s for s in per_step]), '.1f')} CPU-us, "
                     f"so the per-run cost is {spread_text(median_spread([100 * x for x in share]), '.1f')}% of a "
                     f"{LONG_STEPS:,}-step run (goal <= 5%)")  # fmt: skip
    return lines


def compile_lines(blocks: list[Block]) -> list[str]:
    """Per chain count (shared batches): bnnsample sg_hmc / blackjax for a run of COMPILE_RUN_STEPS steps
    with blackjax's compile time counted (CPU seconds of bnnsample: per-run cost + steps x its
    step; of blackjax: compile wall time + steps x its step), median over rounds."""
    lines = []
    for bl in blocks:
        if PER_RUN not in bl.rounds or bl.compile_s is None or "blackjax" not in bl.rounds:
            continue
        fixed = [r.timing.cpu for r in bl.rounds[PER_RUN]]
        ours = [f + COMPILE_RUN_STEPS * (r.timing.cpu - f) / bl.steps
                for r, f in zip(bl.rounds["bnnsample sg_hmc"], fixed)]  # fmt: skip
        theirs = [bl.compile_s + COMPILE_RUN_STEPS * r.timing.cpu / bl.steps for r in bl.rounds["blackjax"]]
        ratio = median_spread([t / o for o, t in zip(ours, theirs)])
        lines.append(f"- {bl.chains} chains, {bl.batching}: for a {COMPILE_RUN_STEPS:,}-step run with blackjax's "
                     f"compile time ({bl.compile_s:.2f} s) counted, sg_hmc / blackjax = {spread_text(ratio)}")  # fmt: skip
    return lines


def _imports(name: str) -> bool:
    """Whether ``name`` imports here (a carried wheel built for another torch may not)."""
    import importlib

    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001  (any failure of a peer's import: the suite runs without it)
        return False
    return True


def versions_text() -> str:
    import importlib

    import bnnsample

    def version(name: str) -> str:
        try:
            return f"{name} {importlib.import_module(name).__version__}"
        except Exception:  # noqa: BLE001  (absent, or not importable here)
            return f"{name} absent"

    return ", ".join([f"bnnsample {bnnsample.__version__}", f"torch {torch.__version__}",
                      *map(version, ("jax", "blackjax", "posteriors"))])  # fmt: skip


def run_suite(chain_counts: list[int], steps: int | None, repeats: int, threads: int,
              cells: tuple[str, ...] = ("long", "short"), device: str = "cpu") -> str:  # fmt: skip
    """The whole suite as markdown: settings, versions, threads, load before and after; per kind
    of cell (long: ``long_steps``, where real runs live; short: ``default_steps``; or ``steps``
    for every cell when given) the rates and ratios tables, and for the long cells the per-run
    cost and the compile-time lines. On a GPU (``device`` cuda) blackjax runs only where jax has the
    GPU, posteriors one chain at a time not, and the wall-second rates are the ones that count."""
    import importlib.util

    gpu = device.startswith("cuda")
    needed = () if gpu else ("jax", "blackjax", "posteriors")  # on a GPU each peer where its wheels fit
    missing = [m for m in needed if importlib.util.find_spec(m) is None]
    if missing:
        raise SystemExit(f"the peers suite needs {', '.join(missing)}: pip install -e .[bench]")
    if gpu:
        os.environ.setdefault("JAX_PLATFORMS", "cuda")
    pinned = pin_threads(threads)
    where = f"device {torch.cuda.get_device_name(device)}" if gpu else "device cpu"
    head = [f"- threads: {pinned}", f"- {versions_text()}", f"- before: {load_text()}"]
    print("\n".join(head), flush=True)
    kinds = {"long": long_steps, "short": lambda c, b: default_steps(c)}
    tables = []
    for kind in [f"{steps} steps"] if steps else cells:
        blocks = []
        for c in chain_counts:
            blocks += measure(c, lambda b, c=c, kind=kind: steps or kinds[kind](c, b), repeats, device)
            head.append(f"- after {c} chains ({kind} cells): {load_text()}")
            print(head[-1], flush=True)
        what = {"long": f"Long cells ({LONG_STEPS:,} steps; per-chain minibatches {LONG_CHAIN_STEPS:,} chain-steps "
                        "where fewer)",
                "short": f"Short cells ({DEFAULT_CHAIN_STEPS:,} chain-steps, 50 to 10,000 steps)"}.get(kind, kind)  # fmt: skip
        extra = [*per_run_lines(blocks), *compile_lines(blocks)]
        tables += [f"### {what}", "", rates_table(blocks), "", ratios_table(blocks), "", *extra, ""]
    return "\n".join([
        "- setting: logistic_synthetic (N = 10,000, d = 100, batch 100, iid minibatches for all but sms_ubu), "
        f"float32, h = 0.02, gamma = 5, {repeats} interleaved rounds after one warm-up call each; "
        f"median [min, max] over rounds, {where}"
        + ("; on the GPU the wall-second rates count (the host waits on the device), bnnsample also with "
           "compile=true (blocks of 16 steps, each a CUDA graph), blackjax on jax's GPU where it is installed"
           if gpu else ""),
        "- normals per coordinate and step: 1 (sg_hmc, blackjax, posteriors), 2 (sms_ubu); bnnsample's rates "
        "include its per-run cost (config checks, data, one draw with its test predictive written to HDF5, the "
        "store's layout and resume state checked), the peers' rates only their sampling loop",
        *head, "",
        *tables,
    ]).rstrip()  # fmt: skip
