"""Seed 000's `--windows K`: each trace cut into K sub-periods of equal job count, run as
replications besides the whole trace, and the claims graded over them."""

from __future__ import annotations

import csv
import random

import numpy as np
import pytest
from helpers import TRACES, trace

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.claims_table import evaluate_claim
from ckptsim.experiments.papers.niu import WINDOW_CLAIMS
from ckptsim.experiments.papers.niu.experiments import TRACES as TRACE_FILES
from ckptsim.experiments.papers.niu.experiments import run_figure, spec_text
from ckptsim.experiments.papers.niu.windows import MAX_WINDOWS, Window, cut, parse_windows


def test_cut_by_hand():
    assert cut([0, 10, 20, 30, 40, 50], 3) == [Window(1, 0.0, 0, 2), Window(2, 20.0, 2, 2),
                                               Window(3, 40.0, 4, 2)]
    # Job 3 opens window 2; job 2, submitted at the same instant, goes with it.
    assert cut([0, 0, 5, 5, 5, 9], 2) == [Window(1, 0.0, 0, 2), Window(2, 5.0, 2, 4)]
    # Of the first 4 jobs only.
    assert cut([0, 10, 20, 30, 40, 50], 2, first=4) == [Window(1, 0.0, 0, 2),
                                                        Window(2, 20.0, 2, 2)]
    assert cut([0, 10, 20], 1) == [Window(1, 0.0, 0, 3)]


def test_windows_partition_the_jobs():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 60)
        submit = sorted(rng.randint(0, 30) for _ in range(n))
        first = rng.choice([None, rng.randint(1, n + 3)])
        k = rng.randint(1, 8)
        kept = n if first is None else min(first, n)
        try:
            windows = cut(submit, k, first)
        except ConfigError as exc:  # only when ties or too few jobs leave a window empty
            opening = [submit[i * kept // k] for i in range(k)] if k <= kept else []
            assert "--windows" in str(exc) and (k > kept or len(set(opening)) < k)
            continue
        assert [w.number for w in windows] == list(range(1, k + 1))
        assert windows[0].first_job == 0
        for a, b in zip(windows, windows[1:], strict=False):
            assert b.first_job == a.first_job + a.jobs and b.start > a.start
        assert sum(w.jobs for w in windows) == kept
        for w in windows:  # a window is the jobs submitted from its start on, the first `jobs`
            inside = [i for i, s in enumerate(submit) if s >= w.start][: w.jobs]
            assert inside == list(range(w.first_job, w.first_job + w.jobs))


@pytest.mark.parametrize("value", ["0", "-1", str(MAX_WINDOWS + 1), "x", "2.5", ""])
def test_bad_window_counts_are_refused(value):
    with pytest.raises(ConfigError, match="--windows.*accepted: an integer from 1 to 100"):
        parse_windows(value)


def test_the_command_refuses_bad_windows(tmp_path, capsys):
    assert main(["paper", "niu", "readings", "--out", str(tmp_path / "o"), "--windows",
                 "0"]) == 2
    err = capsys.readouterr().err
    assert "--windows" in err and err.count("\n") == 1
    with pytest.raises(ConfigError, match="--windows: 2 windows of 3 jobs: jobs submitted "
                                          "at the same instant leave window 1 empty"):
        cut([5, 5, 5], 2)


def test_spec_runs_windows_besides_the_whole_trace(tmp_path):
    from ckptsim.experiments.sweep import plan_sweep

    trace(TRACE_FILES["CTC-SP2"])
    cuts = {"CTC-SP2": cut(np.arange(10.0), 2)}
    assert spec_text("fig4", ["CTC-SP2"], 10) == spec_text("fig4", ["CTC-SP2"], 10, None, None)
    for figure, runs in (("fig4", 12), ("fig6", 6), ("fig7", 6), ("readings", 6)):
        text = spec_text(figure, ["CTC-SP2"], 10, {"freeze": False}, cuts)
        assert '[workloads."CTC-SP2_w2"]\ntrace = "CTC-SP2-1996-3.1-cln.swf.gz"\n' \
               'window = [5.0, inf]\nfirst = 5' in text
        path = tmp_path / f"{figure}.toml"
        path.write_text(text)
        assert len(plan_sweep(path, trace_dir=TRACES).runs) == 3 * runs


def test_window_rows_partition_the_run_and_leave_the_whole_trace_as_it_was(tmp_path):
    from ckptsim.workload.source import load_workload

    path = trace(TRACE_FILES["CTC-SP2"])
    whole = run_figure("readings", tmp_path / "a", trace_dir=TRACES, traces=["CTC-SP2"],
                       first=300, jobs=0)
    both = run_figure("readings", tmp_path / "b", trace_dir=TRACES, traces=["CTC-SP2"],
                      first=300, jobs=0, windows=3)
    assert whole.csv.read_bytes() == both.csv.read_bytes()
    assert (tmp_path / "b" / "readings_windows.png").stat().st_size > 10_000
    rows = list(csv.DictReader(open(tmp_path / "b" / "readings_windows.csv")))
    assert len(rows) == 3 * 6
    assert [r["window"] for r in rows[::6]] == ["1", "2", "3"]
    windows = [(int(r["first_job"]), int(r["jobs"])) for r in rows[::6]]
    assert sum(j for _, j in windows) == 300
    ids = load_workload(str(path), first=300).job_id
    submit = load_workload(str(path)).submit  # the whole trace, read once (not once a row)
    windowed: dict[tuple[int, int], list[int]] = {}  # a window's jobs, read once per window
    for r in rows:
        start, jobs = int(r["first_job"]), int(r["jobs"])
        assert sum(int(r[f"jobs_{c}"]) for c in ("small", "medium", "large", "wide")) == jobs
        if (start, jobs) not in windowed:
            w = load_workload(str(path), window=(float(submit[start]), float("inf")),
                              first=jobs)
            windowed[start, jobs] = list(w.job_id)
        assert windowed[start, jobs] == list(ids[start:start + jobs])


def _write(folder, name, rows):
    with open(folder / f"{name}.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_claims_are_graded_over_windows_per_trace(tmp_path):
    rows = []
    for trace_name, waits in (("A", (60, 62, 58)), ("B", (150, 40, 110))):
        for k, wait in enumerate(waits, 1):
            rows.append({"trace": trace_name, "window": k, "reading": "classical",
                         "mean_wait": 100, "preempt_ratio": 0.0})
            rows.append({"trace": trace_name, "window": k, "reading": "estimate",
                         "mean_wait": wait, "preempt_ratio": 0.04})
    _write(tmp_path, "readings_windows", rows)
    wait = next(c for c in WINDOW_CLAIMS if "40%" in c.statement and "estimate)" in c.statement)
    head, a, b = evaluate_claim(wait, tmp_path)
    # A: -40% on every window (-0.40 +- t(2) * 0.02 / sqrt(3)): within a factor 2 of -40%.
    assert (a.n, round(a.ours, 6), a.verdict) == (3, -0.4, "agrees")
    assert a.ci_low == pytest.approx(-0.4 - 4.302653 * 0.02 / 3 ** 0.5, rel=1e-5)
    # B: +50%, -60%, +10% average 0 with an interval across -40%: cannot decide.
    assert (b.n, round(b.ours, 6), b.verdict) == (3, 0.0, "inconclusive")
    assert head.verdict == "inconclusive" and b.claim.endswith("[trace B]")
    share = next(c for c in WINDOW_CLAIMS if "checkpointed" in c.statement
                 and "estimate)" in c.statement)
    lines = evaluate_claim(share, tmp_path)
    # 4% on every window of both traces: within a factor 2 of 4%, on 3 windows each.
    assert [(line.n, line.verdict) for line in lines] == [(3, "agrees")] * 3
    missing = next(c for c in WINDOW_CLAIMS if "wasted" in c.statement)
    assert [line.verdict for line in evaluate_claim(missing, tmp_path)] == ["not-run"]


def test_fig6_windows_leave_the_whole_trace_as_it_was(tmp_path):
    trace(TRACE_FILES["CTC-SP2"])
    whole = run_figure("fig6", tmp_path / "a", trace_dir=TRACES, traces=["CTC-SP2"],
                       first=300, jobs=0)
    both = run_figure("fig6", tmp_path / "b", trace_dir=TRACES, traces=["CTC-SP2"],
                      first=300, jobs=0, windows=2)
    assert whole.csv.read_bytes() == both.csv.read_bytes()
    rows = list(csv.DictReader(open(tmp_path / "b" / "fig6_windows.csv")))
    assert len(rows) == 2 * 2 * 3  # windows x schedulers x alphas
    for r in rows:  # each row carries its window's slowdowns with exact estimates
        exact = [x for x in rows if x["window"] == r["window"] and x["alpha"] == "0"]
        own = next(x for x in exact if x["scheduler"] == r["scheduler"])
        classical = next(x for x in exact if x["scheduler"] == "classical")
        assert r["exact_mean_bsld"] == own["mean_bsld"]
        assert r["classical_exact_mean_bsld"] == classical["mean_bsld"]


def _claim(words: str):
    return next(c for c in WINDOW_CLAIMS if all(w in c.statement for w in words.split("|")))


def test_fig6_claims_are_graded_over_windows(tmp_path):
    # CTC-SP2: classical slowdown 10 -> 25 (x2.5) on each window, ckpt 8 -> 8.8 (+10%).
    # HPC2N: classical 10 -> 15, 10 -> 16, 10 -> 14 (+50% on average), ckpt 9 -> 13.5 (+50%).
    rows = []
    for t, classical, ckpt in (("CTC-SP2", (25, 25, 25), (8.8, 8.8, 8.8)),
                               ("HPC2N", (15, 16, 14), (13.5, 13.5, 13.5))):
        for k in range(3):
            exact = {"classical": 10.0, "ckpt": 8.0 if t == "CTC-SP2" else 9.0}
            for s, users in (("classical", classical[k]), ("ckpt", ckpt[k])):
                for alpha, bsld in ((0, exact[s]), (1, users)):
                    rows.append({"trace": t, "window": k + 1, "scheduler": s, "alpha": alpha,
                                 "mean_bsld": bsld, "exact_mean_bsld": exact[s],
                                 "classical_exact_mean_bsld": exact["classical"]})
    _write(tmp_path, "fig6_windows", rows)
    head, ctc, hpc2n = evaluate_claim(_claim("Fig. 6|doubles"), tmp_path)
    assert (ctc.n, round(ctc.ours, 6), ctc.verdict) == (3, 1.5, "agrees")
    # +50%, +60%, +40%: the interval (+25 ... +75%) stays below doubling.
    assert (round(hpc2n.ours, 6), hpc2n.verdict, head.verdict) == (0.5, "differs", "differs")
    head, ctc, hpc2n = evaluate_claim(_claim("Fig. 6|more stable"), tmp_path)
    # ckpt's growth less classical's: 0.1 - 1.5 on every CTC-SP2 window; 0 on average on HPC2N.
    assert (round(ctc.ours, 6), ctc.verdict) == (-1.4, "agrees")
    assert (round(hpc2n.ours, 6), hpc2n.verdict) == (0.0, "inconclusive")
    head, ctc, hpc2n = evaluate_claim(_claim("Fig. 6|no better"), tmp_path)
    # ckpt with the users' estimates against classical with exact: 8.8 / 10 and 13.5 / 10.
    assert (round(ctc.ours, 6), ctc.verdict) == (-0.12, "agrees")
    assert (round(hpc2n.ours, 6), hpc2n.verdict) == (0.35, "differs")


def test_fig3_claims_are_graded_over_windows(tmp_path):
    rows = []
    for t, wide in (("A", (90, 88, 92)), ("B", (130, 120, 140))):
        for k, wait in enumerate(wide, 1):
            rows.append({"trace": t, "window": k, "reading": "classical",
                         "mean_wait_wide": 100})
            rows.append({"trace": t, "window": k, "reading": "now", "mean_wait_wide": wait})
    _write(tmp_path, "readings_windows", rows)
    head, a, b = evaluate_claim(_claim("Fig. 3|(overdue=now)"), tmp_path)
    # A: -10%, -12%, -8% (interval -15 ... -5%): shorter than under EASY; B: +20 ... +40%.
    assert (a.n, a.verdict, round(a.ours, 6)) == (3, "agrees", -0.1)
    assert (b.verdict, round(b.ours, 6), head.verdict) == ("differs", 0.3, "differs")
