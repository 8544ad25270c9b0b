"""Writing the Standard Workload Format: `write_swf` (also importable from
`ckptsim.workload.swf`, which reads it back exactly)."""

from __future__ import annotations

import gzip
import re
from os import PathLike

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.workload.model import SWF_FIELDS

__all__ = ["write_swf"]

N_FIELDS = len(SWF_FIELDS)
_VALID_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def write_swf(
    path: str | PathLike[str],
    fields: np.ndarray,
    header: dict[str, str] | None = None,
    comments: list[str] | None = None,
) -> None:
    """Write an (n, 18) array of SWF fields as an SWF file (gzip if the name ends in `.gz`, in
    any case).

    The header comes first as `; Key: value` lines (a multi-line value becomes one line per
    value line, which `read_swf` joins back), then a `;` separator and the free `comments`
    (`; text`), then one line per row.  Whole numbers are written as integers and other values
    as `repr(float)`, the shortest text that reads back as the same float, so that `read_swf`
    recovers the array exactly.  A comment of the form `Key: value` reads back as a header
    entry.  Gzip output has a zero timestamp, so the same input gives byte-identical files.

    Raises:
        WorkloadError: `fields` is not (n, 18), holds NaN/infinite values, or the file cannot
            be written.
        ConfigError: a header key is not a word (letters, digits, underscores).
    """
    where = str(path)
    arr = np.asarray(fields, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != N_FIELDS:
        raise WorkloadError(f"fields must have shape (n, {N_FIELDS}), got {arr.shape}",
                            path=where)
    if not np.all(np.isfinite(arr)):
        raise WorkloadError("fields hold NaN or infinite values, which SWF cannot represent",
                            path=where)
    lines: list[str] = []
    for key, value in (header or {}).items():
        if not _VALID_KEY.fullmatch(str(key)):
            raise ConfigError("header", f"key {key!r} is not a valid SWF header key "
                              "(letters, digits and underscores, starting with a letter)")
        for part in str(value).split("\n"):
            lines.append(f"; {key}: {part.strip()}".rstrip())
    if comments:
        if lines:
            lines.append(";")  # keeps indented comments from continuing the last header value
        for comment in comments:
            for part in str(comment).split("\n"):
                lines.append(f"; {part}".rstrip())
    parts: list[bytes | memoryview] = ["".join(line + "\n" for line in lines).encode("utf-8"),
                                       _format_rows(arr)]
    if where.lower().endswith(".gz"):  # .GZ too, as `convert` and the JSON writer take it
        # level 1: four times faster than the default for a slightly larger file
        parts = [gzip.compress(parts[0] + parts[1], compresslevel=1, mtime=0)]
    try:
        with open(path, "wb") as fh:  # header and rows written as they are, without a copy
            for part in parts:
                fh.write(part)
    except OSError as exc:
        raise WorkloadError(f"cannot write the file: {exc.strerror or exc}",
                            path=where) from None


def _format_rows(arr: np.ndarray) -> bytes | memoryview:
    """The data lines: columns right-aligned to their widest value, as in the archive's files.

    The text is assembled as one (rows, line length) byte matrix, column by column, so the
    cost is a few numpy operations per digit position instead of a Python call per value.
    """
    n = arr.shape[0]
    if n == 0:
        return b""
    # beyond 2**53 not every integer is a float, so such values keep the float notation;
    # 2**53 itself, the largest job number the readers take, is an integer (one temporary
    # array for both tests: the largest allocations of the writer)
    tmp = np.trunc(arr)
    integral = arr == tmp
    np.abs(arr, out=tmp)
    integral &= tmp <= 2.0**53
    del tmp
    columns = [_column_text(arr[:, j], integral[:, j]) for j in range(N_FIELDS)]
    width = sum(c.shape[1] for c in columns) + N_FIELDS  # a space after each, \n after the last
    lines = np.full((n, width), 32, dtype=np.uint8)
    pos = 0
    for text in columns:
        lines[:, pos:pos + text.shape[1]] = text
        pos += text.shape[1] + 1
    lines[:, -1] = 10
    return memoryview(lines).cast("B")


def _column_text(col: np.ndarray, whole: np.ndarray) -> np.ndarray:
    """One column as a right-aligned (rows, width) ASCII matrix: whole numbers as integers,
    others as repr(float), the shortest text that reads back as the same float."""
    text = _int_text(np.where(whole, col, 0.0).astype(np.int64))
    if whole.all():
        return text
    rows = np.flatnonzero(~whole)
    strings = [repr(v) for v in col[rows].tolist()]
    width = max(text.shape[1], max(map(len, strings)))
    if width > text.shape[1]:
        text = np.concatenate([np.full((text.shape[0], width - text.shape[1]), 32, np.uint8),
                               text], axis=1)
    block = "".join(s.rjust(width) for s in strings).encode("ascii")
    text[rows] = np.frombuffer(block, dtype=np.uint8).reshape(-1, width)
    return text


def _int_text(values: np.ndarray) -> np.ndarray:
    """Integers as a right-aligned (rows, width) ASCII matrix."""
    negative = values < 0
    rest = np.abs(values)
    n_digits = len(str(int(rest.max())))
    width = n_digits + int(negative.any())
    text = np.full((values.size, width), 32, dtype=np.uint8)
    length = np.ones(values.size, dtype=np.int64)  # digits of each value
    if n_digits <= 9:
        rest = rest.astype(np.uint32)  # faster arithmetic
    for k in range(n_digits):
        q = rest // 10  # division by a constant is fast in numpy, divmod and % are not
        present = (rest - q * 10).astype(np.uint8) + np.uint8(48)
        if k:
            shown = rest > 0  # the value has a digit here
            length += shown
            present[~shown] = 32
        text[:, width - 1 - k] = present
        rest = q
    rows = np.flatnonzero(negative)
    text[rows, width - 1 - length[rows]] = 45  # '-'
    return text
