"""Baselines for `python -m ddblas bench baselines`: other libraries' extended-precision (and
float64) matrix products, timed on the same inputs and scored exactly.

    a, b = bench_inputs(256, seed=0)
    for adapter in ADAPTERS:
        print(measure(adapter, a, b) if adapter.available() else adapter.skip_reason)

Every adapter has one interface:
    name, engine ('cpu' or 'gpu'), note (what it computes), max_n (the largest N `measure` times:
    one product takes up to ~10 s at that N on 2 cores; None: no cap),
    available(), skip_reason (one line, None where available), version(),
    prepare(a, b)              the DD inputs as the library's own objects, exactly (not timed)
    multiply(operands)         the timed product, the library's own result (GPU: synchronised)
    to_fractions(c, rows, cols)  the exact values of c[rows][:, cols], an object array of
                               Fractions (floats where not finite)
    error_bound(k)             the expected componentwise error for inner dimension k, units of u^2
A library that is not installed is reported by available() and skip_reason, never raised; the
libraries are the optional extra `ddblas[bench]`.

Errors are componentwise, |C - AB|_ij / (|A||B|)_ij in units of u^2 = 2^-106, against the exact
product (`accuracy.gemm_error`, rational arithmetic), which is stronger than a check against
mpmath at some precision.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import math
import os
import sys
from fractions import Fraction

import numpy as np

import ddblas   # before any adapter imports xprec: ddblas imports numpy.ma (core/io.py)
from ddblas import DDArray, accuracy, random

from .timing import time_on

PREC = 106  # bits of the MPFR, Arb and mpmath baselines: the DD significand
_INSTALL = "pip install 'ddblas[bench]', or '.[bench]' in a source checkout"


def bench_inputs(n: int, seed: int = 0, device: str = "cpu") -> tuple[DDArray, DDArray]:
    """Two n x n DD matrices A, B of values +-k 2^-106, k a uniform random integer < 2^106
    (ddblas.random with uniform signs; the same seed gives the same values on every device).

    Every format here holds them exactly: the significand k has at most 106 bits and the exponent
    is at least -106, so a DD pair (hi, lo), an xprec ddouble (the same pair), IEEE binary128
    (113-bit significand, normal down to 2^-16382), and MPFR, Arb and mpmath numbers at 106 bits
    are all exact. float64 holds only hi (the nearest double, 53 bits)."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    rng = np.random.default_rng(seed)
    pair = []
    for _ in range(2):
        x = random((n, n), seed=int(rng.integers(2 ** 62)), device="cpu")
        sign = np.where(rng.random((n, n)) < 0.5, -1.0, 1.0)  # negation is exact
        pair.append(DDArray(x.hi * sign, x.lo * sign).to_device(device))
    return pair[0], pair[1]


# ---- exact conversions shared by the adapters ----

def _host_parts(x: DDArray) -> tuple[np.ndarray, np.ndarray]:
    c = x.to_device("cpu")
    return np.asarray(c.hi), np.asarray(c.lo)


def _man_exp(q: Fraction) -> tuple[int, int]:
    """(m, e) with q = m 2^e exactly, for a dyadic rational q."""
    e = q.denominator.bit_length() - 1
    return q.numerator, -e


def _object_array(values, shape) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)


def _exact_float(x: float):
    """A float's exact value: a Fraction, or the float itself where it is inf or nan."""
    return Fraction(x) if math.isfinite(x) else x


def _dd_fractions(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    return _object_array([Fraction(float(h)) + Fraction(float(l)) if math.isfinite(h) else float(h)
                          for h, l in zip(hi.ravel(), lo.ravel())], hi.shape)


def _gamma(k: int, unit: Fraction) -> Fraction:
    """gamma_k = k v / (1 - k v): the bound of any k-term dot product whose operations each
    round to unit roundoff v, relative to sum |x_i y_i| [Higham, Accuracy and Stability of
    Numerical Algorithms, 2nd ed., Sec. 3.1]."""
    return k * unit / (1 - k * unit)


# ---- the adapters ----

class Baseline:
    """One library's matrix product; subclasses set the class attributes and the methods."""
    name = ""
    engine = "cpu"
    module = ""   # what available() imports
    package = ""  # its distribution name (pip)
    note = ""
    max_n: int | None = None

    def _library(self):
        return importlib.import_module(self.module)

    @property
    def skip_reason(self) -> str | None:
        """Why this baseline cannot run here (one line), or None."""
        try:
            self._library()
        except ModuleNotFoundError:
            return f"{self.package} not installed ({_INSTALL})"
        except Exception as exc:  # a broken install is a skip too, with what it said
            return f"{self.package} does not import: {type(exc).__name__}: {exc}"
        return None

    def available(self) -> bool:
        return self.skip_reason is None

    def version(self) -> str:
        try:
            return importlib.metadata.version(self.package)
        except importlib.metadata.PackageNotFoundError:
            return str(getattr(self._library(), "__version__", "unknown"))

    def __repr__(self) -> str:
        return f"<baseline {self.name} ({self.engine})>"


class Flint(Baseline):
    name, module, package = "python-flint arb_mat", "flint", "python-flint"
    note = "Arb ball arithmetic at prec 106 (midpoint scored); all cores"
    max_n = 1024  # 4.4 s on 2 cores

    @contextlib.contextmanager
    def _context(self):
        """ctx.prec = 106 and ctx.threads = all cores, restored afterwards."""
        ctx = self._library().ctx
        prec, threads = ctx.prec, ctx.threads
        ctx.prec, ctx.threads = PREC, os.cpu_count() or 1
        try:
            yield
        finally:
            ctx.prec, ctx.threads = prec, threads

    def prepare(self, a, b):
        flint = self._library()

        def matrix(x):  # arb((m, e)) is m 2^e exactly, whatever ctx.prec
            q = accuracy.exact_values(x)
            cols = x.shape[1]
            return flint.arb_mat([[flint.arb(_man_exp(v)) for v in q[i:i + cols]]
                                  for i in range(0, len(q), cols)])
        return matrix(a), matrix(b)

    def multiply(self, operands):
        a, b = operands
        with self._context():
            return a * b

    def to_fractions(self, c, rows, cols):
        def value(x):
            if not x.is_finite():
                return math.nan
            m, e = x.mid().man_exp()
            return Fraction(int(m)) * Fraction(2) ** int(e)
        return _object_array([value(c[i, j]) for i in rows for j in cols], (len(rows), len(cols)))

    def error_bound(self, k):
        # arb_mat_mul forms each entry by a dot product with guard bits (arb_dot, or exact
        # integer blocks) and rounds the sum once to 106 bits toward zero (Arb's midpoint
        # rounding): < 1 ulp = 2^-105 |c|, 2 u^2 relative to |A||B|; 1 u^2 more for the terms'
        # truncation below the guard bits. (Arb's radius, which encloses the exact value, was
        # measured at <= 1.96 u^2 relative to |A||B| for these inputs.)
        return 3.0


class Xprec(Baseline):
    name, module, package = "xprec ddouble", "xprec", "xprec"
    note = "double-double NumPy dtype, naive triple loop (OpenMP)"
    max_n = 512  # N = 1024 took 27 s on 2 cores

    def prepare(self, a, b):
        ddouble = self._library().ddouble

        def matrix(x):  # a ddouble is the struct {double hi, lo}: reinterpret the pairs
            hi, lo = _host_parts(x)
            return np.stack([hi, lo], axis=-1).view(ddouble)[..., 0]
        return matrix(a), matrix(b)

    def multiply(self, operands):
        a, b = operands
        return a @ b

    def to_fractions(self, c, rows, cols):
        pairs = np.ascontiguousarray(c[np.ix_(rows, cols)]).view(np.float64)
        pairs = pairs.reshape(len(rows), len(cols), 2)
        return _dd_fractions(pairs[..., 0], pairs[..., 1])

    def error_bound(self, k):
        # val = addqq(val, mulqq(a, b)) from 0: products by [JMP17] Alg. 11 (6 u^2 relative),
        # sums by Alg. 6 (3u^2 / (1 - 4u) relative); the first addition is exact. The dot-product
        # recursion gives (6 + (k - 1) 3 / (1 - 4u)) u^2 (1 + 2^-40) relative to |A||B|.
        add = accuracy.bound_constant("add", "fma/accurate")
        return accuracy.in_u2((6 * accuracy.U2 + max(k - 1, 0) * add) * accuracy.GROWTH)


class QuadDType(Baseline):
    name, module, package = "numpy-quaddtype binary128", "numpy_quaddtype", "numpy-quaddtype"
    note = "IEEE binary128 (SLEEF), QuadBLAS matmul"
    max_n = 512  # 6-8 s on 2 cores

    def _dtype(self):
        return self._library().QuadPrecDType(backend="sleef")

    def prepare(self, a, b):
        dtype = self._dtype()

        def matrix(x):  # hi and lo are exact quads; their sum is exact when it fits 113 bits
            hi, lo = _host_parts(x)
            return hi.astype(dtype) + lo.astype(dtype)
        return matrix(a), matrix(b)

    def multiply(self, operands):
        a, b = operands
        return a @ b

    def to_fractions(self, c, rows, cols):
        raw = np.ascontiguousarray(c[np.ix_(rows, cols)]).tobytes()
        values = [_binary128(raw[i:i + 16]) for i in range(0, len(raw), 16)]
        return _object_array(values, (len(rows), len(cols)))

    def error_bound(self, k):
        # every binary128 operation (SLEEF, correctly rounded) errs by at most v = 2^-113
        # relative: gamma_k(2^-113) relative to |A||B|, k/128 in units of u^2
        return accuracy.in_u2(_gamma(k, Fraction(1, 2 ** 113)))


def _binary128(raw: bytes):
    """The exact value of an IEEE binary128 number in native byte order (floats for inf, nan)."""
    bits = int.from_bytes(raw, sys.byteorder)
    negative, exponent, fraction = bits >> 127, (bits >> 112) & 0x7FFF, bits & ((1 << 112) - 1)
    if exponent == 0x7FFF:
        return math.nan if fraction else (-math.inf if negative else math.inf)
    if exponent == 0:  # subnormal
        value = Fraction(fraction) * Fraction(2) ** (1 - 16383 - 112)
    else:
        value = Fraction(fraction | 1 << 112) * Fraction(2) ** (exponent - 16383 - 112)
    return -value if negative else value


class Mpmath(Baseline):
    name, module, package = "mpmath", "mpmath", "mpmath"
    note = "mpmath.matrix product at prec 106 (small N only)"
    max_n = 128  # 2-3 s on 2 cores

    def prepare(self, a, b):
        return a.to_mpmath(), b.to_mpmath()  # exact mpf values

    def multiply(self, operands):
        mpmath = self._library()
        a, b = operands
        with mpmath.workprec(PREC):
            return a * b

    def to_fractions(self, c, rows, cols):
        mpmath = self._library()
        values = [accuracy.exact_value(c[i, j]) if mpmath.isfinite(c[i, j]) else float(c[i, j])
                  for i in rows for j in cols]
        return _object_array(values, (len(rows), len(cols)))

    def error_bound(self, k):
        # each entry is mpmath.fdot: exact products summed exactly (mpf_sum; terms more than
        # 2 * 106 bits below the sum could be dropped, none here), rounded once to nearest at
        # 106 bits: at most 2^-106 |c| <= u^2 (|A||B|)
        return 1.0


class Gmpy2(Baseline):
    name, module, package = "gmpy2 mpfr", "gmpy2", "gmpy2"
    note = "MPFR at prec 106 in NumPy object arrays (small N only)"
    max_n = 256  # 5 s on 2 cores

    @contextlib.contextmanager
    def _context(self):
        """A gmpy2 context of 106 bits, round to nearest, as the current one; restored after."""
        gmpy2 = self._library()
        old = gmpy2.get_context()
        gmpy2.set_context(gmpy2.context(precision=PREC))
        try:
            yield gmpy2
        finally:
            gmpy2.set_context(old)

    def prepare(self, a, b):
        with self._context() as gmpy2:  # one rounding to 106 bits of each exact value: exact
            return tuple(_object_array([gmpy2.mpfr(q) for q in accuracy.exact_values(x)],
                                       x.shape) for x in (a, b))

    def multiply(self, operands):
        a, b = operands
        with self._context():
            return a @ b

    def to_fractions(self, c, rows, cols):
        gmpy2 = self._library()

        def value(x):
            if not gmpy2.is_finite(x):
                return float(x)
            m, d = x.as_integer_ratio()
            return Fraction(int(m), int(d))
        return _object_array([value(c[i, j]) for i in rows for j in cols], (len(rows), len(cols)))

    def error_bound(self, k):
        # NumPy's object matmul: k products and k - 1 sums, each rounded to 106 bits
        return accuracy.in_u2(_gamma(k, accuracy.U2))


def _hi_parts_bound(k: int) -> Fraction:
    """Componentwise error of a float64 GEMM of the hi parts, relative to |A||B|: with
    |lo| <= u |hi| and |hi| <= |x| / (1 - u), |A_hi B_hi - AB| <= (2u + u^2) |A_hi||B_hi| and the
    float64 product adds gamma_k(u) |A_hi||B_hi| in any summation order, with or without FMA:
    (gamma_k(u) + 2u + u^2) / (1 - u)^2, about (k + 2) u."""
    u = accuracy.U
    return (_gamma(k, u) + 2 * u + u * u) / (1 - u) ** 2


class Float64(Baseline):
    name, module, package = "NumPy float64", "numpy", "numpy"
    note = "BLAS DGEMM on the hi parts only: inputs rounded to 53 bits, error ~u, not u^2"

    def prepare(self, a, b):
        return _host_parts(a)[0], _host_parts(b)[0]

    def multiply(self, operands):
        a, b = operands
        return a @ b

    def to_fractions(self, c, rows, cols):
        return _object_array([_exact_float(float(v)) for v in c[np.ix_(rows, cols)].ravel()],
                             (len(rows), len(cols)))

    def error_bound(self, k):
        return accuracy.in_u2(_hi_parts_bound(k))


class CublasDgemm(Float64):
    name, engine, module, package = "cuBLAS DGEMM", "gpu", "cupy", "cupy"
    note = "CuPy float64 matmul on the hi parts: the FP64 reference, error ~u"

    @property
    def skip_reason(self):
        return None if ddblas.gpu_available() else "no GPU (needs CuPy and a CUDA device)"

    def version(self):
        cupy = self._library()
        return f"CuPy {cupy.__version__}, CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}"

    def prepare(self, a, b):
        return a.to_device("gpu").hi, b.to_device("gpu").hi

    def multiply(self, operands):
        a, b = operands
        c = a @ b
        self._library().cuda.get_current_stream().synchronize()
        return c

    def to_fractions(self, c, rows, cols):
        block = c[list(rows)][:, list(cols)].get()
        return super().to_fractions(block, range(len(rows)), range(len(cols)))


class DDBlas(Baseline):
    """ddblas itself (ddblas.matmul, the active options) on one device, measured like the
    baselines; not in ADAPTERS."""
    module = package = "ddblas"

    def __init__(self, device: str = "cpu", algorithm: str = "blocked"):
        self.engine, self.algorithm = device, algorithm
        self.name = "ddblas" + ("" if algorithm == "blocked" else f" {algorithm}")
        self.note = f"rgemm algorithm={algorithm!r}, the active variant"

    @property
    def skip_reason(self):
        return None if self.engine == "cpu" or ddblas.gpu_available() else \
            "no GPU (needs CuPy and a CUDA device)"

    def version(self):
        opts = ddblas.get_options()
        return f"{ddblas.__version__} ({'fma' if opts.fma else 'nofma'}/{opts.add})"

    def prepare(self, a, b):
        return a.to_device(self.engine), b.to_device(self.engine)

    def multiply(self, operands):
        a, b = operands
        c = ddblas.rgemm(a, b, algorithm=self.algorithm)
        if self.engine == "gpu":
            c.xp.cuda.get_current_stream().synchronize()
        return c

    def to_fractions(self, c, rows, cols):
        return _dd_fractions(*_host_parts(c[list(rows)][:, list(cols)]))

    def error_bound(self, k):
        return accuracy.bound("gemm", None, k)


ADAPTERS = (Flint(), Xprec(), QuadDType(), Mpmath(), Gmpy2(), Float64(), CublasDgemm())


def sample(n: int, count: int) -> list[int]:
    """`count` indices spread evenly over range(n) (all of them if count >= n)."""
    return sorted({int(round(v)) for v in np.linspace(0, n - 1, min(n, count))})


def measure(adapter: Baseline, a: DDArray, b: DDArray, *, repeat: int = 3,
            error_sample: int = 16) -> dict:
    """Time adapter's product of the n x n DD matrices a, b (median of `repeat` wall-clock runs
    after one warm-up, CUDA events on the GPU; conversions not timed) and score the last timed
    result exactly on `error_sample` evenly spread rows and columns.

    Returns library, engine, version, note, n, seconds, gflops (2 n^3 / seconds), error and
    error_median (componentwise, units of u^2), error_bound (adapter.error_bound(n)),
    within_bound, and skipped: None, or why it did not run (not installed, or n above max_n);
    then the measurements are None."""
    if a.ndim != 2 or a.shape[0] != a.shape[1] or b.shape != a.shape:
        raise ValueError(f"measure needs two n x n matrices, got shapes {a.shape} and {b.shape}")
    n = a.shape[0]
    row = dict(library=adapter.name, engine=adapter.engine, version=None, note=adapter.note, n=n,
               seconds=None, gflops=None, error=None, error_median=None,
               error_bound=adapter.error_bound(n), within_bound=None, skipped=adapter.skip_reason)
    if row["skipped"] is None and adapter.max_n is not None and n > adapter.max_n:
        row["skipped"] = f"N = {n} is above its max_n = {adapter.max_n} (too slow)"
    if row["skipped"] is not None:
        return row
    operands = adapter.prepare(a, b)
    last = []

    def run():
        last[:] = [adapter.multiply(operands)]

    seconds = time_on(adapter.engine, run, repeat)
    rows = cols = sample(n, error_sample)
    got = adapter.to_fractions(last[0], rows, cols)
    report = accuracy.gemm_error(got, a[rows], b[:, cols])
    row.update(version=adapter.version(), seconds=seconds, gflops=2 * n ** 3 / seconds / 1e9,
               error=report.max, error_median=report.median,
               within_bound=report.within(row["error_bound"]))
    return row
