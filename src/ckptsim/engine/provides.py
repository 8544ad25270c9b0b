"""What components provide to each other: small typed protocols.

A component that offers a service to others declares it in its class, ``provides =
(FailureTimes, Progress)``, and implements the protocol's methods; a policy, a component or a
checkpoint policy that needs one asks ``sim.provider(FailureTimes)``, which returns the first
attached component providing it, or None.  Neither side names the other: a plug-in component
may provide any of these (and be found by the built-ins), or consume them.  A component may
narrow its class's `provides` per instance (e.g. the availability component provides
`FailureTimes` only when it is given failures).

The protocols describe what the callers use, nothing more:

===================  =================================================================
`FailureTimes`       the run's failure schedule: its times and the nodes failing in a window
                     (the failures component; the availability component given failures)
`Progress`           a job's progress at a past time of its allocation, suspensions counted
                     (the availability component)
`Suspensions`        forget a suspended job's suspension when it leaves its machines; tell
                     of suspensions and resumes (the availability component)
`OwnerArrivals`      the users' arrivals at machines (the availability component)
`Announcements`      interruptions announced ahead (reboots, maintenance) and their lead
                     (the availability component)
`WorkCalendar`       the calendar that maps run time to local time (the availability
                     component)
`PowerStates`        which machines sleep, the idle timeout, Opt's saves (the energy
                     meter)
`PowerManagement`    the power manager, linked to the energy meter (the power manager)
===================  =================================================================

This module belongs to the kernel: it imports only the platform, the engine's state and the
errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from ckptsim.calendar import Calendar
    from ckptsim.engine.state import Job


class FailureTimes(Protocol):
    """The run's failure schedule, known in advance (what a perfect predictor reads)."""

    def failure_times(self) -> Sequence[float]:
        """The times of the run's failures, sorted."""
        ...

    def failing_nodes(self, start: float, end: float) -> int:
        """Mask of the nodes with a failure in [start, end]."""
        ...

    # Optional: `failure_units(mask) -> (units, of)`, how many of the units a failure strikes
    # (nodes, or whole machines) hold the mask's nodes, and how many units there are.  The
    # checkpoint component's M reads it; a provider without it strikes single nodes.


class Progress(Protocol):
    """A job's progress as the component that slows or freezes it knows it."""

    def work_at(self, job: Job, t: float) -> float:
        """The job's progress at a time t <= now of its current allocation."""
        ...


class Suspensions(Protocol):
    """Jobs suspended in place (rate 0) by a component."""

    def release(self, job: Job) -> None:
        """Forget the job's suspension: it leaves its machines for another reason."""
        ...

    def listen(self, tell: Callable[[Job, float, bool], None]) -> None:
        """Call `tell(job, now, True)` at each suspension in place and `tell(job, now,
        False)` at each resume (optional: the checkpoint component's `suspended=defer` and the
        bound's `suspended=exclude` need it)."""
        ...


def listen_for_suspensions(sim: Any, tell: Callable[[Job, float, bool], None], key: str,
                           needs: str, accepted: str) -> None:
    """Have `tell` called at each suspension in place and resume (`Suspensions.listen`) by
    the run's provider of suspensions; nothing when no component suspends jobs in place.

    Raises:
        ConfigError: the provider cannot tell (`key`: `needs` ... ; accepted: `accepted`).
    """
    listen = suspension_listener(sim, key, needs, accepted)
    if listen is not None:
        listen(tell)


def suspension_listener(sim: Any, key: str, needs: str, accepted: str) -> Any:
    """The `listen` of the run's provider of suspensions (None: no component suspends jobs
    in place), checked as `listen_for_suspensions` checks it, without listening."""
    from ckptsim.errors import ConfigError

    provider = sim.provider(Suspensions)
    if provider is None:
        return None
    listen = getattr(provider, "listen", None)
    if listen is None:
        raise ConfigError(key, f"{needs} needs to be told when jobs are suspended and resume, "
                               f"and {type(provider).__name__} (which suspends them) has no "
                               f"listen(tell); accepted: {accepted}")
    return listen  # type: ignore[no-any-return]


class OwnerArrivals(Protocol):
    """The arrivals of the machines' users (owners' logins, a trace's interruptions)."""

    def knows_arrivals(self) -> bool:
        """True when the run has arrivals to count (owners or a trace)."""
        ...

    def arrivals(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(machine, time) of every arrival; None when there are none."""
        ...


class Announcements(Protocol):
    """Interruptions announced ahead of time (`before_unavailable`)."""

    def announces(self) -> bool:
        """True when the run announces interruptions (reboots or maintenance)."""
        ...

    def notice_lead(self) -> float:
        """Seconds between an announcement and its interruption."""
        ...


class WorkCalendar(Protocol):
    """The calendar (time zone, epoch) of the run's machines."""

    def work_calendar(self) -> Calendar:
        """The calendar mapping run time to local time."""
        ...


class PowerStates(Protocol):
    """The energy meter's view of sleeping machines, which a power manager drives."""

    sleep_after: float  # seconds an idle machine waits before it sleeps (inf: never)
    until_state: str  # where a sleep transition leads: "sleep" or "off"
    manager: Any  # the power manager linked, or None

    def set_sleep_after(self, seconds: float) -> None:
        """Set the idle timeout (before the run)."""
        ...

    def node_asleep(self, node: int, now: float) -> bool:
        """True when the node's machine is asleep (or off) at `now`."""
        ...

    def sleeps(self) -> int:
        """Machines put to sleep so far."""
        ...

    def progress_saved(self, job: Job, at: float) -> None:
        """The job's progress was saved as of `at` <= now without a checkpoint phase (Opt's
        checkpoint over [at, now], recorded at an eviction): its unsaved node time counts
        from `at` (optional: the checkpoint component calls it when the meter has it)."""
        ...


class PowerManagement(Protocol):
    """A power manager: it sets the meter's idle timeout and sleep state."""

    def link(self, meter: PowerStates) -> None:
        """Link the manager and the meter (once both are attached)."""
        ...


__all__ = ["Announcements", "FailureTimes", "OwnerArrivals", "PowerManagement", "PowerStates",
           "Progress", "Suspensions", "WorkCalendar"]
