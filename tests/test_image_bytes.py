"""Charts written as SVG, PDF or PostScript are byte-identical for the same run (no date, no
random ids), and a backend that cannot run is one line, not a traceback."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from ckptsim.cli import main


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gantt") / "run"
    assert main(["run", "--workload", "lublin:n=40,seed=1,machine=16", "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("suffix", [".svg", ".pdf", ".eps"])
def test_a_chart_is_the_same_bytes_twice(run: Path, tmp_path: Path, suffix: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime
    import time

    from ckptsim.plots.gantt import plot_gantt

    plot_gantt(run, tmp_path / f"a{suffix}")
    # A day later: a date written into the file would differ.
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 86400)
    monkeypatch.setattr(time, "ctime", lambda *a: "Sun Jan  1 00:00:00 2040")

    class Later(datetime.datetime):
        @classmethod
        def today(cls):
            return datetime.datetime(2040, 1, 1)

        @classmethod
        def now(cls, tz=None):
            return datetime.datetime(2040, 1, 1, tzinfo=tz)

    monkeypatch.setattr(datetime, "datetime", Later)
    plot_gantt(run, tmp_path / f"b{suffix}")
    first = (tmp_path / f"a{suffix}").read_bytes()
    second = (tmp_path / f"b{suffix}").read_bytes()
    if suffix == ".eps":  # PostScript names the file in its title
        second = second.replace(b"b.eps", b"a.eps")
    assert first == second


def test_svgz_has_no_time_stamp(run: Path, tmp_path: Path) -> None:
    from ckptsim.plots.gantt import plot_gantt

    plot_gantt(run, tmp_path / "a.svgz")
    data = (tmp_path / "a.svgz").read_bytes()
    assert data[4:8] == b"\0\0\0\0"  # gzip's MTIME
    assert gzip.decompress(data).startswith(b"<?xml")


def test_inspect_svg_is_the_same_bytes_twice(tmp_path: Path) -> None:
    for name in ("a.svg", "b.svg"):
        assert main(["inspect", "lublin:n=50,seed=1", "--plot", str(tmp_path / name)]) == 0
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


@pytest.mark.skipif(shutil.which("xelatex") is not None, reason="LaTeX is installed")
def test_pgf_without_latex_is_one_line(run: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gantt", str(run), "--out", str(tmp_path / "g.pgf")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: ") and "g.pgf: cannot write: " in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
