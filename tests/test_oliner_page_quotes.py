"""Numbers that docs/results/oliner.md writes by hand from its committed CSVs (outside the
tables `ckptsim paper oliner tables` writes) are those the CSVs give, rounded as printed.

Each test builds the page's sentence from the CSVs and looks for it in the page (whitespace
folded, so that a line break inside a sentence does not matter).  Paired changes are computed
as the claims and the paired tables compute them: per replication (`seed`), mean and 95%
half-width (Student t) by `mean_ci`."""

from __future__ import annotations

import csv
import math
import re
from functools import cache
from pathlib import Path

from ckptsim.experiments.stats import mean_ci

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
FOLDER = RESULTS / "oliner"
MINUS = "\u2212"


@cache
def page() -> str:
    return " ".join((RESULTS / "oliner.md").read_text().split())


def quoted(sentence: str) -> None:
    assert sentence in page(), f"docs/results/oliner.md does not say: {sentence}"


def table(header: str) -> list[list[str]]:
    """The cells of the rows of the page's table whose header line starts with `header`."""
    lines = (RESULTS / "oliner.md").read_text().splitlines()
    found = [i for i, line in enumerate(lines) if line.startswith(header)]
    assert len(found) == 1, header
    out = []
    for line in lines[found[0] + 2:]:
        if not line.startswith("|"):
            break
        out.append([c.strip() for c in line.strip()[1:-1].split("|")])
    return out


@cache
def rows(name: str) -> tuple[dict[str, float | str], ...]:
    def value(text: str) -> float | str:
        try:
            return float(text)
        except ValueError:
            return text

    with open(FOLDER / name, newline="") as fh:
        return tuple({k: value(v) for k, v in r.items()} for r in csv.DictReader(fh))


def row(name: str, **match: float | str) -> dict[str, float | str]:
    found = [r for r in rows(name) if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, (name, match, len(found))
    return found[0]


def fixed(x: float, digits: int = 0, sign: bool = False) -> str:
    """`x` rounded half away from zero to `digits` decimals, thousands separated, with the
    page's minus sign (and a + before a positive value with `sign`)."""
    scale = 10 ** digits
    magnitude = math.floor(abs(x) * scale + 0.5) / scale
    text = f"{magnitude:,.{digits}f}"
    if magnitude == 0:
        return text
    return (MINUS if x < 0 else "+" if sign else "") + text


def paired(name: str, level: str, a0: float, a1: float, metric: str, relative: bool,
           **match: float | str) -> tuple[float, float, float]:
    """(mean, low, high) of `a1` against `a0` per replication, in % (relative) or points."""
    mine = [r for r in rows(name) if all(r[k] == v for k, v in match.items())]
    base = {r["seed"]: r[metric] for r in mine if r[level] == a0}
    other = {r["seed"]: r[metric] for r in mine if r[level] == a1}
    assert base and set(base) == set(other), (name, match)
    diffs = [other[s] / base[s] - 1.0 if relative else other[s] - base[s] for s in base]
    m, h, _ = mean_ci(diffs)
    return 100 * m, 100 * (m - h), 100 * (m + h)


def test_fig10_paired_gain_in_useful_work():
    m, lo, hi = paired("fig10-replications.csv", "accuracy", 0.0, 1.0, "capacity_utilized",
                       False, trace="LUBLIN-256", load_scale=1.0)
    quoted(f"turns {fixed(m, 1, True)} point of lost capacity into useful work at c = 1.0, "
           f"with an interval of {fixed(lo, 2, True)} … {fixed(hi, 1, True)} points")


def test_failure_span_verdicts_that_change():
    def points(reading: str, figure: str, level: str, a1: float, trace: str) -> tuple:
        return paired(f"choices/span-{reading}/{figure}-replications.csv", level, 0.0, a1,
                      "capacity_utilized", False, trace=trace, load_scale=1.0)

    def text(p: tuple, digits: int = 1) -> str:
        return f"{fixed(p[0], 1)} ({fixed(p[1], digits)} … {fixed(p[2], 1)})"

    nasa_run, lub_run = (points("run", "fig7", "confidence", 0.1, "NASA"),
                         points("run", "fig8", "confidence", 0.1, "LUBLIN-256"))
    nasa_sub, lub_sub = (points("submit", "fig7", "confidence", 0.1, "NASA"),
                         points("submit", "fig8", "confidence", 0.1, "LUBLIN-256"))
    quoted(f"capacity used rises by {text(nasa_run).replace(' (', ' points (', 1)} on NASA "
           f"and {text(lub_run)} on LUBLIN-256, against {text(nasa_sub)} and {text(lub_sub)} "
           "under `submit`")
    run = points("run", "fig10", "accuracy", 1.0, "LUBLIN-256")
    submit = points("submit", "fig10", "accuracy", 1.0, "LUBLIN-256")
    quoted(f"Capacity used rises by {fixed(run[0], 1)} points ({fixed(run[1], 1)} … "
           f"{fixed(run[2], 1)}) instead of {text(submit, 2)}")


def test_thirty_replications():
    r30 = "replications-30/"
    gain = paired(r30 + "fig8-replications.csv", "confidence", 0.0, 0.1, "capacity_utilized",
                  False, trace="LUBLIN-256", load_scale=1.0)
    quoted(f"Capacity used rises by {fixed(gain[0], 2)} points ({fixed(gain[1], 2)} … "
           f"{fixed(gain[2], 2)}) from a = 0 to 0.1")
    nasa = paired(r30 + "fig7-replications.csv", "confidence", 0.0, 0.1, "capacity_utilized",
                  False, trace="NASA", load_scale=1.0)
    quoted(f"become {fixed(nasa[0], 2, True)} ({fixed(nasa[1], 2, True)} … "
           f"{fixed(nasa[2], 2, True)})")
    # The flat claim: the largest change from a = 0.1 at c = 1.0, per workload.
    for trace, verdict in (("LUBLIN-256", "`agrees` on LUBLIN-256 (the "),
                           ("NASA", "NASA is still `inconclusive` (")):
        steps = [paired(r30 + "fig6-replications.csv", "confidence", 0.1, a, "mean_response_bsld",
                        True, trace=trace, load_scale=1.0) for a in (0.2, 0.3, 0.4, 0.5, 0.6,
                                                                     0.7, 0.8, 0.9, 1.0)]
        m, lo, hi = max(steps, key=lambda s: abs(s[0]))
        quoted(f"{verdict}largest change {fixed(m, 1)}%, {fixed(lo, 1, True)} … "
               f"{fixed(hi, 1, True)}%)")
    for trace, label in (("NASA", "NASA"), ("LUBLIN-256", "LUBLIN-256")):
        m, lo, hi = paired(r30 + "fig6-replications.csv", "confidence", 0.0, 0.1,
                           "mean_response_bsld", True, trace=trace, load_scale=1.2)
        quoted(f"{label}: {fixed(m, 1, True)}% ({fixed(lo, 1, True)} … {fixed(hi, 1, True)}%)")


def change(ratio: float) -> str:
    """A ratio as the page's signed whole percentage ("−12%", "+6%", "0%")."""
    return f"{fixed(100 * (ratio - 1.0), 0, True)}%"


def test_confidence_09_against_01_at_1000_failures():
    def at(trace: str, a: float) -> float:
        return row("fig3.csv", trace=trace, confidence=a, failure_count=1000.0)[
            "mean_response_bsld"]

    better = {t: 1.0 - at(t, 0.9) / at(t, 0.1) for t in ("SDSC", "LUBLIN-256")}
    assert len({fixed(100 * b) for b in better.values()}) == 1
    worse = at("NASA", 0.9) / at("NASA", 0.1) - 1.0
    quoted(f"At 1,000 failures a = 0.9 is {fixed(100 * better['SDSC'])}% better than a = 0.1 on "
           f"SDSC and LUBLIN-256 and {fixed(100 * worse)}% worse on NASA")


def test_the_log_rate_does_not_collapse_the_machine():
    def zero(name: str, trace: str) -> dict:
        return row(name, trace=trace, confidence=0.0, **(
            {"failure_count": 0.0, "load_scale": 1.0} if name == "fig4.csv" else {}))

    slow = {t: zero("lograte/fig6.csv", t) for t in ("SDSC", "NASA", "LUBLIN-256")}
    free = {t: zero("fig4.csv", t)["mean_response_bsld"] for t in slow}
    half = {t: 100 * r["mean_response_bsld_ci95"] / r["mean_response_bsld"]
            for t, r in slow.items()}
    s, n, lub = (slow[t]["mean_response_bsld"] for t in ("SDSC", "NASA", "LUBLIN-256"))
    assert fixed(half["SDSC"]) == fixed(half["LUBLIN-256"])
    quoted(f"SDSC's slowdown without prediction is {fixed(s)} against {fixed(free['SDSC'])} "
           f"without failures ({change(s / free['SDSC'])}), NASA's {fixed(n, 1)} against "
           f"{fixed(free['NASA'], 1)}, LUBLIN-256's {fixed(lub)} against "
           f"{fixed(free['LUBLIN-256'])} ({change(lub / free['LUBLIN-256'])}); the 95% "
           f"intervals are ±{fixed(half['SDSC'])}% of the mean on SDSC and LUBLIN-256 "
           f"(±{fixed(half['NASA'])}% on NASA")


def test_the_draws_table_quotes_its_csvs():
    # "a = A: default ± half → new ± half" for the widest moves the table names.
    lines = table("| workload | change of the mean, by level |")
    assert [cells[0] for cells in lines] == ["SDSC", "NASA", "LUBLIN-256"]
    for trace, *cells in lines:
        default = {r["accuracy"]: r for r in rows("fig9.csv")
                   if r["trace"] == trace and r["load_scale"] == 1.0}
        new = {r["accuracy"]: r for r in rows("choices/draws-replication/fig9.csv")
               if r["trace"] == trace}
        moves = [new[a]["mean_response_bsld"] / default[a]["mean_response_bsld"]
                 for a in new if 0 < a < 1]
        assert cells[0] == f"{change(min(moves))} … {change(max(moves))}", trace
        for part in cells[1].split("; "):
            level = float(part[len("a = "):part.index(":")])
            d, n = default[level], new[level]
            assert part == (f"a = {level:g}: {fixed(d['mean_response_bsld'])} ± "
                            f"{fixed(d['mean_response_bsld_ci95'])} → "
                            f"{fixed(n['mean_response_bsld'])} ± "
                            f"{fixed(n['mean_response_bsld_ci95'])}"), part
        ratios = [new[a]["mean_response_bsld_ci95"] / default[a]["mean_response_bsld_ci95"]
                  for a in new if 0 < a < 1]
        summed = (sum(new[a]["mean_response_bsld_ci95"] for a in new if 0 < a < 1)
                  / sum(default[a]["mean_response_bsld_ci95"] for a in new if 0 < a < 1))
        assert cells[2] == f"{min(ratios):.2f} … {max(ratios):.2f} ({summed:.2f})", trace


def test_the_jitter_table_quotes_its_csvs():
    # Every row but `requeue=order` (whose runs are not committed): mean ± half-width,
    # capacity lost and jobs killed of choices/jitter-J/fig3.csv at a = 0.
    checked, trace = 0, ""
    for cells in table("| workload | variant | mean bounded slowdown |"):
        trace = cells[0] or trace
        variant = cells[1]
        if variant.startswith("default"):
            jitter = "auto"
        elif variant.startswith("`jitter="):
            jitter = variant[len("`jitter="):variant.index("`", 1)]
        else:
            assert variant == "`requeue=order`", variant
            continue
        r = row(f"choices/jitter-{jitter}/fig3.csv", trace=trace, confidence=0.0)
        mean, half = r["mean_response_bsld"], r["mean_response_bsld_ci95"]
        assert cells[2] == (f"{fixed(mean)} (every replication)" if half == 0
                            else f"{fixed(mean)} ± {fixed(half)}"), (trace, variant)
        assert cells[4] == f"{fixed(100 * r['capacity_lost'], 1)}%", (trace, variant)
        assert cells[5] == fixed(r["jobs_killed_by_failures"]), (trace, variant)
        checked += 1
    assert checked == 14
    # The default's consistency with Fig. 3's a = 0 (ten replications).
    sentence = []
    for trace in ("SDSC", "NASA"):
        mine = row("choices/jitter-auto/fig3.csv", trace=trace, confidence=0.0)
        fig3 = row("fig3.csv", trace=trace, confidence=0.0, failure_count=4000.0)
        sentence.append(f"{trace} {fixed(mine['mean_response_bsld'])} ± "
                        f"{fixed(mine['mean_response_bsld_ci95'])} against "
                        f"{fixed(fig3['mean_response_bsld'])} ± "
                        f"{fixed(fig3['mean_response_bsld_ci95'])}")
    quoted(", ".join(sentence))


def test_how_many_points_at_1000_failures_are_within_the_noise():
    # a = 0.1 against a = 0 at 1,000 failures, both loads: in how many a = 0.1's own interval
    # holds a = 0's mean (the table's "within the interval"), and in how many a = 0.1's mean
    # lies within a = 0's interval.
    own = zeros = 0
    names = []
    for r in rows("fig4.csv"):
        if r["failure_count"] == 1000.0 and r["confidence"] == 0.1:
            base = row("fig4.csv", trace=r["trace"], load_scale=r["load_scale"],
                       confidence=0.0, failure_count=1000.0)
            gap = abs(r["mean_response_bsld"] - base["mean_response_bsld"])
            if gap <= r["mean_response_bsld_ci95"]:
                own += 1
                names.append(f"{r['trace']} at c = {r['load_scale']:.1f}")
            zeros += gap <= base["mean_response_bsld_ci95"]
    words = {2: "two", 4: "four"}
    quoted(f"in {words[own]} of the six ({' and '.join(names).replace(' at c = 1.0 and', ' and')})"
           f" a = 0.1's own interval holds a = 0's mean ({words[zeros]} of the six lie within "
           "a = 0's interval)")


def test_the_csvs_said_to_hold_half_widths_of_rounding():
    # Half-widths above 0 but at most 1e-12 of their mean: the CSVs the page lists, in its
    # order (the folder's own, then lograte/, then choices/).
    listed = set()
    for path in FOLDER.rglob("*.csv"):
        name = path.relative_to(FOLDER).as_posix()
        for r in rows(name):
            for column, half in r.items():
                mean = r.get(column.removesuffix("_ci95"))
                if (column.endswith("_ci95") and isinstance(mean, float)
                        and 0 < half <= 1e-12 * abs(mean)):
                    listed.add(name)
    names = [f"`{n}`" for n in sorted(listed, key=lambda n: (n.count("/"), n.startswith("c"), n))]
    quoted(f"where every replication is equal, {', '.join(names[:-1])} and {names[-1]} hold "
           "half-widths of about 1e-16 of the mean")


SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "004_7aecf13fef91b492.txt"
#: Quoted phrases of the page that are its own words (column names, options), not the seed's.
OWN = {"change against the default", "paired per replication"}


def _dashes(text: str) -> str:
    return re.sub(r"\s*([–-])\s*", r"\1", " ".join(text.split()))


def test_the_seed_is_quoted_word_for_word():
    # Each quotation of the page is the seed's text; one the seed's layout breaks (a figure's
    # caption between two halves of a sentence) may match as two parts in order.
    import pytest

    if not SEED.exists():
        pytest.skip(f"the seed document is not available (expected at {SEED})")
    seed = _dashes(SEED.read_text())
    quotes = {q for q in re.findall(r'"([^"`=]+)"', page()) if len(q.split()) >= 2} - OWN
    assert len(quotes) >= 10

    def found(quote: str) -> bool:
        quote = _dashes(quote)
        if quote in seed:
            return True
        words = quote.split(" ")
        for k in range(1, len(words)):
            head, tail = " ".join(words[:k]), " ".join(words[k:])
            at = seed.find(head)
            end = seed.find(tail, at + len(head)) if at >= 0 else -1
            if end >= 0 and "Figure" in seed[at + len(head):end] and end - at < 2000:
                return True
        return False

    assert [q for q in sorted(quotes) if not found(q)] == []


# ----------------------------------------------------------------------------- Figs. 3-5
def test_slowdown_against_the_number_of_failures():
    def sdsc(count: float, trace: str = "SDSC") -> dict:
        return row("fig4.csv", trace=trace, load_scale=1.0, confidence=0.0, failure_count=count)

    free = sdsc(0.0)["mean_response_bsld"]
    at500, at1000 = sdsc(500.0)["mean_response_bsld"], sdsc(1000.0)
    rise = at1000["mean_response_bsld"] / free - 1.0
    quoted(f"{fixed(100 * (at500 / free - 1))}% higher at 500 failures and "
           f"{fixed(100 * rise)}% higher at 1,000 ({fixed(at1000['mean_response_bsld'], 1)} ± "
           f"{fixed(at1000['mean_response_bsld_ci95'], 1)} against {fixed(free, 1)}, c = 1.0): "
           f"at the seed's own point ours is {fixed(rise / 0.7, 1)} times the seed's ~70%")
    quoted("SDSC: " + ", ".join(f"{fixed(sdsc(n)['mean_response_bsld'])} at {n:,.0f}"
                                + (" failures" if n == 2000 else "")
                                for n in (2000.0, 3000.0, 4000.0)))
    kills = [fixed(sdsc(4000.0, t)["jobs_killed_by_failures"]) for t in ("SDSC", "NASA")]
    quoted(f"on average {kills[0]} of SDSC's 4,000 failures kill a job, and {kills[1]} of "
           "NASA's")
    nasa = sdsc(500.0, "NASA")["mean_response_bsld"] / sdsc(0.0, "NASA")["mean_response_bsld"]
    quoted(f"(×{fixed(nasa)} at 500 failures")


def test_more_load_without_failures():
    def at(c: float, n: float) -> float:
        return row("fig5.csv", load_scale=c, failure_count=n)["mean_response_bsld"]

    quoted(f"the slowdown goes from {fixed(at(1.0, 0.0))} at c = 1.0 to {fixed(at(1.2, 0.0))} at "
           f"c = 1.2 (×{fixed(at(1.2, 0.0) / at(1.0, 0.0), 1)}), and from {fixed(at(1.0, 1000.0))}"
           f" to {fixed(at(1.2, 1000.0))} at 1,000 failures "
           f"(×{fixed(at(1.2, 1000.0) / at(1.0, 1000.0), 1)})")
    unused = row("fig5.csv", load_scale=1.0, failure_count=0.0)["capacity_unused"]
    quoted(f"The {fixed(100 * unused, 1)}% unused capacity at c = 1.0 becomes used")


# ----------------------------------------------------------------------------- Figs. 6-10
def test_balancing_paired_per_replication():
    levels = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    beyond = []
    for trace in ("SDSC", "NASA", "LUBLIN-256"):
        for c in (1.0, 1.2):
            for a in levels:
                m, lo, hi = paired("fig6-replications.csv", "confidence", 0.0, a,
                                   "mean_response_bsld", True, trace=trace, load_scale=c)
                if lo > 0 or hi < 0:
                    beyond.append((trace, c, a, m, (hi - lo) / 2))
    assert len(beyond) == 1 and beyond[0][3] < 0
    trace, c, a, m, half = beyond[0]
    quoted(f"the only level better than a = 0 beyond the noise is a = {a:g} on {trace} at "
           f"c = {c:g} ({fixed(m)}% ± {fixed(half)} points)")
    # The flat claim at c = 1.0: the largest change from a = 0.1, per workload.
    parts = []
    for trace in ("SDSC", "NASA", "LUBLIN-256"):
        steps = [paired("fig6-replications.csv", "confidence", 0.1, a, "mean_response_bsld",
                        True, trace=trace, load_scale=1.0) for a in levels[1:]]
        m, lo, hi = max(steps, key=lambda s: abs(s[0]))
        parts.append(f"{fixed(m)}% on {trace} ({fixed(lo)}% … {fixed(hi, 0, True)}%)")
    parts[0] = parts[0].replace(" (", " (interval ")
    quoted(f"the largest change from a = 0.1 is {parts[0]}, {parts[1]} and {parts[2]}")


def test_capacity_paired_per_replication():
    nasa = paired("fig7-replications.csv", "confidence", 0.0, 0.1, "capacity_utilized", False,
                  trace="NASA", load_scale=1.0)
    lub = paired("fig8-replications.csv", "confidence", 0.0, 0.1, "capacity_utilized", False,
                 trace="LUBLIN-256", load_scale=1.0)
    quoted(f"by {fixed(nasa[0], 1, True)} point on NASA (fig7-replications.csv, c = 1.0), with "
           f"an interval of {fixed(nasa[1], 1, True)} … {fixed(nasa[2], 1, True)} points, and by "
           f"{fixed(lub[0], 1, True)} point on LUBLIN-256 (fig8-replications.csv), "
           f"{fixed(lub[1], 1, True)} … {fixed(lub[2], 1, True)} points")

    def rise(name: str, level: str, c: float) -> str:
        def used(a: float) -> float:
            return row(name, load_scale=c, **{level: a})["capacity_utilized"]
        return fixed(100 * (used(1.0) - used(0.0)), 1)

    quoted(f"Utilisation rises by {rise('fig8.csv', 'confidence', 1.0)} point at c = 1.0 and "
           f"{rise('fig8.csv', 'confidence', 1.2)} points at c = 1.2 from a = 0 to 1")
    quoted(f"Utilisation rises by {rise('fig10.csv', 'accuracy', 1.0)} point at c = 1.0 and "
           f"{rise('fig10.csv', 'accuracy', 1.2)} at c = 1.2 from accuracy 0 to 1")


def test_tie_breaking_paired_per_replication():
    parts = []
    for trace in ("SDSC", "NASA", "LUBLIN-256"):
        m, lo, hi = paired("fig9-replications.csv", "accuracy", 0.0, 1.0, "mean_response_bsld",
                           True, trace=trace, load_scale=1.0)
        digits = 1 if abs(hi) < 1 else 0
        parts.append(f"{fixed(m, 0, True)}% on {trace} ({fixed(lo)}% … "
                     f"{fixed(hi, digits, True)}%)")
    parts[0] = parts[0].replace(" (", " (interval ")
    quoted(f"changes the slowdown by {parts[0]}, {parts[1]} and {parts[2]}")
    m, lo, hi = paired("fig9-replications.csv", "accuracy", 0.0, 0.1, "mean_response_bsld",
                       True, trace="SDSC", load_scale=1.2)
    quoted(f"but within the noise paired ({fixed(m, 0, True)}% ± {fixed((hi - lo) / 2)} points)")


def test_the_log_rate_gains():
    def changes(name: str, level: str, trace: str) -> tuple[list[float], int]:
        mine = [r for r in rows(name) if r["trace"] == trace]
        base = next(r for r in mine if r[level] == 0.0)
        on = [r for r in mine if r[level] > 0]
        clear = sum(abs(r["mean_response_bsld"] - base["mean_response_bsld"])
                    > r["mean_response_bsld_ci95"] for r in on)
        return [100 * (r["mean_response_bsld"] / base["mean_response_bsld"] - 1)
                for r in on], clear

    bal, bal_clear = changes("lograte/fig6.csv", "confidence", "SDSC")
    tie, tie_clear = changes("lograte/fig9.csv", "accuracy", "SDSC")
    assert max(bal) < 0 and tie_clear == 1
    quoted(f"Balancing gains {fixed(-max(bal))}–{fixed(-min(bal))}% on SDSC at every level "
           f"({fixed(sum(bal) / len(bal))}% on average over a > 0), beyond a = 0's interval at "
           f"{bal_clear} of the {len(bal)} levels; tie-breaking {fixed(min(tie))} … "
           f"{fixed(max(tie), 0, True)}% ({fixed(sum(tie) / len(tie))}% on average), beyond it "
           "at one level")


# ----------------------------------------------------------------------------- choices
def test_the_rounding_table_quotes_its_csvs():
    def pair(name: str, other: str, **match: float | str) -> str:
        a, b = row(name, **match), row(other, **match)
        return " | ".join(f"{a[m]:.3f} → {b[m]:.3f}" for m in ("capacity_utilized",
                                                               "capacity_lost"))

    lost = "choices/rounding-lost/"
    sdsc = {"trace": "SDSC", "load_scale": 1.0}
    lub = {"trace": "LUBLIN-256", "load_scale": 1.0, "failure_count": 1000.0}
    want = [
        ["SDSC", "no failures", pair("fig3.csv", lost + "fig3.csv", confidence=0.0,
                                      failure_count=0.0, **sdsc)],
        ["SDSC", "1,000 failures (the seed's own point), a = 0",
         pair("fig3.csv", lost + "fig3.csv", confidence=0.0, failure_count=1000.0, **sdsc)],
        ["SDSC", "1,000 failures, a = 0.1",
         pair("fig3.csv", lost + "fig3.csv", confidence=0.1, failure_count=1000.0, **sdsc)],
        ["LUBLIN-256", "1,000 failures, a = 0", pair("fig8.csv", lost + "fig8.csv",
                                                      confidence=0.0, **lub)],
        ["LUBLIN-256", "1,000 failures, a = 0.1 (balancing)",
         pair("fig8.csv", lost + "fig8.csv", confidence=0.1, **lub)],
        ["LUBLIN-256", "1,000 failures, accuracy 1 (tie-break)",
         pair("fig10.csv", lost + "fig10.csv", accuracy=1.0, **lub)],
    ]
    got = [[c[0], c[1], " | ".join(c[2:])]
           for c in table("| workload | point | utilised (default → `lost`) | lost |")]
    assert got == want
    # Fig. 8's and Fig. 10's verdicts under both readings.
    for figure, level, a1 in (("fig8", "confidence", 0.1), ("fig10", "accuracy", 1.0)):
        now, then = (paired(f"{where}{figure}-replications.csv", level, 0.0, a1,
                            "capacity_utilized", False, trace="LUBLIN-256", load_scale=1.0)
                     for where in (lost, ""))
        now_text, then_text = (f"({fixed(p[1], 2)} … {fixed(p[2], 2)})" for p in (now, then))
        assert re.search(rf"by {fixed(now[0], 2)}(?: points)? {re.escape(now_text)} instead of "
                         rf"{fixed(then[0], 2)} {re.escape(then_text)}", page()), figure


def test_the_failure_span_table_quotes_its_csvs():
    # Failures, makespan, capacity lost and slowdown under `submit` and `run` (a = 0, c = 1.0).
    got = table("| workload | failures (`submit` → `run`) |")
    assert len(got) == 4
    for cells in got:
        trace, count = cells[0].split(", ")[0], float(cells[0].split(", ")[1].split(" ")[0]
                                                      .replace(",", ""))
        sub, run = (row(f"choices/span-{s}/fig3.csv", trace=trace, confidence=0.0,
                        failure_count=count) for s in ("submit", "run"))
        digits = 1 if sub["mean_response_bsld"] < 1000 else 0
        assert cells[1:5] == [
            f"{fixed(sub['failures'])} → {fixed(run['failures'])}",
            f"{fixed(sub['makespan'] / 86400)} → {fixed(run['makespan'] / 86400)}",
            f"{fixed(100 * sub['capacity_lost'], 1)}% → {fixed(100 * run['capacity_lost'], 1)}%",
            f"{fixed(sub['mean_response_bsld'], digits)} → "
            f"{fixed(run['mean_response_bsld'], digits)}"], cells[0]
    # How much faster the tail's failures come than the submit span's.
    ratios = []
    for trace, count in (("NASA", 4000.0), ("LUBLIN-256", 1000.0), ("SDSC", 4000.0),
                         ("SDSC", 1000.0)):
        sub = row("choices/span-submit/fig3.csv", trace=trace, confidence=0.0,
                  failure_count=count)
        run = row("choices/span-run/fig3.csv", trace=trace, confidence=0.0, failure_count=count)
        tail = run["makespan"] / 86400 - sub["days"]
        ratios.append(((run["failures"] - count) / tail) / (count / sub["days"]))
    quoted(f"the failures come {ratios[0]:.2f} times as fast as over the submit span on NASA at "
           f"4,000, {ratios[1]:.2f} on LUBLIN-256 at 1,000, {ratios[2]:.2f} on SDSC at 4,000, and "
           f"{ratios[3]:.1f} on SDSC at 1,000")
    far = row("choices/span-run/fig3.csv", trace="LUBLIN-256", confidence=0.0,
              failure_count=4000.0)
    near = row("choices/span-submit/fig3.csv", trace="LUBLIN-256", confidence=0.0,
               failure_count=4000.0)
    quoted(f"LUBLIN-256 at 4,000 failures ends after {fixed(far['makespan'] / 86400)} days "
           f"instead of {fixed(near['makespan'] / 86400)}, with {fixed(far['failures'])} "
           f"failures and {fixed(100 * far['capacity_lost'])}% of its capacity lost")
