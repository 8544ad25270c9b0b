#!/usr/bin/env bash
# Sweep scaling on a many-core machine: the `scale40` and `scale` sweeps of bench_sweep.py on
# pools of 1, 2, 4, 8 and 16 workers and a Dask LocalCluster of 16, each as a fresh process,
# and sweep_contention.py on the same machine: what 1 to 16 simulations at once cost each
# other, and the 40,000-job matrix shared among 2 to 16 processes with no sweep machinery at
# all (an oracle's dispatch: what the machine allows any sweep).
#
#   bash benchmarks/sweep_scaling.sh TRACES OUT [OLD_SRC]
#
# TRACES holds SDSC-SP2, CTC-SP2, SDSC-BLUE and HPC2N (the .swf.gz files of
# ../shared/data/traces); OUT receives scale40.json, contention.json, scale.json and the Dask
# files; with OLD_SRC (an older ckptsim's src folder, e.g. `git archive REV src | tar -x -C
# DIR`) the 40,000-job sweep is also measured on 8 and 16 workers of that version
# (scale40-before.json).
# A step that fails is reported and the next one runs.
set -uo pipefail
traces=$1
out=$2
old=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
mkdir -p "$out"
step() { echo "== $*"; "$py" "$here/bench_sweep.py" --traces "$traces" --timeline "$@" || echo "!! failed: $*"; }
echo "cores: $(nproc)"
step --spec scale40 --executors pool1 pool2 pool4 pool8 pool16 --repeat 2 --json "$out/scale40.json"
echo "== contention"
"$py" "$here/sweep_contention.py" --traces "$traces" --spec scale40 --procs 1 2 4 8 16 \
  --runs 8 --repeat 2 --split --json "$out/contention.json" || echo "!! failed: contention"
if [ -n "$old" ]; then
  step --spec scale40 --executors pool8 pool16 --repeat 2 --src "$old" --json "$out/scale40-before.json"
fi
step --spec scale --executors pool1 pool2 pool4 pool8 pool16 --repeat 1 --json "$out/scale.json"
step --spec scale40 --executors pool16 dask16 --repeat 1 --json "$out/scale40-dask.json"
step --spec scale --executors pool16 dask16 --repeat 1 --json "$out/scale-dask.json"
