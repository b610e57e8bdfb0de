"""Integrators: pure step functions on chain-batched states (see base.py for the contract).

Modules by family: langevin (kinetic Langevin splittings, SGLD, SHMC leapfrog/Lie-Trotter),
noise_aware (NOGIN, mSGLD, SGHMC with noise correction), thermostats (SGNHT, AdL, eAdL,
CC-ADL), higher_order (MT3), adaptive (step-size/friction schedules: Springenberg's adaptive
SGHMC, cyclical SGHMC), metropolis (SMS-GHMC), exact (exact OU flow for linear targets).
"""

from . import adaptive, exact, higher_order, langevin, metropolis, noise_aware, thermostats  # noqa: F401 (register)
from .base import REGISTRY, Integrator, State, StepContext, get_integrator

__all__ = ["REGISTRY", "Integrator", "State", "StepContext", "get_integrator"]
