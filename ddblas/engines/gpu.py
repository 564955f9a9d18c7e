"""GPU backend: cuda_src/ compiled by NVRTC (through CuPy's bindings) into cached cubins, one per
kernel family (one per variant for build.VARIANT_FAMILIES), built at the first launch of one of
its kernels; PTX, which the driver compiles as it loads it, for a GPU newer than NVRTC knows."""
from __future__ import annotations

import functools
import os
import pathlib
import struct

from . import build as _build
from . import cpu as _cpu

# --fmad=false: NVRTC must not contract a*b+c into an FMA; the FMA paths call fma() explicitly.
# Division and square root stay IEEE correctly rounded (NVRTC's defaults, spelled out).
NVRTC_OPTIONS = ("--fmad=false", "--prec-div=true", "--prec-sqrt=true", "-std=c++17")
THREADS_PER_BLOCK = 256
MAX_BLOCKS = 65535


def available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, no device: all mean "no GPU"
        return False


def require() -> None:
    if not available():
        raise RuntimeError("ddblas: no GPU available: device='gpu' needs CuPy (pip install "
                           "'ddblas[gpu]', or pip install '.[gpu]' in a source checkout) and a "
                           "CUDA device; use device='cpu'")


def choose_target(capability: int, supported, nvrtc: str = "") -> str:
    """NVRTC's -arch for a device of compute capability `capability` (e.g. 90) from the
    architectures NVRTC supports: sm_<a> (a cubin) for the newest supported a at or below the
    device's of its major version (a cubin runs on the later minor versions of its major), else
    compute_<a> (PTX, which the driver compiles at load) for the newest supported a below it: a
    device newer than NVRTC. A device older than every supported architecture raises a
    RuntimeError (nvrtc: NVRTC's version, for the message)."""
    below = [a for a in supported if a <= capability]
    if not below:
        raise RuntimeError(
            f"ddblas: this GPU (compute capability {capability // 10}.{capability % 10}) is older "
            f"than every architecture that NVRTC {nvrtc} compiles for (the oldest: "
            f"{min(supported) // 10}.{min(supported) % 10}); use device='cpu', or a CUDA "
            "toolkit that still supports this GPU")
    best = max(below)
    return f"sm_{best}" if best // 10 == capability // 10 else f"compute_{best}"


def target() -> str:
    """NVRTC's -arch for the current device (choose_target): e.g. "sm_90", or "compute_90" for a
    device newer than NVRTC."""
    import cupy
    from cupy_backends.cuda.libs import nvrtc
    return choose_target(int(cupy.cuda.Device().compute_capability),
                         [int(a) for a in nvrtc.getSupportedArchs()], nvrtc_version())


def arch() -> str:
    """The compute capability that NVRTC compiles for on the current device (e.g. "90"): its
    own, capped at what NVRTC supports."""
    return target().split("_")[1]


def complete_elf(data: bytes) -> bytes:
    """A 64-bit ELF image extended with zero bytes to the end of its section and program header
    tables. CuPy's nvrtc.getCUBIN drops a cubin's last byte (it strips a string terminator that a
    cubin does not have); the driver loads the short image, but cuobjdump rejects it. The byte
    lost is the top byte of the last program header's p_align, which is zero."""
    if len(data) < 64 or data[:5] != b"\x7fELF\x02":
        return data
    phoff, shoff = struct.unpack_from("<QQ", data, 32)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<4H", data, 54)
    end = max(phoff + phentsize * phnum, shoff + shentsize * shnum)
    return data + b"\0" * (end - len(data)) if end > len(data) else data


def compile_unit(target: str, source: str, name: str, defines: tuple[str, ...] = ()) -> bytes:
    """Compile the translation unit `source` (named `name` in messages), which includes the
    cuda_src headers (held in memory), with the package's NVRTC options and `defines`
    (-DNAME=VALUE) for `target` (choose_target): a cubin for sm_<a>, PTX for compute_<a>."""
    from cupy_backends.cuda.libs import nvrtc
    headers = {p.name: p.read_text() for p in sorted(_build.source_dir().glob("*.h"))}
    prog = nvrtc.createProgram(source, name, [text.encode() for text in headers.values()],
                               [n.encode() for n in headers])
    try:
        try:
            nvrtc.compileProgram(prog, NVRTC_OPTIONS + defines + (f"-arch={target}",))
        except nvrtc.NVRTCError as exc:
            raise RuntimeError(f"ddblas: NVRTC failed to compile {name}:\n"
                               + nvrtc.getProgramLog(prog)) from exc
        if target.startswith("compute_"):
            ptx = nvrtc.getPTX(prog)
            return ptx.encode() if isinstance(ptx, str) else ptx
        return complete_elf(nvrtc.getCUBIN(prog))
    finally:
        nvrtc.destroyProgram(prog)


def nvrtc_version() -> str:
    """NVRTC's version, e.g. "13.0"."""
    from cupy_backends.cuda.libs import nvrtc
    return ".".join(map(str, nvrtc.getVersion()))


def module_path(family: str, variant: str | None = None):
    """The cached module of one kernel family (cuda_src/units/<family>.cu), or of one variant of
    a family built by variant (build.VARIANT_FAMILIES), for this device, compiled first if missing
    or damaged: a cubin (.cubin), or PTX (.ptx) for a device newer than NVRTC (target())."""
    require()
    unit = _build.unit(family, "gpu")
    arch = target()
    defines = _build.variant_defines(variant)
    key = _build.artifact_key(unit, "nvrtc " + nvrtc_version(),
                              " ".join(NVRTC_OPTIONS + defines), arch)
    what = f"{family}{' ' + variant if variant else ''} kernels for {arch}"
    suffix = "ptx" if arch.startswith("compute_") else "cubin"
    return _build.cached(f"{_build.artifact_stem('gpu', family, variant)}_{key}.{suffix}",
                         lambda: compile_unit(arch, unit.read_text(), unit.name, defines), what)


@functools.lru_cache(maxsize=None)
def _max_shared_bytes(device_id: int) -> int:
    import cupy
    return cupy.cuda.Device(device_id).attributes["MaxSharedMemoryPerBlockOptin"]


@functools.lru_cache(maxsize=None)
def _multiprocessors(device_id: int) -> int:
    import cupy
    return cupy.cuda.Device(device_id).attributes["MultiProcessorCount"]


def multiprocessors() -> int:
    """The current device's multiprocessor count (132 on an H100 SXM), read once a device (CuPy's
    attributes query every attribute of the device at each call)."""
    import cupy
    return _multiprocessors(cupy.cuda.Device().id)


def max_shared_bytes() -> int:
    """The dynamic shared memory a block of the current device may have after opting in (227 KB
    on an H100, 163 KB on an A100, 64 KB on sm_75)."""
    import cupy
    return _max_shared_bytes(cupy.cuda.Device().id)


def static_shared_bytes(kernel: str) -> int:
    """A kernel's static shared memory (its __shared__ arrays), which counts with the dynamic
    bytes a launch asks for against max_shared_bytes()."""
    import cupy
    return _static_shared_bytes(kernel, cupy.cuda.runtime.getDevice())


@functools.lru_cache(maxsize=None)
def _static_shared_bytes(kernel: str, device_id: int) -> int:
    return function(kernel).shared_size_bytes


def function(kernel: str, cooperative: bool = False):
    """A kernel of module(...) as one cupy.RawKernel a module, which finds the current device's
    function at each launch (RawModule.get_function builds a new RawKernel at each call)."""
    return _kernel_of(module(*_build.build_of(kernel), cooperative), kernel)


@functools.lru_cache(maxsize=None)
def _kernel_of(raw_module, kernel: str):
    return raw_module.get_function(kernel)


@functools.lru_cache(maxsize=None)
def module(family: str, variant: str | None = None, cooperative: bool = False):
    """One family's (or one variant's of a family built by variant) compiled GPU kernels (a
    cupy.RawModule), built on first use and cached on disk; cooperative: the same module loaded
    for cooperative launches (CuPy launches every kernel of such a module cooperatively)."""
    import cupy
    return cupy.RawModule(path=_loadable_name(module_path(family, variant)),
                          enable_cooperative_groups=cooperative)


def _loadable_name(path: pathlib.Path) -> str:
    """A name of `path` that CuPy can hand to the driver, which takes it as UTF-8: the path
    itself, or where its bytes are not UTF-8 (a POSIX file name may be any bytes: a
    DDBLAS_CACHE_DIR of Latin-1 say), /proc/self/fd/<n> of a descriptor left open for the
    process's life (CuPy loads the module on each device at its first use there)."""
    name = str(path)
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        pass
    if not os.path.isdir("/proc/self/fd"):
        raise RuntimeError(f"ddblas: the GPU kernels' cache folder {os.fsencode(path.parent)!r} "
                           "is not named in UTF-8, which CuPy needs: set DDBLAS_CACHE_DIR to "
                           "another folder")
    return f"/proc/self/fd/{os.open(path, os.O_RDONLY)}"


class GpuBackend:
    """Runs the kernels of cuda_src/units/*.cu on CuPy arrays (current device and stream)."""

    name = "gpu"

    @property
    def xp(self):
        import cupy
        return cupy

    def launch(self, kernel: str, work: int, *args) -> None:
        """Launch kernel(*args) over `work` independent items (a grid-stride loop inside)."""
        if work == 0:
            return
        blocks = min(MAX_BLOCKS, (work + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK)
        self.launch_grid(kernel, (blocks,), (THREADS_PER_BLOCK,), *args)

    def launch_grid(self, kernel: str, grid: tuple, block: tuple, *args,
                    shared_mem: int = 0, cooperative: bool = False) -> None:
        """Launch kernel(*args) on an explicit grid with `shared_mem` bytes of dynamic shared
        memory a block (beyond geometry's static_shared_bytes the kernel opts in, on the current
        device): ints go as int64, floats as double (CuPy's conversion of Python scalars; the
        same in Python here cost 20 us a launch of 17 arguments). cooperative: a cooperative
        launch (all blocks resident at once, or CuPy raises), for kernels with grid barriers."""
        raw = function(kernel, cooperative)
        if shared_mem and shared_mem > _cpu.geometry()["static_shared_bytes"]:
            raw.max_dynamic_shared_size_bytes = shared_mem   # on the current device's function
        raw(grid, block, args, shared_mem=shared_mem)
