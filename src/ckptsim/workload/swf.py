"""Reading and writing the Standard Workload Format (SWF v2.2).

An SWF file has `;` comment lines (the header, `; Key: value`, comes first) and one line per job
with 18 whitespace-separated numeric fields; -1 means "unknown".  `read_swf` turns a file into a
`Workload` and applies the simulator's loader rules, counting every record each rule touches so
that a summary can say what happened to the trace.

Speed matters: a simulation command has a budget of a few seconds and the largest traces have
hundreds of thousands of lines.  Well-formed files are therefore parsed by a vectorised numpy
tokenizer (`_fast_parse`); a file it does not accept is re-read by a line-by-line parser
(`_parse_lines`), which is slower but names the exact line and field of the first problem.  Both
apply the same grammar and checks, so the fast path never accepts a file that the line-by-line
parser would reject.
"""

from __future__ import annotations

import gzip
import math
import operator
import re
import zlib
from collections.abc import Iterable
from os import PathLike
from pathlib import Path

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.workload.model import SWF_FIELDS, SWF_INDEX, Workload

__all__ = ["COUNT_KEYS", "field_label", "parse_header", "read_swf", "write_swf"]

N_FIELDS = len(SWF_FIELDS)

#: Keys of `Workload.counts` set by `read_swf`, in the order the rules are applied.
COUNT_KEYS: tuple[str, ...] = (
    "records",
    "skipped_bad_lines",
    "skipped_negative_runtime",
    "requested_procs_missing",
    "allocated_procs_missing",
    "skipped_nonpositive_size",
    "skipped_too_large",
    "clamped_too_large",
    "requested_time_missing",
    "unsorted_submits",
    "jobs",
)

_OVERSIZE = ("skip", "clamp")
_SIZE_FROM = ("requested", "allocated")

_GZIP_MAGIC = b"\x1f\x8b"

#: A number as the SWF allows it: an optional sign, digits with an optional decimal point, and an
#: optional exponent.  Spelled out because float() also accepts "nan", "inf" and "1_000", which
#: are not SWF numbers.
_NUMBER = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

#: A header line: `;`, at most one space, `Key:`.  Deeper-indented comment lines (a tab or
#: several spaces) continue the value of the key above them, as in the Parallel Workloads
#: Archive logs (e.g. the second URL under `; Information:`).
_HEADER_KEY = re.compile(r"; ?([A-Za-z][A-Za-z0-9_]*):(.*)")
_VALID_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_LEADING_INT = re.compile(r"\s*([0-9]+)")

_I_JOB = SWF_INDEX["job_number"]
_I_SUBMIT = SWF_INDEX["submit_time"]
_I_RUNTIME = SWF_INDEX["run_time"]
_I_ALLOC = SWF_INDEX["allocated_processors"]
_I_REQ_PROCS = SWF_INDEX["requested_processors"]
_I_REQ_TIME = SWF_INDEX["requested_time"]

#: Fields that must hold whole numbers: the job number and the processor counts become integer
#: columns, and silently truncating 2.5 processors would hide a broken trace.
_INTEGRAL_FIELDS = (_I_JOB, _I_ALLOC, _I_REQ_PROCS)

#: Bytes of text parsed at once by the vectorised parser: large
#: enough to amortise numpy's per-call overhead, small enough for the temporaries to stay in
#: the processor caches.
_CHUNK = 1 << 18


def field_label(index: int) -> str:
    """`field_label(3)` -> `"4 (run_time)"`: the 1-based SWF number and the field's name."""
    return f"{index + 1} ({SWF_FIELDS[index]})"


# --------------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------------


def read_swf(
    path: str | PathLike[str],
    *,
    machine_size: int | None = None,
    oversize: str = "skip",
    skip_bad_lines: bool = False,
    size_from: str = "requested",
) -> Workload:
    """Read an SWF trace (plain or gzip-compressed) into a `Workload`.

    Gzip is recognised by its magic bytes, so a compressed file without the `.gz` suffix (or a
    plain one with it) is read correctly.

    Args:
        path: the `.swf` or `.swf.gz` file.
        machine_size: processors of the simulated machine.  Default: the leading integer of the
            header's `MaxProcs`, else of `MaxNodes` (CTC has `338 (batch partition; 512 total)`).
        oversize: what to do with jobs larger than the machine: `"skip"` drops them, `"clamp"`
            shrinks them to the machine size.
        skip_bad_lines: skip (and count) malformed data lines instead of raising.
        size_from: `"requested"` sizes jobs by the requested processors (field 8), falling back
            to the allocated ones (field 5) when unknown; `"allocated"` does the reverse.

    Loader rules, applied in this order; each one's count is in `Workload.counts` (every key of
    `COUNT_KEYS` is present, 0 when the rule never applied):

    - `records`: data lines in the file (comment and blank lines excluded, bad lines included).
    - `skipped_bad_lines`: malformed lines dropped because `skip_bad_lines` is set.
    - `skipped_negative_runtime`: records with a run time < 0 (unknown) are dropped.
    - `requested_procs_missing` / `allocated_procs_missing`: the preferred processor count
      (see `size_from`) is negative, i.e. unknown, so the other one is used.
    - `skipped_nonpositive_size`: records whose size is still <= 0 are dropped.
    - `skipped_too_large` / `clamped_too_large`: size > machine size, per `oversize`.
    - `requested_time_missing`: the requested time is negative (unknown), so the estimate is
      the run time.  Otherwise the estimate is the requested time, even when the job ran
      longer.
    - `unsorted_submits`: kept jobs (in file order) whose submit time is smaller than the
      previous kept job's; when non-zero the jobs are sorted stably by submit time.
    - `jobs`: jobs kept.

    Fallback counts (`*_missing`, `clamped_too_large`) count kept jobs only, and a dropped
    record is counted once, under the first rule that drops it, so `records ==
    skipped_bad_lines + skipped_negative_runtime + skipped_nonpositive_size + skipped_too_large
    + jobs`.  `Workload.fields` holds the 18 fields of the kept jobs exactly as in the file (no
    fallback applied), so that writing them back reproduces the trace.

    Header: every `; Key: value` comment goes into `Workload.header` (value stripped).  Indented
    comment lines that follow a key line continue its value, joined with "\\n"; a key that
    occurs several times (`Note`, `Queue`, `Partition`...) keeps all its values in file order,
    joined with "\\n", so nothing is lost and the first occurrence is the first line.

    Raises:
        WorkloadError: the file is missing or unreadable, a truncated or corrupt gzip stream,
            has no jobs, has a malformed data line (naming the line and the field), or the
            machine size is unknown.
        ConfigError: an option has a value outside the accepted ones.
    """
    _check_choice("oversize", oversize, _OVERSIZE)
    _check_choice("size_from", size_from, _SIZE_FROM)
    if not isinstance(skip_bad_lines, bool):
        raise ConfigError("skip_bad_lines", f"must be true or false, got {skip_bad_lines!r}")
    if machine_size is not None:
        machine_size = _check_machine_size(machine_size)

    where = str(path)
    text = _read_text(path, where)
    fields, comments = _fast_parse(text)
    n_bad = 0
    if fields is None:
        fields, n_bad, comments = _parse_lines(text, where, skip_bad_lines)
    header = parse_header(comments)
    n_records = fields.shape[0] + n_bad
    if n_records == 0:
        raise WorkloadError("no jobs: the file has no data lines", path=where)
    if machine_size is None:
        machine_size = _machine_size_from_header(header, where)
    return _apply_rules(fields, n_records, n_bad, machine_size, oversize, size_from,
                        header, where)


def _check_choice(key: str, value: object, accepted: tuple[str, ...]) -> None:
    if value not in accepted:
        options = ", ".join(repr(a) for a in accepted)
        raise ConfigError(key, f"must be one of {options}, got {value!r}")


def _check_machine_size(value: object) -> int:
    message = f"must be an integer >= 1, got {value!r}"
    if isinstance(value, bool):
        raise ConfigError("machine_size", message)
    try:
        size = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ConfigError("machine_size", message) from None
    if size < 1:
        raise ConfigError("machine_size", message)
    return int(size)


def parse_header(comments: Iterable[bytes | str]) -> dict[str, str]:
    """`; Key: value` comment lines as a dict (see `read_swf` for continuations and repeats)."""
    header: dict[str, list[str]] = {}
    current: str | None = None
    for raw in comments:
        line = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        line = line.strip()
        match = _HEADER_KEY.fullmatch(line)
        if match:
            current = match.group(1)
            header.setdefault(current, []).append(match.group(2).strip())
            continue
        after = line[1:]
        text = after.lstrip()
        indent = after[:len(after) - len(text)]
        if text and current is not None and ("\t" in indent or len(indent) >= 2):
            header[current].append(text)
        else:
            current = None  # a blank or unindented comment ends a multi-line value
    return {key: "\n".join(values) for key, values in header.items()}


def _machine_size_from_header(header: dict[str, str], where: str) -> int:
    for key in ("MaxProcs", "MaxNodes"):
        match = _LEADING_INT.match(header.get(key, ""))
        if match and int(match.group(1)) >= 1:
            return int(match.group(1))
    raise WorkloadError("cannot tell the machine size: the header has no usable MaxProcs or "
                        "MaxNodes; pass machine_size", path=where)


def _read_text(path: str | PathLike[str], where: str) -> bytes:
    """The file's bytes, decompressed when they start with the gzip magic number."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise WorkloadError("file not found", path=where) from None
    except OSError as exc:
        raise WorkloadError(f"cannot read the file: {exc.strerror or exc}", path=where) from None
    if raw.startswith(_GZIP_MAGIC):
        return _gunzip(raw, where)
    return raw


def _gunzip(raw: bytes, where: str) -> bytes:
    """Decompress a (possibly multi-member) gzip file in one go.

    zlib checks each member's CRC and length.  A stream that ends early is reported as a
    truncated file instead of surfacing as EOFError.  One call per member, because
    decompressing in small pieces (even overlapped with parsing on another thread) makes many
    short-lived buffers whose page faults cost more than the overlap saves.
    """
    parts = []
    data = raw
    while True:  # one gzip member per turn
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            parts.append(inflater.decompress(data))
        except zlib.error as exc:
            raise WorkloadError(f"gzip data is corrupt: {exc}", path=where) from None
        if not inflater.eof:
            raise WorkloadError("gzip data is truncated (the file was cut short)", path=where)
        data = inflater.unused_data
        if not data.strip(b"\0"):
            break
        if not data.startswith(_GZIP_MAGIC):
            raise WorkloadError("gzip data is corrupt: unexpected bytes after the compressed "
                                "data", path=where)
    return parts[0] if len(parts) == 1 else b"".join(parts)


# --------------------------------------------------------------------------------------------
# the vectorised parser
# --------------------------------------------------------------------------------------------

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


def _fast_parse(text: bytes) -> tuple[np.ndarray | None, list[bytes]]:
    """Parse SWF text into an (n, 18) float64 array, or None if in any doubt.

    Returns the array and the comment lines.  The text is parsed in blocks of whole lines of
    about `_CHUNK` bytes: small temporaries stay in the processor caches and are reused, where
    whole-file temporaries would cost hundreds of megabytes of fresh memory (page faults are a
    large part of the time on a virtual machine).  For the same reason the values go straight
    into one array sized for the worst case (a token and its separator take at least two
    bytes; the pages never written cost nothing).

    The array is None when a line does not have 18 tokens, a token is not a number, or a value
    breaks a record check, so that the caller can find and report the problem.
    """
    comments: list[bytes] = []
    out = np.empty(len(text) // 2 + N_FIELDS)
    filled = 0
    pos, n = 0, len(text)
    while pos < n:
        cut = text.rfind(b"\n", pos, pos + _CHUNK) + 1
        if cut <= pos:  # no line end in this block: a last line without one, or a long line
            cut = text.find(b"\n", pos + _CHUNK) + 1 or n
        values = _parse_block(text[pos:cut], comments)
        if values is None:
            return None, comments
        out[filled:filled + values.size] = values
        filled += values.size
        pos = cut
    fields = out[:filled].reshape(-1, N_FIELDS)
    if not _records_valid(fields):
        return None, comments
    return fields, comments


def _parse_block(block: bytes, comments: list[bytes]) -> np.ndarray | None:
    """`_parse_chunk` of a block of whole lines, after moving its comment lines to `comments`."""
    if b";" in block:
        lines = []
        for line in block.split(b"\n"):
            if line.lstrip().startswith(b";"):
                comments.append(line.strip())
            else:
                lines.append(line)
        block = b"\n".join(lines)
    return _parse_chunk(block)


def _parse_chunk(chunk: bytes) -> np.ndarray | None:
    """The numbers of a run of whole lines, in order, or None (see `_fast_parse`).

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
        value = _parse_number(chunk[starts[k]:ends[k]])
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


def _parse_number(token: bytes) -> float | None:
    """The token's value if it is a finite SWF number, else None."""
    if _NUMBER.fullmatch(token) is None:
        return None
    value = float(token)
    return value if math.isfinite(value) else None  # 1e999 is inf


def _records_valid(fields: np.ndarray) -> bool:
    """The record checks of `_parse_record`, on all rows at once."""
    if np.any((fields[:, _I_SUBMIT] < 0) & (fields[:, _I_RUNTIME] >= 0)):
        return False
    ints = fields[:, _INTEGRAL_FIELDS]
    return bool(np.all(ints == np.trunc(ints)))


# --------------------------------------------------------------------------------------------
# the line-by-line parser (exact error locations)
# --------------------------------------------------------------------------------------------


def _parse_lines(data: bytes, where: str,
                 skip_bad_lines: bool) -> tuple[np.ndarray, int, list[bytes]]:
    """Parse every line, raising on (or counting) the malformed data lines.

    Returns the well-formed records, the number of skipped lines and the comment lines.
    """
    rows: list[list[float]] = []
    comments: list[bytes] = []
    n_bad = 0
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(b";"):
            comments.append(stripped)
            continue
        try:
            rows.append(_parse_record(stripped, where, lineno))
        except WorkloadError:
            if not skip_bad_lines:
                raise
            n_bad += 1
    fields = np.array(rows, dtype=np.float64).reshape(-1, N_FIELDS)
    return fields, n_bad, comments


def _parse_record(line: bytes, where: str, lineno: int) -> list[float]:
    tokens = line.split()
    if len(tokens) < N_FIELDS:
        raise WorkloadError(f"{len(tokens)} fields found, {N_FIELDS} expected: the line ends "
                            "before this field", path=where, line=lineno,
                            field=field_label(len(tokens)))
    if len(tokens) > N_FIELDS:
        raise WorkloadError(f"{len(tokens)} fields found, {N_FIELDS} expected: an extra value "
                            f"{_show(tokens[N_FIELDS])} follows field {field_label(N_FIELDS - 1)}",
                            path=where, line=lineno)
    row = []
    for i, token in enumerate(tokens):
        value = _parse_number(token)
        if value is None:
            raise WorkloadError(f"not a finite number: {_show(token)}",
                                path=where, line=lineno, field=field_label(i))
        row.append(value)
    # A record of an unknown run time is dropped by a loader rule whatever its submit time
    # (LLNL-Thunder has 1190 all -1 records); a job that would be simulated needs a real one.
    if row[_I_SUBMIT] < 0 and row[_I_RUNTIME] >= 0:
        raise WorkloadError(f"negative submit time {row[_I_SUBMIT]:g} for a job with a known "
                            "run time", path=where, line=lineno, field=field_label(_I_SUBMIT))
    for i in _INTEGRAL_FIELDS:
        if row[i] != int(row[i]):
            raise WorkloadError(f"must be a whole number, got {row[i]!r}",
                                path=where, line=lineno, field=field_label(i))
    return row


def _show(token: bytes) -> str:
    return repr(token.decode("utf-8", errors="replace"))


# --------------------------------------------------------------------------------------------
# loader rules
# --------------------------------------------------------------------------------------------


def _apply_rules(fields: np.ndarray, n_records: int, n_bad: int, machine_size: int,
                 oversize: str, size_from: str, header: dict[str, str],
                 where: str) -> Workload:
    counts = dict.fromkeys(COUNT_KEYS, 0)
    counts["records"] = n_records
    counts["skipped_bad_lines"] = n_bad

    keep = fields[:, _I_RUNTIME] >= 0
    counts["skipped_negative_runtime"] = int(np.count_nonzero(~keep))

    if size_from == "requested":
        primary, backup, missing_key = _I_REQ_PROCS, _I_ALLOC, "requested_procs_missing"
    else:
        primary, backup, missing_key = _I_ALLOC, _I_REQ_PROCS, "allocated_procs_missing"
    missing = fields[:, primary] < 0
    size = np.where(missing, fields[:, backup], fields[:, primary])  # int64 once <= machine

    positive = size > 0
    counts["skipped_nonpositive_size"] = int(np.count_nonzero(keep & ~positive))
    keep &= positive

    too_large = size > machine_size
    if oversize == "skip":
        counts["skipped_too_large"] = int(np.count_nonzero(keep & too_large))
        keep &= ~too_large
    else:
        counts["clamped_too_large"] = int(np.count_nonzero(keep & too_large))
        size = np.minimum(size, machine_size)
    counts[missing_key] = int(np.count_nonzero(keep & missing))

    n_kept = int(np.count_nonzero(keep))
    if n_kept < keep.size:  # else skip copying the largest array
        fields = fields[keep]
        size = size[keep]
    runtime = fields[:, _I_RUNTIME].copy()
    requested = fields[:, _I_REQ_TIME]
    no_request = requested < 0
    counts["requested_time_missing"] = int(np.count_nonzero(no_request))
    estimate = np.where(no_request, runtime, requested)
    submit = fields[:, _I_SUBMIT].copy()
    counts["unsorted_submits"] = int(np.count_nonzero(submit[1:] < submit[:-1]))
    counts["jobs"] = n_kept
    if n_kept == 0:
        summary = ", ".join(f"{k}={v}" for k, v in counts.items() if v)
        raise WorkloadError(f"no jobs left after the loader rules ({summary})", path=where)
    if counts["unsorted_submits"]:
        order = np.argsort(submit, kind="stable")
        fields, size, runtime, estimate, submit = (
            fields[order], size[order], runtime[order], estimate[order], submit[order])

    return Workload(
        job_id=fields[:, _I_JOB].astype(np.int64),
        submit=submit,
        runtime=runtime,
        estimate=estimate,
        size=size.astype(np.int64),
        fields=np.ascontiguousarray(fields),
        machine_size=int(machine_size),
        header=header,
        source=where,
        counts=counts,
    )


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------


def write_swf(
    path: str | PathLike[str],
    fields: np.ndarray,
    header: dict[str, str] | None = None,
    comments: list[str] | None = None,
) -> None:
    """Write an (n, 18) array of SWF fields as an SWF file (gzip if the name ends in `.gz`).

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
    if where.endswith(".gz"):
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
    # beyond 2**53 not every integer is a float, so such values keep the float notation
    # (one temporary array for both tests: the largest allocations of the writer)
    tmp = np.trunc(arr)
    integral = arr == tmp
    np.abs(arr, out=tmp)
    integral &= tmp < 2.0**53
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
