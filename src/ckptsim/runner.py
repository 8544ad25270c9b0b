"""One simulation run from Python: workload + scheduler + options -> records and metrics.

    from ckptsim.runner import simulate
    result = simulate(workload, "easy")
    result.summary["mean_wait"]
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import Any

from ckptsim import __version__, reported, runargs
from ckptsim.components import Component, merge_counters
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.metrics.core import daily_series, summary
from ckptsim.metrics.htc import applies as htc_applies
from ckptsim.metrics.htc import htc_summary
from ckptsim.platform.base import Platform
from ckptsim.platform.description import Description, load_description, resolve_platform
from ckptsim.policies.base import scheduler_factory
from ckptsim.records.jobs import JobTable, harvest, standard_columns
from ckptsim.workload.model import Workload


@dataclass(frozen=True, eq=False, repr=False)
class RunResult:
    workload: Workload
    scheduler: str
    params: dict[str, Any]
    options: dict[str, Any]
    table: JobTable
    summary: dict[str, Any]
    daily: dict[str, list[float]] = field(default_factory=dict)
    wall_seconds: float = 0.0
    events: int = 0
    components: tuple[str, ...] = ()  # names of the run's components, in order
    # The plug-ins the run used (from outside the package): `plugin_records`'s rows.
    plugins: tuple[dict[str, Any], ...] = ()
    # The workload's machine before a scheduler prepared it (BG/L scales sizes to 128).
    trace_machine_size: int | None = None

    def summary_document(self) -> dict[str, Any]:
        """Everything `summary.json` holds: deterministic (no wall-clock times)."""
        w = self.workload
        return {
            "ckptsim_version": __version__,
            "workload": {
                "source": w.source,
                **({"generator": copy.deepcopy(w.generator)} if w.generator else {}),  # not traces
                "jobs": w.n_jobs,
                "machine_size": (w.machine_size if self.trace_machine_size is None
                                 else self.trace_machine_size),
                "transforms": list(w.transforms),
                "loader": dict(sorted(w.counts.items())),
            },
            "scheduler": self.scheduler,
            "params": self.params,
            "options": self.options,
            "metrics": self.summary,
            "daily": self.daily,
            # Only runs with plug-ins have the key: other summaries are as they were.
            **({"plugins": list(self.plugins)} if self.plugins else {}),
        }

    def to_pandas(self) -> Any:
        """The per-job records as a pandas DataFrame: one row per job in workload order,
        the columns and values of jobs.csv (`job_id` a column, the index 0..n-1), with the
        records' dtypes (`backfilled` bool, counts int64, times float64).  Needs pandas."""
        from ckptsim.frames import jobs_frame

        return jobs_frame(self.table)

    def __repr__(self) -> str:
        from ckptsim.display import result_repr

        return result_repr(self)

    def _repr_html_(self) -> str:
        from ckptsim.display import html_table, result_rows

        return html_table(f"{self.scheduler} on {self.workload.source}", result_rows(self))


def simulate(
    workload: Workload | str | PathLike[str],
    scheduler: str | type = "easy",
    params: Mapping[str, Any] | None = None,
    *,
    machine_size: int | None = None,
    overrun: str = "extend",
    check: bool = False,
    daily: bool = True,
    progress: Callable[[int, int, float], None] | None = None,
    seed: int = 0,
    platform: Platform | str | PathLike[str] | Description | None = None,
    components: Mapping[str, Mapping[str, Any]] | Sequence[Component | type] = (),
    failures: Any = None,
    failure_seed: int | None = None,
    failure_count: int | None = None,
    checkpoint: Any = None,
    recorders: Sequence[Component] = (),
) -> RunResult:
    """Simulate `workload` under the named scheduler and compute its metrics.

    `workload`: a `Workload` (`ckptsim.workload(...)`), or what `ckptsim.workload` takes: a
    trace path, ``builtin`` or a generator string (``"lublin:n=500,seed=2"``).

    `scheduler`: a name, a plug-in reference (``path/to/file.py:Class``, ``module:Class``)
    or a `Scheduler` subclass (docs/plugins.md).

    `platform`: what to simulate on (default: the scheduler's, else a homogeneous cluster of
    `machine_size` or the workload's nodes): a `Platform`, or a built-in name or platform file
    (`ckptsim.platform.description`), then recorded in summary.json's options.
    `components`: `{name: {parameter: value}}` (validated like `--component NAME:key=value`),
    or a sequence of `Component` objects and classes (a class runs with its default
    parameters); their counters join the metrics and their options summary.json.
    `seed`: the run's seed, used by components whose sources name none (a sweep passes each
    run's seed).

    `failures`, `failure_count` and `failure_seed` are shorthands for the failures component
    and the seed (`failure_seed` replaces `seed` for every draw of the run): `failures` is a
    source string (`lanl:path=...`, see `ckptsim.failures.source`), loaded for the simulated
    machine over the workload's submit span, or anything with `time`, `node` and `repair`
    columns (a `FailureTrace` whose nodes are mapped onto the machine, times on its clock).

    `checkpoint` is the shorthand of ``--checkpoint``: the checkpoint component's policy, a
    plan string (``"young:cost=600,mtbf=86400+closedcluster"``), a parsed `CheckpointPlan`, a
    plan table (``{"interval": "fixed", "fixed": {"interval": 3600}, "cost": 60}``) or a
    `CheckpointPolicy` class (docs/energy.md#checkpoint-plans).

    `recorders`: components that only watch the run (e.g. `ckptsim.records.allocations`'s
    recorder, with `--out`): attached after the others, they add nothing to its records,
    metrics, options or identity.
    """
    runargs.check_arguments(params=params, machine_size=machine_size, overrun=overrun,
                            check=check, daily=daily, progress=progress, seed=seed,
                            platform=platform, components=components, failures=failures,
                            failure_count=failure_count, recorders=recorders)
    run = set_up(workload, scheduler, params, machine_size=machine_size, seed=seed,
                 platform=platform, components=components, failures=failures,
                 failure_seed=failure_seed, failure_count=failure_count,
                 checkpoint=checkpoint)
    workload, scheduler, seed, described = run.workload, run.scheduler, run.seed, run.described
    trace_machine_size = run.trace_machine_size
    # The objects the caller made keep what they hold after the run (a component's counts,
    # a recorder's log); the run's own objects are emptied (`_break_cycles`).
    given = {id(c) for c in (*recorders, *([] if isinstance(components, Mapping) else
                                            components)) if isinstance(c, Component)}
    _note_unapplied(run.platform, run.components)
    # The run allocates hundreds of thousands of long-lived objects; the cyclic collector would
    # only rescan them over and over while it runs.
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        sim = run.simulator(recorders=recorders, machine_size=machine_size, overrun=overrun,
                            check=check, progress=progress)
        sim.check_ready()  # what the components check once all are attached: before any event
        sim.run()
        harvested = harvest(sim)
        watching = {id(c) for c in recorders}
        own_comps = [c for c in sim.components if id(c) not in watching]
        added: dict[str, Any] = {}
        n_jobs = len(sim.jobs)
        taken = standard_columns()
        taken.update(dict.fromkeys(harvested.policy_columns, f"{sim.policy.name}'s column"))
        for c in own_comps:
            added.update(reported.columns(c.name, c.job_columns(), n_jobs, taken=taken))
        resolved = dataclasses.asdict(sim.policy.params)
        counted = [_Counted(c.name, reported.counters(c.name, c.counters()))
                   for c in own_comps]
        own = _Counted(sim.policy.name, reported.counters(sim.policy.name,
                                                          sim.policy.counters()))
        options = {"machine_size": sim.platform.n_nodes, "overrun": overrun, "seed": seed,
                   **_platform_option(described),
                   **{c.name: reported.options(c.name, c.options()) for c in own_comps}}
        for c in own_comps:
            for section, values in c.shared_options().items():
                if section in options:
                    raise ConfigError("components", f"{c.name} records options.{section}, "
                                                    "which the run records too")
                options[section] = reported.options(c.name, values)
        names = tuple(c.name for c in own_comps)
        used = plugin_records([type(sim.policy), *(u for c in own_comps for u in c.uses())])
        htc = htc_applies(sim.policy, own_comps)
        del own_comps
        wall, events = sim.wall_seconds, sim.n_events
        # The job objects (most of a large run's memory) are freed with the simulator before
        # the records are built from what was harvested of them, and before the metrics.
        _break_cycles(sim, keep=given)
        del sim
        table = harvested.table()
        del harvested
        if added:
            table = table.with_columns(added)
    finally:
        if gc_enabled:
            gc.enable()
    metrics = merge_counters(counted, summary(table), policy=own)
    if htc:
        metrics.update(htc_summary(table, metrics))
    return RunResult(
        workload=workload,
        scheduler=scheduler,
        params=resolved,
        options=options,
        table=table,
        summary=metrics,
        daily=daily_series(table) if daily else {},
        wall_seconds=wall,
        events=events,
        components=names,
        plugins=used,
        trace_machine_size=trace_machine_size,
    )


@dataclass
class Setup:
    """A run as `simulate` sets it up, before its simulator is made: the workload the
    scheduler prepared, the scheduler (`factory`) and its name, the components, the platform
    (and its description, when given by name or file), the seed."""

    workload: Workload
    factory: Any
    scheduler: str
    components: list[Component]
    platform: Platform | None
    described: Description | None
    trace_machine_size: int
    seed: int

    def simulator(self, *, recorders: Sequence[Component] = (), machine_size: int | None = None,
                  overrun: str = "extend", check: bool = False,
                  progress: Callable[[int, int, float], None] | None = None,
                  checks_only: bool = False) -> Simulator:
        """The run's simulator, every component attached (`checks_only`: see `Simulator`)."""
        return Simulator(self.workload, self.factory, platform=self.platform,
                         components=[*self.components, *recorders], machine_size=machine_size,
                         overrun=overrun, check=check, progress=progress, seed=self.seed,
                         checks_only=checks_only)


def set_up(workload: Any, scheduler: str | type = "easy", params: Mapping[str, Any] | None = None,
           *, machine_size: int | None = None, seed: int = 0, platform: Any = None,
           components: Any = (), failures: Any = None, failure_seed: int | None = None,
           failure_count: int | None = None, checkpoint: Any = None) -> Setup:
    """What `simulate` does before making the simulator (its arguments, checked there): the
    scheduler's parameters, the workload it prepares, the components and the platform.  A
    sweep's pre-flight (`ckptsim.experiments.preflight`) sets its configurations up here."""
    workload = runargs.as_workload(workload)
    factory = scheduler_factory(scheduler, params or {})
    if not isinstance(scheduler, str):  # a plug-in's class: recorded by its name
        scheduler = factory.cls.name
    trace_machine_size = workload.machine_size
    workload = factory.prepare(workload)
    comps = runargs.run_components(components, failures, failure_count, checkpoint)
    described = None
    if isinstance(platform, (str, PathLike, Description)):
        described = platform if isinstance(platform, Description) else \
            load_description(str(platform))
    built: Platform | None = (resolve_platform(described, workload, machine_size)
                              if described is not None else platform)
    return Setup(workload, factory, scheduler, _with_energy(comps, built), built, described,
                 trace_machine_size, seed if failure_seed is None else failure_seed)


def plugin_records(classes: Sequence[type]) -> tuple[dict[str, Any], ...]:
    """What summary.json records of the plug-ins among `classes` (each once): its kind, its
    name, its class, the file defining it and the file's SHA-256, so that a run's outputs
    say which code made them."""
    import sys

    from ckptsim.checkpointing.base import CheckpointPolicy
    from ckptsim.plugins import source_sha256
    from ckptsim.policies.base import Scheduler

    out = []
    for cls in dict.fromkeys(classes):
        if cls.__module__.partition(".")[0] == "ckptsim":
            continue  # a built-in: the version says which
        sha = source_sha256(cls)  # None: defined in the interpreter or a notebook
        kind = ("scheduler" if issubclass(cls, Scheduler) else "checkpoint policy"
                if issubclass(cls, CheckpointPolicy) else "component")
        file = getattr(sys.modules.get(cls.__module__), "__file__", "") or ""
        out.append({"kind": kind, "name": str(getattr(cls, "name", "") or cls.__name__),
                    "class": cls.__qualname__, "file": str(file), "sha256": sha})
    return tuple(out)


def _platform_option(described: Description | None) -> dict[str, Any]:
    """summary.json's record of a platform of groups given by name or file (none for the
    trace's homogeneous machine and the BG/L torus, whose size `machine_size` records, so that
    naming the default platform changes no output)."""
    if described is None or described.kind != "groups":
        return {}
    return {"platform": described.summary()}


def _with_energy(comps: list[Component], platform: Platform | None) -> list[Component]:
    """The energy meter joins a run whose platform has power profiles, and must come with
    the power manager."""
    from ckptsim.platform.power import has_power_profiles

    names = [c.name for c in comps]
    if "energy" not in names:
        if platform is not None and has_power_profiles(platform):
            from ckptsim.components.energy import EnergyMeter

            return [*comps, EnergyMeter()]
        if "power" in names:
            raise ConfigError("power", "the power manager needs power profiles: give "
                                       "--component energy:active=W,idle=W,sleep=W (or a "
                                       "platform with power tables)")
    return comps


#: The notes `_note_unapplied` gave in this process (each is given once).
_NOTED: set[str] = set()


def _note_unapplied(platform: Platform | None, comps: list[Component]) -> None:
    """Say (once per process, on the "ckptsim" logger) what the platform describes that the
    run's components leave out: its groups' reboot times without the availability component,
    its node types' speeds without the speed component; and that the failures component
    fails single cores of machines that have several."""
    desc = getattr(platform, "description", None)
    if desc is None:
        return
    names = {c.name for c in comps}
    notes = []
    reboots = [g.name for g in desc.groups if g.reboot]
    if reboots and "availability" not in names:
        shown = ", ".join(reboots[:3]) + (f" and {len(reboots) - 3} more" if len(reboots) > 3
                                           else "")
        notes.append(f"the platform {desc.name}'s reboot times ({shown}) are not applied: "
                     "they are the availability component's (--component availability)")
    multi = sorted({t.name for t in desc.types if t.cores > 1}
                   & {g.type for g in desc.groups})
    if multi and "failures" in names:
        notes.append(f"the failures component fails one engine node (a core) of the platform "
                     f"{desc.name} at a time, though its {', '.join(multi)} machines have "
                     "several cores: availability:failures=SOURCE fails whole machines "
                     "(docs/platforms.md#availability)")
    speeds = [f"{t.name} {t.speed:g}" for t in desc.types if t.speed != 1.0]
    if speeds and "speed" not in names:
        notes.append(f"the platform {desc.name}'s machine speeds ({', '.join(speeds)}) are "
                     "recorded, not applied: --component speed applies them "
                     "(docs/platforms.md#speeds)")
    for text in notes:
        if text not in _NOTED:
            _NOTED.add(text)
            logging.getLogger(__name__).warning(text)


def _break_cycles(sim: Simulator, keep: set[int] | frozenset[int] = frozenset()) -> None:
    """Empty the finished run's simulator, policy, components and checker (drop their
    attributes), so that reference counting frees them and the jobs as soon as the run is over.
    The objects whose ids are in `keep` (components the caller made) keep what they hold,
    less their references to the simulator, the policy and the checker (set to None), and
    are marked as having run (`Simulator.add_component` refuses them for another run).
    They refer to one another -- the policy and the components point back at the simulator,
    directly or through bound methods (a policy keeps `sim.start`), and the simulator's hook
    lists and event heap point at them -- and left to the cyclic collector they would stay in a
    sweep worker for good: they were created while the collector was off and never count
    towards its thresholds.  Every cycle through one of these objects is cut."""
    objects = [sim.policy, *sim.components, sim.checker, sim]
    engine = {id(o) for o in (sim.policy, sim.checker, sim) if o is not None}
    for obj in objects:
        if obj is None or not hasattr(obj, "__dict__"):
            continue
        attrs = obj.__dict__
        if id(obj) not in keep:
            attrs.clear()
            continue
        for key, value in list(attrs.items()):
            if id(getattr(value, "__self__", value)) in engine:  # `sim`, `sim.start`, ...
                attrs[key] = None
        attrs["_ckptsim_ran"] = True


@dataclasses.dataclass(frozen=True)
class _Counted:
    """A component's name and the counters it reported at the end of the run."""

    name: str
    values: dict[str, Any]

    def counters(self) -> dict[str, Any]:
        return self.values
