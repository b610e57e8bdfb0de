"""sekkat2023-fig1: histograms of the rescaled gradient noise Z of eq. 14 for the Gaussian model of §2.5.1,
without replacement, several n, against N(0, 1) (Fig. 1)."""

from __future__ import annotations

import math
from pathlib import Path

from ...figures.claims import Claims, Outcome
from ...figures.driver import Figure, Invocation, Option, integer, register_figure
from ...plotting import pyplot, save_figure
from .chains import target
from .noise import (
    CLOSE,
    FAR,
    as_check,
    centred,
    close_at,
    far_at,
    identity_covariance,
    noise_rows,
    plot_marginals,
    summaries,
)
from .shared import HEADING, TITLE

ID = "sekkat2023-fig1"
THETA = (0.5,)  # the caption's theta (Z does not depend on theta for this model: Sigma_x is constant, eq. 40)
FIG1 = {
    "quick": {"n": (1, 2, 5, 20), "draws": 20_000, "bins": 80, "lim": 4.0},
    "paper": {"n": (1, 2, 5, 10, 20, 50), "draws": 1_000_000, "bins": 80, "lim": 4.0},
}  # fmt: skip


def fig1_rows(inv: Invocation, bar) -> list[dict]:
    pot = target(["dataset=gaussian_mean", "dataset.variant=sekkat"])
    st = inv.st
    return noise_rows(pot, THETA, st["n"], st["draws"], inv.opt["seed"], st["bins"], st["lim"], bar)


FIG1_CLAIMS = Claims("statement")


@FIG1_CLAIMS.rule("centred", "Z is centred", "§2.2, eq. 14, Fig. 1", "mean 0 (by construction)", source="check",
    tolerance="|mean| within 4 s.e. at every n", method="Monte Carlo mean of the draws of Z at theta = 0.5")  # fmt: skip
def _centred(rows, st):
    return as_check(centred(rows))


@FIG1_CLAIMS.rule("variance", "Z has unit variance", "§2.2, eq. 14, Fig. 1", "variance 1 (by construction)", source="check",
    tolerance="|variance - 1| within 4 s.e. at every n",
    method="Monte Carlo variance, s.e. sqrt((m4 - var^2) / draws)")  # fmt: skip
def _variance(rows, st):
    return as_check(identity_covariance(rows))


@FIG1_CLAIMS.rule("far", "Z is far from Gaussian for small n", "§2.2, Fig. 1",
    "far from Gaussian for small values of n (Figs. 1-2)",
    tolerance=f"L1 distance of the histogram from the N(0, 1) density above {FAR} (total variation above "
              f"{FAR / 2}) beyond 2 s.e. at n = 1 (the paper names no n; the reason says whether n = 2 is already "
              f"within our 'close' threshold)",
    method="eq. 44's L1 on the plotted bins (80 on [-4, 4]); s.e. from 4 disjoint parts of the draws")  # fmt: skip
def _far(rows, st):
    return _with_next_n(far_at(rows, (1,)), rows)


def _with_next_n(out: Outcome, rows) -> Outcome:
    """``out`` (the test at n = 1) with what n = 2 shows in its reason: whether it is already 'close'."""
    r = next((r for r in summaries(rows) if r["n"] == 2), None)
    if r is None:
        return out
    n_data = round(
        (1 + math.sqrt(1 + 4 * next(q["eps"] for q in summaries(rows) if q["n"] == 1))) / 2
    )  # eps(1) = N(N-1)
    gap = r["l1"] - r["l1_floor"] - 2 * r["l1_se"]
    if close_at(rows, (2,)).verdict == "reproduced":
        why = (f"n = 2 is already within our 'close' threshold (L1 {r['l1']:.3f}, floor {r['l1_floor']:.3f}: L1 - "
               f"floor - 2 s.e. = {gap:.3f} < {CLOSE}), so at N = {n_data} the Gaussian model is far from Gaussian "
               f"at n = 1 only, where Z takes the {n_data} values of the data (its atoms)")  # fmt: skip
    else:
        why = f"n = 2 is not yet close (L1 - floor - 2 s.e. = {gap:.3f} >= {CLOSE})"
    return Outcome(out.verdict, out.ours, "; ".join(p for p in (out.why, why) if p))


@FIG1_CLAIMS.rule("larger_n", "Z approaches N(0, 1) as n grows (central limit theorem, n << N)", "§2.2, Fig. 1",
    "close to Gaussian for n and N large enough, n << N",
    tolerance=f"L1 less its noise floor below {CLOSE} (within 2 s.e.) at every n >= 5 run",
    method="as above; the noise floor is the L1 of as many N(0, 1) draws on the same bins")  # fmt: skip
def _larger_n(rows, st):
    return close_at(rows, [n for n in st["n"] if n >= 5])


def plot(rows, inv: Invocation, png: Path) -> Path:
    ns = inv.st["n"]
    fig, axes = pyplot().subplots(1, len(ns), figsize=(3.2 * len(ns), 3), squeeze=False)
    plot_marginals(axes[0], rows, 1, inv.st["lim"], "Z")
    return save_figure(fig, png, title="sekkat2023 Fig. 1: Z of eq. 14, Gaussian model, without replacement")


def settings(rows, inv: Invocation) -> str:
    st, s = inv.st, summaries(rows)
    return (f"Gaussian model §2.5.1 (dataset gaussian_mean variant sekkat: N = 100 points drawn from N(0, 1), "
            f"data seed 0; sigma_theta = sigma_x = 1), Z of eq. 14 at theta = {THETA[0]} from {st['draws']} "
            f"independent minibatches without replacement (the project's `iid_wor` schedule) per n in "
            f"{list(st['n'])}, eps(n) = N (N - n) / n from {s[0]['eps']:g} to {s[-1]['eps']:g}; histograms on "
            f"{st['bins']} bins over [-{st['lim']:g}, {st['lim']:g}], seed {inv.opt['seed']}. The paper does not "
            "state its n, its number of draws or its bins; its data set is unseeded. For this model Z does not "
            "depend on theta and at n = 1 its law is the standardised empirical law of the N data points (N "
            "atoms): the distance from N(0, 1) at small n is the data's discreteness, measured on these bins.")  # fmt: skip


FIGURE = register_figure(Figure(
    ID, TITLE, "sekkat2023 Fig. 1: histograms of the rescaled gradient noise Z (eq. 14), Gaussian model", FIG1,
    rows=fig1_rows, outcomes=lambda rows, inv: FIG1_CLAIMS.outcomes(rows, inv.st), settings=settings,
    cells=lambda inv: len(inv.st["n"]), plot=plot,
    tables=lambda rows: {"fig1.csv": summaries(rows), "fig1_hist.csv": [r for r in rows if r["kind"] == "hist"]},
    png="fig1.png", options=(Option("seed", integer(0), 0),), heading=HEADING))  # fmt: skip
