"""BLAS level-2/3 routines on top of rgemm: rtrsm (triangular solve with many right-hand sides),
rsyrk (symmetric rank-k update of one triangle) and rgemv (matrix-vector product).

rtrsm is recursive (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., sec. 8.3;
Elmroth, Gustavson, Jonsson and Kagstrom, SIAM Review 46, 2004): the triangle is split in about
halves (recursion_split: every leaf but the last is full), one half solved, the other half's
right-hand sides updated by one product on views (gemm.subtract_product: rgemm(alpha=-1,
beta=1) without its per-call checks), the other half solved; diagonal blocks of at most
geometry's trsm_block rows (geometry.h TRSM_BLOCK) are solved by the kernel ddblas_linalg_trsm
(cuda_src/linalg.h solve_column: one work item per right-hand side column, held in registers;
Higham's Alg. 8.1 by columns, in DD). rsyrk splits C the same way: off-diagonal blocks by
rgemm in place, diagonal blocks of at most SYRK_BLOCK rows by rgemm into a copy of which one
triangle is kept. Bounds: docs/linalg.md.
"""
from __future__ import annotations

from ..core.array import DDArray
from ..core.ops import check_output, multiply, on_one_device, operands, overlapping
from ..core.options import resolve
from ..engines import backend as _backend
from ..engines import cpu as _cpu
from ..engines import gpu as _gpu
from .gemm import rgemm, subtract_product
from .gemmcall import dd_scalar, require_algorithm

SYRK_BLOCK = 64   # diagonal blocks of at most this many rows: rgemm into a copy


def _flag(value, name: str, allowed: str) -> str:
    """A BLAS character argument, upper-cased: one of the characters of `allowed` (a string of
    one-letter options: "" or "LU" for uplo is an error, not a substring of "LU" that passed)."""
    if not isinstance(value, str) or value.upper() not in tuple(allowed):
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value.upper()


def view_args(x: DDArray) -> tuple:
    """(hi, lo, row step, column step) of a 2-D DDArray that kernels address in place."""
    return (x.hi, x.lo, *_backend.output_strides(x.hi, x.lo))


def solve_lower_left(t: DDArray, x: DDArray, lower: bool, unit: bool, opts, algorithm) -> None:
    """x := T^-1 x in place for the triangle (lower or upper) of the square DDArray t; x a 2-D
    view that kernels address in place (view_args); opts a resolved Options. t is read through
    a copy where kernels cannot read it in place or it shares elements with x."""
    t = operands(t)[0]
    if overlapping(t, x):
        t = t.copy()
    _solve_blocks(t, x, lower, unit, opts, algorithm)


def recursion_split(n: int, leaf: int) -> int:
    """Where the recursive routines (rtrsm, rsyrk, and linalg's LU and Cholesky) split n > leaf
    rows or columns: n / 2 rounded up to a multiple of `leaf`, so that every leaf but the last
    is full (ReLAPACK, Peise and Bientinesi 2017, rounds its splits to a cache line): n = 10000
    with leaves of 64 gives 157 leaves instead of halving's 256 of 39 rows, and products of
    whole leaves; a power of two times the leaf is split in halves."""
    return leaf * -(-n // (2 * leaf))


def _solve_blocks(t: DDArray, x: DDArray, lower: bool, unit: bool, opts, algorithm) -> None:
    """solve_lower_left's recursion on about halves: the off-diagonal block by subtract_product
    (t's blocks and x's are disjoint and addressable: no checks or copies per call), blocks of
    at most geometry's trsm_block rows by the trsm kernel."""
    n = t.shape[0]
    if n == 0 or x.shape[1] == 0:
        return
    geometry = _cpu.geometry()
    if n <= geometry["trsm_block"]:
        columns = x.shape[1]
        kernel = "ddblas_linalg_trsm_" + opts.suffix
        args = (columns, n, *_backend.kernel_parts(t.hi, t.lo), *view_args(x), int(lower),
                int(unit))
        be = _backend.backend(x.device)
        if x.device == "gpu":   # a warp a column, the block's warps sharing the staged triangle
            threads = geometry["trsm_threads"]
            warps = threads // geometry["warp_size"]
            be.launch_grid(kernel, (min(-(-columns // warps), _gpu.MAX_BLOCKS),), (threads,),
                           *args, shared_mem=2 * n * n * 8)
        else:
            be.launch(kernel, columns, *args)
        return
    half = recursion_split(n, geometry["trsm_block"])
    first, second = (slice(None, half), slice(half, None))
    if not lower:
        first, second = second, first
    _solve_blocks(t[first, first], x[first], lower, unit, opts, algorithm)
    subtract_product(t[second, first], x[first], x[second], opts, algorithm)
    _solve_blocks(t[second, second], x[second], lower, unit, opts, algorithm)


def rtrsm(side, uplo, transa, diag, alpha, a, b, *, fma=None, add=None,
          algorithm="auto") -> DDArray:
    """Triangular solve with many right-hand sides in DD, BLAS dtrsm semantics: b is overwritten
    with X, where op(A) X = alpha B (side "L") or X op(A) = alpha B (side "R").

    side: "L" or "R"; uplo: "L" (A lower triangular) or "U"; transa: "N", "T" ("C" = "T");
    diag: "N" or "U" (unit diagonal, not read). Only A's uplo triangle is read. alpha: a DD
    scalar (B is scaled first by DD multiplication when alpha != 1; alpha = 0 sets B to zero
    without reading it). a: square DDArray (float64 accepted; it may share memory with b);
    b: 2-D writable DDArray with distinct elements, overwritten and returned (a b that kernels
    cannot address in place is solved in a copy and written back). fma, add: the arithmetic
    variant; algorithm: rgemm's, for the off-diagonal blocks ("blocked" forces the classic
    kernel: then CPU == GPU bit for bit). A zero diagonal entry gives inf/nan, as in BLAS.

    Bound (docs/linalg.md): the computed X satisfies op(A + dA) x_j = alpha b_j for each column
    with |dA| <= c |A|, c = (L + 1) c_gemm(n) + c_div (L the recursion depth).
    """
    side = _flag(side, "side", "LR")
    lower = _flag(uplo, "uplo", "LU") == "L"
    trans = _flag(transa, "transa", "NTC") != "N"
    unit = _flag(diag, "diag", "NU") == "U"
    require_algorithm(algorithm)   # small triangles never reach rgemm, which checks it
    if not isinstance(b, DDArray):
        raise TypeError(f"rtrsm: b must be a DDArray (rtrsm overwrites it with the solution), "
                        f"got {type(b).__name__}")
    a, b = on_one_device(a, b, names=("a", "b"))
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"rtrsm: a must be a square matrix, got shape {a.shape}")
    if b.ndim != 2:
        raise ValueError(f"rtrsm: b must be 2-D, got shape {b.shape}")
    needed = b.shape[0] if side == "L" else b.shape[1]
    if a.shape[0] != needed:
        raise ValueError(f"rtrsm: a is {a.shape[0]} x {a.shape[1]} but b has {needed} "
                         f"{'rows' if side == 'L' else 'columns'} (side={side!r})")
    check_output(b, "b", "rtrsm")
    opts = resolve(fma, add)
    alpha = dd_scalar(alpha, "alpha").to_device(b.device)   # errors name alpha, as rgemm's
    if float(alpha.hi) == 0:     # BLAS: B := 0, B not read
        b[...] = 0
        return b
    if overlapping(a, b):        # a is read after b is scaled and overwritten
        a = a.copy()
    work = b if _backend.in_place(b.hi, b.lo) else DDArray(
        _backend.contiguous(b.hi), _backend.contiguous(b.lo), normalize=False)
    if not (float(alpha.hi) == 1 and float(alpha.lo) == 0):
        work[...] = multiply(work, alpha, fma=opts.fma, add=opts.add)
    t = a.T if trans else a
    lower_t = lower != trans
    if side == "R":   # X op(A) = B  <=>  op(A)^T X^T = B^T
        t, lower_t, target = t.T, not lower_t, work.T
    else:
        target = work
    solve_lower_left(t, target, lower_t, unit, opts, algorithm)
    if work is not b:
        b[...] = work
    return b


def rsyrk(uplo, trans, alpha, a, beta, c, *, fma=None, add=None, algorithm="auto") -> DDArray:
    """Symmetric rank-k update of one triangle in DD, BLAS dsyrk semantics:
    C := alpha A A^T + beta C (trans "N") or alpha A^T A + beta C (trans "T"), where only the
    uplo ("L" or "U") triangle of the square DDArray c is read and written; c is overwritten and
    returned (writable, distinct elements; a may share memory with c). beta = 0 does not read
    C. fma, add, algorithm: as rgemm's.

    Each element of the triangle is one rgemm element over the whole K, so rgemm's bound holds
    elementwise: |C - exact| <= c_gemm(K) (|alpha| |A||A^T| + |beta| |C0|) (docs/linalg.md).
    """
    lower = _flag(uplo, "uplo", "LU") == "L"
    transposed = _flag(trans, "trans", "NTC") != "N"
    require_algorithm(algorithm)   # an empty c never reaches rgemm, which checks it
    if not isinstance(c, DDArray):
        raise TypeError(f"rsyrk: c must be a DDArray (rsyrk overwrites it), got "
                        f"{type(c).__name__}")
    a, c = on_one_device(a, c, names=("a", "c"))
    if a.ndim != 2:
        raise ValueError(f"rsyrk: a must be 2-D, got shape {a.shape}")
    op_a = a.T if transposed else a
    if c.ndim != 2 or c.shape != (op_a.shape[0], op_a.shape[0]):
        raise ValueError(f"rsyrk: c must be {op_a.shape[0]} x {op_a.shape[0]} for a of shape "
                         f"{a.shape} and trans={trans!r}, got shape {c.shape}")
    check_output(c, "c", "rsyrk")
    if overlapping(op_a, c):     # the recursion writes blocks of c that later products read
        op_a = op_a.copy()
    # the scalars by value, before any block of c is written (one may be a view into c: the
    # blocks after the first read the alpha the first had written)
    alpha, beta = dd_scalar(alpha, "alpha").copy(), dd_scalar(beta, "beta").copy()
    opts = resolve(fma, add)
    _syrk_blocks(lower, alpha, op_a, beta, c, opts, algorithm)
    return c


def _syrk_blocks(lower: bool, alpha, a: DDArray, beta, c: DDArray, opts, algorithm) -> None:
    n = c.shape[0]
    if n == 0:
        return
    gemm = dict(alpha=alpha, beta=beta, fma=opts.fma, add=opts.add, algorithm=algorithm)
    if n <= SYRK_BLOCK:
        full = c.copy()
        rgemm(a, a.T, full, **gemm)
        xp = c.xp
        keep = xp.tri(n, dtype=bool) if lower else ~xp.tri(n, k=-1, dtype=bool)
        c.hi[...] = xp.where(keep, full.hi, c.hi)   # no boolean indexing: no GPU sync
        c.lo[...] = xp.where(keep, full.lo, c.lo)
        return
    half = recursion_split(n, SYRK_BLOCK)
    _syrk_blocks(lower, alpha, a[:half], beta, c[:half, :half], opts, algorithm)
    if lower:
        rgemm(a[half:], a[:half].T, c[half:, :half], **gemm)
    else:
        rgemm(a[:half], a[half:].T, c[:half, half:], **gemm)
    _syrk_blocks(lower, alpha, a[half:], beta, c[half:, half:], opts, algorithm)


def rgemv(a, x, y=None, *, alpha=1, beta=0, trans="N", fma=None, add=None,
          algorithm="auto", info=None) -> DDArray:
    """y := alpha op(A) x + beta y in DD (BLAS dgemv): rgemm with one column, so
    algorithm="auto" runs the tall-and-skinny kernel ("tsm") once max(M, N) * K >= 2^20 (a
    memory-bound matvec; info["algorithm"] says what ran) and the classic kernel below (and
    beyond max(M, N) = 8388480, the tsm grid's).

    a: 2-D; x: 1-D of length op(A)'s columns; y: None (a new vector; beta must be 0) or a 1-D
    DDArray of length op(A)'s rows, overwritten and returned. trans: "N" or "T" ("C" = "T").
    Bound: rgemm's with K = len(x), |y - exact| <= c_gemm(K)(|alpha||op(A)||x| + |beta||y0|).
    """
    transposed = _flag(trans, "trans", "NTC") != "N"
    a, x = on_one_device(a, x, names=("a", "x"))
    if a.ndim != 2:
        raise ValueError(f"rgemv: a must be 2-D, got shape {a.shape}")
    if x.ndim != 1:
        raise ValueError(f"rgemv: x must be 1-D, got shape {x.shape}")
    beta_dd = dd_scalar(beta, "beta")
    rows, cols = a.shape[::-1] if transposed else a.shape
    if x.shape[0] != cols:
        raise ValueError(f"rgemv: x has length {x.shape[0]}, op(a) has {cols} columns")
    if y is None and (float(beta_dd.hi), float(beta_dd.lo)) != (0.0, 0.0):
        raise ValueError("rgemv: beta != 0 needs an input vector y")
    if y is not None:
        if not isinstance(y, DDArray):
            raise TypeError(f"rgemv: y must be a DDArray (rgemv overwrites it), got "
                            f"{type(y).__name__}")
        if y.shape != (rows,):
            raise ValueError(f"rgemv: y must be a 1-D DDArray of length {rows}, got shape "
                             f"{y.shape}")
        check_output(y, "y", "rgemv")
    # y[:, None] is a view of y whatever its layout (reshape copies parts that the kernels
    # cannot address in place, and rgemm then wrote the copy: y at an odd byte offset kept
    # its values)
    out = rgemm(a, x.reshape(cols, 1), None if y is None else y[:, None], alpha=alpha,
                beta=beta, transa="T" if transposed else "N", fma=fma, add=add,
                algorithm=algorithm, info=info)
    return out.reshape(rows) if y is None else y   # y itself, as rgemm returns its c
