"""Availability traces as the availability component reads them: the options of a trace
source (`ckptsim.platform.avt.parse_source`) and what a trace replays on the machines."""

from __future__ import annotations

import pytest

from ckptsim.components.availability import Availability
from ckptsim.errors import ConfigError

FTA_HEADER = ("event_id component_id node_id platform_id node_name event_type "
              "event_start_time event_stop_time event_end_reason\n")


def fta_file(tmp_path, rows: list[str]) -> str:
    path = tmp_path / "event_trace.tab"
    path.write_text(FTA_HEADER + "".join(f"{row}\n" for row in rows))
    return str(path)


@pytest.mark.parametrize("platform", ["5.7", "5.0", "5e0", "-1", "five", ""])
def test_an_fta_trace_platform_is_a_whole_number(tmp_path, platform):
    # 5.7 used to be read as platform 5 (int(float(...))).
    path = fta_file(tmp_path, ["0 0 1 5 a 0 100 200 NULL"])
    with pytest.raises(ConfigError) as err:
        Availability.make_params({"trace": f"fta:path={path},platform={platform}"})
    assert err.value.key == "availability.trace"
    assert f"platform={platform!r}" in str(err.value)
    assert "an integer >= 0" in str(err.value)


def test_an_fta_trace_platform_selects_that_platform(tmp_path):
    from ckptsim.platform.avt import load_source

    path = fta_file(tmp_path, ["0 0 1 5 a 0 100 200 NULL", "1 0 2 6 b 0 150 400 NULL"])
    Availability.make_params({"trace": f"fta:path={path},platform=6"})
    t = load_source(f"fta:path={path},platform=6")
    assert (t.names, t.start.tolist(), t.end.tolist()) == (("2",), [0.0], [250.0])


def test_a_start_past_the_trace_end_is_refused(tmp_path):
    # It used to replay nothing: every machine available, silently (e.g. start in minutes
    # typed as seconds past a 35-day trace).
    from ckptsim.platform.avt import map_onto, read_avt

    path = tmp_path / "t.avt"
    path.write_text("x 1 10 50\ny 1 0 40\n")
    t = read_avt(path)
    for start in (50.0, 4e6):
        with pytest.raises(ConfigError) as err:
            map_onto(t, 2, skip=start)
        assert err.value.key == "availability.trace"
        assert f"start={start:.10g} skips the whole trace" in str(err.value)
        assert "ends at 50 s; accepted: a start below 50 s" in str(err.value)
    m, s, e = map_onto(t, 2, skip=45.0)  # y is down over [40, 50): 5 s of it is left
    assert (m.tolist(), s.tolist(), e.tolist()) == ([1], [0.0], [5.0])


def test_a_start_past_an_fta_trace_end_counts_its_open_repairs(tmp_path):
    from ckptsim.platform.avt import load_source, map_onto

    # The last failure starts at 100 s after the first; its repair lasts to 300 s.
    path = fta_file(tmp_path, ["0 0 1 5 a 0 1000 1050 NULL", "1 0 2 5 b 0 1100 1300 NULL"])
    t = load_source(f"fta:path={path}")
    assert map_onto(t, 2, skip=250.0)[1].tolist() == [0.0]
    with pytest.raises(ConfigError, match="ends at 300 s"):
        map_onto(t, 2, skip=300.0)


def test_a_run_with_a_start_past_the_trace_end_is_refused(tmp_path):
    from helpers import jobs

    from ckptsim.engine.simulator import Simulator
    from ckptsim.policies.base import scheduler_factory

    path = tmp_path / "t.avt"
    path.write_text("x 1 10 50\n")
    comp = Availability(Availability.make_params({"trace": f"avt:path={path},start=60"}))
    with pytest.raises(ConfigError, match="start=60 skips the whole trace"):
        Simulator(jobs([(0.0, 10.0, 1, 10.0)], 2), scheduler_factory("easy"),
                  components=[comp]).run()


def test_an_avt_trace_starts_when_its_measurements_start(tmp_path):
    # web_sites.avt's sessions start at 86,124 s at the earliest: counted from the file's 0,
    # every machine was down for the run's first day, before any node was measured.
    from ckptsim.platform.avt import map_onto, read_avt

    path = tmp_path / "t.avt"
    path.write_text("x 2 100 120 130 150\ny 1 110 140\nz 0\n")
    t = read_avt(path)
    assert t.span == 50.0  # from 100 (the earliest start) to 150 (the latest end)
    got = list(zip(t.node.tolist(), t.start.tolist(), t.end.tolist(), strict=True))
    # x: down between 120 and 130; y: down before 110 and after 140; z: down throughout.
    assert got == [(0, 20.0, 30.0), (1, 0.0, 10.0), (1, 40.0, 50.0), (2, 0.0, 50.0)]
    m, s, e = map_onto(t, 2, offset=1000.0)
    assert list(zip(m.tolist(), s.tolist(), e.tolist(), strict=True)) == [
        (1, 1000.0, 1010.0), (0, 1020.0, 1030.0), (1, 1040.0, 1050.0)]
