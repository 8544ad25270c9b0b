"""--size-from and --skip-bad-lines are an SWF trace's: given with a generator or a Batsim JSON
workload (where they would change nothing), they are refused naming the option."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.workload.source import load_workload

#: One job asks 4 processors and was given 2.
TRACE = "; MaxProcs: 8\n1 0 -1 10 2 -1 -1 4 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
TAIL = "accepted: an SWF trace (.swf, .swf.gz; with grid:, trace=FILE.swf), or leave the option out"
GENERATED = "is a generated workload, whose jobs have one size and no lines"
BATSIM = ("is a Batsim JSON workload, whose jobs have one size (res) and no lines (a malformed "
          "job is refused)")


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.removeprefix("ckptsim: error: ").rstrip("\n")


@pytest.mark.parametrize("workload", ["lublin:n=20,seed=1", "builtin", "htc:days=1,seed=1",
                                      "grid:n=20,seed=1"])
@pytest.mark.parametrize("command", ["run", "convert", "inspect"])
def test_a_generator_refuses_the_trace_options(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path, workload: str,
                                               command: str) -> None:
    if command == "run":
        head = ["run", "--workload", workload]
    elif command == "convert":
        head = ["convert", workload, str(tmp_path / "out.swf")]
    else:
        head = ["inspect", workload]
    assert _error(capsys, [*head, "--size-from", "allocated"]) == (
        f"--size-from: 'allocated' applies to an SWF trace (a job's requested or allocated "
        f"processors, fields 8 and 5); {workload!r} {GENERATED}; {TAIL}")
    assert _error(capsys, [*head, "--skip-bad-lines"]) == (
        f"--skip-bad-lines: applies to an SWF trace (malformed lines skipped and counted); "
        f"{workload!r} {GENERATED}; {TAIL}")
    assert not (tmp_path / "out.swf").exists()


def test_a_batsim_workload_refuses_the_trace_options(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    swf = tmp_path / "t.swf"
    swf.write_text(TRACE)
    json = tmp_path / "t.json"
    assert main(["convert", str(swf), str(json)]) == 0
    assert _error(capsys, ["run", "--workload", str(json), "--size-from", "requested"]) == (
        f"--size-from: 'requested' applies to an SWF trace (a job's requested or allocated "
        f"processors, fields 8 and 5); {str(json)!r} {BATSIM}; {TAIL}")
    grid = f"grid:trace={json},clusters=2,nodes=4"
    assert _error(capsys, ["run", "--workload", grid, "--skip-bad-lines"]) == (
        f"--skip-bad-lines: applies to an SWF trace (malformed lines skipped and counted); "
        f"{str(json)!r} {BATSIM}; {TAIL}")


def test_an_swf_trace_takes_them(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    swf = tmp_path / "t.swf"
    swf.write_text(TRACE)
    assert load_workload(str(swf), size_from="allocated").size.tolist() == [2]
    assert load_workload(str(swf), skip_bad_lines=True).size.tolist() == [4]
    grid = f"grid:trace={swf},clusters=2,nodes=10"
    assert load_workload(grid, size_from="allocated").size.tolist() == [2]
    assert main(["run", "--workload", grid, "--skip-bad-lines", "--size-from", "requested",
                 "--scheduler", "coalloc"]) == 0


def test_the_library_names_the_key() -> None:
    with pytest.raises(ConfigError) as exc:
        load_workload("lublin:n=5", skip_bad_lines=True)
    assert exc.value.key == "skip_bad_lines"
    assert load_workload("lublin:n=5", size_from=None).n_jobs == 5
