"""The results store of a sweep: a run log while the sweep runs, run tables once it ends.

Layout of a store folder:

    DIR/spec.toml                  copy of the spec of the latest sweep
    DIR/sweep.json                 the run matrix of the latest sweep: run ids in order, versions
    DIR/log/SEQ.log                runs as they finish (appended by the sweep, one writer)
    DIR/runs/part-SEQ-K.parquet    rows of finished runs (a run log, compacted)
    DIR/runs/<run_id>.parquet      one row per file (store format 1, read as it is)
    DIR/checksums/part-SEQ-K.parquet.sha256   the SHA-256 of each run table (`storesums`)
    DIR/jobs/<run_id>.parquet      per-job records of a run (only with keep_jobs)
    DIR/damaged/                   damaged files set aside by a sweep (never read)
    DIR/.lock                      held while a sweep writes (a second sweep is refused)

A sweep appends each finished run to its run log as soon as it arrives (one `write`: a
killed process loses nothing that was written) and flushes the log to disk about once a
second (`fsync`, a group commit); when the sweep ends -- and when the next one starts, after
a kill -- run logs are compacted into run tables, written under a temporary name, flushed and
renamed.  A run recorded twice (a failed run run again, a crash between writing a table and
deleting its log) is read once: the most recent record wins (files are numbered in the order
they were written).  Every file checks itself on reading (`storefmt`; run tables against
their recorded SHA-256 too, `storesums`), so damage is reported by file name instead of being
read.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ckptsim.errors import CkptsimError
from ckptsim.experiments import storefmt as fmt
from ckptsim.experiments import storesums as sums
from ckptsim.experiments.current import as_current
from ckptsim.experiments.storefmt import STORE_FORMAT, Damaged, Entry, JobsRef

_TMP = ".tmp-"
_PART = re.compile(r"part-(\d+)-(\d+)\.parquet$")
_LOG = re.compile(r"(\d+)\.log$")
_SINGLE = re.compile(r"([0-9a-f]{64})\.parquet$")


class StoreError(CkptsimError):
    """A results store cannot be used as asked (missing, locked, or with damaged files)."""


@dataclass(frozen=True)
class Source:
    """A file of the store that holds rows, with its place in the order of writing."""

    path: Path
    kind: str  # "single" (format 1), "log" or "part"
    seq: int

    @property
    def order(self) -> tuple[int, int, str]:
        return (self.seq, ("single", "log", "part").index(self.kind), self.path.name)


@dataclass
class Contents:
    """What a store holds: the valid rows by run id, and the files that could not be read."""

    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    corrupt: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)
    jobs: dict[str, JobsRef | None] = field(default_factory=dict)  # recorded per-job files
    bad_jobs: dict[str, tuple[str, str]] = field(default_factory=dict)  # run -> (file, why)
    sources: list[Source] = field(default_factory=list)
    damaged: list[Source] = field(default_factory=list)
    origin: dict[str, Source] = field(default_factory=dict)  # run -> where its row is
    torn: int = 0  # run logs ending in an unfinished record (runs that were in flight)
    unchecked: list[str] = field(default_factory=list)  # run tables without a SHA-256

    def jobs_ok(self, run_id: str) -> bool:
        """Does the run have an intact per-job file?"""
        return run_id in self.jobs and run_id not in self.bad_jobs and (
            self.jobs[run_id] is not None or self.origin[run_id].kind == "single")


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


class Store:
    """A results store folder (see the module docstring for the layout)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.runs_dir = self.root / "runs"
        self.jobs_dir = self.root / "jobs"
        self.log_dir = self.root / "log"
        self.damaged_dir = self.root / "damaged"

    # --- writing --------------------------------------------------------------------------
    def prepare(self, spec_text: str, manifest: dict[str, Any]) -> None:
        """Create the folders, copy the spec and record the run matrix of this sweep."""
        for folder in (self.runs_dir, self.jobs_dir, self.log_dir):
            folder.mkdir(parents=True, exist_ok=True)
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
        for folder in (self.runs_dir, self.jobs_dir, self.log_dir, self.root,
                       self.root / sums.SUMS):
            if folder.is_dir():
                for entry in os.scandir(folder):
                    if entry.name.startswith(_TMP):
                        with contextlib.suppress(OSError):
                            os.unlink(entry.path)
                            n += 1
        return n

    def next_seq(self) -> int:
        """A number above every run table's and run log's: the next file is the newest."""
        return 1 + max((s.seq for s in self.sources()), default=0)

    def compact(self) -> list[tuple[str, str]]:
        """Move the rows of run logs and single-run files into run tables, then delete them;
        set damaged files aside in DIR/damaged.  Returns the damaged files (file, reason).

        Safe at any moment of a crash: a table is complete before any file it replaces is
        deleted, and it is numbered after them, so a leftover is an older copy of its rows.
        """
        contents = self.read(verify_jobs=False)
        merge = [s for s in contents.sources if s.kind in ("log", "single")]
        sums.prune(self.runs_dir)
        for path in contents.unchecked:  # sound by their own checks: record their SHA-256
            with contextlib.suppress(FileNotFoundError):
                sums.record(Path(path))
        if not merge and not contents.damaged:
            return []
        entries = []
        for run_id, src in contents.origin.items():
            if src.kind == "log":
                entries.append(Entry(contents.rows[run_id], contents.jobs.get(run_id)))
            elif src.kind == "single":
                entries.append(Entry(contents.rows[run_id], self._legacy_jobs(run_id)))
        if entries:
            seq = self.next_seq()
            for k, table in enumerate(fmt.tables_of(entries)):
                sums.write_table(table, self.runs_dir / f"part-{seq:06d}-{k}.parquet")
        damaged_paths = {s.path for s in contents.damaged}
        for src in contents.damaged:
            self.damaged_dir.mkdir(exist_ok=True)
            target = self.damaged_dir / src.path.name
            if target.exists():
                target = target.with_name(f"{target.name}.{uuid.uuid4().hex[:8]}")
            with contextlib.suppress(FileNotFoundError):
                os.replace(src.path, target)
            sums.forget(src.path)
        for src in merge:
            if src.path not in damaged_paths:
                with contextlib.suppress(FileNotFoundError):
                    src.path.unlink()
        for folder in (self.runs_dir, self.log_dir, self.damaged_dir, self.root / sums.SUMS):
            fsync_dir(folder)
        return contents.corrupt

    def _legacy_jobs(self, run_id: str) -> JobsRef | None:
        """The reference of a format-1 run's per-job file, when it has an intact one."""
        path = self.jobs_dir / f"{run_id}.parquet"
        if not path.is_file():
            return None
        try:
            fmt.check_jobs(str(path), None, {})
            data = path.read_bytes()
        except (Damaged, OSError):
            return None
        return (len(data), fmt.crc(data))

    # --- reading --------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.runs_dir.is_dir()

    def sources(self) -> list[Source]:
        """The files that hold rows, oldest first."""
        out = []
        if self.runs_dir.is_dir():
            for e in os.scandir(self.runs_dir):
                if m := _PART.fullmatch(e.name):
                    out.append(Source(Path(e.path), "part", int(m.group(1))))
                elif _SINGLE.fullmatch(e.name):
                    out.append(Source(Path(e.path), "single", 0))
        if self.log_dir.is_dir():
            for e in os.scandir(self.log_dir):
                if m := _LOG.fullmatch(e.name):
                    out.append(Source(Path(e.path), "log", int(m.group(1))))
        return sorted(out, key=lambda s: s.order)

    def read(self, *, verify_jobs: bool = True) -> Contents:
        """Every valid row, and the files that are damaged (never read silently).

        A file that disappears while it is read (a concurrent sweep compacted it) makes the
        read start over, so a reader never misses rows that are being moved.
        """
        for _ in range(20):
            try:
                contents = self._read_once()
                break
            except FileNotFoundError:
                continue
        else:
            raise StoreError(f"{self.root}: files keep changing while being read; retry")
        if verify_jobs:
            self._verify_jobs(contents)
        return contents

    def _read_once(self) -> Contents:
        out = Contents()
        out.sources = self.sources()
        for src in out.sources:
            try:
                entries = self._entries(src, out)
            except Damaged as exc:
                out.corrupt.append((str(src.path), str(exc)))
                out.damaged.append(src)
                continue
            for e in entries:
                run_id = e.row["run_id"]
                out.rows[run_id] = e.row
                out.jobs[run_id] = e.jobs
                out.origin[run_id] = src
        return out

    def _entries(self, src: Source, out: Contents) -> list[Entry]:
        if src.kind == "part":
            entries, checked = sums.read_table(src.path)
            if not checked:
                out.unchecked.append(str(src.path))
            return entries
        if src.kind == "single":
            return [fmt.read_single(str(src.path), src.path.stem)]
        with open(src.path, "rb") as f:
            data = f.read()
        entries, damage, torn = fmt.read_log(data)
        out.torn += torn
        if damage is not None:
            out.corrupt.append((str(src.path), damage))
            out.damaged.append(src)
        return entries

    def _verify_jobs(self, contents: Contents) -> None:
        for run_id, row in contents.rows.items():
            ref = contents.jobs.get(run_id)
            path = self.jobs_dir / f"{run_id}.parquet"
            if row["status"] != "ok" or (ref is None and (
                    contents.origin[run_id].kind != "single" or not path.is_file())):
                continue
            try:
                fmt.check_jobs(str(path), ref, row)
            except Damaged as exc:
                contents.bad_jobs[run_id] = (str(path), str(exc))

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
            raise ManifestUnreadable(f"{path}: unreadable ({exc}); rerun the sweep to rewrite "
                                     "it (the runs are in runs/, not in this file)") from None
        fmt_version = str(doc.get("store_format", "1"))
        if fmt_version not in (fmt.LEGACY_FORMAT, STORE_FORMAT):
            raise StoreError(f"{self.root}: written by another ckptsim version (store format "
                             f"{fmt_version}; this one reads formats 1 and {STORE_FORMAT}); "
                             "use that version, or sweep into a new --out")
        return doc

    def spec_text(self) -> str | None:
        path = self.root / "spec.toml"
        return path.read_text(encoding="utf-8") if path.is_file() else None


class ManifestUnreadable(StoreError):
    """`sweep.json` cannot be read: a sweep rewrites it (it holds no run)."""


@dataclass
class Loaded:
    """The rows of a store in matrix order, its manifest, and its damaged per-job files."""

    rows: list[dict[str, Any]]
    manifest: dict[str, Any]
    damaged_jobs: list[tuple[str, str]]
    unchecked: list[str] = field(default_factory=list)  # run tables without a SHA-256
    damaged_runs: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)


def load_store(root: str | Path, *, all_runs: bool = False,
               keep_damaged: bool = False) -> Loaded:
    """The rows of a store in matrix order (see `load_results`), and the per-job files that
    are damaged or missing (the rows are sound; a sweep recomputes those runs).

    `keep_damaged`: damaged run files are listed in `damaged_runs` (file, reason) and the
    readable rows returned, instead of raising.

    Raises:
        StoreError: the folder is not a store, or holds damaged run files (named), unless
            `keep_damaged`.
    """
    store = Store(root)
    if not store.exists():
        inner = Path(root) / "store"
        if Store(inner).exists():  # a `ckptsim paper NAME FIG --out DIR` folder
            raise StoreError(f"{root}: not a results store (no runs/ folder), but a paper's "
                             f"folder: its runs are in the store {inner}")
        raise StoreError(f"{root}: not a results store (no runs/ folder); run `ckptsim sweep "
                         "SPEC --out DIR` first")
    manifest = store.manifest() or {}
    contents = store.read()
    if contents.corrupt and not keep_damaged:
        listed = "\n".join(f"  - {f}: {why}" for f, why in contents.corrupt)
        raise StoreError(f"{root}: {len(contents.corrupt)} damaged run file(s):\n{listed}\n"
                         "rerun the sweep to recompute their runs (it sets damaged files "
                         "aside in DIR/damaged)")
    order = manifest.get("runs", [])
    if all_runs or not order:
        rank = {rid: i for i, rid in enumerate(order)}
        ids = sorted(contents.rows, key=lambda r: (rank.get(r, len(rank)), r))
    else:
        ids = [r for r in order if r in contents.rows]
    bad = [contents.bad_jobs[r] for r in ids if r in contents.bad_jobs]
    # Under the names and input columns the latest spec gives its runs.
    rows = as_current([contents.rows[r] for r in ids], manifest)
    return Loaded(rows, manifest, bad, contents.unchecked,
                  [(str(f), why) for f, why in contents.corrupt])


def load_results(root: str | Path, *, all_runs: bool = False) -> tuple[list[dict[str, Any]],
                                                                         dict[str, Any]]:
    """The rows of a store in matrix order, and its manifest.

    Only the runs of the latest sweep's matrix are returned unless `all_runs` (a store keeps
    the rows of earlier versions of a spec too).

    Raises:
        StoreError: the folder is not a store, or holds damaged run files (named in the
            message).
    """
    loaded = load_store(root, all_runs=all_runs)
    return loaded.rows, loaded.manifest
