"""benchmarks/output_hashes.py: the hashes of a case do not depend on where the trace is.

summary.json records the trace path as given; the script gives the trace's file name from the
trace's folder, so that `--check` from another checkout (another ../shared) compares the
same bytes.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SWF = "\n".join([
    "; MaxProcs: 8",
    *(f"{i} {i * 100} 0 {50 + 10 * i} {1 + i % 4} -1 -1 {1 + i % 4} {100 + 10 * i} -1 1 1 1 1 "
      "1 -1 -1 -1" for i in range(1, 9)),
]) + "\n"


def test_a_case_hashes_the_same_from_two_trace_folders(tmp_path: Path):
    spec = importlib.util.spec_from_file_location("output_hashes",
                                                  ROOT / "benchmarks" / "output_hashes.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    one = tmp_path / "one" / "shared" / "data" / "traces" / "tiny.swf"
    two = tmp_path / "two" / "elsewhere" / "tiny.swf"
    for path in (one, two):
        path.parent.mkdir(parents=True)
    one.write_text(SWF)
    shutil.copy(one, two)
    first, _ = script.run_case(one, "easy", ())
    second, _ = script.run_case(two, "easy", ())
    assert first == second
