"""A results folder records the options its CSVs were made with (manifest.json), and the
commands that read a folder (claims, tables) refuse one whose figures were made with different
options, naming the files and their options; a folder without a manifest reads as before."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from ckptsim.cli import build_parser, main
from ckptsim.cli.papers import check_options
from ckptsim.experiments.papers.base import all_papers, get_paper
from ckptsim.experiments.papers.manifest import (
    MANIFEST,
    figure_of,
    made_with,
    recorded_options,
)

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
SMALL = ["--first", "300", "--jobs", "0"]


def shi(figure: str, out: Path, *extra: str) -> None:
    assert main(["paper", "shi", figure, "--out", str(out), *SMALL, *extra]) == 0


def copy_of(paper: str, tmp_path: Path) -> Path:
    folder = tmp_path / paper
    shutil.copytree(RESULTS / paper, folder)
    shutil.copy(RESULTS / f"{paper}.md", tmp_path / f"{paper}.md")
    return folder


def test_a_small_figure_into_a_copy_of_the_results_is_flagged(tmp_path, capsys,
                                                               monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # the line that names the folder is not wrapped
    folder = copy_of("shi", tmp_path)
    shi("fig11", folder)
    assert json.loads((folder / MANIFEST).read_text()) == {
        "paper": "shi",
        "files": {"fig11.csv": {"figure": "fig11",
                                "options": {"--estimates": "exact", "--first": 300}}}}
    capsys.readouterr()
    for reader in ("claims", "tables"):
        assert main(["paper", "shi", reader, "--out", str(folder)]) == 0
        out, err = capsys.readouterr()
        assert err.startswith(f"ckptsim: warning: {folder} mixes figures made with different "
                              "options: fig11.csv made with --estimates exact, --first 300; "
                              "unrecorded: arrivals.csv, fig12.csv, ")
        assert "traces.csv. They are read as they are" in err and err.count("\n") == 1
        assert out.splitlines()[-1] == (f"{folder}: its CSVs were made with different options "
                                        f"({MANIFEST}; see the warning)")


def test_figures_made_with_different_options_are_flagged_until_rerun(tmp_path, capsys,
                                                                     monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    out = tmp_path / "shi"
    shi("fig11", out)
    shi("fig12", out, "--first", "400")  # the later --first wins
    capsys.readouterr()
    assert main(["paper", "shi", "claims", "--out", str(out)]) == 0
    assert ("ckptsim: warning: "
            f"{out} mixes figures made with different options: --first 300 in fig11.csv; 400 "
            "in fig12.csv. They are read") in capsys.readouterr().err
    shi("fig12", out)
    capsys.readouterr()
    assert main(["paper", "shi", "claims", "--out", str(out)]) == 0
    printed, err = capsys.readouterr()
    assert err == ""
    assert printed.splitlines()[-1] == (f"{out}: its CSVs were made with --estimates exact, "
                                        f"--first 300 ({MANIFEST})")
    text = (out / MANIFEST).read_bytes()
    shi("fig12", out)  # written again, to the same bytes
    assert (out / MANIFEST).read_bytes() == text


def test_a_folder_without_manifest_reads_as_before(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    assert main(["paper", "shi", "claims", "--out", str(RESULTS / "shi")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"{RESULTS / 'shi'}: the options its CSVs were made with are unrecorded (no "
        f"{MANIFEST})")


def test_another_papers_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "x"
    out.mkdir()
    (out / MANIFEST).write_text('{"paper": "niu", "files": {}}\n')
    assert main(["paper", "shi", "fig11", "--out", str(out), *SMALL]) == 2
    assert capsys.readouterr().err == (f"ckptsim: error: --out: {out} holds the figures of "
                                       f"'niu' ({MANIFEST}), not shi's; give a folder of its "
                                       "own\n")
    assert not (out / "fig11.csv").exists()


def test_a_csv_belongs_to_the_figure_it_extends():
    figures = ["fig1", "fig10", "fig4", "trace"]
    assert figure_of("fig10-replications", figures) == "fig10"
    assert figure_of("fig4_windows", figures) == "fig4"
    assert figure_of("fig1", figures) == "fig1"
    assert figure_of("fig2_shares", figures) is None


def _options(paper: str, figure: str) -> argparse.Namespace:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    args = sub.choices["paper"].parse_args([paper, figure, "--out", "x"])
    check_options(args)
    return args


@pytest.mark.parametrize("paper", [p.name for p in all_papers()])
def test_every_recorded_option_is_read_from_the_papers_options(paper):
    p = get_paper(paper)
    figure = next(f for f in p.figures() if f != "trace")  # forshaw's needs its trace file
    opt = p.options(_options(paper, figure))
    for name in p.figures():
        recorded = made_with(p, name, opt)
        json.dumps(recorded)
        assert not {"--out", "--jobs", "--trace-dir", "--full"} & set(recorded)
        assert set(recorded) == {flag for flag, _ in recorded_options(p)
                                 if name in p.used_by.get(flag, (name,))}


def test_oliner_records_the_predictor_draws_where_bgl_tiebreak_runs():
    p = get_paper("oliner")
    args = _options("oliner", "fig9")
    args.predictor_draws = "replication"
    opt = p.options(args)
    for figure in ("fig9", "fig10", "options"):
        assert made_with(p, figure, opt)["--predictor-draws"] == "replication"
    for figure in ("fig3", "fig6", "fig8"):  # bgl-balancing's predictor draws nothing
        assert "--predictor-draws" not in made_with(p, figure, opt)


def test_jones_records_the_jobs_per_cluster_that_full_sets():
    p = get_paper("jones")
    args = _options("jones", "fig7")
    args.full = True
    recorded = made_with(p, "fig7", p.options(args))
    assert recorded == {"--per-cluster": 400_000, "--replications": 1, "--load": 0.95,
                        "--paired": "seed"}
