"""What the values of an experiment spec may be, and how its problems are collected.

`_Problems` gathers every problem with its location (``key (line N)``).  The checks here add
to it, or raise `Bad` with a message saying what is accepted: scalars (`_scalar`), unknown keys
(`_unknown`), integers, numbers, choices and windows, grid axes (`_as_axis`: a list is an axis,
each value checked alone), zip groups, the seeds (or replications) and the metrics
(`known_metrics`: the names a spec may use).  The spec's entry point is
`ckptsim.experiments.spec`; workloads are checked in `specworkloads`, their components in
`speccomp`, other generators' options in `specgen`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from ckptsim.errors import did_you_mean, shown, shown_key
from ckptsim.experiments import grid
from ckptsim.tomllines import key_lines, line_of

#: Metrics shown by `ckptsim results` and the report when a spec names none.
DEFAULT_METRICS = ("mean_wait", "mean_bsld", "utilization", "makespan")
#: What a spec's and a figure's name may hold.
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


class Bad(ValueError):
    """A value is wrong; the message says what is accepted."""


def _int(low: int, high: int | None = None, name: str = "") -> Callable[[Any], int]:
    """An integer >= low (and <= high, the constant `name`, when given)."""
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise Bad(f"expected an integer >= {low}, got {shown(v)}")
        if high is not None and v > high:
            raise Bad(f"{v} is more than the limit, {high} ({name})")
        return v
    return check


def _real(low: float, *, open_low: bool = False) -> Callable[[Any], float]:
    def check(v: Any) -> float:
        bad = isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
            or (v <= low if open_low else v < low)
        if bad:
            raise Bad(f"expected a finite number {'>' if open_low else '>='} {low:g}, "
                      f"got {shown(v)}")
        return float(v)
    return check


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise Bad(f"expected true or false, got {shown(v)}")
    return v


def _choice(*accepted: str) -> Callable[[Any], str]:
    def check(v: Any) -> str:
        if v not in accepted:
            raise Bad(f"got {shown(v)}; accepted: {', '.join(accepted)}")
        return str(v)
    return check


def _window(v: Any) -> tuple[float, float]:
    ok = isinstance(v, list) and len(v) == 2 and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
    if not ok:
        raise Bad(f"expected [start, end] in seconds (end may be inf), got {shown(v)}")
    start, end = float(v[0]), float(v[1])
    if not (0 <= start < math.inf) or not end > start:
        raise Bad(f"expected 0 <= start < end, got [{shown(v[0])}, {shown(v[1])}]")
    return (start, end)


def known_metrics() -> list[str]:
    """The summary metrics runs record (the keys of `metrics.core.summary`, found by asking
    the metrics code itself so that a new metric is accepted as soon as it exists), the
    counters of the components (failures...), the policies' own metrics and the class
    metrics of `scojo-pect` runs."""
    from ckptsim.experiments.speccomp import counter_names
    from ckptsim.metrics.classes import CLASS_METRIC_NAMES
    from ckptsim.metrics.htc import HTC_METRIC_NAMES

    global _METRICS
    if _METRICS is None:
        from ckptsim.policies.base import scheduler_classes

        keys = _summary_keys()
        for cls in scheduler_classes().values():  # the policies' own metrics
            keys += [k for k in cls.counter_names if k not in keys]
        keys += [k for k in HTC_METRIC_NAMES if k not in keys]
        _METRICS = keys + [k for k in CLASS_METRIC_NAMES if k not in keys]
    return _METRICS + [k for k in counter_names() if k not in _METRICS]


_METRICS: list[str] | None = None


def _summary_keys() -> list[str]:
    import numpy as np

    from ckptsim.metrics.core import summary
    from ckptsim.records.jobs import ALL_COLUMNS, JobTable

    empty = np.empty(0)
    cols = {c: np.empty(0, dtype=object) if c == "status" else empty for c in ALL_COLUMNS}
    try:
        return list(summary(JobTable(cols, np.empty(0, dtype=np.int64), empty, empty, 1)))
    except Exception:  # metrics that need a job: summarise a one-job run instead
        from ckptsim.runner import simulate
        from ckptsim.workload.model import SWF_FIELDS, Workload

        one = np.ones(1)
        w = Workload(job_id=np.ones(1, dtype=np.int64), submit=np.zeros(1), runtime=one,
                     estimate=one, size=np.ones(1, dtype=np.int64),
                     fields=np.full((1, len(SWF_FIELDS)), -1.0), machine_size=1)
        return list(simulate(w, "fcfs", daily=False).summary)


class _Problems:
    def __init__(self, text: str) -> None:
        self.items: list[tuple[str, str]] = []
        self.lines = key_lines(text)

    def add(self, loc: str, msg: str) -> None:
        line = line_of(self.lines, loc)
        loc = ".".join(shown_key(part) for part in loc.split("."))  # a key typed 3,000 long
        item = (f"{loc} (line {line})" if line else loc, msg)
        if item not in self.items:  # e.g. one refused combination in several grid points
            self.items.append(item)


#: The keys of a spec's top level (above its first table).
TOP_KEYS = ("name", "description", "seeds", "replications", "metrics", "trace_dir", "overrun",
            "check", "keep_jobs", "workloads", "schedulers", "figures")


def _unknown(problems: _Problems, where: str, table: dict[str, Any],
             accepted: Sequence[str], hints: dict[str, str] | None = None) -> None:
    """Refuse `table`'s keys not in `accepted`; `hints` says where such a key belongs."""
    for key in table:
        if key not in accepted:
            hint = ""
            if hints and key in hints:
                hint = f"; {hints[key]}"
            elif where and key in TOP_KEYS:
                # TOML gives a key to the table whose header is above it.
                hint = (f"; {key} is a key of the spec's top level: write it above the "
                        "first [table] or [[table]] header")
            problems.add(f"{where}{key}", f"unknown key{did_you_mean(key, accepted)}; "
                                          f"accepted: {', '.join(accepted)}{hint}")


def _scalar(problems: _Problems, table: dict[str, Any], key: str, typ: type, default: Any,
            where: str = "") -> Any:
    if key not in table:
        return default
    value = table[key]
    if not isinstance(value, typ) or (typ is not bool and isinstance(value, bool)):
        problems.add(where + key, f"expected {_TYPE_NAMES.get(typ, typ.__name__)}, "
                                  f"got {shown(value)}")
        return default
    return value


_TYPE_NAMES = {str: "a string", bool: "true or false", int: "an integer", list: "a list",
               dict: "a table"}


#: Most replications a spec may ask for (its seed list is built when the spec is read).
MAX_REPLICATIONS = 1_000_000


def _seeds(problems: _Problems, doc: dict[str, Any]) -> tuple[int, ...]:
    if "seeds" in doc and "replications" in doc:
        problems.add("replications", "give either seeds or replications, not both")
        return (1,)
    if "replications" in doc:
        n = doc["replications"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            problems.add("replications", f"expected an integer >= 1, got {shown(n)}")
            return (1,)
        if n > MAX_REPLICATIONS:
            problems.add("replications", f"{n} is more than the limit, {MAX_REPLICATIONS} "
                                         "(MAX_REPLICATIONS; a sweep of more than 100,000 runs "
                                         "also needs --max-runs)")
            return (1,)
        return tuple(range(1, n + 1))
    seeds = doc.get("seeds", [1])
    if not isinstance(seeds, list) or not seeds:
        problems.add("seeds", f"expected a non-empty list of integers, got {shown(seeds)}")
        return (1,)
    good: list[int] = []
    seen: set[int] = set()
    for i, s in enumerate(seeds):
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            problems.add(f"seeds[{i}]", f"expected an integer >= 0, got {shown(s)}")
        elif s in seen:
            problems.add(f"seeds[{i}]", f"seed {s} is listed twice")
        else:
            good.append(s)
            seen.add(s)
    return tuple(good) or (1,)


def _metrics(problems: _Problems, doc: dict[str, Any], known: list[str]) -> tuple[str, ...]:
    metrics = doc.get("metrics", list(DEFAULT_METRICS))
    if not isinstance(metrics, list) or not metrics:
        problems.add("metrics", f"expected a non-empty list of metric names, got {shown(metrics)}")
        return DEFAULT_METRICS
    out = []
    for i, m in enumerate(metrics):
        if m not in known:
            problems.add(f"metrics[{i}]", f"unknown metric {shown(m)}; accepted: "
                                          f"{', '.join(known)}")
        elif m not in out:
            out.append(m)
    return tuple(out)


def _as_axis(problems: _Problems, loc: str, value: Any, check: Callable[[Any], Any],
             *, pair: bool = False) -> list[Any]:
    """A grid axis: a list of checked values (a scalar, or a pair for windows, is one value)."""
    single = not isinstance(value, list) or (pair and not any(isinstance(v, list)
                                                                for v in value))
    items = [value] if single else value
    if not items:
        problems.add(loc, "an empty list gives no runs")
    out = []
    for i, item in enumerate(items):
        try:
            out.append(check(item))
        except Bad as exc:
            problems.add(loc if single else f"{loc}[{i}]", str(exc))
    return out


def _zip_groups(problems: _Problems, loc: str, value: Any,
                axes: dict[str, list[Any]]) -> tuple[tuple[str, ...], ...]:
    ok = isinstance(value, list) and all(
        isinstance(g, list) and all(isinstance(k, str) for k in g) for g in value)
    if not ok:
        problems.add(loc, f"expected a list of lists of keys, e.g. [[\"a\", \"b\"]], "
                          f"got {shown(value)}")
        return ()
    for sub, msg in grid.check_zip(axes, value):
        problems.add(loc + sub.removeprefix("zip"), msg)
    return tuple(tuple(g) for g in value)
