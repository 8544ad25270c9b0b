"""Numbers that docs/results/jones.md writes by hand from its committed CSVs (outside the tables
`ckptsim paper jones tables` writes) are those the CSVs give, rounded as printed."""

from __future__ import annotations

import csv
import functools
import math
from pathlib import Path

import pytest

from ckptsim.experiments.papers.tables import MINUS

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
PAGE = RESULTS / "jones.md"
#: The page's text with every run of whitespace one space (its sentences wrap anywhere).
TEXT = " ".join(PAGE.read_text().split())
PPBWS = (150, 300, 400)
INFO = (0.2, 0.4, 0.6, 0.8, 1)  # the information levels of Figs. 1-6 beyond Migration Only


@functools.cache
def rows(name: str) -> list[dict[str, str]]:
    with open(RESULTS / "jones" / name, newline="") as fh:
        return list(csv.DictReader(fh))


def row(name: str, **keys: object) -> dict[str, float]:
    """The one row of `name` whose columns equal `keys` (numbers compared as numbers)."""
    def same(value: str, want: object) -> bool:
        if isinstance(want, str):
            return value == want
        return math.isclose(float(value), float(want))  # type: ignore[arg-type]

    found = [r for r in rows(name) if all(same(r[k], v) for k, v in keys.items())]
    assert len(found) == 1, (name, keys, len(found))
    return {k: (float(v) if k not in ("variant", "reading", "kappa", "ctmr", "overhead_known")
                else v) for k, v in found[0].items()}  # type: ignore[misc]


def num(value: float, digits: int = 1, sign: bool = False) -> str:
    """`value` as the page prints it: the typographic minus, "+" when `sign` asks for it."""
    text = f"{abs(value):,.{digits}f}"
    if float(text.replace(",", "")) == 0:
        return text
    return (MINUS if value < 0 else "+" if sign else "") + text


def pct(share: float, digits: int = 1, sign: bool = False) -> str:
    """A share as percentage points, without the % sign."""
    return num(100 * share, digits, sign)


def interval(r: dict[str, float], column: str = "improvement") -> str:
    """The mean and its 95% interval as "m% (lo-hi)"."""
    m, ci = r[column], r[f"{column}_ci"]
    return f"{pct(m)}% ({pct(m - ci)}-{pct(m + ci)})"


def plus_minus(value: float, ci: float, sign: bool = True) -> str:
    """A paired difference in points: "+6.5 ± 2.9"."""
    return f"{pct(value, sign=sign)} ± {pct(ci)}"


def cells_of(line: str) -> list[str]:
    """The cells of a markdown table's line (empty ones too)."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def quoted(*phrases: str) -> None:
    missing = [p for p in phrases if p not in TEXT]
    assert not missing, missing


# ------------------------------------------------------------------------ size, and the claims
def test_migration_only_is_the_mean_of_five_seeds_of_2000_jobs():
    mo = {row("fig2.csv", error=0, info=0)["migration_only_h"]}
    mo |= {float(r["migration_only_h"]) for name in ("fig7.csv", "fig16.csv", "fig19.csv")
           for r in rows(name)}
    assert len(mo) == 1
    quoted(f"Migration Only turnaround ({mo.pop():.2f} h, mean of the five seeds)")
    assert {r["seeds"] for name in ("fig1.csv", "fig7.csv", "fig16.csv", "fig19.csv",
                                    "cpfrac.csv", "unknown.csv", "ablation.csv")
            for r in rows(name)} == {"5"}


def test_the_ideal_improvement_and_its_intervals():
    ideal = [row("fig8.csv", ppbw=p, error=0) for p in PPBWS]
    quoted(", ".join(interval(r) for r in ideal[:2]) + f" and {interval(ideal[2])}",
           f"our interval, {pct(ideal[2]['improvement'] - ideal[2]['improvement_ci'])}-"
           f"{pct(ideal[2]['improvement'] + ideal[2]['improvement_ci'])}, reaches below half")
    # "Our means are about 30% lower" than the seed's 22 / 16 / 12.5%.
    for r, seed in zip(ideal, (0.22, 0.16, 0.125), strict=True):
        assert 0.25 < 1 - r["improvement"] / seed < 0.35
        assert r["improvement"] - r["improvement_ci"] < seed / 2


def test_information_and_the_80_percent_error_level():
    at20 = row("fig2.csv", error=1, info=0.2)
    full = row("fig2.csv", error=1, info=1)
    quoted(f"{interval(at20).replace('% (', '% at 20% (')} rising to "
           f"{pct(full['improvement'])}% at 100%")
    r300, r400 = row("fig4.csv", error=0.8, info=1), row("fig6.csv", error=0.8, info=1)
    lo = r400["improvement"] - r400["improvement_ci"]
    hi = r400["improvement"] + r400["improvement_ci"]
    quoted(f"{interval(r300)} against 8% at 300 Mbit/s",
           f"{pct(r400['improvement'])}% ({pct(lo)} to {pct(hi, sign=True)}) against 4% at "
           "400 Mbit/s")


def test_fig7_under_against_overestimation():
    paired = [row("fig7.csv", ppbw=p, error=-1) for p in PPBWS]
    vs = [plus_minus(r["vs_opposite"], r["vs_opposite_ci"]) for r in paired]
    quoted(f"{vs[0]} points at 150 Mbit/s (underestimation does *better*",
           f"{vs[1]} at 300 and {vs[2]} at 400",
           f"at 300 ({vs[1]} points, paired) and 400 Mbit/s ({vs[2]})",
           f"({vs[0]} points, {pct(paired[0]['vs_opposite'] - paired[0]['vs_opposite_ci'])} to "
           f"{pct(paired[0]['vs_opposite'] + paired[0]['vs_opposite_ci'])})")
    over = " / ".join(pct(row("fig7.csv", ppbw=p, error=1)["improvement"]) for p in PPBWS)
    under = " / ".join(pct(r["improvement"]) for r in paired)
    quoted(f"falls gently to {over}% at 150 / 300 / 400 Mbit/s",
           f"at −100% (estimates of 0) it is {under}%")
    # "flat from −100% to −70% (to −50% at 150 Mbit/s": the same schedules, then not.
    for p, last in ((150, -0.5), (300, -0.7), (400, -0.7)):
        flat = [r["turnaround_h"] for r in rows("fig7.csv") if r["ppbw"] == str(p)
                and float(r["error"]) <= last + 1e-9]
        assert len(set(flat)) == 1, p
        assert row("fig7.csv", ppbw=p, error=last + 0.1)["turnaround_h"] != float(flat[0]), p
    quoted("flat from −100% to −70% (to −50% at 150 Mbit/s")
    # A slight underestimate beats exact estimates at every PPBW; paired against +10%.
    for p in PPBWS:
        assert (row("fig7.csv", ppbw=p, error=-0.1)["improvement"]
                > row("fig7.csv", ppbw=p, error=0)["improvement"])
    tenth = [row("fig7.csv", ppbw=p, error=-0.1) for p in PPBWS]
    quoted("(paired against +10%: " + ", ".join(
        plus_minus(r["vs_opposite"], r["vs_opposite_ci"]) for r in tenth) + " points)")


def test_fig9_slowdown_and_coallocated_jobs():
    slow = [row("fig9.csv", ppbw=p, error=-0.95) for p in PPBWS]
    quoted(" / ".join(f"{r['coalloc_slowdown']:.3f}" for r in slow) + " (± "
           + " / ".join(f"{r['coalloc_slowdown_ci']:.3f}" for r in slow) + ") at −95%",
           f"slowdown {slow[0]['coalloc_slowdown']:.3f} at −95% error",
           f"{slow[2]['coalloc_slowdown']:.3f} "
           f"({slow[2]['coalloc_slowdown'] - slow[2]['coalloc_slowdown_ci']:.3f}-"
           f"{slow[2]['coalloc_slowdown'] + slow[2]['coalloc_slowdown_ci']:.3f}) at 400 Mbit/s")
    count = {e: row("fig9.csv", ppbw=300, error=e)["mean_coallocated"] for e in (0, 1, -0.2)}
    quoted(f"go from {count[0]:.1f} at 0% to {count[1]:.1f} at +100% and up to "
           f"{count[-0.2]:.1f} at −20% (300 Mbit/s)")
    peaks = [max((r for r in rows("fig9.csv") if r["ppbw"] == str(p)),
                 key=lambda r: float(r["mean_coallocated"]))["error"] for p in PPBWS]
    assert peaks == ["-0.1", "-0.2", "-0.3"]
    quoted("past its peak (−10%, −20% and −30% at 150, 300 and 400 Mbit/s) the count falls")


# ------------------------------------------------------------------------ figures 1-6
def test_figs_1_to_6_with_every_job_informed():
    f2 = {(e, i): row("fig2.csv", error=e, info=i) for e, i in ((0, 1), (1, 1), (1, 0.2))}
    quoted(f"the improvement is {pct(f2[0, 1]['improvement'])}% (± "
           f"{pct(f2[0, 1]['improvement_ci'])}) at 0% error and {pct(f2[1, 1]['improvement'])}% "
           f"(± {pct(f2[1, 1]['improvement_ci'])}) at 100%",
           f"ours has {pct(f2[1, 0.2]['improvement'])}% (± {pct(f2[1, 0.2]['improvement_ci'])}) "
           "there")
    for e in (0, 0.5, 0.8, 1):  # "every curve rises with the information availability"
        curve = [row("fig2.csv", error=e, info=i)["improvement"] for i in (0, *INFO)]
        assert curve == sorted(curve), e
    f4 = [row("fig4.csv", error=e, info=1) for e in (0, 0.5, 0.8, 1)]
    quoted(f"{pct(f4[0]['improvement'])}% ideal, {pct(f4[1]['improvement'])}% at 50%, "
           f"{pct(f4[2]['improvement'])}% at 80% and {pct(f4[3]['improvement'])}% at 100% error")
    assert all(2 <= round(100 * r["improvement_ci"]) <= 5 for r in f4)  # "each ± 2-5 points"
    curve80 = {i: row("fig4.csv", error=0.8, info=i)["improvement"] for i in INFO}
    peak = max(curve80, key=curve80.__getitem__)
    flat = [row("fig4.csv", error=1, info=i)["improvement"] for i in INFO]
    quoted(f"The 80% curve peaks at {peak:.0%} information ({pct(curve80[peak])}%) and falls to "
           f"{pct(curve80[1])}% at 100%", f"flat ({pct(min(flat))}-{pct(max(flat))}%)")
    at = {(e, i): row("fig6.csv", error=e, info=i)["improvement"] for e in (0.8, 1)
          for i in (0.2, 0.8)}
    quoted(f"(from {pct(at[0.8, 0.2])}% and {pct(at[1, 0.2])}% at 20% information to "
           f"{pct(at[0.8, 0.8])}% and {pct(at[1, 0.8])}% at 80%)")
    f6 = [row("fig6.csv", error=e, info=1) for e in (0, 0.5, 0.8, 1)]
    quoted(f"{pct(f6[0]['improvement'])}% ideal, {pct(f6[1]['improvement'])}% at 50%",
           f"and is {pct(f6[2]['improvement'])}% (± {pct(f6[2]['improvement_ci'])}) and "
           f"{pct(f6[3]['improvement'])}% (± {pct(f6[3]['improvement_ci'])}) with every job "
           "informed")


# ------------------------------------------------------------------------ figures 10-19
def test_ctmr_at_10_and_5_min_against_no_ctmr():
    ten = [row("fig16.csv", ppbw=p, variant="CTMR 10 min") for p in PPBWS]
    five = [row("fig16.csv", ppbw=p, variant="CTMR 5 min") for p in PPBWS]
    lift = [plus_minus(r["vs_no_ctmr"], r["vs_no_ctmr_ci"]) for r in ten]
    quoted(f"{lift[0]} (150), {lift[1]} (300) and {lift[2]} points (400)",
           f"{lift[1]} (300) and {lift[2]} points (400) at 10 min; "
           f"{plus_minus(five[1]['vs_no_ctmr'], five[1]['vs_no_ctmr_ci'])} and "
           f"{plus_minus(five[2]['vs_no_ctmr'], five[2]['vs_no_ctmr_ci'])} at 5 min")
    no = [row("fig16.csv", ppbw=p, variant="no CTMR") for p in PPBWS]
    quoted(f"from {pct(no[0]['improvement'])}% to {pct(ten[0]['improvement'])}% ({lift[0]} "
           "points paired)",
           f"{pct(no[1]['improvement'])}% to {pct(ten[1]['improvement'])}% ({lift[1]} points "
           f"paired, {row('fig12.csv', error=1, overhead_min=10)['ctmr_checkpoints']:.0f} CTMR "
           "checkpoints a run)",
           f"{pct(no[2]['improvement'])}% to {pct(ten[2]['improvement'], sign=True)}% at 10 min "
           f"and {pct(five[2]['improvement'], sign=True)}% at 5 min")
    # The paired lift is the difference of the improvement columns (Fig. 16 at 300 Mbit/s).
    assert math.isclose(ten[1]["vs_no_ctmr"], ten[1]["improvement"] - no[1]["improvement"],
                        abs_tol=1e-5)
    quoted(f"+{pct(ten[1]['vs_no_ctmr'])} points paired, {pct(ten[1]['improvement'])}% − "
           f"{pct(no[1]['improvement'])}% =")
    at150 = [row("fig10.csv", error=1, overhead_min=o)["improvement"] for o in (0, 5, 10, 20, 30)]
    quoted(f"every overhead from 0 to 30 min stays within {pct(min(at150))}-{pct(max(at150))}%")
    free = [row("fig12.csv", error=1, overhead_min=o)["improvement"] for o in (0, 5)]
    quoted(f"({pct(free[0])}% and {pct(free[1])}% at 100% error, against "
           f"{pct(row('fig12.csv', error=0, overhead_min=0)['improvement'])}%)",
           f"({pct(row('fig14.csv', error=1, overhead_min=0)['improvement'])}% at 0 min)")


def test_the_paired_mean_reading_of_the_same_runs():
    # Under --paired mean the mean of a paired difference is the difference of the mean
    # turnarounds over Migration Only's mean turnaround.
    def mean_reading(a: dict[str, float], b: dict[str, float]) -> float:
        return (b["turnaround_h"] - a["turnaround_h"]) / a["migration_only_h"]

    fig7 = [mean_reading(row("fig7.csv", ppbw=p, error=-1), row("fig7.csv", ppbw=p, error=1))
            for p in PPBWS]
    ctmr = [mean_reading(row("fig16.csv", ppbw=p, variant="CTMR 10 min"),
                         row("fig16.csv", ppbw=p, variant="no CTMR")) for p in PPBWS]
    quoted(f"is {pct(fig7[0], sign=True)} ± ", f"{pct(fig7[1])} ± ", f"{pct(fig7[2])} ± ",
           f"({pct(ctmr[1], sign=True)} points there)",
           f"no CTMR {pct(ctmr[0], sign=True)} ± ", f", {pct(ctmr[1], sign=True)} ± ",
           f"and {pct(ctmr[2], sign=True)} ± ")


def test_ctmr_never_worse_and_the_crossing_of_fig19():
    worse = [(name, r) for name in ("fig17.csv", "fig18.csv", "fig19.csv")
             for r in map(lambda r: {k: float(v) for k, v in r.items()}, rows(name))
             if r["turnaround_h"] > r["without_ctmr_h"]]
    total = sum(len(rows(n)) for n in ("fig17.csv", "fig18.csv", "fig19.csv"))
    quoted(f"{total - len(worse)} of the {total} points of Figs. 17-19; the other {len(worse)}",
           f"line at {len(worse)} of the {total} points")
    assert all(r["vs_no_ctmr"] < 0 and abs(r["vs_no_ctmr"]) < r["vs_no_ctmr_ci"]
               for _, r in worse)
    where = {(int(r["ppbw"]), r["error"], int(r["overhead_min"])) for _, r in worse}
    assert where == {(150, 0.5, 20), (150, 0.5, 25), (150, 0.5, 30), (300, 0.5, 45),
                     (400, 0.5, 30)}
    checkpoints = [r["ctmr_checkpoints"] for _, r in worse]
    quoted(f"takes {min(checkpoints):.0f}-{max(checkpoints):.0f} checkpoints a run: by "
           f"{pct(max(-r['vs_no_ctmr'] for _, r in worse))} points of improvement at most")
    at20 = row("fig17.csv", error=0.5, overhead_min=20)
    quoted(f"(e.g. {plus_minus(at20['vs_no_ctmr'], at20['vs_no_ctmr_ci'])} points at 150 Mbit/s, "
           "20 min)")
    f19 = {o: row("fig19.csv", error=1, overhead_min=o) for o in (0, 20, 25, 30, 45, 60, 75, 90)}
    quoted(f"fall from {f19[0]['ctmr_checkpoints']:.0f} a run at 0 min to "
           f"{f19[20]['ctmr_checkpoints']:.0f} at 20 min and {f19[90]['ctmr_checkpoints']:.0f} "
           "at 90 min")
    a, b = f19[25]["improvement"], f19[30]["improvement"]
    quoted(f"between 25 min ({pct(a, sign=True)} ± {pct(f19[25]['improvement_ci'])}%) and "
           f"30 min ({pct(b, sign=True)} ± {pct(f19[30]['improvement_ci'])}%), by linear "
           f"interpolation at {25 + 5 * a / (a - b):.0f} min",
           f"({pct(f19[20]['improvement'], sign=True)} ± {pct(f19[20]['improvement_ci'])}%)")
    # "the last overhead clearly before it is 20 min (0-20 min each above zero beyond its
    # interval)"
    assert all(r["improvement"] > r["improvement_ci"] for r in
               (row("fig19.csv", error=1, overhead_min=o) for o in (0, 5, 10, 15, 20)))
    quoted("the last overhead clearly before it is 20 min")
    assert all(abs(f19[o]["improvement"]) <= f19[o]["improvement_ci"]
               for o in (25, 30, 45, 60, 75, 90))
    # The cpfrac_cost reading's O side is Fig. 19 at 20, 30 and 45 min.
    o_side = [row("fig19.csv", error=1, overhead_min=o) for o in (20, 30, 45)]
    quoted("at 20 min {} ({:.0f} checkpoints)".format(
        pct(o_side[0]["improvement"], sign=True) + "%", o_side[0]["ctmr_checkpoints"]),
        "at 30 min {} ({:.0f})".format(pct(o_side[1]["improvement"], sign=True) + "%",
                                        o_side[1]["ctmr_checkpoints"]),
        "at 45 min {} ({:.0f})".format(pct(o_side[2]["improvement"], sign=True) + "%",
                                        o_side[2]["ctmr_checkpoints"]))


def test_the_model_options_quote_the_figures_runs():
    # φ = 0.5 and overhead_links=restart are the figures' runs.
    for p, name in ((300, "fig12.csv"), (400, "fig14.csv")):
        ideal = row("fig8.csv", ppbw=p, error=0)["improvement"]
        no = row("fig8.csv", ppbw=p, error=1)["improvement"]
        ten = row(name, error=1, overhead_min=10)
        if p == 300:
            quoted(f"the ideal case {pct(ideal)}%", f"without CTMR {pct(no)}%",
                   f"CTMR at 10 min {pct(ten['improvement'])}% "
                   f"({ten['ctmr_checkpoints']:.0f} checkpoints)")
        else:
            quoted(f"at 400 Mbit/s {pct(ideal)}%", f"; {pct(no)}%", f"; {pct(ten['improvement'])}%")
        at = {o: row(name, error=1, overhead_min=o)["improvement"] for o in (5, 10, 30)}
        quoted(f"{p} Mbit/s and 10 min {pct(at[10], sign=True)}% "
               f"({ten['ctmr_checkpoints']:.0f}",
               f"at 5 min {pct(at[5], sign=True)}%", f"at 30 min {pct(at[30], sign=True)}%")


def test_the_ctmr_restoring_reading_quotes_the_figures_runs():
    # ctmr_restoring=allow is the figures' runs; at 0 min skip gives the same runs.
    for p, name in ((300, "fig12.csv"), (400, "fig14.csv")):
        ten = row(name, error=1, overhead_min=10)
        zero = row(name, error=1, overhead_min=0)
        quoted(f"at {p} Mbit/s and 10 min {pct(ten['improvement'])}% ± "
               f"{pct(ten['improvement_ci'])} ({ten['ctmr_checkpoints']:.0f}")
        quoted(f"{pct(zero['improvement'])}% ± {pct(zero['improvement_ci'])} "
               f"({zero['ctmr_checkpoints']:.0f}")


# ------------------------------------------------------------------------ beyond the figures
def test_the_cpfrac_sweep():
    r = {c: row("cpfrac.csv", cpfrac=c) for c in (0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 1)}
    quoted(f"Ours: {pct(r[0.005]['improvement'])}% and {pct(r[0.01]['improvement'])}% "
           "improvement at 0.5% and 1%",
           f"{round(r[0.005]['ctmr_checkpoints'])}-{round(r[0.01]['ctmr_checkpoints'])} "
           "checkpoints a run",
           f"{pct(r[0.02]['improvement'])}% at 2%, then a plateau: "
           f"{pct(r[0.04]['improvement'])}% at 4%, {pct(r[0.08]['improvement'])}% at 8%, "
           f"{pct(r[0.16]['improvement'])}% at 16%, {pct(r[0.32]['improvement'])}% at 32% and "
           f"{pct(r[1]['improvement'])}% at 100%",
           f"{r[0.04]['ctmr_checkpoints']:.0f} to {r[1]['ctmr_checkpoints']:.0f} checkpoints")
    plateau = [r[c] for c in (0.04, 0.08, 0.16, 0.32, 1)]
    assert all(4 <= round(100 * x["improvement_ci"]) <= 5 for x in plateau)
    assert max(r, key=lambda c: r[c]["improvement"]) == 0.16


def test_the_unknown_overhead():
    minutes = (0, 5, 10, 20, 30)
    known = {o: row("unknown.csv", overhead_known="True", overhead_min=o) for o in minutes}
    blind = [row("unknown.csv", overhead_known="False", overhead_min=o) for o in minutes]
    checkpoints = [r["ctmr_checkpoints"] for r in blind]
    gains = [r["improvement"] for r in blind]
    quoted(f"({min(checkpoints):.0f}-{max(checkpoints):.0f} checkpoints a run",
           f"stays at {pct(min(gains))}-{pct(max(gains))}%",
           f"against {pct(known[0]['improvement'])}% (0 min), {pct(known[5]['improvement'])}% (5), "
           f"{pct(known[10]['improvement'])}% (10), {pct(known[20]['improvement'])}% (20) and "
           f"{pct(known[30]['improvement'])}% (30)")
    assert blind[-1]["turnaround_h"] == known[30]["turnaround_h"]


def test_the_readings_table_and_what_it_explains():
    text = PAGE.read_text()
    head = "| reading | ideal case | no CTMR | CTMR 0 min | CTMR 10 min |"
    table = text[text.index(head):].split("\n\n")[0].splitlines()[2:]
    readings = ("today's readings", "admit_cut=real", "ctmr_waiting=dispatch", "ctmr_steps=seed",
                "all three", "kappa = 0.5")
    assert len(table) == len(readings)
    for line, reading in zip(table, readings, strict=True):
        cells = cells_of(line)[1:]
        got = {v: row("ablation.csv", reading=reading, variant=v)
               for v in ("CTMR 0 min", "CTMR 10 min")}
        # The agent's readings leave the runs without CTMR alone: all three's are
        # admit_cut=real's, the others' today's.
        plain = "admit_cut=real" if reading == "all three" else reading
        for v in ("ideal (0% error)", "no CTMR"):
            if any(r["reading"] == plain and r["variant"] == v for r in rows("ablation.csv")):
                got[v] = row("ablation.csv", reading=plain, variant=v)
        gains = [f"{pct(got[v]['improvement'])}%" if v in got else "(today's)"
                 for v in ("ideal (0% error)", "no CTMR", "CTMR 0 min", "CTMR 10 min")]
        ideal = got.get("ideal (0% error)",
                        row("ablation.csv", reading="today's readings", variant="ideal (0% error)"))
        zero = got["CTMR 0 min"]
        want = [*gains, f"{num(zero['vs_ideal_h'], 2, sign=True)} ± {zero['vs_ideal_ci']:.2f}",
                f"{ideal['coalloc_starts']:,.0f} / {zero['coalloc_starts']:,.0f}"]
        assert cells == want, reading
        assert zero["vs_ideal_h"] > zero["vs_ideal_ci"], reading  # positive, outside its interval
    today = {v: row("ablation.csv", reading="today's readings", variant=v)
             for v in ("ideal (0% error)", "no CTMR", "CTMR 0 min", "CTMR 10 min")}
    real = row("ablation.csv", reading="admit_cut=real", variant="ideal (0% error)")
    quoted(f"{pct(real['improvement'] - today['ideal (0% error)']['improvement'], sign=True)} "
           f"points of ideal improvement ({pct(real['improvement'])}% against "
           f"{pct(today['ideal (0% error)']['improvement'])}%)",
           f"({pct(today['CTMR 0 min']['improvement'])}% against "
           f"{pct(today['ideal (0% error)']['improvement'])}%; paired by seed, its mean "
           f"turnaround is {today['CTMR 0 min']['vs_ideal_h']:.2f} ± "
           f"{today['CTMR 0 min']['vs_ideal_ci']:.2f} h shorter)",
           f"({today['CTMR 0 min']['coalloc_starts']:,.0f} a run against "
           f"{today['ideal (0% error)']['coalloc_starts']:.0f} in the ideal case, with "
           f"{today['CTMR 0 min']['ctmr_checkpoints']:.0f} checkpoints)")
    kappa = {v: row("ablation.csv", reading="kappa = 0.5", variant=v)
             for v in ("no CTMR", "CTMR 0 min")}

    def won_back(runs: dict[str, dict[str, float]]) -> str:
        return pct(runs["CTMR 0 min"]["improvement"] - runs["no CTMR"]["improvement"], sign=True)

    quoted(f"falls from {pct(today['no CTMR']['improvement'])}% to "
           f"{pct(kappa['no CTMR']['improvement'])}%",
           f"({won_back(kappa)} points at 0 min against {won_back(today)})",
           f"mean slowdown factor without CTMR rises from "
           f"{today['no CTMR']['coalloc_slowdown']:.3f} to "
           f"{kappa['no CTMR']['coalloc_slowdown']:.3f}")
    # Neither agent reading changes the number of checkpoints by more than 7%.
    for reading in ("ctmr_waiting=dispatch", "ctmr_steps=seed"):
        for v in ("CTMR 0 min", "CTMR 10 min"):
            assert abs(row("ablation.csv", reading=reading, variant=v)["ctmr_checkpoints"]
                       / today[v]["ctmr_checkpoints"] - 1) < 0.07, (reading, v)


# ------------------------------------------------------------------------ the seed's size
@pytest.mark.parametrize("ppbw", PPBWS)
def test_the_headline_table_is_headline_csv(ppbw):
    text = PAGE.read_text()
    head = "| PPBW | variant | turnaround (h) |"
    table = text[text.index(head):].split("\n\n")[0].splitlines()[2:]
    lines = [line for line in table if line.startswith(f"| {ppbw} |")]
    variants = ("ideal (0% error)", "+-100%, no CTMR", "+-100%, CTMR 10 min", "+-100%, CTMR 0 min")
    assert len(lines) == len(variants)
    for line, variant in zip(lines, variants, strict=True):
        cells = cells_of(line)
        r = row("headline.csv", ppbw=ppbw, variant=variant)
        assert cells[2] == f"{r['turnaround_h']:.2f} ± {r['turnaround_ci']:.2f}", variant
        assert cells[3] == f"{pct(r['improvement'])}% ± {pct(r['improvement_ci'])}", variant
        if "CTMR" in variant and "no CTMR" not in variant:
            assert cells[5] == plus_minus(r["vs_no_ctmr"], r["vs_no_ctmr_ci"]), variant
            assert cells[7] == plus_minus(r["vs_ideal"], r["vs_ideal_ci"]), variant


def test_the_headline_prose():
    r = {(p, v): row("headline.csv", ppbw=p, variant=v) for p in PPBWS
         for v in ("ideal (0% error)", "+-100%, no CTMR", "+-100%, CTMR 10 min",
                   "+-100%, CTMR 0 min")}
    ideal = [r[p, "ideal (0% error)"]["improvement"] for p in PPBWS]
    zero = [r[p, "+-100%, CTMR 0 min"]["vs_ideal"] for p in PPBWS]
    ten = [r[p, "+-100%, CTMR 10 min"]["vs_ideal"] for p in PPBWS]
    quoted("PPBW (" + " / ".join(pct(x) for x in ideal) + "%)",
           f"({pct(r[300, '+-100%, no CTMR']['improvement'])}% against 0.8%)",
           "by " + ", ".join(pct(x, sign=True) for x in zero[:2])
           + f" and {pct(zero[2], sign=True)} points",
           "(" + " / ".join(pct(x, sign=True) for x in zero) + " points)",
           f"({pct(ten[0], sign=True)}, {pct(ten[1], sign=True)} points) and below it at 400 "
           f"({pct(ten[2], sign=True)})")
    # The ideal improvement lies below the seed's at every PPBW, its interval too.
    seeds = (0.22, 0.16, 0.125)
    for x, p, seed in zip(ideal, PPBWS, seeds, strict=True):
        assert x + r[p, "ideal (0% error)"]["improvement_ci"] < seed
    quoted("the means " + ", ".join(pct(s - x) for s, x in zip(seeds[:2], ideal[:2], strict=True))
           + f" and {pct(seeds[2] - ideal[2])} points under it")
    # CTMR's lift at 10 min against the seed's +3 / +9.7 / +10: smaller, smaller, larger.
    lift = [r[p, "+-100%, CTMR 10 min"]["vs_no_ctmr"] for p in PPBWS]
    assert lift[0] < 0.03 and lift[1] < 0.097 and lift[2] > 0.10
    quoted(f"at 150 and 300 Mbit/s, {pct(lift[0], sign=True)} and {pct(lift[1], sign=True)} "
           f"points against +3 and +9.7, and larger at 400, {pct(lift[2], sign=True)} against +10")
    quoted(f"within {pct(max(abs(x) for x in ten[:2]))} points of the ideal case at 150 and 300")


# ------------------------------------------------------------------------ 25 workload seeds
def test_the_25_seed_paragraph():
    def at25(name: str, **keys: object) -> dict[str, float]:
        return row(f"seeds-25/{name}", **keys)

    assert {r["seeds"] for r in rows("seeds-25/fig8.csv")} == {"25"}
    ideal = [at25("fig8.csv", ppbw=p, error=0) for p in PPBWS]
    quoted(" / ".join(pct(r["improvement"]) for r in ideal) + "% ("
           + ", ".join(interval(r).split("(")[1].rstrip(")") for r in ideal) + ")",
           f"{pct(ideal[0]['improvement'])}% at 25")
    info = {i: at25("fig2.csv", error=1, info=i) for i in (0.2, 0.4, 0.6, 0.8, 1)}
    quoted(f"({pct(info[0.6]['improvement'])}% to {pct(info[1]['improvement'])}%, each interval "
           "above 8%)",
           f"{interval(info[0.2])} and {interval(info[0.4])}")
    decided = [i for i in info if info[i]["improvement"] - info[i]["improvement_ci"] > 0.08]
    assert decided == [0.6, 0.8, 1]  # "three parts of another are decided"
    assert all(row("fig2.csv", error=1, info=i)["improvement"]
               - row("fig2.csv", error=1, info=i)["improvement_ci"] < 0.08 for i in decided)
    quoted("three parts of another are decided")
    quoted(f"{interval(at25('fig4.csv', error=0.8, info=1))} against 8%")
    fig7 = [at25("fig7.csv", ppbw=p, error=-1) for p in PPBWS]
    quoted(f"better by {pct(fig7[0]['vs_opposite'])} points "
           f"({pct(fig7[0]['vs_opposite'] - fig7[0]['vs_opposite_ci'])}-"
           f"{pct(fig7[0]['vs_opposite'] + fig7[0]['vs_opposite_ci'])})",
           f"agrees` at 300 ({pct(fig7[1]['vs_opposite'])} points) and 400 Mbit/s "
           f"({pct(fig7[2]['vs_opposite'])})")
