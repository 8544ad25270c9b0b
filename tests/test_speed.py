"""Machine speeds (the `speed` component): hand-checked schedules on a platform of a slow and a
fast machine, the rules for a job on both, an owner's suspension on a slow machine, and the
property that speeds of 1.0 change nothing."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest
from helpers import jobs
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.platform.description import parse_description
from ckptsim.runner import simulate

LAB = """
name = "lab"
[types.fast]
cores = 1
speed = 1.0
[types.slow]
cores = 1
speed = {slow}
[[groups]]
name = "a"
machines = 1
type = "slow"
[[groups]]
name = "b"
machines = 1
type = "fast"
"""


def lab(slow: float = 0.5):
    text = LAB.format(slow=slow)
    return parse_description(tomllib.loads(text), "lab.toml", text)


def ends(result) -> list[float]:
    return [float(e) for e in result.table["end"]]


# Jobs 1 and 2 (1 node, 100 s) start at 0 on machines 0 (slow) and 1 (fast); job 3 (2 nodes,
# 100 s, submitted at 10) waits for both.
THREE = [(0, 100, 1, 100), (0, 100, 1, 100), (10, 100, 2, 100)]


def test_without_the_component_speeds_are_not_applied():
    r = simulate(jobs(THREE, 2), "fcfs", platform=lab())
    assert ends(r) == [100, 100, 200] and "slowed_starts" not in r.summary


def test_a_job_on_a_slow_machine_takes_runtime_over_speed():
    # Job 1 on the half-speed machine: 200 s; job 3 on both, at the slowest: 200 s more.
    r = simulate(jobs(THREE, 2), "fcfs", platform=lab(), components={"speed": {}}, check=True)
    assert ends(r) == [200, 100, 400]
    assert r.summary["slowed_starts"] == 2 and r.options["speed"] == {"rule": "slowest"}
    # The mean over its nodes: 100 s of work at 0.75.
    r = simulate(jobs(THREE, 2), "fcfs", platform=lab(), components={"speed": {"rule": "mean"}})
    assert ends(r) == pytest.approx([200, 100, 200 + 100 / 0.75], rel=1e-12)


def test_a_suspended_job_resumes_at_its_machines_speed(tmp_path):
    # Job 1 (300 s) on the slow machine, job 2 (100 s) on the fast one; the owner sits at
    # the slow one from 50 to 80: 25 s of work by 50, frozen until 80, the 275 s left at half
    # speed: ends at 630.
    sessions = tmp_path / "s.csv"
    sessions.write_text("machine,login,logout\na:0,50,80\n")
    w = jobs([(0, 300, 1, 300), (0, 100, 1, 100)], 2)
    comps = {"availability": {"owners": str(sessions), "on_unavailable": "suspend"},
             "speed": {}}
    r = simulate(w, "fcfs", platform=lab(), components=comps, check=True)
    assert ends(r) == [630, 100]
    assert r.summary["jobs_suspended"] == 1 and r.summary["jobs_resumed"] == 1


def test_speeds_and_reboots_left_out_are_noted_once(monkeypatch, caplog):
    import logging

    from ckptsim import runner

    monkeypatch.setattr(runner, "_NOTED", set())
    caplog.set_level(logging.INFO, logger="ckptsim")
    rebooted = dataclasses.replace(lab(), groups=tuple(
        dataclasses.replace(g, reboot="05:00") for g in lab().groups))
    for _ in range(2):
        simulate(jobs(THREE, 2), "fcfs", platform=rebooted)
    notes = [r.getMessage() for r in caplog.records]
    assert notes == [
        "the platform lab's reboot times (a, b) are not applied: they are the availability "
        "component's (--component availability)",
        "the platform lab's machine speeds (slow 0.5) are recorded, not applied: "
        "--component speed applies them (docs/platforms.md#speeds)"]
    caplog.clear()
    monkeypatch.setattr(runner, "_NOTED", set())
    simulate(jobs(THREE, 2), "fcfs", platform=lab(), components={"speed": {}})
    simulate(jobs(THREE, 2), "fcfs", platform=lab(1.0))
    assert caplog.records == []


def test_overrun_kill_bounds_the_work_not_the_wall_time():
    # 100 s of work, an estimate of 60 s, on the half-speed machine: killed when its work
    # reaches 60 s, at 120 s of wall time (docs/workloads.md).
    w = jobs([(0, 100, 1, 60), (0, 100, 1, 60)], 2)
    r = simulate(w, "fcfs", platform=lab(), components={"speed": {}}, overrun="kill")
    assert ends(r) == [120, 60] and list(r.table["status"]) == ["killed", "killed"]


def test_the_platform_must_have_node_types():
    with pytest.raises(ConfigError, match="speed: the platform .* has no node types"):
        simulate(jobs(THREE, 2), "fcfs", components={"speed": {}})


def test_the_grids_links_and_speeds_do_not_combine(capsys):
    assert main(["run", "--workload", "grid:n=20,seed=1", "--scheduler", "coalloc",
                 "--component", "speed"]) == 2
    assert "two rate models" in capsys.readouterr().err


def test_the_command_line_takes_it(tmp_path, capsys):
    (tmp_path / "lab.toml").write_text(LAB.format(slow=0.25))
    (tmp_path / "w.swf").write_text("; MaxProcs: 2\n"
                                    "1 0 -1 100 1 -1 -1 1 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    assert main(["run", "--workload", str(tmp_path / "w.swf"), "--scheduler", "fcfs",
                 "--platform", str(tmp_path / "lab.toml"), "--component", "speed",
                 "--out", str(tmp_path / "o")]) == 0
    assert "starts below speed 1" in capsys.readouterr().out
    rows = (tmp_path / "o" / "jobs.csv").read_text().splitlines()
    assert rows[1].split(",")[:4] == ["1", "0", "0", "400"]


@settings(max_examples=25, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 500), st.integers(1, 400), st.integers(1, 2),
                               st.integers(1, 800)), min_size=1, max_size=12),
       scheduler=st.sampled_from(["fcfs", "easy", "conservative"]))
def test_speeds_of_one_change_nothing(rows, scheduler):
    w = jobs(sorted(rows), 2)
    plain = simulate(w, scheduler, platform=lab(1.0))
    sped = simulate(w, scheduler, platform=lab(1.0), components={"speed": {}}, check=True)
    assert ends(sped) == ends(plain) and sped.summary["slowed_starts"] == 0
    assert list(sped.table["start"]) == list(plain.table["start"])


@settings(max_examples=25, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 500), st.integers(1, 400), st.integers(1, 2),
                               st.integers(1, 800)), min_size=1, max_size=12),
       slow=st.sampled_from([0.25, 0.5, 0.8]))
def test_every_job_runs_its_runtime_over_its_slowest_machines_speed(rows, slow):
    w = jobs(sorted(rows), 2)
    r = simulate(w, "fcfs", platform=lab(slow), components={"speed": {}}, check=True)
    t = r.table
    for k in range(len(t["end"])):
        took = float(t["end"][k] - t["start"][k])
        runtime = float(t["runtime"][k])
        if int(t["size"][k]) == 2:  # on both machines: at the slow one's speed
            assert took == pytest.approx(runtime / slow, rel=1e-9)
        else:  # on one or the other
            assert (took == pytest.approx(runtime, rel=1e-9)
                    or took == pytest.approx(runtime / slow, rel=1e-9))
