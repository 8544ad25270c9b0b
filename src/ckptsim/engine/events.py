"""Event kinds and their priorities.

Events are ordered by ``(time, priority, sequence)``: at equal times the lower priority number
is applied first, and at equal priorities the event created first.  Nothing depends on chance or
dict order.  At each timestamp the engine applies the events of priority below submission, then
the submissions, then the events above (timers and later kinds), then gives the policy one
scheduling pass, then asks the rate model (if any) for new progress rates.  If that creates
events at the same time (a zero-length job, a zero-duration checkpoint) they are applied next
and followed by another pass; time never goes back.

The built-in kinds are below.  A component adds its own with `register_event_kind`, placing it
between existing ones with a priority no other kind uses (e.g. 2.5: after overhead completions,
before submissions), and schedules events of it with ``sim.at(t, callback, kind=name)``.
`priority_table` gives the table documented in docs/architecture.md (a test compares them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ckptsim.errors import ConfigError

PRIO_END = 0
PRIO_FAILURE = 1
PRIO_OVERHEAD = 2
PRIO_SUBMIT = 3
PRIO_TIMER = 4


@dataclass(frozen=True)
class EventKind:
    """A kind of event: its name, its priority and why it is placed there."""

    name: str
    priority: float
    event: str
    why: str


_KINDS: dict[str, EventKind] = {}


def register_event_kind(name: str, priority: float, event: str, why: str) -> EventKind:
    """Add a kind of event (idempotent for the same name and priority).

    Raises:
        ConfigError: the name is taken with another priority, or another kind has this
            priority (two kinds never share one: their order would depend on creation order).
    """
    if not isinstance(priority, int | float) or not math.isfinite(priority):
        raise ConfigError("event_kind", f"priority of {name!r} must be a finite number, "
                                        f"got {priority!r}")
    old = _KINDS.get(name)
    if old is not None:
        if old.priority != priority:
            raise ConfigError("event_kind", f"{name!r} is already registered with priority "
                                            f"{old.priority:g}")
        return old
    for kind in _KINDS.values():
        if kind.priority == priority:
            raise ConfigError("event_kind", f"priority {priority:g} of {name!r} is taken by "
                                            f"{kind.name!r}; choose a free one between two "
                                            "kinds")
    kind = EventKind(name, priority, event, why)
    _KINDS[name] = kind
    return kind


def event_kind(name: str) -> EventKind:
    try:
        return _KINDS[name]
    except KeyError:
        raise ConfigError("kind", f"unknown event kind {name!r}; accepted: "
                                  f"{', '.join(sorted(_KINDS))}") from None


def event_kind_or_none(name: str) -> EventKind | None:
    return _KINDS.get(name)


def for_at(name: str, known: bool) -> str:
    """Why `sim.at` refuses an event kind: the engine's own, or unknown; either way the kinds
    it accepts (those registered so far, a component's among them once it is loaded) and how
    a component adds its own."""
    usable = [k.name for k in event_kinds() if k.priority not in ENGINE_PRIORITIES]
    why = (f"{name!r} events are the engine's own" if known else
           f"unknown event kind {name!r}")
    return (f"{why}; accepted: {', '.join(usable)}, or a kind of your own registered first "
            "with ckptsim.engine.events.register_event_kind(name, priority, event, why) "
            "(docs/architecture.md)")


def event_kinds() -> list[EventKind]:
    """Every registered kind, by priority."""
    return sorted(_KINDS.values(), key=lambda k: k.priority)


def priority_table() -> list[tuple[str, str, str]]:
    """(priority, event, why) rows, by priority, ending with the scheduling pass (the
    built-in components' kinds included)."""
    from ckptsim.engine.components import _load_builtin

    _load_builtin()
    rows = [(f"{k.priority:g}", k.event, k.why) for k in event_kinds()]
    rows.append(("last", "scheduling pass, then rate model",
                 "once per timestamp, after all of the above"))
    return rows


register_event_kind("end", PRIO_END, "job end",
                    "a finishing job frees its nodes before anything else happens at that "
                    "instant")
register_event_kind("failure", PRIO_FAILURE, "node failure / repair",
                    "a failure at the instant a job ends does not kill it")
register_event_kind("overhead", PRIO_OVERHEAD, "restart / checkpoint / migration done",
                    "after failures: a failure at that instant loses the checkpoint")
register_event_kind("submit", PRIO_SUBMIT, "job submission",
                    "arrivals see the nodes freed at the same instant")
register_event_kind("slice-boundary", 3.5, "time-slice boundary",
                    "after submissions, so a slice's class counts the jobs arriving at its "
                    "start; before timers, so a timer at that instant sees the switch done")
register_event_kind("timer", PRIO_TIMER, "policy timer",
                    "wake-ups the policy asked for (e.g. a reservation time)")


# --- the engine's heap ------------------------------------------------------------------------

class _NoJob:
    """Stands in for a job on platform events so the version check passes."""

    version = 0


#: The job of an event scheduled with `sim.at` (a component's or the platform's).
NO_JOB = _NoJob()
#: Ends the event heap (time infinity, after every priority): never processed.
SENTINEL: tuple[Any, ...] = (math.inf, math.inf, -1, None, 0, None)
#: The priorities of the engine's own events: `sim.at` refuses a kind placed at one of them.
ENGINE_PRIORITIES = frozenset({PRIO_END, PRIO_OVERHEAD, PRIO_SUBMIT, PRIO_TIMER})


def bad_time(what: str, t: float, now: float) -> str:
    """Why a time cannot be scheduled: in the past, or not a finite number."""
    if t < now:
        return f"{what} at {t:g} is in the past (now {now:g})"
    return f"{what} at {t:g} is not a finite time (now {now:g}); a parameter is inf or NaN?"


def spinning(passes: int, policy: Any, heap: list[tuple[Any, ...]]) -> str:
    """Why a run stopped at one instant: what keeps coming back to it."""
    t = heap[0][0]
    kinds = sorted({"the policy's timers (wake_at)" if e[1] == PRIO_TIMER else
                    f"{getattr(e[5], '__qualname__', 'a component event')}"
                    for e in heap if e[0] == t and e[1] > PRIO_SUBMIT or
                    (e[0] == t and e[3] is NO_JOB)})
    coming = f"; waiting at this instant: {', '.join(kinds)}" if kinds else ""
    return (f"{passes:,} scheduling passes at this instant and time does not move on: "
            f"something is set for the current time over and over (policy "
            f"{type(policy).__name__}){coming}")
