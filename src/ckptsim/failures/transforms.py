"""Fitting a failure log to a simulated machine and period.

A real log comes from another machine (LANL's systems, Grid'5000) over another period, so before
a simulation uses it:

- `map_nodes` puts its nodes on the simulated machine's nodes 0..n-1;
- `rescale_count` stretches it over the simulated period with a chosen number of failures
  (seed 004 scales its log to 4,000 failures for NASA and SDSC, 1,000 for LLNL, and sweeps the
  count from 0 to 4,000 in steps of 500); `matching_count` computes the count that keeps the
  log's failures per node per day;
- `transient` makes every failure transient (repair 0), seed 004's failure model;
- `merge_overlaps` folds failures of a node that is already down into one down interval.

Every transform returns a new trace, appends a note to `notes` and records what it did in
`counts`.  Randomness comes from named streams of `RandomStreams` ("failures.mapping",
"failures.rescale"), so a transform gives the same result for the same seed whatever else the
run draws.
"""

from __future__ import annotations

import math

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.failures.model import FailureTrace
from ckptsim.rng import RandomStreams

__all__ = ["MAPPING_METHODS", "map_nodes", "matching_count", "merge_overlaps", "rescale_count",
           "transient"]

MAPPING_METHODS = ("modulo", "random")


def _streams(seed: int | RandomStreams) -> RandomStreams:
    """A run passes its own RandomStreams (the stream then continues); a bare seed gets fresh
    streams, so that calling a transform twice with one seed gives the same trace."""
    return seed if isinstance(seed, RandomStreams) else RandomStreams(seed)


def _positive_int(key: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ConfigError(key, f"must be an integer >= {low}, got {value!r}")
    return int(value)


def map_nodes(trace: FailureTrace, n_nodes: int, *, method: str = "modulo",
              seed: int | RandomStreams = 0) -> FailureTrace:
    """Put the trace's nodes on simulated nodes 0..n_nodes-1.

    The distinct trace nodes are first numbered densely, 0..k-1 in ascending id order, so that
    gaps in the trace's numbering (LANL system 19 counts from 1024, FTA node ids are spread over
    the whole archive) do not leave simulated nodes without failures.  Then:

    - "modulo": trace node number i goes to simulated node i mod n_nodes (seed 004's reading
      for 350 trace nodes on 128 supernodes).  Neighbouring trace nodes land on neighbouring
      simulated nodes, so correlated failures of a rack stay close on the machine.
    - "random": a seeded random assignment (stream "failures.mapping").  With k <= n_nodes every
      trace node gets its own simulated node, chosen at random; with k > n_nodes the trace nodes
      are shuffled and dealt round-robin over a shuffled list of simulated nodes, so every
      simulated node receives floor(k/n) or ceil(k/n) trace nodes.

    All failures of one trace node go to the same simulated node; several trace nodes sharing a
    simulated node add up their failures on it.
    """
    n_nodes = _positive_int("n_nodes", n_nodes, 1)
    if method not in MAPPING_METHODS:
        raise ConfigError("method", f"must be one of {', '.join(MAPPING_METHODS)}, got "
                                    f"{method!r}")
    distinct, dense = np.unique(trace.node, return_inverse=True)
    k = len(distinct)
    if method == "modulo":
        target_of = np.arange(k, dtype=np.int64) % n_nodes
        note = f"map_nodes(modulo, n_nodes={n_nodes})"
    else:
        rng = _streams(seed).stream("failures.mapping")
        slot = rng.permutation(k)  # position of each trace node in the deal
        sim = rng.permutation(n_nodes)  # the order simulated nodes are dealt in
        target_of = sim[slot % n_nodes].astype(np.int64)
        note = f"map_nodes(random, n_nodes={n_nodes}, seed={_seed_text(seed)})"
    used = len(np.unique(target_of))
    return trace.with_columns(note, node=target_of[dense],
                              counts={"trace_nodes": k, "simulated_nodes_hit": used})


def _seed_text(seed: int | RandomStreams) -> str:
    return str(seed.seed) if isinstance(seed, RandomStreams) else str(seed)


def transient(trace: FailureTrace) -> FailureTrace:
    """Every failure transient (repair 0): the node is usable again at once.

    Seed 004's model: a failure kills the jobs on the node, which restart from scratch, and the
    node is immediately available for scheduling.
    """
    return trace.with_columns("transient", repair=np.zeros(len(trace)))


def matching_count(trace: FailureTrace, *, n_nodes: int, span: float,
                   trace_nodes: int | None = None) -> int:
    """The failure count that keeps the trace's failures per node per day on another machine.

    Seed 004 scales its log "to have the same average number of failures per node and per
    day": count = len(trace) / (trace_nodes * trace.span) * n_nodes * span, rounded.
    `trace_nodes` defaults to the number of distinct nodes with failures in the trace; give the
    logged machine's size when nodes without failures should count too.
    """
    n_nodes = _positive_int("n_nodes", n_nodes, 1)
    span = _span(span)
    nodes = len(trace.nodes) if trace_nodes is None else _positive_int("trace_nodes",
                                                                       trace_nodes, 1)
    if len(trace) == 0:
        return 0
    if trace.span <= 0:
        raise ConfigError("trace", "has a zero span: its failures per day are undefined")
    return int(round(len(trace) / (nodes * trace.span) * n_nodes * span))


def _span(span: object) -> float:
    if isinstance(span, bool) or not isinstance(span, (int, float, np.integer, np.floating)):
        raise ConfigError("span", f"must be a positive number of seconds, got {span!r}")
    value = float(span)
    if not (math.isfinite(value) and value > 0):
        raise ConfigError("span", f"must be a positive finite number of seconds, got {span!r}")
    return value


def rescale_count(trace: FailureTrace, target: int, *, span: float | None = None,
                  seed: int | RandomStreams = 0, jitter: float | None = None) -> FailureTrace:
    """The trace stretched over `span` seconds with exactly `target` failures.

    Method (stream "failures.rescale"):

    1. Time scaling: every time is multiplied by span / trace.span, so the trace's period maps
       onto the simulated one and the failures keep their relative timings: busy months stay
       busy, and bursts of simultaneous failures stay simultaneous.  Repairs are not scaled
       (a repair takes as long on any machine).
    2. Count: the failures are put in one seeded random order, the priority order, and the first
       `target` are kept (thinning: each failure survives with the same chance, so the rate over
       time keeps its shape and only its level changes).  For a target above the trace's size the
       order continues with copies of the trace, each in its own random order and moved in time
       by a uniform jitter of up to span / (2 sqrt(n)) for a trace of n failures (reflected at 0
       and span).  That is sqrt(n) / 2 mean gaps: wide enough that a copy is nearly independent
       of the original at the scale of the gaps (the gaps keep their distribution instead of
       pairing each failure with its copy), narrow enough (a 1/sqrt(n) share of the period) that
       the rate's shape over the period is kept.  Failures at the same instant move together,
       so a multi-node event stays one event in a copy.  `jitter` sets the half-width in
       seconds instead (the same draws, scaled: 0 puts every copy at its original's instant,
       so failures simultaneous in the log are simultaneous across copies too).

    Because the order does not depend on `target`, a smaller target keeps a subset of the
    failures of a larger one (same seed): a sweep over the count, like seed 004's 0..4,000 in
    steps of 500, adds failures to the same trace instead of drawing a new one at each step.

    Args:
        target: failures wanted (0 gives an empty trace: a run without failures).
        span: the simulated period in seconds; default the trace's own span (count only).
        jitter: the copies' half-width in seconds (None: span / (2 sqrt(n))).
    """
    target = _positive_int("target", target, 0)
    new_span = trace.span if span is None else _span(span)
    n = len(trace)
    note = f"rescale_count({target}, span={new_span:g}, seed={_seed_text(seed)}" + (
        ")" if jitter is None else f", jitter={jitter:g})")
    counts = {"rescale_source_failures": n, "failures": target}
    if target == 0:
        empty = np.zeros(0)
        return trace.with_columns(note, time=empty, node=empty.astype(np.int64), repair=empty,
                                  span=new_span, counts=counts)
    if n == 0:
        raise ConfigError("target", f"cannot make {target} failures from an empty trace")
    if trace.span <= 0 and n > 1:
        raise ConfigError("trace", "has all its failures at time 0 (zero span): there are no "
                                   "timings to stretch over a period")
    factor = new_span / trace.span if trace.span > 0 else 0.0
    scaled = np.minimum(trace.time * factor, new_span)
    rng = _streams(seed).stream("failures.rescale")
    copies = -(-target // n)  # ceil
    half_width = 0.5 * new_span / math.sqrt(n) if jitter is None else float(jitter)
    if not (math.isfinite(half_width) and half_width >= 0):
        raise ConfigError("jitter", f"must be a number of seconds >= 0, got {jitter!r}")
    # Failures at the same instant (a multi-node event) share one displacement in a copy.
    first_of_instant = np.searchsorted(scaled, scaled, side="left")
    times, nodes, repairs = [], [], []
    for copy in range(copies):
        # Always a full permutation (and a full set of displacements) per copy, whatever the
        # target: the draws, hence the order, do not depend on how many failures are kept.
        order = rng.permutation(n)
        take = order[: min(n, target - copy * n)]
        t = scaled[take]
        if copy > 0:
            shift = rng.uniform(-half_width, half_width, size=n)[first_of_instant]
            t = _reflect(t + shift[take], new_span)
        times.append(t)
        nodes.append(trace.node[take])
        repairs.append(trace.repair[take])
    counts["rescale_copies"] = copies
    return trace.with_columns(note, time=np.concatenate(times), node=np.concatenate(nodes),
                              repair=np.concatenate(repairs), span=new_span, counts=counts)


def _reflect(t: np.ndarray, span: float) -> np.ndarray:
    """Times pushed outside [0, span] by the jitter folded back inside (no pile-up at the ends)."""
    t = np.abs(t)
    return np.where(t > span, 2 * span - t, t).clip(0.0, span)


def merge_overlaps(trace: FailureTrace) -> FailureTrace:
    """One failure per down interval: a failure of a node that is still down is folded into it.

    Real logs record several failures of a node during one outage (159 records of the LANL
    1996-2005 file); the engine extends the repair of a down node either way, so this only
    matters for counting failures or for predictors that should see one event per outage.  The
    first failure of each overlapping group is kept, with its repair extended to the group's
    last end.
    """
    n = len(trace)
    if n < 2:
        return trace.with_columns("merge_overlaps", counts={"merged_failures": 0})
    order = np.lexsort((trace.time, trace.node))
    node, time = trace.node[order], trace.time[order]
    end = time + trace.repair[order]
    keep = np.ones(n, dtype=bool)
    group_end = end.copy()
    head = 0
    for i in range(1, n):
        if node[i] == node[head] and time[i] < group_end[head]:
            keep[i] = False
            group_end[head] = max(group_end[head], end[i])
        else:
            head = i
    new_repair = group_end - time
    idx = np.flatnonzero(keep)
    return trace.with_columns("merge_overlaps", time=time[idx], node=node[idx],
                              repair=new_repair[idx],
                              counts={"merged_failures": int(n - len(idx)),
                                      "failures": len(idx)})
