"""Tests of the workload transforms: hand-computed values, purity, notes, parameter errors."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from ckptsim.errors import ConfigError
from ckptsim.workload.model import SWF_INDEX, Workload, from_columns
from ckptsim.workload.swf import read_swf, write_swf
from ckptsim.workload.transforms import first_n, interpolate_estimates, scale_load, time_window

REQ = SWF_INDEX["requested_time"]


@pytest.fixture
def w() -> Workload:
    """Four jobs; job 3 has no requested time (-1) and job 4 ran longer than it asked."""
    base = from_columns(submit=[0, 10, 25, 40], runtime=[100, 50, 30, 80], size=[1, 2, 4, 8],
                        estimate=[400, 50, 30, 60], job_id=[11, 12, 13, 14], machine_size=8,
                        header={"UnixStartTime": "1000", "MaxProcs": "8"})
    fields = base.fields.copy()
    fields[2, REQ] = -1
    return replace(base, fields=fields, counts={"jobs": 4})


def snapshot(w: Workload) -> list[list[float]]:
    return [c.tolist() for c in (w.job_id, w.submit, w.runtime, w.estimate, w.size)] + \
        [w.fields.tolist()]


# ---------------------------------------------------------------------------- interpolate


def test_interpolate_hand_computed(w: Workload) -> None:
    before = snapshot(w)
    half = interpolate_estimates(w, 0.5)
    # t_run + 0.5 (t_req - t_run): 100 + 150, 50 + 0, 30 (no request), 80 - 10
    assert half.estimate.tolist() == [250.0, 50.0, 30.0, 70.0]
    assert half.runtime.tolist() == w.runtime.tolist()
    assert half.transforms == ("interpolate_estimates(alpha=0.5)",)
    assert half.counts == w.counts
    assert snapshot(w) == before  # the input is unchanged


def test_interpolate_ends(w: Workload) -> None:
    assert interpolate_estimates(w, 0).estimate.tolist() == [100.0, 50.0, 30.0, 80.0]
    assert interpolate_estimates(w, 1).estimate.tolist() == [400.0, 50.0, 30.0, 60.0]


def test_interpolate_uses_the_raw_request_so_it_does_not_compound(w: Workload) -> None:
    twice = interpolate_estimates(interpolate_estimates(w, 0.5), 0.25)
    assert twice.estimate.tolist() == [175.0, 50.0, 30.0, 75.0]
    assert len(twice.transforms) == 2


def test_interpolate_above_one_clamps_negative_estimates(w: Workload) -> None:
    wide = interpolate_estimates(w, 5)
    # 100 + 5*300, 50, 30, 80 + 5*(-20) = -20 -> 0
    assert wide.estimate.tolist() == [1600.0, 50.0, 30.0, 0.0]
    assert wide.transforms == ("interpolate_estimates(alpha=5): 1 negative estimates clamped to 0",)


@pytest.mark.parametrize("alpha", [-0.1, math.nan, math.inf, "0.5", None, True])
def test_interpolate_bad_alpha(w: Workload, alpha: object) -> None:
    with pytest.raises(ConfigError) as info:
        interpolate_estimates(w, alpha)  # type: ignore[arg-type]
    assert info.value.key == "alpha" and ">= 0" in str(info.value)


@pytest.mark.parametrize(("alpha", "words"), [
    (1e308, "more than 1e+308 s"),  # overflowed to inf, with numpy warnings
    (1e8, "3e+10 s"),  # 100 + 1e8 * 300: an SWF that read_swf refuses
])
def test_interpolate_refuses_estimates_beyond_max_seconds(w: Workload, alpha: float,
                                                          words: str) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ConfigError) as info:
            interpolate_estimates(w, alpha)
    assert info.value.key == "alpha"
    assert f"makes the longest estimate {words}, beyond the 1e+10 s" in str(info.value)
    assert interpolate_estimates(w, 1e7).estimate.max() == 100 + 1e7 * 300  # within it


# ---------------------------------------------------------------------------- scale_load


def test_scale_load_hand_computed(w: Workload) -> None:
    before = snapshot(w)
    scaled = scale_load(w, 1.5)
    assert scaled.runtime.tolist() == [150.0, 75.0, 45.0, 120.0]
    assert scaled.estimate.tolist() == [600.0, 75.0, 45.0, 90.0]
    assert scaled.submit.tolist() == w.submit.tolist() and scaled.size.tolist() == w.size.tolist()
    assert scaled.fields[:, SWF_INDEX["run_time"]].tolist() == [150.0, 75.0, 45.0, 120.0]
    assert scaled.fields[:, REQ].tolist() == [600.0, 75.0, -1.0, 90.0]  # unknown stays -1
    assert scaled.offered_load() == pytest.approx(1.5 * w.offered_load())
    assert scaled.transforms == ("scale_load(c=1.5)",)
    assert snapshot(w) == before


def test_scale_then_interpolate_uses_scaled_requests(w: Workload) -> None:
    both = interpolate_estimates(scale_load(w, 2), 0.5)
    assert both.estimate.tolist() == [500.0, 100.0, 60.0, 140.0]


@pytest.mark.parametrize("c", [0, -1.0, math.inf, math.nan, "2", None])
def test_scale_load_bad_factor(w: Workload, c: object) -> None:
    with pytest.raises(ConfigError) as info:
        scale_load(w, c)  # type: ignore[arg-type]
    assert info.value.key == "c" and "> 0" in str(info.value)


# ---------------------------------------------------------------------------- first_n


def test_first_n(w: Workload) -> None:
    two = first_n(w, 2)
    assert two.job_id.tolist() == [11, 12]
    assert two.fields.shape == (2, 18) and two.fields[:, 0].tolist() == [11, 12]
    assert two.transforms == ("first_n(2)",)
    assert first_n(w, np.int64(3)).n_jobs == 3  # type: ignore[arg-type]
    assert first_n(w, 100).job_id.tolist() == [11, 12, 13, 14]
    assert w.n_jobs == 4


@pytest.mark.parametrize("n", [0, -2, 2.5, True, "3", None])
def test_first_n_bad(w: Workload, n: object) -> None:
    with pytest.raises(ConfigError) as info:
        first_n(w, n)  # type: ignore[arg-type]
    assert info.value.key == "n" and ">= 1" in str(info.value)


# ---------------------------------------------------------------------------- time_window


def test_time_window_rebased(w: Workload) -> None:
    before = snapshot(w)
    win = time_window(w, 10, 40)
    assert win.job_id.tolist() == [12, 13]
    assert win.submit.tolist() == [0.0, 15.0]
    assert win.fields[:, SWF_INDEX["submit_time"]].tolist() == [0.0, 15.0]
    assert win.header["UnixStartTime"] == "1010" and win.header["MaxProcs"] == "8"
    assert w.header["UnixStartTime"] == "1000"
    assert win.runtime.tolist() == [50.0, 30.0]
    assert win.transforms == ("time_window(start=10, end=40, rebase)",)
    assert snapshot(w) == before


def test_time_window_not_rebased_and_open_end(w: Workload) -> None:
    win = time_window(w, 20, math.inf, rebase=False)
    assert win.job_id.tolist() == [13, 14]
    assert win.submit.tolist() == [25.0, 40.0]
    assert win.header == {**w.header, "Note": "time_window(start=20, end=inf): the jobs "
                                              "submitted in [20, inf) s of the source"}
    assert win.transforms == ("time_window(start=20, end=inf)",)


def test_time_window_start_between_jobs(w: Workload) -> None:
    win = time_window(w, 5, 26)
    assert win.job_id.tolist() == [12, 13] and win.submit.tolist() == [5.0, 20.0]


@pytest.mark.parametrize(("start", "end", "key", "text"), [
    (-1, 10, "start", ">= 0"),
    (math.nan, 10, "start", ">= 0"),
    (math.inf, 10, "start", ">= 0"),
    ("0", 10, "start", ">= 0"),
    (10, 10, "end", "> start = 10"),
    (10, 5, "end", "> start = 10"),
    (0, math.nan, "end", "> start = 0"),
    (41, 100, "start/end", "holds no job"),
])
def test_time_window_bad(w: Workload, start: object, end: object, key: str, text: str) -> None:
    with pytest.raises(ConfigError) as info:
        time_window(w, start, end)  # type: ignore[arg-type]
    assert info.value.key == key and text in str(info.value)


def test_time_window_bad_rebase(w: Workload) -> None:
    with pytest.raises(ConfigError) as info:
        time_window(w, 0, 10, rebase="yes")  # type: ignore[arg-type]
    assert info.value.key == "rebase"


def test_chain_on_a_read_trace_written_back(tmp_path: Path) -> None:
    fields = np.full((3, 18), -1.0)
    fields[:, 0] = [1, 2, 3]
    fields[:, 1] = [0, 100, 200]
    fields[:, 3] = [10, 20, 30]
    fields[:, 7] = [1, 1, 2]
    fields[:, 8] = [40, -1, 60]
    path = tmp_path / "t.swf"
    write_swf(path, fields, {"MaxProcs": "4"})
    w = read_swf(path)
    out = interpolate_estimates(scale_load(time_window(w, 50, 300), 2), 0.5)
    assert out.submit.tolist() == [50.0, 150.0]
    assert out.runtime.tolist() == [40.0, 60.0]
    assert out.estimate.tolist() == [40.0, 90.0]
    assert out.counts == w.counts
    assert len(out.transforms) == 3
    # the written copy is the simulated workload
    write_swf(tmp_path / "out.swf", out.fields, out.header)
    again = read_swf(tmp_path / "out.swf")
    assert again.submit.tolist() == [50.0, 150.0] and again.runtime.tolist() == [40.0, 60.0]


# ------------------------------------------------------------- the header of a cut workload
DATED = {"MaxJobs": "90", "MaxRecords": "95", "UnixStartTime": "893466664",
         "StartTime": "Fri Apr 24 18:11:04 PDT 1998", "EndTime": "Sat Apr 29 21:08:32 PDT 2000",
         "MaxProcs": "8", "Note": "a cleaned log"}


def test_a_windows_header_describes_its_own_time_0_and_names_the_window(w: Workload) -> None:
    """UnixStartTime moves to the window's start; StartTime (the source's time 0) and EndTime
    (the source's end) go; the counts are the jobs kept; a Note names the window.  The header
    kept StartTime, EndTime and the counts, and said nothing of the window."""
    win = time_window(replace(w, header=DATED), 10, 40)
    assert win.header == {"MaxJobs": "2", "MaxRecords": "2", "UnixStartTime": "893466674",
                          "MaxProcs": "8",
                          "Note": "a cleaned log\ntime_window(start=10, end=40): the jobs "
                                  "submitted in [10, 40) s of the source, submit times moved "
                                  "10 s earlier (time 0 is the window's start)"}
    whole = time_window(replace(w, header=DATED), 0, math.inf)  # nothing cut or moved
    assert whole.header == DATED


def test_first_n_counts_the_jobs_kept_and_says_so(w: Workload) -> None:
    cut = first_n(replace(w, header=DATED), 3)
    assert cut.header == {**{k: v for k, v in DATED.items() if k != "EndTime"},
                          "MaxJobs": "3", "MaxRecords": "3",
                          "Note": "a cleaned log\nfirst_n(3): the first 3 jobs of the source"}
    assert first_n(replace(w, header=DATED), 10).header == DATED


def test_a_runs_schedule_swf_of_a_cut_trace_has_its_own_counts(tmp_path: Path) -> None:
    """`run --first/--window` writes schedule.swf's header as `convert` writes the file; a
    run of the whole trace keeps the source's header."""
    from ckptsim.cli import main

    src = tmp_path / "t.swf"
    write_swf(src, _fields(6), header=DATED)
    assert main(["run", "--workload", str(src), "--first", "4", "--out",
                 str(tmp_path / "first")]) == 0
    assert main(["convert", str(src), str(tmp_path / "first.swf"), "--first", "4"]) == 0
    ran = read_swf(tmp_path / "first" / "schedule.swf").header
    converted = read_swf(tmp_path / "first.swf").header
    for key in ("MaxJobs", "MaxRecords", "Note", "UnixStartTime", "StartTime"):
        assert ran.get(key) == converted.get(key), key
    assert ran["MaxJobs"] == "4" and "EndTime" not in ran
    assert main(["run", "--workload", str(src), "--window", "100", "1e9", "--out",
                 str(tmp_path / "win")]) == 0
    ran = read_swf(tmp_path / "win" / "schedule.swf").header
    assert ran["UnixStartTime"] == "893466764" and "StartTime" not in ran
    assert ran["Note"].endswith("submit times moved 100 s earlier (time 0 is the window's "
                                "start)")
    assert main(["run", "--workload", str(src), "--out", str(tmp_path / "all")]) == 0
    ran = read_swf(tmp_path / "all" / "schedule.swf").header
    assert (ran["MaxJobs"], ran["EndTime"], ran["Note"]) == ("90", DATED["EndTime"],
                                                              "a cleaned log")


def _fields(n: int) -> np.ndarray:
    rows = [[i + 1, 50 * i, -1, 30, 2, -1, -1, 2, 60, -1, 1, -1, -1, -1, -1, -1, -1, -1]
            for i in range(n)]
    return np.asarray(rows, dtype=float)
