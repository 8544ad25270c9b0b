"""Named random streams: reproducible, independent, and independent of request order."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from ckptsim.errors import ConfigError
from ckptsim.rng import RandomStreams


def test_same_name_returns_same_generator_object():
    rs = RandomStreams(7)
    g = rs.stream("arrivals")
    assert rs.stream("arrivals") is g
    first = g.random(3)
    # the stream continues where it stopped, it is not re-created
    assert not np.array_equal(rs.stream("arrivals").random(3), first)
    assert rs.names() == ("arrivals",)
    assert rs.seed == 7


def test_same_seed_same_numbers():
    a = RandomStreams(42).stream("sizes").random(100)
    b = RandomStreams(42).stream("sizes").random(100)
    assert np.array_equal(a, b)


def test_different_seeds_or_names_differ():
    base = RandomStreams(42).stream("sizes").random(100)
    assert not np.array_equal(RandomStreams(43).stream("sizes").random(100), base)
    assert not np.array_equal(RandomStreams(42).stream("runtimes").random(100), base)


def test_stream_depends_only_on_seed_and_name_not_on_request_order():
    r1 = RandomStreams(3)
    a1 = r1.stream("a").random(50)
    b1 = r1.stream("b").random(50)
    r2 = RandomStreams(3)
    b2 = r2.stream("b").random(50)
    r2.stream("c").random(10_000)  # an extra, heavily used stream changes nothing
    a2 = r2.stream("a").random(50)
    assert np.array_equal(a1, a2)
    assert np.array_equal(b1, b2)


def test_consuming_one_stream_does_not_shift_another():
    r1 = RandomStreams(11)
    r1.stream("arrivals").random(12_345)
    x1 = r1.stream("sizes").random(20)
    x2 = RandomStreams(11).stream("sizes").random(20)
    assert np.array_equal(x1, x2)


def test_streams_look_independent():
    # For n independent uniform pairs the sample correlation has sd ~ 1/sqrt(n) = 0.0045;
    # 5 sd leaves no room for a shared or shifted underlying sequence.
    n = 50_000
    rs = RandomStreams(0)
    a = rs.stream("x").random(n)
    b = rs.stream("y").random(n)
    assert abs(np.corrcoef(a, b)[0, 1]) < 5 / np.sqrt(n)
    # nor is one a shifted copy of the other
    assert len(np.intersect1d(a, b)) == 0


def test_streams_are_stable_across_processes():
    # Python's hash() of a str changes with PYTHONHASHSEED; the stream must not.
    code = ("from ckptsim.rng import RandomStreams;"
            "print(repr(RandomStreams(5).stream('arrivals.batch').random()))")
    outputs = set()
    for hashseed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, check=True)
        outputs.add(res.stdout.strip())
    assert outputs == {repr(RandomStreams(5).stream("arrivals.batch").random())}


def test_numpy_integer_seed_accepted():
    a = RandomStreams(np.int64(9)).stream("s").random(5)
    assert np.array_equal(a, RandomStreams(9).stream("s").random(5))


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True, None])
def test_bad_seed_rejected(seed):
    with pytest.raises(ConfigError) as exc:
        RandomStreams(seed)  # type: ignore[arg-type]
    assert exc.value.key == "seed"


@pytest.mark.parametrize("name", ["", 3, None])
def test_bad_stream_name_rejected(name):
    with pytest.raises(ConfigError):
        RandomStreams(1).stream(name)  # type: ignore[arg-type]
