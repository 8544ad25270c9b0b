"""The tables of docs/results/niu.md (seed 000), computed from the figures' CSVs (see
`ckptsim.experiments.papers.tables`).  The seed's own numbers, where its text gives them, are
the constants below; everything else comes from the CSVs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.experiments.papers.tables import (
    Table,
    change,
    days,
    hours,
    markdown,
    number,
    percent,
    read,
)


def _traces(rows: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for r in rows:
        if r["trace"] not in out:
            out.append(r["trace"])
    return out


def _one(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    return next(r for r in rows if all(r[k] == v for k, v in match.items()))


def fig1(folder: Path) -> str:
    rows = read(folder, "fig1")
    out = []
    for t in _traces(rows):
        util = np.array([r["utilization"] for r in rows if r["trace"] == t])
        qlen = np.array([r["queue_length"] for r in rows if r["trace"] == t])
        waiting = qlen >= 1.0
        idle = waiting & (util >= 0.2) & (util <= 0.8)
        out.append([t, f"{len(util):,}", percent(waiting.mean(), 0),
                    percent(idle.sum() / max(waiting.sum(), 1), 0),
                    number(float(np.median(qlen[idle])) if idle.any() else float("nan"), 0)])
    return markdown(["trace", "days", "days with jobs waiting (mean queue >= 1)",
                     "of those, days with 20-80% of the nodes idle",
                     "median queue length on those days (jobs)"], out)


#: Seed 000, section 1: "a large portion (~40%) of jobs actually terminated within 20% of the
#: estimated time"; "only 17% of jobs completed within the 0.9-1.1 range ... across the four
#: systems".
SEED_FIG2 = ("~40%", "17%")


def fig2(folder: Path) -> str:
    rows = read(folder, "fig2_shares")
    out = [[r["trace"] if r["trace"] != "all" else "all traces together",
            f"{int(r['jobs']):,}", percent(r["share_le_0.2"], 0),
            percent(r["share_0.9_to_1.1"], 0), percent(r["share_over_1"], 0)] for r in rows]
    out.append(["the seed (its four traces together)", "-", SEED_FIG2[0], SEED_FIG2[1], "-"])
    return markdown(["trace", "jobs with an estimate", "runtime <= 0.2 x estimate",
                     "0.9-1.1 x estimate", "past the estimate (> 1)"], out)


def fig4(folder: Path) -> str:
    rows = read(folder, "fig4")
    out = []
    for t in _traces(rows):
        mine = [r for r in rows if r["trace"] == t and str(r["variant"]).startswith("p=")]
        best_w = min(mine, key=lambda r: r["wait_norm"])
        best_b = min(mine, key=lambda r: r["bsld_norm"])
        rise = max(mine, key=lambda r: r["bratio_norm"])
        actual = _one(rows, trace=t, variant="classical-actual")
        p02 = _one(rows, trace=t, variant="p=0.2")
        vs_actual = best_b["mean_bsld"] / actual["mean_bsld"]
        out.append([t, best_w["variant"][2:], change(best_w["wait_norm"]),
                    f"{change(best_b['bsld_norm'])} ({best_b['variant'][2:]})",
                    f"{change(rise['bratio_norm'], 1)} ({rise['variant'][2:]})",
                    f"{change(actual['wait_norm'])} / {change(actual['bsld_norm'])}",
                    f"{change(vs_actual)} ({'ckpt' if vs_actual < 1 else 'exact'} better)",
                    percent(p02["preempt_ratio"])])
    return markdown(["trace", "best p (wait)", "wait vs classical", "slowdown vs classical "
                     "(best p)", "largest backfill-ratio rise (p)", "classical-actual: wait / "
                     "slowdown vs classical", "ckpt's best slowdown vs classical-actual",
                     "jobs preempted at p = 0.2"], out)


def _busy_mean(rows: list[dict[str, Any]], t: str, scheduler: str,
               low: float = 0.7) -> tuple[int, float]:
    """Days with utilisation >= `low` and their mean queue length (over days)."""
    sel = [r for r in rows if r["trace"] == t and r["scheduler"] == scheduler
           and r["util_low"] >= low - 1e-9 and r["days"] > 0]
    n = int(sum(r["days"] for r in sel))
    total = sum(r["days"] * r["mean_queue_length"] for r in sel)
    return n, total / n if n else float("nan")


def fig5(folder: Path) -> str:
    rows = read(folder, "fig5")
    out = []
    for t in _traces(rows):
        cells = [t]
        for s in ("classical", "classical-actual", "ckpt p=0.2"):
            n, mean = _busy_mean(rows, t, s)
            cells.append(f"{number(mean)} ({n:,} d)")
        out.append(cells)
    return markdown(["trace", "classical", "classical-actual", "ckpt p = 0.2"], out)


def fig6(folder: Path) -> str:
    rows = read(folder, "fig6")
    out = []
    for t in _traces(rows):
        def bsld(s: str, a: float, t: str = t) -> float:
            return float(_one(rows, trace=t, scheduler=s, alpha=a)["mean_bsld"])

        c0, c5, c1 = (bsld("classical", a) for a in (0.0, 0.5, 1.0))
        k0, k5, k1 = (bsld("ckpt", a) for a in (0.0, 0.5, 1.0))
        out.append([t, f"{number(c0)} / {number(c5)} / {number(c1)}", change(c1 / c0),
                    f"{number(k0)} / {number(k5)} / {number(k1)}", change(k1 / k0),
                    change(k1 / c0)])
    return markdown(["trace", "classical slowdown, alpha = 0 / 0.5 / 1", "alpha 0 -> 1",
                     "ckpt p = 0.2 slowdown, alpha = 0 / 0.5 / 1", "alpha 0 -> 1",
                     "ckpt (alpha = 1) vs classical (alpha = 0)"], out)


#: Seed 000, section 5.2 (Intrepid, p = 0.2, with overhead): wait and queue length up to 40%
#: better, slowdown about 20%, about 4% of jobs checkpointed, about 0.4 checkpoints per node
#: per day, wasted resources at most 1.5%.
SEED_FIG7 = ("up to −40%", "about −20%", "4%", "-", "about 0.4", "<= 1.5%", "<= 1.5%")


def fig7(folder: Path) -> str:
    rows = read(folder, "fig7")
    out = []
    for t in _traces(rows):
        r = _one(rows, trace=t, variant="t_extend=430")
        worst = _one(rows, trace=t, variant="t_extend=3600")
        out.append([t, change(r["wait_norm"]), change(r["bsld_norm"]),
                    percent(r["preempt_ratio"]), f"{r['checkpoints_per_node_day']:.2g}",
                    f"{r['node_checkpoints_per_node_day']:.2f}", percent(r["wasted_ratio"], 2),
                    percent(worst["wasted_ratio"], 2)])
    out.append(["the seed (Intrepid)", *SEED_FIG7])
    return markdown(["trace", "wait vs classical", "slowdown vs classical", "jobs preempted",
                     "checkpoints per node-day (jobs)", "node-checkpoints per node-day",
                     "capacity wasted", "wasted at t_extend = 3600 s"], out)


def readings(folder: Path) -> str:
    from ckptsim.experiments.papers.niu.experiments import READING_NAMES

    rows = read(folder, "readings")
    out = []
    for t in _traces(rows):
        base = _one(rows, trace=t, reading="classical")
        for r in (x for x in rows if x["trace"] == t):
            first = r["reading"] == "classical"
            name = "classical EASY" if first else READING_NAMES[str(r["reading"])]

            def rel(key: str, r: dict[str, Any] = r, first: bool = first,
                    base: dict[str, Any] = base) -> str:
                return "" if first else f" ({change(r[key] / base[key])})"

            out.append([t if first else "", name, hours(r["mean_wait"]) + rel("mean_wait"),
                        days(r["p99_wait"]), days(r["max_wait"]),
                        hours(r["mean_wait_large"]) + rel("mean_wait_large"),
                        hours(r["mean_wait_wide"]) + rel("mean_wait_wide"),
                        number(r["mean_bsld"]) + rel("mean_bsld"),
                        percent(r["preempt_ratio"]),
                        f"{r['node_checkpoints_per_node_day']:.2f}"])
    return markdown(["trace", "reading", "mean wait", "p99 wait", "max wait",
                     "large jobs' mean wait", "wide jobs' mean wait", "mean slowdown",
                     "jobs preempted", "node-checkpoints per node-day"], out)


def _interval(values: list[float]) -> str:
    """The mean change and its 95% t interval over windows: "−33% (−52 … −14%)"."""
    from ckptsim.experiments.stats import mean_ci

    mean, half, _ = mean_ci(values)
    return (f"{change(1 + mean)} ({change(1 + mean - half)[:-1]} … "
            f"{change(1 + mean + half)})")


def windows(folder: Path) -> str:
    """Per trace and reading, the wait change against EASY on each window (`--windows`) and
    its mean with the t interval over the windows; the share of jobs checkpointed."""
    from ckptsim.experiments.papers.niu.experiments import READING_NAMES

    rows = read(folder, "readings_windows")
    out = []
    for t in _traces(rows):
        mine = [r for r in rows if r["trace"] == t]
        numbers = sorted({int(r["window"]) for r in mine})
        for k, reading in enumerate(READING_NAMES):
            changes = [_one(mine, window=w, reading=reading)["mean_wait"]
                       / _one(mine, window=w, reading="classical")["mean_wait"] - 1
                       for w in numbers]
            shares = [_one(mine, window=w, reading=reading)["preempt_ratio"] for w in numbers]
            out.append([t if k == 0 else "", READING_NAMES[reading],
                        " / ".join(change(1 + c) for c in changes), _interval(changes),
                        f"{percent(min(shares))} … {percent(max(shares))}"])
    return markdown(["trace", "reading", "wait vs classical, window by window",
                     "mean over the windows (95% interval)", "jobs preempted (windows' range)"],
                    out)


def fig4_windows(folder: Path) -> str:
    """Per trace, the best p of each window and p = 0.2 against exact-estimate EASY."""
    rows = read(folder, "fig4_windows")
    out = []
    for t in _traces(rows):
        mine = [r for r in rows if r["trace"] == t]
        numbers = sorted({int(r["window"]) for r in mine})
        best, wait, bratio = [], [], []
        for w in numbers:
            ps = [r for r in mine if r["window"] == w and str(r["variant"]).startswith("p=")]
            best.append(str(min(ps, key=lambda r: r["wait_norm"])["variant"])[2:])
            exact = _one(mine, window=w, variant="classical-actual")
            at = _one(mine, window=w, variant="p=0.2")
            wait.append(at["mean_wait"] / exact["mean_wait"] - 1)
            bratio.append(at["backfill_ratio"] / exact["backfill_ratio"] - 1)
        out.append([t, " / ".join(best), " / ".join(change(1 + c) for c in wait),
                    _interval(wait), _interval(bratio)])
    return markdown(["trace", "best p (wait), window by window",
                     "p = 0.2: wait vs classical-actual, window by window",
                     "mean over the windows (95% interval)",
                     "backfill ratio vs classical-actual, mean (95% interval)"], out)


def wide_windows(folder: Path) -> str:
    """Fig. 3 per trace and reading: wide jobs' (more than half the machine) mean wait against
    EASY's on each window (`--windows`), its mean with the t interval, the windows' wide jobs."""
    from ckptsim.experiments.papers.niu.experiments import READING_NAMES

    rows = read(folder, "readings_windows")
    out = []
    for t in _traces(rows):
        mine = [r for r in rows if r["trace"] == t]
        numbers = sorted({int(r["window"]) for r in mine})
        base = {w: _one(mine, window=w, reading="classical") for w in numbers}
        for k, reading in enumerate(READING_NAMES):
            changes = [_one(mine, window=w, reading=reading)["mean_wait_wide"]
                       / base[w]["mean_wait_wide"] - 1 for w in numbers]
            out.append([t if k == 0 else "", READING_NAMES[reading],
                        " / ".join(change(1 + c) for c in changes), _interval(changes),
                        " / ".join(f"{int(base[w]['jobs_wide'])}" for w in numbers)
                        if k == 0 else ""])
    return markdown(["trace", "reading", "wide jobs' wait vs classical, window by window",
                     "mean over the windows (95% interval)", "wide jobs per window"], out)


def fig6_windows(folder: Path) -> str:
    """Fig. 6 per trace over its windows: each scheduler's slowdown growth from exact
    (alpha = 0) to the users' estimates (alpha = 1), and ckpt-backfill with the users'
    against classical with exact estimates."""
    rows = read(folder, "fig6_windows")
    out = []
    for t in _traces(rows):
        mine = [r for r in rows if r["trace"] == t and r["alpha"] == 1]
        numbers = sorted({int(r["window"]) for r in mine})
        growth = {s: [_one(mine, window=w, scheduler=s)["mean_bsld"]
                      / _one(mine, window=w, scheduler=s)["exact_mean_bsld"] - 1
                      for w in numbers] for s in ("classical", "ckpt")}
        versus = [_one(mine, window=w, scheduler="ckpt")["mean_bsld"]
                  / _one(mine, window=w, scheduler="ckpt")["classical_exact_mean_bsld"] - 1
                  for w in numbers]
        out.append([t, " / ".join(change(1 + c) for c in growth["classical"]),
                     _interval(growth["classical"]),
                     " / ".join(change(1 + c) for c in growth["ckpt"]),
                     _interval(growth["ckpt"]), _interval(versus)])
    return markdown(["trace", "classical slowdown, alpha 0 -> 1, window by window",
                     "mean (95% interval)", "ckpt p = 0.2 slowdown, alpha 0 -> 1, window by "
                     "window", "mean (95% interval)", "ckpt (alpha = 1) vs classical "
                     "(alpha = 0), mean (95% interval)"], out)


#: Where the figures' CSVs under `--reading estimate` (the runs made before the default became
#: `reservation-backfilled`) are kept, beside the page's folder.
ESTIMATE = "estimate"


def estimate(folder: Path) -> str:
    """Figs. 4 and 7 per trace under the figures' default reading and, after the slash, under
    `overdue=estimate` (folder/estimate/)."""
    new4, old4 = read(folder, "fig4"), read(folder / ESTIMATE, "fig4", " --reading estimate")
    new7, old7 = read(folder, "fig7"), read(folder / ESTIMATE, "fig7", " --reading estimate")

    def best(rows: list[dict[str, Any]], t: str) -> str:
        mine = [r for r in rows if r["trace"] == t and str(r["variant"]).startswith("p=")]
        return str(min(mine, key=lambda r: r["wait_norm"])["variant"])[2:]

    out = []
    for t in _traces(new4):
        a, b = _one(new4, trace=t, variant="p=0.2"), _one(old4, trace=t, variant="p=0.2")
        ea = _one(new4, trace=t, variant="classical-actual")
        eb = _one(old4, trace=t, variant="classical-actual")
        c, d = (_one(x, trace=t, variant="t_extend=430") for x in (new7, old7))
        out.append([t, f"{change(a['wait_norm'])} / {change(b['wait_norm'])}",
                    f"{change(a['bsld_norm'])} / {change(b['bsld_norm'])}",
                    f"{best(new4, t)} / {best(old4, t)}",
                    f"{change(a['mean_wait'] / ea['mean_wait'])} / "
                    f"{change(b['mean_wait'] / eb['mean_wait'])}",
                    f"{percent(a['preempt_ratio'])} / {percent(b['preempt_ratio'])}",
                    f"{change(c['wait_norm'])} / {change(d['wait_norm'])}",
                    f"{percent(c['wasted_ratio'], 2)} / {percent(d['wasted_ratio'], 2)}"])
    return markdown(["trace", "p = 0.2: wait vs classical", "slowdown vs classical",
                     "best p (wait)", "wait vs classical-actual", "jobs preempted",
                     "t_extend = 430 s: wait vs classical", "capacity wasted"], out)


TABLES: dict[str, Table] = {"fig1": fig1, "fig2": fig2, "fig4": fig4, "fig5": fig5,
                            "fig6": fig6, "fig7": fig7, "readings": readings,
                            "windows": windows, "fig4_windows": fig4_windows,
                            "wide_windows": wide_windows, "fig6_windows": fig6_windows,
                            "estimate": estimate}
