"""Checksums of the run tables: the SHA-256 of every finished file, checked before it is read.

Parquet's page checksums and the CRC of the rows in a run table's metadata catch damage to
what a reader uses, but not to the bytes no reader looks at: the leading `PAR1` magic,
statistics, offsets that are recomputed, padding (about a quarter of the single-bit flips in
a run table changed nothing that was read).  So every run table `runs/part-SEQ-K.parquet` has
its SHA-256 in `checksums/part-SEQ-K.parquet.sha256`, one line as `sha256sum` writes it
(`cd DIR/runs && sha256sum -c ../checksums/*.sha256` checks a store by hand).  The checksum
is written and flushed before its table gets its name, so no table of this version exists
without one (a checksum whose table never got its name is deleted by the next compaction).
A reader hashes the bytes it then parses: a flipped bit anywhere makes the file damaged.

Run tables written before checksums existed have none: they are read with their own checks
and reported (`Contents.unchecked`), and the next sweep records their checksums.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import uuid
from pathlib import Path
from typing import Any

from ckptsim.experiments import storefmt as fmt
from ckptsim.experiments.storefmt import Damaged, Entry

#: The folder of a store that holds the checksums of its run tables.
SUMS = "checksums"
_LINE = re.compile(rb"([0-9a-f]{64})  (\S+)\n")
_TMP = ".tmp-"


def sum_path(table: Path) -> Path:
    """Where the checksum of the run table `table` (DIR/runs/NAME) is kept."""
    return table.parent.parent / SUMS / f"{table.name}.sha256"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def recorded(table: Path) -> str | None:
    """The SHA-256 recorded for a run table, None when it has none (an older store).

    Raises:
        Damaged: the checksum file is unreadable or names another file.
    """
    try:
        line = sum_path(table).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Damaged(f"its checksum file is unreadable ({exc})") from None
    m = _LINE.fullmatch(line)
    if m is None or m.group(2).decode("ascii", "replace") != table.name:
        raise Damaged(f"its checksum file {SUMS}/{table.name}.sha256 is damaged")
    return m.group(1).decode("ascii")


def verify(data: bytes, expected: str | None) -> None:
    """Check a run table's bytes against its recorded SHA-256 (None: nothing recorded).

    Raises:
        Damaged: the bytes are not those that were written.
    """
    if expected is not None and digest(data) != expected:
        raise Damaged("empty, where its recorded SHA-256 is of a written table" if not data
                      else "content differs from its recorded SHA-256 (a changed byte)")


def read_table(table: Path) -> tuple[list[Entry], bool]:
    """The entries of a run table, checked (its SHA-256 when one is recorded, then page
    checksums, schema and rows), and whether a SHA-256 was recorded.

    Raises:
        Damaged: the file or its checksum file is damaged.
        FileNotFoundError: the table is gone (compacted away while being read).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    expected = recorded(table)
    with open(table, "rb") as f:
        data = f.read()
    verify(data, expected)
    try:
        parsed = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True).read(
            use_threads=False)
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise Damaged(f"unreadable Parquet ({type(exc).__name__}: {exc})") from None
    return fmt.rows_of(parsed), expected is not None


def _write_bytes(path: Path, data: bytes) -> None:
    """Write `path` so that readers see the whole file or nothing, flushed to disk."""
    tmp = path.with_name(f"{_TMP}{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):  # a full disk: name the file (a write error names none)
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
        raise


def _write_sum(table: Path, data: bytes) -> None:
    path = sum_path(table)
    path.parent.mkdir(exist_ok=True)
    _write_bytes(path, f"{digest(data)}  {table.name}\n".encode("ascii"))


def write_table(table: Any, path: Path) -> None:
    """Write a pyarrow table as the run table `path`, its checksum first (see the module
    docstring); the caller flushes the folders."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, write_page_checksum=True, write_statistics=False)
    data = bytes(sink.getvalue())
    _write_sum(path, data)
    _write_bytes(path, data)


def record(table: Path) -> None:
    """Record the checksum of a run table that has none (one read with its own checks)."""
    _write_sum(table, table.read_bytes())


def forget(table: Path) -> None:
    """Delete the checksum of a run table that was set aside or deleted."""
    with contextlib.suppress(FileNotFoundError):
        sum_path(table).unlink()


def prune(runs_dir: Path) -> None:
    """Delete the checksums of tables that do not exist (a compaction killed between
    writing a checksum and naming its table)."""
    folder = runs_dir.parent / SUMS
    if not folder.is_dir():
        return
    for entry in os.scandir(folder):
        if entry.name.endswith(".sha256") and not entry.name.startswith(_TMP) and not (
                runs_dir / entry.name[: -len(".sha256")]).exists():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
