"""Trigonometric functions of DDArrays: sin, cos, tan, arcsin, arccos, arctan, arctan2 and hypot,
each one launch of the "trig" kernel family (cuda_src/trigonometric.h, algorithms and sources
there and in docs/algorithms.md, "Trigonometric functions"). No arithmetic happens here.

The bounds quoted are the measured worst relative errors (units of u^2 = 2^-106) over the tests'
sweeps against mpmath at 300 bits, per variant family, as `ddblas.accuracy.bound(name)` gives
them; they are measured, not proven.
"""
from __future__ import annotations

import numpy as np

from .ops import binary, register_ufuncs, unary
from .options import resolve


def _kernel(name: str, fma, add) -> str:
    return f"ddblas_trig_{name}_{resolve(fma, add).suffix}"


def sin(x, *, fma=None, add=None):
    """Sine of x (radians), elementwise, in DD.

    Parameters
    ----------
    x : DDArray or array_like
    fma, add : optional
        The arithmetic variant (ddblas.options); the default is the active one.

    Returns
    -------
    DDArray
        sin(x). Relative error <= ``ddblas.accuracy.bound("sin")`` (measured) for every
        finite x; nan for inf and nan; sin(-0) = -0.
    """
    return unary(_kernel("sin", fma, add), x)


def cos(x, *, fma=None, add=None):
    """Cosine of x (radians), elementwise, in DD.

    Parameters
    ----------
    x : DDArray or array_like
    fma, add : optional
        The arithmetic variant.

    Returns
    -------
    DDArray
        cos(x). Relative error <= ``ddblas.accuracy.bound("cos")`` (measured) for every
        finite x; nan for inf and nan.
    """
    return unary(_kernel("cos", fma, add), x)


def tan(x, *, fma=None, add=None):
    """Tangent of x (radians), elementwise, in DD: sin(x) / cos(x).

    Parameters
    ----------
    x : DDArray or array_like
    fma, add : optional
        The arithmetic variant.

    Returns
    -------
    DDArray
        tan(x). Relative error <= ``ddblas.accuracy.bound("tan")`` (measured) for every
        finite x; nan for inf and nan.
    """
    return unary(_kernel("tan", fma, add), x)


def arcsin(x, *, fma=None, add=None):
    """Inverse sine, elementwise, in DD: arctan2(x, sqrt((1 - x)(1 + x))), in [-pi/2, pi/2].

    Parameters
    ----------
    x : DDArray or array_like
    fma, add : optional
        The arithmetic variant.

    Returns
    -------
    DDArray
        arcsin(x). Relative error <= ``ddblas.accuracy.bound("arcsin")`` (measured); nan for
        |x| > 1 and nan.
    """
    return unary(_kernel("asin", fma, add), x)


def arccos(x, *, fma=None, add=None):
    """Inverse cosine, elementwise, in DD: arctan2(sqrt((1 - x)(1 + x)), x), in [0, pi].

    Parameters
    ----------
    x : DDArray or array_like
    fma, add : optional
        The arithmetic variant.

    Returns
    -------
    DDArray
        arccos(x). Relative error <= ``ddblas.accuracy.bound("arccos")`` (measured); nan for
        |x| > 1 and nan.
    """
    return unary(_kernel("acos", fma, add), x)


def arctan(x, *, fma=None, add=None):
    """Inverse tangent, elementwise, in DD, in [-pi/2, pi/2] (arctan(+-inf) = +-pi/2).

    Parameters
    ----------
    x : DDArray or array_like
    fma, add : optional
        The arithmetic variant.

    Returns
    -------
    DDArray
        arctan(x). Relative error <= ``ddblas.accuracy.bound("arctan")`` (measured).
    """
    return unary(_kernel("atan", fma, add), x)


def arctan2(y, x, *, fma=None, add=None):
    """The angle of the point (x, y), elementwise, in DD, in [-pi, pi] (NumPy broadcasting).

    Zeros, infinities and nans as NumPy/C99: arctan2(+-0, -0) = +-pi, arctan2(+-0, +0) = +-0,
    arctan2(+-inf, -inf) = +-3pi/4, ...

    Parameters
    ----------
    y, x : DDArray or array_like
    fma, add : optional
        The arithmetic variant.

    Returns
    -------
    DDArray
        arctan2(y, x). Relative error <= ``ddblas.accuracy.bound("arctan2")`` (measured).
    """
    return binary(_kernel("atan2", fma, add), y, x)


def hypot(x1, x2, *, fma=None, add=None):
    """sqrt(x1^2 + x2^2), elementwise, in DD, without intermediate overflow or underflow.

    Parameters
    ----------
    x1, x2 : DDArray or array_like
    fma, add : optional
        The arithmetic variant.

    Returns
    -------
    DDArray
        hypot(x1, x2). Relative error <= ``ddblas.accuracy.bound("hypot")`` (measured);
        +inf if either is infinite (even with a nan), else nan if either is nan.
    """
    return binary(_kernel("hypot", fma, add), x1, x2)


__all__ = ["arccos", "arcsin", "arctan", "arctan2", "cos", "hypot", "sin", "tan"]

register_ufuncs({np.sin: sin, np.cos: cos, np.tan: tan, np.arcsin: arcsin, np.arccos: arccos,
                 np.arctan: arctan, np.arctan2: arctan2, np.hypot: hypot})
