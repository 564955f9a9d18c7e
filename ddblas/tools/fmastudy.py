"""`python -m ddblas bench fma`: Nakasato's FMA vs non-FMA table for this machine.

Instruction counts are read from the compiled code, not assumed: the census kernels of
cuda_src/census.h (`ddblas_census_{add,mul,madd}_<variant>`, one DD operation each, no loop, no
special-value handling) are disassembled and their FP64 arithmetic instructions counted:
- GPU: the SASS of the cached NVRTC cubin (cuobjdump; DADD, DMUL, DFMA), else the PTX of
  the GPU units compiled by nvcc (add/sub/mul/fma.rn.f64; a negation folds into an operand in
  SASS and is not counted);
- CPU: the host assembly of the CPU units with the CPU backend's flags (scalar add, sub, mul,
  div, sqrt and FMA instructions on doubles).
If the FP64 pipe is the bottleneck and every instruction costs one issue, the non-FMA / FMA time
ratio of a GEMM step is count(nofma madd) / count(fma madd): the "predicted" ratio, set beside
the measured ratios of the in-register ceiling, of rgemm and of the elementwise kernels.
"""
from __future__ import annotations

import re
import shutil
import subprocess

import ddblas
from ddblas import introspect

from . import kernelcheck

OPS = ("add", "mul", "madd")
VARIANTS = ("fma_accurate", "fma_sloppy", "nofma_accurate", "nofma_sloppy")
_SASS_FUNCTION = re.compile(r"^\s*Function : (\w+)\s*$", re.M)
_SASS_OPCODE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9]*)")
_PTX_FP64 = re.compile(r"\b(add|sub|mul|fma)\.rn\.f64\b")
# x86 (SSE/AVX scalar double) and AArch64 (d registers) arithmetic; FMA spellings separately.
_HOST_FP64 = re.compile(r"^\s*(v?(?:add|sub|mul|div|sqrt)sd|v?f(?:n)?m(?:add|sub)\d*sd|"
                        r"f(?:add|sub|mul|div|sqrt|n?madd|n?msub)(?=\s+d\d))\b", re.M)


def _count(kind_of_each: list[str]) -> dict[str, int]:
    """{"fp64": all FP64 arithmetic instructions, "fma": those that are fused multiply-adds}."""
    return {"fp64": len(kind_of_each), "fma": sum(k == "fma" for k in kind_of_each)}


def sass_census(sass: str) -> dict[str, dict[str, int]]:
    """Census kernel name -> counts, from `cuobjdump -sass` output."""
    out = {}
    for name, body in kernelcheck.split_at(sass, _SASS_FUNCTION).items():
        ops = [op for op in _SASS_OPCODE.findall(body) if op in ("DADD", "DMUL", "DFMA")]
        out[name] = _count(["fma" if op == "DFMA" else "other" for op in ops])
    return out


def ptx_census(ptx: str) -> dict[str, dict[str, int]]:
    """Kernel name -> counts, from PTX."""
    return {name: _count(["fma" if op == "fma" else "other" for op in _PTX_FP64.findall(body)])
            for name, body in kernelcheck.split_at(ptx, kernelcheck.PTX_FUNCTION).items()}


def host_census(asm: str) -> dict[str, dict[str, int]]:
    """Function label -> counts, from host assembly."""
    return {name: _count(["fma" if re.search("m(?:add|sub)", op) else "other"
                          for op in _HOST_FP64.findall(body)])
            for name, body in kernelcheck.split_at(asm, kernelcheck.ASM_LABEL).items()}


def _table(counts: dict[str, dict[str, int]]) -> dict[tuple[str, str], dict[str, int]]:
    """(op, variant) -> counts for every census kernel found; KeyError names a missing one."""
    table = {}
    for op in OPS:
        for variant in VARIANTS:
            name = f"ddblas_census_{op}_{variant}"
            if name not in counts:
                raise KeyError(f"census kernel {name} not found in the compiled code")
            table[op, variant] = counts[name]
    return table


def cpu_counts() -> tuple[dict, str]:
    """The CPU census and where it was read."""
    return _table(host_census(kernelcheck.host_assembly())), "host assembly (-march=native)"


def gpu_counts() -> tuple[dict | None, str]:
    """The GPU census and where it was read: SASS of the device's cubin when a GPU and cuobjdump
    are present (and NVRTC made a cubin, not PTX for a GPU newer than it), else PTX from nvcc
    (sm_90), else (None, why not)."""
    path = introspect.gpu_cubin_path() if ddblas.gpu_available() else None
    if path is not None and path.suffix == ".cubin" and shutil.which("cuobjdump"):
        sass = subprocess.run(["cuobjdump", "-sass", str(path)], capture_output=True, text=True,
                              check=True).stdout
        return (_table(sass_census(sass)),
                f"SASS sm_{introspect.gpu_arch()} (cuobjdump, NVRTC cubin)")
    if shutil.which("nvcc"):
        return _table(ptx_census(kernelcheck.nvcc_ptx("sm_90"))), "PTX sm_90 (nvcc; no cuobjdump)"
    return None, "no GPU toolchain (neither cuobjdump with a GPU nor nvcc)"


def predicted_ratio(counts: dict, add: str, op: str = "madd") -> float:
    """Non-FMA / FMA instruction ratio of one operation for an add kind."""
    return counts[op, f"nofma_{add}"]["fp64"] / counts[op, f"fma_{add}"]["fp64"]
