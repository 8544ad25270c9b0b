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


def event_kinds() -> list[EventKind]:
    """Every registered kind, by priority."""
    return sorted(_KINDS.values(), key=lambda k: k.priority)


def priority_table() -> list[tuple[str, str, str]]:
    """(priority, event, why) rows, by priority, ending with the scheduling pass."""
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
register_event_kind("timer", PRIO_TIMER, "policy timer",
                    "wake-ups the policy asked for (e.g. a reservation time)")
