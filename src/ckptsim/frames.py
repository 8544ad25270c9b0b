"""pandas views of ckptsim's results: a run's per-job records, a run folder written with
`--out`, and a sweep's results store.

    ckptsim.simulate(w, "easy").to_pandas()   # one row per job (jobs.csv's columns)
    ckptsim.load_run("out/easy")              # a `ckptsim run --out` folder as DataFrames
    ckptsim.load_results("results/sweep")     # one row per run of a sweep store

pandas is imported only when one of these is called, so `import ckptsim` stays cheap.  Job
ids are a column (`job_id`), not the index: the frames keep jobs.csv's row order (submit
order) and a default integer index.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ckptsim.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd

    from ckptsim.records.allocations import AllocationLog
    from ckptsim.records.jobs import JobTable

#: jobs.csv's columns that ckptsim knows, with their dtypes (the records' own).  A column a
#: scheduler or a component adds keeps the dtype pandas reads it with.
_TYPES = {"float": "float64", "int": "int64", "bool": "bool"}
ALLOCATION_DTYPES = {"job_id": "int64", "attempt": "int64", "start": "float64",
                     "end": "float64", "nodes": str, "ended": str}
UNAVAILABILITY_DTYPES = {"reason": str, "start": "float64", "end": "float64", "nodes": str}
#: out_jobs.csv's text columns (the others are numbers, always written).
_BATSIM_TEXT = ("workload_name", "profile", "final_state", "allocated_resources", "metadata")


class DamagedStoreWarning(UserWarning):
    """`load_results` left out the runs of a damaged run file, or found a damaged per-job
    file (the message names it)."""


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ModuleNotFoundError("pandas is needed for ckptsim's DataFrames: "
                                  "pip install 'ckptsim[pandas]' (or pandas>=2.0)") from None
    return pandas


def job_dtypes() -> dict[str, Any]:
    """jobs.csv's known columns -> dtype (`ALL_COLUMNS`, and the energy meter's `energy`)."""
    from typing import get_type_hints

    from ckptsim.records.jobs import JobRecord

    out: dict[str, Any] = {name: _TYPES.get(kind.__name__, str)
                           for name, kind in get_type_hints(JobRecord).items()}
    out["energy"] = "float64"
    return out


# --- a run in memory ------------------------------------------------------------------------
def jobs_frame(table: JobTable) -> pd.DataFrame:
    """A run's records as a DataFrame: one row per job in workload order, jobs.csv's columns
    in its order (`RunResult.to_pandas`)."""
    pd = _pandas()
    frame = pd.DataFrame({name: table[name] for name in table.names})
    known = job_dtypes()
    return frame.astype({c: known[c] for c in frame.columns if c in known})


def allocations_frame(log: AllocationLog) -> pd.DataFrame:
    """The attempts an `AllocationRecorder(log)` recorded, as `allocations.csv` holds them:
    one row per attempt, by start, then job, then attempt.

        log = AllocationLog()
        result = ckptsim.simulate(w, "easy", recorders=[AllocationRecorder(log)])
        allocations_frame(log)
    """
    pd = _pandas()
    order = log.order()
    texts = log.node_texts()
    rows = [log.rows[i] for i in order]
    columns = {name: [row[k] for row in rows]
               for k, name in enumerate(("job_id", "attempt", "start", "end"))}
    columns["nodes"] = [texts[i] for i in order]
    columns["ended"] = [row[5] for row in rows]
    return pd.DataFrame(columns).astype(ALLOCATION_DTYPES)


def unavailability_frame(log: AllocationLog) -> pd.DataFrame:
    """The nodes' down time an `AllocationRecorder(log)` recorded, as `unavailability.csv`
    holds it (by start, then reason); no rows when no node left service."""
    from ckptsim.records.nodesets import node_text

    pd = _pandas()
    rows = sorted(log.down, key=lambda r: (r[1], r[0], r[2], r[3]))
    frame = pd.DataFrame([(reason, start, end, node_text(mask))
                          for reason, start, end, mask in rows],
                         columns=list(UNAVAILABILITY_DTYPES))
    return frame.astype(UNAVAILABILITY_DTYPES)


# --- a run folder ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class RunFolder:
    """The outputs of a `ckptsim run --out DIR` folder (`load_run`).

    `jobs` (jobs.csv) and `summary` (summary.json) are always there; `allocations`,
    `out_jobs` and `unavailability` are None when the run did not record its allocations
    (`ckptsim demo --out` does not), and `unavailability` has no rows when it did but no node
    left service.
    """

    path: Path
    jobs: pd.DataFrame
    summary: dict[str, Any]
    allocations: pd.DataFrame | None = None
    unavailability: pd.DataFrame | None = None
    out_jobs: pd.DataFrame | None = None

    def __repr__(self) -> str:
        held = [name for name in ("allocations", "unavailability", "out_jobs")
                if getattr(self, name) is not None]
        return (f"RunFolder({str(self.path)!r}, jobs={len(self.jobs)}, "
                f"scheduler={self.summary.get('scheduler')!r}, also={held})")

    def _repr_html_(self) -> str:
        from ckptsim.display import html_table, run_folder_rows

        return html_table(f"run folder {self.path}", run_folder_rows(self))


REQUIRED = ("jobs.csv", "summary.json")


def load_run(run_dir: str | Path) -> RunFolder:
    """The outputs of a run folder written with `ckptsim run ... --out DIR` as DataFrames
    (`RunFolder`): `jobs` has the dtypes of `RunResult.to_pandas()` for the columns ckptsim
    knows, so a run read back equals the run in memory.

    Raises:
        ConfigError: `run_dir` is not a run folder (naming what is missing), or one of its
            files cannot be read (naming it).
    """
    pd = _pandas()
    run = Path(run_dir)
    if not run.is_dir():
        raise ConfigError("run_dir", f"{run}: no such folder (write a run folder with "
                                     f"`ckptsim run ... --out {run}`)")
    missing = [name for name in REQUIRED if not (run / name).is_file()]
    if missing:
        raise ConfigError("run_dir", f"{run}: not a run folder: no {' or '.join(missing)} "
                                     f"(write one with `ckptsim run ... --out {run}`)")
    from ckptsim.records.io import read_summary_json

    jobs = _read(run / "jobs.csv", lambda p: _read_jobs(pd, p))
    summary = _read(run / "summary.json", lambda p: _numbers(read_summary_json(p)))
    allocations = unavailability = out_jobs = None
    if (run / "allocations.csv").is_file():
        allocations = _read(run / "allocations.csv",
                            lambda p: _read_typed(pd, p, ALLOCATION_DTYPES))
        down = run / "unavailability.csv"
        unavailability = (_read(down, lambda p: _read_typed(pd, p, UNAVAILABILITY_DTYPES))
                          if down.is_file() else
                          pd.DataFrame(columns=list(UNAVAILABILITY_DTYPES)).astype(
                              UNAVAILABILITY_DTYPES))
    if (run / "out_jobs.csv").is_file():
        out_jobs = _read(run / "out_jobs.csv", lambda p: pd.read_csv(
            p, dtype={c: str for c in _BATSIM_TEXT}, keep_default_na=False))
    return RunFolder(run, jobs, summary, allocations, unavailability, out_jobs)


def _number(value: Any) -> Any:
    return math.nan if value is None else value


def _numbers(document: Any) -> Any:
    """summary.json (its "inf" texts already infinite, `records.io.read_summary_json`) with
    its numbers as the run had them: a metric (or a value of a daily series) written null is
    NaN again.  Elsewhere (the params, the options) null stays None, which it was."""
    if not isinstance(document, dict):
        return document
    out = dict(document)
    if isinstance(out.get("metrics"), dict):
        out["metrics"] = {k: _number(v) for k, v in out["metrics"].items()}
    if isinstance(out.get("daily"), dict):
        out["daily"] = {k: [_number(v) for v in values] if isinstance(values, list) else values
                        for k, values in out["daily"].items()}
    return out


def _read(path: Path, reader: Any) -> Any:
    try:
        return reader(path)
    except (OSError, ValueError, KeyError) as exc:  # pandas' parser errors are ValueErrors
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError("run_dir", f"{path}: unreadable ({why})") from None


def _read_jobs(pd: Any, path: Path) -> Any:
    from ckptsim.records.jobs import JOB_COLUMNS

    frame = pd.read_csv(path)
    lacking = [c for c in JOB_COLUMNS if c not in frame.columns]
    if lacking:
        raise ValueError(f"no column {', '.join(lacking)}")
    known = job_dtypes()
    typed = {c: known[c] for c in frame.columns if c in known}
    if "backfilled" in typed:  # written 0/1
        frame["backfilled"] = frame["backfilled"].astype("int64")
    return frame.astype(typed)


def _read_typed(pd: Any, path: Path, dtypes: dict[str, Any]) -> Any:
    frame = pd.read_csv(path, dtype={c: str for c, t in dtypes.items() if t is str},
                        keep_default_na=False)
    lacking = [c for c in dtypes if c not in frame.columns]
    if lacking:
        raise ValueError(f"no column {', '.join(lacking)}")
    return frame.astype(dtypes)


# --- a sweep store --------------------------------------------------------------------------
def load_results(store: str | Path, *, all_runs: bool = False) -> pd.DataFrame:
    """One row per run of a sweep's results store: its inputs, `run_id`, `status`, every
    metric (the columns of `ckptsim results DIR --csv`, in its order, the traceback `error`
    last); runs in the order of the latest sweep's matrix, only its runs unless `all_runs`.

    As with `ckptsim results`, the runs of a damaged run file are left out and each damaged
    file (run table, run log, per-job file) is named in a `DamagedStoreWarning`; the frame's
    `attrs["damaged_runs"]` and `attrs["damaged_jobs"]` list them as (file, reason).

    Raises:
        StoreError: `store` is not a results store, or its files keep changing while read.
    """
    from ckptsim.experiments.results import export_columns
    from ckptsim.experiments.store import load_store

    pd = _pandas()
    loaded = load_store(store, all_runs=all_runs, keep_damaged=True)
    for path, why in loaded.damaged_runs:
        warnings.warn(f"{store}: damaged run file {path} ({why}); its runs are left out: "
                      "rerun the sweep to recompute them", DamagedStoreWarning, stacklevel=2)
    for path, why in loaded.damaged_jobs:
        warnings.warn(f"damaged per-job file {path} ({why}); rerun the sweep to recompute "
                      "its run", DamagedStoreWarning, stacklevel=2)
    columns = export_columns(loaded.rows) or [
        "run_id", *loaded.manifest.get("inputs", []), "status"]
    frame = pd.DataFrame.from_records(loaded.rows, columns=columns)
    # A value the store holds as null (an ok run's error columns, a metric a run has not)
    # is NaN, and a column of nothing else float64, as `results --csv` reads back in pandas.
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_object_dtype(column) and column.isna().any():
            frame[name] = column.where(column.notna(), float("nan")).infer_objects()
    frame.attrs["damaged_runs"] = list(loaded.damaged_runs)
    frame.attrs["damaged_jobs"] = list(loaded.damaged_jobs)
    return frame
