"""Batsim JSON workloads: reading, writing, `--workload FILE.json` and `ckptsim convert`."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from helpers import TRACES

from ckptsim.cli import main
from ckptsim.errors import CkptsimError, WorkloadError
from ckptsim.workload.batsim import ID_COLUMN, read_batsim
from ckptsim.workload.batsim_write import write_batsim
from ckptsim.workload.model import SWF_INDEX
from ckptsim.workload.source import load_workload
from ckptsim.workload.swf import read_swf

SDSC = TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz"

SMALL = {
    "nb_res": 16,
    "jobs": [
        {"id": "w0!3", "subtime": 10, "res": 4, "walltime": 200, "profile": "short"},
        {"id": "w0!1", "subtime": 0, "res": 16, "walltime": -1, "profile": "long"},
        {"id": "w0!2", "subtime": 5.5, "res": 2, "profile": "short"},
    ],
    "profiles": {"short": {"type": "delay", "delay": 100},
                 "long": {"type": "delay", "delay": 3600.25}},
}


def dump(tmp_path: Path, doc: object, name: str = "w.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_small_workload_fields(tmp_path):
    w = read_batsim(dump(tmp_path, SMALL))
    assert w.machine_size == 16
    assert w.job_id.tolist() == [1, 2, 3]  # sorted by submit; numbers after the '!'
    assert w.submit.tolist() == [0.0, 5.5, 10.0]
    assert w.runtime.tolist() == [3600.25, 100.0, 100.0]
    assert w.size.tolist() == [16, 2, 4]
    assert w.estimate.tolist() == [3600.25, 100.0, 200.0]  # walltime -1 or missing: runtime
    assert w.extra[ID_COLUMN].tolist() == ["w0!1", "w0!2", "w0!3"]
    assert w.counts["requested_time_missing"] == 2
    assert w.counts["unsorted_submits"] == 1
    assert w.counts["jobs"] == 3


def test_ids_that_are_not_numbered_become_1_to_n(tmp_path):
    doc = json.loads(json.dumps(SMALL))
    for job, name in zip(doc["jobs"], ("c", "a", "b"), strict=True):
        job["id"] = name
    w = read_batsim(dump(tmp_path, doc))
    assert w.job_id.tolist() == [2, 3, 1]  # file order numbers, then sorted by submit
    assert w.extra[ID_COLUMN].tolist() == ["a", "b", "c"]


def test_write_then_read_is_the_same_and_byte_identical(tmp_path):
    w = read_batsim(dump(tmp_path, SMALL))
    write_batsim(tmp_path / "a.json", w)
    write_batsim(tmp_path / "b.json", w)
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    back = read_batsim(tmp_path / "a.json")
    for col in ("job_id", "submit", "runtime", "estimate", "size"):
        assert np.array_equal(getattr(back, col), getattr(w, col)), col
    assert back.extra[ID_COLUMN].tolist() == w.extra[ID_COLUMN].tolist()
    doc = json.loads((tmp_path / "a.json").read_text())
    assert all(p["type"] == "delay" for p in doc["profiles"].values())
    assert len(doc["profiles"]) == 2  # one per distinct run time


def test_lublin_round_trips_through_both_formats(tmp_path):
    spec = "lublin:n=300,seed=4"
    w = load_workload(spec)
    for name in ("l.json", "l.swf", "l.swf.gz"):
        assert main(["convert", spec, str(tmp_path / name)]) == 0
        back = load_workload(str(tmp_path / name))
        for col in ("job_id", "submit", "runtime", "estimate", "size"):
            assert np.array_equal(getattr(back, col), getattr(w, col)), (name, col)
        assert back.machine_size == w.machine_size


@pytest.mark.parametrize("spec", ["grid:n=50,seed=3", "htc:days=1,seed=2", "builtin"])
def test_generated_workloads_convert_to_both_formats(tmp_path, spec):
    for name in ("g.json", "g.swf"):
        assert main(["convert", spec, str(tmp_path / name), "--first", "40"]) == 0
        back = load_workload(str(tmp_path / name))
        assert len(back) == 40


def test_convert_is_deterministic(tmp_path):
    for name in ("a.json", "b.json", "a.json.gz", "b.json.gz"):
        assert main(["convert", "lublin:n=100,seed=2", str(tmp_path / name)]) == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    # Compressed, with no time stamp: the same bytes, and the same workload read back.
    assert (tmp_path / "a.json.gz").read_bytes() == (tmp_path / "b.json.gz").read_bytes()
    assert gzip.decompress((tmp_path / "a.json.gz").read_bytes()) == (
        tmp_path / "a.json").read_bytes()
    assert np.array_equal(read_batsim(tmp_path / "a.json.gz").submit,
                          read_batsim(tmp_path / "a.json").submit)


def run_jobs(tmp_path: Path, workload: str, name: str, *extra: str) -> list[tuple[str, ...]]:
    out = tmp_path / name
    assert main(["run", "--workload", workload, "--scheduler", "easy", "--out", str(out),
                 *extra]) == 0
    with open(out / "jobs.csv", newline="") as fh:
        return [(r["job_id"], r["start"], r["end"]) for r in csv.DictReader(fh)]


def test_lublin_json_runs_the_same_schedule(tmp_path):
    spec = "lublin:n=400,seed=5"
    assert main(["convert", spec, str(tmp_path / "l.json")]) == 0
    assert (run_jobs(tmp_path, spec, "gen")
            == run_jobs(tmp_path, str(tmp_path / "l.json"), "json"))


def test_sdsc_json_runs_the_same_schedule(tmp_path):
    if not SDSC.exists():
        pytest.skip(f"needs ../shared/data (the SDSC-SP2 trace expected at {SDSC})")
    out = tmp_path / "sdsc.json"
    assert main(["convert", str(SDSC), str(out), "--first", "500"]) == 0
    assert len(read_batsim(out)) == 500
    assert (run_jobs(tmp_path, str(SDSC), "swf", "--first", "500")
            == run_jobs(tmp_path, str(out), "json"))
    back = tmp_path / "back.swf"
    assert main(["convert", str(out), str(back)]) == 0
    w, b = read_swf(SDSC), read_swf(back)
    assert np.array_equal(w.runtime[:500], b.runtime)
    assert np.array_equal(w.estimate[:500], b.estimate)


def one_line_error(path: Path) -> str:
    with pytest.raises(CkptsimError) as exc:
        read_batsim(path)
    text = str(exc.value)
    assert "\n" not in text
    assert str(path) in text
    return text


def modified(**changes: object) -> dict:
    doc = json.loads(json.dumps(SMALL))
    for key, value in changes.items():
        if key == "short_profile":
            doc["profiles"]["short"] = value
        elif value is None:
            del doc["jobs"][0][key]
        else:
            doc["jobs"][0][key] = value
    return doc


def test_other_profile_type_is_refused_naming_it(tmp_path):
    text = one_line_error(dump(tmp_path, modified(short_profile={
        "type": "parallel_homogeneous", "cpu": 1e9, "com": 0})))
    assert "'parallel_homogeneous'" in text and "'short'" in text and "'w0!3'" in text


@pytest.mark.parametrize("field", ["res", "subtime", "profile", "id"])
def test_missing_field_names_the_job(tmp_path, field):
    text = one_line_error(dump(tmp_path, modified(**{field: None})))
    assert f"missing field {field!r}" in text
    assert "jobs[0]" in text


@pytest.mark.parametrize(("field", "value", "words"), [
    ("subtime", 1e12, "beyond the largest time"),
    ("walltime", 1e11, "beyond the largest time"),
    ("subtime", -5, ">= 0"),
    ("res", 2.5, "whole number"),
    ("res", 0, "whole number"),
    ("res", 1 << 21, "MAX_NODES"),
    ("profile", "nope", "not in 'profiles'"),
])
def test_absurd_values_name_the_job(tmp_path, field, value, words):
    text = one_line_error(dump(tmp_path, modified(**{field: value})))
    assert words in text and "'w0!3'" in text


def test_absurd_delay_names_the_profile(tmp_path):
    doc = modified(short_profile={"type": "delay", "delay": 1e20})
    text = one_line_error(dump(tmp_path, doc))
    assert "profile 'short'" in text and "beyond the largest time" in text


def test_not_json_and_bad_top_level(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert "not a Batsim JSON workload" in one_line_error(bad)
    assert "'nb_res'" in one_line_error(dump(tmp_path, {"jobs": [], "profiles": {}}))
    with pytest.raises(WorkloadError):
        read_batsim(tmp_path / "missing.json")


@pytest.mark.parametrize("text, key", [
    ('{"nb_res": 4, "nb_res": 8, "jobs": [], "profiles": {}}', "nb_res"),
    ('{"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "res": 1, "profile": "p"}], '
     '"profiles": {"p": {"type": "delay", "delay": 5}}, "jobs": []}', "jobs"),
    ('{"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "subtime": 9, "res": 1, '
     '"profile": "p"}], "profiles": {"p": {"type": "delay", "delay": 5}}}', "subtime"),
])
def test_a_key_given_twice_is_refused_not_overwritten(tmp_path, text, key):
    path = tmp_path / "dup.json"
    path.write_text(text)
    assert f"gives the key {key!r} twice" in one_line_error(path)


def test_a_huge_value_is_shown_cut(tmp_path):
    # The error printed all 400 digits of the number (or a whole list given as a job).
    doc = modified()
    doc["jobs"][0]["subtime"] = 10**400
    text = one_line_error(dump(tmp_path, doc))
    assert "subtime must be a finite number, got 1000000000" in text
    assert "... (401 characters)" in text and len(text) < 200 + len(str(tmp_path))
    doc = modified()
    doc["jobs"][0] = list(range(1000))
    text = one_line_error(dump(tmp_path, doc))
    assert "a job must be an object, got [0, 1, 2" in text and len(text) < 200 + len(str(tmp_path))


def test_json_nested_too_deep_is_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested too deep" in one_line_error(deep)


def test_oversize_jobs_skip_or_clamp(tmp_path):
    path = dump(tmp_path, SMALL)
    assert len(read_batsim(path, machine_size=8)) == 2
    w = read_batsim(path, machine_size=8, oversize="clamp")
    assert w.size.max() == 8 and w.counts["clamped_too_large"] == 1


def test_convert_errors_are_one_line(tmp_path, capsys):
    assert main(["convert", "lublin:n=10", str(tmp_path / "x.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown suffix '.txt'" in err
    bad = dump(tmp_path, modified(res=None))
    assert main(["convert", str(bad), str(tmp_path / "y.swf")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err and "'w0!3'" in err
    assert main(["run", "--workload", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing field 'res'" in err


# A trace with a header and fields a Batsim job has no place for: users, groups, queues,
# memory, a status, processors allocated unlike those requested.
TRACE = """; Version: 2.2
; Computer: Test machine
; Acknowledge: the trace's owners, to be kept
; MaxProcs: 8
; Note: first line
;       second line
1 0 5 100 4 90 1024 4 200 2048 1 7 2 3 1 1 -1 -1
2 10 0 50 2 -1 -1 3 60 -1 0 8 2 -1 2 1 1 30
3 20 0 30 8 -1 -1 8 -1 -1 5 7 3 -1 1 1 -1 -1
"""


def test_an_swf_trace_goes_through_json_and_back_unchanged(tmp_path):
    # Batsim jobs have no user, group, queue or memory, and the file no header: they were
    # lost (a schedule.swf from the JSON lacked the trace's acknowledgement and its users).
    # They travel in each job's `swf` list and the top-level `swf_header`.
    swf = tmp_path / "t.swf"
    swf.write_text(TRACE)
    assert main(["convert", str(swf), str(tmp_path / "t.json")]) == 0
    assert main(["convert", str(tmp_path / "t.json"), str(tmp_path / "back.swf")]) == 0
    assert main(["convert", str(swf), str(tmp_path / "direct.swf")]) == 0
    assert (tmp_path / "back.swf").read_bytes() == (tmp_path / "direct.swf").read_bytes()
    doc = json.loads((tmp_path / "t.json").read_text())
    assert doc["swf_header"]["Acknowledge"] == "the trace's owners, to be kept"
    assert doc["swf_header"]["Note"] == "first line\nsecond line"
    assert doc["jobs"][1]["swf"] == [2, 10, 0, 50, 2, -1, -1, 3, 60, -1, 0, 8, 2, -1, 2, 1, 1, 30]
    # A run on either gives the same outputs, schedule.swf's header and users included.
    for name, workload in (("a", swf), ("b", tmp_path / "t.json")):
        assert main(["run", "--workload", str(workload), "--out", str(tmp_path / name)]) == 0
    for f in ("jobs.csv", "schedule.swf", "out_jobs.csv"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    assert "; Acknowledge: the trace's owners, to be kept" in (tmp_path / "b" /
                                                               "schedule.swf").read_text()


def test_a_real_trace_goes_through_json_and_back_unchanged(tmp_path):
    if not SDSC.exists():
        pytest.skip(f"needs ../shared/data (the SDSC-SP2 trace expected at {SDSC})")
    assert main(["convert", str(SDSC), str(tmp_path / "s.json"), "--first", "800"]) == 0
    assert main(["convert", str(tmp_path / "s.json"), str(tmp_path / "back.swf")]) == 0
    assert main(["convert", str(SDSC), str(tmp_path / "direct.swf"), "--first", "800"]) == 0
    assert (tmp_path / "back.swf").read_bytes() == (tmp_path / "direct.swf").read_bytes()


@pytest.mark.parametrize(("change", "words"), [
    ({"swf": [1, 2]}, "swf must be a list of the 18 SWF fields"),
    ({"swf": ["a"] * 18}, "swf must be a list of the 18 SWF fields"),
])
def test_a_bad_swf_list_names_the_job(tmp_path, change, words):
    doc = json.loads(json.dumps(SMALL))
    doc["jobs"][0].update(change)
    text = one_line_error(dump(tmp_path, doc))
    assert words in text and "'w0!3'" in text


def test_a_bad_swf_header_is_refused(tmp_path):
    doc = {**SMALL, "swf_header": ["Acknowledge"]}
    assert "swf_header must be an object of strings" in one_line_error(dump(tmp_path, doc))


@pytest.mark.parametrize("key", ["Max Procs", "1st", "", "Note:"])
def test_an_swf_header_key_that_is_not_one_is_refused_when_read(tmp_path, key):
    # It was read, and refused only by `convert` to SWF, naming neither file.
    doc = {**SMALL, "swf_header": {"Computer": "x", key: "y"}}
    text = one_line_error(dump(tmp_path, doc))
    assert f"swf_header: key {key!r} is not a valid SWF header key" in text


def test_a_batsim_workload_without_swf_fields_writes_none(tmp_path):
    write_batsim(tmp_path / "a.json", read_batsim(dump(tmp_path, SMALL)))
    doc = json.loads((tmp_path / "a.json").read_text())
    assert "swf_header" not in doc and all("swf" not in j for j in doc["jobs"])


def test_jobs_with_and_without_swf_lists_in_one_file(tmp_path):
    doc = json.loads(json.dumps(SMALL))
    doc["jobs"][0]["swf"] = [3, 10, 0, 100, 6, -1, -1, 4, 200, -1, 0, 9, 9, -1, -1, -1, -1, -1]
    w = read_batsim(dump(tmp_path, doc))  # in submit order: w0!1, w0!2, w0!3
    cols = [SWF_INDEX[k] for k in ("allocated_processors", "requested_processors", "status",
                                   "user_id")]
    # The job's own res decides its size; its swf list the rest; the others as before.
    assert w.fields[:, cols].tolist() == [[16, 16, 1, -1], [2, 2, 1, -1], [6, 4, 0, 9]]


def test_a_grid_workload_runs_the_same_from_json(tmp_path):
    # The grid's per-job columns (home cluster, bandwidths) and its shape travel too: they
    # were dropped, and `coalloc` refused the JSON as "not a grid workload".
    spec = "grid:n=150,seed=2,error=1,ppbw=400"
    assert main(["convert", spec, str(tmp_path / "g.json")]) == 0
    w, back = load_workload(spec), read_batsim(tmp_path / "g.json")
    for name, column in w.extra.items():
        assert back.extra[name].dtype == column.dtype and np.array_equal(back.extra[name],
                                                                         column), name
    for name, workload in (("a", spec), ("b", str(tmp_path / "g.json"))):
        assert main(["run", "--workload", workload, "--scheduler", "coalloc", "--set",
                     "ctmr=true", "--out", str(tmp_path / name)]) == 0
    for f in ("jobs.csv", "allocations.csv"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_a_grid_workload_with_hidden_bandwidths_runs_the_same_from_json(tmp_path):
    # info < 1: jobs revealing no bandwidth have a NaN estimate, which was written as `NaN`
    # (not JSON) and refused when read back; it is `null` now.
    spec = "grid:n=100,seed=3,error=0.5,info=0.5"
    out = tmp_path / "g.json"
    assert main(["convert", spec, str(out)]) == 0

    def no_constants(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    doc = json.loads(out.read_text(), parse_constant=no_constants)
    estimates = [job["extra"]["ppbw_estimate"] for job in doc["jobs"]]
    assert None in estimates and any(isinstance(v, float) for v in estimates)
    w, back = load_workload(spec), read_batsim(out)
    for name, column in w.extra.items():
        assert back.extra[name].dtype == column.dtype, name
        assert np.array_equal(back.extra[name], column, equal_nan=True), name
    for name, workload in (("a", spec), ("b", str(out))):
        assert main(["run", "--workload", workload, "--scheduler", "coalloc",
                     "--out", str(tmp_path / name)]) == 0
    for f in ("jobs.csv", "allocations.csv"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_an_infinite_extra_value_is_refused_when_written(tmp_path):
    w = load_workload("grid:n=5,seed=1")
    column = w.extra["ppbw"].copy()
    column[2] = np.inf
    with pytest.raises(WorkloadError, match="extra column 'ppbw' is inf, which JSON cannot"):
        write_batsim(tmp_path / "g.json", w.with_extra(ppbw=column))


@pytest.mark.parametrize(("extras", "words"), [
    ([{"c": 1}, {"d": 1}, {"c": 2}], "extra must give the columns the first job gives (c)"),
    ([{"c": 1}, {"c": "x"}, {"c": 2}], "extra 'c' must be a finite number or null"),
    ([{"c": 1}, None, {"c": 2}], "extra must give the columns the first job gives"),
    ([[], None, None], "extra must be an object of per-job numbers"),
    ([None, {"c": 1}, None], "extra is given here but not by the first job"),
])
def test_bad_extra_columns_name_the_job(tmp_path, extras, words):
    doc = json.loads(json.dumps(SMALL))
    for job, extra in zip(doc["jobs"], extras, strict=True):
        if extra is not None:
            job["extra"] = extra
    assert words in one_line_error(dump(tmp_path, doc))


def test_convert_notes_jobs_batsim_would_refuse(tmp_path, capsys):
    """Batsim refuses a delay profile of 0 s; ckptsim writes and reads it, and says so."""
    swf = tmp_path / "t.swf"
    swf.write_text("; MaxProcs: 8\n"
                   "1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
                   "2 5 -1 0 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
                   "3 6 -1 0 1 -1 -1 1 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    out = tmp_path / "t.json"
    assert main(["convert", str(swf), str(out)]) == 0
    err = capsys.readouterr().err
    assert err == ("ckptsim: note: 2 job(s) run for 0 s (profile delay_0): Batsim refuses a "
                   "delay profile that is not > 0 s, though ckptsim reads it; for Batsim, "
                   "remove those jobs from the input first (in an SWF trace: run time, field "
                   "4, is 0)\n")
    assert json.loads(out.read_text())["profiles"]["delay_0"] == {"type": "delay", "delay": 0}
    assert len(read_batsim(out)) == 3
    assert main(["convert", "lublin:n=30,seed=1", str(tmp_path / "l.json")]) == 0
    assert "note" not in capsys.readouterr().err


def test_an_upper_case_gz_suffix_is_compressed_for_both_formats(tmp_path):
    # `.SWF.GZ` was written as plain text (though `.JSON.GZ` was compressed).
    for name in ("l.SWF.GZ", "l.JSON.GZ", "l.swf.Gz"):
        assert main(["convert", "lublin:n=30,seed=1", str(tmp_path / name)]) == 0
        assert (tmp_path / name).read_bytes()[:2] == b"\x1f\x8b", name
        assert len(load_workload(str(tmp_path / name))) == 30


def test_convert_refuses_to_overwrite_its_input(tmp_path, capsys, monkeypatch):
    src = tmp_path / "l.swf"
    assert main(["convert", "lublin:n=30,seed=1", str(src)]) == 0
    before = src.read_bytes()
    monkeypatch.chdir(tmp_path)
    for out in (str(src), "l.swf", "./l.swf"):
        capsys.readouterr()
        assert main(["convert", str(src), out, "--first", "5"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"ckptsim: error: OUT: {out!r} is the input file "), err
        assert err.count("\n") == 1
    assert src.read_bytes() == before
    assert main(["convert", str(src), "m.swf", "--first", "5"]) == 0  # another file is fine


@pytest.mark.parametrize("name", ["o.swf", "o.json"])
def test_convert_writes_the_outputs_job_counts_in_the_header(tmp_path, name):
    # A cut output kept the source's MaxJobs and MaxRecords (300 for 40 jobs).
    out = tmp_path / name
    assert main(["convert", "lublin:n=300,seed=4", str(out), "--first", "40"]) == 0
    header = load_workload(str(out)).header
    assert header["MaxJobs"] == header["MaxRecords"] == "40"
    if name.endswith(".swf"):
        text = out.read_text()
        assert "; MaxJobs: 40\n" in text and "; MaxRecords: 40\n" in text
    plain = tmp_path / "p.swf"
    plain.write_text("; MaxProcs: 8\n1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    assert main(["convert", str(plain), str(tmp_path / "q.swf")]) == 0
    assert "MaxJobs" not in (tmp_path / "q.swf").read_text()  # not added where there was none
