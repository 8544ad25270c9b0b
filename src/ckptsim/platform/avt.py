"""Real availability traces: Godfrey's `.avt` format and FTA event traces, as unavailability
intervals, and their seeded mapping onto a platform's machines.

**`.avt`** (B. Godfrey, *Repository of Availability Traces*; the Microsoft desktop trace of
Bolosky et al. 2000 in ../shared/data/failures/availability_godfrey/): plain or gzip text,
lines starting with `#` are comments; every other line is

    <node> <n> <start_1> <end_1> ... <start_n> <end_n>

a node name (any non-blank text), the number n of its *sessions* (intervals during which it
was available) and their start and end times (seconds).  The trace runs from the measurements'
start (the earliest session start of any node), its time 0, to their end (the latest session
end of any node).  The machine is **unavailable** in the gaps: before its first session,
between sessions, and after its last one up to the trace's end.  A node with no session was
never seen up: the file does not say whether it was down at every probe or never measured
(`web_sites.avt` lists 131 nodes, 2 of them without a session, where Godfrey's readme counts
129 web sites).  `empty=down`, the default, reads it as unavailable throughout; `empty=skip`
replays measured nodes only (`map_onto`).  Sessions must be sorted and disjoint; anything
else is refused naming the file, the line and the field.

**FTA** (Failure Trace Archive, e.g. fta_g5k06): the `event_trace` rows of event type 0 are
the unavailability intervals (`ckptsim.failures.readers.read_fta`), times from the first one.

**Mapping onto machines** (`map_onto`): the trace's nodes are numbered 0..k-1 (file order for
`.avt`, ascending node id for FTA); machine m (0..M-1) replays trace node `order[m mod k]`,
where `order` is 0..k-1 (`map=first`: the first M nodes of the trace) or a permutation drawn
from the stream `availability.mapping` of the run's seed (`map=random`).  With k >= M every
machine has its own trace node; with k < M trace nodes are reused cyclically.  Under
`empty=skip` a machine whose node has no session takes instead the next measured node of
`order` after its first M entries (the others keep theirs, so that a run under `skip` differs
from one under `down` only on those machines); when fewer than M nodes are measured, machine
m replays the m-th measured node of `order`, cyclically (a trace with no measured node is then
refused).  Trace time 0
goes to the simulated time `offset` (the workload's first submission); `start=S` skips the
trace's first S seconds (a start at or after the trace's end is refused: it would replay
nothing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError, shown
from ckptsim.failures.readers import _read_text
from ckptsim.limits import MAX_SECONDS, check_time
from ckptsim.rng import RandomStreams
from ckptsim.values import option_parts

KINDS = ("avt", "fta")
MAPS = ("first", "random")
#: What a `.avt` node with no session is: unavailable throughout, or replaced by a measured one.
EMPTIES = ("down", "skip")
KEYS = {"avt": ("path", "map", "start", "empty"), "fta": ("path", "map", "start", "platform")}
#: What `map_onto` counts of the replay (its docstring).
REPLAY_COUNTS = ("nodes_not_replayed", "intervals_not_replayed", "machines_reusing_nodes",
                 "unmeasured_replaced", "before_start", "cut_at_start", "zero_length",
                 "replayed_intervals", "overlapping_replayed")


@dataclass(frozen=True, eq=False)
class AvailabilityTrace:
    """Unavailability intervals of k trace nodes: `node` (0..k-1), `start`, `end` (seconds
    from the trace's start: for `.avt`, the earliest session start), sorted by (node, start);
    `names` of the nodes; `span`; `measured`: per node, whether it has a session (`.avt`; None:
    every node); `counts`: what the reader read, skipped and built (`read_avt`, or the FTA
    reader's counts)."""

    node: np.ndarray
    start: np.ndarray
    end: np.ndarray
    names: tuple[str, ...]
    span: float
    source: str = ""
    measured: np.ndarray | None = None
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def n_nodes(self) -> int:
        return len(self.names)


def read_avt(path: str | PathLike[str]) -> AvailabilityTrace:
    """Read a `.avt` file (format in the module docstring).

    `counts`: `records` (node lines read), `blank_lines` and `comment_lines` (skipped),
    `sessions` (read), `nodes_without_session`, `intervals` (the unavailability intervals
    built) and `zero_length_gaps` (gaps of no length between, before or after sessions: no
    interval), so that records + sessions = intervals + zero_length_gaps.
    """
    text, where = _read_text(path)
    names: list[str] = []
    sessions: list[list[float]] = []
    seen: dict[str, int] = {}  # node name -> its line
    blank = comment = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            blank += not line
            comment += bool(line)
            continue
        parts = line.split()
        if len(parts) < 2:
            raise WorkloadError("expected <node> <n> <start> <end> ...", path=where, line=number)
        if parts[0] in seen:
            raise WorkloadError(f"node {shown(parts[0])} is already on line {seen[parts[0]]}: a "
                                "node's sessions are all on its one line", path=where,
                                line=number, field="node")
        seen[parts[0]] = number
        n = int(parts[1]) if parts[1].isascii() and parts[1].isdigit() else -1
        if n < 0:
            raise WorkloadError(f"expected a number of sessions >= 0, got {shown(parts[1])}",
                                path=where, line=number, field="n")
        if len(parts) != 2 + 2 * n:
            raise WorkloadError(f"{n} sessions need {2 * n} times, the line has "
                                f"{len(parts) - 2}", path=where, line=number, field="n")
        times: list[float] = []
        for i, value in enumerate(parts[2:]):
            name = f"{'end' if i % 2 else 'start'}_{i // 2 + 1}"
            try:
                t = float(value)
            except ValueError:
                t = math.nan
            if not math.isfinite(t) or t < 0:
                raise WorkloadError(f"expected a time >= 0, got {shown(value)}", path=where,
                                    line=number, field=name)
            check_time(t, path=where, line=number, field=name)
            if times and t < times[-1]:
                what = "ends before it starts" if i % 2 else "starts before the previous ends"
                raise WorkloadError(f"session {i // 2 + 1} {what} ({value} < {times[-1]:g}): "
                                    "sessions must be sorted and disjoint", path=where,
                                    line=number, field=name)
            times.append(t)
        names.append(parts[0])
        sessions.append(times)
    if not names:
        raise WorkloadError("no nodes (only comments or blank lines)", path=where)
    # The measurements run from the earliest session start to the latest session end of any
    # node: a node "can only go up when measurements for that node begin" (Godfrey's readme),
    # so the time before any measurement is no unavailability (web_sites.avt starts at 86,124 s).
    origin = min((s[0] for s in sessions if s), default=0.0)
    span = max((s[-1] for s in sessions if s), default=0.0) - origin
    node, start, end = [], [], []
    for k, times in enumerate(sessions):
        edges = [0.0, *(t - origin for t in times), span]  # gaps: (0, s1), ..., (en, span)
        for a, b in zip(edges[::2], edges[1::2], strict=True):
            if b > a:
                node.append(k)
                start.append(a)
                end.append(b)
    n_sessions = sum(len(times) // 2 for times in sessions)
    counts = {"records": len(names), "blank_lines": blank, "comment_lines": comment,
              "sessions": n_sessions, "nodes_without_session": sum(not s for s in sessions),
              "intervals": len(node), "zero_length_gaps": len(names) + n_sessions - len(node)}
    return AvailabilityTrace(np.asarray(node, dtype=np.int64), np.asarray(start, dtype=float),
                             np.asarray(end, dtype=float), tuple(names), float(span),
                             f"avt:{where}", np.asarray([bool(s) for s in sessions]), counts)


def read_fta_availability(path: str | PathLike[str], platform: int | None = None
                          ) -> AvailabilityTrace:
    """The unavailability intervals (event type 0) of an FTA trace; `counts` are the FTA
    reader's (`failures`: the intervals read)."""
    from ckptsim.failures.readers import read_fta

    ft = read_fta(path, platform=platform)
    ids, dense = np.unique(ft.node, return_inverse=True)
    order = np.lexsort((ft.time, dense))
    return AvailabilityTrace(dense[order].astype(np.int64), ft.time[order].astype(float),
                             (ft.time + ft.repair)[order].astype(float),
                             tuple(str(i) for i in ids.tolist()), float(ft.span), ft.source,
                             counts=dict(ft.loader))


def parse_source(text: str, base: Path | None = None) -> tuple[str, dict[str, str]]:
    """`avt:path=FILE[,map=first|random][,start=S][,empty=down|skip]` or
    `fta:path=DIR[,platform=N][,...]`, checked (the file exists, options known); a relative
    path resolves against `base`."""
    kind, sep, rest = str(text).strip().partition(":")
    if kind not in KINDS or not sep:
        raise ConfigError("availability.trace", f"expected avt:path=FILE[,map=first|random]"
                                                f"[,start=S][,empty=down|skip] or "
                                                f"fta:path=DIR[,platform=N]..., got {shown(text)}")
    opt: dict[str, str] = {}
    for part in option_parts("availability.trace", rest, text):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in KEYS[kind]:
            raise ConfigError("availability.trace", f"unknown option {shown(part)} of {kind}; "
                                                    f"accepted: {', '.join(KEYS[kind])}")
        if key in opt:
            raise ConfigError("availability.trace", f"{key} is given twice in {shown(text)} "
                                                    f"({key}={opt[key]} and {part}): give "
                                                    f"each option once")
        opt[key] = value.strip()
    if "path" not in opt:
        raise ConfigError("availability.trace", f"{kind} needs path=...")
    p = Path(opt["path"]).expanduser()
    if base is not None and not p.is_absolute():
        p = (base / p).resolve()
    if not p.exists():
        raise ConfigError("availability.trace", f"no such file or folder: {p}")
    opt["path"] = str(p)
    _check_choice("map", opt.get("map", "first"), MAPS)
    _check_choice("empty", opt.get("empty", "down"), EMPTIES)
    if "start" in opt:
        try:
            ok = 0 <= float(opt["start"]) <= MAX_SECONDS
        except ValueError:
            ok = False
        if not ok:
            raise ConfigError("availability.trace", f"start={shown(opt['start'])}: expected a "
                              f"number >= 0 and <= {MAX_SECONDS:g} (MAX_SECONDS)")
    if "platform" in opt:
        # A platform_id is a whole number: 5.7 would otherwise be read as platform 5.
        if not (opt["platform"].isascii() and opt["platform"].isdigit()):
            raise ConfigError("availability.trace", f"platform={shown(opt['platform'])}: expected "
                                                    "a platform_id, an integer >= 0")
    return kind, opt


def _check_choice(key: str, value: str, accepted: tuple[str, ...]) -> None:
    if value not in accepted:
        raise ConfigError("availability.trace", f"{key}={shown(value)}; accepted: "
                                                f"{', '.join(accepted)}")


def load_source(text: str) -> AvailabilityTrace:
    """The trace a source string names.

    Raises:
        ConfigError: keyed ``availability.trace``, the option in the message (a reader's key
            such as ``platform`` is no flag of the command line).
    """
    kind, opt = parse_source(text)
    if kind == "avt":
        return read_avt(opt["path"])
    platform = int(opt["platform"]) if "platform" in opt else None
    try:
        return read_fta_availability(opt["path"], platform)
    except ConfigError as exc:
        raise ConfigError("availability.trace", f"{exc.key}: {exc.message}") from None


def map_onto(trace: AvailabilityTrace, n_machines: int, *, method: str = "first",
             seed: int = 0, offset: float = 0.0, skip: float = 0.0, empty: str = "down",
             counts: dict[str, int] | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(machine, start, end) of the unavailability intervals replayed by the machines
    (mapping in the module docstring), on the simulated clock, sorted by start.

    `counts`, when given, receives what the replay dropped or changed (`REPLAY_COUNTS`):
    `nodes_not_replayed` (trace nodes no machine replays: beyond the machines, or without a
    session under `empty=skip`) and their `intervals_not_replayed`; `machines_reusing_nodes`
    (machines replaying a node an earlier machine replays too); `unmeasured_replaced`
    (`empty=skip`); of the replayed nodes' intervals, `before_start` (ending at or before
    `start=S`: dropped), `cut_at_start` (running across it: cut there), `zero_length`
    (dropped) and `replayed_intervals` (kept, every machine's), of which
    `overlapping_replayed` start while their machine is still unavailable from an earlier
    one (the machine returns at the later end)."""
    _check_choice("map", method, MAPS)
    _check_choice("empty", empty, EMPTIES)
    # After its end a trace holds no machine: a start there would replay nothing at all.
    last = max(trace.span, float(trace.end.max()) if len(trace.end) else 0.0)
    if skip > 0 and skip >= last:
        raise ConfigError("availability.trace", f"start={skip:.10g} skips the whole trace "
                                                f"{trace.source}, which ends at {last:.10g} "
                                                f"s; accepted: a start below {last:.10g} s")
    k = trace.n_nodes
    order = (np.arange(k) if method == "first"
             else RandomStreams(seed).stream("availability.mapping").permutation(k))
    node_of = order[np.arange(n_machines) % k]
    plain = node_of
    if empty == "skip" and trace.measured is not None and not trace.measured.all():
        node_of = _measured_only(order, trace.measured, n_machines, trace.source)
    bounds = np.searchsorted(trace.node, np.arange(k + 1))
    machine, start, end = [], [], []
    c = dict.fromkeys(REPLAY_COUNTS, 0)
    for m, node in enumerate(node_of.tolist()):
        lo, hi = bounds[node], bounds[node + 1]
        s = np.maximum(trace.start[lo:hi], skip)
        e = trace.end[lo:hi]
        keep = e > s
        machine.append(np.full(int(keep.sum()), m, dtype=np.int64))
        start.append(s[keep] - skip + offset)
        end.append(e[keep] - skip + offset)
        if counts is not None:
            early = e <= skip
            c["before_start"] += int(early.sum())
            c["zero_length"] += int((~keep & ~early).sum())
            c["cut_at_start"] += int((keep & (trace.start[lo:hi] < skip)).sum())
            c["replayed_intervals"] += int(keep.sum())
            ends = e[keep]
            c["overlapping_replayed"] += int(np.count_nonzero(
                s[keep][1:] < np.maximum.accumulate(ends)[:-1]))
    if counts is not None:
        replayed = np.unique(node_of)
        per_node = np.diff(bounds)
        c["nodes_not_replayed"] = k - len(replayed)
        c["intervals_not_replayed"] = int(per_node.sum() - per_node[replayed].sum())
        c["machines_reusing_nodes"] = n_machines - len(replayed)
        c["unmeasured_replaced"] = int(np.count_nonzero(node_of != plain))
        counts.update(c)
    if not machine:
        return np.empty(0, np.int64), np.empty(0), np.empty(0)
    mc, st, en = np.concatenate(machine), np.concatenate(start), np.concatenate(end)
    idx = np.lexsort((mc, st))
    return mc[idx], st[idx], en[idx]


def _measured_only(order: np.ndarray, measured: np.ndarray, n_machines: int,
                   source: str) -> np.ndarray:
    """The trace node of each machine under `empty=skip` (module docstring)."""
    kept = order[measured[order]]
    if not len(kept):
        raise ConfigError("availability.trace", f"none of the {len(order)} nodes of {source} "
                                                "has a session: empty=skip leaves no node to "
                                                "replay; accepted: a trace with a session, or "
                                                "empty=down")
    if len(kept) < n_machines:
        return kept[np.arange(n_machines) % len(kept)]
    node_of = order[:n_machines].copy()
    spare = order[n_machines:]
    spare = spare[measured[spare]]
    unmeasured = ~measured[node_of]
    node_of[unmeasured] = spare[:int(unmeasured.sum())]
    return node_of


__all__ = ["AvailabilityTrace", "load_source", "map_onto", "parse_source", "read_avt",
           "read_fta_availability"]
