"""The failure trace: what the failure layer hands to the engine.

A `FailureTrace` is a list of node failures held as numpy columns, always sorted by time (ties
by node id, so that two traces with the same failures are equal whatever order they were
built in).  Each failure has a start `time` in seconds from the start of the simulated period,
a `node` and a `repair` duration: the node is down from `time` to `time + repair`; a repair of
0 is a transient failure (the node is usable again at once, the model of seed 004).

Readers, transforms and generators all return a new trace and never modify one in place; the
columns are made read-only so that a trace shared between runs cannot be changed by one of them.
`counts` says what readers and transforms did (records skipped, duplicates seen...), `notes` the
transforms applied in order and `steps` what each of them counted, so that a run's summary can
say where its failures came from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError

__all__ = ["FailureTrace"]


def _column(values: Any, dtype: type, name: str) -> np.ndarray:
    # A copy: the caller's array stays writable while the trace's own is frozen.
    arr: np.ndarray = np.array(values, dtype=dtype)
    if arr.ndim != 1:
        raise ValueError(f"failure column {name!r} must be one-dimensional, got shape {arr.shape}")
    return arr


@dataclass(frozen=True, eq=False)
class FailureTrace:
    """Node failures as columns, sorted by time.

    Attributes:
        time: failure start in seconds from the start of the simulated period (float64, >= 0).
        node: the failing node (int64): a simulated node id once `map_nodes` has run, the trace's
            own node id before.
        repair: seconds the node stays down (float64, >= 0); 0 = transient.
        span: length in seconds of the period the trace covers; every time lies in [0, span].
            Rescaling maps this period onto the simulated one.  Not given (NaN or None), it is
            the last failure time.
        source: a short description of the origin (a path and selection, or a model and seed).
        counts: how many records each reader rule and transform touched.
        notes: the transforms applied, in order.
        loader: the reader's own counts as it returned them (records read, what each of its
            rules dropped or changed, failures kept), which transforms leave as they are:
            summary.json's `options.failures.loader`.  Empty for a trace not read from a log.
        steps: what each transform of `notes` counted (trace nodes, failures rescaled...),
            one dict per note, in order (empty for one that counts nothing): summary.json's
            `options.failures.transform_counts`.
    """

    time: np.ndarray
    node: np.ndarray
    repair: np.ndarray
    span: float = math.nan
    source: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    loader: dict[str, int] = field(default_factory=dict)
    steps: tuple[dict[str, int], ...] = ()

    def __post_init__(self) -> None:
        time = _column(self.time, np.float64, "time")
        node = _column(self.node, np.int64, "node")
        repair = _column(self.repair, np.float64, "repair")
        n = len(time)
        if len(node) != n or len(repair) != n:
            raise ValueError(f"failure columns differ in length: time {n}, node {len(node)}, "
                             f"repair {len(repair)}")
        if n and not (np.all(np.isfinite(time)) and time.min() >= 0):
            raise ValueError("failure times must be finite and >= 0")
        if n and not (np.all(np.isfinite(repair)) and repair.min() >= 0):
            raise ValueError("repair times must be finite and >= 0")
        if n > 1 and not _is_sorted(time, node):
            order = np.lexsort((node, time))
            time, node, repair = time[order], node[order], repair[order]
        last = float(time[-1]) if n else 0.0
        span = last if self.span is None or math.isnan(self.span) else float(self.span)
        if not (np.isfinite(span) and span >= last):
            raise ValueError(f"span {span} must be finite and cover the last failure at {last}")
        for arr in (time, node, repair):
            arr.setflags(write=False)
        object.__setattr__(self, "time", time)
        object.__setattr__(self, "node", node)
        object.__setattr__(self, "repair", repair)
        object.__setattr__(self, "span", span)
        object.__setattr__(self, "counts", dict(self.counts))
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(self, "loader", dict(self.loader))
        steps = tuple(dict(c) for c in self.steps)[-len(self.notes):] if self.notes else ()
        object.__setattr__(self, "steps", ({},) * (len(self.notes) - len(steps)) + steps)

    # -- value-type behaviour -------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.time)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FailureTrace):
            return NotImplemented
        return (np.array_equal(self.time, other.time) and np.array_equal(self.node, other.node)
                and np.array_equal(self.repair, other.repair) and self.span == other.span
                and self.source == other.source and self.counts == other.counts
                and self.notes == other.notes and self.loader == other.loader
                and self.steps == other.steps)

    __hash__ = None  # type: ignore[assignment]  # counts is a dict: not hashable

    def __repr__(self) -> str:
        return (f"FailureTrace({len(self)} failures on {len(self.nodes)} nodes, "
                f"span={self.span:g} s, source={self.source!r}, notes={self.notes!r})")

    # -- derived values -------------------------------------------------------------------

    @property
    def nodes(self) -> np.ndarray:
        """The distinct node ids, ascending."""
        return np.unique(self.node)

    @property
    def end(self) -> np.ndarray:
        """When each failed node is usable again (`time + repair`)."""
        return self.time + self.repair

    @property
    def transient(self) -> bool:
        """True when every failure has repair 0 (nodes never stay down)."""
        return bool(len(self) == 0 or not np.any(self.repair))

    # -- new traces -----------------------------------------------------------------------

    def subset(self, mask: Any, note: str | None = None,
               counts: dict[str, int] | None = None) -> FailureTrace:
        """The failures selected by a boolean mask or an index array (span unchanged)."""
        idx = np.asarray(mask)
        if idx.dtype == bool and idx.shape != self.time.shape:
            raise ValueError(f"mask has shape {idx.shape}, the trace has {len(self)} failures")
        new_counts = dict(self.counts)
        if counts:
            new_counts.update(counts)
        return replace(self, time=self.time[idx], node=self.node[idx], repair=self.repair[idx],
                       counts=new_counts, notes=self.notes + ((note,) if note else ()),
                       steps=self.steps + ((dict(counts or {}),) if note else ()))

    def with_columns(self, note: str, *, counts: dict[str, int] | None = None,
                     **changes: Any) -> FailureTrace:
        """A trace with some columns (or the span) replaced and `note` appended to `notes`."""
        new_counts = dict(self.counts)
        if counts:
            new_counts.update(counts)
        return replace(self, notes=self.notes + (note,), counts=new_counts,
                       steps=self.steps + (dict(counts or {}),), **changes)

    def shifted(self, offset: float) -> FailureTrace:
        """The same failures `offset` seconds later (the period moves with them)."""
        offset = float(offset)
        if not (np.isfinite(offset) and offset >= 0):
            raise ConfigError("offset", f"must be a finite number of seconds >= 0, got {offset}")
        return replace(self, time=self.time + offset, span=self.span + offset,
                       notes=self.notes + (f"shifted({offset:g})",), steps=self.steps + ({},))

    def window(self, start: float, end: float | None = None, *,
               rebase: bool = True) -> FailureTrace:
        """The failures starting in [start, end), as a trace of the period [start, end).

        With `rebase` the times become relative to `start` and the span is `end - start`;
        without an end the window runs to the end of the trace (a failure exactly at the span
        included).  Without `rebase` the times and the span are kept, so
        that the failures stay where they were in the longer period.  A node down at `start`
        from an earlier failure counts as up: the window holds failures, not down states.
        """
        start = float(start)
        stop = max(self.span, start) if end is None else float(end)
        if not (np.isfinite(start) and start >= 0):
            raise ConfigError("start", f"must be a finite time >= 0 in seconds, got {start}")
        if not (np.isfinite(stop) and stop >= start):
            raise ConfigError("end", f"must be a finite time >= start ({start:g} s), got {stop}")
        lo = int(np.searchsorted(self.time, start, side="left"))
        # Without an end every later failure stays, including one exactly at the span.
        hi = len(self) if end is None else int(np.searchsorted(self.time, stop, side="left"))
        sel = slice(lo, hi)
        note = f"window({start:g}, {stop:g}{'' if rebase else ', rebase=False'})"
        steps = self.steps + ({"window_dropped": len(self) - (hi - lo)},)
        if rebase:
            return replace(self, time=self.time[sel] - start, node=self.node[sel],
                           repair=self.repair[sel], span=stop - start,
                           notes=self.notes + (note,), steps=steps)
        return replace(self, time=self.time[sel], node=self.node[sel], repair=self.repair[sel],
                       notes=self.notes + (note,), steps=steps)

    # -- queries --------------------------------------------------------------------------

    def failing_nodes(self, start: float, end: float) -> np.ndarray:
        """Distinct nodes with a failure starting in [start, end), ascending.

        This is the question seed 004's predictors ask of the failure log ("does node n fail
        within the next s seconds?"); the sorted time column answers it with two binary
        searches instead of a scan.
        """
        lo = int(np.searchsorted(self.time, start, side="left"))
        hi = int(np.searchsorted(self.time, end, side="left"))
        return np.unique(self.node[lo:hi])

    def duplicates(self) -> int:
        """How many failures repeat an earlier one exactly (same node, start and repair)."""
        if len(self) < 2:
            return 0
        rows = np.stack([self.time, self.node.astype(np.float64), self.repair], axis=1)
        return len(self) - len(np.unique(rows, axis=0))

    def overlapping(self) -> np.ndarray:
        """Mask of failures starting while their node is still down from an earlier failure.

        Such a failure changes nothing on the machine (the node is already down) but extends the
        outage if it ends later; logs hold them when an outage is recorded more than once.
        """
        n = len(self)
        mask = np.zeros(n, dtype=bool)
        if n < 2:
            return mask
        order = np.lexsort((self.time, self.node))
        node = self.node[order]
        time = self.time[order]
        end = time + self.repair[order]
        # Shift each node's times into a band of its own so that one running maximum of the
        # ends serves every node at once.
        _, rank = np.unique(node, return_inverse=True)
        band = float(end.max()) + 1.0
        running = np.maximum.accumulate(end + rank * band)
        same = np.concatenate(([False], node[1:] == node[:-1]))
        previous = np.concatenate(([-np.inf], running[:-1]))
        mask[order] = same & (time + rank * band < previous)
        return mask


def _is_sorted(time: np.ndarray, node: np.ndarray) -> bool:
    dt = np.diff(time)
    if np.any(dt < 0):
        return False
    ties = dt == 0
    return not np.any(ties & (np.diff(node) < 0))
