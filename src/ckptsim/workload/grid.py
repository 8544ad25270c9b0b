"""The synthetic multi-cluster workload of seed 001, and grid attributes for real traces.

Seed 001 (Jones 2009) gives every one of its C = 4 clusters of 100 nodes its own stream of
400,000 jobs: Poisson arrivals, exponential runtimes, widths uniform on 5..20 nodes, and a
per-processor bandwidth (PPBW) of 150, 300 or 400 Mbit/s on average.  Each job also carries
what the multi-cluster model needs, as extra workload columns (`Workload.extra`):

- ``cluster``: the home cluster (0..C-1) whose queue the job is submitted to;
- ``ppbw``: the true per-processor bandwidth, Mbit/s;
- ``ppbw_estimate``: the bandwidth the user tells the scheduler, PPBW * (1 + e), or NaN when
  the job reveals none ("information availability");
- ``kappa``: the communication share T_C / T_E of the dedicated-cluster execution time
  T_E = T_P + T_C (the workload's ``runtime``).

Generation, per cluster c (formulas in docs/grid.md):

- arrivals: a Poisson process of rate lambda = load * nodes / (E[width] * E[T_E]) jobs/s, so
  that the dedicated-cluster work offered to each cluster is `load` times its capacity;
- widths uniform on width_min..width_max; T_E exponential with mean `runtime`;
- PPBW uniform on ppbw * [1 - spread, 1 + spread] (mean `ppbw`);
- kappa = min(0.9, PPBW / capacity) per job (addendum 4.2), or a fixed value;
- estimate error e: uniform on [-A, A] (RMS A / sqrt 3) or the same signed e for every job;
- the PPBW is revealed with probability `info`.

Submit times are the Poisson arrival times rounded down to whole seconds, runtimes are rounded
to whole seconds (at least 1 s), like the SWF traces.  The clusters' jobs are merged in submit
order (ties: lower cluster first) and numbered 1..C*n.  Every random aspect of every cluster
has its own stream of `ckptsim.rng.RandomStreams` (``grid.<aspect>.c<cluster>``), and each job
draws one standard variate per aspect whatever the parameters, so changing the error, the
information availability, the mean PPBW or the load leaves every other column unchanged
(common random numbers across a sweep), and cluster c's jobs do not depend on C.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError, did_you_mean, shown_key
from ckptsim.limits import MAX_JOBS, check_count, check_generated, check_nodes
from ckptsim.rng import RandomStreams
from ckptsim.workload import estimates as est
from ckptsim.workload.model import SWF_FIELDS, SWF_INDEX, Workload

#: Names of the extra per-job columns a grid workload carries.
COLUMNS = ("cluster", "ppbw", "ppbw_estimate", "kappa")
ERROR_MODES = ("uniform", "fixed")
SPLITS = ("roundrobin", "random")
KAPPA_CAP = 0.9  # largest default communication share (addendum 4.2)


@dataclass(frozen=True)
class GridParams:
    """Parameters of the grid workload (defaults: seed 001, addendum 4.2, or ours; see
    docs/grid.md).  Bandwidths in Mbit/s, times in seconds."""

    clusters: int = 4
    nodes: int = 100
    capacity: float = 1000.0
    n: int = 10_000
    load: float = 0.7
    runtime: float = 14_400.0
    width_min: int = 5
    width_max: int = 20
    ppbw: float = 300.0
    spread: float = 0.5
    kappa: float | None = None
    error: float = 0.0
    error_mode: str = "uniform"
    info: float = 1.0
    estimates: str = "exact"

    def validate(self) -> None:
        """Raise ConfigError (key ``grid.<name>``) naming the first bad parameter."""
        for name, low in (("clusters", 1), ("nodes", 1), ("n", 1), ("width_min", 1)):
            _integer(name, getattr(self, name), low)
        total = self.clusters * self.nodes
        check_nodes("grid.nodes", total, f"{self.clusters} clusters x {self.nodes} nodes = "
                                         f"{total}")
        check_count("grid.n", self.clusters * self.n, MAX_JOBS, "MAX_JOBS", "jobs",
                    f"{self.clusters} clusters x {self.n} jobs")
        _integer("width_max", self.width_max, self.width_min)
        if self.width_max > total:
            raise ConfigError("grid.width_max", f"must be at most the grid's {self.clusters} x "
                              f"{self.nodes} = {total} nodes, got {self.width_max}")
        for name in ("capacity", "load", "runtime", "ppbw"):
            _number(name, getattr(self, name), "> 0", lambda v: v > 0)
        _number("spread", self.spread, "in [0, 1]", lambda v: 0 <= v <= 1)
        if self.kappa is not None:
            _number("kappa", self.kappa, "in [0, 1] (or unset: min(0.9, PPBW / capacity))",
                    lambda v: 0 <= v <= 1)
        if self.error_mode not in ERROR_MODES:
            raise ConfigError("grid.error_mode", f"got {self.error_mode!r}; accepted: "
                              + ", ".join(ERROR_MODES))
        if self.error_mode == "uniform":
            _number("error", self.error, "in [0, 1] (the half-width A of the uniform relative "
                    "error, error_mode=uniform)", lambda v: 0 <= v <= 1)
        else:
            _number("error", self.error, "in [-1, 1] (the signed relative error of every "
                    "estimate, error_mode=fixed)", lambda v: -1 <= v <= 1)
        _number("info", self.info, "in [0, 1] (the share of jobs revealing their PPBW)",
                lambda v: 0 <= v <= 1)
        if self.estimates not in est.ESTIMATE_MODELS:
            raise ConfigError("grid.estimates", f"got {self.estimates!r}; accepted: "
                              + ", ".join(est.ESTIMATE_MODELS))

    def mean_width(self) -> float:
        return (self.width_min + self.width_max) / 2.0

    def arrival_rate(self) -> float:
        """Jobs per second per cluster: load * nodes / (E[width] * E[T_E])."""
        return self.load * self.nodes / (self.mean_width() * self.runtime)


def _integer(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ConfigError(f"grid.{name}", f"must be an integer >= {low}, got {value!r}")


def _number(name: str, value: Any, accepted: str, ok: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or not ok(value):
        raise ConfigError(f"grid.{name}", f"must be a number {accepted}, got {value!r}")


def bandwidth_columns(p: GridParams, ppbw_u: np.ndarray, err_u: np.ndarray,
                      info_u: np.ndarray) -> dict[str, np.ndarray]:
    """PPBW, its estimate and kappa from standard uniforms (one of each per job)."""
    ppbw = p.ppbw * (1.0 + p.spread * (2.0 * ppbw_u - 1.0))
    err = (p.error * (2.0 * err_u - 1.0) if p.error_mode == "uniform"
           else np.full(len(err_u), float(p.error)))
    estimate = np.where(info_u < p.info, ppbw * (1.0 + err), np.nan)
    kappa = (np.minimum(KAPPA_CAP, ppbw / p.capacity) if p.kappa is None
             else np.full(len(ppbw), float(p.kappa)))
    return {"ppbw": ppbw, "ppbw_estimate": estimate, "kappa": kappa}


def _cluster_jobs(p: GridParams, streams: RandomStreams, c: int) -> dict[str, np.ndarray]:
    def u(aspect: str) -> np.ndarray:
        return streams.stream(f"grid.{aspect}.c{c}").random(p.n)

    # times beyond MAX_SECONDS (infinite ones too) are refused by `_check_times`
    with np.errstate(over="ignore", divide="ignore"):
        gaps = (streams.stream(f"grid.arrivals.c{c}").standard_exponential(p.n)
                / p.arrival_rate())
        width = streams.stream(f"grid.widths.c{c}").integers(p.width_min, p.width_max,
                                                            size=p.n, endpoint=True)
        t_e = streams.stream(f"grid.runtimes.c{c}").standard_exponential(p.n) * p.runtime
        cols = bandwidth_columns(p, u("ppbw"), u("ppbw_error"), u("ppbw_info"))
        submit = np.floor(np.cumsum(gaps))
    return {"submit": submit, "size": width, "runtime": np.maximum(1.0, np.round(t_e)),
            "cluster": np.full(p.n, c, dtype=np.int64), **cols}


def _check_times(p: GridParams, cols: Mapping[str, np.ndarray],
                 estimate: np.ndarray | None = None) -> None:
    """Refuse generated run times and submit times (or, given, estimates) beyond MAX_SECONDS
    (which a trace may not hold either), naming the option that makes them so."""
    if estimate is not None:
        check_generated("grid.runtime", estimate, f"runtime={p.runtime:g} (the mean) with "
                        f"estimates={p.estimates}", "the longest estimate", "a mean run time "
                        "that keeps every estimate within it")
        return
    check_generated("grid.runtime", cols["runtime"], f"runtime={p.runtime:g} (the mean)",
                    "the longest run time", "a mean run time that keeps every run time "
                    "within it")
    check_generated("grid.load", cols["submit"], f"load={p.load:g} with runtime="
                    f"{p.runtime:g} and n={p.n} ({p.arrival_rate():.3g} arrivals/s per "
                    "cluster)", "the last submit time", "a larger load (or a shorter runtime, "
                    "or fewer jobs n) that keeps every submit time within it")


def generate_grid(params: GridParams | None = None, *, seed: int = 0) -> Workload:
    """The seed-001 workload: `params.n` jobs for each of `params.clusters` clusters."""
    p = params if params is not None else GridParams()
    if not isinstance(p, GridParams):
        raise ConfigError("params", f"must be a GridParams, got {type(p).__name__}")
    p.validate()
    streams = RandomStreams(seed)
    parts = [_cluster_jobs(p, streams, c) for c in range(p.clusters)]
    order = np.argsort(np.concatenate([part["submit"] for part in parts]), kind="stable")
    cols = {}
    for key in list(parts[0]):  # merge column by column, freeing the per-cluster parts
        cols[key] = np.concatenate([part.pop(key) for part in parts])[order]
    del parts, order
    _check_times(p, cols)
    counts = {}
    if p.estimates == "tsafrir":  # as lublin: runtimes beyond the largest estimate truncated
        res = est.tsafrir_estimates(cols["runtime"], streams.stream("estimates"))
        cols["runtime"], estimate = res.runtime, res.estimate
        counts = {"estimate_runtime_truncated": res.n_truncated,
                  "estimate_raised": res.n_raised}
    else:
        estimate = est.assign_estimates(cols["runtime"], p.estimates,
                                        streams.stream("estimates"))
    _check_times(p, cols, estimate)
    source = (f"grid(clusters={p.clusters}, nodes={p.nodes}, n={p.n}, load={p.load:g}, "
              f"ppbw={p.ppbw:g}, error={p.error:g}, error_mode={p.error_mode}, "
              f"info={p.info:g}, seed={seed})")
    total = p.clusters * p.nodes
    n = len(estimate)
    job_id = np.arange(1, n + 1, dtype=np.int64)
    # The SWF fields, as `from_columns` fills them (built in place: at the seed's 1.6 million
    # jobs the array is 230 MB, and from_columns would copy it once more to sort it).
    fields = np.full((n, len(SWF_FIELDS)), -1.0)
    for name, column in (("job_number", job_id), ("submit_time", cols["submit"]),
                         ("run_time", cols["runtime"]), ("allocated_processors", cols["size"]),
                         ("requested_processors", cols["size"]), ("requested_time", estimate),
                         ("partition", cols["cluster"] + 1)):  # SWF numbers from 1
        fields[:, SWF_INDEX[name]] = column
    fields[:, SWF_INDEX["status"]] = 1
    header = {"Version": "2", "MaxJobs": str(n), "MaxRecords": str(n),
              "MaxNodes": str(total), "MaxProcs": str(total), "Note": source,
              SHAPE_KEY: shape_text(p)}
    return Workload(job_id=job_id, submit=cols["submit"], runtime=cols["runtime"],
                    estimate=estimate, size=cols["size"].astype(np.int64), fields=fields,
                    machine_size=total, header=header, source=source,
                    counts={"grid_jobs": n, **counts}, extra={k: cols[k] for k in COLUMNS})


def attach_grid(w: Workload, params: GridParams | None = None, *, seed: int = 0,
                split: str = "roundrobin") -> Workload:
    """A real trace made a grid workload: home clusters and bandwidth columns from the model.

    Only the grid shape and the bandwidth parameters of `params` are used (the trace keeps
    its arrivals, sizes and runtimes).  The home cluster of the i-th job in submit order is
    i mod C (``split="roundrobin"``) or a uniform draw (``"random"``, stream
    ``grid.split``).  PPBW, error and information draws come from the streams ``grid.ppbw``,
    ``grid.ppbw_error`` and ``grid.ppbw_info``, one per job in submit order.

    Raises:
        ConfigError: a parameter is out of range, or a job is wider than the whole grid
            (read the trace with ``machine_size = clusters * nodes`` to skip such jobs).
    """
    p = params if params is not None else GridParams()
    p.validate()
    if split not in SPLITS:
        raise ConfigError("grid.split", f"got {split!r}; accepted: {', '.join(SPLITS)}")
    total = p.clusters * p.nodes
    wide = np.flatnonzero(w.size > total)
    if wide.size:
        i = int(wide[0])
        raise ConfigError("grid.nodes", f"job {int(w.job_id[i])} needs {int(w.size[i])} nodes, "
                          f"more than the grid's {p.clusters} x {p.nodes} = {total}; accepted: "
                          f"jobs of at most {total} nodes (read the trace with machine size "
                          f"{total} to skip wider ones)")
    streams = RandomStreams(seed)
    n = w.n_jobs
    cluster = (np.arange(n, dtype=np.int64) % p.clusters if split == "roundrobin"
               else streams.stream("grid.split").integers(0, p.clusters, size=n))
    cols = bandwidth_columns(p, *(streams.stream(f"grid.{a}").random(n)
                                  for a in ("ppbw", "ppbw_error", "ppbw_info")))
    note = (f"attach_grid(clusters={p.clusters}, nodes={p.nodes}, ppbw={p.ppbw:g}, "
            f"error={p.error:g}, error_mode={p.error_mode}, info={p.info:g}, split={split}, "
            f"seed={seed})")
    out = w.with_extra(note, cluster=cluster, **cols)
    return replace(out, machine_size=total, header={**out.header, SHAPE_KEY: shape_text(p)})


#: The workload header key recording the grid's shape (clusters, nodes, link capacity).
SHAPE_KEY = "GridShape"


def shape_text(p: GridParams) -> str:
    return f"clusters={p.clusters} nodes={p.nodes} capacity={float(p.capacity)!r}"


#: `grid:` options that only the synthetic generator uses (a trace keeps its own).
SYNTHETIC_ONLY = ("n", "load", "runtime", "width_min", "width_max", "estimates")
#: Every `grid:` option: the `GridParams` fields, the seed, and a trace's path and split.
OPTIONS = (*(name for name in asdict(GridParams())), "seed", "trace", "split")


def used_options(params: GridParams, seed: int, trace: str | None,
                 split: str) -> dict[str, Any]:
    """Every `grid:` option with the value a workload was made with (summary.json's
    `workload.generator.options`): None for those that do not apply (`trace` and `split` of
    the synthetic workload, the synthetic-only options with a trace)."""
    unused = SYNTHETIC_ONLY if trace is not None else ("trace", "split")
    values = {**asdict(params), "seed": seed, "trace": trace, "split": split}
    return {key: None if key in unused else values[key] for key in OPTIONS}


def options_to_params(options: Mapping[str, Any]) -> tuple[GridParams, int, str | None, str]:
    """`grid:key=value,...` options -> (params, seed, trace path or None, split)."""
    from ckptsim.values import parse_int

    names = [k for k in asdict(GridParams())]
    accepted = sorted(OPTIONS)
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ConfigError(f"grid.{shown_key(unknown[0])}", f"unknown option"
                          f"{did_you_mean(unknown[0], accepted)}; accepted: "
                          + ", ".join(accepted))
    trace = options.get("trace")
    if trace is not None:
        bad = sorted(set(options) & set(SYNTHETIC_ONLY))
        if bad:
            raise ConfigError(f"grid.{bad[0]}", "applies to the synthetic workload only, not "
                              "with trace=; accepted with a trace: "
                              + ", ".join(k for k in accepted if k not in SYNTHETIC_ONLY))
    if "split" in options and trace is None:
        raise ConfigError("grid.split", "applies to trace= only (synthetic jobs have a home "
                                        "cluster each)")
    defaults = GridParams()
    values: dict[str, Any] = {}
    for key in names:
        if key not in options:
            continue
        raw, default = options[key], getattr(defaults, key)
        if isinstance(default, str):
            values[key] = str(raw)
        elif isinstance(default, int) and not isinstance(default, bool):
            values[key] = parse_int(f"grid.{key}", raw)
        else:
            values[key] = _float(key, raw)
    seed = parse_int("grid.seed", options.get("seed", 1), low=0)
    params = replace(defaults, **values)
    params.validate()
    return params, seed, (None if trace is None else str(trace)), str(options.get("split",
                                                                                  "roundrobin"))


def _float(key: str, raw: Any) -> float:
    try:
        return float(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"grid.{key}", f"expected a number, got {raw!r}") from None


def from_options(options: Mapping[str, Any], *, oversize: str = "skip",
                 size_from: str = "requested", skip_bad_lines: bool = False) -> Workload:
    """The workload `--workload grid:...` names (a trace with ``trace=PATH``).

    A trace (SWF, or Batsim JSON by its `.json` / `.json.gz` suffix, as `--workload` reads
    them) is read on the grid's clusters x nodes machine; `oversize`, `size_from` and
    `skip_bad_lines` are the reader's options (the last two SWF's only).
    """
    params, seed, trace, split = options_to_params(options)
    used = used_options(params, seed, trace, split)
    if trace is None:
        return generate_grid(params, seed=seed).with_generator("grid", used)
    from ckptsim.workload.source import is_batsim

    total = params.clusters * params.nodes
    if is_batsim(trace):
        from ckptsim.workload.batsim import read_batsim

        w = read_batsim(trace, machine_size=total, oversize=oversize)
    else:
        from ckptsim.workload.swf import read_swf

        w = read_swf(trace, machine_size=total, oversize=oversize,
                     skip_bad_lines=skip_bad_lines, size_from=size_from)
    return attach_grid(w, params, seed=seed, split=split).with_generator("grid", used)


__all__ = ["COLUMNS", "ERROR_MODES", "OPTIONS", "SHAPE_KEY", "SPLITS", "GridParams",
           "attach_grid", "bandwidth_columns", "from_options", "generate_grid",
           "options_to_params", "shape_text", "used_options"]
