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
"""

from __future__ import annotations

import dataclasses
import math
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ckptsim.components import alias_keys
from ckptsim.errors import ConfigError
from ckptsim.experiments import grid
from ckptsim.experiments.columns import PARAM_PREFIX, WORKLOAD_PREFIX, resolve
from ckptsim.experiments.speccomp import check_combinations, component_axes
from ckptsim.experiments.specgen import check_points, generator_options
from ckptsim.limits import MAX_NODES
from ckptsim.tomllines import key_lines, line_of
from ckptsim.workload.source import CHECKS as GENERATOR_CHECKS

#: Metrics shown by `ckptsim results` and the report when a spec names none.
DEFAULT_METRICS = ("mean_wait", "mean_bsld", "utilization", "makespan")
#: Generators a spec may name (`ckptsim.workload.source.CHECKS`): lublin, grid.
GENERATORS = tuple(GENERATOR_CHECKS)
FIGURE_KINDS = ("line", "bar")
OVERRUN = ("extend", "kill")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_WORKLOAD_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]*$")

TOP_KEYS = ("name", "description", "seeds", "replications", "metrics", "trace_dir", "overrun",
            "check", "keep_jobs", "workloads", "schedulers", "figures")
SCHEDULER_KEYS = ("name", "label", "params", "zip", "workloads", "overrun")
FIGURE_KEYS = ("name", "kind", "x", "y", "group_by", "facet_by", "where", "title", "xlabel",
               "ylabel", "logx", "logy")


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
class WorkloadSpec:
    """A named workload: a trace or a generator, with options that may be grid axes.

    `options` maps every option given in the spec to its list of values (a single value is a
    list of one); `zip` lists the groups of options that vary together.
    """

    name: str
    kind: str  # "trace" or a generator name
    trace: str | None  # the trace path as written in the spec
    path: str | None  # the trace path resolved against the trace folder
    options: dict[str, list[Any]]
    zip: tuple[tuple[str, ...], ...] = ()


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
class FigureSpec:
    """One `[[figures]]` entry; column names are resolved to store columns."""

    name: str
    kind: str
    x: str
    y: str
    group_by: str | None = None
    facet_by: str | None = None
    where: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    logx: bool = False
    logy: bool = False


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


# ----------------------------------------------------------------------------- values
class Bad(ValueError):
    """A value is wrong; the message says what is accepted."""


def _int(low: int, high: int | None = None, name: str = "") -> Callable[[Any], int]:
    """An integer >= low (and <= high, the constant `name`, when given)."""
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise Bad(f"expected an integer >= {low}, got {v!r}")
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
                      f"got {v!r}")
        return float(v)
    return check


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise Bad(f"expected true or false, got {v!r}")
    return v


def _choice(*accepted: str) -> Callable[[Any], str]:
    def check(v: Any) -> str:
        if v not in accepted:
            raise Bad(f"got {v!r}; accepted: {', '.join(accepted)}")
        return str(v)
    return check


def _window(v: Any) -> tuple[float, float]:
    ok = isinstance(v, list) and len(v) == 2 and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
    if not ok:
        raise Bad(f"expected [start, end] in seconds (end may be inf), got {v!r}")
    start, end = float(v[0]), float(v[1])
    if not (0 <= start < math.inf) or not end > start:
        raise Bad(f"expected 0 <= start < end, got [{v[0]!r}, {v[1]!r}]")
    return (start, end)


def _estimate_models() -> tuple[str, ...]:
    from ckptsim.workload.estimates import ESTIMATE_MODELS

    return tuple(ESTIMATE_MODELS)


#: Transforms, applied in this order after reading or generating (as `load_workload` does).
TRANSFORM_OPTIONS: dict[str, Callable[[Any], Any]] = {
    "window": _window, "first": _int(1), "alpha": _real(0.0),
    "load_scale": _real(0.0, open_low=True),
}
TRACE_OPTIONS: dict[str, Callable[[Any], Any]] = {
    "machine_size": _int(1, MAX_NODES, "MAX_NODES"), "oversize": _choice("skip", "clamp"),
    "size_from": _choice("requested", "allocated"), "skip_bad_lines": _bool,
}
GENERATOR_OPTIONS: dict[str, Callable[[Any], Any]] = {
    "n": _int(1), "machine": _int(1), "typed": _bool,
    "estimates": lambda v: _choice(*_estimate_models())(v),
}


#: The workload option naming the platform (a built-in name or a platform file).
PLATFORM = "platform"


@dataclass(frozen=True)
class PlatformChoice:
    """A platform given in a spec: as written, as passed to the run (a file resolved against
    the trace folder), and what run ids hash (a file by the SHA-256 of its text)."""

    written: str
    value: str
    identity: str

    def __str__(self) -> str:
        return self.written


def _platform(folder: Path) -> Callable[[Any], PlatformChoice]:
    def check(v: Any) -> PlatformChoice:
        import hashlib

        from ckptsim.platform.description import load_description

        if not isinstance(v, str) or not v.strip():
            raise Bad(f"expected a platform name or file, got {v!r}")
        value = v.strip()
        if value.lower().endswith(".toml"):
            value = str((folder / Path(value).expanduser()).resolve())
        try:
            desc = load_description(value)
        except ConfigError as exc:
            raise Bad(str(exc).removeprefix("platform: ")) from None
        identity = (f"sha256:{hashlib.sha256(desc.text.encode()).hexdigest()}"
                    if desc.text and desc.source not in ("newcastle", "smallpool")
                    else value)
        return PlatformChoice(v, value, identity)
    return check


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
        from ckptsim.policies.base import get_scheduler, scheduler_names

        keys = _summary_keys()
        for name in scheduler_names():  # the policies' own metrics
            keys += [k for k in get_scheduler(name).counter_names if k not in keys]
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


# ----------------------------------------------------------------------------- parsing
class _Problems:
    def __init__(self, text: str) -> None:
        self.items: list[tuple[str, str]] = []
        self.lines = key_lines(text)

    def add(self, loc: str, msg: str) -> None:
        line = line_of(self.lines, loc)
        item = (f"{loc} (line {line})" if line else loc, msg)
        if item not in self.items:  # e.g. one refused combination in several grid points
            self.items.append(item)


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
    """Validate the text of a spec (see `load_spec`)."""
    p = Path(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(str(p), [("toml", f"not valid TOML: {exc}")]) from None
    problems = _Problems(text)
    _unknown(problems, "", doc, TOP_KEYS)

    name = _scalar(problems, doc, "name", str, p.stem.removesuffix(".toml"))
    if not _NAME.match(name):
        problems.add("name", f"use letters, digits, '_', '.', '-' only, got {name!r}")
    description = _scalar(problems, doc, "description", str, "")
    seeds = _seeds(problems, doc)
    check = _scalar(problems, doc, "check", bool, False)
    keep_jobs = _scalar(problems, doc, "keep_jobs", bool, False)
    overrun = _scalar(problems, doc, "overrun", str, "extend")
    if overrun not in OVERRUN:
        problems.add("overrun", f"got {overrun!r}; accepted: {', '.join(OVERRUN)}")
    folder = _trace_folder(problems, doc, p, trace_dir)

    metric_names = known_metrics()
    metrics = _metrics(problems, doc, metric_names)
    workloads = _workloads(problems, doc, folder)
    schedulers = _schedulers(problems, doc, workloads, overrun, p.resolve().parent)
    columns = _dimension_columns(workloads, schedulers)
    figures = _figures(problems, doc, columns, metric_names)

    if problems.items:
        raise SpecError(str(p), problems.items)
    return Spec(path=p, text=text, name=name, description=description, seeds=seeds,
                metrics=metrics, trace_dir=folder, check=check, keep_jobs=keep_jobs,
                workloads=workloads, schedulers=tuple(schedulers), figures=tuple(figures))


def _unknown(problems: _Problems, where: str, table: dict[str, Any],
             accepted: Sequence[str]) -> None:
    for key in table:
        if key not in accepted:
            problems.add(f"{where}{key}", f"unknown key; accepted: {', '.join(accepted)}")


def _scalar(problems: _Problems, table: dict[str, Any], key: str, typ: type, default: Any,
            where: str = "") -> Any:
    if key not in table:
        return default
    value = table[key]
    if not isinstance(value, typ) or (typ is not bool and isinstance(value, bool)):
        problems.add(where + key, f"expected {_TYPE_NAMES.get(typ, typ.__name__)}, "
                                  f"got {value!r}")
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
            problems.add("replications", f"expected an integer >= 1, got {n!r}")
            return (1,)
        if n > MAX_REPLICATIONS:
            problems.add("replications", f"{n} is more than the limit, {MAX_REPLICATIONS} "
                                         "(MAX_REPLICATIONS; a sweep of more than 100,000 runs "
                                         "also needs --max-runs)")
            return (1,)
        return tuple(range(1, n + 1))
    seeds = doc.get("seeds", [1])
    if not isinstance(seeds, list) or not seeds:
        problems.add("seeds", f"expected a non-empty list of integers, got {seeds!r}")
        return (1,)
    good: list[int] = []
    seen: set[int] = set()
    for i, s in enumerate(seeds):
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            problems.add(f"seeds[{i}]", f"expected an integer >= 0, got {s!r}")
        elif s in seen:
            problems.add(f"seeds[{i}]", f"seed {s} is listed twice")
        else:
            good.append(s)
            seen.add(s)
    return tuple(good) or (1,)


def _trace_folder(problems: _Problems, doc: dict[str, Any], path: Path,
                  override: str | Path | None) -> Path:
    base = path.resolve().parent
    if override is not None:
        folder = Path(override).expanduser().resolve()
        where = "--trace-dir"
    elif "trace_dir" in doc:
        value = _scalar(problems, doc, "trace_dir", str, ".")
        folder = (base / Path(value).expanduser()).resolve()
        where = "trace_dir"
    else:
        return base
    if not folder.is_dir():
        problems.add(where, f"not a folder: {folder}")
    return folder


def _metrics(problems: _Problems, doc: dict[str, Any], known: list[str]) -> tuple[str, ...]:
    metrics = doc.get("metrics", list(DEFAULT_METRICS))
    if not isinstance(metrics, list) or not metrics:
        problems.add("metrics", f"expected a non-empty list of metric names, got {metrics!r}")
        return DEFAULT_METRICS
    out = []
    for i, m in enumerate(metrics):
        if m not in known:
            problems.add(f"metrics[{i}]", f"unknown metric {m!r}; accepted: {', '.join(known)}")
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
                          f"got {value!r}")
        return ()
    for sub, msg in grid.check_zip(axes, value):
        problems.add(loc + sub.removeprefix("zip"), msg)
    return tuple(tuple(g) for g in value)


def _workloads(problems: _Problems, doc: dict[str, Any], folder: Path
               ) -> dict[str, WorkloadSpec]:
    table = doc.get("workloads")
    if not isinstance(table, dict) or not table:
        problems.add("workloads", "expected at least one [workloads.NAME] table")
        return {}
    out = {}
    for name, w in table.items():
        loc = f"workloads.{name}"
        if not _WORKLOAD_NAME.match(name):
            problems.add(loc, "use letters, digits, '_' and '-' only in workload names")
        if not isinstance(w, dict):
            problems.add(loc, "expected a table with trace = PATH or generator = NAME")
            continue
        spec = _workload(problems, loc, name, w, folder)
        if spec is not None:
            out[name] = spec
    return out


def _workload(problems: _Problems, loc: str, name: str, w: dict[str, Any],
              folder: Path) -> WorkloadSpec | None:
    if ("trace" in w) == ("generator" in w):
        problems.add(loc, "give exactly one of trace = PATH or generator = "
                          + " | ".join(repr(g) for g in GENERATORS))
        return None
    options: dict[str, Callable[[Any], Any]]
    trace = path = None
    if "trace" in w:
        kind = "trace"
        options = {**TRACE_OPTIONS, **TRANSFORM_OPTIONS}
        trace = _scalar(problems, w, "trace", str, None, f"{loc}.")
        if trace is not None:
            resolved = (folder / Path(trace).expanduser()).resolve()
            path = str(resolved)
            if not resolved.is_file():
                problems.add(f"{loc}.trace", f"no such file: {resolved} (relative paths "
                             f"resolve against the trace folder {folder}; set trace_dir in "
                             "the spec or pass --trace-dir)")
    else:
        kind = w["generator"]
        if kind not in GENERATORS:
            problems.add(f"{loc}.generator", f"got {kind!r}; accepted: {', '.join(GENERATORS)}")
            return None
        own = GENERATOR_OPTIONS if kind == "lublin" else generator_options(kind, w)
        options = {**own, **TRANSFORM_OPTIONS}
        if "seed" in w:
            problems.add(f"{loc}.seed", "a generator's seed is the run's seed: set seeds or "
                                        "replications at the top of the spec")
    options = {**options, PLATFORM: _platform(folder)}
    accepted = ("trace" if kind == "trace" else "generator", *options, *alias_keys(),
                "components", "zip")
    _unknown(problems, f"{loc}.", {k: v for k, v in w.items()
                                   if not (k == "seed" and kind != "trace")}, accepted)
    before = len(problems.items)
    axes = {key: _as_axis(problems, f"{loc}.{key}", w[key], check, pair=key == "window")
            for key, check in options.items() if key in w}
    axes.update(component_axes(problems, loc, w, folder))
    zips = _zip_groups(problems, f"{loc}.zip", w["zip"], axes) if "zip" in w else ()
    check_combinations(problems, loc, axes, zips, folder)
    if kind == "lublin" and all(axes.get(k) for k in ("n", "machine", "typed")):
        _check_generator(problems, loc, axes)
    elif kind not in ("trace", "lublin") and len(problems.items) == before:
        check_points(problems, loc, kind, axes, zips)
    return WorkloadSpec(name=name, kind=kind, trace=trace, path=path, options=axes, zip=zips)


def _check_generator(problems: _Problems, loc: str, axes: dict[str, list[Any]]) -> None:
    """The model's own checks (e.g. a machine too small for the model's job sizes)."""
    from ckptsim.workload.lublin import LublinParams

    for n in axes["n"]:
        for machine in axes["machine"]:
            try:
                dataclasses.replace(LublinParams(), n_jobs=n, machine_size=machine).validate()
            except ConfigError as exc:
                problems.add(loc, f"n = {n}, machine = {machine}: {exc}")


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
        _unknown(problems, f"{loc}.", entry, SCHEDULER_KEYS)
        name = written = entry.get("name")
        if isinstance(name, str) and name not in scheduler_names():
            # A plug-in (docs/plugins.md): a file path resolves against the spec's folder.
            name = resolve_file(name, base)
            try:
                get_scheduler(name)
            except ConfigError as exc:
                problems.add(f"{loc}.name", exc.message)
                continue
        elif name not in scheduler_names():
            problems.add(f"{loc}.name", f"unknown scheduler {name!r}; accepted: "
                                        f"{', '.join(scheduler_names())}")
            continue
        label = _scalar(problems, entry, "label", str, written, f"{loc}.")
        own = _scalar(problems, entry, "overrun", str, overrun, f"{loc}.")
        if "overrun" in entry and own not in OVERRUN:
            problems.add(f"{loc}.overrun", f"got {own!r}; accepted: {', '.join(OVERRUN)}")
        before = len(problems.items)
        params = _scheduler_params(problems, loc, name, entry.get("params", {}))
        zips = (_zip_groups(problems, f"{loc}.zip", entry["zip"], params)
                if "zip" in entry else ())
        names = entry.get("workloads", list(workloads))
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            problems.add(f"{loc}.workloads", f"expected a list of workload names, got {names!r}")
            names = []
        for j, n in enumerate(names):
            if n not in workloads:
                problems.add(f"{loc}.workloads[{j}]", f"unknown workload {n!r}; accepted: "
                                                      f"{', '.join(workloads)}")
        if len(problems.items) == before:
            _check_combinations(problems, loc, name, params, zips)
        out.append(SchedulerSpec(index=i, name=name, label=label, params=params, zip=zips,
                                 workloads=tuple(n for n in names if n in workloads),
                                 overrun=own))
    return out


def _scheduler_params(problems: _Problems, loc: str, name: str, table: Any
                      ) -> dict[str, list[Any]]:
    from ckptsim.policies.base import get_scheduler, make_params

    if not isinstance(table, dict):
        problems.add(f"{loc}.params", f"expected a table of parameters, got {table!r}")
        return {}
    cls = get_scheduler(name)
    accepted = [f.name for f in dataclasses.fields(cls.Params)]
    axes: dict[str, list[Any]] = {}
    for key, value in table.items():
        if key not in accepted:
            problems.add(f"{loc}.params.{key}", f"unknown parameter of {name}; accepted: "
                                                f"{', '.join(accepted) or 'none'}")
            continue

        def check(v: Any, key: str = key) -> Any:
            try:
                return getattr(make_params(cls.Params, {key: v}), key)
            except ConfigError as exc:
                raise Bad(str(exc).removeprefix(f"{exc.key}: ")) from None

        axes[key] = _as_axis(problems, f"{loc}.params.{key}", value, check)
    return axes


def _check_combinations(problems: _Problems, loc: str, name: str,
                        params: dict[str, list[Any]], zips: tuple[tuple[str, ...], ...]) -> None:
    """Each value was checked alone; a policy may also refuse some combinations."""
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


def _figures(problems: _Problems, doc: dict[str, Any], columns: list[str],
             metrics: list[str]) -> list[FigureSpec]:
    entries = doc.get("figures", [])
    if not isinstance(entries, list):
        problems.add("figures", "expected [[figures]] entries")
        return []
    out: list[FigureSpec] = []
    for i, entry in enumerate(entries):
        loc = f"figures[{i}]"
        if not isinstance(entry, dict):
            problems.add(loc, "expected a table")
            continue
        _unknown(problems, f"{loc}.", entry, FIGURE_KEYS)
        name = _scalar(problems, entry, "name", str, f"figure{i + 1}", f"{loc}.")
        if not _NAME.match(name):
            problems.add(f"{loc}.name", f"use letters, digits, '_', '.', '-' only, got {name!r}")
        if name in [f.name for f in out]:
            problems.add(f"{loc}.name", f"figure name {name!r} is used twice")
        kind = _scalar(problems, entry, "kind", str, "line", f"{loc}.")
        if kind not in FIGURE_KINDS:
            problems.add(f"{loc}.kind", f"got {kind!r}; accepted: {', '.join(FIGURE_KINDS)}")

        def col(key: str, required: bool = False, loc: str = loc,
                entry: dict[str, Any] = entry) -> str | None:
            if key not in entry:
                if required:
                    problems.add(f"{loc}.{key}", "missing; name a parameter column")
                return None
            try:
                return resolve(str(entry[key]), columns)
            except KeyError as exc:
                problems.add(f"{loc}.{key}", str(exc.args[0]))
                return None

        x, group_by, facet_by = col("x", True), col("group_by"), col("facet_by")
        y = entry.get("y")
        if y not in metrics:
            problems.add(f"{loc}.y", f"expected a metric, got {y!r}; accepted: "
                                     f"{', '.join(metrics)}")
        where = _figure_where(problems, f"{loc}.where", entry.get("where", {}), columns)
        texts = {k: _scalar(problems, entry, k, str, "", f"{loc}.")
                 for k in ("title", "xlabel", "ylabel")}
        logs = {k: _scalar(problems, entry, k, bool, False, f"{loc}.") for k in ("logx", "logy")}
        if x is not None and isinstance(y, str):
            out.append(FigureSpec(name=name, kind=kind, x=x, y=y, group_by=group_by,
                                  facet_by=facet_by, where=where, **texts, **logs))
    return out


def _figure_where(problems: _Problems, loc: str, table: Any, columns: list[str]
                  ) -> dict[str, tuple[Any, ...]]:
    if not isinstance(table, dict):
        problems.add(loc, f"expected a table of column = value(s), got {table!r}")
        return {}
    out = {}
    for key, value in table.items():
        try:
            column = resolve(key, columns)
        except KeyError as exc:
            problems.add(f"{loc}.{key}", str(exc.args[0]))
            continue
        out[column] = tuple(value) if isinstance(value, list) else (value,)
    return out
