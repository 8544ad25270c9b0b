"""What a scheduling policy is, and the registry that names them.

A policy is one class with a frozen dataclass of parameters (`Params`), registered under a
name with `@register`.  It sees the system through the simulator's read-only attributes
(`now`, `platform` -- also `cluster` --, job fields) and acts only through its verbs:

    sim.start(job, mask=None, overhead=0.0, backfilled=False, amount=None)
    sim.checkpoint(job, duration, then="requeue" | "suspend" | "continue", amount=None)
    sim.kill(job, reason="preempt" | "failure" | "eviction" | "bad", requeue=True)
    sim.migrate([(job, new_mask), ...], duration=0.0, amount=None, hold_source=False)
    sim.set_rate(job, rate)
    sim.wake_at(t, tag) -> handle;  sim.cancel_timer(handle)

The engine calls the hooks below; `schedule(now)` runs once after all events of a timestamp.
A policy that needs a particular platform (the BG/L torus) builds it in `default_platform`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ckptsim.params import NoParams, describe_range, make_params, param, validate_params
from ckptsim.platform.base import Platform
from ckptsim.registry import Registry, package_loader

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job


class Scheduler:
    """Base class of scheduling policies. Subclasses set `name`, `Params` and `schedule`."""

    name: ClassVar[str] = ""
    Params: ClassVar[type] = NoParams
    description: ClassVar[str] = ""
    #: Metrics of its own the policy adds to a run's summary (names a spec may use).
    counter_names: ClassVar[tuple[str, ...]] = ()
    #: (metric, label) rows `ckptsim run` prints for the policy's own metrics.
    rows: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: The hooks the engine calls on a policy (a plug-in's method named like one but not one
    #: is noted when it loads).
    known_hooks: ClassVar[tuple[str, ...]] = (
        "on_submit", "on_end", "on_timer", "on_requeue", "on_checkpointed", "on_migrated",
        "on_nodes_changed", "before_unavailable")
    #: True when a pass at an instant where nothing happened since the previous pass can
    #: change nothing (no event, no arrival: the same queue, free nodes and running jobs, and
    #: decisions that do not depend on the time alone).  The engine then skips such passes
    #: (instants of superseded or cancelled events only) and drops superseded events from
    #: its heap when they pile up.
    idle_pass_noop: ClassVar[bool] = False
    #: Methods a subclass must define (a plug-in without them is refused where it is named).
    must_define: ClassVar[tuple[str, ...]] = ("schedule",)

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        self.sim = sim
        self.params = params if params is not None else self.Params()
        self.platform = sim.platform

    @property
    def cluster(self) -> Platform:
        """Deprecated alias of `platform` (the whole machine: a cluster, a grid or a torus)."""
        return self.platform

    # --- hooks called by the engine -------------------------------------------------
    def on_submit(self, job: Job) -> None:
        """A job arrived (state QUEUED)."""

    def on_end(self, job: Job) -> None:
        """A job ended for good (DONE or KILLED) and released its nodes."""

    def on_requeue(self, job: Job, reason: str) -> None:
        """A job lost its nodes and waits again (reason: checkpoint, preempt, failure...)."""

    def on_checkpointed(self, job: Job) -> None:
        """A checkpoint completed (before `on_requeue` when the job is requeued)."""

    def on_migrated(self, job: Job) -> None:
        """A migration completed; the job runs on its new nodes."""

    def on_timer(self, now: float, tag: Any) -> None:
        """A timer requested with `sim.wake_at` fired."""

    def on_nodes_changed(self, now: float) -> None:
        """Nodes left or rejoined service (`sim.nodes_changed()`: failures, repairs, owners...):
        the capacity the policy plans with changed."""

    def before_unavailable(self, now: float, mask: int, at: float, reason: str) -> None:
        """Nodes `mask` will leave service at `at` for `reason` (a known interruption such as
        a scheduled reboot; the availability component's `lead` seconds ahead): a chance to
        checkpoint or move the jobs on them."""

    def schedule(self, now: float) -> None:
        """The scheduling pass, once after all events of a timestamp."""
        raise NotImplementedError

    def job_columns(self) -> dict[str, Any]:
        """Per-job columns of this policy's own (numpy arrays in workload order), written
        after the standard ones in jobs.csv and the per-job records; none by default."""
        return {}

    def counters(self) -> dict[str, Any]:
        """The policy's own metrics (`counter_names`), merged into the run's summary."""
        return {}

    @classmethod
    def default_platform(cls, workload: Any, params: Any,
                         machine_size: int | None = None) -> Platform:
        """The platform to simulate on when none is given: by default the homogeneous cluster
        of `machine_size` nodes, else of the workload's machine size."""
        return Platform(int(machine_size if machine_size is not None
                            else workload.machine_size))

    @classmethod
    def prepare_workload(cls, workload: Any, params: Any) -> Any:
        """Adapt a workload to the platform this policy needs (e.g. box-shaped job sizes).
        Called by `simulate` before the run; the default keeps the workload as it is."""
        return workload


_registry: Registry[type[Scheduler]] = Registry("scheduler", "scheduler",
                                                lambda: _load_builtin(), base=Scheduler)
_REGISTRY = _registry.classes


def register(cls: type[Scheduler]) -> type[Scheduler]:
    """Class decorator: make a scheduler available under `cls.name`."""
    return _registry.register(cls)


def scheduler_names() -> list[str]:
    return _registry.names()


def scheduler_classes() -> dict[str, type[Scheduler]]:
    """The built-in and installed schedulers' classes by name (an entry point that does not
    load left out: `Registry.loadable`)."""
    return _registry.loadable()


def get_scheduler(name: str | type[Scheduler]) -> type[Scheduler]:
    """A scheduler by name, plug-in reference (`file.py:Class`, `module:Class`), installed
    entry point (group `ckptsim.schedulers`) or class (see `ckptsim.plugins`)."""
    return _registry.get(name)


def scheduler_identity(name: str | type[Scheduler]) -> str:
    """What experiment run ids hash of a scheduler: a built-in's name; a plug-in's name and
    the SHA-256 of the file that defines it (so that editing it reruns its runs)."""
    return _registry.identity(name)


class SchedulerFactory:
    """A validated scheduler choice: builds the policy for a simulator and prepares the
    workload for the platform the policy needs."""

    def __init__(self, cls: type[Scheduler], params: Any) -> None:
        self.cls = cls
        self.params = params

    def __call__(self, sim: Simulator) -> Scheduler:
        return self.cls(sim, self.params)

    def prepare(self, workload: Any) -> Any:
        return self.cls.prepare_workload(workload, self.params)

    def default_platform(self, workload: Any, machine_size: int | None = None) -> Platform:
        return self.cls.default_platform(workload, self.params, machine_size)


def scheduler_factory(name: str | type[Scheduler], values: Mapping[str, Any] | None = None
                      ) -> SchedulerFactory:
    """Validate a scheduler (a name, a plug-in reference or a class) and its parameters now;
    build the policy later."""
    cls = get_scheduler(name)
    where = name if isinstance(name, str) else cls.name
    return SchedulerFactory(cls, make_params(cls.Params, values or {}, where=where))


#: Imports the package's modules that register a scheduler (`@register`), once.
_load_builtin = package_loader("ckptsim.policies", "register")


__all__ = ["NoParams", "Scheduler", "SchedulerFactory", "describe_range", "get_scheduler",
           "make_params", "param", "register", "scheduler_classes", "scheduler_factory",
           "scheduler_identity", "scheduler_names", "validate_params"]
