"""The docs stay true: every jobs.csv column is documented, every summary metric too."""

from __future__ import annotations

from pathlib import Path

from helpers import jobs

from ckptsim.records.jobs import ALL_COLUMNS
from ckptsim.runner import simulate

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_every_jobs_csv_column_is_documented():
    text = (DOCS / "outputs.md").read_text()
    for column in ALL_COLUMNS:
        assert f"| `{column}` |" in text, column


def test_every_summary_metric_is_documented():
    text = (DOCS / "metrics.md").read_text()
    summary = simulate(jobs([(0, 10, 1, 10)], 2), "easy").summary
    for key in summary:
        if key in ("first_submit", "last_end", "machine_size"):
            continue
        assert f"`{key}`" in text, key


def test_the_complete_example_spec_of_experiments_md_is_valid(tmp_path):
    """docs/experiments.md's "complete example" (every key shown) loads as written, with the
    traces where they are (its figure averaged runs of several failure counts)."""
    import re

    import pytest
    from helpers import TRACES

    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import load_spec

    if not TRACES.is_dir():
        pytest.skip(f"the traces of ../shared/data are absent ({TRACES})")
    text = (DOCS / "experiments.md").read_text()
    block = re.search(r"A complete example.*?```toml\n(.*?)```", text, re.S).group(1)
    spec = tmp_path / "alpha-study.toml"
    spec.write_text(block)
    loaded = load_spec(spec, trace_dir=TRACES)
    assert loaded.name == "alpha-study" and len(build_matrix(loaded)) == 168


def test_the_checkpoint_plan_error_of_experiments_md_is_what_a_spec_gets(tmp_path):
    """docs/experiments.md's checkpoint plan table, its cost axis given a -1 on line 9 of a
    spec, is refused with the message the page quotes (the accepted range had gained its
    upper bound, 1e+10, since the page was written)."""
    import re

    import pytest

    from ckptsim.experiments.spec import SpecError, load_spec

    text = (DOCS / "experiments.md").read_text()
    table = re.search(r"```toml\n(\[workloads\.sdsc\.components\.checkpoint\.policy\]\n.*?)"
                      r"\n\n", text, re.S).group(1)
    assert table.splitlines()[2].startswith("cost = [60, 600]")
    spec = tmp_path / "plans.toml"
    spec.write_text('[[schedulers]]\nname = "easy"\n\n[workloads.sdsc]\ngenerator = "lublin"\n'
                    "n = 100\n" + table.replace("cost = [60, 600]", "cost = [60, -1]  ") + "\n")
    with pytest.raises(SpecError) as refused:
        load_spec(spec)
    quoted = re.search(r"\(`(workloads\.sdsc\.components\.checkpoint\.policy\.cost\[1\] "
                       r"\(line \d+\):.*?)`\)", " ".join(text.split())).group(1)
    assert f"  - {quoted}" in str(refused.value).splitlines()


def test_every_python_c_command_of_the_docs_runs_as_pasted():
    """A `python -c` command of the docs is one line of a bash block, whose code compiles:
    written inline across Markdown lines, the pasted line breaks (and a list item's indent)
    land inside the Python code and stop it with a SyntaxError."""
    import re
    import shlex

    from helpers import doc_commands

    pages = sorted([*DOCS.glob("*.md"), *DOCS.glob("results/*.md"), DOCS.parent / "README.md"])
    found = 0
    for page in pages:
        text = page.read_text()
        commands = doc_commands(text, "python")
        inline = [m for m in re.findall(r"python -c [\"'](.*?)[\"']", text, flags=re.S)
                  if not any(m in c for c in commands)]
        assert not inline, f"{page.name}: a python -c command outside a bash block: {inline[0]}"
        for command in commands:
            if command.startswith("python -c "):
                words = shlex.split(command)
                assert len(words) == 3, (page.name, command)
                compile(words[2], f"{page.name}: python -c", "exec")
                found += 1
    assert found >= 5
