"""The results store's files: exact round trips, damage detected wherever it hits, torn
writes told apart from damage, and stores of format 1 (one file per run) still read."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.cli import main
from ckptsim.experiments import storefmt as fmt
from ckptsim.experiments.columns import TIMING_COLUMNS
from ckptsim.experiments.execute import SerialExecutor
from ckptsim.experiments.store import Store, StoreError, load_results
from ckptsim.experiments.storefmt import LOG_HEADER, Damaged, Entry, log_record, read_log
from ckptsim.experiments.sweep import plan_sweep, run_sweep


def row(i: int, **extra):
    return {"run_id": f"{i:064x}", "workload": "w", "scheduler": "easy", "seed": i,
            "status": "ok", **extra}


#: Rows whose columns differ (a failed run has no metrics) and whose values are of every kind.
ROWS = [
    row(1, alpha=0.5, mean_wait=12.25, jobs=10, note="é ✓", flag=True, error=None),
    row(2, alpha=1.0, mean_wait=float("nan"), jobs=11, note="", flag=False, error=None),
    {**row(3, alpha=0.0), "status": "failed", "error": "Traceback ...\nValueError: x"},
    row(4, alpha=0.25, mean_wait=float("inf"), jobs=0, note="a", flag=True, error=None,
        extra=-0.0),
    row(5, alpha=1, mean_wait=3.0, jobs=12, note="b", flag=None, error=None),  # int alpha
]


def same(a, b):
    """Equal rows, key order included, NaN equal to NaN."""
    return fmt.row_json(a) == fmt.row_json(b)


def write_table(tmp_path: Path, entries) -> list[Path]:
    paths = []
    for k, table in enumerate(fmt.tables_of(entries)):
        path = tmp_path / f"part-000001-{k}.parquet"
        pq.write_table(table, path, write_page_checksum=True, write_statistics=False)
        paths.append(path)
    return paths


def test_run_tables_give_back_every_row_exactly(tmp_path):
    entries = [Entry(r, (100 + i, 7 * i) if i % 2 else None) for i, r in enumerate(ROWS)]
    paths = write_table(tmp_path, entries)
    # The int alpha cannot share a double column with the others: two tables.
    assert len(paths) == 2
    back = [e for p in paths for e in fmt.read_table(str(p))]
    by_id = {e.row["run_id"]: e for e in back}
    assert len(back) == len(ROWS)
    for e in entries:
        got = by_id[e.row["run_id"]]
        assert same(got.row, e.row) and list(got.row) == list(e.row) and got.jobs == e.jobs
    assert isinstance(by_id[ROWS[4]["run_id"]].row["alpha"], int)
    assert math.copysign(1, by_id[ROWS[3]["run_id"]].row["extra"]) == -1
    # Any Parquet reader sees plain columns.
    assert pq.read_table(paths[0]).column("mean_wait").type == pa.float64()


def _footer(data: bytes) -> int:
    return len(data) - 8 - int.from_bytes(data[-8:-4], "little")


@pytest.fixture(scope="module")
def table_file(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("table")
    (path,) = write_table(tmp, [Entry(r) for r in ROWS[:4]])
    return path


@settings(max_examples=examples(150))
@given(where=st.floats(0, 1, exclude_max=True), bit=st.integers(0, 7))
def test_a_flipped_bit_in_a_footer_is_caught_or_harmless(table_file, tmp_path_factory, where,
                                                          bit):
    """Every single-bit flip in a run table's footer (schema, column names and types, offsets,
    the row metadata) either makes the file refused as damaged or changes nothing that is
    read: never a renamed column or a changed value."""
    data = bytearray(table_file.read_bytes())
    start = _footer(bytes(data))
    pos = start + int(where * (len(data) - 8 - start))
    data[pos] ^= 1 << bit
    path = tmp_path_factory.mktemp("flip") / table_file.name
    path.write_bytes(bytes(data))
    try:
        entries = fmt.read_table(str(path))
    except Damaged:
        return
    assert [fmt.row_json(e.row) for e in entries] == [fmt.row_json(r) for r in ROWS[:4]]


def test_every_mention_of_a_column_name_in_the_footer_is_checked(table_file, tmp_path):
    data = table_file.read_bytes()
    start, name = _footer(data), b"mean_wait"
    hits = []
    pos = data.find(name, start)
    while pos >= 0:
        hits.append(pos)
        pos = data.find(name, pos + 1)
    assert len(hits) >= 3  # the schema, the column chunk's path, the recorded metadata
    caught = []
    for pos in hits:
        damaged = bytearray(data)
        damaged[pos + len(name) - 1] ^= 0x02  # mean_wait -> mean_waiv
        path = tmp_path / table_file.name
        path.write_bytes(bytes(damaged))
        try:
            entries = fmt.read_table(str(path))
        except Damaged:
            caught.append(pos)
            continue
        # Not read at all (the column chunk's own copy of its path): nothing changes.
        assert [list(e.row) for e in entries] == [list(r) for r in ROWS[:4]]
    assert caught[0] == hits[0]  # the schema's name: the column would be renamed


LOG = LOG_HEADER + b"".join(log_record(r, (10, 20) if i == 1 else None)
                            for i, r in enumerate(ROWS))


def test_a_run_log_gives_back_its_records():
    entries, damage, torn = read_log(LOG)
    assert damage is None and not torn
    assert [fmt.row_json(e.row) for e in entries] == [fmt.row_json(r) for r in ROWS]
    assert [e.jobs for e in entries] == [None, (10, 20), None, None, None]


@settings(max_examples=examples(150))
@given(cut=st.integers(0, len(LOG)))
def test_a_run_log_cut_anywhere_loses_only_its_unfinished_record(cut):
    """A process killed while appending leaves a log cut short: not damage, and every record
    written in full is read."""
    entries, damage, torn = read_log(LOG[:cut])
    assert damage is None
    ends = [len(LOG_HEADER)]
    for r in ROWS:
        ends.append(ends[-1] + len(log_record(r, None if r is not ROWS[1] else (10, 20))))
    complete = sum(1 for e in ends[1:] if e <= cut)
    assert len(entries) == complete
    assert torn == (cut not in ends and cut != 0)


@settings(max_examples=examples(150))
@given(pos=st.integers(0, len(LOG) - 1), bit=st.integers(0, 7))
def test_a_flipped_bit_in_a_run_log_is_damage(pos, bit):
    data = bytearray(LOG)
    data[pos] ^= 1 << bit
    entries, damage, torn = read_log(bytes(data))
    assert damage is not None and not torn
    # Every other record is intact (each has its own checksum): a damaged body is skipped,
    # its frame saying where the next record begins; a damaged frame ends the reading.
    good = [fmt.row_json(r) for r in ROWS]
    got = [fmt.row_json(e.row) for e in entries]
    if "frame" in damage or "header" in damage:
        assert got == good[:len(got)]
    else:
        assert len(got) == len(good) - 1 and all(g in good for g in got)
        assert got == [g for g in good if g in got]  # in order


# ----------------------------------------------------------------------------- format 1
SPEC = """name = "old"
seeds = [1, 2]
[workloads.model]
generator = "lublin"
n = [100, 150]
machine = 64
[[schedulers]]
name = "easy"
[[schedulers]]
name = "fcfs"
"""


def comparable(rows):
    return sorted(({k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows),
                  key=lambda r: r["run_id"])


def to_format_1(out: Path) -> None:
    """Rewrite a store as store format 1 wrote it: one Parquet file of one row per run, named
    by its id, and per-job files without a recorded checksum."""
    rows, _ = load_results(out, all_runs=True)
    for path in (out / "runs").iterdir():
        path.unlink()
    for r in rows:
        table = pa.Table.from_pylist([r]).replace_schema_metadata({"ckptsim.store": "1"})
        pq.write_table(table, out / "runs" / f"{r['run_id']}.parquet",
                       write_page_checksum=True, compression="none", use_dictionary=False,
                       write_statistics=False)
    (out / "log").rmdir()
    manifest = json.loads((out / "sweep.json").read_text())
    (out / "sweep.json").write_text(json.dumps({**manifest, "store_format": "1"}))


def test_a_format_1_store_is_read_checked_and_migrated(tmp_path, capsys):
    spec = tmp_path / "old.toml"
    spec.write_text(SPEC)
    out = tmp_path / "out"
    run_sweep(plan_sweep(spec, out, keep_jobs=True), out, SerialExecutor())
    before = comparable(load_results(out)[0])
    to_format_1(out)
    singles = sorted((out / "runs").iterdir())
    assert len(singles) == 8
    assert comparable(load_results(out)[0]) == before
    assert main(["results", str(out)]) == 0 and "old: 8 runs" in capsys.readouterr().out
    assert plan_sweep(spec, out, keep_jobs=True).todo == []  # per-job files checked as well
    # Damage is caught as format 1 did: a file holding another run, a damaged per-job file.
    singles[0].write_bytes(singles[1].read_bytes())
    jobs = out / "jobs" / singles[2].name
    data = bytearray(jobs.read_bytes())
    data[100] ^= 0x04
    jobs.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="not the run its name says"):
        load_results(out)
    plan = plan_sweep(spec, out, keep_jobs=True)
    assert sorted(Path(f).name for f, _ in plan.corrupt) == [singles[0].name, singles[2].name]
    assert sorted(r.run_id for r in plan.todo) == sorted([singles[0].stem, singles[2].stem])
    # The next sweep recomputes those and moves every row into a checked run table.
    run_sweep(plan, out, SerialExecutor())
    assert comparable(load_results(out)[0]) == before
    assert all(p.name.startswith("part-") for p in (out / "runs").iterdir())
    contents = Store(out).read()
    assert contents.corrupt == [] and contents.bad_jobs == {}
    assert all(contents.jobs[r] is not None for r in contents.rows)  # now with checksums
    assert [p.name for p in (out / "damaged").iterdir()] == [singles[0].name]


def test_a_store_of_a_newer_format_is_refused_with_the_reason(tmp_path, capsys):
    spec = tmp_path / "old.toml"
    spec.write_text(SPEC)
    out = tmp_path / "out"
    run_sweep(plan_sweep(spec, out), out, SerialExecutor())
    manifest = json.loads((out / "sweep.json").read_text())
    (out / "sweep.json").write_text(json.dumps({**manifest, "store_format": "9"}))
    assert main(["results", str(out)]) == 2
    err = capsys.readouterr().err
    assert "store format 9" in err and "reads formats 1 and 2" in err
    assert main(["sweep", str(spec), "--out", str(out)]) == 2
    assert "store format 9" in capsys.readouterr().err
