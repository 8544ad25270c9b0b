"""`ckptsim report`: the page from its template (structure), and `--gantt RUN`: one run of the
store simulated again with the allocations recorder, its Gantt chart on the page."""

from __future__ import annotations

import csv
from html.parser import HTMLParser

import pytest

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.rerun import find_run_id, rerun_schedule
from ckptsim.experiments.store import load_store
from ckptsim.records.nodesets import parse_nodes

SPEC = """
name = "gantt"
description = "fcfs & easy <small>"
seeds = [1, 2]
metrics = ["mean_wait", "utilization"]

[workloads.model]
generator = "lublin"
n = 60
machine = 16

[[schedulers]]
name = "fcfs"

[[schedulers]]
name = "easy"

[[figures]]
name = "wait"
kind = "bar"
x = "scheduler"
y = "mean_wait"
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("gantt")
    (root / "gantt.toml").write_text(SPEC)
    out = root / "store"
    assert main(["sweep", str(root / "gantt.toml"), "--out", str(out), "--jobs", "0"]) == 0
    return out


class Page(HTMLParser):
    """Headings in order, tables as lists of rows of cells, and the check that every element
    opened is closed in order."""

    VOID = {"meta", "img", "br"}

    def __init__(self, text: str) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.headings: list[str] = []
        self.tables: list[list[list[str]]] = []
        self.images: list[str] = []
        self._text: list[str] | None = None
        self.feed(text)
        assert self.stack == [], self.stack

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs)["src"][:22])
        if tag in self.VOID:
            return
        self.stack.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th", "h2"):
            self._text = []

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (self.stack, tag)
        self.stack.pop()
        if tag in ("td", "th"):
            self.tables[-1][-1].append("".join(self._text or []))
        elif tag == "h2":
            self.headings.append("".join(self._text or []))
        if tag in ("td", "th", "h2"):
            self._text = None

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)


def test_report_page_structure(store, tmp_path):
    assert main(["report", str(store), "--out", str(tmp_path / "r")]) == 0
    text = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    page = Page(text)
    assert page.headings == ["Figures", "Summary", "Run matrix", "Versions"]
    assert page.images == ["data:image/svg+xml;bas"]
    summary, matrix, versions = page.tables
    assert summary[0] == [
        "scheduler", "shadow_ties", "runs", "failed", "mean_wait", "utilization"]
    assert [r[:4] for r in summary[1:]] == [["fcfs", "", "2", "0"], ["easy", "first", "2", "0"]]
    assert matrix[0] == [
        "run", "scheduler", "shadow_ties", "seed", "status"]
    rows = load_store(store).rows
    assert sorted(r[0] for r in matrix[1:]) == sorted(r["run_id"][:12] for r in rows)
    assert all(len(r) == 5 and r[4] == "ok" for r in matrix[1:])
    assert ["ckptsim of the runs", rows[0]["ckptsim_version"]] in versions
    # Values are escaped, quotes included; no Gantt chart unless asked for.
    assert "fcfs &amp; easy &lt;small&gt;" in text
    assert "Schedule of run" not in text and not (tmp_path / "r" / "gantt").exists()


def _overlaps(path):
    """Pairs of attempts that hold one node at the same time."""
    by_node: dict[int, list[tuple[float, float]]] = {}
    for row in csv.DictReader(open(path, newline="")):
        for first, last in parse_nodes(row["nodes"]):
            for node in range(first, last + 1):
                by_node.setdefault(node, []).append((float(row["start"]), float(row["end"])))
    bad = 0
    for spans in by_node.values():
        spans.sort()
        bad += sum(b[0] < a[1] for a, b in zip(spans, spans[1:], strict=False))
    return bad


def test_report_gantt_of_a_run(store, tmp_path, capsys):
    rows = load_store(store).rows
    run = next(r for r in rows if r["scheduler"] == "easy")
    short = run["run_id"][:12]
    out = tmp_path / "r"
    assert main(["report", str(store), "--out", str(out), "--gantt", short[:7]]) == 0
    assert f"the Gantt chart of run {short}" in capsys.readouterr().out
    text = (out / "index.html").read_text(encoding="utf-8")
    page = Page(text)
    assert page.headings == ["Figures", f"Schedule of run {short}", "Summary", "Run matrix",
                             "Versions"]
    assert page.images == ["data:image/svg+xml;bas", "data:image/png;base64,"]
    png = out / "figures" / f"gantt-{short}.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f'href="figures/gantt-{short}.png"' in text
    # The records drawn: every job of the run, each once (nothing preempts under easy), no
    # node held by two attempts at once, in the run's own time span.
    records = out / "gantt" / short
    attempts = list(csv.DictReader(open(records / "allocations.csv", newline="")))
    assert sorted(int(a["job_id"]) for a in attempts) == list(range(1, 61))
    assert {a["ended"] for a in attempts} == {"completed"}
    assert _overlaps(records / "allocations.csv") == 0
    assert max(float(a["end"]) for a in attempts) == pytest.approx(run["last_end"])
    # The page is otherwise the report without --gantt.
    assert main(["report", str(store), "--out", str(tmp_path / "plain")]) == 0
    plain = (tmp_path / "plain" / "index.html").read_text(encoding="utf-8")
    start = text.index(f"<h2>Schedule of run {short}</h2>")
    end = text.index("\n", start) + 1
    assert text[:start] + text[end:] == plain


def test_report_gantt_records_are_a_run_folder(store, tmp_path, capsys):
    """The run simulated again is written as `run --out` writes it: the chart knows the
    machine (16 nodes: the node axis spans them, not only the nodes the attempts used) and
    names the run, without a note about a missing summary.json, and `load_run` reads the
    folder back as the run in memory."""
    import ckptsim
    from ckptsim.plots.gantt import plot_gantt

    rows = load_store(store).rows
    run = next(r for r in rows if r["scheduler"] == "fcfs")
    short = run["run_id"][:12]
    out = tmp_path / "r"
    assert main(["report", str(store), "--out", str(out), "--gantt", short]) == 0
    assert "summary.json" not in capsys.readouterr().err
    records = out / "gantt" / short
    assert sorted(p.name for p in records.iterdir()) == [
        "allocations.csv", "jobs.csv", "out_jobs.csv", "schedule.swf", "summary.json"]
    folder = ckptsim.load_run(records)
    assert folder.summary["options"]["machine_size"] == 16
    assert folder.summary["metrics"]["mean_wait"] == run["mean_wait"]
    assert len(folder.jobs) == 60 and folder.summary["daily"]["day"]
    drawn = plot_gantt(records, tmp_path / "g.png")
    assert drawn.attempts == len(folder.allocations)
    assert main(["gantt", str(records), "--out", str(tmp_path / "g2.png")]) == 0
    assert "summary.json" not in capsys.readouterr().err


def test_rerun_reproduces_the_stored_metrics(store, tmp_path):
    row = load_store(store).rows[0]
    again = rerun_schedule(store, row["run_id"], tmp_path / "a", row)
    assert again.differences == [] and "allocations.csv" in again.files
    changed = rerun_schedule(store, row["run_id"], tmp_path / "b",
                             {**row, "mean_wait": row["mean_wait"] + 1.0})
    assert len(changed.differences) == 1 and changed.differences[0].startswith("mean_wait ")


def test_run_ids_by_prefix():
    ids = ["abc1", "abc2", "def9"]
    assert find_run_id("S", "abc1", ids) == "abc1"
    assert find_run_id("S", "D", ids) == "def9"
    with pytest.raises(ConfigError, match=r"beginning of 2 runs of S.*ckptsim results S"):
        find_run_id("S", "ab", ids)
    for wanted in ("x", "", "abc12"):
        with pytest.raises(ConfigError, match=r"is no run of S; run ids are the run_id column"):
            find_run_id("S", wanted, ids)


def test_report_gantt_refuses_bad_runs(store, tmp_path, capsys):
    assert main(["report", str(store), "--out", str(tmp_path / "r"), "--gantt", "xyz"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "--gantt" in err and "'xyz' is no run of" in err
    assert f"ckptsim results {store} --csv -" in err
    assert not (tmp_path / "r" / "index.html").exists()


def test_report_gantt_refuses_a_failed_run(tmp_path, capsys):
    (tmp_path / "bad.swf").write_text("; MaxProcs: 4\n1 0 -1 x\n")
    spec = tmp_path / "s.toml"
    spec.write_text('name = "f"\nseeds = [1]\n[workloads.bad]\ntrace = "bad.swf"\n'
                    '[[schedulers]]\nname = "fcfs"\n')
    out = tmp_path / "o"
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 1
    rid = load_store(out).rows[0]["run_id"]
    capsys.readouterr()
    assert main(["report", str(out), "--gantt", rid]) == 2
    assert f"run {rid[:12]} has no result in {out} (it failed)" in capsys.readouterr().err


def test_report_gantt_of_a_plugin_edited_since_says_so(tmp_path, capsys):
    """The run of a plug-in file edited since the sweep has another id now: the refusal says
    a plug-in's file is among what may have changed."""
    (tmp_path / "mine.py").write_text(
        "from ckptsim import QueueScheduler\n\n\nclass Mine(QueueScheduler):\n"
        "    def schedule(self, now):\n        q = self.queue\n"
        "        while q and q[0].size <= self.platform.n_free:\n"
        "            job = q.pop(0)\n            self._removed(job)\n"
        "            self.sim.start(job)\n")
    spec = tmp_path / "s.toml"
    spec.write_text('name = "p"\n[workloads.m]\ngenerator = "lublin"\nn = 20\nmachine = 16\n'
                    '[[schedulers]]\nname = "mine.py:Mine"\n')
    out = tmp_path / "o"
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 0
    rid = load_store(out).rows[0]["run_id"]
    with open(tmp_path / "mine.py", "a") as f:
        f.write("# edited\n")
    capsys.readouterr()
    assert main(["report", str(out), "--gantt", rid]) == 2
    assert (f"run {rid[:12]} is not in the matrix of {out / 'spec.toml'} (its spec, a trace, a "
            "platform file or a plug-in's file changed since the sweep): run the sweep again "
            "first") in capsys.readouterr().err
