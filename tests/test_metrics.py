"""Metrics as pure functions over records, checked on schedules computed by hand."""

from __future__ import annotations

import math

import numpy as np
from helpers import jobs

from ckptsim.metrics.core import daily_series, integral_of_intervals, summary
from ckptsim.runner import simulate


def test_summary_of_a_hand_schedule():
    # Machine 4. EASY: 1: 0-10 (2 nodes); 2: 10-15 (3); 3: 15-18 (4); 4: 2-4 (1); 5: 3-7 (1).
    w = jobs([(0, 10, 2, 10), (0, 5, 3, 20), (1, 3, 4, 5), (2, 2, 1, 2), (3, 4, 1, 4)], 4)
    r = simulate(w, "easy")
    s = r.summary
    assert list(r.table["start"]) == [0, 10, 15, 2, 3]
    assert s["mean_wait"] == (0 + 10 + 14 + 0 + 0) / 5
    assert s["max_wait"] == 14
    assert s["makespan"] == 18
    assert math.isclose(s["mean_queue_length"], 24 / 18)
    assert math.isclose(s["utilization"], (2 * 10 + 3 * 5 + 4 * 3 + 1 * 2 + 1 * 4) / (4 * 18))
    assert s["backfill_ratio"] == 2 / 5
    # Bounded slowdown with a 10 s bound: job 2: (10 + 10)/10; job 3: (14 + 10)/10; job 1: 1.
    assert list(r.table["bsld"]) == [1.0, 2.0, 2.4, 1.0, 1.0]
    assert math.isclose(s["mean_bsld"], (1 + 2 + 2.4 + 1 + 1) / 5)
    assert math.isclose(s["mean_response"], (10 + 15 + 17 + 2 + 4) / 5)


def test_integral_of_intervals():
    f = integral_of_intervals(np.array([0.0, 5.0]), np.array([10.0, 7.0]), np.array([2.0, 1.0]),
                              np.array([-1.0, 0.0, 5.0, 6.0, 10.0, 20.0]))
    assert list(f) == [0.0, 0.0, 10.0, 13.0, 22.0, 22.0]


def test_daily_series_splits_across_days():
    day = 86400.0
    # One 2-node job on a 4-node machine from 12:00 on day 0 to 12:00 on day 1; a second job
    # waits for it from 18:00 on day 0.
    w = jobs([(0.5 * day, day, 4, day), (0.75 * day, 10, 1, 10)], 4)
    r = simulate(w, "fcfs")
    d = daily_series(r.table)
    assert d["day"] == [0, 1]
    # Day 0 is counted from the first submission (12:00): busy all of its 12 h.
    assert d["utilization"][0] == 1.0
    # Day 1: 4 nodes for 12 h, then 1 node for 10 s, over the 12 h + 10 s inside the span.
    assert math.isclose(d["utilization"][1], (4 * 0.5 * day + 10) / (4 * (0.5 * day + 10)))
    # Job 2 waits 6 h of the 12 h on day 0 and 12 h of day 1.
    assert math.isclose(d["queue_length"][0], 0.5)
    assert math.isclose(d["queue_length"][1], 0.5 * day / (0.5 * day + 10))
    assert d["submitted"] == [2, 0]


def test_wait_counts_every_waiting_segment():
    from helpers import scripted

    from ckptsim.records.jobs import from_simulation

    def ckpt(sim, js):
        sim.checkpoint(js[1], 0.0, then="requeue")

    sim = scripted(jobs([(0, 100, 2, 100)], 4),
                   [(5, lambda s, js: s.start(js[1])), (30, ckpt),
                    (50, lambda s, js: s.start(js[1]))]).run()
    t = from_simulation(sim)
    assert t["wait"][0] == 5 + 20
    s = summary(t)
    # Waiting 0-5 and 30-50 over a span of 0-125.
    assert math.isclose(s["mean_queue_length"], 25 / 125)
    assert t["n_preemptions"][0] == 1 and t["response"][0] == 125


def test_capacity_utilized_unused_lost_by_hand():
    from ckptsim.metrics.core import capacity

    # Machine 4, FCFS: job 1 (2 nodes) 0-10; job 2 (4 nodes) submitted at 0 waits until 10,
    # runs 10-20. Span 20, capacity 80 node-seconds. Utilised (2*10 + 4*10) / 80 = 0.75.
    # 0-10: f = 2 free nodes, q = 4 requested -> max(0, -2) = 0; 10-20: f = 0, q = 0.
    # Unused 0, lost 0.25 (2 nodes idle while a job waits).
    r = simulate(jobs([(0, 10, 2, 10), (0, 10, 4, 10)], 4), "fcfs")
    assert capacity(r.table) == {"capacity_utilized": 0.75, "capacity_unused": 0.0,
                                 "capacity_lost": 0.25}
    # A lone 1-node job on 4 nodes for 10 s: 3 nodes unused the whole time.
    r = simulate(jobs([(0, 10, 1, 10)], 4), "fcfs")
    assert capacity(r.table) == {"capacity_utilized": 0.25, "capacity_unused": 0.75,
                                 "capacity_lost": 0.0}


def test_wait_percentiles_interpolate_linearly_between_order_statistics():
    # One node, eleven 10 s jobs all submitted at 0, FCFS: they wait 0, 10, ..., 100 s.
    r = simulate(jobs([(0, 10, 1, 10)] * 11, 1), "fcfs")
    assert sorted(r.table["wait"]) == [10.0 * k for k in range(11)]
    s = r.summary
    # h = (n - 1) p / 100: the median is x[5]; p95 is x[9.5], halfway between 90 and 100;
    # p99 is x[9.9]. (Nearest-rank would give 100 for both.)
    assert s["median_wait"] == 50.0
    assert math.isclose(s["p95_wait"], 95.0)
    assert math.isclose(s["p99_wait"], 99.0)
    assert s["max_wait"] == 100.0 and s["max_bsld"] == (100 + 10) / 10


def test_wait_percentiles_of_a_skewed_schedule():
    # The hand schedule of test_summary_of_a_hand_schedule: waits 0, 10, 14, 0, 0.
    w = jobs([(0, 10, 2, 10), (0, 5, 3, 20), (1, 3, 4, 5), (2, 2, 1, 2), (3, 4, 1, 4)], 4)
    s = simulate(w, "easy").summary
    # sorted 0 0 0 10 14: median x[2] = 0; p95 x[3.8] = 10 + 0.8 * 4; p99 x[3.96]
    assert s["median_wait"] == 0.0
    assert math.isclose(s["p95_wait"], 13.2)
    assert math.isclose(s["p99_wait"], 13.84)


def test_percentile_of_nothing_is_zero():
    from ckptsim.metrics.core import percentile, wait_percentiles

    assert percentile(np.array([]), 95) == 0.0
    assert wait_percentiles(np.array([])) == {"median_wait": 0.0, "p95_wait": 0.0,
                                              "p99_wait": 0.0}
    assert percentile(np.array([7.0]), 95) == 7.0


def test_daily_series_of_an_absurd_span_is_omitted_not_allocated():
    from ckptsim.metrics.core import DAILY_MAX_DAYS

    day = 86400.0
    far = (DAILY_MAX_DAYS + 5) * day
    r = simulate(jobs([(0, 10, 1, 10), (far, 10, 1, 10)], 1), "fcfs")
    assert r.daily["day"] == [] and r.daily["utilization"] == []
    assert f"{DAILY_MAX_DAYS + 6:,} days" in r.daily["omitted"]
    near = (DAILY_MAX_DAYS - 5) * day
    d = simulate(jobs([(0, 10, 1, 10), (near, 10, 1, 10)], 1), "fcfs").daily
    assert len(d["day"]) == DAILY_MAX_DAYS - 4 and "omitted" not in d
    assert d["submitted"][0] == 1 and d["submitted"][-1] == 1


def test_size_classes_are_fractions_of_the_machine():
    from ckptsim.metrics.core import SIZE_CLASSES, size_class

    assert [name for name, _ in SIZE_CLASSES] == ["small", "medium", "large", "wide"]
    # 32 nodes: small up to 2 (1/16), medium up to 8 (1/4), large up to 16 (1/2), wide above.
    sizes = np.array([1, 2, 3, 8, 9, 16, 17, 32])
    assert list(size_class(sizes, 32)) == [0, 0, 1, 1, 2, 2, 3, 3]
    # 338 nodes (CTC-SP2): 338/16 = 21.125, 338/4 = 84.5, 338/2 = 169.
    assert list(size_class(np.array([21, 22, 84, 85, 169, 170]), 338)) == [0, 1, 1, 2, 2, 3]


def test_mean_wait_and_slowdown_by_size_class_by_hand():
    # Machine 16: small is 1 node (<= 16/16), medium up to 4, large up to 8, wide above.
    # FCFS: job 1 (1 node) 0-100; job 2 (16 nodes) waits 100 s for it, runs 100-200; job 3
    # (4 nodes, submitted at 10) and job 4 (8 nodes, at 20) wait behind job 2 and start at 200
    # (waits 190 and 180).
    w = jobs([(0, 100, 1, 100), (0, 100, 16, 100), (10, 50, 4, 50), (20, 20, 8, 20)], 16)
    r = simulate(w, "fcfs")
    assert list(r.table["start"]) == [0, 100, 200, 200]
    s = r.summary
    assert (s["jobs_small"], s["jobs_medium"], s["jobs_large"], s["jobs_wide"]) == (1, 1, 1, 1)
    assert s["mean_wait_small"] == 0 and s["mean_wait_wide"] == 100
    assert s["mean_wait_medium"] == 190 and s["mean_wait_large"] == 180
    assert s["mean_bsld_wide"] == (100 + 100) / 100
    assert s["mean_bsld_medium"] == (190 + 50) / 50
    assert s["mean_bsld_large"] == (180 + 20) / 20
    assert s["mean_bsld_small"] == 1.0


def test_an_empty_size_class_has_zero_means():
    s = simulate(jobs([(0, 10, 1, 10), (0, 10, 1, 10)], 64), "fcfs").summary
    assert s["jobs_small"] == 2 and s["jobs_wide"] == 0
    assert s["mean_wait_wide"] == 0.0 and s["mean_bsld_large"] == 0.0


def test_node_checkpoints_per_node_day_weights_a_checkpoint_by_its_nodes():
    from helpers import scripted

    from ckptsim.records.jobs import from_simulation

    day = 86400.0

    def ckpt(sim, js):
        sim.checkpoint(js[1], 0.0, then="requeue")

    # Machine 4: a 2-node job of 2 days - 10 s, checkpointed at 5 s, restarted at 15 s, ends at
    # exactly 2 days; a 1-node job alongside. One checkpoint of 2 nodes over 4 nodes x 2 days.
    sim = scripted(jobs([(0, 2 * day - 10, 2, 2 * day), (0, 10, 1, 10)], 4),
                   [(0, lambda s, js: s.start(js[1])), (0, lambda s, js: s.start(js[2])),
                    (5, ckpt), (15, lambda s, js: s.start(js[1]))]).run()
    s = summary(from_simulation(sim))
    assert s["checkpoints"] == 1 and s["makespan"] == 2 * day
    assert s["checkpoints_per_node_day"] == 1 / 8
    assert s["node_checkpoints_per_node_day"] == 2 / 8
