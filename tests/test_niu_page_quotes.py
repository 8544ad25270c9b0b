"""Numbers that docs/results/niu.md writes by hand from its committed CSVs (outside the tables
`ckptsim paper niu tables` writes) are those the CSVs give, rounded as printed."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from ckptsim.experiments.papers.tables import change

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
PAGE = RESULTS / "niu.md"
TRACES = ("SDSC-BLUE", "CTC-SP2", "HPC2N", "SDSC-SP2", "KTH-SP2", "CEA-Curie")


def rows(name: str) -> list[dict[str, str]]:
    with open(RESULTS / "niu" / name, newline="") as fh:
        return list(csv.DictReader(fh))


def fig7(name: str, variant: str) -> dict[str, dict[str, float]]:
    return {r["trace"]: {k: float(v) for k, v in r.items() if k not in ("trace", "variant")}
            for r in rows(name) if r["variant"] == variant}


def table_row(label: str) -> str:
    """The one line of the page's Modelling choices table whose first cell is `label`."""
    found = [line for line in PAGE.read_text().splitlines() if line.startswith(f"| {label} |")]
    assert len(found) == 1, label
    return found[0]


def test_the_replan_table_full_side_is_readings_csv():
    # The `full` side of "replan=incremental on the six logs" is the figures' reading in
    # readings.csv (the `incremental` side is the readings run it replaced).
    text = PAGE.read_text()
    head = "| trace | mean wait | mean bounded slowdown | max wait | jobs checkpointed |"
    table = text[text.index(head):].split("\n\n")[0].splitlines()[2:]
    assert [line.split(" | ")[0].strip("| ") for line in table] == list(TRACES)
    got = {line.split(" | ")[0].strip("| "): [c.split(" / ")[0] for c in
                                                line.strip("| ").split(" | ")[1:]]
           for line in table}
    want = {}
    for r in rows("readings.csv"):
        if r["reading"] == "reservation-backfilled":
            want[r["trace"]] = [f"{round(float(r['mean_wait'])):,}", f"{float(r['mean_bsld']):.1f}",
                                f"{float(r['max_wait']) / 86400:.1f}",
                                f"{100 * float(r['preempt_ratio']):.1f}%",
                                f"{float(r['mean_wait_wide']) / 3600:.1f}"]
    assert got == want


def test_the_checkpoint_share_row_quotes_its_csvs():
    # S = 1 / 0.5 / 0 are niu/choices/checkpoint-share-1, niu/ and checkpoint-share-0.
    names = ("choices/checkpoint-share-1/fig7.csv", "fig7.csv",
             "choices/checkpoint-share-0/fig7.csv")
    row = table_row("Fig. 7's checkpoint and restart costs")
    at430, rest = row.split("slowdown within", 1)
    slow430, at3600 = rest.split("At 3600 s", 1)
    for part, variant, column in ((at430, "t_extend=430", "wait_norm"),
                                  (slow430, "t_extend=430", "bsld_norm"),
                                  (at3600, "t_extend=3600", "wait_norm")):
        quoted = re.findall(r"([A-Z][\w-]+) ([−+]?\d+%) / ([−+]?\d+%) / ([−+]?\d+%)", part)
        assert quoted, part
        for trace, *values in quoted:
            assert values == [change(fig7(n, variant)[trace][column]) for n in names], trace
    # "within W points of the even split on every log", wait and slowdown at 430 s.
    for column, pattern in (("wait_norm", r"at 430 s within ([\d.]+) points"),
                            ("bsld_norm", r"slowdown within ([\d.]+) points")):
        split = [fig7(n, "t_extend=430") for n in names]
        gap = max(abs(other[t][column] - split[1][t][column]) for other in (split[0], split[2])
                  for t in TRACES)
        assert re.search(pattern, row)[1] == f"{100 * gap:.1f}", column
    # Wasted capacity at 430 s, the mean over the six logs under each split.
    wasted = [sum(r["wasted_ratio"] for r in fig7(n, "t_extend=430").values()) / len(TRACES)
              for n in names]
    means = sorted({f"{100 * w:.2f}" for w in wasted})
    stated = re.search(r"wasted ([\d.]+)(?:-([\d.]+))?% on average over the logs", row)
    assert stated, row
    assert [s for s in stated.groups() if s] == [means[0], means[-1]][:len(means)], means


def test_the_rejoin_row_quotes_fig7_at_430():
    # Fig. 7's 430 s runs under rejoin=head are fig7.csv: "TRACE −21.2% → −22.1%".
    row = table_row("where Algorithm 3's checkpointed jobs rejoin the queue")
    quoted = dict(re.findall(r"([A-Z][\w-]+) ([−+]\d+\.\d%) → [−+]\d+\.\d%", row))
    head = fig7("fig7.csv", "t_extend=430")
    assert quoted == {t: change(head[t]["wait_norm"], 1) for t in TRACES}
