"""python -m ddblas: the demo runs and checks itself; bad arguments fail clearly."""
from __future__ import annotations

import os
import subprocess
import sys

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


def test_bad_arguments():
    assert _run("demo", "--n", "0").returncode != 0
    assert "invalid choice" in _run("demo", "--device", "tpu").stderr
    assert _run().returncode != 0
