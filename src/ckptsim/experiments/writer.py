"""The one writer of a sweep: appends finished runs to the run log, flushes in groups.

Each finished run is one `write` of one record to the run log (`storefmt.log_record`), in the
sweep's own process, so a process killed at any moment -- SIGKILL included -- loses no run
whose record was written: the kernel has it.  What reaches the disk is another matter: a
thread flushes the log and the per-job files written since the last flush (`fsync`) about
once a second, so a power loss costs at most the runs recorded in the last second or so.
Flushing per run cost about 80 ms of waiting on this project's machine; once a second it
costs nothing a run waits for.
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from pathlib import Path
from types import TracebackType
from typing import Any

from ckptsim.errors import OutputError
from ckptsim.experiments import storefmt as fmt
from ckptsim.experiments.store import Store, fsync_dir
from ckptsim.experiments.storefmt import JobsRef

#: Seconds between two flushes to disk (group commits).
COMMIT_SECONDS = 1.0


def write_jobs_file(jobs_dir: Path, run_id: str, data: bytes) -> JobsRef:
    """Write a run's per-job records (Parquet bytes) under their final name, atomically but
    without flushing (the writer's group commit does that).  Returns (size, CRC-32)."""
    path = jobs_dir / f"{run_id}.parquet"
    tmp = path.with_name(f".tmp-{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return (len(data), fmt.crc(data))


class StoreWriter:
    """Appends runs to a new run log of `store`; use as a context manager."""

    def __init__(self, store: Store, *, commit_seconds: float = COMMIT_SECONDS) -> None:
        self.store = store
        self.commit_seconds = commit_seconds
        self.path = store.log_dir / f"{store.next_seq():06d}.log"
        self.records = 0
        self.commits = 0
        self._fd = -1
        self._lock = threading.Lock()
        self._pending: list[Path] = []  # per-job files to flush
        self._dirty = False
        self._error: BaseException | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> StoreWriter:
        try:
            self.store.log_dir.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND,
                               0o644)
            self._write(fmt.LOG_HEADER)
        except OSError as exc:
            raise self.failed(self.path, exc) from None
        self._dirty = True
        self._pending.append(self.store.log_dir)  # the log's name
        self._thread = threading.Thread(target=self._loop, daemon=True,
                                        name="ckptsim-group-commit")
        self._thread.start()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # --- recording ----------------------------------------------------------------------
    def record(self, row: dict[str, Any], jobs: JobsRef | None = None) -> None:
        """Record a finished run (its per-job file, if any, is already written)."""
        if self._error is not None:
            raise self._error
        data = fmt.log_record(row, jobs)
        with self._lock:
            try:
                self._write(data)
            except OSError as exc:
                # A record cut short is read as unfinished: the records before it are kept.
                self._error = self.failed(self.path, exc)
                raise self._error from None
            self.records += 1
            self._dirty = True

    def failed(self, path: Path, exc: OSError) -> OutputError:
        """The error of a failed write (a full disk...): the file, the store, what is kept."""
        why = exc.strerror or str(exc)
        return OutputError(str(path), f"{why}: cannot write the results store {self.store.root};"
                                      f" the {self.records} run(s) this sweep recorded before "
                                      "are kept: make room and run the same command to resume")

    def write_jobs(self, run_id: str, data: bytes) -> JobsRef:
        """Write a run's per-job file here (for executors whose workers cannot)."""
        try:
            ref = write_jobs_file(self.store.jobs_dir, run_id, data)
        except OSError as exc:
            raise self.failed(self.store.jobs_dir / f"{run_id}.parquet", exc) from None
        self.written_jobs(run_id)
        return ref

    def written_jobs(self, run_id: str) -> None:
        """A worker wrote this run's per-job file: flush it with the next group."""
        with self._lock:
            self._pending.append(self.store.jobs_dir / f"{run_id}.parquet")

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]

    # --- flushing -----------------------------------------------------------------------
    def _loop(self) -> None:
        while not self._stop.wait(self.commit_seconds):
            try:
                self.commit()
            except OSError as exc:  # reported by the next record()
                self._error = self.failed(self.path, exc)
                return
            except BaseException as exc:
                self._error = exc
                return

    def commit(self) -> None:
        """Flush the per-job files and the run log to disk (a no-op when nothing changed)."""
        with self._lock:
            if not self._dirty:
                return
            files, self._pending, self._dirty = self._pending, [], False
        jobs = False
        for path in files:
            if path.is_dir():
                fsync_dir(path)
                continue
            jobs = True
            with contextlib.suppress(FileNotFoundError):
                fd = os.open(path, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        if jobs:
            fsync_dir(self.store.jobs_dir)
        os.fsync(self._fd)
        self.commits += 1

    def close(self) -> None:
        """Stop the flushing thread and flush what is left."""
        if self._fd < 0:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        try:
            self.commit()
        except OSError as exc:
            if self._error is None:
                self._error = self.failed(self.path, exc)
        finally:
            os.close(self._fd)
            self._fd = -1
        if self._error is not None:
            raise self._error
