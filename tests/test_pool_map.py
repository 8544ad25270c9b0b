"""`pool.map_processes`: a figure's runs that keep no records, on worker processes (niu's
Fig. 5): results in order, an error raised as the function raised it, and a Ctrl-C that
stops everything at once in one message."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ckptsim.experiments.pool import map_processes

ROOT = Path(__file__).resolve().parents[1]


def test_results_come_in_the_order_of_the_items():
    assert map_processes(abs, [-3, 1, -2, 5, -8], 2) == [3, 1, 2, 5, 8]
    assert map_processes(abs, [-1], 4) == [1]
    assert map_processes(abs, [], 2) == []


def test_an_error_of_the_function_is_raised_here():
    with pytest.raises(ValueError, match="math domain error"):
        map_processes(__import__("math").sqrt, [4.0, -1.0, 9.0], 2)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the workers")
@pytest.mark.parametrize("delay", [0.0, 0.3, 1.0])
def test_ctrl_c_stops_at_once_in_one_message(delay):
    """SIGINT to the process group (a Ctrl-C at the terminal), while the workers start or
    while they sleep through 30 s tasks: the call stops at once, nothing but the caller's
    own message is printed, and no worker is left (a ProcessPoolExecutor printed worker
    tracebacks, and its shutdown could hang)."""
    # A shell that starts the test run in the background makes it ignore SIGINT, and the
    # child would inherit that: it takes Ctrl-C as a terminal's foreground process does.
    code = ("import signal, time\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from ckptsim.experiments.pool import map_processes\n"
            "print('go', flush=True)\n"
            "try:\n    map_processes(time.sleep, [30] * 4, 2)\n"
            "except KeyboardInterrupt:\n    print('stopped', flush=True)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "go\n"
    time.sleep(delay)  # after the call began
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert time.monotonic() - t0 < 10
    assert out == "stopped\n" and err == "", err
    deadline = time.monotonic() + 10  # the fork server and the resource tracker follow
    while _left(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _left(proc.pid) == []


def _left(sid: int) -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and _session(int(p)) == sid]


def _session(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[3])
    except (OSError, ValueError, IndexError):
        return None
