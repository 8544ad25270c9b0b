"""A disk cache of parsed SWF traces, shared by every process of every sweep on one machine.

A sweep's workers each parse the traces their runs use (HPC2N's 202,871 jobs: about 0.2 s of
CPU each time).  `read_swf_cached` keeps the parsed columns in an uncompressed ``.npz`` file
whose name is the SHA-256 of the trace file's bytes, the loader's options, the path as given
(the workload records it) and the cache format, so that a worker, a second sweep or a later
command reads them back in a few milliseconds, and a changed trace, other options or another
version of the reader can never be served a stale entry.

- Where: ``$CKPTSIM_TRACE_CACHE`` if set (``off`` disables the cache), else
  ``$XDG_CACHE_HOME/ckptsim/traces`` (``~/.cache/ckptsim/traces``).  Delete the folder to
  reclaim the space (an entry is about 184 bytes a job).
- Safe when processes share it: an entry is written to a temporary file in the same folder and
  renamed into place, so a reader sees a whole entry or none; two processes filling one entry
  at once write the same bytes and the later rename wins.
- A damaged entry (a truncated or corrupted file: the zip's CRC, a missing column, another
  format) is discarded and the trace parsed again; a cache that cannot be written (a read-only
  folder, a full disk) leaves the result as it is, without it.
- No pickles: arrays are loaded with ``allow_pickle=False`` and the rest is JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.workload.model import Workload

#: The cache format (part of every key): bump it when the reader or the entry changes.
FORMAT = 1
_ARRAYS = ("job_id", "submit", "runtime", "estimate", "size", "fields")


def cache_dir() -> Path | None:
    """The cache folder, or None when the cache is off (``CKPTSIM_TRACE_CACHE=off``)."""
    given = os.environ.get("CKPTSIM_TRACE_CACHE")
    if given is not None:
        return None if given.strip().lower() in ("off", "0", "no", "false", "") else Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ckptsim" / "traces"


def entry_key(path: str, options: dict[str, Any]) -> str:
    """The entry's name: the SHA-256 of the file's bytes, the options, the path as given and
    the cache format."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    meta = json.dumps({"file": digest.hexdigest(), "options": options, "path": str(path),
                       "format": FORMAT}, sort_keys=True)
    return hashlib.sha256(meta.encode()).hexdigest()


def _save(w: Workload, target: Path) -> None:
    meta = {"machine_size": w.machine_size, "header": w.header, "source": w.source,
            "counts": w.counts, "transforms": list(w.transforms), "generator": w.generator,
            "format": FORMAT}
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
                     **{name: getattr(w, name) for name in _ARRAYS})
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _load(target: Path) -> Workload:
    with np.load(target, allow_pickle=False) as npz:
        meta = json.loads(npz["meta"].tobytes().decode())
        if meta.get("format") != FORMAT:
            raise ValueError(f"cache format {meta.get('format')}, expected {FORMAT}")
        arrays = {name: npz[name] for name in _ARRAYS}
    return Workload(**arrays, machine_size=int(meta["machine_size"]), header=meta["header"],
                    source=meta["source"], counts=meta["counts"],
                    transforms=tuple(meta["transforms"]), generator=meta.get("generator"))


def read_swf_cached(path: str, **options: Any) -> Workload:
    """`read_swf(path, **options)`, through the cache when it is on."""
    from ckptsim.workload.swf import read_swf

    folder = cache_dir()
    if folder is None:
        return read_swf(path, **options)
    try:
        target = folder / f"{entry_key(path, options)}.npz"
    except OSError:
        return read_swf(path, **options)  # the trace's own error, from the reader
    if target.is_file():
        try:
            return _load(target)
        except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
            target.unlink(missing_ok=True)  # damaged: parse again and replace it
    w = read_swf(path, **options)
    try:
        _save(w, target)
    except OSError:
        pass  # a cache that cannot be written only costs the parse next time
    return w
