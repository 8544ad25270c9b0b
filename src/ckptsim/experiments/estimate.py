"""How long a paper's runs will take, from measured seconds per run: the median of the runs
already in a store (measured where they ran), else the paper's own measurement scaled to the
options' size (`Paper.seconds_per_run`)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The fewest stored runs whose median is trusted over the paper's own measurement.
MIN_MEASURED = 3


def measured_seconds(store: Path, experiments: Iterable[str] = ()) -> tuple[float, str] | None:
    """The median seconds of the runs already in `store` (their `run_seconds`, measured in the
    process that ran them) and where they were measured; None with fewer than `MIN_MEASURED`
    runs or no store.  With `experiments` (the names of the specs a command runs), the median
    of the runs those experiments stored, when there are at least `MIN_MEASURED` (a resumed
    command is timed by its own runs: a store shared by several families holds runs of very
    different lengths), else of every run."""
    from ckptsim.experiments.store import Store

    if not Store(store).exists():
        return None
    try:
        rows = Store(store).read(verify_jobs=False).rows.values()
    except Exception:  # a damaged store is the sweep's to report; estimate without it
        return None
    ok = [r for r in rows if r.get("status") == "ok" and r.get("run_seconds") is not None]
    names = sorted(set(experiments))
    own = [float(r["run_seconds"]) for r in ok if r.get("experiment") in names]
    if len(own) >= MIN_MEASURED:
        return statistics.median(own), (f"the median of {len(own)} runs of "
                                        f"{', '.join(names)} in {store}")
    times = [float(r["run_seconds"]) for r in ok]
    if len(times) < MIN_MEASURED:
        return None
    return statistics.median(times), f"the median of {len(times)} runs in {store}"


def spec_names(specs: dict[str, str]) -> list[str]:
    """The experiment names (`name = ...`) of the spec texts `specs` (name -> TOML text), as
    their runs are stored; a text that does not parse names none."""
    import tomllib

    names = []
    for text in specs.values():
        try:
            name = tomllib.loads(text).get("name")
        except tomllib.TOMLDecodeError:
            continue
        if isinstance(name, str):
            names.append(name)
    return names


@dataclass(frozen=True)
class Survey:
    """What a store already says of a command's runs (`survey`)."""

    done: int = 0  # runs of the specs the store holds, finished: reused, not run again
    known_runs: int = 0  # runs still to do whose configuration has finished runs there
    known_seconds: float = 0.0  # the seconds those are expected to take
    runs: int = 0  # the specs' runs (0: none could be planned)


def planned(specs: dict[str, str], trace_dir: Path) -> dict[str, Any]:
    """The sweep plan of each experiment spec of `specs` (name -> TOML text; trace names read
    from `trace_dir`), as `ckptsim sweep --dry-run` plans it; a spec that cannot be planned is
    left out (the command that runs it reports why)."""
    import tempfile

    from ckptsim.errors import ConfigError
    from ckptsim.experiments.matrix import MatrixTooLarge
    from ckptsim.experiments.sweep import plan_sweep

    plans = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, text in specs.items():
            path = Path(folder) / f"{name}.toml"
            path.write_text(text)
            try:
                plans[name] = plan_sweep(path, trace_dir=Path(trace_dir).resolve())
            except (ConfigError, MatrixTooLarge, OSError, ValueError):
                continue
    return plans


def survey(specs: dict[str, str], trace_dir: Path, store: Path,
           plans: dict[str, Any] | None = None) -> Survey:
    """How many runs of the experiment specs `specs` (name -> TOML text, as `Paper.specs`
    gives them; trace names read from `trace_dir`) `store` already holds, finished; and, for
    the runs still to do whose configuration (`dispatch.group_of`: the same workload,
    scheduler, components and platform; another seed or replication) has finished runs in
    the store, the seconds they are expected to take: their configuration's measured seconds
    per run (per job, for runs cut to their first N); and how many runs the specs hold in
    all.  A run shared by several specs (families that share runs) counts once everywhere, as
    the sweeps run it once; a spec that cannot be planned counts none (the command itself
    reports it).  `plans`: the specs' plans (`planned`), split against the store here (each
    plan's `todo` is then the runs left to do)."""
    from ckptsim.experiments.dispatch import group_of, run_units
    from ckptsim.experiments.store import Store
    from ckptsim.experiments.sweep import against

    if not specs:
        return Survey()
    contents = None
    if Store(store).exists():
        try:  # read once for every spec, as each spec's sweep will read it
            Store(store).manifest()  # refuses a store of another format
            contents = Store(store).read()
        except Exception:  # a damaged or foreign store is the sweep's to report
            return Survey()
    plans = [plan if contents is None else against(plan, contents)
             for plan in (planned(specs, trace_dir) if plans is None else plans).values()]
    rows: dict[str, Any] = contents.rows if contents is not None else {}
    measured: dict[Any, list[float]] = {}  # configuration -> [seconds, units]
    for plan in plans:
        for run in plan.runs:
            row = rows.get(run.run_id)
            if row is None or row.get("status") != "ok" or row.get("run_seconds") is None:
                continue
            got = measured.setdefault(group_of(run), [0.0, 0.0])
            got[0] += float(row["run_seconds"])
            got[1] += run_units(run)
    known, seconds, seen = 0, 0.0, set()
    for plan in plans:
        for run in plan.todo:
            got = measured.get(group_of(run))
            if run.run_id in seen or got is None or not got[1]:
                continue
            seen.add(run.run_id)
            known += 1
            seconds += got[0] / got[1] * run_units(run)  # as `Dispatch` expects it
    every = {run.run_id for plan in plans for run in plan.runs}
    left = {run.run_id for plan in plans for run in plan.todo}
    return Survey(len(every - left), known, seconds, len(every))


#: The jobs of the traces the papers replay, as ckptsim reads them (the default loader's
#: rules), by file: what a run of their first N jobs is scaled by.
TRACE_JOBS = {"SDSC-SP2-1998-4.2-cln.swf.gz": 54_044, "KTH-SP2-1996-2.1-cln.swf.gz": 28_475,
              "CTC-SP2-1996-3.1-cln.swf.gz": 77_222, "HPC2N-2002-2.2-cln.swf.gz": 202_871,
              "SDSC-BLUE-2000-4.2-cln.swf.gz": 232_562, "CEA-Curie-2011-2.1-cln.swf.gz": 312_807,
              "NASA-iPSC-1993-3.1-cln.swf.gz": 18_239, "lublin_256.swf.gz": 10_000}


def cut_to(seconds: float, trace: str, first: int | None, fixed: float = 0.0) -> float:
    """The seconds of a run of the first `first` jobs (None: all) of the trace file `trace`,
    from a whole run's `seconds`: its `fixed` part (what a run costs whatever its jobs) plus
    the rest in proportion to the jobs it replays (`TRACE_JOBS`)."""
    share = 1.0 if first is None else min(1.0, first / TRACE_JOBS[trace])
    return fixed + (seconds - fixed) * share


def about(seconds: float) -> str:
    """An estimated duration as people read it: "about 5 min", or "under 1 s"."""
    text = format_seconds(seconds)
    return text if seconds < 1 else f"about {text}"


def format_seconds(seconds: float) -> str:
    """A duration as people read it: seconds, minutes or hours ("under 1 s" rather than a
    duration rounded to 0)."""
    if seconds < 1:
        return "under 1 s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
