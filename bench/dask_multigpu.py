"""rgemm of distributed DD matrices on several GPUs of one host (issue 20): dask_cuda's
LocalCUDACluster with one worker per GPU, against one GPU of the same kind.

    python bench/dask_multigpu.py --gpus 1 2 --cases 32768:8192:auto 32768:16384:auto \
        32768:16384:blocked [--big 65536] [--budget 500]

For each GPU count g (CUDA_VISIBLE_DEVICES = the first g GPUs, one worker each) and case
N:chunk:algorithm: A and B are generated per chunk on the workers (ddblas.dask.random, so the same
values for every g), then C = A B with k whole per task (ddblas.dask.rgemm). Printed per case:
the seconds of each phase (generate = A and B persisted; multiply = C persisted, the moves of
operand blocks between workers included; check), GFLOP/s (2 N^3 / multiply), bytes sent
between workers during the multiply (the workers' transfer_outgoing_bytes_total), and the
error of 4 x 4 sampled entries of C checked exactly against rgemm's bound (ddblas.accuracy).
--big N: the same on all GPUs only (it need not fit one GPU), A generated in block rows and B
in block columns, so that no task needs a rechunk copy. The last table gives the speedup of g
GPUs over one at each (N, chunk, algorithm) and the per-GPU rate.
Cases that would start after --budget seconds are skipped (and printed as skipped).
Workers spill stored blocks to host memory above SPILL_AT of their GPU's memory (the operands
of the largest N plus the operand blocks they receive do not fit otherwise).
NVLink multicast stays off (NCCL_NVLS_ENABLE=0, the device notes); dask moves data over TCP.
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import ddblas  # noqa: E402
import ddblas.dask as ddd  # noqa: E402
from ddblas import accuracy  # noqa: E402

SAMPLES = 4       # sampled rows and columns of C checked exactly
SPILL_AT = 0.75   # share of a GPU's memory above which its worker spills stored blocks to host



def _sync(dask_worker=None):
    if ddblas.gpu_available():
        import cupy
        cupy.cuda.Device().synchronize()


def _moved(client) -> int:
    return sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total).values())


def run_case(client, gpus, n, chunk, algorithm, big, device):
    import distributed
    start = time.perf_counter()
    a_chunks, b_chunks = ((chunk, n), (n, chunk)) if big else (chunk, chunk)
    a = ddd.random((n, n), chunks=a_chunks, seed=1, device=device).persist()
    b = ddd.random((n, n), chunks=b_chunks, seed=2, device=device).persist()
    distributed.wait([a.parts, b.parts])
    generated = time.perf_counter()
    before = _moved(client)
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
    checked = time.perf_counter()
    del a, b, c
    seconds = multiplied - generated
    row = dict(gpus=gpus, n=n, chunk=f"{chunk} (A rows, B columns)" if big else chunk, algorithm=algorithm, generate=generated - start,
               multiply=seconds, check=checked - multiplied, gflops=2 * n ** 3 / seconds / 1e9,
               moved_gb=moved / 1e9, err=err, bound=bound)
    print(f"\n{gpus} GPU N={n} chunk={row['chunk']} {algorithm}: generate {row['generate']:.1f} s, "
          f"multiply {seconds:.2f} s = {row['gflops']:.0f} GFLOP/s, moved {row['moved_gb']:.2f} GB, "
          f"check {row['check']:.1f} s, sampled error {err:.3g} u^2 (bound {bound:.4g}: "
          f"{'ok' if err <= bound else 'EXCEEDED'})", flush=True)
    return row


def main() -> None:
    import distributed

    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cases", nargs="+", default=["32768:8192:auto", "32768:16384:auto",
                                                        "32768:16384:blocked"])
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
        cases = [(int(n), int(chunk), alg, False)
                 for n, chunk, alg in (case.split(":") for case in args.cases)]
        if gpus == max(args.gpus):
            cases += [(n, args.big_chunk, "auto", True) for n in args.big]
        visible = ",".join(str(i) for i in range(gpus))
        cluster = LocalCUDACluster(CUDA_VISIBLE_DEVICES=visible, dashboard_address=None,
                                   device_memory_limit=SPILL_AT) if args.device == "gpu" else \
            distributed.LocalCluster(n_workers=gpus, threads_per_worker=1, dashboard_address=None)
        with cluster, \
                distributed.Client(cluster) as client:
            warm = ddd.random((1024, 1024), chunks=512, seed=0, device=args.device)
            for alg in {case[2] for case in cases}:  # kernels built on every worker before timing
                distributed.wait(ddd.rgemm(warm, warm, algorithm=alg).persist().parts)
            for n, chunk, alg, big in cases:
                if time.perf_counter() - began > args.budget:
                    skipped.append(f"{gpus} GPU N={n} chunk={chunk} {alg} (budget)")
                    continue
                try:
                    rows.append(run_case(client, gpus, n, chunk, alg, big, args.device))
                except Exception as exc:  # e.g. out of GPU memory: the next cases still run
                    print(f"\n{gpus} GPU N={n} chunk={chunk} {alg}: FAILED {exc!r}"[:600])
                    skipped.append(f"{gpus} GPU N={n} chunk={chunk} {alg} (failed)")
    one = {(r["n"], r["chunk"], r["algorithm"]): r["gflops"] for r in rows if r["gpus"] == 1}
    print("\n| GPUs | N | chunk | algorithm | generate s | multiply s | GFLOP/s | per GPU | "
          "speedup vs 1 GPU | moved GB | sampled error u^2 | bound u^2 |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        base = one.get((r["n"], r["chunk"], r["algorithm"]))
        speedup = f"{r['gflops'] / base:.2f}x" if base else "-"
        print(f"| {r['gpus']} | {r['n']} | {r['chunk']} | {r['algorithm']} | {r['generate']:.1f} | "
              f"{r['multiply']:.2f} | {r['gflops']:.0f} | {r['gflops'] / r['gpus']:.0f} | {speedup} | "
              f"{r['moved_gb']:.2f} | {r['err']:.3g} | {r['bound']:.4g} |")
    for s in skipped:
        print(f"not measured: {s}")


if __name__ == "__main__":
    main()
