"""The pre-flight of `ckptsim sweep` and `ckptsim paper`: a configuration whose runs cannot
start refuses the whole command before anything runs, in one line, with the message
`ckptsim run` gives for the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments import preflight as pf
from ckptsim.experiments.store import Store, load_results
from ckptsim.experiments.sweep import plan_sweep

GOOD = "fixed:interval=600,cost=60"
BAD = "fixed:interval=600,cost=60+scheduled:margin=900"  # lead 600 < cost + margin = 960
SPEC = """
name = "mixed"
seeds = [1, 2]

[workloads.model]
generator = "lublin"
n = 60
machine = 64

[workloads.model.components.availability]
reboot = "03:00-05:00"
lead = 600

[workloads.model.components.checkpoint]
policy = [{policies}]

[[schedulers]]
name = "easy"
"""
MESSAGE = ("got 600; scheduled needs lead >= cost + margin = 960 s to checkpoint before a "
           "reboot")


def write_spec(tmp_path: Path, *policies: str) -> Path:
    path = tmp_path / "mixed.toml"
    path.write_text(SPEC.format(policies=", ".join(f'"{p}"' for p in policies)))
    return path


@pytest.fixture(autouse=True)
def fresh():
    pf.memory.clear()
    yield
    pf.memory.clear()


def test_one_bad_combination_refuses_the_sweep_naming_it(tmp_path, capsys):
    spec = write_spec(tmp_path, GOOD, BAD, "fixed:interval=600,cost=60+scheduled:margin=300")
    out = tmp_path / "out"
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 2
    err = capsys.readouterr().err.strip()
    bad = next(r for r in plan_sweep(spec).runs if r.columns["workload.checkpoint"] == BAD)
    assert err.count("\n") == 0  # one line
    assert err.startswith(f"ckptsim: error: {spec}: run {bad.run_id[:12]} of mixed "
                          f"(model x easy; checkpoint={BAD}) cannot start: availability.lead: "
                          f"{MESSAGE} (2 run(s) of 1 configuration(s)")
    assert not out.exists()  # nothing ran, no store was made


def test_paper_forshaw_margin_refused_before_any_run(tmp_path, capsys):
    out = tmp_path / "fig7"
    code = main(["paper", "forshaw", "fig7", "--days", "1", "--replications", "2",
                 "--set", "checkpoint.policy.margin=900", "--out", str(out), "--jobs", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"availability.lead: {MESSAGE}" in err
    assert "(64 run(s) of 32 configuration(s) cannot start; nothing was run)" in err
    assert not Store(out / "store").exists()


def test_a_valid_spec_runs_as_without_the_preflight(tmp_path, monkeypatch, capsys):
    spec = write_spec(tmp_path, GOOD, "fixed:interval=600,cost=60+scheduled:margin=300")
    checked = tmp_path / "checked"
    assert main(["sweep", str(spec), "--out", str(checked), "--jobs", "0"]) == 0
    assert "pre-flight: 2 configuration(s) of 4 run(s) checked in" in capsys.readouterr().err
    monkeypatch.setattr(pf, "preflight", lambda runs, where: pf.Checked())
    unchecked = tmp_path / "unchecked"
    assert main(["sweep", str(spec), "--out", str(unchecked), "--jobs", "0"]) == 0
    skip = {"run_seconds", "sim_seconds", "finished_at", "pid", "host"}

    def rows(out: Path) -> list[dict]:
        return sorted(({k: v for k, v in r.items() if k not in skip}
                       for r in load_results(out)[0]), key=lambda r: r["run_id"])

    assert [r["run_id"] for r in rows(checked)] == sorted(r.run_id for r in plan_sweep(spec).runs)
    assert rows(checked) == rows(unchecked)


def test_run_and_preflight_give_the_same_message(tmp_path, capsys):
    from ckptsim.runner import simulate

    spec = write_spec(tmp_path, BAD)
    run = plan_sweep(spec).runs[0]
    with pytest.raises(pf.PreflightError) as refused:
        pf.preflight([run], str(spec))
    with pytest.raises(ConfigError) as failed:
        simulate("lublin:n=60,machine=64,seed=1", "easy", seed=1,
                 components={"availability": {"reboot": "03:00-05:00", "lead": 600},
                             "checkpoint": {"policy": BAD}})
    assert (refused.value.error.key, refused.value.error.message) == \
        (failed.value.key, failed.value.message) == ("availability.lead", MESSAGE)
    # The command line: exit 2 both, the same text after the key (named as each command
    # takes it: the component's key in a spec, its flag on `ckptsim run`).
    assert main(["run", "--workload", "lublin:n=60,machine=64,seed=1", "--component",
                 "availability:reboot=03:00-05:00,lead=600", "--checkpoint", BAD]) == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said == f"ckptsim: error: --component availability:lead: {MESSAGE}"
    assert main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--jobs", "0"]) == 2
    assert f"cannot start: availability.lead: {MESSAGE} (" in capsys.readouterr().err


def test_a_workload_not_readable_here_is_left_to_its_runs(tmp_path):
    (tmp_path / "broken.swf").write_text("; MaxProcs: 8\n1 0 -1 10 not-a-number\n")
    spec = tmp_path / "t.toml"
    spec.write_text('name = "t"\n[workloads.broken]\ntrace = "broken.swf"\n'
                    '[[schedulers]]\nname = "easy"\n')
    checked = pf.preflight(plan_sweep(spec).runs, str(spec))
    assert (checked.configurations, len(checked.skipped)) == (1, 1)
    assert "WorkloadError" in checked.skipped[0][1]


INPUTS = """
name = "inputs"
seeds = [1, 2]

[workloads.model]
generator = "lublin"
n = 30
machine = 16
{failures}
[workloads.model.components.availability]
{availability}

[[schedulers]]
name = "fcfs"

[[schedulers]]
name = "easy"
"""
LANL_BAD = "garbage\n"


@pytest.mark.parametrize(("availability", "failures", "file", "text", "where"), [
    ('trace = "avt:path={file}"', "", "bad.avt", "pc1 2 0 100\n",
     "line 1, field n: 2 sessions need 4 times, the line has 2"),
    ('owners = "{file}"', "", "owners.csv", "machine,login,logout\nzz,1,2\n",
     "line 2, field machine: unknown machine 'zz'"),
    ('failures = "lanl:path={file}"', "", "lanl.csv", LANL_BAD,
     "line 1: the header has no System, Prob Started, nodenumz column"),
    ("", 'failures = "lanl:path={file}"', "lanl.csv", LANL_BAD,
     "line 1: the header has no System, Prob Started, nodenumz column"),
], ids=["trace", "owners", "availability-failures", "failures"])
def test_a_malformed_input_file_refuses_the_sweep_with_the_readers_error(
        tmp_path, capsys, monkeypatch, availability, failures, file, text, where):
    # Only the availability component's timelines read these files: every run started and
    # failed in turn with the reader's error.
    path = tmp_path / file
    path.write_text(text)
    spec = tmp_path / "inputs.toml"
    spec.write_text(INPUTS.format(availability=availability.format(file=path),
                                  failures=failures.format(file=path)))
    from ckptsim.failures import readers
    from ckptsim.platform import avt, users

    reads = []
    for module, name in ((avt, "read_avt"), (users, "read_sessions"),
                         (readers, "read_lanl_cfdr")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, real=real, **k: reads.append(1)
                            or real(*a, **k))
    out = tmp_path / "out"
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert f"cannot start: {path}, {where}" in err, err
    assert err.endswith("(4 run(s) of 2 configuration(s) cannot start; nothing was run)"), err
    assert not out.exists()
    assert len(reads) == 1  # once, for both configurations


def _good_trace_spec(tmp_path, monkeypatch):
    """A spec of two configurations naming one good availability trace, and the list its
    reads are counted in."""
    from ckptsim.platform import avt

    path = tmp_path / "good.avt"
    path.write_text("pc1 1 0 100000\npc2 1 50 300000\n")
    spec = tmp_path / "inputs.toml"
    spec.write_text(INPUTS.format(availability=f'trace = "avt:path={path}"', failures=""))
    reads = []
    real = avt.read_avt
    monkeypatch.setattr(avt, "read_avt", lambda *a, **k: reads.append(1) or real(*a, **k))
    return spec, reads


def test_a_good_input_file_is_read_once_and_the_runs_go_on(tmp_path, capsys, monkeypatch):
    spec, reads = _good_trace_spec(tmp_path, monkeypatch)
    checked = pf.preflight(plan_sweep(spec).runs, str(spec))
    assert (checked.configurations, checked.runs, checked.skipped) == (2, 4, [])
    assert len(reads) == 1


def test_paper_forshaw_trace_with_a_malformed_trace_runs_nothing(tmp_path, capsys):
    bad = tmp_path / "BAD.avt"
    bad.write_text("pc1 2 0 100\n")
    out = tmp_path / "trace"
    assert main(["paper", "forshaw", "trace", "--out", str(out), "--availability-trace",
                 str(bad), "--jobs", "0"]) == 2
    err = capsys.readouterr().err
    assert (f"cannot start: {bad}, line 1, field n: 2 sessions need 4 times, the line has 2 "
            "(90 run(s) of 9 configuration(s) cannot start; nothing was run)") in err, err
    assert not Store(out / "store").exists()


def test_what_the_preflight_remembers_is_forgotten_with_the_workloads(tmp_path, monkeypatch):
    from ckptsim.experiments.execute import clear_cache

    spec, reads = _good_trace_spec(tmp_path, monkeypatch)
    runs = plan_sweep(spec).runs
    assert pf.preflight(runs, str(spec)).configurations == 2
    assert len(pf.memory.checked) == 2 and len(pf.memory.read) == 1
    assert pf.preflight(runs, str(spec)).configurations == 0  # remembered
    clear_cache()
    assert not pf.memory.checked and not pf.memory.read
    assert pf.preflight(runs, str(spec)).configurations == 2
    assert len(reads) == 2  # read again once forgotten


def test_an_input_file_edited_between_two_commands_is_read_again(tmp_path):
    path = tmp_path / "trace.avt"
    path.write_text("pc1 1 0 100000\npc2 1 50 300000\n")
    spec = tmp_path / "inputs.toml"
    spec.write_text(INPUTS.format(availability=f'trace = "avt:path={path}"', failures=""))
    runs = plan_sweep(spec).runs
    assert pf.preflight(runs, str(spec)).configurations == 2
    assert pf.preflight(runs, str(spec)).configurations == 0  # unchanged: checked
    path.write_text("pc1 2 0 100\n")  # now malformed, as a notebook's user may edit it
    with pytest.raises(pf.PreflightError, match="line 1, field n: 2 sessions need 4 times"):
        pf.preflight(runs, str(spec))


def test_a_trace_edited_between_two_commands_is_checked_again(tmp_path):
    """The trace a configuration's workload reads is one of the files it read: edited since
    (here to an unreadable file), the configuration is not taken as checked."""
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 8\n1 0 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1\n")
    spec = tmp_path / "t.toml"
    spec.write_text('name = "t"\n[workloads.t]\ntrace = "t.swf"\n'
                    '[[schedulers]]\nname = "easy"\n')
    runs = plan_sweep(spec).runs
    assert pf.preflight(runs, str(spec)).configurations == 1
    assert pf.preflight(runs, str(spec)).configurations == 0  # unchanged: checked
    trace.write_text("; MaxProcs: 8\n1 0 -1 10 not-a-number\n")
    checked = pf.preflight(runs, str(spec))
    assert (checked.configurations, len(checked.skipped)) == (1, 1)
    assert "WorkloadError" in checked.skipped[0][1]
