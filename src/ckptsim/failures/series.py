"""Failures that continue past the workload's last submission: a source's `span=run`.

A log rescaled to a count is drawn over the workload's submit span (first to last submission):
the jobs still waiting or running after the last submission meet no failure.  Seed 004 asks
for "the same average number of failures per node and per day" without naming the period;
`span=run` reads it as the whole run.  The submit span's failures are the first period, drawn
exactly as under `span=submit` (the same failures, so the two readings are paired); each further
period, of the same length and right after the last, holds `count` failures again, drawn the
way the first was (the log rescaled to the count over the period: the same timings, a new
thinning and new copies' jitter, as the rescaling's stream continues), mapped onto the nodes
the same way.  So the rate per node and per day is the submit span's for as long as jobs run.

The periods are drawn lazily: the failures component (`ckptsim.components.failures`) draws the
next one when a failure of the last one drawn happens (or when a predictor looks past it), and
takes the events still queued off the engine's queue when the last job ends, so the run ends
then.  A run whose jobs cannot finish between failures (a long job on many nodes at a high
rate) would never end: the continuation stops after `MAX_PERIODS` periods, or 10^7 failures
(`MAX_SYNTHETIC_FAILURES`), which the run's summary says (`options.failures`).
"""

from __future__ import annotations

from ckptsim.errors import ConfigError
from ckptsim.failures.model import FailureTrace
from ckptsim.failures.source import (
    MAX_SYNTHETIC_FAILURES,
    TRACE_KINDS,
    _read,
    fit_log,
    load_failures,
    option,
    parse_failure_spec,
)
from ckptsim.rng import RandomStreams
from ckptsim.values import parse_int

#: Most periods of the submit span's length a `span=run` source draws (the first included).
MAX_PERIODS = 100


def continues(spec: str) -> bool:
    """Whether a source string asks for failures past the submit span (`span=run`)."""
    return option(parse_failure_spec(spec)[1], "span") == "run"


def needs_count(kind: str, opt: dict[str, str], count: int | None) -> None:
    """Refuse `span=run` where there is no count to continue: a synthetic source, or a log
    that keeps its own times."""
    if kind not in TRACE_KINDS:
        raise ConfigError("failures.span", f"applies to failure logs ({', '.join(TRACE_KINDS)})")
    if count is None and "count" not in opt:
        raise ConfigError("failures.span", "run continues a log rescaled to a count over the "
                                           "submit span: give count=N (or the workload's "
                                           "failure_count); without one the log keeps its own "
                                           "times")


class FailureSeries:
    """The failures of a `span=run` source, period by period: `first` (the submit span's,
    what `load_failures` gives for `span=submit`), then `next()` until it gives None."""

    def __init__(self, spec: str, *, n_nodes: int, span: float, offset: float = 0.0,
                 seed: int = 0, count: int | None = None, jobs: int | None = None) -> None:
        kind, opt = parse_failure_spec(spec)
        needs_count(kind, opt, count)
        self.seed = parse_int("failures.seed", opt.get("seed", seed), low=0)
        if count is None:
            count = parse_int("failures.count", opt["count"], low=0)
        self.kind, self.opt, self.count = kind, opt, count
        self.n_nodes, self.span, self.offset = n_nodes, span, offset
        self.streams = RandomStreams(self.seed)
        self.first = load_failures(spec, n_nodes=n_nodes, span=span, offset=offset,
                                   seed=self.seed, count=count, jobs=jobs, streams=self.streams)
        self.periods = 1
        #: Why the continuation stopped before the run ended ("" while it goes on).
        self.stopped = ""

    @property
    def horizon(self) -> float:
        """The end of the last period drawn (on the workload's clock)."""
        return self.offset + self.periods * self.span

    def next(self) -> FailureTrace | None:
        """The next period's failures, on the workload's clock; None when there are none to
        draw (a count of 0) or the limits are reached (`stopped` says which)."""
        if self.count == 0 or self.stopped:
            return None
        if self.periods >= MAX_PERIODS:
            self.stopped = f"after {MAX_PERIODS} periods (MAX_PERIODS)"
            return None
        if (self.periods + 1) * self.count > MAX_SYNTHETIC_FAILURES:
            self.stopped = (f"after {self.periods} periods: more would exceed "
                            f"{MAX_SYNTHETIC_FAILURES:,} failures")
            return None
        trace = fit_log(_read(self.kind, self.opt), self.opt, n_nodes=self.n_nodes,
                        span=self.span, count=self.count, seed=self.streams,
                        map_seed=self.seed)
        trace = trace.shifted(self.offset + self.periods * self.span)
        self.periods += 1
        return trace

    def note(self) -> str:
        """What summary.json records of the continuation (`options.failures.transforms`)."""
        text = (f"continued past the submit span: {self.periods} period(s) of {self.span:g} s "
                f"with {self.count} failures each, until the last job ended")
        return text + (f"; stopped {self.stopped}" if self.stopped else "")
