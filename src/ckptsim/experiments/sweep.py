"""A sweep: a spec's run matrix against a store -- what is done, what to run, and running it.

Resume rules: a run is finished when its store file holds status "ok" (and its per-job
records when the spec keeps them); such runs are skipped.  Runs recorded as failed are run
again (a failure may come from the environment: a missing trace on a worker, memory), and
damaged files are reported and their runs recomputed.  A run's file name is its identity, so
however often a sweep is interrupted and restarted, no row is ever duplicated.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ckptsim import __version__
from ckptsim.errors import OutputError
from ckptsim.experiments.current import changed_inputs
from ckptsim.experiments.execute import Executor, SerialExecutor
from ckptsim.experiments.matrix import MAX_RUNS, Run, build_matrix, check_size
from ckptsim.experiments.spec import Spec, load_spec
from ckptsim.experiments.store import STORE_FORMAT, Contents, ManifestUnreadable, Store
from ckptsim.experiments.writer import StoreWriter


@dataclass
class Plan:
    """A spec's matrix split against a store."""

    spec: Spec
    runs: list[Run]
    todo: list[Run]
    done: int = 0  # finished runs found in the store
    retry: int = 0  # runs recorded as failed, to be run again
    corrupt: list[tuple[str, str]] = field(default_factory=list)  # damaged files (file, why)
    unchecked: list[str] = field(default_factory=list)  # run tables without a SHA-256
    # Stored runs recorded with other input columns than this spec gives them (a checkpoint
    # plan's table form against its string form): run id -> this spec's columns.
    changed: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class SweepResult:
    ok: int = 0
    failed: int = 0
    skipped: int = 0
    seconds: float = 0.0
    failures: list[dict[str, Any]] = field(default_factory=list)


def plan_sweep(spec_path: str | Path, out: str | Path | None = None, *,
               trace_dir: str | Path | None = None, keep_jobs: bool = False,
               max_runs: int | None = MAX_RUNS) -> Plan:
    """Validate a spec, expand its matrix and, with a store, find what is left to run.

    Raises:
        MatrixTooLarge: the matrix holds more than `max_runs` runs (counted, not built).
    """
    spec = load_spec(spec_path, trace_dir=trace_dir)
    if keep_jobs and not spec.keep_jobs:
        spec = dataclasses.replace(spec, keep_jobs=True)
    check_size(spec, max_runs)
    runs = build_matrix(spec)
    plan = Plan(spec=spec, runs=runs, todo=list(runs))
    if out is None:
        return plan
    store = Store(out)
    # Refuses a store of another format; an unreadable sweep.json is rewritten by this sweep.
    with contextlib.suppress(ManifestUnreadable):
        store.manifest()
    return against(plan, store.read())


def against(plan: Plan, contents: Contents) -> Plan:
    """`plan` split against a store's `contents` (the resume rules above): its finished runs
    counted as done, the others left to do."""
    plan.corrupt = contents.corrupt + sorted(contents.bad_jobs.values())
    plan.unchecked = contents.unchecked
    plan.changed = changed_inputs(plan.runs, contents.rows)
    plan.done = plan.retry = 0
    todo = []
    for run in plan.runs:
        rid = run.run_id
        row = contents.rows.get(rid)
        if row is not None and row["status"] == "ok" and rid not in contents.bad_jobs and (
                not run.keep_jobs or contents.jobs_ok(rid)):
            plan.done += 1
            continue
        if row is not None and row["status"] == "failed":
            plan.retry += 1
        todo.append(run)
    plan.todo = todo
    return plan


def manifest(spec: Spec, runs: list[Run], changed: dict[str, dict[str, Any]] | None = None
             ) -> dict[str, Any]:
    """What `sweep.json` records: enough for `results` and `report` without the traces.

    `changed`: the stored runs to show under other input columns than their rows hold
    (`Plan.changed`), recorded as `columns` only when there are some."""
    inputs: list[str] = []
    for r in runs:
        inputs += [k for k in r.columns if k not in inputs]
    return {
        "store_format": STORE_FORMAT,
        "experiment": spec.name,
        "description": spec.description,
        "spec": str(spec.path.resolve()),
        "trace_dir": str(spec.trace_dir),
        "ckptsim_version": __version__,
        "seeds": list(spec.seeds),
        "metrics": list(spec.metrics),
        "inputs": inputs,
        "figures": [_figure_doc(f) for f in spec.figures],
        "runs": [r.run_id for r in runs],
        # The names each run has in this spec (not part of its identity: a renamed workload
        # or label reruns nothing, and `results` shows the runs under their new names).
        "names": [[r.experiment, r.workload, r.scheduler] for r in runs],
    } | ({"columns": changed} if changed else {})


def _figure_doc(fig: Any) -> dict[str, Any]:
    doc = dataclasses.asdict(fig)
    doc["where"] = {k: list(v) for k, v in fig.where.items()}
    return doc


def _import_ahead() -> None:
    """Import what the store's last compaction needs while workers run: pyarrow, and pandas
    where it is installed (pyarrow imports it on its first conversion of Python values, 0.3-1 s
    that would otherwise come after the last run)."""
    with contextlib.suppress(Exception):
        import pyarrow as pa

        pa.array([0])


def run_sweep(plan: Plan, out: str | Path, executor: Executor,
              on_row: Callable[[dict[str, Any]], None] | None = None, *,
              locked: bool = False) -> SweepResult:
    """Run what the plan left to do, recording each run in the store as it finishes.

    Before and after, run logs are compacted into run tables and damaged files are set
    aside (their runs are in `plan.todo`).  The store's lock is taken here, unless the
    caller holds it already (`locked`: taken before planning, so that a second sweep is
    refused before it prints anything)."""
    store = Store(out)
    result = SweepResult(skipped=plan.done)
    t0 = time.perf_counter()

    def record(row: dict[str, Any]) -> None:
        if row["status"] == "ok":
            result.ok += 1
        else:
            result.failed += 1
            result.failures.append(row)
        if on_row is not None:
            on_row(row)

    # An executor that connects to a cluster does so before the store is touched, its lock
    # included: one that cannot start (a Dask scheduler that does not answer) leaves the store
    # as it was, and creates neither a new store's folder nor its .lock.
    opened = getattr(executor, "opened", None)
    with opened() if opened is not None and plan.todo else contextlib.nullcontext(), \
            contextlib.nullcontext() if locked else store.lock():
        try:
            store.remove_temporaries()
            store.prepare(plan.spec.text, manifest(plan.spec, plan.runs, plan.changed))
            store.compact()
        except OSError as exc:  # a full disk, a read-only folder: nothing has run yet
            raise OutputError(str(exc.filename or out), f"{exc.strerror or exc}: cannot "
                              f"write the results store {out}; nothing ran, the runs it "
                              "holds are kept") from None
        if plan.todo:
            if not isinstance(executor, SerialExecutor):
                threading.Thread(target=_import_ahead, daemon=True,
                                 name="ckptsim-import-ahead").start()
            try:
                with StoreWriter(store) as writer:
                    executor.execute(plan.todo, writer, record)
            finally:
                with contextlib.suppress(Exception):
                    store.compact()
    result.seconds = time.perf_counter() - t0
    return result
