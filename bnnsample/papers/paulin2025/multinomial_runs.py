"""paulin2025 §3.4's Bayesian multinomial logistic regression (Figure 2, App. D.1; the authors'
notebook multinomial_SMS_UBU.ipynb, github.com/paulindani/SMS_Kinetic_Langevin): the data
(Fashion-MNIST, or the offline stand-in mnist5k), the potential (softmax regression with prior
precision lambda = 50 on the weights), the paper's step grid scaled to the data's size, and one
sampler's coupled multilevel runs over it (``analysis.multilevel``) at gamma = sqrt(50), batch
200. The figure recipe ``fig2`` runs them and judges its claims.
"""

from __future__ import annotations

import math

PAPER_HS = (2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4, 6.25e-5)
PAPER_N = 60_000
GAMMA = math.sqrt(50.0)
LAMBDA = 50.0
BATCH = 200
# name -> (registered integrator, batching)
SAMPLERS = {
    "SMS-UBU": ("ubu", "sms"),
    "SG-UBU": ("ubu", "iid"),
    "SMS-BAOAB": ("baoab", "sms"),
    "SG-BAOAB": ("baoab", "iid"),
    "SG-HMC": ("em", "iid"),
}


def load_problem(data_dir: str | None):
    """(Data, which) with which = 'fmnist' or 'mnist5k (stand-in: ...)'."""
    from omegaconf import OmegaConf

    from ...data import LOADERS
    from ...plumbing.errors import DataMissingError

    try:
        data = LOADERS["fmnist"](OmegaConf.create({"name": "fmnist", "data_dir": data_dir, "download": False}))
        which = "fmnist"
    except DataMissingError:
        data = LOADERS["mnist5k"](OmegaConf.create({"name": "mnist5k", "n_test": 1000, "split_seed": 0}))
        which = f"mnist5k (offline stand-in: no Fashion-MNIST files in data_dir={data_dir} or the system folders)"
    return data, which


def problem_potential(data, dtype):
    from omegaconf import OmegaConf

    from ...models.multinomial import build_multinomial_logistic

    return build_multinomial_logistic(OmegaConf.create({"prior_precision": LAMBDA}), data, "cpu", dtype, 0)


def step_grid(n_data: int, levels: int) -> tuple[float, list[float]]:
    factor = 2.0 ** round(math.log2(math.sqrt(PAPER_N / n_data)))
    return factor, [h * factor for h in PAPER_HS[:levels]]


def run_sampler(name, pot, x_star, hs, settings, seed, on_level=None):
    """Telescoped bias of one sampler over the step grid (coupled levels)."""

    from ...analysis.multilevel import multilevel_bias

    integ, batching = SAMPLERS[name]
    T, C = settings["time"], settings["chains"]
    x0 = x_star.expand(C, -1).clone()
    return multilevel_bias(
        integ, pot, x0, hs=hs, gamma=GAMMA, batching=batching, batch_size=BATCH,
        steps=lambda h: round(T / h), burn_in=lambda h: round(T / h / 5),
        test_fn=pot.predict, seed=seed, n_chunks=settings["chunks"],
        record_every=lambda h: max(1, round(0.02 / h)), on_level=on_level,
    )  # fmt: skip
