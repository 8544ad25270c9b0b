"""Parameters of `scojo-pect`: every point seed 002 and the addendum (sections 5 and 7) leave
open is one of them, with the addendum's recommendation as its default."""

from __future__ import annotations

import dataclasses

from ckptsim.checkpointing.base import CheckpointPolicy, parse_policy
from ckptsim.errors import ConfigError
from ckptsim.policies.base import param, validate_params
from ckptsim.policies.scojo.slices import check_shares, parse_order, parse_schedule

NAME = "scojo-pect"


@dataclasses.dataclass(frozen=True)
class ScojoParams:
    # --- classes and slices ---------------------------------------------------------------
    backfill: str = param("easy", "backfilling within a class: EASY (the head's reservation) "
                                  "or conservative (every waiting job's)",
                          choices=("easy", "conservative"))
    cycle: float = param(3600.0, "cycle length, s (one slice per class)", low=0.0,
                         low_open=True, period=1.0, seconds=1.0)
    share_short: float = param(0.2, "short class's share of a cycle", low=0.0, low_open=True,
                               high=1.0)
    share_medium: float = param(0.3, "medium class's share of a cycle", low=0.0,
                                low_open=True, high=1.0)
    share_long: float = param(0.5, "long class's share of a cycle", low=0.0, low_open=True,
                              high=1.0)
    share_schedule: str = param(
        "", "time-of-day share vectors, e.g. 08:00=0.3/0.3/0.4;20:00=0.1/0.3/0.6 "
            "(short/medium/long; replaces the share_* values; empty: none)")
    order: str = param("short-medium-long", "order of the slices in a cycle")
    empty_slice: str = param("skip", "an empty class's slice: skip (its time goes to the next "
                                     "non-empty slice) or keep (it runs, open only to non-type "
                                     "backfilling)", choices=("skip", "keep"))
    preempt_all: bool = param(
        False, "at a slice's end, preempt also the jobs of the next slice's class running in "
               "it (non-type backfilled, or restarted from the reserve queue): they resume at "
               "once on their nodes, paying the switch overhead, as seed 002 3.1 'all running "
               "jobs are preempted' reads; false: they run on", added=True)
    nodes: str = param(
        "lowest", "the nodes a job is given in a pass (the class pass, non-type backfilling, a "
                  "migrating restart), which the thesis does not say: lowest (the lowest of "
                  "those it may use, even nodes a suspended job of another class waits to "
                  "resume on) or unclaimed (the lowest that no suspended job claims first)",
        choices=("lowest", "unclaimed"), added=True)
    switch_overhead: float = param(60.0, "seconds a resumed job pays on its nodes at a slice "
                                         "switch", low=0.0, seconds=1.0)
    short_limit: float = param(600.0, "short jobs: estimate below this, s", low=0.0,
                               low_open=True, seconds=1.0)
    long_limit: float = param(10800.0, "long jobs: estimate at least this, s", low=0.0,
                              low_open=True, seconds=1.0)
    classify_by: str = param("estimate", "what the class is read from (the estimate is the "
                                         "runtime where a trace gives none)",
                             choices=("estimate", "runtime"))
    nontype: bool = param(True, "safe non-type backfilling of other classes' jobs")
    # --- application-level checkpoints (seed 002) ------------------------------------------
    checkpoint: str = param("off", "periodic application-level checkpoints of medium and "
                                   "long jobs", choices=("off", "alc"))
    migration: bool = param(True, "a checkpointed job may restart on other nodes (false: "
                                  "only on its own)")
    without_migration: str = param(
        "stop", "what an ALC checkpoint does with migration=false: stop (the job gives its "
                "nodes back and restarts only on them, from the reserve queue) or continue "
                "(it pays the checkpoint's time and runs on, keeping its nodes); no effect "
                "with migration=true",
        choices=("stop", "continue"), added=True)
    ckpt_classes: str = param("medium-long", "classes that checkpoint, joined by '-'")
    reserve_first: bool = param(
        False, "at a slice boundary, restart the slice class's reserved jobs before non-type "
               "backfilling, which then may not take their nodes (seed 002 3.1: non-type "
               "backfilling delays no job of the slice's class); false: after it, as at a "
               "checkpoint (the original pass first, the thesis's Figure 10)", added=True)
    reserve_pass: str = param("checkpoint", "when reserved jobs try to restart: at checkpoint "
                                            "instants (all of them) and at their class's slice "
                                            "boundaries (the thesis), or after every pass",
                              choices=("checkpoint", "every"))
    interval: str = param("young", "checkpoint-interval policy of the platform family, "
                                   "NAME[:key=value,...] without cost options (the cost is "
                                   "the ALC model's): young = sqrt(2 delta mtbf), "
                                   "young:reading=literal = 20 sqrt(delta) as printed in "
                                   "the thesis, fixed (fixed_interval) or "
                                   "fixed:interval=S, daly, none")
    interval_size: str = param(
        "app", "checkpoint cost delta the interval policy is given: app (the ALC "
               "checkpoint's, from S_app) or sys (the system image's, S_sys / ckpt_bandwidth "
               "+ coordination, as the thesis's formula; ckpt_fixed when given)",
        choices=("app", "sys"), added=True)
    mtbf: float = param(720000.0, "MTBF M of the interval (200 h; the policy's mtbf= "
                                  "replaces it)", low=0.0, low_open=True, seconds=1.0)
    fixed_interval: float = param(800.0, "interval of `fixed` when the policy string gives "
                                         "none, s (the thesis's test)", low=0.0,
                                  low_open=True, period=1.0, seconds=1.0)
    jitter_var: float = param(2.0, "variance of the normal jitter of each interval, s^2",
                              low=0.0)
    ckpt_bandwidth: float = param(70.0, "checkpoint write bandwidth, MB/s", low=0.0,
                                  low_open=True)
    ckpt_coordination: float = param(0.5, "coordination time before a checkpoint, s",
                                     low=0.0, seconds=1.0)
    ckpt_fixed: float | None = param(None, "fixed checkpoint cost, s, instead of the model "
                                           "(none: S_app / ckpt_bandwidth + coordination)",
                                     low=0.0, seconds=1.0)
    migration_bandwidth: float = param(30.0, "migration transfer bandwidth W, MB/s",
                                       low=0.0, low_open=True)
    migration_fixed: float | None = param(None, "fixed migration cost, s, instead of the "
                                                "model (none: S_app / W + t_min)", low=0.0,
                                          seconds=1.0)
    t_min: float = param(1.0, "base migration time T_min, s", low=0.0, seconds=1.0)
    t_restart: float = param(1.0, "restart cost on the job's own nodes, s", low=0.0, seconds=1.0)
    ratio_low: float = param(0.2, "smallest S_app / S_sys", low=0.0, high=1.0)
    ratio_high: float = param(0.95, "largest S_app / S_sys", low=0.0, high=1.0)
    mem_low: float = param(16.0, "memory model (jobs without trace memory): least memory "
                                 "per node, MB", low=0.0, low_open=True)
    mem_high: float = param(1024.0, "memory model: most memory per node, MB", low=0.0,
                            low_open=True)
    seed: int = param(1, "seed of the checkpoint draws (with the workload's jobs)", low=0)
    # --- the relative response time (seed 002 5.1.2) ----------------------------------------
    rrt_runtime: str = param(
        "trace", "runtime a job's relative response time divides by: trace (its runtime in "
                 "the workload, the work it needs: the appendix's 'optimum runtime') or span "
                 "(end - first start: section 5.1.2's 'time period when the job starts to run "
                 "and finishes running')", choices=("trace", "span"), added=True)

    def __post_init__(self) -> None:
        validate_params(self, where=NAME)  # each value's own range first
        check_shares(f"{NAME}.share_short/share_medium/share_long",
                     (self.share_short, self.share_medium, self.share_long))
        schedule = parse_schedule(f"{NAME}.share_schedule", self.share_schedule)
        vectors = [v for _, v in schedule] or [self.shares()]
        shortest = self.cycle * min(min(v) for v in vectors)
        if self.switch_overhead >= shortest:
            # A job resumed in a slice no longer than the overhead never progresses.
            raise ConfigError(f"{NAME}.switch_overhead",
                              f"got {self.switch_overhead:g} s; accepted: less than the "
                              f"shortest slice (smallest share x cycle = {shortest:g} s)")
        parse_order(f"{NAME}.order", self.order)
        interval_policy(self.interval)
        self.checkpoint_classes()
        if self.long_limit < self.short_limit:
            raise ConfigError(f"{NAME}.long_limit", f"got {self.long_limit:g}; accepted: at "
                                                    f"least short_limit ({self.short_limit:g})")
        if self.ratio_high < self.ratio_low:
            raise ConfigError(f"{NAME}.ratio_high", f"got {self.ratio_high:g}; accepted: at "
                                                    f"least ratio_low ({self.ratio_low:g})")
        if self.mem_high < self.mem_low:
            raise ConfigError(f"{NAME}.mem_high", f"got {self.mem_high:g}; accepted: at "
                                                  f"least mem_low ({self.mem_low:g})")

    def interval_policy(self) -> CheckpointPolicy:
        return interval_policy(self.interval, self.fixed_interval)

    def checkpoint_classes(self) -> frozenset[int]:
        names = [p.strip() for p in self.ckpt_classes.split("-") if p.strip()]
        known = ("short", "medium", "long")
        bad = [n for n in names if n not in known]
        if bad or not names:
            raise ConfigError(f"{NAME}.ckpt_classes", f"got {self.ckpt_classes!r}; accepted: "
                                                      f"short, medium, long joined by '-'")
        return frozenset(known.index(n) for n in names)

    def shares(self) -> tuple[float, float, float]:
        return (self.share_short, self.share_medium, self.share_long)


#: Cost options of the interval family that the ALC model replaces.
_COST_KEYS = ("cost", "bandwidth", "memory", "constant", "restart")


def interval_policy(spec: str, fixed_interval: float = 800.0) -> CheckpointPolicy:
    """The checkpoint-interval policy `spec` names, refused under the key
    `scojo-pect.interval` when unknown, badly formed or given cost options (`fixed` without
    its own interval= takes `fixed_interval`)."""
    try:
        policy = parse_policy(spec, need_cost=False)
    except ConfigError as err:  # the policy's own key, if any, named in the message
        _, dot, inner = err.key.partition(".")
        raise ConfigError(f"{NAME}.interval",
                          f"{inner}: {err.message}" if dot else err.message) from None
    given = [k for k in _COST_KEYS if getattr(policy.params, k) is not None
             and getattr(policy.params, k) != 0.0]
    if getattr(policy.params, "suspended", "take") != "take":
        raise ConfigError(f"{NAME}.interval", f"got suspended in {spec!r}: an option of the "
                                              f"checkpoint component, which {NAME} does not "
                                              f"use; give only the interval's options")
    if given:
        raise ConfigError(f"{NAME}.interval", f"got {', '.join(given)} in {spec!r}; the "
                                              f"checkpoint cost is the ALC model's "
                                              f"(ckpt_bandwidth, ckpt_fixed): give only "
                                              f"the interval's options")
    name, _, rest = spec.partition(":")
    keys = {part.partition("=")[0].strip() for part in rest.split(",")}
    if name.strip() == "fixed" and "interval" not in keys:
        policy.params = dataclasses.replace(policy.params, interval=fixed_interval)
    return policy
