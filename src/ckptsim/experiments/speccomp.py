"""Components in experiment specs: a table per workload, grid axes allowed.

    [workloads.sdsc.components.failures]
    source = "lanl:path=../failures/lanl_cfdr/LA-UR-05-7318-failure-data-1996-2005.csv.gz,system=20"
    count = [0, 100, 200]

A component may also declare workload-level aliases of its parameters (the failures
component: ``failures = "..."`` for `source` and ``failure_count = N`` for `count`).  Inside a
workload's option grid a component parameter is the option ``<alias>`` or
``<component>.<parameter>``, and so is its store column (``workload.failure_count``,
``workload.dummy.step``).  Each value is checked alone (by the component's own `make_params`,
relative paths resolving against the trace folder), then every combination of the grid.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ckptsim.components import (
    alias_keys,
    component_classes,
    component_names,
    get_component,
    known_component,
    portable_name,
)
from ckptsim.errors import ConfigError, did_you_mean, shown
from ckptsim.experiments import grid
from ckptsim.params import describe_range
from ckptsim.plugins import plugin_sources

if TYPE_CHECKING:
    from ckptsim.experiments.specvalues import _Problems


def option_key(name: str, param: str) -> str:
    """The grid option (and store column, after ``workload.``) of a component parameter."""
    for key, p in get_component(name).aliases.items():
        if p == param:
            return key
    return f"{name}.{param}"


def component_option(key: str) -> tuple[str, str] | None:
    """(component, parameter) that a workload option sets, or None."""
    aliases = alias_keys()
    if key in aliases:
        return aliases[key]
    name, dot, param = key.partition(".")
    if dot and known_component(name):
        return name, param
    if not dot and known_component(key) and not dataclasses.fields(get_component(key).Params):
        return key, ""  # a component without parameters, given by its empty table
    return None


def split_components(point: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The components of one grid point: ``{name: {parameter: value}}`` (the keys of a
    parameter given as a table, ``checkpoint.policy.cost``, back in their table)."""
    out: dict[str, dict[str, Any]] = {}
    for key, value in point.items():
        target = component_option(key)
        if target is not None:
            inner = out.setdefault(target[0], {})
            if not target[1]:
                continue
            *tables, last = target[1].split(".")
            for t in tables:
                inner = inner.setdefault(t, {})
            inner[last] = value
    return out


def made_components(components: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The components of a run with the values a component parses (`parsed_params`: the
    checkpoint plan, from its string or table) made once, here, for the run to take as
    they are."""
    out = {}
    for name, values in components.items():
        cls = get_component(name)
        parsed = [k for k in getattr(cls, "parsed_params", ()) if k in values]
        if parsed:
            prm = cls.make_params(values)
            values = {**values, **{k: getattr(prm, k) for k in parsed}}
        out[name] = values
    return out


def component_identity(components: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What run ids hash of a run's components: each one's identity, under its name (a run
    without components adds nothing, so its id is what it was before components existed)."""
    out = {}
    for name, values in components.items():
        cls = get_component(name)
        prm = cls.make_params(values)
        out[name] = cls.identity(prm)
        # Plug-ins' files (none for built-ins); a parsed value (the checkpoint plan) as made.
        made = {k: getattr(prm, k) if k in getattr(cls, "parsed_params", ()) else v
                for k, v in values.items()}
        sources = plugin_sources(cls, made)
        if sources:
            out[name] = {**out[name], "plugin_sources": sources}
    return out


def counter_names() -> list[str]:
    """The counters of every registered component (metrics a spec may name)."""
    out: list[str] = []
    for cls in component_classes().values():
        out += [c for c in cls.counter_names if c not in out]
    return out


def value_check(name: str, param: str, folder: Path) -> Callable[[Any], Any]:
    """Checks one value of a component parameter given in a spec."""
    from ckptsim.experiments.specvalues import Bad

    cls = get_component(name)
    field = {f.name: f for f in dataclasses.fields(cls.Params)}[param]
    typ = typing.get_type_hints(cls.Params)[param]
    accepted = {a for a in typing.get_args(typ) if a is not type(None)} or {typ}

    def check(v: Any) -> Any:
        if v is None and type(None) in typing.get_args(typ):
            return None
        if int in accepted and float not in accepted and (
                isinstance(v, bool) or not isinstance(v, int)):
            raise Bad(f"expected an integer {describe_range(field.metadata)}, got {shown(v)}")
        if str in accepted and not isinstance(v, str):
            raise Bad(f"expected a string, got {shown(v)}")
        try:
            return cls.check_value(param, v, base=folder)
        except ConfigError as exc:
            if exc.key != f"{name}.{param}":
                raise Bad(f"{exc.key}: {exc.message}") from None
            if int in accepted and float not in accepted:
                raise Bad(f"expected an integer {describe_range(field.metadata)}, got "
                          f"{shown(v)}") from None
            raise Bad(exc.message) from None
    return check


def component_axes(problems: _Problems, loc: str, w: dict[str, Any], folder: Path,
                   base: Path | None = None, reserved: Collection[str] = (),
                   plugins: dict[str, tuple[type, str]] | None = None
                   ) -> dict[str, list[Any]]:
    """The grid axes of a workload's components: its alias keys and its `components` table,
    whose tables are named by a component's name or a plug-in's reference (a file path
    resolving against `base`, the spec's folder; its options then go by the plug-in's own
    name: ``starts.period``).  `reserved`: the workload's own option keys, which no
    component may be named (its options would be read as theirs).  `plugins`: the plug-in
    components the spec's workloads named so far (name -> class, the table naming it): the
    runs find a component by its name, so two classes under one name are refused."""
    from ckptsim.experiments.specvalues import _as_axis

    axes: dict[str, list[Any]] = {}
    for key, (name, param) in alias_keys().items():
        if key in w:
            if isinstance(w[key], dict) and param in getattr(get_component(name),
                                                             "table_params", ()):
                axes.update(table_axes(problems, f"{loc}.{key}", name, param, w[key]))
                continue
            axes[key] = _as_axis(problems, f"{loc}.{key}", w[key],
                                 value_check(name, param, folder))
    table = w.get("components", {})
    if not isinstance(table, dict):
        problems.add(f"{loc}.components", f"expected tables [{loc}.components.NAME], got "
                                          f"{shown(table)}")
        return axes
    named: dict[str, str] = {}  # a component's name -> the table that names it
    for name, values in table.items():
        where = f"{loc}.components.{name}"
        if name not in component_names():
            cls = _plugin(problems, where, name, base)
            if cls is None:
                continue
            found = cls.name
            if found in named:
                problems.add(where, f"names the component {shown(found)}, as "
                                    f"{loc}.components.{named[found]} does")
                continue
            other = (plugins or {}).get(found)
            if other is not None and _defined_in(other[0]) != _defined_in(cls):
                problems.add(where, f"names the component {shown(found)}, as {other[1]} does with "
                                    f"another class ({_defined_in(other[0])}); a spec's runs "
                                    "find a component by its name (and store its options "
                                    f"as workload.{found}.*): give one of them another name")
                continue
            if plugins is not None:
                plugins.setdefault(found, (cls, where))
            name = found
        if name in reserved:
            problems.add(where, f"names the component {shown(name)}, which is also the name of "
                                f"the workload option {loc}.{name}; give the plug-in another "
                                "name")
            continue
        named[name] = where.rpartition(".components.")[2]
        if not isinstance(values, dict):
            problems.add(where, f"expected a table of parameters, got {shown(values)}")
            continue
        fields = [f.name for f in dataclasses.fields(get_component(name).Params)]
        if not values:  # an empty table: the component with its defaults
            _defaults(problems, where, axes, name, folder)
        for param, value in values.items():
            if param not in fields:
                problems.add(f"{where}.{param}", f"unknown parameter of {name}"
                                                 f"{did_you_mean(param, fields)}; accepted: "
                                                 f"{', '.join(fields) or 'none'}")
                continue
            key = option_key(name, param)
            table = f"{name}.{param}."
            if key in axes or (key != f"{name}.{param}" and any(
                    k.startswith(table) for k in axes)):
                problems.add(f"{where}.{param}", f"given twice (also as {loc}.{key})")
                continue
            if isinstance(value, dict) and param in getattr(get_component(name),
                                                            "table_params", ()):
                if key in w:
                    problems.add(f"{where}.{param}", f"given twice (also as {loc}.{key})")
                    continue
                axes.update(table_axes(problems, f"{where}.{param}", name, param, value))
                continue
            axes[key] = _as_axis(problems, f"{where}.{param}", value,
                                 value_check(name, param, folder))
    return axes


def _defaults(problems: _Problems, where: str, axes: dict[str, list[Any]], name: str,
              folder: Path) -> None:
    """Make a component given by an empty table part of the runs: as if its first parameter
    were given at its default (the same runs, and run ids, as writing it), or, for a
    component without parameters, under its name alone (column ``workload.NAME``, True).  A
    component that refuses its defaults (the failures component needs a source) is a
    problem of the table."""
    cls = get_component(name)
    fields = dataclasses.fields(cls.Params)
    if not fields:
        axes.setdefault(name, [True])
        return
    given = any((component_option(k) or ("",))[0] == name for k in axes)
    if given or fields[0].default is dataclasses.MISSING:  # present already, or no default
        return
    try:
        cls.identity(cls.make_params({}, base=folder))
    except ConfigError as exc:
        problems.add(where, f"an empty table runs {name} at its defaults, which it refuses "
                            f"({exc.message}): give its parameters")
        return
    axes[option_key(name, fields[0].name)] = [fields[0].default]


def _plugin(problems: _Problems, where: str, written: str, base: Path | None) -> type | None:
    """The plug-in component class a spec's table names by reference (loaded here, so that
    its options are known by its name), or None with the problem added."""
    from ckptsim.plugins import resolve_file, split_reference

    ref = split_reference(written, component_names())
    if ref is not None and ref[1].strip():
        problems.add(where, f"name the table by {ref[0]} alone: its options are the table's "
                            f"keys ({ref[1].strip().partition('=')[0]} = ...)")
        return None
    if ref is None:
        problems.add(where, f"unknown component {shown(written)}"
                            f"{did_you_mean(written, component_names())}; accepted: "
                            f"{', '.join(component_names())}, or a plug-in: FILE.py:Class "
                            f"or module:Class (docs/plugins.md)")
        return None
    try:
        cls = get_component(resolve_file(ref[0], base if base is not None else Path.cwd()))
    except ConfigError as exc:
        problems.add(where, exc.message)
        return None
    return cls


def _defined_in(cls: type) -> str:
    """Which plug-in class this is, for messages: its name and its file, else its module."""
    import sys

    file = getattr(sys.modules.get(cls.__module__), "__file__", None)
    return f"{cls.__qualname__} of {file or cls.__module__}"


def portable(components: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """A run's components as its worker builds them: a plug-in loaded from a file under its
    file reference (`portable_name`), the others under their names."""
    return {portable_name(name): values for name, values in components.items()}


def table_axes(problems: _Problems, where: str, name: str, param: str,
               table: dict[str, Any]) -> dict[str, list[Any]]:
    """The grid axes of a parameter given as a table (the checkpoint component's `policy`):
    one axis per key, ``<component>.<parameter>.<key>`` (a sub-table's keys one level down),
    each value checked alone by the component's `table_value(parameter, path, value)`; the
    store's columns are these keys, numbers staying numbers.  Where the component's
    `table_params[parameter]` names a key (skip, proactive), a list of names is one value and
    a list of such lists an axis."""
    from ckptsim.experiments.specvalues import Bad, _as_axis

    cls = get_component(name)
    lists = cls.table_params[param]  # type: ignore[attr-defined]
    axes: dict[str, list[Any]] = {}

    def check(path: tuple[str, ...]) -> Callable[[Any], Any]:
        def one(v: Any) -> Any:
            try:
                return cls.table_value(param, path, v)  # type: ignore[attr-defined]
            except ConfigError as exc:
                raise Bad(exc.message) from None
        return one

    for key, value in table.items():
        items = value.items() if isinstance(value, dict) else [(None, value)]
        for sub, v in items:
            path = (key,) if sub is None else (key, sub)
            axes[".".join((name, param, *path))] = _as_axis(
                problems, ".".join((where, *path)), v, check(path),
                pair=sub is None and key in lists)
    return axes


def check_combinations(problems: _Problems, loc: str, axes: dict[str, list[Any]],
                       zips: tuple[tuple[str, ...], ...], folder: Path) -> None:
    """Each value was checked alone; a component may also refuse some combinations."""
    keys = [k for k in axes if component_option(k) is not None]
    if not keys:
        return
    sub = {k: axes[k] for k in keys}
    sub_zips = tuple(g for g in zips if all(k in sub for k in g))
    for point in grid.expand(sub, sub_zips):
        for name, values in split_components(point).items():
            try:
                get_component(name).make_params(values, base=folder)
            except ConfigError as exc:
                param = exc.key.removeprefix(f"{name}.")
                head = param.split(".")[0]
                if isinstance(values.get(head), dict):
                    # A key of a table parameter (checkpoint.policy.cost), where it was given.
                    given = next((k for k in point if k.startswith(f"{name}.{head}.")), None)
                    if given is not None:
                        problems.add(f"{loc}.components.{name}.{param}", exc.message)
                        continue
                if param not in values:
                    param = next(iter(values), "")
                key = option_key(name, param)
                where = f"{loc}.{key}" if key in alias_keys() else \
                    f"{loc}.components.{name}.{param}"
                problems.add(where, exc.message)
