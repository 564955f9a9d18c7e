"""ddblas.dask without dask installed: a clear ImportError that says what to install (the README
test then skips its Dask block instead of failing)."""
from __future__ import annotations

import importlib
import sys

import pytest


def test_missing_dask_says_what_to_install(monkeypatch):
    for name in [m for m in sys.modules if m == "ddblas.dask" or m.split(".")[0] == "dask"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dask", None)  # import dask raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'ddblas\[dask\]'"):
        importlib.import_module("ddblas.dask")
