"""Plug-ins from outside the package: schedulers, components and checkpoint policies that a
user writes in a file of their own, or that an installed package provides.

A registry (`ckptsim.registry.Registry`) accepts, wherever it accepts a name:

* a **reference** ``path/to/file.py:ClassName`` (the file is imported by path; a relative
  path resolves against the current folder, or, while an experiment spec is read, against
  the spec's folder first: `files_relative_to`) or ``package.module:ClassName`` (imported from
  ``sys.path``).  In option strings (``--component NAME:key=value,...``, a checkpoint part
  ``NAME:key=value,...``) the reference takes the place of NAME: ``meter.py:Meter:period=60``.
  A reference is recognised when the text before the first ``:`` is not a registered name,
  ends in ``.py``, holds a ``/``, or is a (dotted) module name, and the text after it is a
  Python identifier followed by the end of the string or by ``:``.  Options (``key=value``)
  always hold ``=``, so the two never read alike.  A path holding ``:``, ``=``, ``,`` or
  ``+`` cannot be referred to;
* an **entry point** of an installed distribution, in the group ``ckptsim.schedulers``,
  ``ckptsim.components`` or ``ckptsim.checkpoint_policies``: its name is the plug-in's name;
* in Python, **the class itself**.

The class is checked: a subclass of the registry's base class, whose `name` (its own, not a
built-in's) names it; a class without one is named after its Python class name.  Any problem
is one `ConfigError` line naming the reference (a missing file or class, the file and line of
an error raised while importing it).

`source_sha256(cls)` is the SHA-256 of the file that defines a plug-in (run ids hash it, so
that editing a plug-in reruns its runs); built-ins (modules under ``ckptsim.``) have none.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
import traceback
from collections.abc import Container, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError

#: Entry-point groups by registry kind.
GROUPS = {"scheduler": "ckptsim.schedulers", "component": "ckptsim.components",
          "checkpoint policy": "ckptsim.checkpoint_policies"}

_REF = re.compile(r"^\s*(?P<module>[^:=,+]+?)\s*:\s*(?P<cls>[A-Za-z_]\w*)\s*(?::|$)")
_MODULE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_LOADED: dict[tuple[str, str], Any] = {}  # (module or file state, class) -> the class
_ENTRY_POINTS: dict[str, dict[str, Any]] = {}  # group -> name -> EntryPoint
#: Modules imported from beside a plug-in file: module name -> that file's folder.
_BESIDE: dict[str, Path] = {}


def split_reference(text: str, known: Container[str] = ()) -> tuple[str, str] | None:
    """(reference ``module:Class``, the rest after its ``:``) when `text` starts with a
    reference, else None (`known`: the registered names, never a module)."""
    m = _REF.match(text)
    if m is None:
        return None
    module = m.group("module")
    if module in known or not (is_path(module) or _MODULE.match(module)):
        return None
    reference = f"{module}:{m.group('cls')}"
    rest = text[m.end():] if text[m.end() - 1:m.end()] == ":" else ""
    return reference, rest


def resolve_file(text: str, base: Path) -> str:
    """`text` with the relative file path of a leading ``file.py:Class`` reference resolved
    against `base` (an experiment spec's folder); any other text as it is."""
    ref = split_reference(text)
    if ref is None:
        return text
    module, _, name = ref[0].rpartition(":")
    if not is_path(module) or Path(module).expanduser().is_absolute():
        return text
    resolved = f"{(base / Path(module).expanduser()).resolve()}:{name}"
    return resolved + (f":{ref[1]}" if ref[1] else "")


def is_path(module: str) -> bool:
    """Whether a reference's module part is a file path rather than a module name."""
    return module.endswith(".py") or "/" in module or "\\" in module


_BASE: ContextVar[Path | None] = ContextVar("ckptsim_plugin_files", default=None)


@contextmanager
def files_relative_to(base: Path) -> Iterator[None]:
    """While reading an experiment spec: a relative plug-in file named inside a value (the
    checkpoint component's `policy`) is looked for in `base`, the spec's folder, first."""
    token = _BASE.set(base)
    try:
        yield
    finally:
        _BASE.reset(token)


def located(reference: str) -> str:
    """`reference` (``file.py:Class``, no options) with its relative file resolved against
    the folder of `files_relative_to` where the file is there; otherwise as it is (then
    relative to the current folder)."""
    base = _BASE.get()
    if base is None:
        return reference
    module, _, name = reference.rpartition(":")
    if not module or not is_path(module) or Path(module).expanduser().is_absolute():
        return reference
    path = (base / Path(module).expanduser()).resolve()
    return f"{path}:{name}" if path.is_file() else reference


def load_reference(reference: str, key: str, base: type | None = None,
                   kind: str = "") -> Any:
    """The object a ``module:Class`` reference names (loaded once per file version; `base`,
    `kind`: the registry's, whose classes a missing name's error lists)."""
    module, _, name = located(reference).rpartition(":")
    if is_path(module):
        path = Path(module).expanduser().resolve()
        if not path.is_file():
            raise ConfigError(key, f"{reference}: no such file {path}")
        st = path.stat()
        state = f"{path}@{st.st_size}@{st.st_mtime_ns}"
        if (state, name) not in _LOADED:
            mod = _import_file(path, reference, key)
            _LOADED[(state, name)] = _class_of(mod, name, reference, key, str(path), base,
                                               kind)
        return _LOADED[(state, name)]
    try:
        mod = importlib.import_module(module)
    except (Exception, SystemExit) as exc:  # an error of the user's code: say where
        file = getattr(exc, "filename", None) or _module_file(module)
        raise ConfigError(key, f"{reference}: cannot import {module}: "
                               f"{_import_error(exc, file, module)}") from None
    return _class_of(mod, name, reference, key, getattr(mod, "__file__", module), base, kind)


def _module_file(module: str) -> str | None:
    try:
        spec = importlib.util.find_spec(module)
    except Exception:
        return None
    return spec.origin if spec is not None else None


def _import_file(path: Path, reference: str, key: str) -> Any:
    """Import a plug-in file as a module of its own (registered in `sys.modules`, so that
    dataclasses, type hints and pickling find it)."""
    stem = re.sub(r"\W", "_", path.stem)
    name = f"_ckptsim_plugin_{stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:10]}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(key, f"{reference}: {path} is not a Python file")
    mod = importlib.util.module_from_spec(spec)
    old = sys.modules.get(name)
    sys.modules[name] = mod
    # While it is imported, the file's folder is on sys.path: it may import modules beside it.
    # Modules that would shadow those beside it (another plug-in folder's, the program's own
    # of the same name) are set aside meanwhile, so that its `helpers.py` is the one it gets.
    folder = path.parent
    aside = {n: sys.modules.pop(n) for n in _shadowing(folder)}
    before = set(sys.modules)
    sys.path.insert(0, str(folder))
    try:
        spec.loader.exec_module(mod)
    except (Exception, SystemExit) as exc:
        if old is not None:
            sys.modules[name] = old
        else:
            sys.modules.pop(name, None)
        raise ConfigError(key, f"{reference}: {_import_error(exc, str(path))}") from None
    finally:
        sys.path.remove(str(folder))
        for n in set(sys.modules) - before:
            file = getattr(sys.modules[n], "__file__", None)
            if file and folder in Path(file).resolve().parents:
                _BESIDE[n] = folder
        # What was set aside is back under its name (the file keeps the modules it bound).
        sys.modules.update(aside)
    return mod


def _shadowing(folder: Path) -> list[str]:
    """The imported modules a module beside a plug-in file in `folder` would be shadowed by:
    those another plug-in imported from its folder, and a user's own modules of the same name
    (not Python's or an installed package's, which the plug-in's imports may need)."""
    beside = {p.stem for p in folder.glob("*.py")} | {
        p.parent.name for p in folder.glob("*/__init__.py")}
    # ckptsim itself too: an editable install lies outside sys.prefix.
    installed = tuple(str(Path(p).resolve()) for p in
                      {sys.prefix, sys.base_prefix, sys.exec_prefix, Path(__file__).parent})
    out = []
    for n, m in list(sys.modules.items()):
        top = n.partition(".")[0]
        if _BESIDE.get(n, folder) != folder:
            out.append(n)
        elif top in beside and n not in _BESIDE:
            file = getattr(m, "__file__", None)
            if file and folder not in Path(file).resolve().parents and \
                    not str(Path(file).resolve()).startswith(installed):
                out.append(n)
    return out


def _import_error(exc: BaseException, file: str | None, module: str = "") -> str:
    """One line for an error raised while a plug-in's file or module was imported: `_where`,
    or for a script's sys.exit() or argparse run on import (which would end ckptsim with the
    script's status, saying nothing), where it exits and how a plug-in avoids it."""
    if not isinstance(exc, SystemExit):
        return _where(exc, file, module)
    where = _where(exc, file, module).rpartition(": SystemExit")[0] or file or module
    return (f"{where}: the {'module' if module else 'file'} exits (SystemExit: "
            f"{exc.code!r}) when imported; a plug-in {'module' if module else 'file'} defines "
            "its classes, and runs script code only under if __name__ == '__main__':")


def _where(exc: BaseException, file: str | None, module: str = "") -> str:
    """One line: the file and line of the error in the user's code, and the error (none for
    `module` itself, or a package of it, not installed: no code of the user's ran)."""
    line = None
    missing = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
    if missing and (module == missing or module.startswith(f"{missing}.")):
        file = None
    elif isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        file, line = exc.filename, exc.lineno
    elif isinstance(exc, SyntaxError):  # no position (NUL bytes in the file): the file itself
        pass
    else:
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if not f.filename.startswith("<")]  # importlib's own frames
        mine = [f for f in frames if file and Path(f.filename).resolve() == Path(file).resolve()]
        # The error's line in the named file, else where it was raised (a module that file
        # imports).
        last = mine[-1] if mine else frames[-1] if frames else None
        if last is not None:
            file, line = last.filename, last.lineno
    if isinstance(exc, SyntaxError):
        message = exc.msg
    else:
        message = str(exc)
    message = " ".join(message.split()) or type(exc).__name__
    where = f"{file}, line {line}: " if file and line else f"{file}: " if file else ""
    return f"{where}{type(exc).__name__}: {message}"


def _class_of(mod: Any, name: str, reference: str, key: str, where: str,
              base: type | None = None, kind: str = "") -> Any:
    try:
        return getattr(mod, name)
    except AttributeError:
        pass
    message = f"{reference}: {where} defines no {name}"
    if base is not None:  # the accepted values: the module's own classes of that kind
        found = sorted(n for n, v in vars(mod).items()
                       if isinstance(v, type) and issubclass(v, base) and v is not base
                       and not n.startswith("_") and not _is_builtin(v))
        message += (f"; its {kind} classes: {', '.join(found)}" if found else
                    f", and no {kind} class (a subclass of ckptsim.{base.__name__})")
    raise ConfigError(key, message)


def _is_builtin(cls: type) -> bool:
    module = getattr(cls, "__module__", "") or ""
    return module == "ckptsim" or module.startswith("ckptsim.")


#: The plug-ins' code (their package's folder, or their module's file): an error raised
#: there is a plug-in's, one installed in site-packages too (`is_plugin_code`).
_CODE: set[Path] = set()


def _note_code(cls: type) -> None:
    module = cls.__module__
    for name in (module.partition(".")[0], module):
        found = sys.modules.get(name)
        paths = list(getattr(found, "__path__", None) or ())
        file = getattr(found, "__file__", None)
        if paths or file:
            _CODE.update(Path(p).resolve() for p in (paths or [file]))
            return


def is_plugin_code(file: str | Path) -> bool:
    """Whether `file` is a loaded plug-in's code (its module, or a module of its package)."""
    path = Path(file).resolve()
    return any(path == p or path.is_relative_to(p) for p in _CODE)


def entry_points(kind: str) -> dict[str, Any]:
    """The installed entry points of a registry kind's group, by name (read once)."""
    group = GROUPS.get(kind)
    if group is None:
        return {}
    if group not in _ENTRY_POINTS:
        from importlib.metadata import entry_points as found

        _ENTRY_POINTS[group] = {ep.name: ep for ep in found(group=group)}
    return _ENTRY_POINTS[group]


def load_entry_point(kind: str, name: str, key: str) -> Any:
    ep = entry_points(kind)[name]
    try:
        return ep.load()
    except (Exception, SystemExit) as exc:
        file = getattr(exc, "filename", None) or _module_file(ep.module)
        raise ConfigError(key, f"{name} (entry point {ep.value} of {GROUPS[kind]}): "
                               f"{_import_error(exc, file, ep.module)}") from None


def forget_entry_points() -> None:
    """Read the installed entry points again at the next look-up (tests, notebooks)."""
    _ENTRY_POINTS.clear()


def reference_of(cls: type) -> str | None:
    """A plug-in class given from Python as the reference that loads it again, for the
    places that name plug-ins in strings (a checkpoint plan): ``module:Class`` for a class
    imported from ``sys.path``, ``FILE.py:Class`` for one loaded from a file by path; None
    for a class defined where it cannot be loaded again (``__main__``, a notebook, a
    function)."""
    module = cls.__module__
    if "." in cls.__qualname__ or module == "__main__":
        # A script's class is used as it is: its file loaded again would run the script
        # again (a run inside it recursed without end, or used module globals anew).
        return None
    if _MODULE.match(module) and not module.startswith("_ckptsim_plugin_"):
        return f"{module}:{cls.__name__}"
    file = getattr(sys.modules.get(module), "__file__", None)
    if file and Path(file).is_file() and not _PATH_BAD.search(str(file)):
        return f"{file}:{cls.__name__}"
    return None


_PATH_BAD = re.compile(r"[:=,+]")


def source_sha256(cls: Any) -> str | None:
    """The SHA-256 of the file defining a plug-in class; None for a built-in."""
    module = getattr(cls, "__module__", "") or ""
    if module == "ckptsim" or module.startswith("ckptsim."):
        return None
    file = getattr(sys.modules.get(module), "__file__", None)
    if not file or not Path(file).is_file():
        return None
    from ckptsim.hashing import file_sha256

    return file_sha256(str(file))


_PARTS = re.compile(r"\+(?!\s*[0-9.])")  # checkpoint parts (ckptsim.checkpointing.plan)


def plugin_sources(cls: Any, values: dict[str, Any]) -> list[str]:
    """The SHA-256 of every plug-in file a component's run depends on: the component's own
    (when it is a plug-in), and for the checkpoint component, those of the plug-in policies
    its `policy` names (a string, or the `CheckpointPlan` made of it).  Empty for built-ins,
    so their run ids do not change."""
    out = []
    own = source_sha256(cls)
    if own is not None:
        out.append(own)
    policy = values.get("policy")
    if getattr(cls, "name", "") != "checkpoint":
        return out
    from ckptsim.registry import REGISTRIES

    registry = REGISTRIES["checkpoint policy"]
    names = getattr(policy, "references", None)  # a CheckpointPlan: its parts, as given
    if names is None and isinstance(policy, str):
        names = [registry.split(part.strip())[0] for part in _PARTS.split(policy)]
    for name in names or ():
        if registry.known(name) and name not in registry.classes:
            digest = source_sha256(registry.get(name))
            if digest is not None:
                out.append(digest)
    return out
