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
fast path never accepts a file that the line-by-line parser would reject.  Both are in
`ckptsim.workload.swf_parse`; reading the file's bytes (gzip, a byte-order mark, refusing
what is not text) is in `ckptsim.workload.swf_text`; writing is in
`ckptsim.workload.swf_write` (`write_swf` is importable from here too).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable
from os import PathLike

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.limits import MAX_SECONDS, check_nodes, header_nodes
from ckptsim.workload.model import Workload
from ckptsim.workload.swf_parse import (  # noqa: F401  (N_FIELDS, MAX_JOB_NUMBER: re-exported)
    _I_ALLOC,
    _I_JOB,
    _I_REQ_PROCS,
    _I_REQ_TIME,
    _I_RUNTIME,
    _I_SUBMIT,
    MAX_JOB_NUMBER,
    N_FIELDS,
    _fast_parse,
    _parse_lines,
    field_label,
)
from ckptsim.workload.swf_text import _read_text, _refuse_binary, not_text
from ckptsim.workload.swf_write import write_swf

__all__ = ["COUNT_KEYS", "MAX_SECONDS", "field_label", "not_text", "parse_header", "read_swf",
           "write_swf"]

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

#: A header line: `;`, at most one space, `Key:`.  Deeper-indented comment lines (a tab or
#: several spaces) continue the value of the key above them, as in the Parallel Workloads
#: Archive logs (e.g. the second URL under `; Information:`).
_HEADER_KEY = re.compile(r"; ?([A-Za-z][A-Za-z0-9_]*):(.*)")
#: A size's leading whole number and what is glued to it ("338 (batch ...)" has nothing glued:
#: 338; "2.5" or "1e3" has, and is no size).
_LEADING_INT = re.compile(r"\s*([0-9]+)(\S*)")


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
        if match and match.group(2):
            raise ConfigError("machine_size", f"{where}: the header's {key}, "
                                              f"{header[key].strip()!r}, is not a whole number "
                                              "of nodes (digits, then a space or the line's "
                                              "end); give the machine size")
        if match and match.group(1).strip("0"):
            return header_nodes(where, key, match.group(1))
    raise ConfigError("machine_size", f"{where}: cannot tell the machine size: the header has "
                                      "no usable MaxProcs or MaxNodes; give the machine size")


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
