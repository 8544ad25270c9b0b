"""The claims of docs/results/shi.md that Figs. 11-16 grade, under a reading: a choices store's
four cases of the reading are taken for the figures' cases, Figs. 11-16's CSVs are written from
them, and each claim is graded on them beside its verdict on the store's `today's` cases.

    ckptsim sweep docs/results/shi/choices/wording.toml --out results/shi-wording
    python docs/results/shi/choices/verdicts.py results/shi-wording reserve_first

A store's cases are labelled "READING: CASE"; a case the store holds under `today's` only (one
the reading cannot change) is taken from there. The claims "on 30 seeds" are graded on the
seeds the store holds (`n`), so on the five-seed stores they are not the page's 30-seed
verdicts; on a 30-seed store `today's` gives the page's claims table exactly.
"""

import csv
import sys
import tempfile
from pathlib import Path

import ckptsim
from ckptsim.experiments.papers.claims_table import evaluate
from ckptsim.experiments.papers.shi import Shi
from ckptsim.experiments.papers.shi.figures import (
    CASES,
    SEED_FIGURES,
    THESIS_GAIN,
    case_figure,
    gain_figure,
)

if len(sys.argv) != 3:
    sys.exit("usage: python docs/results/shi/choices/verdicts.py STORE READING")
runs = ckptsim.load_results(sys.argv[1])
labels = set(runs["scheduler"])
# The claims on Figs. 11-16 (Table 3's and the arrivals' do not depend on the scheduler).
claims = [c for c in Shi.claims
          if set((c.csv,) if isinstance(c.csv, str) else c.csv) <= {*SEED_FIGURES, "fig16"}]


def graded(reading: str) -> tuple[int, list]:
    rows = []
    for case in CASES:
        label = next(f"{r}: {case}" for r in (reading, "today's") if f"{r}: {case}" in labels)
        rows += [{**row, "scheduler": case}
                 for row in runs[runs["scheduler"] == label].to_dict("records")]
    seeds = sorted({int(r["seed"]) for r in rows}, key=lambda s: (s not in THESIS_GAIN, s))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        for figure in SEED_FIGURES:
            case_figure(figure, rows, out)
        gain_figure(rows, seeds, out)
        # Fig. 16's row of means over all the seeds is named by their number: drop it, as the
        # claims drop the page's "30 seeds" row, whatever the number.
        with open(out / "fig16.csv", newline="") as fh:
            table = [r for r in csv.DictReader(fh) if r["seed"] != f"{len(seeds)} seeds"]
        with open(out / "fig16.csv", "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(table[0]))
            writer.writeheader()
            writer.writerows(table)
        return len(seeds), evaluate(claims, out)


def shown(line) -> str:
    if line.ours != line.ours:  # a claim's head: the verdict of its parts
        return line.verdict
    return f"{line.verdict} ({line.ours:.3g}, {line.ci_low:.3g} .. {line.ci_high:.3g})"


reading = sys.argv[2]
n, ours = graded(reading)
_, today = graded("today's")
print(f"{reading} over {n} seeds: claim | n | today's | {reading}")
for line, was in zip(ours, today, strict=True):
    mark = "  <- changes" if line.verdict != was.verdict else ""
    print(f"{line.claim} | {line.n} | {shown(was)} | {shown(line)}{mark}")
