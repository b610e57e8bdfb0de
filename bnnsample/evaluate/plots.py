"""Plots of one run: marginals against the exact density, traces, reliability diagrams and
the standard-training vs SWA vs Bayesian-ensemble comparison."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from scipy.stats import norm

from ..plotting import pyplot, save_figure
from . import metrics as M

plt = pyplot()

ORDER = ("standard", "swa", "bayes")
LABELS = {"standard": "standard training", "swa": "SWA", "bayes": "Bayesian ensemble"}


def plot_marginal(path: Path, draws: np.ndarray, exact: tuple[float, float] | None, title: str) -> None:
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.hist(draws.reshape(-1), bins=100, density=True, alpha=0.6, label="samples")
    if exact is not None:
        mu, sd = exact
        grid = np.linspace(mu - 5 * sd, mu + 5 * sd, 400)
        ax.plot(grid, norm.pdf(grid, mu, sd), "k-", lw=1.5, label=f"exact N({mu:.4g}, {sd**2:.4g})")
    ax.set(xlabel="x", ylabel="density")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    save_figure(fig, path)


# per-draw series whose value at the target law is 1 (unit temperature): their panels get a line at 1
UNIT_LEVEL = ("kinetic_temperature", "configurational_temperature", "configurational_temperature_virial")
MAX_CHAINS = 4  # chains drawn per panel: more overlaid lines hide each other


def plot_traces(path: Path, series: dict[str, np.ndarray], max_chains: int = MAX_CHAINS, title: str = "") -> None:
    """One panel per series (chains, draws) against the kept draw, the first max_chains chains
    (the legend says how many of how many), a chain legend on the first panel, and a dashed line
    at 1 on the panels of temperatures (UNIT_LEVEL), their value at the target law."""
    fig, axes = plt.subplots(len(series), 1, figsize=(6.5, 2.2 * len(series) + 0.4), squeeze=False)
    total = max((arr.shape[0] for arr in series.values()), default=0)
    for ax, (name, arr) in zip(axes[:, 0], series.items()):
        for c in range(min(arr.shape[0], max_chains)):
            ax.plot(arr[c], lw=0.8, label=f"chain {c}")
        if name in UNIT_LEVEL:
            ax.axhline(1.0, color="k", ls="--", lw=0.8, zorder=0)
        ax.set(ylabel=name)
    first = axes[0, 0]
    if first.lines:
        more = f" (first {max_chains} of {total})" if total > max_chains else ""
        handles = [ln for ln in first.lines if ln.get_label().startswith("chain ")]
        first.legend(handles=handles, fontsize=7, ncol=min(4, len(handles)), title=f"kept chains{more}",
                     title_fontsize=7)  # fmt: skip
    axes[-1, 0].set_xlabel("kept draw")
    if title:
        fig.suptitle(title, fontsize=10)
    save_figure(fig, path)


def plot_reliability(path: Path, ensembles: dict[str, np.ndarray], y: np.ndarray, n_bins: int = 15,
                     title: str = "") -> None:  # fmt: skip
    """Accuracy against confidence of the top label in n_bins equal bins (top panel), and below
    it the number of test points in each bin, so that a point resting on few predictions shows."""
    fig, (ax, cnt) = plt.subplots(2, 1, figsize=(4.5, 6), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    ax.plot([0, 1], [0, 1], "k:", lw=1)
    edges = np.linspace(0, 1, n_bins + 1)
    for i, name in enumerate(n for n in ORDER if n in ensembles):
        p = ensembles[name]
        conf, correct = p.max(1), (p.argmax(1) == y)
        b = np.clip(np.digitize(conf, edges[1:-1], right=True), 0, n_bins - 1)
        xs = [conf[b == k].mean() for k in range(n_bins) if (b == k).any()]
        ys = [correct[b == k].mean() for k in range(n_bins) if (b == k).any()]
        ax.plot(xs, ys, "o-", ms=3, color=f"C{i}", label=LABELS[name])
        cnt.stairs(np.bincount(b, minlength=n_bins), edges, color=f"C{i}", label=LABELS[name])
    ax.set(ylabel="accuracy", title="reliability (top label)" + (f"\n{title}" if title else ""))
    ax.legend(fontsize=8)
    cnt.set(xlabel="confidence", ylabel="test points per bin", yscale="log")
    save_figure(fig, path)


def plot_ensembles(path: Path, ensembles: dict[str, np.ndarray], y: np.ndarray, store=None, keep=None) -> None:
    """Metrics against ensemble size with error bars (evaluate.ensembles: the runs cut into
    disjoint ensembles of 1, 2, 4, ... runs) when the run has >= 2 kept chains; otherwise the
    three predictives side by side."""
    if store is not None and keep is not None and keep.sum() >= 2:
        from .ensembles import ensemble_table
        from .ensembles import plot_ensembles as against_size

        table = ensemble_table(store)
        if not table.empty:
            against_size(table, path, title="standard training vs SWA vs Bayesian: metric against ensemble size")
            return
    names = [n for n in ORDER if n in ensembles]
    vals = {n: M.classification_metrics(ensembles[n].astype(float), y) for n in names}
    keys = ("accuracy", "nll", "ace", "rps")
    fig, axes = plt.subplots(1, len(keys), figsize=(3 * len(keys), 3))
    for ax, k in zip(axes, keys):
        ax.bar(range(len(names)), [vals[n][k] for n in names], color=[f"C{i}" for i in range(len(names))])
        ax.set_xticks(range(len(names)), [LABELS[n] for n in names], rotation=25, fontsize=7)
        ax.set(title=k, ylabel=k)
    save_figure(fig, path)


def run_label(store) -> str:
    """What a plot of one run names: dataset, integrator with its batching, step size, chains."""
    a = store.attrs
    return (f"{a.get('dataset', '?')}: {a.get('integrator', '?')} ({a.get('batching', '?')} batches)\n"
            f"h = {float(a.get('step_size', float('nan'))):g}, {int(a.get('chains', 0))} chains")  # fmt: skip


def plot_run(out: Path, store, keep: np.ndarray, ensembles: dict, exact) -> None:
    out.mkdir(parents=True, exist_ok=True)
    label = run_label(store)
    # a network's weights are not plotted; of the others only the first coordinates are read
    theta = store.theta(keep, coords=slice(0, 3)) if (store.theta_dim or 0) <= 100 else None
    if theta is not None and theta.shape[1] and keep.any():
        mx = None if exact is None else (float(exact[0][0]), math.sqrt(float(exact[1][0, 0])))
        plot_marginal(out / "marginal_theta0.png", theta[:, :, 0], mx, f"marginal of theta[0]\n{label}")
        # the diagnostics' traces are in diagnostics.png (evaluate.diagnostics); here theta only
        traces = {f"theta[{j}]": theta[:, :, j] for j in range(min(theta.shape[2], 3))}
        plot_traces(out / "traces.png", traces, title=f"traces of the first coordinates: {label}")
    y = store.array("targets")
    if ensembles and y is not None:
        plot_reliability(out / "reliability.png", ensembles, y, title=label)
        plot_ensembles(out / "ensembles.png", ensembles, y, store, keep)
