"""Paired differences between two values of one column of a store (`results --versus`).

Two runs are a pair when one has KEY=BASE, the other KEY=OTHER, and they agree on every other
input, the replication seed included -- so the pairs of a sweep are per seed and configuration.
Inputs that go with KEY (one value among the BASE runs and another among the OTHER runs: a
scheduler label's parameters, its registry name) are not compared: they are what KEY selects.
Each pair gives, for each metric, OTHER - BASE (or OTHER / BASE - 1, `relative`); the rows are
the mean of those differences per group of pairs with its 95% t interval over the pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.experiments.results import split_values, value_matches
from ckptsim.experiments.stats import change, mean_ci

OPTION = "--versus"


@dataclass
class Versus:
    """What `--versus KEY=BASE,OTHER` asks: the column and the two values as typed."""

    key: str
    base: str
    other: str


@dataclass
class Paired:
    """The rows of `paired` and what the notes under them say."""

    rows: list[dict[str, Any]]
    pairs: int
    matched_on: list[str]          # the inputs a pair agrees on
    with_key: list[str]            # the inputs that go with KEY (not compared)
    failed: int                    # failed runs of either side, left out of the pairs
    unpaired: list[dict[str, Any]] = field(default_factory=list)


def parse_versus(text: str, columns: Sequence[str], rows: Sequence[dict[str, Any]],
                 inputs: Sequence[str]) -> Versus:
    """`KEY=BASE,OTHER` with KEY resolved to a column of the store (a value holding commas,
    such as a checkpoint plan, is one value where a run holds it).

    Raises:
        ConfigError: (--versus) not KEY=BASE,OTHER, an unknown column or one that is not an
            input of the runs (`inputs`), not two values, or twice the same value.
    """
    from ckptsim.experiments.columns import short_names
    from ckptsim.experiments.results import _resolve

    key, sep, values = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(OPTION, f"expected KEY=BASE,OTHER (e.g. scheduler=easy,fcfs), got "
                                  f"{text!r}")
    column = _resolve(OPTION, key.strip(), columns)
    if column not in inputs or column == "seed":
        raise ConfigError(OPTION, f"{column} is not an input that tells configurations apart; "
                                  "accepted: " + ", ".join(
                                      c for c in short_names([*inputs, *columns])[:len(inputs)]
                                      if c != "seed"))
    held = {v for r in rows if isinstance(v := r.get(column), str) and "," in v}
    parts = split_values(values, held)
    if len(parts) != 2 or not all(parts):
        raise ConfigError(OPTION, f"expected two values of {column}, BASE,OTHER, got "
                                  f"{values!r}")
    if parts[0] == parts[1]:
        raise ConfigError(OPTION, f"BASE and OTHER are the same value {parts[0]!r}: give two "
                                  f"values of {column}")
    return Versus(column, parts[0], parts[1])


def _values(rows: Sequence[dict[str, Any]], column: str, most: int = 12) -> str:
    seen = list(dict.fromkeys(str(r.get(column)) for r in rows))
    sep = "; " if any("," in v for v in seen) else ", "
    return sep.join(seen[:most]) + (f"{sep}... ({len(seen)} values)" if len(seen) > most
                                    else "")


def _distinct(rows: Sequence[dict[str, Any]], column: str) -> set[str]:
    return {repr(r.get(column)) for r in rows}


def _difference(base: Any, other: Any, relative: bool) -> float:
    try:
        b, o = float(base), float(other)
    except (TypeError, ValueError):
        return math.nan
    return change(b, o, relative)


def paired(rows: Sequence[dict[str, Any]], versus: Versus, inputs: Sequence[str],
           by: Sequence[str], metrics: Sequence[str], relative: bool = False,
           filtered: bool = False) -> Paired:
    """The mean difference OTHER - BASE of each metric over the pairs of `rows`, per group of
    the `by` columns (one row over all pairs without), with its 95% interval (`<metric>_ci95`)
    and the number of pairs it is over (`<metric>_n`: the pairs where the difference is a
    number, infinite ones included); `pairs` is the group's number of pairs.  `filtered`
    says that `rows` are what --where kept (the errors say so).

    Raises:
        ConfigError: (--versus) a value KEY never takes, no pair, or two runs of one side
            that agree on every input; (--group-by) a column that is KEY or goes with it.
    """
    key = versus.key
    among = " among the runs --where keeps" if filtered else ""
    sides = []
    for value in (versus.base, versus.other):
        side = [r for r in rows if value_matches(r.get(key), value)]
        if not side:
            raise ConfigError(OPTION, f"no run{among} has {key}={value}; its values: "
                                      f"{_values(rows, key)}")
        sides.append(side)
    failed = sum(r.get("status") != "ok" for side in sides for r in side)
    base, other = ([r for r in side if r.get("status") == "ok"] for side in sides)
    for value, ok, side in ((versus.base, base, sides[0]), (versus.other, other, sides[1])):
        if not ok:
            raise ConfigError(OPTION, f"the {len(side)} run(s) with {key}={value} all failed: "
                                      "no pair")
    candidates = [c for c in inputs if c not in (key, "experiment")]
    with_key = [c for c in candidates if len(_distinct(base, c)) == 1
                and len(_distinct(other, c)) == 1 and _distinct(base, c) != _distinct(other, c)]
    match = [c for c in candidates if c not in with_key]
    for c in by:
        if c == key:
            raise ConfigError("--group-by", f"{key} is the --versus column: each pair holds "
                                            f"both of its values; group by other columns")
        if c in with_key:
            raise ConfigError("--group-by", f"{c} goes with {key} ({versus.base}: "
                                            f"{base[0].get(c)}, {versus.other}: "
                                            f"{other[0].get(c)}): each pair holds both values")
    _index(base, match, key, versus.base)
    index = _index(other, match, key, versus.other)
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    used: set[int] = set()
    lone: list[dict[str, Any]] = []
    for b in base:
        o = index.get(tuple(repr(b.get(c)) for c in match))
        if o is None:
            lone.append(b)
        else:
            pairs.append((b, o))
            used.add(id(o))
    lone += [o for o in other if id(o) not in used]
    if not pairs:
        raise ConfigError(OPTION, _why_no_pair(base, other, match, versus))
    groups: dict[tuple[str, ...], list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for b, o in pairs:
        groups.setdefault(tuple(repr(b.get(c)) for c in by), []).append((b, o))
    out = []
    for members in groups.values():
        row: dict[str, Any] = {c: members[0][0].get(c) for c in by}
        row["pairs"] = len(members)
        for m in metrics:
            mean, half, n = mean_ci([_difference(b.get(m), o.get(m), relative)
                                     for b, o in members], infinite=True)
            row[m], row[f"{m}_ci95"], row[f"{m}_n"] = mean, half, n
        out.append(row)
    return Paired(out, len(pairs), match, with_key, failed, lone)


def _index(side: Sequence[dict[str, Any]], match: Sequence[str], key: str, value: str
           ) -> dict[tuple[str, ...], dict[str, Any]]:
    """The runs of one side by their values of the `match` columns; two runs with the same
    are refused (which one pairs would be ambiguous)."""
    seen: dict[tuple[str, ...], dict[str, Any]] = {}
    for r in side:
        k = tuple(repr(r.get(c)) for c in match)
        if k in seen:
            raise ConfigError(OPTION, f"runs {str(seen[k].get('run_id'))[:12]} and "
                                      f"{str(r.get('run_id'))[:12]} both have {key}={value} "
                                      "and agree on every other input: which one pairs is "
                                      "ambiguous; filter with --where")
        seen[k] = r
    return seen


def _why_no_pair(base: Sequence[dict[str, Any]], other: Sequence[dict[str, Any]],
                 match: Sequence[str], versus: Versus) -> str:
    """The inputs in which the closest BASE and OTHER runs differ, with their values."""
    def differ(b: dict[str, Any], o: dict[str, Any]) -> list[str]:
        return [c for c in match if repr(b.get(c)) != repr(o.get(c))]

    b, o = min(((b, o) for b in base for o in other), key=lambda p: len(differ(*p)))
    diffs = "; ".join(f"{c} ({versus.base}: {b.get(c)}, {versus.other}: {o.get(c)})"
                      for c in differ(b, o))
    return (f"no run with {versus.key}={versus.other} agrees with one with "
            f"{versus.key}={versus.base} on every other input; the closest differ in {diffs}: "
            "filter with --where to compare such runs, or choose two values whose runs "
            "differ only in what goes with them")


def paired_columns(by: Sequence[str], metrics: Sequence[str]) -> list[str]:
    """The columns of `paired`'s rows, in the order a CSV gives them."""
    return [*by, "pairs"] + [c for m in metrics for c in (m, f"{m}_ci95", f"{m}_n")]


def notes(result: Paired, versus: Versus, shown: Sequence[str] = (),
          columns: Sequence[str] = ()) -> list[str]:
    """One line each: the inputs that go with KEY, the failed runs left out, the runs
    without a partner (with their `shown` columns, named short as among `columns`)."""
    from ckptsim.experiments.columns import short_names

    out = []
    if result.with_key:
        tied = short_names([*result.with_key, *columns])[:len(result.with_key)]
        out.append(f"pairs agree on every input but {versus.key} and what goes with it (one "
                   f"value on each side: {', '.join(tied)})")
    if result.failed:
        out.append(f"{result.failed} failed run(s) left out of the pairs")
    if result.unpaired:
        first = result.unpaired[0]
        names = (versus.key, *shown)
        short = short_names([*names, *columns])[:len(names)]
        inputs = " ".join(f"{s}={first.get(c)}" for s, c in zip(short, names, strict=True))
        out.append(f"{len(result.unpaired)} run(s) without a partner, left out: e.g. "
                   f"{str(first.get('run_id', ''))[:12]} ({inputs})")
    return out
