"""Numbers that docs/results/shi.md writes by hand from its committed CSVs (outside the tables
`ckptsim paper shi tables` writes) are those the CSVs give, rounded as printed."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np

from ckptsim.experiments.stats import mean_ci

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
PAGE = RESULTS / "shi.md"
THESIS_SEEDS = ("71", "23", "31", "13", "7")
#: Figs. 11-15 by seed.
FIGURES = {"71": "fig11", "31": "fig12", "7": "fig13", "23": "fig14", "13": "fig15"}
MINUS = "\N{MINUS SIGN}"


def rows(name: str) -> list[dict[str, str]]:
    with open(RESULTS / "shi" / name, newline="") as fh:
        return list(csv.DictReader(fh))


def text() -> str:
    """The page with its lines joined, so that a quote may wrap."""
    return " ".join(PAGE.read_text().split())


def prose() -> str:
    """The page without the tables `ckptsim paper shi tables` writes."""
    return re.sub(r"<!-- table: \w+ -->.*?<!-- /table -->", "", text())


def signed(value: float, digits: int) -> str:
    """As the page prints a number: rounded, with a minus sign for a negative one."""
    out = f"{value:,.{digits}f}"
    return out.replace("-", MINUS) if out.lstrip("-0.,") else out.lstrip("-")


def quoted(value: float, half: float, digits: int, half_digits: int | None = None) -> str:
    """"12.0% ± 17.4": a mean and the half-width of its interval."""
    half_digits = digits if half_digits is None else half_digits
    return f"{signed(value, digits)}% ± {half:.{half_digits}f}"


def fig16(seed: str) -> dict[str, float]:
    return {k: float(v) for k, v in next(r for r in rows("fig16.csv") if r["seed"] == seed)
            .items() if k != "seed" and v != ""}


def readings(reading: str, cls: str) -> dict[str, float]:
    row = next(r for r in rows("readings.csv") if r["reading"] == reading and r["class"] == cls)
    return {k: float(v) for k, v in row.items() if k not in ("reading", "class")}


def per_seed(cls: str, size: str = "all") -> dict[str, dict[str, float]]:
    """Figs. 11-15: seed -> the four cases' ARRT of a class and size."""
    out = {}
    for seed, fig in FIGURES.items():
        row = next(r for r in rows(f"{fig}.csv")
                   if r["class"] == cls and r["size_class"] == size)
        out[seed] = {k: float(v) for k, v in row.items() if k.startswith(("arrt_", "gain_"))}
    return out


def trace(name: str, cls: str, size: str = "all") -> dict[str, float]:
    row = next(r for r in rows("traces.csv")
               if r["trace"] == name and r["class"] == cls and r["size_class"] == size)
    return {k: float(v) for k, v in row.items() if k.startswith(("arrt_", "gain_"))}


def test_the_headline_quotes_fig16():
    page, five, thirty = text(), fig16("thesis seeds"), fig16("30 seeds")
    worse = quoted(-thirty["gain_medium_vs_original_pct"],
                   thirty["gain_medium_vs_original_ci95"], 1)
    pooled = quoted(-thirty["pooled_gain_medium_vs_original_pct"],
                    thirty["pooled_gain_medium_vs_original_ci95"], 1)
    long = quoted(thirty["gain_long_vs_original_pct"], thirty["gain_long_vs_original_ci95"], 1)
    assert f"it makes it worse, by {worse}** ({pooled} on the pooled ARRT), while long jobs " \
           f"gain {long}." in page
    # Over `checkpoint`: the 30 seeds' gains and how many times the thesis's they are.
    stop = (thirty["gain_long_pct"], thirty["gain_medium_pct"])
    assert (f"migration gains {stop[0]:.0f}% (long) and {stop[1]:.0f}% (medium): "
            f"{stop[0] / 1.5:.0f} and {stop[1] / 4:.0f} times the thesis's 1.5% and 4%") in page
    keep = (quoted(thirty["gain_long_vs_keep_pct"], thirty["gain_long_vs_keep_ci95"], 1),
            quoted(-thirty["gain_medium_vs_keep_pct"], thirty["gain_medium_vs_keep_ci95"], 1))
    assert f"gains {keep[0]} for long jobs and loses {keep[1]} for medium ones" in page
    alone = (quoted(five["gain_long_vs_keep_pct"], five["gain_long_vs_keep_ci95"], 0),
             quoted(five["gain_medium_vs_keep_pct"], five["gain_medium_vs_keep_ci95"], 1))
    assert f"its gains ({alone[0]} and {alone[1]}) contain the thesis's 1.5% and 4%" in page
    # ... which they do, and over 30 seeds neither interval reaches the thesis's value.
    for cls, thesis in (("long", 1.5), ("medium", 4.0)):
        mean, half = five[f"gain_{cls}_vs_keep_pct"], five[f"gain_{cls}_vs_keep_ci95"]
        assert mean - half < thesis < mean + half
        mean, half = thirty[f"gain_{cls}_vs_keep_pct"], thirty[f"gain_{cls}_vs_keep_ci95"]
        assert not mean - half < thesis < mean + half


def test_checkpoint_keep_is_within_the_quoted_share_of_the_original():
    # "ARRT within 11% of it" (headline and Figs. 11-15), both classes, every thesis seed.
    gap = max(abs(case["arrt_checkpoint_keep"] / case["arrt_original"] - 1)
              for cls in ("long", "medium") for case in per_seed(cls).values())
    stated = {int(m) for m in re.findall(r"ARRT within (\d+)% of it", text())}
    assert stated == {math.ceil(100 * gap)}, (stated, gap)


def test_the_readings_quoted_in_the_modelling_choices():
    page = text()
    today = {c: readings("today's", c) for c in ("long", "medium")}

    def by_sys(cls: str, ref: str, digits: int) -> str:
        row = readings("interval_size=sys", cls)
        return quoted(row[f"arrt_gain_vs_{ref}_pct"], row[f"arrt_gain_vs_{ref}_ci"], digits)

    assert (f"migration gains {by_sys('long', 'checkpoint', 0)} (long) and "
            f"{by_sys('medium', 'checkpoint', 0)} (medium) over `checkpoint` instead of "
            f"{today['long']['arrt_gain_vs_checkpoint_pct']:.0f}% and "
            f"{today['medium']['arrt_gain_vs_checkpoint_pct']:.0f}%") in page
    assert (f"and {by_sys('long', 'checkpoint_keep', 0)} and "
            f"{by_sys('medium', 'checkpoint_keep', 1)} over `checkpoint-keep` instead of "
            f"{today['long']['arrt_gain_vs_checkpoint_keep_pct']:.0f}% and "
            f"{signed(today['medium']['arrt_gain_vs_checkpoint_keep_pct'], 1)}%") in page
    wide = {c: readings("S_app/S_sys in [0, 1]", c) for c in ("long", "medium")}
    q = {(c, k): quoted(wide[c][f"arrt_gain_vs_{k}_pct"], wide[c][f"arrt_gain_vs_{k}_ci"], 0)
         for c in ("long", "medium") for k in ("checkpoint", "checkpoint_keep")}
    assert (f"With [0, 1] migration gains {q['long', 'checkpoint']} and "
            f"{q['medium', 'checkpoint']} over `checkpoint` and {q['long', 'checkpoint_keep']} "
            f"and {q['medium', 'checkpoint_keep']} over `checkpoint-keep`") in page
    # Today's gains, quoted beside the span reading and the open choices.
    t = {(c, k): signed(today[c][f"arrt_gain_vs_{k}_pct"], 1)
         for c in ("long", "medium") for k in ("checkpoint", "checkpoint_keep", "original")}
    assert (f"(against {t['long', 'checkpoint']}% / {t['medium', 'checkpoint']}%, "
            f"{t['long', 'checkpoint_keep']}% / {t['medium', 'checkpoint_keep']}% and "
            f"{t['long', 'original']}% / {t['medium', 'original']}% today)") in page
    original = [quoted(today[c]["arrt_gain_vs_original_pct"],
                       today[c]["arrt_gain_vs_original_ci"], 1) for c in ("long", "medium")]
    assert f"(today's: {original[0]} / {original[1]};" in page
    assert f"against {t['long', 'checkpoint']}% / {t['medium', 'checkpoint']}%: smaller " \
           "images" in page
    assert f"their original ARRT falls from {today['medium']['arrt_original']:.2f} to" in page
    assert (f"their ARRT with migration only from "
            f"{today['medium']['arrt_migration']:.2f} to") in page


def test_the_pooled_arrt_bullet_quotes_the_30_seeds():
    thirty = fig16("30 seeds")
    q = {(kind, ref): quoted(thirty[f"{kind}gain_medium_vs_{ref}_pct"],
                             thirty[f"{kind}gain_medium_vs_{ref}_ci95"], 0)
         for kind in ("", "pooled_") for ref in ("keep", "original")}
    assert (f"(over 30 seeds, {q['pooled_', 'keep']} against {q['', 'keep']} over "
            f"`checkpoint-keep` and {q['pooled_', 'original']} against {q['', 'original']} over "
            f"the original)") in text()


def test_the_literal_reading_quotes_the_original_of_fig11():
    case = {c: per_seed(c)["71"]["arrt_original"] for c in ("long", "medium")}
    assert f"against the original's {case['long']:.2f} / {case['medium']:.2f}" in text()


def test_the_margins_table_quotes_the_thesis_numbers_of_fig16_and_table3():
    page = text()
    thesis = {c: [fig16(s)[f"thesis_gain_{c}_pct"] for s in THESIS_SEEDS]
              for c in ("long", "medium")}
    # The page lists them in the order of Figs. 11-15 (seeds 71, 31, 7, 23, 13).
    order = [THESIS_SEEDS.index(s) for s in FIGURES]
    listed = {c: ", ".join(f"{thesis[c][i]:.2f}" for i in order) for c in thesis}
    means = {c: f"{np.mean(thesis[c]):.2f}" for c in thesis}
    assert (f"average {means['long']}% (long: {listed['long']}) and {means['medium']}% "
            f"(medium: {listed['medium']})") in page
    arrivals = [float(r["thesis_interarrival_s"]) for r in rows("table3.csv")]
    assert f"printed in whole seconds ({', '.join(f'{a:.0f}' for a in arrivals)}; their mean, " \
           f"{np.mean(arrivals):.1f} s," in page


def test_what_the_verdicts_say():
    page, five, thirty = text(), fig16("thesis seeds"), fig16("30 seeds")
    times = [row[f"{kind}gain_{c}_pct"] / thesis for row in (five, thirty)
             for kind in ("", "pooled_") for c, thesis in (("long", 1.5), ("medium", 4.0))]
    assert f"by {min(times):.0f} to {max(times):.0f} times the thesis's gain" in page
    widths = [2 * five[f"gain_{c}_vs_keep_ci95"] for c in ("long", "medium")]
    assert f"those intervals are {min(widths):.0f} to {max(widths):.0f} points wide" in page


def test_the_class_mix_paragraph_quotes_table3():
    page, table = text(), rows("table3.csv")

    def diffs(column: str) -> list[list[float]]:
        """Ours less the thesis's, per class, per seed."""
        return [[float(r[column.format(c)]) - float(r["thesis_" + column.format(c)])
                 for r in table] for c in ("short", "medium", "long")]

    jobs, work, size = diffs("jobs_{}_pct"), diffs("work_{}_pct"), diffs("size_{}")
    worst = [max(abs(x) for d in part for x in d) for part in (jobs, work, size)]
    assert (f"the class mix is within {worst[0]:.1f} points of the thesis's, the shares of work "
            f"within {worst[1]:.1f} points and the mean sizes within {worst[2]:.1f} nodes") in page
    stats = {name: [mean_ci(d) for d in part] for name, part in
             (("jobs", jobs), ("work", work), ("size", size))}
    points = [s for name in ("jobs", "work") for s in stats[name]]
    assert max(abs(m) for m, _, _ in points) < 0.5  # "average within half a point"
    assert max(abs(m) for m, _, _ in stats["size"]) < 0.25  # "and a quarter node"
    wide = [h for m, h, _ in points if h >= 0.25]  # the short jobs' share of work aside
    assert (f"reach ±{min(wide):.1f} to ±{max(wide):.1f} points and "
            f"±{min(h for _, h, _ in stats['size']):.1f} to "
            f"±{max(h for _, h, _ in stats['size']):.1f} nodes") in page
    short = stats["work"][0]
    assert f"({short[0]:.2f} ± {short[1]:.2f} points: agrees)" in page


def test_the_inter_arrival_paragraph_quotes_arrivals_csv():
    page, table = text(), rows("arrivals.csv")
    five = next(r for r in table if r["seed"] == "thesis seeds")
    thirty = next(r for r in table if r["seed"] == "30 seeds")
    mean5, load5 = float(five["interarrival_s"]), float(five["load"])
    mean30, load30 = float(thirty["interarrival_s"]), float(thirty["load"])
    half30, sd30 = float(thirty["interarrival_s_ci95"]), float(thirty["interarrival_s_sd"])
    heaviest = max((r for r in table if r["thesis_seed"] == "1"),
                   key=lambda r: float(r["interarrival_s"]))
    assert (f"their mean inter-arrival time is {mean5:,.0f} s and their offered load "
            f"{load5:.2f}, against {mean30:,.0f} s and {load30:.2f} over the 30 seeds (seed "
            f"{heaviest['seed']} alone has {float(heaviest['interarrival_s']):,.0f} s)") in page
    thesis = float(thirty["thesis_interarrival_s"])  # 869.2, printed 869
    gap = mean30 - thesis
    assert (f"The model's own mean, {mean30:,.0f} s (95% interval ±{half30:.0f} s; between seeds "
            f"the standard deviation is {sd30:.0f} s), lies {gap:.0f} s ({100 * gap / thesis:.1f}%)"
            f" above the thesis's {thesis:.0f} s") in page
    spread = sd30 / math.sqrt(5)
    assert (f"({sd30:.0f} / sqrt(5), about {spread:.0f} s: {gap / spread:.1f} standard "
            f"deviations)") in page


def test_the_load_paragraph_quotes_arrivals_and_fig16():
    load = {r["seed"]: float(r["load"]) for r in rows("arrivals.csv") if r["thesis_seed"]}
    gain = {r["seed"]: float(r["gain_medium_vs_original_pct"]) for r in rows("fig16.csv")
            if r["seed"] in load}
    assert len(gain) == 30
    x = np.array([load[s] for s in gain])
    y = np.array(list(gain.values()))
    r = np.corrcoef(x, y)[0, 1]
    slope = np.polyfit(x, y, 1)[0] / 10
    assert (f"the correlation of offered load with that gain is {signed(r, 1)} (about "
            f"{signed(slope, 0)} points per 0.1 of load") in text()
    five, thirty = fig16("thesis seeds"), fig16("30 seeds")
    medium = [quoted(row["gain_medium_vs_original_pct"], row["gain_medium_vs_original_ci95"], 1)
              for row in (five, thirty)]
    assert f"({medium[0]} against {medium[1]} over 30 seeds)" in text()


def test_the_figs_11_15_bullets_quote_their_csvs():
    page = text()
    wide = per_seed("long", "wide")
    # "their ARRT is far above the original's on every seed (e.g. seed 71: 17.9 against 8.4)"
    assert all(c["arrt_migration"] > c["arrt_original"] for c in wide.values())
    w71 = wide["71"]
    assert f"(e.g. seed 71: {w71['arrt_migration']:.1f} against {w71['arrt_original']:.1f})" \
        in page
    assert (f"ARRT of wide long jobs goes from {w71['arrt_original']:.1f} to "
            f"{w71['arrt_checkpoint']:.1f} for seed 71, against "
            f"{w71['arrt_checkpoint_keep']:.1f} with `checkpoint-keep`") in page
    # "for medium jobs on only two of the five"
    lower = sum(c["arrt_migration"] < c["arrt_checkpoint_keep"]
                for c in per_seed("medium").values())
    words = ("none", "one", "two", "three", "four")
    assert f"for medium jobs on only {words[lower]} of the five" in page
    assert all(c["arrt_migration"] < c["arrt_checkpoint_keep"]
               for c in per_seed("long").values())
    # "0.6% for a one-minute checkpoint": sqrt(delta / 2M), M = 200 h.
    assert f"{100 * math.sqrt(60 / (2 * 720000)):.1f}% for a one-minute checkpoint" in page


def test_the_readings_paragraph():
    page = prose()
    by_sys = readings("interval_size=sys", "medium")
    smallest = min(readings(r, c)["arrt_gain_vs_checkpoint_pct"]
                   for r in ("today's", "interval_size=sys", "S_app/S_sys in [0, 1]")
                   for c in ("long", "medium"))
    assert smallest == by_sys["arrt_gain_vs_checkpoint_pct"]
    assert f"is still {smallest:.0f}% for medium jobs" in page
    # "the pooled ARRT of medium jobs is no better with migration than with checkpoint-keep or
    # the original", under every reading.
    for r in ("today's", "interval_size=sys", "S_app/S_sys in [0, 1]"):
        row = readings(r, "medium")
        assert row["pooled_gain_vs_checkpoint_keep_pct"] <= 0
        assert row["pooled_gain_vs_original_pct"] <= 0


def test_the_traces_paragraph_quotes_traces_csv():
    page = prose()
    sdsc, kth = (trace(t, "long") for t in ("SDSC-SP2", "KTH-SP2"))
    assert (f"Migration helps further on SDSC-SP2 (long {sdsc['arrt_checkpoint']:.1f} to "
            f"{sdsc['arrt_migration']:.1f})") in page
    med = [trace(t, "medium") for t in ("SDSC-SP2", "KTH-SP2")]
    assert (f"against `checkpoint-keep` it gains {sdsc['gain_vs_keep_pct']:.0f}% and "
            f"{kth['gain_vs_keep_pct']:.0f}% for long jobs and "
            f"{med[0]['gain_vs_keep_pct']:.0f}% and {med[1]['gain_vs_keep_pct']:.0f}% for "
            f"medium ones") in page
    narrow = [trace(t, "medium", "narrow") for t in ("SDSC-SP2", "KTH-SP2")]
    assert (f"migration loses against `checkpoint` ({signed(narrow[0]['gain_migration_pct'], 0)}%"
            f" and {signed(narrow[1]['gain_migration_pct'], 0)}%") in page
    assert (f"against `checkpoint-keep` ({narrow[0]['gain_vs_keep_pct']:.0f}% and "
            f"{narrow[1]['gain_vs_keep_pct']:.0f}%)") in page


def test_the_wording_readings_quote_todays_gains():
    # The readings' own numbers come from the stores of choices/wording*.toml (quoted only);
    # today's, beside them, from readings.csv (five seeds) and fig16.csv (30 seeds).
    today = {c: readings("today's", c) for c in ("long", "medium")}
    five = ", ".join(" / ".join(quoted(today[c][f"arrt_gain_vs_{k}_pct"],
                                       today[c][f"arrt_gain_vs_{k}_ci"], 1)
                                for c in ("long", "medium"))
                     for k in ("original", "checkpoint", "checkpoint_keep"))
    thirty = fig16("30 seeds")
    over30 = ", ".join(" / ".join(quoted(thirty[f"gain_{c}{s}_pct"], thirty[f"gain_{c}{s}_ci95"],
                                         1) for c in ("long", "medium"))
                       for s in ("_vs_original", "", "_vs_keep"))
    # "A, B and C": the last comma of each list is an "and".
    five, over30 = (" and ".join(x.rsplit(", ", 1)) for x in (five, over30))
    assert (f"Today's gains, long / medium, over the original, `checkpoint` and "
            f"`checkpoint-keep` are {five} on the five seeds, {over30} over 30.") in text()


def test_the_wording_readings_quote_todays_verdicts():
    """The verdicts the readings are said to change from are the claims table's."""
    from ckptsim.experiments.papers.claims_table import evaluate
    from ckptsim.experiments.papers.shi import Shi

    verdict = {line.claim: line for line in evaluate(Shi.claims, RESULTS / "shi")}
    keep, stop = "checkpoints that keep the nodes", "checkpoints that stop the job"
    assert verdict["the conclusion: migration improves the ARRT of medium jobs over the "
                   "original scheduler (30 seeds; ARRT, pooled ARRT)"].verdict == "differs"
    assert verdict[f"Fig. 16: migration improves ARRT over {keep}, long and medium jobs (30 "
                   "seeds; ARRT, pooled ARRT)"].verdict == "differs"
    assert verdict[f"Fig. 16: medium jobs gain more than long ones (4% against 1.5%), over "
                   f"{keep} (30 seeds)"].verdict == "differs"
    assert verdict[f"Figs. 11-15: gain from migration over {keep}, long / medium, per seed "
                   "(ours less the thesis's)"].verdict == "inconclusive"
    # nodes=unclaimed: "the mean gain over `checkpoint-keep` on the thesis's five seeds, long
    # jobs, goes from inconclusive to differs".
    five_keep = (f"Fig. 16: mean gain over {keep}, long about 1.5%, medium about 4% (the "
                 "thesis's five seeds; ARRT, pooled ARRT)")
    for part in ("gain_long_vs_keep_pct", "pooled_gain_long_vs_keep_pct"):
        assert verdict[f"{five_keep} [{part}]"].verdict == "inconclusive"
    assert "long jobs, goes from inconclusive to differs" in text()
    over_stop = verdict[f"Fig. 16: medium jobs gain more than long ones (4% against 1.5%), "
                        f"over {stop} (30 seeds)"]
    assert over_stop.verdict == "differs"
    # ... from differs (-5.2 points, -9.1 to -1.3): the 30 seeds' paired differences.
    per_seed = [r for r in rows("fig16.csv") if r["seed"] not in ("thesis seeds", "30 seeds")]
    mean, half, n = mean_ci([float(r["gain_medium_pct"]) - float(r["gain_long_pct"])
                             for r in per_seed])
    assert n == 30 and math.isclose(mean, over_stop.ours, abs_tol=1e-6)
    assert (f"goes from differs ({signed(mean, 1)} points, {signed(mean - half, 1)} to "
            f"{signed(mean + half, 1)}) to inconclusive") in text()


def test_the_headline_quotes_reserve_first_as_the_modelling_choices_do():
    page = text()
    headline = re.search(r"migration improves medium jobs too, by ([\d.]+% ± [\d.]+) over the "
                         r"30 seeds \(`agrees`", page)
    choice = re.search(r"on the five seeds, and [\d.]+% ± [\d.]+ / ([\d.]+% ± [\d.]+), [^()]*"
                       r"over 30 \(pooled ARRT of medium jobs", page)
    assert headline and choice and headline[1] == choice[1]
    assert "from differs to **agrees**" in page
