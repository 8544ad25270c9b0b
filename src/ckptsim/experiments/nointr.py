"""Listed first in the fork servers' preload (`pool`, `daskexec`'s LocalCluster): the server,
and every worker it forks, ignore SIGINT. A Ctrl-C at the terminal goes to the whole process
group; the sweep alone decides what stops (it stops its workers), instead of each worker and
the server printing a KeyboardInterrupt traceback from wherever it was (an import, Dask's
loop). Never imported by the sweep itself, nor by the workers of a remote Dask cluster.

The server starts with SIGINT blocked (`pool.start_forkserver`), so that a Ctrl-C while it
starts Python stays pending; it is unblocked here, once ignored, and so dropped."""

from __future__ import annotations

import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)
if hasattr(signal, "pthread_sigmask"):
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
