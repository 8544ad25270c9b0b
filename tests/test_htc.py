"""The HTC submission generator: the seed's daily shape, the jobs, determinism and options."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ckptsim.calendar import DAY, Calendar
from ckptsim.errors import ConfigError
from ckptsim.rng import RandomStreams
from ckptsim.workload.htc import (
    HTCParams,
    _lognormal_by_batch,
    daily_counts,
    generate_htc,
)
from ckptsim.workload.model import SWF_INDEX
from ckptsim.workload.source import load_workload

SEEDS = range(40)


@pytest.fixture(scope="module")
def years():
    return np.array([daily_counts(HTCParams(), seed) for seed in SEEDS])


def test_mean_per_day_is_the_seeds(years):
    # Seed 003: 1,454 submissions a day on average over 2010.  One year's mean varies by ~20%
    # (bursts are heavy-tailed); over 40 years it is within a few percent of the target.
    assert abs(years.mean() / 1454 - 1) < 0.08
    assert np.all((years.mean(axis=1) > 700) & (years.mean(axis=1) < 3000))


def test_half_the_days_have_fewer_than_65_jobs(years):
    share = (years < 65).mean(axis=1)
    assert abs(share.mean() - 0.5) < 0.05
    assert np.all((share > 0.4) & (share < 0.6))
    assert abs(np.median(years) - 65) < 15


def test_bursts_of_tens_of_thousands_and_the_3_june_burst(years):
    assert np.all(years[:, 153] >= 93_000)  # 3 June 2010 with the default epoch
    others = np.delete(years, 153, axis=1)
    assert np.all(others.max(axis=1) >= 10_000)  # every year has bursts of tens of thousands
    assert np.all((others >= 10_000).sum(axis=1) < 40)  # ... on a few days only
    assert Calendar().date(153).isoformat() == "2010-06-03"


def test_weekends_are_quieter(years):
    weekday, _ = Calendar().days(0, 365)
    weekend = weekday >= 5
    assert np.median(years[:, weekend]) < 0.75 * np.median(years[:, ~weekend])


def test_workload_submits_the_daily_counts():
    p = HTCParams(days=60)
    w = generate_htc(p, seed=4)
    counts = daily_counts(p, 4)
    assert np.bincount((w.submit // DAY).astype(int), minlength=60).tolist() == counts.tolist()
    assert len(w) == counts.sum() == w.counts["jobs"]
    assert np.all(np.diff(w.submit) >= 0) and np.all(w.submit == np.floor(w.submit))
    assert np.all(w.size == 1) and w.machine_size == p.machine
    assert np.all(w.runtime >= 1) and np.all(w.runtime == np.rint(w.runtime))
    mem_kb = w.fields[:, SWF_INDEX["used_memory"]]
    assert np.all((mem_kb >= 1024) & (mem_kb <= 4096 * 1024))
    assert np.array_equal(w.estimate, w.runtime)
    assert np.all(w.fields[:, SWF_INDEX["requested_time"]] == -1)  # estimates = none
    assert sorted(w.job_id.tolist()) == list(range(1, len(w) + 1))


def test_exact_estimates_are_in_the_requested_time():
    w = generate_htc(HTCParams(days=5, estimates="exact"), seed=1)
    assert np.array_equal(w.fields[:, SWF_INDEX["requested_time"]], w.runtime)


def test_batches_submit_together_and_run_alike():
    w = generate_htc(HTCParams(days=200), seed=2)
    batch = w.fields[:, SWF_INDEX["executable"]].astype(int)
    ids, sizes = np.unique(batch, return_counts=True)
    big = ids[sizes >= 1000]
    assert len(big) > 0
    for b in big[:5]:
        mine = batch == b
        t = w.submit[mine]
        assert t.max() - t.min() <= DAY  # a batch is submitted within its day
        # Jobs of a batch share their batch's factor: their log-durations spread less than
        # the whole workload's.
        assert np.std(np.log(w.runtime[mine])) < np.std(np.log(w.runtime))


def test_duration_distribution_split_between_batches_and_jobs():
    rng = RandomStreams(9).stream("test")
    singles = _lognormal_by_batch(rng, np.arange(200_000), 2700.0, 1.2, 1.0)
    assert abs(np.median(singles) / 2700 - 1) < 0.02
    assert abs(np.std(np.log(singles)) - np.hypot(1.2, 1.0)) < 0.02
    one = _lognormal_by_batch(rng, np.zeros(50_000, dtype=int), 2700.0, 1.2, 1.0)
    assert abs(np.std(np.log(one)) - 1.0) < 0.02


def test_deterministic_and_seeded():
    a = generate_htc(HTCParams(days=30), seed=3)
    b = generate_htc(HTCParams(days=30), seed=3)
    for col in ("submit", "runtime", "estimate", "size"):
        assert getattr(a, col).tobytes() == getattr(b, col).tobytes()
    assert a.fields.tobytes() == b.fields.tobytes()
    c = generate_htc(HTCParams(days=30), seed=4)
    assert len(c) != len(a) or not np.array_equal(c.submit, a.submit)


def test_changing_durations_keeps_submissions():
    a = generate_htc(HTCParams(days=20), seed=3)
    b = generate_htc(HTCParams(days=20, duration_median=600), seed=3)
    assert np.array_equal(a.submit, b.submit) and not np.array_equal(a.runtime, b.runtime)


def test_no_anchor_and_short_runs():
    p = HTCParams(days=30, anchor=False)
    assert len(daily_counts(p, 1)) == 30
    # A horizon ending before 3 June has no anchor burst to count.
    assert daily_counts(HTCParams(days=10), 1).max() < 93_000


def test_workload_names_on_the_command_line():
    w = load_workload("htc:days=3,seed=2,estimates=exact")
    assert w.source.startswith("htc(days=3") and len(w) == daily_counts(HTCParams(days=3), 2).sum()
    assert len(load_workload("htc:days=2")) == daily_counts(HTCParams(days=2), 1).sum()


def test_every_parameter_is_an_option():
    # Each HTCParams field is an `htc:` option: the same value given as text reaches the field.
    from dataclasses import fields

    from ckptsim.workload.htc import OPTIONS, params_from_options

    names = [f.name for f in fields(HTCParams)]
    assert set(OPTIONS) == {*names, "seed"}
    text = {"days": "9", "machine": "7", "anchor_day": "2", "anchor_jobs": "40",
            "anchor": "false", "estimates": "exact", "hourly": "/".join(["2"] * 24)}
    for name in names:
        given = text.get(name, "0.25")
        params, _ = params_from_options({name: given})
        special = {"anchor": False, "estimates": "exact", "hourly": (2.0,) * 24}
        if name in special:
            expected = special[name]
        elif name in ("days", "machine", "anchor_day", "anchor_jobs"):
            expected = int(given)
        else:
            expected = float(given)
        assert getattr(params, name) == expected, name


def test_background_and_hourly_options_shape_a_tiny_day():
    # One day (Friday 1 January 2010), no burst, no anchor, a background of exactly 5 jobs
    # (median 5, log-sd 0) whose times all fall in 06:00-07:00, the only hour of `hourly`.
    one = "/".join("1" if h == 6 else "0" for h in range(24))
    w = load_workload("htc:days=1,mean=5,anchor=false,burst_prob=0,background_median=5,"
                      f"background_sigma=0,hourly={one}")
    assert len(w) == 5 and np.all((w.submit >= 6 * 3600) & (w.submit < 7 * 3600))
    # The default profile spreads them over the day instead; the same text as the default
    # is the default's workload.
    default = load_workload("htc:days=3,seed=4")
    spelt = "/".join(f"{x:g}" for x in HTCParams().hourly)
    same = load_workload(f"htc:days=3,seed=4,hourly={spelt},submit_rate=10,memory_max=4096")
    assert np.array_equal(default.submit, same.submit)
    assert np.array_equal(default.fields, same.fields)


def test_submit_rate_spaces_a_batch():
    # One burst day of one batch (extra_batches=0), no background: its jobs are submitted
    # 1 / submit_rate s apart, in whole seconds, from the batch's start.
    w = load_workload("htc:days=1,mean=200,anchor=false,burst_prob=1,burst_sigma=0,"
                      "background_median=0,extra_batches=0,submit_rate=0.5")
    t = np.sort(w.submit)
    assert len(t) == 200 and np.all(np.diff(t) == 2.0)


@pytest.mark.parametrize("spec,key", [("htc:days=0", "htc.days"), ("htc:foo=1", "htc.foo"),
                                      ("htc:mean=x", "htc.mean"),
                                      ("htc:estimates=maybe", "htc.estimates"),
                                      ("htc:mean=1", "htc.mean"), ("htc:seed=-1", "htc.seed"),
                                      ("htc:burst_prob=2", "htc.burst_prob"),
                                      ("htc:anchor=perhaps", "htc.anchor"),
                                      ("htc:hourly=1/2/3", "htc.hourly"),
                                      ("htc:hourly=" + "/".join(["0"] * 24), "htc.hourly"),
                                      ("htc:anchor_day=1.5", "htc.anchor_day"),
                                      ("htc:memory_min=x", "htc.memory_min"),
                                      # exp(sigma * z) overflowed: an OverflowError traceback
                                      ("htc:days=1,background_sigma=1e308",
                                       "htc.background_sigma"),
                                      ("htc:days=1,burst_sigma=11", "htc.burst_sigma"),
                                      ("htc:days=1,memory_job_sigma=1e308",
                                       "htc.memory_job_sigma"),
                                      # x 1024 into used_memory's KB gave inf
                                      ("htc:days=1,memory_min=1e308,memory_max=1e308",
                                       "htc.memory_min"),
                                      ("htc:days=1,memory_max=1e13", "htc.memory_max"),
                                      ("htc:days", "workload")])
def test_bad_options_are_refused_naming_them(spec, key):
    with pytest.raises(ConfigError) as err:
        load_workload(spec)
    assert err.value.key == key


def test_bad_parameters_are_refused():
    with pytest.raises(ConfigError, match="htc.memory_max"):
        generate_htc(replace(HTCParams(days=2), memory_max=0.5))
    with pytest.raises(ConfigError, match="htc.submit_rate"):
        daily_counts(replace(HTCParams(days=2), submit_rate=0), 1)


# ----------------------------------------------------------------------------- in experiment specs
def _spec(body: str):
    from ckptsim.experiments.spec import parse_spec

    return parse_spec('name = "pool"\nreplications = 2\n[workloads.pool]\ngenerator = "htc"\n'
                      + body + '\n[[schedulers]]\nname = "fcfs"\n')


def test_htc_generator_in_a_spec_with_a_platform_and_a_grid():
    from ckptsim.experiments.matrix import build_matrix

    spec = _spec('days = [2, 3]\nplatform = "smallpool"\nmachine = 24')
    runs = build_matrix(spec)
    assert len(runs) == 2 * 2  # two day counts x two replications
    assert {r.source["days"] for r in runs} == {2, 3}
    assert all("platform" not in r.source for r in runs)  # the platform is not an htc option


@pytest.mark.parametrize(("body", "key"), [("days = 0", "days"), ("weekend = 2", "weekend"),
                                           ("colour = 1", "colour")])
def test_bad_htc_options_in_a_spec_name_the_key(body, key):
    from ckptsim.experiments.spec import SpecError

    with pytest.raises(SpecError, match=key):
        _spec(body)


def test_a_memory_median_beyond_a_float_is_memory_max_without_a_warning(capsys):
    # `ckptsim inspect htc:days=1,memory_median=1e308` printed numpy's RuntimeWarning
    # (overflow encountered in multiply) above its table.
    import warnings

    from ckptsim.cli import main

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = load_workload("htc:days=1,memory_median=1e308")
        assert main(["inspect", "htc:days=1,memory_median=1e308"]) == 0
    assert "Warning" not in capsys.readouterr().err
    assert set(w.fields[:, SWF_INDEX["used_memory"]].tolist()) == {4096.0 * 1024}
