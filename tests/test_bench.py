"""python -m ddblas bench: each suite runs at small sizes and writes its tables, bench.json,
bench.csv (with the machine, versions, date and commit), the plots and the markdown section;
the report's helpers render and replace what they should."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import types

import pytest

import ddblas
from ddblas.tools import bench, benchreport

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
META_KEYS = {"date", "commit", "ddblas", "python", "numpy", "cpu", "cpu_threads", "compiler",
             "command", "plan"}


def _bench_cli(tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=REPO)
    result = subprocess.run([sys.executable, "-m", "ddblas", "bench", *args, "--out-dir",
                             str(tmp_path), "--repeat", "1"], capture_output=True, text=True,
                            env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    with open(tmp_path / "bench.json") as f:
        results = json.load(f)
    assert META_KEYS <= set(results["meta"])
    with open(tmp_path / "bench.csv") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(r["commit"] == results["meta"]["commit"] for r in rows)
    assert sum(len(t) for t in results["tables"].values()) == len(rows)
    return results, result.stdout


@pytest.mark.toolchain
def test_fma_suite(tmp_path):
    results, stdout = _bench_cli(tmp_path, "fma", "--quick")
    tables = results["tables"]
    census = {(r["code"], r["op"], r["variant"]): r for r in tables["fma-census"]}
    assert census["cpu", "madd", "fma/sloppy"]["fp64"] == 15
    assert all(r["fma"] == 0 for r in tables["fma-census"] if r["variant"].startswith("nofma"))
    kinds = {(r["device"], r["kind"], r["variant"]) for r in tables["fma-throughput"]}
    for kind in ("elementwise add", "elementwise mul", "elementwise div", "rgemm", "madd ceiling"):
        assert ("cpu", kind, "nofma/sloppy") in kinds
    assert all(r["rate"] > 0 for r in tables["fma-throughput"])
    functions = tables["elementwise-functions"]
    assert {r["function"] for r in functions if r["device"] == "cpu"} == set(
        bench.ELEMENTWISE_FUNCTIONS)
    assert all(r["rate"] > 0 and r["gbs"] > 0 for r in functions)
    ratio = {r["add"]: r for r in tables["fma-ratio"] if r["device"] == "cpu"}
    assert ratio["sloppy"]["predicted"] == pytest.approx(32 / 15)
    assert "predicted" in stdout and (tmp_path / "bench-fma.png").stat().st_size > 1000


@pytest.mark.slow
def test_rgemm_suite(tmp_path):
    results, _ = _bench_cli(tmp_path, "rgemm", "--quick", "--cpu-sizes", "48", "64")
    tables = results["tables"]
    assert (tmp_path / "bench-rgemm.png").stat().st_size > 1000  # README: bench writes plots
    assert {(r["n"], r["variant"]) for r in tables["rgemm-cpu"]} == {
        (n, bench.variant_name(v)) for n in (48, 64) for v in bench.VARIANTS}
    ladder = tables["cpu-ladder"]
    assert [(r["threads"] == 1, r["vectorize"]) for r in ladder] == [
        (True, False), (True, True), (False, False), (False, True)]
    assert ladder[0]["speedup"] == 1.0
    assert all(0 < r["ceiling_fraction"] for r in tables["rgemm-cpu"] + ladder)
    assert {r["variant"] for r in tables["ceilings"] if r["device"] == "cpu"} == {
        bench.variant_name(v) for v in bench.VARIANTS}
    algorithms = [r for r in tables["rgemm-algorithms"] if r["device"] == "cpu"]
    assert {(r["n"], r["algorithm"], r["auto"]) for r in algorithms} == {
        (n, a, "yes" if a == "blocked" else "") for n in (48, 64) for a in bench.RGEMM_ALGORITHMS}


def test_baselines_suite(tmp_path):
    results, stdout = _bench_cli(tmp_path, "baselines", "--quick", "--baseline-sizes", "8", "24")
    rows = results["tables"]["baselines"]
    ours = [r for r in rows if r["library"].startswith("ddblas") and r["engine"] == "cpu"]
    assert sorted((r["n"], r["library"]) for r in ours) == [
        (n, name) for n in (8, 24)
        for name in ("ddblas", "ddblas ozaki-fp64", "ddblas ozaki2-int8")]
    fastest = {n: min(r["seconds"] for r in ours if r["n"] == n) for n in (8, 24)}
    assert all(r["speedup"] == pytest.approx(r["seconds"] / fastest[r["n"]]) for r in rows
               if r["engine"] == "cpu")
    assert all(r["error"] is not None and r["within_bound"] for r in rows)
    assert any(r["library"] == "NumPy float64" for r in rows)  # NumPy is always there
    assert (tmp_path / "bench-gflops.png").stat().st_size > 1000
    assert "ddblas speed-up" in stdout


def test_bad_arguments(tmp_path):
    env = dict(os.environ, PYTHONPATH=REPO)
    run = lambda *a: subprocess.run([sys.executable, "-m", "ddblas", "bench", *a],  # noqa: E731
                                    capture_output=True, text=True, env=env, timeout=60)
    assert "invalid choice" in run("flops").stderr
    assert "must be positive" in run("rgemm", "--cpu-sizes", "0").stderr


def test_replace_section(tmp_path):
    doc = tmp_path / "perf.md"
    doc.write_text("# Performance\n\nhand-written\n")
    benchreport.replace_section(str(doc), "cpu", "first\n")
    benchreport.replace_section(str(doc), "gpu", "other\n")
    benchreport.replace_section(str(doc), "cpu", "second\n")
    text = doc.read_text()
    assert text.startswith("# Performance\n\nhand-written\n")
    assert "second" in text and "first" not in text and "other" in text
    assert text.count("<!-- ddblas bench: cpu begin -->") == 1


def test_tables_render_every_column():
    rows = [dict(library="x", engine="cpu", n=8, seconds=0.5, gflops=1e-3, error=None,
                 error_bound=3, speedup=2.0)]
    text = benchreport.text_table("baselines", rows)
    md = benchreport.markdown_table("baselines", rows)
    assert "2x" in text and "| x | cpu | 8 | 0.5 | 0.001 |  | 3 | 2x |" in md
    assert md.splitlines()[2].count("|") == md.splitlines()[4].count("|")


def test_batched_suite(tmp_path):
    results, stdout = _bench_cli(tmp_path, "batched", "--quick")
    rows = [r for r in results["tables"]["batched"] if r["device"] == "cpu"]
    assert [(r["shape"], r["batch"], r["padded_shape"]) for r in rows] == [
        ("19x32x9", 1000, "32x32x16"), ("34x56x9", 1000, "48x64x16")]
    assert all(r["gflops"] > 0 and r["padded_gflops"] > 0 and r["loop_speedup"] > 0 for r in rows)
    assert all(r["gflops"] == pytest.approx(2 * 19 * 32 * 9 * 1000 / r["seconds"] / 1e9)
               for r in rows[:1])
    assert "vs rgemm loop" in stdout


def test_tsm_suite(tmp_path):
    results, stdout = _bench_cli(tmp_path, "tsm", "--quick")
    rows = [r for r in results["tables"]["tsm"] if r["device"] == "cpu"]
    assert [(r["k"], r["trans"], r["algorithm"]) for r in rows] == [
        (k, t, a) for k in (1, 4, 16) for t in ("NN", "TN") for a in ("tsm", "blocked")]
    n = bench.Plan.quick().tsm_cpu_n
    for r in rows:
        assert r["gflops"] == pytest.approx(2 * n * n * r["k"] / r["seconds"] / 1e9)
        assert r["gbs"] == pytest.approx(16 * n * n / r["seconds"] / 1e9)
        assert (r["plan"] != "") == (r["algorithm"] == "tsm") and 0 < r["ceiling_fraction"]
    assert "of ceiling" in stdout


def test_transfers_suite_without_gpu():
    if ddblas.gpu_available():
        pytest.skip("the CPU-only behaviour")
    part = bench.suite_transfers(bench.Plan.quick(), lambda xs, desc: xs)
    assert part["tables"] == {} and part["notes"] == ["transfers: no GPU, nothing measured"]


def test_transfer_row_arithmetic():
    rates = types.SimpleNamespace(h2d=10.0, d2h=5.0, host=20.0)
    row = bench._transfer_row(dict(routine="x"), 1e9, 100, 80, rates, 4.0, 30.0,
                               lambda info: info.update(transfer=dict(chunk=7, chunks=3,
                                                                        registered=True)) or 20.0)
    assert row["transfer_gflops"] == pytest.approx(1 / 16) and row["kernel_gflops"] == 0.25
    assert row["model_gflops"] == pytest.approx(1 / 16)
    assert row["model_fraction"] == pytest.approx(16 / 20) and row["speedup"] == 1.5
    assert row["staging_seconds"] == 9.0 and (row["chunk"], row["chunks"]) == (7, 3)
    assert row["registered"] is True
    assert "of model" in benchreport.text_table("transfers", [row])


@pytest.mark.slow
def test_linalg_suite(tmp_path):
    results, stdout = _bench_cli(tmp_path, "linalg", "--quick")
    tables = results["tables"]
    plan = bench.Plan.quick()
    solves = [r for r in tables["linalg-solve"] if r["device"] == "cpu"]
    assert [(r["n"], r["kappa"]) for r in solves] == [(200, k) for k in plan.solve_kappas]
    assert all(r["backward_error_u2"] <= r["n"] and r["forward_over_kappa_u2"] <= 10 * r["n"]
               for r in solves)
    assert {r["routine"] for r in tables["linalg-factor"]} == {"getrf", "potrf", "geqrf"}
    batched = [r for r in tables["linalg-batched"] if r["device"] == "cpu"]
    assert [r["order"] for r in batched] == list(plan.batched_solve_orders)
    assert all(r["dd_gflops"] == pytest.approx(
        r["batch"] * (2 * r["order"] ** 3 / 3 + 2 * r["order"] ** 2) / r["seconds"] / 1e9)
        for r in batched)
    kappa = {(r["kappa"], r["solver"]): r["forward_error"] for r in tables["linalg-kappa"]}
    for k in plan.kappa_sweep:
        assert kappa[k, "ddblas dd-lu"] <= 10 * plan.kappa_sweep_n * k * 2.0 ** -106
    assert kappa[1e20, "float64 solve (LAPACK)"] > 1e-3 > kappa[1e20, "ddblas refine"]
    assert (tmp_path / "bench-linalg-forward-error.png").exists() or \
        any(p.name.endswith("linalg-forward-error.png") for p in tmp_path.iterdir())
    assert "MPLAPACK" in stdout
