"""Imported once by the process-pool server before it forks workers, so that each worker starts
with everything a run needs already imported (the simulator, every registered scheduler, the
readers, pyarrow) instead of importing it again on its first run."""

from __future__ import annotations

import pyarrow.parquet  # noqa: F401

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
