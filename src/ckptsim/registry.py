"""Registries of plug-ins by name (schedulers, components, checkpoint-interval policies): one
class decorator to register, the sorted names, and a lookup whose error names the accepted
ones. The built-in plug-ins are imported on first use by the registry's `load` function.

Wherever a registry takes a name it also takes a plug-in from outside the package
(`ckptsim.plugins`): a reference ``path/to/file.py:Class`` or ``package.module:Class``, the
name of an installed entry point, or (from Python) the class itself."""

from __future__ import annotations

import importlib.util
import pkgutil
import re
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from ckptsim import plugins
from ckptsim.errors import ConfigError, did_you_mean, shown
from ckptsim.plugin_shape import check_class

T = TypeVar("T", bound=type)

#: The registries by kind ("scheduler", "component", "checkpoint policy").
REGISTRIES: dict[str, Registry[Any]] = {}


def registering_modules(package: str, decorator: str,
                        paths: Iterable[str] | None = None) -> list[str]:
    """The modules of `package` and of its subpackages, by name, whose source has a line
    beginning with ``@<decorator>`` (the class decorator that registers a plug-in), sorted.

    Only the sources are read: nothing is imported, so that helper modules (and the numba
    kernels of conservative backfilling) cost nothing here.  `paths`: the package's folders
    (default: found from its name, importing at most the package itself).  A module whose
    source cannot be read (not a plain file) is listed, to be imported.
    """
    if paths is None:
        spec = importlib.util.find_spec(package)
        paths = list(spec.submodule_search_locations or ()) if spec is not None else []
    marker = re.compile(rb"^@" + re.escape(decorator.encode()) + rb"\b", re.MULTILINE)
    out: list[str] = []
    for info in sorted(pkgutil.iter_modules(list(paths)), key=lambda m: m.name):
        name = f"{package}.{info.name}"
        spec = info.module_finder.find_spec(name, None)  # type: ignore[call-arg]
        if spec is None:
            continue
        if info.ispkg:
            out += registering_modules(name, decorator, spec.submodule_search_locations or ())
            continue
        try:
            with open(str(spec.origin), "rb") as f:
                source = f.read()
        except (OSError, TypeError):
            out.append(name)
            continue
        if str(spec.origin).endswith(".py") and not marker.search(source):
            continue
        out.append(name)
    return out


def package_loader(package: str, decorator: str) -> Callable[[], None]:
    """A registry's `load` function: imports, once per process, the modules of `package`
    that register a plug-in with `@<decorator>` (`registering_modules`), which registers the
    built-ins; a new built-in is one file in the package."""
    done = False

    def load() -> None:
        nonlocal done
        if not done:
            for name in registering_modules(package, decorator):
                __import__(name)  # as an import statement (`python -X importtime` shows it)
            done = True
    return load


class _Classes(dict):  # type: ignore[type-arg]
    """The registered classes by name; an installed entry point's name is looked up too
    (`classes[name]` loads it), so that code listing `names()` finds every class."""

    def __init__(self, registry: Registry[Any]) -> None:
        super().__init__()
        self.registry = registry

    def __missing__(self, name: str) -> Any:
        if isinstance(name, str) and name in plugins.entry_points(self.registry.kind):
            return self.registry.get(name)
        raise KeyError(name)


class Registry(Generic[T]):
    """Plug-in classes by their `name` attribute. `kind` names them in messages ("scheduler");
    `key` is the key of the error for an unknown name; `load` imports the built-ins; `base`
    is the class a plug-in must derive from."""

    def __init__(self, kind: str, key: str, load: Callable[[], Any], *,
                 base: type | None = None) -> None:
        self.kind = kind
        self.key = key
        self._load = load
        self.base = base
        self.classes: dict[str, T] = _Classes(self)
        #: Plug-ins loaded from outside the package, by their own names (the last one
        #: loaded under a name), so that a run's component names find their classes.
        self.plugins: dict[str, T] = {}
        #: Installed entry points that failed to load (`loadable`): name -> the error.
        self.broken: dict[str, str] = {}
        REGISTRIES[kind] = self

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
        """The built-in names and those of the installed entry points."""
        self._load()
        return sorted(set(self.classes) | set(plugins.entry_points(self.kind)))

    def loadable(self) -> dict[str, T]:
        """The class of every name `names()` gives, by that name, for code that looks at all
        of them (the metrics a spec may name, the lists of policies): an installed entry
        point that does not load (its package's import error, a class of another kind) is
        left out, with its error in `broken`, so that it stops only what names it."""
        out: dict[str, T] = {}
        for name in self.names():
            try:
                out[name] = self.classes[name]
            except ConfigError as exc:
                self.broken[name] = exc.message
        return out

    def get(self, name: str | T) -> T:
        """The class of a name, a plug-in reference or entry point, or a class (checked)."""
        if isinstance(name, type) or not isinstance(name, str):
            self._load()
            return self._adopt(name, getattr(name, "__name__", repr(name)))
        cls = self.classes.get(name)
        if cls is not None:
            return cls
        self._load()
        cls = self.classes.get(name)
        if cls is not None:
            return cls
        if name in plugins.entry_points(self.kind):
            found = plugins.load_entry_point(self.kind, name, self.key)
            return self._adopt(found, f"{name} (entry point of {plugins.GROUPS[self.kind]})",
                               default=name)
        ref = plugins.split_reference(name, self.classes)
        if ref is not None and not ref[1].strip():
            # Loaded again from the file each time it changes (a relative path names another
            # file in another folder: references are never cached here).
            return self._adopt(plugins.load_reference(ref[0], self.key, self.base, self.kind),
                               ref[0])
        cls = self.plugins.get(name)  # the name of a plug-in loaded before
        if cls is not None:
            return cls
        if ref is not None:  # a reference with options after the class
            hint = (f"; {ref[0]} is named without options here: give its parameters apart "
                    "(--set KEY=VALUE for a scheduler, params in a spec)")
        elif name.endswith(".py") or "/" in name:
            hint = "; a plug-in file is named with its class, FILE.py:Class (docs/plugins.md)"
        else:
            hint = "; or a plug-in: FILE.py:Class, module:Class or an entry point's name"
        raise ConfigError(self.key, f"unknown {self.kind} {shown(name)}"
                                    f"{did_you_mean(name, self.names())}; accepted: "
                                    f"{', '.join(self.names())}{hint}")

    def known(self, name: str) -> bool:
        """Whether `name` is a registered or installed name, a loaded plug-in's or a plug-in
        reference (which may still fail to load)."""
        self._load()
        if name in self.classes or name in self.plugins or name in plugins.entry_points(
                self.kind):
            return True
        ref = plugins.split_reference(name, self.classes)
        return ref is not None and not ref[1].strip()

    def split(self, text: str) -> tuple[str, str]:
        """A ``NAME[:key=value,...]`` string's name (or plug-in reference) and options."""
        self._load()
        ref = plugins.split_reference(text, self.classes)
        if ref is not None:
            return ref
        name, _, rest = text.partition(":")
        return name.strip(), rest

    def is_plugin(self, cls: type) -> bool:
        """Whether a class comes from outside the package (not a built-in)."""
        return plugins.source_sha256(cls) is not None

    def identity(self, name: str | T) -> str:
        """What run ids hash of a choice: a built-in's name as it is; for a plug-in, its name
        and the SHA-256 of the file that defines it (editing the file changes the id)."""
        cls = self.get(name)
        digest = plugins.source_sha256(cls)
        if digest is None:
            return name if isinstance(name, str) else cls.name
        return f"{cls.name}@sha256:{digest}"

    def _adopt(self, obj: Any, what: str, default: str = "") -> T:
        cls: T = check_class(obj, self.base, self.kind, self.key, what, self.classes,
                                     default)
        if self.classes.get(cls.name) is not cls:
            self.plugins[cls.name] = cls
        return cls
