"""rgemm(algorithm="ozaki-fp64"): exact slicing (Fractions), the classic bound against exact
rationals on ill-scaled, zero, chunked and cancelling inputs, the fallbacks, and on the GPU
bitwise equality with the CPU."""
from __future__ import annotations

from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ddblas
from conftest import requires_gpu
from ddblas import accuracy
from ddblas.engines import backend as _backend
from ddblas.blas import ozaki as _ozaki
from ddvalues import (TRANS, check_blas_semantics, check_gemm_bound, check_gpu_equals_cpu, dd_value,
                      exact_values, ozaki_pieces, ozaki_within_bound, random_matrix, same_bits,
                      scaled_matrix, scaled_within_bound, to_ddarray)

OZAKI = "ozaki-fp64"


def _digits(x: ddblas.DDArray, per_row: bool, slices: int, beta: int):
    """(digits (S, R, C) as a NumPy array, exponents) from the slice kernel."""
    exps = _ozaki._line_stats(x.xp, x.hi, 1 if per_row else 0)[0]
    plan = _ozaki.Plan(slices=slices, beta=beta)
    out = _ozaki._slices(_backend.backend(x.device), x, exps, per_row, plan)
    return np.asarray(x.xp.asnumpy(out) if x.device == "gpu" else out), \
        np.asarray(exps.get() if x.device == "gpu" else exps)


def _check_slicing(x: ddblas.DDArray, per_row: bool, beta: int):
    """Digits are integers below 2^beta; after any S slices the remainder x - sum_t d_t
    2^(e - beta t) has x's sign and is below 2^(e - beta S); with enough slices it is 0."""
    exact = np.array(exact_values(x), dtype=object).reshape(x.shape)
    full = -(-(2200 + 110) // beta)          # covers every bit from 2^1024 down to 2^-1074
    for slices in (1, 3, full):
        digits, exps = _digits(x, per_row, slices, beta)
        assert np.all(digits == np.trunc(digits)) and np.all(np.abs(digits) < 2.0 ** beta)
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                e = int(exps[i] if per_row else exps[j])
                v = exact[i, j]
                assert abs(v) < Fraction(2) ** e
                rest = v - sum(Fraction(float(digits[t - 1, i, j])) * Fraction(2) ** (e - beta * t)
                               for t in range(1, slices + 1))
                assert rest == 0 or (rest > 0) == (v > 0)
                assert abs(rest) < Fraction(2) ** (e - beta * slices)
                if slices == full:
                    assert rest == 0


@given(st.lists(dd_value(-1000, 1000), min_size=1, max_size=6), st.integers(1, 3),
       st.integers(14, 26), st.booleans())
def test_slicing_is_exact_and_truncates(device, values, rows, beta, per_row):
    row = to_ddarray(values, "cpu").reshape(1, -1)
    x = ddblas.DDArray(np.repeat(row.hi, rows, 0), np.repeat(row.lo, rows, 0))
    _check_slicing((x if per_row else x.T).to_device(device), per_row, beta)


def test_slicing_tails_of_the_opposite_sign(device):
    """hi a multiple of the slice unit and lo of the other sign: the digit is one less than
    hi's, so the remainder keeps x's sign (and subnormal entries slice exactly)."""
    hi = np.array([[1.0, -1.0, 0.75, 2.0 ** -30, -(2.0 ** -40), 5e-324, 2.0 ** -1070]])
    lo = np.array([[-(2.0 ** -70), 2.0 ** -70, -(2.0 ** -80), 2.0 ** -90, -(2.0 ** -100), 0, 0]])
    x = ddblas.DDArray(hi, lo).to_device(device)
    for beta in (20, 26):
        _check_slicing(x, True, beta)
        _check_slicing(x.T, False, beta)
    digits, _ = _digits(x, True, 1, 20)
    assert digits[0, 0, 0] == 2 ** 19 - 1 and digits[0, 0, 1] == -(2 ** 19 - 1)


def test_slice_bits_make_every_product_exact():
    for k in (1, 2, 3, 4, 5, 100, 1024, 1025, 8192, 10 ** 6):
        beta = _ozaki.slice_bits(k)
        assert k * (2 ** beta - 1) ** 2 <= 2 ** 53 < k * (2 ** (beta + 1) - 1) ** 2
    assert _ozaki.slice_bits(1) == 26 and _ozaki.slice_bits(8192) == 20


def _exact_scaled_products(a: ddblas.DDArray, b: ddblas.DDArray, row_exp, col_exp):
    """(M, P) as Fraction matrices: M = |A||B| scaled by 2^-(e_i + f_j), P = |A_1||B_1| of the
    first 7-bit digits trunc(x 2^(7 - e)), both exact."""
    ea = np.array(exact_values(a), dtype=object).reshape(a.shape)
    eb = np.array(exact_values(b), dtype=object).reshape(b.shape)
    sa = np.array([[abs(ea[i, k]) / Fraction(2) ** int(row_exp[i]) for k in range(a.shape[1])]
                   for i in range(a.shape[0])], dtype=object)
    sb = np.array([[abs(eb[k, j]) / Fraction(2) ** int(col_exp[j]) for j in range(b.shape[1])]
                   for k in range(b.shape[0])], dtype=object)
    digit = np.vectorize(lambda v: int(v * 128), otypes=[object])
    return sa.dot(sb), digit(sa).dot(digit(sb))


@pytest.mark.parametrize("line_bytes", [None, 1])
@pytest.mark.parametrize("zero_rows", [(), (1,), (4,)])
def test_scan_bound_from_first_digits_is_exact(device, zero_rows, line_bytes):
    """On dense data the lower bound is 2^-14 min P of the first int8 digits, exactly, and below
    every nonzero scaled (|A||B|)_ij; a zero row of A changes nothing (its entries are 0). The
    same with P formed a row at a time (LINE_BYTES forced small)."""
    a = scaled_matrix(5, 9, 71, 3, 30, 0, zero_rows, ()).to_device(device)
    b = scaled_matrix(9, 6, 72, 3, 0, 30, (), ()).to_device(device)
    with mock.patch.object(_ozaki, "LINE_BYTES", line_bytes or _ozaki.LINE_BYTES):
        sc = _ozaki.scan(a, b)
    assert sc.bound == "int8 first digits" and sc.fallback is None
    row_exp, col_exp = (np.asarray(x.get() if device == "gpu" else x)
                        for x in (sc.row_exp, sc.col_exp))
    m, p = _exact_scaled_products(a.to_device("cpu"), b.to_device("cpu"), row_exp, col_exp)
    live = [(i, j) for i in range(5) for j in range(6) if i not in zero_rows]
    assert sc.low == Fraction(min(p[i, j] for i, j in live), 2 ** 14)
    assert all(0 < sc.low <= m[i, j] for i, j in live)


def test_line_stats_in_blocks_equal_one_piece(device):
    """The scan's per-line statistics over blocks of one line (LINE_BYTES forced small) equal
    those in one piece, with zero, subnormal, inf and nan lines, along both axes."""
    x = random_matrix(9, 7, 3, device, 40)
    x[2] = 0
    x[4, 3], x[5, 1], x[6, 6] = float("inf"), float("nan"), 5e-324
    for axis in (0, 1):
        whole = _ozaki._line_stats(x.xp, x.hi, axis)
        with mock.patch.object(_ozaki, "LINE_BYTES", 1):
            lines = _ozaki._line_stats(x.xp, x.hi, axis)
        for w, l in zip(whole, lines):
            assert np.array_equal(x.xp.asnumpy(w) if device == "gpu" else w,
                                  x.xp.asnumpy(l) if device == "gpu" else l, equal_nan=True)


@pytest.mark.parametrize("line_bytes", [None, 1])
def test_scan_falls_back_to_the_float64_bound(device, line_bytes):
    """Where a first-digit product is 0 but (|A||B|)_ij is not, or K exceeds one int8 GEMM, the
    bound comes from the float64 GEMM, M >= fl(M)(1 - (K+2) u); the same with both GEMMs
    formed a row at a time (LINE_BYTES forced small), the zero digit product in either row."""
    for rows in ([[1.0, 2.0 ** -10], [1.0, 0.5]], [[1.0, 0.5], [1.0, 2.0 ** -10]]):
        a = ddblas.array(rows, device=device)
        b = ddblas.array([[0.0, 1.0], [1.0, 1.0]], device=device)  # a[i] . b[:, 0]: digits 0
        with mock.patch.object(_ozaki, "LINE_BYTES", line_bytes or _ozaki.LINE_BYTES):
            sc = _ozaki.scan(a, b)
        assert sc.bound == "float64"
        assert sc.low == Fraction(2.0 ** -12) * (1 - 4 * _ozaki._U)  # 2^-11 * 2^-1 scaled
    a, b = random_matrix(3, 40, 73, device), random_matrix(40, 2, 74, device)
    assert _ozaki.scan(a, b).bound == "int8 first digits"
    with mock.patch.object(_ozaki, "INT8_CHUNK", 32):
        assert _ozaki.scan(a, b).bound == "float64"
    for algorithm in (OZAKI, "ozaki-int8"):
        info = {}
        ddblas.rgemm(a, b, algorithm=algorithm, info=info)
        assert info["bound"] == "int8 first digits" and info["algorithm"] == algorithm


def test_scan_of_a_zero_operand_forms_no_product(device):
    """A zero op(A) or op(B): every (|A||B|)_ij is 0, no GEMM is formed (a 2^21 x 2^21 product
    of K = 1 needed 16 TiB for the first digits' product), and the Ozaki schemes give beta C."""
    big = ddblas.zeros((1 << 21, 1), device=device)
    sc = _ozaki.scan(big, ddblas.ones((1, 1 << 21), device=device))
    assert (sc.bound, sc.low, sc.fallback) == ("a zero operand", None, None)
    a, b = random_matrix(4, 3, 75, device), ddblas.zeros((3, 5), device=device)
    c0 = random_matrix(4, 5, 76, device)
    for algorithm in (OZAKI, "ozaki-int8"):
        info = {}
        c = ddblas.rgemm(a, b, c=c0.copy(), alpha=1.0, beta=0.5, algorithm=algorithm, info=info)
        assert info["bound"] == "a zero operand" and info["algorithm"] == algorithm
        expected = c0 * 0.5
        assert (c.hi == expected.hi).all() and (c.lo == expected.lo).all()


def test_a_non_finite_low_part_falls_back(device):
    """Review of 2026-11-26: the scan looked at the hi parts alone, so a pair wrapped with
    normalize=False with a NaN or inf lo was sliced as a number and every Ozaki scheme gave a
    finite product (4098 for (1, nan) . (1, 1)), also through the zero-operand shortcut; the
    classic kernel gives nan. They now fall back to it."""
    for bad in (np.nan, np.inf):
        lo = np.array([[bad, 0.0]])
        a = ddblas.DDArray(np.ones((1, 2)), lo, normalize=False).to_device(device)
        zero = ddblas.DDArray(np.zeros((1, 2)), lo, normalize=False).to_device(device)
        b = ddblas.ones((2, 1), device=device)
        for x, y in ((a, b), (b.T, a.T), (zero, b)):
            classic = ddblas.rgemm(x, y, algorithm="naive")
            for algorithm in (OZAKI, "ozaki-int8", "ozaki2-int8"):
                info = {}
                c = ddblas.rgemm(x, y, algorithm=algorithm, info=info)
                assert info["fallback"] is not None and "non-finite" in info["fallback"]
                assert same_bits(c, classic)


@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 9), st.sampled_from(TRANS),
       st.sampled_from([(1, 0), ("0.75", 0), (-3, "1.5"), (1, 1)]), st.integers(0, 10 ** 6),
       st.sampled_from([0, 5, 40, 200]), st.sampled_from([0, 250]),
       st.sampled_from([None, 1, 2, 4]), st.sampled_from([None, 1, 2]),
       st.sets(st.integers(0, 8), max_size=2))
def test_within_the_classic_bound(variant, m, n, k, trans, scalars, seed, spread, outer,
                                  chunk_length, side, zeros):
    """Random DD matrices, entries spread over 2^+-spread within rows/columns, rows of op(A) and
    columns of op(B) scaled by up to 2^+-250, some of them zero, chunks of K down to 1, C in
    blocks down to 1 x 1: |C - exact| <= the classic bound, whether ozaki-fp64 ran or fell
    back."""
    info = scaled_within_bound(OZAKI, ozaki_pieces("CHUNK", chunk_length, side), variant, m, n,
                               k, trans, scalars, seed, spread, outer, zeros)
    assert info["fallback"] is not None or 2 <= info["slices"] <= _ozaki.MAX_SLICES


def test_ozaki_runs_and_chunks_on_plain_inputs(device, variant):
    a, b = random_matrix(7, 37, 1, device, 10), random_matrix(37, 5, 2, device, 10)
    with ozaki_pieces("CHUNK", 8):
        info = {}
        c = ddblas.rgemm(a, b, algorithm=OZAKI, info=info, **variant)
    assert info["algorithm"] == OZAKI and info["fallback"] is None
    assert info["chunk"] == 8 and info["chunks"] == 5 and info["beta"] == 25
    assert info["gemms"] == 1 + info["slices"] * (info["slices"] + 1) // 2 * 5
    assert set(info["seconds"]) == {"plan", "slice", "gemm", "accumulate"}
    check_gemm_bound(c, a, b, 1, 0, None, "N", "N", **variant)


@pytest.mark.parametrize("algorithm", ["ozaki-fp64", "ozaki-int8"])
def test_blocks_of_c_give_the_bits_of_one_piece(device, variant, algorithm):
    """C cut into blocks for the workspace bound (forced: sides of at most 5, uneven: 13 x 11 in
    3 x 3 blocks) gives the bits of one piece, also into a strided C."""
    a, b = random_matrix(13, 29, 1, device, 10), random_matrix(29, 11, 2, device, 10)
    info = {}
    whole = ddblas.rgemm(a, b, algorithm=algorithm, info=info, **variant)
    assert info["algorithm"] == algorithm
    with ozaki_pieces("CHUNK", side=5):
        blocks = ddblas.rgemm(a, b, algorithm=algorithm, **variant)
        strided = ddblas.zeros((26, 22), device=device)[::2, ::-2]
        ddblas.rgemm(a, b, strided, algorithm=algorithm, **variant)
    assert same_bits(whole, blocks) and same_bits(whole, strided)


def test_workspace_bound_picks_blocks():
    """The blocks that run() picks keep workspace_bytes within WORKSPACE_BYTES (N = 32768, the
    shape of a Dask task), none below MIN_BLOCK unless C is smaller; small C stays whole."""
    for engine, slices, k, m, n in (("fp64", 9, 32768, 32768, 32768),
                                    ("int8", 17, 65536, 8192, 8192)):
        kp = _ozaki.int8_padded(k)
        chunks = -(-k // _ozaki.CHUNK) if engine == "fp64" else -(-slices * kp //
                                                                  _ozaki.INT8_CHUNK)
        plan = _ozaki.Plan(slices=slices, chunks=chunks, engine=engine, k=k)
        whole = _ozaki.workspace_bytes(plan, m, n)
        rows, cols = _ozaki.block_shape(plan, m, n)
        assert _ozaki.workspace_bytes(plan, rows, cols) <= _ozaki.WORKSPACE_BYTES < whole
        assert min(rows, cols) >= _ozaki.MIN_BLOCK
    plan = _ozaki.Plan(slices=8, chunks=1, engine="fp64", k=1000)
    assert _ozaki.block_shape(plan, 300, 5000) == (300, 5000)


def test_k_equals_one(device, variant):
    a, b = random_matrix(4, 1, 3, device, 30), random_matrix(1, 6, 4, device, 30)
    info = {}
    c = ddblas.rgemm(a, b, algorithm=OZAKI, info=info, **variant)
    assert info["algorithm"] == OZAKI and info["beta"] == 26
    check_gemm_bound(c, a, b, 1, 0, None, "N", "N", **variant)


def test_hilbert(device, variant):
    h = accuracy.hilbert(24, device=device)
    ozaki_within_bound(h, h, variant)


def test_cancellation_heavy_dot_products(device, variant):
    """Ogita-Rump-Oishi dot products with condition numbers up to 1e30 as rows of A and columns
    of B, and rows x, -x plus a tiny tail: errors stay within the componentwise bound."""
    rows, cols = [], []
    for seed, cond in enumerate((1e5, 1e15, 1e30)):
        x, y = accuracy.ill_conditioned_dot(40, cond, seed=seed)
        rows.append(x)
        cols.append(y)
    a = ddblas.DDArray(np.stack([r.hi for r in rows]), np.stack([r.lo for r in rows]))
    b = ddblas.DDArray(np.stack([r.hi for r in cols], 1), np.stack([r.lo for r in cols], 1))
    x = random_matrix(1, 40, 5, "cpu", spread=30)
    cancel = ddblas.array(np.zeros((1, 40)))
    cancel[:, :20] = x[:, :20]
    cancel[:, 20:] = -x[:, :20]
    cancel[0, 39] = 2.0 ** -80
    a = ddblas.DDArray(np.vstack([a.hi, cancel.hi]), np.vstack([a.lo, cancel.lo]))
    ozaki_within_bound(a.to_device(device), b.to_device(device), variant)


@pytest.mark.parametrize("poison", ["inf", "-inf", "nan"])
def test_non_finite_inputs_fall_back_to_the_classic_kernel(device, variant, poison):
    a, b = random_matrix(3, 4, 11, device), random_matrix(4, 2, 12, device)
    a[1, 2] = poison
    b[0, 1] = "nan" if poison == "inf" else 1
    info = {}
    got = ddblas.rgemm(a, b, algorithm=OZAKI, info=info, **variant)
    assert "non-finite" in info["fallback"] and info["gemms"] == 0
    assert same_bits(got, ddblas.rgemm(a, b, algorithm="blocked", **variant))


def test_badly_scaled_rows_fall_back(device, variant):
    """A's first column 2^300 above the rest, B's first row 2^300 below: each (|A||B|)_ij is
    2^-300 of 2^(e_i + f_j), which needs more than MAX_SLICES slices; an entry 2^-460 below its
    row's largest exceeds the bound GEMM's range. Both run the classic kernel."""
    a, b = random_matrix(3, 8, 13, device, spread=5), random_matrix(8, 3, 14, device, spread=5)
    a[:, 0] = a[:, 0] * 2.0 ** 300
    b[0] = b[0] * 2.0 ** -300
    info = {}
    got = ddblas.rgemm(a, b, algorithm=OZAKI, info=info, **variant)
    assert "slices" in info["fallback"] and info["algorithm"] != OZAKI
    assert same_bits(got, ddblas.rgemm(a, b, algorithm="blocked", **variant))
    a[0, 1] = 2.0 ** -460
    info = {}
    got = ddblas.rgemm(a, b, algorithm=OZAKI, info=info, **variant)
    assert "2^450" in info["fallback"]
    assert same_bits(got, ddblas.rgemm(a, b, algorithm="blocked", **variant))
    # 2^-900 scaled by its row's 2^-901 underflows to 0 in the bound GEMM: still detected
    a = ddblas.array([[2.0 ** 900, 2.0 ** -900]], device=device)
    b = ddblas.array([[0.0], [1.0]], device=device)
    info = {}
    got = ddblas.rgemm(a, b, algorithm=OZAKI, info=info, **variant)
    assert "2^450" in info["fallback"] and exact_values(got) == [Fraction(2) ** -900]


def test_blas_semantics_and_views(device):
    check_blas_semantics(OZAKI, device)


def test_info_must_be_a_dict():
    with pytest.raises(TypeError, match="info"):
        ddblas.rgemm(ddblas.ones((2, 2)), ddblas.ones((2, 2)), algorithm=OZAKI, info=[])


# ---- GPU: bitwise equality with the CPU ----
@requires_gpu
@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 1, 1), (17, 33, 129), (64, 64, 300), (129, 31, 1000)],
                         ids=lambda s: "x".join(map(str, s)))
def test_gpu_equals_cpu_bitwise(shape):
    check_gpu_equals_cpu(shape, OZAKI, 20, "CHUNK", (_ozaki.CHUNK, 64, 7, 100))


def test_too_few_slices_break_the_bound(variant):
    """The checks have teeth: the same data with S = 3 forced (fewer than the rule picks) exceeds
    the classic bound, with the chosen S it does not."""
    a, b = random_matrix(4, 8, 31, "cpu", 40), random_matrix(8, 4, 32, "cpu", 40)
    info = {}
    c = ddblas.rgemm(a, b, algorithm=OZAKI, info=info, **variant)
    bound = accuracy.bound("gemm", ddblas.Options(**variant), 8)
    assert info["slices"] > 3 and accuracy.gemm_error(c, a, b).within(bound)
    with mock.patch.object(_ozaki, "slices_needed", lambda *args: 3):
        c = ddblas.rgemm(a, b, algorithm=OZAKI, **variant)
    assert not accuracy.gemm_error(c, a, b).within(bound)


# ---- accuracy="classic" (the default) against accuracy="bound" (docs/ozaki.md) ----

def _error(a, b, **kw) -> float:
    return accuracy.gemm_error(ddblas.rgemm(a, b, **kw), a, b).max


@pytest.mark.parametrize("algorithm", [OZAKI, "ozaki-int8"])
@pytest.mark.parametrize("k, spread", [(64, 0), (700, 0), (300, 12)])
def test_default_is_as_accurate_as_the_classic_kernel(device, algorithm, k, spread):
    """The default rule's measured error is at most twice the classic kernel's on the same data
    (issue 18's criterion), and within bound("ozaki", variant, S)."""
    a, b = (accuracy.random_dd(shape, exponents=(-spread, spread), seed=s, device=device)
            if spread else ddblas.random(shape, seed=s, device=device) * 2 - 1
            for shape, s in (((12, k), 1), ((k, 10), 2)))
    info = {}
    ozaki = _error(a, b, algorithm=algorithm, info=info)
    assert info["algorithm"] == algorithm
    assert ozaki <= 2 * _error(a, b, algorithm="blocked")
    assert ozaki <= accuracy.bound("ozaki", None, info["slices"])


def test_bound_rule_is_reachable_and_the_default_has_teeth():
    """At K = 4096 on uniform data accuracy="bound" picks fewer slices, within the classic
    bound but more than twice the classic kernel's error; the default does not."""
    a, b = ddblas.random((8, 4096), seed=1) * 2 - 1, ddblas.random((4096, 8), seed=11) * 2 - 1
    classic = _error(a, b, algorithm="blocked")
    faithful, fewest = {}, {}
    assert _error(a, b, algorithm=OZAKI, info=faithful) <= 2 * classic
    loose = _error(a, b, algorithm=OZAKI, accuracy="bound", info=fewest)
    assert fewest["slices"] < faithful["slices"]
    assert 2 * classic < loose <= accuracy.bound("gemm", None, 4096)


@pytest.mark.parametrize("beta", [7, 26])
def test_default_rule_bounds_the_truncation(beta):
    """slices_needed(accuracy="classic") returns the fewest S meeting both the Theorem's
    condition and K (S+1) 2^(-beta S) <= u^2 M at M = low; "bound" never more slices."""
    opts = ddblas.Options()
    for k, low in ((1, Fraction(1, 4)), (300, Fraction(75)), (8192, Fraction(1, 2 ** 20))):
        s = _ozaki.slices_needed(low, k, beta, opts, 40)
        fewest = _ozaki.slices_needed(low, k, beta, opts, 40, "bound")
        assert fewest <= s and _ozaki.truncation_fits(low, k, beta, s)
        assert s == fewest or not _ozaki.truncation_fits(low, k, beta, s - 1)


def test_accuracy_argument_is_checked():
    a = ddblas.ones((2, 2))
    with pytest.raises(ValueError, match="accuracy must be one of 'classic', 'bound'"):
        ddblas.rgemm(a, a, accuracy="fast")


# ---- a product exactly at the largest DD ----

OMEGA = (Fraction(2) ** 1024 - Fraction(2) ** 970 - Fraction(2) ** 917)   # the largest DD


def _near_omega(factor: Fraction):
    """A = [[x/2, x/2]] (x the nearest DD to Omega * factor), B = [[1], [1]]: AB = x exactly."""
    from ddblas.core.convert import dd_from_fraction
    hi, lo = dd_from_fraction(OMEGA * factor)
    a = ddblas.DDArray(np.array([[hi / 2, hi / 2]]), np.array([[lo / 2, lo / 2]]), normalize=False)
    return a, ddblas.ones((2, 1)), Fraction(hi) + Fraction(lo)


@pytest.mark.parametrize("algorithm", ["ozaki-fp64", "ozaki-int8", "ozaki2-int8"])
def test_products_just_below_omega_are_finite_and_within_bound(algorithm, device, variant):
    """A product of Omega (1 - 2^-100): finite, within the scheme's bound, as the classic
    kernel's (which gives Omega itself exactly)."""
    a, b, _ = _near_omega(1 - Fraction(1, 2 ** 100))
    a, b = a.to_device(device), b.to_device(device)
    c = ddblas.rgemm(a, b, algorithm=algorithm, **variant)
    assert np.isfinite(c.to_device("cpu").hi).all()
    assert accuracy.gemm_error(c, a, b).max <= accuracy.bound("gemm", ddblas.Options(**variant), 2)
    a, b, x = _near_omega(Fraction(1))
    assert exact_values(ddblas.rgemm(a, b, algorithm="blocked")) == [x] and x == OMEGA


@pytest.mark.parametrize("algorithm", ["ozaki-fp64", "ozaki-int8", "ozaki2-int8"])
def test_a_product_exactly_at_omega_is_omega(algorithm, device, variant):
    """C = Omega exactly (and -Omega): the Ozaki sums may round the scaled Omega up by u^2/2,
    within the bound, to a value that scales back to 2^1024 - 2^970; ozaki_scale makes that
    Omega (it gave inf, as it still does past Omega: 2 Omega)."""
    a, b, _ = _near_omega(Fraction(1))
    a, b = a.to_device(device), b.to_device(device)
    for sign in (1, -1):
        c = ddblas.rgemm(sign * a, b, algorithm=algorithm, **variant)
        assert exact_values(c) == [sign * OMEGA]
    twice = ddblas.rgemm(2 * a, b, algorithm=algorithm, **variant).to_device("cpu")
    assert twice.hi[0, 0] == np.inf and twice.lo[0, 0] == 0
