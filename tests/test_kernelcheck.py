"""The static kernel checks that CI runs: they must find FMAs where FMA paths use them (so the
check can fail) and none in the non-FMA paths."""
from __future__ import annotations

import re
import shutil

import pytest

from ddblas import _build, _cpu, _kernelcheck

VARIANTS = ("fma_accurate", "fma_sloppy", "nofma_accurate", "nofma_sloppy")


def test_host_assembly_has_fma_only_in_fma_paths():
    counts = _kernelcheck.host_fma_counts(_kernelcheck.host_assembly())
    fma_paths = [n for n in counts if "mul_fma" in n or "two_prod_fma" in n]
    assert fma_paths and any(counts[n] for n in fma_paths)
    assert _kernelcheck.non_fma_violations(counts) == []
    # the assembly covers every CPU unit, the host unit included
    for name in ("ddblas_add_fma_accurate", "ddblas_gemm_cpu_nofma_sloppy",
                 "ddblas_gemm_pieces_fma_sloppy", "ddblas_gemm_batched_nofma_accurate",
                 "ddblas_ozaki_finish_nofma_sloppy", "ddblas_census_madd_nofma_accurate",
                 "ddblas_madd_ceiling_cpu_fma_sloppy", "ddblas_geometry"):
        assert name in counts, name


def test_violations_are_reported():
    assert _kernelcheck.non_fma_violations({"ddblas_mul_nofma_sloppy": 2,
                                            "ddblas_mul_fma_sloppy": 3}) == ["ddblas_mul_nofma_sloppy"]
    ptx = (".visible .entry ddblas_two_prod_dekker(\n fma.rn.f64 %fd1;\n"
           ".visible .entry ddblas_two_prod_fma(\n fma.rn.f64 %fd2;\n")
    assert _kernelcheck.ptx_fma_counts(ptx) == {"ddblas_two_prod_dekker": 1, "ddblas_two_prod_fma": 1}
    report = ("ptxas info    : Compiling entry function 'k1' for 'sm_90'\n"
              "ptxas info    : 8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n")
    assert _kernelcheck.spills(report) == ["k1"]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("arch", _kernelcheck.ARCHS)
def test_cuda_kernels_compile_without_fma_in_non_fma_paths_or_spills(arch):
    ptx, report = _kernelcheck.nvcc_compile(arch)
    counts = _kernelcheck.ptx_fma_counts(ptx)
    assert counts["ddblas_mul_fma_accurate"] > 0
    assert _kernelcheck.non_fma_violations(counts) == []
    assert _kernelcheck.spills(report) == []
    # every GPU unit compiled, each kernel once, in the family its name maps to
    entries = re.findall(r"^\.visible \.entry (\w+)\(", ptx, re.M)
    assert len(entries) == len(set(entries)) == len(counts)
    assert {_build.family_of(name) for name in entries} == set(_build.units("gpu"))
    # every row of geometry.h's GEMM tables is a kernel per B layout and variant, and no more
    shaped = {f"ddblas_gemm_{name}_{a}{b}_{v}" for name, layouts in _cpu.geometry()["gemm"].items()
              for a in layouts for b in "nk" for v in VARIANTS}
    assert shaped <= set(entries)
    assert {n for n in entries if re.match(r"ddblas_gemm_(tiled|b\d|tsm)", n)} == shaped

