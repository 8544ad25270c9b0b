"""The results store of a sweep: one Parquet file per finished run, written atomically.

Layout of a store folder:

    DIR/spec.toml            copy of the spec of the latest sweep (the report reads its figures)
    DIR/sweep.json           the run matrix of the latest sweep: run ids in order, versions
    DIR/runs/<run_id>.parquet    one row: parameters, seed, metrics, timing, status, error
    DIR/jobs/<run_id>.parquet    per-job records of the run (only with keep_jobs)
    DIR/.lock                    held while a sweep writes (a second sweep is refused)

Why one file per run: a run's file appears complete or not at all (written under a temporary
name in the same folder, flushed to disk, then renamed with `os.replace`), so killing a sweep
at any moment -- Ctrl-C, SIGKILL, a lost machine -- loses at most the runs in flight, and a
row can never be written twice: a run's file name is its identity.  Parquet page checksums
are written and verified, and every file is checked on reading (one row, its run id matching
its name), so a damaged file is reported by name instead of being read.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ckptsim.errors import CkptsimError

STORE_FORMAT = "1"
REQUIRED = ("run_id", "status", "workload", "scheduler", "seed")
STATUSES = ("ok", "failed")
_TMP = ".tmp-"


class StoreError(CkptsimError):
    """A results store cannot be used as asked (missing, locked, or with damaged files)."""


@dataclass
class Contents:
    """What a store holds: valid rows by run id, and the files that could not be read."""

    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    corrupt: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)


def fsync_dir(path: Path) -> None:
    """Make a rename in `path` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(table: Any, path: Path) -> None:
    """Write a pyarrow table to `path` so that readers see the whole file or nothing."""
    import pyarrow.parquet as pq

    tmp = path.with_name(f"{_TMP}{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}")
    try:
        with open(tmp, "wb") as f:
            # Files hold one row (or one run's jobs): compression and statistics cost more
            # time than they save space.
            pq.write_table(table, f, write_page_checksum=True, compression="none",
                           use_dictionary=False, write_statistics=False)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)


def row_table(row: dict[str, Any]) -> Any:
    import pyarrow as pa

    table = pa.Table.from_pylist([row])
    return table.replace_schema_metadata({"ckptsim.store": STORE_FORMAT})


def read_row(path: Path) -> dict[str, Any]:
    """The row of one run file, checked.

    Raises:
        ValueError: the file is not a valid run file (the message says why).
    """
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(path, page_checksum_verification=True).read(use_threads=False)
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise ValueError(f"unreadable Parquet ({type(exc).__name__}: {exc})") from None
    if table.num_rows != 1:
        raise ValueError(f"expected 1 row, found {table.num_rows}")
    missing = [c for c in REQUIRED if c not in table.column_names]
    if missing:
        raise ValueError(f"missing columns {', '.join(missing)}")
    row: dict[str, Any] = table.to_pylist()[0]
    if row["run_id"] != path.stem:
        raise ValueError(f"holds run {row['run_id']!r}, not the run its name says")
    if row["status"] not in STATUSES:
        raise ValueError(f"unknown status {row['status']!r}")
    return row


class Store:
    """A results store folder (see the module docstring for the layout)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.runs_dir = self.root / "runs"
        self.jobs_dir = self.root / "jobs"

    # --- writing --------------------------------------------------------------------------
    def prepare(self, spec_text: str, manifest: dict[str, Any]) -> None:
        """Create the folders, copy the spec and record the run matrix of this sweep."""
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        self.jobs_dir.mkdir(parents=True, exist_ok=True)
        self._write_text(self.root / "spec.toml", spec_text)
        self._write_text(self.root / "sweep.json", json.dumps(manifest, indent=1) + "\n")

    def _write_text(self, path: Path, text: str) -> None:
        tmp = path.with_name(f"{_TMP}{path.name}.{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the store for one sweep; a second concurrent sweep is refused.

        The lock is an advisory `flock`, released by the kernel when the process dies, so a
        killed sweep never leaves a stale lock behind.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except ImportError:  # no flock on this platform: run unguarded
                pass
            except OSError:
                raise StoreError(f"{self.root}: another sweep is writing to this store; wait "
                                 "for it to finish or use another --out") from None
            yield
        finally:
            os.close(fd)

    def remove_temporaries(self) -> int:
        """Delete files left under temporary names by a sweep that was killed mid-write."""
        n = 0
        for folder in (self.runs_dir, self.jobs_dir, self.root):
            if folder.is_dir():
                for entry in os.scandir(folder):
                    if entry.name.startswith(_TMP):
                        with contextlib.suppress(OSError):
                            os.unlink(entry.path)
                            n += 1
        return n

    def write_run(self, row: dict[str, Any], jobs: Any = None) -> None:
        """Record a finished run: its per-job records first, then its row (the row is what
        marks the run finished, so a row never refers to missing records)."""
        run_id = row["run_id"]
        if jobs is not None:
            write_atomic(jobs, self.jobs_dir / f"{run_id}.parquet")
        write_atomic(row_table(row), self.runs_dir / f"{run_id}.parquet")

    # --- reading --------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.runs_dir.is_dir()

    def read(self) -> Contents:
        """Every valid row, and the files that are damaged (never read silently)."""
        out = Contents()
        if not self.runs_dir.is_dir():
            return out
        names = sorted(e.name for e in os.scandir(self.runs_dir)
                       if e.name.endswith(".parquet") and not e.name.startswith(_TMP))
        for name in names:
            path = self.runs_dir / name
            try:
                row = read_row(path)
            except ValueError as exc:
                out.corrupt.append((str(path), str(exc)))
                continue
            out.rows[row["run_id"]] = row
        return out

    def has_jobs(self, run_id: str) -> bool:
        return (self.jobs_dir / f"{run_id}.parquet").is_file()

    def read_jobs(self, run_id: str) -> Any:
        import pyarrow.parquet as pq

        return pq.read_table(self.jobs_dir / f"{run_id}.parquet")

    def manifest(self) -> dict[str, Any] | None:
        path = self.root / "sweep.json"
        if not path.is_file():
            return None
        try:
            doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise StoreError(f"{path}: unreadable ({exc}); rerun the sweep to rewrite it"
                             ) from None
        return doc

    def spec_text(self) -> str | None:
        path = self.root / "spec.toml"
        return path.read_text(encoding="utf-8") if path.is_file() else None


def load_results(root: str | Path, *, all_runs: bool = False) -> tuple[list[dict[str, Any]],
                                                                         dict[str, Any]]:
    """The rows of a store in matrix order, and its manifest.

    Only the runs of the latest sweep's matrix are returned unless `all_runs` (a store keeps
    the rows of earlier versions of a spec too).

    Raises:
        StoreError: the folder is not a store, or holds damaged files (named in the message).
    """
    store = Store(root)
    if not store.exists():
        raise StoreError(f"{root}: not a results store (no runs/ folder); run `ckptsim sweep "
                         "SPEC --out DIR` first")
    contents = store.read()
    if contents.corrupt:
        listed = "\n".join(f"  - {f}: {why}" for f, why in contents.corrupt)
        raise StoreError(f"{root}: {len(contents.corrupt)} damaged run file(s):\n{listed}\n"
                         "rerun the sweep to recompute them (it replaces damaged files)")
    manifest = store.manifest() or {}
    order = manifest.get("runs", [])
    if all_runs or not order:
        rank = {rid: i for i, rid in enumerate(order)}
        ids = sorted(contents.rows, key=lambda r: (rank.get(r, len(rank)), r))
    else:
        ids = [r for r in order if r in contents.rows]
    return [contents.rows[r] for r in ids], manifest
