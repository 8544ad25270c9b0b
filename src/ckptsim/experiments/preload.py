"""Imported once by the process-pool server before it forks workers, so that each worker starts
with everything a run needs already imported (the simulator, every registered scheduler, the
readers) instead of importing it again on its first run.

pyarrow is left out: a run needs it only to encode its per-job records (`keep_jobs`, off by
default), and importing it here would add about 0.2 s to every sweep's start, before any
worker can fork.  A worker of a sweep that keeps per-job records imports it at its first run
(workers do that at the same time)."""

from __future__ import annotations

import ckptsim.experiments.execute  # noqa: F401
import ckptsim.experiments.pool  # noqa: F401
import ckptsim.experiments.storefmt  # noqa: F401
import ckptsim.failures.readers  # noqa: F401
import ckptsim.failures.source  # noqa: F401
import ckptsim.runner  # noqa: F401
import ckptsim.workload.lublin  # noqa: F401
import ckptsim.workload.swf  # noqa: F401
from ckptsim.policies.base import scheduler_names

scheduler_names()  # imports and registers the built-in schedulers
