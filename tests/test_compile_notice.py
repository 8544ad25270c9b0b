"""Compiling conservative's kernels is announced (a note on stderr from the command line), only
when numba compiles them, not when it loads them from its cache; the library prints nothing."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ckptsim.cli.common import library_notes

ROOT = Path(__file__).resolve().parents[1]

#: One small kernel, called in a fresh process: compiled on a cache miss, loaded on a hit.
KERNEL = """
import logging, sys
import numpy as np
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="LOGGED %(message)s")
from ckptsim.policies import reservations as r
R = np.zeros((4, 3))
assert r.run_add(R, 0, 5.0, 2, 1) == 1
assert r.run_add(R, 1, 3.0, 1, 2) == 2  # the same signature: nothing more to compile
print("misses", sum(r.run_add.stats.cache_misses.values()))
"""


def kernel_run(cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", KERNEL], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_announced_when_compiled_and_not_when_loaded_from_the_cache(tmp_path):
    from ckptsim.policies.reservations import COMPILING

    first = kernel_run(tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "misses 1"  # compiled
    assert first.stderr.count(f"LOGGED {COMPILING}") == 1, first.stderr
    again = kernel_run(tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "misses 0"  # loaded from the cache
    assert "LOGGED" not in again.stderr, again.stderr


def test_the_command_line_prints_library_notes_on_stderr(capsys):
    from ckptsim.policies.reservations import COMPILING

    log = logging.getLogger("ckptsim.policies.reservations")
    with library_notes():
        log.info(COMPILING)
    log.info("after the command: not printed")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"ckptsim: note: {COMPILING}\n"
    assert not any(type(h).__name__ == "_NoteHandler"
                   for h in logging.getLogger("ckptsim").handlers)


def test_every_command_prints_library_notes(monkeypatch, capsys):
    from ckptsim.cli import listing, main
    from ckptsim.policies.reservations import COMPILING

    def command(args):
        logging.getLogger("ckptsim.policies.reservations").info(COMPILING)
        return 0

    monkeypatch.setattr(listing, "cmd_schedulers", command)
    assert main(["schedulers"]) == 0
    assert capsys.readouterr().err == f"ckptsim: note: {COMPILING}\n"


def test_the_library_alone_prints_nothing():
    code = ("import logging; from ckptsim.policies.reservations import COMPILING; "
            "logging.getLogger('ckptsim.policies.reservations').info(COMPILING)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""


@pytest.mark.slow
def test_first_conservative_run_says_it_compiles(tmp_path):
    """End to end on a fresh cache: the first `run` notes the compilation, the second does
    not, and both print the same table."""
    from ckptsim.policies.reservations import COMPILING

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "ckptsim", "run", "--workload", "lublin:n=200,seed=7",
            "--scheduler", "conservative"]
    runs = [subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True,
                           timeout=600) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stderr.count(f"ckptsim: note: {COMPILING}") == 1
    assert COMPILING not in runs[1].stderr and COMPILING not in runs[0].stdout
    table = [r.stdout.split("simulated ")[0] for r in runs]
    assert table[0] == table[1]
