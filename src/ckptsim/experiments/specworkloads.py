"""The workloads of an experiment spec: `[workloads.NAME]` tables read into `WorkloadSpec`s.

A workload is a trace (its path resolved against the trace folder: `--trace-dir`, else the
spec's `trace_dir`, else the spec's folder) or a generator, with the options each accepts
(transforms, trace options, the `lublin` model's options, a platform), its components
(`ckptsim.experiments.speccomp`) and other generators' options (`specgen`); every option may
be a grid axis.  The spec's entry point is `ckptsim.experiments.spec`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckptsim.components import alias_keys
from ckptsim.errors import ConfigError, shown
from ckptsim.experiments.speccomp import check_combinations, component_axes
from ckptsim.experiments.specgen import check_points, generator_options
from ckptsim.experiments.specvalues import (
    Bad,
    _as_axis,
    _bool,
    _choice,
    _int,
    _Problems,
    _real,
    _scalar,
    _unknown,
    _window,
    _zip_groups,
)
from ckptsim.limits import MAX_NODES
from ckptsim.workload.source import CHECKS as GENERATOR_CHECKS

#: Generators a spec may name (`ckptsim.workload.source.CHECKS`): lublin, grid.
GENERATORS = tuple(GENERATOR_CHECKS)
_WORKLOAD_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]*$")


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
    "start_hour": _int(0, 23, "the last hour of the day"), "max_est": _real(3600.0),
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
            raise Bad(f"expected a platform name or file, got {shown(v)}")
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


def _workloads(problems: _Problems, doc: dict[str, Any], folder: Path,
               base: Path | None = None) -> dict[str, WorkloadSpec]:
    table = doc.get("workloads")
    if isinstance(table, list):
        problems.add("workloads", "written as an array of tables ([[workloads]]); give each "
                                  "workload a name of its own: [workloads.NAME] with trace = "
                                  "PATH or generator = NAME")
        return {}
    if not isinstance(table, dict) or not table:
        problems.add("workloads", "expected at least one [workloads.NAME] table")
        return {}
    out = {}
    plugins: dict[str, tuple[type, str]] = {}  # plug-in components named so far
    for name, w in table.items():
        loc = f"workloads.{name}"
        if not _WORKLOAD_NAME.match(name):
            problems.add(loc, "use letters, digits, '_' and '-' only in workload names")
        if not isinstance(w, dict):
            problems.add(loc, "expected a table with trace = PATH or generator = NAME")
            continue
        spec = _workload(problems, loc, name, w, folder, base, plugins)
        if spec is not None:
            out[name] = spec
    return out


def _workload(problems: _Problems, loc: str, name: str, w: dict[str, Any],
              folder: Path, base: Path | None = None,
              plugins: dict[str, tuple[type, str]] | None = None) -> WorkloadSpec | None:
    if ("trace" in w) == ("generator" in w):
        keys = f"; the table has: {', '.join(w)}" if "trace" not in w and w else ""
        problems.add(loc, "give exactly one of trace = PATH or generator = "
                          + " | ".join(repr(g) for g in GENERATORS) + keys)
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
            problems.add(f"{loc}.generator", f"got {shown(kind)}; accepted: "
                                             f"{', '.join(GENERATORS)}")
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
    axes.update(component_axes(problems, loc, w, folder, base,
                               reserved=(*options, "trace", "generator", "components", "zip"),
                               plugins=plugins))
    zips = _zip_groups(problems, f"{loc}.zip", w["zip"], axes) if "zip" in w else ()
    check_combinations(problems, loc, axes, zips, folder)
    if kind == "lublin" and all(axes.get(k) for k in ("n", "machine", "typed")):
        _check_generator(problems, loc, axes)
    if kind != "trace" and len(problems.items) == before and (
            kind != "lublin" or any(k in axes for k in ("start_hour", "max_est"))):
        check_points(problems, loc, kind, axes, zips)  # e.g. max_est with estimates=exact
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
