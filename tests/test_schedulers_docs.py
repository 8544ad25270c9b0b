"""docs/schedulers.md stays true: its commands run, and the table of ckpt-backfill's readings
of an overdue prediction is what those commands give at the scheduler's defaults."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import doc_commands

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "docs" / "schedulers.md").read_text()
TRACE = ROOT.parent / "shared" / "data" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"


def readings_table() -> list[list[str]]:
    head = TEXT.index("| reading | mean wait | slowdown |")
    rows = TEXT[head:].split("\n\n")[0].splitlines()[2:]
    return [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]


def test_the_readings_table_has_a_command_for_every_row():
    """The commands under the table give its rows, in order (the first the default row)."""
    section = TEXT[TEXT.index("| reading | mean wait | slowdown |"):]
    commands = [c for c in doc_commands(section) if "ckpt-backfill" in c][:4]
    rows = readings_table()
    assert len(commands) == len(rows) == 4
    for command, row in zip(commands, rows, strict=True):
        given = dict(a.split("=") for a in re.findall(r"--set (\S+)", command))
        named = dict(re.findall(r"`(\w+)=(\w+)`", row[0]))
        assert {"p": "0.2", "overdue": "estimate", **given} == {
            "p": "0.2", "overdue": "estimate", **named}, (command, row[0])


@pytest.mark.slow
def test_the_readings_table_is_what_its_commands_give():
    """Each row rerun at the scheduler's defaults (the table had kept the numbers of
    `rejoin=second`, the reading of runs recorded before the option, after the default
    became `head`)."""
    import ckptsim

    if not TRACE.exists():
        pytest.skip(f"needs {TRACE}")
    w = ckptsim.workload(str(TRACE))
    for row in readings_table():
        params = {"p": 0.2, **dict(re.findall(r"`(\w+)=(\w+)`", row[0]))}
        run = ckptsim.simulate(w, "ckpt-backfill", params)
        s = run.summary
        assert row[1:] == [f"{s['mean_wait']:,.0f} s", f"{s['mean_bsld']:.1f}",
                           f"{s['max_wait'] / 86400:.1f} d",
                           f"{s['mean_wait_wide'] / 86400:.2f} d",
                           f"{100 * s['preempt_ratio']:.1f}%",
                           f"{s['node_checkpoints_per_node_day']:.2f}"], row[0]
