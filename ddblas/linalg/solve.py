"""ddblas.linalg's solvers: solve, inv, det, slogdet, cond (docs/linalg.md: "Solvers",
"Iterative refinement", "GMRES-IR", "Batched systems").

solve(method="auto") runs the chain of Carson & Higham: float64 LU (or Cholesky) with DD
residuals (LU-IR), then GMRES-IR preconditioned by the same float64 factors, then a DD LU; small
systems and stacks of them go straight to the batched DD LU (ddblas/linalg/batched.py). All DD
arithmetic is the kernels' (rgemm for residuals and products, core.ops for norms, the batched
kernels); float64 arithmetic (the float64 factors, GMRES's Krylov basis) runs in NumPy/SciPy or
CuPy/cuSOLVER.
"""
from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np

from ..blas.gemm import rgemm
from ..core import ops
from ..core.array import DDArray
from ..core.bounds import REFINEMENT_TARGET, bound_constant
from ..core.options import get_options
from ..engines.backend import broadcast_shape
from . import batched
from .errors import (LinAlgError, in_stack, not_finite_error, require_finite,
                     require_finite_factors, require_square_stack, stack_index, zero_pivot_error)
from .factor import cho_factor, cho_solve, cholesky, lu_factor, lu_solve, solve_triangular
from .norms import norm
from .scaling import (column_exponents, downscale_exponents, range_exponents, row_exponents,
                      row_scaled_range_exponents, row_spread, rows_keeping_entries, scale_wide,
                      scale_wider, unit_exponents)
from .jacobi import svdvals

U2 = 2.0 ** -106            # DD unit roundoff u^2 (u = 2^-53)
SMALL_ORDER = 32            # solve(method="auto") factors n <= SMALL_ORDER in DD directly
LU_IR_MAX_ITERATIONS = 20   # float64-LU refinement steps before GMRES-IR takes over
GMRES_IR_MAX_ITERATIONS = 10
GMRES_MAX_INNER = 50        # Krylov dimension of one GMRES solve (no restart)
GMRES_TOLERANCE = 1e-10     # relative residual of the preconditioned correction equation
STAGNATION_RATIO = 0.5      # ||d_i|| > 0.5 ||d_{i-1}||: refinement no longer converges usefully
LIMITING_CORRECTION = 2.0 ** -60  # ||d|| / ||x|| below it: stagnation at limiting accuracy
# refinement stops once the backward error is at most BACKWARD_TARGET and accepts stagnation at
# bound("refine", k=n) = max(n, 16) u^2 (core/bounds.py)
BACKWARD_TARGET = REFINEMENT_TARGET * U2
# solve's assume_a: SciPy's names, each to what runs ("banded": the general solver; "her": real
# data is symmetric; "tridiagonal", "upper"/"lower": the triangle or band that SciPy reads)
ASSUME_A = {"gen": "gen", "general": "gen", "banded": "gen", "sym": "sym", "symmetric": "sym",
            "her": "sym", "hermitian": "sym", "pos": "pos", "positive definite": "pos",
            "diagonal": "diagonal", "tridiagonal": "tridiagonal", "upper triangular": "upper",
            "lower triangular": "lower"}
METHODS = ("auto", "refine", "dd-lu")
COND_EXACT_ORDER = 200      # cond: the inverse up to this order, the 1/inf estimator beyond


# ---- argument checks ----
def _choice(value, allowed, name):
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


def _stacked(x: DDArray, stack: tuple) -> DDArray:
    """x (..., r, c) broadcast to stack + (r, c), as a (prod(stack), r, c) stack of views (x
    itself where it has that shape, x's parts reshaped where both stacks hold one matrix: the
    batched path's small calls skip the views' cost)."""
    shape = (math.prod(stack),) + x.shape[-2:]
    if x.shape == shape:
        return x
    if shape[0] == 1 and math.prod(x.shape[:-2]) == 1:   # only axes of length 1: views
        return DDArray(x.hi.reshape(shape), x.lo.reshape(shape), normalize=False)
    xp = x.xp
    full = stack + x.shape[-2:]
    return DDArray(xp.broadcast_to(x.hi, full), xp.broadcast_to(x.lo, full),
                   normalize=False).reshape(shape)


def _symmetrized(a: DDArray, lower: bool) -> DDArray:
    """a with the triangle that `lower` does not select replaced by the mirror of the one it
    does (LAPACK's symmetric solvers read one triangle): a selection, exact."""
    xp = a.xp
    keep = xp.tri(a.shape[-1], dtype=bool)
    keep = keep if lower else keep.T
    mirror = a.transpose(*range(a.ndim - 2), a.ndim - 1, a.ndim - 2)
    return DDArray(xp.where(keep, a.hi, mirror.hi), xp.where(keep, a.lo, mirror.lo),
                   normalize=False)


# ---- float64 factors (LAPACK through SciPy on the CPU, cuSOLVER through CuPy on the GPU) ----
class Float64Factors:
    """The float64 LU (partial pivoting) or Cholesky factors of fl(A) = A.hi, and solves with
    them. `singular` tells a float64 factorization that broke down (an exact zero pivot, or
    fl(A) not positive definite for Cholesky): refinement cannot start from it."""

    def __init__(self, a64, assume_a: str, device: str):
        self.device = device
        self.cholesky = assume_a == "pos"
        self.singular = False
        if device == "gpu":
            import cupy
            import cupyx
            import cupyx.scipy.linalg as gpu_linalg
            self._linalg = gpu_linalg
            if self.cholesky:
                try:  # cuSOLVER's potrf info raises only under errstate(linalg="raise")
                    with cupyx.errstate(linalg="raise"):
                        self.factors = cupy.linalg.cholesky(a64)
                except np.linalg.LinAlgError:
                    self.singular = True
            else:
                self.factors = gpu_linalg.lu_factor(a64, check_finite=False)
                self.singular = bool((cupy.diagonal(self.factors[0]) == 0).any())
            return
        import scipy.linalg
        self._linalg = scipy.linalg
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
            if self.cholesky:
                try:
                    self.factors = scipy.linalg.cho_factor(a64, lower=True, check_finite=False)
                except np.linalg.LinAlgError:
                    self.singular = True
            else:
                self.factors = scipy.linalg.lu_factor(a64, check_finite=False)
                self.singular = bool((np.diagonal(self.factors[0]) == 0).any())

    def solve(self, rhs):
        """A64^-1 rhs in float64 (rhs: (n,) or (n, k) float64 on the device)."""
        la = self._linalg
        if not self.cholesky:
            return la.lu_solve(self.factors, rhs, check_finite=False)
        if self.device == "cpu":
            return la.cho_solve(self.factors, rhs, check_finite=False)
        y = la.solve_triangular(self.factors, rhs, lower=True, check_finite=False)
        return la.solve_triangular(self.factors, y, lower=True, trans="T", check_finite=False)


# ---- refinement ----
class _Refinement:
    """State of one refined solve A X = B (A (n, n), B (n, k) DDArrays): the current DD
    solution, the log that goes into the caller's info."""

    def __init__(self, a: DDArray, b: DDArray, factors: Float64Factors, log: dict):
        self.a, self.b, self.factors, self.log = a, b, factors, log
        n = a.shape[0]
        self.acceptable = float(bound_constant("refine", k=n))
        self.norm_a = float(norm(a, math.inf).hi)
        self.norm_b = norm(b, math.inf, axis=0).hi
        x64 = factors.solve(b.hi)
        self.x = DDArray(x64, a.xp.zeros_like(x64), normalize=False)

    def residual(self) -> DDArray:
        """B - A X in DD (rgemm: alpha = -1, beta = 1 on a copy of B)."""
        return rgemm(self.a, self.x, self.b.copy(), alpha=-1, beta=1)

    def backward_error(self, r: DDArray) -> float:
        """max over columns of ||r||_inf / (||A||_inf ||x||_inf + ||b||_inf), the DD norms
        rounded to float64 for the ratio (a measure: 2^-52 relative is plenty), each as
        mantissa 2^exponent, so that no product or sum overflows or underflows at any scale
        (||A|| ||x|| exceeds DBL_MAX for badly scaled A even after solve's scaling)."""
        xp = self.a.xp
        num = norm(r, math.inf, axis=0).hi
        nx = norm(self.x, math.inf, axis=0).hi
        (m_r, e_r), (m_x, e_x), (m_b, e_b) = (xp.frexp(v) for v in (num, nx, self.norm_b))
        m_a, e_a = math.frexp(self.norm_a)
        m_ax, e_ax = m_a * m_x, e_a + e_x.astype(np.int64)
        top = xp.maximum(xp.where(m_ax == 0, e_b, e_ax), xp.where(m_b == 0, e_ax, e_b))
        den = (xp.ldexp(m_ax, xp.clip(e_ax - top, -1100, 0).astype(np.int32))
               + xp.ldexp(m_b, xp.clip(e_b - top, -1100, 0).astype(np.int32)))  # in [1/4, 2)
        ratio = xp.ldexp(m_r / xp.where(den > 0, den, 1.0),
                         xp.clip(e_r - top, -1100, 1100).astype(np.int32))
        ratio = xp.where(den > 0, ratio, xp.where(num > 0, xp.inf, 0.0))
        ratio = xp.where(xp.isfinite(nx) & math.isfinite(self.norm_a), ratio, xp.inf)
        return float(ratio.max()) if ratio.size else 0.0

    def record(self, eta: float) -> None:
        self.log["iterations"] += 1
        self.log["backward_errors"].append(eta)

    def update(self, d64) -> float:
        """X += d (DD + float64 in DD); returns ||d||_inf / ||x||_inf (float64 measure)."""
        xp = self.a.xp
        x_size = float(xp.abs(self.x.hi).max()) if self.x.size else 0.0
        d_size = float(xp.abs(d64).max()) if d64.size else 0.0
        self.x = ops.add(self.x, DDArray(d64, xp.zeros_like(d64), normalize=False))
        return d_size / x_size if x_size > 0 else (0.0 if d_size == 0 else math.inf)

    def iterate(self, correction, max_iterations: int, method: str) -> bool:
        """Refine with d = correction(r) until the backward error is at most BACKWARD_TARGET or
        the correction no longer changes x (True); stagnation is success at the limiting
        accuracy (a correction <= LIMITING_CORRECTION |x| or a backward error <= max(n, 16)
        u^2), else, like the iteration limit, failure (False; the reason is logged)."""
        previous = math.inf
        self.log["method"] = method
        for _ in range(max_iterations):
            r = self.residual()
            eta = self.backward_error(r)
            self.record(eta)
            if eta <= BACKWARD_TARGET:
                self.log["stopped"] = f"{method}: backward error {eta:.3g} <= 16 u^2"
                return True
            if not math.isfinite(eta):
                break
            measured = self.x   # the x whose backward error eta is
            step = self.update(correction(r.hi))
            if step <= U2:
                self.log["stopped"] = (f"{method}: correction {step:.3g} |x| below u^2 |x|: "
                                       f"limiting accuracy")
                return True
            if step > STAGNATION_RATIO * previous:
                if step <= LIMITING_CORRECTION or eta <= self.acceptable:
                    # the correction just judged not to contract is dropped: x is the one
                    # whose backward error was measured (and is logged)
                    self.x = measured
                    self.log["stopped"] = (f"{method}: stagnation at limiting accuracy "
                                           f"(correction {step:.3g} |x|, backward error "
                                           f"{eta:.3g})")
                    return True
                self.log["switched"].append(f"{method}: corrections stagnate ({step:.3g} |x| "
                                            f"after {previous:.3g} |x|): kappa u_fp64 too large")
                return False
            previous = step
        else:
            self.log["switched"].append(f"{method}: {max_iterations} iterations without "
                                        f"reaching the backward error target")
            return False
        self.log["switched"].append(f"{method}: non-finite backward error")
        return False

    def gmres_correction(self, r64):
        """d ~ A^-1 r: GMRES (float64, modified Gram-Schmidt, no restart, at most
        GMRES_MAX_INNER steps, relative tolerance GMRES_TOLERANCE) on M^-1 A d = M^-1 r with
        M = the float64 factors, the products A v in DD (rgemm, rounded to float64):
        Carson & Higham's GMRES-IR with the preconditioned product in extra precision."""
        xp = self.a.xp
        return xp.stack([self._gmres_column(r64[:, j]) for j in range(r64.shape[1])], axis=1)

    def _preconditioned_product(self, v):
        xp = self.a.xp
        av = rgemm(self.a, DDArray(v.reshape(-1, 1), xp.zeros((v.size, 1)), normalize=False))
        return self.factors.solve(av.hi[:, 0])

    def _gmres_column(self, r):
        xp = self.a.xp
        z = self.factors.solve(r)
        beta = float(xp.linalg.norm(z))
        if beta == 0.0 or not math.isfinite(beta):
            return xp.zeros_like(r)
        n = r.size
        steps = min(n, GMRES_MAX_INNER)
        basis = [z / beta]
        h = np.zeros((steps + 1, steps))
        y = np.zeros(0)
        for j in range(steps):
            w = self._preconditioned_product(basis[j])
            for i in range(j + 1):  # modified Gram-Schmidt
                h[i, j] = float(xp.dot(basis[i], w))
                w = w - h[i, j] * basis[i]
            h[j + 1, j] = float(xp.linalg.norm(w))
            e1 = np.zeros(j + 2)
            e1[0] = beta
            y, *_ = np.linalg.lstsq(h[:j + 2, :j + 1], e1, rcond=None)
            residual = float(np.linalg.norm(h[:j + 2, :j + 1] @ y - e1))
            if residual <= GMRES_TOLERANCE * beta or h[j + 1, j] == 0.0:
                break
            basis.append(w / h[j + 1, j])
        return sum(float(y[i]) * basis[i] for i in range(len(y)))


# ---- DD factorizations ----
def _dd_lu_solve_stack(a: DDArray, b: DDArray, stack: tuple = (1,), own: tuple = (),
                       check: bool | None = None) -> DDArray | None:
    """X[p] = A[p]^-1 B[p] for (batch, n, n) and (batch, n, k) stacks by the batched DD LU, the
    systems being a's matrices (a's own stack shape `own`: () for one matrix) broadcast to
    `stack`. LinAlgError naming the first singular matrix (a's index) and its zero pivot;
    OverflowError where a non-finite x comes from factors of a finite a that overflowed (an x
    that overflows from finite factors is returned, as NumPy's). One device round trip: the
    kernels' report (batched.report_bits) holds what the checks need. With check (solve's
    check_finite) a and b are taken as they come: ValueError naming the argument with a
    non-finite entry (check True), None where an entry is not finite (check False), reaches
    2^512 or lies below 2^tiny_exponent(), or where a matrix's entries span more than
    2^row_spread() ("a_spread"), for solve's scaled path, which equilibrates rows and scales
    tiny columns up; without (None: that path, a and b checked and scaled)
    the report's flags of a and b are not looked at."""
    opts = get_options()
    summary = batched.new_summary(a.xp)
    x = batched.solve(a, b, opts, summary)
    report = batched.read_summary(summary, a.shape[0], a.shape[-1])
    bits = batched.report_bits()
    if check is not None:
        if check:
            for name in ("a", "b"):
                if report.flags & bits[f"{name}_not_finite"]:
                    raise not_finite_error(name)
        if report.flags & (bits["a_not_finite"] | bits["a_large"] | bits["a_spread"] |
                           bits["a_tiny"] | bits["b_not_finite"] | bits["b_large"] |
                           bits["b_tiny"]):
            return None
    if report.singular is not None:
        p, k = report.singular
        raise in_stack(zero_pivot_error(k), stack_index(p, stack, own))
    if report.flags & bits["x_not_finite"]:   # where factors overflow, x does (factored again)
        factors = batched.factor_views(batched.lu_factor(a, opts))[0]
        require_finite_factors(a.xp.isfinite(factors).all(axis=(1, 2)), a, stack, own)
    return x


def _log_direct(log: dict, method: str) -> None:
    """Fill solve's info for x from a direct DD factorization `method`."""
    log["method"] = method
    log["stopped"] = f"{method}: direct solve (backward error bound: docs/linalg.md)"


def _dd_direct(a: DDArray, b: DDArray, assume_a: str, log: dict) -> DDArray:
    """A X = B (A (n, n), B (n, k)) by a DD factorization: the batched kernel for n <=
    SMALL_ORDER (after the DD Cholesky's check for assume_a="pos"), else factor.py's blocked LU
    (or Cholesky for assume_a="pos"); for "pos" a LinAlgError names the leading minor that is
    not positive definite."""
    if a.shape[0] <= SMALL_ORDER:
        if assume_a == "pos":  # SciPy's contract: not positive definite is an error
            cholesky(a, lower=True, check_finite=False)
        _log_direct(log, "dd-lu")
        return _dd_lu_solve_stack(a.reshape((1,) + a.shape), b.reshape((1,) + b.shape)).reshape(
            b.shape)
    if assume_a == "pos":
        _log_direct(log, "dd-cholesky")
        return cho_solve(cho_factor(a, lower=True, check_finite=False), b, check_finite=False)
    _log_direct(log, "dd-lu")
    return lu_solve(lu_factor(a, check_finite=False), b, check_finite=False)


def _solve_one(a: DDArray, b: DDArray, assume_a: str, method: str, log: dict) -> DDArray:
    """A X = B for one matrix (A (n, n), B (n, k)) by `method` (the chain for "auto"; for
    assume_a "upper" and "lower", substitution)."""
    n = a.shape[0]
    if assume_a in ("upper", "lower"):
        return solve_triangular(a, b, lower=assume_a == "lower", check_finite=False)
    if method == "dd-lu" or (method == "auto" and n <= SMALL_ORDER):
        return _dd_direct(a, b, assume_a, log)
    factors = Float64Factors(a.hi, assume_a, a.device)
    if not factors.singular:
        run = _Refinement(a, b, factors, log)
        if run.iterate(factors.solve, LU_IR_MAX_ITERATIONS, "refine"):
            return run.x
        if run.iterate(run.gmres_correction, GMRES_IR_MAX_ITERATIONS, "gmres-ir"):
            return run.x
    else:
        kind = "Cholesky: fl(A) not positive definite" if factors.cholesky else \
            "LU: an exact zero pivot"
        log["switched"].append(f"refine: the float64 {kind}")
    if method == "refine":
        direct = "DD Cholesky" if assume_a == "pos" else "DD LU"
        log["switched"].append(f"refine: falling back to the {direct} (method='refine' ran "
                               f"out)")
    return _dd_direct(a, b, assume_a, log)


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a=None, transposed=False, *, method="auto", info=None) -> DDArray:
    """Solve A x = b in double-double, with scipy.linalg.solve's arguments.

    Parameters
    ----------
    a : DDArray or array_like, shape (..., n, n)
        A square matrix, or a stack of them in the leading dimensions (numpy.linalg.solve).
        float64 input is taken exactly. Not modified.
    b : DDArray or array_like, shape (n,) or (..., n, k)
        Right-hand side: a vector (1-D; broadcast over a stack) or matrices; stack dimensions
        broadcast with a's. Not modified.
    lower : bool
        For assume_a "sym" and "pos" only (as SciPy): the triangle of a that is read, with the
        diagonal (False: the upper one); the other one is taken as its mirror image.
    overwrite_a, overwrite_b : bool
        Accepted for SciPy compatibility; a and b are never modified.
    check_finite : bool
        Check a and b for inf/nan (ValueError naming the argument).
    assume_a : str or None
        SciPy's names. None (SciPy's default, which then looks for a structure to exploit) is
        "gen" here: every structure SciPy detects has the same solution as the general system,
        and the DD solvers find the same singular matrices. "pos" ("positive definite"): a
        is symmetric positive definite (float64 Cholesky in the refinement, the DD Cholesky
        as the direct method for n > 32; for n <= 32 and stacks the DD Cholesky checks it,
        then the batched LU solves); "gen" ("general",
        "banded") and "sym" ("symmetric", "her", "hermitian": real data) use LU with partial
        pivoting. "upper triangular" / "lower triangular": only that triangle is read, solved
        by substitution (solve_triangular, after the scaling in the Notes, which keeps a
        triangle one; a stack by the LU of its triangles); "diagonal":
        only the diagonal is read, x = b / diag(a); "tridiagonal": only the three diagonals
        are read (the LU of that band).
    transposed : bool
        Solve a^T x = b (for "sym" and "pos" the same system).
    method : {"auto", "refine", "dd-lu"}
        "refine": float64 factors, DD residuals (LU-IR), then GMRES-IR, then the DD LU if both
        stagnate; "dd-lu": the DD LU only; "auto": the DD LU for n <= 32 and for stacks (the
        batched kernel), else "refine".
    info : dict, optional
        Filled with "method" (what produced x: "refine", "gmres-ir", "dd-lu",
        "dd-cholesky", "dd-lu (batched)", "diagonal", "triangular substitution"),
        "iterations", "backward_errors" (one per iteration: max over columns of
        ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf), before each correction),
        "stopped" (why), "switched" (each switch and why). For a stack solved one system at a
        time (method="refine"), "systems" holds one such dict per system.

    Returns
    -------
    DDArray
        x, shape broadcast(a.shape[:-2], b's stack) + (n,) or (n, k).

    Raises
    ------
    ValueError
        a not square, b's shape not matching, inf/nan entries, bad assume_a or method.
    LinAlgError
        a singular: an exact zero pivot of the DD LU ("U[j, j] is exactly zero", .index = j,
        .batch_index the matrix's index in a's stack) or, for "diagonal" and the triangular
        kinds, an exactly zero diagonal entry; assume_a="pos" and a not positive definite (in
        float64 and in DD): the leading minor (.index).
    OverflowError
        The LU factors overflow even after the scaling below (element growth past 2^512).

    Notes
    -----
    A matrix with entries >= 2^512 (or a column of b) is scaled by a power of two that puts
    its largest entry into [2^511, 2^512), and x scaled back (exact but for parts that become
    subnormal; the backward errors are those of the unscaled system), so that neither the
    factors nor |A| |x| overflow unless x does. Rows of A whose magnitudes span more than 2^500
    ("gen", "sym") are equilibrated by powers of two, and so are columns of A (and of b) whose
    magnitudes lie below 2^-500, and outside the batched path columns of A whose magnitudes
    differ by more than 2^16 (info's backward errors are then the equilibrated system's:
    docs/linalg.md, "Equilibration").

    Converged refinement gives a normwise backward error <= max(n, 16) u^2 (u^2 = 2^-106; it
    refines on to 16 u^2 while the corrections shrink) and a
    forward error ~ cond(A, x) u^2; the DD LU's backward error is bounded by gamma_3n |L| |U|
    (Higham Thm. 9.4 with DD arithmetic). docs/linalg.md states the conditions and bounds.
    """
    del overwrite_a, overwrite_b
    assume_a = "gen" if assume_a is None else assume_a
    _choice(assume_a, ASSUME_A, "assume_a")
    kind = ASSUME_A[assume_a]
    _choice(method, METHODS, "method")
    if info is not None and not isinstance(info, dict):
        raise ValueError(f"info must be a dict or None, got {type(info).__name__}")
    a, b = ops.on_one_device(a, b, names=("a", "b"))
    require_square_stack(a, "a")
    if transposed and kind not in ("sym", "pos"):
        a = DDArray(a.hi.swapaxes(-1, -2), a.lo.swapaxes(-1, -2), normalize=False)
        kind = {"upper": "lower", "lower": "upper"}.get(kind, kind)
    n = a.shape[-1]
    vector = b.ndim == 1
    bm = b.reshape(n, 1) if vector and b.shape == (n,) else b
    if b.ndim == 0 or bm.ndim < 2 or bm.shape[-2] != n:
        raise ValueError(f"b must have shape ({n},) or (..., {n}, k) to match a of shape "
                         f"{a.shape}, got {b.shape}")
    own = a.shape[:-2]
    stack = broadcast_shape(own, bm.shape[:-2])
    k = bm.shape[-1]
    log = {"method": None, "iterations": 0, "backward_errors": [], "stopped": None,
           "switched": []}
    out_shape = stack + ((n,) if vector else (n, k))
    if kind in ("diagonal", "upper", "lower") and (kind == "diagonal" or not stack):
        x = _solve_structured(a, bm, kind, bool(check_finite), log)
        if info is not None:
            info.clear()
            info.update(log)
        return x.reshape(out_shape)
    if kind in _BAND:   # only the band that SciPy reads
        xp = a.xp
        a = DDArray(_BAND[kind](xp, a.hi), _BAND[kind](xp, a.lo), normalize=False)
        kind = "gen"
    x = None
    if kind == "gen" and method != "refine" and (stack or n <= SMALL_ORDER) and n and k \
            and math.prod(stack):   # the batched DD LU, its checks from the kernels' report
        x = _dd_lu_solve_stack(_stacked(a, stack), _stacked(bm, stack), stack or (1,), own,
                               check=bool(check_finite))
        if x is not None:   # (None: entries that solve must scale first)
            _log_direct(log, "dd-lu (batched)" if stack else "dd-lu")
    if x is None:
        if check_finite:
            require_finite((a, "a"), (b, "b"))
        if kind != "gen":
            a = _symmetrized(a, bool(lower))
        x = _solve_scaled(a, bm, stack, kind, method, log)
    if info is not None:
        info.clear()
        info.update(log)
    return x if x.shape == out_shape else x.reshape(out_shape)


# the band of a (..., n, n) array that solve reads for a stack of triangular or tridiagonal
# matrices (a single triangular matrix goes to solve_triangular)
_BAND = {"upper": lambda xp, x: xp.triu(x), "lower": lambda xp, x: xp.tril(x),
         "tridiagonal": lambda xp, x: xp.triu(xp.tril(x, 1), -1)}


def _solve_structured(a: DDArray, b: DDArray, kind: str, check_finite: bool,
                      log: dict) -> DDArray:
    """solve's X for assume_a "diagonal" (a (..., n, n), b (..., n, k): X = B / diag(A), the
    stacks broadcast) or, for one matrix, "upper" / "lower" (solve_triangular)."""
    if check_finite:
        require_finite((a, "a"), (b, "b"))
    log["method"] = "diagonal" if kind == "diagonal" else "triangular substitution"
    log["stopped"] = f"{log['method']}: direct solve (backward error bound: docs/linalg.md)"
    if kind != "diagonal":
        if a.size and b.size:   # scaled as "gen" (a triangle stays one): R A D y = R b, x = D y
            return _solve_scaled(a, b, (), kind, "auto", log)
        return solve_triangular(a, b, lower=kind == "lower", check_finite=False)
    xp = a.xp
    d = DDArray(xp.diagonal(a.hi, axis1=-2, axis2=-1), xp.diagonal(a.lo, axis1=-2, axis2=-1),
                normalize=False)
    zero = d.hi == 0
    if bool(zero.any()):
        where = tuple(int(i) for i in xp.argwhere(zero)[0])
        index, p = where[-1], where[:-1]
        error = LinAlgError(f"a[{index}, {index}] is exactly zero: the diagonal matrix is "
                            f"singular", index)
        raise in_stack(error, p) if p else error
    # each quotient of operands scaled into [1/2, 1), then scaled back (exact but where x_i is
    # subnormal): the DD division assumes no underflow, and b_i / d_i of tiny operands lost
    # their bits (2.2e-308 / 1e-300 was float64-accurate: 1.4e15 u^2)
    d = d[..., :, None]
    d_shift, b_shift = _entry_exponents(d), _entry_exponents(b)
    quotient = ops.divide(scale_wide(b, -b_shift), scale_wide(d, -d_shift))
    return scale_wider(quotient, b_shift - d_shift)


def _entry_exponents(x: DDArray):
    """k (int64, x's shape) with each entry x 2^-k in [1/2, 1); 0 where x is 0, inf or NaN."""
    xp = x.xp
    regular = xp.isfinite(x.hi) & (x.hi != 0)
    return xp.where(regular, xp.frexp(xp.where(regular, x.hi, 1.0))[1], 0).astype(np.int64)


def _transposed(columns):
    """(..., 1, n) column exponents as (..., n, 1): the same per row of x (or of b)."""
    return columns.swapaxes(-1, -2)


def _solve_scaled(a: DDArray, b: DDArray, stack: tuple, assume_a: str, method: str,
                  log: dict) -> DDArray:
    """X (stack + (n, k)) for solve's A X = B (a (*own, n, n), b (..., n, k) with finite or
    checked entries, their stacks broadcast to `stack`) after the power-of-two scaling of
    entries >= 2^512 (x scaled back): one system (_solve_one), a stack one system at a time
    (method="refine"), or the batched DD LU."""
    n, k, own = a.shape[-1], b.shape[-1], a.shape[:-2]
    # rows spanning more than 2^row_spread(): each into [1/2, 1), R A x = R b with R = 2^-kr (x
    # unchanged; not for "pos", whose Cholesky needs the symmetric scaling below). The LU's
    # multipliers (ratios of rows) underflowed otherwise ([[1e150, 1e150], [1e-200, -1e-200]]
    # gave x = [2, 0]), one scaling of the whole matrix flushed the small rows ([[1e300, 1e300],
    # [1e-300, -1e-300]] was "singular"), and rows brought down only as far as the smallest one
    # left DD values near 2^-997 with subnormal low parts
    rows = row_exponents(a) if assume_a != "pos" else None
    # columns near DBL_MAX, or of very different or tiny magnitudes: A D y = b with D = 2^-kc
    # (2^-kc A 2^-kc y = 2^-kc b for "pos"), x = D y; otherwise the normwise backward error that
    # stops the refinement is met by the float64 solution (columns 2^+-30: x only
    # float64-accurate), and one scaling of the whole matrix took tiny columns beside huge ones
    # into the subnormals (diag(1e200, 3e-290) was singular). The columns are those of R A, from
    # A's exponents, and R A D is formed in one step an entry: R A formed first flushed the
    # entries of a row spanning more than float64's range ([[2^-900, 2^900], [0, 1]] was
    # "singular")
    # (rows whose scaling would flush entries that the columns' alone keeps are left alone)
    rows = rows_keeping_entries(a, rows, lambda r: column_exponents(a, False, r))
    columns = column_exponents(a, assume_a == "pos", rows)
    if rows is not None:
        a = scale_wider(a, -(rows if columns is None else rows + columns))
    elif columns is not None:
        a = scale_wide(a, -columns)
        if assume_a == "pos":
            a = scale_wide(a, -_transposed(columns))
            b = scale_wide(b, -_transposed(columns))
    # what remains >= 2^512 (columns of like magnitudes, or off-diagonal entries of a symmetric
    # a that is not positive definite): A 2^-ka y = b, y = x 2^ka, the same backward errors
    shift_a = downscale_exponents(a, (a.ndim - 2, a.ndim - 1))
    a = _scaled(a, shift_a)
    if rows is None:
        shift_b = range_exponents(b, (b.ndim - 2,))   # each column of b into range: y = x 2^-kb
        b = _scaled(b, shift_b)
    else:   # R b 2^-kb in one step per entry: R b itself may leave float64's range
        shift_b = row_scaled_range_exponents(b, rows)
        b = scale_wider(b, -(rows + shift_b))
    shape = stack + (n, k)
    if n == 0 or k == 0 or math.prod(stack) == 0:
        xp = a.xp
        log["stopped"] = "empty system"
        x = DDArray(xp.zeros(shape), xp.zeros(shape), normalize=False)
    elif not stack:
        x = _solve_one(a, b, assume_a, method, log)
    else:
        batch = math.prod(stack)
        a3, b3 = _stacked(a, stack), _stacked(b, stack)
        if method == "refine":
            log["method"], log["systems"] = "refine (one system at a time)", []
            xs = []
            for p in range(batch):
                log["systems"].append({"method": None, "iterations": 0, "backward_errors": [],
                                       "stopped": None, "switched": []})
                try:
                    xs.append(_solve_one(a3[p], b3[p], assume_a, method, log["systems"][-1]))
                except LinAlgError as error:
                    raise in_stack(error, stack_index(p, stack, own)) from None
            xp = a.xp
            x = DDArray(xp.stack([v.hi for v in xs]), xp.stack([v.lo for v in xs]),
                        normalize=False)
        else:
            if assume_a == "pos":  # SciPy's contract: not positive definite is an error
                cholesky(a, lower=True, check_finite=False)
            _log_direct(log, "dd-lu (batched)")
            x = _dd_lu_solve_stack(a3, b3, stack, own)
    back = shift_b - shift_a - (0 if columns is None else _transposed(columns))
    return _scaled(x.reshape(shape), -back)


def inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False) -> DDArray:
    """The inverse of a square matrix (or of each matrix of a stack (..., n, n)) in DD, with
    scipy.linalg.inv's arguments: solve(a, I, lower=lower, assume_a=assume_a) (so method
    "auto": the refinement chain, or the batched DD LU for small and stacked matrices;
    assume_a and lower as solve's, SciPy's names, reading only what SciPy reads).
    overwrite_a is accepted for SciPy compatibility; a is never modified. LinAlgError for a
    singular matrix or, as NumPy's inv, for a non-square a (ddblas.linalg.LinAlgError, a
    ValueError too), ValueError for a non-finite a. Each column x_j of the
    result has solve()'s backward error."""
    del overwrite_a
    (a,) = ops.on_one_device(a, names=("a",))
    require_square_stack(a, "a")
    n = a.shape[-1]
    xp = a.xp
    eye = DDArray(xp.eye(n), xp.zeros((n, n)), normalize=False)
    return solve(a, eye, lower=lower, check_finite=check_finite, assume_a=assume_a)


def _diagonal_product(a: DDArray, shift):
    """(det, mantissa, exponent) over the stack of a (..., n, n) (exponents plus shift, an int
    array of a's stack shape) from a DD LU with partial pivoting: the batched kernel for stacks
    and n <= SMALL_ORDER, else factor.lu_factor (an exact zero pivot there means det = 0).
    OverflowError where the factors of a finite a overflow."""
    stack, n = a.shape[:-2], a.shape[-1]
    batch = math.prod(stack)
    opts = get_options()
    xp = a.xp
    if stack or n <= SMALL_ORDER:
        f = batched.lu_factor(a.reshape(batch, n, n), opts)
        hi, lo = batched.factor_views(f)
        piv = f.piv
    else:
        try:
            lu, piv = lu_factor(a, check_finite=False)
        except LinAlgError:
            zero = DDArray(xp.zeros(()), xp.zeros(()), normalize=False)
            return zero, zero, xp.zeros((), dtype=np.int64)
        hi, lo, piv = lu.hi[None], lu.lo[None], piv.astype(np.int64)[None]
    det, mantissa, exponent = batched.diagonal_product(hi, lo, piv, shift.reshape(batch), opts,
                                                       a.device)
    # factors that left float64's range: the product need not show it (an overflowed entry
    # became a nan, which lost the next pivot search to a 0: "singular", det 0)
    factors_finite = xp.isfinite(hi).all(axis=(-2, -1))
    require_finite_factors(xp.isfinite(mantissa.hi) & factors_finite.reshape(mantissa.shape),
                           a, stack, stack)
    return det.reshape(stack), mantissa.reshape(stack), exponent.reshape(stack)


def _lu_diagonal_product(a, check_finite: bool):
    """_diagonal_product of a with its rows scaled into [1/2, 1) where their largest entries
    span more than row_spread() binades (LU's multipliers would underflow: 3e-250 under 1e308 was
    lost) and its columns below 2^tiny_exponent() scaled up, by powers of two (det(2^-R A 2^-K)
    2^(sum R + sum K) = det(A), exact), so that tiny entries keep their bits; where the LU
    overflows, its columns near DBL_MAX scaled down as well, and where it still does (pivot
    growth), every column scaled into [1/2, 1). Columns of ordinary magnitudes, and huge ones
    whose LU does not overflow, are not touched (a column scaled down loses its own entries
    below 2^-1074 of the new scale)."""
    (a,) = ops.on_one_device(a, names=("a",))
    require_square_stack(a, "a")
    if check_finite:
        require_finite((a, "a"))
    rows, columns = (a.ndim - 1,), (a.ndim - 2,)
    row_shift = unit_exponents(a, rows)
    if a.size:   # rows 2^row_spread() apart: equilibrated
        spread = row_shift.max(axis=-2, keepdims=True) - row_shift.min(axis=-2, keepdims=True)
        row_shift = a.xp.where(spread > row_spread(), row_shift, 0)
        row_shift = rows_keeping_entries(
            a, row_shift if bool((row_shift != 0).any()) else None,
            lambda r: a.xp.minimum(range_exponents(a, columns, r), 0))
        row_shift = _zeros_like_rows(a) if row_shift is None else row_shift
    # the columns' shifts are those of R A (R = 2^-row_shift), from A's exponents, and R A 2^-K
    # is formed in one step an entry: R A formed first flushed the entries of a row that spans
    # more than float64's range (det([[2^-900, 2^900], [0, 1]]) was 0)
    plans = (lambda: a.xp.minimum(range_exponents(a, columns, row_shift), 0),   # tiny columns up
             lambda: range_exponents(a, columns, row_shift),         # and huge ones down
             lambda: unit_exponents(a, columns, row_shift))          # every column
    for attempt, plan in enumerate(plans):
        shift = plan()
        both = row_shift + shift
        try:
            return _diagonal_product(scale_wider(a, -both) if bool((both != 0).any()) else a,
                                     shift.sum(axis=(-2, -1)) + row_shift.sum(axis=(-2, -1)))
        except OverflowError:
            if attempt == len(plans) - 1:
                raise


def _zeros_like_rows(a: DDArray):
    """Row exponents of 0, shaped (..., n, 1) for a (..., n, n)."""
    return a.xp.zeros(a.shape[:-1] + (1,), dtype=np.int64)


def _scaled(a: DDArray, shift) -> DDArray:
    """a 2^-shift (shift broadcasting with a); a itself where every shift is 0."""
    return scale_wide(a, -shift) if bool((shift != 0).any()) else a


def det(a, overwrite_a=False, check_finite=True) -> DDArray:
    """Determinant of a square matrix or of each matrix of a stack (..., n, n), in DD, with
    scipy.linalg.det's arguments (overwrite_a accepted; a is never modified): the
    product of U's diagonal of the DD LU with partial pivoting, times the permutation's sign
    (0 for an exactly singular matrix), kept as m 2^e so that it is inf/0 only where the
    determinant itself overflows/underflows float64 (a matrix whose LU overflows is factored
    scaled by a power of two, as solve scales it). Error: the LU's backward error
    (gamma_n |L||U|) plus (n - 1) c_mul u^2 relative for the product. LinAlgError (NumPy's
    error; a ValueError too) naming a for a non-square a, ValueError for a non-finite a."""
    del overwrite_a
    return _lu_diagonal_product(a, check_finite)[0]


class SlogdetResult(NamedTuple):
    """slogdet's result, as NumPy 2's: det = sign * exp(logabsdet)."""
    sign: object
    logabsdet: object


def slogdet(a, *, check_finite=True) -> SlogdetResult:
    """(sign, logabsdet) of a square matrix or a stack, as numpy.linalg.slogdet: det =
    sign * exp(logabsdet), never overflowing. sign: float64 (1, -1, or 0 for a singular
    matrix, then logabsdet = -inf); logabsdet: float64 (log |m| + e log 2 from the DD product
    m 2^e of the LU's diagonal, m's hi part, float64's log and ln 2, a product and a sum:
    |error| <= 2^-51 (1 + |logabsdet|) + the relative error of det, to first order).
    A non-square a (or one of fewer than 2 dimensions) raises ddblas.linalg.LinAlgError naming
    a, as NumPy raises numpy.linalg.LinAlgError (ours subclasses it, and ValueError)."""
    _, mantissa, exponent = _lu_diagonal_product(a, check_finite)
    xp = mantissa.xp
    m = mantissa.hi
    sign = xp.sign(m)
    with np.errstate(divide="ignore"):
        logabsdet = xp.where(m == 0, -xp.inf,
                             xp.log(xp.abs(xp.where(m == 0, 1.0, m))) + exponent * math.log(2.0))
    return SlogdetResult(sign[()], logabsdet[()])   # NumPy scalars for one matrix


def _inverse_norm_estimate(a: DDArray, p) -> float:
    """||A^-1||_p for p = 1 or inf, estimated: Hager's method as refined by Higham
    (Accuracy and Stability, Alg. 15.4; LAPACK dlacon) on the DD LU factors (lu_factor;
    A^-1 v and A^-T v by lu_solve), at most 5 iterations, then Higham's extra vector
    b_i = (-1)^i (1 + i / (n - 1)). A lower bound, in practice within a factor 3; the iterates'
    sign vectors and sums are float64 bookkeeping on the DD solves' leading parts.
    LinAlgError for an exactly singular A."""
    n = a.shape[0]
    xp = a.xp
    factors = lu_factor(a, check_finite=False)
    forward, adjoint = (0, 1) if p == 1 else (1, 0)   # ||A^-1||_inf = ||A^-T||_1

    def apply(v, trans):
        return lu_solve(factors, DDArray(v, xp.zeros_like(v), normalize=False), trans=trans,
                        check_finite=False).hi

    x = xp.full(n, 1.0 / n)
    estimate = 0.0
    for step in range(5):
        y = apply(x, forward)
        new = float(xp.abs(y).sum())
        if step and new <= estimate:
            break
        estimate = new
        z = apply(xp.where(y >= 0, 1.0, -1.0), adjoint)
        j = int(xp.argmax(xp.abs(z)))
        if step and float(xp.abs(z)[j]) <= float(z @ x):
            break
        x = xp.zeros(n)
        x[j] = 1.0
    alternating = (-1.0) ** xp.arange(n) * (1 + xp.arange(n) / max(n - 1, 1))
    return max(estimate, 2 * float(xp.abs(apply(alternating, forward)).sum()) / (3 * n))


def cond(a, p=None) -> DDArray:
    """Condition number ||A||_p ||A^-1||_p of a square matrix (or a stack) in DD.

    Parameters
    ----------
    a : DDArray or array_like, shape (..., n, n)
    p : {None, 1, -1, 2, -2, inf, -inf, 'fro'}
        None is the inf-norm here (a cheap estimate at large n), where numpy.linalg.cond's
        None is the 2-norm (numpy.linalg.cond on a DDArray keeps NumPy's meaning). 2 and -2:
        sigma_max / sigma_min and its inverse from svdvals, for any M x N matrix, as NumPy.

    Returns
    -------
    DDArray
        p = 2, -2: the singular values' ratio, within svdvals' bounds (docs/linalg.md
        "Singular values"); inf (2) or 0 (-2) for a singular matrix.
        For n <= COND_EXACT_ORDER (and every p but 1, 2 and inf) the inverse is computed (inv,
        solve's accuracy): the result is exact to about cond * u^2 relative, at O(n^3) DD cost
        per matrix. For a single matrix with n > COND_EXACT_ORDER and p = 1 or inf, ||A^-1||_p
        is estimated (Hager / Higham, Alg. 15.4, on the DD LU: a lower bound, usually within a
        factor 3). inf for an exactly singular matrix (each one of a stack).

    Raises
    ------
    LinAlgError
        a is not square (or has fewer than 2 dimensions), naming a, as numpy.linalg.cond
        raises numpy.linalg.LinAlgError for p other than None (ddblas.linalg.LinAlgError
        subclasses it, and ValueError); a is empty (NumPy's error).
    ValueError
        p is not one of the orders above (naming p); a holds an inf or a NaN (naming a).
    """
    p = math.inf if p is None else p
    if p not in (1, -1, 2, -2, math.inf, -math.inf, "fro"):
        raise ValueError(f"p must be None, 1, -1, 2, -2, inf, -inf or 'fro', got {p!r}")
    (a,) = ops.on_one_device(a, names=("a",))
    if p in (2, -2) and a.ndim >= 2 and a.size:
        require_finite((a, "a"), switch=False)
        s = svdvals(a)
        largest, smallest = s[..., 0], s[..., -1]
        return largest / smallest if p == 2 else smallest / largest
    require_square_stack(a, "a")
    if a.shape[-1] == 0:   # NumPy's error (numpy.linalg.LinAlgError is a ValueError); an empty
        # stack of non-empty matrices gives an empty result, as NumPy's
        raise np.linalg.LinAlgError("cond is not defined on empty arrays (a has shape "
                                    f"{tuple(a.shape)})")
    require_finite((a, "a"), switch=False)
    xp = a.xp
    # cond(A 2^-k) = cond(A): a matrix reaching 2^512 scaled below it and one below 2^-500 into
    # [1/2, 1), so that neither ||A|| (near DBL_MAX) nor A^-1 (of a tiny A) overflows where the
    # condition number itself does not; others as they are (their tiny entries keep their bits)
    a = _scaled(a, range_exponents(a, (a.ndim - 2, a.ndim - 1)))
    if a.ndim == 2 and a.shape[0] > COND_EXACT_ORDER and p in (1, math.inf):
        try:
            return ops.multiply(norm(a, p, axis=(-2, -1)), _inverse_norm_estimate(a, p))
        except LinAlgError:
            return DDArray(xp.full((), xp.inf), xp.zeros(()), normalize=False)
    singular = xp.zeros(a.shape[:-2], dtype=bool)
    try:
        a_inv = inv(a)
    except LinAlgError:  # inf for the singular matrices, the others' inverses as usual
        singular = xp.array(slogdet(a, check_finite=False).sign == 0)   # writable, 0-d too
        while True:   # and for those whose LU fails where slogdet's scaled one did not
            keep = singular[..., None, None]
            try:
                a_inv = inv(DDArray(xp.where(keep, xp.eye(a.shape[-1]), a.hi),
                                    xp.where(keep, 0.0, a.lo), normalize=False))
                break
            except LinAlgError as error:   # each matrix at most once
                where = () if error.batch_index is None else error.batch_index
                if bool(singular[where]):
                    raise
                singular[where] = True
    c = ops.multiply(norm(a, p, axis=(-2, -1)), norm(a_inv, p, axis=(-2, -1)))
    return DDArray(xp.where(singular, xp.inf, c.hi), xp.where(singular, 0.0, c.lo),
                   normalize=False)
