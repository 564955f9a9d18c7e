"""ddblas.introspect: the timing and introspection API reports what the library really does."""
from __future__ import annotations

import numpy as np
import pytest

import ddblas
from conftest import requires_gpu
from ddblas import introspect


def test_auto_algorithm_is_what_rgemm_runs(device):
    for shape_a, shape_b in (((40, 30), (30, 20)), ((64, 64), (64, 3))):
        a = ddblas.random(shape_a, seed=1, device=device)
        b = ddblas.random(shape_b, seed=2, device=device)
        auto, chosen = {}, {}
        c = ddblas.rgemm(a, b, info=auto)
        algorithm = introspect.auto_algorithm(a, b)
        assert algorithm in ("tsm", "blocked", "ozaki-fp64", "ozaki-int8")
        same = ddblas.rgemm(a, b, algorithm=algorithm, info=chosen)
        assert chosen["algorithm"] == auto["algorithm"]
        assert (c.hi == same.hi).all() and (c.lo == same.lo).all()


def test_auto_algorithm_allocates_no_output(device):
    """A question about a product whose C fits nowhere (2^21 x 2^21: 64 TiB) is answered
    without allocating C (it raised MemoryError)."""
    a = ddblas.zeros((1 << 21, 1), device=device)
    b = ddblas.zeros((1, 1 << 21), device=device)
    assert introspect.auto_algorithm(a, b) in ("tsm", "blocked", "ozaki-fp64", "ozaki-int8",
                                               "ozaki2-int8")


def test_bad_arguments_are_errors_naming_them():
    a, b = ddblas.random((6, 5), seed=1), ddblas.random((5, 3), seed=2)
    for args, kwargs, message in [((a, a), {}, "op\\(A\\) is 6x5"),
                                  ((a, b), {"accuracy": "foo"}, "accuracy must be one of"),
                                  ((a[0], b[:, 0]), {}, "2-D matrices, a has shape \\(5,\\)"),
                                  ((a[None], b), {}, "2-D matrices, a has shape \\(1, 6, 5\\)")]:
        with pytest.raises(ValueError, match=message):
            introspect.auto_algorithm(*args, **kwargs)
    # what rgemm takes, auto_algorithm takes: float64 NumPy operands
    assert introspect.auto_algorithm(np.ones((6, 5)), np.ones((5, 3))) == \
        introspect.auto_algorithm(a, b)
    with pytest.raises(ValueError, match="device must be 'cpu' or 'gpu', got 'tpu'"):
        introspect.to_device(np.ones(3), "tpu")
    with pytest.raises(ValueError, match="device must be 'cpu' or 'gpu', got 'tpu'"):
        introspect.kernel_units("tpu")


def test_compile_flags_forbid_contraction():
    for vectorize in (True, False):
        flags = introspect.cpu_compile_flags(vectorize)
        assert "-ffp-contract=off" in flags and "-fno-fast-math" in flags
    assert "-DDDBLAS_NO_SIMD" in introspect.cpu_compile_flags(False)
    units = introspect.kernel_units("cpu")
    assert "elementwise" in units and all(p.is_file() for p in units.values())
    assert set(introspect.kernel_units("gpu")) >= {"elementwise", "gemm", "tsm", "ozaki"}
    assert introspect.cpu_compiler_identity()


def test_cpu_vectorization_gives_the_same_bits():
    a, b = ddblas.random((20, 24), seed=3), ddblas.random((24, 8), seed=4)
    ref = ddblas.rgemm(a, b, algorithm="blocked")
    with introspect.cpu_vectorization(False):
        got = ddblas.rgemm(a, b, algorithm="blocked")
    assert (got.hi == ref.hi).all() and (got.lo == ref.lo).all()


def test_figures_are_sane():
    assert introspect.cpu_madd_ceiling(True, "accurate", threads=1) > 0
    assert introspect.ozaki_int8_padded(100) >= 100
    assert introspect.copy_threads() >= 1
    assert introspect.default_device() == ("gpu" if ddblas.gpu_available() else "cpu")


@requires_gpu
def test_gpu_figures():
    assert introspect.default_gemm_block(32, 32) == 2
    assert introspect.default_gemm_block(8192, 8192) == 4
    assert introspect.gpu_cubin_path().stat().st_size > 0 and introspect.gpu_arch().isdigit()


def test_gpu_figures_without_a_gpu_say_so(monkeypatch):
    """Without a GPU every GPU figure is the library's 'no GPU available' error (four raised
    ModuleNotFoundError for cupy)."""
    monkeypatch.setattr(ddblas, "gpu_available", lambda: False)
    from ddblas.engines import gpu as engine
    monkeypatch.setattr(engine, "available", lambda: False)
    for figure, args in [(introspect.gpu_arch, ()), (introspect.default_gemm_block, (64, 64)),
                         (introspect.transfer_rates, ()), (introspect.gpu_cubin_path, ()),
                         (introspect.int8_gemm, (None, None, None))]:
        with pytest.raises(RuntimeError, match="no GPU available"):
            figure(*args)


def test_cached_artifact_builds_once_per_key(tmp_path, monkeypatch):
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path))
    builds = []

    def build():
        builds.append(1)
        return b"text %d" % len(builds)

    unit = introspect.kernel_units("gpu")["elementwise"]
    first = introspect.cached_artifact("tool_out.ptx", build, unit, "v1", "sm_90")
    assert first.parent == tmp_path and first.name.startswith("tool_out_")
    assert first.suffix == ".ptx" and first.read_bytes() == b"text 1"
    assert introspect.cached_artifact("tool_out.ptx", build, unit, "v1", "sm_90") == first
    other = introspect.cached_artifact("tool_out.ptx", build, unit, "v2", "sm_90")
    assert other != first and other.read_bytes() == b"text 2" and len(builds) == 2
    another_unit = introspect.cached_artifact("tool_out.ptx", build,
                                              introspect.kernel_units("gpu")["gemm"], "v1", "sm_90")
    assert another_unit not in (first, other) and len(builds) == 3
    artifacts = [p.name for p in tmp_path.iterdir() if p.suffix == ".ptx"]
    assert sorted(artifacts) == sorted([first.name, other.name, another_unit.name])
