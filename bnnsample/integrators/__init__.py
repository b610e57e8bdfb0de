"""Integrators: pure step functions on chain-batched states (see base.py for the contract).

Modules by family: langevin (kinetic Langevin splittings, SGLD, SHMC leapfrog/Lie-Trotter),
noise_aware (NOGIN, mSGLD, SGHMC with noise correction), thermostats (SGNHT, AdL, eAdL,
CC-ADL), higher_order (MT3), adaptive (step-size/friction schedules: Springenberg's adaptive
SGHMC, cyclical SGHMC), metropolis (SMS-GHMC), exact (exact OU flow for linear targets).
"""

import importlib

from .base import REGISTRY, Integrator, State, StepContext, get_integrator

for _family in ("langevin", "noise_aware", "thermostats", "higher_order", "adaptive", "metropolis", "exact"):
    try:  # each module registers its schemes on import
        importlib.import_module(f"{__name__}.{_family}")
    except ModuleNotFoundError as _e:
        if _e.name != f"{__name__}.{_family}":
            raise

__all__ = ["REGISTRY", "Integrator", "State", "StepContext", "get_integrator"]
