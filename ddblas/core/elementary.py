"""Exponentials, logarithms, power and hyperbolic functions of DDArrays: the kernels of
cuda_src/elementary.h (family "elementary", ddblas_elem_<fn>_<variant>) launched through
core.ops' unary and binary helpers. No arithmetic happens here; the algorithms, ranges and
measured bounds are in docs/algorithms.md ("Elementary functions") and core/bounds.py."""
from __future__ import annotations

import numpy as np

from .array import DDArray, register_operations
from .ops import binary, elementwise_function, register_ufuncs
from .options import resolve

# name (NumPy's ufunc of the same name dispatches to it): what it computes
_UNARY = {
    "exp": "e**x",
    "exp2": "2**x",
    "expm1": "e**x - 1, accurate for small |x|",
    "log": "the natural logarithm (nan below 0, -inf at 0)",
    "log2": "the base-2 logarithm (nan below 0, -inf at 0)",
    "log10": "the base-10 logarithm (nan below 0, -inf at 0)",
    "log1p": "log(1 + x), accurate for small |x| (nan below -1, -inf at -1)",
    "sinh": "the hyperbolic sine",
    "cosh": "the hyperbolic cosine",
    "tanh": "the hyperbolic tangent",
    "arcsinh": "the inverse hyperbolic sine",
    "arccosh": "the inverse hyperbolic cosine (nan below 1)",
    "arctanh": "the inverse hyperbolic tangent (nan beyond +-1, +-inf at +-1)",
}


(exp, exp2, expm1, log, log2, log10, log1p, sinh, cosh, tanh, arcsinh, arccosh, arctanh) = (
    elementwise_function(name, f"ddblas_elem_{name}", ("x",), f"Elementwise {what}, in DD.",
                         f"Same shape and device as x. Special values as float64 (NumPy's "
                         f"np.{name}).", "Elementary functions")
    for name, what in _UNARY.items())


def power(x, y, *, fma=None, add=None) -> DDArray:
    """Elementwise x ** y for any real DD exponent, as exp(y log|x|), in DD.

    Parameters
    ----------
    x, y : DDArray or array_like
        Base and exponent, broadcast together as NumPy does.
    fma, add : optional
        The arithmetic variant (ddblas.options); None takes the active options.

    Returns
    -------
    DDArray
        C99 pow's special values, as NumPy's np.power on float64: power(x, 0) = 1 and
        power(1, y) = 1 even for nan; x < 0 with a non-integer y gives nan; a negative x with
        an integer y takes the sign of (-1)**y; zeros and infinities by the sign and parity of y.

    Notes
    -----
    The relative error grows with |y log x|: the product y log x has a relative error of a few
    u^2, which e**z turns into an absolute error, so the bound is measured as
    (a + b |y ln x|) u^2 (docs/algorithms.md, "Elementary functions";
    ddblas.accuracy.bound("real_power", variant) gives c in c (1 + |y ln x|)). Same bits on the
    CPU and the GPU. ddblas.power (and **, np.power) call this for non-integer exponents and
    compute integer powers by exact-order repeated multiplication instead.
    """
    return binary(f"ddblas_elem_pow_{resolve(fma, add).suffix}", x, y, names=("x", "y"))


def fmod(x, y, *, fma=None, add=None) -> DDArray:
    """Elementwise remainder of x / y with the sign of x, as C's fmod (NumPy's np.fmod), in DD.

    Parameters
    ----------
    x, y : DDArray or array_like
        Dividend and divisor, broadcast together as NumPy does.
    fma, add : optional
        The arithmetic variant (ddblas.options); None takes the active options (the same bits
        for every variant where the FMA-free exact products do not underflow).

    Returns
    -------
    DDArray
        r = x - n y with n = trunc(x / y) an integer, sign of x, |r| < |y|. Special values as
        float64: fmod(x, 0), fmod(+-inf, y) and nan give nan; fmod(x, +-inf) = x; a zero
        result has the sign of x.

    Notes
    -----
    Long division in base 2^52 (docs/algorithms.md, "fmod"), not x - y trunc(x / y): exact for
    float64 operands and for DDs without a gap between their parts, whatever the quotient
    (1e300 mod 3.1e-300 included); otherwise each of the <= 41 passes rounds once (measured
    bound in docs/algorithms.md). Same bits on the CPU and the GPU.
    """
    return binary(f"ddblas_elem_fmod_{resolve(fma, add).suffix}", x, y, names=("x", "y"))


register_ufuncs({getattr(np, name): globals()[name] for name in _UNARY} | {np.fmod: fmod})
register_operations(real_power=power)  # ddblas.power's non-integer exponents (core.ops)
