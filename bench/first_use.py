"""First-use compile times: how long the first operations wait for their kernels.

    python bench/first_use.py [--device cpu gpu] [--repo PATH]

With an empty temporary DDBLAS_CACHE_DIR, in fresh subprocesses (ddblas imported from --repo,
default: this checkout), per device:
  (a) the first elementwise operation, ddblas.ones(1, device=d) + 1 (compiles its kernels);
  (b) then, in the same process, the first 64 x 64 rgemm (compiles the GEMM kernels);
  (c) a warm start: a new process on the now filled cache, from interpreter start to the first
      result of (a) (import included).
The GPU rows run when a GPU is present. Prints a table (seconds); docs/performance.md has the
numbers before and after kernels were built by family.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Prints the seconds of (a) and (b), synchronised on the GPU.
_FIRST = """
import sys, time
import ddblas
device = sys.argv[1]
def done(x):
    if device == "gpu":
        import cupy
        cupy.cuda.get_current_stream().synchronize()
    return x
a, b = ddblas.ones((64, 64), device=device), ddblas.ones((64, 64), device=device)
start = time.perf_counter()
done(ddblas.ones(1, device=device) + 1)
middle = time.perf_counter()
done(ddblas.rgemm(a, b))
print(middle - start, time.perf_counter() - middle)
"""
_WARM = """
import sys
import ddblas
x = ddblas.ones(1, device=sys.argv[1]) + 1
print(float(x.to_device("cpu").hi[0]))
"""


def gpu_present(env) -> bool:
    probe = "import ddblas, sys; sys.exit(0 if ddblas.gpu_available() else 1)"
    return subprocess.run([sys.executable, "-c", probe], env=env,
                          cwd=tempfile.gettempdir()).returncode == 0


def measure(device: str, env) -> dict:
    """(a), (b) and (c) for one device with a fresh cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(env, DDBLAS_CACHE_DIR=cache)
        # cwd: not a source tree, so that `import ddblas` takes --repo
        out = subprocess.run([sys.executable, "-c", _FIRST, device], env=env, check=True,
                             capture_output=True, text=True, cwd=cache).stdout.split()
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", _WARM, device], env=env, check=True,
                       capture_output=True, cwd=cache)
        warm = time.perf_counter() - start
    return {"(a) first elementwise op": float(out[0]), "(b) first 64x64 rgemm after it":
            float(out[1]), "(c) warm start to a first result": warm}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", nargs="+", choices=("cpu", "gpu"), default=["cpu", "gpu"])
    parser.add_argument("--repo", default=REPO, help="where ddblas is imported from")
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=args.repo)
    print(f"ddblas from {args.repo}; seconds, empty cache, fresh processes")
    print(f"{'device':8}{'step':36}{'seconds':>10}")
    for device in args.device:
        if device == "gpu" and not gpu_present(env):
            print(f"{'gpu':8}{'(no GPU present)':36}")
            continue
        for step, seconds in measure(device, env).items():
            print(f"{device:8}{step:36}{seconds:10.2f}")


if __name__ == "__main__":
    main()
