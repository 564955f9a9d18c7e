#!/usr/bin/env bash
# The H100 report of issue 6's suites (batched, transfers, tsm) into docs/performance.md's
# "h100-issue6" section, and rgemm's algorithm table (classic, ozaki-fp64, ozaki-int8) into
# "h100-algorithms": bash bench/issue6_bench.sh {issue6|algorithms} (after device_run.sh's
# install; $OUT receives the reports).
set -uo pipefail
OUT="${OUT:-device-out}"; mkdir -p "$OUT"
export DDBLAS_CACHE_DIR="$PWD/.devcache"
case "${1:-issue6}" in
issue6) suites='("batched", "transfers", "tsm")'; section=h100-issue6; plan='bench.Plan()' ;;
algorithms) suites='("rgemm",)'; section=h100-algorithms
    plan='bench.Plan(gpu_sizes=(1024, 4096, 8192), gpu_ladder_sizes=(), cpu_sizes=())' ;;
esac
timeout ${BENCH_TIMEOUT:-500} python3 -c "
from ddblas.tools import bench
bench.run($suites, $plan, out_dir='$OUT', doc='docs/performance.md', section='$section',
           command='bash bench/issue6_bench.sh ${1:-issue6}')
" 2>&1 | tee "$OUT/bench-$section.txt"
cp docs/performance.md "$OUT/"
