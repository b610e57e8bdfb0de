"""Throughput benchmarks, reported as ratios against a baseline measured in the same run.

    python scripts/bench.py [--suite two_batch|toy|integrators|conv|epoch|recording|fsync|peers|throughput|all] [--out results/bench.md]

two_batch (--chains, --steps): SMS-UBU chain-steps per second on two_batch_gaussian through
the real pipeline (``bnnsample.runner.run``: schedule, integrator, divergence checks, HDF5
streaming), with the bare closed-form force evaluation of the same chains as the baseline.

toy (--chains, default 20,000, --steps, default 2,000): the simulation kernel of paulin2025
Fig. 1 (sms_ubu, sg_baoab, sg_em on two_batch_gaussian, float64, one block, nothing recorded)
against its random-number floor, the same float64 normals from the same generator alone.

integrators:
  logistic  Bayesian logistic regression (logistic_synthetic: N = 10,000, d = 100, batch 100),
            bnnsample SG-HMC and SMS-UBU with 100 chains through the real pipeline (runner.run)
            against the bare closed-form minibatch gradient of the same chains.
  network   one chain of cnn_fmnist (1,265,258 parameters, random 28x28 inputs, float32):
            one UBU step with the SMS schedule (noise, OU flows, schedule, oracle incl. the
            flat-parameter unflatten) over the bare forward+backward of the ordinary module on
            the same batch size.
conv (--repeats, --net-batch): the force of cnn_small and cnn_fmnist (one chain, the layout
            bnnsample picks: channels-last on the CPU) against a plain eager forward+backward in
            PyTorch's default layout, CPU time; cnn_fmnist's FLOP/s against a matmul's.
epoch (--epoch-images, --device): one SMS-UBU epoch of Algorithm 3 (cnn_fmnist, localized
            target, bounces, cached control variates) against one plain Adam training epoch on
            the same batches and device (issue 7's goal: at most 1.15x).
peers (--chains 1,10,100,1000,4000, --steps, --repeats, --device; ``pip install -e .[bench]``):
            bnnsample's pipeline (runner.run, sg_hmc and sms_ubu) against blackjax SGHMC
            (jit + vmap over chains + lax.scan over steps, compile time apart) and posteriors'
            sghmc (under torch.func.vmap over the chains, and one chain at a time) on
            logistic_synthetic in float32: the same chains, steps, step size, friction and
            minibatch size, one minibatch gradient per chain and step, shared and per-chain
            minibatches; chain-steps per CPU-second and per wall-second and the ratios
            bnnsample / peer. Torch and XLA are pinned to --threads threads; the thread
            settings, library versions and load averages are printed. Details, and what differs
            between the variants (SMS-UBU draws two normals per coordinate and step):
            scripts/bench_peers.py. Without --steps, two tables (--cells long,short): long cells
            of 10,000 steps (3,000,000 chain-steps where that is fewer: at least 2 CPU-s of
            bnnsample work), with bnnsample's per-run cost (a 1-step run) on its own line, its
            share of a 10,000-step run, and the ratio to blackjax for a 100,000-step run with
            blackjax's compile time counted; short cells of 100,000 / chains steps (rounded to 10,
            within 50..10,000), where the per-run cost weighs more.
throughput (--runs 1,8,16,64, --steps, --repeats, --device cuda): training and sampling steps of
            R batched cnn_fmnist runs in each arithmetic (float32, tf32, bf16; deterministic or
            autotuned kernels; torch.compile), their TFLOP/s and share of the device's dense
            peak (scripts/bench_gpu.py).
recording (--rec-chains, --rec-steps, --rec-draws): CPU time of the whole ``runner.run`` (setup,
            draws and test predictions recorded, HDF5, resume state, checks) over the bare kernel
            loop of the same logistic-regression chains, steps and blocks (issue 18's goal: at
            most 1.15x at 100 and 1000 chains).
The measured variants are interleaved over --repeats rounds and the medians reported, with
the spread (min-max over rounds) as the noise estimate.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import contextmanager, nullcontext
from functools import partial
from pathlib import Path

import torch
from bench_common import (
    interleaved,
    load_text,
    logistic_cfg,
    machine_text,
    median_spread,
    ratio_spread,
    spread_text,
    timed,
    update_bench_md,
)


def bench_two_batch(chains: int, steps: int) -> dict:
    from hydra import compose, initialize_config_dir

    from bnnsample import runner
    from bnnsample.models.analytic import GaussianMean
    from bnnsample.plumbing.paths import conf_dir

    with initialize_config_dir(str(conf_dir()), version_base="1.3"):
        cfg = compose(
            "config",
            overrides=[
                "dataset=two_batch_gaussian", "integrator=sms_ubu", f"chains={chains}", "step_size=0.0625",
                "friction=1", "dtype=float64", "burn_in=0", f"samples={steps // 4}", "thin=4", "progress=false",
            ],
        )  # fmt: skip
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        runner.run(cfg, Path(d))
        total = time.perf_counter() - t0
    # baseline: the same number of bare minibatch force evaluations
    pot = GaussianMean(
        torch.tensor([[-1.0], [1.0]], dtype=torch.float64), torch.tensor([0.5, 2.0], dtype=torch.float64)
    )
    x = torch.zeros(chains, 1, dtype=torch.float64)
    idx = torch.randint(2, (chains, 1))
    t0 = time.perf_counter()
    for _ in range(steps):
        pot.force(x, idx, 2.0)
    force_time = time.perf_counter() - t0
    return {
        "chains": chains,
        "steps": steps,
        "seconds (whole run incl. setup and HDF5)": total,
        "chain-steps/s": chains * steps / total,
        "run time / bare force time": total / force_time,
    }


def bench_toy(chains: int, steps: int, repeats: int, preset: str = "sms_ubu") -> dict:
    """The simulation kernel of paulin2025 Fig. 1 (``simulate.run``: integrator, per-chain
    schedule, force; one block, nothing recorded) on two_batch_gaussian in float64, against
    its random-number floor: the same float64 normals drawn from the same generator
    (``GaussianNoise``, UBU draws 2 per coordinate and step plus the first half-step's),
    nothing else. Interleaved rounds, CPU time."""
    from bnnsample.plumbing.rng import GaussianNoise
    from bnnsample.simulate import build_target, make_chains, preset_scheme, run

    pot = build_target(["dataset=two_batch_gaussian"], dtype="float64").potential
    name, params, batching, partition = preset_scheme(preset)

    def loop() -> float:
        ch = make_chains(pot, name, params, x0=torch.zeros(chains, 1, dtype=torch.float64), h=0.0625, gamma=1.0,
                         batching=batching, batch_size=1, partition=partition, seed=1)  # fmt: skip
        t0 = time.process_time()
        for _ in run(
            ch.integrator,
            ch.state,
            ch.next_force,
            ch.ctx,
            total=steps,
            burn_in=steps,
            burn_block=steps,
            inference=pot.closed_form,
        ):
            pass
        return time.process_time() - t0

    per_step = {"ubu": 2}.get(name, 1)

    def floor() -> float:
        noise, like = GaussianNoise("cpu", 1), torch.zeros(1, dtype=torch.float64)
        t0 = time.process_time()
        for _ in range(steps + (name == "ubu")):
            noise(per_step, chains, 1, like=like)
        return time.process_time() - t0

    res = interleaved({"loop": loop, "floor": floor}, repeats)
    ns = {k: [t / (chains * steps) * 1e9 for t in v] for k, v in res.items()}
    return {
        "setting": f"{preset} on two_batch_gaussian, {chains} chains x {steps} steps, float64, {repeats} rounds, "
        f"CPU time; {load_text()}",
        "kernel loop, ns per chain-step (median [min, max])": spread_text(median_spread(ns["loop"])),
        "its normals alone, ns per chain-step": spread_text(median_spread(ns["floor"])),
        "loop / floor (per-round ratios)": spread_text(ratio_spread(res["loop"], res["floor"])),
    }


def bench_logistic(chains: int, steps: int, repeats: int, dtype: str = "float32",
                   integrators: tuple[str, ...] = ("sg_hmc", "sms_ubu")) -> dict:  # fmt: skip
    """bnnsample (runner.run, many chains; each preset of ``integrators``) against the bare
    closed-form minibatch gradient of all chains, interleaved. blackjax and posteriors on the
    same chains and steps: the peers suite (scripts/bench_peers.py)."""
    from bnnsample import runner
    from bnnsample.data import load_data
    from bnnsample.models.logistic import LogisticRegression

    cfgs = {name: logistic_cfg(chains, steps, name, dtype) for name in integrators}
    cfg = cfgs[integrators[0]]
    data = load_data(cfg)
    tdtype = getattr(torch, dtype)
    X, y = data.x_train.to(tdtype), data.y_train.to(tdtype)
    N, d = X.shape
    n = int(cfg.batch_size)

    def run_bnnsample(c):
        with tempfile.TemporaryDirectory() as dd:
            _, t = timed(lambda: runner.run(c, Path(dd)))
            return t.wall / (steps * chains)

    pot = LogisticRegression(X, y, prior_precision=float(cfg.model.prior_precision))
    xs = torch.zeros(chains, d, dtype=tdtype)

    def run_force():
        idx = torch.randint(N, (steps, n))
        t0 = time.perf_counter()
        for k in range(steps):
            pot.force(xs, idx[k], N / n)
        return (time.perf_counter() - t0) / (steps * chains)

    res = interleaved({**{name: partial(run_bnnsample, cfgs[name]) for name in integrators}, "force": run_force},
                      repeats)  # fmt: skip
    force = median_spread(res["force"])[0]
    out = {
        "setting": f"N = {N}, d = {d}, batch {n}, {chains} chains, {steps} steps per run, {dtype}, {repeats} rounds",
        "bare closed-form minibatch force of all chains, µs per chain": f"{force * 1e6:.3g}",
    }
    for name in integrators:
        bnn = median_spread(res[name])
        out.update({
            f"bnnsample {name} (runner.run incl. setup, HDF5, 10 draws), µs per chain-step (median [min, max])":
                spread_text([x * 1e6 for x in bnn]),
            f"bnnsample {name} chain-steps per second": f"{1 / bnn[0]:,.0f}",
            f"bnnsample {name} step / bare force": f"{bnn[0] / force:.2f}",
        })  # fmt: skip
    return out


def _bare_loop(cfg, run_dir: Path):
    """The runner's own target, integrator, schedule and initial state (its stages, no store),
    advanced through the kernel over the run's blocks with nothing recorded; returns a callable
    that runs it and gives its CPU seconds."""
    from bnnsample import runner, simulate

    p = runner._prepare(cfg, run_dir)
    x0 = runner._initial_points(p, {})
    pot, boundary, _ = runner._target(p, x0)
    s = p.settings

    def bare() -> float:
        integ, ctx, state = runner._integrator(p, pot, x0, boundary)
        t0 = time.process_time()
        for _ in simulate.run(integ, state, simulate.force_supplier(pot, p.sched), ctx, total=s.total_steps,
                              burn_in=s.burn_in, thin=s.thin, check_every=s.check_every,
                              inference=pot.closed_form):  # fmt: skip
            pass
        return time.process_time() - t0

    return bare


def bench_recording(chains: tuple[int, ...], steps: int, repeats: int, draws: int = 10, dtype: str = "float32",
                    integrator: str = "sms_ubu") -> dict:  # fmt: skip
    """CPU time of ``runner.run`` (setup, recording, HDF5, checks) over the bare kernel loop of
    the same chains, steps and blocks (``_bare_loop``), logistic regression, interleaved rounds."""
    out = {"setting": f"logistic_synthetic, {integrator}, {dtype}, {steps} steps, {draws} draws (thin "
                      f"{max(1, steps // draws)}), {repeats} rounds, CPU time (time.process_time); fsync "
                      "timed where the store calls it (wall), as a share of the run's wall time"}  # fmt: skip
    with timed_fsync() as synced:
        for c in chains:
            _recording_cell(out, c, steps, repeats, draws, dtype, integrator, synced)
    out["load"] = load_text()
    return out


@contextmanager
def timed_fsync():
    """The store's fsync (``store._fsync``) timed where it is called: yields {"s": wall seconds,
    "n": calls}, which the caller may reset between runs."""
    from bnnsample import store

    synced = {"s": 0.0, "n": 0}
    plain = store._fsync

    def timed(fd):
        t0 = time.perf_counter()
        plain(fd)
        synced["s"] += time.perf_counter() - t0
        synced["n"] += 1

    store._fsync = timed
    try:
        yield synced
    finally:
        store._fsync = plain


def _recording_cell(out: dict, c: int, steps: int, repeats: int, draws: int, dtype: str, integrator: str,
                    synced: dict) -> None:  # fmt: skip
    """One chain count of the recording suite: runner.run against the bare loop, interleaved."""
    from bnnsample import runner

    cfg = logistic_cfg(c, steps, integrator, dtype, draws=draws)
    res = {"run": [], "bare": [], "fsync_share": [], "fsyncs": []}
    with tempfile.TemporaryDirectory(dir=Path.cwd()) as d:  # the disk runs write to, not a tmpfs
        bare = _bare_loop(cfg, Path(d))
        for r in range(repeats):
            synced.update(s=0.0, n=0)
            t0, w0 = time.process_time(), time.perf_counter()
            runner.run(cfg, Path(d) / f"run{r}")
            res["run"].append(time.process_time() - t0)
            res["fsync_share"].append(synced["s"] / (time.perf_counter() - w0))
            res["fsyncs"].append(synced["n"])
            (Path(d) / f"run{r}" / "samples.h5").unlink()
            res["bare"].append(bare())
    ratios = [a / b for a, b in zip(res["run"], res["bare"])]
    med, lo, hi = median_spread(ratios)
    out[f"{c} chains: runner.run / bare loop (median [min, max] of per-round ratios)"] = (
        f"{med:.3f} [{lo:.3f}, {hi:.3f}]"
    )
    out[f"{c} chains: CPU s, runner.run / bare (medians)"] = (
        f"{median_spread(res['run'])[0]:.2f} / {median_spread(res['bare'])[0]:.2f}"
    )
    share = median_spread([100 * x for x in res["fsync_share"]])
    out[f"{c} chains: fsync wall time, % of the run's wall time (median [min, max]; fsyncs per run)"] = (
        f"{share[0]:.2f} [{share[1]:.2f}, {share[2]:.2f}]; {median_spread(res['fsyncs'])[0]:.0f}"
    )


def bench_fsync_default() -> dict:
    """The README's default run (``bnnsample run``: cnn_small on the embedded MNIST subset) with
    the store's fsync timed (wall) where it is called, as a share of the run's wall time: what
    making each resume checkpoint durable costs a default run."""
    from bnnsample.cli import main

    argv = list(sys.argv)  # the CLI hands sys.argv to Hydra: bench.md records ours
    try:
        with timed_fsync() as synced, tempfile.TemporaryDirectory(dir=Path.cwd()) as d:  # a disk, not a tmpfs
            w0, c0 = time.perf_counter(), time.process_time()
            try:
                main(["run", f"hydra.run.dir={Path(d) / 'run'}", "progress=false"])
            except SystemExit as e:
                if e.code:
                    raise
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    finally:
        sys.argv = argv
    return {
        "setting": "bnnsample run (the README's default: cnn_small, mnist5k, 4 chains, Adam + SWA, SMS-UBU, evaluation)",
        "run wall / CPU s": f"{wall:.1f} / {cpu:.1f}",
        "resume checkpoints fsynced": synced["n"],
        "fsync wall time, ms": f"{synced['s'] * 1e3:.1f}",
        "fsync share of the run's wall time, % (goal <= 2)": f"{100 * synced['s'] / wall:.3f}",
        "load": load_text(),
    }  # fmt: skip


def bench_network(batch: int, steps: int, repeats: int, n_data: int = 2000, integrator: str = "ubu") -> dict:
    """One chain of cnn_fmnist: sampler step (integrator.advance with the SMS schedule) over the
    bare forward+backward of the ordinary module, interleaved rounds, medians."""
    import torch.nn.functional as F

    from bnnsample.batching import Schedule
    from bnnsample.integrators import StepContext, get_integrator
    from bnnsample.models.cnn import cnn_fmnist
    from bnnsample.models.network import ClassifierPotential
    from bnnsample.plumbing.rng import GaussianNoise
    from bnnsample.potential import Oracle
    from bnnsample.simulate import advance

    torch.manual_seed(0)
    module = cnn_fmnist()
    xt = torch.randn(n_data, 1, 28, 28)
    yt = torch.randint(10, (n_data,))
    pot = ClassifierPotential(module, xt, yt, xt[:10], prior_precision=1.0, chain_batching="loop")
    sched = Schedule("sms", n_data, batch, generator=torch.Generator().manual_seed(1))
    ctx = StepContext(h=1e-4, gamma=7.07, noise=GaussianNoise("cpu", 2))
    integ = get_integrator(integrator)
    x0 = pot.layout.flatten(module)[None]
    state = integ.init_state(x0, ctx)
    next_force = lambda: Oracle(pot, sched.next(), sched.scale, sched.eps)  # noqa: E731
    gen = torch.Generator().manual_seed(3)

    def bare():
        t0 = time.perf_counter()
        for _ in range(steps):
            idx = torch.randint(n_data, (batch,), generator=gen)
            module.zero_grad(set_to_none=True)
            F.cross_entropy(module(xt[idx]), yt[idx], reduction="sum").backward()
        return (time.perf_counter() - t0) / steps

    def force_only():
        t0 = time.perf_counter()
        for _ in range(steps):
            next_force()(state.x)
        return (time.perf_counter() - t0) / steps

    def noise_only():
        t0 = time.perf_counter()
        for _ in range(steps):
            ctx.normal(2, *x0.shape, like=x0)
        return (time.perf_counter() - t0) / steps

    def sampler():
        nonlocal state
        t0 = time.perf_counter()
        state = advance(integ, state, steps, next_force, ctx)
        return (time.perf_counter() - t0) / steps

    bare(), sampler()  # warm-up
    res = interleaved({"bare": bare, "sampler": sampler, "force": force_only, "noise": noise_only}, repeats)
    med = {k: median_spread(v) for k, v in res.items()}
    ms = lambda k: spread_text([x * 1e3 for x in med[k]], ".1f")  # noqa: E731
    return {
        "setting": f"cnn_fmnist, {pot.dim:,} parameters, one chain, batch {batch}, float32, {steps} steps x {repeats} rounds",
        "bare forward+backward (module, autograd), ms (median [min, max])": ms("bare"),
        f"sampler step ({integrator} advance, sms schedule, oracle, noise), ms": ms("sampler"),
        "oracle force alone (functional_call + unflatten + prior), ms": ms("force"),
        "noise alone (2 x d standard normals), ms": ms("noise"),
        "sampler step / bare forward+backward (median of ratios)": f"{ratio_spread(res['sampler'], res['bare'])[0]:.3f}",
        "per-round ratios": ", ".join(f"{s / b:.3f}" for s, b in zip(res["sampler"], res["bare"])),
    }  # fmt: skip


def bench_conv(repeats: int, batch: int = 200, steps: int = 5) -> dict:
    """The networks' force in the layout bnnsample picks (``memory_format=auto``: channels-last
    on the CPU) against a plain eager forward + backward of the same network in PyTorch's
    default layout, one chain, the same batch, interleaved rounds, CPU time; and the force of
    cnn_fmnist in FLOP/s (FLOPs counted by torch's FlopCounterMode) against a 1024^3 float32
    matmul's FLOP/s measured in the same rounds (the core's sustained rate)."""
    import torch.nn.functional as F
    from torch.utils.flop_counter import FlopCounterMode

    from bnnsample.models.cnn import ARCHITECTURES
    from bnnsample.models.network import ClassifierPotential

    g = torch.Generator().manual_seed(0)
    xt = torch.rand(2000, 1, 28, 28, generator=g)
    yt = torch.randint(10, (2000,), generator=g)
    idx = torch.randint(2000, (batch,), generator=g)
    xb, yb = xt[idx], yt[idx]
    variants, flops, fmt = {}, {}, {}
    for name in ("cnn_small", "cnn_fmnist"):
        torch.manual_seed(0)
        plain = ARCHITECTURES[name]()
        torch.manual_seed(0)
        pot = ClassifierPotential(ARCHITECTURES[name](), xt, yt, xt[:10])
        fmt[name] = pot.memory_format
        x = pot.layout.flatten(pot.module)[None]
        n = steps if name == "cnn_small" else 1

        def eager(m=plain, n=n):
            for _ in range(n):
                m.zero_grad(set_to_none=True)
                F.cross_entropy(m(xb), yb, reduction="sum").backward()

        def force(p=pot, x=x, n=n):
            for _ in range(n):
                p.force(x, idx, 1.0)

        with FlopCounterMode(display=False) as fc:
            pot.force(x, idx, 1.0)
        flops[name] = fc.get_total_flops()
        for label, fn in (("eager", eager), ("force", force)):
            fn()  # warm-up
            variants[f"{name} {label}"] = lambda fn=fn, n=n: (lambda t: (t.cpu / n, t.wall / n))(timed(fn)[1])
    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    variants["matmul"] = lambda: (lambda t: (t.cpu / 20, t.wall / 20))(timed(lambda: [a @ b for _ in range(20)])[1])
    res = interleaved(variants, repeats)
    cpu = {k: [c for c, _ in v] for k, v in res.items()}
    wall = {k: [w for _, w in v] for k, v in res.items()}
    matmul_rate = [2 * 1024**3 / c for c in cpu["matmul"]]
    fmnist_rate = [flops["cnn_fmnist"] / c for c in cpu["cnn_fmnist force"]]
    ms = lambda k: spread_text([x * 1e3 for x in median_spread(cpu[k])], ".1f")  # noqa: E731
    out = {"setting": f"one chain, batch {batch}, float32, random 28x28 inputs, {repeats} interleaved rounds, CPU time "
                      f"(wall beside); layout picked: " + ", ".join(f"{k} {v}" for k, v in fmt.items())}  # fmt: skip
    for name in ("cnn_small", "cnn_fmnist"):
        out[f"{name} plain eager forward+backward (default layout), CPU ms (median [min, max])"] = ms(f"{name} eager")
        out[f"{name} bnnsample force ({fmt[name]}), CPU ms"] = ms(f"{name} force")
        out[f"{name} wall ms eager / force"] = (
            f"{median_spread(wall[f'{name} eager'])[0] * 1e3:.1f} / {median_spread(wall[f'{name} force'])[0] * 1e3:.1f}"
        )
        r = ratio_spread(cpu[f"{name} eager"], cpu[f"{name} force"])
        out[f"{name} speed-up of the force over plain eager (median of per-round CPU ratios [min, max])"] = spread_text(
            r, ".2f"
        )
    out["cnn_fmnist force FLOPs (FlopCounterMode)"] = f"{flops['cnn_fmnist'] / 1e9:.1f} GFLOP"
    out["cnn_fmnist force GFLOP/s (CPU time)"] = spread_text(median_spread([x / 1e9 for x in fmnist_rate]), ".1f")
    out["matmul 1024^3 float32 GFLOP/s (CPU time)"] = spread_text(median_spread([x / 1e9 for x in matmul_rate]), ".1f")
    out["cnn_fmnist force / matmul FLOP/s (median of per-round ratios [min, max])"] = spread_text(
        median_spread([f / m for f, m in zip(fmnist_rate, matmul_rate)]), ".2f"
    )
    out["load"] = load_text()
    return out


def bench_epoch(n_data: int, repeats: int, device: str = "cpu", batch: int = 200) -> dict:
    """One epoch of Algorithm 3's sampling phase against one epoch of plain training, same
    device, same batches. cnn_fmnist (one chain) on random data of Fashion-MNIST shape,
    ``n_data`` images (N_m = n_data / batch steps per epoch):

      train    ``train.adam_steps``: Adam on the ordinary module, mean CE + prior / N, over
               the epoch's batches (the sms order of the fixed partition)
      sms_ubu  UBU advance over the same number of steps with the sms schedule on the
               localized target with elastic bounces and control variates around x_ref,
               per-batch reference gradients cached (computed once, timed separately)
      sms_ubu_nocache  the same with the reference gradient recomputed every step
    Rounds are interleaved; medians (min, max) reported. On CUDA every timing synchronizes.
    """
    from bnnsample.batching import Schedule
    from bnnsample.integrators import StepContext, get_integrator
    from bnnsample.models.cnn import cnn_fmnist
    from bnnsample.models.network import ClassifierPotential
    from bnnsample.plumbing.rng import GaussianNoise
    from bnnsample.potential import ControlVariate, ElasticBox, Localized, Oracle
    from bnnsample.simulate import advance
    from bnnsample.train import adam_steps, training_loss

    dev = torch.device(device)
    sync = (lambda: torch.cuda.synchronize(dev)) if dev.type == "cuda" else (lambda: None)
    torch.manual_seed(0)
    module = cnn_fmnist().to(dev)
    g = torch.Generator().manual_seed(0)
    xt = torch.rand(n_data, 1, 28, 28, generator=g).to(dev)
    yt = torch.randint(10, (n_data,), generator=g).to(dev)
    pot = ClassifierPotential(module, xt, yt, xt[:10], prior_precision=1.0)
    sched = Schedule("sms", n_data, batch, generator=torch.Generator(device=dev).manual_seed(1), device=dev)
    steps = sched.n_batches
    x_ref = pot.layout.flatten(module)[None].clone()
    sync()
    t0 = time.perf_counter()
    cv = ControlVariate(pot, x_ref, batches=sched._fixed, cache_limit=2**31)
    sync()
    cache_s = time.perf_counter() - t0
    nocache = ControlVariate(pot, x_ref, batches=sched._fixed, cache_limit=0)
    targets = {k: Localized(c, x_ref, 50.0) for k, c in (("sms_ubu", cv), ("sms_ubu_nocache", nocache))}
    box = ElasticBox.for_localization(x_ref, 50.0)
    ctx = StepContext(h=1.25e-4, gamma=50**0.5, noise=GaussianNoise(dev, 2), boundary=box)
    integ = get_integrator("ubu")
    states = {k: integ.init_state(x_ref, ctx) for k in targets}
    opt = torch.optim.Adam(module.parameters(), lr=1e-3)
    loss_fn = training_loss(pot)
    module.train()

    def train_epoch():
        batches = [sched.next() for _ in range(steps)]
        sync()
        t = time.perf_counter()
        adam_steps(opt, loss_fn, batches)
        sync()
        return time.perf_counter() - t

    def sample_epoch(k):
        def nf():
            return Oracle(targets[k], sched.next(), sched.scale, sched.eps)

        sync()
        t = time.perf_counter()
        states[k] = advance(integ, states[k], steps, nf, ctx)
        sync()
        return time.perf_counter() - t

    train_epoch(), sample_epoch("sms_ubu"), sample_epoch("sms_ubu_nocache")  # warm-up
    variants = {"train": train_epoch, **{k: partial(sample_epoch, k) for k in ("sms_ubu", "sms_ubu_nocache")}}
    res = interleaved(variants, repeats)
    med = {k: median_spread(v) for k, v in res.items()}

    def ms(k):
        return spread_text([x / steps * 1e3 for x in med[k]], ".2f")

    def ratio(a, b):
        return ratio_spread(res[a], res[b])[0]

    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    return {
        "setting": f"cnn_fmnist, {pot.dim:,} parameters, one chain, {n_data} random 28x28 images = {steps} steps of "
                   f"batch {batch} per epoch, float32, {repeats} rounds, device {name}",
        "plain training epoch (Adam, module autograd), ms per step (median [min, max])": ms("train"),
        "SMS-UBU epoch (localized, bounces, control variates cached), ms per step": ms("sms_ubu"),
        "SMS-UBU epoch, reference gradient recomputed each step, ms per step": ms("sms_ubu_nocache"),
        "one-time cache of the per-batch reference gradients, ms per batch": f"{cache_s / steps * 1e3:.2f}",
        "SMS-UBU epoch / training epoch (median of per-round ratios; goal <= 1.15)": f"{ratio('sms_ubu', 'train'):.3f}",
        "uncached / cached SMS-UBU epoch (speedup of the cache)": f"{ratio('sms_ubu_nocache', 'sms_ubu'):.3f}",
        "per-round ratios SMS-UBU / training": ", ".join(f"{s / b:.3f}" for s, b in zip(res["sms_ubu"], res["train"])),
    }  # fmt: skip


def _section(title: str, r: dict) -> str:
    lines = [f"## {title}", ""]
    lines += [f"- {k}: {v:,.3g}" if isinstance(v, float) else f"- {k}: {v}" for k, v in r.items()]
    return "\n".join(lines)


def _int_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def _cells(text: str) -> list[str]:
    import argparse

    cells = [c for c in text.split(",") if c]
    if not cells or set(cells) - {"long", "short"}:
        raise argparse.ArgumentTypeError(f"{text!r}: allowed long, short or long,short")
    return cells


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--suite",
        choices=(
            "two_batch",
            "toy",
            "integrators",
            "logistic",
            "network",
            "conv",
            "epoch",
            "recording",
            "fsync",
            "peers",
            "throughput",
            "all",
        ),
        default="two_batch",
        help="all: every suite but peers (which needs .[bench]) and throughput (a GPU's)",
    )
    ap.add_argument("--chains", type=_int_list, default=None,
                    help="chain counts, comma-separated (two_batch: 4000; peers: 1,10,100,1000,4000)")  # fmt: skip
    ap.add_argument("--steps", type=int, default=None, help="steps per run (two_batch: 4000; peers: see above)")
    ap.add_argument("--cells", type=_cells, default=["long", "short"],
                    help="peers: which tables, long and/or short cells (default long,short)")  # fmt: skip
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--lr-steps", type=int, default=10000, help="steps of each logistic-regression run")
    ap.add_argument("--net-steps", type=int, default=2, help="steps per round of the network benchmark")
    ap.add_argument("--net-batch", type=int, default=200)
    ap.add_argument(
        "--epoch-images",
        type=int,
        default=2000,
        help="images per epoch of the epoch benchmark; the data set of the throughput suite",
    )
    ap.add_argument(
        "--runs", type=_int_list, default=[1, 8, 16, 64], help="throughput suite: batched runs, e.g. 1,8,16,64"
    )
    ap.add_argument("--rec-chains", type=int, nargs="+", default=[100, 1000], help="chains of the recording suite")
    ap.add_argument("--rec-steps", type=int, default=1000, help="steps of each recording-suite run")
    ap.add_argument("--rec-draws", type=int, default=10, help="draws of each recording-suite run")
    ap.add_argument("--device", default="cpu", help="device of the epoch, throughput and peers benchmarks (cpu | cuda)")
    ap.add_argument(
        "--cuda-kernels",
        choices=("deterministic", "fast"),
        default="deterministic",
        help="epoch benchmark on CUDA: the runner's deterministic kernels, or cuDNN's fastest",
    )
    ap.add_argument(
        "--threads", type=int, default=1, help="torch threads (1: the default of bnnsample run, bnnsample/threads.py)"
    )
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    machine = machine_text()
    sections = []
    if a.suite in ("two_batch", "all"):
        for chains in a.chains or [4000]:
            r = bench_two_batch(chains, a.steps or 4000)
            sections.append(_section(f"two_batch_gaussian, SMS-UBU, float64 ({machine})", r))
    if a.suite in ("toy", "all"):
        for preset in ("sms_ubu", "sg_baoab", "sg_em"):
            r = bench_toy((a.chains or [20_000])[0], a.steps or 2000, a.repeats, preset)
            sections.append(_section(f"paulin2025 Fig. 1 kernel vs its random numbers ({machine})", r))
            print(sections[-1], flush=True)
    if a.suite in ("integrators", "logistic", "all"):
        r = bench_logistic(100, a.lr_steps, a.repeats)
        sections.append(_section(f"logistic regression, bnnsample pipeline vs bare force ({machine})", r))
        print(sections[-1], flush=True)
    if a.suite in ("integrators", "network", "all"):
        r = bench_network(a.net_batch, a.net_steps, a.repeats)
        sections.append(_section(f"cnn_fmnist one chain, sampler step vs bare gradient ({machine})", r))
    if a.suite in ("conv", "all"):
        r = bench_conv(a.repeats, a.net_batch)
        sections.append(
            _section(f"CPU convolutions: the networks' force vs plain eager, FLOP/s vs matmul ({machine})", r)
        )
    if a.suite in ("epoch", "all"):
        from bnnsample.plumbing.determinism import deterministic_kernels

        kernels = deterministic_kernels(torch.device(a.device)) if a.cuda_kernels == "deterministic" else nullcontext()
        with kernels:
            r = bench_epoch(a.epoch_images, a.repeats, a.device, a.net_batch)
        r["CUDA kernels"] = a.cuda_kernels if a.device.startswith("cuda") else "n/a (cpu)"
        sections.append(_section(f"cnn_fmnist, one SMS-UBU epoch vs one training epoch ({machine})", r))
    if a.suite in ("fsync", "all"):
        r = bench_fsync_default()
        sections.append(_section(f"the default run, what fsync at each checkpoint costs ({machine})", r))
    if a.suite in ("recording", "all"):
        r = bench_recording(tuple(a.rec_chains), a.rec_steps, a.repeats, a.rec_draws)
        sections.append(_section(f"logistic regression, runner.run over the bare kernel loop ({machine})", r))
    if a.suite == "throughput":
        from bench_gpu import run_suite as throughput

        body = throughput(a.runs, a.steps or 20, a.repeats, a.device, a.epoch_images)
        sections.append(f"## cnn_fmnist, batched runs: training and sampling steps against the device's peak ({machine})\n\n"
                        + body)  # fmt: skip
    if a.suite == "peers":
        from bench_peers import run_suite

        body = run_suite(a.chains or [1, 10, 100, 1000, 4000], a.steps, a.repeats, a.threads, tuple(a.cells), a.device)
        sections.append(f"## logistic regression, bnnsample vs blackjax and posteriors, like for like ({machine})\n\n"
                        + body)  # fmt: skip
    cmd = "python " + " ".join(sys.argv)
    text = "\n\n".join(s.replace("\n\n", f"\n\ncommand: `{cmd}`\n\n", 1) for s in sections)
    print(text)
    if a.out:  # one current section per suite and command; the replaced ones go to bench_history.csv
        a.out.parent.mkdir(parents=True, exist_ok=True)
        update_bench_md(a.out, [s.replace("\n\n", f"\n\ncommand: `{cmd}`\n\n", 1) for s in sections])


if __name__ == "__main__":
    main()
