"""CPU backend: cuda_src/ compiled by the system C++ compiler into a shared library (ctypes)."""
from __future__ import annotations

import ctypes
import functools
import os
import platform
import shutil
import subprocess
import tempfile

import numpy as np

from . import _build

# No contraction of a*b+c into an FMA, no fast-math: IEEE semantics exactly as on the GPU.
CXXFLAGS = ("-O3", "-std=c++17", "-ffp-contract=off", "-fno-fast-math", "-fPIC", "-shared")
OPENMP_FLAG = "-fopenmp"
_CANDIDATES = ("c++", "g++", "clang++")


def find_compiler() -> str:
    """$CXX if set, else the first of c++, g++, clang++ on PATH; a clear error if none."""
    names = [os.environ["CXX"]] if os.environ.get("CXX") else list(_CANDIDATES)
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError(
        "ddblas needs a C++ compiler for its CPU backend and found none "
        f"(looked for {', '.join(names)}). Install one, e.g. `apt-get install g++` "
        "(Debian/Ubuntu), `dnf install gcc-c++` (Fedora) or `xcode-select --install` (macOS), "
        "or point $CXX at it.")


def _compiler_identity(cxx: str) -> str:
    out = subprocess.run([cxx, "--version"], capture_output=True, text=True, check=False)
    return out.stdout.strip()


def _cpu_identity() -> str:
    """-march=native code is only valid on this kind of processor: key the cache on it."""
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features", "model name")):
                    flags += line
    except OSError:
        pass
    return platform.machine() + "\n" + flags


def _compile(cxx: str, flags: tuple[str, ...], out_path: str) -> subprocess.CompletedProcess:
    src = _build.source_dir() / "cpu_kernels.cpp"
    return subprocess.run([cxx, *flags, str(src), "-o", out_path],
                          capture_output=True, text=True, check=False)


@functools.lru_cache(maxsize=None)
def library() -> ctypes.CDLL:
    """The compiled CPU kernels, built on first use and cached on disk.

    OpenMP threads wait passively (sleep) between parallel regions unless $OMP_WAIT_POLICY says
    otherwise: spinning threads take the cores from the BLAS threads of NumPy's matmul (and
    the BLAS threads' spinning from the kernels), which made rgemm(algorithm="ozaki-fp64"),
    alternating BLAS GEMMs and kernels, up to 10x slower on 2 cores. libgomp reads the variable
    when it is loaded, i.e. with this library (unless another module loaded it before)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    cxx = find_compiler()
    flags = CXXFLAGS + ("-march=native", OPENMP_FLAG)
    key = _build.artifact_key(cxx, _compiler_identity(cxx), " ".join(flags), _cpu_identity())
    path = _build.cache_dir() / f"ddblas_cpu_{key}.so"
    if not path.exists():
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "lib.so")
            result = _compile(cxx, flags, out)
            if result.returncode != 0 and OPENMP_FLAG in flags:
                # A compiler without OpenMP still builds correct (single-threaded) kernels.
                flags = tuple(f for f in flags if f != OPENMP_FLAG)
                result = _compile(cxx, flags, out)
            if result.returncode != 0:
                raise RuntimeError(f"ddblas: compiling the CPU kernels with {cxx} failed:\n"
                                   f"{result.stderr}")
            with open(out, "rb") as f:
                _build.write_atomically(path, f.read())
    return ctypes.CDLL(str(path))


class CpuBackend:
    """Runs the kernels of cuda_src/kernels.h on NumPy arrays."""

    name = "cpu"
    xp = np

    def launch(self, kernel: str, work: int, *args) -> None:
        """Call kernel(*args), a kernel with `work` independent items: arrays are passed as
        pointers to their (first) element, floats as double, ints as int64."""
        if work == 0:
            return
        getattr(library(), kernel)(*map(_c_arg, args))


def _c_arg(a):
    if isinstance(a, np.ndarray):
        return ctypes.c_void_p(a.ctypes.data)
    if isinstance(a, float):
        return ctypes.c_double(a)
    return ctypes.c_int64(a)
