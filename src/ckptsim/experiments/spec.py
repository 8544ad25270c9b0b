"""Experiment specs: a TOML file read into a validated `Spec`, or one error listing every problem.

The format is documented in docs/experiments.md.  In short:

    name = "backfilling"
    seeds = [1, 2, 3]                 # or: replications = 3  (seeds 1, 2, 3)
    metrics = ["mean_wait", "mean_bsld"]
    trace_dir = "../traces"           # relative trace paths resolve against it

    [workloads.sdsc]
    trace = "SDSC-SP2-1998-4.2-cln.swf.gz"
    first = 2000
    alpha = [0.0, 0.5, 1.0]           # a list is a grid axis

    [workloads.model]
    generator = "lublin"
    n = 2000

    [[schedulers]]
    name = "easy"
    params = { requeue = ["front", "order"] }

    [[figures]]
    name = "bsld"
    x = "alpha"
    y = "mean_bsld"
    group_by = "scheduler"

Validation happens before any run starts and collects every problem (unknown keys, unknown
schedulers, out-of-range values, missing traces, bad figure columns) with its location, e.g.
`schedulers[1].params.requeue[0] (line 14)`, so that a user fixes a spec in one pass.

This module reads the top-level keys and the schedulers; the checks of values and the
collection of problems are in `ckptsim.experiments.specvalues`, the workloads in
`specworkloads` (their components in `speccomp`, other generators' options in `specgen`), the
figures in `specfigures`.
"""

from __future__ import annotations

import dataclasses
import itertools
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckptsim import tomllines
from ckptsim.errors import ConfigError, did_you_mean, shown, shown_key
from ckptsim.experiments import grid
from ckptsim.experiments.columns import PARAM_PREFIX, WORKLOAD_PREFIX
from ckptsim.experiments.specfigures import (
    FIGURE_KEYS,
    FIGURE_KINDS,
    FigureSpec,
    _figures,
)
from ckptsim.experiments.specvalues import (
    _NAME,
    DEFAULT_METRICS,
    MAX_REPLICATIONS,
    TOP_KEYS,
    Bad,
    _as_axis,
    _metrics,
    _Problems,
    _scalar,
    _seeds,
    _unknown,
    _zip_groups,
    known_metrics,
)
from ckptsim.experiments.specworkloads import (
    GENERATOR_OPTIONS,
    GENERATORS,
    PLATFORM,
    TRACE_OPTIONS,
    TRANSFORM_OPTIONS,
    PlatformChoice,
    WorkloadSpec,
    _trace_folder,
    _workloads,
)

__all__ = [
    "DEFAULT_METRICS", "FIGURE_KEYS", "FIGURE_KINDS", "GENERATOR_OPTIONS", "GENERATORS",
    "MAX_REPLICATIONS", "OVERRUN", "PLATFORM", "SCHEDULER_KEYS", "TOP_KEYS", "TRACE_OPTIONS",
    "TRANSFORM_OPTIONS", "Bad", "FigureSpec", "PlatformChoice", "SchedulerSpec", "Spec",
    "SpecError", "WorkloadSpec", "known_metrics", "load_spec", "parse_spec",
]

OVERRUN = ("extend", "kill")

SCHEDULER_KEYS = ("name", "label", "params", "zip", "workloads", "overrun")


class SpecError(ConfigError):
    """An experiment spec has problems; `problems` lists (location, message) pairs."""

    def __init__(self, path: str, problems: Sequence[tuple[str, str]]) -> None:
        self.problems = list(problems)
        n = len(self.problems)
        lines = "\n".join(f"  - {loc}: {msg}" for loc, msg in self.problems)
        super().__init__(str(path), f"{n} problem{'s' if n != 1 else ''} in the experiment "
                                    f"spec:\n{lines}")


# ----------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class SchedulerSpec:
    """One `[[schedulers]]` entry: a policy, a grid of its parameters, and where it runs."""

    index: int
    name: str
    label: str
    params: dict[str, list[Any]]
    zip: tuple[tuple[str, ...], ...]
    workloads: tuple[str, ...]
    overrun: str


@dataclass(frozen=True)
class Spec:
    path: Path
    text: str
    name: str
    description: str
    seeds: tuple[int, ...]
    metrics: tuple[str, ...]
    trace_dir: Path
    check: bool
    keep_jobs: bool
    workloads: dict[str, WorkloadSpec]
    schedulers: tuple[SchedulerSpec, ...]
    figures: tuple[FigureSpec, ...]


# ----------------------------------------------------------------------------- parsing
def load_spec(path: str | Path, *, trace_dir: str | Path | None = None) -> Spec:
    """Read and validate an experiment spec.

    Relative trace paths resolve against `trace_dir` (e.g. `--trace-dir`, relative to the
    current folder), else the spec's `trace_dir` (relative to the spec's folder), else the
    spec's folder.

    Raises:
        SpecError: listing every problem found, each with its location.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise SpecError(str(p), [("spec", f"cannot read: {exc.strerror or exc}")]) from None
    try:
        text = raw.decode("utf-8-sig")  # TOML is UTF-8; a byte-order mark is ignored
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise SpecError(str(p), [("spec", f"line {line}: byte {raw[exc.start]:#04x} is not "
                                          "UTF-8 (TOML files are UTF-8 text; was it saved in "
                                          "another encoding, or is it not a spec?)")]) from None
    return parse_spec(text, p, trace_dir=trace_dir)


def parse_spec(text: str, path: str | Path = "spec.toml", *,
               trace_dir: str | Path | None = None) -> Spec:
    """Validate the text of a spec (see `load_spec`).  A plug-in file named inside a value
    (the checkpoint component's `policy`) is looked for beside the spec first."""
    from ckptsim.plugins import files_relative_to

    with files_relative_to(Path(path).resolve().parent):
        return _parse_spec(text, path, trace_dir)


def _parse_spec(text: str, path: str | Path, trace_dir: str | Path | None) -> Spec:
    p = Path(path)
    try:
        doc = tomllines.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(str(p), [("toml", f"not valid TOML: {exc}")]) from None
    problems = _Problems(text)
    _unknown(problems, "", doc, TOP_KEYS)

    name = _scalar(problems, doc, "name", str, p.stem.removesuffix(".toml"))
    if not _NAME.match(name):
        problems.add("name", f"use letters, digits, '_', '.', '-' only, got {shown(name)}")
    description = _scalar(problems, doc, "description", str, "")
    seeds = _seeds(problems, doc)
    check = _scalar(problems, doc, "check", bool, False)
    keep_jobs = _scalar(problems, doc, "keep_jobs", bool, False)
    overrun = _scalar(problems, doc, "overrun", str, "extend")
    if overrun not in OVERRUN:
        problems.add("overrun", f"got {shown(overrun)}; accepted: {', '.join(OVERRUN)}")
    folder = _trace_folder(problems, doc, p, trace_dir)

    at = len(problems.items)
    workloads = _workloads(problems, doc, folder, p.resolve().parent)
    schedulers = _schedulers(problems, doc, workloads, overrun, p.resolve().parent)
    # The metrics are checked once the plug-ins the spec names are loaded (their counters
    # are metrics too); their problems are listed first, where the key is.
    later, problems.items[at:] = problems.items[at:], []
    metric_names = known_metrics() + [m for m in _plugin_counters(workloads, schedulers)
                                      if m not in known_metrics()]
    metrics = _metrics(problems, doc, metric_names)
    problems.items += later
    columns = _dimension_columns(workloads, schedulers)
    figures = _figures(problems, doc, columns, metric_names)

    if problems.items:
        raise SpecError(str(p), problems.items)
    return Spec(path=p, text=text, name=name, description=description, seeds=seeds,
                metrics=metrics, trace_dir=folder, check=check, keep_jobs=keep_jobs,
                workloads=workloads, schedulers=tuple(schedulers), figures=tuple(figures))


def _plugin_counters(workloads: dict[str, WorkloadSpec],
                     schedulers: list[SchedulerSpec]) -> list[str]:
    """The counters of the plug-in schedulers and components the spec names (the built-ins'
    are in `known_metrics`)."""
    from ckptsim.components import component_names, get_component
    from ckptsim.experiments.speccomp import component_option
    from ckptsim.policies.base import get_scheduler, scheduler_names

    classes: list[Any] = [get_scheduler(s.name) for s in schedulers
                          if s.name not in scheduler_names()]
    for w in workloads.values():
        for key in w.options:
            target = component_option(key)
            if target is not None and target[0] not in component_names():
                classes.append(get_component(target[0]))
    out: list[str] = []
    for cls in classes:
        out += [c for c in cls.counter_names if c not in out]
    return out


def _schedulers(problems: _Problems, doc: dict[str, Any], workloads: dict[str, WorkloadSpec],
                overrun: str, base: Path = Path(".")) -> list[SchedulerSpec]:
    from ckptsim.plugins import resolve_file
    from ckptsim.policies.base import get_scheduler, scheduler_names

    entries = doc.get("schedulers")
    if not isinstance(entries, list) or not entries:
        problems.add("schedulers", "expected at least one [[schedulers]] entry")
        return []
    out = []
    for i, entry in enumerate(entries):
        loc = f"schedulers[{i}]"
        if not isinstance(entry, dict):
            problems.add(loc, "expected a table with name = SCHEDULER")
            continue
        name = written = entry.get("name")
        bad = None
        if isinstance(name, str) and name not in scheduler_names():
            # A plug-in (docs/plugins.md): a file path resolves against the spec's folder.
            name = resolve_file(name, base)
            try:
                get_scheduler(name)
            except ConfigError as exc:
                bad = exc.message
        elif name not in scheduler_names():
            bad = (f"unknown scheduler {name!r}{did_you_mean(name, scheduler_names())}; "
                   f"accepted: {', '.join(scheduler_names())}")
        # A parameter written beside name belongs in params.
        own_params = () if bad else [f.name for f in dataclasses.fields(get_scheduler(name).Params)]
        _unknown(problems, f"{loc}.", entry, SCHEDULER_KEYS,
                 {k: f"{k} is a parameter of {written}: give it in params = {{ {k} = ... }}"
                  for k in own_params})
        if bad:
            problems.add(f"{loc}.name", bad)
            continue
        label = _scalar(problems, entry, "label", str, written, f"{loc}.")
        own = _scalar(problems, entry, "overrun", str, overrun, f"{loc}.")
        if "overrun" in entry and own not in OVERRUN:
            problems.add(f"{loc}.overrun", f"got {shown(own)}; accepted: {', '.join(OVERRUN)}")
        before = len(problems.items)
        params = _scheduler_params(problems, loc, name, entry.get("params", {}))
        zips = (_zip_groups(problems, f"{loc}.zip", entry["zip"], params)
                if "zip" in entry else ())
        names = entry.get("workloads", list(workloads))
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            problems.add(f"{loc}.workloads", f"expected a list of workload names, got "
                                             f"{shown(names)}")
            names = []
        for j, n in enumerate(names):
            if n not in workloads:
                problems.add(f"{loc}.workloads[{j}]", f"unknown workload {shown(n)}; accepted: "
                                                      f"{', '.join(map(shown_key, workloads))}")
        if len(problems.items) == before:
            _check_combinations(problems, loc, name, params, zips)
        out.append(SchedulerSpec(index=i, name=name, label=label, params=params, zip=zips,
                                 workloads=tuple(n for n in names if n in workloads),
                                 overrun=own))
    # A label names one scheduler: two schedulers under one label would be one bar, one
    # group, their runs averaged as if replications.
    first: dict[str, SchedulerSpec] = {}
    for sched in out:
        other = first.setdefault(sched.label, sched)
        if other.name != sched.name:
            problems.add(f"schedulers[{sched.index}].label",
                         f"{shown(sched.label)} is also schedulers[{other.index}]'s label, for "
                         f"another scheduler ({other.name}); give each scheduler a label of "
                         "its own")
    return out


def _scheduler_params(problems: _Problems, loc: str, name: str, table: Any
                      ) -> dict[str, list[Any]]:
    from ckptsim.policies.base import get_scheduler, make_params

    if not isinstance(table, dict):
        problems.add(f"{loc}.params", f"expected a table of parameters, got {shown(table)}")
        return {}
    cls = get_scheduler(name)
    accepted = [f.name for f in dataclasses.fields(cls.Params)]
    axes: dict[str, list[Any]] = {}
    for key, value in table.items():
        if key not in accepted:
            problems.add(f"{loc}.params.{key}", f"unknown parameter of {name}"
                                                f"{did_you_mean(key, accepted)}; accepted: "
                                                f"{', '.join(accepted) or 'none'}")
            continue

        def check(v: Any, key: str = key) -> Any:
            try:
                return getattr(make_params(cls.Params, {key: v}), key)
            except ConfigError as exc:
                alone = exc
            # Refused beside the others' defaults only (shares that must sum to 1, a bound
            # below another): it stands if the values the entry gives the others accept it;
            # `_check_combinations` then judges every combination.
            for point in _other_values(table, accepted, key):
                try:
                    return getattr(make_params(cls.Params, {**point, key: v}), key)
                except ConfigError:
                    continue
            raise Bad(str(alone).removeprefix(f"{alone.key}: ")) from None

        axes[key] = _as_axis(problems, f"{loc}.params.{key}", value, check)
    return axes


#: Most combinations of the other parameters' values a refused value is tried with.
_MAX_CONTEXTS = 64


def _other_values(table: dict[str, Any], accepted: list[str], key: str
                  ) -> Iterator[dict[str, Any]]:
    """Combinations of the values an entry's params give its parameters other than `key`
    (each list an axis, at most `_MAX_CONTEXTS` of them; none when it gives no other)."""
    others = {k: (v if isinstance(v, list) else [v]) for k, v in table.items()
              if k != key and k in accepted}
    if not others:
        return iter(())
    points = itertools.product(*others.values())
    return (dict(zip(others, p, strict=True))
            for p in itertools.islice(points, _MAX_CONTEXTS))


def _check_combinations(problems: _Problems, loc: str, name: str,
                        params: dict[str, list[Any]], zips: tuple[tuple[str, ...], ...]) -> None:
    """Each value was checked on its own (beside the entry's other values); a policy may also
    refuse some combinations."""
    from ckptsim.policies.base import get_scheduler, make_params

    cls = get_scheduler(name)
    bad = []
    for point in grid.expand(params, zips):
        try:
            make_params(cls.Params, point)
        except ConfigError as exc:
            bad.append(f"{point}: {exc}")
    for msg in bad[:5]:
        problems.add(f"{loc}.params", msg)
    if len(bad) > 5:
        problems.add(f"{loc}.params", f"... and {len(bad) - 5} more refused combinations")


def _dimension_columns(workloads: dict[str, WorkloadSpec],
                       schedulers: list[SchedulerSpec]) -> list[str]:
    """Store columns that describe a run's inputs (figures and filters may name them)."""
    from ckptsim.policies.base import get_scheduler

    cols = ["workload", "scheduler", "scheduler_name", "seed", "overrun"]
    for w in workloads.values():
        cols += [WORKLOAD_PREFIX + k for k in w.options if WORKLOAD_PREFIX + k not in cols]
    for s in schedulers:
        for f in dataclasses.fields(get_scheduler(s.name).Params):
            if PARAM_PREFIX + f.name not in cols:
                cols.append(PARAM_PREFIX + f.name)
    return cols
