"""Registries: the pieces a run is built from, found by name.

Integrators, initial-point strategies, models, datasets and figure recipes each have one
``Registry`` ({name: entry}, in order of registration), filled by a decorator next to the
entry's definition::

    @register("gaussian_mean")
    def build_gaussian_mean(model_cfg, data, device, dtype, seed): ...

The package that owns a registry imports its modules (``import_modules``), so that their
decorators run; a new entry needs no list to be edited. Looking up a name that is not
registered raises ``UnknownName``: one line naming the kind and the allowed values.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from .plumbing.errors import UserError

T = TypeVar("T")


class UnknownName(UserError, KeyError):
    """A name no entry of a registry has. A UserError (one line for the user) that is also the
    KeyError of a dict lookup, so that callers catching KeyError keep working."""

    def __str__(self) -> str:
        return str(self.args[0])  # KeyError would quote the message


class Registry(dict[str, T], Generic[T]):
    """{name: entry} of one kind (``kind``: the config key whose value is the name, e.g. "model").

    ``registry[name]`` of a missing name raises UnknownName with ``message``, in which
    {kind}, {name} and {allowed} (the names, sorted or in order of registration) are filled,
    followed by " (did you mean X?)" where a registered name is close to the one asked for.
    ``attrs[name]`` holds the keyword arguments the entry was registered with.
    """

    def __init__(self, kind: str, *, sort: bool = True, message: str = "{kind}={name}: allowed values: {allowed}"):
        super().__init__()
        self.kind = kind
        self.sort = sort
        self.message = message
        self.attrs: dict[str, dict] = {}

    def add(self, name: str, entry: T, **attrs) -> T:
        """File ``entry`` under ``name``; a name is registered once (a second one is a bug)."""
        if name in self:
            raise ValueError(f"{self.kind}={name}: registered twice ({self[name]!r} and {entry!r})")
        self[name] = entry
        self.attrs[name] = attrs
        return entry

    def register(self, name: str, **attrs) -> Callable[[T], T]:
        """Decorator: file the decorated function or class under ``name``, with ``attrs``."""

        def deco(entry: T) -> T:
            return self.add(name, entry, **attrs)

        return deco

    def names(self) -> list[str]:
        """The registered names as error messages list them."""
        return sorted(self) if self.sort else list(self)

    def __missing__(self, name: str):
        from .plumbing.suggest import did_you_mean

        message = self.message.format(kind=self.kind, name=name, allowed=", ".join(self.names()))
        raise UnknownName(message + did_you_mean(name, self.names()))


def import_modules(package: str, names: Iterable[str]) -> None:
    """Import the modules ``names`` of ``package``, in that order, so that their decorators
    register their entries (the order of registration is the order of the registry)."""
    for name in names:
        importlib.import_module(f"{package}.{name}")


def module_names(path: Iterable[str]) -> list[str]:
    """The names of the modules in a package's ``__path__``, sorted."""
    return sorted(info.name for info in pkgutil.iter_modules(path))
