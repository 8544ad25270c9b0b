"""What a policy or component reports at the end of a run (counters, per-job columns,
options), checked and made plain before it reaches the records, summary.json and a sweep's
store: numpy scalars become Python numbers, and anything that cannot be written is refused
with the plug-in's name, instead of failing later in a writer (after the run, or in a
sweep's parent process, where it would stop the whole sweep)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError

_PLAIN = (bool, int, float, str, type(None))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def counters(owner: str, values: Any) -> dict[str, Any]:
    """`owner`'s counters as numbers: int, float or bool as given, numpy scalars converted.

    Raises:
        ConfigError: not a mapping of names to numbers.
    """
    if not isinstance(values, Mapping):
        raise ConfigError(f"{owner}.counters", f"returned {_short(values)}; expected a dict "
                                               "of counter names to numbers")
    out: dict[str, Any] = {}
    for key, value in values.items():
        if not isinstance(key, str):
            raise ConfigError(f"{owner}.counters", f"a counter's name is {_short(key)}; "
                                                   "expected a string")
        if type(value) in (bool, int, float):
            out[key] = value
        elif isinstance(value, (np.integer, np.floating, np.bool_)):
            out[key] = value.item()
        else:
            raise ConfigError(f"{owner}.counters", f"counter {key!r} is {_short(value)} "
                                                   f"({type(value).__name__}); a counter is "
                                                   "a number (int or float)")
    return out


def options(owner: str, values: Any) -> Any:
    """`owner`'s options as JSON can write them: dicts with string keys, lists, tuples,
    strings, numbers, booleans and None (numpy scalars converted).

    Raises:
        ConfigError: a value JSON cannot write, named by its path in the options.
    """
    return _plain(values, f"{owner}.options")


def _plain(value: Any, where: str) -> Any:
    if type(value) in _PLAIN:
        return value
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ConfigError(where, f"key {_short(k)} is not a string; summary.json "
                                         "cannot write it")
            out[k] = _plain(v, f"{where}.{k}")
        return out
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v, f"{where}[{i}]") for i, v in enumerate(value))
    raise ConfigError(where, f"{_short(value)} ({type(value).__name__}) cannot be written to "
                             "summary.json; give a number, string, boolean, None, list or dict")


def columns(owner: str, values: Any, n_jobs: int,
            taken: dict[str, str] | None = None) -> dict[str, np.ndarray]:
    """`owner`'s per-job columns: one value per job each, numbers or strings. `taken` maps
    the names already used to whose they are; `owner`'s are added to it.

    Raises:
        ConfigError: not a mapping of names to columns of `n_jobs` values, or a name taken.
    """
    if not isinstance(values, Mapping):
        raise ConfigError(f"{owner}.job_columns", f"returned {_short(values)}; expected a "
                                                  "dict of column names to arrays")
    out: dict[str, np.ndarray] = {}
    for name, column in values.items():
        where = f"{owner}.job_columns"
        if not isinstance(name, str):
            raise ConfigError(where, f"a column's name is {_short(name)}; expected a string")
        if taken is not None and name in taken:  # one would hide the other in jobs.csv
            raise ConfigError(where, f"column {name!r} is {taken[name]} already; give it "
                                     "another name")
        arr = np.asarray(column)
        if arr.ndim != 1 or len(arr) != n_jobs:
            raise ConfigError(where, f"column {name!r} has shape {arr.shape}; expected one "
                                     f"value per job ({n_jobs},)")
        odd = arr.dtype.kind not in "biufUSO"
        if arr.dtype.kind == "O":  # texts as objects (e.g. a class name per job)
            odd = any(type(v) not in _PLAIN for v in arr)
        if odd:
            raise ConfigError(where, f"column {name!r} holds values other than numbers, "
                                     f"strings, booleans and None ({arr.dtype}); a value per "
                                     "job is written to jobs.csv")
        out[name] = arr
    if taken is not None:
        taken.update(dict.fromkeys(out, f"{owner}'s column"))
    return out


__all__ = ["columns", "counters", "options"]
