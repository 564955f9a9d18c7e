"""Tile-size sweep of the shared-memory GEMM template (cuda_src/gemm_gpu.h) on the GPU.

    python bench/tile_sweep.py [--sizes 4096 8192] [--variants fma/sloppy ...] [--configs 2 8 ...]
                               [--out FILE]

Instantiates gemm_shared<BM, BN, BK, TM, TN, K_UNROLL> for each configuration below (NN layout,
prefetch into a second shared-memory stage, tiles over 48 KB in dynamic shared memory), compiled
by NVRTC with the package's options; checks each one bitwise against the shipped rgemm on a
ragged shape; then times them (CUDA events, one warm-up, median of 3) and prints DD GFLOP/s.
Used to choose the b=4 configuration (docs/performance.md)."""
import argparse
import json
import os
import tempfile

import cupy
import numpy as np

import ddblas
from ddblas.engines import cpu as _cpu
from ddblas.engines import gpu as _gpu
from ddblas.tools.timing import time_gpu

# BM, BN, BK, TM, TN, K_UNROLL, minimum resident blocks per SM (__launch_bounds__). Two stages
# of BM x BK + BK x BN DD tiles must fit the 48 KB of static shared memory (64 x 64 x 16: no).
CONFIGS = [
    (64, 32, 8, 4, 4, 2, 3),    # b=4 until 2026-11-26
    (64, 32, 8, 4, 4, 1, 3),
    (64, 32, 16, 4, 4, 2, 3),   # the shipped b=4: 16 deep, 51 KB of dynamic shared memory
    (64, 32, 16, 4, 4, 4, 3),
    (32, 64, 8, 4, 4, 2, 3),
    (64, 64, 8, 4, 4, 2, 1),
    (64, 32, 8, 4, 2, 2, 4),
    (32, 32, 16, 2, 2, 4, 3),
    (64, 32, 16, 4, 4, 2, 4),   # four blocks an SM (at most 128 registers a thread): 528 resident
    (64, 32, 8, 4, 4, 2, 4),    # on an H100, 3.9 waves at N = 2048 against 5.2 with three
]
VARIANTS = {"fma/accurate": "true, true", "fma/sloppy": "true, false",
            "nofma/accurate": "false, true", "nofma/sloppy": "false, false"}


def threads(cfg):
    bm, bn, _, tm, tn, _, _ = cfg
    return (bm // tm) * (bn // tn)


def kernel_name(i, variant):
    return f"sweep_{i}_{variant.replace('/', '_')}"


def source(variants):
    lines = ['#include "gemm_gpu.h"']
    for i, cfg in enumerate(CONFIGS):
        tile = ", ".join(map(str, cfg[:6]))
        for v in variants:
            lines.append(
                f'extern "C" __global__ void __launch_bounds__({threads(cfg)}, {cfg[6]}) '
                f'{kernel_name(i, v)}(DDBLAS_GEMM_PARAMS) {{ ddblas::gemm_shared<{tile}, true, '
                f'true, true, ddblas::Variant<{VARIANTS[v]}>>(DDBLAS_GEMM_ARGS, 0, K); }}')
    sizes = "; ".join(f"out[{i}] = ddblas::gemm_tiles_bytes({cfg[0]}, {cfg[1]}, {cfg[2]}, 2)"
                      for i, cfg in enumerate(CONFIGS))
    lines.append(f'extern "C" __global__ void sweep_tile_bytes(unsigned *out) {{ {sizes}; }}')
    return "\n".join(lines) + "\n"


def dynamic_bytes(module) -> list:
    """Each configuration's dynamic shared memory, by the shipped kernels' rule
    (engines.cpu.dynamic_tile_bytes) on its tiles' bytes (geometry.h's gemm_tiles_bytes)."""
    out = cupy.zeros(len(CONFIGS), dtype=cupy.uint32)
    module.get_function("sweep_tile_bytes")((1,), (1,), (out,))
    return [_cpu.dynamic_tile_bytes({"tile_bytes": int(b)}) for b in out.get()]


def launch(fn, cfg, a, b, c, dynamic=0):
    m, k = a.shape
    n = b.shape[1]
    args = (np.int64(m), np.int64(n), np.int64(k), a.hi, a.lo, np.int64(k), np.int64(1), b.hi,
            b.lo, np.int64(n), np.int64(1), np.float64(1), np.float64(0), np.float64(0),
            np.float64(0), c.hi, c.lo, np.int64(n), np.int64(1), np.int64(3))
    fn((-(-n // cfg[1]), -(-m // cfg[0])), (threads(cfg),), args, shared_mem=dynamic)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[4096, 8192])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--configs", type=int, nargs="+", default=None,
                        help="indices into CONFIGS to time (default: all)")
    parser.add_argument("--out")
    args = parser.parse_args()
    chosen = args.configs if args.configs is not None else range(len(CONFIGS))
    target = _gpu.target()
    path = os.path.join(tempfile.mkdtemp(),
                        "tile_sweep." + ("ptx" if target.startswith("compute_") else "cubin"))
    with open(path, "wb") as f:  # RawModule loads it lazily
        f.write(_gpu.compile_unit(target, source(args.variants), "tile_sweep.cu"))
    module = cupy.RawModule(path=path)
    rows = []
    dynamic = dynamic_bytes(module)
    for v in args.variants:  # opt in to the dynamic shared memory where a configuration needs it
        for i, nbytes in enumerate(dynamic):
            if nbytes:
                module.get_function(kernel_name(i, v)).max_dynamic_shared_size_bytes = nbytes
    a, b = (ddblas.random(s, seed=i, device="gpu") for i, s in enumerate([(200, 131), (131, 77)]))
    for v in args.variants:
        fma, add = v.split("/")
        ref = ddblas.rgemm(a, b, fma=fma == "fma", add=add)
        for i in chosen:
            cfg = CONFIGS[i]
            c = ddblas.zeros((200, 77), device="gpu")
            launch(module.get_function(kernel_name(i, v)), cfg, a, b, c, dynamic[i])
            assert bool((c.hi == ref.hi).all() and (c.lo == ref.lo).all()), (cfg, v)
    print("all configurations equal rgemm bit for bit")
    for n in args.sizes:
        a, b = ddblas.random((n, n), seed=1, device="gpu"), ddblas.random((n, n), seed=2, device="gpu")
        c = ddblas.zeros((n, n), device="gpu")
        for v in args.variants:
            for i in chosen:
                cfg = CONFIGS[i]
                fn = module.get_function(kernel_name(i, v))
                t = time_gpu(lambda: launch(fn, cfg, a, b, c, dynamic[i]), 3)
                rows.append(dict(n=n, variant=v, config=cfg, threads=threads(cfg),
                                 registers=fn.num_regs, local_bytes=fn.local_size_bytes,
                                 gflops=2 * n ** 3 / t / 1e9))
                r = rows[-1]
                print(f"{n:5d} {v:15} BMxBNxBK={cfg[0]}x{cfg[1]}x{cfg[2]} TMxTN={cfg[3]}x{cfg[4]} "
                      f"unroll={cfg[5]} minblocks={cfg[6]} threads={r['threads']:3d} "
                      f"regs={r['registers']:3d} local={r['local_bytes']} "
                      f"{r['gflops']:8.1f} GFLOP/s", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
