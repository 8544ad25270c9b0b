"""A value an error quotes from a user's file is cut after 60 characters with its length:
a field of 5,000 characters made a 5,000-character error line (`ckptsim.errors.shown`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import LANL_HEADER, lanl_row

from ckptsim.errors import WorkloadError, shown
from ckptsim.failures import read_fta, read_lanl_cfdr
from ckptsim.platform.avt import read_avt
from ckptsim.platform.users import read_sessions

LONG = "7x" * 2500  # 5,000 characters


def test_shown_keeps_short_values_as_repr() -> None:
    assert shown("abc") == "'abc'" and shown(12.5) == "12.5"
    assert shown(LONG) == repr(LONG)[:60] + "... (5002 characters)"


def _error(read, path: Path) -> str:
    with pytest.raises(WorkloadError) as info:
        read(path)
    text = str(info.value)
    assert "... (5002 characters)" in text and len(text) < 200 + len(str(path)), text
    return text


def test_lanl(tmp_path: Path) -> None:
    path = tmp_path / "lanl.csv"
    path.write_text(f"{LANL_HEADER}\n{lanl_row(2, 0, LONG, '1/1/2004 0:10')}\n")
    assert "field Prob Started" in _error(read_lanl_cfdr, path)


def test_fta(tmp_path: Path) -> None:
    path = tmp_path / "event_trace.tab"
    path.write_text("event_id component_id node_id platform_id node_name event_type "
                    f"event_start_time event_stop_time event_end_reason\n"
                    f"0 0 {LONG} 3 n 0 100 200 0\n")
    assert "field node_id" in _error(read_fta, path)


def test_avt(tmp_path: Path) -> None:
    path = tmp_path / "t.avt"
    path.write_text(f"pc1 1 {LONG} 200\n")
    assert "field start_1" in _error(read_avt, path)


def test_owners_sessions(tmp_path: Path) -> None:
    path = tmp_path / "owners.csv"
    path.write_text(f"machine,login,logout\n0,{LONG},200\n")
    assert "field login" in _error(lambda p: read_sessions(p, 4), path)


# What the parameter parsers echo (a key or a value typed to --set, --component, --workload
# GEN:..., --failures, --checkpoint, a spec's keys) is cut as a file's value is: `--set
# $(python -c "print('q'*3000)")=1` printed a line of 3,074 characters.
Q = "q" * 3000


@pytest.mark.parametrize("option", [
    ["--set", f"{Q}=1"], ["--set", Q], ["--set", f"{Q}=1", "--set", f"{Q}=2"],
    ["--component", Q], ["--component", f"checkpoint:{Q}=1"],
    ["--component", f"bound:limit={Q}"], ["--component", f"bound:per={Q}"],
    ["--component", f"availability:epoch={Q}"], ["--component", f"availability:reboot={Q}"],
    ["--component", f"availability:maintenance={Q}"],
    ["--component", f"availability:trace=avt:{Q}=1"],
    ["--component", f"checkpoint:policy=fixed:{Q}=1"],
    ["--component", f"failures:source=synthetic:mtbf={Q}"],
    ["--checkpoint", Q], ["--checkpoint", f"fixed:{Q}=1"], ["--checkpoint", f"fixed:{Q}=1,{Q}=2"],
    ["--checkpoint", f"fixed:interval={Q}"], ["--checkpoint", f"young:reading={Q}"],
    ["--failures", Q], ["--failures", f"synthetic:{Q}=1"], ["--failures", f"synthetic:mtbf={Q}"],
    ["--failures", f"synthetic:mtbf=1,{Q}=1,{Q}=2"], ["--failures", f"synthetic:mtbf=1,dist={Q}"],
    ["--workload", f"lublin:{Q}=1"], ["--workload", f"lublin:n={Q}"],
    ["--workload", f"lublin:{Q}=1,{Q}=2"], ["--workload", f"htc:{Q}=1"],
    ["--workload", f"grid:{Q}=1"], ["--workload", f"htc:days={Q}"],
], ids=lambda o: " ".join(a[:20] for a in o))
def test_an_option_key_or_value_is_cut_in_the_error(option, capsys) -> None:
    from ckptsim.cli import main

    argv = ["run", "--workload", "lublin:n=10", *option]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: ") and err.count("\n") == 1, err[:300]
    assert " characters)" in err and Q not in err and len(err) < 500, err[:600]


@pytest.mark.parametrize(("text", "where"), [
    (f'{Q} = 1\n', "  - q"),
    (f'[workloads.w]\ngenerator = "lublin"\nn = 10\n{Q} = 1\n', "  - workloads.w.q"),
    (f'[workloads.w]\ngenerator = "lublin"\nn = 10\n[workloads.w.components.bound]\n{Q} = 1\n',
     "  - workloads.w.components.bound.q"),
    (f'[workloads.w]\ngenerator = "{Q}"\n', "  - workloads.w.generator"),
], ids=["top", "workload", "component", "generator"])
def test_a_spec_key_or_value_is_cut_in_the_error(tmp_path, text, where) -> None:
    from ckptsim.experiments.spec import SpecError, load_spec

    path = tmp_path / "spec.toml"
    head = 'name = "x"\nseeds = [1]\n'
    if "[workloads" not in text:
        head += text
        text = '[workloads.w]\ngenerator = "lublin"\nn = 10\n'
    path.write_text(head + text + '[[schedulers]]\nname = "fcfs"\n')
    with pytest.raises(SpecError) as info:
        load_spec(path)
    lines = str(info.value).splitlines()[1:]
    assert any(line.startswith(where) for line in lines), lines
    assert all(len(line) < 400 and Q not in line for line in lines), lines
