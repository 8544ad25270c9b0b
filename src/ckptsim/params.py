"""Declared parameters shared by scheduling policies and engine components.

A parameter set is a frozen dataclass whose fields are declared with `param(default, help,
low=, high=, choices=)`.  `make_params` builds one from user values (strings from the command
line, typed values from a TOML spec) and refuses unknown keys and out-of-range values with a
`ConfigError` naming the key and the accepted values.

A float parameter is finite: `inf`, `-inf` and NaN are refused, naming the key, unless the
parameter is declared with `infinite="what inf means"` (e.g. a threshold that nothing
reaches); `describe_range` then says so.  Its help in the listings (`ckptsim schedulers`,
`ckptsim components`) reads "finite" otherwise.

A parameter that is a time or a duration is declared with `seconds=` (1 for seconds, 60 for
minutes, 3600 for hours): a finite value beyond `MAX_SECONDS` (1e10 s, 317 years) either side
of 0 is refused, naming the key, as a trace's times are; a value of 1e300 would otherwise run
to an absurd end or overflow.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from typing import Any

from ckptsim.errors import ConfigError, did_you_mean, shown, shown_key
from ckptsim.limits import MAX_SECONDS
from ckptsim.values import parse_bool, parse_int


@dataclasses.dataclass(frozen=True)
class NoParams:
    """A policy or a component without parameters."""


def param(default: Any, help: str, *, low: float | None = None, high: float | None = None,
          low_open: bool = False, high_open: bool = False,
          choices: tuple[Any, ...] | None = None, added: bool = False, was: Any = None,
          infinite: str = "", period: float = 0.0, seconds: float = 0.0) -> Any:
    """A parameter with its documentation and accepted range.

    `low`/`high` are inclusive unless `low_open`/`high_open`; `choices` lists accepted values.
    `infinite`: what `inf` means for this float parameter (e.g. "no estimate is scaled"); only
    such a parameter accepts it (within `low`/`high`), every other float must be finite.
    `period`: the parameter is the period of events that repeat (a checkpoint interval, a
    cycle); values under `period` (in the parameter's unit, e.g. 1 s) are refused, as an
    event every 1e-9 s would keep the run on the same instants for ever.
    `seconds`: the parameter is a time or a duration in units of this many seconds (1:
    seconds, 60: minutes); its finite values are bounded by `MAX_SECONDS` either side of 0.
    `added`: the parameter came after runs were recorded without it; at the value those runs
    had it is left out of experiment run identities (`identity_params`), so they keep their
    ids.  `was`: that value, when it is no longer the default (a later default changed the
    schedule); None: the default.  A run at any other value, the new default included, gets an
    identity of its own.  `added` concerns identities only: summary.json records every
    declared parameter with its value, defaults and added ones included, so that a run's
    folder says which reading produced it.
    """
    if was is not None and not added:
        raise ValueError("param(was=...) is for an added parameter (added=True)")
    return dataclasses.field(default=default, metadata={
        "help": help, "low": low, "high": high, "low_open": low_open, "high_open": high_open,
        "choices": choices, "added": added, "was": default if was is None else was,
        "infinite": infinite, "period": period, "seconds": seconds})


def identity_params(params: Any) -> dict[str, Any]:
    """A parameter set as it enters a run identity: every field, except the `added` ones at the
    value the runs recorded without them had (`param`'s `was`, by default the default)."""
    return {f.name: getattr(params, f.name) for f in dataclasses.fields(params)
            if not (f.metadata.get("added")
                    and getattr(params, f.name) == f.metadata.get("was", f.default))}


def _annotated(typ: Any, kind: type) -> bool:
    """Whether a field's annotation (a type or its text) is `kind` or `kind | None`."""
    if isinstance(typ, str):
        return kind.__name__ in typ.replace(" ", "").split("|")
    args = typing.get_args(typ) if typing.get_origin(typ) in (typing.Union,
                                                               types.UnionType) else (typ,)
    return kind in args


def _is_float(typ: Any) -> bool:
    """Whether a field's annotation (a type or its text) is float or float | None."""
    return _annotated(typ, float)


def describe_range(meta: Mapping[str, Any] | dataclasses.Field[Any]) -> str:
    """The accepted values of a parameter, from its metadata or its field (a field also says
    whether a float must be finite)."""
    number = False
    if isinstance(meta, dataclasses.Field):
        if _annotated(meta.type, bool):
            return "true or false"
        number = _is_float(meta.type)
        meta = meta.metadata
    if meta.get("choices"):
        return "one of " + ", ".join(str(c) for c in meta["choices"])
    low, high = meta.get("low"), meta.get("high")
    parts = []
    if low is not None:
        parts.append(f"{'>' if meta.get('low_open') else '>='} {low:g}")
    if high is not None:
        parts.append(f"{'<' if meta.get('high_open') else '<='} {high:g}")
    elif meta.get("seconds"):
        parts.append(f"<= {_largest_time(meta):g}")
    text = " and ".join(parts) if parts else "any value"
    if meta.get("period"):
        text += f", at least {meta['period']:g} (a period)"
    if meta.get("infinite"):
        return f"{text}, or inf: {meta['infinite']}"
    if number:
        return f"finite, {text}" if parts else "any finite number"
    return text


def _largest_time(meta: Mapping[str, Any]) -> float:
    """The largest time a `seconds=` parameter takes, in its own unit."""
    return MAX_SECONDS / meta["seconds"]


def _finite_range(meta: Mapping[str, Any]) -> str:
    """The accepted values of a float parameter, said to be finite unless it takes inf."""
    if meta.get("infinite"):
        return describe_range(meta)
    text = describe_range(meta)
    return "a finite number" + ("" if text == "any value" else f" {text}")


def _convert(key: str, value: Any, typ: Any,
             meta: Mapping[str, Any] | None = None) -> Any:
    """Turn a `--set key=value` string (or a TOML value) into the parameter's type.

    A boolean is not a number (though Python's bool is an int): `p = true` in a spec is
    refused for a float or int parameter, as `--set p=true` is, naming the key and, with the
    parameter's `meta`, the accepted values."""
    origin = typing.get_origin(typ)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(typ) if a is not type(None)]
        if value is None or (isinstance(value, str) and value.lower() in ("none", "")):
            return None
        typ = args[0]
    if typ is bool:
        return parse_bool(key, value)
    if typ is int:
        if isinstance(value, bool):
            raise ConfigError(key, _with_range(f"expected an integer, got {_shown(value)}",
                                               meta, ""))
        return parse_int(key, value)
    if typ is float:
        try:
            if isinstance(value, bool):
                raise TypeError
            text = str(value).strip().lower()
            return math.inf if text in ("inf", "infinity") else float(value)
        except (TypeError, ValueError):
            raise ConfigError(key, _with_range(f"expected a number, got {_shown(value)}",
                                               meta, "finite")) from None
    return str(value) if typ is str else value


def _shown(value: Any) -> str:
    """A user's value in an error: a boolean as TOML writes it."""
    return str(value).lower() if isinstance(value, bool) else shown(value)


def _with_range(message: str, meta: Mapping[str, Any] | None, number: str) -> str:
    """`message` and the accepted values of the parameter of `meta` (if known)."""
    if meta is None:
        return message
    accepted = describe_range(meta)
    if number and not meta.get("infinite") and not meta.get("choices"):
        accepted = f"{number}, {accepted}" if accepted != "any value" else "any finite number"
    return f"{message}; accepted: {accepted}"


def make_params(cls: type, values: Mapping[str, Any], *, where: str = "") -> Any:
    """Build and validate a parameter dataclass from user values (strings or typed)."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    prefix = f"{where}." if where else ""
    unknown = sorted(set(values) - set(fields))
    if unknown:
        accepted = ", ".join(sorted(fields)) or "none"
        raise ConfigError(prefix + shown_key(unknown[0]), f"unknown parameter"
                                               f"{did_you_mean(unknown[0], fields)}; "
                                               f"accepted: {accepted}")
    kwargs = {k: _convert(prefix + k, v, hints[k], fields[k].metadata)
              for k, v in values.items()}
    obj = cls(**kwargs)
    validate_params(obj, where=where)
    return obj


def validate_params(obj: Any, *, where: str = "") -> None:
    """Check every parameter against its declared range / choices."""
    prefix = f"{where}." if where else ""
    for f in dataclasses.fields(obj):
        meta = f.metadata
        value = getattr(obj, f.name)
        if value is None:
            continue
        if meta.get("choices") and value not in meta["choices"]:
            raise ConfigError(prefix + f.name,
                              f"got {shown(value)}; accepted: {describe_range(meta)}")
        low, high = meta.get("low"), meta.get("high")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if value != value:
                raise ConfigError(prefix + f.name, f"got nan (not a number); accepted: "
                                                   f"{_finite_range(meta)}")
            if isinstance(value, float) and math.isinf(value) \
                    and not (value > 0 and meta.get("infinite")):
                raise ConfigError(prefix + f.name, f"got {value:g}; accepted: "
                                                   f"{_finite_range(meta)}")
            bad = (low is not None and (value <= low if meta.get("low_open") else value < low)) \
                or (high is not None and (value >= high if meta.get("high_open") else value > high))
            if bad:
                raise ConfigError(prefix + f.name,
                                  f"got {value:g}; accepted: {describe_range(meta)}")
            if meta.get("seconds") and math.isfinite(value) \
                    and abs(value) > _largest_time(meta):
                unit = meta["seconds"]
                said = f"{value:g}" + (f" ({value * unit:g} s)" if unit != 1 else "")
                raise ConfigError(prefix + f.name, f"got {said}, a time beyond the longest "
                                  f"accepted, {MAX_SECONDS:g} s (317 years; MAX_SECONDS); "
                                  f"accepted: {describe_range(meta)}")
            if meta.get("period") and value < meta["period"]:
                raise ConfigError(prefix + f.name, f"got {value:g}; accepted: >= "
                                  f"{meta['period']:g} (a period: a shorter one has the run "
                                  f"spin through an event every period, for hours or for ever)")
