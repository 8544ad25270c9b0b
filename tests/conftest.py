import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Hypothesis profiles.  "ci" (chosen whenever the CI variable is set) is derandomized: every
# property test draws the same examples on every run, so CI never fails by chance.  "dev" (the
# default elsewhere) draws fresh examples each run.  "explore" draws ten times as many, for
# hunting counterexamples locally: HYPOTHESIS_PROFILE=explore python -m pytest -k property.
_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, **_COMMON)
settings.register_profile("dev", **_COMMON)
settings.register_profile("explore", **_COMMON)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
settings.load_profile(PROFILE)

# The parsed-trace cache of sweeps (ckptsim.workload.cache) goes to a folder of this test run,
# not the user's ~/.cache, unless a folder (or "off") is given.
if "CKPTSIM_TRACE_CACHE" not in os.environ:
    _TRACE_CACHE = tempfile.mkdtemp(prefix="ckptsim-trace-cache-")
    os.environ["CKPTSIM_TRACE_CACHE"] = _TRACE_CACHE
    atexit.register(shutil.rmtree, _TRACE_CACHE, ignore_errors=True)


@pytest.fixture(scope="session")
def documented_run(tmp_path_factory):
    """Runs a page's `ckptsim ...` line once per test run, from the repository root as the
    page means it, its `--out` (if any) redirected to a folder of the test run; `run(line)`
    gives (exit status, what it printed, that folder).  Tests of one page's commands in
    several files (docs/energy.md: test_energy_docs and test_checkpoint_seed003) share the
    runs instead of simulating the same command twice."""
    import contextlib
    import io
    import shlex

    from ckptsim.cli import main

    done: dict[str, tuple[int, str, Path]] = {}

    def run(line: str) -> tuple[int, str, Path]:
        if line not in done:
            argv = shlex.split(line)
            assert argv[0] == "ckptsim", line
            args = argv[1:]
            out = tmp_path_factory.mktemp("documented-run")
            if "--out" in args:
                args[args.index("--out") + 1] = str(out)
            printed = io.StringIO()
            cwd = os.getcwd()
            os.chdir(ROOT)  # the commands use paths relative to the repository
            try:
                with contextlib.redirect_stdout(printed):
                    status = main(args)
            finally:
                os.chdir(cwd)
            done[line] = (status, printed.getvalue(), out)
        return done[line]

    return run
