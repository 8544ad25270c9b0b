"""A Batsim file's job ids: those that cannot be job numbers (negative, beyond 2**53, beyond
int64) are renumbered 1..n and said so, and every id comes back as written (an integer as an
integer) when the workload is written as Batsim JSON again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ckptsim.cli import main
from ckptsim.workload.batsim import ID_COLUMN, read_batsim
from ckptsim.workload.batsim_write import write_batsim


def dump(tmp_path: Path, ids: list[object], sizes: list[int] | None = None) -> Path:
    sizes = sizes or [1] * len(ids)
    doc = {"nb_res": 4, "profiles": {"p": {"type": "delay", "delay": 10}},
           "jobs": [{"id": jid, "subtime": k, "res": sizes[k], "profile": "p"}
                    for k, jid in enumerate(ids)]}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    return path


def written_ids(tmp_path: Path, path: Path) -> list[object]:
    write_batsim(tmp_path / "back.json", read_batsim(path))
    return [job["id"] for job in json.loads((tmp_path / "back.json").read_text())["jobs"]]


@pytest.mark.parametrize("ids", [[-5, 3], [2**63, 1], [2**53 + 1, 7], [10**30, 2],
                                 [3, "x"]])
def test_ids_that_cannot_be_job_numbers_are_renumbered_counted_and_kept(tmp_path, ids):
    path = dump(tmp_path, ids)
    w = read_batsim(path)
    assert w.job_id.tolist() == [1, 2]
    assert w.counts["ids_renumbered"] == 2
    assert w.extra[ID_COLUMN].tolist() == ids
    assert written_ids(tmp_path, path) == ids  # were [1, 2]: the ids were lost


def test_mixed_ids_come_back_with_their_types(tmp_path):
    ids = [1, "w0!2", "3"]
    path = dump(tmp_path, ids)
    w = read_batsim(path)
    assert w.job_id.tolist() == [1, 2, 3] and "ids_renumbered" not in w.counts
    assert written_ids(tmp_path, path) == ids  # were ["1", "w0!2", "3"]


def test_job_numbers_need_no_column_and_nothing_changes(tmp_path):
    path = dump(tmp_path, [4, 9, 2**53])
    w = read_batsim(path)
    assert w.job_id.tolist() == [4, 9, 2**53]
    assert ID_COLUMN not in w.extra and "ids_renumbered" not in w.counts
    assert written_ids(tmp_path, path) == [4, 9, 2**53]


def test_skipped_jobs_keep_the_others_ids(tmp_path):
    path = dump(tmp_path, [-1, -2, -3], sizes=[1, 8, 2])  # the 8-node job is skipped
    w = read_batsim(path)
    assert w.job_id.tolist() == [1, 3] and w.extra[ID_COLUMN].tolist() == [-1, -3]
    assert w.counts["ids_renumbered"] == 3 and w.counts["skipped_too_large"] == 1


def test_the_command_line_says_the_jobs_were_renumbered(tmp_path, capsys):
    path = dump(tmp_path, [-5, 3])
    assert main(["run", "--workload", str(path)]) == 0
    assert "loader: 2 records read; ids_renumbered=2," in capsys.readouterr().out
    assert main(["convert", str(path), str(tmp_path / "c.json")]) == 0
    said = (f"ckptsim: note: {path}'s job ids are not all distinct whole numbers from 0 to "
            "2^53 (SWF job numbers): its 2 jobs are numbered 1..n in file order; ")
    assert capsys.readouterr().err == said + "the file written keeps the ids as written\n"
    assert [j["id"] for j in json.loads((tmp_path / "c.json").read_text())["jobs"]] == [-5, 3]
    assert main(["convert", str(path), str(tmp_path / "c.swf")]) == 0
    assert capsys.readouterr().err == said + (
        "an SWF file has no place for the ids as written (convert to .json to keep them)\n")


def out_jobs(folder: Path) -> list[dict[str, str]]:
    import csv

    with open(folder / "out_jobs.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_out_jobs_shows_the_ids_as_batsim_does(tmp_path):
    # Batsim's job identifier is `workload!job`; its out_jobs.csv shows the two apart.  Jobs
    # of 1 node on 4, submitted at 0, 1, 2, 3: each starts at its submit.
    ids = ["w1!a7", "b,\"x\"", -5, "w0!2"]
    path = dump(tmp_path, ids)
    out = tmp_path / "run"
    assert main(["run", "--workload", str(path), "--out", str(out)]) == 0
    rows = out_jobs(out)
    assert [(r["job_id"], r["workload_name"]) for r in rows] == [
        ("a7", "w1"), ('b,"x"', "w0"), ("-5", "w0"), ("2", "w0")]  # were 1..4, all "w0"
    assert [r["starting_time"] for r in rows] == ["0.0", "1.0", "2.0", "3.0"]
    assert main(["run", "--workload", str(path), "--out", str(out), "--out-jobs",
                 "attempt"]) == 0
    assert [r["job_id"] for r in out_jobs(out)] == ["a7#1", 'b,"x"#1', "-5#1", "2#1"]


def test_out_jobs_of_job_numbers_is_unchanged(tmp_path):
    path = dump(tmp_path, [4, 9])
    out = tmp_path / "run"
    assert main(["run", "--workload", str(path), "--out", str(out)]) == 0
    assert [(r["job_id"], r["workload_name"]) for r in out_jobs(out)] == [("4", "w0"),
                                                                          ("9", "w0")]


def test_job_numbers_beyond_int32_up_to_2_53_are_integers_in_every_output(tmp_path):
    # 2**53, the largest job number read, was written to schedule.swf and to a converted SWF
    # as 9007199254740992.0, a float where SWF has an integer.
    ids = [2**31 - 1, 2**31, 2**40 + 3, 2**53]
    path = dump(tmp_path, ids)
    out = tmp_path / "run"
    assert main(["run", "--workload", str(path), "--out", str(out)]) == 0
    assert [int(r["job_id"]) for r in out_jobs(out)] == ids
    for name in ("schedule.swf", "converted.swf"):
        if name == "converted.swf":
            assert main(["convert", str(path), str(out / name)]) == 0
        rows = [ln.split() for ln in (out / name).read_text().splitlines()
                if not ln.startswith(";")]
        assert [r[0] for r in rows] == [str(i) for i in ids], name
    assert main(["convert", str(out / "converted.swf"), str(tmp_path / "back.json")]) == 0
    assert [j["id"] for j in json.loads((tmp_path / "back.json").read_text())["jobs"]] == ids
    # A job's swf list (written when the fields hold more than Batsim's: a user here) holds
    # integers too (its number was 9007199254740992.0, and the row's other fields floats).
    doc = json.loads(path.read_text())
    for job in doc["jobs"]:
        job["swf"] = [job["id"], job["subtime"], -1, 10, 1, -1, -1, 1, -1, -1, 1, 7, -1, -1,
                      -1, -1, -1, -1]
    path.write_text(json.dumps(doc))
    write_batsim(tmp_path / "again.json", read_batsim(path))
    again = json.loads((tmp_path / "again.json").read_text())["jobs"]
    assert [j["swf"][0] for j in again] == ids
    assert all(type(v) is int for j in again for v in j["swf"])
