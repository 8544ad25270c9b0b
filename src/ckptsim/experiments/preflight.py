"""A sweep's pre-flight: each distinct configuration of the runs left to do is built as its
runs would be, and checked, before the first run starts.

A spec is checked key by key as it is read (`spec`, `speccomp`), but some checks need a run's
pieces together -- a checkpoint plan's part that needs the availability component (and its
notice lead), a component that needs another's service, a platform a scheduler cannot use, a
job larger than the machine -- and are made when a run is set up (`runner.set_up`), when its
simulator attaches the components, and once all are attached (`Simulator.check_ready`).
Without a pre-flight, every run of such a configuration would start and fail in turn.

A configuration is what these checks read: the workload's source (the trace and its reader's
options, or the generator and its options), the scheduler and its parameters, the components
and theirs (the checkpoint plan among them), the platform and the overrun rule; not the seed,
nor the transforms (a time window, the first N jobs: the largest job is that of the first
run's cut).  Each one is built once, on its first run's workload cut to three jobs (its first,
its largest and its last: the span and the largest job the checks read), with the simulator
built to be checked (`Simulator(checks_only=True)`: the availability component draws no
timelines, the energy meter reads each power table once), and never simulated.  Each input
file a configuration names -- the availability component's owners' session CSV, its
availability trace and its failure log, the failures component's log -- is then read once
per process through its reader (`read_inputs`, remembered in `memory`; a failure log through
the cache its runs read it through), nothing drawn from it, so that a malformed file refuses
the command with the reader's error (its file, line and field).  A refusal refuses the whole
command (a `PreflightError`, one line, naming the first configuration).

Left to the runs (they fail as before, each recorded as failed): a configuration whose workload
cannot be read here (a trace only the workers of a cluster have), and what only the timelines
check (what the owner model and synthetic failures draw, a trace's replay onto the machines,
a log's failures over the workload's span, the reboot schedules).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.experiments.matrix import Run

#: An input file as a configuration read it: its path and its state then (`_state`).
Seen = tuple[str, tuple[Any, ...]]


class Memory:
    """What the pre-flight remembers in this process, until `clear()`.

    - `checked`: the configurations checked fine (a paper checks its specs together before
      the first runs, then each spec's sweep finds them checked) -> the input files each
      read, its workload's trace among them; one of them edited since, the configuration is
      checked again (`is_checked`);
    - `read`: the input files read (`read_inputs`): (what, source, ..., file state) -> None
      (read fine) or the reader's error (given again to the next configuration naming the
      file).

    The file state (path, size, time of change) is part of both: a file edited between two
    commands of one process (a notebook) is read again.
    `ckptsim.experiments.execute.clear_cache()` clears it with every other cache of the
    process (the workloads, the failure logs).
    """

    def __init__(self) -> None:
        self.checked: dict[tuple[Any, ...], tuple[Seen, ...]] = {}
        self.read: dict[tuple[Any, ...], Exception | None] = {}

    def is_checked(self, configuration: tuple[Any, ...]) -> bool:
        """Whether `configuration` was checked fine, each input file it read as it was then."""
        files = self.checked.get(configuration)
        return files is not None and all(_state(path) == state for path, state in files)

    def clear(self) -> None:
        """Forget every configuration checked and every file read."""
        self.checked.clear()
        self.read.clear()


#: This process's pre-flight memory.
memory = Memory()


class PreflightError(ConfigError):
    """A configuration of the sweep cannot start: nothing was run."""

    def __init__(self, where: str, run: Run, error: ConfigError, shown: str, runs: int,
                 configurations: int) -> None:
        self.run = run
        self.error = error
        super().__init__(where, f"run {run.run_id[:12]} of {run.experiment} ({shown}) cannot "
                                f"start: {error} ({runs} run(s) of {configurations} "
                                "configuration(s) cannot start; nothing was run)")


def differing(run: Run, others: list[Run]) -> str:
    """The run's workload and scheduler, and its inputs that differ among `others`."""
    from ckptsim.experiments.columns import PARAM_PREFIX, WORKLOAD_PREFIX

    keys = [k for k in run.columns if k.startswith((WORKLOAD_PREFIX, PARAM_PREFIX))
            and len({repr(r.columns.get(k)) for r in others}) > 1]
    shown = ", ".join(f"{k.split('.', 1)[1]}={run.columns[k]}" for k in keys)
    return f"{run.workload} x {run.scheduler}" + (f"; {shown}" if shown else "")


@dataclass
class Checked:
    """What a pre-flight checked: configurations built, the runs they stand for, seconds."""

    configurations: int = 0
    runs: int = 0
    seconds: float = 0.0
    skipped: list[tuple[Run, str]] = field(default_factory=list)  # (run, why) not checked

    def line(self) -> str:
        skipped = f" ({len(self.skipped)} left to the runs)" if self.skipped else ""
        return (f"pre-flight: {self.configurations} configuration(s) of {self.runs} run(s) "
                f"checked in {self.seconds:.2f} s{skipped}")


def configuration(run: Run) -> tuple[Any, ...]:
    """What a run's pre-flight checks read (see the module docstring): the runs that a
    sweep's dispatch expects to take alike (`dispatch.group_of`: the workload's source, the
    scheduler, the components, the platform; whatever their cuts), and the overrun rule."""
    from ckptsim.experiments.dispatch import group_of

    return (*group_of(run)[:-1], run.overrun)


def three_jobs(w: Any) -> Any:
    """The workload cut to its first, largest and last jobs (fewer when it has fewer)."""
    n = w.n_jobs
    if n <= 3:
        return w
    return w.subset(np.array(sorted({0, int(np.argmax(w.size)), n - 1})))


def check_run(run: Run) -> tuple[Seen, ...]:
    """Build `run`'s configuration as the run would, and make its checks; never simulates.
    Returns the input files it read.

    Raises:
        ConfigError: the run cannot start (as the run itself would raise it).
    """
    from ckptsim.experiments.execute import load_run_workload
    from ckptsim.runner import set_up

    # The trace is one of the files read: edited since, the configuration is checked again.
    files: list[Seen] = [] if run.path is None else [(run.path, _state(run.path))]
    w = three_jobs(load_run_workload(run))
    try:
        source = (run.components or {}).get("failures", {}).get("source")
        if isinstance(source, str) and source:  # the failures component's log, read once
            files += _failure_log(source, None)
        setup = set_up(w, run.scheduler_name, run.params, seed=run.seed,
                       components=run.components, platform=run.platform)
        sim = setup.simulator(overrun=run.overrun, checks_only=True)
        sim.check_ready()
        return (*files, *read_inputs(sim))
    except WorkloadError as exc:  # an input file of a component (a failure log, a trace)
        raise ConfigError(*_located(exc)) from None


def _located(exc: WorkloadError) -> tuple[str, str]:
    """A reader's error as (where, message): its file, line and field, then what is wrong."""
    where = ", ".join([str(exc.path)] * (exc.path is not None)
                      + [f"line {exc.line}"] * (exc.line is not None)
                      + [f"field {exc.field}"] * (exc.field is not None))
    text = str(exc)
    return (where, text[len(where) + 2:]) if where else ("input", text)


def _state(path: str | Path) -> tuple[Any, ...]:
    """A file's (or a folder's) path, size and time of change: a file edited between two
    commands of one process (a notebook) is read again."""
    try:
        st = os.stat(path)
    except OSError:
        return (str(path),)
    return (os.path.abspath(path), st.st_size, st.st_mtime_ns)


def read_inputs(sim: Any) -> list[Seen]:
    """Read each input file the run's availability component names through its reader, once
    per process: its owners' session CSV (on the run's platform and calendar), its availability
    trace, its failure log (through the runs' cache).  Nothing is drawn from them: no
    timeline, no replay onto the machines.  (The failures component reads its log as it is
    attached.)  Returns the files read.

    Raises:
        ConfigError: an option of a source, keyed as the run keys it.
        WorkloadError: a file that cannot be read, naming its file, line and field.
    """
    from ckptsim.components.availability import Availability

    comp = next((c for c in sim.components if isinstance(c, Availability)), None)
    if comp is None:
        return []
    prm = comp.params
    files: list[Seen] = []
    from ckptsim.platform.usermodel import is_model

    if prm.owners and not is_model(prm.owners):
        from ckptsim.platform.availability import groups_of, owner_intervals

        groups = tuple((name, len(members)) for name, members, _ in groups_of(sim.platform))
        files.append(_once(("owners", prm.owners, prm.epoch, groups),
                           Path(prm.owners).expanduser(),
                           lambda: owner_intervals(prm.owners, sim.platform,
                                                   calendar=comp.calendar, seed=sim.seed,
                                                   days=comp.days)))
    if prm.trace:
        from ckptsim.platform.avt import load_source, parse_source

        files.append(_once(("trace", prm.trace), parse_source(prm.trace)[1]["path"],
                           lambda: load_source(prm.trace)))
    if prm.failures:
        files += _failure_log(prm.failures, "availability.failures")
    return files


def _failure_log(spec: str, key: str | None) -> list[Seen]:
    """The log of a `lanl:` or `fta:` source read once (through the runs' cache); an option's
    error keyed under `key` as the availability component's run keys it
    (`interruption_failures`), or as it is (the failures component's)."""
    from ckptsim.failures.source import parse_failure_spec, read_log

    def read() -> None:
        try:
            read_log(spec)
        except ConfigError as exc:
            if key is None:
                raise
            said = exc.message if exc.key == "failures" else f"{exc.key}: {exc.message}"
            raise ConfigError(key, said) from None

    kind, opt = parse_failure_spec(spec)
    return [] if kind == "synthetic" else [_once(("failures", spec), opt["path"], read)]


def _once(what: tuple[Any, ...], path: str | Path, read: Any) -> Seen:
    """`read()` the first time `what` is seen in this process with the file at `path` as it
    is now; its error, if it had one, again after.  Returns the file and its state."""
    state = _state(path)
    key = (*what, state)
    if key in memory.read:
        error = memory.read[key]
        if error is not None:
            raise error
        return str(path), state
    try:
        read()
    except (ConfigError, WorkloadError) as exc:
        memory.read[key] = exc
        raise
    memory.read[key] = None
    return str(path), state


def preflight(runs: Iterable[Run], where: str) -> Checked:
    """Check each distinct configuration of `runs` (those not checked already in this
    process, with the input files they read unchanged) on its first run.

    Raises:
        PreflightError: a configuration cannot start (the first one, `where`: the spec).
    """
    t0 = time.perf_counter()
    groups: dict[tuple[Any, ...], list[Run]] = {}
    for run in runs:
        key = configuration(run)
        if not memory.is_checked(key):
            groups.setdefault(key, []).append(run)
    done = Checked(configurations=len(groups), runs=sum(map(len, groups.values())))
    refused: list[tuple[Run, ConfigError, int]] = []
    for key, members in groups.items():
        try:
            files = check_run(members[0])
        except ConfigError as exc:
            refused.append((members[0], exc, len(members)))
            continue
        except Exception as exc:  # noqa: BLE001 -- not checkable here: the runs report it
            done.skipped.append((members[0], f"{type(exc).__name__}: {exc}"))
            continue
        memory.checked[key] = files
    done.seconds = time.perf_counter() - t0
    if refused:
        run, exc, _ = refused[0]
        shown = differing(run, [members[0] for members in groups.values()])
        raise PreflightError(where, run, exc, shown, sum(n for _, _, n in refused),
                             len(refused))
    return done
