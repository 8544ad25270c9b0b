"""The constants bullet of docs/results/shi.md: how much each changed constant moves migration's
gain, in points, paired per seed, with its 95% t interval over the 30 seeds.

    ckptsim sweep docs/results/shi/choices/constants.toml --out results/shi-constants
    python docs/results/shi/choices/constants_points.py results/shi-constants

A gain is 1 - ARRT(migration) / ARRT(reference) of a seed; a change's points are its gain
less the default constants' gain on the same seed (`ckptsim results --versus` gives one
gain's interval, not the interval of a difference of two gains).
"""

import sys

import ckptsim
from ckptsim.experiments.stats import mean_ci

runs = ckptsim.load_results(sys.argv[1]).pivot(index="seed", columns="scheduler")


def gain(metric: str, label: str, reference: str):
    return 1 - runs[metric][label] / runs[metric][reference]


def shown(values) -> str:
    mean, half, n = mean_ci(list(values))
    return f"{100 * mean:+.1f} ± {100 * half:.1f} ({n} seeds)"


for metric in ("arrt_long", "arrt_medium"):
    base = gain(metric, "migration", "original")
    print(f"{metric}: migration's gain over the original {shown(base)}")
    for label in ("migration, t_min = 10 s", "migration, t_restart = 10 s",
                  "migration, no jitter", "migration, free"):
        print(f"  {label}: gain {shown(gain(metric, label, 'original'))}, "
              f"points {shown(gain(metric, label, 'original') - base)}")
    keep = gain(metric, "migration", "checkpoint-keep")
    for change in ("t_restart = 10 s", "no jitter"):
        other = gain(metric, f"migration, {change}", f"checkpoint-keep, {change}")
        print(f"  over checkpoint-keep, both with {change}: points {shown(other - keep)}")
