"""The FMA study's instruction census: the census kernels compute the DD operations they stand
for (bitwise), and the counts read from the compiled code match the flop counts documented in
cuda_src/dd.h, with no FMA in any non-FMA kernel."""
from __future__ import annotations

import ctypes
import shutil

import numpy as np
import pytest

import ddblas
from ddblas.engines import cpu as _cpu
from ddblas.tools import fmastudy

VARIANTS = [("fma", "accurate"), ("fma", "sloppy"), ("nofma", "accurate"), ("nofma", "sloppy")]


def _census(op, variant, a, b, c):
    x = np.array([float(a.hi), float(a.lo), float(b.hi), float(b.lo), float(c.hi), float(c.lo)])
    out = np.empty(2)
    getattr(_cpu.library("bench"), f"ddblas_census_{op}_{variant}")(
        ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(out.ctypes.data))
    return out


def _bits(x: ddblas.DDArray):
    return np.array([float(x.hi), float(x.lo)]).view(np.int64).tolist()


@pytest.mark.parametrize("fma,add", VARIANTS)
def test_census_kernels_compute_their_operation(fma, add):
    opts = dict(fma=fma == "fma", add=add)
    variant = f"{fma}_{add}"
    values = ddblas.random((3, 20), seed=7) * 2 - 1
    for t in range(20):
        a, b, c = (values[r, t] * ddblas.array(2.0 ** (5 * r - 5)) for r in range(3))
        assert _census("add", variant, a, b, c).view(np.int64).tolist() == \
            _bits(ddblas.add(a, b, **opts))
        assert _census("mul", variant, a, b, c).view(np.int64).tolist() == \
            _bits(ddblas.multiply(a, b, **opts))
        # madd(acc, a, b) is the GEMM step: [c, a] @ [1, b]^T is madd(madd(0, c, 1), a, b).
        row, col = ddblas.zeros((1, 2)), ddblas.ones((2, 1))
        row[0, 0], row[0, 1], col[1, 0] = c, a, b
        first = ddblas.rgemm(row[:, :1], col[:1, :], algorithm="blocked", **opts)[0, 0]
        assert _bits(first) == _bits(c)
        both = ddblas.rgemm(row, col, algorithm="blocked", **opts)[0, 0]
        assert _census("madd", variant, a, b, first).view(np.int64).tolist() == _bits(both)


@pytest.mark.toolchain
def test_host_counts_match_the_documented_flop_counts():
    counts, source = fmastudy.cpu_counts()
    assert "assembly" in source
    for fma in ("fma", "nofma"):
        assert counts["add", f"{fma}_accurate"] == {"fp64": 20, "fma": 0}  # [JMP17] Alg. 6
        assert counts["add", f"{fma}_sloppy"] == {"fp64": 11, "fma": 0}    # [JMP17] Alg. 5
    assert counts["mul", "fma_accurate"] == {"fp64": 9, "fma": 3}          # [JMP17] Alg. 12
    assert counts["madd", "fma_sloppy"] == {"fp64": 15, "fma": 3}          # fused madd, dd.h
    assert counts["madd", "fma_accurate"]["fp64"] == 29                    # mul 9 + add 20
    for op in fmastudy.OPS:
        for add in ("accurate", "sloppy"):
            assert counts[op, f"nofma_{add}"]["fma"] == 0
    # Dekker's product costs more than the FMA product: the whole point of the study.
    assert counts["mul", "nofma_accurate"]["fp64"] > counts["mul", "fma_accurate"]["fp64"]
    assert fmastudy.predicted_ratio(counts, "sloppy") > fmastudy.predicted_ratio(counts,
                                                                                   "accurate") > 1


@pytest.mark.toolchain
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_ptx_counts_agree_with_the_host_compiler():
    ptx = fmastudy._table(fmastudy.ptx_census(fmastudy.kernelcheck.nvcc_ptx("sm_90")))
    assert ptx == fmastudy.cpu_counts()[0]


def test_sass_and_host_parsers():
    sass = """
        Function : ddblas_census_add_fma_sloppy
        /*0040*/                   DADD R4, R2, R6 ;
        /*0050*/              @!P0 DFMA R4, R2, R6, -R4 ;
        /*0060*/                   DMUL R8, R2, R6 ;
        /*0070*/                   IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;
        Function : other
        /*0010*/                   DADD R4, R2, R6 ;
"""
    assert fmastudy.sass_census(sass) == {"ddblas_census_add_fma_sloppy": {"fp64": 3, "fma": 1},
                                           "other": {"fp64": 1, "fma": 0}}
    asm = "f:\n\tvaddsd %xmm0, %xmm1, %xmm2\n\tvfmadd231sd %xmm0, %xmm1, %xmm2\n" \
          "\tvmovsd %xmm0, (%rsi)\n\tmulsd %xmm1, %xmm0\n\tret\n"
    assert fmastudy.host_census(asm)["f"] == {"fp64": 3, "fma": 1}
