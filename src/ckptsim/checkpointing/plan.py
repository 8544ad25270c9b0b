"""Combining checkpoint policies: one interval policy, skip policies and proactive policies.

A checkpoint string is parts joined by ``+``, each ``NAME[:key=value,...]``::

    fixed:interval=1800,cost=60+closedcluster+scheduled      (seed 003's CCSR)
    interarrival:w=10,m=5,l=3,d=60,cost=60                   (evaluations every m minutes)
    scheduled:cost=120,then=continue                          (no periodic checkpoint)

* at most one **interval** policy (none, fixed, young, ..., multi) says when a job's next
  checkpoint is due; without one there is none, except that `interarrival` alone evaluates
  every `m` minutes of computation;
* **skip** policies (closedcluster, interarrival) decide, at each checkpoint the interval
  policy schedules, whether to take it; a skipped one is deferred to the next interval;
* **proactive** policies (scheduled, clusteropening) add checkpoints ahead of known events.

The cost options (cost, bandwidth, memory, constant, restart, mtbf) belong to the whole
combination: they are given once, in any part.  `opt` is a baseline and combines with
nothing.  A string without ``+`` naming an interval policy is that policy alone, exactly as
before.  A ``+`` followed by a digit stays in a number (``cost=1e+2``).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ckptsim.checkpointing.base import (
    INF,
    CheckpointPolicy,
    CostParams,
    parse_policy,
    split_part,
)
from ckptsim.errors import ConfigError
from ckptsim.params import make_params

if TYPE_CHECKING:
    from ckptsim.engine.state import Job

COST_KEYS = tuple(f.name for f in dataclasses.fields(CostParams))
_SPLIT = re.compile(r"\+(?!\s*[0-9.])")



def accepted_parts() -> str:
    """The registered policies by kind, for messages."""
    from ckptsim.checkpointing.base import _registry

    by: dict[str, list[str]] = {"interval": [], "skip": [], "proactive": []}
    alone = []
    for name in _registry.names():
        cls = _registry.classes[name]
        (alone if cls.before_eviction else by.setdefault(cls.kind, [])).append(name)
    text = ", ".join(by["interval"]) + "".join(f"; or {n} alone" for n in alone)
    return (f"interval policies ({text}), skip policies ({', '.join(by['skip'])}), "
            f"proactive policies ({', '.join(by['proactive'])})")


class SkipPolicy(CheckpointPolicy):
    """Decides whether a checkpoint the interval policy scheduled is taken (`skip`)."""

    kind: ClassVar[str] = "skip"
    agent: Any = None  # the checkpoint component, once bound

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return INF

    def bind(self, agent: Any) -> None:
        """Called when the checkpoint component attaches (`agent`: that component)."""
        self.agent = agent

    def check(self) -> None:
        """Called once the run's components are all attached (refuse a missing input)."""

    def skip(self, job: Job, now: float) -> bool:
        raise NotImplementedError


class ProactivePolicy(CheckpointPolicy):
    """Checkpoints ahead of known events: `next_checkpoint` gives a running job's next one."""

    kind: ClassVar[str] = "proactive"
    listens: ClassVar[bool] = False  # True: wants the before_unavailable notices
    agent: Any = None

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return INF

    def bind(self, agent: Any) -> None:
        self.agent = agent

    def check(self) -> None:
        """Called once the run's components are all attached (refuse a missing input)."""

    def next_checkpoint(self, job: Job, now: float, delta: float) -> tuple[float, Any] | None:
        """(begin time >= now, key) of the job's next proactive checkpoint, or None."""
        raise NotImplementedError

    def taken(self, job: Job, key: Any) -> None:
        """The checkpoint of `key` began for the job (do not plan it again)."""

    def notice(self, now: float, mask: int, at: float, reason: str) -> None:
        """Nodes `mask` leave service at `at` (reboot, maintenance), announced now."""

    @property
    def then(self) -> str:
        return str(self.params.then)


@dataclass(frozen=True)
class Plan:
    """What the checkpoint component runs: the interval policy and the others."""

    interval: CheckpointPolicy
    skips: tuple[SkipPolicy, ...] = ()
    proactive: tuple[ProactivePolicy, ...] = ()
    names: tuple[str, ...] = ()  # the parts' names, in the order given

    @property
    def combined(self) -> bool:
        return bool(self.skips or self.proactive)

    def options(self) -> dict[str, Any]:
        """What summary.json records (a policy alone: its name and options, as before)."""
        p = self.interval
        out: dict[str, Any] = {"policy": p.name if not self.combined else "+".join(self.names),
                               **{k: v for k, v in dataclasses.asdict(p.params).items()
                                  if v is not None}}
        for part in (*self.skips, *self.proactive):
            out[part.name] = {k: v for k, v in dataclasses.asdict(part.params).items()
                              if k not in COST_KEYS and v is not None}
        return out


def parse_checkpoint(spec: str) -> Plan:
    """A validated `Plan` from a checkpoint string (syntax in the module docstring).

    Raises:
        ConfigError: unknown policy or key (naming the accepted ones), two interval policies,
            a part given twice, `opt` in a combination, a cost option given twice, a skip
            policy with nothing to skip, a missing cost.
    """
    if not isinstance(spec, str):
        raise ConfigError("checkpoint", f"expected a string such as young:cost=600, got "
                                        f"{spec!r}")
    texts = [t.strip() for t in _SPLIT.split(spec)]
    if len(texts) == 1:
        cls, _ = split_part(texts[0], spec, accepted=accepted_parts())
        if cls.kind == "interval":
            policy = parse_policy(spec)
            return Plan(policy, names=(policy.name,))
    parts: list[tuple[type[CheckpointPolicy], dict[str, str]]] = []
    for text in texts:
        if not text:
            raise ConfigError("checkpoint", f"an empty part in {spec!r}; expected "
                                            f"NAME[:key=value,...] joined by +")
        parts.append(split_part(text, spec, accepted=accepted_parts()))
    names = [cls.name for cls, _ in parts]
    for name in names:
        if names.count(name) > 1:
            raise ConfigError("checkpoint", f"{name} is given twice in {spec!r}")
    if "opt" in names:
        raise ConfigError("checkpoint", f"opt is a baseline (a checkpoint just before every "
                                        f"eviction) and combines with nothing; got {spec!r}")
    intervals = [n for (cls, _), n in zip(parts, names, strict=True) if cls.kind == "interval"]
    if len(intervals) > 1:
        raise ConfigError("checkpoint", f"two interval policies in {spec!r} "
                                        f"({', '.join(intervals)}); give one, plus skip and "
                                        f"proactive policies; accepted: {accepted_parts()}")
    cost: dict[str, str] = {}
    owner: dict[str, str] = {}
    for cls, values in parts:
        for key in COST_KEYS:
            if key in values:
                if key in cost:
                    raise ConfigError(f"checkpoint.{key}", f"given in {owner[key]} and "
                                                           f"{cls.name} of {spec!r}; the cost "
                                                           f"applies to the whole combination: "
                                                           f"give it once")
                cost[key] = values[key]
                owner[key] = cls.name
    built = []
    for cls, values in parts:
        own = {k: v for k, v in values.items() if k not in COST_KEYS}
        built.append(cls(make_params(cls.Params, {**own, **cost}, where="checkpoint"),
                         need_cost=False))
    skips = tuple(p for p in built if isinstance(p, SkipPolicy))
    proactive = tuple(p for p in built if isinstance(p, ProactivePolicy))
    interval = next((p for p in built if p.kind == "interval"), None)
    alone = next((p for p in skips if p.name == "interarrival"), None)
    if alone is not None and alone.params.m is not None and interval is not None:
        raise ConfigError("checkpoint.m", f"interarrival's m (its own evaluation period) "
                                          f"goes without an interval policy; with "
                                          f"{interval.name} its checkpoints are the "
                                          f"evaluations: drop m or {interval.name}")
    if interval is None:
        if alone is not None:
            if alone.params.m is None:
                raise ConfigError("checkpoint.m", "interarrival without an interval policy "
                                                  "needs m=MIN (an evaluation every m "
                                                  "minutes of computation)")
            interval = _fixed(alone.params.m * 60.0, cost)
        elif skips:
            raise ConfigError("checkpoint", f"{skips[0].name} decides on the checkpoints an "
                                            f"interval policy schedules: add one, e.g. "
                                            f"fixed:interval=1800,cost=60+{skips[0].name}")
        else:
            interval = parse_policy("none")
            interval.params = make_params(CostParams, cost, where="checkpoint")
    p = interval.params
    if p.cost is None and p.bandwidth is None and (interval.name != "none" or proactive):
        raise ConfigError("checkpoint.cost", f"give the checkpoint cost in {spec!r}: cost=S, "
                                             f"or bandwidth=GB/s (+ memory=GB, constant=S)")
    return Plan(interval, skips, proactive, tuple(names))


def _fixed(interval: float, cost: dict[str, str]) -> CheckpointPolicy:
    from ckptsim.checkpointing.fixed import Fixed

    return Fixed(make_params(Fixed.Params, {**cost, "interval": interval}, where="checkpoint"),
                 need_cost=False)
