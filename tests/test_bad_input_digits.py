"""Digits of other scripts ("²", "٣", "０") pass `str.isdigit()` but not `int()`: every reader
and option that checks for a whole number with it must refuse them with its own message,
naming the file, line and field (or the option), never with a ValueError traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import LANL_HEADER, lanl_row

from ckptsim.calendar import parse_clock
from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.failures import read_lanl_cfdr
from ckptsim.platform.avt import parse_source
from ckptsim.platform.hours import WeeklyHours
from ckptsim.platform.users import read_sessions

ODD = ["\u00b2", "\u0663", "\uff10\uff16"]  # superscript two, Arabic-Indic three, fullwidth 06


@pytest.mark.parametrize("digit", ODD)
def test_a_session_machine_index(tmp_path: Path, digit: str) -> None:
    path = tmp_path / "owners.csv"
    path.write_text(f"machine,login,logout\n{digit},100,200\n", encoding="utf-8")
    with pytest.raises(WorkloadError, match="unknown machine") as info:
        read_sessions(path, 10)
    assert (info.value.line, info.value.field) == (2, "machine")


@pytest.mark.parametrize("digit", ODD)
def test_a_time_of_day(digit: str) -> None:
    with pytest.raises(ConfigError, match="expected a time of day HH:MM"):
        parse_clock(f"{digit * (2 // len(digit))}:00", "reboot")
    with pytest.raises(ConfigError):
        WeeklyHours.parse(f"mon-fri {digit * (2 // len(digit))}:00-18:00", "hours")


@pytest.mark.parametrize("digit", ODD)
def test_an_availability_trace_platform(tmp_path: Path, digit: str) -> None:
    with pytest.raises(ConfigError, match="expected a platform_id"):
        parse_source(f"fta:path={tmp_path},platform={digit}")


def test_a_lanl_system_size(tmp_path: Path) -> None:
    path = tmp_path / "lanl.csv"
    path.write_text(LANL_HEADER + "\n" + lanl_row(2, 0, "1/1/2004 0:00", "1/1/2004 0:10",
                                                  nodes="\u00b2") + "\n", encoding="utf-8")
    assert read_lanl_cfdr(path, system=2).node.tolist() == [0]  # the size is unknown
