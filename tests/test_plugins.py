"""Plug-ins from outside the package (docs/plugins.md): a scheduler, a component and a
checkpoint policy given by file path or module reference, by entry point or as a class, run
from the command line, from Python and in sweeps (process pool and Dask), with run ids that
follow the plug-in's source and one-line errors for bad references."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ckptsim
from ckptsim import plugins
from ckptsim.checkpointing.plan import parse_checkpoint
from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.matrix import build_matrix
from ckptsim.experiments.spec import SpecError, load_spec
from ckptsim.experiments.store import load_results
from ckptsim.plugin_shape import check_shape
from ckptsim.registry import REGISTRIES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "plugins"
WORKLOAD = "lublin:n=800,seed=3,machine=64"


@pytest.fixture
def plug(tmp_path: Path) -> Path:
    """The example plug-ins copied outside the checkout."""
    folder = tmp_path / "plug"
    folder.mkdir()
    for name in ("largest_first.py", "every_hour.py", "starts_per_hour.py"):
        shutil.copy(EXAMPLES / name, folder / name)
    return folder


def _import(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(f"_test_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_the_cli_runs_a_scheduler_from_a_file_outside_the_checkout(plug, capsys):
    ref = f"{plug}/largest_first.py:LargestFirst"
    assert main(["run", "--workload", WORKLOAD, "--scheduler", ref, "--check"]) == 0
    out = capsys.readouterr().out
    assert f"{ref} on lublin" in out and "mean wait" in out
    # Its declared parameters are validated like a built-in's, and reach --set.
    assert main(["run", "--workload", WORKLOAD, "--scheduler", ref, "--set", "most=-1"]) == 2
    assert capsys.readouterr().err.strip() == "ckptsim: error: --set most: got -1; accepted: >= 0"


def test_simulate_takes_the_class_itself_and_the_same_run_by_reference(plug):
    LargestFirst = _import(plug / "largest_first.py", "LargestFirst")
    w = ckptsim.workload(WORKLOAD)
    by_class = ckptsim.simulate(w, LargestFirst)
    assert by_class.scheduler == "largest-first"
    by_ref = ckptsim.simulate(w, f"{plug}/largest_first.py:LargestFirst", check=True)
    assert by_ref.summary == by_class.summary
    easy = ckptsim.simulate(w, "easy")
    assert easy.summary["mean_wait"] != by_class.summary["mean_wait"]
    limited = ckptsim.simulate(w, LargestFirst, {"most": 1})
    assert limited.params == {"requeue": "front", "most": 1}


def test_a_module_reference_imports_from_sys_path(plug, tmp_path, monkeypatch):
    package = tmp_path / "mine"
    (package / "sched").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sched" / "__init__.py").write_text("")
    shutil.copy(plug / "largest_first.py", package / "sched" / "wide.py")
    shutil.copy(plug / "largest_first.py", tmp_path / "widemod.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    w = ckptsim.workload("lublin:n=200,seed=3,machine=64")
    dotted = ckptsim.simulate(w, "mine.sched.wide:LargestFirst")
    bare = ckptsim.simulate(w, "widemod:LargestFirst")
    assert dotted.summary == bare.summary
    assert dotted.scheduler == "mine.sched.wide:LargestFirst"


def test_a_plugin_file_imports_modules_beside_it(tmp_path):
    (tmp_path / "sizes.py").write_text(
        "def widest(jobs):\n    return max(jobs, key=lambda j: j.size)\n")
    (tmp_path / "uses.py").write_text(
        (EXAMPLES / "largest_first.py").read_text()
        .replace("import dataclasses\n", "import dataclasses\n\nimport sizes\n")
        .replace("max(fitting, key=lambda j: j.size)", "sizes.widest(fitting)"))
    w = ckptsim.workload("lublin:n=200,seed=3,machine=64")
    assert ckptsim.simulate(w, f"{tmp_path}/uses.py:LargestFirst").summary == \
        ckptsim.simulate(w, f"{EXAMPLES}/largest_first.py:LargestFirst").summary
    assert str(tmp_path) not in sys.path


def test_a_component_and_a_checkpoint_policy_from_files(plug, capsys):
    starts = f"{plug}/starts_per_hour.py:StartsPerHour"
    hourly = f"{plug}/every_hour.py:EveryHour"
    code = main(["run", "--workload", WORKLOAD, "--scheduler", "easy", "--check",
                 "--component", f"{starts}:period=7200",
                 "--checkpoint", f"{hourly}:hours=2,cost=60"])
    out = capsys.readouterr().out
    assert code == 0
    assert "max starts per period" in out and "checkpoints" in out
    w = ckptsim.workload(WORKLOAD)
    result = ckptsim.simulate(w, "easy", components={
        starts: {"period": 3600}, "checkpoint": {"policy": f"{hourly}:cost=60"}})
    assert result.summary["checkpoints"] > 0
    assert result.summary["max_starts_per_period"] >= result.summary["mean_starts_per_period"]
    assert result.options["starts"] == {"period": 3600.0}
    # The class itself: as a key with its parameters, or in a list with its defaults,
    # beside built objects; anything else in the list is refused in one line.
    cls = plugins.load_reference(starts, "component")
    by_key = ckptsim.simulate(w, "easy", components={cls: {"period": 3600}})
    by_ref = ckptsim.simulate(w, "easy", components={starts: {"period": 3600}})
    assert by_key.summary == by_ref.summary
    listed = ckptsim.simulate(w, "easy", components=[cls])
    assert listed.options["starts"] == {"period": 3600.0}  # the default period
    assert listed.summary["max_starts_per_period"] == by_key.summary["max_starts_per_period"]
    for bad in ([None], [cls, 3]):
        with pytest.raises(ConfigError, match="expected Component objects or classes, or "
                                              "texts NAME:key=value,..., got"):
            ckptsim.simulate(w, "easy", components=bad)
    # A text is --component's form (here the plug-in's name, loaded above).
    assert ckptsim.simulate(w, "easy", components=["starts"]).summary == listed.summary
    # A checkpoint policy class stands for its reference in the checkpoint component's
    # policy, alone or in a table; one defined where it cannot be loaded again (here, in a
    # function) is known by its name in this process.
    policy = plugins.load_reference(hourly, "checkpoint")
    by_ref = ckptsim.simulate(w, "easy", components={"checkpoint": {"policy": {
        "interval": hourly, "cost": 60}}})
    by_class = ckptsim.simulate(w, "easy", components={"checkpoint": {"policy": {
        "interval": policy, "cost": 60}}})
    assert by_class.summary == by_ref.summary and by_ref.summary["checkpoints"] > 0
    from ckptsim.checkpointing.plan_table import plan_value

    assert plan_value({"interval": policy, "cost": 60}).text == f"{plug}/every_hour.py" \
        f":EveryHour:cost=60"

    class HalfHour(policy):
        name = "half-hour"

        def interval(self, delta, mtbf, restart):
            return 1800.0

    local = ckptsim.simulate(w, "easy", components={"checkpoint": {"policy": {
        "interval": HalfHour, "cost": 60}}})
    assert local.options["checkpoint"]["policy"] == "half-hour"
    assert local.summary["checkpoints"] > by_ref.summary["checkpoints"]
    with pytest.raises(ConfigError, match="int is not a checkpoint policy class"):
        plan_value(int)
    # Wrong options name the flag as typed.
    assert main(["run", "--workload", WORKLOAD, "--component", f"{starts}:period=0"]) == 2
    assert f"--component {starts}:period: got 0" in capsys.readouterr().err
    assert main(["run", "--workload", WORKLOAD, "--checkpoint", f"{hourly}:hours=0,cost=1"]) == 2
    assert "--checkpoint hours: got 0" in capsys.readouterr().err
    # A plug-in policy combines with the built-in skip and proactive policies.
    plan = parse_checkpoint(f"{hourly}:hours=2,cost=60+closedcluster")
    assert plan.names == ("every-hour", "closedcluster")
    assert plan.interval.interval(60, 0, 0) == 7200


def _dist(site: Path) -> None:
    """A distribution installed by hand: a module and a dist-info with entry points."""
    shutil.copy(EXAMPLES / "largest_first.py", site / "ckptsim_extra.py")
    shutil.copy(EXAMPLES / "starts_per_hour.py", site / "ckptsim_extra_meter.py")
    info = site / "ckptsim_extra-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ckptsim-extra\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[ckptsim.schedulers]\nwidest = ckptsim_extra:LargestFirst\n\n"
        "[ckptsim.components]\nstarts = ckptsim_extra_meter:StartsPerHour\n")


def test_a_plugins_parameters_are_listed_as_ckptsim_reads_them(plug, capsys):
    assert main(["schedulers", f"{plug}/largest_first.py:LargestFirst", "easy"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "largest-first: starts the widest waiting job that fits first (no " \
                     "reservation; an example)"
    assert any(line.startswith("    most = 0  (>= 0) start at most") for line in out)
    assert any(line.startswith("easy: FCFS with EASY backfilling") for line in out)
    assert main(["components", f"{plug}/starts_per_hour.py:StartsPerHour"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("starts: ") and out[1].startswith("    period = 3600.0")
    # A class without a description: its docstring's first line.
    (plug / "quiet.py").write_text(
        "from ckptsim import QueueScheduler\n\n\nclass Quiet(QueueScheduler):\n"
        "    \"\"\"Starts nothing, quietly.\n\n    More.\"\"\"\n\n"
        "    def schedule(self, now):\n        pass\n")
    assert main(["schedulers", f"{plug}/quiet.py:Quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Quiet: Starts nothing, quietly."
    # A checkpoint policy asked of `components`: a plug-in's file or a built-in's name.
    assert main(["components", f"{plug}/every_hour.py:EveryHour", "young"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("every-hour [interval checkpoint policy: a part of the "
                             "checkpoint component's policy]: a checkpoint every")
    assert out[1].startswith("    hours = 1.0")
    assert any(line.startswith("young [interval checkpoint policy") for line in out)
    assert not any(line.lstrip().startswith("cost =") for line in out)  # the plan's
    assert main(["components", "nope"]) == 2
    assert "unknown component 'nope'" in capsys.readouterr().err
    assert main(["schedulers", "nope"]) == 2
    assert "unknown scheduler 'nope'" in capsys.readouterr().err
    assert main(["components", f"{plug}/none.py:X"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_entry_points_are_listed_and_run(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    _dist(site)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(site), *filter(None, [os.environ.get("PYTHONPATH")])])}

    def ckpt(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ckptsim", *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)

    listed = ckpt("schedulers")
    assert listed.returncode == 0, listed.stderr
    assert "widest: starts the widest waiting job" in listed.stdout
    done = ckpt("run", "--workload", "lublin:n=200,seed=3,machine=64", "--scheduler", "widest",
                "--component", "starts:period=3600", "--check")
    assert done.returncode == 0, done.stderr
    assert "widest on lublin" in done.stdout and "max starts per period" in done.stdout


def test_entry_points_in_this_process(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    _dist(site)
    monkeypatch.syspath_prepend(str(site))
    plugins.forget_entry_points()
    try:
        assert "widest" in REGISTRIES["scheduler"].names()
        assert "starts" in REGISTRIES["component"].names()
        cls = REGISTRIES["scheduler"].get("widest")
        assert cls.name == "largest-first"
    finally:
        plugins.forget_entry_points()
        REGISTRIES["scheduler"].plugins.clear()
        REGISTRIES["component"].plugins.clear()


SPEC = """
name = "plugins"
seeds = [1, 2]

[workloads.model]
generator = "lublin"
n = 200
machine = 64

[workloads.model.components.checkpoint]
policy = "{hourly}:cost=60"

[[schedulers]]
name = "plug/largest_first.py:LargestFirst"
params = {{ most = [0, 2] }}

[[schedulers]]
name = "easy"
"""


def _spec(tmp_path: Path, hourly: str = "fixed") -> Path:
    path = tmp_path / "plugins.toml"
    path.write_text(SPEC.format(hourly=hourly))
    return path


def test_a_sweep_runs_plugins_on_the_process_pool(plug, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = _spec(tmp_path, "plug/every_hour.py:EveryHour")
    assert main(["sweep", str(spec), "--out", str(tmp_path / "st"), "--jobs", "2"]) == 0
    rows, _ = load_results(tmp_path / "st")
    assert len(rows) == 6 and {r["status"] for r in rows} == {"ok"}
    assert all(r["checkpoints"] > 0 for r in rows)
    assert {r["scheduler"] for r in rows} == {"plug/largest_first.py:LargestFirst", "easy"}


def test_a_sweep_runs_plugins_on_dask(plug, tmp_path, monkeypatch):
    pytest.importorskip("distributed", reason="Dask's distributed is not installed "
                                              "(pip install 'ckptsim[dask]')")
    monkeypatch.chdir(tmp_path)
    spec = _spec(tmp_path)
    assert main(["sweep", str(spec), "--out", str(tmp_path / "st"), "--dask", "local",
                 "--jobs", "2"]) == 0
    rows, _ = load_results(tmp_path / "st")
    assert len(rows) == 6 and {r["status"] for r in rows} == {"ok"}


def test_the_run_id_follows_the_plugin_source(plug, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = _spec(tmp_path, "plug/every_hour.py:EveryHour")
    before = build_matrix(load_spec(spec))
    assert len({r.run_id for r in before}) == 6
    with open(plug / "largest_first.py", "a") as f:
        f.write("\n# edited\n")
    after = build_matrix(load_spec(spec))
    changed = {b.scheduler for b, a in zip(before, after, strict=True) if b.run_id != a.run_id}
    assert changed == {"plug/largest_first.py:LargestFirst"}
    with open(plug / "every_hour.py", "a") as f:
        f.write("\n# edited\n")
    again = build_matrix(load_spec(spec))
    assert all(a.run_id != b.run_id for a, b in zip(after, again, strict=True))
    # The scheduler's file resolves against the spec's folder, wherever the sweep starts.
    plain = _spec(tmp_path)
    ids = [r.run_id for r in build_matrix(load_spec(plain))]
    monkeypatch.chdir(ROOT)
    assert [r.run_id for r in build_matrix(load_spec(plain))] == ids


@pytest.mark.parametrize(("text", "expected"), [
    ("fixed:interval=60,cost=1", None),
    ("young:cost=600", None),
    ("energy", None),
    ("easy:Foo", None),  # a registered name is never a module
    ("a/b.py:Meter", ("a/b.py:Meter", "")),
    ("a/b.py:Meter:period=60,x=1", ("a/b.py:Meter", "period=60,x=1")),
    ("pkg.mod:Cls:k=v", ("pkg.mod:Cls", "k=v")),
    ("mod:Cls", ("mod:Cls", "")),
    ("mod:key=value", None),
])
def test_the_reference_syntax(text, expected):
    assert plugins.split_reference(text, {"easy", "fixed", "young", "energy"}) == expected


BAD = {
    "raises.py": "import math\n\nx = math.sqrt(-1)\n",
    "syntax.py": "def f(:\n    pass\n",
    "imports.py": "import ckptsim_no_such_module_here\n",
    # A script's exit on import ended ckptsim silently with the script's status.
    "exits.py": "import sys\n\nsys.exit(3)\n",
    "other.py": "class Other:\n    name = 'other'\n",
    "builtin_name.py": "from ckptsim import Scheduler\n\n\nclass Easy2(Scheduler):\n"
                       "    name = 'easy'\n",
    # Mistakes that used to surface mid-run as a traceback, or as a parameter silently
    # missing (then "unknown parameter" for --set crash=true).
    "shapes.py": """import dataclasses
from ckptsim import CheckpointPolicy, QueueScheduler, param
from ckptsim.checkpointing.plan import SkipPolicy


class NotADataclass:
    most: int = param(0, "at most")


class Undecorated(QueueScheduler):
    Params = NotADataclass

    def schedule(self, now):
        pass


class OnTheClass(QueueScheduler):
    crash = param(False, "raise in the first pass")

    def schedule(self, now):
        pass


class NoPass(QueueScheduler):
    def order(self, queue, now):
        return queue


class NoInterval(CheckpointPolicy):
    pass


class NoSkip(SkipPolicy):
    pass


@dataclasses.dataclass(frozen=True)
class Own:
    width: int = param(4, "nodes")


class NoCostParams(SkipPolicy):
    Params = Own

    def skip(self, job, now):
        return False


class DynamicWithoutNext(CheckpointPolicy):
    dynamic = True


class NoDefault(QueueScheduler):
    @dataclasses.dataclass(frozen=True)
    class Params:
        delay: float

    def schedule(self, now):
        pass


class DefaultOutOfRange(QueueScheduler):
    @dataclasses.dataclass(frozen=True)
    class Params:
        delay: float = param(5.0, "seconds", low=10.0)

    def schedule(self, now):
        pass
""",
}


@pytest.mark.parametrize(("file", "cls", "message"), [
    ("missing.py", "X", "no such file"),
    ("raises.py", "X", "raises.py, line 3: ValueError: math domain error"),
    ("syntax.py", "X", "syntax.py, line 1: SyntaxError"),
    ("imports.py", "X", "imports.py, line 1: ModuleNotFoundError"),
    ("exits.py", "X", "exits.py, line 3: the file exits (SystemExit: 3) when imported; a "
                      "plug-in file defines its classes"),
    ("other.py", "Missing", "other.py defines no Missing, and no scheduler class (a "
                            "subclass of ckptsim.Scheduler)"),
    # The accepted values: the file's own scheduler classes (not those it imports).
    ("builtin_name.py", "Easy", "builtin_name.py defines no Easy; its scheduler classes: "
                                "Easy2\n"),
    ("other.py", "Other", "Other is not a scheduler class (a subclass of ckptsim.Scheduler)"),
    ("builtin_name.py", "Easy2", "its name 'easy' is a built-in scheduler's"),
    ("shapes.py", "Undecorated", "its Params (NotADataclass) is not a dataclass; write it as "
                                 "@dataclasses.dataclass(frozen=True)"),
    ("shapes.py", "OnTheClass", "crash = param(...) is written on the scheduler class, where "
                                "it is no parameter"),
    ("shapes.py", "NoPass", "NoPass defines no schedule(); every scheduler must"),
    # The first run raised a TypeError; the default blamed a `--set delay` never given.
    ("shapes.py", "NoDefault", "parameter delay has no default; every parameter needs one"),
    ("shapes.py", "DefaultOutOfRange", "the default of parameter delay is outside its own "
                                       "range (got 5; accepted: >= 10)"),
])
def test_a_bad_reference_is_one_line_naming_the_option(tmp_path, capsys, file, cls, message):
    for name, text in BAD.items():
        (tmp_path / name).write_text(text)
    ref = f"{tmp_path}/{file}:{cls}"
    assert main(["run", "--workload", "lublin:n=10", "--scheduler", ref]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ckptsim: error: --scheduler: {ref}: ") and message in err
    assert err.count("\n") == 1
    assert main(["run", "--workload", "lublin:n=10", "--checkpoint", f"{ref}:cost=1"]) == 2
    assert capsys.readouterr().err.startswith("ckptsim: error: --checkpoint")

@pytest.mark.parametrize(("text", "code"), [
    ("import sys\n\nsys.exit(3)\n", "3"),
    ("import argparse\n\nargparse.ArgumentParser().parse_args(['--nope'])\n", "2"),
])
def test_a_module_that_exits_when_imported_is_one_line_naming_it(tmp_path, capsys,
                                                                  monkeypatch, text, code):
    # A module:Class whose module ran sys.exit() or argparse ended ckptsim silently with the
    # module's status, where a file.py:Class was named with its line.
    name = f"exits_{code}_mod"
    (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    ref = f"{name}:X"
    assert main(["run", "--workload", "lublin:n=10", "--scheduler", ref]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == (f"ckptsim: error: --scheduler: {ref}: cannot import {name}: "
                   f"{tmp_path / name}.py, line 3: the module exits (SystemExit: {code}) when "
                   "imported; a plug-in module defines its classes, and runs script code only "
                   "under if __name__ == '__main__':"), err
    assert name not in sys.modules


def test_a_plugin_file_of_binary_bytes_is_named_not_ckptsims_own(tmp_path, capsys):
    # Python's SyntaxError for NUL bytes has no position: the error named plugins.py.
    (tmp_path / "binary.py").write_bytes(b"class X:\n    pass\x00\n")
    ref = f"{tmp_path}/binary.py:X"
    assert main(["run", "--workload", "lublin:n=10", "--scheduler", ref]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ckptsim: error: --scheduler: {ref}: {tmp_path / 'binary.py'}: "
                          "SyntaxError: ") and "null bytes" in err, err
    assert "plugins.py" not in err and err.count("\n") == 1, err



@pytest.mark.parametrize(("cls", "message"), [
    ("NoInterval", "NoInterval defines no interval(); every interval checkpoint policy must"),
    ("NoSkip", "NoSkip defines no skip(); every skip checkpoint policy must"),
    ("NoCostParams", "its Params (Own) does not extend ckptsim.CostParams, as every "
                     "checkpoint policy's must"),
    ("DynamicWithoutNext", "DynamicWithoutNext defines no next_interval(); every interval "
                           "checkpoint policy must"),
])
def test_a_checkpoint_policy_without_its_method_is_refused_where_named(tmp_path, capsys, cls,
                                                                        message):
    (tmp_path / "shapes.py").write_text(BAD["shapes.py"])
    ref = f"{tmp_path}/shapes.py:{cls}"
    plan = f"fixed:interval=60,cost=1+{ref}" if cls == "NoSkip" else f"{ref}:cost=1"
    assert main(["run", "--workload", "lublin:n=10", "--checkpoint", plan]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: --checkpoint") and message in err
    assert err.count("\n") == 1


def test_every_builtin_has_the_shape_asked_of_plugins():
    for registry in REGISTRIES.values():
        for name in registry.names():
            check_shape(registry.get(name), registry.kind, registry.key, name)


COMPONENT_SPEC = """
name = "meters"
seeds = [1, 2]
metrics = ["mean_wait", "max_starts_per_period"]

[workloads.model]
generator = "lublin"
n = 300
machine = 64

[workloads.model.components."plug/starts_per_hour.py:StartsPerHour"]
period = [600, 3600]

[workloads.model.components."plug/marker.py:Marker"]

[[schedulers]]
name = "easy"

[[figures]]
name = "busiest"
x = "starts.period"
y = "max_starts_per_period"
"""

MARKER = """
from ckptsim import Component


class Marker(Component):
    name = "marker"
    counter_names = ("marked_starts",)

    def attach(self, sim):
        super().attach(sim)
        self.n = 0

    def on_start(self, job):
        self.n += 1

    def counters(self):
        return {"marked_starts": self.n}
"""


@pytest.mark.parametrize("executor", [["--jobs", "2"], ["--dask", "local", "--jobs", "2"]])
def test_a_spec_names_a_component_by_its_file(plug, tmp_path, monkeypatch, executor):
    """A component table named by a plug-in's file (relative to the spec's folder, wherever
    the sweep starts): its options go by the plug-in's name, its counters are metrics the
    spec and its figures may name, the workers load it by path, and a plug-in without
    parameters runs from its empty table."""
    if "--dask" in executor:
        pytest.importorskip("distributed", reason="Dask's distributed is not installed "
                                                  "(pip install 'ckptsim[dask]')")
    (plug / "marker.py").write_text(MARKER)
    spec = tmp_path / "meters.toml"
    spec.write_text(COMPONENT_SPEC)
    monkeypatch.chdir(ROOT)  # not the spec's folder
    assert main(["sweep", str(spec), "--out", str(tmp_path / "st"), *executor]) == 0
    rows, _ = load_results(tmp_path / "st")
    assert len(rows) == 4 and {r["status"] for r in rows} == {"ok"}
    assert sorted(r["workload.starts.period"] for r in rows) == [600.0, 600.0, 3600.0, 3600.0]
    assert all(r["workload.marker"] is True for r in rows)
    assert all(r["marked_starts"] == 300 for r in rows)
    by = {(r["workload.starts.period"], r["seed"]): r["max_starts_per_period"] for r in rows}
    assert all(by[(3600.0, s)] >= by[(600.0, s)] for s in (1, 2))
    assert main(["report", str(tmp_path / "st")]) == 0
    assert (tmp_path / "st" / "report" / "figures" / "busiest.png").is_file()


def test_a_component_file_in_a_spec_gives_the_same_runs_wherever_it_lies(plug, tmp_path):
    (plug / "marker.py").write_text(MARKER)
    spec = tmp_path / "meters.toml"
    spec.write_text(COMPONENT_SPEC)
    ids = [r.run_id for r in build_matrix(load_spec(spec))]
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(plug, elsewhere / "plug")
    (elsewhere / "meters.toml").write_text(COMPONENT_SPEC)
    runs = build_matrix(load_spec(elsewhere / "meters.toml"))
    assert [r.run_id for r in runs] == ids
    # Each run's worker builds the plug-ins by their files, the copied ones here.
    names = set(runs[0].components)
    assert names == {f"{elsewhere / 'plug' / 'starts_per_hour.py'}:StartsPerHour",
                     f"{elsewhere / 'plug' / 'marker.py'}:Marker"}
    with open(elsewhere / "plug" / "starts_per_hour.py", "a") as f:
        f.write("\n# edited\n")
    assert all(a != b.run_id for a, b in
               zip(ids, build_matrix(load_spec(elsewhere / "meters.toml")), strict=True))


def test_the_example_spec_of_the_plugins_runs_from_anywhere(tmp_path, monkeypatch):
    """examples/plugins/plugins.toml: the three example plug-ins by their files, from a
    folder that is not the spec's."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "st"
    assert main(["sweep", str(EXAMPLES / "plugins.toml"), "--out", str(out), "--jobs", "2"]) == 0
    rows, _ = load_results(out)
    assert len(rows) == 9 and {r["status"] for r in rows} == {"ok"}
    assert {r["scheduler"] for r in rows} == {"easy", "largest-first"}
    assert all(r["workload.starts.period"] == 3600.0 and r["checkpoints"] > 0
               and r["max_starts_per_period"] > 0 for r in rows)
    assert main(["report", str(out)]) == 0
    assert (out / "report" / "figures" / "wait.png").is_file()


def test_a_checkpoint_policy_file_in_a_spec_is_found_beside_the_spec(plug, tmp_path,
                                                                     monkeypatch):
    """The checkpoint component's `policy` names a file relative to the spec's folder
    (string or table form), wherever the sweep starts; the run ids are those of a sweep
    started in the spec's folder, and the workers load the file by its absolute path."""
    table = SPEC.replace('policy = "{hourly}:cost=60"',
                         'policy = {{ interval = "{hourly}", cost = 60 }}')
    for text in (SPEC, table):
        spec = tmp_path / "plugins.toml"
        spec.write_text(text.format(hourly="plug/every_hour.py:EveryHour"))
        monkeypatch.chdir(tmp_path)
        here = [r.run_id for r in build_matrix(load_spec(spec))]
        monkeypatch.chdir(ROOT)
        runs = build_matrix(load_spec(spec))
        assert [r.run_id for r in runs] == here
        plan = runs[0].components["checkpoint"]["policy"]
        assert plan.references == (f"{plug / 'every_hour.py'}:EveryHour",)
        assert str(plan).startswith("plug/every_hour.py:EveryHour")  # the text as written
        out = tmp_path / f"st{len(text)}"
        assert main(["sweep", str(spec), "--out", str(out), "--jobs", "2"]) == 0
        rows, _ = load_results(out)
        assert {r["status"] for r in rows} == {"ok"} and all(r["checkpoints"] > 0
                                                             for r in rows)


def _one_problem(spec: Path, components: str, options: str = "") -> tuple[str, str]:
    """Write a one-workload spec with these component tables; its one problem (where, what)."""
    spec.write_text('name = "bad"\n[workloads.m]\ngenerator = "lublin"\nn = 10\n' + options
                    + components + '[[schedulers]]\nname = "easy"\n')
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    ((where, text),) = info.value.problems
    return where, text


def test_a_spec_component_that_is_neither_known_nor_a_plugin(tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text('name = "bad"\n[workloads.m]\ngenerator = "lublin"\nn = 10\n'
                    '[workloads.m.components.meter]\n[workloads.m.components."no.py:Meter"]\n'
                    '[[schedulers]]\nname = "easy"\n')
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    (unknown, _), (missing, text) = info.value.problems
    assert unknown.startswith("workloads.m.components.meter")
    assert missing.startswith("workloads.m.components.no.py:Meter")
    assert "no such file" in text
    # Two files whose components share a name.
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "marker.py").write_text(MARKER)
    where, text = _one_problem(spec, '[workloads.m.components."a/marker.py:Marker"]\n'
                                     '[workloads.m.components."b/marker.py:Marker"]\n')
    assert where.startswith("workloads.m.components.b/marker.py:Marker")
    assert text == ("names the component 'marker', as "
                    "workloads.m.components.a/marker.py:Marker does")
    # Options in the table's name, not in the table.
    _, text = _one_problem(spec, '[workloads.m.components."a/marker.py:Marker:step=2"]\n')
    assert text == "name the table by a/marker.py:Marker alone: its options are the table's " \
                   "keys (step = ...)"
    # A component named like an option of the workload: the option (here `first`, keeping
    # the first 5 jobs) was read as the component's and silently dropped, run ids included.
    (tmp_path / "first.py").write_text("from ckptsim import Component\n\n\n"
                                       "class First(Component):\n    name = 'first'\n")
    where, text = _one_problem(spec, '[workloads.m.components."first.py:First"]\n',
                               options="first = 5\n")
    assert where.startswith("workloads.m.components.first.py:First")
    assert text == ("names the component 'first', which is also the name of the workload "
                    "option workloads.m.first; give the plug-in another name")


def test_a_plugin_schedulers_counters_are_metrics_of_its_spec(tmp_path, capsys):
    (tmp_path / "counting.py").write_text(
        "from ckptsim import QueueScheduler\n\n\n"
        "class Counting(QueueScheduler):\n"
        "    counter_names = ('passes',)\n\n"
        "    def __init__(self, sim, params=None):\n"
        "        super().__init__(sim, params)\n"
        "        self.passes = 0\n\n"
        "    def counters(self):\n"
        "        return {'passes': self.passes}\n\n"
        "    def schedule(self, now):\n"
        "        self.passes += 1\n"
        "        for job in list(self.queue):\n"
        "            if job.size <= self.platform.n_free:\n"
        "                self.sim.start(job)\n"
        "                self.queue.remove(job)\n"
        "                self._removed(job)\n")
    assert main(["run", "--workload", "lublin:n=50,machine=32", "--scheduler",
                 f"{tmp_path}/counting.py:Counting"]) == 0
    assert re.search(r"│ passes +│ +\d+ │", capsys.readouterr().out)  # a row of the table
    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\nmetrics = ["passes"]\n[workloads.m]\ngenerator = "lublin"\n'
                    'n = 50\nmachine = 32\n[[schedulers]]\nname = "counting.py:Counting"\n')
    assert load_spec(spec).metrics == ("passes",)
    spec.write_text(spec.read_text().replace('"passes"', '"nope"'))
    with pytest.raises(SpecError, match="unknown metric 'nope'"):
        load_spec(spec)


def test_a_bad_reference_in_a_spec_is_a_problem_of_its_line(tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text('name = "bad"\n[workloads.m]\ngenerator = "lublin"\nn = 10\n'
                    '[[schedulers]]\nname = "nowhere.py:Nothing"\n')
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    assert "schedulers[0].name" in str(info.value) and "no such file" in str(info.value)


def test_a_class_without_a_name_is_named_after_its_class():
    from ckptsim import QueueScheduler

    class Unnamed(QueueScheduler):
        def schedule(self, now: float) -> None:
            for job in list(self.queue):
                if job.size <= self.platform.n_free:
                    self.sim.start(job)
                    self.queue.remove(job)
                    self._removed(job)

    result = ckptsim.simulate(ckptsim.workload("lublin:n=100,seed=1,machine=32"), Unnamed)
    assert result.scheduler == "Unnamed"
    with pytest.raises(ConfigError, match="not a scheduler class"):
        ckptsim.simulate(ckptsim.workload("lublin:n=10"), dict)


def test_importing_ckptsim_imports_nothing_heavy():
    code = ("import sys, ckptsim; print(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('ckptsim', 'numpy', 'pyarrow', 'numba')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "['ckptsim']"
    assert {"Scheduler", "QueueScheduler", "Component", "CheckpointPolicy", "param",
            "simulate", "workload"} <= set(ckptsim.__all__)


def test_a_parameter_without_a_lower_bound_takes_negative_values():
    """Only a declared `low` or `period` bounds a number from below (a signed parameter of a
    plug-in was refused as if it were a period, and a plain field raised KeyError)."""
    import dataclasses

    from ckptsim.params import make_params, param

    @dataclasses.dataclass(frozen=True)
    class P:
        bias: float = param(0.0, "a signed bias")
        plain: float = 1.0
        every: float = param(60.0, "a period", low=0, period=1.0)

    assert make_params(P, {"bias": "-1", "plain": "-2.5"}) == P(bias=-1.0, plain=-2.5)
    with pytest.raises(ConfigError, match=r"^x.every: got 0.5; accepted: >= 1 \(a period"):
        make_params(P, {"every": "0.5"}, where="x")


DYNAMIC = """
import dataclasses
from ckptsim import CheckpointPolicy, CostParams, param


@dataclasses.dataclass(frozen=True)
class BackoffParams(CostParams):
    base: float = param(1800.0, "first interval, s", low=1.0)


class Backoff(CheckpointPolicy):
    name = "backoff"
    Params = BackoffParams
    dynamic = True

    def next_interval(self, delta, mtbf, restart, ctx):
        return self.params.base * 2 ** ctx.count


class Returns(CheckpointPolicy):
    name = "returns"
    value = None

    def interval(self, delta, mtbf, restart):
        return self.value


class ReturnsNone(Returns):
    name = "returns-none"


class ReturnsNegative(Returns):
    name = "returns-negative"
    value = -5.0


class ReturnsNan(Returns):
    name = "returns-nan"
    value = float("nan")


class DynamicReturnsText(Backoff):
    name = "dynamic-text"

    def next_interval(self, delta, mtbf, restart, ctx):
        return "soon"


class SeesMtbf(CheckpointPolicy):
    name = "sees-mtbf"
    seen = []

    def interval(self, delta, mtbf, restart):
        SeesMtbf.seen.append(mtbf)
        return 3600.0
"""


def test_a_dynamic_policy_defines_next_interval_alone(tmp_path):
    """docs/plugins.md: `dynamic = True` with next_interval (interval is not asked)."""
    (tmp_path / "dyn.py").write_text(DYNAMIC)
    w = ckptsim.workload("lublin:n=200,seed=4,machine=64")
    result = ckptsim.simulate(w, "easy", checkpoint=f"{tmp_path}/dyn.py:Backoff:cost=60")
    assert result.summary["checkpoints_completed"] > 0


@pytest.mark.parametrize(("cls", "method", "shown"), [
    ("ReturnsNone", "interval", "None"), ("ReturnsNegative", "interval", "-5.0"),
    ("ReturnsNan", "interval", "nan"), ("DynamicReturnsText", "next_interval", "'soon'"),
])
def test_an_interval_that_is_not_a_number_of_seconds_is_refused(tmp_path, capsys, cls, method,
                                                                  shown):
    (tmp_path / "dyn.py").write_text(DYNAMIC)
    argv = ["run", "--workload", "lublin:n=50,seed=4,machine=64", "--checkpoint",
            f"{tmp_path}/dyn.py:{cls}:cost=60"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ckptsim: error: --checkpoint: {plugins_name(cls)}'s {method}() "
                          f"returned {shown} for job ")
    assert err.rstrip().endswith("an interval is seconds of computation > 0 (0 or inf: no "
                                 "more checkpoints of the job)")


def plugins_name(cls):
    return {"ReturnsNone": "returns-none", "ReturnsNegative": "returns-negative",
            "ReturnsNan": "returns-nan", "DynamicReturnsText": "dynamic-text"}[cls]


def test_an_mtbf_the_user_gives_reaches_the_policy(tmp_path):
    """A policy that does not declare needs_mtbf is given the mtbf= its user wrote (it got
    inf); without mtbf= it still gets inf and needs no failures."""
    (tmp_path / "dyn.py").write_text(DYNAMIC)
    w = ckptsim.workload("lublin:n=40,seed=4,machine=64")
    mod = plugins.load_reference(f"{tmp_path}/dyn.py:SeesMtbf", "checkpoint")
    mod.seen.clear()
    ckptsim.simulate(w, "easy", checkpoint=f"{tmp_path}/dyn.py:SeesMtbf:cost=60,mtbf=86400")
    assert mod.seen and set(mod.seen) == {86400.0}
    mod.seen.clear()
    ckptsim.simulate(w, "easy", checkpoint=f"{tmp_path}/dyn.py:SeesMtbf:cost=60")
    assert mod.seen and set(mod.seen) == {float("inf")}


def test_a_plugin_policys_options_in_a_spec_table_go_by_its_name(plug, tmp_path):
    spec = tmp_path / "s.toml"
    text = ('name = "s"\n[workloads.m]\ngenerator = "lublin"\nn = 50\nmachine = 64\n'
            '[workloads.m.components.checkpoint]\npolicy = { interval = '
            '"plug/every_hour.py:EveryHour", cost = 60, KEY = { hours = [1, 2] } }\n'
            '[[schedulers]]\nname = "easy"\n')
    spec.write_text(text.replace("KEY", "every-hour"))
    runs = build_matrix(load_spec(spec))
    assert sorted(r.columns["workload.checkpoint.policy.every-hour.hours"] for r in runs) == [1, 2]
    spec.write_text(text.replace("KEY", "EveryHour"))
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    assert ("unknown checkpoint policy 'EveryHour'; accepted: interval policies (" in
            str(info.value))
    assert ("a plug-in's options go in a table named after its name (its class's `name`), "
            "beside the reference that names its file") in str(info.value)
    spec.write_text(text.replace("KEY", "\"plug/every_hour.py:EveryHour\""))
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    assert ("options of plug/every_hour, which the plan does not name (give it as interval, "
            "skip or proactive); the plan's parts: every-hour (a part's options are a table named "
            "after it)") in str(info.value)


def test_plugins_in_two_folders_import_their_own_helpers(tmp_path, monkeypatch):
    """A module beside a plug-in file is the one that file imports, even when a plug-in of
    another folder imported a module of the same name first (it got the first one's), or the
    user's program did (the test suite has a `helpers` module of its own)."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "helpers.py").write_text("WHO = 'mine'\n")
    spec = importlib.util.spec_from_file_location("helpers", tmp_path / "mine" / "helpers.py")
    mine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mine)
    monkeypatch.setitem(sys.modules, "helpers", mine)
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "helpers.py").write_text(f"WHO = {folder!r}\n")
        (tmp_path / folder / "sched.py").write_text(
            "import helpers\nfrom ckptsim.policies.fcfs import FCFS\n\n\n"
            f"class Sched(FCFS):\n    name = 'sched-{folder}'\n    who = helpers.WHO\n")
    a = plugins.load_reference(f"{tmp_path}/a/sched.py:Sched", "--scheduler")
    b = plugins.load_reference(f"{tmp_path}/b/sched.py:Sched", "--scheduler")
    assert (a.who, b.who) == ("a", "b")
    # Loading them again (another file version) keeps each on its own.
    (tmp_path / "a" / "sched.py").write_text((tmp_path / "a" / "sched.py").read_text() + "\n")
    again = plugins.load_reference(f"{tmp_path}/a/sched.py:Sched", "--scheduler")
    assert again is not a and again.who == "a"
    assert sys.modules["helpers"] is mine  # the program's own is back


@pytest.mark.parametrize("given, hint", [
    ("mine.py", "a plug-in file is named with its class, FILE.py:Class (docs/plugins.md)"),
    ("mine.py:Mine:depth=3", "mine.py:Mine is named without options here: give its "
                             "parameters apart (--set KEY=VALUE for a scheduler, params in "
                             "a spec)"),
    ("nope", "or a plug-in: FILE.py:Class, module:Class or an entry point's name"),
])
def test_an_unknown_scheduler_says_how_a_plugin_is_named(given, hint, capsys):
    assert main(["run", "--workload", "lublin:n=10", "--scheduler", given]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ckptsim: error: --scheduler: unknown scheduler {given!r}; "
                          "accepted: bgl-balancing, ")
    assert err.rstrip().endswith(f"; {hint}")


def test_simulate_components_by_name_take_a_mapping_of_parameters(plug):
    w = ckptsim.workload("lublin:n=40,machine=64")
    ref = f"{plug}/starts_per_hour.py:StartsPerHour"
    with pytest.raises(ConfigError) as info:
        ckptsim.simulate(w, "easy", components={ref: "period=600"})
    assert str(info.value) == (f"components.{ref}: expected a mapping of its parameters "
                               "({parameter: value}), got 'period=600'")
    result = ckptsim.simulate(w, "easy", components={ref: {"period": 600}})
    assert result.options["starts"]["period"] == 600


def test_an_instance_given_for_a_class_is_refused_saying_so():
    from ckptsim.policies.fcfs import FCFS

    with pytest.raises(ConfigError) as info:
        ckptsim.simulate(ckptsim.workload("lublin:n=10"), object.__new__(FCFS))
    assert str(info.value) == ("scheduler: an instance of FCFS: give the scheduler class "
                               "itself, which the run builds with the parameters given apart")


def test_a_subclass_that_says_nothing_of_itself_is_listed_as_one(tmp_path, capsys):
    (tmp_path / "e2.py").write_text("from ckptsim.policies.easy import Easy\n\n\n"
                                    "class E2(Easy):\n    name = 'e2'\n")
    assert main(["schedulers", f"{tmp_path}/e2.py:E2"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "e2: a subclass of easy: FCFS with EASY backfilling (seed 000 Algorithm 1)"


def test_simulate_takes_components_in_the_command_lines_form(plug):
    w = ckptsim.workload("lublin:n=60,seed=3,machine=64")
    ref = f"{plug}/starts_per_hour.py:StartsPerHour"
    as_text = ckptsim.simulate(w, "easy", components=[f"{ref}:period=600",
                                                      "failures:source=synthetic:mtbf=50000"])
    as_map = ckptsim.simulate(w, "easy", components={
        ref: {"period": 600}, "failures": {"source": "synthetic:mtbf=50000"}})
    assert as_text.summary == as_map.summary and as_text.options == as_map.options
    with pytest.raises(ConfigError) as info:
        ckptsim.simulate(w, "easy", components=[f"{ref}:hours=2"])
    assert str(info.value) == (f"component {ref}: unknown parameter 'hours' in 'hours=2'; "
                               "accepted: period")


@pytest.mark.parametrize(("option", "text", "odd", "hooks"), [
    ("--component", "from ckptsim import Component\n\n\nclass T(Component):\n"
                    "    name = 'typo'\n\n    def on_started(self, job):\n        pass\n\n"
                    "    def on_end(self, job):\n        pass\n",
     "on_started", "on_start, on_release, on_end, on_requeue, on_checkpoint, on_checkpointed, "
                   "on_migrated, on_nodes_changed, before_unavailable, before_eviction, "
                   "after_pass, at_end"),
    ("--scheduler", "from ckptsim.policies.fcfs import FCFS\n\n\nclass T(FCFS):\n"
                    "    name = 'typo-s'\n\n    def on_submitted(self, job):\n        pass\n",
     "on_submitted", "on_submit, on_end, on_timer, on_requeue, on_checkpointed, on_migrated, "
                     "on_nodes_changed, before_unavailable"),
])
def test_a_method_named_like_a_hook_but_none_is_noted(tmp_path, capsys, option, text, odd,
                                                       hooks):
    (tmp_path / "typo.py").write_text(text)
    assert main(["run", "--workload", "lublin:n=20", option, f"{tmp_path}/typo.py:T"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "named like a hook" in line]
    assert notes == [f"ckptsim: note: {tmp_path}/typo.py:T: {odd} is named like a hook but is "
                     f"none, and never called; the hooks: {hooks}"]


def test_summary_json_records_the_plugins_a_run_used(plug, tmp_path):
    """Which code made a run: each plug-in with its file's SHA-256 (a built-in run's
    summary.json has no such key, as before)."""
    import hashlib
    import json

    out = tmp_path / "out"
    assert main(["run", "--workload", "lublin:n=100,seed=3,machine=64", "--scheduler",
                 f"{plug}/largest_first.py:LargestFirst", "--checkpoint",
                 f"{plug}/every_hour.py:EveryHour:hours=2,cost=60", "--component",
                 f"{plug}/starts_per_hour.py:StartsPerHour:period=3600",
                 "--out", str(out)]) == 0
    found = json.loads((out / "summary.json").read_text())["plugins"]
    assert [(p["kind"], p["name"], p["class"]) for p in found] == [
        ("scheduler", "largest-first", "LargestFirst"), ("component", "starts", "StartsPerHour"),
        ("checkpoint policy", "every-hour", "EveryHour")]
    for p in found:
        assert p["sha256"] == hashlib.sha256(Path(p["file"]).read_bytes()).hexdigest()
    assert main(["run", "--workload", "lublin:n=50", "--out", str(tmp_path / "plain")]) == 0
    assert "plugins" not in json.loads((tmp_path / "plain" / "summary.json").read_text())


def test_an_error_in_a_plugins_own_code_ends_with_one_line_naming_it(tmp_path, capsys):
    (tmp_path / "boom.py").write_text(
        "from ckptsim.policies.fcfs import FCFS\n\n\nclass Boom(FCFS):\n    name = 'boom'\n\n"
        "    def schedule(self, now):\n        if now > 1000:\n"
        "            raise ValueError('no more')\n        super().schedule(now)\n")
    assert main(["run", "--workload", "lublin:n=50", "--scheduler",
                 f"{tmp_path}/boom.py:Boom"]) == 1
    err = capsys.readouterr().err.rstrip().splitlines()
    assert "Traceback (most recent call last):" in err
    assert err[-1] == (f"ckptsim: error: ValueError: no more (from {tmp_path}/boom.py, line 9, "
                       "a plug-in's code; the traceback is above)")


def test_a_decision_ckptsim_refuses_names_the_plugins_line(tmp_path, capsys):
    """A plug-in asking the engine for something impossible: ckptsim's one-line error, plus
    the line of the plug-in that asked (it named the job and the reason only)."""
    (tmp_path / "greedy.py").write_text(
        "from ckptsim import QueueScheduler\n\n\nclass Greedy(QueueScheduler):\n"
        "    def schedule(self, now):\n        for job in list(self.queue):\n"
        "            self.sim.start(job, 1)\n")
    assert main(["run", "--workload", "lublin:n=50", "--scheduler",
                 f"{tmp_path}/greedy.py:Greedy"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: job ") and err.count("\n") == 1
    assert err.endswith(f"(from {tmp_path}/greedy.py, line 7, a plug-in's code)\n")
    assert main(["run", "--workload", "lublin:n=50", "--set", "nope=1"]) == 2
    assert "a plug-in's code" not in capsys.readouterr().err  # ckptsim's own: as before


def test_every_builtin_parameter_has_a_default_inside_its_range():
    """What plug-ins are held to (a default, inside its own range), built-ins satisfy."""
    from ckptsim.plugin_shape import _check_defaults

    checked = 0
    for registry in REGISTRIES.values():
        for name in registry.names():
            cls = registry.get(name)
            params = getattr(cls, "Params", None)  # the papers' registry has none
            if params is not None and cls.__module__.startswith("ckptsim."):  # no plug-ins
                _check_defaults(params, name, name)
                checked += 1
    assert checked > 30


def test_a_checkpoint_policy_of_a_script_is_used_as_it_is(tmp_path):
    """A policy class defined in the script that runs (`python script.py`) is the class the
    run uses: the script is not imported again (an unguarded one recursed until
    RecursionError; a guarded one ran twice and its runs read module globals anew, so every
    interval below gave the same count)."""
    script = tmp_path / "script.py"
    script.write_text(
        "import ckptsim\n\nprint('body')\nINTERVAL = 3600.0\n\n\n"
        "class Every(ckptsim.CheckpointPolicy):\n    Params = ckptsim.CostParams\n\n"
        "    def interval(self, delta, mtbf, restart):\n        return INTERVAL\n\n\n"
        "w = ckptsim.workload('lublin:n=300,seed=1,machine=64')\n"
        "for INTERVAL in (600.0, 3600.0, 14400.0):\n"
        "    r = ckptsim.simulate(w, 'easy', checkpoint={'interval': Every, 'cost': 60})\n"
        "    print(r.summary['checkpoints'])\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    assert lines[0] == "body" and lines.count("body") == 1
    counts = [int(x) for x in lines[1:]]
    assert len(counts) == 3 and counts[0] > counts[1] > counts[2] > 0


def test_a_note_on_a_plugins_shape_reaches_a_script_without_logging_set_up():
    """A hook-like method that is no hook is a warning on the "ckptsim" logger, which Python
    prints when nothing is set up (a script, a notebook); at INFO nothing showed it."""
    code = ("import ckptsim\n\n\nclass W(ckptsim.Component):\n    name = 'w'\n\n"
            "    def on_started(self, job):\n        pass\n\n\n"
            "ckptsim.simulate('lublin:n=50', 'easy', components=[W])\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.startswith("W: on_started is named like a hook but is none")
