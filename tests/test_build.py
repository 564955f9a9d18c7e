"""The compile-once caches: keys, DDBLAS_CACHE_DIR, atomic writes, concurrency, missing compiler."""
from __future__ import annotations

import logging
import os
import pathlib
import platform
import random
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import warnings

import pytest
from conftest import requires_gpu

from ddblas.engines import build as _build
from ddblas.engines import cpu as _cpu
from ddblas.engines.gpu import complete_elf

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_key_covers_unit_sources_flags_and_compiler():
    unit = _build.unit("elementwise", "cpu")
    base = _build.artifact_key(unit, "g++ 12", "-O3")
    assert base == _build.artifact_key(unit, "g++ 12", "-O3")
    assert base != _build.artifact_key(unit, "g++ 13", "-O3")
    assert base != _build.artifact_key(unit, "g++ 12", "-O2")
    assert base != _build.artifact_key(_build.unit("gemm", "cpu"), "g++ 12", "-O3")
    files = _build.unit_sources(unit)
    assert {"units/elementwise.cpp", "cpu_entry.h", "elementwise.h", "kernels.h", "dd.h", "eft.h",
            "dd_config.h", "geometry.h"} <= set(files)
    assert not {"gemm_gpu.h", "gemm_cpu.h", "ozaki.h", "gemm_batched.h"} & set(files)


def test_a_header_edit_rebuilds_only_the_families_that_include_it(tmp_path, monkeypatch):
    """Keys of every family and device before and after an edit of one header, in a copy of
    cuda_src/: exactly the units that include it (transitively) get new keys."""
    copy = tmp_path / "cuda_src"
    shutil.copytree(_build.source_dir(), copy)
    monkeypatch.setattr(_build, "source_dir", lambda: copy)
    every = [(family, device) for device in ("cpu", "gpu") for family in _build.units(device)]

    def keys():
        return {fd: _build.artifact_key(_build.unit(*fd), "flags") for fd in every}
    before = keys()
    assert len(set(before.values())) == len(every)
    for header, changed in [
            ("ozaki.h", {("ozaki", "cpu"), ("ozaki", "gpu")}),
            ("census.h", {("bench", "cpu"), ("bench", "gpu")}),
            ("gemm_batched.h", {("batched", "cpu"), ("batched", "gpu")}),
            # includes are followed whatever #if surrounds them: batched.cpp counts gemm_gpu.h
            ("gemm_gpu.h", {(f, "gpu") for f in ("gemm", "tsm", "batched", "bench")}
             | {("batched", "cpu")}),
            ("dd.h", set(every))]:
        with open(copy / header, "a") as f:
            f.write("\n// an edit\n")
        after = keys()
        assert {fd for fd in every if after[fd] != before[fd]} == changed, header
        before = after


def test_every_cpu_kernel_is_in_the_family_its_name_maps_to():
    """The launch table (_build.family_of) against the symbols each family's library exports:
    a kernel named for one family but built in another would fail at its first launch."""
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("needs nm")
    seen = set()
    for family in _build.units("cpu"):
        variants = _build.VARIANTS if family in _build.VARIANT_FAMILIES else (None,)
        for variant in variants:
            symbols = subprocess.run(
                [nm, "-D", "--defined-only", str(_cpu.artifact(family, variant=variant))],
                capture_output=True, text=True, check=True).stdout
            names = set(re.findall(r"\b(ddblas_\w+)$", symbols, re.M))
            assert names and not names & seen, (family, variant)
            seen |= names
            if family != "host":  # the host unit is called directly, never launched
                assert {_build.build_of(n) for n in names} == {(family, variant)}, family
    assert {"ddblas_add_fma_accurate", "ddblas_gemm_cpu_nofma_sloppy",
            "ddblas_gemm_pieces_fma_sloppy",
            "ddblas_gemm_batched_fma_accurate", "ddblas_ozaki_int8_finish_nofma_accurate",
            "ddblas_census_madd_nofma_sloppy", "ddblas_geometry"} <= seen


def test_geometry_is_read_from_the_compiled_tables():
    g = _cpu.geometry()
    assert g["flags"] == {"alpha_one": 1, "beta_zero": 2}
    assert g["static_shared_bytes"] == 48 * 1024 and g["batched_max_threads"] == 256
    assert (g["parallel_min_items"], g["parallel_min_madds"]) == (16384, 32768)
    assert set(g["gemm"]) == {"tiled", "b2", "b4", "tsm1", "tsm2", "tsm4", "tsm8", "tsm16"}
    for name, layouts in g["gemm"].items():
        assert set(layouts) == {"k", "m"}
        for s in layouts.values():
            assert s["threads"] == (s["BM"] // s["TM"]) * (s["BN"] // s["TN"])
            stages = 2 if s["prefetch"] else 1
            # each k row of a tile padded by two doubles (16-byte aligned for pairs)
            assert s["tile_bytes"] == stages * s["BK"] * (s["BM"] + s["BN"] + 4) * 16
            assert s["pieces"] == name.startswith("tsm")
    assert dict(g["gemm"]["b4"]["k"]) == dict(BM=64, BN=32, BK=16, TM=4, TN=4, k_unroll=2,
                                              min_blocks=3, prefetch=1, pieces=0, threads=128,
                                              tile_bytes=51200)
    # b4's tiles exceed static shared memory: launched with them as dynamic; b2's are static
    assert _cpu.dynamic_tile_bytes(g["gemm"]["b4"]["k"]) == 51200
    assert _cpu.dynamic_tile_bytes(g["gemm"]["b2"]["m"]) == 0
    with pytest.raises(TypeError):
        g["flags"]["alpha_one"] = 3  # read-only


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
    leave each family they used once, with a matching checksum (no half-written or temporary
    files; the lock makes one process compile while the others wait)."""
    env = dict(os.environ, DDBLAS_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=REPO)
    procs = [subprocess.Popen([sys.executable, "-c", _CHILD], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    assert len({o[0] for o in outs}) == 1
    compiled = [line for o in outs for line in o[1].splitlines() if "compiling" in line]
    assert compiled == [], compiled  # INFO lines stay silent without a handler
    files = sorted((tmp_path / "cache").iterdir())
    libraries = [f for f in files if f.suffix == ".so"]
    assert [f.name.split("_")[2] for f in libraries] == ["elementwise"]  # the only family used
    assert _build.check(libraries[0]) == "ok"
    # beside it only the OpenMP probe's marker (and its checksum), where the probe succeeded
    markers = [f for f in files if f.name.startswith("ddblas_cpu_openmp_")]
    assert [f.suffix for f in markers] in ([], [".lock"], [".ok", ".lock", ".sha256"])
    assert sorted(f.name for f in files if f not in markers) == sorted(
        f.name + tail for f in libraries for tail in ("", ".lock", ".sha256"))


def _corrupt(path: pathlib.Path, kind: str) -> None:
    data = path.read_bytes()
    if kind == "truncated":
        path.write_bytes(data[:len(data) // 2])
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "random":
        path.write_bytes(random.Random(1).randbytes(len(data)))
    elif kind == "wrong checksum":
        _build.checksum_path(path).write_text(f"{len(data)} {'0' * 64}\n")
    elif kind == "no checksum":
        _build.checksum_path(path).unlink()
    elif kind == "checksum not UTF-8":   # raised UnicodeDecodeError from check()
        _build.checksum_path(path).write_bytes(b"\xff\xfe" + bytes(range(128, 256)))
    elif kind == "checksum is a FIFO":   # reading it waited forever
        _build.checksum_path(path).unlink()
        os.mkfifo(_build.checksum_path(path))
    else:
        raise ValueError(kind)


CORRUPTIONS = ["truncated", "empty", "random", "wrong checksum", "no checksum",
               "checksum not UTF-8", "checksum is a FIFO"]


class FakeBuild:
    """A build function that counts its calls and returns `data`."""

    def __init__(self, data: bytes):
        self.data, self.calls = data, 0

    def __call__(self) -> bytes:
        self.calls += 1
        return self.data


@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_a_damaged_artifact_is_rebuilt_with_a_warning(tmp_path, monkeypatch, caplog, kind):
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path))
    build = FakeBuild(b"\x7fELF" + bytes(range(256)) * 40)
    with caplog.at_level(logging.INFO, logger="ddblas.build"):
        path = _build.cached("ddblas_cpu_x_0.so", build, "x kernels for the CPU")
    assert build.calls == 1 and path.read_bytes() == build.data and _build.check(path) == "ok"
    assert [r.getMessage() for r in caplog.records] == [
        "compiling ddblas x kernels for the CPU (first use, cached) ..."]
    caplog.clear()
    assert _build.cached("ddblas_cpu_x_0.so", build, "x") == path and build.calls == 1
    assert caplog.records == []  # a whole artifact loads silently
    _corrupt(path, kind)
    assert _build.check(path) != "ok"
    with caplog.at_level(logging.INFO, logger="ddblas.build"):
        assert _build.cached("ddblas_cpu_x_0.so", build, "x") == path
    assert build.calls == 2 and path.read_bytes() == build.data and _build.check(path) == "ok"
    assert caplog.records[0].levelno == logging.WARNING
    warning = caplog.records[0].getMessage()
    assert "damaged" in warning and str(path) in warning


_LOAD_CHILD = """
from ddblas.engines import cpu as _cpu
print(_cpu.geometry()["batched_max_threads"], _cpu.get_threads() >= 1)
"""


@pytest.mark.toolchain
def test_a_truncated_cpu_library_is_rebuilt_not_loaded(tmp_path):
    """End to end, in a child process (a truncated shared library used to raise SIGBUS at the
    first call): the host library cut in half is detected, rebuilt and used."""
    cache = tmp_path / "cache"
    cache.mkdir()
    whole = _cpu.artifact("host")
    for path in (whole, _build.checksum_path(whole)):
        shutil.copy(path, cache / path.name)
    _corrupt(cache / whole.name, "truncated")
    env = dict(os.environ, DDBLAS_CACHE_DIR=str(cache), PYTHONPATH=REPO)
    out = subprocess.run([sys.executable, "-c", _LOAD_CHILD], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["256", "True"]
    assert "damaged" in out.stderr and whole.name in out.stderr
    assert _build.check(cache / whole.name) == "ok"


@pytest.fixture
def fake_gpu(monkeypatch, tmp_path):
    """The GPU backend without CuPy: require() passes, sm_90, NVRTC 13.0, and compile_unit a
    FakeBuild per call (its calls counted in the returned list)."""
    from ddblas.engines import gpu as _gpu
    compiled = []

    def compile_unit(target, source, name, defines=()):
        compiled.append((target, name) + defines)
        return b"\x7fELF fake cubin of " + name.encode() + b" for " + target.encode()
    monkeypatch.setattr(_gpu, "require", lambda: None)
    monkeypatch.setattr(_gpu, "target", lambda: "sm_90")
    monkeypatch.setattr(_gpu, "nvrtc_version", lambda: "13.0")
    monkeypatch.setattr(_gpu, "compile_unit", compile_unit)
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path / "cache"))
    return _gpu, compiled


@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_a_damaged_cubin_is_rebuilt(fake_gpu, kind):
    _gpu, compiled = fake_gpu
    path = _gpu.module_path("gemm")
    assert compiled == [("sm_90", "gemm.cu")] and path.name.startswith("ddblas_gpu_gemm_")
    assert _gpu.module_path("gemm") == path and len(compiled) == 1
    _gpu.module_path("reduce")  # another family: its own unit and cubin
    assert compiled[-1] == ("sm_90", "reduce.cu")
    _corrupt(path, kind)
    assert _gpu.module_path("gemm") == path and compiled[-1] == ("sm_90", "gemm.cu")
    assert len(compiled) == 3 and _build.check(path) == "ok"
    with pytest.raises(ValueError, match="family must be one of .*elementwise"):
        _gpu.module_path("host")  # CPU only


def _unwritable_cache(tmp_path) -> pathlib.Path:
    """A cache folder nobody can create, root included: its parent is a regular file."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    return blocker / "cache"


def test_an_unwritable_cache_falls_back_before_compiling(tmp_path, monkeypatch):
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(_unwritable_cache(tmp_path)))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(_build, "_warned_fallback", set())
    seen = []

    def build():
        seen.append(len(caught))  # the warning came first
        return b"artifact"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = _build.cached("ddblas_cpu_y_0.so", build, "y")
    assert seen == [1] and "DDBLAS_CACHE_DIR" in str(caught[0].message)
    assert path.parent == tmp_path / "tmp" / f"ddblas-cache-{os.getuid()}"
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700 and _build.check(path) == "ok"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # found in the fallback: no build, no warning
        assert _build.cached("ddblas_cpu_y_0.so", FakeBuild(b"other"), "y") == path


def test_a_folder_in_place_of_an_artifact_is_named(tmp_path, monkeypatch):
    """A folder under an artifact's name: an error naming it (os.replace raised
    IsADirectoryError after a 'rebuilding' warning)."""
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path))
    (tmp_path / "ddblas_cpu_z_0.so").mkdir()
    with pytest.raises(RuntimeError, match="ddblas_cpu_z_0.so is a folder where a compiled"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _build.cached("ddblas_cpu_z_0.so", FakeBuild(b"data"), "z")


def test_a_cache_dir_with_a_tilde_is_the_homes(monkeypatch):
    monkeypatch.setenv("DDBLAS_CACHE_DIR", "~/ddblas-kernels")
    assert _build.cache_dir() == pathlib.Path.home() / "ddblas-kernels"   # not ./~/...


def test_a_fallback_folder_of_someone_else_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    shared = tmp_path / f"ddblas-cache-{os.getuid()}"
    shared.mkdir()
    shared.chmod(0o777)  # others may write: a planted library could be loaded
    private = _build.fallback_dir()
    assert private != shared and private.parent == tmp_path
    assert stat.S_IMODE(private.stat().st_mode) == 0o700
    # the same folder for the whole process (one was made per kernel family and call)
    assert _build.fallback_dir() == private and len(list(tmp_path.iterdir())) == 2


def test_a_read_only_cache_with_the_artifact_is_used_as_it_is(tmp_path, monkeypatch):
    """A read-only cache (e.g. shared, prebuilt) that has a whole artifact: loaded, no warning,
    no build; a damaged one there is rebuilt in the fallback folder."""
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(cache))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(_build, "_warned_fallback", set())
    path = _build.cached("ddblas_cpu_z_0.so", FakeBuild(b"z"), "z")
    monkeypatch.setattr(_build, "writable", lambda folder: folder != cache)  # root ignores modes
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _build.cached("ddblas_cpu_z_0.so", FakeBuild(b"never"), "z") == path
    _corrupt(path, "empty")
    with pytest.warns(RuntimeWarning, match="DDBLAS_CACHE_DIR"):
        again = _build.cached("ddblas_cpu_z_0.so", FakeBuild(b"z"), "z")
    assert again.parent == tmp_path / "tmp" / f"ddblas-cache-{os.getuid()}"
    assert again.read_bytes() == b"z" and path.read_bytes() == b""


@pytest.mark.skipif(os.name != "posix" or os.getuid() == 0, reason="root writes read-only folders")
def test_a_read_only_cache_folder_is_detected(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        assert not _build.writable(folder)
    finally:
        folder.chmod(0o755)
    assert _build.writable(folder) and _build.writable(tmp_path / "new" / "deep")
    assert not _build.writable(_unwritable_cache(tmp_path))


@pytest.mark.toolchain
def test_the_cli_says_when_it_compiles(tmp_path):
    """`python -m ddblas` prints one line on stderr per family compiled at first use; here the
    elementwise library is taken from the test cache and only the host unit is compiled."""
    cache = tmp_path / "cache"
    cache.mkdir()
    for family, variant in (("elementwise", None), ("gemm", "fma_accurate")):
        whole = _cpu.artifact(family, variant=variant)
        for path in (whole, _build.checksum_path(whole)):
            shutil.copy(path, cache / path.name)
    env = dict(os.environ, DDBLAS_CACHE_DIR=str(cache), PYTHONPATH=REPO)
    out = subprocess.run([sys.executable, "-m", "ddblas", "demo", "--n", "4", "--device", "cpu"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if "compiling" in line]
    assert lines == ["compiling ddblas host kernels for the CPU (first use, cached) ..."], \
        out.stderr


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
    from ddblas.engines import gpu as _gpu
    unit = _build.unit("elementwise", "gpu")
    cubin = _gpu.compile_unit("sm_90", unit.read_text(), unit.name)
    assert cubin[:4] == b"\x7fELF" and b"ddblas_mul_nofma_accurate" in cubin
    ptx = _gpu.compile_unit("compute_90", unit.read_text(), unit.name)  # a GPU newer than NVRTC
    assert isinstance(ptx, bytes) and b".target sm_90" in ptx
    assert b".entry ddblas_mul_nofma_accurate" in ptx


@pytest.mark.parametrize("capability, supported, target", [
    (90, [75, 80, 86, 89, 90], "sm_90"),
    (86, [75, 80, 86, 89, 90], "sm_86"),
    (87, [75, 80, 86, 89, 90], "sm_86"),       # a cubin runs on later minors of its major
    (89, [75, 80, 86, 90], "sm_86"),
    (100, [75, 80, 86, 89, 90, 100, 120], "sm_100"),
    (120, [75, 80, 86, 89, 90], "compute_90"),  # newer than NVRTC: PTX, the driver compiles it
    (100, [80, 90], "compute_90"),
    (90, [80, 86, 89], "compute_89"),
])
def test_the_nvrtc_target_is_a_cubin_the_device_runs_or_ptx(capability, supported, target):
    from ddblas.engines import gpu as _gpu
    assert _gpu.choose_target(capability, supported) == target


def test_a_gpu_older_than_nvrtc_supports_is_named():
    from ddblas.engines import gpu as _gpu
    with pytest.raises(RuntimeError, match=r"compute capability 7\.0\) is older than every "
                                           r"architecture that NVRTC 13\.0 .*oldest: 7\.5"):
        _gpu.choose_target(70, [75, 80, 90], "13.0")


def test_a_gpu_newer_than_nvrtc_gets_ptx_in_the_cache(fake_gpu, monkeypatch):
    """Where the device is newer than NVRTC the module is PTX, cached under its own name (the
    driver compiles it at load); the key of a cubin target is unchanged (sm_90)."""
    _gpu, compiled = fake_gpu
    cubin = _gpu.module_path("reduce")
    monkeypatch.setattr(_gpu, "target", lambda: "compute_90")
    ptx = _gpu.module_path("reduce")
    assert compiled == [("sm_90", "reduce.cu"), ("compute_90", "reduce.cu")]
    assert cubin.suffix == ".cubin" and ptx.suffix == ".ptx" and ptx.stem != cubin.stem


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


def test_a_first_call_builds_only_the_variant_it_runs(fake_gpu):
    """The families built by variant: a kernel's launch compiles its variant's unit alone (the
    first rgemm waits for a quarter of the gemm kernels), each variant its own artifact."""
    _gpu, compiled = fake_gpu
    assert _build.build_of("ddblas_gemm_b4_kn_fma_sloppy") == ("gemm", "fma_sloppy")
    assert _build.build_of("ddblas_gemm_naive_nofma_sloppy") == ("gemm", "nofma_sloppy")
    assert _build.build_of("ddblas_gemm_pieces_nofma_accurate") == ("tsm", "nofma_accurate")
    assert _build.build_of("ddblas_add_fma_sloppy") == ("elementwise", None)
    with pytest.raises(ValueError, match="names no variant"):
        _build.build_of("ddblas_gemm_b4_kn")
    with pytest.raises(ValueError, match="variant must be one of"):
        _build.variant_defines("fma")
    sloppy = _gpu.module_path("gemm", "fma_sloppy")
    assert compiled == [("sm_90", "gemm.cu", "-DDDBLAS_UNIT_VARIANT=fma_sloppy")]
    assert sloppy.name.startswith("ddblas_gpu_gemm_fma_sloppy_")
    accurate = _gpu.module_path("gemm", "fma_accurate")
    assert accurate != sloppy and len(compiled) == 2
    assert _gpu.module_path("gemm", "fma_sloppy") == sloppy and len(compiled) == 2


@pytest.mark.parametrize("variant", _build.VARIANTS)
def test_a_variant_library_defines_that_variant_only(variant):
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("needs nm")
    symbols = subprocess.run([nm, "-D", "--defined-only", str(_cpu.artifact("gemm", variant=variant))],
                             capture_output=True, text=True, check=True).stdout
    names = set(re.findall(r"\b(ddblas_\w+)$", symbols, re.M))
    assert names == {f"ddblas_gemm_naive_{variant}", f"ddblas_gemm_cpu_{variant}"}


def _private_temp(tmp_path, monkeypatch) -> pathlib.Path:
    """The fallback folder of this test (the system's temporary folder moved into tmp_path)."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setattr(_build, "_warned_fallback", set())
    return tmp_path / "tmp" / f"ddblas-cache-{os.getuid()}"


@pytest.mark.parametrize("failure", ["name too long", "disk full", "not permitted"])
def test_a_cache_that_fails_the_write_falls_back(tmp_path, monkeypatch, failure):
    """Probe of 2026-11-28: a cache folder whose path left no room for an artifact's name
    (check() raised ENAMETOOLONG), a full disk (ENOSPC from the write after the folder had
    passed the writable test) and another user's file in a sticky folder (EPERM from the
    rename) crashed instead of compiling into the fallback folder, with a warning."""
    fallback = _private_temp(tmp_path, monkeypatch)
    cache = tmp_path / "cache"
    if failure == "name too long":   # components under NAME_MAX, the whole 4040 < PATH_MAX
        cache = tmp_path
        while len(str(cache)) < 4040:
            cache = cache / ("d" * min(200, 4040 - len(str(cache)) - 1))
        cache.mkdir(parents=True)
    else:
        error = OSError(28, "No space left on device") if failure == "disk full" else \
            PermissionError(1, "Operation not permitted")
        real = _build.write_atomically

        def write(path, data):
            if path.parent == cache:
                raise error
            real(path, data)
        monkeypatch.setattr(_build, "write_atomically", write)
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(cache))
    build = FakeBuild(b"artifact")
    with pytest.warns(RuntimeWarning, match="cannot take the build.*DDBLAS_CACHE_DIR"):
        path = _build.cached("ddblas_cpu_full_0123456789abcdef0123456789abcdef.so", build, "w")
    assert path.parent == fallback and path.read_bytes() == b"artifact"
    assert _build.check(path) == "ok"


def test_artifacts_are_readable_by_other_users_of_a_shared_cache(tmp_path):
    """Probe of 2026-11-28: mkstemp's mode 0600 stayed on the artifacts, so every other user of
    a shared cache found them "damaged (unreadable)" and rebuilt them over each other's."""
    path = tmp_path / "ddblas_cpu_s_0.so"
    _build.store(path, b"data")
    for name in (path, _build.checksum_path(path)):
        assert stat.S_IMODE(name.stat().st_mode) == 0o644


def test_a_relative_cache_dir_is_made_absolute(tmp_path, monkeypatch):
    """Probe of 2026-11-28: DDBLAS_CACHE_DIR=. gave bare file names, which dlopen looks for on
    the library path ("cannot open shared object file"); '~nosuchuser/x' now names the
    variable."""
    monkeypatch.chdir(tmp_path)
    for value in (".", "./", "sub/dir"):
        monkeypatch.setenv("DDBLAS_CACHE_DIR", value)
        assert _build.cache_dir() == (tmp_path / value).absolute()
        assert _build.cache_dir().is_absolute()
    monkeypatch.setenv("DDBLAS_CACHE_DIR", "~ddblas-no-such-user/x")
    with pytest.raises(RuntimeError, match="DDBLAS_CACHE_DIR=~ddblas-no-such-user/x"):
        _build.cache_dir()


def test_the_default_cache_without_a_home_or_with_a_relative_xdg(tmp_path, monkeypatch):
    """Probe of 2026-11-28 (2): with no $HOME and no passwd entry (a container run under an
    arbitrary uid) the cache went to ./~/.cache/ddblas of the working folder; a relative
    $XDG_CACHE_HOME (which the XDG specification says to ignore) to one under the working
    folder too. Now: ~/.cache for the relative XDG value, the private temporary folder without
    a home."""
    import pwd
    fallback = _private_temp(tmp_path, monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DDBLAS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _build.cache_dir() == tmp_path / "xdg" / "ddblas"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert _build.cache_dir() == tmp_path / "home" / ".cache" / "ddblas"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.delenv("HOME")

    def no_entry(uid):
        raise KeyError(f"getpwuid(): uid not found: {uid}")
    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    assert _build.cache_dir() == fallback
    assert _build.cached("ddblas_cpu_h_0.so", FakeBuild(b"h"), "h").parent == fallback
    assert not (tmp_path / "~").exists()


def test_a_file_in_place_of_the_cache_folder_is_named(tmp_path, monkeypatch):
    fallback = _private_temp(tmp_path, monkeypatch)
    (tmp_path / "cache").write_text("")
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.warns(RuntimeWarning, match="cache .*cache is a file, not a folder; compiling"):
        assert _build.cached("ddblas_cpu_i_0.so", FakeBuild(b"i"), "i").parent == fallback


@pytest.mark.parametrize("value", ['g++ "-O2', "   "])
def test_a_cxx_that_is_no_command_line(monkeypatch, value):
    """Probe of 2026-11-28 (2): CXX with an open quote raised a bare ValueError ("No closing
    quotation"); a blank CXX was looked up as a program named by spaces. Now: a RuntimeError
    naming $CXX, and blank is unset (as empty was)."""
    monkeypatch.setenv("CXX", value)
    if value.strip():
        with pytest.raises(RuntimeError, match=r"\$CXX='g\+\+ \"-O2' is not a command line"):
            _cpu.find_compiler()
    else:
        monkeypatch.setenv("PATH", os.path.dirname(shutil.which("g++") or "/usr/bin/g++"))
        assert _cpu.find_compiler() != value


def test_a_fifo_in_place_of_the_lock_is_named_not_waited_on(tmp_path, monkeypatch):
    """Probe of 2026-11-28: opening a FIFO at <artifact>.lock waited forever for a writer."""
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path))
    os.mkfifo(tmp_path / "ddblas_cpu_f_0.so.lock")
    with pytest.raises(RuntimeError, match=r"ddblas_cpu_f_0.so.lock is not a regular file"):
        _build.cached("ddblas_cpu_f_0.so", FakeBuild(b"data"), "f")


def test_a_child_forked_while_the_lock_is_held_can_take_it(tmp_path):
    """Probe of 2026-11-28: a process forked while another thread held a build lock inherited
    the locked file (flock belongs to it), so after the parent's release the child waited on
    itself forever. The child now closes its inherited copy (os.register_at_fork)."""
    path = tmp_path / "ddblas_cpu_k_0.so"
    with _build._locked(path), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # "multi-threaded, use of fork()"
        child = os.fork()
        if child == 0:   # waits for the parent's release, then must get the lock
            with _build._locked(path):
                pass
            os._exit(0)
    for _ in range(200):   # 10 s
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(child, 9)
        os.waitpid(child, 0)
        pytest.fail("the forked child waited forever for the lock")
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_lock_file_is_readable_by_others_whatever_the_umask(tmp_path):
    """Probe of 2026-11-28 (2): under umask 077 the lock file was made 0600, so other users of a
    shared cache could not open it and built every kernel of theirs in a temporary folder."""
    path = tmp_path / "ddblas_cpu_m_0.so"
    old = os.umask(0o077)
    try:
        with _build._locked(path):
            pass
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "ddblas_cpu_m_0.so.lock").stat().st_mode) == 0o644


def test_a_file_system_without_locks_keeps_the_cache(tmp_path, monkeypatch, caplog):
    """Probe of 2026-11-28 (2): where flock fails with ENOSYS (Lustre mounted without -o flock,
    a common cluster setup) or ENOLCK (NFS without its lock daemon), every build was sent to the
    temporary fallback folder with a warning, so a cluster's shared cache never filled. Such a
    folder now takes the build without a lock (one warning a folder)."""
    import errno
    import fcntl
    _private_temp(tmp_path, monkeypatch)
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_build, "_warned_no_locks", set())

    def no_locks(fd, operation):
        raise OSError(errno.ENOSYS, "Function not implemented")
    monkeypatch.setattr(fcntl, "flock", no_locks)
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING, logger="ddblas.build"):
        warnings.simplefilter("error")   # no fallback
        for name in ("ddblas_cpu_l_0.so", "ddblas_cpu_l_1.so"):
            path = _build.cached(name, FakeBuild(b"l"), "l")
            assert path.parent == tmp_path / "cache" and _build.check(path) == "ok"
    assert [r.getMessage() for r in caplog.records] == [
        f"ddblas: the file system of {tmp_path / 'cache'} takes no file locks (Function not "
        "implemented); building without one (concurrent processes may compile the same "
        "kernels, each file is still written whole)"]


def test_a_build_that_waits_for_a_lock_says_so(tmp_path, monkeypatch, caplog):
    """Probe of 2026-11-28 (2): a process waiting for another's build lock waited silently,
    for ever where the holder was stopped (^Z) or hung. It now says whom it waits for (INFO)
    and, after LOCK_PATIENCE_S, names the lock file in a warning; it still waits."""
    import threading
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_build, "LOCK_PATIENCE_S", 0.3)
    path = tmp_path / "ddblas_cpu_w_0.so"
    found = []
    with caplog.at_level(logging.INFO, logger="ddblas.build"):
        with _build._locked(path):   # another open file: excludes this process's threads too
            waiter = threading.Thread(
                target=lambda: found.append(_build.cached(path.name, FakeBuild(b"w"), "w")))
            waiter.start()
            time.sleep(1.0)
            assert waiter.is_alive() and not found
        waiter.join(10)
    assert found == [path] and _build.check(path) == "ok"
    messages = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert messages[0] == (logging.INFO, f"ddblas: waiting for another process building "
                                         f"{path.name} (it holds {path}.lock) ...")
    assert messages[1][0] == logging.WARNING and f"for {path}.lock" in messages[1][1]
    assert "DDBLAS_CACHE_DIR" in messages[1][1]
    assert [m for m in messages[2:] if m[0] == logging.WARNING] == []   # warned once


def test_cxx_may_carry_a_launcher_or_flags(monkeypatch):
    """Probe of 2026-11-28: CXX="ccache g++" or "g++ -m64" was looked up as one program name
    ("found none ... install one")."""
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("needs g++ or c++")
    monkeypatch.setenv("CXX", f"env {compiler} -O1")
    cxx = _cpu.find_compiler()
    assert _cpu.compiler_command(cxx) == [shutil.which("env"), compiler, "-O1"]
    assert _cpu._accepts(cxx, "-O2") and _cpu.compiler_identity(cxx)


def test_a_compiler_that_fails_is_an_error_not_a_library_without_openmp(tmp_path, monkeypatch):
    """Probe of 2026-11-28: any failed compile was retried without -fopenmp and the serial
    library cached under the OpenMP flags' name (a compiler killed once, by the OOM killer say,
    left every later process single-threaded). OpenMP is now probed before the build, and a
    failed build is an error with the compiler's exit status."""
    script = tmp_path / "broken-c++"
    script.write_text("#!/bin/sh\necho 'out of memory' >&2\nexit 3\n")
    script.chmod(0o755)
    monkeypatch.setenv("CXX", str(script))
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path / "cache"))
    assert not _cpu._links_openmp(str(script))
    assert not list((tmp_path / "cache").glob("*.ok"))   # a failed probe is not remembered
    assert _cpu.OPENMP_FLAG not in _cpu.compile_flags(str(script))
    with pytest.raises(RuntimeError, match=r"failed \(exit status 3\):\nout of memory"):
        _cpu.artifact("host")
    assert not list((tmp_path / "cache").glob("*.so"))


def test_an_oserror_of_the_build_is_no_cache_failure(tmp_path, monkeypatch):
    """Probe of 2026-11-28 (2): an OSError raised by build() itself (a compiler that wrote no
    library: FileNotFoundError on reading it) was taken for a cache folder that cannot take the
    build: a warning naming DDBLAS_CACHE_DIR, then a second build into the fallback folder."""
    _private_temp(tmp_path, monkeypatch)
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path / "cache"))
    calls = []

    def build():
        calls.append(1)
        raise FileNotFoundError(2, "No such file or directory", "lib.so")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FileNotFoundError, match="lib.so"):
            _build.cached("ddblas_cpu_e_0.so", build, "e")
    assert calls == [1]
    assert not list((tmp_path / "tmp").iterdir())   # no fallback folder made


@pytest.mark.parametrize("compiler", ["exits 0, writes nothing", "cannot be started"])
def test_a_compiler_that_builds_no_library_is_named(tmp_path, monkeypatch, compiler):
    """Probe of 2026-11-28 (2): CXX=true (or a wrapper that exits 0 without output) gave a
    warning about the cache folder, a second compile and a FileNotFoundError of a temporary
    lib.so; a script without "#!" gave a bare OSError "Exec format error". Both are now one
    RuntimeError naming the compiler and $CXX, and nothing is cached."""
    _private_temp(tmp_path, monkeypatch)
    script = tmp_path / "fake-c++"
    log_file = tmp_path / "calls"
    script.write_text(f"#!/bin/sh\necho \"$@\" >> {log_file}\nexit 0\n"
                      if compiler == "exits 0, writes nothing" else "no interpreter line\n")
    script.chmod(0o755)
    monkeypatch.setenv("CXX", str(script))
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path / "cache"))
    message = "wrote no library for host.cpp" if compiler == "exits 0, writes nothing" else \
        "cannot run the C\\+\\+ compiler"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError, match=f"{message}.*CXX"):
            _cpu.artifact("host")
    assert not list((tmp_path / "cache").glob("*.so")) and not list((tmp_path / "tmp").iterdir())
    if compiler == "exits 0, writes nothing":   # compiled once (no second try elsewhere)
        assert sum("host.cpp" in line for line in log_file.read_text().splitlines()) == 1


def test_the_openmp_probe_is_cached_quietly(tmp_path, monkeypatch, caplog):
    """The probe wrote its marker with check/store of its own; it goes through build.cached now
    (lock, fallback folder, damaged markers rebuilt) without cached's "compiling" INFO line, which
    the CLI's first-use output counts. A remembered success runs no compiler."""
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None or not _cpu._links_openmp(compiler):
        pytest.skip("needs a compiler with OpenMP")
    probe = _cpu._links_openmp.__wrapped__   # past the in-process cache, to the disk cache
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path / "cache"))
    with caplog.at_level(logging.INFO, logger="ddblas.build"):
        assert probe(compiler)
    assert not [r for r in caplog.records if "compiling" in r.getMessage()]
    (marker,) = (tmp_path / "cache").glob("ddblas_cpu_openmp_*.ok")
    assert _build.check(marker) == "ok"
    run = _cpu.subprocess.run

    def no_probe(command, *args, **kwargs):
        assert "-fopenmp" not in command, "the probe ran again"
        return run(command, *args, **kwargs)
    monkeypatch.setattr(_cpu.subprocess, "run", no_probe)
    assert probe(compiler)
    monkeypatch.setattr(_cpu.subprocess, "run", run)
    marker.write_bytes(b"damaged")   # a damaged marker is probed again
    assert probe(compiler) and _build.check(marker) == "ok"


@pytest.mark.slow   # builds two CPU families afresh: 12 s of the default suite's 3 minutes
@pytest.mark.parametrize("device", ["cpu", pytest.param("gpu", marks=requires_gpu)])
def test_a_cache_folder_whose_name_is_not_utf8(tmp_path, device):
    """Probe of 2026-11-28: DDBLAS_CACHE_DIR of bytes that are not UTF-8 gave a
    UnicodeDecodeError from the first CPU kernel (load() asked hasattr() of a symbol that a
    library lacks, and ctypes decoded dlerror's message, which names the path, as UTF-8) and a
    UnicodeEncodeError from the first GPU kernel (CuPy passes the cubin's path as UTF-8)."""
    folder = os.fsdecode(os.fsencode(str(tmp_path)) + b"/cache\xff")
    env = dict(os.environ, DDBLAS_CACHE_DIR=folder, PYTHONPATH=REPO)
    child = ("import ddblas; from ddblas import linalg\n"
             f"a = ddblas.eye(3, device={device!r}) * 2\n"
             f"x = linalg.solve(a, ddblas.ones(3, device={device!r})).to_device('cpu')\n"
             f"print(*(ddblas.ones(2, device={device!r}) + 1).to_device('cpu').hi, *x.hi, "
             "*x.lo)\n")
    out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2.0", "2.0", "0.5", "0.5", "0.5", "0.0", "0.0", "0.0"]
    assert any(name.endswith(b".so") for name in os.listdir(os.fsencode(folder)))


def test_the_cache_can_be_listed_and_cleared(tmp_path, monkeypatch, capsys):
    """Probe of 2026-11-28 (2): old artifacts (every header edit, compiler upgrade or CPU makes
    new ones) stayed for ever, with no documented way to clear them. `python -m ddblas cache`
    lists the folders, `--clear` removes ddblas's files, never the folder's other files nor an
    artifact whose lock another process holds (it is building)."""
    from ddblas.tools.cli import main
    fallback = _private_temp(tmp_path, monkeypatch)
    cache = tmp_path / "cache"
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(cache))
    for name in ("ddblas_cpu_a_0.so", "ddblas_gpu_b_1.cubin", "ddblas_cpu_busy_2.so"):
        _build.cached(name, FakeBuild(b"x" * 1000), name)
    (cache / "ddblas_cpu_a_0.so.ab12.tmp").write_bytes(b"cut short")   # a killed write
    (cache / "notes.txt").write_text("mine")
    (cache / "ddblas_folder").mkdir()
    fallback.mkdir()
    _build.store(fallback / "ddblas_cpu_c_3.so", b"c")
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert f"{cache}: 3 compiled kernel files, 10 files in all" in out
    assert f"{fallback}: 1 compiled kernel files, 2 files in all" in out and "--clear" in out
    with _build._locked(cache / "ddblas_cpu_busy_2.so"):
        assert main(["cache", "--clear"]) == 0
    assert capsys.readouterr().out.startswith("removed 9 files")   # 7 + 2
    assert sorted(p.name for p in cache.iterdir()) == [
        "ddblas_cpu_busy_2.so", "ddblas_cpu_busy_2.so.lock", "ddblas_cpu_busy_2.so.sha256",
        "ddblas_folder", "notes.txt"]
    assert list(fallback.iterdir()) == []
    build = FakeBuild(b"new")   # cleared artifacts are built again
    assert _build.cached("ddblas_cpu_a_0.so", build, "a").read_bytes() == b"new"
    assert build.calls == 1


def test_a_library_the_loader_refuses_is_named(tmp_path):
    """Probe of 2026-11-28 (2): a checksummed artifact that is no shared library (what a broken
    compiler wrapper wrote) gave ctypes' bare OSError "file too short" at every launch."""
    path = tmp_path / "ddblas_cpu_bad_0.so"
    _build.store(path, b"not a library")
    with pytest.raises(RuntimeError, match=f"cannot load the compiled CPU kernels {path} .*"
                                           "file too short.*python -m ddblas cache --clear"):
        _cpu.load(str(path))


@requires_gpu
def test_ptx_for_a_gpu_newer_than_nvrtc_loads_and_gives_the_cubins_bits(monkeypatch, tmp_path):
    """The PTX route on this GPU: the elementwise and GEMM families compiled for compute_<arch>
    (as for a device newer than NVRTC), loaded by the driver, give the cubins' bits."""
    import ddblas
    from ddblas.engines import gpu as _gpu
    x = ddblas.random((40, 40), seed=3, device="gpu")
    y = ddblas.random((40, 40), seed=4, device="gpu")

    def work():
        return ((x * y + x) @ y).to_device("cpu")
    expected = work()
    arch = _gpu.arch()
    monkeypatch.setenv("DDBLAS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_gpu, "target", lambda: "compute_" + arch)
    _gpu.module.cache_clear()
    try:
        got = work()
        assert _gpu.module_path("elementwise").suffix == ".ptx"
    finally:
        monkeypatch.undo()
        _gpu.module.cache_clear()
    assert (got.hi.view("i8") == expected.hi.view("i8")).all()
    assert (got.lo.view("i8") == expected.lo.view("i8")).all()


def test_the_cpu_key_names_the_native_instruction_sets_without_proc_cpuinfo(monkeypatch):
    """-march=native libraries are keyed on the processor. Without /proc/cpuinfo (macOS, the
    BSDs) the key is the macros that `cxx -march=native` predefines (its instruction sets), not
    the bare architecture name, which let a cache shared between machines (a network home)
    load a library built for another processor's instructions."""
    cxx = _cpu.find_compiler()
    with_proc = _cpu.cpu_identity.__wrapped__(cxx)

    def no_proc(path, *args, **kwargs):
        if str(path) == "/proc/cpuinfo":
            raise FileNotFoundError(path)
        return open(path, *args, **kwargs)
    monkeypatch.setattr(_cpu, "open", no_proc, raising=False)
    without = _cpu.cpu_identity.__wrapped__(cxx)
    assert without.startswith(platform.machine() + "\n#define ")
    native = ("__SSE2__", "__AVX2__") if platform.machine() in ("x86_64", "AMD64") else ("__ARM_",)
    assert any(m in without for m in native) and without != with_proc
