"""ddblas.accuracy: exact errors of known cases, the bounds, the input generators (checked with
mpmath), and the report's verdict."""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import ddblas
from ddblas import accuracy
from ddblas.core.options import Options

U2 = Fraction(1, 2 ** 106)


def test_error_of_one_ulp_of_lo(device):
    ref = ddblas.DDArray(np.array([1.0, -3.0]), np.array([2.0 ** -60, 2.0 ** -54]))
    off = ddblas.DDArray(np.array([1.0, -3.0]),
                         np.array([2.0 ** -60 + 2.0 ** -112, 2.0 ** -54 - 2.0 ** -106]))
    err = accuracy.error(off.to_device(device), ref)
    expected = [Fraction(2) ** -112 / (1 + Fraction(2) ** -60),
                Fraction(2) ** -106 / (3 - Fraction(2) ** -54)]
    assert err.values.tolist() == [float(e / U2) for e in expected]
    assert err.kind == "relative" and err.argmax == (1,) and err.max == float(expected[1] / U2)
    assert accuracy.error(ref, ref).max == 0.0


def test_error_against_a_float_array_on_the_device(device):
    x = accuracy.random_dd(50, seed=4, device=device)
    err = accuracy.error(x, x.hi)  # the float64 part alone errs by |lo| / |hi|
    hi, lo = np.asarray(x.to_device("cpu").hi), np.asarray(x.to_device("cpu").lo)
    assert err.values.tolist() == [float(abs(Fraction(float(l))) / abs(Fraction(float(h))) / U2)
                                   for h, l in zip(hi, lo)]


def test_error_references_of_every_kind():
    x = ddblas.array(["0.1", "2", "0"])
    exact = accuracy.error(x, [Fraction(1, 10), 2, 0])
    assert exact.values[1:].tolist() == [0.0, 0.0]
    # the DD nearest 0.1 errs by less than u^2 / 2 relative (ulp(lo)/2 <= 2^-107 |0.1| ...)
    assert 0 < exact.values[0] <= 0.5
    with mpmath.workprec(300):
        as_mpmath = accuracy.error(x, [mpmath.mpf(1) / 10, mpmath.mpf(2), mpmath.mpf(0)])
    assert abs(as_mpmath.values[0] - exact.values[0]) < 1e-60
    assert accuracy.error(x, ["0.1", "2", "0"]).values.tolist() == exact.values.tolist()


def test_error_special_cases():
    got = ddblas.array([0.0, 1.0, math.inf, math.nan, 1.0])
    err = accuracy.error(got, [0, 0, math.inf, math.nan, math.inf])
    assert err.values.tolist() == [0.0, math.inf, 0.0, 0.0, math.inf]
    with pytest.raises(ValueError, match=r"shape \(5,\).*shape \(2,\)"):
        accuracy.error(got, [1, 2])
    with pytest.raises(TypeError, match="exact number"):
        accuracy.error(ddblas.array([1.0]), [object()])


def test_gemm_error_of_known_cases(device):
    a = ddblas.array([[1.0, 2.0], [3.0, -4.0]], device=device)
    b = ddblas.array([[0.5], [2.0 ** -70]], device=device)
    c = a @ b  # exact: the products and sums are representable
    assert accuracy.gemm_error(c, a, b).values.tolist() == [[0.0], [0.0]]
    c.lo[0, 0] += 2.0 ** -100  # one unit of 2^-100 in C[0, 0]
    scale = Fraction(1, 2) + 2 * Fraction(2) ** -70
    assert accuracy.gemm_error(c, a, b).values[0, 0] == float(Fraction(2) ** -100 / scale / U2)
    # alpha, beta, C0 and transposes
    c0 = ddblas.array([[1.0], [1.0]], device=device)
    c = ddblas.rgemm(a.T.copy(), b, c0.copy(), alpha=2, beta="0.5", transa="T")
    err = accuracy.gemm_error(c, a.T.copy(), b, alpha=2, beta="0.5", c0=c0, transa="T")
    assert err.kind == "componentwise" and err.max <= 1.0
    assert accuracy.gemm_error(c, a.T.copy(), b, alpha=2, beta="0.5", c0=c0, transa="T",
                               rows=[1]).values.shape == (1, 1)
    c.hi[1, 0] = math.nan
    assert accuracy.gemm_error(c, a.T.copy(), b, alpha=2, beta="0.5", c0=c0,
                               transa="T").values[1, 0] == math.inf
    with pytest.raises(ValueError, match="needs finite matrices"):
        accuracy.gemm_error(c, c0, ddblas.full((1, 1), "inf"))
    with pytest.raises(ValueError, match="beta != 0 needs c0"):
        accuracy.gemm_error(c, a, b, beta=1)
    with pytest.raises(ValueError, match="shapes do not match"):
        accuracy.gemm_error(c, a, a)


def test_gemm_error_of_exact_results_beyond_dd():
    """A C given as Fractions (another library's binary128 or MPFR result) is scored as it is,
    not rounded to DD first."""
    a = ddblas.array([[1.0, 2.0 ** -60]])
    b = ddblas.array([[1.0 + 2.0 ** -52], [1.0]])
    exact = (1 + Fraction(2) ** -52) + Fraction(2) ** -60  # C = AB, exactly a DD
    off = exact + Fraction(2) ** -120  # 2^-14 u^2 away: lost if rounded to DD
    scale = 1 + Fraction(2) ** -52 + Fraction(2) ** -60  # |A||B|
    assert accuracy.gemm_error([[exact]], a, b).values.tolist() == [[0.0]]
    err = accuracy.gemm_error(np.array([[off]], dtype=object), a, b)
    assert err.values[0, 0] == float(Fraction(2) ** -120 / scale / U2)
    assert accuracy.gemm_error([["inf"]], a, b).values[0, 0] == math.inf


def test_gemm_error_of_float64_results():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 50)), rng.standard_normal((50, 2))
    err = accuracy.gemm_error(a @ b, a, b)
    assert 0 < err.max <= 50 * 2.0 ** 53 * 1.01  # gamma_K in units of u^2


def test_bounds_are_the_documented_ones():
    assert accuracy.bound("mul", "fma/accurate") == 5.0
    assert 8 < accuracy.bound("mul", "nofma/sloppy") < 8.000001
    assert 3 < accuracy.bound("add", "fma/accurate") < 3.000001
    assert accuracy.bound("sub", "nofma/sloppy") == accuracy.bound("add", "fma/sloppy")
    assert 15 < accuracy.bound("div") < 15.000001 and accuracy.bound("sqrt") == 6.0
    assert 3 * 9 < accuracy.bound("sum", "fma/accurate", k=10) < 3 * 9 * 1.000001
    assert 5 + 27 < accuracy.bound("dot", "fma/accurate", k=10) < 32.0001
    # gemm: (c_mul + c_add + c_first + (K-1) c_acc): 10 + 3K accurate, 18 + 3K fma/sloppy
    assert 10 + 3 * 100 < accuracy.bound("gemm", "fma/accurate", k=100) < 310.001
    assert 18 + 3 * 100 < accuracy.bound("gemm", "fma/sloppy", k=100) < 318.001
    assert 23 + 3 * 100 < accuracy.bound("gemm", "nofma/sloppy", k=100) < 323.001
    with ddblas.options(fma=False):
        assert accuracy.bound("mul") == accuracy.bound("mul", Options(fma=False))
    # float rounding goes up: the float bound is never below the exact constant
    exact = accuracy.bound_constant("gemm", "nofma/accurate", k=77) / U2
    assert Fraction(accuracy.bound("gemm", "nofma/accurate", k=77)) >= exact


def test_refine_bound_is_the_refinement_acceptance_rule():
    """The demo checked its solve against max(n, 16) written out again; the rule is
    bound("refine", k=n) now, the same for every variant, and solve's refinement reads it."""
    for n, expected in [(0, 16), (1, 16), (16, 16), (17, 17), (200, 200)]:
        for variant in ("fma/accurate", "nofma/sloppy"):
            assert accuracy.bound("refine", variant, k=n) == expected
            assert accuracy.bound_constant("refine", variant, k=n) == expected * U2


@pytest.mark.parametrize("args, message", [
    (("gemm", "fma/accurate"), "needs k"), (("mul", None, 3), "takes no k"),
    (("pow",), "unknown operation 'pow'"), (("mul", "fma"), "variant must be"),
    (("sum", None, -1), "needs k"), (("gemm", "fma/fast", 3), "variant must be"),
    (("gemv", "fma/accurate", 3), "unknown operation 'gemv'"), (("refine",), "needs k")])
def test_bound_errors(args, message):
    """Review of 2026-11-25: 'fma/fast' passed as the sloppy variant and an unknown operation
    with k was told it takes no k."""
    with pytest.raises(ValueError, match=message):
        accuracy.bound(*args)


def test_gemm_error_names_a_c0_of_the_wrong_shape():
    a = ddblas.ones((2, 2))
    with pytest.raises(ValueError, match=r"^c0 has shape \(1, 1\), but C has \(2, 2\)"):
        accuracy.gemm_error(a @ a, a, a, beta=1, c0=ddblas.ones((1, 1)))


def test_gemm_error_names_a_bad_alpha_beta_or_c0():
    """A NaN alpha, beta or c0 gave a TypeError from None; alpha=[2, 1] used its first entry."""
    a = ddblas.ones((2, 2))
    bad_c0 = ddblas.ones((2, 2))
    bad_c0[0, 0] = np.nan
    for kw, name in [(dict(alpha=np.nan), "alpha must be a finite scalar"),
                     (dict(alpha=[2, 1]), "alpha must be a finite scalar"),
                     (dict(beta=np.inf, c0=a), "beta must be a finite scalar"),
                     (dict(beta=1, c0=bad_c0), "c0 must be finite")]:
        with pytest.raises(ValueError, match=name):
            accuracy.gemm_error(a @ a, a, a, **kw)


def test_solve_backward_error_of_empty_and_bad_shapes():
    """Empty systems have no error (their reshape failed); 0-d x and b and a NaN are named."""
    for k in ((), (2,)):
        assert accuracy.solve_backward_error(ddblas.zeros((0, 0)), ddblas.zeros((0, *k)),
                                             ddblas.zeros((0, *k))) == 0.0
    with pytest.raises(ValueError, match="solve_backward_error: shapes do not match"):
        accuracy.solve_backward_error(ddblas.eye(2), ddblas.zeros(()), ddblas.zeros(()))
    with pytest.raises(ValueError, match="solve_backward_error needs finite matrices"):
        accuracy.solve_backward_error(ddblas.eye(2), np.array([np.nan, 1.0]), np.ones(2))


def _mpmath_dot_condition(x, y):
    with mpmath.workprec(2000):
        xs, ys = x.to_mpmath(), y.to_mpmath()
        return 2 * mpmath.fsum(abs(p * q) for p, q in zip(xs, ys)) / \
            abs(mpmath.fsum(p * q for p, q in zip(xs, ys)))


@pytest.mark.parametrize("cond", [2, 50, 1e3, 1e8, 1e16, 1e24, 1e32, 1e40])
@pytest.mark.parametrize("dd", [True, False])
def test_ill_conditioned_dot_hits_the_condition_number(cond, dd):
    x, y = accuracy.ill_conditioned_dot(24, cond, dd=dd, seed=int(math.log10(cond)))
    measured = _mpmath_dot_condition(x, y)
    assert cond / 10 <= measured <= cond * 10
    assert abs(measured - accuracy.dot_condition(x, y)) <= 1e-12 * measured
    assert dd or not np.asarray(x.lo).any()


def test_ill_conditioned_dot_rejects_bad_input():
    with pytest.raises(ValueError, match="n must be an integer >= 6"):
        accuracy.ill_conditioned_dot(4, 1e10)
    with pytest.raises(ValueError, match="cond must be a finite number >= 2"):
        accuracy.ill_conditioned_dot(10, 1)


@pytest.mark.parametrize("cond", [10.0, 1e8, 1e20, 1e28])
def test_ill_conditioned_matrix_hits_the_condition_number(cond):
    a = accuracy.ill_conditioned_matrix(6, cond, seed=1)
    with mpmath.workprec(400):
        s = mpmath.svd_r(mpmath.matrix(a.to_mpmath().tolist()), compute_uv=False)
        measured = max(s) / min(s)
    assert cond / 10 <= measured <= cond * 10
    assert abs(accuracy.matrix_condition(a) - float(measured)) <= 1e-12 * float(measured)
    with pytest.raises(ValueError, match="1e30"):
        accuracy.ill_conditioned_matrix(4, 1e31)


def test_hilbert_and_vandermonde_are_the_nearest_dd():
    h = accuracy.hilbert(5, device="cpu")
    err = accuracy.error(h, [[Fraction(1, i + j + 1) for j in range(5)] for i in range(5)])
    assert err.max <= 0.5 * (1 + 2.0 ** -50)  # rounding to nearest DD: <= 2^-107 relative
    v = accuracy.vandermonde(["0.5", 3, Fraction(1, 3)], 4)
    assert v.shape == (3, 4)
    assert accuracy.error(v[:2], [[1, 0.5, 0.25, 0.125], [1, 3, 9, 27]]).max == 0.0
    err = accuracy.error(v[2], [Fraction(1, 3) ** j for j in range(4)])
    assert err.max <= 0.5 * (1 + 2.0 ** -50)


def test_random_dd_has_full_precision_and_the_exponent_range():
    x = accuracy.random_dd(2000, exponents=(-8, 8), seed=3)
    hi, lo = np.asarray(x.hi), np.asarray(x.lo)
    assert np.all(np.abs(hi) < 2.0 ** 8) and np.all(np.abs(hi) >= 2.0 ** -9 * 2.0 ** -10)
    assert (lo != 0).mean() > 0.99 and (hi < 0).mean() > 0.4
    assert np.array_equal(hi, np.asarray(accuracy.random_dd(2000, exponents=(-8, 8), seed=3).hi))
    with pytest.raises(ValueError, match="low <= high"):
        accuracy.random_dd(3, exponents=(2, 1))


def test_exact_values_of_long_doubles_are_exact():
    """Probe of 2026-11-28: exact_value took float(v) of any NumPy float, so a long double
    reference lost its bits past float64's: an exact result was reported 7e13 u^2 off."""
    if np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("long double is float64 here")
    x = np.array([np.longdouble(1) + np.longdouble(2) ** -60])
    assert accuracy.exact_value(x[0]) == 1 + Fraction(1, 2 ** 60)
    assert accuracy.error(ddblas.asarray(x), x).max == 0
    assert accuracy.error(ddblas.asarray([1.0]), x).max > 1e13
    assert accuracy.exact_values(accuracy.vandermonde(x, 2))[1] == 1 + Fraction(1, 2 ** 60)
    assert accuracy.exact_value(np.float32(0.1)) == Fraction(13421773, 2 ** 27)
    assert accuracy.exact_value(np.longdouble(np.inf)) is None


def test_generators_and_exact_values_refuse_what_they_cannot_do():
    """A decimal exponent of 10^12 hung in Fraction; exponents past the double range gave
    infs silently; tries=0 reported 'in 0 tries' after doing nothing."""
    with pytest.raises(ValueError, match="decimal exponent"):
        accuracy.exact_value("1e999999999999")
    # error() scores it all the same: relative error 1 (it raised before)
    assert accuracy.error(ddblas.ones(1), ["1e999999999999"]).values.tolist() == [2.0 ** 106]
    assert accuracy.exact_value("1e300") == 10 ** 300
    for exponents in [(2000, 2000), (1.5, 3), (-1100, 0), (3, 1)]:
        with pytest.raises(ValueError, match="exponents must be"):
            accuracy.random_dd((2,), exponents=exponents)
    assert accuracy.random_dd((4,), exponents=(-1074, 1023), seed=1).shape == (4,)
    with pytest.raises(ValueError, match="tries must be a positive integer"):
        accuracy.ill_conditioned_dot(10, 1e10, tries=0)


def test_exact_value_refuses_mpmath_values_too_far_out_to_build():
    """exact_value of an mpf built mantissa * 2^exponent whatever the exponent: 2^(10^12) took
    125 GB (MemoryError or hours); now it refuses past 2^+-332193, as decimals past 10^+-100000,
    without building anything."""
    limit = accuracy.MAX_BINARY_EXPONENT
    assert accuracy.exact_value(mpmath.mpf(2) ** (limit - 1)) == 2 ** (limit - 1)
    assert accuracy.exact_value(-mpmath.mpf(3) * mpmath.mpf(2) ** -(limit + 1)) == \
        Fraction(-3, 2 ** (limit + 1))      # 3 2^-(limit+1) >= 2^-limit: within
    for v in (mpmath.mpf(2) ** limit, -mpmath.mpf(2) ** -(limit + 1), mpmath.mpf("1e-300000"),
              mpmath.mpf(2) ** (10 ** 7), mpmath.mpf(2) ** (10 ** 15), mpmath.mpf(2) ** -(10 ** 15),
              "1e-100001", "123e100000"):
        with pytest.raises(ValueError, match="beyond"):
            accuracy.exact_value(v)
    assert accuracy.exact_value(mpmath.mpf(0)) == 0


def _mpf_exactly(v) -> Fraction:   # the test's own reading of an mpf, at any size
    sign, man, exp, _ = v._mpf_
    q = Fraction(int(man)) * Fraction(2) ** exp
    return -q if sign else q


def test_errors_against_values_beyond_exact_values_limits_are_exact():
    """error() and gemm_error() score references (and C entries) beyond exact_value's limits
    through a stand-in: the floats must be those of the exact values (computed here exactly, at
    2^+-400000 where that is still cheap), and 2^+-10^15 must come back at once."""
    big, tiny = mpmath.mpf(5) * mpmath.mpf(2) ** 400000, mpmath.mpf(3) * mpmath.mpf(2) ** -400000
    result = ddblas.DDArray(np.array([1.0, 0.0, -3.5, 2.0 ** 1000, -(2.0 ** -1074)]),
                            np.array([2.0 ** -60, 0.0, 0.0, -(2.0 ** 940), 0.0]))
    got = accuracy.exact_values(result)
    for ref in (big, -big, tiny, -tiny):
        err = accuracy.error(result, [ref] * 5).values.tolist()
        w = _mpf_exactly(ref)
        assert err == [accuracy.ratio_u2(abs(g - w), abs(w)) for g in got]
    assert accuracy.error(result[:2], [big, tiny]).values.tolist() == [2.0 ** 106] * 2
    assert accuracy.error(result[:2], [-tiny, tiny]).values.tolist() == [math.inf, 2.0 ** 106]
    for far in (mpmath.mpf(2) ** (10 ** 15), -mpmath.mpf(2) ** -(10 ** 15), "-1e-999999999"):
        assert accuracy.error(result[1:3], [far, far]).max in (2.0 ** 106, math.inf)
    # C entries: exact A B + a tiny or huge C, against |A||B|
    a = ddblas.array([[1.0, 2.0 ** -60], [3.0, -1.0]])
    b = ddblas.array([[1.0 + 2.0 ** -52, 0.0], [1.0, -(2.0 ** -70)]])
    ea, eb = (np.array(accuracy.exact_values(x), dtype=object).reshape(2, 2) for x in (a, b))
    exact, den = ea.dot(eb), np.abs(ea).dot(np.abs(eb))
    for off in (tiny, -tiny, big):
        c = [[off, off], [off, off]]
        w = _mpf_exactly(off)
        want = [[accuracy.ratio_u2(abs(w - exact[i, j]), den[i, j]) for j in range(2)]
                for i in range(2)]
        assert accuracy.gemm_error(c, a, b).values.tolist() == want
    assert accuracy.gemm_error([["1e999999", "-1e-999999"], [0, 0]], a, b).values[0, 0] == \
        math.inf


def test_exact_value_of_an_mpmath_constant_says_how_to_evaluate_it():
    """mpmath.pi has no one value; mpmath's default 53 bits would be scored as the result's
    error. The TypeError said only 'cannot take constant'; now it says what to pass."""
    with pytest.raises(TypeError, match=r"mpmath constant.*workprec\(256\)"):
        accuracy.exact_value(mpmath.pi)
    with pytest.raises(TypeError, match="mpmath constant"):
        accuracy.error(ddblas.array([3.0]), [mpmath.e])
    with mpmath.workprec(256):
        ref = +mpmath.pi
    assert accuracy.error(ddblas.array([ref]), [ref]).max < 1   # DD's rounding of it: < u^2/2


def test_numpy_integer_references_are_exact_python_ints():
    """Probe of 2026-11-29: exact_value kept a NumPy integer inside its Fraction, whose
    arithmetic overflows: error() against an int64 reference array raised OverflowError, and
    sums of such values wrapped around."""
    err = accuracy.error(ddblas.array([1.0, 2.0 ** 62, -(2.0 ** 63)]),
                         np.array([3, 2 ** 62, -(2 ** 63)], dtype=np.int64))
    assert err.values.tolist() == [float(Fraction(2, 3) * 2 ** 106), 0.0, 0.0]
    assert accuracy.error(ddblas.array([2.0 ** 64]), np.array([2 ** 63], np.uint64)).max == \
        2.0 ** 106
    for v in (np.int64(2 ** 62), np.uint64(2 ** 63), np.bool_(True), np.int8(-5)):
        q = accuracy.exact_value(v)
        assert type(q.numerator) is int and q == int(v)
    assert accuracy.exact_value(np.int64(2 ** 62)) * 4 == 2 ** 64


def test_errors_and_bounds_beyond_the_float_range_are_infinite():
    """Probe of 2026-11-29: a ratio past DBL_MAX raised OverflowError (float of a Fraction):
    error() of 1e300 against 1e-300, gemm_error alike, and bound() of a huge k."""
    assert accuracy.error(ddblas.array([1e300, 1.0]), [1e-300, 1.0]).values.tolist() == \
        [math.inf, 0.0]
    one = ddblas.ones((1, 1))
    assert accuracy.gemm_error(ddblas.array([[1e300]]), ddblas.array([[1e-300]]), one).max == \
        math.inf
    assert accuracy.solve_backward_error(ddblas.array([[1e-300]]), ddblas.array([1e-300]),
                                         ddblas.array([1e300])) == 2.0 ** 106
    for op in ("gemm", "sum", "lu", "qr", "refine"):
        assert accuracy.bound(op, "fma/accurate", k=10 ** 400) == math.inf
    assert accuracy.in_u2(Fraction(10 ** 400)) == math.inf
    assert accuracy.in_u2(-Fraction(10 ** 400)) == -1.7976931348623157e308
    assert accuracy.ratio_u2(Fraction(10 ** 400), Fraction(1)) == math.inf
    assert accuracy.ratio_u2(Fraction(-(10 ** 400)), Fraction(1)) == -math.inf
    assert accuracy.ratio_u2(Fraction(1), Fraction(2)) == 2.0 ** 105
    big = Fraction(2 ** 1024 - 2 ** 971) * U2      # DBL_MAX u^2: still a float
    assert accuracy.in_u2(big) == 1.7976931348623157e308
    assert accuracy.in_u2(big + U2) == math.inf     # rounded up past DBL_MAX


def test_bools_are_not_counts():
    """Probe of 2026-11-29: bound('sum', k=True) gave the one-term bound 0, hilbert(True) and
    vandermonde(x, True) a TypeError from deep inside, ill_conditioned_matrix(n, True) a
    matrix; each is now the ValueError of a bad value, as ill_conditioned_dot's already was."""
    for op in ("sum", "gemm", "power", "lu"):
        with pytest.raises(ValueError, match="needs k"):
            accuracy.bound(op, "fma/accurate", k=True)
    assert accuracy.bound("sum", "fma/accurate", k=np.int64(1)) == 0.0
    with pytest.raises(ValueError, match="n must be a non-negative integer, got True"):
        accuracy.hilbert(True)
    with pytest.raises(ValueError, match="n must be a non-negative integer, got False"):
        accuracy.vandermonde([1, 2], False)
    with pytest.raises(ValueError, match="cond must be in"):
        accuracy.ill_conditioned_matrix(3, True)
    assert accuracy.hilbert(np.int64(1)).tolist(kind="float") == [[1.0]]


def test_condition_numbers_name_what_they_cannot_measure():
    """Probe of 2026-11-29: a NaN in dot_condition's vectors was a TypeError from None; a NaN or
    inf in matrix_condition's matrix ran mpmath's SVD to 'no convergence'; a 0 x 0 matrix said
    'min() arg is an empty sequence'; prec=0 gave inf and prec=2.5 a number, silently."""
    with pytest.raises(ValueError, match="dot_condition needs finite vectors"):
        accuracy.dot_condition([1.0, np.nan], [1.0, 2.0])
    with pytest.raises(ValueError, match="dot_condition needs finite vectors"):
        accuracy.dot_condition(ddblas.ones(2), ddblas.array([1.0, -np.inf]))
    assert accuracy.dot_condition([1, 1], [1, -1]) == math.inf
    assert accuracy.dot_condition([1, 2], [3, -1]) == 10.0
    for bad in (np.nan, np.inf):
        with pytest.raises(ValueError, match="matrix_condition needs a finite matrix"):
            accuracy.matrix_condition(ddblas.array([[bad, 1.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match=r"non-empty square matrix, got shape \(0, 0\)"):
        accuracy.matrix_condition(ddblas.zeros((0, 0)))
    for prec in (0, -5, 2.5, True):
        with pytest.raises(ValueError, match="prec must be a positive integer"):
            accuracy.matrix_condition(ddblas.eye(2), prec=prec)
    assert accuracy.matrix_condition(ddblas.array([[4.0, 0.0], [0.0, -0.5]]), prec=64) == 8.0
    assert accuracy.matrix_condition(ddblas.ones((2, 2))) == math.inf


def test_vandermonde_takes_a_one_dimensional_x():
    """Probe of 2026-11-29: a 2 x 2 x gave a 4 x 4 matrix of its flattened entries and the
    string "12" the Vandermonde matrix of [1, 2] (np.vander refuses both)."""
    for x in (ddblas.ones((2, 2)), np.ones((2, 2)), [[1, 2], [3, 4]]):
        with pytest.raises(ValueError, match=r"vandermonde needs a 1-D x, got shape \(2, 2\)"):
            accuracy.vandermonde(x)
    for x in ("12", b"12", 3):
        with pytest.raises(TypeError, match="vandermonde needs a 1-D sequence of numbers"):
            accuracy.vandermonde(x)
    v = accuracy.vandermonde(ddblas.array([2, "0.5"]), 3)
    assert v.tolist(kind="float") == [[1.0, 2.0, 4.0], [1.0, 0.5, 0.25]]
    assert accuracy.vandermonde(iter([3]), 2).tolist(kind="float") == [[1.0, 3.0]]


def test_every_public_function_is_exported():
    """Probe of 2026-11-29: solve_backward_error (README, the demo) was missing from __all__,
    so `from ddblas.accuracy import *` did not give it."""
    public = {name for name, value in vars(accuracy).items()
              if not name.startswith("_") and callable(value)
              and getattr(value, "__module__", "").startswith("ddblas")}
    assert public - {"DDArray", "asarray", "random", "dd_from_fraction", "dd_to_fraction",
                     "transposed"} <= set(accuracy.__all__)
    namespace = {}
    exec("from ddblas.accuracy import *", namespace)
    assert namespace["solve_backward_error"] is accuracy.solve_backward_error


def test_an_empty_reports_argmax_says_why():
    """Probe of 2026-11-28: argmax of a report of no elements raised NumPy's 'attempt to get
    argmax of an empty sequence' while max and median give 0.0."""
    report = accuracy.error(ddblas.zeros((0, 3)), np.zeros((0, 3)))
    assert report.max == report.median == 0.0 and "no elements" in str(report)
    with pytest.raises(ValueError, match="ErrorReport.argmax: the report has no elements"):
        report.argmax
