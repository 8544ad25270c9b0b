"""Tests of the SWF reader and writer: loader rules, error reports, header, round trip."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.workload import swf
from ckptsim.workload.model import SWF_FIELDS
from ckptsim.workload.swf import COUNT_KEYS, parse_header, read_swf, write_swf

TRACES = Path(__file__).resolve().parents[2] / "shared" / "data" / "traces"


def rec(job: int = 1, submit: float = 0, run: float = 10, alloc: float = 1, req_procs: float = 1,
        req_time: float = 20, **extra: float) -> str:
    """One SWF data line; unnamed fields are -1 (status 1)."""
    values: list[float] = [-1] * 18
    values[0], values[1], values[3], values[4] = job, submit, run, alloc
    values[7], values[8], values[10] = req_procs, req_time, 1
    for name, value in extra.items():
        values[SWF_FIELDS.index(name)] = value
    return " ".join(str(v) for v in values)


def make(tmp_path: Path, lines: list[str], header: tuple[str, ...] = ("; MaxProcs: 8",),
         name: str = "t.swf", gz: bool = False) -> Path:
    text = "".join(line + "\n" for line in [*header, *lines]).encode()
    path = tmp_path / name
    path.write_bytes(gzip.compress(text, mtime=0) if gz else text)
    return path


def trace(name: str) -> Path:
    path = TRACES / f"{name}.swf.gz"
    if not path.exists():
        pytest.skip(f"real trace {path} not available (../shared/data is not part of the repo)")
    return path


# ---------------------------------------------------------------------------- basic reading


def test_reads_columns_and_fields(tmp_path: Path) -> None:
    path = make(tmp_path, [rec(1, 0, 10, 2, 2, 30), rec(2, 5.5, 7.25, 4, 4, 100)])
    w = read_swf(path)
    assert w.job_id.tolist() == [1, 2]
    assert w.submit.tolist() == [0.0, 5.5]
    assert w.runtime.tolist() == [10.0, 7.25]
    assert w.estimate.tolist() == [30.0, 100.0]
    assert w.size.tolist() == [2, 4]
    assert w.size.dtype == np.int64 and w.job_id.dtype == np.int64
    assert w.fields.shape == (2, 18) and w.fields.dtype == np.float64
    assert w.fields[1, 10] == 1.0  # status kept
    assert w.machine_size == 8
    assert w.source == str(path)
    assert w.transforms == ()
    assert list(w.counts) == list(COUNT_KEYS)
    assert w.counts["records"] == 2 and w.counts["jobs"] == 2
    assert sum(w.counts.values()) == 4


def test_number_formats(tmp_path: Path) -> None:
    tokens = ["552.21", ".5", "5.", "-0.5", "1e3", "+4", "12345678901234567", "0.1",
              "1.5E-3", "-7", "123456789.123456", "-.25", "00012", "3.0000000000000004"]
    lines = [rec(i + 1, i, 1, 1, 1, 1, average_cpu_time=0, used_memory=0)
             .replace(" 0 0 ", f" {tok} {tok} ", 1) for i, tok in enumerate(tokens)]
    w = read_swf(make(tmp_path, lines))
    assert w.fields[:, 5].tolist() == [float(t) for t in tokens]
    assert w.fields[:, 6].tolist() == [float(t) for t in tokens]


def test_whitespace_tabs_crlf_blank_lines_and_no_final_newline(tmp_path: Path) -> None:
    text = "; MaxProcs: 4\r\n\r\n" + rec(1, 0).replace(" ", "\t") + "\r\n\n   \n" + \
        "  " + rec(2, 3).replace(" ", "   ")
    path = tmp_path / "ws.swf"
    path.write_bytes(text.encode())
    w = read_swf(path)
    assert w.job_id.tolist() == [1, 2] and w.submit.tolist() == [0.0, 3.0]
    assert w.counts["records"] == 2


def test_gzip_detected_by_magic_not_suffix(tmp_path: Path) -> None:
    lines = [rec(1), rec(2, 1)]
    hidden = make(tmp_path, lines, name="compressed.swf", gz=True)
    fake = make(tmp_path, lines, name="plain.swf.gz", gz=False)
    assert read_swf(hidden).job_id.tolist() == [1, 2]
    assert read_swf(fake).job_id.tolist() == [1, 2]


def test_multi_member_gzip(tmp_path: Path) -> None:
    path = tmp_path / "multi.swf.gz"
    path.write_bytes(gzip.compress(f"; MaxProcs: 8\n{rec(1)}\n".encode())
                     + gzip.compress(f"{rec(2, 4)}\n".encode()))
    assert read_swf(path).job_id.tolist() == [1, 2]


def test_large_file_crosses_parse_blocks(tmp_path: Path) -> None:
    n = 30_000  # about 1.5 MB: several blocks of the vectorised parser
    submit = np.arange(n) * 3
    lines = [rec(i + 1, int(submit[i]), i % 97, 1 + i % 8, 1 + i % 8, 100 + i % 13,
                 average_cpu_time=i / 7) for i in range(n)]
    w = read_swf(make(tmp_path, lines))
    assert w.counts["jobs"] == n
    assert w.submit.tolist() == submit.astype(float).tolist()
    assert w.fields[:, 5].tolist() == [float(repr(i / 7)) for i in range(n)]
    assert w.size.tolist() == [1 + i % 8 for i in range(n)]


# ---------------------------------------------------------------------------- errors


def error_for(tmp_path: Path, bad: str, *, before: int = 2, after: int = 1,
              header: tuple[str, ...] = ("; MaxProcs: 8", "; Note: x")) -> WorkloadError:
    lines = [rec(i + 1, i) for i in range(before)] + [bad] + \
        [rec(before + 2 + i, 100 + i) for i in range(after)]
    path = make(tmp_path, lines, header=header)
    with pytest.raises(WorkloadError) as info:
        read_swf(path)
    err = info.value
    assert err.path == str(path)
    assert str(path) in str(err)
    assert err.line == len(header) + before + 1
    assert f"line {err.line}" in str(err)
    return err


def test_truncated_line(tmp_path: Path) -> None:
    err = error_for(tmp_path, "7 100 -1 5")
    assert err.field == "5 (allocated_processors)"
    assert "field 5 (allocated_processors)" in str(err)
    assert "4 fields found, 18 expected" in str(err)


def test_17_fields(tmp_path: Path) -> None:
    err = error_for(tmp_path, rec(3, 5).rsplit(" ", 1)[0])
    assert err.field == "18 (think_time)"
    assert "field 18 (think_time)" in str(err)
    assert "17 fields found, 18 expected" in str(err)


def test_19_fields(tmp_path: Path) -> None:
    err = error_for(tmp_path, rec(3, 5) + " 42")
    assert "19 fields found, 18 expected" in str(err)
    assert "'42'" in str(err) and "field 18 (think_time)" in str(err)


@pytest.mark.parametrize("token", ["abc", "nan", "inf", "1_000", "1e999", "--3", "4-", "0x10",
                                   "1.2.3", ".", "-", "1e", "١٢"])
def test_non_numeric_field(tmp_path: Path, token: str) -> None:
    bad = rec(3, 5, 99).replace(" 99 ", f" {token} ", 1)
    err = error_for(tmp_path, bad)
    assert err.field == "4 (run_time)"
    assert "field 4 (run_time)" in str(err)
    assert repr(token) in str(err)


def test_negative_submit_time(tmp_path: Path) -> None:
    err = error_for(tmp_path, rec(3, -5, 10))
    assert err.field == "2 (submit_time)"
    assert "field 2 (submit_time)" in str(err) and "negative submit time -5" in str(err)


def test_negative_submit_of_a_record_without_runtime_is_dropped_not_an_error(
        tmp_path: Path) -> None:
    # LLNL-Thunder has such all -1 records
    w = read_swf(make(tmp_path, [rec(1, 0), rec(2, -1, -1, -1, -1, -1), rec(3, 2)]))
    assert w.job_id.tolist() == [1, 3]
    assert w.counts["skipped_negative_runtime"] == 1


@pytest.mark.parametrize(("field", "label"), [("job_number", "1 (job_number)"),
                                              ("allocated_processors", "5 (allocated_processors)"),
                                              ("requested_processors", "8 (requested_processors)")])
def test_fractional_count_is_an_error(tmp_path: Path, field: str, label: str) -> None:
    values = rec(3, 5, 10, 2, 2, 20).split()
    values[SWF_FIELDS.index(field)] = "2.5"
    err = error_for(tmp_path, " ".join(values))
    assert err.field == label and "2.5" in str(err)


def test_line_numbers_count_comments_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "c.swf"
    path.write_text("; MaxProcs: 8\n\n" + rec(1) + "\n; a comment in the middle\n\n"
                    + rec(2, 1) + "\n" + rec(3, 2).replace(" 10 ", " x ", 1) + "\n")
    with pytest.raises(WorkloadError) as info:
        read_swf(path)
    assert info.value.line == 7 and info.value.field == "4 (run_time)"


def test_error_deep_in_a_large_file(tmp_path: Path) -> None:
    lines = [rec(i + 1, i) for i in range(25_000)]
    lines[23_456] = rec(23_457, 23_456, 3, 1, 1, 20, user_id=7).replace(" 7 ", " seven ", 1)
    path = make(tmp_path, lines, gz=True)
    with pytest.raises(WorkloadError) as info:
        read_swf(path)
    assert info.value.line == 23_458 and info.value.field == "12 (user_id)"
    assert "'seven'" in str(info.value)


@pytest.mark.parametrize("content", ["", "\n\n", "; MaxProcs: 8\n; Note: nothing here\n;\n"])
def test_no_jobs(tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.swf"
    path.write_text(content)
    with pytest.raises(WorkloadError, match="no jobs") as info:
        read_swf(path)
    assert str(path) in str(info.value)


def test_no_jobs_left_after_rules(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match="no jobs left") as info:
        read_swf(make(tmp_path, [rec(1, 0, -1), rec(2, 1, 5, 0, 0)]))
    assert "skipped_negative_runtime=1" in str(info.value)


def test_truncated_gzip(tmp_path: Path) -> None:
    whole = make(tmp_path, [rec(i + 1, i) for i in range(2000)], gz=True).read_bytes()
    path = tmp_path / "cut.swf.gz"
    for size in (len(whole) // 2, len(whole) - 3, 5):
        path.write_bytes(whole[:size])
        with pytest.raises(WorkloadError, match="truncated") as info:
            read_swf(path)
        assert info.value.path == str(path) and str(path) in str(info.value)


def test_corrupt_gzip(tmp_path: Path) -> None:
    data = bytearray(make(tmp_path, [rec(i + 1, i) for i in range(200)], gz=True).read_bytes())
    data[-6] ^= 0xFF  # in the CRC-32 of the trailer
    path = tmp_path / "bad.swf.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(WorkloadError, match="corrupt") as info:
        read_swf(path)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.swf"
    with pytest.raises(WorkloadError, match="not found") as info:
        read_swf(path)
    assert info.value.path == str(path)


def test_directory_is_not_readable(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match="cannot read"):
        read_swf(tmp_path)


def test_skip_bad_lines(tmp_path: Path) -> None:
    lines = [rec(1, 0), "2 1 -1", rec(3, 2) + " 9", rec(4, 3).replace(" 10 ", " x ", 1),
             rec(5, -4), rec(6, 5)]
    path = make(tmp_path, lines)
    with pytest.raises(WorkloadError):
        read_swf(path)
    w = read_swf(path, skip_bad_lines=True)
    assert w.job_id.tolist() == [1, 6]
    assert w.counts["records"] == 6
    assert w.counts["skipped_bad_lines"] == 4
    assert w.counts["jobs"] == 2


# ---------------------------------------------------------------------------- values the
# simulator cannot use: each is an error naming the line and the field, or a skipped bad line


def fast_path_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fallback(*args: object, **kwargs: object) -> None:
        raise AssertionError("the line-by-line parser was used")

    monkeypatch.setattr(swf, "_parse_lines", no_fallback)


def test_repeated_job_number_is_an_error_naming_both_lines(tmp_path: Path) -> None:
    path = make(tmp_path, [rec(1, 0), rec(2, 1), rec(1, 2), rec(3, 3)])
    with pytest.raises(WorkloadError) as info:
        read_swf(path)
    err = info.value
    assert (err.line, err.field) == (4, "1 (job_number)")
    assert "job number 1 is already used on line 2" in str(err)
    w = read_swf(path, skip_bad_lines=True)  # the later line is the bad one
    assert w.job_id.tolist() == [1, 2, 3] and w.submit.tolist() == [0, 1, 3]
    assert w.counts["skipped_bad_lines"] == 1 and w.counts["records"] == 4


def test_repeated_job_number_far_apart_and_out_of_order(tmp_path: Path) -> None:
    lines = [rec(i + 1, i) for i in range(20_000)]  # several parse blocks
    lines[15_000] = rec(7, 15_000)
    with pytest.raises(WorkloadError, match="already used on line 8") as info:
        read_swf(make(tmp_path, lines))
    assert info.value.line == 15_002


def test_unique_job_numbers_in_any_order_take_the_fast_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast_path_only(monkeypatch)
    w = read_swf(make(tmp_path, [rec(5, 0), rec(3, 1), rec(9, 2), rec(1, 3)]))
    assert w.job_id.tolist() == [5, 3, 9, 1]


def test_job_number_beyond_int64_precision(tmp_path: Path) -> None:
    # 1e26 used to become -9223372036854775808 in the job_id column
    err = error_for(tmp_path, rec(3, 5).replace("3", "1e26", 1))
    assert err.field == "1 (job_number)" and "too large" in str(err)
    top = 2**53
    w = read_swf(make(tmp_path, [rec(1, 0), rec(top, 1)]))
    assert w.job_id.tolist() == [1, top]


@pytest.mark.parametrize("field", ["run_time", "allocated_processors", "requested_processors",
                                   "requested_time"])
@pytest.mark.parametrize("value", [-400, -2, -0.5])
def test_negative_values_other_than_minus_one(tmp_path: Path, field: str, value: float) -> None:
    if value == -0.5 and field.endswith("processors"):
        pytest.skip("a fraction of a processor is refused as a fraction")
    values = rec(3, 5, 10, 2, 2, 20).split()
    values[SWF_FIELDS.index(field)] = str(value)
    err = error_for(tmp_path, " ".join(values))
    assert err.field == f"{SWF_FIELDS.index(field) + 1} ({field})"
    assert f"negative value {value:g}" in str(err) and "unknown value with -1" in str(err)
    path = make(tmp_path, [rec(1, 0), " ".join(values), rec(4, 6)])
    w = read_swf(path, skip_bad_lines=True)
    assert w.job_id.tolist() == [1, 4] and w.counts["skipped_bad_lines"] == 1


def test_minus_one_stays_unknown_and_other_fields_may_be_negative(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast_path_only(monkeypatch)
    # status -2 and -4 occur in Sandia-Ross; only the fields the simulator reads are checked
    w = read_swf(make(tmp_path, [rec(1, 0, 10, 2, -1, -1, status=-4, think_time=-7.5),
                                 rec(2, 1, -1, 2, 2, 20)]))
    assert w.job_id.tolist() == [1]
    assert w.counts["requested_time_missing"] == 1
    assert w.counts["skipped_negative_runtime"] == 1


@pytest.mark.parametrize(("field", "value"), [("submit_time", 1e23), ("run_time", 1e13),
                                              ("requested_time", 1.0000001e10)])
def test_times_beyond_the_largest_accepted(tmp_path: Path, field: str, value: float) -> None:
    # 1e23 s used to make the daily series ask for exabytes of memory
    values = rec(3, 5, 10, 2, 2, 20).split()
    values[SWF_FIELDS.index(field)] = repr(value)
    err = error_for(tmp_path, " ".join(values), after=0)
    assert err.field == f"{SWF_FIELDS.index(field) + 1} ({field})"
    assert "beyond the largest time accepted, 1e+10 s" in str(err)


def test_times_up_to_the_largest_accepted(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    fast_path_only(monkeypatch)
    top = swf.MAX_SECONDS
    w = read_swf(make(tmp_path, [rec(1, 0, top, 1, 1, top), rec(2, top, 1, 1, 1, 1)]))
    assert w.runtime.tolist() == [top, 1] and w.submit.tolist() == [0, top]


def test_utf8_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "bom.swf"
    path.write_bytes(b"\xef\xbb\xbf; MaxProcs: 8\n" + rec(1).encode() + b"\n")
    w = read_swf(path)
    assert w.machine_size == 8 and w.job_id.tolist() == [1]
    path.write_bytes(b"\xef\xbb\xbf" + rec(1).encode() + b"\n")
    assert read_swf(path, machine_size=4).job_id.tolist() == [1]


@pytest.mark.parametrize("head", [b"; MaxProcs: 8\r", b""])
def test_cr_only_line_endings_are_named(tmp_path: Path, head: bytes) -> None:
    # The file read as one line: "no jobs: the file has no data lines" (or a field count).
    path = tmp_path / "mac.swf"
    path.write_bytes(head + rec(1).encode() + b"\r" + rec(2).encode() + b"\r")
    with pytest.raises(WorkloadError, match="lines end in CR only") as info:
        read_swf(path, machine_size=8)
    assert info.value.path == str(path)
    path.write_bytes(head.replace(b"\r", b"\r\n") + rec(1).encode() + b"\r\n")  # CRLF: read
    assert read_swf(path, machine_size=8).job_id.tolist() == [1]
    path.write_bytes(rec(1).encode() + b"\r")  # one line ending in CR: read as before
    assert read_swf(path, machine_size=8).job_id.tolist() == [1]


@pytest.mark.parametrize(("head", "what"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a PNG image"),
    (b"%PDF-1.7\n", "a PDF document"),
    (b"PK\x03\x04\x14\x00", "a zip archive"),
    (b"BZh91AY&SY", "bzip2-compressed data"),
    (b"\n  <!DOCTYPE html>\n<html><body>Not found</body></html>\n", "HTML or XML"),
    (b"\xff\xfe;\x00 \x00", "UTF-16 text"),
])
def test_a_file_that_is_not_text_says_what_it_is(tmp_path: Path, head: bytes,
                                                  what: str) -> None:
    for gz in (False, True):
        path = tmp_path / ("x.gz" if gz else "x.swf")
        path.write_bytes(gzip.compress(head + b"1 2 3\n") if gz else head + b"1 2 3\n")
        for skip in (False, True):
            with pytest.raises(WorkloadError) as info:
                read_swf(path, skip_bad_lines=skip)
            assert f"not an SWF trace: the file is {what}" in str(info.value)


def test_binary_data_after_text_is_reported_as_binary(tmp_path: Path) -> None:
    path = tmp_path / "x.swf"
    path.write_bytes(f"; MaxProcs: 8\n{rec(1)}\n".encode() + b"\x00\x01\x02 junk\n")
    for skip in (False, True):
        with pytest.raises(WorkloadError) as info:
            read_swf(path, skip_bad_lines=skip)
        assert info.value.line == 3 and "binary data (NUL bytes)" in str(info.value)


# ---------------------------------------------------------------------------- loader rules


def test_every_loader_rule_is_counted(tmp_path: Path) -> None:
    lines = [
        rec(1, 0, 10, 2, 2, 50),            # kept
        rec(2, 1, -1, 2, 2, 50),            # negative runtime
        rec(3, 2, 5, 3, -1, 50),            # requested procs missing -> 3 allocated
        rec(4, 3, 5, -1, -1, 50),           # both missing -> size -1: skipped
        rec(5, 4, 5, 0, 0, 50),             # size 0: skipped
        rec(6, 5, 5, 64, 64, 50),           # larger than the machine (8)
        rec(7, 6, 5, 4, 4, -1),             # requested time missing -> estimate 5
        rec(8, 2, 5, 1, 1, 9),              # submitted before job 7: unsorted
        rec(9, 7, 0, 1, 1, 9),              # runtime 0 is legal
        rec(10, 8, 6, 2, -1, -1),           # procs and time missing
    ]
    w = read_swf(make(tmp_path, lines))
    assert w.counts == {
        "records": 10, "skipped_bad_lines": 0, "skipped_negative_runtime": 1,
        "requested_procs_missing": 2, "allocated_procs_missing": 0,
        "skipped_nonpositive_size": 2, "skipped_too_large": 1, "clamped_too_large": 0,
        "requested_time_missing": 2, "unsorted_submits": 1, "jobs": 6,
    }
    assert w.job_id.tolist() == [1, 3, 8, 7, 9, 10]
    assert w.size.tolist() == [2, 3, 1, 4, 1, 2]
    assert w.estimate.tolist() == [50, 50, 9, 5, 9, 6]
    assert w.submit.tolist() == [0, 2, 2, 6, 7, 8]
    # the fields stay as in the file
    assert w.fields[1, 7] == -1 and w.fields[3, 8] == -1
    c = w.counts
    assert c["records"] == (c["skipped_bad_lines"] + c["skipped_negative_runtime"]
                            + c["skipped_nonpositive_size"] + c["skipped_too_large"] + c["jobs"])


def test_unsorted_submits_are_sorted_stably(tmp_path: Path) -> None:
    lines = [rec(1, 10), rec(2, 5), rec(3, 20), rec(4, 5), rec(5, 20)]
    w = read_swf(make(tmp_path, lines))
    assert w.counts["unsorted_submits"] == 2
    assert w.job_id.tolist() == [2, 4, 1, 3, 5]
    assert w.submit.tolist() == [5, 5, 10, 20, 20]
    assert w.fields[:, 0].tolist() == [2, 4, 1, 3, 5]


def test_oversize_skip_and_clamp(tmp_path: Path) -> None:
    path = make(tmp_path, [rec(1, 0, 5, 4, 4), rec(2, 1, 5, 9, 9), rec(3, 2, 5, 20, 20)])
    skipped = read_swf(path)
    assert skipped.job_id.tolist() == [1]
    assert skipped.counts["skipped_too_large"] == 2 and skipped.counts["clamped_too_large"] == 0
    clamped = read_swf(path, oversize="clamp")
    assert clamped.size.tolist() == [4, 8, 8]
    assert clamped.counts["clamped_too_large"] == 2 and clamped.counts["skipped_too_large"] == 0
    assert clamped.fields[:, 7].tolist() == [4, 9, 20]
    bigger = read_swf(path, machine_size=32)
    assert bigger.size.tolist() == [4, 9, 20] and bigger.machine_size == 32


def test_size_from_allocated(tmp_path: Path) -> None:
    path = make(tmp_path, [rec(1, 0, 5, 2, 4), rec(2, 1, 5, -1, 3), rec(3, 2, 5, 6, -1)])
    requested = read_swf(path)
    assert requested.size.tolist() == [4, 3, 6]
    assert requested.counts["requested_procs_missing"] == 1
    assert requested.counts["allocated_procs_missing"] == 0
    allocated = read_swf(path, size_from="allocated")
    assert allocated.size.tolist() == [2, 3, 6]
    assert allocated.counts["allocated_procs_missing"] == 1
    assert allocated.counts["requested_procs_missing"] == 0


@pytest.mark.parametrize(("key", "kwargs", "accepted"), [
    ("oversize", {"oversize": "drop"}, "'skip', 'clamp'"),
    ("size_from", {"size_from": "used"}, "'requested', 'allocated'"),
    ("skip_bad_lines", {"skip_bad_lines": "yes"}, "true or false"),
    ("machine_size", {"machine_size": 0}, ">= 1"),
    ("machine_size", {"machine_size": -3}, ">= 1"),
    ("machine_size", {"machine_size": 2.5}, "integer"),
    ("machine_size", {"machine_size": "8"}, "integer"),
    ("machine_size", {"machine_size": True}, "integer"),
])
def test_bad_options(tmp_path: Path, key: str, kwargs: dict[str, object], accepted: str) -> None:
    path = make(tmp_path, [rec(1)])
    with pytest.raises(ConfigError) as info:
        read_swf(path, **kwargs)  # type: ignore[arg-type]
    assert info.value.key == key
    assert str(info.value).startswith(f"{key}: ") and accepted in str(info.value)


# ---------------------------------------------------------------------------- header


def test_header_parsing(tmp_path: Path) -> None:
    header = (
        ";   --- converted from somewhere ---",
        "; Version: 2.2",
        ";Computer: IBM SP2",
        "; Information: http://a.example/",
        ";              http://b.example/",
        "; StartTime: Fri Apr 24 18:11:04 PDT 1998",
        "; EndTime:   Sat Apr 29 21:08:32 PDT 2000  ",
        "; Note: first note",
        ";\tcontinued with a tab",
        "; Queue:  0  interactive",
        "; Queue:  1  express",
        ";",
        ";       not a continuation (after a blank comment)",
        "; Note: second note",
        "; MaxProcs: 8",
        "; TimeZoneString: US/Pacific",
        "; UnixStartTime: 893466664",
    )
    w = read_swf(make(tmp_path, [rec(1), "; Late: comment after data", rec(2, 1)],
                      header=header))
    assert w.header == {
        "Version": "2.2",
        "Computer": "IBM SP2",
        "Information": "http://a.example/\nhttp://b.example/",
        "StartTime": "Fri Apr 24 18:11:04 PDT 1998",
        "EndTime": "Sat Apr 29 21:08:32 PDT 2000",
        "Note": "first note\ncontinued with a tab\nsecond note",
        "Queue": "0  interactive\n1  express",
        "MaxProcs": "8",
        "TimeZoneString": "US/Pacific",
        "UnixStartTime": "893466664",
        "Late": "comment after data",
    }


def test_parse_header_accepts_str_lines() -> None:
    assert parse_header(["; A: 1", ";  more", "; B:2"]) == {"A": "1\nmore", "B": "2"}


@pytest.mark.parametrize(("header", "expected"), [
    (("; MaxProcs: 128", "; MaxNodes: 16"), 128),
    (("; MaxNodes: 338 (batch partition; 512 total)",), 338),
    (("; MaxProcs: N/A", "; MaxNodes: 64"), 64),
    (("; MaxNodes: 184  ( 6,  171,   7)", "; MaxProcs: 1664 (72, 1368, 224)"), 1664),
])
def test_machine_size_from_header(tmp_path: Path, header: tuple[str, ...], expected: int) -> None:
    assert read_swf(make(tmp_path, [rec(1)], header=header)).machine_size == expected


def test_machine_size_argument_wins(tmp_path: Path) -> None:
    path = make(tmp_path, [rec(1)], header=("; MaxProcs: 128",))
    assert read_swf(path, machine_size=64).machine_size == 64
    assert read_swf(path, machine_size=np.int64(32)).machine_size == 32  # type: ignore[arg-type]


def test_a_long_field_is_quoted_cut(tmp_path: Path) -> None:
    # The error quoted all 5,000 characters of the field.
    path = make(tmp_path, [rec(1, run=777).replace(" 777 ", " " + "x" * 5000 + " ", 1)])
    with pytest.raises(WorkloadError, match="not a finite number") as info:
        read_swf(path)
    assert "... (5002 characters)" in str(info.value) and len(str(info.value)) < 300


@pytest.mark.parametrize("value", ["1e3", "2.5", "1,024", "0x40", "1e400", "64\u0664"])
def test_a_header_size_that_is_no_whole_number_is_refused(tmp_path: Path, value: str) -> None:
    # The leading digits alone were taken: 1e3 made a machine of 1 node, 1,024 of 1.
    path = make(tmp_path, [rec(1)], header=(f"; MaxProcs: {value}", "; MaxNodes: 8"))
    with pytest.raises(ConfigError, match="is not a whole number of nodes") as info:
        read_swf(path)
    assert info.value.key == "machine_size" and f"MaxProcs, {value!r}" in str(info.value)
    assert read_swf(path, machine_size=4).machine_size == 4


def test_machine_size_unknown(tmp_path: Path) -> None:
    path = make(tmp_path, [rec(1)], header=("; Version: 2", "; MaxProcs: unknown"))
    with pytest.raises(ConfigError, match="give the machine size") as info:
        read_swf(path)
    assert info.value.key == "machine_size"  # the CLI names it --machine-size, a spec its key
    assert str(path) in str(info.value)
    assert read_swf(path, machine_size=4).machine_size == 4


# ---------------------------------------------------------------------------- writing


def test_write_format(tmp_path: Path) -> None:
    fields = np.full((2, 18), -1.0)
    fields[:, 0] = [1, 2]
    fields[:, 1] = [0, 3600]
    fields[:, 3] = [10, 0.1]
    fields[:, 4] = [4, 16]
    path = tmp_path / "out.swf"
    write_swf(path, fields, {"Version": "2.2", "Note": "one\ntwo"}, ["free text", "  indented"])
    text = path.read_text()
    lines = text.splitlines()
    assert lines[:6] == ["; Version: 2.2", "; Note: one", "; Note: two", ";", "; free text",
                         ";   indented"]
    assert lines[6].split() == ["1", "0", "-1", "10", "4"] + ["-1"] * 13
    assert lines[7].split() == ["2", "3600", "-1", "0.1", "16"] + ["-1"] * 13
    assert ".0" not in text
    assert text.endswith("\n")
    w = read_swf(path, machine_size=16)
    assert w.header == {"Version": "2.2", "Note": "one\ntwo"}
    assert np.array_equal(w.fields, fields)


def test_write_gzip_is_deterministic(tmp_path: Path) -> None:
    fields = np.tile(np.arange(18, dtype=float), (50, 1))
    fields[:, 0] = np.arange(1, 51)  # job numbers are unique
    a, b = tmp_path / "a.swf.gz", tmp_path / "b.swf.gz"
    write_swf(a, fields, {"MaxProcs": "32"})
    write_swf(b, fields, {"MaxProcs": "32"})
    assert a.read_bytes()[:2] == b"\x1f\x8b"
    assert a.read_bytes() == b.read_bytes()
    assert np.array_equal(read_swf(a).fields, fields)


def test_write_errors(tmp_path: Path) -> None:
    path = tmp_path / "x.swf"
    with pytest.raises(WorkloadError, match=r"shape \(n, 18\)"):
        write_swf(path, np.zeros((3, 17)))
    bad = np.zeros((2, 18))
    bad[1, 4] = np.nan
    with pytest.raises(WorkloadError, match="NaN"):
        write_swf(path, bad)
    with pytest.raises(ConfigError) as info:
        write_swf(path, np.zeros((1, 18)), {"Max Procs": "4"})
    assert info.value.key == "header"
    with pytest.raises(WorkloadError, match="cannot write"):
        write_swf(tmp_path / "no" / "such" / "dir.swf", np.zeros((1, 18)))


def test_write_empty_then_read_has_no_jobs(tmp_path: Path) -> None:
    path = tmp_path / "e.swf"
    write_swf(path, np.empty((0, 18)), {"MaxProcs": "4"})
    assert path.read_text() == "; MaxProcs: 4\n"
    with pytest.raises(WorkloadError, match="no jobs"):
        read_swf(path)


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
small_int = st.integers(-1, 10**6).map(float)
decimal = st.integers(0, 10**9).flatmap(lambda m: st.integers(0, 9).map(lambda e: m / 10**e))


time_value = st.one_of(decimal, st.floats(0, swf.MAX_SECONDS))


@st.composite
def workload_fields(draw: st.DrawFn) -> np.ndarray:
    """Valid traces: unique job numbers, times within MAX_SECONDS, -1 as the only negative
    value of the fields the simulator reads; any finite value in the others."""
    n = draw(st.integers(1, 12))
    ids = draw(st.lists(st.integers(2, 10**12), min_size=n - 1, max_size=n - 1, unique=True))
    rows = []
    submit = 0.0
    for i in range(n):
        submit += draw(st.one_of(st.just(0.0), decimal)) / 12  # stays below MAX_SECONDS
        row = [draw(st.one_of(small_int, decimal, finite)) for _ in range(18)]
        row[0] = float(ids[i - 1] if i else 1)
        row[1] = submit
        row[3] = draw(time_value)
        row[4] = float(draw(st.integers(-1, 64)))
        row[7] = float(draw(st.integers(1, 64)))
        row[8] = draw(st.one_of(st.just(-1.0), time_value))
        rows.append(row)
    return np.array(rows)


@settings(max_examples=examples(40), deadline=None)
@given(fields=workload_fields(), gz=st.booleans())
def test_round_trip(tmp_path_factory: pytest.TempPathFactory, fields: np.ndarray,
                    gz: bool) -> None:
    path = tmp_path_factory.mktemp("rt") / ("w.swf.gz" if gz else "w.swf")
    write_swf(path, fields, {"MaxProcs": "64", "Note": "round\ntrip"})
    w = read_swf(path)
    assert w.counts["jobs"] == len(fields)
    assert np.array_equal(w.fields, fields)
    assert np.array_equal(w.submit, fields[:, 1]) and np.array_equal(w.runtime, fields[:, 3])
    assert w.header == {"MaxProcs": "64", "Note": "round\ntrip"}
    # and again: writing what was read gives the same file
    again = path.with_name("again" + path.name)
    write_swf(again, w.fields, w.header)
    assert again.read_bytes() == path.read_bytes()


valid_token = st.one_of(
    st.integers(-10**18, 10**18).map(str),
    finite.map(repr),
    decimal.map(str),
    st.sampled_from(["-1", "0", "-0", "-0.0", ".5", "5.", "-.5", "+3", "1e5", "1E-2",
                     "0000000000000000000007", "123456789012.5", "-99999999.99999"]),
)
whole_token = st.integers(-1, 10**6).map(str)
time_token = st.one_of(st.just("-1"), st.integers(0, 10**10).map(str), decimal.map(str),
                       st.floats(0, swf.MAX_SECONDS).map(repr))
bad_token = st.sampled_from(["nan", "x", "1.2.3", "--1", "-", ".", "1_0", "12a", "inf", "2.5",
                             "-3", "1e999", "0x1", "-400", "-0.5", "1e11", "1e23", "1e26"])


@st.composite
def swf_text(draw: st.DrawFn) -> bytes:
    """Valid SWF data lines, sometimes with one bad token, one field too few or one too many,
    or a job number used twice."""
    n = draw(st.integers(1, 4))
    rows = []
    ids = draw(st.lists(whole_token, min_size=n, max_size=n, unique=True))
    for k in range(n):
        row = [draw(valid_token) for _ in range(18)]
        for i in (4, 7):
            row[i] = draw(whole_token)
        row[0] = ids[k]
        row[1] = draw(st.one_of(whole_token.filter(lambda t: t != "-1"), decimal.map(str)))
        row[3], row[8] = draw(time_token), draw(time_token)
        rows.append(row)
    change = draw(st.sampled_from(["none", "token", "drop", "add", "repeat"]))
    r, c = draw(st.integers(0, n - 1)), draw(st.integers(0, 17))
    if change == "token":
        rows[r][c] = draw(bad_token)  # "2.5", "-3", "1e11"... are bad only in some fields
    elif change == "drop":
        del rows[r][c]
    elif change == "add":
        rows[r].insert(c, draw(valid_token))
    elif change == "repeat":
        rows[r][0] = rows[c % n][0]  # the job number of another line (or of the same one)
    sep = draw(st.sampled_from([" ", "\t", "  ", " \t "]))
    end = draw(st.sampled_from(["", "\n", "\r\n"]))
    return end.join(sep.join(row) for row in rows).encode() + end.encode()


@settings(max_examples=examples(120), deadline=None)
@given(text=swf_text())
def test_vectorised_parser_agrees_with_line_parser(text: bytes) -> None:
    fast, _ = swf._fast_parse(text)
    try:
        slow, _, _ = swf._parse_lines(text, "mem", skip_bad_lines=False)
    except WorkloadError:
        assert fast is None  # never accepts what the line parser rejects
        return
    assert fast is not None  # and handles every valid file itself
    assert np.array_equal(fast, slow) and np.array_equal(np.signbit(fast), np.signbit(slow))


# ---------------------------------------------------------------------------- real traces


def test_sdsc_sp2() -> None:
    # counts checked independently with zcat | awk
    w = read_swf(trace("SDSC-SP2-1998-4.2-cln"))
    assert w.machine_size == 128
    assert w.counts["records"] == 59_715
    assert w.counts["skipped_negative_runtime"] == 5_671
    assert w.counts["requested_time_missing"] == 35
    assert w.counts["skipped_too_large"] == 0 and w.counts["unsorted_submits"] == 0
    assert w.counts["jobs"] == 54_044 == len(w)
    assert w.runtime.sum() == 399_341_974
    assert w.size.sum() == 664_042
    assert w.estimate.sum() == 904_544_266
    assert (w.job_id[0], w.submit[0]) == (11, 566_129)
    assert (w.job_id[-1], w.submit[-1]) == (73_496, 63_582_293)
    assert w.header["MaxProcs"] == "128" and w.header["TimeZoneString"] == "US/Pacific"
    assert w.header["Information"] == ("http://joblog.npaci.edu/\n"
                                       "http://www.cs.huji.ac.il/labs/parallel/workload/")
    assert w.header["Queue"].splitlines()[1] == "1  express"


@pytest.mark.parametrize(("name", "records", "machine"), [
    ("HPC2N-2002-2.2-cln", 202_871, 240),
    ("CTC-SP2-1996-3.1-cln", 77_222, 338),
    ("LLNL-Thunder-2007-1.1-cln", 121_039, 4008),
])
def test_real_traces_take_the_vectorised_path(monkeypatch: pytest.MonkeyPatch, name: str,
                                              records: int, machine: int) -> None:
    path = trace(name)

    def no_fallback(*args: object, **kwargs: object) -> None:
        raise AssertionError("the line-by-line parser was used")

    monkeypatch.setattr(swf, "_parse_lines", no_fallback)
    w = read_swf(path)
    assert w.counts["records"] == records
    assert w.machine_size == machine
