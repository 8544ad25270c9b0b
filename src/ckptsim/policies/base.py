"""What a scheduling policy is, and the registry that names them.

A policy is one class with a frozen dataclass of parameters (`Params`), registered under a
name with `@register`.  It sees the system through the simulator's read-only attributes
(`now`, `cluster`, job fields) and acts only through its verbs:

    sim.start(job, mask=None, overhead=0.0, backfilled=False)
    sim.checkpoint(job, duration, then="requeue" | "suspend" | "continue")
    sim.kill(job, reason="preempt" | "failure" | "eviction", requeue=True)
    sim.migrate(job, new_mask, duration)
    sim.set_rate(job, rate)
    sim.wake_at(t, tag) -> handle;  sim.cancel_timer(handle)

The engine calls the hooks below; `schedule(now)` runs once after all events of a timestamp.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ckptsim.errors import ConfigError
from ckptsim.values import parse_bool, parse_int

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job


@dataclasses.dataclass(frozen=True)
class NoParams:
    """A policy without parameters."""


def param(default: Any, help: str, *, low: float | None = None, high: float | None = None,
          low_open: bool = False, high_open: bool = False,
          choices: tuple[Any, ...] | None = None) -> Any:
    """A policy parameter with its documentation and accepted range.

    `low`/`high` are inclusive unless `low_open`/`high_open`; `choices` lists accepted values.
    """
    return dataclasses.field(default=default, metadata={
        "help": help, "low": low, "high": high, "low_open": low_open, "high_open": high_open,
        "choices": choices})


def describe_range(meta: Mapping[str, Any]) -> str:
    if meta.get("choices"):
        return "one of " + ", ".join(str(c) for c in meta["choices"])
    low, high = meta.get("low"), meta.get("high")
    parts = []
    if low is not None:
        parts.append(f"{'>' if meta.get('low_open') else '>='} {low:g}")
    if high is not None:
        parts.append(f"{'<' if meta.get('high_open') else '<='} {high:g}")
    return " and ".join(parts) if parts else "any value"


def _convert(key: str, value: Any, typ: Any) -> Any:
    """Turn a `--set key=value` string (or a TOML value) into the parameter's type."""
    origin = typing.get_origin(typ)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(typ) if a is not type(None)]
        if value is None or (isinstance(value, str) and value.lower() in ("none", "")):
            return None
        typ = args[0]
    if typ is bool:
        return parse_bool(key, value)
    if typ is int:
        return parse_int(key, value)
    if typ is float:
        try:
            text = str(value).strip().lower()
            return math.inf if text in ("inf", "infinity") else float(value)
        except (TypeError, ValueError):
            raise ConfigError(key, f"expected a number, got {value!r}") from None
    return str(value) if typ is str else value


def make_params(cls: type, values: Mapping[str, Any], *, where: str = "") -> Any:
    """Build and validate a parameter dataclass from user values (strings or typed)."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    prefix = f"{where}." if where else ""
    unknown = sorted(set(values) - set(fields))
    if unknown:
        accepted = ", ".join(sorted(fields)) or "none"
        raise ConfigError(prefix + unknown[0], f"unknown parameter; accepted: {accepted}")
    kwargs = {k: _convert(prefix + k, v, hints[k]) for k, v in values.items()}
    obj = cls(**kwargs)
    validate_params(obj, where=where)
    return obj


def validate_params(obj: Any, *, where: str = "") -> None:
    """Check every parameter against its declared range / choices."""
    prefix = f"{where}." if where else ""
    for f in dataclasses.fields(obj):
        meta = f.metadata
        value = getattr(obj, f.name)
        if value is None:
            continue
        if meta.get("choices") and value not in meta["choices"]:
            raise ConfigError(prefix + f.name,
                              f"got {value!r}; accepted: {describe_range(meta)}")
        low, high = meta.get("low"), meta.get("high")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if value != value:
                raise ConfigError(prefix + f.name, "must be a number, got NaN")
            bad = (low is not None and (value <= low if meta.get("low_open") else value < low)) \
                or (high is not None and (value >= high if meta.get("high_open") else value > high))
            if bad:
                raise ConfigError(prefix + f.name,
                                  f"got {value:g}; accepted: {describe_range(meta)}")


class Scheduler:
    """Base class of scheduling policies. Subclasses set `name`, `Params` and `schedule`."""

    name: ClassVar[str] = ""
    Params: ClassVar[type] = NoParams
    description: ClassVar[str] = ""
    #: Metrics of its own the policy adds to a run's summary (names a spec may use).
    counter_names: ClassVar[tuple[str, ...]] = ()
    #: (metric, label) rows `ckptsim run` prints for the policy's own metrics.
    rows: ClassVar[tuple[tuple[str, str], ...]] = ()

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        self.sim = sim
        self.params = params if params is not None else self.Params()
        self.cluster = sim.cluster

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
        """Nodes failed or were repaired: the capacity the policy plans with changed."""

    def schedule(self, now: float) -> None:
        """The scheduling pass, once after all events of a timestamp."""
        raise NotImplementedError

    def counters(self) -> dict[str, Any]:
        """The policy's own metrics (`counter_names`), merged into the run's summary."""
        return {}

    @classmethod
    def prepare_workload(cls, workload: Any, params: Any) -> Any:
        """Adapt a workload to the platform this policy needs (e.g. box-shaped job sizes).
        Called by `simulate` before the run; the default keeps the workload as it is."""
        return workload


_REGISTRY: dict[str, type[Scheduler]] = {}


def register(cls: type[Scheduler]) -> type[Scheduler]:
    """Class decorator: make a scheduler available under `cls.name`."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"scheduler name {cls.name!r} is registered twice")
    _REGISTRY[cls.name] = cls
    return cls


def scheduler_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def get_scheduler(name: str) -> type[Scheduler]:
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ConfigError("scheduler", f"unknown scheduler {name!r}; accepted: "
                                       f"{', '.join(sorted(_REGISTRY))}") from None


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


def scheduler_factory(name: str, values: Mapping[str, Any] | None = None) -> SchedulerFactory:
    """Validate a scheduler name and its parameters now; build the policy later."""
    cls = get_scheduler(name)
    return SchedulerFactory(cls, make_params(cls.Params, values or {}, where=name))


def _load_builtin() -> None:
    # Importing the modules registers their schedulers.
    from ckptsim.policies import (  # noqa: F401
        bgl,
        ckpt_backfill,
        coalloc,
        conservative,
        easy,
        fcfs,
    )
