"""Naming a failure source on the command line or in a spec: `KIND:key=value,...`.

- `lanl:path=FILE,system=20[,start=..][,end=..][,count=4000][,jitter=auto|S]
  [,span=submit|run][,map=modulo|random][,transient=false][,seed=S]`: the LANL failure
  records, one system, optionally cut to a time window and rescaled to `count` failures over
  the simulated span (seed 004; beyond the log's size the copies are moved by up to `jitter`
  seconds, default `auto`, see `transforms.rescale_count`), mapped onto the simulated nodes.
  `span=run` (with a count) keeps the failures coming past the last submission, period after
  period at the same rate, until the last job ends (`ckptsim.failures.series`; the failures
  component draws them); the default `submit` draws them over the submit span only.
- `fta:path=FILE_OR_FOLDER[,platform=N][,start=..][,end=..][,count=...][,span=...][,map=...]
  [,transient=...][,seed=...]`: a Failure Trace Archive event trace.
- `synthetic:mtbf=SECONDS[,dist=weibull|exponential][,shape=0.7][,repair_mean=0]
  [,repair_cv=1][,seed=S][,max_per_job=1000]`: per-node failure processes over the simulated
  span; refused before anything is drawn when it would give more than `max_per_job` failures
  per job of the workload (nodes x span / mtbf / jobs) or more than 10^7 in all.

`start` / `end` bound the window read from the log: finite seconds after its first selected
failure, or a date (`2003-01-01`, `2003-01-01 12:00`).  Every number is finite: `inf` and
`nan` are refused, naming the option.  Trace failures keep their repair times unless
`transient=true` (the seed-004 model: the node is usable again at once).  Without `seed=` the
caller's seed is used (a sweep passes the run's seed, `ckptsim run` passes 0), so replications
of a sweep draw different mappings and thinnings.  Failure times are seconds from the start of
the simulated period; `offset` moves them onto the workload's clock (its first submission).
Counts of what was done end up in the trace's `counts` / `notes`.  What a left-out option
means is `SOURCE_DEFAULTS`, read by the loader and recorded in summary.json.
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ckptsim.errors import ConfigError, did_you_mean, shown, shown_key
from ckptsim.failures.model import FailureTrace
from ckptsim.rng import RandomStreams
from ckptsim.values import option_parts, parse_bool, parse_int

if TYPE_CHECKING:
    from ckptsim.failures.synthetic import SyntheticFailures

KINDS = ("lanl", "fta", "synthetic")
MAPPINGS = ("modulo", "random")
DISTRIBUTIONS = ("weibull", "exponential")
_TRACE_COMMON = {"path", "start", "end", "count", "jitter", "span", "map", "transient", "seed"}
#: Over what a log rescaled to a count is drawn: the workload's submit span (first to last
#: submission) or the whole run (the submit span's failures continued until the last job ends).
SPANS = ("submit", "run")
_KEYS = {
    "lanl": {"system"} | _TRACE_COMMON,
    "fta": {"platform"} | _TRACE_COMMON,
    "synthetic": {"mtbf", "dist", "shape", "repair_mean", "repair_cv", "seed", "max_per_job"},
}
TRACE_KINDS = ("lanl", "fta")

#: Most failures a synthetic source may be expected to draw (nodes x span / mtbf): beyond
#: that a run would spend its time and memory on failures, e.g. for an mtbf typed in hours.
MAX_SYNTHETIC_FAILURES = 10_000_000

#: Most failures a synthetic source may be expected to draw per job of the workload, unless
#: its `max_per_job=` option says otherwise: beyond it every job would be hit over and over
#: (e.g. mtbf=1 s on 64 nodes under 60 jobs: about 10^5 failures each, minutes and 0.5 GB).
MAX_FAILURES_PER_JOB = 1000

#: What an option left out of a source string means, as the string would write it (None:
#: not applied; `seed`, absent here: the run's seed): what the loader applies (`option`) and
#: what summary.json's `options.failures.spec` records (`source_options`).
SOURCE_DEFAULTS = {"start": None, "end": None, "count": None, "jitter": "auto",
                   "span": "submit", "map": "modulo", "transient": "false", "system": None,
                   "platform": None, "dist": "weibull", "shape": "0.7", "repair_mean": "0",
                   "repair_cv": "1", "max_per_job": str(MAX_FAILURES_PER_JOB)}


def option(opt: dict[str, str], key: str) -> str | None:
    """Option `key` of a parsed source string: as written, else `SOURCE_DEFAULTS`'."""
    return opt.get(key, SOURCE_DEFAULTS[key])


#: Logs kept per process: a sweep of 100 runs over one log parses it once.
_CACHE_SIZE = 4
_READS: OrderedDict[tuple[Any, ...], FailureTrace] = OrderedDict()


def clear_logs() -> None:
    """Forget the logs this process read (`_read`): the next run reads its log again."""
    _READS.clear()


def parse_failure_spec(spec: str) -> tuple[str, dict[str, str]]:
    """(kind, options) of a source string; unknown kinds and keys are refused."""
    if not isinstance(spec, str):
        raise ConfigError("failures", f"expected a string such as lanl:path=FILE,system=20, "
                                      f"got {shown(spec)}")
    kind, _, rest = spec.partition(":")
    kind = kind.strip()
    if kind not in KINDS:
        raise ConfigError("failures", f"unknown failure source {shown(kind)}"
                                      f"{did_you_mean(kind, KINDS)}; accepted: "
                                      f"{', '.join(KINDS)} (e.g. lanl:path=FILE,system=20)")
    options: dict[str, str] = {}
    for part in option_parts("failures", rest, spec):
        key, sep, value = part.partition("=")
        if not sep:
            raise ConfigError("failures", f"expected key=value in {shown(spec)}, got {shown(part)}")
        key = key.strip()
        if key in options:
            raise ConfigError(f"failures.{shown_key(key)}", f"is given twice in {shown(spec)}")
        options[key] = value.strip()
    unknown = sorted(set(options) - _KEYS[kind])
    if unknown:
        raise ConfigError(f"failures.{shown_key(unknown[0])}", f"unknown option of {kind}"
                                                    f"{did_you_mean(unknown[0], _KEYS[kind])}"
                                                    "; accepted: "
                                                    f"{', '.join(sorted(_KEYS[kind]))}")
    return kind, options


def source_options(spec: str, seed: int) -> dict[str, Any]:
    """What summary.json records of a source string (`options.failures.spec`): its kind and
    every option the kind accepts, as the string writes it, with what a left-out one means
    (`SOURCE_DEFAULTS`; `seed`: the run's, `seed`; None: not applied)."""
    kind, opt = parse_failure_spec(spec)
    values = {k: opt.get(k, str(seed) if k == "seed" else SOURCE_DEFAULTS.get(k))
              for k in sorted(_KEYS[kind])}
    return {"kind": kind, "options": values}


def format_failure_spec(kind: str, options: dict[str, Any]) -> str:
    return kind + ":" + ",".join(f"{k}={v}" for k, v in options.items())


def check_failure_spec(spec: str, *, base: str | Path | None = None) -> str:
    """Validate every option of a source string without reading the log; return the string
    with a relative `path` resolved against `base` (a spec's trace folder).

    Raises:
        ConfigError: naming the option and what it accepts.
    """
    kind, opt = parse_failure_spec(spec)
    for key in ("seed", "count", "system", "platform"):
        if key in opt:
            parse_int(f"failures.{key}", opt[key], low=0)
    if "count" in opt:
        _check_count("failures.count", parse_int("failures.count", opt["count"], low=0))
    if "max_per_job" in opt:
        parse_int("failures.max_per_job", opt["max_per_job"], low=1)
    for key in ("start", "end"):
        if key in opt:
            _bound(f"failures.{key}", opt[key])
    if "transient" in opt:
        parse_bool("failures.transient", opt["transient"])
    if "jitter" in opt:
        parse_jitter(opt["jitter"])
    if "span" in opt and opt["span"] not in SPANS:
        raise ConfigError("failures.span", f"got {shown(opt['span'])}; accepted: "
                                           f"{', '.join(SPANS)}")
    if "map" in opt and opt["map"] not in MAPPINGS:
        raise ConfigError("failures.map", f"got {shown(opt['map'])}; accepted: "
                                          f"{', '.join(MAPPINGS)}")
    if kind == "synthetic":
        if "mtbf" not in opt:
            raise ConfigError("failures.mtbf", "synthetic failures need mtbf=SECONDS (mean "
                                               "time between failures of one node)")
        for key in ("mtbf", "shape", "repair_mean", "repair_cv"):
            if key in opt:
                _float(f"failures.{key}", opt[key])
        if option(opt, "dist") not in DISTRIBUTIONS:
            raise ConfigError("failures.dist", f"got {shown(opt['dist'])}; accepted: "
                                               f"{', '.join(DISTRIBUTIONS)}")
        try:  # the model's ranges (mtbf > 0, the shape's bounds, ...), as a run checks them
            _synthetic_model(opt)
        except ConfigError as exc:
            raise ConfigError(f"failures.{exc.key}", exc.message) from None
        return spec
    if "path" not in opt:
        raise ConfigError("failures.path", f"{kind} failures need path=FILE")
    path = Path(opt["path"]).expanduser()
    if base is not None and not path.is_absolute():
        path = Path(base) / path
    if not path.exists():
        raise ConfigError("failures.path", f"no such file or folder: {path}"
                          + (" (relative paths resolve against the trace folder)"
                             if base is not None else ""))
    opt["path"] = str(path.resolve())
    return format_failure_spec(kind, opt)


def parse_jitter(value: str) -> float | None:
    """A rescaled log's copy jitter: `auto` (None: the transform's default) or seconds >= 0."""
    if value == "auto":
        return None
    try:
        x = _float("failures.jitter", value)
    except ConfigError:
        x = -1.0
    if x < 0:
        raise ConfigError("failures.jitter", f"got {shown(value)}; accepted: auto or a number of "
                                             "seconds >= 0")
    return x


def _check_count(key: str, count: int) -> None:
    """A log rescaled to `count` failures holds that many: the synthetic sources' limit."""
    if count > MAX_SYNTHETIC_FAILURES:
        raise ConfigError(key, f"{count} failures is more than the limit, "
                               f"{MAX_SYNTHETIC_FAILURES:,} (MAX_SYNTHETIC_FAILURES)")


def _synthetic_model(opt: dict[str, str]) -> SyntheticFailures:
    """The synthetic source's model of its options (a ConfigError for a value out of range)."""
    from ckptsim.failures.synthetic import SyntheticFailures

    return SyntheticFailures(
        mtbf=_float("failures.mtbf", opt["mtbf"]), distribution=option(opt, "dist"),
        shape=_float("failures.shape", option(opt, "shape")),
        repair_mean=_float("failures.repair_mean", option(opt, "repair_mean")),
        repair_cv=_float("failures.repair_cv", option(opt, "repair_cv")))


def _float(key: str, value: Any) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ConfigError(key, f"expected a number, got {shown(value)}") from None
    if not math.isfinite(x):
        raise ConfigError(key, f"expected a finite number, got {shown(value)}")
    return x


def _bound(key: str, value: str | None) -> float | str | None:
    """A window bound as written: a finite number of seconds, else a date for the reader to
    parse."""
    if value is None:
        return None
    try:
        x = float(value)
    except ValueError:
        return value
    if not math.isfinite(x):
        raise ConfigError(key, f"expected a finite number of seconds or a date, got {shown(value)}")
    return x


def _read(kind: str, opt: dict[str, str]) -> FailureTrace:
    """The selected records of a log, read once per process for the same file and selection."""
    path = opt["path"]
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ConfigError("failures.path", f"cannot read {path}: {exc.strerror or exc}") from None
    selection = tuple(option(opt, k) for k in ("system", "platform", "start", "end"))
    # The path as given is part of the key: the trace records it (summary.json shows it), so
    # a run's outputs never depend on how an earlier run in the process spelled the path.
    key = (kind, path, os.path.abspath(path), st.st_size, st.st_mtime_ns, selection)
    trace = _READS.get(key)
    if trace is not None:
        _READS.move_to_end(key)
        return trace
    start, end = (_bound(f"failures.{k}", option(opt, k)) for k in ("start", "end"))
    which = "system" if kind == "lanl" else "platform"
    number = None if option(opt, which) is None else parse_int(f"failures.{which}",
                                                                option(opt, which))
    if kind == "lanl":
        from ckptsim.failures.readers import read_lanl_cfdr

        trace = read_lanl_cfdr(path, system=number, start=start, end=end)
    else:
        from ckptsim.failures.readers import read_fta

        trace = read_fta(path, platform=number, start=start, end=end)
    _READS[key] = trace
    while len(_READS) > _CACHE_SIZE:
        _READS.popitem(last=False)
    return trace


def read_log(spec: str) -> FailureTrace | None:
    """The records of the log a `lanl:` or `fta:` source names, read through the cache the
    runs read it through (`_read`), without drawing, rescaling or mapping anything; None for a
    synthetic source (a sweep's pre-flight reads each log once so).

    Raises:
        ConfigError: an option the source does not accept (`check_failure_spec`).
        WorkloadError: the log cannot be read (naming its file, line and field).
    """
    kind, opt = parse_failure_spec(spec)
    check_failure_spec(spec)
    return None if kind == "synthetic" else _read(kind, opt)


def load_failures(spec: str, *, n_nodes: int, span: float, offset: float = 0.0,
                  seed: int = 0, count: int | None = None, jobs: int | None = None,
                  streams: RandomStreams | None = None) -> FailureTrace:
    """The failures named by `spec`, on nodes 0..n_nodes-1 over a period of `span` seconds
    starting at `offset` (the simulated clock of the workload's first submission).

    `seed` is used when the spec names none; `count` (a sweep's `failure_count`) rescales a
    log to that many failures, overriding a `count=` in the spec.  `jobs`: the workload's job
    count; a synthetic source expected to draw more than `max_per_job` (default
    MAX_FAILURES_PER_JOB) failures per job is refused before anything is drawn.  A source
    with `span=run` gives here its first period, the submit span's (`streams`: the random
    streams its continuation draws on, `ckptsim.failures.series.FailureSeries`); without
    `streams` it is refused.
    """
    kind, opt = parse_failure_spec(spec)
    if option(opt, "span") == "run" and streams is None:
        raise ConfigError("failures.span", "run continues the failures until the last job "
                                           "ends, which only the failures component does "
                                           "(failures = / --failures); here give span=submit")
    try:
        return _load(kind, opt, spec, n_nodes=n_nodes, span=span, offset=offset, seed=seed,
                     count=count, jobs=jobs, streams=streams)
    except ConfigError as exc:  # a reader's or a model's key, as the option that sets it
        key = _OPTION_OF.get(exc.key, exc.key)
        if key.startswith("failures") or key not in _KEYS[kind]:
            raise
        raise ConfigError(f"failures.{key}", exc.message) from None


def no_span(kind: str, span: float, offset: float, jobs: int | None) -> str:
    """Why a synthetic source, or a log rescaled to a count, draws nothing over `span`."""
    what = ("synthetic failures are" if kind == "synthetic" else
            f"the {kind} log's failures, rescaled to a count, are")
    jobs_text = (f": its {jobs} jobs are all submitted at {offset:g} s" if jobs and jobs > 1
                 else f": its one job is submitted at {offset:g} s" if jobs == 1 else "")
    return (f"{what} drawn over the workload's submit span (its first to its last "
            f"submission), which is {span:g} s here{jobs_text}; give a workload submitted "
            f"over a time" + ("" if kind == "synthetic" else
                              ", or no count (the log keeps its own times)"))


#: Keys of the readers, models and transforms -> the options of a source string.
_OPTION_OF = {"distribution": "dist", "method": "map", "target": "count"}


def _load(kind: str, opt: dict[str, str], spec: str, *, n_nodes: int, span: float,
          offset: float, seed: int, count: int | None, jobs: int | None,
          streams: RandomStreams | None = None) -> FailureTrace:
    seed = parse_int("failures.seed", opt.get("seed", seed), low=0)
    check_failure_spec(spec)  # every option, before the log is read or anything drawn
    if kind == "synthetic":
        model = _synthetic_model(opt)  # the model's values checked first
        if count is not None:
            raise ConfigError("failure_count", "applies to failure logs (lanl, fta); a "
                                               "synthetic source sets its rate with mtbf")
    if not span > 0 and (kind == "synthetic" or count is not None or "count" in opt):
        raise ConfigError("failures", no_span(kind, span, offset, jobs))
    if kind == "synthetic":
        mtbf = _float("failures.mtbf", opt["mtbf"])
        expected = n_nodes * span / mtbf if mtbf > 0 else 0.0
        if expected > MAX_SYNTHETIC_FAILURES:
            raise ConfigError("failures.mtbf", f"{mtbf:g} s on {n_nodes} nodes over "
                              f"{span:g} s means about {expected:.3g} failures; at most "
                              f"{MAX_SYNTHETIC_FAILURES:,} are drawn (a larger mtbf?)")
        limit = parse_int("failures.max_per_job", option(opt, "max_per_job"), low=1)
        if jobs and expected > limit * jobs:
            raise ConfigError("failures.mtbf", f"{mtbf:g} s on {n_nodes} nodes over "
                              f"{span:g} s means about {expected:.3g} failures, "
                              f"{expected / jobs:.3g} per job of the workload's {jobs}; at "
                              f"most {limit:,} per job are drawn (a larger mtbf, or "
                              f"max_per_job=N to allow more)")
        trace = model.generate(n_nodes, span, seed=seed)
    else:
        trace = _read(kind, opt)
        if count is None and "count" in opt:
            count = parse_int("failures.count", opt["count"], low=0)
        if count is not None:
            _check_count("failures.count" if "count" in opt else "failure_count", count)
        trace = fit_log(trace, opt, n_nodes=n_nodes, span=span, count=count,
                        seed=seed if streams is None else streams, map_seed=seed)
    if offset:
        trace = trace.shifted(offset)
    return trace


def fit_log(trace: FailureTrace, opt: dict[str, str], *, n_nodes: int, span: float,
            count: int | None, seed: int | RandomStreams, map_seed: int) -> FailureTrace:
    """A log's records rescaled to `count` over `span` (when a count is given), mapped onto
    the nodes and made transient as the source's options say.  `seed`: the rescaling's (a
    RandomStreams continues its stream: the next period of a `span=run` source)."""
    from ckptsim.failures import transforms

    if count is not None:
        trace = transforms.rescale_count(trace, count, span=span, seed=seed,
                                         jitter=parse_jitter(option(opt, "jitter")))
    trace = transforms.map_nodes(trace, n_nodes, method=option(opt, "map"),
                                 seed=map_seed)
    if parse_bool("failures.transient", option(opt, "transient")):
        trace = transforms.transient(trace)
    return trace
