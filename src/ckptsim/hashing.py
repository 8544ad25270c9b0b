"""The SHA-256 of a file's bytes: what run ids and components' identities hash of the trace,
failure and availability files they read."""

from __future__ import annotations

import hashlib
from pathlib import Path

_HASHES: dict[tuple[str, int, int], str] = {}


def file_sha256(path: str) -> str:
    """The SHA-256 of a file's bytes (cached by path, size and modification time)."""
    st = Path(path).stat()
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in _HASHES:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _HASHES[key] = h.hexdigest()
    return _HASHES[key]


def clear_hashes() -> None:
    """Forget the hashes this process computed: the next `file_sha256` reads the file again."""
    _HASHES.clear()
