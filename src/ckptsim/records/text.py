"""Numbers to text, a whole column at a time.

A column of n values becomes a (width, n) matrix of ASCII bytes: column j holds value j,
right-aligned and padded with spaces (the transposed layout keeps every write of a digit
position contiguous).  `join_rows` puts such matrices side by side as lines with separators and
drops the padding in one pass.  The text of every value is exactly what `str` (integers) or
`repr` (floats) gives, so files are byte-identical to formatting value by value, but integers
cost a few numpy operations per digit position instead of a Python call per value.
"""

from __future__ import annotations

import math

import numpy as np

SPACE = 32
_POW10 = np.array([10**k for k in range(1, 20)], dtype=np.uint64)


def int_text(values: np.ndarray) -> np.ndarray:
    """Integers (any integer dtype) as right-aligned decimal text: str(v) for every v."""
    v = np.asarray(values).astype(np.int64, copy=False)
    n = v.size
    if n == 0:
        return np.empty((1, 0), np.uint8)
    neg = v < 0
    any_neg = bool(neg.any())
    if any_neg and int(v.min()) == -(2**63):
        # abs() of the smallest int64 overflows: rare enough to format value by value.
        return strings_text([str(x) for x in v.tolist()])
    mag = np.abs(v).astype(np.uint64) if any_neg else v.astype(np.uint64)
    top = int(mag.max())
    n_digits = len(str(top))
    width = n_digits + any_neg
    text = np.empty((width, n), np.uint8)
    rest = mag.astype(np.uint32) if top < 2**32 else mag
    for k in range(n_digits):
        q = rest // 10  # division by a constant is fast in numpy, % is not
        text[width - 1 - k] = rest - q * 10
        rest = q
    text += 48
    # Digits of each value: 1 + how many of 10, 100, ... it reaches.
    length = np.searchsorted(_POW10[:n_digits - 1], mag, side="right") + 1
    first = width - length  # row of the leading digit
    if any_neg:
        first -= neg
    np.putmask(text, np.arange(width)[:, None] < first[None, :], SPACE)
    if any_neg:
        cols = np.flatnonzero(neg)
        text[first[cols], cols] = 45  # '-'
    return text


def strings_text(strings: list[str], width: int = 0) -> np.ndarray:
    """ASCII strings without spaces, right-aligned in at least `width` characters."""
    n = len(strings)
    if n == 0:
        return np.empty((max(width, 1), 0), np.uint8)
    width = max(width, 1, max(map(len, strings)))
    block = "".join([s.rjust(width) for s in strings]).encode("ascii")
    return np.frombuffer(block, dtype=np.uint8).reshape(n, width).T


def labels_text(strings: list[str], distinct: list[str] | None = None) -> np.ndarray:
    """Like `strings_text`, faster for a column of few distinct values (e.g. statuses)."""
    if distinct is None:
        distinct = sorted(set(strings))
    if len(distinct) > 256:
        return strings_text(strings)
    index = {s: i for i, s in enumerate(distinct)}
    rows = np.fromiter(map(index.__getitem__, strings), np.intp, len(strings))
    return strings_text(distinct)[:, rows]


def float_repr_text(values: np.ndarray, nan: str = "") -> np.ndarray:
    """Floats as repr(v) (an infinite value as `inf` / `-inf`), NaN as `nan` (default nothing:
    all padding)."""
    arr = np.asarray(values, dtype=np.float64)
    n = arr.size
    # Whole numbers below 1e16 are repr'd as their integer and ".0" (not -0.0, which keeps
    # its sign): those are done as integers, the others by repr.
    with np.errstate(invalid="ignore"):
        whole = (arr == np.trunc(arr)) & (np.abs(arr) < 1e16) & ~((arr == 0) & np.signbit(arr))
    rest = np.flatnonzero(~whole)
    others = arr[rest]
    if np.isfinite(others).all():
        strings = list(map(repr, others.tolist()))
    else:
        strings = [nan if math.isnan(x) else repr(x) for x in others.tolist()]
    digits = int_text(np.where(whole, arr, 0.0).astype(np.int64))
    width = max(digits.shape[0] + 2, max(map(len, strings), default=0))
    text = np.full((width, n), SPACE, np.uint8)
    text[width - 2 - digits.shape[0]:width - 2] = digits
    text[width - 2] = 46  # '.'
    text[width - 1] = 48  # '0'
    if len(rest):
        text[:, rest] = strings_text(strings, width)
    return text


def seconds_text(values: np.ndarray) -> np.ndarray:
    """Numbers of seconds as `ckptsim.values.number_text` writes them: a whole number as its
    integer (``2409``; -0.0 as ``0``), any other as repr(v) (``0.5``, ``inf``, ``nan``)."""
    arr = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        whole = (arr == np.trunc(arr)) & (np.abs(arr) < 2.0**62)
    if whole.all():
        return int_text(arr.astype(np.int64))
    from ckptsim.values import number_text

    rest = np.flatnonzero(~whole)
    strings = list(map(number_text, arr[rest].tolist()))
    digits = int_text(np.where(whole, arr, 0.0).astype(np.int64))
    width = max(digits.shape[0], max(map(len, strings)))
    text = np.full((width, arr.size), SPACE, np.uint8)
    text[width - digits.shape[0]:] = digits
    text[:, rest] = strings_text(strings, width)
    return text


def join_rows(columns: list[np.ndarray], sep: int = 44) -> bytes:
    """Text matrices of the same number of values as lines: `sep` between the values, a
    newline after the last, padding dropped.  A matrix may be one value wide, (width, 1), for a
    column of one value on every line."""
    n = max(c.shape[1] for c in columns)
    width = sum(c.shape[0] for c in columns) + len(columns)
    lines = np.full((width, n), sep, dtype=np.uint8)
    pos = 0
    for text in columns:
        lines[pos:pos + text.shape[0]] = text
        pos += text.shape[0] + 1
    lines[-1] = 10
    return lines.T.tobytes().translate(None, b" ")
