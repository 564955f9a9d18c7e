"""python -m ddblas: the demo runs and checks itself; bad arguments fail clearly."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import ddblas
from ddblas.tools import cli

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(*args):
    env = dict(os.environ, PYTHONPATH=REPO)
    return subprocess.run([sys.executable, "-m", "ddblas", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_demo_on_cpu_reports_time_and_error():
    result = _run("demo", "--n", "24", "--device", "cpu")
    assert result.returncode == 0, result.stderr
    assert "on the cpu" in result.stdout and "ms" in result.stdout and "u^2" in result.stdout
    solve_line = next(line for line in result.stdout.splitlines() if "backward error" in line)
    assert float(solve_line.split()[1]) <= 200  # max(n, 16) u^2, n = 200: the documented target


def test_demo_exit_status_says_whether_both_errors_are_within_their_bounds(monkeypatch, capsys):
    """Review of 2026-11-26: the solve's error did not count towards the demo's exit status."""
    from ddblas.tools import demo
    assert cli.main(["demo", "--n", "8", "--device", "cpu"]) == 0
    monkeypatch.setattr(demo, "solve_backward_error", lambda a, x, b: 1e6)
    assert cli.main(["demo", "--n", "8", "--device", "cpu"]) == 1
    assert "the solve's error 1e+06 u^2 exceeds its bound 200 u^2" in capsys.readouterr().err


def test_bad_arguments():
    assert _run("demo", "--n", "0").returncode != 0
    assert "invalid choice" in _run("demo", "--device", "tpu").stderr
    assert _run().returncode != 0


def _usage_error(capsys, *argv) -> str:
    """The one-line error of main(argv), which must exit with status 2 through the parser of
    argv[0]'s subcommand (its usage line) before any work."""
    with pytest.raises(SystemExit) as exit_info:
        cli.main(list(argv))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: python -m ddblas {argv[0]}") and "Traceback" not in err
    return err.strip().splitlines()[-1]


def test_argument_errors_come_from_the_subcommand_parser(tmp_path, capsys, monkeypatch):
    a_file = tmp_path / "file"
    a_file.write_text("")
    pytest.importorskip("matplotlib")   # bench checks its extras first
    pytest.importorskip("tqdm")
    cases = [(("demo", "--n", "0"), "--n must be positive, got 0"),
             (("demo", "--seed", "-1"), "--seed must be at least 0, got -1"),
             (("accuracy", "--quick", "--sizes", "0"), "--sizes must be positive, got 0"),
             (("accuracy", "--sizes", "-4", "8"), "--sizes must be positive, got -4 8"),
             (("accuracy", "--out-dir", str(a_file)), "exists and is not a directory"),
             (("accuracy", "--out-dir", str(a_file / "sub")), "exists and is not a directory"),
             (("bench", "rgemm", "--repeat", "0"), "--repeat must be positive, got 0"),
             (("bench", "tsm", "--out-dir", str(a_file)), "exists and is not a directory"),
             (("bench", "tsm", "--doc", str(tmp_path)), "is a directory; it takes a markdown"),
             (("bench", "tsm", "--doc", str(tmp_path / "no" / "x.md")), "does not exist"),
             (("bench", "tsm", "--section", "cpu"), "give --doc too"),
             # checked before the run now (they failed after it, or with a traceback)
             (("bench", "tsm", "--doc", str(tmp_path / "d.md"), "--section", "a/b"),
              "letters, digits"),
             (("bench", "tsm", "--doc", str(tmp_path / "latin1.md")), "cannot be read as UTF-8"),
             (("demo", "--n", "1000000000"), "--n must be at most 1048576"),
             (("accuracy", "--sizes", "64", str(10 ** 21)), "--sizes must be at most 1048576"),
             (("bench", "rgemm", "--sizes", str(2 ** 21)), "--sizes must be at most 1048576")]
    (tmp_path / "latin1.md").write_bytes(b"# caf\xe9\n")
    for argv, message in cases:
        assert message in _usage_error(capsys, *argv), argv
    assert sorted(os.listdir(tmp_path)) == ["file", "latin1.md"]  # nothing ran or was written
    monkeypatch.setattr(ddblas, "gpu_available", lambda: False)
    assert "--device gpu: no usable GPU" in _usage_error(capsys, "demo", "--device", "gpu")


def test_library_errors_are_one_line_with_status_two(capsys):
    """Review of 2026-11-26: what the library raised on the way (memory, a compiler that fails,
    files) came out as a traceback with exit status 1, the demo's 'bound exceeded'."""
    assert cli.main(["demo", "--n", "1048576", "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m ddblas demo: error: ") and "GiB" in err
    assert len(err.strip().splitlines()) == 1


def test_too_many_openmp_threads_are_named():
    """Review of 2026-11-26: OMP_NUM_THREADS=100000 reached libgomp unchecked and crashed the
    process (32768: 'Thread creation failed'); values above MAX_THREADS are now an error naming
    the variable, at the first kernel library's load."""
    from ddblas.engines import cpu
    env = dict(os.environ, PYTHONPATH=REPO, OMP_NUM_THREADS=str(10 * cpu.MAX_THREADS))
    result = subprocess.run([sys.executable, "-m", "ddblas", "demo", "--n", "8", "--device",
                             "cpu"], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 2 and "OMP_NUM_THREADS" in result.stderr
    assert "Traceback" not in result.stderr
    for ok in ("", "4", "2,1", "abc"):   # libgomp warns about "abc" itself and takes its default
        cpu._check_omp_num_threads(ok)
    with pytest.raises(RuntimeError, match="OMP_NUM_THREADS=4,99999999"):
        cpu._check_omp_num_threads("4,99999999")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_out_dir_where_no_directory_can_be_made_is_refused_before_the_run(capsys, monkeypatch):
    """Probe of 2026-11-29: os.access says yes to root everywhere, so `accuracy --out-dir
    /proc/x` ran the whole report (86 s) and then failed to write it; the check now makes a
    directory there (os.access is made to say yes here for any user)."""
    from ddblas.tools import accuracy_report
    ran = []
    monkeypatch.setattr(accuracy_report, "run", lambda **kw: ran.append(kw) or 0)
    monkeypatch.setattr(cli.os, "access", lambda path, mode: True)
    err = _usage_error(capsys, "accuracy", "--quick", "--out-dir", "/proc/ddblas-probe/out")
    assert err.endswith("--out-dir /proc/ddblas-probe/out: cannot create a directory in /proc "
                        "(No such file or directory)")
    assert ran == []
    pytest.importorskip("matplotlib")
    pytest.importorskip("tqdm")
    from ddblas.tools import bench
    monkeypatch.setattr(bench, "run", lambda *a, **kw: ran.append(kw))
    err = _usage_error(capsys, "bench", "tsm", "--quick", "--out-dir", "/proc/ddblas-probe")
    assert "cannot create a directory in /proc" in err and ran == []
    err = _usage_error(capsys, "bench", "tsm", "--quick", "--doc", "/proc/ddblas-probe.md")
    assert err.endswith("--doc /proc/ddblas-probe.md: cannot write into /proc (No such file or "
                        "directory)") and ran == []


@pytest.mark.parametrize("gpu", [False, True])
def test_bench_sizes_reach_every_suite_that_has_sizes(tmp_path, capsys, monkeypatch, gpu):
    """`bench SUITE --sizes ...` set Plan.gpu_sizes whatever the suite: tsm, linalg, fma,
    transfers, dask ran their default sizes, and without a GPU rgemm did too. Now each suite's
    own sizes are set (on the CPU where there is no GPU), and a suite without sizes refuses."""
    pytest.importorskip("matplotlib")
    pytest.importorskip("tqdm")
    from ddblas.tools import bench
    plans = []
    monkeypatch.setattr(bench, "run", lambda suites, plan, **kw: plans.append(plan))
    monkeypatch.setattr(ddblas, "gpu_available", lambda: gpu)

    def plan(*argv):
        assert cli.main(["bench", *argv, "--quick", "--out-dir", str(tmp_path)]) == 0
        return plans.pop()

    quick = bench.Plan.quick()
    def cpu_or_default(default, value):   # --sizes reaches the CPU only without a GPU
        return default if gpu else value
    p = plan("rgemm", "--sizes", "40", "56")
    assert p.gpu_sizes == (40, 56) and p.cpu_sizes == cpu_or_default(quick.cpu_sizes, (40, 56))
    p = plan("linalg", "--sizes", "24")
    for kind in ("solve", "factor", "qr"):
        assert getattr(p, f"{kind}_gpu_sizes") == (24,)
        assert getattr(p, f"{kind}_cpu_sizes") == cpu_or_default(
            getattr(quick, f"{kind}_cpu_sizes"), (24,))
    p = plan("linalg", "--sizes", "24", "--cpu-sizes", "16", "20")
    assert p.factor_gpu_sizes == (24,) and p.qr_cpu_sizes == (16, 20)
    if gpu:
        p = plan("tsm", "--sizes", "64", "128")
        assert p.tsm_gpu_sizes == (64, 128) and p.tsm_cpu_n == quick.tsm_cpu_n
    else:   # the CPU runs one n
        assert "one size on the CPU (no GPU here" in _usage_error(
            capsys, "bench", "tsm", "--sizes", "64", "128", "--quick", "--out-dir", str(tmp_path))
    p = plan("tsm", "--sizes", "64")
    assert p.tsm_gpu_sizes == (64,) and p.tsm_cpu_n == cpu_or_default(quick.tsm_cpu_n, 64)
    assert plan("tsm", "--cpu-sizes", "96").tsm_cpu_n == 96
    p = plan("fma", "--sizes", "48")
    assert p.fma_gpu_n == 48 and p.fma_cpu_n == cpu_or_default(quick.fma_cpu_n, 48)
    p = plan("dask", "--sizes", "100")
    assert p.dask_gpu == (100, 50)
    assert p.dask_cpu == cpu_or_default(quick.dask_cpu, (100, 50, quick.dask_cpu[2]))
    assert plan("transfers", "--sizes", "512").transfer_sizes == (512,)
    assert plan("baselines", "--sizes", "8", "16").baseline_sizes == (8, 16)
    p = plan("all", "--sizes", "40")   # bench/device_run.sh: the rgemm sweep's sizes
    assert p.gpu_sizes == (40,) and p.solve_gpu_sizes == quick.solve_gpu_sizes
    for argv, message in [
            (("batched", "--sizes", "64"), "--sizes: bench batched has no sizes"),
            (("transfers", "--cpu-sizes", "64"), "runs on the GPU only"),
            (("baselines", "--cpu-sizes", "64"), "give --sizes"),
            (("baselines", "--sizes", "8", "--baseline-sizes", "16"), "give one"),
            (("fma", "--sizes", "64", "128"), "fma takes one size on the GPU, got 64 128"),
            (("dask", "--cpu-sizes", "64", "128"), "--cpu-sizes: bench dask takes one size"),
            (("tsm", "--cpu-sizes", "64", "128"), "tsm takes one size on the CPU, got")]:
        assert message in _usage_error(capsys, "bench", *argv, "--quick", "--out-dir",
                                       str(tmp_path))
    assert plans == []


def test_demo_checks_as_many_distinct_entries_as_it_reports(capsys):
    """Probe of 2026-11-29: with n < 16 (or n = 7919, a multiple of the row stride) the sampled
    rows and columns repeated, while the demo reported '16x16 entries checked'."""
    from ddblas.tools import demo
    assert demo.sample_indices(3, 16, 7919, 0) == [0, 2, 1]
    assert demo.sample_indices(1, 16, 104729, 3) == [0]
    for n, stride in [(7919, 7919), (2 * 104729, 104729), (512, 7919), (16, 104729)]:
        rows = demo.sample_indices(n, 16, stride, 3)
        assert len(set(rows)) == 16 and all(0 <= r < n for r in rows)
    assert cli.main(["demo", "--n", "3", "--device", "cpu"]) == 0
    assert "at worst over 3x3 entries checked exactly" in capsys.readouterr().out
