"""Memory safety with any strides (issue 14.1) and the one GEMM front end (issue 15.1).

Operands and outputs laid out as record-array fields (byte strides that are not multiples of 8),
at a byte offset (misaligned), with negative odd strides and with zero strides: every GEMM
algorithm, rgemm_batched, the elementwise operations, sum, dot and the EFTs give exactly the
results of contiguous copies, write exactly C's bytes, and refuse what cannot be an output.
On the GPU the odd views are built with cupy.ndarray(memptr=..., strides=...).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import ddblas
from ddblas import eft
from ddblas.engines import backend as _backend
from ddblas.blas import batched as _batched
from ddblas.blas import gemm as _gemm
from ddblas.blas import gemmcall as _gemmcall
from ddvalues import exact_values, random_matrix, same_bits

ALGORITHMS = ["naive", "blocked", "tsm", "ozaki-fp64", "ozaki-int8", "auto"]
LAYOUTS = ["odd", "misaligned", "negative-odd"]


def _byte_layout(shape: tuple, layout: str) -> tuple[int, tuple]:
    """(offset, byte strides) of a float64 array of `shape` in a byte buffer: "odd" has items
    20 bytes apart (a field of a record of 20 bytes), "misaligned" is C-contiguous 4 bytes past
    an aligned address, "negative-odd" walks the "odd" layout backwards."""
    step = 20 if layout != "misaligned" else 8
    strides = tuple(step * math.prod(shape[i + 1:]) for i in range(len(shape)))
    if layout == "misaligned":
        return 4, strides
    if layout == "odd":
        return 0, strides
    return sum((d - 1) * s for d, s in zip(shape, strides)), tuple(-s for s in strides)


def _view(values: np.ndarray, layout: str, device: str):
    """A float64 array of values' shape and values in `layout` on the device."""
    offset, strides = _byte_layout(values.shape, layout)
    size = 8 + offset + sum((d - 1) * s for d, s in zip(values.shape, strides) if s > 0)
    buffer = np.full(size + 8, 0xA5, dtype=np.uint8)
    host = np.ndarray(values.shape, np.float64, buffer=buffer, offset=offset, strides=strides)
    host[...] = values
    if device == "cpu":
        return host
    import cupy
    memory = cupy.asarray(buffer)
    return cupy.ndarray(values.shape, np.float64, memptr=memory.data + offset, strides=strides)


def _laid_out(x: ddblas.DDArray, hi_layout: str, lo_layout: str | None = None) -> ddblas.DDArray:
    """x with hi in hi_layout and lo in lo_layout (default: the same; "contiguous": a copy)."""
    parts = []
    for part, layout in ((x.hi, hi_layout), (x.lo, lo_layout or hi_layout)):
        host = np.array(_backend.move(part, "cpu"))
        parts.append(_backend.move(host, x.device) if layout == "contiguous" else
                     _view(host, layout, x.device))
    return ddblas.DDArray(*parts)


def _allocation(part):
    """(address, host bytes) of the whole allocation under a NumPy or CuPy array (read as bytes:
    a view at an odd byte offset is never read item by item)."""
    if _backend.is_gpu_array(part):
        import cupy
        memory = part.data.mem
        raw = cupy.ndarray((memory.size,), np.uint8, cupy.cuda.MemoryPointer(memory, 0))
        return memory.ptr, raw.get().tobytes()
    base = part
    while base.base is not None:
        base = base.base
    return _backend.data_address(base), np.asarray(base).view(np.uint8).tobytes()


def _host_bytes(x: ddblas.DDArray) -> bytes:
    """The bytes of the allocations under x's parts, as seen from the host."""
    return b"".join(_allocation(part)[1] for part in (x.hi, x.lo))


def _pair(m, n, k, device, seed=1):
    return (ddblas.random((m, k), seed=seed, device=device),
            ddblas.random((k, n), seed=seed + 1, device=device))


def test_element_strides_proves_or_refuses(device):
    x = _view(np.arange(12.0).reshape(3, 4), "odd", device)
    assert _backend.element_strides(x) is None
    assert _backend.element_strides(_view(np.arange(6.0), "misaligned", device)) is None
    assert _backend.element_strides(_view(np.arange(6.0), "negative-odd", device)) is None
    xp = _backend.backend(device).xp
    y = xp.arange(24.0).reshape(4, 6)
    assert _backend.element_strides(y[::-2, ::3]) == (-12, 3)
    assert _backend.element_strides(xp.broadcast_to(y[:1], (5, 6))) == (0, 1)
    # one row of an odd view: its stride is never stepped along
    one = _view(np.arange(4.0).reshape(1, 4), "odd", device)[:, :1]
    assert _backend.element_strides(one) == (10, 0)   # 80 bytes: exact; 20: never used
    for bad in (x, _view(np.arange(6.0), "misaligned", device)):
        copy = _backend.contiguous(bad)
        assert _backend.element_strides(copy) is not None and copy.flags.c_contiguous
        assert np.array_equal(_backend.move(copy, "cpu"), _backend.move(bad, "cpu"))


def test_kernel_operand_never_keeps_a_misaligned_array(device):
    """ascontiguousarray keeps a misaligned C-contiguous array as it is: kernel_operand must
    not (the elementwise kernels index it as double*)."""
    for values in (np.arange(6.0), np.array([2.5])):
        x = _view(values, "misaligned", device)
        data, step = _backend.kernel_operand(x, values.shape)
        assert _backend.element_strides(data) is not None
        assert np.array_equal(_backend.move(data, "cpu"), values.reshape(data.shape))


def test_record_array_fields_in_matmul():
    """The issue's example: fields of a record array (strides of 20 bytes)."""
    rec = np.zeros((2, 2), dtype=[("hi", "<f8"), ("lo", "<f8"), ("tag", "<i4")])
    rec["hi"] = [[1, 2], [3, 4]]
    a = ddblas.DDArray(rec["hi"], rec["lo"])
    product = a @ ddblas.eye(2)
    assert np.array_equal(product.hi, [[1, 2], [3, 4]]) and not product.lo.any()
    out = np.zeros((2, 2), dtype=rec.dtype)
    out["tag"] = 7
    c = ddblas.DDArray(out["hi"], out["lo"])
    ddblas.rgemm(ddblas.eye(2), a, c, alpha=2)
    assert np.array_equal(out["hi"], [[2, 4], [6, 8]]) and (out["tag"] == 7).all()


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_sum_through_rgemm_with_negative_odd_strides(device, algorithm):
    """The issue's sum of ones via rgemm: exactly the count (it gave a third of it)."""
    count = 3000
    ones = ddblas.DDArray(_view(np.ones((1, count)), "negative-odd", device),
                          _view(np.zeros((1, count)), "negative-odd", device))
    total = ddblas.rgemm(ones, ddblas.ones((count, 1), device=device), algorithm=algorithm)
    assert Fraction(float(total.hi[0, 0])) + Fraction(float(total.lo[0, 0])) == count


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("layout", LAYOUTS + ["zero", "split"])
@pytest.mark.parametrize("operand", ["a", "b"])
def test_rgemm_reads_operands_of_any_layout(device, algorithm, layout, operand):
    a, b = _pair(6, 5, 7, device)
    x = a if operand == "a" else b
    if layout == "zero":   # a broadcast view: every row the first
        xp = x.xp
        x = ddblas.DDArray(xp.broadcast_to(x.hi[:1], x.shape), xp.broadcast_to(x.lo[:1], x.shape))
    else:
        x = _laid_out(x, "odd", "contiguous") if layout == "split" else _laid_out(x, layout)
    ref = ddblas.rgemm(*((x.copy(), b) if operand == "a" else (a, x.copy())),
                       algorithm=algorithm)
    for trans in "NT":   # op(X) = X read through transposed strides
        view = x.T if trans == "T" else x
        got = ddblas.rgemm(view, b, transa=trans, algorithm=algorithm) if operand == "a" else \
            ddblas.rgemm(a, view, transb=trans, algorithm=algorithm)
        assert same_bits(got, ref), trans


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("layout", LAYOUTS + ["split"])
@pytest.mark.parametrize("scalars", [(1, 0), ("0.75", "0.5"), (0, "0.5"), (0, 0)])
def test_rgemm_writes_c_of_any_layout(device, algorithm, layout, scalars):
    """A C that kernels cannot address in place is computed into a copy and written back:
    the values of a contiguous C, and no byte outside C's items changes."""
    alpha, beta = scalars
    a, b = _pair(6, 5, 7, device, seed=3)
    c0 = ddblas.random((6, 5), seed=9, device=device)
    ref = ddblas.rgemm(a, b, c0.copy(), alpha=alpha, beta=beta, algorithm=algorithm)
    c = _laid_out(c0, "odd", "contiguous") if layout == "split" else _laid_out(c0, layout)
    before = _host_bytes(c)
    out = ddblas.rgemm(a, b, c, alpha=alpha, beta=beta, algorithm=algorithm)
    assert out is c and same_bits(c, ref)
    after = _host_bytes(ddblas.DDArray(c.hi, c.lo))
    changed = {i for i, (p, q) in enumerate(zip(before, after)) if p != q}
    expected = _item_bytes(c)
    assert changed <= expected


def _item_bytes(c: ddblas.DDArray) -> set:
    """Offsets (within _host_bytes) of the bytes of c's items."""
    offsets, start = set(), 0
    for part in (c.hi, c.lo):
        address, data = _allocation(part)
        origin = _backend.data_address(part) - address
        for index in np.ndindex(*part.shape):
            first = start + origin + sum(i * s for i, s in zip(index, part.strides))
            offsets.update(range(first, first + 8))
        start += len(data)
    return offsets


@pytest.mark.parametrize("layout", LAYOUTS + ["zero", "split"])
@pytest.mark.parametrize("target", ["a", "b", "c"])
def test_rgemm_batched_of_any_layout(device, layout, target):
    a = ddblas.random((3, 4, 6), seed=5, device=device)
    b = ddblas.random((3, 6, 5), seed=6, device=device)
    c0 = ddblas.random((3, 4, 5), seed=7, device=device)
    ref = ddblas.rgemm_batched(a, b, c0.copy(), alpha="0.75", beta="0.5")
    xs = {"a": a, "b": b, "c": c0}
    x = xs[target]
    if layout == "zero":
        if target == "c":
            return   # refused: test_zero_stride_and_read_only_c_are_refused
        xp = x.xp   # one product broadcast over the batch (batch stride 0)
        x = ddblas.DDArray(xp.broadcast_to(x.hi[:1], x.shape), xp.broadcast_to(x.lo[:1], x.shape))
        xs[target] = x
        ref = ddblas.rgemm_batched(*(y.copy() for y in (xs["a"], xs["b"], c0)),
                                   alpha="0.75", beta="0.5")
    else:
        xs[target] = _laid_out(x, "odd", "contiguous") if layout == "split" else \
            _laid_out(x, layout)
    out = ddblas.rgemm_batched(xs["a"], xs["b"], xs["c"] if target == "c" else c0.copy(),
                               alpha="0.75", beta="0.5")
    assert same_bits(out, ref)
    if target == "c":
        assert out is xs["c"]


@pytest.mark.parametrize("routine", ["rgemm", "rgemm_batched"])
def test_c_with_differently_laid_out_parts_is_accepted_alike(device, routine):
    """Issue 15: rgemm(a, b, c, alpha=0, beta=1) succeeded and rgemm_batched raised for a c
    whose hi and lo have different layouts; both accept it, for every alpha and beta."""
    shape = (2, 3, 3) if routine == "rgemm_batched" else (3, 3)
    run = getattr(ddblas, routine)
    a = ddblas.random(shape, seed=1, device=device)
    for alpha, beta in [(0, 1), (1, 0), ("0.5", "0.25")]:
        c0 = ddblas.random(shape, seed=2, device=device)
        xp = c0.xp
        c = ddblas.DDArray(xp.asfortranarray(c0.hi), xp.ascontiguousarray(c0.lo))
        ref = run(a, a, c0.copy(), alpha=alpha, beta=beta)
        assert run(a, a, c, alpha=alpha, beta=beta) is c and same_bits(c, ref)


@pytest.mark.parametrize("routine", ["rgemm", "rgemm_batched"])
def test_zero_stride_and_read_only_c_are_refused(device, routine):
    shape = (2, 3, 3) if routine == "rgemm_batched" else (3, 3)
    run = getattr(ddblas, routine)
    a = ddblas.random(shape, seed=1, device=device)
    xp = a.xp
    for alpha, beta in [(1, 0), (0, 1)]:
        c = ddblas.DDArray(xp.broadcast_to(xp.zeros(shape[-1]), shape), xp.zeros(shape))
        with pytest.raises(ValueError, match=r"c has elements that share memory \(zero strides"):
            run(a, a, c, alpha=alpha, beta=beta)
    if device == "cpu":
        hi = np.zeros(shape)
        hi.flags.writeable = False
        with pytest.raises(ValueError, match="read-only"):
            run(a, a, ddblas.DDArray(hi, np.zeros(shape)), alpha=0, beta=1)


def _self_overlapping(xp, shape):
    """A writable array of `shape` whose rows overlap (row stride one item)."""
    base = xp.zeros(shape[-1] + int(np.prod(shape[:-1])))
    strides = (8,) * len(shape)
    if xp is np:
        return np.lib.stride_tricks.as_strided(base, shape, strides)
    return xp.ndarray(shape, dtype=base.dtype, memptr=base.data, strides=strides)


@pytest.mark.parametrize("routine", ["rgemm", "rgemm_batched", "rtrsm", "rsyrk"])
def test_outputs_sharing_memory_are_refused(device, routine):
    """Review of 2026-11-25: an output whose hi and lo were one array (DDArray(z, z) of zeros)
    or whose elements overlap was accepted and silently wrong: the constructor now separates
    hi and lo, and every routine that writes an output refuses overlapping elements, naming
    it."""
    shape = (2, 3, 3) if routine == "rgemm_batched" else (3, 3)
    name = "b" if routine == "rtrsm" else "c"
    a = ddblas.random(shape, seed=1, device=device) + 2 * ddblas.eye(3, device=device)
    xp = a.xp
    run = {"rgemm": lambda out: ddblas.rgemm(a, a, out),
           "rgemm_batched": lambda out: ddblas.rgemm_batched(a, a, out),
           "rtrsm": lambda out: ddblas.rtrsm("L", "L", "N", "N", 1, a, out),
           "rsyrk": lambda out: ddblas.rsyrk("L", "N", 1, a, 0, out)}[routine]
    zeros = xp.zeros(shape)
    shared = ddblas.DDArray(zeros, zeros)   # the constructor copies lo
    expected = run(ddblas.zeros(shape, device=device))
    assert run(shared) is shared and same_bits(shared, expected)
    overlapping = ddblas.DDArray(_self_overlapping(xp, shape), _self_overlapping(xp, shape),
                                 normalize=False)
    with pytest.raises(ValueError, match=f"^{name} has elements that share memory"):
        run(overlapping)
    if device == "cpu":
        hi = np.zeros(shape)
        hi.flags.writeable = False
        with pytest.raises(ValueError, match=f"^{name} is read-only"):
            run(ddblas.DDArray(hi, np.zeros(shape)))


def test_distinct_elements_against_the_items_listed():
    """distinct_elements on random strided layouts (strides of any sign, zero, or smaller than
    the item) against the items' byte ranges listed one by one."""
    rng = np.random.default_rng(3)
    buffer = np.zeros(4096)
    seen = set()
    for _ in range(3000):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(e) for e in rng.integers(1, 5, ndim))
        strides = tuple(int(s) for s in rng.choice([-24, -8, 0, 4, 8, 12, 16, 24, 32, 40], ndim))
        x = np.lib.stride_tricks.as_strided(buffer[2000:], shape, strides)
        starts = sorted(int(sum(i * s for i, s in zip(index, strides)))
                        for index in np.ndindex(shape))
        truth = all(b - a >= 8 for a, b in zip(starts, starts[1:]))
        assert _backend.distinct_elements(x) == truth, (shape, strides)
        seen.add(truth)
    assert seen == {True, False}


@pytest.mark.parametrize("routine", ["rgemm", "rgemm_batched"])
def test_c_whose_parts_differ_only_on_a_length_one_axis(device, routine):
    """Review of 2026-11-25: a C whose hi and lo strides differ only on an axis of length 1
    (a row of a wider matrix and a contiguous copy of it) raised an internal error; such a C is
    addressed in place like any other."""
    shape = (2, 1, 4) if routine == "rgemm_batched" else (1, 4)
    run = getattr(ddblas, routine)
    a = ddblas.random(shape[:-1] + (2,), seed=4, device=device)
    b = ddblas.random((2, 4), seed=5, device=device)
    wide = ddblas.random(shape[:-2] + (5, 8), seed=6, device=device)
    row = wide[..., 2:3, :4]
    c = ddblas.DDArray(row.hi, row.lo.copy(), normalize=False)
    expected = run(a, b, c.copy(), alpha="0.5", beta=1)
    assert run(a, b, c, alpha="0.5", beta=1) is c and same_bits(c, expected)
    assert same_bits(wide[..., 2:3, :4].hi, expected.hi)


@pytest.mark.parametrize("routine", ["rtrsm", "rsyrk"])
def test_rtrsm_and_rsyrk_with_the_output_as_operand(device, routine):
    """Review of 2026-11-25: rtrsm(..., alpha=3, a, b) with b the same array as a scaled b in
    place before reading a (giving I), and rsyrk with c the same array as a (n > SYRK_BLOCK)
    overwrote blocks of a before reading them: both now give what copies give."""
    n = 70
    a = ddblas.random((n, n), seed=7, device=device) + n * ddblas.eye(n, device=device)
    if routine == "rtrsm":
        run = lambda t, out: ddblas.rtrsm("L", "L", "N", "N", 3, t, out)  # noqa: E731
    else:
        run = lambda t, out: ddblas.rsyrk("L", "N", "0.5", t, "0.25", out)  # noqa: E731
    expected = run(a.copy(), a.copy())
    same = a.copy()
    assert run(same, same) is same and same_bits(same, expected)


@pytest.mark.parametrize("name", ["alpha", "beta"])
def test_rsyrk_reads_a_scalar_that_views_c_by_value(device, name):
    """Probe of 2026-11-28: with alpha (or beta) a view into c and n > SYRK_BLOCK, the blocks of
    c after the first used the value the first had written (rgemm, rtrsm and rgemv read their
    scalars by value, as BLAS); and the scalars were not checked where c is empty."""
    n = 70
    a = ddblas.random((n, 3), seed=8, device=device)
    c = ddblas.random((n, n), seed=9, device=device) + 2
    scalars = {"alpha": "0.5", "beta": "0.25"}
    expected = ddblas.rsyrk("L", "N", **{**scalars, name: c[0, 0].copy()}, a=a, c=c.copy())
    got = ddblas.rsyrk("L", "N", **{**scalars, name: c[0:1, 0:1]}, a=a, c=c)
    assert got is c and same_bits(c, expected)
    with pytest.raises(ValueError, match=f"^{name} must be a DD scalar"):
        ddblas.rsyrk("L", "N", **{**scalars, name: "junk"}, a=ddblas.ones((0, 3)),
                     c=ddblas.zeros((0, 0)))


def test_rtrsm_with_alpha_zero_sets_b_to_zero_without_reading_it(device):
    """BLAS dtrsm: alpha = 0 makes B zero and B is not read (NaN in B included)."""
    t = ddblas.eye(4, device=device)
    b = ddblas.full((4, 3), float("nan"), device=device)
    assert ddblas.rtrsm("L", "U", "T", "N", 0, t, b) is b
    assert same_bits(b, ddblas.zeros((4, 3), device=device))


@pytest.mark.parametrize("routine", ["rgemm", "rgemm_batched"])
@pytest.mark.parametrize("name", ["alpha", "beta"])
@pytest.mark.parametrize("value", ["garbage", None, object()])
def test_bad_scalars_name_the_argument(routine, name, value):
    shape = (2, 2, 2) if routine == "rgemm_batched" else (2, 2)
    a = ddblas.ones(shape)
    with pytest.raises((TypeError, ValueError), match=f"^{name} must be a DD scalar"):
        getattr(ddblas, routine)(a, a, ddblas.zeros(shape), **{name: value})


@pytest.mark.parametrize("layout", LAYOUTS)
def test_elementwise_sum_dot_and_eft_inputs_of_any_layout(device, layout):
    x = ddblas.random((4, 5), seed=11, device=device)
    y = ddblas.random((4, 5), seed=12, device=device)
    odd = _laid_out(x, layout)
    assert same_bits(odd + y, x + y) and same_bits(ddblas.sqrt(odd), ddblas.sqrt(x))
    assert same_bits(ddblas.sum(odd, axis=1), ddblas.sum(x, axis=1))
    assert same_bits(ddblas.sum(odd), ddblas.sum(x))
    assert same_bits(ddblas.dot(odd[1], y[2]), ddblas.dot(x[1], y[2]))
    assert same_bits(ddblas.dot(odd[1, :1].reshape(()), y[2]), ddblas.dot(x[1, :1].reshape(()), y[2]))
    for got, ref in zip(eft.two_sum(odd.hi, y.hi), eft.two_sum(x.hi, y.hi)):
        assert np.array_equal(_backend.move(got, "cpu"), _backend.move(ref, "cpu"))
    for got, ref in zip(eft.split(odd.hi), eft.split(x.hi)):
        assert np.array_equal(_backend.move(got, "cpu"), _backend.move(ref, "cpu"))


def test_every_algorithm_has_a_runner():
    assert set(_gemm.RUNNERS) == set(_gemmcall.ALGORITHMS) - {"auto"}
    assert set(_batched.RUNNERS) == {_gemmcall.BATCHED}


def _random_view(parent, rng):
    """A random view of a 2-D parent: a block, transposed or not, stepped or reversed, and
    sometimes a row, a single item, a flattened block or a broadcast row."""
    v = parent.T if rng.random() < 0.3 else parent
    r0, c0 = rng.randrange(v.shape[0]), rng.randrange(v.shape[1])
    v = v[r0:rng.randrange(r0, v.shape[0] + 1), c0:rng.randrange(c0, v.shape[1] + 1)]
    v = v[::rng.choice([1, 1, 2, 3, -1]), ::rng.choice([1, 1, 2, -1, -2])]
    kind = rng.random()
    if kind < 0.1 and v.flags.c_contiguous:
        v = v.ravel()
    elif kind < 0.2 and v.shape[0]:
        v = v[rng.randrange(v.shape[0])]
    elif kind < 0.25 and v.size:
        v = v[:1, :1].reshape(())
    elif kind < 0.3 and v.shape[0]:
        v = _backend.array_module(v).broadcast_to(v[:1], (3,) + v.shape[1:])
    return v


@pytest.mark.parametrize("shape", [(12, 10), (7, 7), (1, 9), (16, 3)])
def test_may_overlap_is_exact_on_small_arrays_and_blocks(device, shape):
    """may_overlap against NumPy's exact shares_memory on twin views (the same index
    operations on a NumPy and a device array): exact on arrays this small (their items listed
    where the strides do not decide), and by arithmetic on blocks of one matrix (below)."""
    import random
    xp = _backend.backend(device).xp
    host, parent = np.zeros(shape), xp.zeros(shape)
    for seed in range(1500):
        views = []
        for side in range(2):
            state = random.Random(seed * 2 + side).getstate()
            pair = []
            for base in (host, parent):
                rng = random.Random()
                rng.setstate(state)
                pair.append(_random_view(base, rng))
            views.append(pair)
        (hx, dx), (hy, dy) = views
        truth, got = np.shares_memory(hx, hy), _backend.may_overlap(dx, dy)
        assert got == truth, (hx.shape, hx.strides, hy.shape, hy.strides)
    # the factorizations' blocks: disjoint, transposed, interleaved rows
    m = xp.zeros((8, 8))
    assert not _backend.may_overlap(m[:4, :4], m[4:, :4].T)
    assert not _backend.may_overlap(m[::2], m[1::2])
    assert _backend.may_overlap(m[1:5], m[:4, 3:].T)


def test_rgemm_on_blocks_of_one_matrix(device):
    """Operands and C in one matrix: disjoint blocks (read in place) and overlapping ones
    (copied first) both give the product of copies."""
    big = random_matrix(12, 12, 21, device)
    cases = [(lambda x: x[:4, :4], lambda x: x[:4, 4:8].T, lambda x: x[4:8, 8:]),
             (lambda x: x[::3, :4], lambda x: x[1::3, :4].T, lambda x: x[2::3, ::3]),
             (lambda x: x[:4, :4], lambda x: x[2:6, 2:6], lambda x: x[3:7, 3:7]),
             (lambda x: x[:4, :4], lambda x: x[:4, :4].T, lambda x: x[:4, :4])]
    for a_of, b_of, c_of in cases:
        x = big.copy()
        a, b, c = a_of(x), b_of(x), c_of(x)
        expected = exact_values(ddblas.rgemm(a.copy(), b.copy(), c.copy(), alpha=-1, beta=1,
                                             algorithm="naive"))
        ddblas.rgemm(a, b, c, alpha=-1, beta=1, algorithm="naive")
        assert exact_values(c_of(x)) == expected
