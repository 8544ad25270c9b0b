"""Numbers that docs/results/forshaw.md writes by hand from its committed CSVs (outside the
tables `ckptsim paper forshaw tables` writes) are those the CSVs give, rounded as printed.

Each test rebuilds a sentence of the page from the CSVs under docs/results/forshaw/ and finds
it in the page (whitespace folded): a number that drifts from its CSV no longer matches."""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

from ckptsim.experiments.stats import mean_ci

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
FOLDER = RESULTS / "forshaw"
TEXT = " ".join((RESULTS / "forshaw.md").read_text().split())
MINUS = "\u2212"


@cache
def rows(name: str) -> list[dict[str, str]]:
    with open(FOLDER / f"{name}.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def _matches(row: dict[str, str], where: dict[str, object]) -> bool:
    return all(float(row[k]) == v if isinstance(v, (int, float)) else row[k] == v
               for k, v in where.items())


def per_seed(name: str, column: str, **where: object) -> dict[int, float]:
    """{seed: value} of the rows of `name` that match `where` (one row a seed)."""
    out = {int(r["seed"]): float(r[column]) for r in rows(name) if _matches(r, where)}
    assert out, (name, where)
    return out


def value(name: str, column: str, **where: object) -> float:
    found = [float(r[column]) for r in rows(name) if _matches(r, where)]
    assert len(found) == 1, (name, where)
    return found[0]


def paired(name: str, column: str, base: dict[str, object], other: dict[str, object],
           relative: bool = False, against: str | None = None) -> tuple[float, float, float,
                                                                        list[float]]:
    """(mean, low, high, differences) of `other` - `base` (or other / base - 1) per seed,
    with the 95% Student interval; `against` reads `base` from another CSV."""
    a = per_seed(against or name, column, **base)
    b = per_seed(name, column, **other)
    diffs = [b[s] / a[s] - 1 if relative else b[s] - a[s] for s in sorted(a) if s in b]
    m, h, _ = mean_ci(diffs)
    return m, m - h, m + h, diffs


def num(x: float, digits: int = 2, signed: bool = False) -> str:
    """As the page prints a number: the minus sign U+2212 (kept when a small negative
    rounds to 0: "−0.00"), '+' when `signed`."""
    return (MINUS if x < 0 else "+" if signed else "") + f"{abs(x):,.{digits}f}"


def pct(x: float, digits: int = 0, signed: bool = False) -> str:
    return num(100 * x, digits, signed) + "%"


def span(values: list[float], digits: int = 2) -> str:
    """"low-high" of the values, as the page's ranges."""
    return f"{num(min(values), digits)}-{num(max(values), digits)}"


def interval(m: float, lo: float, hi: float, digits: int = 2, signed: bool = False) -> str:
    return f"{num(m, digits, signed)} ({num(lo, digits, signed)} … {num(hi, digits, signed)})"


def quoted(*parts: str) -> None:
    for part in parts:
        assert " ".join(part.split()) in TEXT, part


# ------------------------------------------------------------------ Figs. 4-5, None and Opt
def test_none_against_opt_over_the_weeks_quotes_fig4_replications():
    none, opt1 = {"policy": "None"}, {"policy": "Opt 1 min"}
    o = paired("fig4-replications", "overhead_min", none, opt1, relative=True)
    e = paired("fig4-replications", "energy_mwh", none, opt1, relative=True)
    assert max(o[3]) < 0 and max(e[3]) < 0  # "lower in every one of the ten weeks"
    quoted(f"Opt (1 min) changes the overhead by {pct(o[0])} ({pct(o[1])} … {pct(o[2])}) and "
           f"the energy by {pct(e[0])} ({pct(e[1])} … {pct(e[2])}): lower in every one of the "
           "ten weeks")
    opt4 = {"policy": "Opt 4 min"}
    e = paired("fig4-replications", "energy_mwh", opt1, opt4, relative=True)
    o = paired("fig4-replications", "overhead_min", opt1, opt4, relative=True)
    quoted(f"Opt's energy grows by {pct(e[0], 1)} ({pct(e[1], 1, True)} … {pct(e[2], 1, True)}) "
           f"a week", f"its overhead by {pct(o[0])} ({pct(o[1])} … {pct(o[2])}) a week")
    # The ratio of the ten weeks' means: the table's Opt 4 over Opt 1 min.
    means = {r["policy"]: float(r["overhead_min"]) for r in rows("fig4")}
    ratio = means["Opt 4 min"] / means["Opt 1 min"] - 1
    quoted(f"the ratio of the ten weeks' means ({pct(ratio)}, the table)")


def test_the_weeks_levels_quote_fig4_and_fig5_replications():
    none = per_seed("fig4-replications", "overhead_min", policy="None")
    opt1 = per_seed("fig4-replications", "overhead_min", policy="Opt 1 min")
    opt4 = per_seed("fig4-replications", "overhead_min", policy="Opt 4 min")
    order = sorted(none, key=none.get)
    quiet, busy, burst = order[:7], order[7:9], order[9]
    quoted(f"None's overhead is {span([none[s] for s in quiet], 0)} min in seven quiet weeks, "
           f"{num(none[busy[0]], 0)} and {num(none[busy[1]], 0)} min in two busy ones and "
           f"{num(none[burst], 0)} min in the week with a burst",
           f"under Opt {span([opt1[s] for s in quiet], 0)} min in the quiet weeks")
    quoted(f"({num(opt1[burst], 0)} to {num(opt4[burst], 0)} min)")
    assert any(f"({num(opt1[s], 1)} to {num(opt4[s], 1)} min)" in TEXT for s in quiet)
    e_none = per_seed("fig5-replications", "energy_mwh", policy="None")
    e_opt = per_seed("fig5-replications", "energy_mwh", policy="Opt 1 min")
    quoted(f"The Opt/None energy ratio is {span([e_opt[s] / e_none[s] for s in e_none])} a week")


def test_the_year_of_figs_4_5_quotes_full_fig4_replications():
    none, opt1, opt4 = {"policy": "None"}, {"policy": "Opt 1 min"}, {"policy": "Opt 4 min"}
    o = paired("full/fig4-replications", "overhead_min", none, opt1, relative=True)
    e = paired("full/fig4-replications", "energy_mwh", none, opt1, relative=True)
    assert max(o[3]) < 0 and max(e[3]) < 0  # "lower in each of the five years"
    quoted(f"overhead {pct(o[0])} ({pct(o[1])} … {pct(o[2])}) and energy {pct(e[0])} "
           f"({pct(e[1])} … {pct(e[2])}), lower in each of the five years")
    o = paired("full/fig4-replications", "overhead_min", opt1, opt4, relative=True)
    e = paired("full/fig4-replications", "energy_mwh", opt1, opt4, relative=True)
    quoted(f"{pct(o[0], 1, True)} ({num(100 * o[1], 1, True)} … {pct(o[2], 1, True)}) overhead "
           f"and {pct(e[0], 1, True)} energy")
    years = per_seed("full/fig4-replications", "overhead_min", **none)
    quoted(f"None's overhead is {span(list(years.values()), 0)} min a year")
    quoted(f"({num(value('full/fig5', 'energy_mwh', policy='Opt 1 min'), 1)} against 54.6 MWh)")


# ------------------------------------------------------------------ Fig. 6, C(n)
def test_fig6_prose_quotes_fig6():
    def b(metric: str, d: int, n: int) -> tuple[float, float]:
        return (value("fig6", f"benefit_{metric}", duration_min=d, value=n),
                value("fig6", f"benefit_{metric}_ci", duration_min=d, value=n))

    e60, o60 = b("energy_mwh", 4, 60), b("overhead_min", 4, 60)
    quoted(f"the 4-minute energy benefit agrees ({num(e60[0])} ± {num(e60[1])}) and the "
           f"overhead benefit ({num(o60[0])} ± {num(o60[1])}) is still `inconclusive`")
    o3, o4 = b("overhead_min", 3, 30), b("overhead_min", 4, 30)
    quoted(f"({num(o3[0])} ± {num(o3[1])}, {num(o4[0])} ± {num(o4[1])}) reaches below 0.3")
    energy = [b("energy_mwh", d, 180)[0] for d in (1, 2, 3, 4)]
    over = [b("overhead_min", d, 180) for d in (1, 2, 3, 4)]
    quoted(f"Its energy benefit is {span(energy)} at every duration",
           f"its overhead benefit {span([m for m, _ in over])}, each interval reaching from "
           f"{num(min(m - h for m, h in over))} … {num(max(m - h for m, h in over))} to "
           f"{span([m + h for m, h in over])}")
    quoted(f"(4-minute checkpoints every 10 min: overhead benefit "
           f"{num(b('overhead_min', 4, 10)[0])}, energy {num(b('energy_mwh', 4, 10)[0])})")


def test_fig6_at_a_year_quotes_full_fig6():
    def b(metric: str, d: int, n: int) -> tuple[float, float]:
        return (value("full/fig6", f"benefit_{metric}", duration_min=d, value=n),
                value("full/fig6", f"benefit_{metric}_ci", duration_min=d, value=n))

    (e, eh), (o, oh) = b("energy_mwh", 4, 60), b("overhead_min", 4, 60)
    quoted(f"(energy {num(e)}, {num(e - eh)} … {num(e + eh)}; overhead {num(o)}, "
           f"{num(o - oh)} … {num(o + oh)}, paired per year)")
    quoted(f"{span([b('energy_mwh', d, 180)[0] for d in (1, 2, 3, 4)])} in energy and "
           f"{span([b('overhead_min', d, 180)[0] for d in (1, 2, 3, 4)])} in overhead")
    (e, eh), (o, oh) = b("energy_mwh", 4, 10), b("overhead_min", 4, 10)
    quoted(f"(energy {num(e)} ± {num(eh)}, overhead {num(o)} ± {num(oh)})")


# ------------------------------------------------------------------ Fig. 7, SR and CCSR
def test_fig7_prose_quotes_fig7_and_full_fig7():
    def b(name: str, kind: str, d: int, n: int, metric: str = "benefit_overhead_min") -> float:
        return value(name, metric, kind=kind, duration_min=d, value=n)

    ccsr = [b("fig7", "ccsr", d, 180) for d in (1, 4)]
    fixed = [b("fig7", "fixed", d, 180) for d in (1, 4)]
    util = [b("fig7", k, 1, 180, "utilisation") for k in ("ccsr", "fixed")]
    quoted(f"at 180 min it keeps {span(ccsr)} where C(n) falls to {span(fixed)} (overhead); its "
           f"utilisation doubles ({pct(util[0])} at 180 min against {pct(util[1])})")
    at = {k: [b("full/fig7", k, d, 180) for d in (1, 4)] for k in ("ccsr", "sr", "fixed")}
    quoted(f"At 180 min CCSR ({num(at['ccsr'][0])}, {num(at['ccsr'][1])} overhead) and SR "
           f"({num(at['sr'][0])}, {num(at['sr'][1])}) hold where C(n) falls to "
           f"{num(at['fixed'][0])} and {num(at['fixed'][1])}")
    quoted(f"CCSR keeps {num(b('full/fig7', 'ccsr', 4, 10))} and "
           f"{num(b('full/fig7', 'ccsr', 4, 10, 'benefit_energy_mwh'))}")


# ------------------------------------------------------------------ Fig. 8, Geometric
def test_geometric_r1_is_c30_and_r05_quotes_full_fig8():
    for folder in ("", "full/"):
        for d in (1, 4):
            assert per_seed(f"{folder}fig8-replications", "overhead_min", duration_min=d,
                            value=1.0) == per_seed(f"{folder}fig6-replications", "overhead_min",
                                                   duration_min=d, value=30)
    none = per_seed("full/fig4-replications", "overhead_min", policy="None")
    opt = per_seed("full/fig4-replications", "overhead_min", policy="Opt 1 min")
    r05 = {d: per_seed("full/fig8-replications", "benefit_overhead_min", duration_min=d,
                       value=0.5) for d in (1, 4)}
    worst = min(r05[1], key=r05[1].get)
    ovh = per_seed("full/fig8-replications", "overhead_min", duration_min=1, value=0.5)
    others = [v for d in (1, 4) for s, v in r05[d].items() if s != worst]
    quoted(f"that year Opt saves {num(none[worst] - opt[worst], 0)} minutes a task while r = 0.5 "
           f"adds {num(ovh[worst] - none[worst], 0)} (1-minute checkpoints) to None's "
           f"{num(none[worst], 0)}, so it scores {num(r05[1][worst], 1)} and "
           f"{num(r05[4][worst], 1)} (the other years {num(max(others), 1)} to "
           f"{num(min(others), 1)})")
    util = [u for d in (1, 4) for u in per_seed("fig8-replications", "utilisation",
                                                duration_min=d, value=0.5).values()]
    quoted(f"(utilisation {num(100 * min(util))}-{num(100 * max(util), 1)}% a week)")


# ------------------------------------------------------------------ Fig. 9, MinuteInHour
def test_minute_55_against_the_hour_quotes_fig9_replications():
    def rel(name: str, metric: str, d: int) -> tuple[float, float, float, list[float]]:
        return paired(name, f"benefit_{metric}", {"duration_min": d, "variant": 0, "value": 0},
                      {"duration_min": d, "variant": 0, "value": 55}, relative=True)

    e1, o1, e4, o4 = (rel("fig9-replications", m, d) for d, m in
                      ((1, "energy_mwh"), (1, "overhead_min"), (4, "energy_mwh"),
                       (4, "overhead_min")))
    quoted(f"its benefit changes by {pct(e1[0])} in energy ({pct(e1[1])} … {pct(e1[2], 0, True)}) "
           f"and {pct(o1[0])} in overhead ({pct(o1[1])} … {pct(o1[2], 0, True)}) with 1-minute "
           f"checkpoints, and by {pct(e4[0])} in energy ({pct(e4[1])} … {pct(e4[2], 0, True)})",
           f"only the 4-minute overhead ({pct(o4[0])}, {pct(o4[1])} … {pct(o4[2], 0, True)})")
    e1, o1, e4, o4 = (rel("full/fig9-replications", m, d) for d, m in
                      ((1, "energy_mwh"), (1, "overhead_min"), (4, "energy_mwh"),
                       (4, "overhead_min")))
    quoted(f"by {pct(e1[0], 1)} in energy ({pct(e1[1], 1)} … {pct(e1[2], 1, True)}) and "
           f"{pct(o1[0], 1)} in overhead ({pct(o1[1], 1)} … {pct(o1[2], 1, True)}) with 1-minute "
           f"checkpoints, by {pct(e4[0], 1, True)} ({pct(e4[1], 1)} … {pct(e4[2], 1, True)}) and "
           f"{pct(o4[0], 1)} ({pct(o4[1], 1)} … {pct(o4[2], 1, True)}) with 4-minute ones")


def test_the_jitter_at_a_year_lowers_every_benefit_but_the_one_quoted():
    raised = []
    for d in (1, 4):
        for m in (0, 15, 30, 45, 50, 55):
            for metric in ("benefit_energy_mwh", "benefit_overhead_min"):
                with_r = value("full/fig9", metric, duration_min=d, value=m, variant=5)
                without = value("full/fig9", metric, duration_min=d, value=m, variant=0)
                if with_r >= without:
                    raised.append((d, m, metric, with_r, without))
    assert {(d, m) for d, m, *_ in raised} == {(4, 50)}
    energy, overhead = sorted(raised, key=lambda r: r[2])
    quoted(f"4 min at m = 50: energy {num(energy[3])} against {num(energy[4])}, overhead "
           f"{num(overhead[3])} against {num(overhead[4])} without it")


# ------------------------------------------------------------------ Fig. 10, Ratio
def test_ratio_prose_quotes_fig10_and_full_fig10():
    def b(name: str, metric: str, d: int, p: float) -> float:
        return value(name, f"benefit_{metric}", duration_min=d, value=p)

    energy = [b("fig10", "energy_mwh", d, 0.15) for d in (1, 2, 3, 4)]
    over = [b("fig10", "overhead_min", d, 0.15) for d in (1, 2, 3, 4)]
    quoted(f"At 15% the energy benefit is {span(energy)} at every duration",
           f"the overhead benefit {span(over)}, each interval straddling 0")
    at20 = [b("fig10", "overhead_min", d, 0.2) for d in (1, 2, 3, 4)]
    quoted(f"below 0 at every duration ({num(max(at20))} to {num(min(at20))}), the energy benefit "
           f"still {span([b('fig10', 'energy_mwh', d, 0.2) for d in (1, 2, 3, 4)])}")
    year = [b("full/fig10", "overhead_min", d, 0.15) for d in (1, 2, 3, 4)]
    quoted("at 15% the overhead benefit is " + ", ".join(num(x) for x in year[:3])
           + f" and {num(year[3])} (1-4 min)")
    for metric in ("overhead_min", "energy_mwh"):
        quoted(", ".join(num(b("full/fig10", metric, d, 0.04)) for d in (1, 2, 3, 4))
               + f" ({metric.split('_')[0]})")


# ------------------------------------------------------------------ Fig. 11, StartDelay
def test_startdelay_differences_quote_fig11_replications():
    def delay(name: str, metric: str, d: int, n: int) -> tuple[float, float, float, list[float]]:
        return paired(name, f"benefit_{metric}", {"duration_min": d, "variant": n, "value": 0},
                      {"duration_min": d, "variant": n, "value": 60})

    e, o = delay("fig11-replications", "energy_mwh", 1, 30), \
        delay("fig11-replications", "overhead_min", 1, 30)
    quoted(f"in energy by {interval(-e[0], -e[2], -e[1])} and in overhead by "
           f"{interval(-o[0], -o[2], -o[1])}, each interval below 0")
    o, e = delay("fig11-replications", "overhead_min", 4, 60), \
        delay("fig11-replications", "energy_mwh", 4, 60)
    quoted(f"{num(o[0])} ({num(o[1])} … {num(o[2])}) in overhead, below 0, and by {num(e[0])} "
           f"({num(e[1])} … {num(e[2], 2, True)}) in energy")
    e, o = delay("full/fig11-replications", "energy_mwh", 1, 30), \
        delay("full/fig11-replications", "overhead_min", 1, 30)
    quoted(f"lowers the energy benefit by {interval(-e[0], -e[2], -e[1])} and the overhead "
           f"benefit by {interval(-o[0], -o[2], -o[1])}")
    e, o = delay("full/fig11-replications", "energy_mwh", 4, 30), \
        delay("full/fig11-replications", "overhead_min", 4, 30)
    quoted(f"raises the energy benefit by {interval(*e[:3], 3)} and the overhead benefit by "
           f"{num(o[0], 3)} ({num(o[1], 3)} … {num(o[2], 3, True)}")
    e, o = delay("full/fig11-replications", "energy_mwh", 4, 60), \
        delay("full/fig11-replications", "overhead_min", 4, 60)
    quoted(f"lowers its energy benefit by {interval(-e[0], -e[2], -e[1], 3)} and its overhead "
           f"benefit by {interval(-o[0], -o[2], -o[1], 3)}")
    along = {n: [num(value("full/fig11", "benefit_energy_mwh", duration_min=1, variant=n,
                           value=d)) for d in (0, 30, 60, 180)] for n in (30, 60)}
    quoted("C(30) energy {} at d = 0, {} at 30 min, {} at 60, {} at 180; C(60) {}, {}, {}, {}"
           .format(*along[30], *along[60]))


# ------------------------------------------------------------------ Fig. 12, Interarrival
def test_system_against_cluster_quotes_fig12_replications():
    def scope(name: str, column: str, w: int) -> tuple[float, float, float, list[float]]:
        return paired(name, column, {"variant": f"{w}/cluster", "value": 1},
                      {"variant": f"{w}/system", "value": 1})

    energy = [scope("fig12-replications", "benefit_energy_mwh", w) for w in (1, 10, 20)]
    util = [scope("fig12-replications", "utilisation", w) for w in (1, 10, 20)]
    over = [scope("fig12-replications", "benefit_overhead_min", w) for w in (1, 10, 20)]
    quoted("raises the energy benefit by " + ", ".join(interval(*x[:3]) for x in energy[:2])
           + f" and {interval(*energy[2][:3])} for w = 1, 10 and 20 min (higher in "
           + ", ".join(str(sum(d > 0 for d in x[3])) for x in energy[:2])
           + f" and {sum(d > 0 for d in energy[2][3])} of the ten weeks) and lowers the "
           "utilisation by " + ", ".join(num(-x[0]) for x in util[:2])
           + f" and {num(-util[2][0])} (lower in every week)")
    assert all(max(x[3]) < 0 for x in util)
    quoted(f"raises the overhead benefit by {interval(*over[0][:3])} and {interval(*over[2][:3])} "
           f"for w = 1 and 20 min, but by only {num(over[1][0])} ({num(over[1][1])} … "
           f"{num(over[1][2], 2, True)}) for w = 10 min, higher in "
           f"{sum(d > 0 for d in over[1][3])} of the 10 weeks")
    year = [scope("full/fig12-replications", "benefit_overhead_min", w) for w in (1, 10, 20)]
    quoted("the overhead benefit by " + ", ".join(interval(*x[:3]) for x in year[:2])
           + f" and {interval(*year[2][:3])}")
    year = [scope("full/fig12-replications", "benefit_energy_mwh", w) for w in (1, 10, 20)]
    quoted("raises the energy benefit by " + ", ".join(num(x[0]) for x in year[:2])
           + f" and {num(year[2][0])} for w = 1, 10 and 20 min")


# ------------------------------------------------------------------ the Microsoft trace
def test_the_trace_prose_quotes_trace_replications():
    none, opt1, opt4 = {"policy": "None"}, {"policy": "Opt 1 min"}, {"policy": "Opt 4 min"}
    o = paired("trace-replications", "overhead_min", none, opt1, relative=True)
    e = paired("trace-replications", "energy_mwh", none, opt1, relative=True)
    quoted(f"(overhead {pct(o[0])}, {num(100 * o[1], 0)} … {num(100 * o[2], 0)}%; energy "
           f"{pct(e[0], 1)}, {num(100 * e[1], 1)} … {num(100 * e[2], 1)}%)")
    o = paired("trace-replications", "overhead_min", opt1, opt4, relative=True)
    e = paired("trace-replications", "energy_mwh", opt1, opt4, relative=True)
    quoted(f"agrees in energy** ({pct(e[0], 1, True)})",
           f"({pct(o[0], 0, True)}, {num(100 * o[1], 0)} … {pct(o[2], 0, True)}:")

    def diff(metric: str, a: str, b: str) -> tuple[float, float, float, list[float]]:
        return paired("trace-replications", f"benefit_{metric}", {"policy": a}, {"policy": b})

    c180, ratio = diff("overhead_min", "C(180) 1 min", "C(60) 1 min"), \
        diff("overhead_min", "Ratio(0.04) 1 min", "C(60) 1 min")
    c180e, ratioe = diff("energy_mwh", "C(180) 1 min", "C(60) 1 min"), \
        diff("energy_mwh", "Ratio(0.04) 1 min", "C(60) 1 min")
    quoted(f"more than C(180) (by {num(c180[0])}, {num(c180[1])} … {num(c180[2])}, and "
           f"{num(c180e[0])}, {num(c180e[1])} … {num(c180e[2])}) and than Ratio(4%) (by "
           f"{num(ratio[0])}, {num(ratio[1])} … {num(ratio[2])}, and {num(ratioe[0])}, "
           f"{num(ratioe[1])} … {num(ratioe[2])})")
    o, e = diff("overhead_min", "C(60) 4 min", "C(180) 4 min"), \
        diff("energy_mwh", "C(60) 4 min", "C(180) 4 min")
    quoted(f"(overhead {num(o[0], 2, True)}, {num(o[1])} … {num(o[2], 2, True)}; energy "
           f"{num(e[0], 2, True)}, {num(e[1], 3)} … {num(e[2], 2, True)})")
    o, e = diff("overhead_min", "Ratio(0.04) 4 min", "C(180) 4 min"), \
        diff("energy_mwh", "Ratio(0.04) 4 min", "C(180) 4 min")
    assert o[1] < 0 < o[2] and e[1] < 0 < e[2]
    quoted(f"level ({num(o[0], 2, True)} and {num(e[0], 2, True)}, both intervals across 0)")
    means = {r["policy"]: float(r["overhead_min"]) for r in rows("trace")}
    quoted(f"({num(means['None'], 0)} against {num(means['Opt 1 min'], 0)} min on average)")


# ------------------------------------------------------------------ 30 weeks and the choices
def test_the_first_ten_of_thirty_weeks_are_the_committed_csvs():
    for fig in ("fig6", "fig10", "fig12"):
        ten = rows(f"{fig}-replications")
        thirty = [r for r in rows(f"weeks-30/{fig}-replications") if int(r["seed"]) <= 10]
        key = ("series", "duration_min", "value", "variant", "seed")
        assert sorted(ten, key=lambda r: [r[k] for k in key]) == \
            sorted(thirty, key=lambda r: [r[k] for k in key]), fig


def test_the_modelling_choices_rows_quote_their_csvs():
    base = "fig6-replications"
    for folder, d, pattern in (
            ("reboot-duration-900", 1, "change by {o} in overhead and {e} in energy"),
            ("reboot-duration-900", 4, "by {o} and {e}: no change"),
            ("resume-after-300", 1, "a difference of {o} and {e}; with 4-minute"),
            ("resume-after-300", 4, "{o} and {e}: no change"),
            ("speeds-slowest", 1, "a difference of {o} and {e}; with 4-minute"),
            ("speeds-slowest", 4, "{o} and {e}: the policies' absolute costs")):
        name = f"choices/{folder}/fig6-replications"
        where = {"duration_min": d, "value": 30}
        cells = {}
        for key, metric in (("o", "benefit_overhead_min"), ("e", "benefit_energy_mwh")):
            m, lo, hi, _ = paired(name, metric, where, where, against=base)
            # The rows print the mean to three decimals, each bound to two or three.
            options = [f"{num(m, k, True)} ({num(lo, j, True)} … {num(hi, i, True)})"
                       for k in (3,) for j in (2, 3) for i in (2, 3)]
            cells[key] = options
        assert any(pattern.format(o=o, e=e) in TEXT for o in cells["o"] for e in cells["e"]), \
            (folder, d, cells)
    # StartDelay's other reading: C(30) after 60 min higher in every replication, and C(60)
    # after 60 min the very runs of C(60) without a delay with 4-minute checkpoints.
    first = "choices/startdelay-first-delay/fig11-replications"
    spans = []
    for metric in ("benefit_overhead_min", "benefit_energy_mwh"):
        where = {"duration_min": 1, "variant": 30, "value": 60}
        *_, diffs = paired(first, metric, where, where, against="fig11-replications")
        assert min(diffs) > 0
        spans.append(f"{num(min(diffs), 2, True)} … {num(max(diffs), 2, True)}")
        *_, same = paired(first, metric, {"duration_min": 4, "variant": 60, "value": 0},
                          {"duration_min": 4, "variant": 60, "value": 60})
        assert same == [0.0] * 10
    quoted(f"higher in all ten replications ({spans[0]} and {spans[1]})")
    # Scheduled's lead: only SR and CCSR move.
    lead = "choices/lead-1200/fig7-replications"
    for metric in ("overhead_min", "energy_mwh", "benefit_overhead_min"):
        for d in (1, 4):
            for n in (10, 30, 180):
                where = {"kind": "fixed", "duration_min": d, "value": n}
                assert per_seed(lead, metric, **where) == per_seed("fig7-replications", metric,
                                                                   **where)
    where = {"kind": "ccsr", "duration_min": 1, "value": 30}
    o = paired(lead, "benefit_overhead_min", where, where, against="fig7-replications")
    e = paired(lead, "benefit_energy_mwh", where, where, against="fig7-replications")
    quoted(f"CCSR at n = 30 {interval(*o[:3], 3, True)} in overhead benefit and "
           f"{interval(*e[:3], 3, True)} in energy benefit")


def test_the_late_adopt_row_quotes_its_csvs():
    # Scheduled's late=adopt: its C(n) rows are Fig. 7's own, its SR and CCSR rows paired per
    # replication against Fig. 7's.
    adopt, base = "choices/late-adopt/fig7-replications", "fig7-replications"
    for d in (1, 4):
        where = {"kind": "fixed", "duration_min": d, "value": 30}
        assert per_seed(adopt, "benefit_overhead_min", **where) == \
            per_seed(base, "benefit_overhead_min", **where)
    cells = []
    for d in (1, 4):
        for kind in ("ccsr", "sr"):
            where = {"kind": kind, "duration_min": d, "value": 30}
            for metric in ("benefit_overhead_min", "benefit_energy_mwh"):
                cells.append(interval(*paired(adopt, metric, where, where, against=base)[:3],
                                      3, True))
    quoted(f"CCSR at n = 30 {cells[0]} in overhead benefit and {cells[1]} in energy benefit, "
           f"SR {cells[2]} and {cells[3]}; with 4-minute checkpoints CCSR {cells[4]} and "
           f"{cells[5]}, SR {cells[6]} and {cells[7]}")
    means, away = [], []
    for d in (1, 4):
        for kind in ("sr", "ccsr"):
            for n in (10, 20, 30, 45, 60, 90, 120, 180):
                where = {"kind": kind, "duration_min": d, "value": n}
                for metric in ("benefit_overhead_min", "benefit_energy_mwh"):
                    m, lo, hi, _ = paired(adopt, metric, where, where, against=base)
                    means.append(m)
                    if lo > 0 or hi < 0:
                        away.append((kind, d, n, metric, interval(m, lo, hi, 3, True)))
    assert len(means) == 64 and max(map(abs, means)) <= 0.025
    assert away == [("sr", 4, 60, "benefit_energy_mwh", "+0.015 (+0.002 … +0.029)")]
    quoted("energy +0.015 (+0.002 … +0.029)")
    same = {d: sum(a["overhead_min"] == b["overhead_min"] and a["energy_mwh"] == b["energy_mwh"]
                   for a, b in zip(
                       (r for r in rows(adopt) if r["kind"] != "fixed"
                        and int(r["duration_min"]) == d),
                       (r for r in rows(base) if r["kind"] != "fixed"
                        and int(r["duration_min"]) == d), strict=True))
            for d in (1, 4)}
    quoted(f"{same[1] + same[4]} of the 320 SR and CCSR runs ({same[1]} of 160 with 1-minute "
           f"checkpoints, {same[4]} of 160 with 4-minute ones)")
    # "CCSR beats Fixed at every interval": CCSR's mean above C(n)'s at all 16 intervals.
    for d in (1, 4):
        for n in (10, 20, 30, 45, 60, 90, 120, 180):
            for metric in ("benefit_overhead_min", "benefit_energy_mwh"):
                assert value("choices/late-adopt/fig7", metric, kind="ccsr", duration_min=d,
                             value=n) > value("choices/late-adopt/fig7", metric, kind="fixed",
                                              duration_min=d, value=n)


def test_thirty_weeks_quote_weeks_30():
    def b(metric: str, d: int, n: int) -> tuple[float, float, float, list[float]]:
        return _mean("weeks-30/fig6-replications", f"benefit_{metric}", duration_min=d, value=n)

    quoted("Energy agrees at every duration ("
           + ", ".join(num(b("energy_mwh", d, 30)[0]) for d in (1, 2, 3, 4)) + ")")
    o4, o3 = b("overhead_min", 4, 30), b("overhead_min", 3, 30)
    quoted(f"Overhead with 4-minute checkpoints is {interval(*o4[:3])}",
           f"With 3-minute checkpoints it is still open: {interval(*o3[:3])}")
    e60, o60 = b("energy_mwh", 4, 60), b("overhead_min", 4, 60)
    quoted(f"the energy part agrees ({num(e60[0])}, {num(e60[1])} … {num(e60[2])}) and the "
           f"overhead part is open, {interval(*o60[:3])}")
    late = [b("overhead_min", d, 180)[0] for d in (2, 3, 4)]
    first = b("overhead_min", 1, 180)
    energy = [b("energy_mwh", d, 180)[0] for d in (1, 2, 3, 4)]
    quoted(f"its overhead parts now agree with 2-, 3- and 4-minute checkpoints ({span(late)})",
           f"With 1-minute checkpoints it is still open: {interval(*first[:3])}",
           f"still `differs` on energy ({span(energy)})")
    w10 = paired("weeks-30/fig12-replications", "benefit_overhead_min",
                 {"variant": "10/cluster", "value": 1}, {"variant": "10/system", "value": 1})
    quoted(f"The overhead benefit is {interval(*w10[:3])}")


def _mean(name: str, column: str, **where: object) -> tuple[float, float, float, list[float]]:
    values = list(per_seed(name, column, **where).values())
    m, h, _ = mean_ci(values)
    return m, m - h, m + h, values


def test_the_choices_benefits_quote_their_fig6():
    for folder, phrase in (("resume-after-300", "C(30)'s benefits {o1} (overhead) and {e1} "
                                                "(energy) against"),
                           ("speeds-slowest", "C(30)'s benefits {o1} (overhead) and {e1} "
                                              "(energy) against"),
                           ("resume-after-300", "with 4-minute checkpoints {o4} and {e4} "
                                                "against"),
                           ("speeds-slowest", "with 4-minute checkpoints {o4} and {e4} against")):
        cells = {}
        for d in (1, 4):
            for key, metric in (("o", "benefit_overhead_min"), ("e", "benefit_energy_mwh")):
                m = value(f"choices/{folder}/fig6", metric, duration_min=d, value=30)
                h = value(f"choices/{folder}/fig6", f"{metric}_ci", duration_min=d, value=30)
                cells[f"{key}{d}"] = f"{num(m)} ± {num(h)}"
        quoted(phrase.format(**cells))



def test_the_choices_written_before_their_flag_are_its_runs():
    """The restart and late=adopt choices were run from specs written by hand; the page names
    the `paper --set checkpoint.policy.KEY` commands that make the same runs (run ids)."""
    import shlex

    from ckptsim.cli import build_parser
    from ckptsim.cli.papers import _PAPERS, check_options
    from ckptsim.experiments.estimate import planned
    from ckptsim.experiments.papers import settings

    def ids(specs: dict[str, str]) -> set[str]:
        return {r.run_id for plan in planned(specs, Path(".")).values() for r in plan.runs}

    restart = "ckptsim paper forshaw fig6 --durations 1 4"
    late = ("ckptsim paper forshaw ccsr --durations 1 4 --out results/forshaw-late-adopt "
            "--set checkpoint.policy.late=adopt")
    quoted(f"`{restart}` with and without `--set checkpoint.policy.restart=600`")
    quoted(f"`{late}`")
    for command, plain, spec in (
            (f"{restart} --out results/x --set checkpoint.policy.restart=600", True,
             "restart.toml"),
            (late, False, "late-adopt/ccsr.toml")):
        args = build_parser().parse_args(shlex.split(command)[1:])
        check_options(args)
        paper = _PAPERS["forshaw"]
        opt = paper.options(args)
        sets = settings.resolve(paper, args.figure, opt, args.set)
        own = paper.specs(args.figure, opt)
        ran = ids({k: settings.apply(v, sets) for k, v in own.items()})
        hand = ids({"hand": (RESULTS / "forshaw" / "choices" / spec).read_text()})
        assert hand <= (ran | ids(own) if plain else ran), spec
        assert len(hand) == (90 if plain else 350)


def test_the_choices_paper_commands_are_accepted():
    """Each `a figure: ckptsim paper forshaw FIG --set ITEM` of the modelling choices is
    accepted by the figure it reaches (S: a number of seconds)."""
    import re

    from ckptsim.cli import build_parser
    from ckptsim.cli.papers import _PAPERS, check_options
    from ckptsim.experiments.papers import settings

    items = re.findall(r"a figure: `ckptsim paper forshaw FIG --set ([^`]+)`", TEXT)
    assert len(items) >= 7, items
    paper = _PAPERS["forshaw"]
    for item in items:
        figure = "fig7" if "late=" in item else "fig6"
        args = build_parser().parse_args(["paper", "forshaw", figure, "--out", "results/x",
                                          "--set", re.sub(r"=S$", "=600", item)])
        check_options(args)
        assert settings.resolve(paper, figure, paper.options(args), args.set).given, item
