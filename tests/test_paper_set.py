"""`ckptsim paper NAME FIGURE --set KEY=VALUE`: a scheduler's (or a component's) parameter on
every run of the figures, checked as `run --set` checks it, in the specs and the run ids (so a
reading's runs stay apart in the store), recorded in the folder; without it, nothing changes."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from helpers import TRACES, trace

from ckptsim.cli import build_parser, main
from ckptsim.cli.papers import _PAPERS, check_options
from ckptsim.experiments.estimate import planned
from ckptsim.experiments.papers import settings, settings_policy

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _command(argv: list[str]):
    """The parsed paper command: its paper, options and `--set` values (as the command
    resolves them, nothing run)."""
    args = build_parser().parse_args(argv)
    check_options(args)
    paper = _PAPERS[args.paper]
    opt = paper.options(args)
    paper.check(args.figure, opt)
    return args, paper, opt, settings.resolve(paper, args.figure, opt, args.set)


def _runs(paper, figure, opt, sets):
    specs = {k: settings.apply(v, sets) for k, v in paper.specs(figure, opt).items()}
    plans = planned(specs, paper.trace_folder(opt, Path(".")))
    assert len(plans) == len(specs)  # every spec, with the values set, still plans
    return [run for plan in plans.values() for run in plan.runs]


_T = ["--trace-dir", str(TRACES)]
#: Per paper: a small command and what it sets (scheduler keys, and forshaw a component's).
CASES = [
    ("niu", ["fig4", "--traces", "KTH-SP2", "--first", "300", *_T], "shadow_ties", "all"),
    ("niu", ["fig6", "--traces", "KTH-SP2", "--first", "300", *_T], "rejoin_order", "size"),
    ("jones", ["fig7", "--per-cluster", "50", "--replications", "1"], "vacated", "now"),
    ("jones", ["ctmr", "--per-cluster", "50", "--replications", "1"], "ctmr_restoring", "skip"),
    ("shi", ["fig11", "--first", "200"], "reserve_first", True),
    ("shi", ["traces", "--traces", "KTH-SP2", "--first", "200", *_T], "nodes", "unclaimed"),
    ("forshaw", ["fig6", "--days", "1", "--replications", "2"], "random_over", "machines"),
    ("forshaw", ["fig6", "--days", "1", "--replications", "2"], "power.idle_timeout",
     1800.0),
    ("oliner", ["fig6", "--traces", "NASA", "--first", "300", "--levels", "0", "1", *_T],
     "at_now", "past"),
    ("oliner", ["fig3", "--traces", "NASA", "--first", "300", "--counts", "0", "10", *_T],
     "repack", "policy"),
]


@pytest.mark.parametrize(("name", "argv", "key", "value"), CASES)
def test_the_value_reaches_every_run(name, argv, key, value, tmp_path):
    trace("KTH-SP2-1996-2.1-cln.swf.gz")
    shown = str(value).lower() if isinstance(value, bool) else (
        f"{value:g}" if isinstance(value, float) else value)
    base = ["paper", name, *argv, "--out", str(tmp_path)]
    _, paper, opt, sets = _command([*base, "--set", f"{key}={shown}"])
    _, _, _, none = _command(base)
    runs, plain = _runs(paper, argv[0], opt, sets), _runs(paper, argv[0], opt, none)
    assert len(runs) == len(plain) > 0
    if "." in key:
        component, _, k = key.partition(".")
        assert all(r.components[component][k] == value for r in runs)
        assert all(r.components[component].get(k) != value for r in plain)
        reached = runs
    else:
        reached = [r for r in runs if key in r.params]
        assert reached and all(r.params[key] == value for r in reached)
        assert all(r.params[key] != value for r in plain if key in r.params)
    # Other run ids: a reading's runs are runs of their own; the runs of a scheduler that
    # does not declare the key are the figures' own.
    ids = {r.run_id for r in reached}
    assert not ids & {r.run_id for r in plain}
    assert {r.run_id for r in runs} - ids <= {r.run_id for r in plain}
    assert sets.given == (f"{key}={shown}",)


_F = ["--days", "1", "--replications", "2", "--durations", "1"]
#: A checkpoint policy's own option: the figure, the option, what it adds to a policy string
#: and the runs it reaches (their policy strings, as the figure writes them: a predicate).
POLICY_CASES = [
    ("fig7", "late", "adopt", "scheduled:late=adopt", lambda s: "scheduled" in s),
    ("fig6", "restart", "600", ",restart=600", lambda s: s != "none"),
    ("fig6", "save", "end", ",save=end", lambda s: s.startswith("opt")),
    ("fig7", "margin", "5.0", "scheduled:margin=5", lambda s: "scheduled" in s),
]


@pytest.mark.parametrize(("figure", "key", "value", "written", "reaches"), POLICY_CASES)
def test_a_policy_option_reaches_the_runs_whose_policy_declares_it(
        figure, key, value, written, reaches, tmp_path):
    base = ["paper", "forshaw", figure, *_F, "--out", str(tmp_path)]
    _, paper, opt, sets = _command([*base, "--set", f"checkpoint.policy.{key}={value}"])
    _, _, _, none = _command(base)
    runs, plain = _runs(paper, figure, opt, sets), _runs(paper, figure, opt, none)
    assert len(runs) == len(plain) > 0
    assert sets.given == (f"checkpoint.policy.{key}={value}",)
    plain_ids = {r.run_id for r in plain}
    reached = 0
    for run, own in zip(runs, plain, strict=True):
        text, before = (str(r.components["checkpoint"]["policy"]) for r in (run, own))
        if reaches(before):
            reached += 1
            # the option in the part that declares it, the rest of the string as it was
            assert written in text and text.replace(written, written.partition(":")[0]
                                                    if ":" in written else "") == before
            assert run.run_id not in plain_ids  # a run of its own, stored apart
        else:
            assert text == before and run.run_id == own.run_id  # reused as it is
    assert 0 < reached < len(runs)
    # The rows of these runs come back under the figure's own strings (`common.run_spec`).
    names = settings_policy.names(next(iter(paper.specs(figure, opt).values())), sets.policy)
    assert len(names) == reached // 2  # 2 replications a string
    assert all(reaches(old) and written in new for new, old in names.items())


def test_a_policy_option_overrides_one_given_and_cost_options_go_once():
    from ckptsim.experiments.papers.settings_policy import set_option

    assert set_option("opt:cost=60", "save", "end") == "opt:cost=60,save=end"
    assert set_option("opt:cost=60,save=start", "save", "end") == "opt:cost=60,save=end"
    assert set_option("none", "restart", "600") == "none"  # never saves: nothing to restart
    assert set_option("none", "late", "adopt") == "none"
    assert (set_option("fixed:interval=600,cost=60+closedcluster+scheduled", "late", "skip")
            == "fixed:interval=600,cost=60+closedcluster+scheduled:late=skip")
    assert (set_option("fixed:interval=600+scheduled:cost=60", "restart", "600")
            == "fixed:interval=600+scheduled:cost=60,restart=600")  # beside the cost
    assert (set_option("fixed:interval=600,cost=60+scheduled:restart=9", "restart", "600")
            == "fixed:interval=600,cost=60+scheduled:restart=600")  # where it is given
    assert set_option("fixed:interval=600,cost=1e+2", "restart", "0") == \
        "fixed:interval=600,cost=1e+2,restart=0"


def test_niu_fig5_runs_get_the_value_on_each_scheduler(tmp_path):
    _, paper, opt, sets = _command(["paper", "niu", "fig5", "--first", "300", *_T,
                                    "--out", str(tmp_path), "--set", "shadow_ties=all"])
    runs = paper.direct_runs("fig5", opt)
    assert [s for s, _, _ in runs] == ["easy", "easy", "ckpt-backfill"]
    with settings.using(sets):
        for scheduler, _, params in runs:
            assert settings.scheduler_params(scheduler, params)["shadow_ties"] == "all"
    assert settings.scheduler_params("easy", {}) == {}  # outside the command: none


ERRORS = [
    (["niu", "fig4", "--set", "nope=1"], "--set nope: no scheduler of niu fig4 takes nope: "
     "easy takes requeue, shadow_ties; ckpt-backfill takes requeue, shadow_ties, p,"),
    (["niu", "fig4", "--set", "shadow_ties=most"], "--set shadow_ties: got 'most'; accepted: "
     "one of first, all"),
    (["niu", "fig4", "--set", "overdue=now"], "--set overdue: niu sets it with an option of "
     "its own: use --reading"),
    (["niu", "fig4", "--set", "p=0.3"], "--set p: niu fig4 sweeps it (ckpt-backfill ckpt: "
     "[0.1, 0.2,"),
    (["niu", "fig7", "--set", "overhead=true"], "--set overhead: niu fig7 gives its runs "
     "different values of it (false in ckpt-backfill no-overhead; true in ckpt-backfill ckpt)"),
    (["niu", "fig1", "--set", "shadow_ties=all"], "--set: niu fig1 runs no simulations"),
    (["niu", "fig4", "--set", "power.idle_timeout=60"], "--set power.idle_timeout: the runs of "
     "niu fig4 have no component 'power'; their components: none"),
    (["niu", "fig4", "--set", "shadow_ties"], "--set: expected key=value, got 'shadow_ties'"),
    (["jones", "fig7", "--set", "coalloc=true"], "--set coalloc: jones fig7 gives its runs "
     "different values of it"),
    (["jones", "fig17", "--set", "overhead=60"], "--set overhead: jones fig17 sweeps it"),
    (["shi", "fig11", "--set", "reserve_first=maybe"], "--set reserve_first: expected true or "
     "false, got 'maybe'"),
    (["shi", "fig11", "--set", "checkpoint=alc"], "--set checkpoint: shi fig11 gives its runs "
     "different values of it"),
    (["shi", "table3", "--set", "nodes=highest"], "--set: shi table3 runs no simulations"),
    (["forshaw", "fig6", "--set", "availability.lead=60"], "--set availability.lead: forshaw "
     "sets it with an option of its own: use --lead"),
    (["forshaw", "fig6", "--set", "power.idle_timeout=-1"], "--set power.idle_timeout: got -1; "
     "accepted: >= 0"),
    (["forshaw", "fig6", "--set", "power.sleepy=1"], "--set power.sleepy: component power takes "
     "no sleepy; it takes idle_timeout, state"),
    (["forshaw", "fig6", "--set", "idle_timeout=60"], "--set idle_timeout: no scheduler of "
     "forshaw fig6 takes idle_timeout: htc takes requeue, placement, seed, random_over, "
     "efficient_by (COMPONENT.KEY sets a component's parameter; its runs' components: "
     "availability, bound, checkpoint, energy, power)"),
    (["oliner", "fig3", "--set", "confidence=0.5"], "--set confidence: oliner fig3 sweeps it"),
    (["oliner", "options", "--set", "pf=max"], "--set pf: oliner options gives its runs "
     "different values of it"),
    (["oliner", "fig9", "--set", "seed=3"], "--set seed: oliner sets it with an option of its "
     "own: use --predictor-draws"),
    (["niu", "claims", "--set", "shadow_ties=all"], "--set: does not apply to niu claims"),
    (["forshaw", "fig4", *_F, "--set", "checkpoint.policy.late=adopt"],
     "--set checkpoint.policy.late: no checkpoint policy of forshaw fig4 takes late: none "
     "takes no option of its own; opt takes save; and each plan but none alone the cost "
     "options cost, bandwidth, memory, constant, restart, mtbf, suspended"),
    (["forshaw", "fig7", *_F, "--set", "checkpoint.policy.late=later"],
     "--set checkpoint.policy.late: got 'later'; accepted: one of cut, skip, adopt"),
    (["forshaw", "fig6", *_F, "--set", "checkpoint.policy.restart=-1"],
     "--set checkpoint.policy.restart: got -1; accepted: >= 0"),
    (["forshaw", "fig6", *_F, "--set", "checkpoint.policy.bandwidth=1"],
     "--set checkpoint.policy.bandwidth: give cost or bandwidth, not both (in 'opt:cost=60')"),
    (["forshaw", "fig6", *_F, "--set", "checkpoint.policy.interval=600"],
     "--set checkpoint.policy.interval: forshaw fig6 gives its runs different values of it "
     "(600.0 in fixed:interval=600,cost=60; 1200.0 in fixed:interval=1200,cost=60;"),
    (["forshaw", "fig11", *_F, "--set", "checkpoint.policy.delay=0"],
     "--set checkpoint.policy.delay: forshaw fig11 gives its runs different values of it"),
    (["forshaw", "fig6", "--set", "checkpoint.policy.cost=120"], "--set "
     "checkpoint.policy.cost: forshaw sets it with an option of its own: use --durations"),
    (["forshaw", "fig11", "--set", "checkpoint.policy.first=delay"], "--set checkpoint.policy."
     "first: forshaw sets it with an option of its own: use --startdelay-first"),
    (["niu", "fig4", "--set", "checkpoint.policy.late=adopt"], "--set checkpoint.policy.late: "
     "the runs of niu fig4 have no checkpoint policy (no checkpoint component; their "
     "components: none)"),
    (["shi", "fig11", "--set", "checkpoint.policy.reading=literal"], "--set checkpoint.policy."
     "reading: the runs of shi fig11 have no checkpoint policy"),
    (["jones", "fig7", "--set", "checkpoint.policy.restart=600"], "--set checkpoint.policy."
     "restart: the runs of jones fig7 have no checkpoint policy"),
    (["oliner", "fig6", "--set", "checkpoint.policy.restart=600"], "--set checkpoint.policy."
     "restart: the runs of oliner fig6 have no checkpoint policy"),
]


@pytest.mark.parametrize(("argv", "error"), ERRORS)
def test_a_bad_set_is_one_line(argv, error, tmp_path, capsys):
    out = tmp_path / "out"
    extra = _T if argv[0] in ("niu", "oliner") and argv[1] != "claims" else []
    if argv[1] == "claims":
        out.mkdir()
    assert main(["paper", *argv, "--out", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ckptsim: error: {error}"), err
    assert err.count("\n") == 1
    assert not (out / "store").exists()  # refused before anything ran


def test_the_store_keeps_readings_apart_and_reuses_them(tmp_path, capsys):
    trace("KTH-SP2-1996-2.1-cln.swf.gz")
    out = tmp_path / "niu"
    argv = ["paper", "niu", "fig4", "--traces", "KTH-SP2", "--first", "300", *_T, "--out",
            str(out), "--jobs", "0"]
    assert main(argv) == 0
    plain_spec = (out / "fig4.toml").read_text()
    plain_csv = (out / "fig4.csv").read_text()
    manifest = json.loads((out / "manifest.json").read_text())
    assert "--set" not in manifest["files"]["fig4.csv"]["options"]
    capsys.readouterr()
    assert main([*argv, "--set", "shadow_ties=all"]) == 0
    printed = capsys.readouterr().out
    assert "12 runs simulated" in printed and "were already in" not in printed
    assert _stored(out) == 24  # the 12 runs of each reading
    spec = (out / "fig4.toml").read_text()
    assert spec != plain_spec and spec.count('shadow_ties = "all"') == 3
    recorded = json.loads((out / "manifest.json").read_text())["files"]["fig4.csv"]["options"]
    assert recorded["--set"] == ["shadow_ties=all"]
    # The same reading again: every run reused.
    assert main([*argv, "--set", "shadow_ties=all"]) == 0
    printed = capsys.readouterr().out
    assert "12 runs (12 already in" in printed and "0 runs simulated" in printed
    # The folder's figures are graded as they are, and say what they were made with.
    assert main(["paper", "niu", "claims", "--out", str(out)]) == 0
    assert "--set shadow_ties=all" in capsys.readouterr().out
    # Without --set again: the first runs, reused, and the same bytes.
    assert main(argv) == 0
    assert "0 runs simulated" in capsys.readouterr().out
    assert (out / "fig4.toml").read_text() == plain_spec
    assert (out / "fig4.csv").read_text() == plain_csv


def test_a_policy_option_keeps_its_runs_apart_and_reuses_the_others(tmp_path, capsys):
    out = tmp_path / "forshaw"
    argv = ["paper", "forshaw", "fig6", *_F, "--platform", "smallpool", "--out", str(out),
            "--jobs", "0"]
    assert main(argv) == 0
    plain = {n: (out / n).read_text() for n in ("fixed.toml", "fig6.csv",
                                                 "fig6-replications.csv")}
    capsys.readouterr()
    item = "checkpoint.policy.restart=600"
    assert main([*argv, "--set", item]) == 0
    # None never saves: its 2 runs are the figure's own; Opt and the 8 C(n), 18 runs, anew
    assert "18 runs simulated" in capsys.readouterr().out
    assert _stored(out) == 38
    spec = (out / "fixed.toml").read_text()
    assert spec.count("restart=600") == 9 and '"none"' in spec
    assert spec.replace(",restart=600", "") == plain["fixed.toml"]
    rows = (out / "fig6.csv").read_text().splitlines()
    assert [r.split(",")[:5] for r in rows] == [  # the figure's rows, named as its own
        r.split(",")[:5] for r in plain["fig6.csv"].splitlines()]
    recorded = json.loads((out / "manifest.json").read_text())["files"]["fig6.csv"]["options"]
    assert recorded["--set"] == [item]
    assert main([*argv, "--set", item]) == 0
    assert "0 runs simulated" in capsys.readouterr().out
    assert main(argv) == 0  # without it again: the figure's own runs and bytes
    assert "0 runs simulated" in capsys.readouterr().out
    assert {n: (out / n).read_text() for n in plain} == plain


def _stored(out: Path) -> int:
    from ckptsim.experiments.store import load_results

    rows, _ = load_results(out / "store", all_runs=True)
    return len({r["run_id"] for r in rows})


def test_a_folder_mixing_readings_is_named(tmp_path, capsys):
    trace("KTH-SP2-1996-2.1-cln.swf.gz")
    out = tmp_path / "niu"
    small = ["--traces", "KTH-SP2", "--first", "300", *_T, "--out", str(out), "--jobs", "0"]
    assert main(["paper", "niu", "fig1", *small]) == 0
    assert main(["paper", "niu", "fig4", *small, "--set", "shadow_ties=all"]) == 0
    capsys.readouterr()
    assert main(["paper", "niu", "claims", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "mixes" not in captured.err  # fig1 runs nothing: no --set reaches it
    assert main(["paper", "niu", "fig6", *small]) == 0
    capsys.readouterr()
    assert main(["paper", "niu", "claims", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "--set shadow_ties=all in fig4.csv; none in fig6.csv" in err, err


def test_without_set_the_specs_are_the_papers_own():
    text = '[[schedulers]]\nname = "easy"\n'
    assert settings.apply(text, settings.NONE) is text
    assert settings.apply(text) is text  # outside a command: none set


def test_apply_edits_params_tables_and_inline_components():
    text = ('name = "x"\n\n[workloads.a]\ntrace = "t.swf"\n'
            'components.rounding = { count_as = "utilized" }\n\n'
            '[workloads.b]\ngenerator = "htc"\n\n[workloads.b.components.power]\n'
            'idle_timeout = 900\n\n[[schedulers]]\nname = "easy"\nlabel = "e"\n\n'
            '[[schedulers]]\nname = "ckpt-backfill"\nparams = { p = [0.1, 0.2] }\n')
    sets = settings.Settings({"easy": {"shadow_ties": "all"},
                              "ckpt-backfill": {"shadow_ties": "all", "freeze": False}},
                             {"rounding": {"count_as": "lost"}, "power": {"state": "off"}},
                             ("x",))
    import tomllib

    spec = tomllib.loads(settings.apply(text, sets))
    assert spec["workloads"]["a"]["components"]["rounding"] == {"count_as": "lost"}
    assert spec["workloads"]["b"]["components"]["power"] == {"idle_timeout": 900,
                                                            "state": "off"}
    assert spec["schedulers"][0] == {"name": "easy", "label": "e",
                                     "params": {"shadow_ties": "all"}}
    assert spec["schedulers"][1]["params"] == {"p": [0.1, 0.2], "shadow_ties": "all",
                                               "freeze": False}


def _doc_commands() -> list[str]:
    text = (DOCS / "experiments.md").read_text()
    section = text.split("## Seed papers under another reading", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    commands = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            if line.startswith("ckptsim paper") and "--set" in line:
                commands.append(line.split("#", 1)[0])
    return commands


def test_the_docs_examples_parse(tmp_path):
    commands = _doc_commands()
    papers = set()
    for command in commands:
        argv = shlex.split(command)[1:]
        argv = [str(TRACES) if a == "../shared/data/traces" else a for a in argv]
        out = argv.index("--out")
        argv[out + 1] = str(tmp_path / argv[out + 1].strip("/").replace("/", "_"))
        _, paper, _, sets = _command(argv)
        assert sets, command
        papers.add(paper.name)
    assert papers == set(_PAPERS)  # one example per paper
