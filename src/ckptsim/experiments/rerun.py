"""One run of a results store simulated again, with the records a sweep does not keep.

A sweep stores each run's row (and, with `keep_jobs`, its per-job records), never which nodes
its jobs held.  `rerun_schedule(store, run_id, folder)` rebuilds the run from the store's copy
of its spec, simulates it with the allocations recorder and writes its folder as `ckptsim run
--out` does (`jobs.csv`, `summary.json`, `schedule.swf`, `allocations.csv`, `out_jobs.csv`,
`unavailability.csv`): what `ckptsim gantt` and `ckptsim report --gantt` draw (summary.json
gives the chart the machine's size, a grid's clusters and the run's title) and what
`ckptsim.load_run` reads.  Runs are deterministic, so the schedule is
the stored run's; the metrics of the new simulation are compared with the stored row and any
difference is reported (a trace or ckptsim changed since the sweep).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ckptsim.errors import CkptsimError, ConfigError

#: Where to find run ids, for the message that refuses an unknown one.
RUN_IDS_HINT = ("run ids are the run_id column of `ckptsim results {dir} --csv -` and the "
                "first column of the report's run matrix (a unique prefix is enough)")


@dataclass
class Rerun:
    run_id: str
    folder: Path
    files: list[str]
    differences: list[str] = field(default_factory=list)  # metrics unlike the stored row's
    endings: set[str] = field(default_factory=set)  # how its attempts ended


def find_run_id(store_dir: str | Path, wanted: str, run_ids: list[str],
                option: str = "--gantt") -> str:
    """The run id of `run_ids` that `wanted` names (the id or a unique prefix of it).

    Raises:
        ConfigError: (key `option`) no run or several runs match, naming where run ids are.
    """
    hint = RUN_IDS_HINT.format(dir=store_dir)
    text = wanted.strip().lower()
    matches = [rid for rid in run_ids if text and rid.startswith(text)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ConfigError(option, f"{wanted!r} is the beginning of {len(matches)} runs of "
                                  f"{store_dir}: give more characters; {hint}")
    raise ConfigError(option, f"{wanted!r} is no run of {store_dir}; {hint}")


def rerun_schedule(store_dir: str | Path, run_id: str, folder: str | Path,
                   row: dict[str, Any] | None = None) -> Rerun:
    """Simulate the store's run `run_id` again with the allocations recorder and write its
    records into `folder`; `row` (the stored row) is compared with the new metrics.

    Raises:
        ConfigError: (key --gantt) the run is not in the matrix of the store's spec (the spec,
            a trace, a platform file or a plug-in's file changed since the sweep), or it
            fails.
    """
    from ckptsim.experiments.execute import load_run_workload
    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import load_spec
    from ckptsim.experiments.store import Store
    from ckptsim.records.allocations import AllocationLog, AllocationRecorder
    from ckptsim.records.io import write_run
    from ckptsim.runner import simulate

    manifest = Store(store_dir).manifest()
    spec_path = Path(store_dir) / "spec.toml"
    run = None
    # The store's copy of the spec; the original where the copy cannot be read (a plug-in
    # file named relative to the spec's own folder).
    for path in dict.fromkeys([spec_path, Path(manifest.get("spec") or spec_path)]):
        try:
            spec = load_spec(path, trace_dir=manifest.get("trace_dir") or None)
            run = next((r for r in build_matrix(spec) if r.run_id == run_id), None)
        except (CkptsimError, OSError):
            continue
        if run is not None:
            break
    if run is None:
        raise ConfigError("--gantt", f"run {run_id[:12]} is not in the matrix of {spec_path} "
                                     "(its spec, a trace, a platform file or a plug-in's file "
                                     "changed since the sweep): run the sweep again first")
    log = AllocationLog()
    try:
        result = simulate(load_run_workload(run), run.scheduler_name, run.params,
                          overrun=run.overrun, check=run.check, seed=run.seed,
                          components=run.components, platform=run.platform,
                          recorders=[AllocationRecorder(log)])
    except Exception as exc:  # the sweep records such a run as failed; here it is refused
        raise ConfigError("--gantt", f"run {run_id[:12]} fails: {type(exc).__name__}: "
                                     f"{exc}") from None
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    files = write_run(result, out, log)
    return Rerun(run_id, out, files, _differences(result.summary, row or {}),
                 set(log.ended))


def _differences(summary: dict[str, Any], row: dict[str, Any]) -> list[str]:
    out = []
    for key, value in summary.items():
        stored = row.get(f"metric.{key}", row.get(key))  # as execute_run names it
        if not isinstance(value, (int, float)) or not isinstance(stored, (int, float)):
            continue
        if value != stored and not (math.isnan(value) and math.isnan(stored)):
            out.append(f"{key} {stored!r} -> {value!r}")
    return out
