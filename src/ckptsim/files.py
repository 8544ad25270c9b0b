"""Reading a user's file whole, gzip-compressed or not, with errors naming the file."""

from __future__ import annotations

import gzip
import zlib
from os import PathLike
from pathlib import Path

from ckptsim.errors import WorkloadError


def read_bytes(path: str | PathLike[str]) -> bytes:
    """The file's bytes, decompressed when they are gzip data; a WorkloadError naming the file
    when it is missing, a folder, unreadable or corrupt gzip."""
    where = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise WorkloadError("file not found", path=where) from None
    except IsADirectoryError:
        raise WorkloadError("is a folder, expected a file", path=where) from None
    except OSError as exc:
        raise WorkloadError(f"cannot read the file: {exc.strerror or exc}", path=where) from None
    if raw.startswith(b"\x1f\x8b"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise WorkloadError(f"gzip data is corrupt or truncated: {exc}", path=where) from None
    return raw


__all__ = ["read_bytes"]
