"""Test helpers, the one module that test files share (they do not import from each other):
hypothesis strategies for DD values, exact values, bit equality, random and scaled matrices,
the GEMM and Ozaki checks, and the proven bounds (taken
from ddblas.accuracy, which documents them for users). u = 2^-53. The bounds (docs/algorithms.md):
- accurate add  3u^2/(1-4u) relative                [JMP17, Alg. 6]
- sloppy add    (3+u)/(1-u) u^2 (|a|+|b|) absolute  [docs/algorithms.md, Sec. "sloppy add"]
- mul, FMA      5u^2 relative                       [JMP17, Alg. 12; MR22 prove 4u^2]
- mul, no FMA   (8+6u+2u^2)/(1-u)^2 u^2 relative    [docs/algorithms.md; JMP17 Alg. 10]
- fused sloppy madd (GEMM)  c_acc |acc| + c_prod |ab|  [docs/algorithms.md, "Fused sloppy ..."]
- div           15u^2 + 56u^3 relative              [JMP17, Alg. 17]
- sqrt          6u^2 relative                        [docs/algorithms.md, Sec. "sqrt"]
"""
from __future__ import annotations

import contextlib
from fractions import Fraction
from unittest import mock

import numpy as np
from hypothesis import strategies as st

import ddblas
from ddblas import accuracy
from ddblas.blas import ozaki as _ozaki
from ddblas.core.convert import dd_from_fraction
from ddblas.core.options import Options
from ddblas.accuracy import bound_constant

U = Fraction(1, 2 ** 53)
ACCURATE_ADD = bound_constant("add", "fma/accurate")
SLOPPY_ADD = bound_constant("add", "fma/sloppy")
MUL = {fma: bound_constant("mul", Options(fma=fma)) for fma in (True, False)}
DIV = bound_constant("div")
SQRT = bound_constant("sqrt")


def add_abs_constant(add: str) -> Fraction:
    """c with |computed - (a+b)| <= c (|a| + |b|) for this add kind (relative bounds imply it)."""
    return ACCURATE_ADD if add == "accurate" else SLOPPY_ADD


def gemm_constant(fma: bool, add: str, k: int) -> Fraction:
    """c with |C - exact| <= c (|alpha| |op(A)||op(B)| + |beta| |C0|) for rgemm."""
    return bound_constant("gemm", Options(fma=fma, add=add), k)


def dd_value(min_exp: int = -400, max_exp: int = 400, allow_zero: bool = True):
    """A strategy for DD values with 106 random bits (or a plain double, or zero)."""
    full = st.builds(lambda m, e, s: (-1) ** s * Fraction(m) * Fraction(2) ** e,
                     st.integers(2 ** 105, 2 ** 106 - 1),
                     st.integers(min_exp - 106, max_exp - 106), st.integers(0, 1))
    double = st.builds(lambda m, e, s: (-1) ** s * Fraction(m) * Fraction(2) ** e,
                       st.integers(2 ** 52, 2 ** 53 - 1), st.integers(min_exp - 53, max_exp - 53),
                       st.integers(0, 1))
    options = [full, full, double] + ([st.just(Fraction(0))] if allow_zero else [])
    return st.one_of(*options).map(dd_from_fraction)


def dd_arrays(n: int = 12, **kw):
    return st.lists(dd_value(**kw), min_size=n, max_size=n)


def to_ddarray(pairs, device: str) -> ddblas.DDArray:
    hi = np.array([p[0] for p in pairs], dtype=np.float64)
    lo = np.array([p[1] for p in pairs], dtype=np.float64)
    return ddblas.DDArray(hi, lo).to_device(device)


def exact_values(x: ddblas.DDArray) -> list[Fraction]:
    """The exact values hi + lo of a finite DDArray, flattened."""
    hi, lo = (np.asarray(p).ravel() for p in (x.to_device("cpu").hi, x.to_device("cpu").lo))
    return [Fraction(float(h)) + Fraction(float(l)) for h, l in zip(hi, lo)]


def is_normalized(x: ddblas.DDArray) -> bool:
    """hi == fl(hi + lo) elementwise (finite entries)."""
    c = x.to_device("cpu")
    hi, lo = np.asarray(c.hi), np.asarray(c.lo)
    finite = np.isfinite(hi)
    return bool(np.all((hi + lo)[finite] == hi[finite]))


def rel_error(computed: Fraction, exact: Fraction) -> Fraction:
    """|computed - exact| / |exact|; an exact zero must be computed exactly (else 1)."""
    if exact == 0:
        return Fraction(0) if computed == 0 else Fraction(1)
    return abs(computed - exact) / abs(exact)


# ---- bit equality ----

def bits(x) -> np.ndarray:
    """The int64 bit patterns of x on the host: of a DDArray, hi and lo stacked; else of a
    float64 NumPy or CuPy array."""
    if isinstance(x, ddblas.DDArray):
        x = x.to_device("cpu")
        return np.stack([np.asarray(x.hi), np.asarray(x.lo)]).view(np.int64)
    return np.asarray(x.get() if hasattr(x, "get") else x, dtype=np.float64).view(np.int64)


def same_bits(x, y) -> bool:
    """x and y (DDArrays or float64 arrays, any devices) have the same shape and bits (NaNs
    compare by their bits, -0.0 differs from 0.0)."""
    bx, by = bits(x), bits(y)
    return bx.shape == by.shape and np.array_equal(bx, by)


# ---- matrices ----

TRANS = [("N", "N"), ("N", "T"), ("T", "N"), ("T", "T")]


def random_matrix(rows, cols, seed, device="cpu", spread=20) -> ddblas.DDArray:
    """Random DD entries in [-1, 1) times 2^e, e uniform in [-spread, spread]."""
    rng = np.random.default_rng(seed)
    x = ddblas.random((rows, cols), seed=seed, device=device) * 2 - 1
    return x * ddblas.array(np.ldexp(1.0, rng.integers(-spread, spread + 1, (rows, cols))),
                            device=device)


def random_stack(batch, rows, cols, seed, device) -> ddblas.DDArray:
    """batch random matrices (random_matrix's entries) as a (batch, rows, cols) DDArray."""
    return random_matrix(batch * rows, cols, seed, device).reshape(batch, rows, cols)


def scaled_matrix(rows, cols, seed, spread, row_spread, col_spread, zero_rows, zero_cols):
    """random_matrix entries (within-row spread 2^+-spread) times 2^r_i per row and 2^c_j per
    column, with some rows and columns zeroed (on the CPU)."""
    rng = np.random.default_rng(seed)
    x = random_matrix(rows, cols, seed, "cpu", spread)
    scale = np.ldexp(1.0, rng.integers(-row_spread, row_spread + 1, (rows, 1))
                     + rng.integers(-col_spread, col_spread + 1, (1, cols)))
    x = x * ddblas.DDArray(scale)
    for i in zero_rows:
        if i < rows:
            x[i] = 0
    for j in zero_cols:
        if j < cols:
            x[:, j] = 0
    return x


# ---- GEMM checks ----

def _exact_matrix(x):
    return np.array(exact_values(x), dtype=object).reshape(x.shape)


def check_gemm_bound(c, a, b, alpha, beta, c0, transa, transb, fma, add, const=None):
    """|C - exact| <= c (|alpha| |op(A)||op(B)| + |beta| |C0|) entry by entry, in Fractions;
    c = const, or rgemm's classic constant when None."""
    ea, eb = _exact_matrix(a), _exact_matrix(b)
    ea = ea.T if transa != "N" else ea
    eb = eb.T if transb != "N" else eb
    al, be = Fraction(alpha), Fraction(beta)
    ec0 = _exact_matrix(c0) if c0 is not None else np.zeros((ea.shape[0], eb.shape[1]),
                                                             dtype=object)
    k = ea.shape[1]
    const = gemm_constant(fma, add, k) if const is None else const
    got = _exact_matrix(c)
    for i in range(ea.shape[0]):
        for j in range(eb.shape[1]):
            exact = al * sum(ea[i, t] * eb[t, j] for t in range(k)) + be * ec0[i, j]
            scale = abs(al) * sum(abs(ea[i, t] * eb[t, j]) for t in range(k)) + abs(be * ec0[i, j])
            assert abs(got[i, j] - exact) <= const * scale, (i, j)


# ---- Ozaki scheme checks (ozaki-fp64 and ozaki-int8) ----

def ozaki_constant(info: dict, opts: Options) -> Fraction:
    """The default rule's bound constant of the Ozaki scheme that rgemm's info says ran: scheme
    I's with its S ("slices"), else scheme II's."""
    return bound_constant("ozaki", opts, info["slices"]) if "slices" in info else \
        bound_constant("ozaki2", opts)


@contextlib.contextmanager
def ozaki_pieces(limit: str, length: int | None = None, side: int | None = None):
    """Cut Ozaki scheme I's work small: the module constant `limit` ("CHUNK" or "INT8_CHUNK")
    set to `length`, and C in blocks of at most `side` rows and columns (WORKSPACE_BYTES 1,
    MIN_BLOCK side); None leaves each as it is."""
    with contextlib.ExitStack() as stack:
        if length is not None:
            stack.enter_context(mock.patch.object(_ozaki, limit, length))
        if side is not None:
            stack.enter_context(mock.patch.object(_ozaki, "WORKSPACE_BYTES", 1))
            stack.enter_context(mock.patch.object(_ozaki, "MIN_BLOCK", side))
        yield


def scaled_within_bound(algorithm, pieces, variant, m, n, k, trans, scalars, seed, spread,
                        outer, zeros) -> dict:
    """rgemm(algorithm=...) on scaled_matrix operands (within-row spread 2^+-spread, rows of
    op(A) and columns of op(B) scaled by up to 2^+-outer, `zeros` of them zero) inside the
    context manager `pieces` (which may cut the scheme's work smaller): |C - exact| <= the
    classic bound and, where the scheme ran, <= its own (ozaki_constant, accuracy="classic", the
    default); the algorithm ran exactly when it did not fall back. Returns rgemm's info."""
    transa, transb = trans
    alpha, beta = scalars
    op_a = scaled_matrix(m, k, seed, spread, outer, 0, zeros, ())
    op_b = scaled_matrix(k, n, seed + 1, spread, 0, outer, (), zeros)
    a = op_a.T.copy() if transa != "N" else op_a
    b = op_b.T.copy() if transb != "N" else op_b
    c0 = random_matrix(m, n, seed + 2, "cpu") if beta != 0 else None
    info = {}
    with pieces:
        c = ddblas.rgemm(a, b, None if c0 is None else c0.copy(), alpha=alpha, beta=beta,
                         transa=transa, transb=transb, algorithm=algorithm, info=info, **variant)
    check_gemm_bound(c, a, b, Fraction(alpha), Fraction(beta), c0, transa, transb, **variant)
    assert (info["algorithm"] == algorithm) == (info["fallback"] is None)
    if info["fallback"] is None:
        check_gemm_bound(c, a, b, Fraction(alpha), Fraction(beta), c0, transa, transb, **variant,
                         const=ozaki_constant(info, Options(**variant)))
    return info


def ozaki_within_bound(a, b, variant, algorithm="ozaki-fp64"):
    """The algorithm runs (no fallback) on a @ b and its error is within the classic bound and
    bound("ozaki", variant, S). Returns C."""
    info = {}
    c = ddblas.rgemm(a, b, algorithm=algorithm, info=info, **variant)
    assert info["algorithm"] == algorithm
    opts = ddblas.Options(**variant)
    bound = min(accuracy.bound("gemm", opts, a.shape[1]),
                accuracy.bound("ozaki", opts, info["slices"]))
    assert accuracy.gemm_error(c, a, b).within(bound)
    return c


def check_blas_semantics(algorithm, device, spread=None):
    """rgemm(algorithm=...) with BLAS semantics on views (random_matrix entries, `spread` as
    there): beta = 0 never reads C (NaNs there), C may alias A and B, op(A) transposed with
    alpha and beta within the classic bound and the scheme's own (it runs), a zero A gives
    zeros."""
    extra = {} if spread is None else {"spread": spread}
    a, b = random_matrix(5, 6, 21, device, **extra), random_matrix(6, 4, 22, device, **extra)
    ref = ddblas.rgemm(a, b, algorithm=algorithm)
    target = ddblas.full((10, 9), "nan", device=device)
    out = ddblas.rgemm(a, b, target[::2, 5:], algorithm=algorithm)  # beta = 0: NaNs never read
    assert same_bits(target[::2, 5:], ref) and out.shape == (5, 4)
    x = random_matrix(4, 4, 23, device, **extra)
    expected = ddblas.rgemm(x.copy(), x.copy(), algorithm=algorithm)
    ddblas.rgemm(x, x, x, algorithm=algorithm)  # c aliases a and b
    assert same_bits(x, expected)
    c0 = random_matrix(5, 4, 24, device)
    info = {}
    c = ddblas.rgemm(a.T.copy(), b, c0.copy(), alpha="0.75", beta=-2, transa="T",
                     algorithm=algorithm, info=info)
    assert info["algorithm"] == algorithm
    for const in (None, ozaki_constant(info, Options())):
        check_gemm_bound(c, a.T.copy(), b, Fraction(3, 4), -2, c0, "T", "N", True, "accurate",
                         const=const)
    zero = ddblas.rgemm(ddblas.zeros((3, 4), device=device), b[:4], algorithm=algorithm)
    assert exact_values(zero) == [0] * 12


def check_gpu_equals_cpu(shape, algorithm, spread, limit, lengths, transposes=TRANS):
    """For each transpose pair, and each variant with a chunk length (`lengths[v]` set as the
    module constant `limit` of _ozaki, e.g. "CHUNK"; the last variant also with C in blocks of
    at most 3 x 3): rgemm on the GPU gives the CPU's bits, with the same S, on scaled data
    (within-row spread 2^+-spread, a zero row and column)."""
    m, n, k = shape
    for t, (transa, transb) in enumerate(transposes):
        a = scaled_matrix(*((m, k) if transa == "N" else (k, m)), 40 + t, spread, 30, 30, (0,), ())
        b = scaled_matrix(*((k, n) if transb == "N" else (n, k)), 50 + t, spread, 30, 30, (), (1,))
        c0 = random_matrix(m, n, 60 + t, "cpu")
        for length, side, (fma, add) in zip(lengths, (None, None, None, 3),
                                            [(True, "accurate"), (True, "sloppy"),
                                             (False, "accurate"), (False, "sloppy")]):
            kw = dict(transa=transa, transb=transb, fma=fma, add=add, alpha="0.7", beta=-2,
                      algorithm=algorithm)
            cpu_info, gpu_info = {}, {}
            with ozaki_pieces(limit, length, side):
                ref = ddblas.rgemm(a, b, c0.copy(), info=cpu_info, **kw)
                got = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), c0.to_device("gpu"),
                                   info=gpu_info, **kw)
            assert cpu_info["algorithm"] == gpu_info["algorithm"] == algorithm
            assert cpu_info["slices"] == gpu_info["slices"]
            assert cpu_info["bound"] == gpu_info["bound"]
            assert same_bits(ref, got), (shape, transa, transb, fma, add, length, side)
