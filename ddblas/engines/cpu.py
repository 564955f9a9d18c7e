"""CPU backend: cuda_src/ compiled by the system C++ compiler into shared libraries, one per
kernel family (ctypes), built at the first launch of one of the family's kernels."""
from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import os
import pathlib
import platform
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
import types

import numpy as np

from . import build as _build

# No contraction of a*b+c into an FMA, no fast-math: IEEE semantics exactly as on the GPU.
CXXFLAGS = ("-O3", "-std=c++17", "-ffp-contract=off", "-fno-fast-math", "-fPIC", "-shared")
OPENMP_FLAG = "-fopenmp"
# Vectorised (the default): `omp simd` loops (gemm_cpu.h) vectorised even without OpenMP, and
# 512-bit vectors where the processor has them (g++ prefers 256 by default).
SIMD_FLAGS = ("-fopenmp-simd",)
_WIDE_VECTORS = "-mprefer-vector-width=512"
# Not vectorised: the same sources as scalar code (for benchmarks: what vectorisation buys).
NO_SIMD_FLAGS = ("-fno-tree-vectorize", "-fno-tree-slp-vectorize", "-DDDBLAS_NO_SIMD")
_CANDIDATES = ("c++", "g++", "clang++")


def find_compiler() -> str:
    """$CXX if set and not blank (a command line: "ccache g++" and "g++ -m64" too), else the first
    of c++, g++, clang++ on PATH, as a command line (compiler_command); a clear error if none
    (or if $CXX is no command line, an open quote say)."""
    names = [os.environ["CXX"]] if os.environ.get("CXX", "").strip() else list(_CANDIDATES)
    for name in names:
        try:
            words = shlex.split(name)
        except ValueError as exc:   # CXX='g++ "-O2' ("No closing quotation")
            raise RuntimeError(f"ddblas: $CXX={name!r} is not a command line ({exc}); "
                               "quote it as a shell would") from None
        path = shutil.which(words[0]) if words else None
        if path:
            return shlex.join([path, *words[1:]])
    raise RuntimeError(
        "ddblas needs a C++ compiler for its CPU backend and found none "
        f"(looked for {', '.join(names)}). Install one, e.g. `apt-get install g++` "
        "(Debian/Ubuntu), `dnf install gcc-c++` (Fedora) or `xcode-select --install` (macOS), "
        "or point $CXX at it.")


def compiler_command(cxx: str) -> list[str]:
    """find_compiler()'s command line as the words to run."""
    return shlex.split(cxx)


def run_compiler(cxx: str, args: list[str], **kwargs) -> subprocess.CompletedProcess:
    """The compiler `cxx` run with `args` (output captured as text, no check of the status); a
    compiler that cannot be started at all (a script without "#!", a file removed meanwhile)
    is a RuntimeError naming it and $CXX, not an OSError, which build.cached took for a cache
    folder that cannot take the build (a warning about DDBLAS_CACHE_DIR, then a second try)."""
    try:
        return subprocess.run([*compiler_command(cxx), *args], capture_output=True, text=True,
                              check=False, **kwargs)
    except OSError as exc:
        raise RuntimeError(f"ddblas: cannot run the C++ compiler {cxx} ({exc}); point $CXX at "
                           "a working compiler") from None


@functools.cache
def compiler_identity(cxx: str) -> str:
    return run_compiler(cxx, ["--version"]).stdout.strip()


@functools.cache
def cpu_identity(cxx: str) -> str:
    """What -march=native code depends on, for the cache key: the processor's model and feature
    flags from /proc/cpuinfo (Linux), else (macOS, the BSDs: no /proc/cpuinfo) the macros that
    `cxx -march=native` predefines, which name the instruction sets it targets here; with the
    machine's architecture."""
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features", "model name")):
                    flags += line
    except OSError:
        pass
    if not flags:
        native = run_compiler(cxx, ["-march=native", "-dM", "-E", "-x", "c++", os.devnull])
        flags = native.stdout if native.returncode == 0 else ""
    return platform.machine() + "\n" + flags


def compile_unit(cxx: str, flags: tuple[str, ...], unit: pathlib.Path,
                 out_path: str) -> subprocess.CompletedProcess:
    """Run the compiler on one unit of cuda_src/units/ (headers found in cuda_src/)."""
    return run_compiler(cxx, [*flags, f"-I{_build.source_dir()}", str(unit), "-o", out_path])


@functools.cache
def _accepts(cxx: str, flag: str) -> bool:
    """True when the compiler takes `flag` (clang and other targets may lack some)."""
    out = run_compiler(cxx, [flag, "-x", "c++", "-fsyntax-only", "-"], input="")
    return out.returncode == 0


class _NoOpenMP(Exception):
    """The OpenMP probe's compile failed (nothing is cached: probed again by the next process)."""


@functools.cache
def _links_openmp(cxx: str) -> bool:
    """True when the compiler builds and links a shared library with OpenMP (a compiler without
    it builds correct single-threaded kernels). Decided before the build, so that a build that
    fails for another reason (killed, out of memory) is an error, not a library without OpenMP
    cached under the OpenMP flags' name. A success is remembered in the kernel cache (the probe
    takes ~50 ms; build.cached, without its "compiling" line), keyed by the compiler's
    identity; a failure is probed again by each process."""
    identity = hashlib.sha256(f"{cxx}\n{compiler_identity(cxx)}".encode()).hexdigest()[:32]

    def probe() -> bytes:
        source = "#include <omp.h>\nint probe() { return omp_get_max_threads(); }\n"
        with tempfile.TemporaryDirectory() as tmp:
            out = run_compiler(cxx, [OPENMP_FLAG, "-fPIC", "-shared", "-x", "c++", "-", "-o",
                                     os.path.join(tmp, "probe.so")], input=source)
        if out.returncode != 0:
            raise _NoOpenMP(out.stderr)
        return b"openmp\n"

    try:
        _build.cached(f"ddblas_cpu_openmp_{identity}.ok", probe, what=None)
    except _NoOpenMP:
        return False
    return True


def compile_flags(cxx: str, vectorize: bool = True) -> tuple[str, ...]:
    """The flags of the CPU library (without -fPIC -shared for check-kernels' assembly)."""
    openmp = (OPENMP_FLAG,) if _links_openmp(cxx) else ()
    if not vectorize:
        return CXXFLAGS + ("-march=native",) + NO_SIMD_FLAGS + openmp
    wide = (_WIDE_VECTORS,) if _accepts(cxx, _WIDE_VECTORS) else ()
    return CXXFLAGS + ("-march=native",) + wide + SIMD_FLAGS + openmp


@functools.lru_cache(maxsize=None)
def library(family: str, vectorize: bool = True, variant: str | None = None) -> ctypes.CDLL:
    """One family's compiled CPU kernels (cuda_src/units/<family>.cpp; "host": the thread count,
    blocking and geometry), or one variant's of a family built by variant
    (build.VARIANT_FAMILIES), built at first use and cached on disk (artifact). vectorize=False:
    the same sources built without vectorisation (scalar code; for benchmarks, same results).

    OpenMP threads wait passively (sleep) between parallel regions unless $OMP_WAIT_POLICY says
    otherwise: spinning threads take the cores from the BLAS threads of NumPy's matmul (and
    the BLAS threads' spinning from the kernels), which made rgemm(algorithm="ozaki-fp64"),
    alternating BLAS GEMMs and kernels, up to 10x slower on 2 cores. libgomp reads the variable
    when it is loaded, i.e. with the first library (unless another module loaded it before).
    An $OMP_NUM_THREADS above MAX_THREADS is a RuntimeError naming it (libgomp took 32768 and
    failed to create the threads, 100000 and crashed the process)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    _check_omp_num_threads(os.environ.get("OMP_NUM_THREADS", ""))
    return load(str(artifact(family, vectorize, variant)))


def _check_omp_num_threads(value: str) -> None:
    """RuntimeError where $OMP_NUM_THREADS (a count, or OpenMP's comma-separated list of counts
    for nested levels) asks for more than MAX_THREADS; values libgomp itself rejects (it warns
    and takes its default) pass."""
    for count in value.split(","):
        try:
            n = int(count.strip())
        except ValueError:
            return
        if n > MAX_THREADS:
            raise RuntimeError(f"OMP_NUM_THREADS={value} asks for more than {MAX_THREADS} threads, "
                               f"ddblas's limit (MAX_THREADS): set it lower")


def artifact(family: str, vectorize: bool = True, variant: str | None = None) -> pathlib.Path:
    """The verified cached shared library of a family (or of one variant of it), compiled first
    when missing or damaged (_build.cached)."""
    unit = _build.unit(family, "cpu")
    cxx = find_compiler()
    flags = compile_flags(cxx, vectorize) + _build.variant_defines(variant)
    key = _build.artifact_key(unit, cxx, compiler_identity(cxx), " ".join(flags),
                              cpu_identity(cxx))

    def build() -> bytes:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "lib.so")
            result = compile_unit(cxx, flags, unit, out)
            if result.returncode != 0:
                status = (f"exit status {result.returncode}" if result.returncode > 0 else
                          f"killed by signal {-result.returncode}")
                raise RuntimeError(f"ddblas: compiling the CPU kernels ({unit.name}) with {cxx} "
                                   f"failed ({status}):\n{result.stderr}")
            # a "compiler" that exits 0 without writing the library (CXX=true, a broken
            # wrapper): an error naming it, not an empty library cached (or, from the
            # FileNotFoundError, a warning about the cache folder and a second compile)
            data = pathlib.Path(out).read_bytes() if os.path.isfile(out) else b""
            if not data:
                raise RuntimeError(f"ddblas: {cxx} exited with status 0 but wrote no library "
                                   f"for {unit.name}; point $CXX at a working C++ compiler")
            return data

    what = (f"{family}{' ' + variant if variant else ''} kernels for the CPU"
            f"{'' if vectorize else ' (not vectorised)'}")
    return _build.cached(f"{_build.artifact_stem('cpu', family, variant)}_{key}.so", build, what)


# The return and argument types of the libraries' non-void functions (void ones need none).
_SIGNATURES = {
    "ddblas_cpu_threads": (ctypes.c_int, (ctypes.c_int,)),
    "ddblas_geometry": (ctypes.c_longlong, (ctypes.c_char_p, ctypes.c_longlong)),
    "ddblas_batched_shared_bytes": (ctypes.c_longlong, (ctypes.c_longlong, ctypes.c_longlong)),
    **{f"ddblas_madd_ceiling_cpu_{fma}_{add}": (ctypes.c_int64, None)
       for fma in ("fma", "nofma") for add in ("accurate", "sloppy")},
}


def load(path: str) -> ctypes.CDLL:
    """A compiled CPU library, with the return types of its non-void functions declared; one
    that the loader refuses (a checksummed artifact that is no library: a compiler wrapper's
    output; a runtime library such as libgomp missing on this machine of a cluster) is a
    RuntimeError naming it and what to do, not the loader's bare OSError."""
    try:
        lib = ctypes.CDLL(path)
    except OSError as exc:
        raise RuntimeError(f"ddblas: cannot load the compiled CPU kernels {path} ({exc}); "
                           "`python -m ddblas cache --clear` removes them to be compiled again, "
                           "and $CXX picks another compiler") from None
    for name, (restype, argtypes) in _SIGNATURES.items():
        try:
            function = getattr(lib, name)
        except (AttributeError, UnicodeDecodeError):   # not in this library (ctypes decodes
            continue                                   # dlerror's message, the path's bytes)
        function.restype = restype
        if argtypes is not None:
            function.argtypes = argtypes
    return lib


_state = threading.local()


def vectorized() -> bool:
    """Whether CpuBackend.launch uses the vectorised library in this thread (configure)."""
    return getattr(_state, "vectorize", True)


@contextlib.contextmanager
def configure(*, vectorize: bool = True):
    """Within the block, kernels launched from this thread use the library built with
    (vectorize=True, the default) or without vectorisation. The setting is thread-local, so other
    threads are unaffected; results are bitwise the same either way (benchmarks use it to show
    what vectorisation buys)."""
    if not isinstance(vectorize, bool):
        raise ValueError(f"vectorize must be True or False, got {vectorize!r}")
    previous = vectorized()
    _state.vectorize = vectorize
    try:
        yield
    finally:
        _state.vectorize = previous


def blocking() -> dict[str, int]:
    """The CPU GEMM's blocking as built for this processor: TM, TN (micro-tile), MC, NC, KC."""
    out = np.zeros(5, dtype=np.int64)
    library("host").ddblas_gemm_cpu_blocking(ctypes.c_void_p(out.ctypes.data))
    return dict(zip(("TM", "TN", "MC", "NC", "KC"), map(int, out)))


@functools.cache
def geometry() -> types.MappingProxyType:
    """Every launch geometry of cuda_src/geometry.h, read from the compiled host unit (the numbers
    the kernels are built with): "flags" {"alpha_one", "beta_zero"}, "static_shared_bytes",
    "dynamic_shared_limit", "parallel_min_items", "parallel_min_madds", "batched_max_threads",
    and "gemm"[name][a_layout] {"BM", "BN", "BK", "TM", "TN", "k_unroll", "min_blocks",
    "prefetch", "pieces", "threads", "tile_bytes"} for name in tiled, b2, b4, tsm1 ... and op(A)'s
    layout "k" or "m". Read-only mappings."""
    function = library("host").ddblas_geometry
    size = function(None, 0) + 1
    buffer = ctypes.create_string_buffer(size)
    function(buffer, size)
    tree: dict = {}
    for line in buffer.value.decode().splitlines():
        name, value = line.split()
        *parents, leaf = name.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = int(value)

    def freeze(node):
        return types.MappingProxyType({k: freeze(v) for k, v in node.items()}) \
            if isinstance(node, dict) else node
    return freeze(tree)


def dynamic_tile_bytes(row) -> int:
    """The dynamic shared memory a launch of the GEMM kernel of one geometry row
    (geometry()["gemm"][name][a_layout]) needs: its tiles' bytes where they exceed static shared
    memory (gemm_gpu.h's gemm_tiles then keeps them in dynamic shared memory), else 0."""
    tiles = row["tile_bytes"]
    return tiles if tiles > geometry()["static_shared_bytes"] else 0


@functools.cache
def batched_shared_bytes(order: int, width: int) -> int:
    """Dynamic shared memory bytes a system of `order` rows of `width` (its matrix, then the
    fused solve's right-hand sides) takes in the GPU's batched LU kernels (geometry.h
    batched_shared_entries)."""
    return library("host").ddblas_batched_shared_bytes(order, width)


def get_threads() -> int:
    """The number of threads of the CPU kernels launched from this thread (1 without OpenMP)."""
    return library("host").ddblas_cpu_threads(0)


# The most threads cpu_threads accepts: far above any core count of today's machines (unless the
# machine has more), and far below where OpenMP's int count or thread creation would fail.
MAX_THREADS = max(1024, os.cpu_count() or 1)


def _check_threads(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_THREADS:
        raise ValueError(f"n (the CPU thread count) must be an integer from 1 to {MAX_THREADS}, "
                         f"got {n!r}")
    return int(n)


class cpu_threads:  # noqa: N801  (used like a function, as numpy.errstate)
    """Set the number of threads of the CPU kernels (OpenMP) launched from this thread.

    ``ddblas.cpu_threads(n)`` sets it to n, 1 <= n <= MAX_THREADS (max(1024, the core count));
    ``with ddblas.cpu_threads(n): ...`` sets it for the block and restores the previous count on
    exit. The count applies to the calling thread (OpenMP's omp_set_num_threads); without OpenMP
    the kernels run on one thread whatever n is. A bad n raises a ValueError naming it.
    ``ddblas.get_cpu_threads()`` reads the count.
    """

    def __init__(self, n: int):
        self.n = _check_threads(n)
        self.previous = get_threads()
        self._restore = [self.previous]   # what the with block that may follow gives back
        self._just_made = True
        self.threads = library("host").ddblas_cpu_threads(self.n)

    def __enter__(self) -> "cpu_threads":
        # entered again later (or nested): the count in force then comes back on exit (it gave
        # back the count of its construction, and did not set n again)
        if not self._just_made:
            self._restore.append(get_threads())
            library("host").ddblas_cpu_threads(self.n)
        self._just_made = False
        return self

    def __exit__(self, *exc) -> None:
        library("host").ddblas_cpu_threads(self._restore.pop())


def madd_ceiling(suffix: str, *, threads: int | None = None, vectorize: bool = True,
                 seconds: float = 0.02, repeats: int = 20) -> float:
    """The CPU's DD multiply-add ceiling in DD GFLOP/s (2 flops per madd): the GEMM's
    micro-kernel on one tile whose operands stay in registers and L1 (gemm_cpu.h,
    madd_ceiling_cpu), on `threads` threads (default: the current count), from the vectorised
    library or not; the best of `repeats` runs of about `seconds` each after a warm-up: a
    ceiling is what the cores can do, and other load on the machine (wall clock) only lowers a
    run, so the fastest run is the closest to it (a median let kernels timed in quieter moments
    beat their ceiling). suffix: the variant's kernel-name suffix (Options.suffix, e.g.
    "fma_accurate")."""
    kernel = getattr(library("bench", vectorize), "ddblas_madd_ceiling_cpu_" + suffix)
    sink = ctypes.c_double()
    with cpu_threads(threads) if threads is not None else contextlib.nullcontext():
        iters = 1000
        while True:  # warm-up, and an iteration count for about `seconds`
            start = time.perf_counter()
            kernel(ctypes.c_int64(iters), ctypes.byref(sink))
            elapsed = time.perf_counter() - start
            if elapsed >= 0.02:
                break
            iters *= 10
        iters = max(1, int(iters * seconds / elapsed))
        rates = []
        for _ in range(repeats):
            start = time.perf_counter()
            madds = kernel(ctypes.c_int64(iters), ctypes.byref(sink))
            rates.append(2 * madds / (time.perf_counter() - start) / 1e9)
    return max(rates)


class CpuBackend:
    """Runs the kernels of cuda_src/units/*.cpp on NumPy arrays."""

    name = "cpu"
    xp = np

    def launch(self, kernel: str, work: int, *args) -> None:
        """Call kernel(*args), a kernel with `work` independent items: arrays are passed as
        pointers to their (first) element, floats as double, ints as int64."""
        if work == 0:
            return
        family, variant = _build.build_of(kernel)
        getattr(library(family, vectorized(), variant), kernel)(*map(_c_arg, args))


def _c_arg(a):
    if type(a) is int:   # the most common argument first
        return ctypes.c_int64(a)
    if isinstance(a, np.ndarray):
        return ctypes.c_void_p(a.ctypes.data)
    if isinstance(a, float):
        return ctypes.c_double(a)
    return ctypes.c_int64(a)
