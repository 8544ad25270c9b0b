"""Registries of plug-ins by name (schedulers, components, checkpoint-interval policies): one
class decorator to register, the sorted names, and a lookup whose error names the accepted
ones. The built-in plug-ins are imported on first use by the registry's `load` function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ckptsim.errors import ConfigError

T = TypeVar("T", bound=type)


class Registry(Generic[T]):
    """Plug-in classes by their `name` attribute. `kind` names them in messages ("scheduler");
    `key` is the key of the error for an unknown name; `load` imports the built-ins."""

    def __init__(self, kind: str, key: str, load: Callable[[], Any]) -> None:
        self.kind = kind
        self.key = key
        self._load = load
        self.classes: dict[str, T] = {}

    def register(self, cls: T) -> T:
        """Class decorator: make `cls` available under `cls.name`."""
        name = getattr(cls, "name", "")
        if not name:
            raise ValueError(f"{cls.__name__} has no name")
        if name in self.classes and self.classes[name] is not cls:
            raise ValueError(f"{self.kind} name {name!r} is registered twice")
        self.classes[name] = cls
        return cls

    def names(self) -> list[str]:
        self._load()
        return sorted(self.classes)

    def get(self, name: str) -> T:
        self._load()
        try:
            return self.classes[name]
        except KeyError:
            raise ConfigError(self.key, f"unknown {self.kind} {name!r}; accepted: "
                                        f"{', '.join(sorted(self.classes))}") from None
