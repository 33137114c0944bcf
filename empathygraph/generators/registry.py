"""Named backends of one kind (speech, avatar): the names a configuration may choose.

Each backend is a factory ``(GeneratorsConfig) -> backend``, registered under a name,
either directly (``SPEECH.register("kokoro", KokoroSpeech)``), as a lazy ``"module:attr"``
path (the built-in ones, so an unused backend's packages are never imported), or by an
installed package through an entry point in the group ``empathygraph.speech`` or
``empathygraph.avatar`` (``kokoro = "my_package.tts:KokoroSpeech"``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from empathygraph.generators.config import GeneratorsConfig

B = TypeVar("B")
Factory = Callable[["GeneratorsConfig"], B]
NONE = "none"  # the name that turns a medium off


def _load(path: str) -> Callable:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


class Backends(Generic[B]):
    """The backends of one medium, by name.

    Args:
        medium: what they render, for messages ("speech", "avatar").
        group: the entry-point group installed packages add backends through.
    """

    def __init__(self, medium: str, group: str) -> None:
        self.medium = medium
        self.group = group
        self._factories: dict[str, Factory[B] | str] = {}

    def register(self, name: str, factory: Factory[B] | str) -> None:
        """Make ``name`` a backend: a factory of ``GeneratorsConfig``, or its ``"module:attr"`` path."""
        if name == NONE:
            raise ValueError(f"'{NONE}' turns {self.medium} off; a backend cannot take that name")
        self._factories[name] = factory

    def unregister(self, name: str) -> None:
        """Forget a backend registered here (not one an installed package provides)."""
        self._factories.pop(name, None)

    def _installed(self) -> dict[str, str]:
        return {point.name: point.value for point in entry_points(group=self.group)}

    def names(self) -> list[str]:
        """Every backend name a configuration may give (``none`` included)."""
        return sorted({*self._factories, *self._installed(), NONE})

    def check(self, name: str) -> str:
        """``name`` when a backend (or ``none``) has it.

        Raises:
            ValueError: naming the backends there are.
        """
        if name not in self.names():
            raise ValueError(f"unknown {self.medium} backend '{name}' (known: {', '.join(self.names())})")
        return name

    def build(self, name: str, config: GeneratorsConfig) -> B:
        """The backend registered as ``name``, built for ``config`` (its module is imported only now).

        Raises:
            ValueError: no backend has that name (or it is ``none``).
        """
        if self.check(name) == NONE:
            raise ValueError(f"'{NONE}' is no {self.medium} backend")
        found = self._factories.get(name) or self._installed()[name]
        factory = _load(found) if isinstance(found, str) else found
        return factory(config)
