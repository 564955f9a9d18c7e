"""rgemm of distributed DD matrices on several GPUs of one host (issues 19 and 20): dask_cuda's
LocalCUDACluster with one worker per GPU, against one GPU of the same kind and against one
ddblas.rgemm call.

    python bench/dask_multigpu.py --gpus 1 2 --cases 32768:8192:auto 32768:16384:blocked \
        [--layout tiles|panels] [--single] [--big 65536] [--budget 500]

For each GPU count g (CUDA_VISIBLE_DEVICES = the first g GPUs, one worker each) and case
N:chunk:algorithm, A and B are generated per chunk on the workers (ddblas.dask.random: the same
values for every g; cases with the same N and chunk share them), then C = A B with k whole per
task (ddblas.dask.rgemm). Layouts: "tiles", chunk x chunk blocks (each task's block row of A and
block column of B are assembled by a rechunk), or "panels", A in block rows (chunk x N) and B in
block columns (N x chunk), which no task needs to reassemble.
Printed per case: the seconds of each phase (generate = A and B persisted, once per N and chunk;
multiply = C persisted, the moves of operand blocks between workers included; check), GFLOP/s
(2 N^3 / multiply), the bytes sent between workers during the multiply (the workers'
transfer_outgoing_bytes_total), and the error of 4 x 4 sampled entries of C checked exactly
against rgemm's bound (ddblas.accuracy).
--single (one GPU): before the dask product, one ddblas.rgemm call on the whole A and B on the
worker (assembled there from the chunks, timed after a warm-up, its C kept only in the sampled
diagonal blocks, on the host); the row gives the dask product's share of that call's rate and
whether C's sampled diagonal blocks equal it bit for bit (issue 19).
--big N: a case on all GPUs only (it need not fit one GPU), panels of --big-chunk, auto.
The last table gives the speedup of g GPUs over one for each case, and the per-GPU rate.
Cases that would start after --budget seconds are skipped (and named). Workers spill stored
blocks to host memory above SPILL_AT of their GPU's memory. NVLink multicast stays off
(NCCL_NVLS_ENABLE=0, the device notes); dask moves data between workers over TCP.
"""
from __future__ import annotations

import argparse
import itertools
import os
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import numpy as np  # noqa: E402

import ddblas  # noqa: E402
import ddblas.dask as ddd  # noqa: E402
from ddblas import accuracy  # noqa: E402

SAMPLES = 4       # sampled rows and columns of C checked exactly
SPILL_AT = 0.75   # share of a GPU's memory above which its worker spills stored blocks to host
DIAGONAL = 1024   # order of the diagonal blocks of C compared with the single call


def _sync(dask_worker=None):
    if ddblas.gpu_available():
        import cupy
        cupy.cuda.Device().synchronize()


def _host(x):
    """x (a NumPy, CuPy or dask array) as a NumPy array."""
    x = x.compute() if hasattr(x, "dask") else x
    return x.get() if hasattr(x, "get") else np.asarray(x)


def _diagonal_blocks(parts, n):
    """C's parts in the diagonal blocks [r, r + DIAGONAL) at SAMPLES row starts, on the host."""
    starts = [min(r, n - DIAGONAL) for r in range(0, n, n // SAMPLES)][:SAMPLES]
    return [_host(parts[:, r:r + DIAGONAL, r:r + DIAGONAL]) for r in starts]


def _single(a_parts, b_parts, algorithm, n):
    """On the worker: (seconds of one rgemm call after a warm-up, C's sampled diagonal blocks)."""
    a = ddblas.DDArray(a_parts[0], a_parts[1], normalize=False)
    b = ddblas.DDArray(b_parts[0], b_parts[1], normalize=False)
    ddblas.rgemm(a[:1024, :1024], b[:1024, :1024], algorithm=algorithm)
    _sync()
    start = time.perf_counter()
    c = ddblas.rgemm(a, b, algorithm=algorithm)
    _sync()
    seconds = time.perf_counter() - start
    blocks = _diagonal_blocks(a.xp.stack((c.hi, c.lo)), n)
    del a, b, c, a_parts, b_parts
    if ddblas.gpu_available():
        import cupy
        cupy.get_default_memory_pool().free_all_blocks()
    return seconds, blocks


def _moved(client) -> int:
    return sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total).values())


def generate(n, chunk, layout, device):
    import distributed
    start = time.perf_counter()
    a_chunks, b_chunks = ((chunk, n), (n, chunk)) if layout == "panels" else (chunk, chunk)
    a = ddd.random((n, n), chunks=a_chunks, seed=1, device=device).persist()
    b = ddd.random((n, n), chunks=b_chunks, seed=2, device=device).persist()
    distributed.wait([a.parts, b.parts])
    return a, b, time.perf_counter() - start


def run_case(client, gpus, a, b, algorithm, single):
    """One product C = A B on the cluster; single: run the single-call baseline first."""
    import distributed
    n = a.shape[0]
    single_seconds = single_blocks = None
    if single:
        future = client.submit(_single, client.compute(a.parts), client.compute(b.parts),
                               algorithm, n)
        single_seconds, single_blocks = future.result()
        del future
    before = _moved(client)
    start = time.perf_counter()
    c = ddd.rgemm(a, b, algorithm=algorithm).persist()
    distributed.progress(c.parts, notebook=False)
    distributed.wait(c.parts)
    client.run(_sync)
    multiplied = time.perf_counter()
    moved = _moved(client) - before
    picks = list(range(0, n, n // SAMPLES))[:SAMPLES]
    picks[-1] = n - 1
    c_s = ddblas.DDArray(*c.parts[:, picks][:, :, picks].compute(), normalize=False)
    a_s = ddblas.DDArray(*a.parts[:, picks].compute(), normalize=False)
    b_s = ddblas.DDArray(*b.parts[:, :, picks].compute(), normalize=False)
    err = accuracy.gemm_error(c_s, a_s, b_s).max
    bound = accuracy.bound("gemm", None, n)
    same = None
    if single:
        ours = _diagonal_blocks(c.parts, n)
        same = all(np.array_equal(x.view(np.int64), y.view(np.int64))
                   for x, y in zip(single_blocks, ours))
    checked = time.perf_counter()
    del c
    seconds = multiplied - start
    row = dict(gpus=gpus, n=n, chunk=a.chunks[0][0], algorithm=algorithm, multiply=seconds,
               check=checked - multiplied, gflops=2 * n ** 3 / seconds / 1e9,
               moved_gb=moved / 1e9, err=err, bound=bound, single=single_seconds, same=same)
    share = f", {single_seconds / seconds:.1%} of one rgemm call ({single_seconds:.2f} s), " \
            f"sampled diagonal blocks equal to it bit for bit: {same}" if single else ""
    print(f"\n{gpus} GPU N={n} chunk={row['chunk']} {algorithm}: multiply {seconds:.2f} s = "
          f"{row['gflops']:.0f} GFLOP/s, moved {row['moved_gb']:.2f} GB, check "
          f"{row['check']:.1f} s, sampled error {err:.3g} u^2 (bound {bound:.4g}: "
          f"{'ok' if err <= bound else 'EXCEEDED'}){share}", flush=True)
    return row


def main() -> None:
    import distributed

    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cases", nargs="+", default=["32768:8192:auto", "32768:16384:auto",
                                                        "32768:16384:blocked"])
    parser.add_argument("--layout", choices=("tiles", "panels"), default="panels")
    parser.add_argument("--single", action="store_true")
    parser.add_argument("--big", type=int, nargs="*", default=[])
    parser.add_argument("--big-chunk", type=int, default=16384)
    parser.add_argument("--budget", type=float, default=float("inf"))
    parser.add_argument("--device", default="gpu", help="cpu: a LocalCluster of processes "
                        "standing in for the GPUs (to try the script without one)")
    args = parser.parse_args()
    if args.device == "gpu":
        from dask_cuda import LocalCUDACluster
    began, rows, skipped = time.perf_counter(), [], []
    for gpus in args.gpus:
        cases = [(int(n), int(chunk), alg, args.layout)
                 for n, chunk, alg in (case.split(":") for case in args.cases)]
        if gpus == max(args.gpus):
            cases += [(n, args.big_chunk, "auto", "panels") for n in args.big]
        visible = ",".join(str(i) for i in range(gpus))
        cluster = LocalCUDACluster(CUDA_VISIBLE_DEVICES=visible, dashboard_address=None,
                                   device_memory_limit=SPILL_AT) if args.device == "gpu" else \
            distributed.LocalCluster(n_workers=gpus, threads_per_worker=1, dashboard_address=None)
        with cluster, distributed.Client(cluster) as client:
            warm = ddd.random((1024, 1024), chunks=512, seed=0, device=args.device)
            for alg in {case[2] for case in cases}:  # kernels built on every worker before timing
                distributed.wait(ddd.rgemm(warm, warm, algorithm=alg).persist().parts)
            for (n, chunk, layout), group in itertools.groupby(
                    cases, key=lambda case: (case[0], case[1], case[3])):
                group = list(group)
                if time.perf_counter() - began > args.budget:
                    skipped += [f"{gpus} GPU N={n} chunk={chunk} {alg} (budget)"
                                for _, _, alg, _ in group]
                    continue
                a, b, seconds = generate(n, chunk, layout, args.device)
                print(f"\n{gpus} GPU N={n} chunk={chunk} {layout}: A and B generated in "
                      f"{seconds:.1f} s", flush=True)
                for _, _, alg, _ in group:
                    if time.perf_counter() - began > args.budget:
                        skipped.append(f"{gpus} GPU N={n} chunk={chunk} {alg} (budget)")
                        continue
                    try:
                        rows.append(run_case(client, gpus, a, b, alg, args.single and gpus == 1))
                    except Exception as exc:  # e.g. out of GPU memory: the next cases still run
                        print(f"\n{gpus} GPU N={n} chunk={chunk} {alg}: FAILED {exc!r}"[:600])
                        skipped.append(f"{gpus} GPU N={n} chunk={chunk} {alg} (failed)")
                del a, b
    one = {(r["n"], r["chunk"], r["algorithm"]): r["gflops"] for r in rows if r["gpus"] == 1}
    print(f"\nlayout {args.layout}\n| GPUs | N | chunk | algorithm | multiply s | GFLOP/s | per GPU | "
          "speedup vs 1 GPU | moved GB | sampled error u^2 | bound u^2 | share of one call |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        base = one.get((r["n"], r["chunk"], r["algorithm"]))
        speedup = f"{r['gflops'] / base:.2f}x" if base else "-"
        share = f"{r['single'] / r['multiply']:.1%}" if r["single"] else "-"
        print(f"| {r['gpus']} | {r['n']} | {r['chunk']} | {r['algorithm']} | {r['multiply']:.2f} | "
              f"{r['gflops']:.0f} | {r['gflops'] / r['gpus']:.0f} | {speedup} | "
              f"{r['moved_gb']:.2f} | {r['err']:.3g} | {r['bound']:.4g} | {share} |")
    for s in skipped:
        print(f"not measured: {s}")


if __name__ == "__main__":
    main()
