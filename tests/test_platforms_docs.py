"""docs/platforms.md stays true: its platform files parse, its commands run, its table lists
every key the format accepts."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from helpers import doc_commands, run_doc_command

from ckptsim.platform.description import GROUP_KEYS, TOP_KEYS, TYPE_KEYS, parse_description

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "docs" / "platforms.md").read_text()
TOML = re.findall(r"```toml\n(.*?)```", TEXT, flags=re.S)


def test_the_platform_file_example_is_valid():
    files = [t for t in TOML if "[[groups]]" in t]
    assert files
    for text in files:
        desc = parse_description(tomllib.loads(text), "example.toml", text)
        assert desc.n_nodes == sum(g.machines * desc.type_of(g.type).cores
                                   for g in desc.groups)


def test_every_key_of_the_format_is_documented():
    for key in (*TOP_KEYS, *TYPE_KEYS, *GROUP_KEYS):
        assert f"`{key}`" in TEXT, key


@pytest.mark.parametrize("command", doc_commands(TEXT))
def test_command_runs(command, tmp_path):
    run_doc_command(command, tmp_path)


def test_every_availability_parameter_and_counter_is_documented():
    from dataclasses import fields

    from ckptsim.components.availability import COUNTERS, AvailabilityParams

    for f in fields(AvailabilityParams):
        assert f"| `{f.name}` |" in TEXT, f.name
    for counter in COUNTERS:
        assert f"`{counter}`" in TEXT, counter


def _quoted(text: str) -> str:
    """`text` with the Markdown line breaks inside a backquoted message joined."""
    return " ".join(text.split())


@pytest.mark.parametrize(("old", "new", "message"), [
    ('type = "big"', 'type = "huge"',
     "lab.toml, line 23: groups[1].type: unknown type 'huge'; accepted: normal, big"),
    ("cores = 4", 'cores = 4\ncolour = "red"',
     "lab.toml, line 11: types.big.colour: unknown key; accepted: cores, speed, power"),
])
def test_the_quoted_errors_are_what_the_example_file_gives(old, new, message):
    """The two errors the page quotes come from its own example file, edited as it says."""
    from ckptsim.errors import ConfigError

    example = next(t for t in TOML if "[[groups]]" in t)
    assert example.count(old) == 1
    text = example.replace(old, new)
    with pytest.raises(ConfigError) as refused:
        parse_description(tomllib.loads(text), "lab.toml", text)
    assert str(refused.value) == message
    assert f"`{message}`" in _quoted(TEXT)


def test_the_quoted_job_wider_than_the_platform_is_what_the_command_gives(capsys):
    from ckptsim.cli import main

    assert main(["run", "--workload", "builtin", "--platform", "smallpool"]) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("ckptsim: error: ")
    assert f"`{error.removeprefix('ckptsim: error: ')}`" in _quoted(TEXT)
