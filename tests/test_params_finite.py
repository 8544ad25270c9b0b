"""Every number parameter is finite: inf and NaN are refused naming the key, for every registered
scheduler, component and checkpoint policy (enumerated from the registries), in failure source
strings and in specs; only parameters declared with `infinite=` take inf.  Absurd synthetic
failure models are refused before anything is drawn."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import typing

import pytest
from helpers import jobs

from ckptsim.checkpointing.base import policy_classes
from ckptsim.checkpointing.plan import parse_checkpoint
from ckptsim.engine.components import component_classes, get_component
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError, DecisionError
from ckptsim.experiments.spec import SpecError, parse_spec
from ckptsim.failures.source import MAX_FAILURES_PER_JOB, check_failure_spec, load_failures
from ckptsim.limits import MAX_SECONDS
from ckptsim.params import describe_range
from ckptsim.policies.base import get_scheduler, scheduler_classes, scheduler_factory

#: The plug-in classes by name of each registry.
SCHEDULER_CLASSES = scheduler_classes()
COMPONENT_CLASSES = component_classes()
POLICY_CLASSES = policy_classes()


def float_params(classes: dict[str, typing.Any]) -> list[tuple[str, str, bool]]:
    """(plug-in name, parameter, takes inf) of every float parameter of a registry's classes."""
    out = []
    for name, cls in classes.items():
        params = cls.Params
        hints = typing.get_type_hints(params)
        for f in dataclasses.fields(params):
            typ = hints[f.name]
            if typ is float or float in typing.get_args(typ):
                out.append((name, f.name, bool(f.metadata.get("infinite"))))
    return out


SCHEDULERS = float_params(SCHEDULER_CLASSES)
COMPONENTS = float_params(COMPONENT_CLASSES)
POLICIES = float_params(POLICY_CLASSES)
BAD = ["inf", "-inf", "nan", "NaN", "infinity", "1e999"]


def test_the_registries_have_float_params() -> None:
    assert len(SCHEDULERS) > 20 and len(COMPONENTS) > 5 and len(POLICIES) > 50
    assert {(n, k) for n, k, inf in SCHEDULERS + COMPONENTS + POLICIES if inf} \
        == {("ckpt-backfill", "t_thr")}


def _refused(build: typing.Callable[[], object], key: str, *, accepted: bool = False) -> str:
    with pytest.raises(ConfigError) as info:
        build()
    assert info.value.key == key
    text = str(info.value)
    assert "\n" not in text
    if accepted:  # the range, for NaN as for inf
        assert "; accepted: " in text, text
    return text


@pytest.mark.parametrize(("name", "key", "takes_inf"), SCHEDULERS)
def test_scheduler_float_params_refuse_inf_and_nan(name: str, key: str, takes_inf: bool) -> None:
    for value in BAD:
        if takes_inf and value in ("inf", "infinity", "1e999"):
            continue
        _refused(lambda v=value: scheduler_factory(name, {key: v}), f"{name}.{key}",
                 accepted=True)
        _refused(lambda v=value: scheduler_factory(name, {key: float(v)}), f"{name}.{key}",
                 accepted=True)


@pytest.mark.parametrize(("name", "key", "takes_inf"), COMPONENTS)
def test_component_float_params_refuse_inf_and_nan(name: str, key: str, takes_inf: bool) -> None:
    cls = get_component(name)
    for value in BAD:
        _refused(lambda v=value: cls.make_params({key: v}), f"{name}.{key}", accepted=True)


@pytest.mark.parametrize(("name", "key", "takes_inf"), POLICIES)
def test_checkpoint_policy_float_params_refuse_inf_and_nan(name: str, key: str,
                                                           takes_inf: bool) -> None:
    for value in BAD:
        _refused(lambda v=value: parse_checkpoint(f"{name}:{key}={v}"), f"checkpoint.{key}",
                 accepted=True)


def test_inf_where_declared_and_the_listing_says_so() -> None:
    fields = {f.name: f for f in dataclasses.fields(get_scheduler("ckpt-backfill").Params)}
    assert scheduler_factory("ckpt-backfill", {"t_thr": "inf"}).params.t_thr == float("inf")
    assert describe_range(fields["t_thr"]).startswith(">= 0 and <= 1e+10, or inf: ")
    assert describe_range(fields["p"]) == "finite, > 0 and <= 1"
    assert describe_range(fields["max_checkpoints"]) == ">= 0"  # an integer
    text = _refused(lambda: scheduler_factory("scojo-pect", {"cycle": "inf"}), "scojo-pect.cycle")
    assert text == ("scojo-pect.cycle: got inf; accepted: a finite number > 0 and <= 1e+10, "
                    "at least 1 (a period)")
    text = _refused(lambda: scheduler_factory("scojo-pect", {"cycle": "nan"}), "scojo-pect.cycle")
    assert text == ("scojo-pect.cycle: got nan (not a number); accepted: a finite number > 0 "
                    "and <= 1e+10, at least 1 (a period)")


@pytest.mark.parametrize("option", ["mtbf", "shape", "repair_mean", "repair_cv"])
@pytest.mark.parametrize("value", ["inf", "nan", "-inf"])
def test_synthetic_source_numbers_are_finite(option: str, value: str) -> None:
    spec = f"synthetic:mtbf=100000,{option}={value}" if option != "mtbf" \
        else f"synthetic:mtbf={value}"
    _refused(lambda: check_failure_spec(spec), f"failures.{option}")


@pytest.mark.parametrize("option", ["start", "end"])
def test_log_window_bounds_are_finite(option: str, tmp_path: typing.Any) -> None:
    log = tmp_path / "log.csv"
    log.write_text("")
    _refused(lambda: check_failure_spec(f"lanl:path={log},{option}=inf"), f"failures.{option}")
    _refused(lambda: check_failure_spec(f"lanl:path={log},{option}=nan"), f"failures.{option}")


def test_absurd_synthetic_failures_are_refused_with_the_expected_count() -> None:
    # 64 nodes over 1e5 s: 6.4e6 failures at mtbf=1, 1.07e5 per job of 60: refused
    text = _refused(lambda: load_failures("synthetic:mtbf=1", n_nodes=64, span=1e5, jobs=60),
                    "failures.mtbf")
    assert "about 6.4e+06 failures, 1.07e+05 per job of the workload's 60" in text
    assert f"at most {MAX_FAILURES_PER_JOB:,} per job" in text and "max_per_job=" in text
    # just under the limit is drawn; max_per_job raises it
    ok = load_failures("synthetic:mtbf=110,seed=1", n_nodes=64, span=1e5, jobs=60)
    assert 0 < len(ok) < MAX_FAILURES_PER_JOB * 60
    _refused(lambda: load_failures("synthetic:mtbf=100", n_nodes=64, span=1e5, jobs=60),
             "failures.mtbf")
    assert len(load_failures("synthetic:mtbf=100,max_per_job=2000,seed=1", n_nodes=64,
                             span=1e5, jobs=60)) > 0
    _refused(lambda: check_failure_spec("synthetic:mtbf=1,max_per_job=0"), "failures.max_per_job")


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ckptsim", "run", "--workload",
                           "lublin:n=60,seed=2,machine=64", *argv],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("argv", "expected"), [
    (("--scheduler", "scojo-pect", "--set", "cycle=inf"),
     "ckptsim: error: --set cycle: got inf; accepted: a finite number > 0"),
    (("--checkpoint", "fixed:interval=1e-9,cost=1"),
     "ckptsim: error: --checkpoint interval: got 1e-09; accepted: >= 1 (a period"),
    (("--scheduler", "easy", "--failures", "synthetic:mtbf=1"),
     "ckptsim: error: --failures mtbf: 1 s on 64 nodes over "),
])
def test_cli_refuses_in_one_line(argv: tuple[str, ...], expected: str) -> None:
    done = _cli(*argv)
    assert done.returncode == 2
    assert done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith(expected)


def test_spec_refuses_toml_inf_and_nan() -> None:
    for value in ("inf", "nan", "-inf"):
        text = f"""
[workloads.m]
generator = "lublin"
n = 50

[workloads.m.components.bound]
limit = {value}

[[schedulers]]
name = "scojo-pect"
params = {{ cycle = {value} }}
"""
        with pytest.raises(SpecError) as info:
            parse_spec(text)
        where = [loc.split(" (line")[0] for loc, _ in info.value.problems]
        assert "schedulers[0].params.cycle" in where
        assert any("components.bound" in w for w in where), where


def periods(classes: dict[str, typing.Any]) -> list[tuple[str, str, float]]:
    """(plug-in name, parameter, least value) of every declared period of a registry's
    classes."""
    return [(name, f.name, f.metadata["period"]) for name, cls in classes.items()
            for f in dataclasses.fields(cls.Params) if f.metadata.get("period")]


def test_periods_are_declared() -> None:
    declared = {(n, k) for n, k, _ in periods(SCHEDULER_CLASSES) + periods(POLICY_CLASSES)}
    assert {("scojo-pect", "cycle"), ("scojo-pect", "fixed_interval"), ("fixed", "interval"),
            ("startdelay", "interval"), ("multi", "n_open"), ("multi", "n_closed"),
            ("geometric", "a"), ("interarrival", "m")} <= declared


@pytest.mark.parametrize(("name", "key", "least"), periods(POLICY_CLASSES))
def test_checkpoint_periods_below_the_least_are_refused(name: str, key: str,
                                                        least: float) -> None:
    for value in (least / 2, 1e-300):
        text = _refused(lambda v=value: parse_checkpoint(f"{name}:cost=1,{key}={v!r}"),
                        f"checkpoint.{key}")
        assert f"accepted: >= {least:g} (a period" in text
    for value in (0, -1):
        text = _refused(lambda v=value: parse_checkpoint(f"{name}:cost=1,{key}={v}"),
                        f"checkpoint.{key}")
        assert "accepted: > 0" in text


@pytest.mark.parametrize(("name", "key", "least"), periods(SCHEDULER_CLASSES))
def test_scheduler_periods_below_the_least_are_refused(name: str, key: str,
                                                       least: float) -> None:
    _refused(lambda: scheduler_factory(name, {key: least / 2}), f"{name}.{key}")
    assert getattr(scheduler_factory(name, {key: least * 1000}).params, key) == least * 1000


@pytest.mark.parametrize(("policy", "inner"), [("fixed:interval=inf", "interval"),
                                               ("young:mtbf=nan", "mtbf"),
                                               ("fixed:interval=0.5", "interval")])
def test_scojo_interval_string_names_the_policy_key(policy: str, inner: str) -> None:
    text = _refused(lambda: scheduler_factory("scojo-pect", {"checkpoint": "alc",
                                                             "interval": policy}),
                    "scojo-pect.interval")
    assert text.startswith(f"scojo-pect.interval: {inner}: ")


def test_an_infinite_event_time_is_not_called_the_past() -> None:
    sim = Simulator(jobs([(0.0, 1.0, 1, 1.0)], 1), scheduler_factory("fcfs"))
    for t in (float("inf"), float("nan")):
        with pytest.raises(DecisionError, match="is not a finite time"):
            sim.at(t, print)
        with pytest.raises(DecisionError, match="is not a finite time"):
            sim.wake_at(t)
    with pytest.raises(DecisionError, match="in the past"):
        sim.at(-1.0, print)


@pytest.mark.parametrize("policy", ["young:cost=1e-12,mtbf=1", "daly:cost=1e-12,mtbf=1",
                                    "ratio:cost=1e-9"])
def test_a_computed_interval_under_a_second_is_refused(policy, capsys):
    from ckptsim.cli import main

    argv = ["run", "--workload", "lublin:n=30,seed=2,machine=64", "--checkpoint", policy]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: --checkpoint: ") and "under 1 s" in err
    assert err.count("\n") == 1


# A parameter is a time when its help says so: in seconds or minutes, or a mean time between
# failures (not a variance in s^2).
_TIME_HELP = re.compile(r"\bseconds\b|\bminutes\b|, s\b|\(s\)|\bs \(|\bMTBF\b|mean time")


def _unbounded_times(classes: dict[str, typing.Any]) -> list[tuple[str, str, bool]]:
    """(plug-in, parameter, declared with seconds=) of every float parameter whose help says it
    is a time and that has no upper bound of its own."""
    floats = {(n, k) for n, k, _ in float_params(classes)}
    out = []
    for name, cls in classes.items():
        params = cls.Params
        for f in dataclasses.fields(params):
            help_ = f.metadata.get("help", "")
            if (name, f.name) in floats and f.metadata.get("high") is None \
                    and _TIME_HELP.search(help_) and "s^2" not in help_:
                out.append((name, f.name, bool(f.metadata.get("seconds"))))
    return out


TIMES = {kind: _unbounded_times(classes) for kind, classes in (
    ("scheduler", SCHEDULER_CLASSES), ("component", COMPONENT_CLASSES),
    ("checkpoint", POLICY_CLASSES))}


def test_every_time_parameter_is_bounded_by_max_seconds() -> None:
    """A time without `seconds=` would take 1e300 and run to an absurd end (or overflow)."""
    assert sum(len(v) for v in TIMES.values()) >= 30, TIMES
    undeclared = [(kind, n, k) for kind, rows in TIMES.items() for n, k, ok in rows if not ok]
    assert not undeclared, f"time parameters without seconds=: {undeclared}"


@pytest.mark.parametrize(("name", "key"), [(n, k) for n, k, _ in TIMES["scheduler"]])
def test_a_scheduler_time_beyond_max_seconds_is_refused(name: str, key: str) -> None:
    field = next(f for f in dataclasses.fields(get_scheduler(name).Params)
                 if f.name == key)
    largest = MAX_SECONDS / field.metadata["seconds"]
    with pytest.raises(ConfigError) as info:
        scheduler_factory(name, {key: str(largest * 1.5)})
    text = str(info.value)
    assert info.value.key.endswith(key) and "\n" not in text
    assert "MAX_SECONDS" in text and f"<= {largest:g}" in text


@pytest.mark.parametrize("policy", ["fixed:interval=3600,cost=1e300", "young:mtbf=1e11",
                                    "interarrival:w=1e9", "startdelay:delay=2e10"])
def test_a_checkpoint_time_beyond_max_seconds_is_refused(policy: str) -> None:
    key = policy.split(":")[1].split(",")[-1].split("=")[0]
    with pytest.raises(ConfigError) as info:
        parse_checkpoint(policy)
    assert info.value.key.endswith(key) and "MAX_SECONDS" in str(info.value)


def test_a_time_at_max_seconds_is_accepted_and_the_cli_refuses_one_beyond_in_one_line() -> None:
    assert scheduler_factory("bgl-fcfs", {"migration_cost": str(MAX_SECONDS)}
                             ).params.migration_cost == MAX_SECONDS
    done = subprocess.run([sys.executable, "-m", "ckptsim", "run", "--workload", "builtin",
                           "--component", "availability:reboot=03:00,reboot_duration=1e15"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "reboot_duration: got 1e+15" in done.stderr


def test_a_switch_is_listed_as_true_or_false() -> None:
    """`--set overhead=maybe` is refused with "expected true or false": the listing says the
    same, not "any value"."""
    switches = [(name, f) for classes in (SCHEDULER_CLASSES, COMPONENT_CLASSES, POLICY_CLASSES)
                for name, cls in classes.items() for f in dataclasses.fields(cls.Params)
                if typing.get_type_hints(cls.Params)[f.name] is bool]
    assert len(switches) >= 10
    for name, f in switches:
        assert describe_range(f) == "true or false", (name, f.name)
    with pytest.raises(ConfigError, match="true or false"):
        scheduler_factory("ckpt-backfill", {"overhead": "maybe"})
