"""What a plug-in gets wrong is refused with a message naming it, not a hang, a traceback
or a silently different run."""

from __future__ import annotations

import pytest
from helpers import jobs, scripted

from ckptsim.cli import main
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError, DecisionError
from ckptsim.platform.base import Platform
from ckptsim.platform.cluster import Cluster
from ckptsim.policies.base import scheduler_factory

LUBLIN = "lublin:n=100,seed=3,machine=64"


def run_plugin(tmp_path, source, *args):
    (tmp_path / "mine.py").write_text(source)
    return main(["run", "--workload", LUBLIN, *args])


# -- node masks ---------------------------------------------------------------------------------
def test_a_negative_start_mask_is_refused_not_spun_on(tmp_path, capsys):
    source = ("from ckptsim import QueueScheduler\n\n\nclass Neg(QueueScheduler):\n"
              "    def schedule(self, now):\n        if self.queue:\n"
              "            self.sim.start(self.queue[0], mask=~self.platform.free_mask)\n")
    assert run_plugin(tmp_path, source, "--scheduler", f"{tmp_path}/mine.py:Neg") == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: job 1 at t=") and "the node mask is negative" in err
    assert err.endswith(f"(from {tmp_path}/mine.py, line 7, a plug-in's code)\n")


@pytest.mark.parametrize(("mask", "said"), [
    ("[0, 1]", "a list ([0, 1]); accepted: an int >= 0 whose bit i is node i (docs/plugins.md)"
               "; from node ids, sum(1 << i for i in set(ids))"),
    ("3.0", "a float (3.0); accepted: an int >= 0 whose bit i is node i (docs/plugins.md)"),
    ("np.int64(3)", "a numpy.int64 (np.int64(3)); accepted: an int >= 0 whose bit i is node i "
                    "(docs/plugins.md); int(mask) converts it"),
])
def test_a_start_mask_that_is_no_int_is_refused_naming_the_job(tmp_path, capsys, mask, said):
    """A list or a float ended in a raw TypeError (and a numpy integer in one on machines of
    64 nodes or more, while it passed on smaller ones)."""
    source = ("import numpy as np\n\nfrom ckptsim import QueueScheduler\n\n\n"
              "class Bad(QueueScheduler):\n    def schedule(self, now):\n"
              f"        if self.queue:\n            self.sim.start(self.queue[0], mask={mask})\n")
    assert run_plugin(tmp_path, source, "--scheduler", f"{tmp_path}/mine.py:Bad") == 2
    assert capsys.readouterr().err == (
        f"ckptsim: error: job 1 at t=19: the node mask is {said} (from {tmp_path}/mine.py, "
        "line 9, a plug-in's code)\n")
    import numpy as np

    w = jobs([(0, 10, 1, 10)], 4)
    with pytest.raises(DecisionError, match=r"^job 1 at t=0: the node mask is a numpy.int64"):
        scripted(w, [(0, lambda sim, js: sim.start(js[1], mask=np.int64(1)))]).run()


def test_start_masks_outside_the_machine_say_so():
    w = jobs([(0, 10, 1, 10)], 4)
    with pytest.raises(DecisionError, match=r"job 1 .*the node mask is negative \(-1\)"):
        scripted(w, [(0, lambda sim, js: sim.start(js[1], mask=-1))]).run()
    with pytest.raises(DecisionError, match=r"job 1 .*nodes \[100\], beyond the machine's 4"):
        scripted(w, [(0, lambda sim, js: sim.start(js[1], mask=1 << 100))]).run()
    with pytest.raises(ValueError, match="a node mask is an int >= 0"):
        Cluster.node_ids(-1)


def test_a_negative_migrate_mask_is_refused_as_starts_is(tmp_path, capsys):
    """migrate refused a negative mask as targeting nodes 'neither free nor vacated' (or as
    having the wrong number of nodes), not saying what was wrong with it."""
    source = ("from ckptsim.policies.fcfs import FCFS\n\n\nclass Mover(FCFS):\n"
              "    moved = False\n\n    def schedule(self, now):\n"
              "        if self.sim.active and not self.moved:\n            self.moved = True\n"
              "            job = next(iter(self.sim.active.values()))\n"
              "            self.sim.migrate([(job, ~self.platform.free_mask)])\n"
              "        super().schedule(now)\n")
    assert run_plugin(tmp_path, source, "--scheduler", f"{tmp_path}/mine.py:Mover") == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: job 3 at t=208: the node mask is negative (")
    assert "~mask is negative in Python: write all_mask & ~mask" in err
    assert err.endswith(f"(from {tmp_path}/mine.py, line 11, a plug-in's code)\n")


@pytest.mark.parametrize(("mask", "said"), [
    (-1, r"the node mask is negative \(-1\)"),
    (-3, r"the node mask is negative \(-3\)"),  # 2 bits set: was 'has 2 nodes but needs 1'
    (1 << 100, r"the node mask holds nodes \[100\], beyond the machine's 8 nodes"),
    ([2], r"the node mask is a list \(\[2\]\); accepted: an int >= 0"),
    (2.0, r"the node mask is a float \(2.0\); accepted: an int >= 0"),
])
def test_migrate_masks_are_checked_as_starts_are(mask, said):
    w = jobs([(0, 100, 1, 100), (0, 100, 2, 100)], 8)
    with pytest.raises(DecisionError, match=rf"^job 1 at t=10: {said}"):
        scripted(w, [(0, lambda sim, js: sim.start(js[1])),
                     (10, lambda sim, js: sim.migrate([(js[1], mask)]))]).run()


@pytest.mark.parametrize("mask", [-1, 1 << 100, 1 << 4])
def test_hold_and_release_refuse_a_mask_outside_the_machine(mask):
    p = Platform(4)
    with pytest.raises(DecisionError, match=r"platform.hold\('mine', mask\): the node mask"):
        p.hold("mine", mask)
    with pytest.raises(DecisionError, match=r"platform.release_hold\('mine', mask\)"):
        p.release_hold("mine", mask)
    assert p.n_free == 4 and p.down_mask == 0 and p.holds() == {}


def test_a_component_holding_a_negative_mask_is_named(tmp_path, capsys):
    source = ("from ckptsim import Component\n\n\nclass Grab(Component):\n    name = 'grab'\n\n"
              "    def attach(self, sim):\n        super().attach(sim)\n"
              "        sim.at(10.0, self.grab)\n\n    def grab(self, now):\n"
              "        self.sim.platform.hold('mine', -1)\n")
    assert run_plugin(tmp_path, source, "--component", f"{tmp_path}/mine.py:Grab") == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: decision at t=10: platform.hold('mine', mask): the "
                          "node mask is negative (-1)")
    assert err.endswith(f"(from {tmp_path}/mine.py, line 12, a plug-in's code)\n")


def test_hold_errors_in_a_run_say_when_and_masks_that_are_no_int_are_refused():
    """platform.hold's error had no time (the verbs' errors have it); a list ended in a raw
    TypeError, a float was taken until it was or-ed into the holds."""
    w = jobs([(0, 100, 1, 100)], 4)
    with pytest.raises(DecisionError, match=r"^decision at t=30: platform.release_hold\('mine', "
                                            r"mask\): the node mask is negative \(-2\)"):
        scripted(w, [(0, lambda sim, js: sim.start(js[1])),
                     (30, lambda sim, js: sim.platform.release_hold("mine", -2))]).run()
    for mask, kind in (([1], "a list"), (1.0, "a float")):
        with pytest.raises(DecisionError, match=rf"^decision at t=5: platform.hold\('mine', "
                                                rf"mask\): the node mask is {kind}"):
            scripted(w, [(5, lambda sim, js, m=mask: sim.platform.hold("mine", m))]).run()
        p = Platform(4)
        with pytest.raises(DecisionError, match=rf"^decision: platform.hold\('mine', mask\): "
                                                rf"the node mask is {kind}"):
            p.hold("mine", mask)  # outside a run: no time
        assert p.n_free == 4 and p.holds() == {}


# -- what a policy sees -------------------------------------------------------------------------
def test_a_running_jobs_progress_is_progress_now_as_the_docs_say():
    from pathlib import Path

    seen = []
    w = jobs([(0, 100, 1, 100)], 2)
    scripted(w, [(0, lambda sim, js: sim.start(js[1])),
                 (40, lambda sim, js: seen.append((js[1].work_done, js[1].progress(sim.now))))]
             ).run()
    assert seen == [(0.0, 40.0)]  # work_done is the progress at anchor, not now
    text = (Path(__file__).resolve().parents[1] / "docs" / "plugins.md").read_text()
    sees = text[text.index("**What a policy sees**"):text.index("**Hooks**")]
    assert "`job.progress(self.sim.now)`" in sees and "`job.anchor`" in sees


# -- verbs' arguments ---------------------------------------------------------------------------
def test_an_unknown_kill_reason_is_refused_naming_the_accepted_ones(tmp_path, capsys):
    source = ("from ckptsim.policies.fcfs import FCFS\n\n\nclass K(FCFS):\n"
              "    done = False\n\n    def schedule(self, now):\n"
              "        if self.sim.active and not self.done:\n            self.done = True\n"
              "            job = next(iter(self.sim.active.values()))\n"
              "            self.sim.kill(job, reason='preemption')\n"
              "        super().schedule(now)\n")
    assert run_plugin(tmp_path, source, "--scheduler", f"{tmp_path}/mine.py:K") == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: job 3 at t=208: unknown kill reason 'preemption'; "
                          "accepted: preempt, failure, eviction, bad")
    assert err.endswith(f"(from {tmp_path}/mine.py, line 11, a plug-in's code)\n")


@pytest.mark.parametrize("reason", ["preempt", "failure", "eviction", "bad"])
def test_the_accepted_kill_reasons_count_as_before(reason):
    w = jobs([(0, 100, 1, 100)], 2)
    sim = scripted(w, [(0, lambda sim, js: sim.start(js[1])),
                       (10, lambda sim, js: sim.kill(js[1], reason=reason)),
                       (20, lambda sim, js: sim.start(js[1]))]).run()
    job = sim.jobs[0]
    assert (job.n_preemptions, job.n_kills) == ((1, 0) if reason == "preempt" else (0, 1))
    with pytest.raises(DecisionError, match="unknown kill reason 'Failure'"):
        scripted(w, [(0, lambda sim, js: sim.start(js[1])),
                     (10, lambda sim, js: sim.evict(js[1], "Failure"))]).run()


# -- runs that never move on --------------------------------------------------------------------
def test_a_job_killed_at_each_start_inside_one_pass_stops_the_run(tmp_path, capsys):
    """EASY starts the requeued job again within the same pass, and time moves on with the
    run's events: the pass limit never sees it, the bound on kills of a job at the instant it
    started does."""
    source = ("from ckptsim import Component\n\n\nclass Killer(Component):\n"
              "    name = 'killer'\n\n    def on_start(self, job):\n"
              "        self.sim.kill(job)\n")
    assert run_plugin(tmp_path, source, "--scheduler", "easy", "--component",
                      f"{tmp_path}/mine.py:Killer") == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: job 1 at t=")
    assert ": killed (reason 'preempt') at the instant it started 10,000 times: something " \
           "kills the job as soon as it starts and the policy Easy starts it again, so it " \
           "never runs; components told of each start (on_start): killer" in err
    assert err.endswith(f"(from {tmp_path}/mine.py, line 8, a plug-in's code)\n")


def test_a_few_kills_at_the_instant_of_a_start_are_fine():
    w = jobs([(0, 100, 1, 100)], 2)

    def bounce(sim, js):
        for _ in range(50):
            sim.start(js[1])
            sim.kill(js[1])
        sim.start(js[1])

    sim = scripted(w, [(0, bounce)]).run()
    assert sim.jobs[0].n_preemptions == 50 and sim.jobs[0].end == 100.0


class _EveryMinute:
    """A component (made below) that kills the running job 60 s after each start, saving
    `keep` more seconds of its work first: a 100 s job killed so without any saved never
    ends, while its clock runs on (the run went on for ever, its memory growing)."""

    @staticmethod
    def make(keep):
        from ckptsim import Component

        class EveryMinute(Component):
            name = "every-minute"

            def on_start(self, job):
                self.sim.at(self.sim.now + 60.0, lambda now: self.stop(job))

            def stop(self, job):
                if job.state.name != "RUNNING":  # it ended at this instant
                    return
                if keep:
                    self.sim.save_progress(job, job.work_saved + keep)
                self.sim.kill(job)

        return EveryMinute


def test_a_job_killed_for_ever_before_its_end_stops_the_run(monkeypatch):
    import ckptsim
    from ckptsim.engine import verbs

    monkeypatch.setattr(verbs, "MAX_FRUITLESS_KILLS", 20)
    w = jobs([(0, 100, 1, 100)], 2)
    with pytest.raises(DecisionError) as stopped:
        ckptsim.simulate(w, "fcfs", components=[_EveryMinute.make(0)])
    assert str(stopped.value) == (
        "job 1 at t=1200: killed (reason 'preempt') 20 times in a row with no more of its "
        "work saved (0 s of 100 s): it loses its work before it can end, so the run would "
        "never end (policy FCFS; a job stopped before its end keeps its work with "
        "sim.checkpoint)")


def test_kills_that_each_find_more_work_saved_are_fine(monkeypatch):
    import ckptsim
    from ckptsim.engine import verbs

    monkeypatch.setattr(verbs, "MAX_FRUITLESS_KILLS", 20)
    w = jobs([(0, 100, 1, 100)], 2)
    # 1 s more saved at each kill: 40 kills (saved 40 s, then 60 s of work end it), twice
    # the bound, each finding another saved progress.
    result = ckptsim.simulate(w, "fcfs", components=[_EveryMinute.make(1.0)])
    job = result.to_pandas().iloc[0]
    assert job.n_preemptions == 40 and job.end == 40 * 60 + 60 and job.status == "completed"


# -- checkpoint policies ------------------------------------------------------------------------
def _every(value):
    from ckptsim import CheckpointPolicy, CostParams

    class Every(CheckpointPolicy):
        name = "every"
        Params = CostParams

        def interval(self, delta, mtbf, restart):
            return value

    return Every


@pytest.mark.parametrize("value", [True, False])
def test_an_interval_that_is_a_bool_is_refused(value):
    import numpy as np

    from ckptsim.errors import ConfigError
    from ckptsim.runner import simulate

    w = jobs([(0, 100, 1, 100)], 2)
    for v in (value, np.bool_(value)):
        with pytest.raises(ConfigError, match=rf"every's interval\(\) returned {v!r} for job 1"):
            simulate(w, "easy", checkpoint={"interval": _every(v), "cost": 10})


def test_a_plugins_interval_under_a_second_is_blamed_on_the_plugin_not_the_cost():
    from ckptsim.errors import ConfigError
    from ckptsim.runner import simulate

    w = jobs([(0, 100, 1, 100)], 2)
    with pytest.raises(ConfigError, match=r"every's interval for job 1 is 0.5 s .* under 1 s: "
                       r"the job would checkpoint without end; every is a plug-in: the "
                       r"interval is what its interval\(\) returned; make it at least 1 s"):
        simulate(w, "easy", checkpoint={"interval": _every(0.5), "cost": 10})
    with pytest.raises(ConfigError, match="without end; give a larger cost$"):
        simulate(w, "easy", checkpoint="young:cost=0.01,mtbf=20")


# -- the invariant checker ----------------------------------------------------------------------
def test_nodes_taken_outside_the_verbs_are_named_with_the_time_and_the_plugin(tmp_path, capsys):
    source = ("from ckptsim.policies.fcfs import FCFS\n\n\nclass Sneaky(FCFS):\n"
              "    grabbed = False\n\n    def schedule(self, now):\n"
              "        if not self.grabbed and now > 0:\n            self.grabbed = True\n"
              "            self.platform.take(0b1100, 2)\n        super().schedule(now)\n")
    assert run_plugin(tmp_path, source, "--scheduler", f"{tmp_path}/mine.py:Sneaky",
                      "--check") == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: at t=19, after the scheduling pass: 2 node(s) "
                          "[2, 3] are neither free, held by a job nor out of service: something "
                          "took them outside the verbs")
    assert err.endswith(f"; the run's plug-ins: Sneaky ({tmp_path}/mine.py)\n")


@pytest.mark.parametrize(("call", "said"), [
    ("give(job.mask, job.size)", "node(s) [0, 1, 2, 3, 4, 5, 6, 7] held by a job are also in "
     "the free set: something gave them back outside the verbs (platform.give called "
     "directly)"),
    ("take(job.mask, job.size)", "the free-node count 48 does not match the free set (56): "
     "something took or gave nodes outside the verbs (platform.take, give or allocate called "
     "directly)"),
])
def test_a_jobs_nodes_given_or_taken_again_outside_the_verbs_are_named(tmp_path, capsys, call,
                                                                        said):
    source = ("from ckptsim import Component\n\n\nclass Meddler(Component):\n"
              f"    def on_start(self, job):\n        self.sim.platform.{call}\n")
    assert run_plugin(tmp_path, source, "--component", f"{tmp_path}/mine.py:Meddler",
                      "--check") == 2
    assert capsys.readouterr().err == (
        f"ckptsim: error: at t=19, after the scheduling pass: {said}; the run's plug-ins: "
        f"Meddler ({tmp_path}/mine.py)\n")


# -- sim.at's callback --------------------------------------------------------------------------
def test_a_component_event_whose_callback_takes_no_time_is_named_with_what_at_calls(
        tmp_path, capsys):
    source = ("from ckptsim import Component\n\n\nclass Later(Component):\n"
              "    def on_start(self, job):\n        self.sim.at(self.sim.now + 10, self.fire)\n\n"
              "    def fire(self):\n        pass\n")
    assert run_plugin(tmp_path, source, "--component", f"{tmp_path}/mine.py:Later") == 2
    assert capsys.readouterr().err == (
        f"ckptsim: error: sim.at: the callback Later.fire() ({tmp_path}/mine.py, line 8) given "
        "to sim.at cannot be called as callback(t): too many positional arguments; sim.at(t, "
        "callback) calls it with the event's time alone (write `def fire(self, t)` for a "
        "method, or pass `lambda t: ...`)\n")


def _fire(callback, kind="failure"):
    sim = Simulator(jobs([(0.0, 10.0, 1, 10.0)], 1), scheduler_factory("fcfs"), check=True)
    sim.at(1.0, callback, kind=kind)
    return sim.run()


@pytest.mark.parametrize("kind", ["failure", "slice-boundary"])  # before, after submissions
def test_an_event_callback_that_cannot_take_the_time_is_named_whatever_its_kind(kind):
    fired = []
    for ok in (fired.append, print, lambda t, more=1: fired.append(t),
               lambda *args: fired.append(args[0])):
        _fire(ok, kind)
    assert fired == [1.0, 1.0, 1.0]
    with pytest.raises(ConfigError, match=r"^sim.at: the callback 3 given to sim.at is not "
                                          r"callable"):
        _fire(3, kind)
    with pytest.raises(ConfigError, match=r"<lambda>\(t, job\) \(.*test_plugin_misuse.py, line "
                                          r"\d+\) given to sim.at cannot be called as "
                                          r"callback\(t\): missing a required argument: 'job'"):
        _fire(lambda t, job: None, kind)
    with pytest.raises(ConfigError, match=r"<lambda>\(\) .* too many positional arguments"):
        _fire(lambda: None, kind)
    with pytest.raises(TypeError, match="unsupported operand") as own:  # its own code's error
        _fire(lambda t: t + "s", kind)
    assert not isinstance(own.value, ConfigError)
