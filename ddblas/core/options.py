"""Arithmetic options: which two_prod (FMA or Dekker) and which DD addition (accurate, sloppy).

``ddblas.options(...)`` sets them for a block of code in the current thread or asyncio task (a
context variable, as NumPy's errstate); every operation also takes ``fma=`` and ``add=``
keywords that override them for one call. Also the print options (the digits of repr and str),
process-wide like NumPy's.
"""
from __future__ import annotations

import contextlib
import contextvars
import numbers
from dataclasses import dataclass, replace

import numpy as np

ADD_KINDS = ("accurate", "sloppy")


def _validate(fma, add) -> None:
    if fma is not None and not isinstance(fma, bool):
        raise ValueError(f"fma must be True or False, got {fma!r}")
    if add is not None and add not in ADD_KINDS:
        raise ValueError(f"add must be 'accurate' or 'sloppy', got {add!r}")


@dataclass(frozen=True)
class Options:
    """fma: True uses the FMA two_prod, False Dekker's split (no FMA instruction).
    add: "accurate" (QD's IEEE add, bound 3u^2) or "sloppy" (QD's sloppy add, faster)."""

    fma: bool = True
    add: str = "accurate"

    def __post_init__(self):   # Options(fma="no") made bound() pick the FMA row silently
        if isinstance(self.fma, np.bool_):   # NumPy's True_ is True here, as in resolve()
            object.__setattr__(self, "fma", bool(self.fma))
        _validate(self.fma, self.add)
        if self.fma is None or self.add is None:
            raise ValueError(f"Options needs fma and add, got {self!r}")

    @property
    def suffix(self) -> str:
        """The kernel-name suffix of this variant, as in cuda_src/kernels.h."""
        return ("fma_" if self.fma else "nofma_") + self.add


_DEFAULT = Options()
# A context variable rather than a thread-local: each thread and each asyncio task sees its own
# options (with threading.local, tasks interleaving `with options()` blocks saw each other's, and
# a task suspended inside one left it set after the others had exited)
_current = contextvars.ContextVar("ddblas_options", default=_DEFAULT)


def get_options() -> Options:
    """The options in force in this thread."""
    return _current.get()


def resolve(fma=None, add=None) -> Options:
    """The options in force, with any per-call keyword that is not None applied."""
    fma = bool(fma) if isinstance(fma, np.bool_) else fma   # NumPy's True_ is True here
    _validate(fma, add)
    current = get_options()
    if fma is None and add is None:
        return current
    return replace(current, **{k: v for k, v in (("fma", fma), ("add", add)) if v is not None})


@contextlib.contextmanager
def options(fma=None, add=None):
    """Context manager setting the arithmetic options for this thread or asyncio task, e.g.

    >>> with ddblas.options(fma=False, add="sloppy"):
    ...     c = a * b + c
    """
    token = _current.set(resolve(fma, add))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


# ---- print options ----
_PRINT_DEFAULTS = {"precision": None, "threshold": 1000, "edgeitems": 3}
_print_options = dict(_PRINT_DEFAULTS)


class _Unchanged:
    """The default of set_printoptions' arguments: an argument left out keeps its setting."""

    def __repr__(self) -> str:
        return "<unchanged>"


_UNCHANGED = _Unchanged()


def _checked_print_options(precision, threshold, edgeitems) -> dict:
    """The settings given (those not _UNCHANGED), checked: precision None or an int from 1 to
    1400, threshold and edgeitems ints >= 0 (NumPy's integer types too, never bool)."""
    def integer(value) -> bool:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    given = {}
    if precision is not _UNCHANGED:
        if precision is not None and not (integer(precision) and 1 <= precision <= 1400):
            raise ValueError(f"precision must be None or an int from 1 to 1400, got {precision!r}")
        given["precision"] = None if precision is None else int(precision)
    for name, value in (("threshold", threshold), ("edgeitems", edgeitems)):
        if value is not _UNCHANGED:
            if not (integer(value) and value >= 0):
                raise ValueError(f"{name} must be an int >= 0, got {value!r}")
            given[name] = int(value)
    return given


def set_printoptions(precision=_UNCHANGED, threshold=_UNCHANGED, edgeitems=_UNCHANGED) -> None:
    """Set how DDArray repr and str write arrays, process-wide; as NumPy's, an argument left out
    keeps its setting.

    Parameters
    ----------
    precision : None or int, optional
        None (the default setting): repr writes the shortest decimal that converts back to the
        same DD, str 32 significant digits; an int from 1 to 1400: both write that many
        significant digits, correctly rounded, in scientific notation.
    threshold : int, optional
        Arrays of more elements than this are summarised (NumPy's; default 1000).
    edgeitems : int, optional
        The values kept at each end of a long axis when summarising (NumPy's; default 3).
    """
    _print_options.update(_checked_print_options(precision, threshold, edgeitems))


def get_printoptions() -> dict:
    """The print options in effect, as a new dict: {"precision": None or int, "threshold":
    int, "edgeitems": int}."""
    return dict(_print_options)


@contextlib.contextmanager
def printoptions(precision=_UNCHANGED, threshold=_UNCHANGED, edgeitems=_UNCHANGED):
    """Context manager: set_printoptions(...) for the block, the previous options after.

    >>> with ddblas.printoptions(precision=40):
    ...     print(repr(x))
    """
    given = _checked_print_options(precision, threshold, edgeitems)
    previous = get_printoptions()
    _print_options.update(given)
    try:
        yield get_printoptions()
    finally:
        set_printoptions(**previous)
