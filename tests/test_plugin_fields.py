"""A plug-in that writes a job's engine fields itself, instead of calling the verbs, is told
the field, its own file and line and the verb to call (under --check); unchecked, a job it
marked running without nodes is named in the error of the run that never ends."""

from __future__ import annotations

import pytest

from ckptsim.cli import main
from ckptsim.engine.owned import OWNED, instead

LUBLIN = "lublin:n=100,seed=3,machine=64"
HEAD = ("from ckptsim import QueueScheduler\nfrom ckptsim.engine.state import RUNNING\n\n\n"
        "class Mine(QueueScheduler):\n    def schedule(self, now):\n"
        "        for job in list(self.queue):\n            if job.size <= self.platform.n_free:\n")
TAIL = "                self.queue.remove(job)\n                self._removed(job)\n"


def run(tmp_path, lines, *args):
    (tmp_path / "mine.py").write_text(HEAD + lines + TAIL)
    return main(["run", "--workload", LUBLIN, "--scheduler", f"{tmp_path}/mine.py:Mine",
                 "--out", str(tmp_path / "out"), *args])


@pytest.mark.parametrize(("lines", "field", "verb"), [
    ("                job.state = RUNNING\n", "state", "call sim.start(job) to start it"),
    ("                self.sim.start(job)\n                job.start = 0.0\n", "start",
     "call sim.start(job), which records the start"),
    ("                self.sim.start(job)\n                job.mask = 0\n", "mask",
     "call sim.start(job, mask=...) to choose its nodes"),
    ("                self.sim.start(job)\n                job.rate = 0.5\n", "rate",
     "call sim.set_rate(job, rate)"),
    ("                job.runtime = 1.0\n                self.sim.start(job)\n", "runtime",
     "it is the workload's"),
])
def test_a_field_written_by_a_plugin_is_refused_naming_its_line_and_the_verb(tmp_path, capsys,
                                                                             lines, field,
                                                                             verb):
    assert run(tmp_path, lines, "--check") == 2
    err = capsys.readouterr().err
    line = 9 if field in ("state", "runtime") else 10
    assert err.startswith(f"ckptsim: error: job 1: job.{field} written by Mine.schedule "
                          f"({tmp_path}/mine.py, line {line}): the engine owns this field")
    assert verb in err and err.count(f"line {line}") == 1  # named once


def test_a_state_written_by_a_plugin_unchecked_names_the_job_and_the_verb(tmp_path, capsys):
    assert run(tmp_path, "                job.state = RUNNING\n") == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: the simulation stopped with 100 job(s) unfinished")
    assert err.endswith("; job 1 is RUNNING but was never given nodes by the engine: its state "
                        "was written outside the verbs (job.state = ...); a job is started with "
                        "sim.start(job) (run with --check, or simulate(..., check=True), to be "
                        "told the line that wrote it)\n")


def test_a_plugins_own_fields_and_attributes_stay_free(tmp_path, capsys):
    lines = ("                job.tag = now\n                job.pred_end = now + job.estimate\n"
             "                job.seen_at = now\n                self.sim.start(job)\n")
    assert run(tmp_path, lines, "--check") == 0
    assert {"tag", "pred_end"}.isdisjoint(OWNED) and {"state", "work_saved"} <= OWNED
    assert all(instead(field) for field in OWNED)
