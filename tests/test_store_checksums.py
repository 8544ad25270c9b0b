"""The SHA-256 of every run table: recorded when the table is written, checked before it is
read, so that every single-bit flip of a run table -- the `PAR1` magic, statistics, padding,
bytes no Parquet reader looks at -- is reported as damage naming the file, while the rows of
the other files are still read.  Stores written before checksums existed still read."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ckptsim.cli import main
from ckptsim.experiments import storesums
from ckptsim.experiments.execute import SerialExecutor
from ckptsim.experiments.store import Store, load_results
from ckptsim.experiments.storefmt import Damaged
from ckptsim.experiments.sweep import plan_sweep, run_sweep

SPEC = """name = "tiny"
seeds = [{seeds}]
[workloads.model]
generator = "lublin"
n = [30]
machine = 16
[[schedulers]]
name = "fcfs"
"""


def sweep(tmp_path: Path, out: Path, seeds: str) -> Path:
    spec = tmp_path / "tiny.toml"
    spec.write_text(SPEC.format(seeds=seeds))
    run_sweep(plan_sweep(spec, out), out, SerialExecutor())
    return spec


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A store of two run tables: one run from a first sweep, one from a second."""
    tmp = tmp_path_factory.mktemp("store")
    out = tmp / "out"
    sweep(tmp, out, "1")
    sweep(tmp, out, "1, 2")
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The store of a tiny sweep: one run, one run table of about 20 kB."""
    tmp = tmp_path_factory.mktemp("tiny")
    sweep(tmp, tmp / "out", "1")
    return tmp / "out"


def tables(out: Path) -> list[Path]:
    return sorted((out / "runs").glob("part-*.parquet"))


def test_every_run_table_has_its_checksum(store):
    parts = tables(store)
    assert len(parts) == 2
    for part in parts:
        line = (store / "checksums" / f"{part.name}.sha256").read_text()
        assert line == f"{storesums.digest(part.read_bytes())}  {part.name}\n"  # sha256sum's
    contents = Store(store).read()
    assert contents.corrupt == [] and contents.unchecked == [] and len(contents.rows) == 2


def test_every_single_bit_flip_of_a_run_table_is_detected(tiny):
    """Each bit of the store's run tables, flipped in turn, fails the check the store makes before
    parsing a table (`storesums.verify` of the bytes read against the recorded SHA-256).
    Without it, about 27% of such flips went unnoticed (Parquet page checksums and the rows'
    CRC cover only what is read)."""
    t0 = time.perf_counter()
    flips = 0
    for part in tables(tiny):
        data = bytearray(part.read_bytes())
        expected = storesums.recorded(part)
        storesums.verify(bytes(data), expected)  # intact: accepted
        missed = []
        for pos in range(len(data)):
            for bit in range(8):
                data[pos] ^= 1 << bit
                try:
                    storesums.verify(data, expected)
                    missed.append((pos, bit))
                except Damaged:
                    pass
                data[pos] ^= 1 << bit
        flips += 8 * len(data)
        assert missed == [], f"{part.name}: flips not detected at {missed[:10]}"
    assert flips > 100_000  # a file of about 20 kB, every bit
    assert time.perf_counter() - t0 < 60  # about 5 s here


def positions(size: int) -> list[int]:
    """Every byte of the leading and trailing `PAR1` magic and of the footer's length, and a
    stride through the rest."""
    return sorted({*range(4), *range(size - 8, size), *range(4, size - 8, 173)})


def test_a_flip_read_through_the_store_names_the_file_and_keeps_the_other_runs(store, tmp_path):
    out = tmp_path / "out"
    for kind in ("runs", "checksums"):
        (out / kind).mkdir(parents=True)
        for f in (store / kind).iterdir():
            (out / kind / f.name).write_bytes(f.read_bytes())
    intact = Store(out).read()
    for victim, other in (tables(out), tables(out)[::-1]):
        data = victim.read_bytes()
        kept = {r for r, src in intact.origin.items() if src.path == other}
        assert len(kept) == 1
        for i, pos in enumerate(positions(len(data))):
            flipped = bytearray(data)
            flipped[pos] ^= 1 << (i % 8)
            victim.write_bytes(bytes(flipped))
            contents = Store(out).read()
            assert [f for f, _ in contents.corrupt] == [str(victim)], pos
            assert "SHA-256" in contents.corrupt[0][1]
            assert set(contents.rows) == kept  # the readable run is still there
        victim.write_bytes(data)
    assert Store(out).read().corrupt == []


def test_commands_report_the_damaged_table_and_a_sweep_recomputes_its_runs(tmp_path, capsys):
    out = tmp_path / "out"
    sweep(tmp_path, out, "1")
    spec = sweep(tmp_path, out, "1, 2")
    before = {r["run_id"]: r["mean_wait"] for r in load_results(out)[0]}
    victim = tables(out)[0]
    data = bytearray(victim.read_bytes())
    data[0] ^= 0x01  # the leading PAR1: no Parquet reader looks at it
    victim.write_bytes(bytes(data))
    assert main(["results", str(out)]) == 2
    assert str(victim) in capsys.readouterr().err
    assert main(["sweep", str(spec), "--out", str(out), "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert f"damaged store file {victim}" in captured.err and "SHA-256" in captured.err
    assert "a sweep would run its runs again" in captured.err  # a dry run runs nothing
    assert "in " + str(out) + ": 1 finished, 1 to run" in captured.out
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 0
    assert "1 succeeded, 0 failed, 1 already done" in capsys.readouterr().out
    assert [p.name for p in (out / "damaged").iterdir()] == [victim.name]
    assert not (out / "checksums" / f"{victim.name}.sha256").exists()
    assert {r["run_id"]: r["mean_wait"] for r in load_results(out)[0]} == before
    contents = Store(out).read()
    assert contents.corrupt == [] and contents.unchecked == []


def test_a_store_without_checksums_reads_with_a_note_and_gets_them(tmp_path, capsys):
    out = tmp_path / "out"
    spec = sweep(tmp_path, out, "1, 2")
    for f in (out / "checksums").iterdir():
        f.unlink()
    (out / "checksums").rmdir()  # as an earlier version wrote it
    assert main(["results", str(out)]) == 0
    captured = capsys.readouterr()
    assert "tiny: 2 runs" in captured.out
    assert "note: 1 run table(s) without a recorded SHA-256" in captured.err
    assert str(tables(out)[0]) in captured.err
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 0
    assert "this sweep records them" in capsys.readouterr().err
    assert main(["results", str(out)]) == 0
    assert "SHA-256" not in capsys.readouterr().err
    assert Store(out).read().unchecked == []


def test_an_emptied_table_is_named_empty(tmp_path):
    out = tmp_path / "out"
    sweep(tmp_path, out, "1, 2")
    victim = tables(out)[0]
    victim.write_bytes(b"")
    [(path, why)] = Store(out).read().corrupt
    assert path == str(victim) and why.startswith("empty, where its recorded SHA-256")


def test_a_damaged_or_stray_checksum_file(tmp_path):
    out = tmp_path / "out"
    spec = sweep(tmp_path, out, "1, 2")
    (part,) = tables(out)
    line = storesums.sum_path(part)
    line.write_text(line.read_text().replace(part.name, "part-000009-0.parquet"))
    (why,) = [w for _, w in Store(out).read().corrupt]
    assert "checksum file" in why
    stray = out / "checksums" / "part-000042-0.parquet.sha256"
    stray.write_text("0" * 64 + "  part-000042-0.parquet\n")  # its table was never named
    run_sweep(plan_sweep(spec, out), out, SerialExecutor())
    assert not stray.exists()
    assert Store(out).read().corrupt == [] and len(load_results(out)[0]) == 2
