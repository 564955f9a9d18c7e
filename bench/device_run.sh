#!/usr/bin/env bash
# Device-machine runs in stages; several may run in one call, in the order given
# (bash bench/device_run.sh first-use hash tests sanitize):
#   first-use                        bench/first_use.py: first-use compile times, empty cache
#   hash                             bench/gemm_hash.py gpu (must print the CPU's hash)
#   tests                            full test suite (default and toolchain markers), demo
#   bash bench/device_run.sh sanitize  compute-sanitizer: memcheck of the elementwise GPU tests
#                                    and of the reductions/building GPU tests ("reduce" family),
#                                    test_simplefn.py without hypothesis,
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
#   bash bench/device_run.sh linalg  tests/test_linalg_factor.py on the GPU, compute-sanitizer
#                                    memcheck of the linalg kernels and racecheck of the potrf
#                                    and trsm kernels, bench/linalg_factor.py $LINALG_BENCH_ARGS
#   bash bench/device_run.sh qr      tests/test_linalg_qr.py on the GPU, compute-sanitizer memcheck
#                                    of qr / lstsq (views, wide, tall, 1x1, panel boundaries), then
#                                    bench/linalg_factor.py 2048 (qr's DD GFLOP/s up to n = 2048)
#   bash bench/device_run.sh solve   tests/test_linalg_solve.py on the GPU, compute-sanitizer
#                                    memcheck of the linalg_batched kernels (views, broadcast,
#                                    1x1, singular), then the linalg bench at the sizes
#                                    (n = 16384 solves, kappa 1e8 and 1e12; 10^4 batched 9x9,
#                                    19x19, 64x64) into $OUT/solve-bench (needs scipy: carry a
#                                    wheel in .whl/ if the machine lacks it)
#   bash bench/device_run.sh batched tests/test_linalg_solve.py on the GPU, compute-sanitizer
#                                    memcheck and racecheck of the batched team kernels (orders
#                                    at their boundaries, views, a singular stack, rows far
#                                    apart, lu_factor / lu_solve of stacks), then
#                                    bench/batched_solve.py (10^4 systems of 9 .. 97);
#                                    BATCHED_TESTS=0 / BATCHED_BENCH=0 leave out the first / last
#   bash bench/device_run.sh lu-grid compute-sanitizer memcheck of LU with every panel on the
#                                    cooperative grid kernel, then bench/linalg_factor.py 8192 16384
#   bash bench/device_run.sh fma     python -m ddblas bench fma (FMA census and throughput, a row per
#                                    elementwise function) into $OUT/fma
#   bash bench/device_run.sh ozaki2  compute-sanitizer memcheck of ozaki2-int8 (odd shapes, chunks
#                                    of K, row blocks, transposes, alpha/beta, the scan's bound
#                                    products in blocks of rows) and racecheck of the
#                                    scan's first-digit reduction, then bench/ozaki_phases.py (the
#                                    classic kernel and the three Ozaki algorithms, N = 2048..16384)
#   bash bench/device_run.sh accuracy  python -m ddblas accuracy on the GPU (its "against N"
#                                    section up to 16384) into $OUT/accuracy
#   bash bench/device_run.sh dask    bench/dask_multigpu.py $DASK_ARGS (default: all the GPUs, 2, 1;
#                                    UCX; issue 20's cases) on a multi-GPU kind, the links (nvidia-smi
#                                    topo); dask, distributed, dask-cuda and distributed-ucxx come
#                                    from .whl/ (carry it; docs/distributed.md lists the wheels)
#   bash bench/device_run.sh mplapack  bench/mplapack_rgemm.py: the classic rgemm against MPLAPACK's
#                                    CUDA Rgemm (dd) on the same data, N = 2048, 4096, 8192; MPLAPACK's
#                                    mpblas/optimized/dd/cuda sources come from .peers/mplapack
#                                    (carry it; not part of ddblas)
#   bash bench/device_run.sh profile Nsight Compute sections of the b=4 kernels and their SASS
#                                    instruction census (fma/sloppy, fma/accurate at N = 4096)
# Logs go to $OUT (or ./device-out); compiled kernels are cached in .devcache between calls.
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT="${OUT:-device-out}"; mkdir -p "$OUT"
export DDBLAS_CACHE_DIR="$PWD/.devcache"
stages=" ${*:-tests} "
has() { [[ "$stages" == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v "^WARNING" | tail -3
if [ -d .whl ]; then  # the optional baselines (bench extra), as wheels, xprec from its sdist
    python3 -m pip install -q --no-index --no-deps --no-build-isolation .whl/* 2>&1 | grep -v "^WARNING" | tail -3
fi
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__, 'nvrtc', cupy.cuda.nvrtc.getVersion())"
if has first-use; then echo "== first use"; timeout 240 python3 bench/first_use.py --device cpu gpu 2>&1 | tee "$OUT/first_use.txt"; fi
echo "== compile"; time python3 -c "import ddblas; ddblas.ones(1, device='gpu') + 1; ddblas.ones(1) + 1"
if has hash; then echo "== gemm hash (gpu)"; timeout 120 python3 bench/gemm_hash.py gpu 2>&1 | tee "$OUT/gemm_hash.txt"; fi
if has tests; then
echo "== tests"
DDBLAS_HYPOTHESIS_PROFILE=device timeout ${TEST_TIMEOUT:-400} python3 -m pytest -n 8 -q -rf --tb=short -p no:cacheprovider \
    -p no:warnings -m "slow or toolchain or not (slow or toolchain)" --ignore=tests/test_kernelcheck.py \
    > "$OUT/pytest.log" 2>&1; echo "pytest exit $?"  # nvcc checks: CI
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/pytest.log" | tail -25
echo "== demo"; timeout 60 python3 -m ddblas demo --n 1024 2>&1 | tee "$OUT/demo.log"
fi
if has linalg; then
echo "== linalg tests"
DDBLAS_HYPOTHESIS_PROFILE=device timeout 300 python3 -m pytest -q -rf --tb=short -p no:cacheprovider \
    -p no:warnings tests/test_linalg_factor.py > "$OUT/linalg_tests.log" 2>&1; echo "pytest exit $?"
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/linalg_tests.log" | tail -25
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
import ddblas; from ddblas import linalg, accuracy
for n in (1, 17, 100, 130):
    a = accuracy.random_dd((n, n), seed=n, device='gpu'); lu, piv = linalg.lu_factor(a, algorithm='blocked')
    linalg.lu_solve((lu, piv), accuracy.random_dd((n, 3), seed=1, device='gpu'), trans=1)
    s = ddblas.rgemm(a, a.T) + ddblas.eye(n, device='gpu') * n; c = linalg.cho_factor(s, lower=True)
    linalg.cho_solve(c, accuracy.random_dd((n,), seed=2, device='gpu'))
    linalg.lu_factor(accuracy.random_dd((2 * n, n), seed=3, device='gpu')[::2]); linalg.lu(accuracy.random_dd((n + 5, n), seed=4, device='gpu'))
linalg.cholesky(accuracy.random_dd((300, 9, 9), seed=5, device='gpu') * 0 + ddblas.eye(9, device='gpu'))
" > "$OUT/memcheck_linalg.log" 2>&1
echo "memcheck linalg exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck_linalg.log" | tail -1
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -c "
import numpy as np, ddblas; from ddblas import linalg
for n in (1, 5, 31, 33, 64, 100):   # potrf_warp's shared rows: stacks, leaves, failing minors
    b = np.random.default_rng(n).standard_normal((3, n, n))
    a = ddblas.asarray(b @ b.transpose(0, 2, 1) + n * np.eye(n)).to_device('gpu')
    linalg.cholesky(a, lower=True); a[1, n // 2, n // 2] = -1.0
    try: linalg.cholesky(a, lower=True)
    except linalg.LinAlgError: pass
" > "$OUT/racecheck_potrf.log" 2>&1
echo "racecheck potrf exit $?"; grep -E "RACECHECK SUMMARY" "$OUT/racecheck_potrf.log" | tail -1
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -c "
import ddblas; from ddblas import accuracy
for n, k in ((5, 3), (64, 17), (100, 40)):   # the trsm kernel's staged triangle, blocks of warps
    a = accuracy.random_dd((n, n), seed=n, device='gpu') + ddblas.eye(n, device='gpu') * 8
    for uplo in 'LU':
        ddblas.rtrsm('L', uplo, 'N', 'N', 1, a, accuracy.random_dd((n, k), seed=k, device='gpu'))
        ddblas.rtrsm('R', uplo, 'T', 'U', 1, a, accuracy.random_dd((k, n), seed=k, device='gpu'))
" > "$OUT/racecheck_trsm.log" 2>&1
echo "racecheck trsm exit $?"; grep -E "RACECHECK SUMMARY" "$OUT/racecheck_trsm.log" | tail -1
timeout 200 python3 bench/linalg_factor.py ${LINALG_BENCH_ARGS:-} 2>&1 | tee "$OUT/linalg_factor.log"
fi
if has qr; then
echo "== qr tests"
DDBLAS_HYPOTHESIS_PROFILE=device timeout 120 python3 -m pytest -q -rf --tb=short -p no:cacheprovider \
    -p no:warnings tests/test_linalg_qr.py > "$OUT/qr_tests.log" 2>&1; echo "pytest exit $?"
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/qr_tests.log" | tail -25
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
import ddblas; from ddblas import linalg
for m, n in ((1, 1), (33, 31), (31, 40), (70, 65)):
    a = ddblas.random((2 * m, n + 3), seed=m, device='gpu')[::2, 3:]
    for mode in ('full', 'economic', 'r', 'raw'): linalg.qr(a, mode=mode)
    linalg.qr(a.T, algorithm='blocked'); linalg.lstsq(a, ddblas.random((m, 2), seed=1, device='gpu'))
" > "$OUT/memcheck_qr.log" 2>&1
echo "memcheck qr exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck_qr.log" | tail -1
timeout 200 python3 bench/linalg_factor.py 2048 --qr-max 2048 2>&1 | tee "$OUT/qr_factor.log"
fi
if has batched; then
if [ "${BATCHED_TESTS:-1}" != 0 ]; then   # BATCHED_TESTS=0: the full suite ran them already
echo "== batched tests"
DDBLAS_HYPOTHESIS_PROFILE=device timeout 200 python3 -m pytest -q -rf --tb=short -p no:cacheprovider \
    -p no:warnings tests/test_linalg_solve.py > "$OUT/batched_tests.log" 2>&1; echo "pytest exit $?"
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/batched_tests.log" | tail -25
fi
for tool in memcheck racecheck; do
timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 python3 -c "
import numpy as np; import ddblas; from ddblas import linalg
for n, batch in ((1, 5), (9, 70), (16, 9), (19, 33), (24, 7), (32, 5), (33, 3), (48, 3), (49, 2), (64, 3), (96, 2), (97, 2)):
    a = ddblas.random((batch, 2 * n, 2 * n), seed=n, device='gpu')[:, ::2, 1::2] + ddblas.eye(n, device='gpu')
    b = ddblas.random((batch, n, 2), seed=1, device='gpu')
    linalg.solve(a, b); linalg.det(a); linalg.inv(a[:2])
    linalg.solve(a, b[:, :, 1:]); linalg.solve(a, b[0, :, 0]); linalg.solve(a[0], b[0, :, :1])
    linalg.solve(a[:2], ddblas.random((2, n, 35), seed=2, device='gpu'))   # columns wrap round a warp
    rows = ddblas.asarray(np.where(np.arange(n)[:, None] == 0, 2.0 ** -700, 1.0)).to_device('gpu')
    linalg.solve(a * rows, b)   # rows 2^700 apart: flagged, equilibrated, solved again
    linalg.solve(a * 2.0 ** -900, b); linalg.det(a * 2.0 ** -900)   # tiny: flagged, scaled up
    lu, piv = linalg.lu_factor(a)   # a stack: one batched launch (from_factors' layouts)
    linalg.lu_solve((lu, piv), b); linalg.lu_solve((lu[::-1], piv[::-1]), b[:1, :, ::-1])
    linalg.lu_solve((lu[0], piv[0]), b); linalg.lu_solve((lu, piv), b[0, :, 0])
    linalg.lu_solve((lu, piv), b, trans=1); linalg.lu_solve((lu[::-1], piv[::-1]), b[:1, :, ::-1], trans=1)
s = ddblas.zeros((4, 40, 40), device='gpu') + ddblas.eye(40, device='gpu'); s[1, 7] = ddblas.zeros(40, device='gpu')
try: linalg.solve(s, ddblas.ones(40, device='gpu'))
except linalg.LinAlgError as e: print('singular ok:', e)
" > "$OUT/${tool}_batched.log" 2>&1
echo "$tool batched exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|singular ok" "$OUT/${tool}_batched.log" | tail -2
done
if [ "${BATCHED_BENCH:-1}" != 0 ]; then
timeout 200 python3 bench/batched_solve.py 2>&1 | tee "$OUT/batched_solve.txt"
fi
fi
if has lu-grid; then
echo "== lu grid panel"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
from unittest import mock
import ddblas
from ddblas import linalg
from ddblas.linalg import factor
with mock.patch.object(factor, '_grid_panel', lambda m: True):
    for n in (1, 5, 40, 300):
        a = ddblas.random((n, n), seed=n, device='gpu')
        linalg.lu_factor(a, algorithm='blocked'); linalg.lu_factor(a[::2, ::2].T if n > 1 else a)
print('grid panels ok')
" > "$OUT/memcheck_lu_grid.log" 2>&1
echo "memcheck lu grid exit $?"; grep -E "ERROR SUMMARY|grid panels ok" "$OUT/memcheck_lu_grid.log" | tail -2
timeout 200 python3 bench/linalg_factor.py 8192 16384 2>&1 | tee "$OUT/lu_grid_factor.txt"
fi
if has solve; then
echo "== solve tests"
DDBLAS_HYPOTHESIS_PROFILE=device timeout 120 python3 -m pytest -q -rf --tb=short -p no:cacheprovider \
    -p no:warnings tests/test_linalg_solve.py > "$OUT/solve_tests.log" 2>&1; echo "pytest exit $?"
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/solve_tests.log" | tail -25
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
import ddblas, numpy as np; from ddblas import linalg
for n, batch in ((1, 3), (9, 70), (19, 33), (64, 5)):
    a = ddblas.random((batch, 2 * n, 2 * n), seed=n, device='gpu')[:, ::2, 1::2] + ddblas.eye(n, device='gpu')
    b = ddblas.random((batch, n, 2), seed=1, device='gpu')
    linalg.solve(a, b); linalg.solve(a, b[0, :, 0]); linalg.det(a); linalg.slogdet(a)
    linalg.solve(a[0].T, b[0]); linalg.inv(a[:2])
s = ddblas.zeros((4, 3, 3), device='gpu') + ddblas.eye(3, device='gpu'); s[1, 2] = ddblas.zeros(3, device='gpu')
try: linalg.solve(s, ddblas.ones(3, device='gpu'))
except linalg.LinAlgError as e: print('singular ok:', e)
" > "$OUT/memcheck_solve.log" 2>&1
echo "memcheck solve exit $?"; grep -E "ERROR SUMMARY|singular ok" "$OUT/memcheck_solve.log" | tail -2
timeout 300 python3 -W ignore -c "
from ddblas.tools import bench
plan = bench.Plan(solve_gpu_sizes=(16384,), solve_cpu_sizes=(), solve_kappas=(1e8, 1e12),
                  factor_gpu_sizes=(8192,), factor_cpu_sizes=(), batched_solve_orders=(9, 19, 64),
                  batched_solve_gpu_batch=10000, batched_solve_cpu_batch=100, flint_n=100,
                  mpmath_n=40, kappa_sweep=(1e2, 1e6, 1e10, 1e14, 1e18, 1e22, 1e26, 1e30),
                  kappa_sweep_n=16, repeat=3)
bench.run(('linalg',), plan, out_dir='$OUT/solve-bench', command='device_run.sh solve')
" 2>&1 | tee "$OUT/solve_bench.log"
fi
if has dask; then
echo "== dask on several GPUs"
nvidia-smi topo -m | tee "$OUT/topo.txt"
gpus=$(nvidia-smi -L | wc -l); counts="$gpus"   # all the GPUs first, then 2 and 1
[ "$gpus" -gt 2 ] && counts="$counts 2"; [ "$gpus" -gt 1 ] && counts="$counts 1"
timeout "${DASK_TIMEOUT:-540}" python3 bench/dask_multigpu.py ${DASK_ARGS:---gpus $counts --protocols ucx \
    --cases 32768:8192:blocked 32768:8192:auto 32768:16384:auto --big 65536:8192:auto \
    --column-groups 4 --spill-at 0.6 --budget 420} \
    2>&1 | grep -v "Completed" | tee "$OUT/dask_multigpu.txt"
fi
if has sanitize; then
echo "== sanitizers"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -x \
    -p no:cacheprovider -p no:warnings tests/test_gpu.py > "$OUT/memcheck.log" 2>&1
echo "memcheck elementwise exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck.log" | tail -1
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -x \
    -k "gpu and (equals_cpu or views or chunks or special or nan_semantics or all_any or where or sort_axes)" \
    -p no:cacheprovider -p no:warnings tests/test_reductions.py tests/test_building.py \
    > "$OUT/memcheck_reduce.log" 2>&1
echo "memcheck reductions exit $?"; grep -E "ERROR SUMMARY|passed|failed" "$OUT/memcheck_reduce.log" | tail -2
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -x \
    -p no:cacheprovider -p no:warnings tests/test_simplefn.py \
    -k "gpu and not within_bound and not exact" > "$OUT/memcheck_simplefn.log" 2>&1
echo "memcheck simple functions exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck_simplefn.log" | tail -1
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 python3 bench/sanitize_gemm.py \
    > "$OUT/memcheck_gemm.log" 2>&1
echo "memcheck rgemm exit $?"; grep -E "ERROR SUMMARY|sanitize_gemm" "$OUT/memcheck_gemm.log" | tail -2
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 python3 bench/sanitize_gemm.py --quick \
    > "$OUT/racecheck_gemm.log" 2>&1
echo "racecheck rgemm exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|sanitize_gemm" "$OUT/racecheck_gemm.log" | tail -2
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
import ddblas; from ddblas import accuracy; from ddblas.blas import ozaki as _ozaki; from unittest import mock
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
import ddblas; from ddblas import accuracy; from ddblas.blas import ozaki as _ozaki; from unittest import mock
a = accuracy.random_dd((67, 301), seed=1); b = accuracy.random_dd((301, 45), seed=2)
ddblas.rgemm(a, b, device='gpu', chunk=20); ddblas.rgemm(a.T.copy(), b, transa='T', device='gpu')
x = accuracy.random_dd((500, 19, 32), seed=3); y = accuracy.random_dd((32, 9), seed=4)
ddblas.rgemm_batched(x, y, device='gpu', chunk=64)
with mock.patch.object(_ozaki, 'INT8_CHUNK', 100):
    ddblas.rgemm(a.to_device('gpu'), b.to_device('gpu'), algorithm='ozaki-int8')
" > "$OUT/memcheck_transfer_int8.log" 2>&1
echo "memcheck transfers + ozaki-int8 exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck_transfer_int8.log" | tail -1
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -x \
    -p no:cacheprovider -p no:warnings tests/test_elementary.py tests/test_fmod.py tests/test_trigonometric.py \
    -k "bitwise or (gpu and (odd_strides or special or fmod))" \
    > "$OUT/memcheck_elementary.log" 2>&1
echo "memcheck elementary exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck_elementary.log" | tail -1
fi
if has bench; then
echo "== bench"
timeout ${BENCH_TIMEOUT:-500} python3 -m ddblas bench all --sizes ${SIZES:-256 512 1024 2048 4096 8192} \
    --out-dir "$OUT" --doc docs/performance.md --section h100 2>&1 | tee "$OUT/bench.txt"
cp docs/performance.md docs/bench-h100-*.png "$OUT/" 2>/dev/null
fi
if has ozaki2; then
echo "== ozaki2-int8: sanitizers and phases"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
import ddblas; from ddblas import accuracy; from ddblas.blas import ozaki, ozaki2; from unittest import mock
for m, k, n in ((1, 1, 1), (67, 301, 45), (130, 17, 3), (5, 1000, 70)):
    a = accuracy.random_dd((m, k), seed=1, device='gpu'); b = accuracy.random_dd((k, n), seed=2, device='gpu')
    c = ddblas.rgemm(a, b, algorithm='ozaki2-int8')
    ddblas.rgemm(a.T.copy(), b.T.copy(), c, alpha='0.5', beta=-1, transa='T', transb='T', algorithm='ozaki2-int8')
    with mock.patch.object(ozaki2, 'chunk', lambda: 64), mock.patch.object(ozaki2, 'PRODUCT_BYTES', 4096), \
            mock.patch.object(ozaki, 'LINE_BYTES', 4096):   # the scan's bound product in blocks of rows too
        ddblas.rgemm(a, b, algorithm='ozaki2-int8', accuracy='bound')
" > "$OUT/memcheck_ozaki2.log" 2>&1
echo "memcheck ozaki2 exit $?"; grep -E "ERROR SUMMARY" "$OUT/memcheck_ozaki2.log" | tail -1
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -c "
import ddblas; from ddblas import accuracy
a = accuracy.random_dd((300, 200), seed=1, device='gpu'); b = accuracy.random_dd((200, 100), seed=2, device='gpu')
ddblas.rgemm(a, b, algorithm='ozaki2-int8'); ddblas.rgemm(a, b, algorithm='ozaki-int8')
" > "$OUT/racecheck_ozaki.log" 2>&1
echo "racecheck ozaki scan exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY" "$OUT/racecheck_ozaki.log" | tail -2
timeout 300 python3 bench/ozaki_phases.py --sizes ${SIZES:-2048 4096 8192 16384} \
    --algorithms blocked ozaki-fp64 ozaki-int8 ozaki2-int8 2>&1 | tee "$OUT/ozaki_phases.md"
fi
if has accuracy; then
echo "== accuracy report (GPU)"
timeout ${ACCURACY_TIMEOUT:-500} python3 -m ddblas accuracy --out-dir "$OUT/accuracy" 2>&1 | tail -3
fi
if has fma; then
echo "== fma suite (instruction census, throughput, a row per elementwise function)"
timeout 300 python3 -m ddblas bench fma --out-dir "$OUT/fma" 2>&1 | tail -4
grep -A60 "Elementwise functions" "$OUT/fma/bench.md" | grep "| gpu |" | head -45
fi
if has mplapack; then
echo "== classic rgemm against MPLAPACK's CUDA Rgemm"
timeout 300 python3 bench/mplapack_rgemm.py 2>&1 | tee "$OUT/mplapack_rgemm.txt"
fi
if has profile; then
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
if has profile-tsm; then
echo "== ncu of the tsm kernels (TSM_ARGS: n and the widths; every call after the first)"
timeout 300 ncu --kernel-name regex:ddblas_gemm_tsm --launch-skip 1 --launch-skip-before-match 0 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    --section MemoryWorkloadAnalysis --metrics dram__bytes_read.sum.per_second,smsp__inst_executed_pipe_fp64.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active \
    python3 bench/profile_tsm.py ${TSM_ARGS:-8192} > "$OUT/ncu_tsm.txt" 2>&1
echo "ncu exit $?"
grep -E "ddblas_gemm_tsm|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|dram__bytes_read|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|pipe_fp64|Stall|Warp Cycles Per Issued|Grid Size" "$OUT/ncu_tsm.txt" | head -60
fi
if has sweep; then
echo "== tile sweep"
timeout 400 python3 bench/tile_sweep.py --out "$OUT/tile_sweep.json" 2>&1 | tee "$OUT/tile_sweep.txt"
fi
