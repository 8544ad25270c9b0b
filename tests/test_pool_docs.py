"""docs/pool.md stays true: its example and commands run, every parameter is documented."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest
from helpers import doc_commands, run_doc_command

from ckptsim.platform.usermodel import UserModel
from ckptsim.workload.htc import OPTIONS, HTCParams

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "docs" / "pool.md").read_text()


def test_python_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, "docs/pool.md", "exec"), {})
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize("command", doc_commands(TEXT))
def test_command_runs(command, tmp_path):
    run_doc_command(command, tmp_path)


def test_every_parameter_is_documented():
    for f in (*fields(UserModel), *fields(HTCParams)):
        assert f"`{f.name}`" in TEXT, f.name
    for option in OPTIONS:
        assert f"`{option}`" in TEXT, option


def test_the_durations_quoted_are_the_lognormal_s_and_those_of_generated_years():
    # Expected at the defaults: median 45 min, mean median x exp(s^2 / 2) ~2.5 h, ~1.3% above
    # 24 h (s^2 = batch^2 + job^2); realised: each of seeds 1-5 within the range quoted, and
    # seed 1's values as quoted.
    import math

    import numpy as np

    import ckptsim

    p = HTCParams()
    s = math.hypot(p.duration_batch_sigma, p.duration_job_sigma)
    above = 0.5 * math.erfc(math.log(86400 / p.duration_median) / s / math.sqrt(2))
    expected = f"mean ~{p.duration_median * math.exp(s * s / 2) / 3600:.1f} h, median " \
               f"~{p.duration_median / 60:.0f} min, ~{100 * above:.1f}% above"
    assert expected in TEXT
    realised = []
    for seed in range(1, 6):
        r = np.asarray(ckptsim.workload(f"htc:days=365,seed={seed}").runtime, float)
        realised.append((r.mean() / 3600, float(np.median(r)) / 60, 100 * (r > 86400).mean()))
    (lo_mean, hi_mean), (lo_med, hi_med), (lo_tail, hi_tail) = (
        (min(col), max(col)) for col in zip(*realised, strict=True))
    text = " ".join(TEXT.split())
    assert (f"the mean is {lo_mean:.2f}-{hi_mean:.2f} h, the median {lo_med:.1f}-{hi_med:.1f} "
            f"min and {lo_tail:.2f}-{hi_tail:.2f}% of the jobs are above 24 h") in text
    mean, median, tail = realised[0]
    assert f"(seed 1: {mean:.2f} h, {median:.1f} min, {tail:.2f}%)" in text
