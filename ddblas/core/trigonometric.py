"""Trigonometric functions of DDArrays: sin, cos, tan, arcsin, arccos, arctan, arctan2 and hypot,
each one launch of the "trig" kernel family (cuda_src/trigonometric.h, algorithms and sources
there and in docs/algorithms.md, "Trigonometric functions"). No arithmetic happens here.

The bounds quoted are the measured worst relative errors (units of u^2 = 2^-106) over the tests'
sweeps against mpmath at 300 bits, per variant family, as `ddblas.accuracy.bound(name)` gives
them; they are measured, not proven.
"""
from __future__ import annotations

import numpy as np

from .ops import elementwise_function, register_ufuncs


# name: (kernel, parameters, summary, the Returns text on special values)
_FUNCTIONS = {
    "sin": ("sin", ("x",), "Sine of x (radians), elementwise, in DD.",
            "sin(x); nan for inf and nan; sin(-0) = -0."),
    "cos": ("cos", ("x",), "Cosine of x (radians), elementwise, in DD.",
            "cos(x); nan for inf and nan."),
    "tan": ("tan", ("x",), "Tangent of x (radians), elementwise, in DD: sin(x) / cos(x).",
            "tan(x); nan for inf and nan."),
    "arcsin": ("asin", ("x",), "Inverse sine, elementwise, in DD: arctan2(x, sqrt((1 - x)(1 + "
               "x))), in [-pi/2, pi/2].", "arcsin(x); nan for |x| > 1 and nan."),
    "arccos": ("acos", ("x",), "Inverse cosine, elementwise, in DD: arctan2(sqrt((1 - x)(1 + "
               "x)), x), in [0, pi].", "arccos(x); nan for |x| > 1 and nan."),
    "arctan": ("atan", ("x",), "Inverse tangent, elementwise, in DD, in [-pi/2, pi/2].",
               "arctan(x); arctan(+-inf) = +-pi/2, nan for nan."),
    "arctan2": ("atan2", ("y", "x"), "The angle of the point (x, y), elementwise, in DD, in "
                "[-pi, pi].", "arctan2(y, x). Zeros, infinities and nans as NumPy/C99: "
                "arctan2(+-0, -0) = +-pi, arctan2(+-0, +0) = +-0, arctan2(+-inf, -inf) = "
                "+-3pi/4, ..."),
    "hypot": ("hypot", ("x1", "x2"), "sqrt(x1^2 + x2^2), elementwise, in DD, without "
              "intermediate overflow or underflow.", "hypot(x1, x2); +inf if either is "
              "infinite (even with a nan), else nan if either is nan."),
}

sin, cos, tan, arcsin, arccos, arctan, arctan2, hypot = (
    elementwise_function(name, f"ddblas_trig_{kernel}", parameters, summary, special,
                         "Trigonometric functions")
    for name, (kernel, parameters, summary, special) in _FUNCTIONS.items())

__all__ = ["arccos", "arcsin", "arctan", "arctan2", "cos", "hypot", "sin", "tan"]

register_ufuncs({np.sin: sin, np.cos: cos, np.tan: tan, np.arcsin: arcsin, np.arccos: arccos,
                 np.arctan: arctan, np.arctan2: arctan2, np.hypot: hypot})
