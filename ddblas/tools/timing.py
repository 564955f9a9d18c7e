"""Timing for the benchmarks: CUDA events (or a captured CUDA graph) on the GPU, the wall clock
on the CPU; one warm-up call, then the median of the repeats."""
from __future__ import annotations

import statistics
import time


def time_gpu(fn, repeat, calls=1):
    """Median seconds per call of fn(), by CUDA events around `calls` back-to-back calls (> 1:
    the GPU's throughput, Python's launch overhead hidden behind the running kernels), over
    `repeat` such timings, after one warm-up call."""
    import cupy
    fn()
    times = []
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3 / calls)
    return statistics.median(times)


def time_gpu_graph(fn, repeat, calls):
    """Median seconds per call of fn() as the GPU runs it: fn captured once into a CUDA graph on
    a fresh stream, the graph launched `calls` times between CUDA events (the kernels alone,
    without the ~0.1 ms of Python per call that back-to-back calls still pay when a kernel is
    shorter). (seconds, "graph"), or (time_gpu's, "stream") where capture fails."""
    import cupy
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        fn()
        try:
            stream.begin_capture()
            try:
                fn()
            finally:
                graph = stream.end_capture()
        except Exception:  # anything the capture refuses: time the calls instead
            return time_gpu(fn, repeat, calls), "stream"
        times = []
        for _ in range(repeat):
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record(stream)
            for _ in range(calls):
                graph.launch(stream)
            stop.record(stream)
            stop.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3 / calls)
    return statistics.median(times), "graph"


def _wall_times(fn, repeat) -> list[float]:
    """Wall-clock seconds of `repeat` calls of fn(), after one warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def time_wall(fn, repeat):
    """Median wall-clock seconds of fn() over `repeat` calls, after one warm-up call."""
    return statistics.median(_wall_times(fn, repeat))


def time_best(fn, repeat):
    """The shortest wall-clock seconds of fn() over `repeat` calls, after one warm-up call: for
    reference rates (an engine's peak), which other load on the machine can only lower."""
    return min(_wall_times(fn, repeat))


def time_on(device: str, fn, repeat: int) -> float:
    """Seconds per call of fn on a device: CUDA events on the GPU, the wall clock on the CPU."""
    return time_gpu(fn, repeat) if device == "gpu" else time_wall(fn, repeat)


def gflops(n: int, seconds: float) -> float:
    """DD GFLOP/s of an n x n x n product (2 n^3 flops) that took `seconds`."""
    return 2 * n ** 3 / seconds / 1e9
