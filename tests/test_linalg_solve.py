"""ddblas.linalg's solvers (solve, inv, det, slogdet, norm, cond) and the batched DD LU kernels,
against exact rational arithmetic and mpmath at 320 bits: backward errors within the documented
bounds (docs/linalg.md), forward errors within c kappa u^2, the refinement chain's info, errors
for bad input, views, stacks, empty and 1x1 systems; the GPU's batched kernels equal the CPU's
bit for bit."""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import ddblas
from ddblas import accuracy, linalg
from ddblas.core.options import Options
from ddblas.linalg import batched
from ddblas.linalg.solve import COND_EXACT_ORDER
from ddvalues import (DIV, MUL, add_abs_constant, exact_values, random_matrix, random_stack,
                      same_bits)

U2 = Fraction(1, 2 ** 106)
PREC = 320


@functools.lru_cache(maxsize=None)
def _ill(n: int, kappa: float, seed: int) -> ddblas.DDArray:
    return accuracy.ill_conditioned_matrix(n, kappa, seed=seed)


def ill(n, kappa, seed, device):
    return _ill(n, kappa, seed).to_device(device)


def exact_matrix(x: ddblas.DDArray):
    """A 2-D DDArray's exact values as a list of rows of Fractions."""
    values = exact_values(x)
    cols = x.shape[1]
    return [values[i * cols:(i + 1) * cols] for i in range(x.shape[0])]


def backward_error(a, x, b) -> Fraction:
    """Exact normwise backward error (accuracy.solve_backward_error) as a multiple of u^2."""
    return accuracy.solve_backward_error(a, x, b) * U2


def forward_error(a, x, b) -> float:
    """max |x - x_exact| / max |x_exact| against mpmath's lu_solve at PREC bits (vector b)."""
    with mpmath.workprec(PREC):
        exact = mpmath.lu_solve(a.to_device("cpu").to_mpmath(), b.to_device("cpu").to_mpmath())
        got = x.to_device("cpu").to_mpmath()
        return float(max(abs(got[i] - exact[i]) for i in range(len(exact)))
                     / max(abs(v) for v in exact))


def unit_error(fma: bool, add: str) -> Fraction:
    """e of gamma_n = n e / (1 - n e) for the DD LU: the division and one madd (product, then
    sum) of the elimination, each bounded absolutely by the variant's constants."""
    mul = MUL[fma]
    return DIV + mul + add_abs_constant(add) * (1 + mul)


def gamma(n: int, e: Fraction) -> Fraction:
    return n * e / (1 - n * e)


# ---- the batched DD LU: Higham Thm. 9.3 and 9.4 with DD arithmetic, exactly ----
@pytest.mark.parametrize("n", [1, 2, 7])
def test_batched_lu_factor_backward_error(device, variant, n):
    a = random_stack(3, n, n, seed=n, device=device)
    opts = Options(**variant)
    f = batched.lu_factor(a, opts)
    zero_pivot, piv = (v.get() if device == "gpu" else v for v in (f.zero_pivot, f.piv))
    assert (zero_pivot == -1).all()
    hi, lo = batched.factor_views(f)
    lu = ddblas.DDArray(hi, lo, normalize=False).to_device("cpu")
    g = gamma(n, unit_error(**variant))
    for p in range(3):
        A = exact_matrix(a[p])
        for k in range(n):  # P A: LAPACK's interchanges in order
            A[k], A[int(piv[p, k])] = A[int(piv[p, k])], A[k]
        F = exact_matrix(lu[p])
        L = [[F[i][j] if j < i else Fraction(i == j) for j in range(n)] for i in range(n)]
        U = [[F[i][j] if j >= i else Fraction(0) for j in range(n)] for i in range(n)]
        for i in range(n):
            assert all(abs(L[i][j]) <= 1 for j in range(n))  # partial pivoting
            for j in range(n):
                lu_ij = sum(L[i][k] * U[k][j] for k in range(n))
                abs_ij = sum(abs(L[i][k] * U[k][j]) for k in range(n))
                assert abs(A[i][j] - lu_ij) <= g * abs_ij


@pytest.mark.parametrize("n, k", [(1, 1), (5, 1), (9, 3)])
def test_batched_solve_backward_error(device, variant, n, k):
    a = random_stack(4, n, n, seed=10 + n, device=device)
    b = random_stack(4, n, k, seed=20 + n, device=device)
    with ddblas.options(**variant):
        x = linalg.solve(a, b)
    # Thm. 9.4: |dA| <= gamma_3n |L||U|; normwise || |L||U| || <= n rho ||A|| with the growth
    # factor rho, measured below 4 for these random matrices (not a proof: 2^(n-1) is)
    bound = gamma(3 * n, unit_error(**variant)) * n * 4
    for p in range(4):
        assert backward_error(a[p].to_device("cpu"), x[p].to_device("cpu"),
                              b[p].to_device("cpu")) <= bound


def test_batched_gpu_equals_cpu(device, variant):
    a = random_stack(33, 19, 19, seed=1, device="cpu")
    b = random_stack(33, 19, 2, seed=2, device="cpu")
    with ddblas.options(**variant):
        x_cpu = linalg.solve(a, b)
        x_dev = linalg.solve(a.to_device(device), b.to_device(device))
        d_cpu, d_dev = linalg.det(a), linalg.det(a.to_device(device))
    assert same_bits(x_cpu, x_dev)
    assert same_bits(d_cpu, d_dev)


# The GPU's team kernels (lu_team16 / 32 / 64, lu_solve_team) around each shape boundary,
# teams per warp and block not dividing the batch; above 64, one thread a system again.
TEAM_ORDERS = [1, 2, 9, 11, 16, 17, 31, 32, 33, 40, 63, 64, 65]


def _team_inputs(n: int, batch: int, kind: str):
    """(a, b) on the CPU: random systems; "ties": small integers, so that many pivot candidates
    have equal magnitudes (the first row must win on both devices); "singular": every third
    system with a zero column (the factorization goes on past the zero pivot)."""
    if kind == "ties":
        rng = np.random.default_rng(n)
        a = ddblas.asarray(rng.integers(-2, 3, (batch, n, n)).astype(np.float64))
    else:
        a = random_stack(batch, n, n, seed=n, device="cpu")
    if kind == "singular":
        a64 = (a.hi.copy(), a.lo.copy())
        for x in a64:
            x[::3, :, n // 2] = 0.0
        a = ddblas.DDArray(*a64, normalize=False)
    return a, random_stack(batch, n, 2, seed=n + 1, device="cpu")


@pytest.mark.parametrize("n", TEAM_ORDERS)
@pytest.mark.parametrize("kind", ["random", "ties", "singular"])
def test_batched_team_kernels_equal_cpu(device, n, kind):
    if device != "gpu":
        pytest.skip("the team kernels run on the GPU; the CPU is the reference")
    batch = 37
    a, b = _team_inputs(n, batch, kind)
    f_cpu = batched.lu_factor(a, Options())
    f_gpu = batched.lu_factor(a.to_device("gpu"), Options())
    assert np.array_equal(f_cpu.piv, f_gpu.piv.get())
    assert np.array_equal(f_cpu.zero_pivot, f_gpu.zero_pivot.get())
    for x, y in zip(batched.factor_views(f_cpu), batched.factor_views(f_gpu)):
        assert same_bits(x, y)
    if kind == "singular":
        assert (f_cpu.zero_pivot[::3] >= 0).all()
    keep = f_cpu.zero_pivot < 0   # solve raises for a singular system
    a, b = a[keep], b[keep]
    x_cpu = linalg.solve(a, b)
    assert same_bits(x_cpu, linalg.solve(a.to_device("gpu"), b.to_device("gpu")))


def test_batched_team_kernels_views_and_variants(device, variant):
    if device != "gpu":
        pytest.skip("the team kernels run on the GPU; the CPU is the reference")
    base = random_stack(7, 40, 40, seed=3, device="cpu")
    rhs = random_stack(7, 40, 3, seed=4, device="cpu")
    for a in (base[:, ::2, ::2], base[:, :20, :20].transpose(0, 2, 1), base[:, 5:38, 3:36],
              ddblas.DDArray(np.broadcast_to(base.hi[0], (5, 40, 40)),
                             np.broadcast_to(base.lo[0], (5, 40, 40)), normalize=False)):
        n, count = a.shape[-1], a.shape[0]
        b = rhs[:count, :n, ::2]
        with ddblas.options(**variant):
            x_cpu = linalg.solve(a, b)
            x_gpu = linalg.solve(a.to_device("gpu"), b.to_device("gpu"))
        assert same_bits(x_cpu, x_gpu), (n, a.hi.strides)


# ---- refinement: LU-IR, GMRES-IR, the DD LU as last resort ----
@pytest.mark.parametrize("kappa", [1e2, 1e8, 1e12, 1e16])
def test_refine_backward_and_forward_error(device, kappa):
    n = 12
    a = ill(n, kappa, 1, device)
    b = accuracy.random_dd((n,), exponents=(0, 0), seed=2, device=device)
    info = {}
    x = linalg.solve(a, b, method="refine", info=info)
    if kappa <= 1e12:  # kappa u_fp64 < 1e-4: LU-IR converges
        assert info["method"] == "refine" and info["switched"] == []
    else:  # kappa u_fp64 ~ 1: LU-IR or, if its float64 LU stagnates, GMRES-IR
        assert info["method"] in ("refine", "gmres-ir")
    assert info["iterations"] == len(info["backward_errors"]) >= 1
    assert backward_error(a, x.reshape(n, 1), b.reshape(n, 1)) <= max(n, 16) * U2
    assert forward_error(a, x, b) <= 10 * n * kappa * 2.0 ** -106


def test_gmres_ir_takes_over_when_lu_ir_stagnates():
    n = 12
    a, b = ill(n, 1e18, 3, "cpu"), accuracy.random_dd((n,), exponents=(0, 0), seed=2)
    info = {}
    x = linalg.solve(a, b, method="refine", info=info)
    assert info["method"] == "gmres-ir"
    assert info["switched"] and info["switched"][0].startswith("refine: corrections stagnate")
    assert backward_error(a, x.reshape(n, 1), b.reshape(n, 1)) <= max(n, 16) * U2
    assert forward_error(a, x, b) <= 10 * n * 1e18 * 2.0 ** -106


@pytest.mark.parametrize("kappa", [1e22, 1e30])
def test_dd_lu_last_resort(device, kappa):
    n = 40
    a = ill(n, kappa, 4, device)
    b = accuracy.random_dd((n,), exponents=(0, 0), seed=5, device=device)
    info = {}
    x = linalg.solve(a, b, info=info)
    if kappa == 1e30:  # kappa u_fp64 = 1e14: GMRES-IR's preconditioner is useless too
        assert info["method"] == "dd-lu"
        assert len(info["switched"]) == 2  # refine, then gmres-ir gave up
    else:
        assert info["method"] in ("gmres-ir", "dd-lu")
    assert backward_error(a, x.reshape(n, 1), b.reshape(n, 1)) <= n * U2
    assert forward_error(a, x, b) <= 10 * n * kappa * 2.0 ** -106


@pytest.mark.parametrize("matrix", ["hilbert", "vandermonde"])
def test_classic_ill_conditioned(device, matrix):
    n = 10
    a = (accuracy.hilbert(n) if matrix == "hilbert"
         else accuracy.vandermonde([Fraction(i + 1, 7) for i in range(n)])).to_device(device)
    b = ddblas.ones(n, device=device)
    kappa = accuracy.matrix_condition(a)
    for method in ("auto", "refine", "dd-lu"):
        x = linalg.solve(a, b, method=method)
        assert backward_error(a, x.reshape(n, 1), b.reshape(n, 1)) <= 4 * n * U2
        assert forward_error(a, x, b) <= 10 * n * kappa * 2.0 ** -106


def test_positive_definite(device):
    n = 40
    m = random_matrix(n, n, seed=7, device=device, spread=0)
    a = m @ m.T + ddblas.eye(n, device=device) * n
    b = random_matrix(n, 2, seed=8, device=device, spread=0)
    info = {}
    x = linalg.solve(a, b, assume_a="pos", info=info)
    assert info["method"] == "refine"
    assert backward_error(a, x, b) <= max(n, 16) * U2


# ---- shapes, views, stacks, errors ----
def test_views_and_transposes_are_read_in_place(device):
    n = 40
    big = random_matrix(2 * n, 2 * n, seed=3, device=device, spread=2)
    b = random_matrix(n, 1, seed=4, device=device, spread=0)
    for view in (big[::2, 1::2], big[:n, :n].T):
        xp = view.xp
        copy = ddblas.DDArray(xp.ascontiguousarray(view.hi), xp.ascontiguousarray(view.lo))
        for method in ("refine", "dd-lu"):
            assert same_bits(linalg.solve(view, b, method=method),
                             linalg.solve(copy, b, method=method))
    assert same_bits(big.hi[:2, :2], big.hi[:2, :2])  # the caller's arrays are not modified


def test_shapes_and_broadcasting(device):
    a = random_stack(6, 5, 5, seed=1, device=device).reshape(2, 3, 5, 5)
    b = random_matrix(5, 1, seed=2, device=device).reshape(5)
    x = linalg.solve(a, b)
    assert x.shape == (2, 3, 5)
    for i in range(2):
        for j in range(3):
            assert same_bits(x[i, j], linalg.solve(a[i, j], b))
    bm = random_stack(3, 5, 2, seed=3, device=device)
    assert linalg.solve(a, bm).shape == (2, 3, 5, 2)
    empty = linalg.solve(ddblas.zeros((0, 0), device=device), ddblas.zeros(0, device=device))
    assert empty.shape == (0,)
    assert linalg.solve(a[:, :0], bm[:0]).shape == (2, 0, 5, 2)
    one = linalg.solve(ddblas.array([[3.0]], device=device), ddblas.array([1.0], device=device))
    assert exact_values(one)[0] - Fraction(1, 3) <= DIV * Fraction(1, 3)


def test_stack_refine_fills_one_info_per_system(device):
    a = random_stack(3, 4, 4, seed=5, device=device)
    b = random_stack(3, 4, 1, seed=6, device=device)
    info = {}
    x = linalg.solve(a, b, method="refine", info=info)
    assert len(info["systems"]) == 3 and all(s["method"] for s in info["systems"])
    assert x.shape == (3, 4, 1)


def test_singular_matrices_name_the_pivot(device):
    a = ddblas.array([[1.0, 2.0], [2.0, 4.0]], device=device)
    with pytest.raises(linalg.LinAlgError, match=r"U\[1, 1\]"):
        linalg.solve(a, ddblas.ones(2, device=device))
    assert issubclass(linalg.LinAlgError, np.linalg.LinAlgError)
    stack = ddblas.zeros((3, 3, 3), device=device) + ddblas.eye(3, device=device)
    stack[2, 1] = ddblas.zeros(3, device=device)
    with pytest.raises(linalg.LinAlgError, match=r"U\[1, 1\].*a\[2\]") as raised:
        linalg.solve(stack, ddblas.ones(3, device=device))
    assert (raised.value.index, raised.value.batch_index) == (1, 2)
    big = random_matrix(40, 40, seed=1, device=device)
    big[:, 7] = ddblas.zeros(40, device=device)
    info = {}
    with pytest.raises(linalg.LinAlgError, match=r"U\[7, 7\]"):
        linalg.solve(big, ddblas.ones(40, device=device), info=info)
    assert linalg.det(a).hi == 0 and linalg.slogdet(a)[1] == -np.inf
    assert linalg.det(big).hi == 0 and linalg.slogdet(big)[0] == 0


def test_not_positive_definite_names_the_minor(device):
    n = 40
    a = ddblas.eye(n, device=device)
    a[5, 5] = ddblas.array(-1.0, device=device)
    with pytest.raises(linalg.LinAlgError, match="minor of order 6") as raised:
        linalg.solve(a, ddblas.ones(n, device=device), assume_a="pos")
    assert raised.value.index == 6
    stack = ddblas.zeros((3, 4, 4), device=device) + ddblas.eye(4, device=device)
    stack[1, 2, 2] = ddblas.array(-2.0, device=device)
    with pytest.raises(linalg.LinAlgError, match="minor of order 3") as raised:
        linalg.solve(stack, ddblas.ones(4, device=device), assume_a="pos")
    assert raised.value.batch_index == 1
    info = {}
    x = linalg.solve(a, ddblas.ones(n, device=device), info=info)  # LU does not care
    assert info["method"] == "refine" and float(x[5].hi) == -1.0


def test_large_single_matrix_dd_paths_agree_with_batched(device):
    n = 40
    a = random_matrix(n, n, seed=12, device=device, spread=3)
    b = random_matrix(n, 1, seed=13, device=device, spread=0)
    info = {}
    x = linalg.solve(a, b, method="dd-lu", info=info)
    assert info["method"] == "dd-lu"
    assert backward_error(a.to_device("cpu"), x.to_device("cpu"), b.to_device("cpu")) <= n * U2
    d_single, d_stack = linalg.det(a), linalg.det(a.reshape(1, n, n))
    with mpmath.workprec(PREC):
        exact = mpmath.det(a.to_device("cpu").to_mpmath())
    for d in (d_single, d_stack.reshape(())):
        assert abs(d.to_device("cpu").to_mpmath() - exact) <= 1e-25 * abs(exact)


@pytest.mark.parametrize("args, kwargs, match", [
    ((np.ones((2, 3)), np.ones(2)), {}, "^a must be a square"),
    ((np.ones(3), np.ones(3)), {}, "^a must be a square"),
    ((np.eye(3), np.ones(2)), {}, "^b must have shape"),
    ((np.eye(3), np.ones((2, 3))), {}, "^b must have shape"),
    ((np.eye(2) * np.nan, np.ones(2)), {}, "^a must not contain infs or NaNs"),
    ((np.eye(2), [np.inf, 1]), {}, "^b must not contain infs or NaNs"),
    ((np.eye(2), np.ones(2)), {"assume_a": "her"}, "^assume_a must be one of"),
    ((np.eye(2), np.ones(2)), {"method": "lu"}, "^method must be one of"),
    ((np.eye(2), np.ones(2)), {"info": []}, "^info must be a dict"),
])
def test_bad_input_names_the_argument(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        linalg.solve(*args, **kwargs)


# ---- inv, det, slogdet, cond ----
def test_inv_det_slogdet_cond(device):
    n = 8
    a = ill(n, 1e10, 6, device)
    with mpmath.workprec(PREC):
        m = a.to_device("cpu").to_mpmath()
        exact_det = mpmath.det(m)
        exact_inv = mpmath.inverse(m)
    kappa = 1e10 * n
    x = linalg.inv(a).to_device("cpu").to_mpmath()
    scale = max(abs(v) for v in exact_inv)
    assert max(abs(x[i, j] - exact_inv[i, j]) for i in range(n) for j in range(n)) \
        <= 10 * n * kappa * 2.0 ** -106 * scale
    d = linalg.det(a)
    assert abs(d.to_device("cpu").to_mpmath() - exact_det) \
        <= 10 * n * kappa * 2.0 ** -106 * abs(exact_det)
    sign, logabs = linalg.slogdet(a)
    assert float(sign) == float(mpmath.sign(exact_det))
    assert abs(float(logabs) - float(mpmath.log(abs(exact_det)))) \
        <= 1e-15 * max(1, abs(float(logabs)))
    c = float(linalg.cond(a, 1).hi)
    with mpmath.workprec(PREC):
        exact_c = mpmath.mnorm(m, 1) * mpmath.mnorm(exact_inv, 1)
    assert abs(c - float(exact_c)) <= 1e-12 * float(exact_c)
    with pytest.raises(ValueError, match="^p must be"):
        linalg.cond(a, 2)


def test_det_overflow_and_stacks(device):
    big = ddblas.eye(3, device=device) * ddblas.array(2.0 ** 600, device=device)
    assert linalg.det(big).hi == np.inf
    sign, logabs = linalg.slogdet(big)
    assert sign == 1 and abs(logabs - 1800 * math.log(2)) <= 1e-12 * 1800
    a = random_stack(5, 4, 4, seed=9, device=device)
    d = linalg.det(a)
    assert d.shape == (5,)
    for p in range(5):
        assert same_bits(d[p], linalg.det(a[p]))
    assert linalg.det(ddblas.zeros((2, 0, 0), device=device)).shape == (2,)
    assert exact_values(linalg.det(ddblas.zeros((2, 0, 0), device=device))) == [1, 1]


# ---- norms ----
def test_norms_exact(device):
    x = random_matrix(7, 5, seed=11, device=device, spread=300)
    X = exact_matrix(x)
    flat = [v for row in X for v in row]
    n_inf = max(sum(abs(v) for v in row) for row in X)
    n_one = max(sum(abs(X[i][j]) for i in range(7)) for j in range(5))
    assert exact_values(linalg.norm(x, np.inf)) == [n_inf] or \
        abs(exact_values(linalg.norm(x, np.inf))[0] - n_inf) <= 5 * 3 * U2 * n_inf
    assert abs(exact_values(linalg.norm(x, 1))[0] - n_one) <= 7 * 3 * U2 * n_one
    assert exact_values(linalg.norm(x[0], np.inf)) == [max(abs(v) for v in X[0])]
    assert exact_values(linalg.norm(x[0], -np.inf)) == [min(abs(v) for v in X[0])]
    with mpmath.workprec(PREC):
        fro = mpmath.sqrt(sum(mpmath.mpf(v.numerator) ** 2 / v.denominator ** 2 for v in flat))
        got = linalg.norm(x).to_device("cpu").to_mpmath()
        assert abs(got - fro) <= 64 * 2.0 ** -106 * fro
        got = linalg.norm(x, "fro", keepdims=True)
        assert got.shape == (1, 1)
    cols = linalg.norm(x, 2, axis=0)
    assert cols.shape == (5,)
    for ord_, match in ((2, "^ord must be"), ("nuc", "^ord must be"), (3, None)):
        with pytest.raises(ValueError, match=match):
            linalg.norm(x, ord_)


def test_two_norm_does_not_overflow_or_underflow(device):
    for scale in (2.0 ** 1000, 2.0 ** -1060):
        x = ddblas.array([3.0 * scale, 4.0 * scale], device=device)
        assert float(linalg.norm(x).hi) == 5.0 * scale


def test_solve_backward_error_is_exact():
    a, x = np.array([[2.0]]), np.array([1.0])
    b = np.array([2.0 + 2.0 ** -50])
    expected = Fraction(2 ** -50) / (2 + Fraction(2.0 + 2.0 ** -50))
    assert accuracy.solve_backward_error(a, x, b) == float(expected / U2)
    assert accuracy.solve_backward_error(a, np.array([1.0 + 2.0 ** -51]), b) == 0.0
    with pytest.raises(ValueError, match="shapes do not match"):
        accuracy.solve_backward_error(a, np.ones(2), b)


@pytest.mark.parametrize("p", [1, np.inf])
def test_cond_estimator_beyond_the_exact_order(device, p):
    n = COND_EXACT_ORDER + 10
    a = random_matrix(n, n, seed=21, device=device, spread=4)
    estimate = float(linalg.cond(a, p).hi)
    exact = float((linalg.norm(a, p) * linalg.norm(linalg.inv(a), p)).hi)  # cond's exact path
    assert exact / 3 <= estimate <= exact * (1 + 1e-12)  # a lower bound, within a factor 3
    a[:, 3] = ddblas.zeros(n, device=device)
    assert float(linalg.cond(a, p).hi) == np.inf



def test_refinement_goes_on_to_16_u2(device):
    """n = 400, kappa = 1e10: a step reaches 16 u^2 < eta <= n u^2 (where the solver first
    stopped), refinement goes on, and the exact backward error ends at most 16 u^2."""
    from ddblas.tools.bench import conditioned_float64
    xp = ddblas.zeros(1, device=device).xp
    a64 = conditioned_float64(400, 1e10, xp)
    a = ddblas.DDArray(a64, xp.zeros_like(a64))
    b = ddblas.rgemm(a, ddblas.random((400, 1), seed=3, device=device))
    info = {}
    x = linalg.solve(a, b, info=info)
    etas = info["backward_errors"]
    assert info["method"] == "refine" and "<= 16 u^2" in info["stopped"]
    assert any(16 * U2 < eta <= 400 * U2 for eta in etas[:-1]) and etas[-1] <= 16 * U2
    assert backward_error(a.to_device("cpu"), x.to_device("cpu"), b.to_device("cpu")) <= 16 * U2
