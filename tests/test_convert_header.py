"""`ckptsim convert` keeps the order of an SWF header through Batsim JSON and back."""

from __future__ import annotations

import json

from ckptsim.cli import main

#: A trace's header as archives write it: MaxProcs among the other lines, MaxNodes too.
TRACE = """; Version: 2.2
; Computer: a cluster
; Acknowledge: its owners
; MaxJobs: 2
; MaxNodes: 2
; MaxProcs: 8
; Note: the machine's nodes have 4 processors
1 0 5 100 4 90 1024 4 200 2048 1 7 2 3 1 1 -1 -1
2 10 0 50 2 -1 -1 3 60 -1 0 8 2 -1 2 1 1 30
"""


def _header(path):
    return json.loads(path.read_text())["swf_header"]


def test_batsim_json_to_swf_and_back_keeps_the_swf_header_order(tmp_path):
    # MaxProcs was written first in the SWF, so the JSON read back had it first too.
    (tmp_path / "t.swf").write_text(TRACE)
    assert main(["convert", str(tmp_path / "t.swf"), str(tmp_path / "a.json")]) == 0
    assert main(["convert", str(tmp_path / "a.json"), str(tmp_path / "b.swf")]) == 0
    assert main(["convert", str(tmp_path / "b.swf"), str(tmp_path / "c.json")]) == 0
    first = _header(tmp_path / "a.json")
    assert list(first) == ["Version", "Computer", "Acknowledge", "MaxJobs", "MaxNodes",
                           "MaxProcs", "Note"]
    del first["MaxNodes"]  # left out of an SWF output (docs/workloads.md)
    assert list(_header(tmp_path / "c.json").items()) == list(first.items())
    lines = [ln for ln in (tmp_path / "b.swf").read_text().splitlines() if ln.startswith(";")]
    assert lines == ["; Version: 2.2", "; Computer: a cluster", "; Acknowledge: its owners",
                     "; MaxJobs: 2", "; MaxProcs: 8", "; Note: the machine's nodes have 4 "
                     "processors"]


def test_an_swf_header_without_maxprocs_keeps_its_order_and_gains_it_last(tmp_path):
    doc = {"nb_res": 4, "profiles": {"p": {"type": "delay", "delay": 5}},
           "jobs": [{"id": 1, "subtime": 0, "res": 2, "walltime": 10, "profile": "p"}],
           "swf_header": {"Version": "2.2", "Computer": "x", "Note": "y", "Preemption": "No"}}
    (tmp_path / "a.json").write_text(json.dumps(doc))
    assert main(["convert", str(tmp_path / "a.json"), str(tmp_path / "b.swf")]) == 0
    assert main(["convert", str(tmp_path / "b.swf"), str(tmp_path / "c.json")]) == 0
    assert list(_header(tmp_path / "c.json").items()) == [*doc["swf_header"].items(),
                                                          ("MaxProcs", "4")]


def test_a_workload_without_maxprocs_still_gets_it_first(tmp_path):
    assert main(["convert", "lublin:n=5,seed=1,machine=16", str(tmp_path / "l.swf")]) == 0
    assert (tmp_path / "l.swf").read_text().startswith("; MaxProcs: 16\n")
