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

The cost options (cost, bandwidth, memory, constant, restart, mtbf, and `suspended`, what a
periodic checkpoint due during an owner's suspension does) belong to the whole combination:
they are given once, in any part.  `opt` is a baseline and combines with
nothing.  A string without ``+`` naming an interval policy is that policy alone, exactly as
before.  A ``+`` followed by a digit stays in a number (``cost=1e+2``).

The string is parsed once where it enters (`parse_plan`: the command line, the spec reader)
into a `CheckpointPlan`, the structured value passed inward; a spec may give the same as a
table (`ckptsim.checkpointing.plan_table`).  `CheckpointPlan.build` makes a run's `Plan`
(its policies).
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
    get_policy,
    interval_names,
    policy_classes,
    split_name,
    split_part,
)
from ckptsim.errors import ConfigError, shown
from ckptsim.params import make_params

if TYPE_CHECKING:
    from ckptsim.engine.state import Job

COST_KEYS = tuple(f.name for f in dataclasses.fields(CostParams))
_SPLIT = re.compile(r"\+(?!\s*[0-9.])")


def split_plan(spec: str) -> list[str]:
    """The ``NAME[:key=value,...]`` parts of a plan string, as written (spaces kept): split
    at each ``+`` but one followed by a digit or a point, which stays in a number
    (``cost=1e+2``)."""
    return _SPLIT.split(spec)



def accepted_parts() -> str:
    """The registered policies by kind, for messages."""
    by: dict[str, list[str]] = {"interval": [], "skip": [], "proactive": []}
    alone = []
    for name, cls in policy_classes().items():
        (alone if cls.before_eviction else by.setdefault(cls.kind, [])).append(name)
    text = ", ".join(by["interval"]) + "".join(f"; or {n} alone" for n in alone)
    return (f"interval policies ({text}), skip policies ({', '.join(by['skip'])}), "
            f"proactive policies ({', '.join(by['proactive'])})")


class SkipPolicy(CheckpointPolicy):
    """Decides whether a checkpoint the interval policy scheduled is taken (`skip`)."""

    kind: ClassVar[str] = "skip"
    must_define: ClassVar[tuple[str, ...]] = ("skip",)
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
    must_define: ClassVar[tuple[str, ...]] = ("next_checkpoint",)
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

    def adopts(self, job: Job, now: float, delta: float) -> Any:
        """The key of a pending checkpoint that the interval policy's checkpoint of the job
        over [now, now + delta] stands for (it is then this policy's: counted, followed by
        `then`), or None (the default: it stands for none)."""
        return None

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
        """What summary.json records: the plan's name, then every declared parameter of the
        interval policy with its value (the cost model's among them; defaults, None and
        parameters added later included), and every other policy's own under its name."""
        p = self.interval
        out: dict[str, Any] = {"policy": p.name if not self.combined else "+".join(self.names),
                               **dataclasses.asdict(p.params)}
        for part in (*self.skips, *self.proactive):
            out[part.name] = {k: v for k, v in dataclasses.asdict(part.params).items()
                              if k not in COST_KEYS}
        return out


@dataclass(frozen=True)
class PlanPart:
    """One policy of a checkpoint plan: its name (or plug-in reference) as given, its kind
    and its own options (converted values; the cost options are the plan's)."""

    name: str
    kind: str  # "interval", "skip" or "proactive"
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class CheckpointPlan:
    """The checkpoint plan as structured parameters: the policies in the order given (at most
    one interval policy, skip and proactive policies), each with its own options, and the
    cost model's options (cost, bandwidth, memory, constant, restart, mtbf), checked.

    Made once at the edge -- `parse_plan` from a ``+``-joined string (the command line's
    `--checkpoint`, a spec's string), `plan_from_table` from a spec's table -- and passed
    inward as it is (the checkpoint component's `policy`); `build` makes a run's policies.
    `text` is the string form: the string as given, or a table's equivalent string; run ids
    hash it, so that a plan has the same id whichever form it was written in.
    """

    parts: tuple[PlanPart, ...]
    cost: tuple[tuple[str, Any], ...] = ()
    text: str = "none"

    def __str__(self) -> str:
        return self.text

    @property
    def interval(self) -> PlanPart | None:
        return next((p for p in self.parts if p.kind == "interval"), None)

    @property
    def skip(self) -> tuple[PlanPart, ...]:
        return tuple(p for p in self.parts if p.kind == "skip")

    @property
    def proactive(self) -> tuple[PlanPart, ...]:
        return tuple(p for p in self.parts if p.kind == "proactive")

    @property
    def references(self) -> tuple[str, ...]:
        """The parts' names or plug-in references, as given (for plug-in sources)."""
        return tuple(p.name for p in self.parts)

    def build(self) -> Plan:
        """The run's policies (new objects: a plan's policies hold the state of a run)."""
        return _assemble(self._classes(), self.text)[0]

    def _classes(self) -> list[tuple[type[CheckpointPolicy], dict[str, Any]]]:
        out = []
        for i, part in enumerate(self.parts):
            values = dict(part.options)
            if i == 0:
                values.update(self.cost)
            out.append((get_policy(part.name), values))
        return out


def structured_plan(parts: list[tuple[type[CheckpointPolicy], dict[str, Any]]],
                    refs: list[str], text: str) -> CheckpointPlan:
    """The `CheckpointPlan` of parts (class, options as given; `refs`: their names or plug-in
    references, as given; `text`: the plan's string) once they build (checked)."""
    plan, built = _assemble(parts, text)
    cost_params = plan.interval.params
    given = {k for _, values in parts for k in values if k in COST_KEYS}
    cost = tuple((k, getattr(cost_params, k)) for k in COST_KEYS if k in given)
    out = tuple(PlanPart(ref, cls.kind, tuple((k, getattr(policy.params, k))
                                              for k in values if k not in COST_KEYS))
                for (cls, values), ref, policy in zip(parts, refs, built, strict=True))
    return CheckpointPlan(out, cost, text)


def parse_checkpoint(spec: str) -> Plan:
    """A validated `Plan` from a checkpoint string (syntax in the module docstring): the
    string parsed by `parse_plan`, then built.

    Raises:
        ConfigError: see `parse_plan`.
    """
    return parse_plan(spec).build()


def parse_plan(spec: str) -> CheckpointPlan:
    """The `CheckpointPlan` of a checkpoint string (syntax in the module docstring), checked
    whole: the one place where the string is parsed (the command line and the spec reader
    call it; the plan travels inward as the structured value).

    Raises:
        ConfigError: unknown policy or key (naming the accepted ones), two interval policies,
            a part given twice, `opt` in a combination, a cost option given twice, a skip
            policy with nothing to skip, a missing cost.
    """
    if not isinstance(spec, str):
        raise ConfigError("checkpoint", f"expected a string such as young:cost=600, got "
                                        f"{shown(spec)}")
    texts = [t.strip() for t in split_plan(spec)]
    parts: list[tuple[type[CheckpointPolicy], dict[str, str]]] = []
    refs: list[str] = []
    if len(texts) == 1:
        cls, _ = split_part(texts[0], spec, accepted=accepted_parts())
        if cls.kind == "interval":
            # As parse_policy: the whole string, the interval policies accepted.
            cls, values = split_part(spec, spec, accepted=", ".join(interval_names()))
            parts, refs = [(cls, values)], [_reference(spec)]
    if not parts:
        for text in texts:
            if not text:
                raise ConfigError("checkpoint", f"an empty part in {shown(spec)}; expected "
                                                f"NAME[:key=value,...] joined by +")
            parts.append(split_part(text, spec, accepted=accepted_parts()))
            refs.append(_reference(text))
    return structured_plan(parts, refs, spec)


def _reference(part: str) -> str:
    """The name (or plug-in reference) of one ``NAME[:key=value,...]``, as given (a relative
    file found beside the spec being read: its absolute path, `ckptsim.plugins.located`)."""
    from ckptsim.plugins import located

    return located(split_name(part)[0].strip())


def _assemble(parts: list[tuple[type[CheckpointPolicy], dict[str, Any]]], spec: str
              ) -> tuple[Plan, list[CheckpointPolicy]]:
    """The `Plan` of parts (class, options) in the order given, validated (`spec`: the
    string, for messages), and the policy built of each part."""
    if len(parts) == 1 and parts[0][0].kind == "interval":
        cls, values = parts[0]
        policy = cls(make_params(cls.Params, values, where="checkpoint"))
        return Plan(policy, names=(policy.name,)), [policy]
    names = [cls.name for cls, _ in parts]
    for name in names:
        if names.count(name) > 1:
            raise ConfigError("checkpoint", f"{name} is given twice in {shown(spec)}")
    if "opt" in names:
        raise ConfigError("checkpoint", f"opt is a baseline (a checkpoint just before every "
                                        f"eviction) and combines with nothing; got {shown(spec)}")
    intervals = [n for (cls, _), n in zip(parts, names, strict=True) if cls.kind == "interval"]
    if len(intervals) > 1:
        raise ConfigError("checkpoint", f"two interval policies in {shown(spec)} "
                                        f"({', '.join(intervals)}); give one, plus skip and "
                                        f"proactive policies; accepted: {accepted_parts()}")
    cost: dict[str, Any] = {}
    owner: dict[str, str] = {}
    for cls, values in parts:
        for key in COST_KEYS:
            if key in values:
                if key in cost:
                    raise ConfigError(f"checkpoint.{key}", f"given in {owner[key]} and "
                                                           f"{cls.name} of {shown(spec)}; the cost "
                                                           f"applies to the whole combination: "
                                                           f"give it once")
                cost[key] = values[key]
                owner[key] = cls.name
    built = []
    for cls, values in parts:
        own = {k: v for k, v in values.items() if k not in COST_KEYS}
        try:
            params = make_params(cls.Params, {**own, **cost}, where="checkpoint")
        except ConfigError as exc:
            option = exc.key.removeprefix("checkpoint.")
            if option in COST_KEYS or len(parts) == 1:
                raise
            # A part's own option, in a plan of several: named with its part
            # (`scheduled:margin`).
            raise ConfigError(f"checkpoint.{cls.name}:{option}", exc.message) from None
        built.append(cls(params, need_cost=False))
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
            interval = _none()
            interval.params = make_params(CostParams, cost, where="checkpoint")
    p = interval.params
    if p.cost is None and p.bandwidth is None and (interval.name != "none" or proactive):
        raise ConfigError("checkpoint.cost", f"give the checkpoint cost in {shown(spec)}: cost=S, "
                                             f"or bandwidth=GB/s (+ memory=GB, constant=S)")
    return Plan(interval, skips, proactive, tuple(names)), built


def _none() -> CheckpointPolicy:
    return get_policy("none")(need_cost=False)


def _fixed(interval: float, cost: dict[str, Any]) -> CheckpointPolicy:
    from ckptsim.checkpointing.fixed import Fixed

    return Fixed(make_params(Fixed.Params, {**cost, "interval": interval}, where="checkpoint"),
                 need_cost=False)


def __getattr__(name: str) -> Any:
    """The names of plans given as a table, moved to `plan_table`, still importable here."""
    if name in ("TABLE_KEYS", "plan_from_table", "plan_value", "table_value"):
        from ckptsim.checkpointing import plan_table

        return getattr(plan_table, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
