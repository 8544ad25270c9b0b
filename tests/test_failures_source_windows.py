"""A log named as a failure source (`ckptsim.failures.source.load_failures`) without a count:
where its times count from, with and without a window start (docs/failures.md)."""

from __future__ import annotations

from helpers import LANL_HEADER, lanl_row

from ckptsim.failures.source import load_failures


def test_a_log_without_count_keeps_its_times_from_the_window_start(tmp_path):
    path = tmp_path / "lanl.csv"
    path.write_text("\n".join([
        LANL_HEADER,
        lanl_row(2, 0, "1/10/2004 10:00", "1/10/2004 11:30", "90"),
        lanl_row(2, 1, "1/12/2004 10:00", "1/12/2004 10:05", "5"),
    ]) + "\n")
    spec = f"lanl:path={path},system=2"
    # No start: from the first selected failure.
    whole = load_failures(spec, n_nodes=4, span=1000.0, offset=50.0)
    assert whole.time.tolist() == [50.0, 50.0 + 2 * 86400]
    # A date start: from that instant (10 hours before the first failure), not from the
    # first failure in the window.
    dated = load_failures(spec + ",start=2004-01-10", n_nodes=4, span=1000.0, offset=50.0)
    assert dated.time.tolist() == [50.0 + 36000, 50.0 + 36000 + 2 * 86400]
    # A start in seconds: that many seconds after the first failure.
    later = load_failures(spec + ",start=3600", n_nodes=4, span=1000.0)
    assert later.time.tolist() == [2 * 86400 - 3600.0]
