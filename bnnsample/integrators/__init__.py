"""Integrators: pure step functions on chain-batched states (see base.py for the contract).

Modules by family: langevin (kinetic Langevin splittings, SGLD, SHMC leapfrog/Lie-Trotter),
noise_aware (NOGIN, mSGLD, SGHMC with noise correction), thermostats (SGNHT, AdL, eAdL,
CC-ADL), higher_order (MT3), adaptive (step-size/friction schedules: Springenberg's adaptive
SGHMC, cyclical SGHMC), metropolis (SMS-GHMC), exact (exact OU flow for linear targets).
Every module of this package is imported here, so a class decorated with ``@register`` in a
new module is known to ``run``, sweeps and the recipes without being named anywhere else.
"""

import importlib
import pkgutil

from .base import REGISTRY, Integrator, State, StepContext, get_integrator

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    importlib.import_module(f"{__name__}.{_info.name}")

__all__ = ["REGISTRY", "Integrator", "State", "StepContext", "get_integrator"]
