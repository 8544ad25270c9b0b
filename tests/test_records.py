"""Per-job records and jobs.csv against value-by-value references.

`from_simulation` reads the rarely used fields only from the jobs the engine marked, and writes
jobs.csv through byte matrices; both must give exactly what reading every job and formatting
every value with str / repr gives.
"""

from __future__ import annotations

import math

import numpy as np
from helpers import examples, inject_failures, jobs
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.engine.simulator import Simulator
from ckptsim.policies.base import scheduler_factory
from ckptsim.records.io import CSV_CHUNK, write_jobs_csv
from ckptsim.records.jobs import ALL_COLUMNS, JobTable, from_simulation
from ckptsim.records.text import float_repr_text, int_text, join_rows

# ------------------------------------------------------------------------- records


@st.composite
def runs(draw):
    machine = draw(st.integers(1, 6))
    n = draw(st.integers(1, 15))
    rows = [(float(draw(st.integers(0, 40))), float(draw(st.integers(0, 3000))),
             draw(st.integers(1, machine)), float(draw(st.integers(0, 4000))))
            for _ in range(n)]
    rows.sort(key=lambda r: r[0])
    fails = draw(st.lists(st.tuples(st.integers(0, 5000), st.integers(0, machine - 1),
                                    st.sampled_from([0, 0, 50])), max_size=6))
    return jobs(rows, machine), fails


@settings(max_examples=examples(80))
@given(run=runs(), name=st.sampled_from(["easy", "ckpt-backfill"]),
       overrun=st.sampled_from(["extend", "kill"]))
def test_records_equal_reading_every_job(run, name, overrun):
    w, fails = run
    params = {"t_thr": "100", "t_checkpoint": "20"} if name == "ckpt-backfill" else {}
    sim = Simulator(w, scheduler_factory(name, params), overrun=overrun, check=True)
    if fails:
        inject_failures(sim, [float(f[0]) for f in fails], [f[1] for f in fails],
                        [float(f[2]) for f in fails])
    sim.run()
    table = from_simulation(sim)
    nan = float("nan")
    expected = {
        "start": [nan if j.start is None else j.start for j in sim.jobs],
        "end": [nan if j.end is None else j.end for j in sim.jobs],
        "wait": [j.wait for j in sim.jobs],
        "backfilled": [j.backfilled for j in sim.jobs],
        "status": [j.status for j in sim.jobs],
        "useful_work": [j.work_done for j in sim.jobs],
    }
    for name_ in ("overhead", "lost_work", "n_checkpoints", "n_preemptions", "n_kills",
                  "n_restarts", "n_migrations"):
        expected[name_] = [getattr(j, name_) for j in sim.jobs]
    for col, values in expected.items():
        assert np.array_equal(table[col], np.array(values, dtype=table[col].dtype),
                              equal_nan=table[col].dtype.kind == "f"), col
    segs = [(r, s, e) for r, j in enumerate(sim.jobs) for s, e in j.segments]
    assert table.seg_row.tolist() == [r for r, _, _ in segs]
    assert table.seg_start.tolist() == [s for _, s, _ in segs]
    assert table.seg_end.tolist() == [e for _, _, e in segs]


# ------------------------------------------------------------------------- text


def ints():
    return st.lists(st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-1000, 10**6)),
                    min_size=1, max_size=40)


def as_lines(text: np.ndarray) -> list[str]:
    return join_rows([text]).decode("ascii").split("\n")[:-1]


@settings(max_examples=examples(200))
@given(values=ints())
def test_int_text_is_str(values):
    assert as_lines(int_text(np.array(values, dtype=np.int64))) == [str(v) for v in values]


FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                   st.integers(-(10**17), 10**17).map(float),
                   st.sampled_from([0.0, -0.0, 1e16, 9999999999999998.0, 0.5, -2.5, 1e-300]))


@settings(max_examples=examples(200))
@given(values=st.lists(FLOATS, min_size=1, max_size=40))
def test_float_repr_text_is_repr(values):
    expected = ["" if math.isnan(v) else repr(v) for v in values]  # inf as inf, NaN empty
    assert as_lines(float_repr_text(np.array(values))) == expected


def reference_csv(table: JobTable) -> str:
    """Every value by str / repr; a float column of a chunk is written as integers when all
    its values are whole and finite, as repr otherwise (NaN empty, inf as inf)."""
    out = [",".join(ALL_COLUMNS)]
    for lo in range(0, len(table), CSV_CHUNK):
        cols = []
        for c in ALL_COLUMNS:
            arr = table[c][lo:lo + CSV_CHUNK]
            values = arr.tolist()
            if arr.dtype == np.bool_:
                cols.append([str(int(v)) for v in values])
            elif arr.dtype.kind == "f":
                if all(math.isfinite(v) and v == int(v) and abs(v) < 2**53 for v in values):
                    cols.append([str(int(v)) for v in values])
                else:
                    cols.append(["" if math.isnan(v) else repr(v) for v in values])
            else:
                cols.append([str(v) for v in values])
        out += [",".join(row) for row in zip(*cols, strict=True)]
    return "\n".join(out) + "\n"


def test_jobs_csv_equals_value_by_value_formatting(tmp_path):
    rng = np.random.default_rng(7)
    n = 2 * CSV_CHUNK + 123  # three chunks: float formats are decided per chunk
    whole = rng.integers(0, 10**9, n).astype(np.float64)
    mixed = whole.copy()
    mixed[CSV_CHUNK + 5] = 0.25  # only the second chunk of this column needs repr
    mixed[-1] = float("nan")  # ... and the third
    mixed[-2] = float("inf")
    mixed[-3] = -float("inf")
    cols = {c: np.zeros(n) for c in ALL_COLUMNS}
    cols.update({
        "job_id": np.arange(n, dtype=np.int64) - 5,
        "submit": whole, "start": mixed, "end": whole + 0.5,
        "wait": rng.normal(0.0, 1e6, n), "bsld": np.full(n, -0.0),
        "size": rng.integers(1, 10**5, n), "backfilled": rng.random(n) < 0.5,
        "status": np.array(rng.choice(["completed", "killed", "failure"], n), dtype=object),
        "n_kills": np.full(n, 3, dtype=np.int64),
    })
    table = JobTable(cols, np.zeros(0, np.int64), np.zeros(0), np.zeros(0), 8)
    path = tmp_path / "jobs.csv"
    write_jobs_csv(table, path)
    assert path.read_text() == reference_csv(table)
