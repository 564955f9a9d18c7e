"""The static kernel checks that CI runs: they must find FMAs where FMA paths use them (so the
check can fail) and none in the non-FMA paths."""
from __future__ import annotations

import re
import shutil

import pytest

from ddblas.engines import build as _build
from ddblas.engines import cpu as _cpu
from ddblas.tools import kernelcheck

VARIANTS = ("fma_accurate", "fma_sloppy", "nofma_accurate", "nofma_sloppy")


@pytest.mark.toolchain
def test_host_assembly_has_fma_only_in_fma_paths():
    counts = kernelcheck.host_fma_counts(kernelcheck.host_assembly())
    fma_paths = [n for n in counts if "mul_fma" in n or "two_prod_fma" in n]
    assert fma_paths and any(counts[n] for n in fma_paths)
    assert kernelcheck.non_fma_violations(counts) == []
    # the assembly covers every CPU unit, the host unit included
    for name in ("ddblas_add_fma_accurate", "ddblas_gemm_cpu_nofma_sloppy",
                 "ddblas_gemm_pieces_fma_sloppy", "ddblas_gemm_batched_nofma_accurate",
                 "ddblas_ozaki_finish_nofma_sloppy", "ddblas_census_madd_nofma_accurate",
                 "ddblas_madd_ceiling_cpu_fma_sloppy", "ddblas_geometry"):
        assert name in counts, name


def test_violations_are_reported():
    assert kernelcheck.non_fma_violations({"ddblas_mul_nofma_sloppy": 2,
                                            "ddblas_mul_fma_sloppy": 3}) == ["ddblas_mul_nofma_sloppy"]
    ptx = (".visible .entry ddblas_two_prod_dekker(\n fma.rn.f64 %fd1;\n"
           ".visible .entry ddblas_two_prod_fma(\n fma.rn.f64 %fd2;\n")
    assert kernelcheck.ptx_fma_counts(ptx) == {"ddblas_two_prod_dekker": 1, "ddblas_two_prod_fma": 1}
    # a function left out of line after a non-FMA kernel is counted under its own name
    ptx = (".visible .entry k_nofma(\n add.f64 %fd1;\n"
           ".func  (.param .align 8 .b8 func_retval0[16]) _Z3mulIN6ddblas8variants12fma_accurateEE(\n"
           " fma.rn.f64 %fd2;\n")
    counts = kernelcheck.ptx_fma_counts(ptx)
    assert counts == {"k_nofma": 0, "_Z3mulIN6ddblas8variants12fma_accurateEE": 1}
    assert kernelcheck.non_fma_violations(counts) == []
    report = ("ptxas info    : Compiling entry function 'k1' for 'sm_90'\n"
              "ptxas info    : 8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n")
    assert kernelcheck.spills(report) == ["k1"]
    report = ("ptxas info    : Compiling entry function 'ddblas_trig_sin_fma_accurate' for 'sm_90'\n"
              "ptxas info    : Used 236 registers, used 0 barriers\n"
              "ptxas info    : Compiling entry function 'ddblas_gemm_b4_nn_fma_sloppy' for 'sm_90'\n"
              "ptxas info    : Used 168 registers, used 1 barriers\n"
              "ptxas info    : Compiling entry function 'ddblas_add_fma_sloppy' for 'sm_90'\n"
              "ptxas info    : Used 40 registers, used 0 barriers\n")
    assert kernelcheck.registers(report) == {"ddblas_trig_sin_fma_accurate": 236,
                                             "ddblas_gemm_b4_nn_fma_sloppy": 168,
                                             "ddblas_add_fma_sloppy": 40}
    assert kernelcheck.over_register_budget(report) == ["ddblas_trig_sin_fma_accurate (236)"]


@pytest.mark.toolchain
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("arch", kernelcheck.ARCHS)
def test_cuda_kernels_compile_without_fma_in_non_fma_paths_or_spills(arch):
    ptx, report = kernelcheck.nvcc_compile(arch)
    counts = kernelcheck.ptx_fma_counts(ptx)
    assert counts["ddblas_mul_fma_accurate"] > 0
    assert kernelcheck.non_fma_violations(counts) == []
    assert kernelcheck.spills(report) == []
    assert kernelcheck.over_register_budget(report) == []
    # every GPU unit compiled, each kernel once, in the family its name maps to
    entries = re.findall(r"^\.visible \.entry (\w+)\(", ptx, re.M)
    assert len(entries) == len(set(entries)) and set(entries) <= set(counts)
    assert {_build.family_of(name) for name in entries} == set(_build.units("gpu"))
    # every row of geometry.h's GEMM tables is a kernel per B layout and variant, and no more
    shaped = {f"ddblas_gemm_{name}_{a}{b}_{v}" for name, layouts in _cpu.geometry()["gemm"].items()
              for a in layouts for b in "nk" for v in VARIANTS}
    assert shaped <= set(entries)
    assert {n for n in entries if re.match(r"ddblas_gemm_(tiled|b\d|tsm)", n)} == shaped


_PACKED_ARITHMETIC = re.compile(r"\bv(?:add|sub|mul|div|fn?m(?:add|sub)\d*)pd\b")


@pytest.mark.toolchain
@pytest.mark.parametrize("vectorize", [True, False], ids=["simd", "scalar"])
def test_cpu_gemm_is_vectorised_only_in_the_vectorised_build(vectorize):
    """The micro-kernels of the CPU GEMM and ceiling use packed arithmetic (vaddpd, vfmadd...pd)
    in the default build and only scalar arithmetic (vaddsd, vmulsd...) with vectorize=False;
    the variants' names are in their symbols (named variant types), so the nofma check sees them."""
    bodies = kernelcheck.split_at(kernelcheck.host_assembly(vectorize), kernelcheck.ASM_LABEL)
    for kernel in ("gemm_cpu", "madd_ceiling_cpu"):
        for variant in ("fma_accurate", "fma_sloppy", "nofma_accurate", "nofma_sloppy"):
            names = [n for n in bodies if kernel in n and f"variants{len(variant)}{variant}" in n]
            assert names, (kernel, variant)
            packed = sum(len(_PACKED_ARITHMETIC.findall(bodies[n])) for n in names)
            assert (packed > 0) == vectorize, (kernel, variant, packed)


@pytest.mark.toolchain
def test_check_kernels_command_passes(capsys):
    """python -m ddblas check-kernels, in this process: CI runs it here, after the compile tests
    above, so that nvcc compiles each architecture once (kernelcheck memoizes)."""
    assert kernelcheck.main() == 0
    out = capsys.readouterr().out
    assert "host C++ (vectorised): ok" in out and "host C++ (not vectorised): ok" in out
    if shutil.which("nvcc"):
        for arch in kernelcheck.ARCHS:
            assert f"nvcc {arch}: " in out and "spills: none" in out
