"""Parsing the records of SWF text: the vectorised tokenizer (`_fast_parse`, with the number
parsing of `ckptsim.workload.swf_numbers`) and the line-by-line parser (`_parse_lines`) that
names the exact line and field of the first problem.  Both apply the same grammar and record
checks, so the fast path never accepts a file the line-by-line parser would reject.  Used by
`ckptsim.workload.swf.read_swf`, which applies the loader rules to what they return."""

from __future__ import annotations

import math

import numpy as np

from ckptsim.errors import WorkloadError, shown
from ckptsim.limits import MAX_SECONDS
from ckptsim.workload.model import SWF_FIELDS, SWF_INDEX
from ckptsim.workload.swf_numbers import parse_number, parse_numbers

N_FIELDS = len(SWF_FIELDS)

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

#: Bytes of text parsed at once by the vectorised parser: large
#: enough to amortise numpy's per-call overhead, small enough for the temporaries to stay in
#: the processor caches.
_CHUNK = 1 << 18


def field_label(index: int) -> str:
    """`field_label(3)` -> `"4 (run_time)"`: the 1-based SWF number and the field's name."""
    return f"{index + 1} ({SWF_FIELDS[index]})"


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
    return shown(token.decode("utf-8", errors="replace"))
