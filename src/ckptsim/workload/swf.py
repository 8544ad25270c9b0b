"""Reading and writing the Standard Workload Format (SWF v2.2).

An SWF file has `;` comment lines (the header, `; Key: value`, comes first) and one line per job
with 18 whitespace-separated numeric fields; -1 means "unknown".  `read_swf` turns a file into a
`Workload` and applies the simulator's loader rules, counting every record each rule touches so
that a summary can say what happened to the trace.

Speed matters: a simulation command has a budget of a few seconds and the largest traces have
hundreds of thousands of lines.  Well-formed files are therefore parsed by a vectorised numpy
tokenizer (`_fast_parse`, with the number parsing of `ckptsim.workload.swf_numbers`); a file it
does not accept is re-read by a line-by-line parser (`_parse_lines`), which is slower but names
the exact line and field of the first problem.  Both apply the same grammar and checks, so the
fast path never accepts a file that the line-by-line parser would reject.  Writing is in
`ckptsim.workload.swf_write` (`write_swf` is importable from here too).
"""

from __future__ import annotations

import math
import operator
import re
import zlib
from collections.abc import Iterable
from os import PathLike
from pathlib import Path

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.limits import MAX_SECONDS, check_nodes, header_nodes
from ckptsim.workload.model import SWF_FIELDS, SWF_INDEX, Workload
from ckptsim.workload.swf_numbers import parse_number, parse_numbers
from ckptsim.workload.swf_write import write_swf

__all__ = ["COUNT_KEYS", "MAX_SECONDS", "field_label", "not_text", "parse_header", "read_swf",
           "write_swf"]

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

#: A header line: `;`, at most one space, `Key:`.  Deeper-indented comment lines (a tab or
#: several spaces) continue the value of the key above them, as in the Parallel Workloads
#: Archive logs (e.g. the second URL under `; Information:`).
_HEADER_KEY = re.compile(r"; ?([A-Za-z][A-Za-z0-9_]*):(.*)")
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

#: Fields the simulator reads in which -1 marks an unknown value: any other negative value is
#: malformed (a requested time of -400 is not "unknown", it is broken).
_MINUS_ONE_FIELDS = (_I_RUNTIME, _I_ALLOC, _I_REQ_PROCS, _I_REQ_TIME)

#: Largest value of a time field the simulator reads (submit, run and requested time): 1e10 s,
#: about 317 years (`ckptsim.limits.MAX_SECONDS`, shared with the failure and availability
#: traces).
_TIME_FIELDS = (_I_SUBMIT, _I_RUNTIME, _I_REQ_TIME)

#: Largest job number: up to 2**53 every whole number is exact as a float64 and fits an int64.
MAX_JOB_NUMBER = 2**53

_UTF8_BOM = b"\xef\xbb\xbf"

#: What a file that is not SWF text is, by its first bytes (SWF text starts with ';', a digit,
#: a sign, a point or whitespace, so none of these prefixes can start a valid trace).
_NOT_TEXT = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive (or an office document): unpack it first"),
    (b"BZh", "bzip2-compressed data: decompress it (or recompress it with gzip)"),
    (b"\xfd7zXZ", "xz-compressed data: decompress it (or recompress it with gzip)"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data: decompress it (or recompress it with gzip)"),
    (b"7z\xbc\xaf", "a 7-zip archive: unpack it first"),
    (b"PAR1", "a Parquet file"),
    (b"SQLite format 3", "an SQLite database"),
    (b"\x7fELF", "an executable program"),
    (b"\xff\xfe", "UTF-16 text: save it as ASCII or UTF-8"),
    (b"\xfe\xff", "UTF-16 text: save it as ASCII or UTF-8"),
    (b"<", "HTML or XML (a web page saved instead of the trace?)"),
)

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

    Every data line must hold 18 finite numbers; the job number and the processor counts must
    be whole; job numbers must be unique (each line is a job of its own) and at most 2**53; in
    the run time, processor counts and requested time -1 (unknown) is the only negative value
    allowed; the submit, run and requested times must be at most `MAX_SECONDS` (1e10 s); a job
    with a known run time must have a submit time >= 0.  A line that breaks a rule is an error
    naming its line and field, or with `skip_bad_lines` a skipped, counted bad line (of two
    lines with one job number, the later one).  A UTF-8 byte-order mark is ignored; a file that
    is not text (an image, an archive, a web page, binary data) is refused as such.

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
            not text, has no jobs, or has a malformed data line (naming the line and the field).
        ConfigError: an option has a value outside the accepted ones; or, under the key
            `machine_size`, the machine size is not given and the header has none, or one
            above `ckptsim.limits.MAX_NODES`.
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
        _refuse_binary(text, where)
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
    return check_nodes("machine_size", size)


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
        if match and match.group(1).strip("0"):
            return header_nodes(where, key, match.group(1))
    raise ConfigError("machine_size", f"{where}: cannot tell the machine size: the header has "
                                      "no usable MaxProcs or MaxNodes; give the machine size")


def _read_text(path: str | PathLike[str], where: str) -> bytes:
    """The file's bytes, decompressed when they start with the gzip magic number."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise WorkloadError("file not found", path=where) from None
    except OSError as exc:
        raise WorkloadError(f"cannot read the file: {exc.strerror or exc}", path=where) from None
    if raw.startswith(_GZIP_MAGIC):
        raw = _gunzip(raw, where)
    if raw.startswith(_UTF8_BOM):  # a byte-order mark some editors write: not part of the text
        raw = raw[len(_UTF8_BOM):]
    what = not_text(raw)
    if what is not None:
        raise WorkloadError(f"not an SWF trace: the file is {what}", path=where)
    return raw


def not_text(raw: bytes) -> str | None:
    """What a file is when its first bytes show it is not text (`"a PNG image"`), else None.

    Only formats whose signature cannot start a text trace or log are recognised (see
    `_NOT_TEXT`); a file with NUL bytes further on is caught by the callers' parsers."""
    head = raw[:64].lstrip()
    for magic, what in _NOT_TEXT:
        if head.startswith(magic):
            return what
    return None


def _refuse_binary(text: bytes, where: str) -> None:
    """A WorkloadError if the text holds NUL bytes, which no text file has."""
    at = text.find(b"\0")
    if at >= 0:
        line = text.count(b"\n", 0, at) + 1
        raise WorkloadError("not an SWF trace: binary data (NUL bytes) where text is expected",
                            path=where, line=line)


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
    last_id, increasing = -math.inf, True
    while pos < n:
        cut = text.rfind(b"\n", pos, pos + _CHUNK) + 1
        if cut <= pos:  # no line end in this block: a last line without one, or a long line
            cut = text.find(b"\n", pos + _CHUNK) + 1 or n
        values = _parse_block(text[pos:cut], comments)
        if values is None:
            return None, comments
        if values.size:
            rows = values.reshape(-1, N_FIELDS)
            if not _records_valid(rows):
                return None, comments
            ids = rows[:, _I_JOB]
            increasing = increasing and _increasing(ids, last_id)
            last_id = float(ids[-1])
        out[filled:filled + values.size] = values
        filled += values.size
        pos = cut
    fields = out[:filled].reshape(-1, N_FIELDS)
    if not increasing and not _unique(fields[:, _I_JOB]):
        return None, comments
    return fields, comments


def _parse_block(block: bytes, comments: list[bytes]) -> np.ndarray | None:
    """`parse_numbers` of a block of whole lines, after moving its comment lines to `comments`."""
    if b";" in block:
        lines = []
        for line in block.split(b"\n"):
            if line.lstrip().startswith(b";"):
                comments.append(line.strip())
            else:
                lines.append(line)
        block = b"\n".join(lines)
    return parse_numbers(block)


def _records_valid(rows: np.ndarray) -> bool:
    """The record checks of `_parse_record` on a block of rows, run while the block is in the
    processor caches (on the whole array, each column pass would read every row from memory).
    """
    submit = rows[:, _I_SUBMIT]
    if submit.min() < 0 and np.any((submit < 0) & (rows[:, _I_RUNTIME] >= 0)):
        return False
    ints = rows[:, _INTEGRAL_FIELDS]  # job number, then the processor counts
    if not np.array_equal(ints, np.trunc(ints)):
        return False
    if ints[:, 1:].min() < -1:  # whole processor counts: negative other than -1 is below -1
        return False
    if np.abs(ints[:, 0]).max() > MAX_JOB_NUMBER:
        return False
    times = rows[:, _TIME_FIELDS]  # submit, then the run and requested times
    if times.max() > MAX_SECONDS:
        return False
    known = times[:, 1:]
    return not (known.min() < 0 and np.any((known < 0) & (known != -1.0)))


def _increasing(ids: np.ndarray, previous_id: float) -> bool:
    """Whether job numbers increase from `previous_id` on: then they are unique, as in every
    real trace, and the whole file needs no sort to look for repeats."""
    return bool(ids[0] > previous_id and np.all(ids[1:] > ids[:-1]))


def _unique(ids: np.ndarray) -> bool:
    ordered = np.sort(ids)
    return not np.any(ordered[1:] == ordered[:-1])


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
    line_of_job: dict[float, int] = {}
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(b";"):
            comments.append(stripped)
            continue
        try:
            row = _parse_record(stripped, where, lineno)
            first = line_of_job.setdefault(row[_I_JOB], lineno)
            if first != lineno:
                raise WorkloadError(f"job number {row[_I_JOB]:.0f} is already used on line "
                                    f"{first}: every line must be a job of its own",
                                    path=where, line=lineno, field=field_label(_I_JOB))
            rows.append(row)
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
        value = parse_number(token)
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
    for i in _MINUS_ONE_FIELDS:
        if row[i] < 0 and row[i] != -1:
            raise WorkloadError(f"negative value {row[i]:g}: SWF marks an unknown value with -1 "
                                "and no other negative value", path=where, line=lineno,
                                field=field_label(i))
    for i in _TIME_FIELDS:
        if row[i] > MAX_SECONDS:
            raise WorkloadError(f"{row[i]:g} s is beyond the largest time accepted, "
                                f"{MAX_SECONDS:g} s (317 years): a unit mistake?",
                                path=where, line=lineno, field=field_label(i))
    if abs(row[_I_JOB]) > MAX_JOB_NUMBER:
        raise WorkloadError(f"job number {row[_I_JOB]:g} is too large (at most 2**53 = "
                            f"{MAX_JOB_NUMBER})", path=where, line=lineno,
                            field=field_label(_I_JOB))
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
