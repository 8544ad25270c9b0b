"""Sizes, repeated options, trace times and generator names: every size source refuses a value
above its documented limit (ckptsim.limits) naming the option or field, the value and the
limit, before allocating; every `name:key=value,...` parser refuses a key given twice; every
trace reader applies the SWF time bound; an unknown generator is named as such."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest
from helpers import LANL_HEADER, lanl_row

from ckptsim.cli import main
from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.limits import MAX_DAYS, MAX_JOBS, MAX_NODES, MAX_SECONDS

JOB = "1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1"


def swf(tmp_path: Path, header: str, name: str = "t.swf", jobs: int = 5) -> Path:
    path = tmp_path / name
    rows = [JOB.replace("1 0 0", f"{i} {i} 0", 1) for i in range(1, jobs + 1)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path


def error_of(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The one line a failing command prints (it must print exactly one and exit with 2)."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("ckptsim: error: "), err
    assert "Traceback" not in err and "not enough memory" not in err
    return err.removeprefix("ckptsim: error: ").rstrip("\n")


def test_limits_are_what_the_docs_say() -> None:
    root = Path(__file__).resolve().parents[1] / "docs"
    workloads = (root / "workloads.md").read_text()
    platforms = (root / "platforms.md").read_text()
    assert (MAX_NODES, MAX_JOBS, MAX_DAYS, MAX_SECONDS) == (1_048_576, 4_000_000, 36_500, 1e10)
    for text in ("MAX_NODES", "1,048,576", "MAX_JOBS", "4,000,000", "MAX_DAYS", "36,500"):
        assert text in workloads, text
    assert "MAX_NODES" in platforms and "1,048,576" in platforms


# ----------------------------------------------------------------------------------- 1. sizes


@pytest.mark.parametrize("value", ["99999999999999999999", "100000000", "1" * 5000])
@pytest.mark.parametrize("command", ["run", "inspect"])
def test_swf_header_above_the_limit(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                    value: str, command: str) -> None:
    path = swf(tmp_path, f"; MaxProcs: {value}")
    argv = ["run", "--workload", str(path)] if command == "run" else ["inspect", str(path)]
    err = error_of(capsys, argv)
    assert err.startswith(f"--machine-size: {path}: the header's MaxProcs, ")
    assert value[:12] in err and str(MAX_NODES) in err and "MAX_NODES" in err
    # the option replaces the header
    assert main([*argv, "--machine-size", "8"]) == 0
    capsys.readouterr()


def test_swf_header_limit_in_the_library(tmp_path: Path) -> None:
    from ckptsim.workload.swf import read_swf

    assert read_swf(swf(tmp_path, f"; MaxProcs: {MAX_NODES}")).machine_size == MAX_NODES
    path = swf(tmp_path, f"; MaxNodes: {MAX_NODES + 1}", "n.swf")
    with pytest.raises(ConfigError, match="the header's MaxNodes, 1048577") as info:
        read_swf(path)
    assert info.value.key == "machine_size" and str(path) in str(info.value)
    with pytest.raises(ConfigError, match="1048577 nodes is more than") as info:
        read_swf(path, machine_size=MAX_NODES + 1)
    assert info.value.key == "machine_size"


@pytest.mark.parametrize("argv, prefix", [
    (["run", "--workload", "lublin:n=50,seed=1", "--machine-size", "1000000000"],
     "--machine-size: 1000000000 nodes"),
    (["run", "--workload", "lublin:n=50,machine=2000000"], "--workload lublin.machine: 2000000"),
    (["run", "--workload", "lublin:n=5000000"], "--workload lublin.n: 5000000 jobs"),
    (["demo", "--jobs", "100000000000"], "--jobs: 100000000000 jobs"),
    (["demo", "--jobs", "10", "--machine-size", "100000000"], "--machine-size: 100000000 nodes"),
    (["run", "--workload", "grid:n=2000000"],
     "--workload grid.n: 4 clusters x 2000000 jobs = 8000000"),
    (["run", "--workload", "grid:clusters=1000,nodes=100000"],
     "--workload grid.nodes: 1000 clusters x 100000 nodes = 100000000 nodes"),
    (["run", "--workload", "htc:days=100000"], "--workload htc.days: 100000 days"),
    (["run", "--workload", "htc:days=3000"], "--workload htc.days: 3000 days at a mean of 1454"),
    (["run", "--workload", "htc:days=30,mean=1e300"], "--workload htc.mean: 30 days"),
    (["run", "--workload", "htc:days=30,machine=2000000"], "--workload htc.machine: 2000000 nodes"),
    (["run", "--workload", "lublin:n=10", "--platform", "grid:clusters=1000,nodes=100000"],
     "--platform: grid: 1000 clusters x 100000 nodes"),
])
def test_sizes_above_the_limits(capsys: pytest.CaptureFixture[str], argv: list[str],
                                prefix: str) -> None:
    start = time.perf_counter()
    err = error_of(capsys, argv)
    assert time.perf_counter() - start < 10
    assert err.startswith(prefix), err
    assert "more than" in err and "(MAX_" in err


def test_generator_checks_refuse_without_generating() -> None:
    from ckptsim.workload.source import CHECKS

    for kind, options, key in (("lublin", {"n": MAX_JOBS + 1}, "lublin.n"),
                               ("lublin", {"machine": MAX_NODES + 1}, "lublin.machine"),
                               ("grid", {"clusters": 2, "n": MAX_JOBS}, "grid.n"),
                               ("grid", {"nodes": MAX_NODES}, "grid.nodes"),
                               ("htc", {"days": MAX_DAYS + 1}, "htc.days"),
                               ("htc", {"machine": MAX_NODES + 1}, "htc.machine")):
        with pytest.raises(ConfigError) as info:
            CHECKS[kind](options)
        assert info.value.key == key, (kind, options)
    CHECKS["lublin"]({"n": MAX_JOBS, "machine": MAX_NODES})  # the limits themselves pass
    CHECKS["htc"]({"days": 365, "machine": MAX_NODES})


def test_platform_file_above_the_limit(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_text('name = "big"\n[types.n]\ncores = 64\n'
                    '[[groups]]\nname = "a"\nmachines = 10000\ntype = "n"\n'
                    '[[groups]]\nname = "b"\nmachines = 10000\ntype = "n"\n')
    err = error_of(capsys, ["run", "--workload", "lublin:n=10", "--platform", str(path)])
    assert err.startswith(f"{path}, line 10: groups[1].machines: the groups up to this one "
                          f"have 1280000 nodes"), err
    assert str(MAX_NODES) in err


def test_cluster_and_torus_sizes() -> None:
    from ckptsim.platform.cluster import Cluster
    from ckptsim.platform.torus import Torus

    with pytest.raises(ConfigError, match="more than the largest machine") as info:
        Cluster(10**20)
    assert info.value.key == "machine_size"
    start = time.perf_counter()
    with pytest.raises(ConfigError, match="boxes"):
        Torus((100_000, 4, 8))  # counted, not listed: no hang
    with pytest.raises(ConfigError, match="boxes"):
        Torus((10**12, 1, 1), wraparound=False)
    assert time.perf_counter() - start < 1
    assert Torus((4, 4, 8)).n_nodes == 128


def test_torus_parameters_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    err = error_of(capsys, ["run", "--workload", "lublin:n=20,seed=1,machine=128",
                            "--scheduler", "bgl-fcfs", "--set", "x=100000"])
    assert "(100000, 4, 8)" in err and "boxes" in err


def test_failure_count_and_user_days() -> None:
    from ckptsim.failures.source import MAX_SYNTHETIC_FAILURES, check_failure_spec
    from ckptsim.platform.usermodel import generate_sessions

    with pytest.raises(ConfigError, match="more than the limit") as info:
        check_failure_spec(f"lanl:path=/nonexistent,count={MAX_SYNTHETIC_FAILURES + 1}")
    assert info.value.key == "failures.count"
    with pytest.raises(ConfigError, match="36500") as info:
        generate_sessions([], days=10**9, seed=1)
    assert info.value.key == "users.days"


# -------------------------------------------------------------------------- 2. repeated keys


@pytest.mark.parametrize("spec, key", [
    ("lublin:n=10,n=20", "--workload lublin.n"),
    ("htc:days=3,seed=1,days=4", "--workload htc.days"),
    ("grid:n=10,load=0.5,n=20", "--workload grid.n"),
])
def test_generator_key_given_twice(capsys: pytest.CaptureFixture[str], spec: str,
                                   key: str) -> None:
    err = error_of(capsys, ["run", "--workload", spec])
    assert err.startswith(f"{key}: is given twice in {spec!r}"), err


def test_every_option_parser_refuses_an_empty_option(tmp_path: Path) -> None:
    # `n=5,,seed=2` or a trailing comma is a typo, not an option: refused under the parser's
    # key, the same way by each; no options at all (`lublin:`) is not an empty option.
    from ckptsim.failures.source import parse_failure_spec
    from ckptsim.platform.avt import parse_source
    from ckptsim.platform.description import load_description
    from ckptsim.platform.usermodel import SessionLength
    from ckptsim.workload.source import parse_generator

    avt = tmp_path / "t.avt"
    avt.write_text("n1 1 0 5\n")
    cases = [
        (lambda s: parse_generator(f"lublin:{s}"), "workload", "n=10"),
        (lambda s: parse_failure_spec(f"synthetic:{s}"), "failures", "mtbf=10"),
        (lambda s: parse_source(f"avt:{s}"), "availability.trace", f"path={avt}"),
        (lambda s: SessionLength.parse(f"lognormal:sigma=1,{s}"), "session", "median=60"),
        (lambda s: load_description(f"grid:{s}"), "platform", "clusters=2"),
    ]
    for call, key, option in cases:
        call(option)
        for bad in (f"{option},,{option}", f"{option},", f",{option}", f"{option}, ,"):
            with pytest.raises(ConfigError, match="empty option in .*single commas") as info:
                call(bad)
            assert info.value.key == key, bad
    assert parse_generator("lublin:") == {} and parse_failure_spec("synthetic:")[1] == {}


def test_every_option_parser_refuses_a_key_given_twice(tmp_path: Path) -> None:
    from ckptsim.failures.source import parse_failure_spec
    from ckptsim.platform.avt import parse_source
    from ckptsim.platform.description import load_description
    from ckptsim.platform.usermodel import SessionLength
    from ckptsim.workload.source import parse_generator

    avt = tmp_path / "t.avt"
    avt.write_text("n1 1 0 5\n")
    cases = [
        (lambda: parse_generator("lublin:n=10,seed=1,n=20"), "lublin.n", "n=10 and n=20"),
        (lambda: parse_failure_spec("synthetic:mtbf=10,mtbf=20"), "failures.mtbf", "twice"),
        (lambda: parse_source(f"avt:path={avt},map=first,map=random"), "availability.trace",
         "map is given twice"),
        (lambda: SessionLength.parse("lognormal:median=60,sigma=1,median=70"),
         "session.median", "twice"),
        (lambda: load_description("grid:clusters=2,clusters=3"), "platform", "twice"),
    ]
    for call, key, message in cases:
        with pytest.raises(ConfigError, match=message) as info:
            call()
        assert info.value.key == key


# ------------------------------------------------------------------------------ 3. trace times


def test_avt_time_beyond_the_bound(tmp_path: Path) -> None:
    from ckptsim.platform.avt import parse_source, read_avt

    path = tmp_path / "t.avt"
    path.write_text("# nodes\nn0 1 0 100\n0 1 0 1e300\n")
    with pytest.raises(WorkloadError, match="beyond the largest accepted, 1e\\+10") as info:
        read_avt(path)
    err = info.value
    assert (err.path, err.line, err.field) == (str(path), 3, "end_1")
    path.write_text(f"n0 1 0 {MAX_SECONDS:.0f}\n")
    assert read_avt(path).span == MAX_SECONDS  # the bound itself is accepted
    with pytest.raises(ConfigError, match="MAX_SECONDS"):
        parse_source(f"avt:path={path},start=1e300")


@pytest.mark.parametrize("row, field", [
    (lanl_row(2, 0, "1/1/9005 0:00", "1/1/9005 0:10"), "Prob Started"),
    (lanl_row(2, 0, "1/1/2004 0:00", "", down="1e300"), "Down Time"),
])
def test_lanl_time_beyond_the_bound(tmp_path: Path, row: str, field: str) -> None:
    from ckptsim.failures.readers import read_lanl_cfdr

    path = tmp_path / "l.csv"
    path.write_text("\n".join([LANL_HEADER, lanl_row(2, 0, "1/1/2004 0:00", "1/1/2004 0:10"),
                               row]) + "\n")
    with pytest.raises(WorkloadError, match="MAX_SECONDS") as info:
        read_lanl_cfdr(path)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), 3, field)


@pytest.mark.parametrize("start, stop, field", [
    ("1e300", "1e300", "event_start_time"),
    ("1000", "1e300", "event_stop_time"),
    ("-2e10", "1000", "event_start_time"),
])
def test_fta_time_beyond_the_bound(tmp_path: Path, start: str, stop: str, field: str) -> None:
    from ckptsim.failures.readers import read_fta

    path = tmp_path / "event_trace.tab"
    header = ("event_id component_id node_id platform_id node_name event_type "
              "event_start_time event_stop_time event_end_reason")
    path.write_text("\n".join([header, "0 0 1 1 n1 0 100 200 NULL",
                               f"1 0 1 1 n1 0 {start} {stop} NULL"]) + "\n")
    with pytest.raises(WorkloadError, match="MAX_SECONDS") as info:
        read_fta(path)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), 3, field)


def test_session_csv_time_beyond_the_bound(tmp_path: Path) -> None:
    from ckptsim.platform.users import read_sessions

    path = tmp_path / "s.csv"
    path.write_text("machine,login,logout\n0,0,60\n1,100,1e300\n")
    with pytest.raises(WorkloadError, match="MAX_SECONDS") as info:
        read_sessions(path, 2)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), 3, "logout")


@pytest.mark.parametrize("spec, prefix", [
    ("grid:n=100,runtime=1e300", "--workload grid.runtime: runtime=1e+300 (the mean) makes "
                                 "the longest run time 1.02261e+301 s"),
    ("grid:n=100,runtime=1.7e308", "--workload grid.runtime: runtime=1.7e+308 (the mean) makes the "
                                   "longest run time more than 1e+308 s"),
    ("grid:n=100,load=1e-9", "--workload grid.load: load=1e-09 with runtime=14400 and n=100"),
    ("htc:days=3,duration_median=1e300", "--workload htc.duration_median: "
                                         "duration_median=1e+300 makes the longest duration"),
])
@pytest.mark.parametrize("command", ["inspect", "convert"])
def test_generated_times_beyond_the_bound(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                          spec: str, prefix: str, command: str) -> None:
    # They generated workloads holding such times (and numpy warnings), written to files
    # that ckptsim then refused to read.
    argv = ["inspect", spec] if command == "inspect" else ["convert", spec,
                                                           str(tmp_path / "o.swf")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        err = error_of(capsys, argv)
    assert err.startswith(prefix), err
    assert "beyond the largest time accepted, 1e+10 s" in err and "MAX_SECONDS" in err
    assert not (tmp_path / "o.swf").exists()


# ----------------------------------------------------------------------------------- 4. names


def test_unknown_generator_lists_the_generators(capsys: pytest.CaptureFixture[str]) -> None:
    err = error_of(capsys, ["run", "--workload", "poisson:n=10"])
    assert err.startswith("--workload: unknown generator 'poisson'"), err
    assert "lublin, grid, htc" in err and "file not found" not in err


def test_a_generator_name_with_spaces_is_the_generator(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    # It was "unknown generator 'lublin' ...; accepted generators: lublin, ...".
    assert main(["inspect", " lublin :n=5"]) == 0
    assert "lublin(n=5" in capsys.readouterr().out
    err = error_of(capsys, ["inspect", "lublinn :n=5"])
    assert err.startswith("--workload: unknown generator 'lublinn'"), err


def test_a_file_with_a_colon_is_still_read(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    swf(tmp_path, "; MaxProcs: 8", "week:1.swf")
    assert main(["run", "--workload", "week:1.swf"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("command", ["run", "inspect"])
def test_missing_machine_size_names_the_flag(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path, command: str) -> None:
    path = swf(tmp_path, "; MaxProcs: 0")
    argv = ["run", "--workload", str(path)] if command == "run" else ["inspect", str(path)]
    err = error_of(capsys, argv)
    assert err == (f"--machine-size: {path}: cannot tell the machine size: the header has no "
                   f"usable MaxProcs or MaxNodes; give the machine size")


def test_maintenance_window_beyond_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    err = error_of(capsys, ["run", "--workload", "lublin:n=20,seed=1", "--platform",
                            "newcastle", "--component", "availability:maintenance=0-1e300"])
    assert "availability:maintenance" in err and "MAX_SECONDS" in err


def test_a_spec_machine_size_above_the_limit(tmp_path: Path) -> None:
    from ckptsim.experiments.spec import load_spec

    spec = tmp_path / "s.toml"
    spec.write_text('name = "m"\n[workloads.t]\ntrace = "x.swf"\nmachine_size = 1000000000\n'
                    '[[schedulers]]\nname = "easy"\n')
    with pytest.raises(Exception, match=r"machine_size \(line 4\): 1000000000 is more than the "
                                        r"limit, 1048576 \(MAX_NODES\)"):
        load_spec(spec)
