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
    assert win.header == w.header
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
