"""allocations.csv, unavailability.csv, out_jobs.csv and the Gantt chart of `ckptsim run --out`."""

from __future__ import annotations

import csv
from collections import defaultdict
from itertools import pairwise
from pathlib import Path

import pytest

from ckptsim.cli import main
from ckptsim.records.allocations import (
    ALLOCATION_COLUMNS,
    BATSIM_COLUMNS,
    ENDED,
    UNAVAILABILITY_COLUMNS,
    AllocationRecorder,
)
from ckptsim.records.nodesets import node_text, parse_nodes

WORKLOAD = "lublin:n=200,seed=1,machine=64"
RUNS = {
    "htc": ["--workload", "htc:days=1,seed=2", "--platform", "smallpool", "--scheduler", "htc",
            "--component", "availability:owners=model,reboot=03:00-05:00"],
    "easy": ["--scheduler", "easy"],
    "failures": ["--scheduler", "easy", "--failures", "synthetic:mtbf=20000,repair_mean=3600"],
    "ckpt": ["--scheduler", "ckpt-backfill", "--set", "p=0.2",
             "--failures", "synthetic:mtbf=20000,repair_mean=3600"],
}


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module", params=sorted(RUNS))
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp(request.param)
    workload = [] if "--workload" in RUNS[request.param] else ["--workload", WORKLOAD]
    assert main(["run", *workload, *RUNS[request.param], "--out", str(out)]) == 0
    return out


def test_node_text_round_trip() -> None:
    assert node_text(0) == ""
    assert node_text(0b1111) == "0-3"
    mask = 0b1111 | 1 << 8 | 1 << 10 | 1 << 11
    assert node_text(mask) == "0-3 8 10-11"
    assert parse_nodes("0-3 8 10-11") == [(0, 3), (8, 8), (10, 11)]
    big = (1 << 300) - 1 ^ (1 << 150)
    back = 0
    for a, b in parse_nodes(node_text(big)):
        back |= ((1 << (b - a + 1)) - 1) << a
    assert back == big


def test_attempts_hold_nodes_alone(run: Path) -> None:
    """Sweep every node's intervals: no node is held by two attempts at once."""
    rows = _rows(run / "allocations.csv")
    assert tuple(rows[0]) == ALLOCATION_COLUMNS
    by_node: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for r in rows:
        s, e = float(r["start"]), float(r["end"])
        assert s <= e
        for a, b in parse_nodes(r["nodes"]):
            for node in range(a, b + 1):
                by_node[node].append((s, e))
    assert by_node and (max(by_node) < 64 or run.name.startswith("htc"))
    for spans in by_node.values():
        spans.sort()
        for (_s0, e0), (s1, _e1) in pairwise(spans):
            assert s1 >= e0


def test_attempts_cover_each_job(run: Path) -> None:
    jobs = {r["job_id"]: r for r in _rows(run / "jobs.csv")}
    attempts: dict[str, list[dict[str, str]]] = defaultdict(list)
    for r in _rows(run / "allocations.csv"):
        assert r["ended"] in ENDED
        attempts[r["job_id"]].append(r)
    assert set(attempts) == set(jobs)
    for job_id, rows in attempts.items():
        rows.sort(key=lambda r: int(r["attempt"]))
        assert [int(r["attempt"]) for r in rows] == list(range(1, len(rows) + 1))
        job = jobs[job_id]
        held = sum(float(r["end"]) - float(r["start"]) for r in rows)
        assert held >= float(job["runtime"]) - 1e-6
        assert float(rows[-1]["end"]) == float(job["end"])
        assert float(rows[0]["start"]) == float(job["start"])
        assert rows[-1]["ended"] == "completed" or job["status"] != "completed"
        width = sum(b - a + 1 for a, b in parse_nodes(rows[-1]["nodes"]))
        assert width == int(job["size"])


def test_ended_values_by_run(run: Path) -> None:
    ended = {r["ended"] for r in _rows(run / "allocations.csv")}
    if run.name.startswith("easy"):
        assert ended == {"completed"}
        assert not (run / "unavailability.csv").exists()
    elif not run.name.startswith("htc"):
        assert "failure" in ended
    if run.name.startswith("ckpt"):
        assert "checkpointed" in ended
    if run.name.startswith("htc"):
        assert "eviction" in ended
        reasons = {r["reason"] for r in _rows(run / "unavailability.csv")}
        assert {"owner", "reboot"} <= reasons


def test_unavailability(run: Path) -> None:
    if run.name.startswith("easy"):
        return
    rows = _rows(run / "unavailability.csv")
    assert tuple(rows[0]) == UNAVAILABILITY_COLUMNS
    assert {r["reason"] for r in rows} <= {"failure", "owner", "reboot"}
    assert all(float(r["start"]) <= float(r["end"]) for r in rows)
    # A down node holds no attempt that begins while it is down.
    down: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for r in rows:
        for a, b in parse_nodes(r["nodes"]):
            for node in range(a, b + 1):
                down[node].append((float(r["start"]), float(r["end"])))
    for r in _rows(run / "allocations.csv"):
        s = float(r["start"])
        for a, b in parse_nodes(r["nodes"]):
            for node in range(a, b + 1):
                assert not any(d0 < s < d1 for d0, d1 in down[node])


def test_batsim_jobs(run: Path) -> None:
    rows = _rows(run / "out_jobs.csv")
    assert tuple(rows[0]) == BATSIM_COLUMNS
    jobs = {r["job_id"]: r for r in _rows(run / "jobs.csv")}
    assert len(rows) == len(jobs)
    for r in rows:
        job = jobs[r["job_id"]]
        assert float(r["finish_time"]) == float(job["end"])
        assert float(r["starting_time"]) == float(job["start"])
        assert float(r["waiting_time"]) == pytest.approx(float(job["start"]) -
                                                         float(job["submit"]))
        assert int(r["requested_number_of_resources"]) == int(job["size"])


def test_evalys_reads_out_jobs(run: Path) -> None:
    jobset = pytest.importorskip("evalys.jobset")
    js = jobset.JobSet.from_csv(str(run / "out_jobs.csv"))
    assert len(js.df) == len(_rows(run / "jobs.csv"))
    load = js.utilisation["load"]
    assert load.max() > 0
    if run.name.startswith("easy"):  # every job ran once: the whole-job view is exact
        assert load.max() <= 64
        times = load.index.to_numpy(dtype=float)
        area = float((load.to_numpy()[:-1] * (times[1:] - times[:-1])).sum())
        jobs = _rows(run / "jobs.csv")
        assert area == pytest.approx(sum(int(j["size"]) * float(j["runtime"]) for j in jobs),
                                     rel=1e-6)


def _node_count(text: str) -> int:
    return sum(last - first + 1 for first, last in parse_nodes(text))


@pytest.mark.parametrize("name", ["failures", "ckpt", "htc"])
def test_out_jobs_per_attempt_is_the_exact_occupancy(name: str, tmp_path: Path) -> None:
    """--out-jobs attempt: a row per attempt (ID#K, submitted when the attempt before it
    ended), so node-time over the rows is allocations.csv's; evalys's utilisation integrates
    to it; the energy of a job sums over its rows."""
    out = tmp_path / name
    args = RUNS[name] if "--workload" in RUNS[name] else ["--workload", WORKLOAD, *RUNS[name]]
    extra = ["--component", "energy:htc=true"] if name == "htc" else []
    assert main(["run", *args, *extra, "--out", str(out), "--out-jobs", "attempt"]) == 0
    attempts = _rows(out / "allocations.csv")
    rows = _rows(out / "out_jobs.csv")
    jobs = {r["job_id"]: r for r in _rows(out / "jobs.csv")}
    assert {r["job_id"].partition("#")[0] for r in rows} == set(jobs)
    by_id = {r["job_id"]: r for r in rows}
    assert len(by_id) == len(rows)
    assert any(int(a["attempt"]) > 1 for a in attempts)  # some job ran more than once
    for a in attempts:
        r = by_id[f"{a['job_id']}#{a['attempt']}"]
        assert float(r["starting_time"]) == float(a["start"])
        assert float(r["finish_time"]) == float(a["end"])
        assert r["allocated_resources"] == a["nodes"]
        assert (r["success"] == "1") == (a["ended"] == "completed")
        k = int(a["attempt"])
        before = by_id.get(f"{a['job_id']}#{k - 1}")
        submitted = float(before["finish_time"]) if before else \
            float(jobs[a["job_id"]]["submit"])
        assert float(r["submission_time"]) == submitted
    # Jobs that never held nodes keep one row, #0.
    assert all(r["job_id"].endswith("#0") for r in rows if not r["allocated_resources"])
    area = sum(float(r["execution_time"]) * _node_count(r["allocated_resources"])
               for r in rows if r["allocated_resources"])
    exact = sum((float(a["end"]) - float(a["start"])) * _node_count(a["nodes"])
                for a in attempts)
    assert area == pytest.approx(exact, rel=1e-12)
    if name == "htc":
        energy: dict[str, float] = {}
        for r in rows:
            key = r["job_id"].partition("#")[0]
            energy[key] = energy.get(key, 0.0) + float(r["consumed_energy"])
        assert all(energy[j] == pytest.approx(float(jobs[j]["energy"])) for j in jobs)
    jobset = pytest.importorskip("evalys.jobset")
    load = jobset.JobSet.from_csv(str(out / "out_jobs.csv")).utilisation["load"]
    times = load.index.to_numpy(dtype=float)
    assert float((load.to_numpy()[:-1] * (times[1:] - times[:-1])).sum()) == \
        pytest.approx(exact, rel=1e-6)


def test_out_jobs_per_attempt_needs_out(capsys) -> None:
    assert main(["run", "--workload", "lublin:n=10", "--out-jobs", "attempt"]) == 2
    assert capsys.readouterr().err == ("ckptsim: error: --out-jobs: shapes out_jobs.csv, a "
                                       "file of --out DIR: give --out\n")


def test_gantt_png(run: Path, tmp_path: Path) -> None:
    png = tmp_path / "g.png"
    assert main(["gantt", str(run), "--out", str(png), "--color", "ended"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["gantt", str(run), "--out", str(tmp_path / "w.svg"), "--from", "0",
                 "--to", "50000", "--nodes", "0-31"]) == 0
    assert (tmp_path / "w.svg").read_text().lstrip().startswith("<?xml")


def test_gantt_counts_attempts_not_boxes(run: Path, tmp_path: Path) -> None:
    """An attempt on several runs of nodes is several boxes but one attempt, in the
    chart's title and in what the command says (they were the boxes)."""
    from ckptsim.plots.gantt import plot_gantt

    rows = _rows(run / "allocations.csv")
    boxes = sum(len(parse_nodes(r["nodes"])) for r in rows)
    drawn = plot_gantt(run, tmp_path / "g.svg")
    assert drawn == (len(rows), boxes)
    assert f": {len(rows)} attempts" in (tmp_path / "g.svg").read_text()


def test_gantt_of_jobs_on_scattered_nodes_counts_each_attempt_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", "--workload", "lublin:n=500,seed=3,machine=64", "--scheduler", "easy",
                 "--out", str(out)]) == 0
    rows = _rows(out / "allocations.csv")
    boxes = sum(len(parse_nodes(r["nodes"])) for r in rows)
    assert boxes > len(rows)  # some jobs hold more than one run of nodes
    capsys.readouterr()
    assert main(["gantt", str(out), "--out", str(tmp_path / "g.svg")]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"{len(rows)} attempts drawn ({boxes} boxes")
    assert f": {len(rows)} attempts" in (tmp_path / "g.svg").read_text()


def test_a_long_gantt_title_is_wrapped_not_cut(tmp_path: Path, monkeypatch) -> None:
    """A generator's options make a title wider than the chart: it wraps (it was cut at
    both ends: "c on grid(clusters=4, ...")."""
    from matplotlib.axes import Axes

    from ckptsim.plots.gantt import TITLE_WIDTH, plot_gantt

    out = tmp_path / "grid"
    assert main(["run", "--workload", "grid:n=40,ppbw=400,error=1,load=0.95,seed=3",
                 "--scheduler", "coalloc", "--out", str(out)]) == 0
    titles: list[str] = []
    real = Axes.set_title
    monkeypatch.setattr(Axes, "set_title",
                        lambda self, text, *a, **k: titles.append(text) or real(self, text))
    drawn = plot_gantt(out, tmp_path / "g.png")
    (title,) = titles
    lines = title.splitlines()
    assert len(lines) > 1 and max(len(line) for line in lines) <= TITLE_WIDTH
    assert " ".join(lines) == (f"coalloc on {_summary_source(out)}: {drawn.attempts} "
                               f"attempts")


def test_a_grid_runs_gantt_marks_its_clusters(tmp_path: Path, monkeypatch) -> None:
    """A multi-cluster run's chart draws a line at each cluster's first node and names the
    clusters (the uneven grid of examples/: 100, 60 and 40 nodes); other runs draw none."""
    from matplotlib.axes import Axes

    from ckptsim.plots.gantt import plot_gantt

    lines: list[float] = []
    names: list[str] = []
    real_line, real_note = Axes.axhline, Axes.annotate
    monkeypatch.setattr(Axes, "axhline",
                        lambda self, y, *a, **k: lines.append(y) or real_line(self, y, *a, **k))
    monkeypatch.setattr(Axes, "annotate", lambda self, text, *a, **k:
                        names.append(text) or real_note(self, text, *a, **k))
    out = tmp_path / "uneven"
    root = Path(__file__).resolve().parents[1]
    assert main(["run", "--workload", "grid:clusters=3,n=60,ppbw=400,error=1,load=0.6,seed=3",
                 "--platform", str(root / "examples" / "uneven-grid.toml"),
                 "--scheduler", "coalloc", "--out", str(out)]) == 0
    plot_gantt(out, tmp_path / "g.png")
    assert (lines, names) == ([100, 160], ["cluster 0", "cluster 1", "cluster 2"])
    lines.clear(), names.clear()
    plot_gantt(out, tmp_path / "w.png", nodes=(120, 199))  # clusters 1 and 2 only
    assert (lines, names) == ([160], ["cluster 1", "cluster 2"])
    lines.clear(), names.clear()
    plain = tmp_path / "plain"
    assert main(["run", "--workload", "lublin:n=50,seed=1,machine=16", "--out", str(plain)]) == 0
    plot_gantt(plain, tmp_path / "p.png")
    assert (lines, names) == ([], [])


def _summary_source(run: Path) -> str:
    import json

    return json.loads((run / "summary.json").read_text())["workload"]["source"]


@pytest.mark.parametrize("argv, flag", [
    (["--from", "10", "--to", "5"], "--from"),
    (["--nodes", "a-b"], "--nodes"),
    (["--from", "1e12"], "--from"),
])
def test_gantt_errors(argv: list[str], flag: str, tmp_path: Path,
                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", "--workload", "lublin:n=20,seed=1,machine=16", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["gantt", str(out), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and flag in err[0]


@pytest.mark.parametrize("damage, message", [
    (lambda text: text[:text.rindex(",")], "line {last}: 5 fields, expected 6 (job_id, "
                                           "attempt, start, end, nodes, ended)"),
    (lambda text: _set_field(text, 2, 2, "abc"), "line 2, field start: 'abc', expected a time in "
                                                  "seconds"),
    (lambda text: _set_field(text, 2, 4, "x-y"),
     "line 2, field nodes: 'x-y', expected node ids as A-B intervals separated by spaces"),
])
def test_gantt_of_a_damaged_allocations_csv_names_the_line(damage, message, tmp_path: Path,
                                                           capsys) -> None:
    out = tmp_path / "run"
    assert main(["run", "--workload", "lublin:n=20,seed=1,machine=16", "--out", str(out)]) == 0
    path = out / "allocations.csv"
    text = path.read_text().rstrip("\n")
    path.write_text(damage(text) + "\n")
    capsys.readouterr()
    assert main(["gantt", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    last = len(text.splitlines())
    assert err == [f"ckptsim: error: DIR: {path}, {message.format(last=last)}"]


@pytest.mark.parametrize("content, why", [
    (b"garbage\n", "not JSON (line 1, column 1: Expecting value)"),
    (b"\xff\xfe{}", "not UTF-8 text"),
    (b"[1, 2]\n", "a JSON list, not an object"),
])
def test_gantt_of_a_damaged_summary_json_is_refused_naming_it(content, why, tmp_path: Path,
                                                              capsys) -> None:
    # It was drawn silently without the machine's size, clusters and title.
    out = tmp_path / "run"
    assert main(["run", "--workload", "lublin:n=20,seed=1,machine=16", "--out", str(out)]) == 0
    (out / "summary.json").write_bytes(content)
    capsys.readouterr()
    assert main(["gantt", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        f"ckptsim: error: DIR: {out / 'summary.json'}: {why}; it gives the chart the "
        "machine's size"), err
    assert not (out / "gantt.png").exists()
    (out / "summary.json").unlink()  # drawn without it, saying so
    assert main(["gantt", str(out)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"ckptsim: note: {out / 'summary.json'}: no such file; the chart is drawn "
                   "without the machine's size (the node axis), its clusters and the run's "
                   "title (the node axis spans the nodes the attempts use)"], err


def _set_field(text: str, line: int, field: int, value: str) -> str:
    lines = text.splitlines()
    parts = lines[line - 1].split(",")
    parts[field] = value
    lines[line - 1] = ",".join(parts)
    return "\n".join(lines)


def test_gantt_on_nodes_beyond_the_run_says_which_it_used(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["run", "--workload", "lublin:n=20,seed=1,machine=16", "--out", str(out)]) == 0
    used = max(last for r in _rows(out / "allocations.csv") for _, last in
               parse_nodes(r["nodes"]))
    capsys.readouterr()
    assert main(["gantt", str(out), "--nodes", "100-200"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ckptsim: error: --nodes: no attempt in the ")
    assert err[0].endswith(f"on nodes 100-200: the run's attempts use nodes 0-{used}")


def test_gantt_without_allocations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gantt", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "allocations.csv" in err[0]
    assert main(["gantt", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err == (f"ckptsim: error: DIR: {tmp_path / 'nowhere'}: no such "
                                       "folder (a run's folder, written by `ckptsim run ... "
                                       "--out DIR`)\n")
    (tmp_path / "allocations.csv").write_text("job_id,attempt,start,end,nodes,ended\n")
    assert main(["gantt", str(tmp_path / "allocations.csv")]) == 2  # a file of the folder
    assert capsys.readouterr().err == (f"ckptsim: error: DIR: {tmp_path / 'allocations.csv'}: "
                                       f"a file, not a run's folder (give its folder: "
                                       f"{tmp_path})\n")


def test_no_recorder_without_out(monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    attached = []
    original = AllocationRecorder.attach

    def attach(self: AllocationRecorder, sim: object) -> None:
        attached.append(self)
        original(self, sim)  # type: ignore[arg-type]

    monkeypatch.setattr(AllocationRecorder, "attach", attach)
    assert main(["run", "--workload", "lublin:n=20,seed=1,machine=16"]) == 0
    assert attached == []


def test_recorder_changes_no_output(tmp_path: Path) -> None:
    """The same run with and without the recorder: identical records and summary."""
    from ckptsim.records.allocations import AllocationLog
    from ckptsim.runner import simulate
    from ckptsim.workload.source import load_workload

    w = load_workload(WORKLOAD)
    plain = simulate(w, "ckpt-backfill", {"p": 0.2}, failures="synthetic:mtbf=20000")
    log = AllocationLog()
    watched = simulate(w, "ckpt-backfill", {"p": 0.2}, failures="synthetic:mtbf=20000",
                       recorders=[AllocationRecorder(log)])
    assert plain.summary_document() == watched.summary_document()
    assert plain.components == watched.components
    assert len(log.ended) >= 200


@pytest.mark.parametrize("per", ["job", "attempt"])
def test_out_jobs_requested_time_is_batsims_walltime(per: str, tmp_path: Path) -> None:
    """A job without a requested time (SWF field 9 = -1, so its estimate is its run time)
    has Batsim's walltime -1; the others their estimate."""
    swf = tmp_path / "t.swf"
    swf.write_text("; MaxProcs: 8\n"
                   "1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
                   "2 5 -1 30 2 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    out = tmp_path / "out"
    assert main(["run", "--workload", str(swf), "--out", str(out), "--out-jobs", per]) == 0
    rows = _rows(out / "out_jobs.csv")
    assert [r["requested_time"] for r in rows] == ["20.0", "-1.0"]
    assert [r["estimate"] for r in _rows(out / "jobs.csv")] == ["20", "30"]
