"""`ckptsim convert` says what the written file loses or what Batsim would refuse in it."""

from __future__ import annotations

import json

from ckptsim.cli import main

#: Job 2 ran 100 s of 300 requested: --alpha 3 makes its estimate 100 + 3 (300 - 100) = 700;
#: job 3 ran 500 s of 200 requested: 500 + 3 (200 - 500) < 0, clamped to 0.
TRACE = ("; MaxProcs: 8\n"
         "1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
         "2 5 -1 100 2 -1 -1 2 300 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
         "3 6 -1 500 1 -1 -1 1 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
#: What `run --alpha 3` says of TRACE's underestimate, with what follows from it in a file.
ALPHA_NOTE = ("ckptsim: note: --alpha 3 > 1 exaggerates the users' errors: the 1 jobs that "
              "requested less time than they ran get estimates further below their run time "
              "(1 of them clamped to 0 s); the file holds those estimates (SWF requested time, "
              "Batsim walltime): a run of it lets them run on past their estimates to "
              "completion (ckptsim run --overrun extend, the default) or kills them when their "
              "estimate runs out (--overrun kill)\n")


def test_convert_notes_alpha_above_one_as_run_does(tmp_path, capsys):
    """`run --alpha 3` notes the underestimates it pushes further down; `convert` with the
    same option said nothing of them."""
    swf = tmp_path / "t.swf"
    swf.write_text(TRACE)
    assert main(["run", "--workload", str(swf), "--alpha", "3"]) == 0
    ran = capsys.readouterr().err
    assert main(["convert", str(swf), str(tmp_path / "a.swf"), "--alpha", "3"]) == 0
    err = capsys.readouterr().err
    assert err == ALPHA_NOTE
    assert ran.split("; they run on")[0] == err.split("; the file holds")[0]
    assert main(["convert", str(swf), str(tmp_path / "b.swf"), "--alpha", "1"]) == 0
    assert capsys.readouterr().err == ""


def test_convert_notes_walltimes_of_0_batsim_refuses(tmp_path, capsys):
    """Batsim's jobs take a walltime of -1 or > 0; --alpha > 1 writes 0 for an estimate it
    clamps (52 jobs of SDSC-SP2 at --alpha 3), which was written without a word."""
    swf = tmp_path / "t.swf"
    swf.write_text(TRACE)
    out = tmp_path / "t.json"
    assert main(["convert", str(swf), str(out), "--alpha", "3"]) == 0
    err = capsys.readouterr().err
    assert err == (ALPHA_NOTE +
                   "ckptsim: note: 1 job(s) have walltime 0 (their estimate is 0 s; --alpha 3 "
                   "> 1 clamps the estimates it makes negative to 0): Batsim refuses a walltime "
                   "that is neither -1 nor > 0, though ckptsim reads it; for Batsim, use an "
                   "--alpha of at most 1, or remove those jobs from the input first\n")
    assert [j["walltime"] for j in json.loads(out.read_text())["jobs"]] == [40, 700, 0]
    assert main(["convert", str(swf), str(tmp_path / "u.json")]) == 0
    assert capsys.readouterr().err == ""
    swf.write_text(TRACE.replace(" 20 -1 1", " 0 -1 1", 1))  # job 1 requests 0 s
    assert main(["convert", str(swf), str(tmp_path / "v.json")]) == 0
    assert capsys.readouterr().err == (
        "ckptsim: note: 1 job(s) have walltime 0 (their estimate is 0 s): Batsim refuses a "
        "walltime that is neither -1 nor > 0, though ckptsim reads it; for Batsim, remove "
        "those jobs from the input first\n")


def test_convert_notes_a_grid_workloads_columns_swf_drops(tmp_path, capsys):
    grid = "grid:n=10,seed=1"
    assert main(["convert", grid, str(tmp_path / "g.swf")]) == 0
    err = capsys.readouterr().err
    assert err == ("ckptsim: note: the workload's cluster, ppbw, ppbw_estimate, kappa columns "
                   "have no SWF field and are not written (a grid workload's home clusters and "
                   "bandwidths: coalloc refuses the file); convert to .json to keep them\n")
    assert main(["convert", grid, str(tmp_path / "g.json")]) == 0
    assert capsys.readouterr().err == ""
    assert main(["convert", "lublin:n=20,seed=1", str(tmp_path / "l.swf")]) == 0
    assert capsys.readouterr().err == ""


def test_convert_notes_batsim_ids_an_swf_file_cannot_keep(tmp_path, capsys):
    """Ids such as 'w1!5' are job numbers (5), so no job is renumbered, but SWF keeps only the
    number: the workload names were lost without a word."""
    doc = {"nb_res": 4, "profiles": {"p": {"type": "delay", "delay": 10}},
           "jobs": [{"id": jid, "subtime": k, "res": 1, "profile": "p"}
                    for k, jid in enumerate(["w1!5", "w2!6"])]}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    assert main(["convert", str(path), str(tmp_path / "w.swf")]) == 0
    assert capsys.readouterr().err == (
        f"ckptsim: note: an SWF file has no place for {path}'s job ids as written ('w1!5', "
        "...): its job numbers are the numbers after each id's last '!' (convert to .json to "
        "keep the ids)\n")
    assert main(["convert", str(path), str(tmp_path / "w.json.gz")]) == 0
    assert capsys.readouterr().err == ""
    plain = tmp_path / "n.json"  # integer ids are the job numbers: nothing is lost
    plain.write_text(json.dumps({**doc, "jobs": [{**j, "id": k} for k, j in
                                                 enumerate(doc["jobs"])]}))
    assert main(["convert", str(plain), str(tmp_path / "n.swf")]) == 0
    assert capsys.readouterr().err == ""
