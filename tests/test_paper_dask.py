"""`ckptsim paper ... --dask ADDRESS`: a paper's figures computed on a Dask cluster are the
figures computed on the local pool."""

from __future__ import annotations

import pytest

from ckptsim.cli import main

pytest.importorskip("distributed")


@pytest.mark.slow  # starts a LocalCluster: about 8 s (opt-in: -m slow)
def test_a_figure_on_a_dask_cluster_is_the_figure_on_the_pool(tmp_path, capsys):
    common = ["paper", "jones", "headline", "--per-cluster", "40", "--replications", "2",
              "--jobs", "2"]
    assert main([*common, "--out", str(tmp_path / "pool")]) == 0
    assert main([*common, "--out", str(tmp_path / "dask"), "--dask", "local"]) == 0
    assert (tmp_path / "dask" / "headline.csv").read_bytes() == (
        tmp_path / "pool" / "headline.csv").read_bytes()


def test_dask_is_refused_by_the_commands_that_read_results(tmp_path, capsys):
    assert main(["paper", "jones", "tables", "--out", str(tmp_path), "--dask", "local"]) == 2
    assert "--dask: does not apply to jones tables" in capsys.readouterr().err
