"""The numbers of SWF data lines, parsed by numpy: the vectorised tokenizer of `read_swf`.

`parse_numbers` turns a block of whole data lines into their values, eight bytes of a token at
a time (SWAR: "SIMD within a register" on 64-bit words); `parse_number` is the SWF number
grammar for one token, used for the rare tokens the vectorised path does not evaluate and by
the line-by-line parser of `ckptsim.workload.swf`, so both parsers accept the same numbers.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ckptsim.workload.model import SWF_FIELDS

__all__ = ["parse_number", "parse_numbers"]

N_FIELDS = len(SWF_FIELDS)

#: A number as the SWF allows it: an optional sign, digits with an optional decimal point, and an
#: optional exponent.  Spelled out because float() also accepts "nan", "inf" and "1_000", which
#: are not SWF numbers.
_NUMBER = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

#: Most digits a decimal number may have for the vectorised parser: below 2**53 the digits form
#: an exact float64 integer, so one division by a power of ten is correctly rounded and gives
#: exactly what float() gives.  Longer numbers are parsed one by one with float().
_MAX_FAST_DIGITS = 15
_PAD = 16  # blank bytes before a block, so that every token has 16 readable bytes up to its end
_ASCII_ZEROS = np.uint64(0x3030303030303030)
_ADD_118 = np.uint64(0x7676767676767676)  # a byte > 9 plus 118 has its high bit set
_HIGH_BITS = np.uint64(0x8080808080808080)
#: _KEEP[n] keeps the last n bytes of a little-endian 8-byte word (the highest addresses)
_KEEP = np.array([0] + [((1 << 64) - 1) ^ ((1 << (8 * (8 - n))) - 1) for n in range(1, 9)],
                 dtype=np.uint64)
_POW10_UINT = 10 ** np.arange(17, dtype=np.uint64)
#: (shift, factor, mask) of the three SWAR steps: digit pairs, then quads, then all eight
_SWAR_STEPS = tuple((np.uint64(s), np.uint64(f), np.uint64(m)) for s, f, m in (
    (8, 10, 0x00FF00FF00FF00FF), (16, 100, 0x0000FFFF0000FFFF), (32, 10000, 0x00000000FFFFFFFF)))
_POW10_FLOAT = 10.0 ** np.arange(17)
_SIGN = np.array([1.0, -1.0])


def parse_numbers(chunk: bytes) -> np.ndarray | None:
    """The numbers of a run of whole lines, in order, or None when a non-blank line does not
    hold exactly 18 tokens or a token is not a finite SWF number.

    Tokens are runs of non-whitespace bytes.  The common ones -- an optional '-' then up to 16
    digits, or up to 15 digits with one decimal point -- are evaluated eight bytes at a time:
    the eight bytes that end a token are read as one 64-bit word, checked to be digits and
    combined into their decimal value with three multiply-and-shift steps.  This needs a few
    arrays of one word per token; a per-character method needs several arrays of eight bytes
    per character, and memory traffic costs more than the arithmetic.  A number with a decimal
    point is (integer part * 10**f + fraction digits) / 10**f: exact integers divided once,
    hence the correctly rounded value, identical to float().  Every other token is checked
    against the SWF number grammar and evaluated with float().
    """
    n = len(chunk)
    if n == 0:
        return np.empty(0)
    buf = np.empty(n + _PAD, dtype=np.uint8)
    buf[:_PAD] = 32
    buf[_PAD:] = np.frombuffer(chunk, dtype=np.uint8)
    u = buf[_PAD:]

    # token edges; whitespace as bytes.split() sees it: space and \t \n \v \f \r (9..13)
    padded = np.zeros(n + 2, dtype=np.int8)
    nonws = padded[1:-1].view(np.bool_)
    np.greater_equal(u - np.uint8(9), 5, out=nonws)
    nonws &= u != 32
    edge = np.diff(padded)
    starts = np.flatnonzero(edge > 0)
    ends = np.flatnonzero(edge < 0)
    ntok = starts.size

    # every non-blank line must hold exactly 18 tokens
    bounds = np.flatnonzero(u == 10)
    if u[-1] != 10:
        bounds = np.append(bounds, n)
    per_line = np.diff(np.searchsorted(starts, bounds), prepend=0)
    if ntok % N_FIELDS or np.any((per_line != 0) & (per_line != N_FIELDS)):
        return None
    if ntok == 0:
        return np.empty(0)

    # words[i] = the 8 bytes of buf from i on (an overlapping, unaligned view; no copy)
    words = np.ndarray(shape=(buf.size - 7,), dtype="<u8", buffer=buf, strides=(1,))
    neg = np.take(u, starts) == 45  # '-'
    length = ends - starts - neg
    ints, ok = _parse_digits(words, ends + _PAD, np.minimum(length, 16))
    ok &= length > 0
    ok &= length <= 16
    values = ints.astype(np.float64)
    if not ok.all() and b"." in chunk:
        _parse_decimals(u, words, starts, ends, neg, values, ok)
    values *= _SIGN[neg.view(np.uint8)]  # faster than np.negative(..., where=neg)

    for k in np.flatnonzero(~ok).tolist():
        value = parse_number(chunk[starts[k]:ends[k]])
        if value is None:
            return None
        values[k] = value
    return values


def _word_digits(word: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Value of the last `count` (0..8) bytes of each word read as decimal digits, and whether
    they all are digits.

    The first character is the word's lowest byte; the classic SWAR steps combine neighbouring
    digits into pairs, the pairs into quads and the quads into the value.
    """
    x = word ^ _ASCII_ZEROS
    x &= _KEEP[count]
    t = x + _ADD_118
    t |= x
    t &= _HIGH_BITS
    ok = t == 0
    for shift, factor, mask in _SWAR_STEPS:
        np.right_shift(x, shift, out=t)
        x *= factor
        x += t
        x &= mask
    return x, ok


def _parse_digits(words: np.ndarray, end: np.ndarray,
                  count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Value of the `count` (0..16) bytes before each `end` (an index into the padded block)
    read as decimal digits, and whether they all are digits."""
    value, ok = _word_digits(words[end - 8], np.minimum(count, 8))
    long_ = np.flatnonzero(count > 8)
    if long_.size:
        high, high_ok = _word_digits(words[end[long_] - 16], count[long_] - 8)
        value[long_] += high * _POW10_UINT[8]
        ok[long_] &= high_ok
    return value, ok


def _parse_decimals(u: np.ndarray, words: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                    neg: np.ndarray, values: np.ndarray, ok: np.ndarray) -> None:
    """Evaluate the tokens with one decimal point and at most 15 digits (in place)."""
    dots = np.flatnonzero(u == 46)
    tok = np.searchsorted(starts, dots, side="right") - 1
    single = np.ones(tok.size, dtype=bool)  # tok is sorted: a repeat means a second point
    single[1:] &= tok[1:] != tok[:-1]
    single[:-1] &= tok[:-1] != tok[1:]
    tok, dots = tok[single], dots[single]
    int_len = dots - starts[tok] - neg[tok]
    frac_len = ends[tok] - dots - 1
    total = int_len + frac_len
    usable = (total >= 1) & (total <= _MAX_FAST_DIGITS)
    tok, dots = tok[usable], dots[usable]
    int_len, frac_len = int_len[usable], frac_len[usable]
    whole, whole_ok = _parse_digits(words, dots + _PAD, int_len)
    frac, frac_ok = _parse_digits(words, ends[tok] + _PAD, frac_len)
    good = whole_ok & frac_ok
    mantissa = whole * _POW10_UINT[frac_len] + frac
    tok = tok[good]
    values[tok] = mantissa[good].astype(np.float64) / _POW10_FLOAT[frac_len[good]]
    ok[tok] = True


def parse_number(token: bytes) -> float | None:
    """The token's value if it is a finite SWF number, else None."""
    if _NUMBER.fullmatch(token) is None:
        return None
    value = float(token)
    return value if math.isfinite(value) else None  # 1e999 is inf
