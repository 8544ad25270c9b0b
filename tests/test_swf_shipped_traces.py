"""Golden loader counts of every shipped SWF trace (skipped when ../shared/data is absent).

`records` is the number of data lines of each file (counted independently here and listed in
the data folder's manifest); the other counts are the loader's rules of docs/workloads.md,
checked independently with `zcat | awk` on the fields they read."""

from __future__ import annotations

import gzip

import pytest
from helpers import TRACES

from ckptsim.workload.swf import read_swf

#: name: (machine size, jobs kept, the non-zero counts besides records and jobs)
SHIPPED = {
    "CEA-Curie-2011-2.1-cln": (93_312, 312_807, {"requested_procs_missing": 84_585,
                                                  "skipped_nonpositive_size": 19}),
    "CTC-SP2-1996-3.1-cln": (338, 77_222, {"requested_procs_missing": 77_222,
                                           "requested_time_missing": 6}),
    "HPC2N-2002-2.2-cln": (240, 202_871, {}),
    "KTH-SP2-1996-2.1-cln": (100, 28_475, {"skipped_nonpositive_size": 1}),
    "LANL-CM5-1994-4.1-cln": (1024, 122_057, {"requested_procs_missing": 11_326,
                                              "requested_time_missing": 11_287,
                                              "skipped_nonpositive_size": 3}),
    "LCG": (24_515, 188_041, {"requested_procs_missing": 188_041}),
    "LLNL-Atlas-2006-2.1-cln": (9216, 39_207, {"requested_procs_missing": 1,
                                               "requested_time_missing": 6_294,
                                               "skipped_nonpositive_size": 4_571}),
    "LLNL-Thunder-2007-1.1-cln": (4008, 118_791, {"requested_procs_missing": 4,
                                                  "requested_time_missing": 80_200,
                                                  "skipped_negative_runtime": 1_190,
                                                  "skipped_nonpositive_size": 1_058}),
    "NASA-iPSC-1993-3.1-cln": (128, 18_239, {"requested_procs_missing": 18_239,
                                             "requested_time_missing": 18_239}),
    "OSC-Clust-2000-3.1-cln": (178, 36_097, {"requested_time_missing": 36_097}),
    "SDSC-BLUE-2000-4.2-cln": (1152, 232_562, {"skipped_negative_runtime": 10_744}),
    "SDSC-DS-2004-2.1-cln": (1664, 85_045, {"skipped_negative_runtime": 11_024}),
    "SDSC-Par-1996-3.1-cln": (400, 32_135, {"requested_procs_missing": 32_135,
                                            "requested_time_missing": 32_135}),
    "SDSC-SP2-1998-4.2-cln": (128, 54_044, {"requested_time_missing": 35,
                                            "skipped_negative_runtime": 5_671}),
    "Sandia-Ross-2001-1.1-cln": (1524, 57_867, {"requested_time_missing": 338,
                                                "skipped_nonpositive_size": 15}),
    "lublin_256": (256, 10_000, {"requested_procs_missing": 10_000,
                                 "requested_time_missing": 10_000}),
}


def _data_lines(path) -> int:
    with gzip.open(path, "rb") as f:
        return sum(1 for line in f if line.strip() and not line.lstrip().startswith(b";"))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_the_loader_counts_of_every_shipped_trace(name: str) -> None:
    path = TRACES / f"{name}.swf.gz"
    if not path.exists():
        pytest.skip(f"real trace {path} not available (../shared/data is not part of the repo)")
    machine, kept, counts = SHIPPED[name]
    w = read_swf(path)
    assert w.machine_size == machine
    assert w.counts["records"] == _data_lines(path)
    assert w.counts["jobs"] == kept == len(w)
    assert {k: v for k, v in w.counts.items() if v and k not in ("records", "jobs")} == counts
    dropped = sum(w.counts[k] for k in ("skipped_bad_lines", "skipped_negative_runtime",
                                        "skipped_nonpositive_size", "skipped_too_large"))
    assert w.counts["records"] == dropped + kept
    assert (w.submit[1:] >= w.submit[:-1]).all() and w.submit[0] >= 0
    assert (w.size >= 1).all() and (w.size <= machine).all()
