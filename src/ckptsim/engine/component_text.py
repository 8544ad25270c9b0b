"""Reading a component as the command line writes it, ``NAME:key=value,...``
(`split_component`): which parts set which parameter when values hold commas."""

from __future__ import annotations

import dataclasses
from typing import Any

from ckptsim.engine.components import get_component, split_component_name
from ckptsim.errors import ConfigError, did_you_mean, shown


def split_component(text: str, where: str = "component") -> tuple[str, dict[str, str]]:
    """``NAME:key=value,...`` (``--component``'s form; NAME may be a plug-in's
    ``FILE.py:Class``) as the name and its values as given.  A part ``key=value`` whose key
    is one of the component's parameters sets that parameter, wherever it stands.  A value may
    contain commas: any other part continues the previous value (``source=lanl:path=F,
    system=20``, ``reboot=mon,wed 05:00``), except that a ``key=value`` part after a plain
    value (one with no ``=`` of its own, e.g. ``count=100``) continues the last nested string
    (``KIND:key=value,...``) before it: ``source=lanl:path=F,count=100,system=20`` is
    ``source=lanl:path=F,system=20`` and ``count=100``, as ``source=lanl:path=F,system=20,
    count=100`` is.

    Raises:
        ConfigError: an unknown component, a part that is no ``key=value``, a key given twice
            (keyed ``{where} NAME``).
    """
    name, rest = split_component_name(text)  # NAME, or a plug-in's file.py:Class
    name = name.strip()
    cls = get_component(name)
    fields = {f.name: f for f in dataclasses.fields(cls.Params)}
    values: dict[str, str] = {}
    last = None  # the parameter the previous part belongs to
    nested = None  # the last parameter whose value is a nested string (KIND:key=value,...)
    for part in rest.split(",") if rest.strip() else ():
        key, sep, value = part.partition("=")
        if sep and key.strip() in fields:
            last = key.strip()
            if last in values:
                raise ConfigError(f"{where} {name}", f"{last} is given twice")
            values[last] = value.strip()
            if _nested(values[last]):
                nested = last
        elif last is not None:
            if sep and nested is not None and "=" not in values[last]:
                last = nested  # an option of the nested string, after a plain parameter
            if not part.strip() and not _text_param(fields[last]):
                raise ConfigError(f"{where} {name}", f"an empty part (two commas in a row, or "
                                  f"one at the end) after {last}={values[last]}; give "
                                  f"key=value parts separated by single commas")
            values[last] += "," + part
        elif sep:  # as --set says it
            raise ConfigError(f"{where} {name}", f"unknown parameter {shown(key.strip())} in "
                              f"{shown(part)}{did_you_mean(key, fields)}; accepted: "
                              f"{', '.join(sorted(fields)) or 'none'}")
        else:
            raise ConfigError(f"{where} {name}", f"expected key=value with a key of "
                              f"{', '.join(sorted(fields)) or 'none'}, got {shown(part)}")
    return name, values


def _text_param(field: dataclasses.Field[Any]) -> bool:
    """Whether a parameter may take any text (commas included), not only a number or a
    switch: an empty part continues its value, as its own parser sees fit."""
    typ = field.type.__name__ if isinstance(field.type, type) else str(field.type)
    words = typ.replace(" ", "").split("|")
    return not set(words) <= {"int", "float", "bool", "None"}


def _nested(value: str) -> bool:
    """Whether a parameter's value is a nested string ``KIND:key=value,...`` (a failure
    source, an availability trace, a checkpoint policy): a ``:`` before its first ``=``."""
    head, sep, _ = value.partition("=")
    return bool(sep) and ":" in head
