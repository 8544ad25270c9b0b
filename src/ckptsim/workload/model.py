"""The workload: what the simulator replays.

A workload is a set of rigid jobs held as numpy columns (one entry per job, in submit
order).  The columns the engine uses are `job_id`, `submit`, `runtime`, `estimate` and
`size`; `fields` keeps the 18 SWF fields of every job so that an SWF file of the simulated
schedule can carry the trace's other fields (user, group, queue...) unchanged.  `extra` holds
further named per-job columns that some models need (e.g. the home cluster and bandwidth of
the multi-cluster grid workload, `ckptsim.workload.grid`); job selections carry them along.

Transforms (`ckptsim.workload.transforms`) return new workloads and never modify one in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

#: The 18 fields of the Standard Workload Format, in file order (1-based in the SWF docs).
SWF_FIELDS: tuple[str, ...] = (
    "job_number",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_processors",
    "average_cpu_time",
    "used_memory",
    "requested_processors",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
)
SWF_INDEX: dict[str, int] = {name: i for i, name in enumerate(SWF_FIELDS)}


@dataclass(frozen=True, eq=False, repr=False)
class Workload:
    """Jobs as columns, plus where they came from and what the loader did to them.

    Attributes:
        job_id: SWF job number of each job (int64).
        submit: submit time in seconds from the trace start (float64), non-decreasing.
        runtime: actual run time in seconds (float64) -- how much useful work the job needs.
        estimate: the runtime estimate the scheduler sees (float64), e.g. the SWF requested time.
        size: number of processors / nodes the job needs (int64, >= 1).
        fields: (n, 18) float64 array of the SWF fields of every job (for writing SWF back).
        machine_size: number of nodes of the machine the workload was recorded on / is meant for.
        header: the `; Key: value` header comments of the source file.
        source: a short description of the origin (a path, or a generator and its seed).
        counts: how many records each loader rule and transform touched (reported in summaries).
        transforms: the notes of the transforms applied, in order.
        extra: further per-job columns by name (numpy arrays whose first axis has one entry
            per job), e.g. a job's home cluster or bandwidth; empty for plain traces.
        generator: for a workload named `GEN:KEY=VALUE,...` (or ``builtin``), the generator
            that made it and every one of its options with the value used, defaults
            included: ``{"name": "htc", "options": {"days": 1, ...}}`` (summary.json's
            `workload.generator`); None for a trace and for columns given directly.
    """

    job_id: np.ndarray
    submit: np.ndarray
    runtime: np.ndarray
    estimate: np.ndarray
    size: np.ndarray
    fields: np.ndarray
    machine_size: int
    header: dict[str, str] = field(default_factory=dict)
    source: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    transforms: tuple[str, ...] = ()
    extra: Mapping[str, np.ndarray] = field(default_factory=dict)
    generator: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        n = len(self.job_id)
        for name in ("submit", "runtime", "estimate", "size"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"workload column {name!r} has {len(getattr(self, name))} "
                                 f"entries, expected {n}")
        if self.fields.shape != (n, len(SWF_FIELDS)):
            raise ValueError(f"workload fields must have shape ({n}, 18), got {self.fields.shape}")
        for name, column in self.extra.items():
            if not isinstance(column, np.ndarray) or column.ndim < 1 or len(column) != n:
                raise ValueError(f"extra workload column {name!r} must be a numpy array with "
                                 f"{n} entries")

    def __len__(self) -> int:
        return len(self.job_id)

    def __repr__(self) -> str:
        from ckptsim.display import workload_repr

        return workload_repr(self)

    def _repr_html_(self) -> str:
        from ckptsim.display import html_table, workload_rows

        return html_table("workload", workload_rows(self))

    @property
    def n_jobs(self) -> int:
        return len(self.job_id)

    def subset(self, mask_or_index: Any, note: str | None = None,
               counts: dict[str, int] | None = None) -> Workload:
        """A workload with only the selected jobs (boolean mask or index array)."""
        idx = np.asarray(mask_or_index)
        new_counts = dict(self.counts)
        if counts:
            new_counts.update(counts)
        return replace(
            self,
            job_id=self.job_id[idx],
            submit=self.submit[idx],
            runtime=self.runtime[idx],
            estimate=self.estimate[idx],
            size=self.size[idx],
            fields=self.fields[idx],
            counts=new_counts,
            transforms=self.transforms + ((note,) if note else ()),
            extra={name: column[idx] for name, column in self.extra.items()},
        )

    def with_columns(self, note: str, **columns: np.ndarray) -> Workload:
        """A workload with some columns replaced (runtime, estimate, submit, size...)."""
        return replace(self, transforms=self.transforms + (note,), **columns)  # type: ignore[arg-type]

    def with_extra(self, note: str | None = None, **columns: np.ndarray) -> Workload:
        """A workload with extra per-job columns added or replaced (the others are kept)."""
        extra = {**self.extra, **{k: np.asarray(v) for k, v in columns.items()}}
        return replace(self, extra=extra,
                       transforms=self.transforms + ((note,) if note else ()))

    def with_generator(self, name: str, options: Mapping[str, Any]) -> Workload:
        """The workload recording that generator `name` made it with `options` (every option
        the generator accepts, with the value it used: JSON values, None where an option does
        not apply)."""
        return replace(self, generator={"name": name, "options": dict(options)})

    def offered_load(self) -> float:
        """Processor-seconds of work divided by machine capacity over the submit span; NaN
        (undefined, shown as `-` by `ckptsim inspect`, as other undefined statistics) when
        the span is 0: one job, or all submitted at once."""
        if self.n_jobs == 0:
            return 0.0
        span = float(self.submit[-1] - self.submit[0])
        if span <= 0:
            return float("nan")
        return float(np.sum(self.runtime * self.size)) / (self.machine_size * span)


def from_columns(
    *,
    submit: Any,
    runtime: Any,
    size: Any,
    estimate: Any | None = None,
    job_id: Any | None = None,
    machine_size: int,
    source: str = "inline",
    header: dict[str, str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Workload:
    """Build a workload from plain sequences (hand-made schedules in tests, generators).

    Jobs are sorted stably by submit time (the `extra` columns with them).  `estimate`
    defaults to the runtime and `job_id` to 1..n.  The SWF fields are filled from the
    columns, -1 elsewhere.
    """
    submit_a = np.asarray(submit, dtype=np.float64)
    n = len(submit_a)
    runtime_a = np.asarray(runtime, dtype=np.float64)
    size_a = np.asarray(size, dtype=np.int64)
    estimate_a = runtime_a.copy() if estimate is None else np.asarray(estimate, dtype=np.float64)
    job_a = (np.arange(1, n + 1, dtype=np.int64) if job_id is None
             else np.asarray(job_id, dtype=np.int64))
    order = np.argsort(submit_a, kind="stable")
    fields = np.full((n, len(SWF_FIELDS)), -1.0)
    fields[:, SWF_INDEX["job_number"]] = job_a
    fields[:, SWF_INDEX["submit_time"]] = submit_a
    fields[:, SWF_INDEX["run_time"]] = runtime_a
    fields[:, SWF_INDEX["allocated_processors"]] = size_a
    fields[:, SWF_INDEX["requested_processors"]] = size_a
    fields[:, SWF_INDEX["requested_time"]] = estimate_a
    fields[:, SWF_INDEX["status"]] = 1
    return Workload(
        job_id=job_a[order],
        submit=submit_a[order],
        runtime=runtime_a[order],
        estimate=estimate_a[order],
        size=size_a[order],
        fields=fields[order],
        machine_size=int(machine_size),
        header=dict(header or {}),
        source=source,
        extra={name: np.asarray(column)[order] for name, column in (extra or {}).items()},
    )
