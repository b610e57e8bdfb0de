"""Plots of one run: marginals against the exact density, traces, reliability diagrams and
the standard-training vs SWA vs Bayesian-ensemble comparison."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.stats import norm  # noqa: E402

from .evaluate import metrics as M  # noqa: E402

ORDER = ("standard", "swa", "bayes")
LABELS = {"standard": "standard training", "swa": "SWA", "bayes": "Bayesian ensemble"}


def _save(fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_marginal(path: Path, draws: np.ndarray, exact: tuple[float, float] | None, title: str) -> None:
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.hist(draws.reshape(-1), bins=100, density=True, alpha=0.6, label="samples")
    if exact is not None:
        mu, sd = exact
        grid = np.linspace(mu - 5 * sd, mu + 5 * sd, 400)
        ax.plot(grid, norm.pdf(grid, mu, sd), "k-", lw=1.5, label=f"exact N({mu:.4g}, {sd**2:.4g})")
    ax.set(title=title, xlabel="x", ylabel="density")
    ax.legend(fontsize=8)
    _save(fig, path)


def plot_traces(path: Path, series: dict[str, np.ndarray], max_chains: int = 8) -> None:
    fig, axes = plt.subplots(len(series), 1, figsize=(6, 2.2 * len(series)), squeeze=False)
    for ax, (name, arr) in zip(axes[:, 0], series.items()):
        for c in range(min(arr.shape[0], max_chains)):
            ax.plot(arr[c], lw=0.8)
        ax.set(ylabel=name)
    axes[-1, 0].set_xlabel("draw")
    _save(fig, path)


def plot_reliability(path: Path, ensembles: dict[str, np.ndarray], y: np.ndarray, n_bins: int = 15) -> None:
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.plot([0, 1], [0, 1], "k:", lw=1)
    edges = np.linspace(0, 1, n_bins + 1)
    for name in [n for n in ORDER if n in ensembles]:
        p = ensembles[name]
        conf, correct = p.max(1), (p.argmax(1) == y)
        b = np.clip(np.digitize(conf, edges[1:-1], right=True), 0, n_bins - 1)
        xs = [conf[b == k].mean() for k in range(n_bins) if (b == k).any()]
        ys = [correct[b == k].mean() for k in range(n_bins) if (b == k).any()]
        ax.plot(xs, ys, "o-", ms=3, label=LABELS[name])
    ax.set(xlabel="confidence", ylabel="accuracy", title="reliability (top label)")
    ax.legend(fontsize=8)
    _save(fig, path)


def plot_ensembles(path: Path, ensembles: dict[str, np.ndarray], y: np.ndarray) -> None:
    names = [n for n in ORDER if n in ensembles]
    vals = {n: M.classification_metrics(ensembles[n].astype(float), y) for n in names}
    keys = ("accuracy", "nll", "ace", "rps")
    fig, axes = plt.subplots(1, len(keys), figsize=(3 * len(keys), 3))
    for ax, k in zip(axes, keys):
        ax.bar(range(len(names)), [vals[n][k] for n in names], color=[f"C{i}" for i in range(len(names))])
        ax.set_xticks(range(len(names)), [LABELS[n] for n in names], rotation=25, fontsize=7)
        ax.set_title(k)
    _save(fig, path)


def plot_run(out: Path, store, keep: np.ndarray, ensembles: dict, exact) -> None:
    out.mkdir(parents=True, exist_ok=True)
    theta = store.theta() if (store.theta_dim or 0) <= 100 else None  # not a network's weights
    diags = {k: v[keep] for k, v in store.diagnostics().items()}
    if theta is not None and theta.shape[1] and keep.any():
        theta = theta[keep]
        mx = None if exact is None else (float(exact[0][0]), math.sqrt(float(exact[1][0, 0])))
        plot_marginal(out / "marginal_theta0.png", theta[:, :, 0], mx, "marginal of theta[0]")
        diags = {"theta[0]": theta[:, :, 0], **diags}
    if diags and keep.any() and store.n_draws:
        plot_traces(out / "traces.png", diags)
    y = store.array("targets")
    if ensembles and y is not None:
        plot_reliability(out / "reliability.png", ensembles, y)
        plot_ensembles(out / "ensembles.png", ensembles, y)
