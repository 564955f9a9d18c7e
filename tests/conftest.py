"""Shared fixtures: every test that takes `device` runs on the CPU and, where CuPy sees a CUDA
device, on the GPU (skipped otherwise)."""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, Phase, settings

import ddblas

# Compile the kernels into a private cache so tests never depend on a stale user cache. The
# process that makes it (pytest-xdist's workers inherit the variable) removes it at exit.
if "DDBLAS_CACHE_DIR" not in os.environ:
    os.environ["DDBLAS_CACHE_DIR"] = tempfile.mkdtemp(prefix="ddblas-test-cache-")
    atexit.register(shutil.rmtree, os.environ["DDBLAS_CACHE_DIR"], ignore_errors=True)

settings.register_profile("ddblas", deadline=None, max_examples=100,
                          suppress_health_check=[HealthCheck.too_slow])
# For device runs: no shrinking, so a failure costs seconds, not minutes of GPU time.
settings.register_profile("device", parent=settings.get_profile("ddblas"),
                          phases=(Phase.explicit, Phase.reuse, Phase.generate))
settings.load_profile(os.environ.get("DDBLAS_HYPOTHESIS_PROFILE", "ddblas"))

HAS_GPU = ddblas.gpu_available()
requires_gpu = pytest.mark.skipif(not HAS_GPU, reason="needs CuPy and a CUDA device")


@pytest.fixture(scope="session", params=["cpu", pytest.param("gpu", marks=[pytest.mark.gpu, requires_gpu])])
def device(request) -> str:
    return request.param


@pytest.fixture(scope="session", params=[(True, "accurate"), (True, "sloppy"), (False, "accurate"),
                        (False, "sloppy")], ids=["fma-accurate", "fma-sloppy", "nofma-accurate",
                                                 "nofma-sloppy"])
def variant(request) -> dict:
    fma, add = request.param
    return {"fma": fma, "add": add}
