"""ddblas.linalg's solvers (solve, inv, det, slogdet, norm, cond) and the batched DD LU kernels,
against exact rational arithmetic and mpmath at 320 bits: backward errors within the documented
bounds (docs/linalg.md), forward errors within c kappa u^2, the refinement chain's info, errors
for bad input, views, stacks, empty and 1x1 systems; the GPU's batched kernels equal the CPU's
bit for bit."""
from __future__ import annotations

import functools
import math
import warnings
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
    assert batched.read_summary(f.summary, 3, n) == batched.Summary(0, None)
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


@pytest.mark.parametrize("n, k", [(1, 1), (5, 1), (9, 3)])
def test_batched_transposed_solve_backward_error(device, variant, n, k):
    """The batched solve with A^T (lu_solve's trans=1 on stacks): (A + dA)^T x = b within the
    bound of A x = b above, exactly."""
    a = random_stack(4, n, n, seed=30 + n, device=device)
    b = random_stack(4, n, k, seed=40 + n, device=device)
    opts = Options(**variant)
    x = batched.lu_solve(batched.lu_factor(a, opts), b, opts, transposed=True)
    bound = gamma(3 * n, unit_error(**variant)) * n * 4
    for p in range(4):
        assert backward_error(a[p].T.to_device("cpu"), x[p].to_device("cpu"),
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


# The GPU's team kernels (lu_shared_quarter_warp up to 12, lu_shared_half_warp up to 17 and
# lu_shared_warp up to 32, its updates by single entries up to 21 and
# by groups of 2 x 2 from 22 on; lu_shared_small_block up to 48 and lu_shared_block up to 96,
# by groups and looking ahead; lu_solve_team) around each shape boundary, groups with a row and
# a column past the block (odd orders), systems per block not dividing the batch; above 96, one
# thread a system again.
TEAM_ORDERS = [1, 2, 9, 11, 12, 13, 16, 17, 18, 21, 22, 23, 24, 25, 31, 32, 33, 40, 42, 43, 48,
               49, 59, 60, 63, 64, 65, 95, 96, 97]


def _team_inputs(n: int, batch: int, kind: str):
    """(a, b) on the CPU: random systems; "ties": small integers, so that many pivot candidates
    have equal magnitudes (the first row must win on both devices); "singular": every third
    system with a zero column (the factorization goes on past the zero pivot); "special": NaN,
    inf and signed zeros among the candidates (the GPU ranks them by |hi| as an integer key,
    pivot_beats settling ties: NaNs last, +0 and -0 equal), a NaN low part (read as NaN),
    candidates of equal magnitude, zero pivots at the last two steps (the block teams' last
    look-ahead) and entries near DBL_MAX whose updates overflow (non-finite candidates made by
    the arithmetic)."""
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
    if kind == "special":
        hi, lo = a.hi.copy(), a.lo.copy()
        hi[::8, n // 3, 0] = np.nan             # a NaN candidate, then rows of NaNs
        hi[1::8, n - 1, 0] = np.inf             # an infinite pivot
        hi[2::8, :, 0], lo[2::8, :, 0] = 0.0, 0.0
        hi[2::8, ::2, 0] = -0.0                 # +0 and -0 tie: a zero pivot
        lo[3::8, n // 2, 0] = np.nan            # a NaN low part
        hi[5::8, :, n - 1], lo[5::8, :, n - 1] = 0.0, 0.0   # a zero pivot at the last step
        hi[6::8, :, n // 2], lo[6::8, :, n // 2] = 1.5e308, 0.0   # updates that overflow
        if n > 1:
            hi[4::8, :, 1], lo[4::8, :, 1] = np.copysign(1.0, hi[4::8, :, 1]), 0.0   # ties
            hi[7::8, :, n - 2], lo[7::8, :, n - 2] = 0.0, 0.0   # a zero pivot one step before
        a = ddblas.DDArray(hi, lo, normalize=False)
    return a, random_stack(batch, n, 2, seed=n + 1, device="cpu")


@pytest.mark.parametrize("n", TEAM_ORDERS)
@pytest.mark.parametrize("kind", ["random", "ties", "singular", "special"])
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
    # one right-hand side, each system's report, the same error for a singular stack
    outcomes = [_outcome(lambda: linalg.solve(x, y[..., :1]))
                for x, y in ((a, b), (a.to_device("gpu"), b.to_device("gpu")))]
    _same_outcome(*outcomes)
    # solve raises for a singular system and for non-finite entries
    keep = (f_cpu.zero_pivot < 0) & (np.isfinite(a.hi) & np.isfinite(a.lo)).all(axis=(1, 2))
    a, b = a[keep], b[keep]
    x_cpu = linalg.solve(a, b)
    assert same_bits(x_cpu, linalg.solve(a.to_device("gpu"), b.to_device("gpu")))
    # the transposed solve (lu_solve's trans=1 on stacks) with the same factors
    x_cpu = batched.lu_solve(batched.lu_factor(a, Options()), b, Options(), transposed=True)
    f_gpu = batched.lu_factor(a.to_device("gpu"), Options())
    assert same_bits(x_cpu, batched.lu_solve(f_gpu, b.to_device("gpu"), Options(),
                                             transposed=True))


@pytest.mark.parametrize("n", [1, 3, 9, 33, 64])
@pytest.mark.parametrize("kind", ["random", "ties", "singular", "special"])
def test_batched_solve_in_one_launch_equals_factor_then_solve(device, n, kind):
    """batched.solve's one launch (the CPU's solve kernel, the GPU's solve_shared up to order 48)
    gives lu_factor then lu_solve's bits and report, every variant."""
    a, b = _team_inputs(n, 37, kind)
    a, b = a.to_device(device), b.to_device(device)
    for fma in (True, False):
        for add in ("accurate", "sloppy"):
            opts = Options(fma=fma, add=add)
            one, two = batched.new_summary(a.xp), batched.new_summary(a.xp)
            x = batched.solve(a, b, opts, one)
            y = batched.lu_solve(batched.lu_factor(a, opts, two), b, opts)
            assert same_bits(x, y)
            assert batched.read_summary(one, 37, n) == batched.read_summary(two, 37, n)


@pytest.mark.parametrize("n", [1, 5, 19, 40, 64, 97])
def test_batched_summary_names_the_first_singular_system_and_every_flag(device, n):
    """The kernels' report is two words (BatchReport): the OR of every system's flags and the
    first singular system with its first zero pivot, by atomics from all systems at once. Here
    systems from 7 on are singular at pivots that vary, several hundred at once, behind a
    nonsingular system 6, with a large entry of a in one system and a NaN of b in another."""
    batch = 600
    a, b = random_stack(batch, n, n, seed=n, device="cpu"), random_stack(batch, n, 1, seed=1,
                                                                          device="cpu")
    a_hi, a_lo, b_hi = a.hi.copy(), a.lo.copy(), b.hi.copy()
    zero_columns = np.arange(batch) % n
    for p in range(7, batch):   # column k zero: k is the first zero pivot
        a_hi[p, :, zero_columns[p]] = a_lo[p, :, zero_columns[p]] = 0.0
    a_hi[3, n // 2, 0] = 2.0 ** 600
    b_hi[batch - 1, n - 1, 0] = np.nan
    a = ddblas.DDArray(a_hi, a_lo, normalize=False).to_device(device)
    b = ddblas.DDArray(b_hi, b.lo, normalize=False).to_device(device)
    bits = batched.report_bits()   # system 3's 2^600 is 2^500 above its others (n > 1)
    a_flags = bits["a_large"] | (bits["a_spread"] if n > 1 else 0)
    for run in ("solve", "factor"):
        summary = batched.new_summary(a.xp)
        if run == "solve":
            batched.solve(a, b, Options(), summary)
        else:
            f = batched.lu_factor(a, Options(), summary)
            zero = f.zero_pivot.get() if device == "gpu" else f.zero_pivot
            assert (zero[7:] == zero_columns[7:]).all() and (zero[:7] == -1).all()
        report = batched.read_summary(summary, batch, n)
        assert report.singular == (7, zero_columns[7])
        expected = a_flags | (bits["b_not_finite"] | bits["x_not_finite"]
                              if run == "solve" else 0)
        assert report.flags == expected
    # with the singular systems left out, the same flags and none singular
    summary = batched.new_summary(a.xp)
    batched.solve(a[:7], b[:7], Options(), summary)
    assert batched.read_summary(summary, 7, n) == batched.Summary(a_flags, None)


@pytest.mark.parametrize("n", [1, 2, 5, 16, 19, 40, 64, 97])
def test_batched_report_flags_entries_far_apart_across_the_team(device, n):
    """A_SPREAD: a matrix whose nonzero entries' exponents differ by more than row_spread()
    (500) is flagged for solve's row equilibration, the largest and the smallest entry taken from
    different threads of the team (2^300 at (0, 0), 2^-300 at (n - 1, n - 1) of an identity: on
    the block teams, different warps); 2^+-200 is not flagged, nor is any 1 x 1 matrix."""
    bits = batched.report_bits()
    for power, flagged in ((300, n > 1), (200, False)):
        a = np.repeat(np.eye(n)[None], 3, axis=0)
        a[1, 0, 0], a[1, n - 1, n - 1] = 2.0 ** power, 2.0 ** -power
        a = ddblas.asarray(a).to_device(device)
        b = ddblas.asarray(np.ones((3, n, 1))).to_device(device)
        for run in ("solve", "factor"):
            summary = batched.new_summary(a.xp)
            if run == "solve":
                batched.solve(a, b, Options(), summary)
            else:
                batched.lu_factor(a, Options(), summary)
            flags = batched.read_summary(summary, 3, n).flags
            assert flags == (bits["a_spread"] if flagged else 0), (power, run)
    # A_TINY and B_TINY: nonzero entries below 2^tiny_exponent() (-500): a 2^-501 I, one of b
    a = np.repeat(np.eye(n)[None], 3, axis=0) * 2.0 ** -501
    b = np.ones((3, n, 1))
    b[2, 0, 0] = -(2.0 ** -501)
    a, b = (ddblas.asarray(v).to_device(device) for v in (a, b))
    summary = batched.new_summary(a.xp)
    batched.solve(a, b, Options(), summary)
    assert batched.read_summary(summary, 3, n).flags == bits["a_tiny"] | bits["b_tiny"]


# solve_shared (the in-warp and small-block teams, up to order 48) carries the right-hand sides
# beside the matrix and substitutes them together, y_ir owned by lane (i nrhs + r) % L of the
# team's L lanes: more than L columns wrap round the lanes; where a block's systems with their
# columns exceed the device's shared memory (9 x 2000), and on the block teams (49), the
# separate kernels.
@pytest.mark.parametrize("n, nrhs, fused", [
    (1, 1, True), (5, 3, True), (9, 9, True), (9, 40, True), (19, 2, True), (19, 33, True),
    (32, 5, True), (33, 33, True), (48, 4, True), (48, 48, True), (49, 3, False),
    (9, 2000, False)])
def test_batched_solve_right_hand_sides_equal_cpu(device, n, nrhs, fused):
    if device != "gpu":
        pytest.skip("the team kernels run on the GPU; the CPU is the reference")
    assert batched._fused_solve("gpu", n, nrhs, Options()) == fused
    a = random_stack(11, n, n, seed=n, device="cpu")
    b = random_stack(11, n, nrhs, seed=nrhs, device="cpu")
    x_cpu = linalg.solve(a, b)
    assert same_bits(x_cpu, linalg.solve(a.to_device("gpu"), b.to_device("gpu")))
    bh = b.hi.copy()
    bh[7, n - 1, nrhs - 1] = np.nan   # the report's flag from the last column of one system
    bad = ddblas.DDArray(bh, b.lo, normalize=False)
    with pytest.raises(ValueError, match="^b must not contain infs or NaNs"):
        linalg.solve(a.to_device("gpu"), bad.to_device("gpu"))
    _same_outcome(_outcome(lambda: linalg.solve(a, bad, check_finite=False)),
                  _outcome(lambda: linalg.solve(a.to_device("gpu"), bad.to_device("gpu"),
                                                check_finite=False)))
    if nrhs == n:
        assert same_bits(linalg.inv(a), linalg.inv(a.to_device("gpu")))


@pytest.mark.parametrize("n", [16, 35])
def test_batched_solve_right_hand_sides_at_the_shared_memory_limit(device, n):
    """The most right-hand sides that the one-launch solve takes (a block's dynamic shared memory
    plus the kernel's static arrays within the device's limit; the static 72 bytes of the small
    block's pivot candidates of the time were once left out, and a launch asking for what the
    limit left without them failed) and one more (the separate kernels): the CPU's bits."""
    if device != "gpu":
        pytest.skip("the team kernels run on the GPU; the CPU is the reference")
    most = max(k for k in range(1, 1000) if batched._fused_solve("gpu", n, k, Options()))
    a = random_stack(2, n, n, seed=n, device="cpu")
    for nrhs in (most, most + 1):
        b = random_stack(2, n, nrhs, seed=nrhs, device="cpu")
        assert same_bits(linalg.solve(a, b), linalg.solve(a.to_device("gpu"), b.to_device("gpu")))


def _outcome(run):
    """run()'s result, or the exception it raised."""
    try:
        return run()
    except Exception as error:  # noqa: BLE001 (compared below)
        return error


def _same_outcome(expected, got) -> None:
    """The same exception (type and message) or the same bits."""
    if isinstance(expected, Exception):
        assert type(got) is type(expected) and str(got) == str(expected), (expected, got)
    else:
        assert not isinstance(got, Exception), got
        assert same_bits(expected, got)


def _report_case(n: int, case: str):
    """(a, b): 6 random systems of order n with one right-hand side (CPU), changed by `case`."""
    a = random_stack(6, n, n, seed=n, device="cpu")
    b = random_stack(6, n, 1, seed=n + 1, device="cpu")
    ah, al, bh, bl = a.hi.copy(), a.lo.copy(), b.hi.copy(), b.lo.copy()
    if case in ("nan_a", "large_and_nan"):
        ah[4, n - 1, 0] = np.nan
    if case == "nan_lo_a":   # finite hi, NaN lo: not finite, as ddblas.isfinite and `loaded` say
        al[4, 0, n - 1] = np.nan
    if case == "inf_b":
        bh[2, n // 2, 0] = -np.inf
    if case in ("large_a", "large_and_nan"):
        ah[3], al[3] = ah[3] * 2.0 ** 600, al[3] * 2.0 ** 600
    if case == "large_b":
        bh[5], bl[5] = bh[5] * 2.0 ** 700, bl[5] * 2.0 ** 700
    if case == "singular":
        ah[[2, 4], :, n // 2] = al[[2, 4], :, n // 2] = 0.0
    if case == "tiny_a":   # system 3 times 2^-900 (exact): its columns scaled up
        ah[3], al[3] = ah[3] * 2.0 ** -900, al[3] * 2.0 ** -900
    if case == "tiny_b":   # system 5's right-hand side times 2^-900 (exact): scaled up
        bh[5], bl[5] = bh[5] * 2.0 ** -900, bl[5] * 2.0 ** -900
    if case == "spread_a":   # system 3's last row 2^-700 times the others: equilibrated
        ah[3, n - 1], al[3, n - 1] = ah[3, n - 1] * 2.0 ** -700, al[3, n - 1] * 2.0 ** -700
    if case == "x_overflows":   # tiny pivots, b below 2^512: x = inf, returned as NumPy does
        ah[1], al[1] = np.eye(n) * 1e-300, 0.0
        bh[1], bl[1] = 1e150, 0.0
    return ddblas.DDArray(ah, al, normalize=False), ddblas.DDArray(bh, bl, normalize=False)


REPORT_CASES = ["nan_a", "nan_lo_a", "inf_b", "large_a", "large_b", "large_and_nan", "singular",
                "x_overflows", "spread_a", "tiny_a", "tiny_b"]


@pytest.mark.parametrize("n", [1, 5, 19, 32, 40, 70])
@pytest.mark.parametrize("case", REPORT_CASES)
def test_batched_solve_report_replaces_the_checks(device, n, case):
    """Stacks (and small single systems) take their checks from the batched kernels' report:
    check_finite's ValueError naming a or b (a NaN low part too: once read as finite, its
    system solved as if the NaN were not there), entries >= 2^512 solved through the power-of-two
    scaling (bits: x of A 2^600 is x of A times 2^-600), rows 2^700 apart solved with each row
    scaled into [1/2, 1) (bits: the batched solve of R A x = R b), the first singular system, an
    x that overflows returned."""
    a, b = (x.to_device(device) for x in _report_case(n, case))
    if case in ("nan_a", "nan_lo_a", "large_and_nan", "inf_b"):
        name = "b" if case == "inf_b" else "a"
        with pytest.raises(ValueError, match=f"^{name} must not contain infs or NaNs"):
            linalg.solve(a, b)
        x = linalg.solve(a, b, check_finite=False)   # no error: NaN/inf where they reach
        assert x.shape == b.shape
    elif case == "singular":
        with pytest.raises(linalg.LinAlgError, match=r"U\[\d+, \d+\] is exactly zero.*a\[2\]"):
            linalg.solve(a, b)
    elif case == "x_overflows":
        x = linalg.solve(a, b).to_device("cpu")
        assert np.isinf(x.hi[1]).any()
        assert np.isfinite(x.hi[[0, 2, 3, 4, 5]]).all()
    elif case in ("large_a", "large_b"):
        info = {}
        x = linalg.solve(a, b, info=info)
        assert info["method"] == "dd-lu (batched)"
        p, power = (3, -600) if case == "large_a" else (5, 700)
        y = linalg.solve(*(v.to_device(device) for v in _report_case(n, "random")))
        keep = [q for q in range(6) if q != p]
        assert same_bits(x[keep], y[keep])
        assert same_bits(x[p], y[p] * ddblas.asarray(2.0 ** power).to_device(device))
    elif case == "spread_a":
        info = {}
        x = linalg.solve(a, b, info=info)
        assert info["method"] == "dd-lu (batched)"
        y = linalg.solve(*(v.to_device(device) for v in _report_case(n, "random")))
        assert same_bits(x[[0, 1, 2, 4, 5]], y[[0, 1, 2, 4, 5]])
        a3, b3 = a.to_device("cpu")[3], b.to_device("cpu")[3]
        rows = np.frexp(np.max(np.abs(a3.hi), axis=1, keepdims=True))[1] if n > 1 else 0
        r_a = ddblas.DDArray(np.ldexp(a3.hi, -rows), np.ldexp(a3.lo, -rows), normalize=False)
        r_b = ddblas.DDArray(np.ldexp(b3.hi, -rows), np.ldexp(b3.lo, -rows), normalize=False)
        want = batched.solve(r_a[None].to_device(device), r_b[None].to_device(device), Options(),
                             batched.new_summary(a.xp))
        assert same_bits(x[3], want[0])
    elif case in ("tiny_a", "tiny_b"):   # as solved at full scale, within the rounding of 2^-k
        info = {}
        x = linalg.solve(a, b, info=info)
        assert info["method"] == "dd-lu (batched)"
        y = linalg.solve(*(v.to_device(device) for v in _report_case(n, "random")))
        p, power = (3, 900) if case == "tiny_a" else (5, -900)
        keep = [q for q in range(6) if q != p]
        assert same_bits(x[keep], y[keep])
        got = exact_values(x[p].reshape(n))
        want = exact_values(y[p].reshape(n))
        scale = Fraction(2) ** power
        assert all(abs(g - w * scale) <= 2.0 ** -100 * abs(w * scale) for g, w in zip(got, want))


@pytest.mark.parametrize("n", [1, 5, 19, 32, 40])
@pytest.mark.parametrize("case", REPORT_CASES)
@pytest.mark.parametrize("check_finite", [True, False])
def test_batched_solve_report_gpu_as_cpu(device, n, case, check_finite):
    """The GPU's report gives what the CPU's does: the same exception or the same bits, for a
    stack, a broadcast b and (n <= 32) a single system."""
    if device != "gpu":
        pytest.skip("the CPU is the reference")
    a, b = _report_case(n, case)
    runs = [lambda x, y: linalg.solve(x, y, check_finite=check_finite),
            lambda x, y: linalg.solve(x, y[0, :, 0], check_finite=check_finite)]
    if n <= 32:
        runs.append(lambda x, y: linalg.solve(x[4], y[4], check_finite=check_finite))
    for run in runs:
        expected = _outcome(lambda: run(a, b))
        got = _outcome(lambda: run(a.to_device("gpu"), b.to_device("gpu")))
        _same_outcome(expected, got)


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
    ((np.eye(2), np.ones(2)), {"assume_a": "hermitian positive"}, "^assume_a must be one of"),
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
        linalg.cond(a, 3)


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
    for ord_, match in ((3, "^ord must be"), ("max", "^ord must be")):
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


# ---- extreme scales: the power-of-two scaling, the backward error, det and slogdet ----
def _scaled_to(m: ddblas.DDArray, exponent: int) -> ddblas.DDArray:
    """m times the power of two that puts max |m| in [2^(exponent - 1), 2^exponent)."""
    shift = exponent - int(np.frexp(np.abs(m.hi).max())[1])
    return ddblas.DDArray(np.ldexp(m.hi, shift), np.ldexp(m.lo, shift), normalize=False)


@pytest.mark.parametrize("a_exp, b_exp", [(1024, 1000), (950, 1000)])
def test_refinement_at_any_scale(device, a_exp, b_exp):
    """kappa = 1e10, n = 40: max |a| near DBL_MAX (||A||_inf overflows: solve scales a and b by
    2^-64) or at 2^950 with b near 2^1000 (not scaled, ||A|| ||x|| overflows). The refinement
    reaches DD accuracy (the exact backward error, the forward error against mpmath), and its
    backward errors, stopping reason and x are those of the same system scaled by 2^-900, bit for
    bit: the measure and the decisions do not depend on the scale."""
    n = 40
    a = _scaled_to(_ill(n, 1e10, 2), a_exp).to_device(device)
    b = accuracy.random_dd((n,), exponents=(b_exp - 1, b_exp - 1), seed=5, device=device)
    info = {}
    x = linalg.solve(a, b, info=info)
    assert info["method"] == "refine"
    assert backward_error(a, x.reshape(n, 1), b.reshape(n, 1)) <= 16 * U2
    assert forward_error(a, x, b) <= 10 * n * 1e10 * 2.0 ** -106
    down = ddblas.array(2.0 ** -900, device=device)
    small = {}
    assert same_bits(x, linalg.solve(a * down, b * down, info=small))
    assert (small["backward_errors"], small["stopped"]) == (info["backward_errors"],
                                                            info["stopped"])


def _exact_solution(a, b) -> list:
    """A^-1 b exactly (Fractions; Gauss-Jordan on the exact values of 2-D a and 1-D b, DDArrays
    or float64 arrays)."""
    n = a.shape[0]
    rows = exact_matrix(ddblas.asarray(a).to_device("cpu"))
    rhs = exact_values(ddblas.asarray(b).to_device("cpu"))
    m = [rows[i] + [rhs[i]] for i in range(n)]
    for k in range(n):
        p = next(i for i in range(k, n) if m[i][k] != 0)
        m[k], m[p] = m[p], m[k]
        for i in range(n):
            if i != k and m[i][k]:
                f = m[i][k] / m[k][k]
                m[i] = [v - f * w for v, w in zip(m[i], m[k])]
    return [m[i][n] / m[i][i] for i in range(n)]


def test_factors_that_would_overflow(device):
    """A = [[1e308, 1e308], [-1e308, 1e308]] (kappa 1): its LU overflows (u_22 = 2e308), so
    solve, det and slogdet work on A 2^-64 (one matrix, inside a 40 x 40 identity for the
    blocked DD LU and the refinement, in a stack); lu_factor and lu, which must return A's own
    factors, raise OverflowError naming a."""
    big = np.array([[1e308, 1e308], [-1e308, 1e308]])
    b = ddblas.array([3e307, 1e307], device=device)
    a = ddblas.array(big, device=device)
    expected = _exact_solution(a, b)
    assert expected[0] != 0 and expected[1] != 0
    for method in ("auto", "refine", "dd-lu"):
        x = exact_values(linalg.solve(a, b, method=method))
        assert all(abs(g - e) <= 8 * U2 * abs(e) for g, e in zip(x, expected))
    eye = np.eye(40)
    eye[:2, :2] = big
    b40 = np.ones(40)
    b40[:2] = (3e307, 1e307)
    for method in ("auto", "refine", "dd-lu"):
        x = exact_values(linalg.solve(ddblas.array(eye, device=device),
                                      ddblas.array(b40, device=device), method=method))
        assert all(abs(g - e) <= 80 * U2 * abs(e) for g, e in zip(x[:2], expected))
        assert x[2:] == [1] * 38
    ones = ddblas.ones(40, device=device)   # scaled, A has 2^512 |x| = 2^1024: the backward
    with warnings.catch_warnings():         # error's terms come as mantissas and exponents
        warnings.simplefilter("error")
        x = linalg.solve(ddblas.array(eye, device=device), ones, method="refine")
    assert backward_error(ddblas.array(eye), x.to_device("cpu").reshape(40, 1),
                          ones.to_device("cpu").reshape(40, 1)) <= 16 * U2
    stack = ddblas.array(np.stack([np.eye(2), big]), device=device)
    x = exact_values(linalg.solve(stack, b))
    assert x[:2] == exact_values(b)
    assert all(abs(g - e) <= 8 * U2 * abs(e) for g, e in zip(x[2:], expected))
    exact_det = Fraction(2) * Fraction(1e308) ** 2
    eye = ddblas.array(eye, device=device)
    for d in (linalg.det(a), linalg.det(eye), linalg.det(stack)[1]):
        assert float(d.to_device("cpu").hi) == np.inf
    with mpmath.workprec(PREC):
        log_det = float(mpmath.log(mpmath.mpf(exact_det.numerator)))
    for sign, logabs in (linalg.slogdet(a), linalg.slogdet(eye)):
        assert float(sign) == 1 and abs(float(logabs) - log_det) <= 1e-15 * log_det
    for factor in (linalg.lu_factor, linalg.lu):
        with pytest.raises(OverflowError, match="LU factors of a overflow"):
            factor(a)


def _check_det(d: ddblas.DDArray, values: list, limit: Fraction) -> None:
    """det d (a DDArray) against the exact product of `values` (Fractions): inf beyond DBL_MAX,
    else within `limit` relative or 2^-1074 absolute (subnormal results)."""
    exact = math.prod(values)
    got = exact_values(d.to_device("cpu").reshape(1))[0] if math.isfinite(float(d.hi)) else None
    if abs(exact) >= Fraction(np.finfo(np.float64).max):
        assert got is None
    else:
        assert abs(got - exact) <= max(limit * abs(exact), Fraction(2) ** -1074), (got, exact)


@pytest.mark.parametrize("n", [3, 40])
def test_det_and_slogdet_at_extreme_scales(device, n):
    """Diagonal matrices whose determinant is finite although partial products overflow or
    underflow (det overflows or underflows only where the determinant does), subnormal diagonal
    entries (slogdet: a subnormal hi made 2^-e overflow), subnormal determinants; one matrix
    (n = 40: the blocked LU), and the same as a stack (the batched kernel), against exact
    products. On the GPU, the same bits as the CPU."""
    diagonals = [[1e200, 1e200, 1e-200], [1e-200, 1e-200, 1e200], [1e-310, 1e-310, 1e-310],
                 [5e-324, 1.0, 1.0], [1e-300, 1e-10, 1.0], [1e200, 1e200, 1.0],
                 [1e-200, 1e-200, 1.0], [-1e-310, 3.0, 2.0 ** 1000]]
    mats = []
    for diagonal in diagonals:
        m = np.eye(n)
        m[np.arange(3), np.arange(3)] = diagonal
        mats.append(m)
    stack = ddblas.array(np.stack(mats), device=device)
    limit = 8 * n * U2
    dets, (signs, logs) = linalg.det(stack), linalg.slogdet(stack)
    for p, diagonal in enumerate(diagonals):
        values = [Fraction(v) for v in diagonal]
        single = ddblas.array(mats[p], device=device)
        _check_det(dets[p], values, limit)
        _check_det(linalg.det(single), values, limit)
        sign, logabs = linalg.slogdet(single)
        with mpmath.workprec(PREC):
            exact_log = float(sum(mpmath.log(abs(mpmath.mpf(v.numerator) / v.denominator))
                                  for v in values))
        for s, log in ((sign, logabs), (signs[p], logs[p])):
            assert float(s) == np.prod(np.sign(diagonal))
            assert abs(float(log) - exact_log) <= 1e-15 * abs(exact_log), (diagonal, log)
        assert float(sign) == float(np.linalg.slogdet(mats[p])[0])
    if device == "gpu":
        cpu = stack.to_device("cpu")
        assert same_bits(dets, linalg.det(cpu))
        assert np.array_equal(logs.get(), linalg.slogdet(cpu)[1])


def test_not_positive_definite_small_and_single(device):
    """assume_a="pos" with a matrix that is not positive definite raises whatever the path:
    n <= 32 (the batched LU, checked by the DD Cholesky first), every method, a stack, n = 40."""
    a = ddblas.array([[1.0, 2.0], [2.0, 1.0]], device=device)
    b = ddblas.ones(2, device=device)
    for method in ("auto", "refine", "dd-lu"):
        with pytest.raises(linalg.LinAlgError, match="minor of order 2"):
            linalg.solve(a, b, assume_a="pos", method=method)
    x = exact_values(linalg.solve(a, b, assume_a="sym"))
    assert all(abs(v - Fraction(1, 3)) <= 8 * U2 / 3 for v in x)   # LU does not care


def test_stack_errors_name_the_index_in_a(device):
    """Errors of a stack name the matrix by its index in a's own stack (a tuple for several
    dimensions), not by its position in the stack broadcast with b's."""
    a = ddblas.array(np.stack([np.eye(2), np.zeros((2, 2))])[:, None], device=device)
    b = ddblas.ones((1, 3, 2, 1), device=device)
    for method in ("auto", "refine"):
        with pytest.raises(linalg.LinAlgError, match=r"U\[0, 0\].*matrix a\[1, 0\] of the st"
                           ) as raised:
            linalg.solve(a, b, method=method)
        assert raised.value.batch_index == (1, 0) and raised.value.index == 0
    not_pd = np.stack([np.eye(3)] * 4).reshape(2, 2, 1, 3, 3)   # a of shape (2, 2, 1, 3, 3)
    not_pd[1, 0, 0, 1, 1] = -1.0
    for method in ("auto", "refine"):
        with pytest.raises(linalg.LinAlgError, match=r"order 2 .*matrix a\[1, 0, 0\] of the"
                           ) as raised:
            linalg.solve(ddblas.array(not_pd, device=device),
                         ddblas.ones((5, 3, 1), device=device), assume_a="pos", method=method)
        assert raised.value.batch_index == (1, 0, 0) and raised.value.index == 2
    single = ddblas.zeros((2, 2), device=device)
    with pytest.raises(linalg.LinAlgError) as raised:
        linalg.solve(single, ddblas.ones((3, 2, 1), device=device))  # a broadcast over b
    assert raised.value.batch_index is None and "a[" not in str(raised.value)


@pytest.mark.parametrize("n", [5, 40])
@pytest.mark.parametrize("assume_a", ["sym", "pos"])
def test_symmetric_solvers_read_one_triangle(device, n, assume_a):
    """assume_a "sym" / "pos" read the triangle that `lower` selects (SciPy: the upper one by
    default): NaN in the other one (check_finite=False) gives the bits of the symmetric matrix,
    for one matrix (n = 5: the batched LU, n = 40: the refinement) and a stack."""
    m = random_matrix(n, n, seed=31, device="cpu", spread=0)
    spd = m @ m.T + ddblas.eye(n) * n
    hi, lo = (np.triu(v) + np.triu(v, 1).T for v in (spd.hi, spd.lo))   # exactly symmetric
    b = random_matrix(n, 2, seed=32, device=device, spread=0)
    full = ddblas.DDArray(hi, lo, normalize=False)
    expected = linalg.solve(full.to_device(device), b, assume_a=assume_a)
    pair = ddblas.DDArray(np.stack([hi] * 2), np.stack([lo] * 2), normalize=False)
    expected_stack = linalg.solve(pair.to_device(device), b, assume_a=assume_a)
    for lower in (False, True):
        garbage = hi.copy()
        garbage[np.tril_indices(n, -1) if not lower else np.triu_indices(n, 1)] = np.nan
        a = ddblas.DDArray(garbage, lo, normalize=False)
        got = linalg.solve(a.to_device(device), b, assume_a=assume_a, lower=lower,
                           check_finite=False)
        assert same_bits(got, expected)
        stack = ddblas.DDArray(np.stack([garbage] * 2), np.stack([lo] * 2), normalize=False)
        got = linalg.solve(stack.to_device(device), b, assume_a=assume_a, lower=lower,
                           check_finite=False)
        assert same_bits(got, expected_stack)
        a = a.to_device(device)
        with pytest.raises(ValueError, match="^a must not contain"):
            linalg.solve(a, b, assume_a=assume_a, lower=lower)   # SciPy checks all of a


EMPTY_NORMS = [((0,), {}, None), ((0,), {}, 1), ((0,), {}, 2), ((0,), {}, np.inf),
               ((0, 3), {}, "fro"), ((0, 3), {}, None), ((0, 3), {}, 1), ((0, 3), {}, np.inf),
               ((0, 3), {}, -1), ((3, 0), {}, np.inf), ((3, 0), {}, -np.inf),
               ((2, 0), {"axis": 1}, None), ((2, 0), {"axis": 1}, np.inf),
               ((0, 3), {"axis": 0}, 1)]


@pytest.mark.parametrize("shape, kw, ord_", EMPTY_NORMS)
def test_norms_of_empty_arrays(device, shape, kw, ord_):
    """NumPy's values (zeros of NumPy's shape) where the reduction is a sum or a max over no
    entries, a ValueError naming x where it is a min over none."""
    x = np.zeros(shape)
    got = linalg.norm(ddblas.zeros(shape, device=device), ord_, **kw)
    expected = np.linalg.norm(x, ord_, **kw)
    assert got.shape == np.shape(expected)
    assert np.array_equal(np.asarray(got.to_device("cpu").hi), expected)
    assert not np.asarray(got.to_device("cpu").lo).any()


@pytest.mark.parametrize("shape, kw, ord_", [((0,), {}, -np.inf), ((0, 3), {}, -np.inf),
                                             ((3, 0), {}, -1), ((2, 0), {"axis": 1}, -np.inf)])
def test_norms_of_empty_arrays_minimum(device, shape, kw, ord_):
    with pytest.raises(ValueError, match="^x has no entries for the minimum") as info:
        linalg.norm(ddblas.zeros(shape, device=device), ord_, **kw)
    assert "shape" not in str(info.value)   # it named an intermediate's shape, not x's
    with pytest.raises(ValueError):
        np.linalg.norm(np.zeros(shape), ord_, **kw)


@pytest.mark.parametrize("axis", [1.0, "x", np.array([0])])
def test_norm_axis_of_another_type(axis):
    with pytest.raises(ValueError, match="axis must be None, an int or a tuple of ints"):
        linalg.norm(np.ones((2, 2)), axis=axis)
    with pytest.raises(np.exceptions.AxisError, match="out of bounds"):
        linalg.norm(np.ones((2, 2)), axis=(0, 2))


@pytest.mark.parametrize("p", [None, 1, -1, np.inf, "fro"])
def test_cond_of_stacks_with_singular_matrices(device, p):
    """inf for each exactly singular matrix of a stack, the others' condition numbers as for
    them alone (NumPy's per-matrix answers)."""
    regular = np.array([[2.0, 1.0], [1.0, 1.0]])   # A^-1 = [[1, -1], [-1, 2]]
    a = ddblas.array(np.stack([np.eye(2), np.zeros((2, 2)), regular,
                               np.array([[1.0, 2.0], [2.0, 4.0]])]), device=device)
    c = linalg.cond(a, p)
    got = c.to_device("cpu")
    assert list(np.asarray(got.hi)[[1, 3]]) == [np.inf, np.inf]
    exact = {None: 9, np.inf: 9, 1: 9, -1: 4, "fro": 7}[p]   # ||A|| ||A^-1|| of `regular`
    for value, expected in zip(exact_values(got[0:3:2]), ({"fro": 2}.get(p, 1), exact)):
        assert abs(value - expected) <= 16 * U2 * expected
    assert same_bits(c[2], linalg.cond(a[2], p))


# ---- equilibration, stagnation, cond of large matrices (an adversarial review's findings) ----
def _columns_scaled(n: int, seed: int, exponent: int, symmetric: bool) -> np.ndarray:
    """A well-conditioned float64 matrix whose columns (rows too, if symmetric: SPD) are
    scaled by 2^+-exponent alternately."""
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, n))
    d = np.ldexp(1.0, np.tile([exponent, -exponent], n // 2))
    if symmetric:
        return (m @ m.T + n * np.eye(n)) * d[:, None] * d[None, :]
    return m * d


@pytest.mark.parametrize("assume_a, method", [("gen", "auto"), ("gen", "refine"),
                                              ("sym", "auto"), ("pos", "auto")])
def test_badly_scaled_columns_are_equilibrated(device, assume_a, method):
    """Columns 2^+-30 apart: the float64 solution already met the normwise backward error
    target, so refinement returned it (forward error ~2^-48); with the columns equilibrated by
    powers of two the refined x is DD-accurate (measured ~1e3 u^2 on this system)."""
    n = 24
    a = ddblas.asarray(_columns_scaled(n, 3, 30, assume_a != "gen")).to_device(device)
    b = ddblas.asarray(np.random.default_rng(4).standard_normal(n)).to_device(device)
    info = {}
    x = linalg.solve(a, b, assume_a=assume_a, method=method, info=info)
    assert forward_error(a, x, b) <= 2.0 ** -90
    assert accuracy.solve_backward_error(a, x, b) <= max(n, 16)


def test_tiny_matrices_keep_dd_accuracy(device):
    """A and b 2^-1000 times a random system: the same accuracy as the unscaled one (the lo parts
    fell into the subnormals: backward error 3.6e8 u^2, called 'limiting accuracy'). n above
    SMALL_ORDER: the batched DD LU of small systems does not equilibrate (docs/linalg.md)."""
    rng = np.random.default_rng(0)
    n = 40
    m, v = rng.standard_normal((n, n)), rng.standard_normal(n)
    for exponent in (0, -1000):
        a = ddblas.asarray(np.ldexp(m, exponent)).to_device(device)
        b = ddblas.asarray(np.ldexp(v, exponent)).to_device(device)
        x = linalg.solve(a, b)
        assert accuracy.solve_backward_error(a, x, b) <= max(n, 16)
        assert forward_error(a, x, b) <= 2.0 ** -90


def test_stagnation_returns_the_x_whose_backward_error_it_reports(device):
    """Stagnation accepted at the limiting accuracy kept the correction just judged not to
    contract: the x returned had 87.6 u^2 where info said 16.1 u^2 (docs: <= max(n, 16) u^2)."""
    n = 40
    a = accuracy.ill_conditioned_matrix(n, 1e20, seed=0).to_device(device)
    b = accuracy.random_dd((n,), exponents=(-2, 2), seed=7).to_device(device)
    info = {}
    x = linalg.solve(a, b, info=info)
    exact = accuracy.solve_backward_error(a, x, b)
    if "stagnation" in info["stopped"]:
        assert exact == pytest.approx(info["backward_errors"][-1] / 2.0 ** -106, rel=0.05)
    assert exact <= max(n, 16)


def test_cond_estimate_of_a_matrix_near_dbl_max():
    """n > COND_EXACT_ORDER runs the estimator on the DD LU, which overflowed for entries near
    2^900 with pivot growth 2^(n-1) (OverflowError); cond is scale invariant."""
    n = COND_EXACT_ORDER + 1
    w = np.tril(-np.ones((n, n)), -1) + np.eye(n)
    w[:, -1] = 1
    assert float(linalg.cond(np.ldexp(w, 900), 1).hi) == float(linalg.cond(w, 1).hi) == n


@pytest.mark.parametrize("n", [2, 40])
@pytest.mark.parametrize("assume_a", ["gen", "pos"])
def test_tiny_columns_beside_huge_ones_keep_their_bits(device, n, assume_a):
    """Review of 2026-11-26: solve scaled the whole matrix down from 1e200 before equilibrating
    its columns, so diag(1e200, 3e-290) was singular ('U[1, 1] is exactly zero') and a 3e-270
    beside 1e200 lost its bits (x[1] to 4.5e-9). Columns now come down one by one."""
    a = np.eye(n)
    a[0, 0], a[1, 1] = 1e200, 3e-290
    b = np.ones(n)
    x = linalg.solve(ddblas.asarray(a).to_device(device), ddblas.asarray(b).to_device(device),
                     assume_a=assume_a)
    got = exact_values(x)
    assert got[0] == pytest.approx(Fraction(1) / Fraction(1e200), rel=2.0 ** -100)
    assert got[1] == pytest.approx(Fraction(1) / Fraction(3e-290), rel=2.0 ** -100)
    if assume_a == "gen":
        a[1, 0], a[1, 1] = 1, 3e-270
        x = linalg.solve(ddblas.asarray(a).to_device(device), ddblas.asarray(b).to_device(device))
        x0 = 1 / Fraction(1e200)
        assert exact_values(x)[1] == pytest.approx((1 - x0) / Fraction(3e-270), rel=2.0 ** -100)
    inverse = linalg.inv(ddblas.asarray(np.diag([1e300, 1e-300])).to_device(device))
    assert float(inverse.hi[1, 1]) == pytest.approx(1e300, rel=1e-15)


@pytest.mark.parametrize("n", [3, 40])
def test_tiny_systems_keep_their_bits(device, n):
    """Probe of 2026-11-28: matrices whose entries all lie near 2^-1000 lost their low parts to
    the subnormals on the batched path (order <= 32 and stacks: relative errors 3e-23 at 2^-1000,
    2e-11 with subnormal entries at 2^-1040) while assume_a="sym" and larger orders scaled their
    columns up. The kernels now flag entries below 2^tiny_exponent() for the scaled path."""
    rng = np.random.default_rng(n)
    base = rng.integers(-4, 5, (n, n)) / 4 + 4 * np.eye(n)   # exact when scaled
    b = rng.integers(-8, 9, n) / 8
    for power in (-1000, -1040, -1060):
        a = np.ldexp(base, power)
        want = _exact_solution(a, np.ldexp(b, power))
        bound = 10 * Fraction(np.linalg.cond(base, np.inf)) * U2 * max(abs(v) for v in want)
        stack = (ddblas.asarray(np.stack([np.eye(n), a])).to_device(device),
                 ddblas.asarray(np.stack([b, np.ldexp(b, power)])[:, :, None]).to_device(device))
        a_dev, b_dev = (ddblas.asarray(v).to_device(device) for v in (a, np.ldexp(b, power)))
        for x in (linalg.solve(a_dev, b_dev), linalg.solve(*stack)[1, :, 0]):
            assert all(abs(g - w) <= bound for g, w in zip(exact_values(x), want)), power


@pytest.mark.parametrize("n", [2, 6, 40])
def test_rows_of_far_apart_magnitudes_are_equilibrated(device, n):
    """Review of 2026-11-26: rows 2^2000 apart with an entry >= 2^512: solve scaled the whole
    matrix down, which flushed the small row, and [[1e300, 1e300], [1e-300, -1e-300]] was
    "singular" (inv too); rows 2^1160 apart without one: the LU's multiplier 1e-350 underflowed
    and x was [2, 0] (method="refine"). Rows more than 2^row_spread() above the smallest now come
    down (R A x = R b, with R b 2^-kb formed in one step: b's 1 in a row brought down by 2^1493
    had become 0, and inv's 5e-301 with it). 2026-11-28: the batched path (method "auto" up to
    order 32, and stacks) still gave [2, 0]; its kernels now flag such matrices for this path."""
    rng = np.random.default_rng(n)
    for top, bottom in ((1e300, 1e-300), (1e150, 1e-200)):
        a = rng.integers(-3, 4, (n, n)).astype(np.float64) + 8 * np.eye(n)
        a[0] *= top
        a[1] *= bottom
        if n == 2:
            a = np.array([[top, top], [bottom, -bottom]])
        b = a @ np.ones(n) if top < 1e200 else np.where(np.arange(n) == 0, 2 * top, 0.0)
        # the forward error bound 10 kappa u^2 ||x|| (docs/linalg.md), kappa of the rows scaled
        # to unit size (Skeel's condition number ignores row scaling)
        rows = a / np.max(np.abs(a), axis=1, keepdims=True)
        kappa = np.linalg.cond(rows, np.inf)
        want = _exact_solution(a, b)
        bound = 10 * Fraction(kappa) * U2 * max(abs(v) for v in want)
        a_dev, b_dev = (ddblas.asarray(v).to_device(device) for v in (a, b))
        stack = (ddblas.asarray(np.stack([np.eye(n), a])).to_device(device),
                 ddblas.asarray(np.stack([b, b])[:, :, None]).to_device(device))
        for x in (linalg.solve(a_dev, b_dev, method="refine"), linalg.solve(a_dev, b_dev),
                  linalg.solve(*stack)[1, :, 0]):   # the last two: the batched path up to order 32
            assert all(abs(g - w) <= bound for g, w in zip(exact_values(x), want))
    a = np.array([[1e300, 1e300], [1e-300, -1e-300]])
    inverse = exact_values(linalg.inv(ddblas.asarray(a).to_device(device)).reshape(4))
    t, s = Fraction(1e300), Fraction(1e-300)   # inverse [[1/2t, 1/2s], [1/2t, -1/2s]]
    assert inverse == pytest.approx([1 / (2 * t), 1 / (2 * s), 1 / (2 * t), -1 / (2 * s)],
                                    rel=2.0 ** -100)


def test_det_and_slogdet_scale_columns_both_ways(device):
    """Review of 2026-11-26: a 1e308 block beside 3e-250 gave det 0 and slogdet -inf (the
    overflow fallback scaled the whole matrix, flushing 3e-250); entries near 2^-1000 lost the
    determinant's bits (slogdet float64-accurate at best). Columns are now scaled each way."""
    a = np.zeros((3, 3))
    a[:2, :2] = [[1e308, 1e308], [-1e308, 1e308]]
    a[2, 2] = 3e-250
    sign, logabs = linalg.slogdet(ddblas.asarray(a).to_device(device))
    with mpmath.workprec(PREC):
        exact = mpmath.log(2 * mpmath.mpf(1e308) ** 2 * mpmath.mpf(3e-250))
    assert float(sign) == 1 and float(logabs) == pytest.approx(float(exact), rel=1e-15)
    assert math.isinf(float(linalg.det(ddblas.asarray(a).to_device(device)).hi))
    rng = np.random.default_rng(3)
    for n in (3, 40):   # columns 2^-600, 2^600, 1, ...: the tiny ones' lo parts were subnormal
        m = rng.integers(1, 2 ** 20, (n, n)) / 2.0 ** 20 + np.eye(n)   # exact when scaled
        powers = np.array([-600, 600] + [0] * (n - 2))
        lo = np.ldexp(rng.integers(1, 2 ** 20, (n, n)) / 2.0 ** 20, -60) * m   # DD entries
        a = ddblas.DDArray(np.ldexp(m, powers[None, :]), np.ldexp(lo, powers[None, :]))
        with mpmath.workprec(PREC):
            exact = mpmath.det(mpmath.matrix(
                [[mpmath.mpf(m[i, j]) + mpmath.mpf(lo[i, j]) for j in range(n)]
                 for i in range(n)]))
            (got,) = exact_values(linalg.det(a.to_device(device)).reshape(1))
            have = mpmath.mpf(got.numerator) / got.denominator
            assert abs(have - exact) <= 2.0 ** -90 * abs(exact), (n, float(have / exact - 1))
    # a huge column whose LU does not overflow is not scaled: 3e-250 under 1e308 kept (the first
    # version of the column scaling flushed it and called the matrix singular)
    a = ddblas.asarray(np.array([[1e308, 1e300], [3e-250, 1e-257]])).to_device(device)
    (got,) = exact_values(linalg.det(a).reshape(1))
    exact = Fraction(1e308) * Fraction(1e-257) - Fraction(1e300) * Fraction(3e-250)
    assert abs(got - exact) <= 2.0 ** -100 * abs(exact)


def test_cond_is_scale_invariant_at_every_order(device):
    """Review of 2026-11-26: up to COND_EXACT_ORDER, cond overflowed ||A|| near DBL_MAX (inf
    for a matrix of condition 2), was 1 + 2^-52 for [[1.7e308]], nan for 1e-310 I, and raised
    LinAlgError for diag(1e300, 1e-300); cond of an empty matrix is an error, as NumPy's."""
    def cond(m, p=None):
        return float(linalg.cond(ddblas.asarray(np.array(m)).to_device(device), p).hi)
    for p in (1, math.inf, "fro"):
        assert cond([[1e308, 1e308], [-1e308, 1e308]], p) == pytest.approx(
            2 if p != "fro" else 2, rel=1e-15)
    assert cond([[1.7e308]]) == 1 and cond(1e-310 * np.eye(2)) == 1
    assert math.isinf(cond(np.diag([1e300, 1e-300])))
    # a matrix that needs no scaling is not scaled: 2^-80 under 1 keeps its bits beside 2^1000
    a = ddblas.DDArray(np.diag([2.0 ** 1000, 1.0]), np.diag([0.0, 2.0 ** -80])).to_device(device)
    (got,) = exact_values(linalg.cond(a).reshape(1))
    exact = Fraction(2) ** 1000 / (1 + Fraction(1, 2 ** 80))
    assert abs(got - exact) <= 2.0 ** -100 * exact
    with pytest.raises(np.linalg.LinAlgError, match="empty"):
        linalg.cond(ddblas.zeros((0, 0), device=device))


def test_cond_of_a_non_finite_matrix_names_a(device):
    """Review of 2026-11-26: cond's ValueError for a NaN or an inf (either part) came from inv
    and told the caller to pass check_finite=True, a parameter cond does not have."""
    for hi, lo in ((np.nan, 0.0), (np.inf, 0.0), (1.0, np.nan)):
        a = ddblas.DDArray(np.array([[hi, 0.0], [0.0, 1.0]]), np.array([[lo, 0.0], [0.0, 0.0]]),
                           normalize=False).to_device(device)
        for p in (None, 1, "fro"):
            with pytest.raises(ValueError, match="^a must not contain infs or NaNs$"):
                linalg.cond(a, p)


def test_slogdet_returns_numpys_named_result(device):
    """Review of 2026-11-26: slogdet returned a plain tuple of 0-d arrays; NumPy 2 returns
    SlogdetResult(sign, logabsdet) of float64 scalars."""
    result = linalg.slogdet(ddblas.asarray(np.diag([2.0, -3.0])).to_device(device))
    assert isinstance(result, linalg.SlogdetResult)
    assert float(result.sign) == -1 and float(result.logabsdet) == pytest.approx(math.log(6))
    if device == "cpu":
        assert type(result.sign) is np.float64 and type(result.logabsdet) is np.float64
    stacked = linalg.slogdet(ddblas.asarray(np.stack([np.eye(2)] * 3)).to_device(device))
    assert stacked.sign.shape == stacked.logabsdet.shape == (3,)


@pytest.mark.parametrize("transposed", [False, True])
def test_solve_takes_scipys_structure_names_and_reads_only_their_band(device, transposed):
    """Probe of 2026-11-28: solve lacked SciPy's overwrite_a, overwrite_b and transposed, took
    lower only as a keyword and rejected SciPy's assume_a names. Each structure reads only what
    SciPy reads (the other entries here are large: were they read, x would be far off), for one
    matrix and a stack, transposed or not."""
    rng = np.random.default_rng(7)
    n = 5
    full = rng.integers(-4, 5, (2, n, n)) / 4 + 4 * np.eye(n) + 1000 * (1 - np.eye(n))
    b = rng.integers(-8, 9, (2, n, 1)) / 8
    bands = {"upper triangular": np.triu, "lower triangular": np.tril,
             "diagonal": lambda m: m * np.eye(n),
             "tridiagonal": lambda m: np.triu(np.tril(m, 1), -1),
             "general": lambda m: m, "banded": lambda m: m}
    for name, band in bands.items():
        read = band(full) if name in ("general", "banded") else band(full - 996 * (1 - np.eye(n)))
        a = np.where(band(np.ones((n, n))) != 0, read, full)
        a_dev, b_dev = (ddblas.asarray(v).to_device(device) for v in (a, b))
        for x, p in ((linalg.solve(a_dev[0], b_dev[0], False, True, True, True, name, transposed),
                      0), (linalg.solve(a_dev, b_dev, assume_a=name, transposed=transposed), 1)):
            m = band(a[p]).T if transposed else band(a[p])
            want = _exact_solution(m, b[p, :, 0])
            bound = 10 * Fraction(np.linalg.cond(m, np.inf)) * U2 * max(abs(v) for v in want)
            got = exact_values(x.reshape(2 * n)[p * n:(p + 1) * n] if x.ndim == 3 else x)
            assert all(abs(g - w) <= bound for g, w in zip(got, want)), (name, p)
    spd = np.eye(n) * 4 + 1
    for name in ("symmetric", "her", "hermitian", "positive definite"):
        x = linalg.solve(ddblas.asarray(spd).to_device(device), ddblas.ones(n, device=device),
                         assume_a=name, transposed=transposed)
        assert max(abs(v - Fraction(1, 4 + n)) for v in exact_values(x)) <= 8 * n * U2
    with pytest.raises(linalg.LinAlgError, match=r"a\[1, 1\] is exactly zero.*a\[1\]"):
        linalg.solve(ddblas.asarray(np.stack([np.eye(3), np.diag([1.0, 0.0, 2.0])])
                                    ).to_device(device), ddblas.ones(3, device=device),
                     assume_a="diagonal")
    with pytest.raises(ValueError, match="^assume_a must be one of 'gen'"):
        linalg.solve(np.eye(2), np.ones(2), assume_a=["gen"])


def test_assume_a_none_is_scipys_default(device):
    """SciPy 1.17's default assume_a=None (it looks for a structure first) was a ValueError:
    it solves as "gen", with SciPy's answers (exact here) and its singular matrices."""
    import scipy.linalg as sl
    cases = [(np.array([[2.0, 4.0], [4.0, 4.0]]), np.array([2.0, 4.0])),      # x = [1, 0]
             (np.array([[2.0, 1.0], [0.0, 4.0]]), np.array([4.0, 8.0]))]      # x = [1, 2]
    for a, b in cases:
        x = linalg.solve(ddblas.asarray(a).to_device(device), ddblas.asarray(b).to_device(device),
                         assume_a=None)
        assert exact_values(x) == [Fraction(v) for v in sl.solve(a, b, assume_a=None)]
        x = linalg.solve(ddblas.asarray(np.stack([a, a])).to_device(device),
                         ddblas.asarray(b).to_device(device), False, False, False, True, None)
        assert exact_values(x.reshape(4)) == [Fraction(v) for v in 2 * list(sl.solve(a, b))]
    singular = np.array([[2.0, 1.0], [0.0, 0.0]])
    with pytest.raises(np.linalg.LinAlgError):
        sl.solve(singular, np.ones(2), assume_a=None)
    with pytest.raises(linalg.LinAlgError, match=r"U\[1, 1\] is exactly zero"):
        linalg.solve(ddblas.asarray(singular).to_device(device), ddblas.ones(2, device=device),
                     assume_a=None)


def test_inv_and_det_take_scipys_arguments(device):
    """inv(a, overwrite_a, check_finite, *, assume_a, lower) and det(a, overwrite_a,
    check_finite), as SciPy (inv and det took only check_finite, as a keyword): SciPy's
    answers, exact here; a never modified; assume_a's structures read only their triangle."""
    import scipy.linalg as sl
    a = np.array([[2.0, 4.0], [4.0, 4.0]])
    a_dev = ddblas.asarray(a).to_device(device)
    expected = sl.inv(a, False, True)    # [[-0.5, 0.5], [0.5, -0.25]]
    assert exact_values(linalg.inv(a_dev, True, True).reshape(4)) == \
        [Fraction(v) for v in expected.ravel()]
    assert float(linalg.det(a_dev, True, True).hi) == sl.det(a, False, True) == -8.0
    assert np.array_equal(a_dev.to_device("cpu").to_float64(), a)
    with pytest.raises(ValueError, match="a must not contain infs or NaNs"):
        linalg.inv(ddblas.asarray([[1.0, np.inf], [0.0, 1.0]]).to_device(device), False, True)
    # SciPy's assume_a and lower: the other triangle (nan here) is not read
    spd = np.array([[4.0, np.nan], [2.0, 5.0]])
    for kwargs in ({"assume_a": "pos", "lower": True}, {"assume_a": "sym", "lower": True},
                   {"assume_a": "lower triangular"}):
        got = linalg.inv(ddblas.asarray(spd).to_device(device), check_finite=False, **kwargs)
        want = sl.inv(spd, check_finite=False, **kwargs)
        assert np.allclose(got.to_float64(), want, rtol=1e-15, atol=0), kwargs
    tri = np.array([[4.0, 0.0], [2.0, 8.0]])  # inverse [[1/4, 0], [-1/16, 1/8]]
    got = linalg.inv(ddblas.asarray(np.stack([tri, tri])).to_device(device),
                     assume_a="lower triangular")
    assert exact_values(got.reshape(8)) == [Fraction(v) for v in 2 * list(
        sl.inv(tri, assume_a="lower triangular").ravel())]


def test_arguments_that_are_not_numbers_are_named(device):
    """Probe of 2026-11-28: solve(A, None) said "cannot convert NoneType value None to a DD
    number" without naming b (lu_factor, lstsq, rgemm, det, norm alike)."""
    eye = ddblas.eye(2, device=device)
    cases = [(lambda: linalg.solve(eye, None), "b"), (lambda: linalg.solve(None, eye), "a"),
             (lambda: linalg.lu_factor("x"), "a"), (lambda: linalg.lstsq(eye, {}), "b"),
             (lambda: linalg.lu_solve(linalg.lu_factor(eye), [1, None]), "b"),
             (lambda: ddblas.rgemm(eye, None), "b"), (lambda: linalg.det(object()), "a"),
             (lambda: linalg.norm(None), "x"), (lambda: linalg.qr(None), "a"),
             (lambda: linalg.solve_triangular(eye, "y"), "b")]
    for call, name in cases:
        with pytest.raises((TypeError, ValueError), match=f"^{name}: cannot"):
            call()


def test_det_of_a_singular_matrix_is_plus_zero_and_cond_of_an_empty_stack_is_empty(device):
    """Probe of 2026-11-28: det([[1, 2], [2, 4]]) was -0.0 (NumPy: 0.0, sign 0); cond of a
    (0, 3, 3) stack raised where NumPy returns an empty array."""
    for a in (np.array([[1.0, 2.0], [2.0, 4.0]]), np.zeros((40, 40)) + np.eye(40, k=1)):
        det = linalg.det(ddblas.asarray(a).to_device(device))
        assert float(det.hi) == 0 and math.copysign(1, float(det.hi)) == 1
    for p in (None, 1, np.inf, "fro"):
        c = linalg.cond(ddblas.asarray(np.zeros((2, 0, 3, 3))).to_device(device), p)
        assert c.shape == np.linalg.cond(np.zeros((2, 0, 3, 3)), p).shape == (2, 0)
    with pytest.raises(np.linalg.LinAlgError, match="empty"):
        linalg.cond(ddblas.asarray(np.zeros((3, 0, 0))).to_device(device))


@pytest.mark.parametrize("shape", [(2, 3), (3,), (4, 2, 3)])
@pytest.mark.parametrize("name", ["slogdet", "cond", "det", "inv"])
def test_non_square_is_numpys_linalg_error(device, name, shape):
    """NumPy's slogdet, cond (p other than None), det and inv raise numpy.linalg.LinAlgError for
    a non-square or 1-D a; ours raise ddblas.linalg.LinAlgError (a subclass of it, hence also a
    ValueError, SciPy's error) naming a. It was a plain ValueError."""
    x = np.ones(shape)
    f = {"cond": lambda v: getattr(linalg, name)(v, 1)}.get(name, getattr(linalg, name))
    g = {"cond": lambda v: np.linalg.cond(v, 1)}.get(name, getattr(np.linalg, name))
    with pytest.raises(np.linalg.LinAlgError):
        g(x)
    with pytest.raises(linalg.LinAlgError, match=r"^a must be a square matrix or a stack") as info:
        f(ddblas.asarray(x, device=device))
    assert isinstance(info.value, ValueError) and info.value.index is None


def p_norm_bound(n: int, p: float) -> float:
    """_p_norm's first-order relative bound in units of u^2 (the docstring's and
    docs/linalg.md's): 2 c_div + 2 c_mul + c_pow + ((1 + n/e) c_pow + 3.0000001 (n - 1)
    + (c_pow + c_div) ln n) / |p|, plus (1/|p| - 1) c_mul when 1/p is an integer >= 2."""
    c_div, c_mul, c_pow = (accuracy.bound(op, "fma/accurate") for op in ("div", "mul",
                                                                         "real_power"))
    q = abs(p)
    extra = (1 / q - 1) * c_mul if q < 1 and float(1 / q).is_integer() else 0.0
    return 2 * c_div + 2 * c_mul + c_pow + extra + (
        (1 + n / math.e) * c_pow + 3.0000001 * (n - 1) + (c_pow + c_div) * math.log(n)) / q


@pytest.mark.parametrize("p", [3, 0.5, 1.5, -1, -2, -3, -0.5, 7, 2.5, 0.25, 100, -7.5])
def test_vector_p_norms_against_mpmath(device, p):
    """ord = any real p (NumPy's (sum |x_i|^p)^(1/p)): within p_norm_bound of the value at 320
    bits, along an axis and over a vector, entries spread over 2^+-40; ord 0 counts the nonzero
    entries exactly. It was a ValueError for every ord but None, 1, 2, +-inf."""
    x = random_matrix(3, 40, seed=31, device=device, spread=40)
    x[1, 5] = 0
    got = linalg.norm(x, p, axis=1)
    assert got.shape == (3,)
    got_keep = linalg.norm(x, p, axis=-1, keepdims=True)
    assert got_keep.shape == (3, 1) and same_bits(got_keep.reshape(3), got)
    rows = exact_matrix(x)
    values = got.to_device("cpu").to_mpmath()
    with mpmath.workprec(PREC):
        for i, row in enumerate(rows):
            terms = [abs(mpmath.mpf(v.numerator) / v.denominator) for v in row]
            if p < 0 and min(terms) == 0:
                assert values[i] == 0   # NumPy's value with a zero entry
                continue
            exact = sum(t ** p for t in terms) ** (mpmath.mpf(1) / p)
            error = abs(values[i] - exact) / exact
            assert error <= p_norm_bound(len(row), p) * 2.0 ** -106, (i, float(error / 2.0 ** -106))
    assert same_bits(linalg.norm(x[0], p), got[0])
    counts = linalg.norm(x, 0, axis=1)
    assert exact_values(counts) == [40, 39, 40]
    assert counts.shape == (3,)


@pytest.mark.parametrize("ord_", [0, -1, -2, 3, 0.5, -0.5, -np.inf])
@pytest.mark.parametrize("values", [[3.0, 0.0, -4.0], [np.inf, 1.0], [np.inf, np.nan],
                                    [0.0, np.nan], [np.inf, 0.0], [0.0, 0.0, 0.0], [],
                                    [2.0 ** 1000, 2.0 ** 1000], [2.0 ** -1070, 3.0 * 2 ** -1070]])
def test_vector_norm_orders_follow_numpy(device, values, ord_):
    """ord 0, -1, -2, other reals and -inf on zeros, infs, NaNs, empty vectors and extreme
    scales: NumPy's values (NumPy's own overflow aside: its 2^1000 entries overflow for ord 3)."""
    x = np.array(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            expected = np.linalg.norm(x, ord_)
        except ValueError:   # -inf over no entries
            with pytest.raises(ValueError, match="^x has no entries"):
                linalg.norm(ddblas.asarray(x, device=device), ord_)
            return
        if x.size and np.isfinite(x).all() and (x != 0).all() and \
                not 1e-300 <= abs(x).max() < 2.0 ** 1000:
            # NumPy's |x|^p overflows or underflows: the exact value of (sum |x|^p)^(1/p)
            with mpmath.workprec(PREC):
                expected = float(sum(abs(mpmath.mpf(v)) ** ord_ for v in values)
                                 ** (mpmath.mpf(1) / ord_)) if ord_ not in (0, -np.inf) \
                    else expected
    got = linalg.norm(ddblas.asarray(x, device=device), ord_).to_device("cpu")
    assert got.shape == ()
    if np.isnan(expected):
        assert np.isnan(got.hi)
    else:
        assert float(got.hi) == expected or abs(float(got.hi) - expected) <= 1e-15 * abs(expected)


def test_vector_norm_order_errors(device):
    x = ddblas.ones((3,), device=device)
    for ord_ in ("0", "nuc", 1j, type(None)):
        with pytest.raises(ValueError, match="^ord must be None, a real number or \\+-inf for a "
                                             "vector norm"):
            linalg.norm(x, ord_)
    with pytest.raises(ValueError, match="^ord='fro' is a matrix norm"):
        linalg.norm(x, "fro")
    with pytest.raises(ValueError, match="^ord must not be NaN"):
        linalg.norm(x, np.nan)
    with pytest.raises(ValueError, match="^ord must be None, 'fro'"):   # matrices: unchanged
        linalg.norm(ddblas.ones((2, 2), device=device), 3)


@pytest.mark.parametrize("n", [2, 40])
def test_a_row_spanning_more_than_the_range_keeps_its_entries(device, n):
    """Probe of 2026-11-28 (second): row 0 of [[2^-900, 2^900], [0, 1]] (in an identity of order n) spans
    1800 binades; equilibrated on its own (into [1/2, 1)) it lost 2^-900, and solve, inv raised
    "singular", det gave 0 and slogdet -inf (NumPy: 2^-900). The columns are now found from
    R A's exponents and R A D formed in one step an entry."""
    a = np.eye(n)
    a[0, :2] = [2.0 ** -900, 2.0 ** 900]
    b = np.zeros(n)
    b[0] = 2.0 ** -900
    a_dev, b_dev = (ddblas.asarray(v).to_device(device) for v in (a, b))
    for method in ("auto", "refine", "dd-lu"):
        x = linalg.solve(a_dev, b_dev, method=method)
        assert exact_values(x) == [1] + [0] * (n - 1), method
    stack = linalg.solve(ddblas.asarray(np.stack([np.eye(n), a])).to_device(device), b_dev)
    assert exact_values(stack[1]) == [1] + [0] * (n - 1)
    assert exact_values(linalg.det(a_dev).reshape(1)) == [Fraction(2) ** -900]
    sign, logabs = linalg.slogdet(a_dev)
    assert float(sign) == 1 and float(logabs) == pytest.approx(-900 * math.log(2), rel=1e-15)
    assert exact_values(linalg.inv(a_dev)[:, 0]) == [Fraction(2) ** 900] + [0] * (n - 1)


@pytest.mark.parametrize("n", [20, 40])
def test_columns_far_apart_of_a_triangular_matrix_are_not_row_scaled(device, n):
    """Probe of 2026-11-28 (second): an upper triangular matrix with columns scaled by 2^+-900 (well
    conditioned once its columns are equilibrated) has rows spanning 1800 binades: their
    equilibration flushed entries of the matrix ("U[j, j] is exactly zero": "singular"; with
    the columns found from R A's exponents alone, the entries above the diagonal were flushed
    instead, and x was garbage with a backward error of 0 reported for the flushed system).
    Rows whose scaling would flush entries that the columns' scaling alone keeps are left
    alone."""
    rng = np.random.default_rng({20: 2, 40: 0}[n])   # both were "singular" before
    g = np.triu(rng.standard_normal((n, n))) + 3 * np.eye(n)
    powers = rng.integers(-900, 900, n)
    a = np.ldexp(g, powers[None, :])
    b = rng.standard_normal(n)
    want = _exact_solution(a, b)
    kappa = np.linalg.cond(g, np.inf)   # of the columns scaled to unit size
    a_dev, b_dev = (ddblas.asarray(v).to_device(device) for v in (a, b))
    for method in ("auto", "refine", "dd-lu"):
        info = {}
        x = linalg.solve(a_dev, b_dev, method=method, info=info)
        # componentwise: x = D y, each entry as accurate as y's (10 n kappa u^2)
        assert all(abs(got - w) <= 10 * n * Fraction(kappa) * U2 * abs(w)
                   for got, w in zip(exact_values(x), want)), (method, info)
    with mpmath.workprec(PREC):
        exact = sum(mpmath.log(abs(mpmath.mpf(v))) for v in np.diagonal(a))
    sign, logabs = linalg.slogdet(a_dev)
    assert float(sign) == np.prod(np.sign(np.diagonal(a)))
    assert float(logabs) == pytest.approx(float(exact), rel=1e-15)


@pytest.mark.parametrize("n", [5, 40])
def test_triangular_systems_with_rows_far_apart_are_equilibrated(device, n):
    """Probe of 2026-11-28 (second): solve(assume_a="upper triangular") of one matrix was
    solve_triangular's substitution on a as given, whose products t_ij x_j overflow where x is
    representable: [[2^1000, 2^1000], [0, 2^-100]] x = [0, 1] gave x = [-inf, 2^100] (NumPy
    too), and an upper triangular matrix with rows scaled by 2^+-900 gave inf (a stack, through
    the batched LU's scaled path, was right). It is now scaled as "gen" is (R A D y = R b,
    x = D y: a triangle stays one), then substituted."""
    t = ddblas.asarray(np.array([[2.0 ** 1000, 2.0 ** 1000], [0, 2.0 ** -100]])).to_device(device)
    one = ddblas.asarray(np.array([0.0, 1.0])).to_device(device)
    x = linalg.solve(t, one, assume_a="upper triangular")
    assert exact_values(x) == [-Fraction(2) ** 100, Fraction(2) ** 100]
    assert exact_values(linalg.inv(t, assume_a="upper triangular").reshape(4)) == [
        Fraction(2) ** -1000, -Fraction(2) ** 100, 0, Fraction(2) ** 100]
    rng = np.random.default_rng(n)
    g = np.triu(rng.standard_normal((n, n))) + 3 * np.eye(n)
    a = np.ldexp(g, rng.integers(-900, 900, n)[:, None])
    b = rng.standard_normal(n)
    want = _exact_solution(a, b)
    bound = 10 * n * Fraction(np.linalg.cond(g, np.inf)) * U2 * max(abs(v) for v in want)
    for kind, matrix, transposed in (("upper triangular", a, False),
                                     ("lower triangular", a.T.copy(), True)):
        info = {}
        x = linalg.solve(ddblas.asarray(matrix).to_device(device),
                         ddblas.asarray(b).to_device(device), assume_a=kind,
                         transposed=transposed, info=info)
        assert info["method"] == "triangular substitution"
        assert all(abs(got - w) <= bound for got, w in zip(exact_values(x), want)), kind


def test_diagonal_systems_of_tiny_entries_keep_their_bits(device):
    """Probe of 2026-11-28 (second): assume_a="diagonal" divided b by diag(a) as given, and the
    DD division assumes no underflow: 2.2e-308 / 1e-300 came back float64-accurate (1.4e15 u^2
    from the quotient, a normal number), 5e-324 / 2.2e-308 too, where the general path scales
    such entries. Each quotient is now taken of operands scaled into [1/2, 1)."""
    d = np.array([1e-300, 2.2e-308, 2.2e-308, 3.0, 1e-300, 1e300, 5e-324])
    b = np.array([2.2e-308, 1e-300, 5e-324, 1e300, 3.0, 1e-300, 5e-324])
    x = linalg.solve(ddblas.asarray(np.diag(d)).to_device(device),
                     ddblas.asarray(b).to_device(device), assume_a="diagonal")
    for got, bi, di in zip(exact_values(x), b, d):
        want = Fraction(bi) / Fraction(di)
        # DD's relative accuracy where x_i is normal (and its lo part too), else 2^-1074
        assert abs(got - want) <= max(2 * DIV * abs(want), Fraction(2) ** -1075), (bi, di)


@pytest.mark.parametrize("ord_", [0.5, 3, 7.5])
def test_p_norms_of_tiny_vectors_keep_their_bits(device, ord_):
    """Probe of 2026-11-28 (second): norm(x, p) divided |x_i| by s = max |x_i| as given, and
    the DD division assumes no underflow: at 2^-1000 the result (near 2^-995, whose low part
    has a spacing of 2^-1074) was 1.1e11 u^2 from exact for p = 0.5, about 700 spacings. x and
    s are now scaled by the power of two that puts s into [1/2, 1) first (exact)."""
    rng = np.random.default_rng(11)
    x = np.ldexp(rng.uniform(0.5, 1, 12) * rng.choice([-1, 1], 12),
                 -1000 - rng.integers(0, 25, 12))
    got = exact_values(linalg.norm(ddblas.asarray(x).to_device(device), ord_).reshape(1))[0]
    with mpmath.workprec(PREC):
        exact = mpmath.power(sum(mpmath.power(abs(mpmath.mpf(v)), ord_) for v in x),
                             1 / mpmath.mpf(ord_))
        error = abs(mpmath.mpf(got.numerator) / got.denominator - exact)
        # the documented relative bound (below 1100 u^2 here), plus the spacing of the result's
        # low part: a few units of 2^-1074
        assert error <= 1100 * float(U2) * exact + 16 * mpmath.mpf(2) ** -1074
