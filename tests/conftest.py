import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings

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
