"""Parameter grids: lists expand to a Cartesian product, `zip` groups vary together.

    expand({"a": [1, 2], "b": [3, 4], "c": [5]}, [["a", "b"]])
    -> [{"a": 1, "b": 3, "c": 5}, {"a": 2, "b": 4, "c": 5}]

The order is deterministic: keys in the order given (a zip group takes the place of its first
key), the last key varying fastest, as in nested loops written in that order.  Validation of
the groups (known keys, equal lengths, no key in two groups) is `check_zip`'s job, so that a
spec can report every problem before anything is expanded.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any


def check_zip(values: Mapping[str, Sequence[Any]], groups: Sequence[Sequence[str]]
              ) -> list[tuple[str, str]]:
    """Problems with `zip` groups as (location suffix, message) pairs; empty when fine."""
    problems: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for g, group in enumerate(groups):
        where = f"zip[{g}]"
        if len(group) < 2:
            problems.append((where, "a zip group needs at least two keys"))
        lengths = {}
        for key in group:
            if key in seen:
                problems.append((where, f"{key!r} is already in zip[{seen[key]}]"))
                continue
            seen[key] = g
            if key not in values:
                problems.append((where, f"{key!r} is not a key of this table; accepted: "
                                        + (", ".join(values) or "none")))
                continue
            lengths[key] = len(values[key])
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{k} has {n}" for k, n in lengths.items())
            problems.append((where, f"zipped lists must have equal lengths ({shown})"))
    return problems


def expand(values: Mapping[str, Sequence[Any]], groups: Sequence[Sequence[str]] = ()
           ) -> list[dict[str, Any]]:
    """Every point of the grid, as dicts with the keys of `values` in their given order."""
    group_of = {key: g for g, group in enumerate(groups) for key in group}
    axes: list[list[tuple[tuple[str, Any], ...]]] = []
    placed: set[int] = set()
    for key, options in values.items():
        g = group_of.get(key)
        if g is None:
            axes.append([((key, v),) for v in options])
        elif g not in placed:
            placed.add(g)
            members = [k for k in groups[g] if k in values]
            axes.append([tuple(zip(members, combo, strict=True))
                         for combo in zip(*(values[k] for k in members), strict=True)])
    order = list(values)
    points = []
    for combo in itertools.product(*axes):
        flat = dict(item for axis_value in combo for item in axis_value)
        points.append({k: flat[k] for k in order})
    return points


def size(values: Mapping[str, Sequence[Any]], groups: Sequence[Sequence[str]] = ()) -> int:
    """The number of points `expand` gives, without building them."""
    group_of = {key: g for g, group in enumerate(groups) for key in group}
    n = 1
    placed: set[int] = set()
    for key, options in values.items():
        g = group_of.get(key)
        if g is None:
            n *= len(options)
        elif g not in placed:
            placed.add(g)
            n *= len(options)
    return n
