"""GPU only: every elementwise op, EFT and reduction gives the CPU's result bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

import ddblas
from ddblas import eft
from conftest import requires_gpu
from ddvalues import same_bits

pytestmark = [pytest.mark.gpu, requires_gpu]
VARIANTS = [dict(fma=f, add=a) for f in (True, False) for a in ("accurate", "sloppy")]


def _inputs(seed, n=20000):
    """Random DD values over many exponents and signs, with special values mixed in."""
    rng = np.random.default_rng(seed)
    x = ddblas.random((n,), seed=seed) - 0.5
    scale = ddblas.array(np.ldexp(1.0, rng.integers(-300, 300, n)))
    x = x * scale
    x[:6] = ddblas.array(["inf", "-inf", "nan", 0, "-0.0", "1e308"])
    return x


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v['fma']}-{v['add']}")
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide"])
def test_binary_ops_bitwise_equal(op, variant):
    a, b = _inputs(1), _inputs(2)
    f = getattr(ddblas, op)
    assert same_bits(f(a, b, **variant), f(a.to_device("gpu"), b.to_device("gpu"), **variant))
    assert same_bits(f(a, b[7], **variant), f(a.to_device("gpu"), b[7].to_device("gpu"), **variant))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v['fma']}-{v['add']}")
def test_unary_ops_and_reductions_bitwise_equal(variant):
    a = _inputs(3)
    g = a.to_device("gpu")
    assert same_bits(ddblas.sqrt(a, **variant), ddblas.sqrt(g, **variant))
    finite = _inputs(4)[6:]
    fg = finite.to_device("gpu")
    assert same_bits(ddblas.sum(finite, **variant), ddblas.sum(fg, **variant))
    m = finite[:19000].reshape(190, 100)
    assert same_bits(ddblas.sum(m, axis=0, **variant), ddblas.sum(m.to_device("gpu"), axis=0, **variant))
    assert same_bits(ddblas.dot(finite, finite[::-1], **variant),
               ddblas.dot(fg, fg[::-1], **variant))


def test_exact_ops_and_comparisons_equal():
    a, b = _inputs(5), _inputs(6)
    b[100:200] = a[100:200]
    ga, gb = a.to_device("gpu"), b.to_device("gpu")
    assert same_bits(-a, -ga)
    assert same_bits(abs(a), abs(ga))
    for op in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        assert np.array_equal(getattr(ddblas, op)(a, b), getattr(ddblas, op)(ga, gb).get())


def test_eft_bitwise_equal():
    import cupy
    rng = np.random.default_rng(7)
    x = rng.standard_normal(10000) * np.ldexp(1.0, rng.integers(-500, 500, 10000))
    y = rng.standard_normal(10000) * np.ldexp(1.0, rng.integers(-500, 500, 10000))
    gx, gy = cupy.asarray(x), cupy.asarray(y)
    for cpu, gpu in [(eft.two_sum(x, y), eft.two_sum(gx, gy)), (eft.split(x), eft.split(gx)),
                     (eft.two_prod(x, y), eft.two_prod(gx, gy)),
                     (eft.two_prod(x, y, fma=False), eft.two_prod(gx, gy, fma=False))]:
        for c, g in zip(cpu, gpu):
            assert np.array_equal(c.view(np.int64), g.get().view(np.int64))


def test_random_and_conversions_agree():
    c, g = ddblas.random((1000,), seed=9), ddblas.random((1000,), seed=9, device="gpu")
    assert same_bits(c, g)
    assert g.device == "gpu" and g.to_device("cpu").device == "cpu"
    assert repr(g[0]).endswith("device='gpu')")


def test_mixed_devices_say_how_to_move():
    with pytest.raises(ValueError, match="to_device"):
        ddblas.ones(3) + ddblas.ones(3, device="gpu")
    with pytest.raises(ValueError, match="to_device"):
        ddblas.ones(3, device="gpu") * np.ones(3)


def test_gpu_cache_file_is_written(tmp_path, monkeypatch):
    """The first elementwise operation builds the elementwise family only: its cubin and checksum
    (and the lock file of the build)."""
    from ddblas.engines import gpu as _gpu
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path))
    _gpu.module.cache_clear()
    try:
        ddblas.ones(3, device="gpu") + 1
        names = sorted(p.name for p in tmp_path.iterdir())
        assert len(names) == 3 and names[0].startswith("ddblas_gpu_elementwise_"), names
        assert [n[len(names[0]):] for n in names] == ["", ".lock", ".sha256"]
    finally:
        _gpu.module.cache_clear()
