"""Experiment specs: parsing, defaults, and every validation problem with its location."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ckptsim.experiments.spec import DEFAULT_METRICS, SpecError, load_spec, parse_spec

SWF = """; MaxProcs: 8
1 0 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1
2 5 -1 30 4 -1 -1 4 30 -1 1 1 1 -1 1 -1 -1 -1
"""


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "tiny.swf"
    path.write_text(SWF)
    return path


def problems(text, tmp_path, **kw):
    path = tmp_path / "spec.toml"
    path.write_text(text)
    with pytest.raises(SpecError) as info:
        load_spec(path, **kw)
    return info.value.problems


def locations(text, tmp_path, **kw):
    return [loc.split(" (line")[0] for loc, _ in problems(text, tmp_path, **kw)]


MINIMAL = """
[workloads.m]
generator = "lublin"
n = 50

[[schedulers]]
name = "easy"
"""


def test_minimal_spec_defaults(tmp_path):
    path = tmp_path / "mini.toml"
    path.write_text(MINIMAL)
    spec = load_spec(path)
    assert spec.name == "mini"
    assert spec.seeds == (1,)
    assert spec.metrics == DEFAULT_METRICS
    assert spec.trace_dir == tmp_path.resolve()
    assert spec.workloads["m"].kind == "lublin"
    assert spec.workloads["m"].options == {"n": [50]}
    (s,) = spec.schedulers
    assert (s.name, s.label, s.params, s.workloads, s.overrun) == (
        "easy", "easy", {}, ("m",), "extend")
    assert spec.figures == ()


def test_full_spec(tmp_path, trace):
    text = f"""
name = "full"
description = "all keys"
replications = 3
metrics = ["mean_bsld", "utilization"]
trace_dir = "{tmp_path}"
overrun = "kill"
check = true
keep_jobs = true

[workloads.t]
trace = "{trace.name}"
machine_size = 8
oversize = "clamp"
size_from = "allocated"
skip_bad_lines = true
window = [[0, 100], [0, inf]]
first = [1, 2]
alpha = [0, 0.5]
load_scale = [1.0, 2]
zip = [["alpha", "load_scale"]]

[[schedulers]]
name = "easy"
label = "EASY"
params = {{ requeue = ["front", "order"] }}
overrun = "extend"
workloads = ["t"]

[[figures]]
name = "f1"
kind = "bar"
x = "alpha"
y = "mean_bsld"
group_by = "requeue"
facet_by = "window"
where = {{ first = [1, 2] }}
title = "T"
xlabel = "X"
ylabel = "Y"
logx = true
logy = true
"""
    spec = parse_spec(text, tmp_path / "full.toml")
    assert spec.seeds == (1, 2, 3)
    assert spec.check and spec.keep_jobs
    w = spec.workloads["t"]
    assert w.path == str(trace.resolve())
    assert w.options["window"] == [(0.0, 100.0), (0.0, math.inf)]
    assert w.options["alpha"] == [0.0, 0.5] and w.options["load_scale"] == [1.0, 2.0]
    assert w.zip == (("alpha", "load_scale"),)
    s = spec.schedulers[0]
    assert (s.label, s.overrun, s.params) == ("EASY", "extend", {"requeue": ["front", "order"]})
    f = spec.figures[0]
    assert (f.x, f.group_by, f.facet_by) == ("workload.alpha", "param.requeue",
                                             "workload.window")
    assert f.where == {"workload.first": (1, 2)} and f.logy and f.kind == "bar"


def test_single_window_is_one_value(tmp_path, trace):
    spec = parse_spec(f'[workloads.t]\ntrace = "{trace}"\nwindow = [0, 1e6]\n'
                      '[[schedulers]]\nname = "fcfs"\n', tmp_path / "s.toml")
    assert spec.workloads["t"].options["window"] == [(0.0, 1e6)]


def test_every_problem_is_listed_with_its_location(tmp_path):
    text = """name = "bad"
seeds = [1, 1, -2]
metrics = ["mean_wait", "mean_bslowdown"]
colour = "red"

[workloads.sdsc]
trace = "missing.swf"
alpha = [0.0, -1.0]
first = 0
zip = [["alpha", "load_scale"]]

[workloads.gen]
generator = "lublin"
n = [100, 200]
seed = 3
estimates = "perfect"

[workloads.both]
generator = "lublin"
trace = "x.swf"

[[schedulers]]
name = "esay"

[[schedulers]]
name = "easy"
params = { requeue = ["front", "back"], depth = 3 }
workloads = ["sdsc", "nope"]

[[figures]]
x = "alpha"
y = "mean_bsld"
group_by = "colour"
kind = "pie"
"""
    found = problems(text, tmp_path)
    locs = [loc for loc, _ in found]
    assert locs == [
        "colour (line 4)", "seeds[1] (line 2)", "seeds[2] (line 2)", "metrics[1] (line 3)",
        "workloads.sdsc.trace (line 7)", "workloads.sdsc.first (line 9)",
        "workloads.sdsc.alpha[1] (line 8)", "workloads.sdsc.zip[0] (line 10)",
        "workloads.gen.seed (line 15)", "workloads.gen.estimates (line 16)",
        "workloads.both (line 18)", "schedulers[0].name (line 23)",
        "schedulers[1].params.requeue[1] (line 27)", "schedulers[1].params.depth (line 27)",
        "schedulers[1].workloads[1] (line 28)", "figures[0].kind (line 34)",
        "figures[0].group_by (line 33)"]
    messages = dict(found)
    assert "accepted: name, description" in messages["colour (line 4)"]
    assert "no such file" in messages["workloads.sdsc.trace (line 7)"]
    assert "accepted: conservative, easy, fcfs" in messages["schedulers[0].name (line 23)"] \
        or "easy" in messages["schedulers[0].name (line 23)"]
    assert "accepted: one of front, order" in messages["schedulers[1].params.requeue[1] (line 27)"]
    assert "'load_scale' is not a key" in messages["workloads.sdsc.zip[0] (line 10)"]
    # One error whose text lists them all.
    path = tmp_path / "spec.toml"
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert f"{len(found)} problems" in str(info.value)
    assert all(loc in str(info.value) for loc in locs)


@pytest.mark.parametrize("body, where", [
    ('seeds = [1]\nreplications = 2\n', "replications"),
    ("replications = 0\n", "replications"),
    ("seeds = []\n", "seeds"),
    ('seeds = ["a"]\n', "seeds[0]"),
    ("metrics = []\n", "metrics"),
    ('name = "a b"\n', "name"),
    ("overrun = \"never\"\n", "overrun"),
    ("check = 1\n", "check"),
    ('trace_dir = "no/such/folder"\n', "trace_dir"),
])
def test_top_level_problems(tmp_path, body, where):
    assert locations(body + MINIMAL, tmp_path) == [where]


@pytest.mark.parametrize("table, where", [
    ('generator = "markov"', "workloads.w.generator"),
    ('generator = "lublin"\nn = []', "workloads.w.n"),
    ('generator = "lublin"\nn = 1.5', "workloads.w.n"),
    ('generator = "lublin"\nmachine = 0', "workloads.w.machine"),
    ('generator = "lublin"\ntyped = "yes"', "workloads.w.typed"),
    ('generator = "lublin"\nload_scale = 0', "workloads.w.load_scale"),
    ('generator = "lublin"\nalpha = nan', "workloads.w.alpha"),
    ('generator = "lublin"\nwindow = [10, 5]', "workloads.w.window"),
    ('generator = "lublin"\nwindow = [[0, 5], [1]]', "workloads.w.window[1]"),
    ('generator = "lublin"\noversize = "skip"', "workloads.w.oversize"),
    ('generator = "lublin"\nn = [1, 2]\nmachine = [1, 2, 3]\nzip = [["n", "machine"]]',
     "workloads.w.zip[0]"),
    ('generator = "lublin"\nn = [1, 2]\nzip = [["n"]]', "workloads.w.zip[0]"),
    ('generator = "lublin"\nzip = "n"', "workloads.w.zip"),
    ('generator = "lublin"\nn = [1, 2]\nmachine = [1, 2]\nalpha = [0, 1]\n'
     'zip = [["n", "machine"], ["machine", "alpha"]]', "workloads.w.zip[1]"),
    ('trace = 3', "workloads.w.trace"),
    ('generator = "lublin"\nmax_est = 600', "workloads.w.max_est"),
    ('generator = "lublin"\nstart_hour = 24', "workloads.w.start_hour"),
    ('generator = "lublin"\nmax_est = 7200\nestimates = ["tsafrir", "exact"]', "workloads.w"),
])
def test_workload_problems(tmp_path, table, where):
    text = f"[workloads.w]\n{table}\n[[schedulers]]\nname = \"easy\"\n"
    assert locations(text, tmp_path) == [where]


def test_no_workloads_and_no_schedulers(tmp_path):
    assert locations('name = "x"\n', tmp_path) == ["workloads", "schedulers"]


@pytest.mark.parametrize("entry, where", [
    ('name = "easy"\nparams = { requeue = "sideways" }', "schedulers[0].params.requeue"),
    ('name = "easy"\nparams = "front"', "schedulers[0].params"),
    ('name = "easy"\nfoo = 1', "schedulers[0].foo"),
    ('name = "easy"\noverrun = "x"', "schedulers[0].overrun"),
    ('name = "easy"\nworkloads = "m"', "schedulers[0].workloads"),
    ('name = "easy"\nzip = [["requeue", "x"]]', "schedulers[0].zip[0]"),
    ('label = "no name"', "schedulers[0].name"),
    ('name = "easy"\nlabel = "X"\n[[schedulers]]\nname = "conservative"\nlabel = "X"',
     "schedulers[1].label"),
])
def test_scheduler_problems(tmp_path, entry, where):
    text = f'[workloads.m]\ngenerator = "lublin"\n[[schedulers]]\n{entry}\n'
    assert where in locations(text, tmp_path)


def test_a_boolean_is_not_a_number_parameter(tmp_path):
    """TOML booleans for float and int parameters are refused as `--set p=true` is (a bool
    is an int in Python: p = true ran as p = 1.0), naming the key and the accepted values."""
    text = ('[workloads.l]\ngenerator = "lublin"\nn = 300\nmachine = 64\n[[schedulers]]\n'
            'name = "ckpt-backfill"\nparams = { p = true, t_checkpoint = [60, false], '
            'max_checkpoints = true }\n'
            '[workloads.l.components.bound]\nlimit = true\n')
    assert dict(problems(text, tmp_path)) == {
        "workloads.l.components.bound.limit (line 9)": "expected a number, got true; "
                                                       "accepted: finite, > 0 and <= 1e+10",
        "schedulers[0].params.p (line 7)": "expected a number, got true; accepted: finite, "
                                           "> 0 and <= 1",
        "schedulers[0].params.t_checkpoint[1] (line 7)": "expected a number, got false; "
                                                         "accepted: finite, >= 0 and <= 1e+10",
        "schedulers[0].params.max_checkpoints (line 7)": "expected an integer, got true; "
                                                         "accepted: >= 0",
    }


def test_misplaced_keys_say_where_they_belong(tmp_path):
    # TOML gives a key to the table above it: a scheduler's parameter beside its name, a
    # top-level key below a [[schedulers]] header, and [[workloads]] written as an array.
    text = ('[[workloads]]\ngenerator = "lublin"\n[[schedulers]]\nname = "ckpt-backfill"\n'
            'p = 0.2\nmetrics = ["mean_wait"]\n[[schedulers]]\nname = "nope"\np = 1\n')
    found = dict(problems(text, tmp_path))
    assert found["workloads (line 1)"].startswith(
        "written as an array of tables ([[workloads]])")
    assert "[workloads.NAME]" in found["workloads (line 1)"]
    assert found["schedulers[0].p (line 5)"].endswith(
        "p is a parameter of ckpt-backfill: give it in params = { p = ... }")
    assert found["schedulers[0].metrics (line 6)"].endswith(
        "metrics is a key of the spec's top level: write it above the first [table] or "
        "[[table]] header")
    # An unknown scheduler's keys are still listed, without a guess, with its name's problem.
    assert found["schedulers[1].p (line 9)"] == (
        "unknown key; accepted: name, label, params, zip, workloads, overrun")
    assert found["schedulers[1].name (line 8)"].startswith("unknown scheduler 'nope'")


@pytest.mark.parametrize("entry, where", [
    ('y = "mean_bsld"', "figures[0].x"),
    ('x = "seed"\ny = "nope"', "figures[0].y"),
    ('x = "seed"\ny = "mean_bsld"\nfacet_by = "colour"', "figures[0].facet_by"),
    ('x = "seed"\ny = "mean_bsld"\nwhere = { colour = 1 }', "figures[0].where.colour"),
    ('x = "seed"\ny = "mean_bsld"\nname = "a/b"', "figures[0].name"),
    ('x = "seed"\ny = "mean_bsld"\nlogy = "yes"', "figures[0].logy"),
    ('x = "seed"\ny = "mean_bsld"\nbins = 3', "figures[0].bins"),
])
def test_figure_problems(tmp_path, entry, where):
    text = MINIMAL + f"[[figures]]\n{entry}\n"
    assert locations(text, tmp_path) == [where]


@pytest.mark.parametrize("key", ["x", "group_by", "facet_by"])
def test_a_figure_column_key_takes_one_column(tmp_path, key):
    entry = {"x": 'x = "seed"', "group_by": "", "facet_by": ""}
    entry[key] = f'{key} = ["scheduler", "seed"]'
    text = MINIMAL + "[[figures]]\n" + "\n".join(filter(None, entry.values()))
    text += '\ny = "mean_bsld"\n'
    ((loc, message),) = problems(text, tmp_path)
    assert loc.startswith(f"figures[0].{key}")
    assert message.startswith("expected one column name, got ['scheduler', 'seed']")


def test_duplicate_figure_names(tmp_path):
    fig = '[[figures]]\nname = "a"\nx = "seed"\ny = "mean_wait"\n'
    assert locations(MINIMAL + fig + fig, tmp_path) == ["figures[1].name"]


def test_invalid_toml_is_one_problem(tmp_path):
    found = problems("name = \n", tmp_path)
    assert len(found) == 1 and found[0][0] == "toml" and "line 1" in found[0][1]


def test_toml_nested_too_deep_is_one_problem(tmp_path):
    found = problems("name = " + "[" * 100_000 + "]" * 100_000 + "\n", tmp_path)
    assert len(found) == 1 and found[0][0] == "toml" and "nested too deep" in found[0][1]


def test_unreadable_spec(tmp_path):
    with pytest.raises(SpecError, match="cannot read"):
        load_spec(tmp_path / "absent.toml")


def test_trace_dir_resolution(tmp_path, trace):
    spec_dir = tmp_path / "specs"
    spec_dir.mkdir()
    body = f'[workloads.t]\ntrace = "{trace.name}"\n[[schedulers]]\nname = "easy"\n'
    path = spec_dir / "s.toml"
    # Relative to the spec's folder by default: the trace is not there.
    path.write_text(body)
    with pytest.raises(SpecError, match="no such file"):
        load_spec(path)
    # trace_dir in the spec, relative to the spec's folder.
    path.write_text('trace_dir = ".."\n' + body)
    assert load_spec(path).workloads["t"].path == str(trace.resolve())
    # --trace-dir wins over the spec's trace_dir.
    path.write_text('trace_dir = "elsewhere"\n' + body)
    assert load_spec(path, trace_dir=tmp_path).workloads["t"].path == str(trace.resolve())


def test_refused_parameter_combinations_are_reported(tmp_path, monkeypatch):
    """A policy may refuse a combination of individually valid values."""
    import ckptsim.experiments.spec as spec_module

    real = spec_module._check_combinations
    calls = []

    def spy(problems, loc, name, params, zips):
        calls.append((loc, name, params))
        real(problems, loc, name, params, zips)

    monkeypatch.setattr(spec_module, "_check_combinations", spy)
    path = tmp_path / "s.toml"
    path.write_text(MINIMAL.replace('name = "easy"', 'name = "easy"\n'
                                    'params = { requeue = ["front", "order"] }'))
    load_spec(path)
    assert calls == [("schedulers[0]", "easy", {"requeue": ["front", "order"]})]


def test_one_scheduler_may_have_several_entries_under_its_label(tmp_path):
    """Two entries of the same scheduler (another parameter grid each) share its name as
    label, as before; two different schedulers may not share one."""
    text = ('[workloads.m]\ngenerator = "lublin"\nn = 50\n[[schedulers]]\nname = "easy"\n'
            '[[schedulers]]\nname = "easy"\nparams = { requeue = "order" }\n')
    path = tmp_path / "spec.toml"
    path.write_text(text)
    assert [s.label for s in load_spec(path).schedulers] == ["easy", "easy"]
    found = dict(problems(text.replace('name = "easy"\nparams', 'name = "fcfs"\nlabel = '
                                       '"easy"\nparams'), tmp_path))
    assert found["schedulers[1].label (line 8)"] == (
        "'easy' is also schedulers[0]'s label, for another scheduler (easy); give each "
        "scheduler a label of its own")


def test_a_workload_without_trace_or_generator_shows_its_keys(tmp_path):
    found = dict(problems('[workloads.l]\ngenerater = "lublin"\nn = 50\n[[schedulers]]\n'
                          'name = "easy"\n', tmp_path))
    assert found["workloads.l (line 1)"] == (
        "give exactly one of trace = PATH or generator = 'lublin' | 'grid' | 'htc'; the table "
        "has: generater, n")


def test_values_valid_only_together_are_accepted_and_bad_combinations_refused(tmp_path):
    """Each value is checked beside the entry's other values, not only beside the defaults:
    scojo-pect's three shares must sum to 1, so any one of 1/3 is refused beside the
    defaults of the other two (0.2/0.3/0.5) but not beside the entry's own."""
    head = '[workloads.m]\ngenerator = "lublin"\nn = 50\n[[schedulers]]\nname = "scojo-pect"\n'
    path = tmp_path / "spec.toml"
    path.write_text(head + "params = { share_short = 0.4, share_medium = 0.3, "
                           "share_long = 0.3, ratio_low = 0.96, ratio_high = 1.0 }\n")
    (s,) = load_spec(path).schedulers
    assert s.params["share_short"] == [0.4] and s.params["ratio_low"] == [0.96]
    # Axes: each value sums to 1 with some value of the others, but the grid's combinations
    # that do not are refused.
    found = problems(head + "params = { share_short = [0.2, 0.3], share_medium = [0.3, 0.2], "
                            "share_long = 0.5 }\n", tmp_path)
    assert [loc for loc, _ in found] == ["schedulers[0].params (line 6)"] * 2
    assert "'share_short': 0.2, 'share_medium': 0.2" in found[0][1]
    # A value no value of the others accepts is refused at its own location.
    assert locations(head + "params = { share_short = [0.2, 0.4], share_medium = 0.3, "
                            "share_long = 0.5 }\n", tmp_path) == [
        "schedulers[0].params.share_short[1]"]
    # A value refused whatever the others are keeps its own location.
    assert locations(head + "params = { share_short = 1.5, share_medium = 0.3 }\n",
                     tmp_path) == ["schedulers[0].params.share_short"]


def test_the_validation_example_of_experiments_md_is_what_a_sweep_says(tmp_path, capsys):
    """docs/experiments.md's five problems of bad.toml, from a spec with those lines ("..."
    ends a line the page shortens; its accepted schedulers had been three)."""
    import re

    from ckptsim.cli import main

    doc = (Path(__file__).resolve().parents[1] / "docs" / "experiments.md").read_text()
    block = re.search(r"```\n(ckptsim: error: bad\.toml.*?)```", doc, re.S).group(1)
    (tmp_path / "bad.toml").write_text(
        'name = "bad"\nseeds = [1]\nmetrics = ["mean_wait"]\ncolour = "red"\n'
        '[workloads.sdsc]\nmachine_size = 128\ntrace = "missing.swf"\nalpha = [0.5, -1.0]\n'
        'first = 10\n\n[[schedulers]]\nname = "esay"\n\n[[schedulers]]\n'
        'name = "conservative"\nparams = { requeue = ["front", "back"] }\n')
    data = tmp_path / "data"
    data.mkdir()
    assert main(["sweep", str(tmp_path / "bad.toml"), "--dry-run", "--trace-dir",
                 str(data)]) == 2
    said = " ".join(capsys.readouterr().err.replace(str(data), "/data").split())
    shown = " ".join(block.split()).replace("bad.toml", str(tmp_path / "bad.toml"))
    for part in re.split(r"\s*\.\.\.[,.]?\s*", shown):
        assert part in said, part


def test_a_misspelt_section_name_has_its_line(tmp_path):
    # `[workload.NAME]` and `[[scheduler]]` create tables with no header of their own: the
    # problem is at the line of their first header, as for any other unknown key.
    text = ('name = "x"\n\n[workload.l]\ngenerator = "lublin"\n\n[workloads.m]\n'
            'generator = "lublin"\n\n[[scheduler]]\nname = "easy"\n\n[[schedulers]]\n'
            'name = "easy"\n\n[[scheduler]]\nname = "fcfs"\n')
    assert [loc for loc, _ in problems(text, tmp_path)] == [
        "workload (line 3)", "scheduler (line 9)"]
