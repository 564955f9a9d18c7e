"""The device-run scripts in bench/ that the GPU sessions depend on run end to end on the CPU
(a failing script wastes a multi-GPU machine's time): bench/dask_multigpu.py with CPU workers
standing in for the GPUs."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.slow
def test_dask_multigpu_script_on_cpu_workers(tmp_path):
    pytest.importorskip("distributed")
    env = dict(os.environ, PYTHONPATH=REPO, OMP_NUM_THREADS="1")
    result = subprocess.run(
        [sys.executable, os.path.join(REPO, "bench", "dask_multigpu.py"), "--device", "cpu",
         "--gpus", "2", "1", "--protocols", "tcp", "--bandwidth", "1e9",
         "--cases", "256:128:blocked", "256:128:auto", "--big", "384:128:blocked",
         "--column-groups", "2"],
        capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    # operands spread one panel a worker; on two workers each case with B fetched by the tasks
    # and copied first (the big case's B in two groups of block columns); every sampled error
    # within the bound
    assert "2 GPU tcp N=256 chunk=128 panels: A and B in" in out
    assert "blocks per worker 1/1 and 1/1" in out
    assert out.count("(bound") == 8 and "EXCEEDED" not in out
    rows = re.findall(r"^\| (\d) \| (\S+) \| ([\w -]+) \| (\d+) \| 128 \| (\w+) \|", out,
                      re.MULTILINE)
    several = [("2", "tcp", mode + groups, n, alg)
               for n, alg, groups in (("256", "blocked", ""), ("256", "auto", ""),
                                      ("384", "blocked", " in 2 groups"))
               for mode in ("fetch", "copy")]
    assert sorted(rows) == sorted(several + [("1", "-", "-", "256", "blocked"),
                                             ("1", "-", "-", "256", "auto")])
    assert "not measured" not in out
    assert "could not be dropped" not in out   # each case starts from the generated layout
