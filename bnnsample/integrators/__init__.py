"""Integrators: pure step functions on chain-batched states (see base.py for the contract)."""

from . import langevin  # noqa: F401  (registers the schemes)
from .base import REGISTRY, Integrator, State, StepContext, get_integrator

__all__ = ["REGISTRY", "Integrator", "State", "StepContext", "get_integrator"]
