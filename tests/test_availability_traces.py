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
