"""The Paper interface: every reproduction is a registered package folder whose declaration
is consistent (figures, options, tables), and whose claims name CSVs, columns and rows that
exist in its results folder and rules of the documented set."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.base import (
    RULES,
    SHARED_OPTIONS,
    Claim,
    Paper,
    PaperOption,
    all_papers,
    papers,
)
from ckptsim.experiments.papers.tables import marked

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
PACKAGES = ROOT / "src" / "ckptsim" / "experiments" / "papers"
PAPERS = all_papers()
NAMES = [p.name for p in PAPERS]


def test_every_package_folder_is_a_registered_paper():
    folders = sorted(p.name for p in PACKAGES.iterdir() if (p / "__init__.py").exists())
    assert sorted(NAMES) == folders == sorted(papers.names())
    assert NAMES == ["niu", "jones", "shi", "forshaw", "oliner"]  # by seed
    assert len({p.seed for p in PAPERS}) == len(PAPERS)


@pytest.mark.parametrize("paper", PAPERS, ids=NAMES)
def test_the_declaration_is_consistent(paper: Paper):
    assert paper.about and paper.figure_help and (RESULTS / f"{paper.name}.md").is_file()
    shared = [o.flag for o in SHARED_OPTIONS]
    assert all(flag in shared for flag in paper.uses)
    assert list(paper.uses) == sorted(paper.uses, key=shared.index)  # in the table's order
    assert not {o.flag for o in paper.own_options} & set(shared)
    assert paper.wanted("all") == list(paper.figures())
    for figure in paper.figures():
        assert paper.wanted(figure) == [figure]
    with pytest.raises(ConfigError) as err:
        paper.wanted("fig99")
    assert err.value.key == "figure" and "accepted:" in err.value.message
    page = (RESULTS / f"{paper.name}.md").read_text()
    tables = paper.tables()
    if tables is None:
        assert not marked(page)
    else:
        assert marked(page) and set(marked(page)) <= set(tables)


#: A figure of each paper and the committed specs (docs/results/NAME/FAMILY.toml) that its
#: specs under the command's defaults equal.
SPECS = {"niu": ("all", ()), "jones": ("all", ("info", "fixed", "ctmr", "overhead")),
         "shi": ("all", ()), "forshaw": ("fixed", ("fixed",)),
         "oliner": ("balancing", ())}


@pytest.mark.parametrize("paper", PAPERS, ids=NAMES)
def test_the_specs_are_data(paper: Paper):
    import argparse
    import tomllib

    from ckptsim.cli import build_parser
    from ckptsim.cli.papers import check_options

    figure, committed = SPECS[paper.name]
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    given = sub.choices["paper"].parse_args([paper.name, figure, "--out", "x"])
    check_options(given)
    specs = paper.specs(figure, paper.options(given))
    assert specs and set(committed) <= set(specs)
    for name, text in specs.items():
        assert tomllib.loads(text)["name"] == f"{paper.name}-{name}"
    for name in committed:
        assert specs[name] == (RESULTS / paper.name / f"{name}.toml").read_text(), name


def _rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def _matches(text: str, value: object) -> bool:
    if isinstance(value, tuple):
        return any(_matches(text, v) for v in value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(text) == float(value)
        except ValueError:
            return False
    return text == str(value)


CLAIMS = [(p.name, k, c) for p in PAPERS for k, c in enumerate(p.claims)]


@pytest.mark.parametrize(("paper", "k", "claim"), CLAIMS,
                         ids=[f"{p}-{k}" for p, k, _ in CLAIMS])
def test_a_claim_names_what_exists(paper: str, k: int, claim: Claim):
    assert claim.statement and claim.verdict and claim.seed != ()
    assert claim.rule in RULES, claim.rule
    if claim.rule == "both-metrics":
        assert claim.each in RULES and claim.each != "both-metrics" and len(claim.metrics) > 1
    else:
        assert not claim.each
    if isinstance(claim.seed, tuple):
        assert all(isinstance(v, float) for v in claim.seed)
    assert claim.metrics
    for name in (claim.csv,) if isinstance(claim.csv, str) else claim.csv:
        path = RESULTS / paper / f"{name}.csv"
        assert path.is_file(), path
        columns, rows = _rows(path)
        missing = [c for c in (*claim.metrics, *claim.rows) if c not in columns]
        assert not missing, f"{path.name} has no column {missing}"
        chosen = [r for r in rows if all(_matches(r[c], v) for c, v in claim.rows.items())]
        assert chosen, f"no row of {path.name} has {dict(claim.rows)}"
        for column, value in claim.rows.items():  # every value named is in the CSV
            for v in value if isinstance(value, tuple) else (value,):
                assert any(_matches(r[column], v) for r in rows), (path.name, column, v)


def test_every_paper_declares_its_page_claims():
    counts = {p.name: len(p.claims) for p in PAPERS}
    assert counts == {"niu": 10, "jones": 9, "shi": 8, "forshaw": 13, "oliner": 9}


def test_the_rules_are_documented():
    text = (ROOT / "docs" / "architecture.md").read_text()
    for rule in RULES:
        assert f"`{rule}`" in text, rule


def test_a_paper_own_option_joins_the_command_table():
    from ckptsim.cli.papers import _options_table

    class Extra(Paper):
        name = "extra"
        seed = "999"
        uses = ("--replications",)
        own_options = (PaperOption("--widgets", "widgets per run (default 3)", default=3),)

    table = {o.flag: o for o in _options_table([*PAPERS, Extra()])}
    assert table["--widgets"].papers == ("extra",)
    assert "extra" in table["--replications"].papers and "extra" in table["--out"].papers
    assert list(table).index("--widgets") == len(table) - 1

    class Twice(Extra):
        name = "twice"
        own_options = (PaperOption("--days", "days"),)  # forshaw's own

    with pytest.raises(ValueError, match="--days is declared twice"):
        _options_table([*PAPERS, Twice()])
