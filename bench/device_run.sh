#!/usr/bin/env bash
# Device-machine runs in stages that each fit one call:
#   bash bench/device_run.sh tests   install, full test suite, demo
#   bash bench/device_run.sh sanitize  compute-sanitizer: memcheck of the elementwise GPU tests,
#                                    the rgemm shape grid, a chunked ozaki-fp64 call and
#                                    rgemm_batched (broadcast B, shared-memory and global paths),
#                                    the tsm kernels (in sanitize_gemm.py), device="gpu" transfer
#                                    pipelines, ozaki-int8, the elementary functions' GPU tests;
#                                    racecheck of the rgemm grid
#   bash bench/device_run.sh bench   python -m ddblas bench all (SIZES overrides the GPU rgemm
#                                    sizes), the report into docs/performance.md's "h100" section;
#                                    the baseline libraries come from .whl/ (carry it)
#   bash bench/device_run.sh profile-tsm  Nsight Compute of the tsm kernels (TSM_ARGS="n k ...": 8192 1 4 16)
#   bash bench/device_run.sh sweep   bench/tile_sweep.py: candidate tile sizes, N = 4096 and 8192
#   bash bench/device_run.sh profile Nsight Compute sections of the b=4 kernels and their SASS
#                                    instruction census (fma/sloppy, fma/accurate at N = 4096)
# Logs go to $OUT (or ./device-out); compiled kernels are cached in .devcache between calls.
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT="${OUT:-device-out}"; mkdir -p "$OUT"
export DDBLAS_CACHE_DIR="$PWD/.devcache"
stage="${1:-tests}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v "^WARNING" | tail -3
if [ -d .whl ]; then  # the optional baselines (bench extra), as wheels, xprec from its sdist
    python3 -m pip install -q --no-index --no-deps --no-build-isolation .whl/* 2>&1 | grep -v "^WARNING" | tail -3
fi
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__, 'nvrtc', cupy.cuda.nvrtc.getVersion())"
echo "== compile"; time python3 -c "import ddblas; ddblas.ones(1, device='gpu') + 1; ddblas.ones(1) + 1"
if [ "$stage" = tests ]; then
echo "== tests"
DDBLAS_HYPOTHESIS_PROFILE=device timeout ${TEST_TIMEOUT:-400} python3 -m pytest -n 8 -q -rf --tb=short -p no:cacheprovider \
    -p no:warnings > "$OUT/pytest.log" 2>&1; echo "pytest exit $?"
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/pytest.log" | tail -25
echo "== demo"; timeout 60 python3 -m ddblas demo --n 1024 2>&1 | tee "$OUT/demo.log"
fi
if [ "$stage" = sanitize ]; then
echo "== sanitizers"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -x \
    -p no:cacheprovider -p no:warnings tests/test_gpu.py > "$OUT/memcheck.log" 2>&1
echo "memcheck elementwise exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck.log" | tail -1
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 python3 bench/sanitize_gemm.py \
    > "$OUT/memcheck_gemm.log" 2>&1
echo "memcheck rgemm exit $?"; grep -E "ERROR SUMMARY|sanitize_gemm" "$OUT/memcheck_gemm.log" | tail -2
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 python3 bench/sanitize_gemm.py --quick \
    > "$OUT/racecheck_gemm.log" 2>&1
echo "racecheck rgemm exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|sanitize_gemm" "$OUT/racecheck_gemm.log" | tail -2
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
import ddblas; from ddblas import _ozaki, accuracy; from unittest import mock
a = accuracy.random_dd((67, 301), seed=1, device='gpu'); b = accuracy.random_dd((301, 45), seed=2, device='gpu')
with mock.patch.object(_ozaki, 'CHUNK', 100): ddblas.rgemm(a, b.T.copy(), transb='T', algorithm='ozaki-fp64')
" > "$OUT/memcheck_ozaki.log" 2>&1
echo "memcheck ozaki exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck_ozaki.log" | tail -1
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
import ddblas; from ddblas import accuracy
for m, k, n, batch in ((19, 32, 9, 300), (1, 1, 1, 5), (34, 56, 9, 70), (40, 300, 33, 3)):
    a = accuracy.random_dd((batch, m, k), seed=1, device='gpu'); b = accuracy.random_dd((k, n), seed=2, device='gpu')
    c = ddblas.rgemm_batched(a, b); ddblas.rgemm_batched(a.transpose(0, 2, 1).copy(), b, transa='T')
" > "$OUT/memcheck_batched.log" 2>&1
echo "memcheck batched exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck_batched.log" | tail -1
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
import ddblas; from ddblas import _ozaki, accuracy; from unittest import mock
a = accuracy.random_dd((67, 301), seed=1); b = accuracy.random_dd((301, 45), seed=2)
ddblas.rgemm(a, b, device='gpu', chunk=20); ddblas.rgemm(a.T.copy(), b, transa='T', device='gpu')
x = accuracy.random_dd((500, 19, 32), seed=3); y = accuracy.random_dd((32, 9), seed=4)
ddblas.rgemm_batched(x, y, device='gpu', chunk=64)
with mock.patch.object(_ozaki, 'INT8_CHUNK', 100):
    ddblas.rgemm(a.to_device('gpu'), b.to_device('gpu'), algorithm='ozaki-int8')
" > "$OUT/memcheck_transfer_int8.log" 2>&1
echo "memcheck transfers + ozaki-int8 exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck_transfer_int8.log" | tail -1
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -x \
    -p no:cacheprovider -p no:warnings tests/test_elementary.py -k "bitwise or (gpu and (odd_strides or special))" \
    > "$OUT/memcheck_elementary.log" 2>&1
echo "memcheck elementary exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck_elementary.log" | tail -1
fi
if [ "$stage" = bench ]; then
echo "== bench"
timeout ${BENCH_TIMEOUT:-500} python3 -m ddblas bench all --sizes ${SIZES:-256 512 1024 2048 4096 8192} \
    --out-dir "$OUT" --doc docs/performance.md --section h100 2>&1 | tee "$OUT/bench.txt"
cp docs/performance.md docs/bench-h100-*.png "$OUT/" 2>/dev/null
fi
if [ "$stage" = profile ]; then
echo "== sass census of the b4 NN kernels (inner loop and epilogue together)"
nvcc --fmad=false -std=c++17 -arch=sm_90 -Icuda_src -cubin cuda_src/units/gemm.cu -o "$OUT/kernels.cubin"
for v in fma_sloppy fma_accurate; do
    cuobjdump -sass -fun ddblas_gemm_b4_kn_$v "$OUT/kernels.cubin" > "$OUT/sass_b4_$v.txt"
    echo "$v:" $(grep -oE '^\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P[T0-9]\s+)?[A-Z0-9.]+' "$OUT/sass_b4_$v.txt" | awk '{print $NF}' \
        | sed -E 's/\..*//' | sort | uniq -c | sort -rn | head -14 | awk '{printf "%s=%s ", $2, $1}')
done
rm -f "$OUT/kernels.cubin"
echo "== ncu"
timeout 240 ncu --kernel-name regex:ddblas_gemm_b4 --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section Occupancy --section LaunchStats \
    --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active \
    python3 bench/profile_gemm.py --n 4096 --variants ${VARIANTS:-fma/sloppy} > "$OUT/ncu.txt" 2>&1
echo "ncu exit $?"
grep -E "GFLOP/s|Duration|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc Active|Achieved Occupancy|Registers Per|bank_conflicts|pipe_fp64|inst_executed.sum|No Eligible|Stall|Warp Cycles Per Issued" "$OUT/ncu.txt" | head -40
fi
if [ "$stage" = profile-tsm ]; then
echo "== ncu of the tsm kernels (TSM_ARGS: n and the widths; every call after the first)"
timeout 300 ncu --kernel-name regex:ddblas_gemm_tsm --launch-skip 1 --launch-skip-before-match 0 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    --section MemoryWorkloadAnalysis --metrics dram__bytes_read.sum.per_second,smsp__inst_executed_pipe_fp64.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active \
    python3 bench/profile_tsm.py ${TSM_ARGS:-8192} > "$OUT/ncu_tsm.txt" 2>&1
echo "ncu exit $?"
grep -E "ddblas_gemm_tsm|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|dram__bytes_read|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|pipe_fp64|Stall|Warp Cycles Per Issued|Grid Size" "$OUT/ncu_tsm.txt" | head -60
fi
if [ "$stage" = sweep ]; then
echo "== tile sweep"
timeout 400 python3 bench/tile_sweep.py --out "$OUT/tile_sweep.json" 2>&1 | tee "$OUT/tile_sweep.txt"
fi
