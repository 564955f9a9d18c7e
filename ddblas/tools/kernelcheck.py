"""Static checks of the compiled kernels (`python -m ddblas check-kernels`; CI runs it as a
toolchain test, tests/test_kernelcheck.py).

- every CUDA kernel compiles with nvcc for each listed architecture (when nvcc is present);
- no kernel spills registers (ptxas -v);
- the kernels that compute an item a thread (ITEM_FAMILIES) stay within ITEM_MAX_REGISTERS;
- the non-FMA paths contain no FMA instruction: kernels named *nofma* or *dekker* have no
  `fma.rn.f64` in their PTX, and their host-compiled functions no vfmadd/vfmsub or fma() call.
  (On the GPU, PTX div.rn.f64/sqrt.rn.f64 expand to hardware sequences that use DFMA in SASS;
  those are the IEEE operations themselves, not DD arithmetic, and are not counted.)

Each compilation runs once per process (memoized): the checks, the tests and the FMA study
share it.
"""
from __future__ import annotations

import functools
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from ddblas import introspect

ARCHS = ("sm_80", "sm_90")
# The families whose kernels compute one item a thread: their speed is the warps an SM holds, so
# they keep to 128 registers (16 warps of 256-thread blocks). An unrolled cold path once took
# sin, cos and tan to 236 and made them 1.6x slower (H200, 2026-11-28).
ITEM_FAMILIES = ("elementwise", "elementary", "trig")
ITEM_MAX_REGISTERS = 128
NVCC_FLAGS = ("--fmad=false", "-std=c++17")  # the GPU backend's contraction rule
# A kernel (.entry) or a function left out of line (.func, e.g. the half-scale recomputations of
# dd.h), declaration or definition: each body is counted under its own (mangled) name, which
# carries the variant, rather than under the kernel that precedes it in the PTX.
PTX_FUNCTION = re.compile(r"^(?:\.visible |\.weak )?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\w+)\s*\(",
                          re.M)
ASM_LABEL = re.compile(r"^([A-Za-z_][\w.$]*):\s*$", re.M)
_HOST_FMA = re.compile(r"\bv?f(?:n)?m(?:add|sub)\d*[sp]d\b|\bcall\s+_?fma\b|\bfmadd\b|\bfmsub\b")


def split_at(text: str, pattern: re.Pattern) -> dict[str, str]:
    """Name -> text up to the next mark, for each match of `pattern` (group 1: the name)."""
    marks = list(pattern.finditer(text))
    return {m.group(1): text[m.end():(marks[i + 1].start() if i + 1 < len(marks) else len(text))]
            for i, m in enumerate(marks)}


def ptx_fma_counts(ptx: str) -> dict[str, int]:
    """Kernel or function name -> number of fma.rn.f64 instructions in its PTX."""
    return {name: body.count("fma.rn.f64") for name, body in split_at(ptx, PTX_FUNCTION).items()}


def host_fma_counts(asm: str) -> dict[str, int]:
    """Function label -> number of FMA instructions (or fma calls) in host assembly."""
    return {name: len(_HOST_FMA.findall(body)) for name, body in split_at(asm, ASM_LABEL).items()}


def non_fma_violations(counts: dict[str, int]) -> list[str]:
    """Names of non-FMA kernels (named *nofma* or *dekker*) that contain an FMA."""
    return sorted(n for n, c in counts.items() if c and ("nofma" in n or "dekker" in n))


@functools.lru_cache(maxsize=None)
def host_assembly(vectorize: bool = True) -> str:
    """Every CPU unit (cuda_src/units/*.cpp) compiled to assembly with the CPU backend's flags
    (those of the CPU library built with `vectorize`), concatenated."""
    cxx = introspect.cpu_compiler()
    flags = [f for f in introspect.cpu_compile_flags(vectorize) if f not in ("-shared", "-fPIC")]
    texts = []
    with tempfile.TemporaryDirectory() as tmp:
        for family, src in introspect.kernel_units("cpu").items():
            out = f"{tmp}/{family}.s"
            subprocess.run([*shlex.split(cxx), *flags, f"-I{introspect.source_dir()}", "-S",
                            str(src), "-o", out], check=True, capture_output=True, text=True)
            with open(out) as f:
                texts.append(f.read())
    return "\n".join(texts)


def _nvcc(arch: str, src, *args: str) -> subprocess.CompletedProcess:
    """nvcc on one GPU unit (cuda_src/units/*.cu) for one architecture with the GPU backend's
    contraction rule."""
    return subprocess.run([shutil.which("nvcc"), *NVCC_FLAGS, f"-arch={arch}",
                           f"-I{introspect.source_dir()}", "-x", "cu", str(src), *args],
                          check=True, capture_output=True, text=True)


@functools.lru_cache(maxsize=None)
def nvcc_ptx(arch: str) -> str:
    """The PTX of every GPU unit for one architecture, concatenated; raises on errors. Each
    unit's PTX is kept in ddblas's kernel cache (keyed by the unit's sources, nvcc's version and
    the flags), so that the checks, the tests and the FMA study of later processes (CI) do not
    compile it again."""
    version = subprocess.run([shutil.which("nvcc"), "--version"], check=True,
                             capture_output=True, text=True).stdout

    def build(src):
        def compile_unit() -> bytes:
            with tempfile.TemporaryDirectory() as tmp:
                _nvcc(arch, src, "-ptx", "-o", f"{tmp}/k.ptx")
                with open(f"{tmp}/k.ptx", "rb") as f:
                    return f.read()
        return compile_unit

    return "\n".join(
        introspect.cached_artifact(f"ddblas_nvcc_{family}_{arch}.ptx", build(src), src, version,
                                   " ".join(NVCC_FLAGS), arch).read_text()
        for family, src in introspect.kernel_units("gpu").items())


@functools.lru_cache(maxsize=None)
def nvcc_compile(arch: str) -> tuple[str, str]:
    """(PTX, ptxas -v report) of every GPU unit for one architecture; raises on errors."""
    with tempfile.TemporaryDirectory() as tmp:
        report = "".join(_nvcc(arch, src, "-cubin", "-Xptxas", "-v", "-o",
                               f"{tmp}/{family}.cubin").stderr
                         for family, src in introspect.kernel_units("gpu").items())
    return nvcc_ptx(arch), report


def spills(report: str) -> list[str]:
    """Kernels whose ptxas -v report shows spill stores or loads."""
    bad, current = [], None
    for line in report.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = m.group(1)
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and (int(m.group(1)) or int(m.group(2))):
            bad.append(current)
    return bad


def registers(report: str) -> dict[str, int]:
    """Kernel name -> registers a thread, from a ptxas -v report."""
    used, current = {}, None
    for line in report.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and current is not None:
            used[current] = int(m.group(1))
    return used


def over_register_budget(report: str) -> list[str]:
    """Kernels of ITEM_FAMILIES that take more than ITEM_MAX_REGISTERS, as 'name (registers)'."""
    return [f"{name} ({count})" for name, count in sorted(registers(report).items())
            if count > ITEM_MAX_REGISTERS and introspect.kernel_family(name) in ITEM_FAMILIES]


def main() -> int:
    failures = []
    for vectorize in (True, False):
        violations = non_fma_violations(host_fma_counts(host_assembly(vectorize)))
        print(f"host C++ ({'vectorised' if vectorize else 'not vectorised'}): "
              f"{'FMA in non-FMA functions: ' + ', '.join(violations) if violations else 'ok'}")
        failures += violations
    if shutil.which("nvcc") is None:
        print("nvcc not found: CUDA compile checks skipped")
        return 1 if failures else 0
    for arch in ARCHS:
        try:
            ptx, report = nvcc_compile(arch)
        except subprocess.CalledProcessError as exc:
            print(f"nvcc {arch}: compile error\n{exc.stderr}")
            failures.append(arch)
            continue
        counts = ptx_fma_counts(ptx)
        violations = non_fma_violations(counts)
        spilled, heavy = spills(report), over_register_budget(report)
        print(f"nvcc {arch}: {len(counts)} kernels; "
              f"FMA in non-FMA kernels: {', '.join(violations) or 'none'}; "
              f"spills: {', '.join(spilled) or 'none'}; "
              f"over {ITEM_MAX_REGISTERS} registers: {', '.join(heavy) or 'none'}")
        failures += violations + spilled + heavy
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
