"""Matrix expansion (products and zip groups), run identities, and matrix-level checks."""

from __future__ import annotations

import pytest

from ckptsim import __version__
from ckptsim.experiments import grid
from ckptsim.experiments.matrix import build_matrix, run_identity
from ckptsim.experiments.spec import SpecError, parse_spec


def test_product_order_last_key_fastest():
    points = grid.expand({"a": [1, 2], "b": ["x", "y", "z"]})
    assert points == [{"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 1, "b": "z"},
                      {"a": 2, "b": "x"}, {"a": 2, "b": "y"}, {"a": 2, "b": "z"}]
    assert grid.size({"a": [1, 2], "b": ["x", "y", "z"]}) == 6


def test_zip_groups_vary_together():
    values = {"a": [1, 2, 3], "b": [10, 20, 30], "c": ["u", "v"]}
    points = grid.expand(values, [["a", "b"]])
    assert points == [{"a": 1, "b": 10, "c": "u"}, {"a": 1, "b": 10, "c": "v"},
                      {"a": 2, "b": 20, "c": "u"}, {"a": 2, "b": 20, "c": "v"},
                      {"a": 3, "b": 30, "c": "u"}, {"a": 3, "b": 30, "c": "v"}]
    assert grid.size(values, [["a", "b"]]) == 6


def test_two_zip_groups_and_key_order_kept():
    values = {"a": [1, 2], "c": [0], "b": [3, 4], "d": [5, 6], "e": [7, 8]}
    points = grid.expand(values, [["b", "a"], ["d", "e"]])
    assert len(points) == 4 == grid.size(values, [["b", "a"], ["d", "e"]])
    assert all(list(p) == ["a", "c", "b", "d", "e"] for p in points)
    assert {(p["a"], p["b"]) for p in points} == {(1, 3), (2, 4)}
    assert {(p["d"], p["e"]) for p in points} == {(5, 7), (6, 8)}


def test_empty_grid_is_one_point():
    assert grid.expand({}) == [{}]


def test_zip_checks():
    values = {"a": [1, 2], "b": [1, 2, 3], "c": [1, 2]}
    assert grid.check_zip(values, [["a", "c"]]) == []
    msgs = [m for _, m in grid.check_zip(values, [["a", "b"]])]
    assert msgs == ["zipped lists must have equal lengths (a has 2, b has 3)"]
    msgs = [m for _, m in grid.check_zip(values, [["a", "x"]])]
    assert "'x' is not a key" in msgs[0]
    msgs = [m for _, m in grid.check_zip(values, [["a", "c"], ["c", "b"]])]
    assert msgs[0] == "'c' is already in zip[0]"
    assert grid.check_zip(values, [["a"]])[0][1] == "a zip group needs at least two keys"


SPEC = """
name = "m"
seeds = [1, 2]

[workloads.small]
generator = "lublin"
n = [100, 200]
alpha = [0.0, 1.0]
load_scale = [1.0, 2.0]
zip = [["alpha", "load_scale"]]

[workloads.other]
generator = "lublin"
n = 300

[[schedulers]]
name = "easy"
params = { requeue = ["front", "order"] }
workloads = ["small"]

[[schedulers]]
name = "fcfs"
label = "FCFS"
"""


def matrix(text, tmp_path, name="s.toml"):
    return build_matrix(parse_spec(text, tmp_path / name))


def test_matrix_size_and_order(tmp_path):
    runs = matrix(SPEC, tmp_path)
    # small: 2 n x 2 (alpha, load_scale) = 4 points x (easy 2 + fcfs 1) x 2 seeds = 24;
    # other: 1 point x fcfs x 2 seeds = 2.
    assert len(runs) == 26
    first = runs[0]
    assert (first.workload, first.scheduler, first.seed) == ("small", "easy", 1)
    assert first.source == {"n": 100}
    assert first.transforms == {"alpha": 0.0, "load_scale": 1.0}
    assert first.params == {"requeue": "front", "shadow_ties": "first"}
    assert [r.seed for r in runs[:4]] == [1, 2, 1, 2]
    assert [r.params["requeue"] for r in runs[:4]] == ["front", "front", "order", "order"]
    assert runs[4].scheduler == "FCFS" and runs[4].scheduler_name == "fcfs"
    assert {r.workload for r in runs if r.scheduler == "easy"} == {"small"}
    assert first.columns == {
        "experiment": "m", "workload": "small", "workload.n": 100, "workload.alpha": 0.0,
        "workload.load_scale": 1.0, "scheduler": "easy", "scheduler_name": "easy",
        "param.requeue": "front", "param.shadow_ties": "first", "overrun": "extend",
        "seed": 1}
    assert len({r.run_id for r in runs}) == 26


def test_run_ids_are_stable_and_ignore_names(tmp_path):
    a = matrix(SPEC, tmp_path)
    renamed = SPEC.replace('label = "FCFS"', 'label = "First come"').replace(
        "[workloads.other]", "[workloads.renamed]").replace('name = "m"', 'name = "z"')
    b = matrix(renamed, tmp_path, "other.toml")
    assert [r.run_id for r in a] == [r.run_id for r in b]
    # The identity is the documented hash: recomputing it by hand gives the same id.
    r = a[0]
    assert r.run_id == run_identity({"kind": "lublin", "n": 100},
                                    {"alpha": 0.0, "load_scale": 1.0}, "easy",
                                    {"requeue": "front"}, 1, "extend")
    assert len(r.run_id) == 64


def test_run_id_changes_with_inputs_and_version(tmp_path, monkeypatch):
    base = matrix(SPEC, tmp_path)[0].run_id
    assert matrix(SPEC.replace("seeds = [1, 2]", "seeds = [3]"), tmp_path)[0].run_id != base
    assert matrix(SPEC.replace("n = [100, 200]", "n = [101]"), tmp_path)[0].run_id != base
    import ckptsim.experiments.matrix as m

    monkeypatch.setattr(m, "__version__", __version__ + ".post1")
    assert matrix(SPEC, tmp_path)[0].run_id != base


def test_trace_identity_is_its_content(tmp_path):
    swf = "; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "t.swf").write_text(swf)
    (tmp_path / "b" / "t.swf").write_text(swf)
    body = '[workloads.t]\ntrace = "{}"\n[[schedulers]]\nname = "easy"\n'
    ra = matrix(body.format(tmp_path / "a" / "t.swf"), tmp_path)
    rb = matrix(body.format(tmp_path / "b" / "t.swf"), tmp_path)
    assert ra[0].run_id == rb[0].run_id and ra[0].path != rb[0].path
    (tmp_path / "b" / "t.swf").write_text(swf.replace("10 2", "11 2"))
    rc = matrix(body.format(tmp_path / "b" / "t.swf"), tmp_path)
    assert rc[0].run_id != ra[0].run_id


def test_duplicate_runs_are_refused(tmp_path):
    text = SPEC + '\n[[schedulers]]\nname = "fcfs"\nlabel = "again"\n'
    with pytest.raises(SpecError, match="is the same run as"):
        matrix(text, tmp_path)


def test_figure_must_name_every_varying_input(tmp_path):
    fig = '\n[[figures]]\nx = "n"\ny = "mean_wait"\ngroup_by = "scheduler"\n'
    with pytest.raises(SpecError) as info:
        matrix(SPEC + fig, tmp_path)
    (loc, msg), = info.value.problems
    assert loc == "figures[0]"
    assert "workload.alpha" in msg and "param.requeue" in msg and "workload" in msg
    ok = ('\n[[figures]]\nx = "n"\ny = "mean_wait"\ngroup_by = "scheduler"\n'
          'where = { workload = "small", alpha = 0.0, requeue = "front" }\n')
    assert len(matrix(SPEC + ok, tmp_path)) == 26


def test_figure_selecting_nothing(tmp_path):
    fig = '\n[[figures]]\nx = "n"\ny = "mean_wait"\nwhere = { n = 5 }\n'
    with pytest.raises(SpecError, match=r"selects no run of the matrix: no run has "
                                        r"workload.n in \[5\]; its values: "):
        matrix(SPEC + fig, tmp_path)


def test_short_column_names():
    from ckptsim.experiments.columns import resolve, short_names

    cols = ["workload", "seed", "workload.alpha", "param.p", "workload.x", "param.x"]
    assert resolve("alpha", cols) == "workload.alpha"
    assert resolve("param.p", cols) == "param.p" and resolve("p", cols) == "param.p"
    assert resolve("workload", cols) == "workload"
    with pytest.raises(KeyError, match="ambiguous: write workload.x or param.x"):
        resolve("x", cols)
    with pytest.raises(KeyError, match="unknown column 'colour'; accepted: workload, seed, "
                                       "alpha, p, workload.x, param.x"):
        resolve("colour", cols)
    assert short_names(cols) == ["workload", "seed", "alpha", "p", "workload.x", "param.x"]


def test_duplicates_are_listed_once_per_pair_of_configurations(tmp_path, monkeypatch):
    """Every seed of a duplicated configuration is one problem, counted; past ten pairs the
    rest are counted too (they were cut without a word)."""
    text = ('name = "dup"\nreplications = 30\n[workloads.lub]\ngenerator = "lublin"\nn = 50\n'
            '[workloads.lubcopy]\ngenerator = "lublin"\nn = 50\n[[schedulers]]\nname = "easy"\n'
            '[[schedulers]]\nname = "easy"\nlabel = "again"\n')
    with pytest.raises(SpecError) as info:
        matrix(text, tmp_path)
    lines = [m for _, m in info.value.problems]
    assert lines == [
        "lub x again seed=1 (n=50, requeue=front, shadow_ties=first) is the same run as lub x "
        "easy seed=1 (n=50, requeue=front, shadow_ties=first) (and at 29 more seeds); remove "
        "one of them",
        "lubcopy x easy seed=1 (n=50, requeue=front, shadow_ties=first) is the same run as lub x "
        "easy seed=1 (n=50, requeue=front, shadow_ties=first) (and at 29 more seeds); remove "
        "one of them",
        "lubcopy x again seed=1 (n=50, requeue=front, shadow_ties=first) is the same run as lub "
        "x easy seed=1 (n=50, requeue=front, shadow_ties=first) (and at 29 more seeds); remove "
        "one of them"]
    import ckptsim.experiments.matrix as matrix_module

    monkeypatch.setattr(matrix_module, "_duplicates",
                        lambda runs, most=2, f=matrix_module._duplicates: f(runs, most))
    with pytest.raises(SpecError) as info:
        matrix(text, tmp_path)
    assert [m for _, m in info.value.problems][-1] == (
        "... and 1 more pair(s) of configurations that give the same runs")


def test_a_grid_value_given_several_times_counts_seeds_and_copies_apart(tmp_path):
    """p = [0.2, 0.2, 0.2, 0.2] at one seed: four configurations give the run, at no other
    seed (the three duplicate pairs were counted as 'at 2 more seeds')."""
    text = ('name = "d"\nseeds = [1]\n[workloads.l]\ngenerator = "lublin"\nn = 300\n'
            'machine = 64\n[[schedulers]]\nname = "easy"\nparams = { requeue = ["front", '
            '"front", "front", "front"] }\n')
    with pytest.raises(SpecError) as info:
        matrix(text, tmp_path)
    (line,) = [m for _, m in info.value.problems]
    assert line.endswith("(n=300, machine=64, requeue=front, shadow_ties=first) (4 "
                         "configurations give it); "
                         "keep one of them")
    with pytest.raises(SpecError) as info:
        matrix(text.replace("seeds = [1]", "seeds = [1, 2, 3]"), tmp_path)
    (line,) = [m for _, m in info.value.problems]
    assert line.endswith("(4 configurations give it) (and at 2 more seeds); keep one of them")
    with pytest.raises(SpecError) as info:
        matrix(text.replace("seeds = [1]", "seeds = [1, 2]").replace(
            '"front", "front", "front", "front"', '"front", "front"'), tmp_path)
    (line,) = [m for _, m in info.value.problems]
    assert line.endswith("requeue=front, shadow_ties=first) (and at 1 more seed); remove one "
                         "of them")
