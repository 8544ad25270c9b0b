"""The files of a results store, each able to tell whether it is intact.

* **Run log** (`log/SEQ.log`): what a sweep appends as each run finishes.  A header line,
  then records: a 12-byte frame (payload length, CRC-32 of the payload, CRC-32 of those 8
  bytes) and the payload, the JSON of `{"row": ..., "jobs": [size, crc] | null}`.  A record
  cut short at the end of the file is a write that never finished (the process was killed,
  the machine lost power): it is ignored.  Any other mismatch is damage.
* **Run table** (`runs/part-SEQ-K.parquet`): many rows in Parquet.  Rows may have different
  columns (a failed run has no metrics), so the table holds the union and its metadata
  records which columns each row has, the column names and types, the per-job file of each
  row and a CRC-32 of the rows' JSON.  A reader rebuilds every row exactly as it was
  recorded and checks the CRC, so a flipped bit anywhere that changes what is read -- a
  value, a column name or type in the footer -- is caught, on top of Parquet's page
  checksums.
* **Single-run file** (`runs/<run_id>.parquet`, store format 1): one row per file, checked as
  format 1 did (one row, its run id matching its name).  Read as they are; the next sweep
  moves their rows into a run table.
* **Per-job file** (`jobs/<run_id>.parquet`): a run's per-job records.  Its size and CRC-32
  are recorded with its row; format-1 files are checked with their page checksums.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

STORE_FORMAT = "2"
LEGACY_FORMAT = "1"
META = b"ckptsim.store"
META_ROWS = b"ckptsim.rows"
REQUIRED = ("run_id", "status", "workload", "scheduler", "seed")
STATUSES = ("ok", "failed")

LOG_HEADER = b"ckptsim run log 2\n"
_FRAME = struct.Struct("<III")  # payload length, payload CRC-32, CRC-32 of the first 8 bytes

#: (size in bytes, CRC-32) of a per-job file, as recorded with its run's row.
JobsRef = tuple[int, int]


class Damaged(ValueError):
    """A store file is damaged; the message says how."""


@dataclass
class Entry:
    """One recorded run: its row, and the reference of its per-job file if it has one."""

    row: dict[str, Any]
    jobs: JobsRef | None = None


def crc(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def row_json(row: dict[str, Any]) -> bytes:
    """A row as JSON, keys in their order (floats by repr, so values round-trip exactly)."""
    return json.dumps(row, separators=(",", ":"), allow_nan=True,
                      ensure_ascii=False).encode("utf-8")


def check_row(row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise Damaged("a record is not a row")
    missing = [c for c in REQUIRED if c not in row]
    if missing:
        raise Damaged(f"missing columns {', '.join(missing)}")
    if row["status"] not in STATUSES:
        raise Damaged(f"unknown status {row['status']!r}")
    return row


# ----------------------------------------------------------------------------- run log
def log_record(row: dict[str, Any], jobs: JobsRef | None) -> bytes:
    """The bytes appended to a run log for one finished run."""
    payload = b'{"row":' + row_json(row) + b',"jobs":' + (
        b"null" if jobs is None else f"[{jobs[0]},{jobs[1]}]".encode()) + b"}"
    head = struct.pack("<II", len(payload), crc(payload))
    return head + struct.pack("<I", crc(head)) + payload


def read_log(data: bytes) -> tuple[list[Entry], str | None, bool]:
    """(entries, damage, torn) of a run log's bytes.

    `damage` says why the log is damaged (None when intact); its intact entries are returned
    all the same, since each record has its own checksum: a record whose body is damaged is
    skipped (its frame, checked on its own, says where the next one begins), and reading
    stops only at a damaged frame.  `torn` is True when the log ends in a record that was
    never finished -- not damage: that run was in flight.
    """
    if not data.startswith(LOG_HEADER):
        if LOG_HEADER.startswith(data):
            return [], None, bool(data)
        return [], "not a ckptsim run log (bad header)", False
    entries: list[Entry] = []
    damage: list[str] = []
    pos, end = len(LOG_HEADER), len(data)
    while pos < end:
        if end - pos < _FRAME.size or not any(data[pos:]):
            return entries, _damage(damage), not damage
        size, body_crc, head_crc = _FRAME.unpack_from(data, pos)
        if crc(data[pos:pos + 8]) != head_crc:
            damage.append(f"record at byte {pos}: bad frame checksum")
            return entries, _damage(damage), False
        start = pos + _FRAME.size
        if start + size > end:
            return entries, _damage(damage), not damage
        payload = data[start:start + size]
        if crc(payload) != body_crc:
            damage.append(f"record at byte {pos}: bad checksum")
        else:
            try:
                doc = json.loads(payload)
                row = check_row(doc["row"])
                ref = doc["jobs"]
                entries.append(Entry(row, None if ref is None else (int(ref[0]), int(ref[1]))))
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                damage.append(f"record at byte {pos}: {exc}")
        pos = start + size
    return entries, _damage(damage), False


def _damage(found: list[str]) -> str | None:
    """What is damaged in a run log, in one line (None: nothing)."""
    if not found:
        return None
    more = f" (and {len(found) - 1} more damaged records)" if len(found) > 1 else ""
    return found[0] + more


# ----------------------------------------------------------------------------- run tables
def _kind(value: Any) -> str:
    return type(value).__name__


def _groups(entries: Sequence[Entry]) -> list[list[Entry]]:
    """Entries split so that no column holds values of two Python types in one group (a
    Parquet column has one type); in a sweep there is usually a single group."""
    groups: list[tuple[dict[str, str], list[Entry]]] = []
    for e in entries:
        kinds = {k: _kind(v) for k, v in e.row.items() if v is not None}
        for seen, members in groups:
            if all(seen.get(k, t) == t for k, t in kinds.items()):
                seen.update(kinds)
                members.append(e)
                break
        else:
            groups.append((kinds, [e]))
    return [members for _, members in groups]


def _checksum(rows: Iterable[dict[str, Any]]) -> int:
    value = 0
    for row in rows:
        value = zlib.crc32(row_json(row) + b"\n", value)
    return value & 0xFFFFFFFF


def table_of(entries: Sequence[Entry]) -> Any:
    """A pyarrow Table of entries whose column types agree, with the metadata that lets a
    reader rebuild and check every row.

    Raises:
        ValueError: the rows cannot be stored in one table without changing a value.
    """
    import pyarrow as pa

    columns: list[str] = []
    index: dict[str, int] = {}
    layouts: list[tuple[int, ...]] = []
    layout_index: dict[tuple[int, ...], int] = {}
    row_layout = []
    for e in entries:
        for k in e.row:
            if k not in index:
                index[k] = len(columns)
                columns.append(k)
        layout = tuple(index[k] for k in e.row)
        if layout not in layout_index:
            layout_index[layout] = len(layouts)
            layouts.append(layout)
        row_layout.append(layout_index[layout])
    arrays = [pa.array([e.row.get(c) for e in entries]) for c in columns]
    table = pa.table(dict(zip(columns, arrays, strict=True)))
    doc = {"columns": [[f.name, str(f.type)] for f in table.schema],
           "layouts": [list(x) for x in layouts], "row_layout": row_layout,
           "jobs": [None if e.jobs is None else list(e.jobs) for e in entries],
           "crc32": _checksum(e.row for e in entries)}
    table = table.replace_schema_metadata({META: STORE_FORMAT.encode(),
                                           META_ROWS: json.dumps(doc).encode()})
    try:
        rows_of(table)  # the rows must come back exactly as they are
    except Damaged as exc:
        raise ValueError(f"rows do not round-trip through Parquet ({exc})") from None
    return table


def tables_of(entries: Sequence[Entry], max_rows: int = 5000) -> list[Any]:
    """Tables holding `entries`: one per group of compatible rows, at most `max_rows` each
    (damage to a file then costs at most that many runs)."""
    out = []
    for group in _groups(entries):
        for i in range(0, len(group), max_rows):
            chunk = group[i:i + max_rows]
            try:
                out.append(table_of(chunk))
            except (ValueError, TypeError, OverflowError, ImportError) as exc:
                if len(chunk) == 1:
                    raise ValueError(f"run {chunk[0].row.get('run_id')}: cannot be stored "
                                     f"({exc})") from None
                out += tables_of(chunk[: len(chunk) // 2], max_rows) + tables_of(
                    chunk[len(chunk) // 2:], max_rows)
    return out


def rows_of(table: Any) -> list[Entry]:
    """The entries of a run table, rebuilt and checked against its metadata.

    Raises:
        Damaged: the table is not what its metadata says it is.
    """
    meta = table.schema.metadata or {}
    if meta.get(META) != STORE_FORMAT.encode():
        raise Damaged(f"not a run table of store format {STORE_FORMAT}")
    try:
        doc = json.loads(meta[META_ROWS])
        expected = [tuple(c) for c in doc["columns"]]
        layouts = doc["layouts"]
        row_layout = doc["row_layout"]
        refs = doc["jobs"]
        checksum = int(doc["crc32"])
    except (KeyError, ValueError, TypeError) as exc:
        raise Damaged(f"unreadable metadata ({type(exc).__name__})") from None
    found = [(f.name, str(f.type)) for f in table.schema]
    if found != expected:
        diff = next((f"{a} != {b}" for a, b in zip(found, expected, strict=False) if a != b),
                    f"{len(found)} columns, {len(expected)} expected")
        raise Damaged(f"schema differs from the recorded one ({diff})")
    if not (table.num_rows == len(row_layout) == len(refs)):
        raise Damaged(f"{table.num_rows} rows, {len(row_layout)} recorded")
    names = table.column_names
    values = [table.column(i).to_pylist() for i in range(table.num_columns)]
    entries = []
    try:
        for i, li in enumerate(row_layout):
            row = {names[c]: values[c][i] for c in layouts[li]}
            ref = refs[i]
            entries.append(Entry(row, None if ref is None else (int(ref[0]), int(ref[1]))))
    except (IndexError, TypeError, ValueError):
        raise Damaged("row layout does not match the table") from None
    if _checksum(e.row for e in entries) != checksum:
        raise Damaged("rows differ from their checksum")
    for e in entries:
        check_row(e.row)
    return entries


def read_table(path: str) -> list[Entry]:
    """The entries of a run-table file, checked (page checksums, schema, rows)."""
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(path, page_checksum_verification=True).read(use_threads=False)
    except FileNotFoundError:
        raise
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise Damaged(f"unreadable Parquet ({type(exc).__name__}: {exc})") from None
    return rows_of(table)


def read_single(path: str, run_id: str) -> Entry:
    """The row of a format-1 single-run file, checked as format 1 did."""
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(path, page_checksum_verification=True).read(use_threads=False)
    except FileNotFoundError:
        raise
    except Exception as exc:
        raise Damaged(f"unreadable Parquet ({type(exc).__name__}: {exc})") from None
    if table.num_rows != 1:
        raise Damaged(f"expected 1 row, found {table.num_rows}")
    row = check_row(table.to_pylist()[0])
    if row["run_id"] != run_id:
        raise Damaged(f"holds run {row['run_id']!r}, not the run its name says")
    return Entry(row)


# ----------------------------------------------------------------------------- per-job files
def encode_jobs(table: Any) -> bytes:
    """A run's per-job records as Parquet bytes (page checksums; the bytes format 1 wrote)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, write_page_checksum=True, compression="none",
                   use_dictionary=False, write_statistics=False)
    return bytes(sink.getvalue())


def check_jobs(path: str, ref: JobsRef | None, row: dict[str, Any]) -> None:
    """Check a per-job file against its recorded size and CRC (format 1: its page checksums
    and its number of records).

    Raises:
        Damaged: missing or not the file that was written.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise Damaged("missing") from None
    except OSError as exc:
        raise Damaged(f"unreadable ({exc})") from None
    if ref is not None:
        if len(data) != ref[0]:
            raise Damaged(f"{len(data)} bytes, {ref[0]} written")
        if crc(data) != ref[1]:
            raise Damaged("content differs from its checksum")
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True).read(
            use_threads=False)
    except Exception as exc:
        raise Damaged(f"unreadable Parquet ({type(exc).__name__}: {exc})") from None
    if isinstance(row.get("jobs"), int) and table.num_rows != row["jobs"]:
        raise Damaged(f"{table.num_rows} records, the run had {row['jobs']} jobs")
