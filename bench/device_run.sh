#!/usr/bin/env bash
# One device-machine call: install, full test suite, demo, kernel checks, compute-sanitizer
# memcheck of the GPU tests, and the elementwise benchmark. Logs go to $OUT (or ./device-out).
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT="${OUT:-device-out}"; mkdir -p "$OUT"
export DDBLAS_CACHE_DIR="$(mktemp -d)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v "^WARNING" | tail -3
python3 -c "import cupy, numpy, mpmath, hypothesis; print('cupy', cupy.__version__, 'numpy', numpy.__version__, 'nvrtc', cupy.cuda.nvrtc.getVersion())"
echo "== tests"
DDBLAS_HYPOTHESIS_PROFILE=device timeout 400 python3 -m pytest -q -rf --tb=short -p no:cacheprovider \
    -p no:warnings > "$OUT/pytest.log" 2>&1; echo "pytest exit $?"
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/pytest.log" | tail -25
echo "== demo"; python3 -m ddblas demo --n 256 2>&1 | tee "$OUT/demo.log"
echo "== check-kernels"; python3 -m ddblas check-kernels 2>&1 | tee "$OUT/check.log"
echo "== memcheck"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -x \
    -p no:cacheprovider -p no:warnings tests/test_gpu.py > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?"; grep -E "ERROR SUMMARY|passed|failed" "$OUT/memcheck.log" | tail -3
echo "== bench"; python3 bench/elementwise.py 2>&1 | tee "$OUT/bench.txt"
