"""rgemm(algorithm="tsm"): the plan's model, the pieces' order (checked against its definition in
gemm.h with ddblas's own elementwise operations), the error bound against exact rationals, auto's
choice; on the GPU, bitwise equality with the CPU over widths, layouts, pieces and edges."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ddblas
from conftest import requires_gpu
from ddblas.engines import cpu as _cpu
from ddblas.blas import tsm as _tsm
from ddvalues import TRANS, check_gemm_bound, exact_values, random_matrix, same_bits


@pytest.fixture
def many_pieces(monkeypatch):
    """Pieces of K as short as one element, as many as there are: small products get split."""
    monkeypatch.setattr(_tsm, "MIN_PIECE", 1)
    monkeypatch.setattr(_tsm, "PIECE_ALIGN", 1)
    monkeypatch.setattr(_tsm, "TARGET_BLOCKS", 10 ** 6)
    monkeypatch.setattr(_tsm, "WORKSPACE_SHARE", Fraction(1, 10 ** 6))


def _operands(m, n, k, transa, transb, seed, device):
    a = random_matrix(*((m, k) if transa == "N" else (k, m)), seed, device)
    b = random_matrix(*((k, n) if transb == "N" else (n, k)), seed + 1, device)
    return a, b


@pytest.mark.parametrize("n, width, groups", [(1, 1, 1), (2, 2, 1), (3, 4, 1), (5, 8, 1),
                                              (16, 16, 1), (24, 8, 3), (32, 16, 2)])
def test_plan_takes_the_cheapest_width(n, width, groups):
    p = _tsm.plan(8192, n, 8192, "fma_accurate")
    assert (p.width, p.groups, p.transposed) == (width, groups, False)
    cost = {w: -(-n // w) * _tsm.pass_seconds(8192, 8192, w, "fma_accurate")
            for w in _tsm.widths()}
    assert p.seconds == min(cost.values())


def test_plan_pieces_and_transposition():
    p = _tsm.plan(8192, 4, 8192, "fma_sloppy")
    row_blocks = 8192 // _tsm.shape(p.width)["BM"]
    wanted = -(-_tsm.TARGET_BLOCKS // (row_blocks * p.groups))
    assert p.pieces == min(wanted, 8192 // _tsm.MIN_PIECE, 8192 // (_tsm.WORKSPACE_SHARE * 4))
    assert p.piece_len % _tsm.PIECE_ALIGN == 0 and p.piece_len >= _tsm.MIN_PIECE
    assert (p.pieces - 1) * p.piece_len < 8192 <= p.pieces * p.piece_len
    q = _tsm.plan(4, 8192, 8192, "fma_sloppy")
    assert q.transposed and q.describe() == {**p.describe(), "transposed": True}
    assert _tsm.plan(8192, 4, 100, "fma_sloppy").pieces == 1      # K < 2 MIN_PIECE: one piece
    assert _tsm.plan(8192, 16, 1000, "fma_sloppy").pieces == 1    # partial sums: too much traffic
    assert _tsm.plan(2 * 10 ** 6, 16, 10 ** 6, "fma_sloppy").pieces == 1  # rows fill the GPU
    with pytest.raises(ValueError, match="rows exceed"):
        _tsm.plan(_cpu.geometry()["grid_yz_limit"] * _tsm.shape(2)["BM"] + 1, 2, 8, "fma_sloppy")


def test_auto_takes_tsm_for_tall_and_skinny_only():
    info = {}
    ddblas.rgemm(ddblas.ones((2048, 512)), ddblas.ones((512, 3)), info=info)
    assert info["algorithm"] == "tsm" and info["tsm"]["width"] == 4
    assert "tall-and-skinny" in info["auto"]
    ddblas.rgemm(ddblas.ones((3, 512)), ddblas.ones((512, 2048)), info=info)
    assert info["algorithm"] == "tsm" and info["tsm"]["transposed"]
    for shape in ((64, 64, 64), (40, 600, 600), (20, 30, 40)):  # wide C, or a small product
        m, n, k = shape
        ddblas.rgemm(ddblas.ones((m, k)), ddblas.ones((k, n)), info=info)
        assert info["algorithm"] == "cpu", shape


def _by_definition(a, b, alpha, beta, c0, transa, transb, piece_len, variant):
    """gemm.h's tall-and-skinny order spelled out with ddblas's elementwise operations: each
    piece by the naive kernel (gemm_dot from (0, 0); C^T = op(B)^T op(A)^T when C has fewer rows
    than columns), the pieces added left to right, then gemm_epilogue (alpha acc unless
    alpha = 1, plus beta C0 unless beta = 0)."""
    op_a = a.T if transa != "N" else a
    op_b = b.T if transb != "N" else b
    (m, k), n = op_a.shape, op_b.shape[1]
    acc = None
    for k0 in range(0, k, piece_len):
        pa, pb = op_a[:, k0:k0 + piece_len], op_b[k0:k0 + piece_len]
        part = (ddblas.rgemm(pb.T, pa.T, algorithm="naive", **variant).T if m < n else
                ddblas.rgemm(pa, pb, algorithm="naive", **variant))
        acc = part if acc is None else ddblas.add(acc, part, **variant)
    if Fraction(alpha) != 1:
        acc = ddblas.multiply(ddblas.array(alpha, device=a.device), acc, **variant)
    if Fraction(beta) != 0:
        acc = ddblas.add(acc, ddblas.multiply(ddblas.array(beta, device=a.device), c0, **variant),
                         **variant)
    return acc


@pytest.mark.parametrize("shape", [(37, 3, 29), (3, 37, 29), (130, 1, 17), (9, 16, 40),
                                   (20, 33, 12)])
@pytest.mark.parametrize("trans", TRANS)
def test_pieces_follow_their_definition(device, variant, many_pieces, shape, trans):
    m, n, k = shape
    a, b = _operands(m, n, k, *trans, 3, device)
    c0 = random_matrix(m, n, 7, device)
    for alpha, beta in ((1, 0), ("0.75", -2)):
        info = {}
        c = ddblas.rgemm(a, b, c0.copy(), alpha=alpha, beta=beta, transa=trans[0],
                         transb=trans[1], algorithm="tsm", info=info, **variant)
        assert info["tsm"]["pieces"] == k and info["tsm"]["piece_len"] == 1
        expected = _by_definition(a, b, alpha, beta, c0, *trans, 1, variant)
        assert same_bits(c, expected), (alpha, beta)


def test_one_piece_is_the_classic_order(device, variant):
    a, b = _operands(300, 7, 200, "N", "T", 5, device)
    info = {}
    c = ddblas.rgemm(a, b, transb="T", algorithm="tsm", info=info, **variant)
    assert info["tsm"]["pieces"] == 1
    assert same_bits(c, ddblas.rgemm(a, b, transb="T", algorithm="naive", **variant))


@given(st.integers(1, 6), st.integers(1, 5), st.integers(1, 40), st.sampled_from(TRANS),
       st.sampled_from([(1, 0), ("0.75", 0), (-3, "1.5")]), st.integers(1, 7),
       st.integers(0, 10 ** 6))
def test_tsm_within_bound(variant, m, n, k, trans, scalars, piece_len, seed):
    """Pieces of any length (forced through the plan's constants) keep the classic bound."""
    transa, transb = trans
    alpha, beta = scalars
    a, b = _operands(m, n, k, transa, transb, seed, "cpu")
    c0 = random_matrix(m, n, seed + 2, "cpu") if beta != 0 else None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_tsm, "MIN_PIECE", 1)
        patch.setattr(_tsm, "PIECE_ALIGN", piece_len)
        patch.setattr(_tsm, "TARGET_BLOCKS", 10 ** 6)
        patch.setattr(_tsm, "WORKSPACE_SHARE", Fraction(1, 10 ** 6))
        c = ddblas.rgemm(a, b, None if c0 is None else c0.copy(), alpha=alpha, beta=beta,
                         transa=transa, transb=transb, algorithm="tsm", **variant)
    check_gemm_bound(c, a, b, Fraction(alpha), Fraction(beta), c0, transa, transb, **variant)


def test_views_special_values_and_aliasing(device, many_pieces):
    big = random_matrix(40, 30, 4, device)
    a, b = big[1:37:2, ::3], big[::2, 1:4][:10]      # 18 x 10 and 10 x 3, strided
    ref = ddblas.rgemm(a.copy(), b.copy(), algorithm="tsm")
    target = ddblas.zeros((18, 8), device=device)
    ddblas.rgemm(a, b, target[:, 2:8:2], algorithm="tsm")
    assert exact_values(target[:, 2:8:2]) == exact_values(ref)
    assert exact_values(target[:, 1::2]) == [0] * 72
    poisoned = a.copy()
    poisoned[4, 9] = "nan"
    c = ddblas.rgemm(poisoned, b, algorithm="tsm").to_device("cpu")
    assert np.isnan(c.hi[4]).all() and np.isfinite(np.delete(c.hi, 4, axis=0)).all()
    x = random_matrix(12, 12, 6, device)[:, :3]
    sq = random_matrix(12, 12, 8, device)
    expected = exact_values(ddblas.rgemm(sq, x.copy(), algorithm="tsm"))
    ddblas.rgemm(sq, x, x, algorithm="tsm")             # c aliases b: b is copied first
    assert exact_values(x) == expected


# ---- GPU: bitwise equality with the CPU ----
GPU_SHAPES = [(1, 1, 1), (1000, 1, 700), (257, 2, 33), (129, 3, 1000), (300, 5, 4099),
              (4, 300, 900), (2100, 9, 513), (999, 16, 2000), (700, 17, 300), (513, 32, 1200),
              (32, 32, 5000)]


@requires_gpu
@pytest.mark.gpu
@pytest.mark.parametrize("shape", GPU_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_gpu_equals_cpu_bitwise(shape):
    m, n, k = shape
    for t, (transa, transb) in enumerate(TRANS):
        a, b = _operands(m, n, k, transa, transb, 10 + t, "cpu")
        c0 = random_matrix(m, n, 30 + t, "cpu")
        ga, gb = a.to_device("gpu"), b.to_device("gpu")
        for fma in (True, False):
            for add in ("accurate", "sloppy"):
                kw = dict(transa=transa, transb=transb, fma=fma, add=add, algorithm="tsm")
                for alpha, beta in ((1, 0), ("0.7", -2)):
                    info_cpu, info_gpu = {}, {}
                    ref = ddblas.rgemm(a, b, c0.copy(), alpha=alpha, beta=beta, info=info_cpu,
                                       **kw)
                    got = ddblas.rgemm(ga, gb, c0.to_device("gpu"), alpha=alpha, beta=beta,
                                       info=info_gpu, **kw)
                    assert info_cpu == info_gpu
                    assert same_bits(ref, got), (transa, transb, fma, add, alpha, info_gpu)


@requires_gpu
@pytest.mark.gpu
def test_gpu_pieces_and_auto(many_pieces):
    """Many short pieces (grid z up to K) and auto's pick agree with the CPU bit for bit."""
    a, b = _operands(200, 6, 300, "T", "N", 40, "cpu")
    ref = ddblas.rgemm(a, b, transa="T", algorithm="tsm")
    got = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), transa="T", algorithm="tsm")
    assert same_bits(ref, got)
    a, b = _operands(4096, 4, 600, "N", "N", 41, "cpu")
    info = {}
    got = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), info=info)
    assert info["algorithm"] == "tsm" and same_bits(ddblas.rgemm(a, b), got)


@requires_gpu
@pytest.mark.gpu
def test_gpu_without_room_for_deep_tiles(monkeypatch):
    """A device whose blocks cannot have the row-major layout's 66-74 KB of tiles (sm_75: 64 KB)
    gets op(A) copied column-major: the same sums, bit for bit."""
    from ddblas.engines import gpu as _gpu
    monkeypatch.setattr(_gpu, "max_shared_bytes", lambda: _cpu.geometry()["static_shared_bytes"])
    for n in (1, 3, 16):
        a, b = _operands(300, n, 700, "N", "N", 50 + n, "cpu")
        got = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), algorithm="tsm")
        assert same_bits(ddblas.rgemm(a, b, algorithm="tsm"), got)
