"""The compile-once caches: keys, DDBLAS_CACHE_DIR, atomic writes, concurrency, missing compiler."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from ddblas import _build, _cpu
from ddblas._gpu import complete_elf

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_key_covers_sources_flags_and_compiler(monkeypatch):
    base = _build.artifact_key("g++ 12", "-O3")
    assert base == _build.artifact_key("g++ 12", "-O3")
    assert base != _build.artifact_key("g++ 13", "-O3")
    assert base != _build.artifact_key("g++ 12", "-O2")
    files = _build.source_files()
    assert {"dd.h", "eft.h", "kernels.h", "cpu_kernels.cpp", "gpu_kernels.cu"} <= set(files)
    changed = dict(files, **{"dd.h": files["dd.h"] + "\n// edit"})
    monkeypatch.setattr(_build, "source_files", lambda: changed)
    assert _build.artifact_key("g++ 12", "-O3") != base


def test_write_atomically_leaves_no_temporary_files(tmp_path):
    target = tmp_path / "artifact.bin"
    _build.write_atomically(target, b"one")
    _build.write_atomically(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["artifact.bin"]


_CHILD = """
import ddblas
x = ddblas.random((1000,), seed=3)
s = ddblas.sum(x * x)
print(repr(float(s.hi)), repr(float(s.lo)))
"""


@pytest.mark.toolchain
def test_concurrent_processes_share_one_fresh_cache(tmp_path):
    """Three processes compile into an empty DDBLAS_CACHE_DIR at once: all succeed, agree, and
    leave exactly one library (no half-written or temporary files)."""
    env = dict(os.environ, DDBLAS_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=REPO)
    procs = [subprocess.Popen([sys.executable, "-c", _CHILD], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    assert len({o[0] for o in outs}) == 1
    names = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert len(names) == 1 and names[0].startswith("ddblas_cpu_") and names[0].endswith(".so")


def test_missing_compiler_names_what_to_install(monkeypatch):
    monkeypatch.setenv("CXX", "/nonexistent/c++")
    with pytest.raises(RuntimeError, match="C\\+\\+ compiler.*apt-get install g\\+\\+"):
        _cpu.find_compiler()
    monkeypatch.delenv("CXX")
    monkeypatch.setenv("PATH", "")
    with pytest.raises(RuntimeError, match="c\\+\\+, g\\+\\+, clang\\+\\+"):
        _cpu.find_compiler()


@pytest.mark.toolchain
def test_nvrtc_compiles_the_gpu_kernels_where_nvrtc_exists():
    """No GPU is needed to compile: where CuPy's NVRTC loads, the cubin builds for sm_90."""
    nvrtc = pytest.importorskip("cupy_backends.cuda.libs.nvrtc")
    try:
        nvrtc.getVersion()
    except Exception as exc:  # CuPy without the NVRTC library
        pytest.skip(f"NVRTC not loadable: {exc}")
    from ddblas import _gpu
    cubin = _gpu.compile_cubin("90")
    assert cubin[:4] == b"\x7fELF" and b"ddblas_mul_nofma_accurate" in cubin


def test_complete_elf_restores_the_byte_cupy_drops(tmp_path):
    """nvrtc.getCUBIN drops an ELF image's last byte; complete_elf gives it back (checked on a
    host shared object, whose tables end the file like a cubin's)."""
    cxx = shutil.which("cc") or shutil.which("gcc")
    if cxx is None:
        pytest.skip("needs a C compiler to make an ELF file")
    src, obj = tmp_path / "f.c", tmp_path / "f.so"
    src.write_text("int f(void) { return 1; }\n")
    subprocess.run([cxx, "-shared", "-fPIC", str(src), "-o", str(obj)], check=True)
    whole = obj.read_bytes()
    short = whole[:-1]  # as nvrtc.getCUBIN returns a cubin
    restored = complete_elf(short)
    assert len(restored) == len(whole) and restored[:-1] == short
    assert complete_elf(whole) == whole and complete_elf(b"not an elf") == b"not an elf"
