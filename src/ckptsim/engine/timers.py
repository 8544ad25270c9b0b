"""The engine's event queue as the policies and components see it (a part of `Simulator`):
timers for the policy (`wake_at` / `cancel_timer`), events for components (`at` / `cancel`),
and the compaction that drops superseded and cancelled events from the heap.

Events are tuples ``(t, priority, seq, job, version, payload)`` on one heap; the priority of
a kind comes from `ckptsim.engine.events` (ends and overheads before submissions, timers and
the kinds after them), and ``seq`` (unique) keeps the order of events at one time and
priority the order they were made in.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable
from heapq import heapify, heappush
from typing import Any

from ckptsim.engine.events import (
    ENGINE_PRIORITIES,
    NO_JOB,
    PRIO_END,
    PRIO_OVERHEAD,
    PRIO_SUBMIT,
    PRIO_TIMER,
    bad_time,
    event_kind_or_none,
    for_at,
)
from ckptsim.engine.phases import Phases
from ckptsim.errors import ConfigError, DecisionError

INF = math.inf


def not_callable_with_time(callback: object) -> str:
    """Why `sim.at` cannot call `callback(t)`, naming it, its file and line ("" if it can,
    or if Python cannot tell: a built-in without a signature)."""
    if not callable(callback):
        return (f"the callback {callback!r} given to sim.at is not callable; sim.at(t, "
                f"callback) calls callback(t) at time t")
    try:
        sig = inspect.signature(callback)
    except (TypeError, ValueError):
        return ""
    try:
        sig.bind(0.0)
    except TypeError as exc:
        func = getattr(callback, "__func__", callback)
        code = getattr(func, "__code__", None)
        name = getattr(func, "__qualname__", None) or type(callback).__qualname__
        where = f" ({code.co_filename}, line {code.co_firstlineno})" if code else ""
        return (f"the callback {name}{sig}{where} given to sim.at cannot be called as "
                f"callback(t): {exc}; "
                f"sim.at(t, callback) calls it with the event's time alone (write "
                f"`def {getattr(func, '__name__', 'callback')}(self, t)` for a method, or pass "
                f"`lambda t: ...`)")
    return ""


class Timers(Phases):
    """Timers, component events, cancelling and the heap's compaction (part of `Simulator`)."""

    _cancelled: set[int]
    _kind_prio: dict[str, float]

    def _compact(self, heap: list[tuple[Any, ...]]) -> None:
        """Drop from the heap, in place, the events the loop would drop when they come up:
        superseded job events and cancelled events (the others keep their order: their keys
        are unique)."""
        cancelled = self._cancelled
        keep = []
        for e in heap:
            prio = e[1]
            if prio < PRIO_SUBMIT:
                if e[3].version != e[4]:
                    continue
                if prio != PRIO_END and prio != PRIO_OVERHEAD and e[2] in cancelled:
                    cancelled.discard(e[2])
                    continue
            elif e[2] in cancelled:
                cancelled.discard(e[2])
                continue
            keep.append(e)
        heapify(keep)
        heap[:] = keep

    def wake_at(self, t: float, tag: Any = None) -> int:
        """Ask for `policy.on_timer(t, tag)` at time t (>= now). Returns a cancel handle."""
        if not self.now <= t < INF:
            raise DecisionError(None, bad_time("timer", t, self.now), self.now)
        return self._push(t, PRIO_TIMER, None, 0, tag)

    def cancel_timer(self, handle: int) -> None:
        self._cancelled.add(handle)

    def at(self, t: float, callback: Callable[[float], None], kind: str = "failure") -> int:
        """`callback(t)` at time t (>= now), ordered by the priority of event `kind` (see
        `ckptsim.engine.events`; default: node failures).  Returns a handle for `cancel`."""
        if not self.now <= t < INF:
            raise DecisionError(None, bad_time("event", t, self.now), self.now)
        prio = self._kind_prio.get(kind)
        if prio is None:
            found = event_kind_or_none(kind)
            if found is None or found.priority in ENGINE_PRIORITIES:
                raise ConfigError("sim.at", for_at(kind, found is not None))
            prio = self._kind_prio[kind] = found.priority
        self._seq += 1
        heappush(self._heap, (t, prio, self._seq, NO_JOB, 0, callback))
        return self._seq

    def _check_callback(self, callback: object) -> None:
        """Called when an event's callback raised TypeError: if it cannot be called as
        ``callback(t)`` at all, say so, naming it; else its own code raised the error.  (Checked
        when it fails, not in `at`: the events of a run cost no test.)"""
        refused = not_callable_with_time(callback)
        if refused:
            raise ConfigError("sim.at", refused) from None

    def cancel(self, handle: int) -> None:
        """Drop an event scheduled with `at` or `wake_at`."""
        self._cancelled.add(handle)

    def withdraw(self, handles: Iterable[int]) -> None:
        """Take events scheduled with `at` or `wake_at` off the queue now.  Unlike `cancel`,
        whose events still bring the clock to their time (an instant with nothing to do), a
        withdrawn event leaves no trace: a component whose events continue as long as jobs
        run (failures past the submit span) withdraws the rest when the last job ends, so the
        run ends then."""
        drop = set(handles)
        if not drop:
            return
        heap = self._heap
        heap[:] = [e for e in heap if e[2] not in drop]  # in place: the loop holds the list
        heapify(heap)
