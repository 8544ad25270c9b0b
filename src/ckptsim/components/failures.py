"""Node failures, as a component of a run (any platform).

A failure at time t on node n kills every job holding n: its unsaved work is lost (rolled back
to its last checkpoint, to zero without one) and it is requeued (the policy's `on_requeue`
places it, at the queue head or in submit order).  A transient failure (repair 0, the model of
seed 004) leaves the node usable at once; otherwise the platform holds the node out of service
for the reason "failure" until t + repair (another reason, e.g. an owner, may hold it longer).
A failure of a node that is already down extends its repair if it ends later.  Failures are
events of the kind "failure" (priority 1): after job ends at the same instant, before
checkpoint completions.

The component is configured by a failure source string (`source`, see
`ckptsim.failures.source`; `count` rescales a log) loaded when it is attached, for the
simulated machine over the workload's submit span, with the run's seed when the source names
none; or it is given a ready trace (`Failures(trace=...)`, anything with `time`, `node` and
`repair` columns, nodes already on the machine and times on the workload's clock).

The component provides `FailureTimes` (`ckptsim.engine.provides`): predictors that read the
future failure schedule (seed 004) find it with ``sim.provider(FailureTimes)`` and ask
`failing_nodes(start, end)`; interval policies count its `failure_times()` for an MTBF.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left, bisect_right
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ckptsim.engine.components import Component, register_component
from ckptsim.engine.provides import FailureTimes
from ckptsim.errors import ConfigError
from ckptsim.params import param
from ckptsim.platform.base import FAILURE

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator

#: The counters a run with failures adds to its summary.
FAILURE_COUNTERS = ("failures", "failures_hitting_jobs", "jobs_killed_by_failures",
                    "failures_on_down_nodes")


@dataclasses.dataclass(frozen=True)
class FailureParams:
    source: str = param("", "failure source: lanl:path=FILE,system=20[,...], fta:path=..., or "
                            "synthetic:mtbf=S[,...] (see docs/failures.md)")
    count: int | None = param(None, "rescale a failure log to this many failures over the "
                                    "workload's submit span", low=0)


@register_component
class Failures(Component):
    """Schedules a failure list on a simulator and counts what the failures did."""

    name = "failures"
    description = "node failures from a failure log or a model: kill, requeue, repair"
    Params = FailureParams
    counter_names = FAILURE_COUNTERS
    provides = (FailureTimes,)
    aliases = {"failures": "source", "failure_count": "count"}
    rows = (("failures", "failures"), ("failures_hitting_jobs", "failures hitting jobs"),
            ("jobs_killed_by_failures", "job kills by failures (each job requeued)"),
            ("lost_ratio", "capacity lost to failures"))

    def __init__(self, params: Any = None, *, trace: Any = None) -> None:
        super().__init__(params)
        if trace is None and not self.params.source:
            raise ConfigError("failures.source", "give a failure source (lanl:..., fta:... "
                                                 "or synthetic:...)")
        self.trace = trace
        # span=run (`ckptsim.failures.series`): the periods after the submit span's, drawn as
        # the run goes.  The handles of the queued failures, withdrawn when the last job ends.
        self.continued = trace is None and _continues(self.params.source)
        self.series: Any = None
        self.handles: list[int] = []
        self.span_failures = 0
        self.down_until: dict[int, float] = {}
        self.failures = 0
        self.failures_hitting_jobs = 0
        self.jobs_killed = 0
        self.failures_on_down_nodes = 0
        self.times: list[float] = []
        self.bits: list[int] = []

    @classmethod
    def from_lists(cls, times: Any, nodes: Any, repairs: Any = None) -> Failures:
        """Failures at `times` on `nodes` (repairs: 0 = transient, the default)."""
        n = len(times)
        return cls(trace=_Lists(times, nodes, repairs if repairs is not None else [0.0] * n))

    # --- configuration -----------------------------------------------------------------------
    @classmethod
    def make_params(cls, values: Any, *, base: Path | None = None) -> FailureParams:
        from ckptsim.failures.source import (
            TRACE_KINDS,
            check_failure_spec,
            option,
            parse_failure_spec,
        )
        from ckptsim.params import make_params

        prm: FailureParams = make_params(FailureParams, values, where=cls.name)
        if not prm.source:
            if prm.count is not None:
                raise ConfigError("failures.count", "needs failures = \"lanl:...\" or "
                                                    "\"fta:...\" (the log to rescale)")
            return prm
        # A spec's relative log path resolves against its trace folder; without a folder the
        # source is kept as written (summary.json records it so).
        resolved = check_failure_spec(prm.source, base=base)
        source = resolved if base is not None else prm.source
        kind, opt = parse_failure_spec(resolved)
        if option(opt, "span") == "run":
            from ckptsim.failures.series import needs_count

            needs_count(kind, opt, prm.count)
        if prm.count is not None:
            if kind not in TRACE_KINDS:
                raise ConfigError("failures.count", f"applies to failure logs "
                                  f"({', '.join(TRACE_KINDS)}); a {kind} source sets its rate "
                                  "itself")
            if "count" in opt:
                raise ConfigError("failures.source", "gives count= and the workload gives "
                                                     "failure_count; keep one of them")
        return dataclasses.replace(prm, source=source)

    @classmethod
    def check_value(cls, param: str, value: Any, *, base: Path | None = None) -> Any:
        value = super().check_value(param, value, base=base)
        if param == "source":
            from ckptsim.failures.source import check_failure_spec

            return check_failure_spec(value, base=base)  # a relative log path resolved
        return value

    @classmethod
    def identity(cls, params: FailureParams) -> dict[str, Any]:
        """The source's options, with the log named by the SHA-256 of its bytes instead of its
        path (moving a log keeps the run), and the count."""
        from ckptsim.failures.readers import fta_event_trace_path
        from ckptsim.failures.source import SOURCE_DEFAULTS, parse_failure_spec
        from ckptsim.hashing import file_sha256

        kind, opt = parse_failure_spec(params.source)
        if "span" in opt and opt["span"] == SOURCE_DEFAULTS["span"]:
            del opt["span"]  # the default, written out: the same runs
        doc: dict[str, Any] = {"kind": kind, **opt}
        if "path" in opt:
            path = Path(doc.pop("path"))
            doc["sha256"] = file_sha256(str(fta_event_trace_path(path) if path.is_dir()
                                            else path))
        if params.count is not None:
            doc["count"] = str(params.count)
        return doc

    # --- the run -----------------------------------------------------------------------------
    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        n_nodes = sim.platform.n_nodes
        trace = self.trace
        if trace is None:
            submit = sim.workload.submit
            start = float(submit[0]) if len(submit) else 0.0
            where = dict(n_nodes=n_nodes, span=float(submit[-1]) - start if len(submit)
                         else 0.0, offset=start, seed=sim.seed, count=self.params.count,
                         jobs=len(submit))
            if self.continued:
                from ckptsim.failures.series import FailureSeries

                self.series = FailureSeries(self.params.source, **where)
                trace = self.trace = self.series.first
            else:
                from ckptsim.failures.source import load_failures

                trace = self.trace = load_failures(self.params.source, **where)
        times, nodes, repairs = trace.time, trace.node, trace.repair
        n = len(times)
        if len(nodes) != n or len(repairs) != n:
            raise ConfigError("failures", "times, nodes and repairs must have the same length")
        for k in range(n):
            node = int(nodes[k])
            if not 0 <= node < n_nodes:
                raise ConfigError("failures", f"failure {k} is on node {node}, outside the "
                                              f"machine's nodes 0..{n_nodes - 1}")
            t = float(times[k])
            if not t >= 0:
                raise ConfigError("failures", f"failure {k} has time {t}; times must be >= 0")
            repair = float(repairs[k])
            if not repair >= 0:
                raise ConfigError("failures", f"failure {k} has repair time {repair}; "
                                              f"repairs must be >= 0")
            self.handles.append(sim.at(t, self._make_failure(node, repair)))
        # The future failure schedule, for predictors that read it (seed 004 section 4).
        order = sorted(range(n), key=lambda k: (float(times[k]), int(nodes[k])))
        self.times = [float(times[k]) for k in order]
        self.bits = [1 << int(nodes[k]) for k in order]
        self.span_failures = n
        if self.series is not None:
            self._continue()  # the next period is always drawn ahead of the clock

    def _continue(self) -> None:
        """Draw the series' next period and queue its failures (span=run)."""
        series, sim = self.series, self.sim
        assert series is not None and sim is not None
        trace = series.next()
        if trace is None:
            return
        period = series.periods - 1
        times, nodes, repairs = trace.time, trace.node, trace.repair
        order = sorted(range(len(times)), key=lambda k: (float(times[k]), int(nodes[k])))
        for k in order:
            t, node = float(times[k]), int(nodes[k])
            self.handles.append(sim.at(max(t, sim.now),
                                       self._make_failure(node, float(repairs[k]), period)))
            self.times.append(t)
            self.bits.append(1 << node)

    def on_end(self, job: Any) -> None:
        # The last job has ended: the failures still queued (a log longer than the run, the
        # periods of span=run) never happen, nor are they counted; taken off the queue, they
        # do not bring the clock past the run's end either.
        sim = self.sim
        assert sim is not None
        if sim.n_ended == len(sim.jobs) and self.handles:
            sim.withdraw(self.handles)
            self.handles = []

    def failure_times(self) -> list[float]:
        """The times of the run's failures, sorted (span=run: those of the submit span, whose
        rate the continuation keeps)."""
        return self.times if self.series is None else self.times[:self.span_failures]

    def failing_nodes(self, start: float, end: float) -> int:
        """Mask of the nodes with a failure in [start, end]: what a perfect predictor knows
        (span=run: the periods up to `end` are drawn first)."""
        series = self.series
        while series is not None and end > series.horizon and not series.stopped \
                and series.count:
            self._continue()
        lo = bisect_left(self.times, start)
        hi = bisect_right(self.times, end)
        mask = 0
        for k in range(lo, hi):
            mask |= self.bits[k]
        return mask

    def counters(self) -> dict[str, int]:
        values = (self.failures, self.failures_hitting_jobs, self.jobs_killed,
                  self.failures_on_down_nodes)
        return dict(zip(FAILURE_COUNTERS, values, strict=True))

    def options(self) -> dict[str, Any]:
        """Where the failures came from (a source string's trace says it; span=run: how many
        periods were drawn, and the failures that happened), and `count`, the rescaling asked
        of a log (None: the source's own)."""
        out = failure_options(self.trace, self.params.count, self.params.source, self.sim.seed)
        if self.series is not None:
            out["transforms"].append(self.series.note())
            out["transform_counts"].append({"transform": "continued",
                                            "periods": self.series.periods})
            out["failures"] = self.failures
        return out

    def _make_failure(self, node: int, repair: float,  # type: ignore[no-untyped-def]
                      period: int = 0):
        if period == 0:
            def fail(now: float) -> None:
                self._fail(now, node, repair)
        else:
            def fail(now: float) -> None:
                series = self.series
                assert series is not None
                if period == series.periods - 1:
                    self._continue()  # a failure of the last period drawn: draw the next
                self._fail(now, node, repair)

        return fail

    def _fail(self, now: float, node: int, repair: float) -> None:
        sim = self.sim
        assert sim is not None
        bit = 1 << node
        self.failures += 1
        if node in self.down_until:
            self.failures_on_down_nodes += 1
        if repair > 0:
            until = now + repair
            if until > self.down_until.get(node, -1.0):
                self.down_until[node] = until
                sim.at(until, self._make_repair(node, until))
            sim.platform.hold(FAILURE, bit)
        victims = [job for job in sim.active.values() if job.mask & bit]
        victims.sort(key=lambda j: j.index)
        if victims:
            self.failures_hitting_jobs += 1
            self.jobs_killed += len(victims)
        for job in victims:
            sim.evict(job, "failure")
        sim.nodes_changed()

    def _make_repair(self, node: int, until: float):  # type: ignore[no-untyped-def]
        def repair(now: float) -> None:
            if self.down_until.get(node) != until:
                return  # a later failure extended the repair
            del self.down_until[node]
            sim = self.sim
            assert sim is not None
            sim.platform.release_hold(FAILURE, 1 << node)
            sim.nodes_changed()

        return repair


def _continues(source: str) -> bool:
    from ckptsim.failures.series import continues

    return continues(source)


def failure_options(trace: Any, count: int | None = None, source: str = "", seed: int = 0
                    ) -> dict[str, Any]:
    """What summary.json records of a run's failures (`options.failures`): the source (the log
    or model and its selection), the transforms applied in order, how many were injected,
    the `count` a log was asked to be rescaled to apart from its source string (None: none),
    for a log the reader's counts (`loader`: records read, what each of its rules dropped or
    changed, failures kept; `FailureTrace.loader`), and what each transform counted
    (`transform_counts`, one entry per transform in order: its name and its counts, e.g.
    map_nodes' trace_nodes, rescale_count's rescale_source_failures; `FailureTrace.steps`),
    and from the `source` string given (not a trace given) `spec`: its kind and every option
    of the kind, a left-out one as what it means (`seed`: the run's)."""
    from ckptsim.failures.source import source_options

    loader = getattr(trace, "loader", None)
    notes = list(getattr(trace, "notes", ()))
    steps = getattr(trace, "steps", ()) or ({},) * len(notes)
    return {"source": getattr(trace, "source", ""), "count": count,
            "transforms": notes,
            "transform_counts": [transform_counts(note, counted)
                                 for note, counted in zip(notes, steps, strict=True)],
            "failures": len(trace.time),
            **({"loader": dict(sorted(loader.items()))} if loader else {}),
            **({"spec": source_options(source, seed)} if source else {})}


def transform_counts(note: str, counted: dict[str, int]) -> dict[str, Any]:
    """An entry of `options.failures.transform_counts`: the transform's name (its note up to
    the first parenthesis) and its counts, sorted."""
    return {"transform": note.partition("(")[0].strip(), **dict(sorted(counted.items()))}


class _Lists:
    """Failure columns given as plain sequences."""

    def __init__(self, times: Any, nodes: Any, repairs: Any) -> None:
        self.time = times
        self.node = nodes
        self.repair = repairs
        self.source = ""
        self.notes: tuple[str, ...] = ()
