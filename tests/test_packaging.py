"""Packaging: the installed version is the one the command line prints and the citation
names; the type marker and the report template are package data; the changelog is begun."""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

import ckptsim

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_version_option_prints_the_installed_version():
    out = subprocess.run([sys.executable, "-m", "ckptsim", "--version"], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == f"ckptsim {importlib.metadata.version('ckptsim')}"
    assert ckptsim.__version__ == importlib.metadata.version("ckptsim")
    assert ckptsim.__version__ == PYPROJECT["project"]["version"]


def test_py_typed_and_templates_are_package_data():
    files = importlib.resources.files("ckptsim")
    assert files.joinpath("py.typed").is_file()
    assert files.joinpath("experiments", "templates", "report.html").is_file()
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    assert "py.typed" in data["ckptsim"]
    assert "templates/*.html" in data["ckptsim.experiments"]


def test_citation_cff_names_this_version_and_licence():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert cff["title"] == "ckptsim"
    assert str(cff["version"]) == ckptsim.__version__
    assert cff["license"] == PYPROJECT["project"]["license"]["text"]
    assert cff["authors"] and cff["message"]
    for ref in cff["references"]:
        assert ref["type"] and ref["title"] and ref["authors"], ref
    titles = [ref["title"] for ref in cff["references"]]
    assert "Experience with using the Parallel Workloads Archive" in titles
    # The five seed documents, by the titles on their first pages.
    for words in ("Employing Checkpoint", "Network-aware Selective Job Checkpoint",
                  "Extending Scojo-PECT", "Energy-efficient Checkpointing",
                  "Fault-Aware Job Scheduling for BlueGene/L"):
        assert sum(words in t for t in titles) == 1, words


def test_changelog_keeps_the_format_and_names_this_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[([^\]]+)\]", text, flags=re.M)
    assert versions[0] == "Unreleased"
    assert ckptsim.__version__ in versions
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        assert re.search(r"^### (Added|Changed|Deprecated|Removed|Fixed|Security)$", section,
                         flags=re.M), section.splitlines()[0]


def test_citing_page_cites_every_reference_of_the_citation_file():
    text = (ROOT / "docs" / "citing.md").read_text(encoding="utf-8")
    page = " ".join(text.replace("\n>", "\n").split())  # lines joined, quote marks off
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    for ref in cff["references"]:
        assert " ".join(ref["title"].split()) in page, ref["title"]
