"""The examples of docs/energy.md run as written: Python blocks and `ckptsim` commands."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "energy.md"
SHARED = ROOT.parent / "shared" / "data"


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), flags=re.S)


def test_python_examples_run() -> None:
    codes = blocks("python")
    assert len(codes) >= 3
    for code in codes:
        exec(compile(code, str(DOC), "exec"), {})


def test_commands_run(documented_run) -> None:
    """Every command, run from the repository root (test_checkpoint_seed003 checks the
    checkpoint policies' two on the same runs)."""
    if not SHARED.exists():
        pytest.skip(f"real traces not available at {SHARED}")
    commands = [line for b in blocks("sh") for line in b.splitlines() if line.strip()]
    assert len(commands) >= 3
    printed = []
    for line in commands:
        assert shlex.split(line)[0] == "ckptsim"
        status, out, _ = documented_run(line)
        assert status == 0, line
        printed.append(out)
    assert "energy (kWh)" in "".join(printed)


#: The table's columns -> (summary key, decimals as the page writes them).
TABLE_COLUMNS = [("energy_kwh", 0), ("mean_response", 0), ("lost_work_s", 0),
                 ("checkpoints_completed", 0), ("checkpoint_utilisation", 3),
                 ("checkpoints_skipped", 0), ("proactive_checkpoints", 0),
                 ("proactive_migrations", 0)]


@pytest.mark.slow
def test_the_newcastle_checkpoint_table_is_what_its_command_gives():
    """Each row of the table of checkpoint policies on newcastle, rerun with the command the
    page gives (the SR and CCSR rows had gone stale: one more job moved, less work lost)."""
    import ckptsim

    text = DOC.read_text()
    head = text.index("| policy | energy (kWh) | mean response (s)")
    rows = text[head:].split("\n\n")[0].splitlines()[2:]
    assert len(rows) == 7
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        policy = cells[0].split(": ")[-1]
        first, plus, rest = policy.partition("+")  # the 120 s cost, on the first part
        plan = first + (",cost=120" if ":" in first else ":cost=120") + plus + rest
        result = ckptsim.simulate("builtin", "easy", platform="newcastle", components=[
            "availability:owners=model,reboot=03:00-05:00,lead=600"], checkpoint=plan)
        for cell, (key, decimals) in zip(cells[1:], TABLE_COLUMNS, strict=False):
            if not cell:
                continue
            value = result.summary.get(key, 0)
            shown = f"{value:,.{decimals}f}" if decimals else f"{round(value):,}"
            if key == "checkpoint_utilisation" and value in (0, 1):
                shown = f"{value:g}" if value == 0 else "1.0"
            assert shown == cell, (policy, key, value, cell)
