"""A plug-in's method that overrides one of its base but cannot take the arguments ckptsim
calls it with (`schedule(self)` for `schedule(self, now)`) is refused where the plug-in is
named, naming the method, its file and line and the signature ckptsim calls, not met as a
TypeError inside the engine in the middle of the run (docs/plugins.md)."""

from __future__ import annotations

import pytest

import ckptsim
from ckptsim.cli import main
from ckptsim.errors import ConfigError

WORKLOAD = "lublin:n=20,seed=3,machine=32"

SOURCES = {
    "scheduler": """from ckptsim import QueueScheduler


class Mine(QueueScheduler):
    def schedule(self):
        pass
""",
    "init": """from ckptsim import QueueScheduler


class Mine(QueueScheduler):
    def __init__(self, sim):
        super().__init__(sim)

    def schedule(self, now):
        pass
""",
    "component": """from ckptsim import Component


class Mine(Component):
    def on_requeue(self, job):
        pass
""",
    "policy": """from ckptsim import CheckpointPolicy


class Mine(CheckpointPolicy):
    def interval(self, delta, mtbf):
        return 3600.0
""",
    "classmethod": """from ckptsim import Component


class Mine(Component):
    @classmethod
    def make_params(cls, values):
        return super().make_params(values)
""",
}

CASES = [
    ("scheduler", "--scheduler", "{ref}",
     "Mine.schedule(self) ({file}, line 5) does not take the arguments ckptsim calls it "
     "with: schedule(self, now), as Scheduler declares it (too many positional arguments)"),
    ("init", "--scheduler", "{ref}",
     "Mine.__init__(self, sim) ({file}, line 5) does not take the arguments ckptsim calls it "
     "with: __init__(self, sim, params=None), as QueueScheduler declares it"),
    ("component", "--component", "{ref}",
     "Mine.on_requeue(self, job) ({file}, line 5) does not take the arguments ckptsim calls "
     "it with: on_requeue(self, job, reason), as Component declares it"),
    ("policy", "--checkpoint", "{ref}:cost=60",
     "Mine.interval(self, delta, mtbf) ({file}, line 5) does not take the arguments ckptsim "
     "calls it with: interval(self, delta, mtbf, restart), as CheckpointPolicy declares it"),
    ("classmethod", "--component", "{ref}",
     "Mine.make_params(cls, values) ({file}, line 5) does not take the arguments ckptsim "
     "calls it with: make_params(cls, values, *, base=None), as Component declares it (got "
     "an unexpected keyword argument 'base')"),
]


@pytest.mark.parametrize(("source", "option", "given", "message"), CASES)
def test_a_method_ckptsim_cannot_call_is_refused_where_named(tmp_path, capsys, source,
                                                             option, given, message):
    file = tmp_path / f"{source}.py"
    file.write_text(SOURCES[source])
    ref = f"{file}:Mine"
    assert main(["run", "--workload", WORKLOAD, option, given.format(ref=ref)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ckptsim: error: {option}: {ref}: ")
    assert message.format(file=file) in err
    assert err.count("\n") == 1  # one line, no traceback


def test_the_python_api_refuses_it_before_the_run(tmp_path):
    file = tmp_path / "scheduler.py"
    file.write_text(SOURCES["scheduler"])
    with pytest.raises(ConfigError, match=r"Mine\.schedule\(self\) .* schedule\(self, now\)"):
        ckptsim.simulate(ckptsim.workload(WORKLOAD), f"{file}:Mine")


def test_methods_that_take_more_than_ckptsim_passes_are_fine(tmp_path):
    (tmp_path / "loose.py").write_text("""from ckptsim import Component, QueueScheduler


class Loose(QueueScheduler):
    def schedule(self, now, *more, **options):
        q = self.queue
        while q and q[0].size <= self.platform.n_free:
            job = q.pop(0)
            self._removed(job)
            self.sim.start(job)

    def on_requeue(self, job, reason="preempt", extra=None):
        super().on_requeue(job, reason)

    def helper(self, a, b):  # no base method of that name: anything goes
        return a + b


class Counting(Component):
    counter_names = ("started",)

    def __init__(self, params=None, *, note=""):
        super().__init__(params)
        self.n = 0

    def on_start(self, *args):
        self.n += 1

    def counters(self, *args):
        return {"started": self.n}
""")
    result = ckptsim.simulate(ckptsim.workload(WORKLOAD), f"{tmp_path}/loose.py:Loose",
                              components=[f"{tmp_path}/loose.py:Counting"])
    assert result.summary["started"] == 20
