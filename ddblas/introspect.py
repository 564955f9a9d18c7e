"""ddblas.introspect: the timing and introspection API for benchmarks and tools.

The tools (`ddblas.tools`: the benchmarks, the FMA study, the kernel checks, the demo) measure
the engines against their ceilings and read the compiled code; this module is the one place
where they reach the engines' internals. Each function is a thin, documented layer over the
backend that owns the figure (no logic of its own); results of the library do not depend on it.

    from ddblas import introspect
    introspect.cpu_madd_ceiling(True, "accurate")   # DD GFLOP/s of the CPU's in-register madd
    introspect.auto_algorithm(a, b)                  # what rgemm(a, b) would run, and nothing run
"""
from __future__ import annotations

import contextlib
import pathlib
from collections.abc import Callable

from .blas import auto as _auto
from .engines import backend as _backend
from .engines import build as _build
from .engines import cpu as _cpu
from .blas import gemm as _gemm
from .blas import gemmcall as _gemmcall
from .engines import gpu as _gpu
from .blas import ozaki as _ozaki
from .blas import transfer as _transfer
from .core.options import resolve

__all__ = ["auto_algorithm", "cache_files", "cache_folders", "cached_artifact", "clear_cache",
           "copy_threads", "cpu_compile_flags", "cpu_compiler",
           "cpu_compiler_identity", "cpu_madd_ceiling", "cpu_vectorization", "default_device",
           "default_gemm_block", "gpu_arch", "gpu_cubin_path", "gpu_launch", "int8_gemm",
           "kernel_units", "ozaki_int8_padded", "source_dir", "to_device", "transfer_rates"]


# ---- devices ----

def default_device() -> str:
    """"gpu" if a CUDA device is usable, else "cpu" (what the demo runs on by default)."""
    return _backend.default_device()


def to_device(x, device: str):
    """A float64 NumPy/CuPy array moved to `device` ("cpu" or "gpu"; else a ValueError), as
    DDArray.to_device moves each of its parts (a pageable host array: the host-to-device rate of
    to_device)."""
    return _backend.move(x, _backend.check_device(device))


# ---- ceilings and tile geometry ----

def cpu_madd_ceiling(fma: bool, add: str, *, threads: int | None = None,
                     vectorize: bool = True) -> float:
    """The CPU's in-register DD multiply-add ceiling in DD GFLOP/s (2 flops per madd) for a
    variant, on `threads` threads (default: the current count), from the vectorised library or
    the scalar one: the best of several timed runs (wall clock: other load on the machine lowers
    it)."""
    return _cpu.madd_ceiling(resolve(fma, add).suffix, threads=threads, vectorize=vectorize)


def cpu_vectorization(vectorize: bool) -> contextlib.AbstractContextManager:
    """Context manager: the CPU kernels inside it run from the vectorised library
    (vectorize=True, the default) or from the scalar build of the same sources (same bits)."""
    return _cpu.configure(vectorize=vectorize)


def gpu_launch(kernel: str, grid: tuple, block: tuple, *args) -> None:
    """Launch a kernel of the GPU module by name on CuPy's current stream (e.g. the in-register
    madd ceiling `ddblas_madd_ceiling_<variant suffix>`)."""
    _backend.backend("gpu").launch_grid(kernel, grid, block, *args)


def default_gemm_block(m: int, n: int) -> int:
    """The register block b (2 or 4) of the GPU GEMM kernel that rgemm picks for an m x n C on
    the current GPU (it counts the multiprocessors: needs CuPy and a CUDA device)."""
    _gpu.require()
    return _gemm.default_block(m, n)


def auto_algorithm(a, b, fma: bool | None = None, add: str | None = None,
                   accuracy: str = "classic") -> str:
    """The algorithm rgemm(a, b, algorithm="auto", accuracy=accuracy) would run for a, b (2-D
    DDArrays, or anything else rgemm takes) on their device with the given (else the active)
    options, from the same cost model and operand scan; no product is computed. The arguments
    are checked by rgemm's own checks (errors name them). No output is allocated."""
    call = _gemmcall.prepare("rgemm", a, b, fma=fma, add=add, accuracy=accuracy,
                             new_output=False)
    return _auto.choose(call.device, call.m, call.n, call.k, call.opts.suffix,
                        lambda: _gemmcall.plans(call.op_a, call.op_b, call.opts, None,
                                                 _gemmcall.OZAKI_ENGINES, accuracy),
                        lambda: _gemmcall.cpu_rates(call.opts, _gemm.RUNNERS))[0]


# ---- the Ozaki scheme's engines ----

def ozaki_int8_padded(k: int) -> int:
    """K padded as ozaki-int8 pads it for the int8 slice GEMMs."""
    return _ozaki.int8_padded(k)


def int8_gemm(a, b, out) -> None:
    """out = a @ b exactly for int8 CuPy matrices a, b and an int32 out, with cuBLAS gemmEx as
    ozaki-int8 calls it."""
    _gpu.require()
    _ozaki.int8_gemm("gpu")(a, b, out)


# ---- host-device transfers ----

def transfer_rates():
    """The transfer model's measured rates (GB/s as bytes per second: h2d, d2h, host staging),
    as rgemm(device="gpu") on host operands plans with them."""
    _gpu.require()
    return _transfer.rates()


def copy_threads() -> int:
    """The number of threads that stage host operands for transfers."""
    return _transfer.COPY_THREADS


# ---- compiled code ----

def cache_folders() -> list[pathlib.Path]:
    """The folders of the kernel cache that ddblas reads ($DDBLAS_CACHE_DIR, else
    $XDG_CACHE_HOME/ddblas, else ~/.cache/ddblas; and this user's private fallback folder where
    it exists); what `python -m ddblas cache` lists."""
    return _build.cache_folders()


def cache_files(folder: pathlib.Path) -> list[pathlib.Path]:
    """ddblas's files in one of cache_folders() (compiled kernels, checksums, locks; names
    starting "ddblas_", nothing else in the folder); [] for a folder that cannot be read."""
    return _build.cache_files(folder)


def clear_cache() -> tuple[int, int]:
    """Remove ddblas's files from cache_folders(), (files removed, bytes freed): each kernel is
    compiled again at its next use; a build that another process holds the lock of is left.
    What `python -m ddblas cache --clear` runs."""
    return _build.clear_cache()


def cached_artifact(name: str, build: Callable[[], bytes], unit: pathlib.Path,
                    *key_parts: str) -> pathlib.Path:
    """A file of ddblas's kernel cache ($DDBLAS_CACHE_DIR, else $XDG_CACHE_HOME/ddblas, else
    ~/.cache/ddblas) for a tool's compiled output of a kernel unit (kernel_units()): `name` with
    _<key> before its suffix (key: the digest of the unit's sources and of key_parts such as
    flags and tool versions, as for the library's own artifacts, so a changed source builds
    anew), built with build() when missing and checked and written like the library's own."""
    stem, dot, suffix = name.rpartition(".")
    key = _build.artifact_key(unit, *key_parts)
    return _build.cached(f"{stem}_{key}.{suffix}" if dot else f"{name}_{key}", build,
                         f"{name} with a tool")


def kernel_units(device: str) -> dict[str, pathlib.Path]:
    """Family -> the entry unit that the backend of `device` ("cpu" or "gpu"; else a ValueError)
    compiles for it (cuda_src/units/<family>.cpp or .cu)."""
    return _build.units(_backend.check_device(device))


def kernel_family(kernel: str) -> str:
    """The family (kernel unit) that defines the kernel named `kernel`."""
    return _build.family_of(kernel)


def source_dir() -> pathlib.Path:
    """The folder of the C++/CUDA sources (cuda_src/) that both backends compile."""
    return _build.source_dir()


def cpu_compiler() -> str:
    """The host C++ compiler the CPU backend uses ($CXX, else c++, g++, clang++), as a command line
    (shlex.split gives the words: $CXX may carry a launcher or flags, "ccache g++")."""
    return _cpu.find_compiler()


def cpu_compiler_identity() -> str:
    """The first line of the host compiler's --version ("" where it prints none)."""
    return (_cpu.compiler_identity(_cpu.find_compiler()).splitlines() or [""])[0]


def cpu_compile_flags(vectorize: bool = True) -> tuple[str, ...]:
    """The flags with which the CPU backend compiles each unit into its shared library
    (vectorize=False: those of the scalar build)."""
    return _cpu.compile_flags(_cpu.find_compiler(), vectorize)


def gpu_arch() -> str:
    """The compute capability NVRTC compiles for on this GPU (e.g. "90")."""
    _gpu.require()
    return _gpu.arch()


def gpu_cubin_path(family: str = "bench") -> pathlib.Path:
    """The cached cubin of a kernel family for this GPU (compiled with NVRTC if missing; "bench":
    the instruction-census and ceiling kernels), or its PTX (a .ptx file) on a GPU newer than
    NVRTC, which the driver compiles as it loads it."""
    _gpu.require()
    return _gpu.module_path(family)
