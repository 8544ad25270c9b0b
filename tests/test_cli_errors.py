"""Malformed input on the command line: one clear line naming the file, line and field or the
flag the user typed, never a traceback; and what the run table shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import TRACES

from ckptsim.cli import main
from ckptsim.errors import ConfigError

LANL = TRACES.parent / "failures" / "lanl_cfdr" / "LA-UR-05-7318-failure-data-1996-2005.csv.gz"


def line(job: int, submit: float, run: float, procs: int, request: float) -> str:
    return f"{job} {submit} -1 {run} {procs} -1 -1 {procs} {request} -1 1 1 1 -1 1 -1 -1 -1"


def swf(tmp_path: Path, lines: list[str], machine: int = 8, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_text(f"; MaxProcs: {machine}\n" + "".join(x + "\n" for x in lines))
    return path


@pytest.fixture
def small(tmp_path: Path) -> Path:
    return swf(tmp_path, [line(1, 0, 10, 4, 10), line(2, 1, 30, 8, 30), line(3, 2, 20, 2, 40)])


def error_of(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The one line a failing command prints (it must print exactly one and exit with 2)."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("ckptsim: error: "), err
    assert "Traceback" not in err
    return err.removeprefix("ckptsim: error: ").rstrip("\n")


def table(text: str) -> dict[str, str]:
    """The metric -> value rows of a printed table."""
    rows = {}
    for row in text.splitlines():
        cells = [c.strip() for c in row.split("│")]
        if len(cells) == 4:
            rows[cells[1]] = cells[2]
    return rows


# ------------------------------------------------------------------------ used to be tracebacks


@pytest.mark.parametrize("kind", ["lanl:path=/nonexistent.csv,system=20",
                                  "fta:path=/nonexistent.csv"])
def test_missing_failure_log(capsys: pytest.CaptureFixture[str], small: Path, kind: str) -> None:
    err = error_of(capsys, ["run", "--workload", str(small), "--failures", kind])
    assert err == "--failures path: no such file or folder: /nonexistent.csv"


def test_failure_log_gone_between_the_check_and_the_read() -> None:
    from ckptsim.failures.source import _read

    with pytest.raises(ConfigError) as info:
        _read("lanl", {"path": "/nonexistent.csv", "system": "20"})
    assert str(info.value) == ("failures.path: cannot read /nonexistent.csv: No such file or "
                               "directory")


def test_out_that_cannot_be_a_folder(capsys: pytest.CaptureFixture[str], small: Path,
                                     tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    for argv in (["run", "--workload", str(small)], ["demo", "--jobs", "20"]):
        err = error_of(capsys, [*argv, "--out", str(blocker / "x")])
        assert err == f"--out: {blocker} is a file, not a folder (in {blocker / 'x'})"
        assert error_of(capsys, [*argv, "--out", str(blocker)]) == (
            f"--out: {blocker} is a file, not a folder")


def test_a_store_or_report_folder_that_is_a_file(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    """Refused before the spec is read or anything printed, naming the flag (it was the
    operating system's "File exists" or "Not a directory" after the matrix's line)."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    spec = tmp_path / "s.toml"
    spec.write_text('[workloads.l]\ngenerator = "lublin"\nn = 5\n[[schedulers]]\n'
                    'name = "fcfs"\n')
    for extra in ([], ["--dry-run"]):
        assert error_of(capsys, ["sweep", str(spec), "--out", str(blocker), "--jobs", "0",
                                 *extra]) == f"--out: {blocker} is a file, not a folder"
    assert error_of(capsys, ["sweep", str(spec), "--out", str(blocker / "s")]) == (
        f"--out: {blocker} is a file, not a folder (in {blocker / 's'})")
    store = tmp_path / "store"
    assert main(["sweep", str(spec), "--out", str(store), "--jobs", "0"]) == 0
    capsys.readouterr()
    assert error_of(capsys, ["report", str(store), "--out", str(blocker)]) == (
        f"--out: {blocker} is a file, not a folder")


def test_plot_of_an_unknown_image_type_fails_before_reading(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "absent.swf"  # never read: the plot name is checked first
    err = error_of(capsys, ["inspect", str(missing), "--plot", str(tmp_path / "out.txt")])
    assert err.startswith(f"--plot: {tmp_path / 'out.txt'}: unknown image type '.txt'; "
                          "accepted: ")
    assert ".png" in err and ".svg" in err and ".pdf" in err
    err = error_of(capsys, ["inspect", str(missing), "--plot", str(tmp_path / "out")])
    assert "no image type suffix" in err


def test_plot_that_cannot_be_written(capsys: pytest.CaptureFixture[str], small: Path,
                                     tmp_path: Path) -> None:
    err = error_of(capsys, ["inspect", str(small), "--plot", str(tmp_path / "no" / "x.png")])
    assert err == f"{tmp_path / 'no' / 'x.png'}: cannot write: the folder {tmp_path / 'no'} " \
                  "does not exist"
    taken = tmp_path / "taken.png"
    taken.mkdir()  # the folder exists, the file cannot be created
    err = error_of(capsys, ["inspect", str(small), "--plot", str(taken)])
    assert err.startswith(f"{taken}: cannot write: ")


def test_spec_that_is_not_utf8(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = tmp_path / "latin1.toml"
    spec.write_bytes(b'name = "x"\ndescription = "caf\xe9"\n')
    assert main(["sweep", str(spec), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "line 2: byte 0xe9 is not UTF-8" in err and str(spec) in err


def test_spec_with_a_byte_order_mark_is_read(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parents[1] / "examples" / "backfilling.toml").read_bytes()
    spec = tmp_path / "bom.toml"
    spec.write_bytes(b"\xef\xbb\xbf" + text)
    assert main(["sweep", str(spec), "--dry-run"]) == 0
    assert "runs (" in capsys.readouterr().out


@pytest.mark.parametrize(("bad", "where"), [
    (line(2, 1, 1e13, 2, 20), "line 3, field 4 (run_time): 1e+13 s is beyond the largest time"),
    (line(2, 1e23, 10, 2, 20), "line 3, field 2 (submit_time): 1e+23 s is beyond"),
    (line(1, 1, 10, 2, 20), "line 3, field 1 (job_number): job number 1 is already used on "
                            "line 2"),
    (line(2, 1, 10, 2, 20).replace("2", "1e26", 1), "line 3, field 1 (job_number): job number "
                                                    "1e+26 is too large"),
    (line(2, 1, 10, 2, -400), "line 3, field 9 (requested_time): negative value -400: SWF "
                              "marks an unknown value with -1"),
])
def test_trace_values_the_simulator_cannot_use(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path, bad: str, where: str) -> None:
    path = swf(tmp_path, [line(1, 0, 10, 2, 20), bad])
    err = error_of(capsys, ["run", "--workload", str(path)])
    assert err.startswith(f"{path}, {where}"), err
    assert main(["run", "--workload", str(path), "--skip-bad-lines"]) == 0
    assert "skipped_bad_lines=1" in capsys.readouterr().out


def test_a_png_given_as_the_workload(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "figure.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    err = error_of(capsys, ["run", "--workload", str(png)])
    assert err == f"{png}: not an SWF trace: the file is a PNG image"


def test_a_trace_with_a_byte_order_mark_runs(capsys: pytest.CaptureFixture[str],
                                             small: Path) -> None:
    small.write_bytes(b"\xef\xbb\xbf" + small.read_bytes())
    assert main(["run", "--workload", str(small)]) == 0
    assert "3 jobs" in capsys.readouterr().out


def test_other_file_errors_are_one_line(capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from ckptsim.cli import listing

    def fail(args: object) -> int:
        raise PermissionError(13, "Permission denied", "/some/file.csv")

    monkeypatch.setattr(listing, "cmd_schedulers", fail)
    assert error_of(capsys, ["schedulers"]) == "/some/file.csv: Permission denied"


# ---------------------------------------------------------------------------- silently wrong


@pytest.mark.parametrize("argv", [["run", "--workload", "lublin:n=0"], ["demo", "--jobs", "0"]])
def test_no_jobs_is_refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    # both used to print a table of zeros
    err = error_of(capsys, argv)
    assert err.startswith(("--workload lublin.n: expected an integer >= 1", "--jobs: "))


def test_a_parameter_given_twice_is_refused(capsys: pytest.CaptureFixture[str],
                                           small: Path) -> None:
    err = error_of(capsys, ["run", "--workload", str(small), "--scheduler", "ckpt-backfill",
                            "--set", "p=0.2", "--set", "t_extend=60", "--set", "p=0.3"])
    assert err == "--set p: given twice (p=0.2 and p=0.3): give each parameter once"


def test_alpha_above_one_says_what_happens_to_underestimates(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # Job 1 ran 100 s of a 60 s request: alpha 2 gives 100 + 2 (60 - 100) = 20 s.  Job 2 ran
    # 100 s of 40 s: 100 + 2 (40 - 100) = -20, clamped to 0.  Job 3 asked more than it used.
    path = swf(tmp_path, [line(1, 0, 100, 1, 60), line(2, 0, 100, 1, 40),
                          line(3, 0, 10, 1, 50)])
    for overrun, fate in (("extend", "they run on past their estimates to completion"),
                          ("kill", "they are killed when their estimate runs out")):
        assert main(["run", "--workload", str(path), "--alpha", "2", "--overrun", overrun,
                     "--out", str(tmp_path / overrun)]) == 0
        err = capsys.readouterr().err
        assert "--alpha 2 > 1 exaggerates the users' errors: the 2 jobs that requested less " \
               "time than they ran get estimates further below their run time (1 of them " \
               "clamped to 0 s)" in err
        assert fate in err
        rows = (tmp_path / overrun / "jobs.csv").read_text().splitlines()[1:]
        assert [r.split(",")[6] for r in rows] == ["20", "0", "90"]  # the estimates
    assert main(["run", "--workload", str(path), "--alpha", "1"]) == 0
    assert "exaggerates" not in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "flag"), [
    (["--first", "0"], "--first"),
    (["--load-scale", "0"], "--load-scale"),
    (["--load-scale", "1e12"], "--load-scale"),
    (["--alpha", "-1"], "--alpha"),
    (["--alpha", "1e308"], "--alpha"),
    (["--window", "5", "1"], "--window END"),
    (["--window", "1e6", "2e6"], "--window"),
    (["--machine-size", "0"], "--machine-size"),
    (["--scheduler", "nope"], "--scheduler"),
    (["--failures", "synthetic:mtbf=-5"], "--failures mtbf"),
    (["--failures", "synthetic:mtbf=100,shape=0"], "--failures shape"),
    (["--failures", "synthetic:mtbf=100,dist=gamma"], "--failures dist"),
    (["--failures", f"lanl:path={__file__},system=20,map=nope"], "--failures map"),
])
def test_errors_name_the_flag_not_an_internal_key(capsys: pytest.CaptureFixture[str],
                                                  small: Path, argv: list[str],
                                                  flag: str) -> None:
    err = error_of(capsys, ["run", "--workload", str(small), *argv])
    assert err.startswith(f"{flag}: "), err


@pytest.mark.parametrize(("argv", "flag"), [
    (["run", "--workload", "lublin:n=100,machine=0"], "--workload lublin.machine"),
    (["run", "--workload", "lublin:n=100,estimates=nope"], "--workload lublin.estimates"),
    (["demo", "--jobs", "10", "--machine-size", "0"], "--machine-size"),
    (["run", "--workload", "grid:n=30", "--machine-size", "4"], "--machine-size"),
    (["run", "--workload", "lublin:n=300", "--machine-size", "0"], "--machine-size"),
])
def test_generator_errors_name_the_flag(capsys: pytest.CaptureFixture[str], argv: list[str],
                                        flag: str) -> None:
    err = error_of(capsys, argv)
    assert err.startswith(f"{flag}: "), err


def test_inspect_errors_name_the_flag(capsys: pytest.CaptureFixture[str], small: Path) -> None:
    err = error_of(capsys, ["inspect", str(small), "--machine-size", "0"])
    assert err.startswith("--machine-size: ")


def test_system_not_in_the_log_names_the_option(capsys: pytest.CaptureFixture[str],
                                                small: Path) -> None:
    if not LANL.exists():
        pytest.skip(f"LANL failure records not available at {LANL}")
    err = error_of(capsys, ["run", "--workload", str(small), "--failures",
                            f"lanl:path={LANL},system=999"])
    assert err.startswith("--failures system: no system 999 in ")


# ------------------------------------------------------------------------------ the run table


def test_run_table_shows_wait_percentiles_and_max_slowdown(capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    # One node, eleven 10 s jobs submitted at 0, FCFS: waits 0, 10, ..., 100 s.
    path = swf(tmp_path, [line(k + 1, 0, 10, 1, 10) for k in range(11)], machine=1)
    out = tmp_path / "out"
    assert main(["run", "--workload", str(path), "--scheduler", "fcfs", "--out",
                 str(out)]) == 0
    rows = table(capsys.readouterr().out)
    assert rows["mean wait (s)"] == "50.0"
    assert rows["median wait (s)"] == "50.0"
    assert rows["95th percentile wait (s)"] == "95.0"
    assert rows["max wait (s)"] == "100.0"
    assert rows["max bounded slowdown"] == "11.0"  # (100 + 10) / 10
    metrics = json.loads((out / "summary.json").read_text())["metrics"]
    assert (metrics["median_wait"], metrics["p95_wait"], metrics["p99_wait"],
            metrics["max_wait"]) == (50.0, 95.0, 99.0, 100.0)


def test_demo_table_shows_them_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--jobs", "50"]) == 0
    text = capsys.readouterr().out
    for label in ("median wait (s)", "95th percentile wait (s)", "max wait (s)",
                  "max bounded slowdown"):
        assert label in text


def test_kill_labels_are_unambiguous(capsys: pytest.CaptureFixture[str], small: Path) -> None:
    assert main(["run", "--workload", str(small), "--failures", "synthetic:mtbf=20,seed=3"]) == 0
    rows = table(capsys.readouterr().out)
    assert "jobs killed" not in rows and "jobs killed by failures" not in rows
    assert rows["jobs ended unfinished (killed for good)"] == "0"
    assert int(rows["job kills by failures (each job requeued)"]) > 0


def test_bgl_table_names_the_simulated_machine_and_the_size_changes(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # A 512-processor trace on the 128-supernode torus: sizes scaled by 1/4 (100 -> 25,
    # 8 -> 2), then rounded up to box volumes (25 -> a box of 32 nodes).
    path = swf(tmp_path, [line(1, 0, 10, 100, 10), line(2, 1, 10, 8, 10),
                          line(3, 2, 10, 512, 10)], machine=512)
    assert main(["run", "--workload", str(path), "--scheduler", "bgl-fcfs"]) == 0
    text = capsys.readouterr().out
    assert "(3 jobs, 128 nodes; the trace's machine has 512)" in text
    loader = next(x for x in text.splitlines() if x.startswith("loader: "))
    assert "3 records read" in loader and "sizes_scaled=3" in loader
    assert "sizes_rounded_to_box=" in loader
    workload = next(x for x in text.splitlines() if x.startswith("workload: "))
    assert "sizes scaled by 0.25 (512 -> 128)" in workload


def test_absurd_span_warns_that_the_daily_series_is_omitted(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = swf(tmp_path, [line(1, 0, 10, 1, 10), line(2, 9e9, 10, 1, 10)], machine=1)
    out = tmp_path / "out"
    assert main(["run", "--workload", str(path), "--out", str(out)]) == 0
    assert "ckptsim: note: no daily series in summary.json: the simulated span covers " \
           "104,167 days" in capsys.readouterr().err
    daily = json.loads((out / "summary.json").read_text())["daily"]
    assert daily["day"] == [] and "104,167 days" in daily["omitted"]


# ------------------------------------------------------------------------------ paper wording


def test_paper_oliner_on_a_fresh_folder_does_not_mention_earlier_runs(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    if not LANL.exists() or not (TRACES / "NASA-iPSC-1993-3.1-cln.swf.gz").exists():
        pytest.skip("needs the NASA trace and the LANL failure records in ../shared/data")
    argv = ["paper", "oliner", "balancing", "--trace-dir", str(TRACES), "--out",
            str(tmp_path), "--traces", "NASA", "--first", "60", "--levels", "0", "--loads",
            "1.0", "--jobs", "0"]
    assert main(argv) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("1 run simulated in ") and "already" not in last
    assert main(argv) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("0 runs simulated in ")
    assert last.endswith(f"; 1 run was already in {tmp_path / 'store'}")


@pytest.mark.parametrize(("argv", "expected"), [
    (["run", "--workload", ""], "--workload: expected an SWF trace path, 'builtin' or "),
    (["run", "--workload", "builtin", "--failures", "synthetic:mtbf=1"],
     "--failures mtbf: 1 s on 128 nodes over "),
    (["paper", "niu", "fig4", "--out", "x", "--first", "0"],
     "--first: expected a number of jobs >= 1, got 0"),
    (["paper", "oliner", "fig3", "--out", "x", "--jobs", "-1"],
     "--jobs: expected a number of processes >= 0"),
])
def test_more_bad_arguments(capsys: pytest.CaptureFixture[str], argv: list[str],
                            expected: str) -> None:
    # mtbf=1 s on 128 nodes used to draw ~4e8 failures (minutes and gigabytes)
    assert error_of(capsys, argv).startswith(expected)


def test_paper_out_that_cannot_be_a_folder(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    err = error_of(capsys, ["paper", "niu", "fig4", "--out", str(blocker / "x")])
    assert err == f"--out: {blocker} is a file, not a folder (in {blocker / 'x'})"


def test_out_of_memory_is_one_line(capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from ckptsim.cli import single

    def fail(args: object) -> int:
        raise MemoryError("Unable to allocate 745. GiB for an array")

    monkeypatch.setattr(single, "cmd_demo", fail)
    assert error_of(capsys, ["demo"]) == ("not enough memory: Unable to allocate 745. GiB for "
                                          "an array")


@pytest.mark.parametrize("kind", ["lanl", "fta"])
def test_a_failure_log_that_is_not_text(capsys: pytest.CaptureFixture[str], small: Path,
                                        tmp_path: Path, kind: str) -> None:
    png = tmp_path / "log.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    err = error_of(capsys, ["run", "--workload", str(small), "--failures",
                            f"{kind}:path={png}" + (",system=20" if kind == "lanl" else "")])
    assert err == f"{png}: not a failure log: the file is a PNG image"
    binary = tmp_path / "log.csv"
    binary.write_bytes(b"System,nodenum\n\x00\x01\x02")
    err = error_of(capsys, ["run", "--workload", str(small), "--failures",
                            f"{kind}:path={binary}" + (",system=20" if kind == "lanl" else "")])
    assert err == f"{binary}: not a failure log: the file is binary data (NUL bytes), not text"


def test_a_lanl_log_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    from helpers import LANL_HEADER, lanl_row

    from ckptsim.failures.readers import read_lanl_cfdr

    rows = [LANL_HEADER, lanl_row(20, 3, "1/5/2004 10:00", "1/5/2004 11:00")]
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + "".join(r + "\n" for r in rows).encode())
    trace = read_lanl_cfdr(path, system=20)
    assert len(trace.time) == 1


@pytest.mark.parametrize("values", ["reboot=05:00,days=1000000000000",
                                    "owners=model,days=100000"])
def test_availability_days_are_bounded_by_max_days(capsys: pytest.CaptureFixture[str],
                                                   small: Path, values: str) -> None:
    err = error_of(capsys, ["run", "--workload", str(small), "--component",
                            f"availability:{values}"])
    days = values.rpartition("=")[2]
    assert err == (f"--component availability:days: {days} days is more than the limit, "
                   f"36500 (MAX_DAYS)")


def test_availability_default_days_beyond_max_days_name_the_parameter(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # The last submission on day 46,297 (4e9 s): its default days are past the limit.
    late = swf(tmp_path, [line(1, 0, 10, 4, 10), line(2, 4e9, 10, 4, 10)])
    err = error_of(capsys, ["run", "--workload", str(late), "--component",
                            "availability:reboot=05:00"])
    assert err == ("--component availability:days: the last submission's day 46297 + 30 (the "
                   "default; give availability:days=N) = 46327 days is more than the limit, "
                   "36500 (MAX_DAYS)")


FTA = TRACES.parent / "failures" / "fta_g5k06"


@pytest.mark.parametrize(("option", "flag"), [
    ("--component=availability:trace=fta:path={},platform=99", "--component availability:trace: "
                                                               "platform"),
    ("--component=failures:source=fta:path={},platform=99", "--component failures:source "
                                                            "platform"),
    ("--failures=fta:path={},platform=99", "--failures platform"),
])
def test_a_platform_missing_from_an_fta_trace_names_the_flag_typed(
        capsys: pytest.CaptureFixture[str], small: Path, option: str, flag: str) -> None:
    if not FTA.exists():
        pytest.skip("the FTA Grid'5000 trace is not available")
    err = error_of(capsys, ["run", "--workload", str(small), option.format(FTA)])
    assert err.startswith(f"{flag}: no failures on platform [99] in "), err


def test_a_source_option_of_the_failures_component_names_the_component(
        capsys: pytest.CaptureFixture[str], small: Path) -> None:
    err = error_of(capsys, ["run", "--workload", str(small), "--component",
                            "failures:source=synthetic:mtbf=1e6,dist=gamma"])
    assert err.startswith("--component failures:source dist: "), err
    err = error_of(capsys, ["run", "--workload", str(small), "--component",
                            "failures:source=synthetic:mtbf=1e6,count=5"])
    assert err.startswith("--component failures:count: applies to failure logs"), err


@pytest.mark.parametrize(("option", "flag"), [
    ("policy=", "--component checkpoint:policy: unknown checkpoint policy ''"),
    ("policy=yung", "--component checkpoint:policy: unknown checkpoint policy 'yung'"),
    ("policy=fixed:cost=1+fixed:cost=2", "--component checkpoint:policy: fixed is given twice"),
    ("policy=fixed:interval=0,cost=1", "--component checkpoint:policy interval: got 0"),
    ("policy=fixed", "--component checkpoint:policy cost: give the checkpoint cost"),
    # Refused once the run's components are known (they were "checkpoint: ...", and
    # "--checkpoint mtbf" for a --checkpoint never typed).
    ("policy=fixed:cost=1+scheduled", "--component checkpoint:policy: scheduled acts on"),
    ("policy=young:cost=1", "--component checkpoint:policy mtbf: young needs"),
])
def test_every_error_of_the_checkpoint_components_policy_names_the_key(
        capsys: pytest.CaptureFixture[str], small: Path, option: str, flag: str) -> None:
    err = error_of(capsys, ["run", "--workload", str(small), "--component",
                            f"checkpoint:{option}"])
    assert err.startswith(flag), err
    given = option.removeprefix("policy=")
    err = error_of(capsys, ["run", "--workload", str(small), "--checkpoint", given])
    assert err.startswith(flag.replace("--component checkpoint:policy", "--checkpoint")), err


def test_an_error_of_a_component_as_a_whole_names_the_flag(
        capsys: pytest.CaptureFixture[str], small: Path) -> None:
    err = error_of(capsys, ["run", "--workload", str(small), "--component", "energy:active="])
    assert err.startswith("--component energy: no power profile"), err


def test_a_second_rate_model_names_the_component_given(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    err = error_of(capsys, ["run", "--workload", "grid:n=30,seed=1,clusters=2", "--scheduler",
                            "coalloc", "--platform", "grid:clusters=2,nodes=10", "--component",
                            "speed"])
    assert err == ("--component speed: two rate models: 'links' (the scheduler coalloc's own) "
                   "and 'speed'; a run has one (leave the component speed out)")


@pytest.mark.parametrize(("option", "flag", "what"), [
    ("--failures=synthetic:mtbf=1e6", "--failures", "synthetic failures are"),
    ("--failures=lanl:path={},system=20,count=10", "--failures",
     "the lanl log's failures, rescaled to a count, are"),
    ("--component=failures:source=lanl:path={},system=20,count=10", "--component failures:source",
     "the lanl log's failures, rescaled to a count, are"),
    ("--component=availability:failures=synthetic:mtbf=1e6", "--component availability:failures",
     "synthetic failures are"),
])
def test_failures_over_a_workload_submitted_at_once_name_the_submit_span(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str, flag: str,
        what: str) -> None:
    if "lanl" in option and not LANL.exists():
        pytest.skip("the LANL failure log is not available")
    once = swf(tmp_path, [line(1, 5, 10, 4, 10), line(2, 5, 30, 8, 30)])
    err = error_of(capsys, ["run", "--workload", str(once), option.format(LANL)])
    assert err.startswith(f"{flag}: {what} drawn over the workload's submit span (its first to "
                          f"its last submission), which is 0 s here: its 2 jobs are all "
                          f"submitted at 5 s; give a workload submitted over a time"), err


@pytest.mark.parametrize("argv", [["run", "--workload", "lublin:n=10", "--out", ""],
                                  ["paper", "shi", "fig11", "--first", "300", "--out", ""],
                                  ["demo", "--jobs", "50", "--out", " "]])
def test_an_empty_out_is_refused(capsys: pytest.CaptureFixture[str], argv: list[str],
                                 tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--out ""` wrote into the current folder (`paper` put its store there too)."""
    monkeypatch.chdir(tmp_path)
    assert error_of(capsys, argv) == ("--out: an empty path; give a folder (. for the "
                                      "current one)")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, expected", [
    (["--scheduler", "eaasy"], "--scheduler: unknown scheduler 'eaasy' (did you mean 'easy'?); "),
    (["--scheduler", "ckpt-backfill", "--set", "t_extnd=5"],
     "--set t_extnd: unknown parameter (did you mean 't_extend'?); "),
    (["--checkpoint", "fixd:interval=10"],
     "--checkpoint: unknown checkpoint policy 'fixd' (did you mean 'fixed'?); "),
    (["--component", "enrgy:htc=true"],
     "--component: unknown component 'enrgy' (did you mean 'energy'?); "),
    (["--platform", "newcastel"],
     "--platform: unknown platform 'newcastel' (did you mean 'newcastle'?); "),
    (["--scheduler", "zzz"], "--scheduler: unknown scheduler 'zzz'; accepted: "),
    (["--component", "bound:limt=5"],
     "--component bound: unknown parameter 'limt' in 'limt=5' (did you mean 'limit'?); "),
    (["--failures", "synthetc:mtbf=5"],
     "--failures: unknown failure source 'synthetc' (did you mean 'synthetic'?); "),
    (["--failures", "synthetic:mtbf=5,shpe=1"],
     "--failures shpe: unknown option of synthetic (did you mean 'shape'?); "),
    (["--platform", "grid:clusers=2,nodes=5"],
     "--platform: 'grid:clusers=2,nodes=5': expected grid:clusters=C,nodes=N"),
    (["--platform", "smallpool", "--component",
      "availability:owners=model:peak_rte=0.2"],
     "--component availability:owners.peak_rte: not a parameter of the user model in "
     "'model:peak_rte=0.2' (did you mean 'peak_rate'?); "),
])
def test_a_near_miss_gets_a_suggestion(capsys: pytest.CaptureFixture[str], argv: list[str],
                                       expected: str) -> None:
    err = error_of(capsys, ["run", "--workload", "lublin:n=5,seed=1", *argv])
    assert err.startswith(expected), err


@pytest.mark.parametrize("argv, expected", [
    (["nu", "fig1"], "paper: unknown paper 'nu' (did you mean 'niu'?); accepted: "),
    (["NIU", "fig1"], "paper: unknown paper 'NIU' (did you mean 'niu'?); accepted: "),
    (["niu", "fg1"], "figure: unknown figure 'fg1' of niu (did you mean 'fig1'?); accepted: "),
    (["jones", "ctm"], "figure: unknown figure 'ctm' of jones (did you mean 'ctmr'?); "),
    (["oliner", "tiebrake"],
     "figure: unknown figure 'tiebrake' of oliner (did you mean 'tiebreak'?); "),
    (["niu", "fig1", "--traces", "ctc-sp2"],
     "--traces: unknown trace 'ctc-sp2' (did you mean 'CTC-SP2'?); accepted: "),
])
def test_a_misspelt_paper_figure_or_trace_gets_a_suggestion(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str],
        expected: str) -> None:
    err = error_of(capsys, ["paper", *argv, "--out", str(tmp_path / "out")])
    assert err.startswith(expected), err


def test_a_misspelt_grid_key_gets_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    err = error_of(capsys, ["run", "--workload", "builtin", "--platform",
                            "grid:clusers=2,nodes=5"])
    assert err.endswith("got 'clusers=2' (did you mean 'clusters'?)"), err


@pytest.mark.parametrize("text, expected", [
    ('[types.node]\ncoers = 1\n[[groups]]\nname = "a"\nmachines = 2\ntype = "node"\n',
     "types.node.coers: unknown key (did you mean 'cores'?); accepted: "),
    ('[types.node]\n[[groups]]\nname = "a"\nmachnes = 2\ntype = "node"\n',
     "groups[0].machnes: unknown key (did you mean 'machines'?); accepted: "),
    ('[types.node]\npower = { actve = 5, idle = 4, sleep = 1 }\n[[groups]]\nname = "a"\n'
     'machines = 2\ntype = "node"\n',
     "types.node.power.actve: unknown key (did you mean 'active'?); accepted: "),
])
def test_a_misspelt_platform_key_gets_a_suggestion(tmp_path: Path, text: str,
                                                   expected: str) -> None:
    from ckptsim.platform.description import read_description

    path = tmp_path / "p.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        read_description(path)
    assert expected in str(info.value), info.value


def test_a_misspelt_checkpoint_plan_key_gets_a_suggestion(tmp_path: Path) -> None:
    from ckptsim.experiments.spec import SpecError, load_spec

    path = tmp_path / "s.toml"
    path.write_text('[workloads.l]\ngenerator = "lublin"\nn = 20\n'
                    '[workloads.l.components.checkpoint.policy]\nintervl = "fixed"\ncost = 5\n'
                    '[workloads.l.components.checkpoint.policy.fixed]\nintervl = 60\n'
                    '[[schedulers]]\nname = "easy"\n')
    with pytest.raises(SpecError) as info:
        load_spec(path)
    found = " | ".join(msg for _, msg in info.value.problems)
    assert "unknown key (did you mean 'interval'?); accepted: " in found, found
    assert "unknown option of fixed (did you mean 'interval'?); accepted: " in found, found


def test_a_misspelt_spec_section_gets_a_suggestion(tmp_path: Path) -> None:
    from ckptsim.experiments.spec import SpecError, load_spec

    path = tmp_path / "s.toml"
    path.write_text('[workload.l]\ngenerator = "lublin"\n[[schedulers]]\nname = "esay"\n'
                    '[[figures]]\nx = "seed"\ny = "mean_wiat"\n')
    with pytest.raises(SpecError) as info:
        load_spec(path)
    found = dict(info.value.problems)
    assert found["workload (line 1)"].startswith("unknown key (did you mean 'workloads'?); ")
    assert found["schedulers[0].name (line 4)"].startswith(
        "unknown scheduler 'esay' (did you mean 'easy'?); ")
    assert "got 'mean_wiat' (did you mean 'mean_wait'?); " in found["figures[0].y (line 7)"]


@pytest.mark.parametrize("workload, expected", [
    ("lubin:n=5", "--workload: unknown generator 'lubin' (did you mean 'lublin'?) in "),
    ("lublin:sed=1", "--workload lublin.sed: unknown option (did you mean 'seed'?); accepted: "),
    ("grid:ppwb=300", "--workload grid.ppwb: unknown option (did you mean 'ppbw'?); accepted: "),
    ("htc:dayz=2", "--workload htc.dayz: unknown option (did you mean 'days'?); accepted: "),
    ("grid:n=0", "--workload grid.n: "),
    ("zzz:n=5", "--workload: unknown generator 'zzz' in "),
])
def test_a_workload_generator_near_miss_gets_a_suggestion_under_its_flag(
        capsys: pytest.CaptureFixture[str], workload: str, expected: str) -> None:
    err = error_of(capsys, ["run", "--workload", workload])
    assert err.startswith(expected), err
    if "unknown generator" in expected:  # every kind --workload takes is named
        assert err.rstrip().endswith("or builtin, or the path of an SWF trace or of a Batsim "
                                     "JSON workload"), err


@pytest.mark.parametrize("workload", ["builtin:n=5", "builtin:"])
def test_builtin_with_options_is_not_suggested_to_itself(
        capsys: pytest.CaptureFixture[str], workload: str) -> None:
    err = error_of(capsys, ["run", "--workload", workload])
    assert err.startswith(f"--workload: builtin takes no options, got {workload!r}; "), err
    assert "did you mean" not in err, err


@pytest.mark.parametrize("argv, usage", [
    (["paper", "niu", "fig1", "--out", "x", "--bogus"], "ckptsim paper"),
    (["run", "--workload", "builtin", "--bogus", "1"], "ckptsim run"),
])
def test_an_unknown_flag_is_refused_under_the_commands_usage(
        capsys: pytest.CaptureFixture[str], argv: list[str], usage: str) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: {usage} ")
    assert f"\n{usage}: error: unrecognized arguments: --bogus" in err


def test_outputs_of_two_commands_are_not_mixed_in_one_folder(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`run --out` into a results store, or `sweep --out` into a run's folder, wrote the two
    side by side (a run's summary.json beside the store's runs/)."""
    spec = tmp_path / "s.toml"
    spec.write_text('seeds = [1]\n[workloads.w]\ngenerator = "lublin"\nn = 20\nmachine = 32\n'
                    '[[schedulers]]\nname = "fcfs"\n')
    store, run = tmp_path / "store", tmp_path / "run"
    assert main(["sweep", str(spec), "--out", str(store), "--jobs", "0"]) == 0
    assert main(["run", "--workload", "lublin:n=20,machine=32", "--out", str(run)]) == 0
    capsys.readouterr()
    before = {p: sorted(x.name for x in p.iterdir()) for p in (store, run)}
    assert error_of(capsys, ["run", "--workload", "lublin:n=20,machine=32", "--out",
                             str(store)]).startswith(
        f"--out: {store} holds a results store (ckptsim sweep); give a folder of its own")
    assert error_of(capsys, ["sweep", str(spec), "--out", str(run), "--jobs", "0"]).startswith(
        f"--out: {run} holds a run's outputs (ckptsim run); give a folder of its own")
    assert error_of(capsys, ["paper", "shi", "fig11", "--first", "300", "--out",
                             str(store)]).startswith(f"--out: {store} holds a results store")
    assert {p: sorted(x.name for x in p.iterdir()) for p in (store, run)} == before
    # Each command goes on with its own folder: a run rewrites its outputs, a sweep resumes.
    assert main(["run", "--workload", "lublin:n=20,machine=32", "--out", str(run)]) == 0
    assert main(["sweep", str(spec), "--out", str(store), "--jobs", "0"]) == 0
    # A folder of one's own named runs/ or store/ is no store.
    (tmp_path / "mine" / "runs").mkdir(parents=True)
    (tmp_path / "mine" / "store").mkdir()
    assert main(["run", "--workload", "lublin:n=20,machine=32", "--out",
                 str(tmp_path / "mine")]) == 0
