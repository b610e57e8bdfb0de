"""franzese2021 Figs. 8 and 9 (App. F.2-F.3): the appendix versions of Figs. 4 and 5 over every data set.
Fig. 8 is Fig. 4 (AKD to the oracle vs h per sampler) with finer batch sizes and the classification sets;
Fig. 9 is Fig. 5 (the generalized LIE-TROTTER's N_l sweep) with the synthetic random-trigonometric-features
set. The runs, oracle and distances are ``uci``'s; the claims are Figs. 4 and 5's, judged per data set.

Classification: the paper's sets are Ionosphere and Vehicle (run when their files are on disk); the offline
scikit-learn sets breast_cancer and wine stand in for them (2x50 softmax BNN, the same protocol). The
paper names no scalar of a classifier's predictive for its Kolmogorov distance: we take every class
probability at every test point as a marginal (``uci_runs.Result.pooled``). The synthetic set is
``trig_features`` with the linear model (App. F.1); its oracle is the paper's, exact posterior draws
(``uci_runs.exact_oracle``), at every scale.
"""

from __future__ import annotations

from dataclasses import replace

from ...figures.common import distinct, where
from ...figures.driver import SCALE, Option, names, numbers
from . import uci
from .sweeps import (
    FIG4_INTEGRATORS,
    _fig5_settings,
    _settings_text,
    _sweep,
    _sweep_options,
    fig4_outcomes,
    fig5_outcomes,
)
from .uci_runs import SYNTHETIC

FIG8, FIG9 = "franzese2021-fig8", "franzese2021-fig9"
CLASSIFICATION = ("ionosphere", "vehicle")  # the paper's (Table 2)
STAND_INS = ("breast_cancer", "wine")  # offline, in place of the paper's classification sets
ALL_SETS = (*uci.REGRESSION, *CLASSIFICATION, *STAND_INS, SYNTHETIC)


def _panel(dataset: str) -> str:
    if dataset in STAND_INS:
        return f"{dataset} (offline stand-in for the paper's classification sets)"
    return "trig_features (synthetic, linear model)" if dataset == SYNTHETIC else dataset


def per_dataset(rows: list[dict], outcomes, where_: str) -> list:
    """The (Claim, Outcome) pairs of ``outcomes(rows of one data set)`` for every data set of ``rows``,
    each claim's text prefixed by its data set, its place ``where_`` followed by the claim's own place in the
    main text (the appendix figures extend Figs. 4-5)."""
    out = []
    for ds in distinct(rows, "dataset"):
        for claim, o in outcomes(where(rows, dataset=ds)):
            out.append(
                (replace(claim, text=f"{_panel(ds)}: {claim.text}", where=f"{where_}, extending {claim.where}"), o)
            )
    return out


def _fig8_settings(s, _) -> str:
    return (_settings_text(s) + " Classification: the AKD over every test point and class probability (2x50 "
            "softmax BNN); breast_cancer and wine are offline stand-ins, not the paper's data sets.")  # fmt: skip


# quick: the classification panels at the quick protocol (burn-in time 2, the equal-time LIE-TROTTER oracle),
# the batch sizes finer than Fig. 4's; paper: every data set, the paper's batch sizes and samplers
FIG8_SCALES = {
    "quick": {"datasets": [*CLASSIFICATION, *STAND_INS], "steps": [0.005, 0.01, 0.02], "batches": [0, 32, 16, 8],
              "integrators": ["leapfrog", "lie_trotter", "aboba", "sghmc"], "oracle": "lie_trotter", "seeds": [0, 1, 2]},
    "paper": {"datasets": [*uci.REGRESSION, *CLASSIFICATION], "steps": [0.001, 0.002, 0.005, 0.01, 0.02],
              "batches": [0, 128, 64, 32, 16, 8], "integrators": list(FIG4_INTEGRATORS), "oracle": "sghmc_adaptive",
              "seeds": [0, 1, 2]},
}  # fmt: skip


def _seeds_option(options):
    """The sweep's options with the seeds of the scale (three) as the default."""
    return (*(o for o in options if o.key != "seeds"), Option("seeds", numbers(int, 0), SCALE))


FIGURE8 = _sweep(
    FIG8, ": average Kolmogorov distance to the oracle vs step size, every data set (reduced)",
    "Fig. 4 over every data set (App. F.2): classification (breast_cancer, wine offline; Ionosphere, Vehicle "
    "when on disk) and regression sets, finer batch sizes, 3 sampler seeds",
    FIG8_SCALES, _seeds_option(_sweep_options("integrators", names(tuple(FIG4_INTEGRATORS)), ALL_SETS[:-1])),
    "integrators", lambda i: {"label": FIG4_INTEGRATORS[i], "integrator": i},
    "franzese2021 Fig. 8 (reduced): AKD to the oracle vs h", _fig8_settings,
    lambda rows, s, _: per_dataset(rows, lambda r: fig4_outcomes(r, s, history=False), "App. F.3, Fig. 8"))  # fmt: skip


def _fig9_settings(s, nls) -> str:
    return (_fig5_settings(s, nls) + " trig_features: the linear model on 256 random trigonometric features (App. "
            "F.1; conf/dataset/trig_features.yaml), its oracle the paper's: exact posterior draws, as many per run "
            "as the oracle's above (until 2026-11-29 the equal-time LIE-TROTTER oracle in its place); "
            "classification: the AKD over every test point and class probability.")  # fmt: skip


FIG9_SCALES = {
    "quick": {"datasets": [SYNTHETIC, *STAND_INS], "steps": [0.005, 0.01, 0.02], "batches": [0, 32],
              "n_leapfrog": [1, 5, 25], "oracle": "lie_trotter", "seeds": [0, 1, 2]},
    "paper": {"datasets": [SYNTHETIC, *uci.REGRESSION, *CLASSIFICATION], "steps": [0.001, 0.002, 0.005, 0.01, 0.02],
              "batches": [0, 64, 16], "n_leapfrog": [1, 10, 30, 100], "oracle": "sghmc_adaptive", "seeds": [0, 1, 2]},
}  # fmt: skip


FIGURE9 = _sweep(
    FIG9, ": generalized LIE-TROTTER, N_l sweep, every data set (reduced)",
    "Fig. 5 over every data set (App. F.3): the synthetic random-trig-features set, classification and "
    "regression sets, 3 sampler seeds",
    FIG9_SCALES, _seeds_option(_sweep_options("n_leapfrog", numbers(int, 1), ALL_SETS)), "n_leapfrog",
    lambda n: {"label": f"N_l={n}", "integrator": "generalized_lie_trotter", "n_leapfrog": n},
    "franzese2021 Fig. 9 (reduced): generalized LIE-TROTTER, N_l sweep", _fig9_settings,
    lambda rows, s, nls: per_dataset(rows, lambda r: fig5_outcomes(r, s, nls), "App. F.3, Fig. 9"))  # fmt: skip
