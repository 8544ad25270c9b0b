"""What would decide an inconclusive claim (`papers/decide.py`): the projected replications
checked by hand on small rows, and the pages' `decide` tables as computed from their CSVs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ckptsim.experiments.papers import decide
from ckptsim.experiments.papers.base import Claim, all_papers
from ckptsim.experiments.papers.tables import marked, render_page

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"


def _row(mean: float, half: float, n: int, **extra: str) -> dict[str, str]:
    return {"x": repr(mean), "x_ci": repr(half), "seeds": str(n), **extra}


def _claim(seed, rule: str, **kw) -> Claim:
    return Claim("a claim", seed, "fig", ("x",), rule, **kw)


def test_a_threshold_rule_needs_the_half_width_below_the_distance():
    # 0.25 ± 0.1 straddles 0.2: half-width 0.1 must fall below 0.05, 4x the replications
    assert decide.needed(_claim(0.2, "at-most"), [_row(0.25, 0.1, 10)], "x", 0.2) \
        == pytest.approx(40)
    assert decide.needed(_claim(0.2, "at-least"), [_row(0.25, 0.1, 10)], "x", 0.2) \
        == pytest.approx(40)
    # factor-2 of 0.6: the band is 0.3..1.2; 0.12 ± 0.27 straddles 0.3 (distance 0.18)
    assert decide.needed(_claim(0.6, "factor-2"), [_row(0.12, 0.27, 10)], "x", 0.6) \
        == pytest.approx(22.5)
    assert decide.count_text(22.5) == "~23"
    # same-sign: 0.05 ± 0.1 straddles zero
    assert decide.needed(_claim(1.0, "same-sign"), [_row(0.05, 0.1, 8)], "x", 1.0) \
        == pytest.approx(32)


def test_within_needs_the_interval_clear_of_the_band_ends():
    claim = _claim(1.5, "within", margin=0.25)  # the band 1.25 ... 1.75
    # 1.6 +- 0.4 holds both ends; inside the band once the half-width is below 0.15
    assert decide.needed(claim, [_row(1.6, 0.4, 10)], "x", 1.5) \
        == pytest.approx(10 * (0.4 / 0.15) ** 2)
    # 3.0 +- 1.5 reaches 1.75 only: outside the band once the half-width is below 1.25
    assert decide.needed(claim, [_row(3.0, 1.5, 10)], "x", 1.5) == pytest.approx(14.4)
    # a margin per part is passed with the part
    parts = _claim(1.5, "within", margin=(0.25,))
    assert decide.needed(parts, [_row(3.0, 1.5, 10)], "x", 1.5, 0.25) == pytest.approx(14.4)
    assert math.isnan(decide.needed(claim, [_row(1.5, 0.2, 10)], "x", 1.5))  # agrees already


def test_a_tie_on_the_threshold_is_beyond_any_size():
    n = decide.needed(_claim(-1.0, "same-sign"), [_row(0.0, 0.1, 10)], "x", -1.0)
    assert n == math.inf
    assert decide.count_text(n) == "~over 1,000"


def test_decided_parts_and_unprojected_rules_give_nan():
    assert math.isnan(decide.needed(_claim(0.2, "at-most"), [_row(0.1, 0.05, 10)], "x", 0.2))
    assert math.isnan(decide.needed(_claim(0.2, "at-most"), [_row(0.5, 0.05, 10)], "x", 0.2))
    assert decide.count_text(math.nan) == "not projected"


def test_too_few_replications_need_the_minimum():
    # 0.1 ± 0.05 is below 0.2, but 2 replications never agree: 3 would
    assert decide.needed(_claim(0.2, "at-most"), [_row(0.1, 0.05, 2)], "x", 0.2) == 3


def test_best_at_needs_every_other_point_out_of_reach():
    rows = [_row(m, 0.3, 10, p=str(p)) for p, m in ((1, 0.5), (2, 0.9), (3, 1.0), (4, 0.6))]
    claim = _claim(3.0, "best-at", param="p", higher=True)
    # best p = 3 (1.0), its better neighbour p = 2 (0.9) stays; p = 1 needs
    # (0.3 + 0.3) / 0.5 = 1.2, p = 4 needs 0.6 / 0.4 = 1.5: half-widths / 1.5, n x 2.25
    assert decide.needed(claim, rows, "x", 3.0) == pytest.approx(22.5)
    narrow = [_row(m, 0.1, 10, p=str(p)) for p, m in ((1, 0.5), (2, 0.9), (3, 1.0), (4, 0.6))]
    assert math.isnan(decide.needed(claim, narrow, "x", 3.0))  # agrees already


def test_flat_takes_the_widest_difference():
    rows = [_row(1.0, 0.0, 10, p="1"), _row(1.05, 0.1, 10, p="2"), _row(1.0, 0.02, 10, p="3")]
    claim = _claim(0.1, "flat", param="p")
    # 2 - 1: 0.05 ± 0.1 straddles +0.1 (distance 0.05): 10 x 4; 3 - 1 is within ± 0.1
    assert decide.needed(claim, rows, "x", 0.1) == pytest.approx(40)


def test_the_table_lists_only_inconclusive_claims(tmp_path):
    (tmp_path / "fig.csv").write_text(
        "case,x,x_ci,seeds\na,0.25,0.1,10\nb,0.1,0.05,10\n")

    class Fake:
        claims = (Claim("open", 0.2, "fig", ("x",), "at-most", rows={"case": "a"}),
                  Claim("shut", 0.2, "fig", ("x",), "at-most", rows={"case": "b"}))

    table = decide.markdown_table(Fake(), tmp_path)  # type: ignore[arg-type]
    assert "| open | 10 | 0.25 (0.15 … 0.35), ~40 |" in table
    assert "shut" not in table


@pytest.mark.parametrize("paper", [p for p in all_papers()
                                   if (RESULTS / f"{p.name}.md").is_file()
                                   and "decide" in marked((RESULTS / f"{p.name}.md")
                                                          .read_text(encoding="utf-8"))],
                         ids=lambda p: p.name)
def test_a_page_decide_table_is_computed_from_its_csvs(paper):
    page = RESULTS / f"{paper.name}.md"
    text = page.read_text(encoding="utf-8")
    assert render_page(text, RESULTS / paper.name, paper.page_tables()) == text
