"""Integrators: pure step functions on chain-batched states (see base.py for the contract).

Modules by family: langevin (kinetic Langevin splittings, SGLD, SHMC leapfrog/Lie-Trotter),
noise_aware (NOGIN, mSGLD, SGHMC with noise correction), thermostats (SGNHT, AdL, eAdL,
CC-ADL), higher_order (MT3), adaptive (step-size/friction schedules: Springenberg's adaptive
SGHMC, cyclical SGHMC), metropolis (SMS-GHMC), exact (exact OU flow for linear targets).
Every module of this package is imported here, so a class decorated with ``@register`` in a
new module is known to ``run``, sweeps and the recipes without being named anywhere else.
"""

from ..registry import import_modules, module_names
from .base import REGISTRY, Integrator, State, StepContext, get_integrator

import_modules(__name__, module_names(__path__))

__all__ = ["REGISTRY", "Integrator", "State", "StepContext", "get_integrator"]
