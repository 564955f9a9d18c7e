"""rgemm of distributed DD matrices on several GPUs of one host (issues 19 and 20): dask_cuda's
LocalCUDACluster with one worker per GPU, against one GPU of the same kind and against one
ddblas.rgemm call.

    python bench/dask_multigpu.py --gpus 1 2 4 --protocols ucx tcp \
        --cases 32768:8192:auto 32768:16384:blocked [--layout tiles|panels] [--single] \
        [--big 65536:8192:auto] [--column-groups 4] [--spill-at 0.6] [--budget 500]

For each protocol, each GPU count g (CUDA_VISIBLE_DEVICES = the first g GPUs, one worker each;
one GPU only with the first protocol: it moves nothing) and case N:chunk:algorithm, A and B are
generated per chunk on the workers (ddblas.dask.random: the same values for every g; cases with
the same N and chunk share them), then C = A B with k whole per task (ddblas.dask.rgemm).
Protocols: "tcp" (distributed's default: a CuPy block goes device -> host -> socket -> host ->
device) or "ucx" (distributed-ucxx: UCX moves CuPy blocks between the GPUs over NVLink by CUDA
IPC, enable_nvlink). Each worker allocates through one RMM pool of RMM_POOL of its GPU's memory,
which CuPy (hence ddblas) uses too (rmm_allocator_external_lib_list), so the buffers that a
transfer receives come from the same pool as everything else; without rmm, CuPy's own pool.
Layouts: "tiles", chunk x chunk blocks (each task's block row of A and
block column of B are assembled by a rechunk), or "panels", A in block rows (chunk x N) and B in
block columns (N x chunk), which no task needs to reassemble.
Printed per case: the seconds of each phase (generate = A and B persisted, once per N and chunk;
multiply = C persisted, the moves of operand blocks between workers included; check), GFLOP/s
(2 N^3 / multiply), the bytes sent between workers during the multiply (the workers'
transfer_outgoing_bytes_total), each worker's seconds computing and receiving (the task
stream), and the error of 4 x 4 sampled entries of C checked exactly against rgemm's bound
(ddblas.accuracy). --bandwidth sets the scheduler's starting estimate of the links' rate.
--modes (several GPUs): "fetch", each task fetches the blocks its worker lacks while others
compute; "copy", B's blocks are copied to every worker first, inside the timed product
(run_case says why).
--single (one GPU): before the dask product, one ddblas.rgemm call on the whole A and B on the
worker (assembled there from the chunks, timed after a warm-up, its C kept only in the sampled
diagonal blocks, on the host); the row gives the dask product's share of that call's rate and
whether C's sampled diagonal blocks equal it bit for bit (issue 19).
--big N:chunk:algorithm: cases on all GPUs with the first protocol only (they need not fit one
GPU), panels, with B's block columns in --column-groups groups (one product each, run_case).
The last table gives the speedup of g GPUs over one for each case, and the per-GPU rate.
Cases that would start after --budget seconds are skipped (and named). Workers spill stored
blocks to host memory above SPILL_AT (--spill-at) of their GPU's memory. NVLink multicast stays
off (NCCL_NVLS_ENABLE=0, the device notes; UCX's CUDA IPC does not use multicast).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
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
RMM_POOL = 0.9    # share of a GPU's memory in each worker's RMM pool (CuPy and the transfers)
DIAGONAL = 1024   # order of the diagonal blocks of C compared with the single call


def _sync(dask_worker=None):
    if ddblas.gpu_available():
        import cupy
        cupy.cuda.Device().synchronize()


def _numpy_block(block):
    return block.get() if hasattr(block, "get") else np.asarray(block)


def _host(x):
    """x (a NumPy, CuPy or dask array) as a NumPy array. A dask array's blocks are copied to the
    host on their workers, so this process never receives GPU memory: over UCX a CuPy block
    arrives by CUDA IPC, and the receiver's cached mapping keeps the sender's whole RMM pool
    allocated after the sender has exited (four H200s, 2026-11-26: this process held 127 GiB of
    each GPU after the 4-GPU cluster had closed, and no smaller cluster could start)."""
    if hasattr(x, "dask"):
        return x.map_blocks(_numpy_block, meta=np.empty((0,) * x.ndim)).compute()
    return _numpy_block(x)


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


def generate(client, n, chunk, layout, device, seed=1):
    """A and B generated on the workers, spread evenly: numbering A's blocks and then B's in
    row-major order, block number t goes to worker t mod g (with panels and as many panels as
    workers, A's block row i and B's block column i on worker i; with fewer, on different
    workers, so that every worker holds an operand): the same layout in every run, whatever
    the scheduler would choose. The placement is a per-key `workers` annotation, which graph
    optimisation would drop: persist(optimize_graph=False). A from `seed`, B from seed + 1."""
    import dask
    import distributed
    start = time.perf_counter()
    workers = sorted(client.scheduler_info()["workers"])
    a_chunks, b_chunks = ((chunk, n), (n, chunk)) if layout == "panels" else (chunk, chunk)
    operands, offset = [], 0
    for seed, chunks in ((seed, a_chunks), (seed + 1, b_chunks)):
        columns = -(-n // (chunks if isinstance(chunks, int) else chunks[1]))

        def worker(key, offset=offset, columns=columns):
            return [workers[(offset + key[-2] * columns + key[-1]) % len(workers)]]
        with dask.annotate(workers=worker, allow_other_workers=False):
            x = ddd.random((n, n), chunks=chunks, seed=seed, device=device)
        operands.append(x.persist(optimize_graph=False))
        offset += x.parts.numblocks[1] * x.parts.numblocks[2]
    a, b = operands
    distributed.wait([a.parts, b.parts])
    return a, b, time.perf_counter() - start


def holders(client, *arrays) -> dict:
    """Each block's key: the workers that hold it."""
    return {key: tuple(sorted(held)) for x in arrays
            for key, held in client.who_has(x.parts).items()}


def placement(client, *arrays) -> str:
    """How many of the arrays' blocks each worker holds, in the workers' order."""
    workers = sorted(client.scheduler_info()["workers"])
    held = [0] * len(workers)
    for x in arrays:
        for holders in client.who_has(x.parts).values():
            for w in holders:
                held[workers.index(w)] += 1
    return "/".join(map(str, held))


def busy_seconds(client, stream) -> str:
    """From a task stream: each worker's seconds computing tasks and receiving their operands
    ("compute" and "transfer" intervals, summed; transfers may overlap computing)."""
    workers = sorted(client.scheduler_info()["workers"])
    seconds = {w: {"compute": 0.0, "transfer": 0.0} for w in workers}
    for task in stream:
        for interval in task.get("startstops", ()):
            if interval["action"] in ("compute", "transfer") and task["worker"] in seconds:
                seconds[task["worker"]][interval["action"]] += interval["stop"] - interval["start"]
    return "/".join(f"{seconds[w]['compute']:.1f}:{seconds[w]['transfer']:.1f}" for w in workers)


def _keep_first_copies(origin: dict, dask_scheduler=None) -> None:
    """On the scheduler: drop every copy of origin's keys but the one on the worker that held
    it first (origin: key -> (worker,)), by a one-off active memory manager with that policy
    (the default ReduceReplicas drops from the fullest workers, often the first copy)."""
    from distributed.active_memory_manager import (ActiveMemoryManagerExtension,
                                                   ActiveMemoryManagerPolicy, Suggestion)

    class KeepFirst(ActiveMemoryManagerPolicy):
        def run(self):
            for key, (first,) in origin.items():
                ts = self.manager.scheduler.tasks.get(key)
                for ws in () if ts is None else list(ts.who_has):
                    if ws.address != first:
                        yield Suggestion("drop", ts, {ws})
    ActiveMemoryManagerExtension(dask_scheduler, policies={KeepFirst()}, register=False,
                                 start=False).run_once()


def restore(client, origin: dict, *arrays) -> bool:
    """Each block of the arrays on the worker that held it first again (a product leaves copies
    of the blocks it fetched, and the next case would not move them): whether it worked."""
    for _ in range(20):  # give up after ~2 s
        if holders(client, *arrays) == origin:
            return True
        client.run_on_scheduler(_keep_first_copies, origin)
        time.sleep(0.1)
    return False


def _warm(algorithms, device, dask_worker=None):
    """On each worker: build and load the kernels of each algorithm before anything is timed (on
    the GPU at 2048^2, where auto takes an Ozaki scheme as it does for the cases' blocks)."""
    n = 2048 if device == "gpu" else 128
    x = ddblas.random((n, n), seed=0, device=device)
    for algorithm in algorithms:
        ddblas.rgemm(x, x, algorithm=algorithm)
    _sync()


def run_case(client, gpus, protocol, a, b, algorithm, single, mode, groups=1):
    """One product C = A B on the cluster; single: run the single-call baseline first. mode
    "fetch": each task fetches the operand blocks its worker lacks; "copy": B's blocks are first
    copied to every worker (client.replicate, inside the timed product), so that no transfer
    runs beside the products: UCX synchronizes the whole GPU (cuda.core Device.sync) before
    each send and receive, so a transfer waits for the kernels running on either end.
    groups > 1: B's block columns in that many groups, C's block columns one group at a time
    (one ddblas.dask.rgemm each, B's group copied first in mode "copy"), the copies a group
    fetched dropped before the next: a worker holds at most one group's columns of B besides
    its own (N = 65536 on four H200s: with all of B's columns at once the workers ran out of
    memory, or, spilling, ran at 14 % of their rate at N = 32768)."""
    import dask.array as da
    import distributed
    n = a.shape[0]
    single_seconds = single_blocks = None
    if single:
        future = client.submit(_single, client.compute(a.parts), client.compute(b.parts),
                               algorithm, n)
        single_seconds, single_blocks = future.result()
        del future
    b_blocks = distributed.futures_of(b.parts)
    first_holders = holders(client, b)
    ends = np.linspace(0, b.parts.numblocks[2], groups + 1).round().astype(int)
    column_starts = np.cumsum((0,) + b.chunks[1])
    before = _moved(client)
    start = time.perf_counter()
    copied, pieces = 0.0, []
    with distributed.get_task_stream(client) as stream:
        for first, last in zip(ends[:-1], ends[1:]):
            if mode == "copy":
                began = time.perf_counter()
                client.replicate([f for f in b_blocks if first <= f.key[-1] < last])
                copied += time.perf_counter() - began
            columns = slice(column_starts[first], column_starts[last])
            piece = ddd.rgemm(a, b[:, columns] if groups > 1 else b, algorithm=algorithm)
            pieces.append(piece.persist())
            distributed.progress(pieces[-1].parts, notebook=False)
            distributed.wait(pieces[-1].parts)
            if groups > 1:
                client.run_on_scheduler(_keep_first_copies, {
                    key: held for key, held in first_holders.items() if len(held) == 1})
        client.run(_sync)
    multiplied = time.perf_counter()
    moved = _moved(client) - before
    blocks = placement(client, *pieces)
    c = ddd.DDDaskArray(da.concatenate([piece.parts for piece in pieces], axis=2))
    del pieces
    busy = busy_seconds(client, stream.data)
    picks = list(range(0, n, n // SAMPLES))[:SAMPLES]
    picks[-1] = n - 1
    c_s = ddblas.DDArray(*_host(c.parts[:, picks][:, :, picks]), normalize=False)
    a_s = ddblas.DDArray(*_host(a.parts[:, picks]), normalize=False)
    b_s = ddblas.DDArray(*_host(b.parts[:, :, picks]), normalize=False)
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
    mode = mode if groups == 1 else f"{mode} in {groups} groups"
    row = dict(gpus=gpus, protocol=protocol, mode=mode, copied=copied, n=n,
               chunk=a.chunks[0][0], algorithm=algorithm,
               multiply=seconds, blocks=blocks,
               check=checked - multiplied, gflops=2 * n ** 3 / seconds / 1e9,
               moved_gb=moved / 1e9, err=err, bound=bound, single=single_seconds, same=same)
    share = f", {single_seconds / seconds:.1%} of one rgemm call ({single_seconds:.2f} s), " \
            f"sampled diagonal blocks equal to it bit for bit: {same}" if single else ""
    print(f"\n{case_label(gpus, protocol, n, row['chunk'], algorithm, mode)}: multiply "
          f"{seconds:.2f} s (B copied in {copied:.2f} s) = "
          f"{row['gflops']:.0f} GFLOP/s, moved {row['moved_gb']:.2f} GB, C's blocks per "
          f"worker {blocks}, seconds computing / receiving per worker {busy}, check "
          f"{row['check']:.1f} s, sampled error {err:.3g} u^2 (bound {bound:.4g}: "
          f"{'ok' if err <= bound else 'EXCEEDED'}){share}", flush=True)
    return row


def case_label(gpus, protocol, n, chunk, algorithm, mode=None) -> str:
    """How the printed rows and the skipped list name a case."""
    return f"{gpus} GPU {protocol} N={n} chunk={chunk} {algorithm}" + (f" {mode}" if mode else "")


def parse_case(case: str) -> tuple:
    """"N:chunk:algorithm" as (N, chunk, algorithm)."""
    n, chunk, algorithm = case.split(":")
    return int(n), int(chunk), algorithm


def wait_for_memory(gpus: int, seconds: float = 120) -> None:
    """Until the first `gpus` GPUs have RMM_POOL of their memory free: a closed cluster's worker
    processes give theirs back only when they have exited, and a worker that cannot make its
    pool fails to start (the cluster then waits for it forever). After `seconds`, the processes
    that NVML says hold memory there (other than this one) are named and ended, once: on four
    H100s (2026-11-26) the 4-GPU cluster's workers still held their pools 150 s after the
    cluster was closed and its child processes killed, and the 2- and 1-GPU clusters never
    started."""
    import psutil
    import pynvml
    pynvml.nvmlInit()
    handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(gpus)]
    for attempt in range(2):
        deadline = time.perf_counter() + (seconds if attempt == 0 else 60)
        while time.perf_counter() < deadline:
            infos = [pynvml.nvmlDeviceGetMemoryInfo(h) for h in handles]
            if all(i.free >= (RMM_POOL + 0.02) * i.total for i in infos):
                return
            time.sleep(0.5)
        if attempt == 0:
            held = [(p.pid, p.usedGpuMemory) for h in handles
                    for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h)]
            for pid, used in held:
                with contextlib.suppress(psutil.Error):
                    proc = psutil.Process(pid)
                    print(f"{(used or 0) / 2 ** 30:.1f} GiB held by pid {pid} (parent "
                          f"{proc.ppid()}, {proc.status()}"
                          f"{', this process' if pid == os.getpid() else ''}): "
                          f"{' '.join(proc.cmdline())[:120]}", flush=True)
                    if pid != os.getpid():
                        proc.kill()
    raise RuntimeError(f"GPU memory still in use after {seconds} + 60 s: "
                       f"{[round(i.used / 2 ** 30, 1) for i in infos]} GiB")


@contextlib.contextmanager
def running(cluster):
    """The cluster, closed at the end, and any of its worker processes still running ended: a
    worker that had run out of memory kept its GPU's memory after the close (H200 x4, 2026-11-26),
    and the next cluster's worker could not start there."""
    import psutil
    try:
        yield cluster
    finally:
        children = psutil.Process().children(recursive=True)
        cluster.close()
        for child in children:
            if child.is_running():
                child.kill()
        psutil.wait_procs(children, timeout=30)


def make_cluster(gpus: int, protocol: str, device: str, spill_at: float = SPILL_AT):
    """One worker per GPU (the first `gpus`), or `gpus` CPU processes for device="cpu"."""
    import distributed
    if device != "gpu":
        return distributed.LocalCluster(n_workers=gpus, threads_per_worker=1, protocol=protocol,
                                        dashboard_address=None)
    from dask_cuda import LocalCUDACluster
    wait_for_memory(gpus)
    options = dict(CUDA_VISIBLE_DEVICES=",".join(str(i) for i in range(gpus)),
                   dashboard_address=None, device_memory_limit=spill_at, protocol=protocol)
    if importlib.util.find_spec("rmm") is not None:
        options.update(rmm_pool_size=RMM_POOL, rmm_allocator_external_lib_list="cupy")
    if protocol == "ucx":
        options.update(enable_tcp_over_ucx=True, enable_nvlink=True)
    return LocalCUDACluster(**options)


def _gpu_facts(dask_worker=None) -> str:
    import cupy
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    return f"{props['name'].decode()} ({props['totalGlobalMem'] / 2 ** 30:.0f} GiB)"


def main() -> None:
    import distributed

    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cases", nargs="+", default=["32768:8192:auto", "32768:16384:auto",
                                                        "32768:16384:blocked"])
    parser.add_argument("--layout", choices=("tiles", "panels"), default="panels")
    parser.add_argument("--single", action="store_true")
    parser.add_argument("--protocols", nargs="+", choices=("ucx", "tcp"), default=["tcp"])
    parser.add_argument("--big", nargs="*", default=[])
    parser.add_argument("--modes", nargs="+", choices=("fetch", "copy"), default=["fetch", "copy"],
                        help="on several GPUs: tasks fetch the blocks they lack, or B is first "
                        "copied to every worker (run_case)")
    parser.add_argument("--bandwidth", type=float, default=None,
                        help="bytes/s: the scheduler's starting estimate of the links' rate "
                        "(distributed.scheduler.bandwidth; dask's default 1e8)")
    parser.add_argument("--column-groups", type=int, default=1,
                        help="the --big cases multiply B's block columns in this many groups, "
                        "one after the other (run_case)")
    parser.add_argument("--spill-at", type=float, default=SPILL_AT,
                        help="share of a GPU's memory above which its worker spills stored "
                        "blocks to host memory")
    parser.add_argument("--budget", type=float, default=float("inf"))
    parser.add_argument("--device", default="gpu", help="cpu: a LocalCluster of processes "
                        "standing in for the GPUs (to try the script without one)")
    args = parser.parse_args()
    import dask   # the settings are read when a cluster's scheduler starts, in this process
    if args.bandwidth is not None:
        dask.config.set({"distributed.scheduler.bandwidth": args.bandwidth})
    # Copies are dropped by this bench alone (restore, column groups): distributed's default
    # active memory manager drops surplus copies every 2 s from the fullest workers, often the
    # first copy, and restore() cannot bring that back (on the GPUs, where the products take
    # seconds, it never could, 2026-11-26: every case drew its operands again).
    dask.config.set({"distributed.scheduler.active-memory-manager.start": False})
    began, rows, skipped = time.perf_counter(), [], []
    runs = [(protocol, gpus) for protocol in args.protocols for gpus in args.gpus
            if gpus > 1 or protocol == args.protocols[0]]
    for protocol, gpus in runs:
        cases = [(*parse_case(case), args.layout, 1) for case in args.cases]
        if (protocol, gpus) == (args.protocols[0], max(args.gpus)):
            cases += [(*parse_case(case), "panels", args.column_groups) for case in args.big]
        if time.perf_counter() - began > args.budget:
            skipped += [f"{case_label(gpus, protocol, n, chunk, alg)} (budget)"
                        for n, chunk, alg, *_ in cases]
            continue
        try:
            cluster = make_cluster(gpus, protocol, args.device, args.spill_at)
        except Exception as exc:  # e.g. UCX missing: the other protocols still run
            print(f"\n{gpus} GPU {protocol}: no cluster: {exc!r}"[:600], flush=True)
            skipped.append(f"{gpus} GPU {protocol} (no cluster)")
            continue
        with running(cluster), distributed.Client(cluster) as client:
            try:
                client.wait_for_workers(gpus, timeout=120)
            except Exception as exc:  # a worker that failed to start
                print(f"\n{gpus} GPU {protocol}: workers missing: {exc!r}"[:600], flush=True)
                skipped.append(f"{gpus} GPU {protocol} (workers missing)")
                continue
            if args.device == "gpu":
                print(f"\n{gpus} GPU {protocol}: {client.scheduler.address}, "
                      f"{sorted(client.run(_gpu_facts).values())}", flush=True)
            client.run(_warm, sorted({case[2] for case in cases}), args.device)
            for (n, chunk, layout, groups), group in itertools.groupby(
                    cases, key=lambda case: (case[0], case[1], case[3], case[4])):
                group = list(group)
                if time.perf_counter() - began > args.budget:
                    skipped += [f"{case_label(gpus, protocol, n, chunk, alg)} (budget)"
                                for _, _, alg, *_ in group]
                    continue
                seed = 1
                a, b, seconds = generate(client, n, chunk, layout, args.device, seed)
                origin = holders(client, a, b)
                print(f"\n{gpus} GPU {protocol} N={n} chunk={chunk} {layout}: A and B in "
                      f"{seconds:.1f} s, blocks per worker {placement(client, a)} and "
                      f"{placement(client, b)}", flush=True)
                for mode, (_, _, alg, *_) in itertools.product(
                        args.modes if gpus > 1 else ["fetch"], group):
                    if time.perf_counter() - began > args.budget:
                        skipped.append(f"{case_label(gpus, protocol, n, chunk, alg, mode)} "
                                       f"(budget)")
                        continue
                    if not restore(client, origin, a, b):
                        del a, b
                        seed += 2
                        a, b, seconds = generate(client, n, chunk, layout, args.device, seed)
                        origin = holders(client, a, b)
                        print(f"(the previous case's copies could not be dropped: new operands, "
                              f"seed {seed}, in {seconds:.1f} s)", flush=True)
                    try:
                        rows.append(run_case(client, gpus, protocol, a, b, alg,
                                            args.single and gpus == 1, mode, groups))
                    except Exception as exc:  # e.g. out of GPU memory: the next cases still run
                        label = case_label(gpus, protocol, n, chunk, alg, mode)
                        print(f"\n{label}: FAILED {exc!r}"[:600], flush=True)
                        skipped.append(f"{label} (failed)")
                del a, b
    one = {(r["n"], r["chunk"], r["algorithm"]): r["gflops"] for r in rows if r["gpus"] == 1}
    print(f"\nlayout {args.layout}\n| GPUs | transport | B | N | chunk | algorithm | multiply s "
          "(copy of B) | GFLOP/s | per GPU | speedup vs 1 GPU | moved GB | sampled error u^2 | "
          "bound u^2 | share of one call |")
    print("|---:|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        base = one.get((r["n"], r["chunk"], r["algorithm"]))
        speedup = f"{r['gflops'] / base:.2f}x" if base else "-"
        share = f"{r['single'] / r['multiply']:.1%}" if r["single"] else "-"
        transport, mode = (r["protocol"], r["mode"]) if r["gpus"] > 1 else ("-", "-")
        print(f"| {r['gpus']} | {transport} | {mode} | {r['n']} | {r['chunk']} | "
              f"{r['algorithm']} | {r['multiply']:.2f} ({r['copied']:.2f}) | "
              f"{r['gflops']:.0f} | {r['gflops'] / r['gpus']:.0f} | {speedup} | "
              f"{r['moved_gb']:.2f} | {r['err']:.3g} | {r['bound']:.4g} | {share} |")
    for s in skipped:
        print(f"not measured: {s}")


if __name__ == "__main__":
    main()
