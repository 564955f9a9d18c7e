"""device="gpu" on host operands (ddblas/blas/transfer.py): argument errors and the chunk model (CPU);
the pipeline's chunking, staging orders, slots and drain against a stand-in CuPy whose "device"
is host memory (CPU); on a GPU, bitwise equality with rgemm / rgemm_batched on device copies."""
from __future__ import annotations

import ctypes
import dataclasses
import mmap
import sys
import types

import numpy as np
import pytest

import ddblas
from ddblas.blas import batched as _batched
from ddblas.blas import gemm as _gemm
from ddblas.blas import gemmcall as _gemmcall
from ddblas.blas import transfer as _transfer
from ddblas.engines import gpu as _gpu_engine
from conftest import HAS_GPU, requires_gpu
from ddvalues import random_matrix, random_stack, same_bits

RATES = _transfer.Rates(h2d=25e9, d2h=25e9, host=10e9)
FREE_REGISTRATION = dataclasses.replace(RATES, register=1e18)  # registered mode always wins


# ---- arguments (CPU) ----

def _ab():
    return ddblas.random((5, 4), seed=1), ddblas.random((4, 3), seed=2)


@pytest.mark.parametrize("routine", ["rgemm", "rgemm_batched"])
def test_bad_device_and_chunk(routine):
    a, b = _ab()
    if routine == "rgemm_batched":
        a = a.reshape(1, 5, 4)
    f = getattr(ddblas, routine)
    with pytest.raises(ValueError, match="device must be"):
        f(a, b, device="tpu")
    for chunk in (0, -3, 2.5, True, "4"):
        with pytest.raises(ValueError, match="chunk must be a positive int"):
            f(a, b, chunk=chunk)
    if not HAS_GPU:
        with pytest.raises(RuntimeError, match="no GPU available"):
            f(a, b, device="gpu")
    with pytest.raises(TypeError, match="info must be a dict"):
        f(a, b, info=[])


@pytest.mark.gpu
@requires_gpu
def test_cpu_device_with_gpu_operands():
    a, b = (x.to_device("gpu") for x in _ab())
    with pytest.raises(ValueError, match="device='cpu' with GPU operands"):
        ddblas.rgemm(a, b, device="cpu")
    with pytest.raises(ValueError, match="device='cpu' with GPU operands"):
        ddblas.rgemm_batched(a.reshape(1, 5, 4), b, device="cpu")
    with pytest.raises(ValueError, match="different devices"):
        ddblas.rgemm(a, b.to_device("cpu"), device="gpu")


def test_same_device_is_the_plain_call():
    a, b = _ab()
    ref = ddblas.rgemm(a, b)
    info = {}
    assert same_bits(ddblas.rgemm(a, b, device="cpu", chunk=2, info=info), ref)
    assert "transfer" not in info
    info = {}
    batch = ddblas.rgemm_batched(random_stack(3, 5, 4, 1, "cpu"), b, device="cpu", info=info)
    assert same_bits(batch, ddblas.rgemm_batched(random_stack(3, 5, 4, 1, "cpu"), b)) and info == {}


# ---- the model (CPU) ----

def _rgemm_work(m, n=1024, k=1024):
    return _transfer.rgemm_work(m, n, k, False,
                                _transfer.rgemm_kernel_seconds("blocked", n, k, "fma_accurate"))


def test_model_counts_every_stage():
    work = _transfer.Work(10, 100, 50, 1000, lambda c: 1e-3 * c)
    r = _transfer.Rates(h2d=1e3, d2h=1e3, host=1e4)
    stages = [300 / 1e4 + _transfer.HOST_CHUNK_SECONDS, 0.2, 2e-3, 0.1]
    fixed = 1000 / 1e4 + 1000 / 1e3
    assert _transfer.model_seconds(work, 2, r) == pytest.approx(fixed + sum(stages)
                                                                + 4 * max(stages))
    one = [1500 / 1e4 + _transfer.HOST_CHUNK_SECONDS, 1.0, 1e-2, 0.5]
    assert _transfer.model_seconds(work, 10, r) == pytest.approx(fixed + sum(one))
    assert _transfer.model_seconds(work, 50, r) == _transfer.model_seconds(work, 10, r)


def test_chosen_chunk_is_sane():
    sms = 132
    low = _transfer.rgemm_min_rows(1024, sms)
    assert low % _transfer.TILE_ROWS == 0 and low >= _transfer.TILE_ROWS
    # its tiles cover every multiprocessor WAVES times, one tile row fewer does not
    tiles = lambda rows: -(-rows // 64) * -(-1024 // 32)  # noqa: E731
    assert tiles(low) >= 3 * sms > tiles(low - 64)
    for m in (1, 100, low, 4096, 65536):
        work = _rgemm_work(m)
        chunk, seconds = _transfer.choose_chunk(work, low, RATES)
        assert min(m, low) <= chunk <= m
        assert seconds == pytest.approx(_transfer.model_seconds(work, chunk, RATES))
        # no chunk count the search tries is modelled faster
        for count in range(1, min(m, 64) + 1):
            other = -(-m // count)
            if other >= min(m, low):
                assert seconds <= _transfer.model_seconds(work, other, RATES) * (1 + 1e-12)
    assert _transfer.choose_chunk(_rgemm_work(100), low, RATES)[0] == 100  # below the minimum


def test_chunking_pays_and_the_staging_cap_holds():
    work = _rgemm_work(65536, 4096, 4096)
    chunk, seconds = _transfer.choose_chunk(work, 64, RATES)
    assert chunk < 65536 and seconds < _transfer.model_seconds(work, 65536, RATES)
    assert _transfer.STREAMS * chunk * (work.unit_in + work.unit_out) <= \
        _transfer.MAX_STAGING_BYTES
    # a minimum beyond the cap wins over it
    huge = _transfer.MAX_STAGING_BYTES // (work.unit_in + work.unit_out)
    assert _transfer.choose_chunk(work, huge, RATES)[0] >= huge


def test_registered_model():
    work = _transfer.Work(1000, 300, 100, 50, lambda c: 0.0, unit_direct=250, registered=350_000)
    r = _transfer.Rates(h2d=1e6, d2h=1e6, host=1e6, register=1e7)
    # staging only the 150 bytes a unit of the strided arrays, registering 350 kB first
    stages = [100 * 150 / 1e6 + _transfer.HOST_CHUNK_SECONDS, 0.03, 0.0, 0.01]
    fixed = 50 / 1e6 + 50 / 1e6 + 350_000 / 1e7
    assert _transfer.model_seconds(work, 100, r, True) == pytest.approx(
        fixed + sum(stages) + 9 * max(stages))
    assert _transfer.model_seconds(work, 100, r) > _transfer.model_seconds(work, 100, r, True)
    refused = dataclasses.replace(r, register=0.0)
    assert _transfer.model_seconds(work, 100, refused, True) == float("inf")


def test_batched_model_minimum():
    work = _transfer.Work(100000, 16 * (19 * 32 + 32 * 9), 16 * 19 * 9, 0,
                          _transfer.batched_kernel_seconds(19, 9, 32, "fma_accurate"))
    floor = _transfer.MIN_BATCH_CHUNK_PER_SM * 132
    chunk, _ = _transfer.choose_chunk(work, floor, RATES)
    assert floor <= chunk <= 100000
    assert _transfer.choose_chunk(work, 10 ** 6, RATES)[0] == 100000


# ---- the pipeline against a stand-in CuPy (CPU) ----

class _HostAsDevice(np.ndarray):
    """A "device" array: host memory with CuPy's .data.ptr."""

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.ctypes.data)


class _Stream:
    ptr = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def record(self):
        return _Event()

    def wait_event(self, event):
        pass

    def synchronize(self):
        pass


class _Event:
    def __init__(self, **kw):
        pass

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass


@pytest.fixture
def fake_cupy(monkeypatch):
    """Copies are immediate memmoves; streams and events order nothing (everything is in order
    already), so this checks which bytes go where, not the overlap."""
    registry = types.SimpleNamespace(live={}, calls=0, refuse=False)

    class CUDARuntimeError(RuntimeError):
        pass

    def register(ptr, size, flags):
        # CUDA refuses a page registered twice; _register passes whole pages
        registry.calls += 1
        assert ptr % mmap.PAGESIZE == 0 and size % mmap.PAGESIZE == 0 and flags == 0
        if registry.refuse or any(ptr < end and start < ptr + size
                                  for start, end in registry.live.items()):
            raise CUDARuntimeError("cudaErrorHostMemoryAlreadyRegistered")
        registry.live[ptr] = ptr + size

    runtime = types.SimpleNamespace(
        memcpyHostToDevice=1, memcpyDeviceToHost=2, CUDARuntimeError=CUDARuntimeError,
        hostRegister=register, hostUnregister=lambda ptr: registry.live.pop(ptr),
        memcpyAsync=lambda dst, src, n, kind, stream: ctypes.memmove(dst, src, n))
    cuda = types.SimpleNamespace(Stream=lambda **kw: _Stream(), Event=_Event,
                                 get_current_stream=_Stream, runtime=runtime)
    cupy = types.SimpleNamespace(cuda=cuda, empty=lambda n: np.empty(n).view(_HostAsDevice))
    cupyx = types.SimpleNamespace(empty_pinned=lambda n: np.full(n, np.nan))
    for name, module in (("cupy", cupy), ("cupy.cuda", cuda), ("cupyx", cupyx)):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(_transfer, "rates", lambda: RATES)
    monkeypatch.setattr(_gpu_engine, "multiprocessors", lambda: 4)
    return registry


def _host_pipeline(routine, a, b, c, **kw):
    """The pipeline on host operands: the front end's call with target "gpu"; each chunk's
    "device" GEMM runs the CPU kernels on the stand-in device buffers (host memory)."""
    if routine == "rgemm":
        kw.setdefault("algorithm", "blocked")
    call = dataclasses.replace(_gemmcall.prepare(routine, a, b, c, **kw), target="gpu")
    return _gemmcall.execute(call, _gemm.RUNNERS if routine == "rgemm" else _batched.RUNNERS)


@pytest.mark.parametrize("register", [False, True], ids=["staged", "registered"])
@pytest.mark.parametrize("chunk", [1, 3, 7, 16, 100, None])
@pytest.mark.parametrize("layout", ["NN", "TN", "NT", "strided"])
@pytest.mark.parametrize("beta", [0, "0.5"])
def test_rgemm_pipeline_on_host(fake_cupy, monkeypatch, register, chunk, layout, beta):
    if register:
        monkeypatch.setattr(_transfer, "rates", lambda: FREE_REGISTRATION)
    m, n, k = 16, 5, 9
    a = random_matrix(k, m, 1, "cpu").T if layout == "TN" else random_matrix(m, k, 1, "cpu")
    b = random_matrix(n, k, 2, "cpu").T if layout == "NT" else random_matrix(k, n, 2, "cpu")
    if layout == "strided":
        a = random_matrix(2 * m, 3 * k, 1, "cpu")[::2, ::3]
    c0 = random_matrix(m, n, 3, "cpu")
    ref = ddblas.rgemm(a, b, c0.copy(), alpha="0.75", beta=beta)
    info = {}
    c = c0.copy()
    out = _host_pipeline("rgemm", a, b, c, alpha="0.75", beta=beta, chunk=chunk, info=info)
    assert out is c and same_bits(c, ref)
    t = info["transfer"]
    assert t["chunks"] == -(-m // t["chunk"]) and t["streams"] == min(3, t["chunks"])
    assert t["chunk"] == (min(chunk, m) if chunk else t["chunk"])
    assert t["registered"] == register and not fake_cupy.live  # C is contiguous


@pytest.mark.parametrize("register", [False, True], ids=["staged", "registered"])
@pytest.mark.parametrize("chunk", [1, 2, 5, 64, None])
@pytest.mark.parametrize("shapes", [(7, 7), (None, 7), (7, 1), (1, 1)],
                         ids=["both", "a-2d", "b-batch-1", "batch-1"])
@pytest.mark.parametrize("beta", [0, "-1.5"])
def test_batched_pipeline_on_host(fake_cupy, monkeypatch, register, chunk, shapes, beta):
    if register:
        monkeypatch.setattr(_transfer, "rates", lambda: FREE_REGISTRATION)
    m, n, k = 3, 4, 5
    batch = max(s or 1 for s in shapes)
    a = random_matrix(m, k, 1, "cpu") if shapes[0] is None else random_stack(shapes[0], m, k, 1, "cpu")
    b = random_stack(shapes[1], n, k, 2, "cpu").transpose(0, 2, 1)  # a transposed view
    c0 = random_stack(batch, m, n, 3, "cpu")
    ref = ddblas.rgemm_batched(a, b, c0.copy(), beta=beta)
    c, info = c0.copy(), {}
    _host_pipeline("rgemm_batched", a, b, c, beta=beta, chunk=chunk, info=info)
    assert same_bits(c, ref)
    assert info["transfer"]["chunks"] == -(-batch // info["transfer"]["chunk"])
    assert info["transfer"]["registered"] == register and not fake_cupy.live


def _one_block(batch, m, n, seed):
    """A C-contiguous DDArray whose hi and lo are halves of one array: they share a page."""
    x = random_stack(batch, m, n, seed, "cpu")
    both = np.concatenate([x.hi, x.lo])
    return ddblas.DDArray(both[:batch], both[batch:])


@pytest.mark.parametrize("refuse", [False, True])
def test_registration_merges_pages_and_falls_back(fake_cupy, monkeypatch, refuse):
    monkeypatch.setattr(_transfer, "rates", lambda: FREE_REGISTRATION)
    fake_cupy.refuse = refuse
    a = _one_block(9, 3, 5, 1)
    b = ddblas.DDArray(a.hi.copy(), a.lo.copy()).transpose(0, 2, 1)  # strided: staged
    c0 = random_stack(9, 3, 3, 3, "cpu")
    ref = ddblas.rgemm_batched(a, b, c0.copy(), beta="0.5")
    c, info = c0.copy(), {}
    _host_pipeline("rgemm_batched", a, b, c, beta="0.5", chunk=4, info=info)
    assert same_bits(c, ref) and info["transfer"]["registered"] == (not refuse)
    assert fake_cupy.calls >= 1 and not fake_cupy.live  # registered once, all undone


def test_registration_of_one_array_twice(fake_cupy, monkeypatch):
    """a as both operands (and hi, lo sharing pages): each page is registered once."""
    monkeypatch.setattr(_transfer, "rates", lambda: FREE_REGISTRATION)
    a = _one_block(6, 4, 4, 1)
    ref = ddblas.rgemm_batched(a, a)
    c, info = ddblas.DDArray(np.empty((6, 4, 4)), np.empty((6, 4, 4))), {}
    _host_pipeline("rgemm_batched", a, a, c, chunk=2, info=info)
    assert same_bits(c, ref) and info["transfer"]["registered"] and not fake_cupy.live


# ---- on the GPU ----


def _host_copy(x):
    return ddblas.DDArray(x.hi.copy(), x.lo.copy())


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("chunk", [1, 7, 64, 1000, None])
@pytest.mark.parametrize("trans", ["NN", "TN", "NT", "TT"])
@pytest.mark.parametrize("algorithm", ["blocked", "tiled", "naive", "auto"])
def test_gpu_rgemm_equals_device_call(chunk, trans, algorithm):
    m, n, k = 200, 70, 90
    a = random_matrix(*((k, m) if trans[0] == "T" else (m, k)), 1, "cpu")
    b = random_matrix(*((n, k) if trans[1] == "T" else (k, n)), 2, "cpu")
    a_before, b_before = _host_copy(a), _host_copy(b)
    kw = dict(transa=trans[0], transb=trans[1], algorithm=algorithm)
    ref = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), **kw)
    info = {}
    c = ddblas.rgemm(a, b, device="gpu", chunk=chunk, info=info, **kw)
    assert c.device == "cpu" and same_bits(c, ref)
    assert same_bits(a, a_before) and same_bits(b, b_before)
    assert info["transfer"]["chunks"] == -(-m // info["transfer"]["chunk"])
    assert info["algorithm"] == ("blocked" if algorithm == "auto" else algorithm)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("chunk", [1, 3, 64, None])
@pytest.mark.parametrize("beta", ["0.5", 0])
def test_gpu_rgemm_views_and_c(chunk, beta):
    big_a, b = random_matrix(300, 200, 1, "cpu"), random_matrix(50, 70, 2, "cpu")
    a = big_a[::3, 10:60:1]                      # 100 x 50, strided rows
    c_big = random_matrix(200, 140, 3, "cpu")
    c = c_big[::2, ::2]                          # a strided output view
    c0 = _host_copy(c)
    ref = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), c0.to_device("gpu"),
                       alpha="-0.25", beta=beta, algorithm="blocked")
    untouched = _host_copy(c_big[1::2])
    out = ddblas.rgemm(a, b, c, alpha="-0.25", beta=beta, algorithm="blocked", device="gpu",
                       chunk=chunk)
    assert out is c and same_bits(c, ref) and same_bits(c_big[1::2], untouched)


@pytest.mark.gpu
@requires_gpu
def test_gpu_rgemm_ozaki_within_bound():
    """ozaki-fp64 plans per chunk: not the device call's bits, its bound."""
    a, b = random_matrix(300, 120, 1, "cpu"), random_matrix(120, 80, 2, "cpu")
    classic = ddblas.rgemm(a, b, algorithm="blocked")
    info = {}
    c = ddblas.rgemm(a, b, algorithm="ozaki-fp64", device="gpu", chunk=128, info=info)
    assert info["algorithm"] == "ozaki-fp64" and info["transfer"]["chunks"] == 3
    err = np.abs((c - classic).to_float64())
    scale = ddblas.rgemm(ddblas.abs(a), ddblas.abs(b)).to_float64()
    assert float((err / scale).max()) <= 2 * 120 * 2.0 ** -104


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("chunk", [1, 4, 1000, None])
@pytest.mark.parametrize("shapes", [(50, 50), (None, 50), (50, 1), (1, 1), (0, 0)],
                         ids=["both", "a-2d", "b-batch-1", "batch-1", "batch-0"])
@pytest.mark.parametrize("trans", ["NN", "TT"])
def test_gpu_batched_equals_device_call(chunk, shapes, trans):
    m, n, k = 19, 9, 32
    a = random_matrix(*((k, m) if trans[0] == "T" else (m, k)), 1, "cpu") if shapes[0] is None \
        else random_stack(shapes[0], *((k, m) if trans[0] == "T" else (m, k)), 1, "cpu")
    b = random_stack(shapes[1], *((n, k) if trans[1] == "T" else (k, n)), 2, "cpu")
    kw = dict(transa=trans[0], transb=trans[1])
    before = _host_copy(a), _host_copy(b)
    ref = ddblas.rgemm_batched(a.to_device("gpu"), b.to_device("gpu"), **kw)
    c = ddblas.rgemm_batched(a, b, device="gpu", chunk=chunk, **kw)
    assert c.device == "cpu" and same_bits(c, ref)
    assert same_bits(a, before[0]) and same_bits(b, before[1])
    c0 = random_stack(c.shape[0], m, n, 3, "cpu")
    ref = ddblas.rgemm_batched(a.to_device("gpu"), b.to_device("gpu"), c0.to_device("gpu"),
                               beta="1.5", **kw)
    out = c0.copy()
    ddblas.rgemm_batched(a, b, out, beta="1.5", device="gpu", chunk=chunk, **kw)
    assert same_bits(out, ref)


def _force_registration(monkeypatch):
    measured = _transfer.rates()
    monkeypatch.setattr(_transfer, "rates", lambda: dataclasses.replace(measured, register=1e18))


def _unregistered(*arrays):
    """None of arrays' pages is still registered: registering them again works."""
    again = _transfer._register(list(arrays))
    if again is not None:
        _transfer._unregister(again)
    return again is not None


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("chunk", [1, 7, 1000, None])
@pytest.mark.parametrize("beta", [0, "1.5"])
def test_gpu_batched_registered_equals_device_call(monkeypatch, chunk, beta):
    _force_registration(monkeypatch)
    a, b = random_stack(300, 19, 32, 1, "cpu"), random_stack(300, 32, 9, 2, "cpu")
    c0 = random_stack(300, 19, 9, 3, "cpu")
    before = _host_copy(a), _host_copy(b)
    ref = ddblas.rgemm_batched(a.to_device("gpu"), b.to_device("gpu"), c0.to_device("gpu"),
                               alpha="0.75", beta=beta)
    c, info = c0.copy(), {}
    ddblas.rgemm_batched(a, b, c, alpha="0.75", beta=beta, device="gpu", chunk=chunk, info=info)
    assert info["transfer"]["registered"] and same_bits(c, ref)
    assert same_bits(a, before[0]) and same_bits(b, before[1])
    assert _unregistered(a.hi, a.lo, b.hi, b.lo, c.hi, c.lo)
    fresh = ddblas.rgemm_batched(a, b, device="gpu", chunk=chunk)  # C allocated by the call
    assert same_bits(fresh, ddblas.rgemm_batched(a.to_device("gpu"), b.to_device("gpu")))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("trans", ["NN", "TN"])
def test_gpu_rgemm_registered_equals_device_call(monkeypatch, trans):
    _force_registration(monkeypatch)
    a = random_matrix(*((90, 200) if trans[0] == "T" else (200, 90)), 1, "cpu")
    b, c0 = random_matrix(90, 70, 2, "cpu"), random_matrix(200, 70, 3, "cpu")
    before = _host_copy(a)
    kw = dict(transa=trans[0], algorithm="blocked", alpha="-0.25", beta="0.5")
    ref = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), c0.to_device("gpu"), **kw)
    c, info = c0.copy(), {}
    ddblas.rgemm(a, b, c, device="gpu", chunk=64, info=info, **kw)
    # op(A) = A.T is strided (staged); C is registered in both cases
    assert info["transfer"]["registered"] and same_bits(c, ref) and same_bits(a, before)
    assert _unregistered(a.hi, a.lo, c.hi, c.lo)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("case", ["strided", "already-pinned"])
def test_gpu_batched_falls_back_to_staging(monkeypatch, case):
    """Nothing C-contiguous to register, or CUDA refusing: staged, the same bits."""
    _force_registration(monkeypatch)
    b = random_stack(200, 9, 32, 2, "cpu").transpose(0, 2, 1)  # strided: always staged
    if case == "strided":
        a, c = random_stack(400, 19, 32, 1, "cpu")[::2], random_stack(200, 19, 18, 3, "cpu")[:, :, ::2]
    else:
        a, c = random_stack(200, 19, 32, 1, "cpu"), random_stack(200, 19, 9, 3, "cpu")
    before, c0 = (_host_copy(a), _host_copy(b)), _host_copy(c)
    ref = ddblas.rgemm_batched(a.to_device("gpu"), b.to_device("gpu"), c0.to_device("gpu"),
                               beta="-1")
    pinned = _transfer._register([a.hi]) if case == "already-pinned" else None
    try:
        info = {}
        ddblas.rgemm_batched(a, b, c, beta="-1", device="gpu", chunk=64, info=info)
    finally:
        _transfer._unregister(pinned or [])
    assert not info["transfer"]["registered"] and same_bits(c, ref)
    assert same_bits(a, before[0]) and same_bits(b, before[1])
    assert _unregistered(a.hi, a.lo, c.hi, c.lo)
