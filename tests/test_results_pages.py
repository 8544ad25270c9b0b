"""The results pages' tables are computed from the committed CSVs beside them: rendering a page
again from its CSVs gives the page unchanged, and the table helpers format as documented."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ckptsim.experiments.papers.forshaw import tables as forshaw_tables
from ckptsim.experiments.papers.niu import tables as niu_tables
from ckptsim.experiments.papers.oliner import tables as oliner_tables
from ckptsim.experiments.papers.shi import tables as shi_tables
from ckptsim.experiments.papers.tables import change, marked, percent, render_page

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"


@pytest.mark.parametrize(("page", "tables"), [("niu", niu_tables.TABLES),
                                               ("oliner", oliner_tables.TABLES),
                                               ("forshaw", forshaw_tables.TABLES),
                                               ("shi", shi_tables.TABLES)])
def test_page_tables_match_the_committed_csvs(page, tables):
    text = (RESULTS / f"{page}.md").read_text()
    names = marked(text)
    assert names and set(names) <= {*tables, "claims", "decide"}  # every page's (its claims)
    assert render_page(text, RESULTS / page, tables) == text, (
        f"docs/results/{page}.md is out of step with its CSVs: run "
        f"`ckptsim paper {page} tables --out docs/results/{page}`")


def test_formats():
    assert change(0.74) == "\u221226%" and change(1.166, 1) == "+16.6%" and change(1.0) == "0%"
    assert change(float("nan")) == "-"
    assert percent(0.0175) == "1.8%"
    # Seed 004's rise of the slowdown with failures: a change below ten times, then a factor.
    assert oliner_tables._rise(1.5) == "+50%" and oliner_tables._rise(9.994) == "+899%"
    assert oliner_tables._rise(49.4) == "\u00d749" and oliner_tables._rise(1215.8) == "\u00d71,216"


def test_a_table_computed_from_a_hand_made_csv(tmp_path):
    # Fig. 6's table: classical slowdown 10 -> 15 -> 25 (+150%), ckpt 8 -> 8 -> 9 (+12.5%).
    rows = [("T", "classical", 0.0, 10.0), ("T", "classical", 0.5, 15.0),
            ("T", "classical", 1.0, 25.0), ("T", "ckpt", 0.0, 8.0), ("T", "ckpt", 0.5, 8.0),
            ("T", "ckpt", 1.0, 9.0)]
    with open(tmp_path / "fig6.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["trace", "scheduler", "alpha", "mean_wait", "mean_bsld", "backfill_ratio"])
        for t, s, a, b in rows:
            w.writerow([t, s, a, 0, b, 0])
    table = niu_tables.fig6(tmp_path).splitlines()
    assert table[2] == ("| T | 10.0 / 15.0 / 25.0 | +150% | 8.0 / 8.0 / 9.0 | +13% | "
                        "\u221210% |")
    page = "x\n<!-- table: fig6 -->\nold\n<!-- /table -->\ny\n"
    assert render_page(page, tmp_path, niu_tables.TABLES) == (
        "x\n<!-- table: fig6 -->\n" + niu_tables.fig6(tmp_path) + "<!-- /table -->\ny\n")


@pytest.mark.parametrize("page", ["shi", "niu", "oliner", "forshaw"])
def test_a_csv_lacking_a_column_is_one_line_naming_the_table(tmp_path, capsys, page):
    """Every page's tables from a copy whose CSVs lost their columns: one line naming the
    table and what it lacks (shi's raised KeyError: 'size_class')."""
    import shutil

    from ckptsim.cli import main

    shutil.copytree(RESULTS / page, tmp_path / page)
    shutil.copy(RESULTS / f"{page}.md", tmp_path / f"{page}.md")
    for path in (tmp_path / page).glob("*.csv"):
        path.write_text("a,b\n1,2\n")
    assert main(["paper", page, "tables", "--out", str(tmp_path / page)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ckptsim: error: --out: {tmp_path / page}: the table ") and \
        "which its figures' CSVs lack" in err and err.count("\n") == 1, err


def test_oliner_page_states_the_failure_free_tail_of_its_runs():
    # Failures fall within each workload's submit span; what the page says of the runs' tail
    # after the last arrival (makespan - submit span, at the seed's counts, c = 1.0, a = 0) is
    # what fig4.csv holds.
    import re

    text = " ".join((RESULTS / "oliner.md").read_text().split())
    row = text[text.index("| when failures happen |"):]
    row = row[:row.index("| a job killed by a failure |")]
    stated = {t: (int(a), int(b), int(p)) for a, t, b, p in re.findall(
        r"(\d+) of (SDSC|NASA|LUBLIN-256)'s (\d+)(?: days)? \((\d+)%\)", row)}
    rows = list(csv.DictReader(open(RESULTS / "oliner" / "fig4.csv")))
    seen = {}
    for r in rows:
        count = 1000 if r["trace"] == "LUBLIN-256" else 4000
        if (float(r["load_scale"]), float(r["confidence"]), float(r["failure_count"])) == (
                1.0, 0.0, count):
            span = float(r["makespan"]) / 86400
            tail = span - float(r["days"])
            seen[r["trace"]] = (round(tail), round(span), round(100 * tail / span))
    assert stated == seen
