"""Runs every GPU rgemm kernel once per shape of the issue's grid, for compute-sanitizer:
    compute-sanitizer --tool memcheck  python bench/sanitize_gemm.py
    compute-sanitizer --tool racecheck python bench/sanitize_gemm.py --quick
and checks each result bitwise against the CPU twin; then every algorithm and rgemm_batched on
operands and outputs with odd byte strides, misaligned addresses, negative odd strides and zero
strides (issue 14.1: no kernel may receive a stride or an address it cannot use)."""
import sys

import numpy as np

import ddblas

GRID = [1, 2, 15, 16, 17, 31, 33, 127, 129]
quick = "--quick" in sys.argv
shapes = [(m, GRID[(i + 2) % len(GRID)], GRID[(i + 4) % len(GRID)]) for i, m in enumerate(GRID)]
shapes += [(129, 1, 33), (1, 129, 17), (64, 64, 64)]
if quick:
    shapes = [s for s in shapes if max(s) <= 33]
checked = 0
for m, n, k in shapes:
    for transa, transb in [("N", "N"), ("T", "N"), ("N", "T"), ("T", "T")]:
        a = ddblas.random((m, k) if transa == "N" else (k, m), seed=m)
        b = ddblas.random((k, n) if transb == "N" else (n, k), seed=n)
        for fma, add in [(True, "accurate"), (False, "sloppy")]:
            ref = ddblas.rgemm(a, b, transa=transa, transb=transb, fma=fma, add=add)
            for algorithm, block in [("naive", 2), ("tiled", 2), ("blocked", 2), ("blocked", 4)]:
                got = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), transa=transa,
                                   transb=transb, fma=fma, add=add, algorithm=algorithm,
                                   block=block).to_device("cpu")
                assert np.array_equal(ref.hi, got.hi) and np.array_equal(ref.lo, got.lo), \
                    (m, n, k, transa, transb, fma, add, algorithm, block)
                checked += 1
# The tall-and-skinny kernels, K cut into pieces of 8 (many grid-z blocks and a piece sum).
from ddblas.blas import tsm as _tsm  # noqa: E402
_tsm.MIN_PIECE, _tsm.TARGET_BLOCKS, _tsm.WORKSPACE_SHARE = 8, 10 ** 6, 1
for m, n, k in [(129, 1, 33), (1, 129, 17), (200, 3, 50), (33, 17, 100), (5, 32, 9)]:
    for transa, transb in [("N", "N"), ("T", "N"), ("N", "T")]:
        a = ddblas.random((m, k) if transa == "N" else (k, m), seed=m)
        b = ddblas.random((k, n) if transb == "N" else (n, k), seed=n)
        ref = ddblas.rgemm(a, b, transa=transa, transb=transb, algorithm="tsm")
        got = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), transa=transa, transb=transb,
                           algorithm="tsm").to_device("cpu")
        assert np.array_equal(ref.hi, got.hi) and np.array_equal(ref.lo, got.lo), (m, n, k)
        checked += 1


def odd_view(values, layout):
    """A CuPy float64 array of values (host) laid out as "odd" (items 20 bytes apart),
    "misaligned" (4 bytes past an aligned address), "negative-odd" or "zero" (broadcast rows)."""
    import cupy
    if layout == "zero":
        return cupy.broadcast_to(cupy.asarray(values[:1]), values.shape)
    step = 8 if layout == "misaligned" else 20
    strides = tuple(step * int(np.prod(values.shape[i + 1:])) for i in range(values.ndim))
    offset = 4 if layout == "misaligned" else 0
    if layout == "negative-odd":
        offset = sum((d - 1) * st for d, st in zip(values.shape, strides))
        strides = tuple(-st for st in strides)
    size = 8 + offset + sum((d - 1) * st for d, st in zip(values.shape, strides) if st > 0)
    buffer = np.zeros(size + 8, np.uint8)
    view = np.ndarray(values.shape, np.float64, buffer=buffer, offset=offset, strides=strides)
    view[...] = values
    memory = cupy.asarray(buffer)
    return cupy.ndarray(values.shape, np.float64, memptr=memory.data + offset, strides=strides)


def laid_out(x, layout):
    """The GPU DDArray x with both parts laid out as `layout`."""
    parts = x.to_device("cpu")
    return ddblas.DDArray(odd_view(np.array(parts.hi), layout),
                          odd_view(np.array(parts.lo), layout))


def host(x):
    return ddblas.DDArray(np.array(x.to_device("cpu").hi), np.array(x.to_device("cpu").lo))


odd = 0
for layout in ["odd", "misaligned", "negative-odd", "zero"]:
    for algorithm, block in [("naive", 2), ("tiled", 2), ("blocked", 2), ("blocked", 4),
                             ("tsm", 2), ("ozaki-fp64", 2), ("ozaki-int8", 2)]:
        for m, n, k in [(33, 17, 40), (129, 3, 65)]:
            a, b = ddblas.random((m, k), seed=m), ddblas.random((k, n), seed=n)
            c0 = ddblas.random((m, n), seed=k)
            for target in ["a", "b", "c"]:
                if target == "c" and layout == "zero":
                    continue   # refused with a ValueError
                xs = {"a": a.to_device("gpu"), "b": b.to_device("gpu"), "c": c0.to_device("gpu")}
                xs[target] = laid_out(xs[target], layout)
                ref = ddblas.rgemm(host(xs["a"]), host(xs["b"]), host(xs["c"]), alpha="0.75",
                                   beta="0.5", algorithm=algorithm)
                got = ddblas.rgemm(xs["a"], xs["b"], xs["c"], alpha="0.75", beta="0.5",
                                   algorithm=algorithm, block=block)
                assert np.array_equal(ref.hi, got.to_device("cpu").hi) and \
                    np.array_equal(ref.lo, got.to_device("cpu").lo), (layout, algorithm, target)
                odd += 1
    for target in ["a", "b", "c"]:
        if target == "c" and layout == "zero":
            continue
        xs = {"a": ddblas.random((5, 9, 7), seed=1), "b": ddblas.random((5, 7, 6), seed=2),
              "c": ddblas.random((5, 9, 6), seed=3)}
        xs = {name: x.to_device("gpu") for name, x in xs.items()}
        xs[target] = laid_out(xs[target], layout)
        ref = ddblas.rgemm_batched(host(xs["a"]), host(xs["b"]), host(xs["c"]), beta="0.5")
        got = ddblas.rgemm_batched(xs["a"], xs["b"], xs["c"], beta="0.5").to_device("cpu")
        assert np.array_equal(ref.hi, got.hi) and np.array_equal(ref.lo, got.lo), (layout, target)
        odd += 1
print(f"sanitize_gemm: {checked} GPU rgemm calls over {len(shapes)} shapes, all equal to the CPU; "
      f"{odd} calls on odd, misaligned, negative and zero strides, all equal to the CPU")
