"""A value an error quotes from a user's file is cut after 60 characters with its length:
a field of 5,000 characters made a 5,000-character error line (`ckptsim.errors.shown`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import LANL_HEADER, lanl_row

from ckptsim.errors import WorkloadError, shown
from ckptsim.failures import read_fta, read_lanl_cfdr
from ckptsim.platform.avt import read_avt
from ckptsim.platform.users import read_sessions

LONG = "7x" * 2500  # 5,000 characters


def test_shown_keeps_short_values_as_repr() -> None:
    assert shown("abc") == "'abc'" and shown(12.5) == "12.5"
    assert shown(LONG) == repr(LONG)[:60] + "... (5002 characters)"


def _error(read, path: Path) -> str:
    with pytest.raises(WorkloadError) as info:
        read(path)
    text = str(info.value)
    assert "... (5002 characters)" in text and len(text) < 200 + len(str(path)), text
    return text


def test_lanl(tmp_path: Path) -> None:
    path = tmp_path / "lanl.csv"
    path.write_text(f"{LANL_HEADER}\n{lanl_row(2, 0, LONG, '1/1/2004 0:10')}\n")
    assert "field Prob Started" in _error(read_lanl_cfdr, path)


def test_fta(tmp_path: Path) -> None:
    path = tmp_path / "event_trace.tab"
    path.write_text("event_id component_id node_id platform_id node_name event_type "
                    f"event_start_time event_stop_time event_end_reason\n"
                    f"0 0 {LONG} 3 n 0 100 200 0\n")
    assert "field node_id" in _error(read_fta, path)


def test_avt(tmp_path: Path) -> None:
    path = tmp_path / "t.avt"
    path.write_text(f"pc1 1 {LONG} 200\n")
    assert "field start_1" in _error(read_avt, path)


def test_owners_sessions(tmp_path: Path) -> None:
    path = tmp_path / "owners.csv"
    path.write_text(f"machine,login,logout\n0,{LONG},200\n")
    assert "field login" in _error(lambda p: read_sessions(p, 4), path)
