"""The checkpoint-interval policy family: base class, shared cost parameters, registry.

Every policy has the cost parameters of `CostParams`:

* checkpoint cost delta: `cost` seconds, or `size * memory / bandwidth + constant` (memory in
  GB per processor: the `memory` parameter, else the job's SWF used memory, else its requested
  memory, in KB per processor; bandwidth in GB/s);
* restart cost R: `restart` seconds (default: the checkpoint cost, the image read back);
* M, the mean time between failures hitting a job: `mtbf` seconds, else derived from the run's
  failure list as (span * units) / (failures * the job's units), a unit being what a failure
  strikes (a node, or a machine), span the workload's submit span and failures those of the
  list inside it (`intervals.failures_mtbf`, docs/energy.md);
* `suspended`: what the checkpoint component does with a periodic checkpoint due while the
  job is suspended in place by its machine's owner (`take`, the default, or `defer`; see
  docs/energy.md).

`interval(delta, M, R)` is the compute time between two checkpoints (inf: never).  A policy
whose interval changes from one checkpoint to the next (`dynamic = True`) overrides
`next_interval(delta, M, R, ctx)` instead; the component asks it before every checkpoint with
an `IntervalContext` (the job, its intervals ended since it was last allocated: checkpoints
completed or skipped, the time the interval is counted from, that time's seconds past the
wall-clock hour, the run's seed, and whether the job's cluster is open at a given time).
Static policies are asked once per job, as before.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from ckptsim.errors import ConfigError, did_you_mean, shown, shown_key
from ckptsim.params import make_params, param
from ckptsim.registry import Registry, package_loader

INF = math.inf


@dataclasses.dataclass(frozen=True)
class CostParams:
    cost: float | None = param(None, "checkpoint duration, s (else memory / bandwidth + "
                                     "constant)", low=0.0, seconds=1.0)
    bandwidth: float | None = param(None, "GB/s a checkpoint is written at (with memory)",
                                    low=0.0, low_open=True)
    memory: float | None = param(None, "GB per processor to save (default: the SWF used, "
                                       "else requested, memory)", low=0.0)
    constant: float = param(0.0, "seconds added to memory / bandwidth", low=0.0, seconds=1.0)
    restart: float | None = param(None, "restart duration, s (default: the checkpoint cost)",
                                  low=0.0, seconds=1.0)
    mtbf: float | None = param(None, "mean time between failures of a job, s (default: "
                                     "from the run's failures)", low=0.0, low_open=True,
                               seconds=1.0)
    suspended: str = param("take", "a periodic checkpoint due while the job is suspended in "
                                   "place by its machine's owner: take it then, or defer it "
                                   "to the resume, the intervals counting no suspended time",
                           choices=("take", "defer"), added=True)


@dataclasses.dataclass(frozen=True)
class IntervalContext:
    """What a dynamic policy sees when it picks a job's next interval."""

    job: int  # the job's index
    # intervals of the job ended since it was last allocated nodes: its checkpoints
    # completed, and the due ones a skip policy skipped
    count: int
    at: float  # the time the interval is counted from (the job's progress (re)starts)
    hour_s: float  # seconds past the wall-clock hour at `at` (the availability epoch)
    seed: int  # the run's seed (for a policy's random component)
    open_at: Callable[[float], bool] | None = None  # is the job's cluster open at a time


class CheckpointPolicy:
    """Base class: subclasses set `name`, `Params` (extending CostParams), `interval`."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    Params: ClassVar[type] = CostParams
    needs_mtbf: ClassVar[bool] = False
    dynamic: ClassVar[bool] = False  # True: next_interval is asked before every checkpoint
    before_eviction: ClassVar[bool] = False  # True: checkpoint just before every eviction
    #: "interval" (when to checkpoint), "skip" (whether to take an interval's checkpoint) or
    #: "proactive" (checkpoints ahead of known events); see `checkpointing.plan`.
    kind: ClassVar[str] = "interval"
    #: Methods a subclass must define (a plug-in without them is refused where it is named;
    #: a `dynamic` one defines next_interval instead of interval).
    must_define: ClassVar[tuple[str, ...]] = ("interval",)
    #: What a plug-in's Params must extend.
    params_base: ClassVar[type] = CostParams

    def __init__(self, params: Any = None, *, need_cost: bool = True) -> None:
        """`need_cost=False`: the caller supplies every job's checkpoint cost (a scheduler
        with its own cost model asks only for the interval)."""
        self.params = params if params is not None else self.Params()
        p = self.params
        if need_cost and p.cost is None and p.bandwidth is None and type(self).name != "none":
            raise ConfigError("checkpoint.cost", "give the checkpoint cost: cost=S, or "
                                                 "bandwidth=GB/s (+ memory=GB, constant=S)")
        if p.cost is not None and p.bandwidth is not None:
            raise ConfigError("checkpoint.cost", "give cost or bandwidth, not both")

    def uses_mtbf(self) -> bool:
        """Whether `interval` reads M (the component then derives it when not given)."""
        return self.needs_mtbf

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        """Compute seconds between checkpoints for a checkpoint cost `delta` (a `dynamic`
        policy need not: `next_interval` answers for it)."""
        raise NotImplementedError

    def next_interval(self, delta: float, mtbf: float, restart: float,
                      ctx: IntervalContext) -> float:
        """Compute seconds from `ctx.at` to the job's next checkpoint (dynamic policies)."""
        return self.interval(delta, mtbf, restart)

    def cost(self, size: int, memory_kb: float) -> float:
        """A job's checkpoint cost in seconds (`memory_kb`: its SWF memory per processor,
        KB; < 0 when unknown)."""
        p = self.params
        if p.cost is not None:
            return float(p.cost)
        if p.bandwidth is None:
            return 0.0
        gb = p.memory if p.memory is not None else memory_kb / 2**20
        if gb < 0:
            raise ConfigError("checkpoint.memory", "the trace gives no memory for a job; "
                                                   "give memory=GB per processor")
        return size * gb / p.bandwidth + p.constant

    def restart_cost(self, delta: float) -> float:
        return float(self.params.restart) if self.params.restart is not None else delta


def job_memory_kb(workload: Any, index: int) -> float:
    """The job's SWF memory per processor (KB): used, else requested; -1 when unknown."""
    from ckptsim.workload.model import SWF_INDEX

    row = workload.fields[index]
    for name in ("used_memory", "requested_memory"):
        value = float(row[SWF_INDEX[name]])
        if value >= 0:
            return value
    return -1.0


_registry: Registry[type[CheckpointPolicy]] = Registry("checkpoint policy", "checkpoint",
                                                       lambda: _load_builtin(),
                                                       base=CheckpointPolicy)
_REGISTRY = _registry.classes


def register_policy(cls: type[CheckpointPolicy]) -> type[CheckpointPolicy]:
    """Class decorator: make a checkpoint-interval policy available under `cls.name`."""
    return _registry.register(cls)


def policy_names() -> list[str]:
    return _registry.names()


def policy_classes() -> dict[str, type[CheckpointPolicy]]:
    """The built-in and installed checkpoint policies' classes by name (an entry point that
    does not load left out: `Registry.loadable`)."""
    return _registry.loadable()


def get_policy(name: str | type[CheckpointPolicy]) -> type[CheckpointPolicy]:
    """A checkpoint policy's class by name, plug-in reference (`file.py:Class`,
    `module:Class`), installed entry point (group `ckptsim.checkpoint_policies`) or class (see
    `ckptsim.plugins`)."""
    return _registry.get(name)


def known_policy(name: str) -> bool:
    """Whether `name` names a checkpoint policy: a registered or installed one's, a loaded
    plug-in's, or a plug-in reference (which may still fail to load)."""
    return _registry.known(name)


def split_name(part: str) -> tuple[str, str]:
    """One ``NAME[:key=value,...]`` part of a plan string: its name (or plug-in reference)
    and its options as written (`split_part` checks them)."""
    return _registry.split(part)


def parse_policy(spec: str, *, need_cost: bool = True) -> CheckpointPolicy:
    """A policy from ``NAME[:key=value,...]`` (`young:cost=600`), validated (`need_cost`:
    see `CheckpointPolicy`).

    Raises:
        ConfigError: unknown policy (naming the accepted ones), unknown key (naming the
            accepted keys), out-of-range value, missing cost.
    """
    cls, values = split_part(spec, spec, accepted=", ".join(interval_names()))
    if cls.kind != "interval":
        raise ConfigError("checkpoint", f"{cls.name} is a {cls.kind} policy, not an interval "
                                        f"policy; accepted: {', '.join(interval_names())}")
    return cls(make_params(cls.Params, values, where="checkpoint"), need_cost=need_cost)


def interval_names() -> list[str]:
    return [n for n, cls in _registry.loadable().items() if cls.kind == "interval"]


def split_part(part: str, spec: str, *, accepted: str = ""
               ) -> tuple[type[CheckpointPolicy], dict[str, str]]:
    """The policy class and the key=value options of one ``NAME[:key=value,...]`` (`spec`:
    the whole string, and `accepted`: the names to list for an unknown one, for messages)."""
    if not isinstance(part, str):
        raise ConfigError("checkpoint", f"expected a string such as young:cost=600, got "
                                        f"{shown(part)}")
    name, rest = _registry.split(part)  # NAME, or a plug-in's module:Class
    name = name.strip()
    if accepted and not _registry.known(name):
        raise ConfigError("checkpoint", f"unknown checkpoint policy {shown(name)}"
                                        f"{did_you_mean(name, _registry.names())}; accepted: "
                                        f"{accepted}")
    cls = _registry.get(name)
    values: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError("checkpoint", f"expected key=value in {shown(spec)}, got "
                                            f"{shown(item)}")
        if key.strip() in values:
            raise ConfigError(f"checkpoint.{shown_key(key.strip())}",
                              f"is given twice in {shown(spec)}")
        values[key.strip()] = value.strip()
    return cls, values


def policy_params(values: Mapping[str, Any], cls: type[CheckpointPolicy]) -> Any:
    return make_params(cls.Params, values, where="checkpoint")


#: Imports the package's modules that register a policy (`@register_policy`), once.
_load_builtin = package_loader("ckptsim.checkpointing", "register_policy")


def help_lines() -> list[str]:
    """The policies a plan string can name, by kind, with their own options (the checkpoint
    component's `--help` lines)."""
    from ckptsim.params import describe_range

    cost = {f.name for f in dataclasses.fields(CostParams)}
    lines = ["policies (parts joined by +; the cost options cost, bandwidth, memory, "
             "constant, restart, mtbf and suspended once, in any part):"]
    found = _registry.loadable()
    for kind in ("interval", "skip", "proactive"):
        for name, pol in found.items():
            if pol.kind != kind:
                continue
            lines.append(f"  {name} [{kind}]: {pol.description}")
            lines += [f"      {f.name} = {f.default!r}  ({describe_range(f)}) "
                      f"{f.metadata.get('help', '')}"
                      for f in dataclasses.fields(pol.Params) if f.name not in cost]
    lines += [f"  {name}: cannot be loaded ({error})"
              for name, error in _registry.broken.items() if name not in found]
    return lines
