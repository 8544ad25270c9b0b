"""`ckptsim paper`: every option is declared once with the papers that use it, and a paper
refuses, in one line, an option it does not use (before writing or simulating anything)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from ckptsim.cli import build_parser, main
from ckptsim.cli.papers import PAPER_OPTIONS, PAPERS, accepted_options

#: A value each option accepts, so that only the refusal can stop the command.
VALUES = {"--jobs": ["1"], "--dask": ["local"], "--dask-timeout": ["2"], "--trace-dir": ["."],
          "--traces": ["KTH-SP2"], "--first": ["10"],
          "--estimates": ["exact"], "--replications": ["2"], "--failure-log": ["x.csv"],
          "--system": ["20"], "--loads": ["1.0"], "--counts": ["0"], "--levels": ["0.5"],
          "--failure-rate": ["seed"], "--ci-seeds": ["5"], "--full": [],
          "--per-cluster": ["10"], "--load": ["0.9"], "--days": ["1"],
          "--start": ["2010-01-15"], "--platform": ["smallpool"],
          "--availability-trace": ["x.avt"], "--yes": [], "--freeze": ["true"],
          "--retry": ["false"], "--replan": ["incremental"], "--startdelay-first": ["delay"],
          "--resume-after": ["60"], "--speeds": ["slowest"], "--power-draw": ["group"],
          "--lead": ["600"], "--reboot-duration": ["300"], "--slice-failures": ["scale"],
          "--jitter": ["0"], "--windows": ["2"], "--reading": ["estimate"],
          "--durations": ["1", "4"], "--checkpoint-share": ["1"], "--failure-span": ["run"],
          "--rounding": ["lost"], "--paired": ["mean"], "--predictor-draws": ["replication"],
          "--set": ["shadow_ties=all"]}

FIGURE = {"niu": "fig4", "oliner": "fig3", "shi": "fig11", "jones": "fig7", "forshaw": "fig6"}


def paper_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["paper"]


def test_the_parser_is_the_table():
    flags = [s for a in paper_parser()._actions for s in a.option_strings if s.startswith("--")
             and s != "--help"]
    # --csv is the claims pseudo-figure's own (not a paper's).
    assert sorted(flags) == sorted([o.flag for o in PAPER_OPTIONS] + ["--csv"])
    assert len({o.flag for o in PAPER_OPTIONS}) == len(PAPER_OPTIONS)  # each declared once
    assert set(VALUES) | {"--out"} == {o.flag for o in PAPER_OPTIONS}
    for o in PAPER_OPTIONS:
        assert o.papers and set(o.papers) <= set(PAPERS), o.flag
        assert o.help.strip(), o.flag
        if o.default is not None:
            assert f"default {o.default}" in o.help or f"{o.default} (default" in o.help, o.flag


OTHERS = [(o.flag, paper) for o in PAPER_OPTIONS for paper in PAPERS if paper not in o.papers]


@pytest.mark.parametrize(("flag", "paper"), OTHERS)
def test_an_option_a_paper_does_not_use_is_refused(flag, paper, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["paper", paper, FIGURE[paper], "--out", str(out), flag, *VALUES[flag]]
    assert main(argv) == 2
    captured = capsys.readouterr()
    accepted = ", ".join(accepted_options(paper))
    assert captured.err == (f"ckptsim: error: {flag}: does not apply to {paper}; {paper} "
                            f"accepts {accepted}\n")
    assert not out.exists()  # refused before anything is written


def test_the_refusals_of_the_brief():
    assert "--replications" not in accepted_options("shi")
    assert "--estimates" not in accepted_options("niu")
    assert "--trace-dir" not in accepted_options("jones")
    assert "--platform" in accepted_options("forshaw")
    assert accepted_options("niu", "tables") == ["--out"]


def test_shi_refuses_replications(tmp_path, capsys):
    assert main(["paper", "shi", "fig11", "--out", str(tmp_path / "shi"), "--first", "200",
                 "--replications", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: --replications: does not apply to shi; shi accepts "
                          "--out, --jobs, --dask, --dask-timeout, --yes, --trace-dir, --traces, "
                          "--first, --estimates, --set, "
                          "--ci-seeds")
    assert err.count("\n") == 1


def test_refused_before_its_value_is_checked(tmp_path, capsys):
    assert main(["paper", "jones", "fig7", "--out", str(tmp_path), "--first", "0"]) == 2
    assert capsys.readouterr().err.startswith("ckptsim: error: --first: does not apply to "
                                              "jones; jones accepts --out, --jobs, ")


def test_tables_accepts_out_only(tmp_path, capsys):
    assert main(["paper", "niu", "tables", "--out", str(tmp_path), "--first", "3"]) == 2
    assert capsys.readouterr().err == ("ckptsim: error: --first: does not apply to niu "
                                       "tables; niu tables accepts --out\n")


def test_defaults_are_filled_in_when_left_out():
    from ckptsim.cli.papers import check_options

    args = paper_parser().parse_args(["oliner", "fig3", "--out", "x"])
    check_options(args)
    assert (args.trace_dir, args.system, args.failure_rate, args.estimates) == (
        "../shared/data/traces", 20, "seed", "exact")
    assert args.replications is None and args.full is None


@pytest.mark.parametrize(("platform", "problem"), [
    ("nosuch", "unknown desktop pool 'nosuch'"),
    ("bgl", "unknown desktop pool 'bgl'"),
    ("missing.toml", "missing.toml: no such file"),
])
def test_forshaw_names_the_platform_option(platform, problem, tmp_path, capsys):
    out = tmp_path / "f"
    assert main(["paper", "forshaw", "baseline", "--out", str(out), "--days", "1",
                 "--platform", platform]) == 2
    err = capsys.readouterr().err
    assert err == (f"ckptsim: error: --platform: {problem}; accepted: newcastle, smallpool or "
                   f"a platform file (.toml) whose node types have power tables "
                   f"(docs/platforms.md)\n")
    assert "line" not in err and not (out / "baseline.toml").exists()


def test_forshaw_refuses_a_platform_without_power_tables(tmp_path, capsys):
    path = tmp_path / "plain.toml"
    path.write_text('[types.a]\ncores = 1\n\n[[groups]]\nname = "g"\nmachines = 2\n'
                    'type = "a"\n')
    assert main(["paper", "forshaw", "fig6", "--out", str(tmp_path / "f"), "--platform",
                 str(path)]) == 2
    assert f"--platform: {path}: not a desktop pool" in capsys.readouterr().err


@pytest.mark.parametrize(("paper", "count"), [("shi", 8), ("jones", 2)])  # + claims, decide
def test_tables_of_a_page_whose_only_tables_are_its_claims(paper, count, tmp_path, capsys):
    import shutil

    results = Path(__file__).resolve().parents[1] / "docs" / "results"
    folder = tmp_path / paper
    folder.mkdir()
    for path in (results / paper).glob("*.csv"):
        shutil.copy(path, folder / path.name)
    page = (results / f"{paper}.md").read_text()
    (tmp_path / f"{paper}.md").write_text(page)
    assert main(["paper", paper, "tables", "--out", str(folder)]) == 0
    assert (tmp_path / f"{paper}.md").read_text() == page
    assert f"{count} tables" in capsys.readouterr().out


def paper(name: str):
    from ckptsim.experiments.papers.base import all_papers

    return next(p for p in all_papers() if p.name == name)


def given(*argv: str) -> argparse.Namespace:
    from ckptsim.cli.papers import check_options

    args = paper_parser().parse_args([*argv, "--out", "x"])
    check_options(args)
    return args


def test_the_modelling_choices_reach_the_options():
    niu, forshaw, oliner = (paper(name) for name in ("niu", "forshaw", "oliner"))
    # Defaults: the committed runs' options (niu writes no extra ckpt-backfill parameter).
    assert niu.options(given("niu", "fig4")).params() == {}
    opt = forshaw.options(given("forshaw", "fig11"))
    assert (opt.startdelay_first, opt.resume_after, opt.lead, opt.reboot_duration) == (
        "interval", 0, 600, 300)
    opt = oliner.options(given("oliner", "fig3"))
    assert (opt.slice_failures, opt.jitter, opt.failure_span, opt.rounding,
            opt.predictor_draws) == ("keep", None, "submit", "utilized", "fixed")
    # Given: each lands in its field.
    assert niu.options(given("niu", "fig4", "--freeze", "false", "--retry", "true")
                       ).params() == {"freeze": False, "retry": True}
    assert niu.options(given("niu", "fig4", "--retry", "true")).params() == {"retry": True}
    assert niu.options(given("niu", "fig4", "--replan", "incremental")).params() == {
        "replan": "incremental"}
    opt = forshaw.options(given("forshaw", "fig11", "--startdelay-first", "delay",
                                "--resume-after", "900", "--lead", "0",
                                "--reboot-duration", "120"))
    assert (opt.startdelay_first, opt.resume_after, opt.lead, opt.reboot_duration) == (
        "delay", 900.0, 0.0, 120.0)
    opt = oliner.options(given("oliner", "fig3", "--slice-failures", "scale",
                               "--jitter", "0", "--failure-span", "run", "--rounding", "lost"))
    assert (opt.slice_failures, opt.jitter, opt.failure_span, opt.rounding) == (
        "scale", "0", "run", "lost")
    # The tie-break predictor's draws: given to a figure bgl-tiebreak runs in.
    for figure in ("fig9", "fig10", "tiebreak", "options", "all"):
        opt = oliner.options(given("oliner", figure, "--predictor-draws", "replication"))
        assert opt.predictor_draws == "replication"


def test_niu_params_reach_the_specs():
    niu = paper("niu")
    plain = niu.specs("fig6", niu.options(given("niu", "fig6")))["fig6"]
    spec = niu.specs("fig6", niu.options(given("niu", "fig6", "--freeze", "false")))["fig6"]
    assert "freeze" not in plain
    assert spec == plain.replace("params = { ", "params = { freeze = false, ")
    spec = niu.specs("fig6", niu.options(given("niu", "fig6", "--replan", "incremental")))
    assert spec["fig6"] == plain.replace("params = { ", 'params = { replan = "incremental", ')


@pytest.mark.parametrize(("argv", "error"), [
    (("niu", "fig4", "--freeze", "no"), "--freeze: got 'no'; accepted: true, false"),
    (("niu", "fig4", "--retry", "1"), "--retry: got '1'; accepted: true, false"),
    (("niu", "fig4", "--replan", "every"), "--replan: got 'every'; accepted: full, incremental"),
    (("niu", "fig4", "--reading", "literal"), "--reading: got 'literal'; accepted: estimate, "
     "now, now-backfilled, reservation, reservation-backfilled"),
    (("forshaw", "fig11", "--startdelay-first", "d"),
     "--startdelay-first: unknown 'd'; accepted: interval, delay"),
    (("forshaw", "fig11", "--resume-after", "-1"),
     "--resume-after: expected a number of seconds >= 0, got -1"),
    (("forshaw", "fig11", "--lead", "nan"), "--lead: expected a number of seconds >= 0, got nan"),
    (("forshaw", "fig11", "--reboot-duration", "inf"),
     "--reboot-duration: expected a number of seconds >= 0, got inf"),
    (("oliner", "fig3", "--slice-failures", "drop"),
     "--slice-failures: unknown 'drop'; accepted: keep, scale"),
    (("oliner", "fig3", "--jitter", "-5"),
     "--jitter: got '-5'; accepted: auto or a number of seconds >= 0"),
    (("oliner", "fig3", "--jitter", "soon"),
     "--jitter: got 'soon'; accepted: auto or a number of seconds >= 0"),
    (("oliner", "fig3", "--failure-span", "all"),
     "--failure-span: unknown 'all'; accepted: submit, run"),
    (("oliner", "fig3", "--rounding", "wasted"),
     "--rounding: unknown 'wasted'; accepted: utilized, lost"),
    (("oliner", "fig9", "--predictor-draws", "seed"),
     "--predictor-draws: unknown 'seed'; accepted: fixed, replication"),
])
def test_a_bad_modelling_choice_is_one_line_naming_its_flag(argv, error, tmp_path, capsys):
    out = tmp_path / "out"
    # (forshaw's Fig. 11 reads no trace folder: it would refuse --trace-dir.)
    folder = [] if argv[0] == "forshaw" else ["--trace-dir", str(tmp_path)]
    assert main(["paper", *argv, "--out", str(out), *folder]) == 2
    assert capsys.readouterr().err == f"ckptsim: error: {error}\n"
    assert not out.exists() or not any(out.iterdir())  # no spec, no run


def test_family_specs_cover_the_families_beyond_the_seeds_figures():
    # `ckptsim paper jones headline` runs the spec `headline` (a family outside the seed's
    # figures): specs() names it, so that the estimate can count its stored runs.
    jones = paper("jones")
    assert set(jones.specs("headline", jones.options(given("jones", "headline")))) == \
        {"headline"}


def _scoped():
    from ckptsim.experiments.papers.base import all_papers

    return [(p.name, flag, figures) for p in all_papers() for flag, figures in p.used_by.items()]


def test_the_figures_table_names_options_and_figures_the_paper_has():
    from ckptsim.cli.papers import EVERY_PAPER

    for name, flag, figures in _scoped():
        assert flag in accepted_options(name) and flag not in EVERY_PAPER, (name, flag)
        assert figures and len(set(figures)) == len(figures), (name, flag)
        for f in figures:
            assert paper(name).wanted(f) == [f], (name, flag, f)


@pytest.mark.parametrize(("name", "flag", "figures"), _scoped())
def test_a_figure_refuses_an_option_only_other_figures_use(name, flag, figures, tmp_path,
                                                           capsys):
    other = next(f for f in paper(name).figures() if f not in figures)
    out = tmp_path / "out"
    assert main(["paper", name, other, "--out", str(out), flag, *VALUES[flag]]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ckptsim: error: {flag}: does not apply to {name} {other}; {flag} "
                          f"is used by {name} {figures[0]}")
    assert err.endswith(" and all\n") and err.count("\n") == 1
    assert not out.exists()  # refused before anything is written


@pytest.mark.parametrize(("argv", "error"), [
    (("shi", "fig11", "--ci-seeds", "5"),
     "--ci-seeds: does not apply to shi fig11; --ci-seeds is used by shi arrivals, fig16 and all"),
    (("shi", "fig11", "--traces", "KTH-SP2"),
     "--traces: does not apply to shi fig11; --traces is used by shi traces and all"),
    (("oliner", "fig3", "--failure-rate", "log"),
     "--failure-rate: does not apply to oliner fig3; --failure-rate is used by oliner fig6, "
     "fig7, fig8, fig9, fig10, options and all"),
    (("oliner", "fig6", "--counts", "0", "500"),
     "--counts: does not apply to oliner fig6; --counts is used by oliner fig3, fig4, fig5 "
     "and all"),
    (("oliner", "balancing", "--predictor-draws", "replication"),
     "--predictor-draws: does not apply to oliner balancing; --predictor-draws is used by "
     "oliner fig9, fig10, options and all"),
    (("oliner", "balancing", "--counts", "0"),
     "--counts: does not apply to oliner balancing; --counts is used by oliner fig3, fig4, "
     "fig5 and all"),
    (("forshaw", "fig4", "--startdelay-first", "delay", "--availability-trace", "/nonexistent"),
     "--availability-trace: does not apply to forshaw fig4; --availability-trace is used by "
     "forshaw trace and all"),
    (("forshaw", "fig4", "--startdelay-first", "delay"),
     "--startdelay-first: does not apply to forshaw fig4; --startdelay-first is used by "
     "forshaw fig11 and all"),
])
def test_the_refused_figure_options_of_the_brief(argv, error, tmp_path, capsys):
    assert main(["paper", *argv, "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"ckptsim: error: {error}\n"


@pytest.mark.parametrize("argv", [
    ("oliner", "all", "--counts", "0", "--levels", "0.5", "--failure-rate", "log"),
    ("oliner", "failures", "--counts", "0"),
    ("oliner", "options", "--levels", "0.5"),
    ("shi", "all", "--traces", "KTH-SP2", "--ci-seeds", "5"),
    ("shi", "arrivals", "--ci-seeds", "5"),
    ("forshaw", "startdelay", "--startdelay-first", "delay"),
    ("forshaw", "all", "--days", "3", "--availability-trace", "x.avt"),
    ("oliner", "fig3"),  # options left out are never refused: their defaults are filled in
])
def test_a_family_or_all_accepts_the_options_of_its_figures(argv):
    from ckptsim.cli.papers import check_options

    args = paper_parser().parse_args([*argv, "--out", "x"])
    check_options(args)


@pytest.mark.parametrize(("argv", "error"), [
    (("fig4", "--checkpoint-share", "0.3"),
     "--checkpoint-share: does not apply to niu fig4; --checkpoint-share is used by niu fig7 "
     "and all"),
    (("fig1", "--reading", "now"),
     "--reading: does not apply to niu fig1; --reading is used by niu fig4, fig5, fig6, fig7 "
     "and all"),
    (("readings", "--reading", "now"),
     "--reading: does not apply to niu readings; --reading is used by niu fig4, fig5, fig6, "
     "fig7 and all"),
    (("fig1", "--windows", "3"),
     "--windows: does not apply to niu fig1; --windows is used by niu fig4, fig6, fig7, "
     "readings and all"),
    (("fig5", "--windows", "3", "--checkpoint-share", "0.1"),
     "--windows: does not apply to niu fig5; --windows is used by niu fig4, fig6, fig7, "
     "readings and all"),
    (("fig2", "--freeze", "false"),
     "--freeze: does not apply to niu fig2; --freeze is used by niu fig4, fig5, fig6, fig7, "
     "readings and all"),
])
def test_niu_figures_refuse_the_options_they_do_not_use(argv, error, tmp_path, capsys):
    assert main(["paper", "niu", *argv, "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"ckptsim: error: {error}\n"


def test_niu_all_and_the_figures_that_use_them_accept_them():
    from ckptsim.cli.papers import check_options

    for argv in (("all", "--checkpoint-share", "0.3", "--windows", "2", "--reading", "now"),
                 ("fig7", "--checkpoint-share", "0.3"), ("fig5", "--reading", "now"),
                 ("readings", "--windows", "2", "--retry", "true")):
        check_options(paper_parser().parse_args(["niu", *argv, "--out", "x"]))


LISTS = [o.flag for o in PAPER_OPTIONS if o.kwargs.get("nargs") == "+"]


@pytest.mark.parametrize("flag", LISTS)
def test_a_value_given_twice_to_a_list_option_is_refused(flag, tmp_path, capsys):
    name = next(p for p in ("niu", "oliner", "shi", "forshaw")
                if flag in accepted_options(p))
    figure = next(f for f in paper(name).figures() if f in paper(name).used_by.get(flag, (f,)))
    value = {"--traces": {"niu": "CTC-SP2", "oliner": "NASA", "shi": "KTH-SP2"}.get(name),
             "--loads": "1.20", "--levels": "0.50", "--counts": "0", "--durations": "1"}[flag]
    again = value.rstrip("0") if "." in value else value  # the same number written otherwise
    out = tmp_path / "out"
    assert main(["paper", name, figure, "--out", str(out), flag, value, again]) == 2
    shown = value.rstrip("0") if "." in value else value
    assert capsys.readouterr().err == (f"ckptsim: error: {flag}: {shown} is given twice; "
                                       "give each value once\n")
    assert not out.exists()


@pytest.mark.parametrize("argv", [
    ("niu", "fig4", "--traces", "CTC-SP2", "KTH-SP2", "CTC-SP2", "--first", "500"),
    ("shi", "traces", "--traces", "KTH-SP2", "KTH-SP2", "--first", "300"),
    ("oliner", "fig6", "--traces", "NASA", "NASA"),
    ("oliner", "fig6", "--levels", "0.5", "0.5", "--first", "200"),
    ("oliner", "fig3", "--counts", "0", "0", "--first", "100"),
    ("forshaw", "fig6", "--durations", "1", "4", "1"),
])
def test_the_repeated_values_of_the_brief(argv, tmp_path, capsys):
    assert main(["paper", *argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "is given twice; give each value once\n" in err and err.count("\n") == 1


@pytest.mark.parametrize("name", PAPERS)
def test_an_unknown_figure_names_the_paper_and_each_accepted_figure_once(name, tmp_path,
                                                                        capsys):
    assert main(["paper", name, "nosuch", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    head = f"ckptsim: error: figure: unknown figure 'nosuch' of {name}; accepted: "
    assert err.startswith(head) and err.endswith(", all\n")
    accepted = err[len(head):-1].split(", ")
    assert len(accepted) == len(set(accepted)), accepted
    assert set(paper(name).figures()) <= set(accepted)


@pytest.mark.parametrize(("name", "drop", "command"), [
    ("forshaw", "full", "fig4 --full --out {folder}/full"),  # `all` writes no full/
    ("forshaw", "fig6-replications.csv", None),  # not read by a table: still fine
    ("forshaw", "fig6.csv", "fig6 --out {folder}"),
    ("niu", "fig4_windows.csv", "fig4 --windows K --out {folder}"),
    ("niu", "estimate", "fig4 --reading estimate --out {folder}/estimate"),
    ("oliner", "fig9-replications.csv", "fig9 --out {folder}"),
])
def test_tables_names_the_command_that_makes_a_missing_csv(name, drop, command, tmp_path,
                                                          capsys):
    import shutil

    results = Path(__file__).resolve().parents[1] / "docs" / "results"
    folder = tmp_path / name
    shutil.copytree(results / name, folder, ignore=shutil.ignore_patterns("*.png"))
    page = (results / f"{name}.md").read_text()
    (tmp_path / f"{name}.md").write_text(page)
    target = folder / drop
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    code = main(["paper", name, "tables", "--out", str(folder)])
    err = capsys.readouterr().err
    if command is None:
        assert code == 0
        return
    assert code == 2
    made = command.format(folder=folder)
    csv_path = f"{made.split(' --out ')[1]}/{made.split()[0]}"
    assert err.startswith(f"ckptsim: error: --out: {csv_path}")
    assert err.endswith(f".csv is missing: `ckptsim paper {name} {made}` makes it\n")
    assert (tmp_path / f"{name}.md").read_text() == page  # the page is left as it was
