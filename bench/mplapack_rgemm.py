"""ddblas's classic rgemm against MPLAPACK's CUDA Rgemm (dd) in the same process, on the same data.

    python bench/mplapack_rgemm.py [--mplapack-src DIR] [--sizes 2048 4096 8192] [--repeat 5]

DIR holds MPLAPACK's mpblas/optimized/dd/cuda sources (a checkout of
https://github.com/nakatamaho/mplapack, or just that directory's files; default $MPLAPACK_SRC,
else .peers/mplapack). bench/mplapack_rgemm.cu wraps them as a library (nvcc -O3 for this GPU,
as MPLAPACK's build does); MPLAPACK's kernels are never part of ddblas. A and B are n x n, uniform
in [-1, 1) with all 106 bits random; MPLAPACK gets them column-major with (hi, lo) interleaved,
its layout. Both compute C = op(A) B for op = N and T (TN: A stored transposed), timed by CUDA
events (median of --repeat after a warm-up); the error of 8 x 8 sampled entries of each C is
checked exactly (u^2 (|A||B|)ij). DD GFLOP/s = 2 n^3 / s; the fma/sloppy in-register ceiling
(ddblas.tools.bench.gpu_madd_ceiling) is measured in the same run. Prints a Markdown table.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import tempfile

import cupy

import ddblas
from ddblas import accuracy
from ddblas.tools import bench, timing

SAMPLES = 8
OVERREAD = 16  # MPLAPACK's Bk: the rows of K its fermi kernels read past the end
VARIANTS = {"fma/sloppy": dict(fma=True, add="sloppy"),
            "fma/accurate": dict(fma=True, add="accurate")}


def build(src: str) -> ctypes.CDLL:
    """Compiles bench/mplapack_rgemm.cu against MPLAPACK's sources in src; the loaded library."""
    if not os.path.isfile(os.path.join(src, "Rgemm_fermi.cu")):
        raise SystemExit(f"--mplapack-src: {src!r} holds no Rgemm_fermi.cu (MPLAPACK's "
                         "mpblas/optimized/dd/cuda)")
    work = tempfile.mkdtemp()
    open(os.path.join(work, "mplapack_config.h"), "w").close()
    arch = "sm_" + "".join(map(str, cupy.cuda.Device().compute_capability))
    lib = os.path.join(work, "libmplapack_rgemm.so")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["nvcc", "-O3", f"-arch={arch}", "-shared", "-Xcompiler", "-fPIC", "-w",
                    f"-I{src}", f"-I{work}", os.path.join(here, "mplapack_rgemm.cu"), "-o", lib],
                   check=True)
    dll = ctypes.CDLL(lib)
    dll.mplapack_rgemm.restype = ctypes.c_int
    dll.mplapack_rgemm.argtypes = [ctypes.c_char, ctypes.c_char] + [ctypes.c_int64] * 3 + [
        ctypes.c_double, ctypes.c_double, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
        ctypes.c_int64, ctypes.c_double, ctypes.c_double, ctypes.c_void_p, ctypes.c_int64]
    return dll


def interleaved(x: ddblas.DDArray) -> cupy.ndarray:
    """x's C-order entries as MPLAPACK's dd_real array: (hi, lo) pairs, so that a column-major
    reading of it with leading dimension x.shape[1] is x.T; followed by OVERREAD zero rows of x
    (columns of the column-major matrix): MPLAPACK's kernels load the tile after the last one
    before they test the loop's end, up to 16 columns of A and 16 entries of B past the matrix."""
    out = cupy.zeros((x.shape[0] + OVERREAD, x.shape[1], 2))
    out[:x.shape[0], :, 0], out[:x.shape[0], :, 1] = x.hi, x.lo
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mplapack-src",
                        default=os.environ.get("MPLAPACK_SRC", os.path.join(".peers", "mplapack")))
    parser.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096, 8192])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    dll = build(args.mplapack_src)
    ceiling = bench.gpu_madd_ceiling(ddblas.Options(True, "sloppy"))
    print(f"{cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}, MPLAPACK sources "
          f"from {args.mplapack_src}; fma/sloppy in-register ceiling {ceiling:.0f} DD GFLOP/s")
    print("| N | op | MPLAPACK Rgemm (GFLOP/s, error u²) | "
          + " | ".join(f"ddblas {v} (GFLOP/s, error u²)" for v in VARIANTS)
          + " | ddblas fma/sloppy / MPLAPACK | ddblas fma/sloppy of its ceiling |")
    print("|---|---|---|" + "---|" * len(VARIANTS) + "---|---|")
    for n in args.sizes:
        a = ddblas.random((n, n), seed=1, device="gpu") * 2 - 1
        b = ddblas.random((n, n), seed=2, device="gpu") * 2 - 1
        at = a.T.copy()
        picks = list(range(0, n, max(1, n // SAMPLES)))[:SAMPLES]
        sample = dict(rows=picks, cols=picks)
        b_cm = interleaved(b.T)  # column-major B
        for op in ("N", "T"):
            # MPLAPACK: op = N reads A column-major (A.T in C order), op = T reads the stored
            # A^T column-major (A in C order); either way op(stored) = A.
            a_cm = interleaved(a.T if op == "N" else a)
            c_cm = cupy.zeros((n, n, 2))

            def mplapack():
                rc = dll.mplapack_rgemm(op.encode(), b"N", n, n, n, 1.0, 0.0, a_cm.data.ptr, n,
                                        b_cm.data.ptr, n, 0.0, 0.0, c_cm.data.ptr, n)
                if rc:
                    raise RuntimeError(f"MPLAPACK's Rgemm: CUDA error {rc}")
            seconds = timing.time_gpu(mplapack, args.repeat)
            c_mp = ddblas.DDArray(c_cm[..., 0].T.copy(), c_cm[..., 1].T.copy(), normalize=False)
            rate_mp = timing.gflops(n, seconds)
            cells = [f"{rate_mp:.0f}, {accuracy.gemm_error(c_mp, a, b, **sample).max:.3g}"]
            del c_mp
            rates = {}
            lhs = at if op == "T" else a
            for name, variant in VARIANTS.items():
                c = ddblas.DDArray(cupy.empty((n, n)), cupy.empty((n, n)), normalize=False)
                seconds = timing.time_gpu(
                    lambda: ddblas.rgemm(lhs, b, c, transa=op, algorithm="blocked", block=4,
                                         **variant), args.repeat)
                rates[name] = timing.gflops(n, seconds)
                cells.append(f"{rates[name]:.0f}, "
                             f"{accuracy.gemm_error(c, a, b, **sample).max:.3g}")
            print(f"| {n} | {op}N | " + " | ".join(cells)
                  + f" | {rates['fma/sloppy'] / rate_mp:.3f}× "
                  f"| {rates['fma/sloppy'] / ceiling:.1%} |", flush=True)


if __name__ == "__main__":
    main()
