"""The Lublin-Feitelson workload model: structure, determinism and regression numbers.

The regression expectations and their noise, for P = 128 and 10,000 jobs per seed:

* Untyped job classes: 63.7 / 19.8 / 16.5 % short / medium / long (1,000,000-job sample;
  addendum 1.7: 64 / 19.5 / 16.5).  Pooling 5 seeds gives 50,000 jobs and a binomial sd of
  at most 0.22 points, so a 1-point band is > 4.5 sd.
* Untyped mean inter-arrival: E[e^g | g <= 13] with g ~ gamma(10.2303 * 1.0225, 0.4871) is
  911 s (numerical integration), and the sd of a 10,000-job mean is 64 s (measured over 200
  seeds; the log-IAT tail up to e^13 s makes it large).  The mean of 10 seeds has sd 20 s.
* Typed: batch and interactive arrivals superpose, mean IAT 1 / (1/3517 + 1/619) = 527 s
  (sd 47 s per seed); serial fraction 0.149 * 0.2927 + 0.851 * 0.1541 = 0.175 (sd 0.0055 per
  seed).  The addendum's single runs gave 513 s and 0.18.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ckptsim.errors import ConfigError
from ckptsim.workload import lublin as L
from ckptsim.workload.lublin import LublinParams, generate_lublin
from ckptsim.workload.model import SWF_INDEX

QUEUE = SWF_INDEX["queue"]


def classes(runtime: np.ndarray) -> tuple[float, float, float]:
    short = float(np.mean(runtime < 600))
    long = float(np.mean(runtime >= 3 * 3600))
    return short, 1.0 - short - long, long


# ---------------------------------------------------------------- structure

def test_basic_structure_untyped():
    wl = generate_lublin(2000, seed=1)
    assert len(wl) == 2000 and wl.machine_size == 128
    assert np.array_equal(wl.job_id, np.arange(1, 2001))
    assert wl.submit[0] > 0  # the first job arrives one inter-arrival after time 0
    assert np.all(np.diff(wl.submit) >= 0)
    assert np.all(wl.submit == np.floor(wl.submit))
    assert np.all((wl.size >= 1) & (wl.size <= 128))
    assert np.all(wl.runtime >= 1) and np.all(wl.runtime <= math.exp(12))
    assert np.all(wl.runtime == np.floor(wl.runtime))
    assert np.all(wl.fields[:, QUEUE] == L.INTERACTIVE)  # untyped jobs are all typed 0
    assert wl.source == "lublin(n=2000, P=128, typed=False, seed=1, estimates=tsafrir)"
    assert wl.header["MaxNodes"] == "128" and wl.header["MaxRuntime"] == "162754"
    assert wl.header["Version"] == "2"
    assert set(wl.counts) >= {"lublin_size_capped", "lublin_runtime_redrawn",
                              "lublin_interarrival_redrawn", "estimate_runtime_truncated",
                              "estimate_raised"}


def test_typed_mode_has_both_types_with_their_own_sizes():
    wl = generate_lublin(10_000, typed=True, seed=2, estimates="exact")
    types = wl.fields[:, QUEUE]
    assert set(np.unique(types)) == {L.INTERACTIVE, L.BATCH}
    # batch share = interactive rate / total = 619 / (619 + 3517) = 0.150; binomial sd 0.0036
    # plus seed-to-seed variation of the two heavy-tailed streams: 0.03 is a wide but
    # meaningful band (a single merged stream would give 0 or 0.5)
    assert np.mean(types == L.BATCH) == pytest.approx(0.150, abs=0.03)
    # interactive jobs are capped at round(2^5.5) = 45 nodes, batch jobs may use all 128
    assert wl.size[types == L.INTERACTIVE].max() <= 45
    assert wl.size[types == L.BATCH].max() > 45


def test_empty_workload():
    wl = generate_lublin(0, seed=3)
    assert len(wl) == 0


def test_runtime_grows_with_size():
    # PA < 0: large jobs draw from the second (longer) gamma more often
    wl = generate_lublin(20_000, seed=4, estimates="exact")
    log_rt = np.log(wl.runtime)
    assert log_rt[wl.size >= 32].mean() > log_rt[wl.size == 1].mean() + 0.5


def test_sizes_serial_and_powers_of_two():
    wl = generate_lublin(20_000, seed=5, estimates="exact")
    s = wl.size
    serial = np.mean(s == 1)
    pow2 = np.mean((s > 1) & ((s & (s - 1)) == 0))
    # binomial sd at 20,000 jobs is 0.003; serial 0.244, power-of-two parallel 0.576 plus the
    # non-power-of-two draws that happen to land on one (a few percent)
    assert serial == pytest.approx(0.244, abs=0.013)
    assert 0.576 - 0.015 < pow2 < 0.576 + 0.06


# ---------------------------------------------------------------- determinism and streams

def test_same_arguments_same_arrays():
    a = generate_lublin(3000, typed=True, seed=8)
    b = generate_lublin(3000, typed=True, seed=8)
    for col in ("submit", "runtime", "size", "estimate", "fields"):
        assert np.array_equal(getattr(a, col), getattr(b, col)), col
    assert a.counts == b.counts


def test_different_seeds_differ():
    a = generate_lublin(3000, seed=8)
    b = generate_lublin(3000, seed=9)
    assert not np.array_equal(a.submit, b.submit)
    assert not np.array_equal(a.size, b.size)
    assert not np.array_equal(a.runtime, b.runtime)


def test_estimate_model_does_not_shift_the_other_streams():
    exact = generate_lublin(5000, seed=10, estimates="exact")
    fmod = generate_lublin(5000, seed=10, estimates="f", estimate_params={"f": 2.0})
    tsaf = generate_lublin(5000, seed=10)
    for wl in (fmod, tsaf):
        assert np.array_equal(wl.submit, exact.submit)
        assert np.array_equal(wl.size, exact.size)
    assert np.array_equal(fmod.runtime, exact.runtime)
    assert np.array_equal(exact.estimate, exact.runtime)
    assert np.all((fmod.estimate >= fmod.runtime) & (fmod.estimate <= 3 * fmod.runtime))


def test_tsafrir_estimates_on_lublin():
    exact = generate_lublin(10_000, seed=12, estimates="exact")
    wl = generate_lublin(10_000, seed=12)
    max_est = 18 * 3600
    assert wl.counts["estimate_runtime_truncated"] == int(np.sum(exact.runtime > max_est))
    assert np.array_equal(wl.runtime, np.minimum(exact.runtime, max_est))
    assert np.all(wl.estimate >= wl.runtime)
    vals, counts = np.unique(wl.estimate, return_counts=True)
    order = np.argsort(-counts)
    assert len(vals) == 90
    assert vals[order[0]] == max_est
    assert counts[order[0]] / 1e4 == pytest.approx(0.2173, abs=0.001)
    assert counts[order[:20]].sum() / 1e4 == pytest.approx(0.89, abs=0.003)
    wl2 = generate_lublin(1000, seed=12, estimate_params={"max_est": 36 * 3600})
    assert wl2.estimate.max() == 36 * 3600


# ---------------------------------------------------------------- regression (addendum 1.7)

def test_regression_untyped_job_classes():
    runtimes = np.concatenate([generate_lublin(10_000, seed=s, estimates="exact").runtime
                               for s in (71, 23, 31, 13, 7)])
    short, medium, long = classes(runtimes)
    assert short == pytest.approx(0.637, abs=0.01)
    assert medium == pytest.approx(0.198, abs=0.01)
    assert long == pytest.approx(0.165, abs=0.01)


def test_regression_untyped_interarrival_and_daily_cycle():
    iats, busy = [], []
    w = L.bucket_weights(L.UNTYPED_PARAMS)
    is_busy = w > 1.0  # 23 buckets holding 73.5% of the weight
    for seed in range(10):
        wl = generate_lublin(10_000, seed=seed, estimates="exact")
        iats.append(np.mean(np.diff(wl.submit)))
        bucket = ((wl.submit % 86400) // 1800).astype(int)
        busy.append(np.mean(is_busy[bucket]))
    # expected 911 s, sd of the 10-seed mean 20 s: the band is about 3 sd either side
    assert 850 < np.mean(iats) < 975
    # arrivals follow the bucket weights: expected share 0.7345, sd 0.015 per seed and 0.005
    # for the mean; without the daily cycle it would be 23/48 = 0.48
    assert np.mean(busy) == pytest.approx(w[is_busy].sum() / 48, abs=0.02)


def test_regression_typed_interarrival_and_serial_fraction():
    iats, serial = [], []
    for seed in range(8):
        wl = generate_lublin(10_000, typed=True, seed=seed, estimates="exact")
        iats.append(np.mean(np.diff(wl.submit)))
        serial.append(np.mean(wl.size == 1))
    # expected 527 s with sd 17 s for the 8-seed mean; 0.175 with sd 0.002
    assert 475 < np.mean(iats) < 580
    assert np.mean(serial) == pytest.approx(0.175, abs=0.008)


def test_start_hour_shifts_the_daily_cycle():
    w = L.bucket_weights(L.UNTYPED_PARAMS)
    is_busy = w > 1.0
    busy = []
    for seed in range(4):
        wl = generate_lublin(10_000, seed=seed, estimates="exact",
                             params=LublinParams(start_hour=12))
        bucket = (((wl.submit + 12 * 3600) % 86400) // 1800).astype(int)
        busy.append(np.mean(is_busy[bucket]))
    assert np.mean(busy) == pytest.approx(w[is_busy].sum() / 48, abs=0.03)


# ---------------------------------------------------------------- arrival cycle helpers

def test_bucket_weights():
    w = L.bucket_weights(L.UNTYPED_PARAMS)
    assert w.shape == (48,) and np.all(w > 0)
    assert w.mean() == pytest.approx(1.0)
    assert int(np.argmax(w)) == 27  # the untyped peak is 13:30-14:00
    for tp in (L.BATCH_PARAMS, L.INTERACTIVE_PARAMS):
        assert L.bucket_weights(tp).mean() == pytest.approx(1.0)


@pytest.mark.parametrize("x", [0.1, 0.5, 1.0, 2.5, 7.0, 30.0])
def test_gamma_cdf_closed_forms(x):
    assert L.gamma_cdf(x, 1.0, 2.0) == pytest.approx(1 - math.exp(-x / 2), rel=1e-9)
    assert L.gamma_cdf(x, 2.0, 1.0) == pytest.approx(1 - math.exp(-x) * (1 + x), rel=1e-9)
    # shape 1/2: chi-square with 1 degree of freedom scaled, P = erf(sqrt(x))
    assert L.gamma_cdf(x, 0.5, 1.0) == pytest.approx(math.erf(math.sqrt(x)), rel=1e-9)
    assert L.gamma_cdf(0.0, 3.0, 1.0) == 0.0


def test_gamma_cdf_in_the_arrival_range():
    # shape 3: P = 1 - e^-x (1 + x + x^2/2); covers both the series and the continued fraction
    for x in np.linspace(0.5, 20, 15):
        expected = 1 - math.exp(-x) * (1 + x + x * x / 2)
        assert L.gamma_cdf(float(x), 3.0, 1.0) == pytest.approx(expected, rel=1e-9, abs=1e-15)


# ---------------------------------------------------------------- machine size scaling

def test_type_params_scaling():
    p = LublinParams(machine_size=1024)
    tp = p.type_params(L.INTERACTIVE)
    assert tp.uhi == pytest.approx(10.0) and tp.umed == pytest.approx(7.5)
    assert tp.ulow == L.UNTYPED_PARAMS.ulow
    assert LublinParams().type_params(L.INTERACTIVE) == L.UNTYPED_PARAMS
    typed = LublinParams(machine_size=512, typed=True)
    assert typed.type_params(L.BATCH).uhi == pytest.approx(9.0)
    assert typed.type_params(L.BATCH).umed == pytest.approx(7.0)
    assert typed.type_params(L.INTERACTIVE).uhi == pytest.approx(7.5)
    small = LublinParams(machine_size=8).type_params(L.INTERACTIVE)
    assert small.uhi == pytest.approx(3.0) and small.umed == pytest.approx(1.5)


@pytest.mark.parametrize("P", [8, 64, 100, 1000])
def test_sizes_within_machine(P):
    wl = generate_lublin(5000, machine_size=P, seed=6, estimates="exact")
    assert wl.machine_size == P
    assert wl.size.min() >= 1 and wl.size.max() <= P
    assert wl.size.max() > P / 4  # the size distribution scales with the machine


def test_size_cap_counted():
    # P = 100: UHI = log2(100) = 6.64, a power-of-two job rounds it to 7 -> 128 -> capped at 100
    wl = generate_lublin(10_000, machine_size=100, seed=7, estimates="exact")
    assert wl.counts["lublin_size_capped"] > 0
    assert np.sum(wl.size == 100) >= wl.counts["lublin_size_capped"]


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("kwargs, key", [
    ({"n_jobs": -1}, "n_jobs"),
    ({"n_jobs": 10.5}, "n_jobs"),
    ({"machine_size": 0}, "machine_size"),
    ({"typed": "yes"}, "typed"),
    ({"seed": -3}, "seed"),
    ({"estimates": "psychic"}, "estimates"),
    ({"estimate_params": {"f": 1.0}}, "f"),
    ({"params": LublinParams(start_hour=24)}, "start_hour"),
    ({"params": LublinParams(max_log_runtime=0)}, "max_log_runtime"),
])
def test_bad_arguments(kwargs, key):
    args = {"n_jobs": 10}
    args.update(kwargs)
    n = args.pop("n_jobs")
    with pytest.raises(ConfigError) as exc:
        generate_lublin(n, **args)
    assert exc.value.key == key


@pytest.mark.parametrize("change, key", [
    ({"serial_prob": 1.5}, "untyped.serial_prob"),
    ({"serial_prob": 0.6, "pow2_prob": 0.6}, "untyped.pow2_prob"),
    ({"b1": 0.0}, "untyped.b1"),
    ({"umed": 8.0}, "untyped.umed"),
    ({"anum": float("nan")}, "untyped.anum"),
])
def test_bad_type_params(change, key):
    from dataclasses import replace
    params = LublinParams(untyped=replace(L.UNTYPED_PARAMS, **change))
    with pytest.raises(ConfigError) as exc:
        generate_lublin(10, params=params)
    assert exc.value.key == key


# ---------------------------------------------------------------- `lublin:` options
def test_lublin_options_max_est_and_start_hour():
    from ckptsim.workload.source import load_workload

    exact = load_workload("lublin:n=400,seed=5,estimates=exact")
    # max_est cuts every runtime above it to it (the rest as generated), as the model requires.
    two_hours = load_workload("lublin:n=400,seed=5,max_est=7200")
    assert np.array_equal(two_hours.runtime, np.minimum(exact.runtime, 7200.0))
    assert two_hours.counts["estimate_runtime_truncated"] == int(np.sum(exact.runtime > 7200))
    assert two_hours.estimate.max() == 7200.0
    # The defaults given are the built-in's workload; start_hour reaches the model.
    default = load_workload("lublin:n=400,seed=5")
    spelt = load_workload("lublin:n=400,seed=5,max_est=64800,start_hour=0")
    assert np.array_equal(default.fields, spelt.fields)
    noon = load_workload("lublin:n=400,seed=5,start_hour=12")
    model = generate_lublin(400, seed=5, params=LublinParams(start_hour=12))
    assert np.array_equal(noon.fields, model.fields)
    assert not np.array_equal(noon.submit, default.submit)


@pytest.mark.parametrize("spec,key", [("lublin:max_est=600", "lublin.max_est"),
                                      ("lublin:max_est=soon", "lublin.max_est"),
                                      ("lublin:estimates=exact,max_est=7200", "lublin.max_est"),
                                      ("lublin:start_hour=24", "lublin.start_hour"),
                                      ("lublin:start=1", "lublin.start")])
def test_bad_lublin_options_are_refused_naming_them(spec, key):
    from ckptsim.workload.source import CHECKS, load_workload, parse_generator

    for check in (load_workload, lambda s: CHECKS["lublin"](parse_generator(s))):
        with pytest.raises(ConfigError) as err:
            check(spec)
        assert err.value.key == key
