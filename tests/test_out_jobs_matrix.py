"""out_jobs.csv's fast form (`per="job"`, numbered jobs: the numbers as byte matrices) writes
exactly the bytes of the value-by-value form, for any values a run can record: whole and
fractional seconds, -0.0, infinities, NaN (a job that never started, an energy not measured),
huge numbers, jobs with no attempt or several."""

from __future__ import annotations

import io
import math
from types import SimpleNamespace

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ckptsim.records.allocations import AllocationLog
from ckptsim.records.batsim_jobs import (
    _job_lines,
    _last_nodes,
    _write_lines,
    write_batsim_jobs,
)

SPECIAL = [0.0, -0.0, 1.0, 0.5, 1e16, 1e17, 2.0**62, 1e300, -3.25, math.inf, -math.inf,
           math.nan, 123456789.125, 1e-7]
times = st.one_of(st.integers(0, 10**9).map(float), st.sampled_from(SPECIAL),
                  st.floats(allow_nan=True, allow_infinity=True))
STATUSES = ["completed", "killed", "failed", "bad", "evicted"]


@st.composite
def runs(draw: st.DrawFn) -> tuple[dict[str, np.ndarray], AllocationLog, np.ndarray]:
    n = draw(st.integers(1, 30))
    ids = draw(st.lists(st.integers(0, 10**12), min_size=n, max_size=n, unique=True))
    col = {"job_id": np.array(ids, np.int64),
           "size": np.array(draw(st.lists(st.integers(1, 10**6), min_size=n, max_size=n))),
           "status": np.array(draw(st.lists(st.sampled_from(STATUSES), min_size=n,
                                            max_size=n)), dtype=object)}
    for name in ("submit", "start", "end", "estimate", "runtime"):
        col[name] = np.array(draw(st.lists(times, min_size=n, max_size=n)), np.float64)
    if draw(st.booleans()):
        col["energy"] = np.array(draw(st.lists(times, min_size=n, max_size=n)), np.float64)
    log = AllocationLog()
    for _ in range(draw(st.integers(0, 2 * n))):
        job = draw(st.sampled_from(ids))
        mask = draw(st.integers(1, 2**40))
        log.rows.append((job, draw(st.integers(1, 5)), draw(times), draw(times), mask,
                         draw(st.sampled_from(STATUSES))))
    estimate = np.where(draw(st.lists(st.booleans(), min_size=n, max_size=n)), -1.0,
                        col["estimate"])
    return col, log, estimate


@given(runs(), st.integers(0, 30))
def test_matrix_lines_are_the_value_by_value_lines(run, cut) -> None:
    columns, log, estimate = run
    texts = log.node_texts()
    slow = io.StringIO()
    _write_lines(slow, columns, estimate.tolist(), log, texts, "w0", "job", None)
    nodes = _last_nodes(log, texts, columns["job_id"])
    n = len(nodes)
    cut = min(cut, n)  # written in two parts, as chunks are
    fast = "".join(_job_lines(columns, estimate, lo, hi, nodes, "w0")
                   for lo, hi in ((0, cut), (cut, n)) if hi > lo)
    assert fast == slow.getvalue()


def test_the_file_is_the_same_in_both_forms(tmp_path) -> None:
    """A run's file (the matrix form) equals the value-by-value one."""
    n = 500
    rng = np.random.default_rng(1)
    submit = np.cumsum(rng.integers(0, 100, n)).astype(float)
    start = submit + rng.integers(0, 50, n)
    end = start + rng.integers(1, 1000, n)
    columns = {"job_id": np.arange(1, n + 1), "size": rng.integers(1, 64, n),
               "status": np.array(["completed"] * (n - 3) + ["killed", "failed", "bad"],
                                  dtype=object),
               "submit": submit, "start": start, "end": end,
               "estimate": (end - start) * 2, "runtime": end - start}
    log = AllocationLog()
    for k in range(n):
        log.rows.append((k + 1, 1, start[k], end[k], (1 << int(k % 60)) * 3, "completed"))
    write_batsim_jobs(SimpleNamespace(columns=columns), log, tmp_path / "fast.csv")
    slow = io.StringIO()
    _write_lines(slow, columns, columns["estimate"].tolist(), log, log.node_texts(), "w0",
                 "job", None)
    text = (tmp_path / "fast.csv").read_text()
    assert text.split("\n", 1)[1] == slow.getvalue()
    assert text.count("\n") == n + 1
