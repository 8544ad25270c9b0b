"""Shared test helpers: tiny workloads and a scripted policy that acts at given times."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ckptsim.components import Component
from ckptsim.engine.simulator import Simulator
from ckptsim.policies.base import Scheduler
from ckptsim.workload.model import Workload, from_columns

TRACES = Path(__file__).resolve().parents[2] / "shared" / "data" / "traces"
FAILURES = Path(__file__).resolve().parents[2] / "shared" / "data" / "failures"
LANL_CSV = FAILURES / "lanl_cfdr" / "LA-UR-05-7318-failure-data-1996-2005.csv.gz"


def examples(n: int) -> int:
    """A property test's example count: n, or ten times n under the "explore" profile."""
    return n * 10 if os.environ.get("HYPOTHESIS_PROFILE") == "explore" else n


def real(path: Path) -> Path:
    """A file of ../shared/data (failure logs, availability traces), or skip the test."""
    if not path.exists():
        pytest.skip(f"real failure data not available: {path} is missing (../shared/data is not "
                    f"part of the repository)")
    return path


def trace(name: str) -> Path:
    """Path of a real trace in ../shared/data/traces, or skip the test."""
    path = TRACES / name
    if not path.exists():
        pytest.skip(f"real trace {name} not available (expected at {path})")
    return path


def jobs(rows: list[tuple[float, float, int, float]], machine: int) -> Workload:
    """Workload from (submit, runtime, size, estimate) rows; job ids 1..n in row order."""
    return from_columns(submit=[r[0] for r in rows], runtime=[r[1] for r in rows],
                        size=[r[2] for r in rows], estimate=[r[3] for r in rows],
                        machine_size=machine)


class Scripted(Scheduler):
    """Does only what the test scripts: `actions` are (time, fn(sim, jobs_by_id)) pairs."""

    name = "scripted"

    def __init__(self, sim: Simulator, actions: list[tuple[float, Callable[..., Any]]]) -> None:
        super().__init__(sim)
        self.log: list[tuple[Any, ...]] = []
        for t, fn in actions:
            sim.wake_at(t, fn)

    def on_timer(self, now: float, tag: Any) -> None:
        tag(self.sim, {j.id: j for j in self.sim.jobs})

    def on_end(self, job: Any) -> None:
        self.log.append(("end", self.sim.now, job.id, job.status))

    def on_requeue(self, job: Any, reason: str) -> None:
        self.log.append(("requeue", self.sim.now, job.id, reason))

    def on_checkpointed(self, job: Any) -> None:
        self.log.append(("checkpointed", self.sim.now, job.id))

    def on_migrated(self, job: Any) -> None:
        self.log.append(("migrated", self.sim.now, job.id))

    def schedule(self, now: float) -> None:
        pass


def scripted(workload: Workload, actions: list[tuple[float, Callable[..., Any]]],
             **kw: Any) -> Simulator:
    return Simulator(workload, lambda sim: Scripted(sim, actions), check=True, **kw)


def starts(sim: Simulator) -> dict[int, tuple[float | None, float | None]]:
    return {j.id: (j.start, j.end) for j in sim.jobs}


# -- failure logs -----------------------------------------------------------------------------
#: The header of the LANL failure records (LA-UR-05-7318 CSV).
LANL_HEADER = ("System,machine type,nodes,procstot,procsinnode,nodenum,nodenumz,node install,"
               "node prod,node decom,fru type,mem,cputype,memtype,num intercon,purpose,"
               "Prob Started,Prob Fixed,Down Time,Facilities,Hardware,Human Error,Network,"
               "Undetermined,Software,Same Event")


def lanl_row(system: int, node: int | str, started: str, fixed: str, down: str = "",
             nodes: str = "4") -> str:
    return (f"{system},cluster,{nodes},16,4,{node},{node},5-Apr,5-Jun,current,part,8,1,1,0,"
            f"compute,{started},{fixed},{down},,CPU,,,,,No")


def inject_failures(sim: Simulator, times: Any, nodes: Any, repairs: Any = None) -> Any:
    """Attach a failures component with these failures (repairs: 0 = transient)."""
    from ckptsim.components.failures import Failures

    component = Failures.from_lists(times, nodes, repairs)
    sim.add_component(component)
    return component


def doc_commands(text: str, program: str = "ckptsim") -> list[str]:
    """The `ckptsim ...` (or `program ...`) lines of a Markdown text's bash blocks, indented
    in a list item or not."""
    import re

    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    lines = [ln.strip() for b in blocks for ln in b.splitlines()]
    return [ln for ln in lines if ln.startswith(f"{program} ")]


def run_ckptsim(args: list[str], cwd: Path | None = None) -> tuple[int, str, str]:
    """`ckptsim ARGS` run by its entry point (`ckptsim.cli.main`) in this process, from `cwd`
    (the repository root unless given): its exit status, what it printed and its errors.  As
    `python -m ckptsim` runs it, less a new interpreter's second of imports per command;
    tests of the process itself (signals, exit codes of the interpreter) start one."""
    import contextlib
    import io

    from ckptsim.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd or Path(__file__).resolve().parents[1])
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(args)
            except SystemExit as exc:  # the parser's refusals
                status = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(here)
    return status, out.getvalue(), err.getvalue()


def run_doc_command(command: str, tmp_path: Path) -> None:
    """Run a documented `ckptsim ...` command from the repository root, its `--out` redirected
    to `tmp_path/out`, and check that it succeeds and writes summary.json."""
    import shlex

    args = shlex.split(command)[1:]
    args = [str(tmp_path / "out") if args[i - 1] == "--out" else a for i, a in enumerate(args)]
    status, _, err = run_ckptsim(args)
    assert status == 0, err
    assert (tmp_path / "out" / "summary.json").exists()


class Spy(Component):
    """A component that notes the time each checkpoint of the run begins (`begins`)."""

    name = "spy"

    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        self.begins: list[float] = []

    def on_checkpoint(self, job: Any) -> None:
        self.begins.append(self.sim.now)
