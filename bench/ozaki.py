"""rgemm(algorithm="ozaki-fp64") against the classic kernel (and python-flint's arb_mat at 106
bits with --flint): time, plan (S, beta, GEMMs), time per phase and sampled exact errors.

    python bench/ozaki.py --device cpu --sizes 256 512 1024 --flint --out ozaki-cpu.json
    python bench/ozaki.py --device gpu --sizes 1024 2048 4096 8192 --out ozaki-h100.json

Inputs: uniform in [-1, 1) with all 106 bits random (accuracy.random_dd). DD GFLOP/s = 2 N^3 /
time. Times: median of --repeat runs after a warm-up (GPU: CUDA events around the call);
flint's arb_mat product likewise (conversion not timed); the phase split comes from one extra run
with info= (which synchronizes between phases).
Errors: accuracy.gemm_error on --samples random rows x columns, in units of u^2 relative to
(|A||B|)_ij, next to the classic bound for K = N.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

import ddblas
from ddblas import accuracy
from ddblas._bench import _time_gpu, _time_wall


def _flint_seconds(a, b, threads, repeat):
    import flint
    flint.ctx.threads = threads

    def convert(x):
        flint.ctx.prec = 212  # hi + lo exactly
        rows = [[flint.arb(float(h)) + flint.arb(float(lo)) for h, lo in zip(hr, lr)]
                for hr, lr in zip(np.asarray(x.hi), np.asarray(x.lo))]
        return flint.arb_mat(rows)
    fa, fb = convert(a), convert(b)
    flint.ctx.prec = 106
    return _time_wall(lambda: fa * fb, repeat)


def run(device, sizes, repeat, samples, flint, threads):
    rows = []
    timer = _time_gpu if device == "gpu" else _time_wall
    for n in sizes:
        a = accuracy.random_dd((n, n), exponents=(0, 0), seed=1, device=device)
        b = accuracy.random_dd((n, n), exponents=(0, 0), seed=2, device=device)
        row = {"device": device, "n": n}
        for name, algorithm in (("ozaki", "ozaki-fp64"), ("classic", "blocked")):
            t = timer(lambda: ddblas.rgemm(a, b, algorithm=algorithm), repeat)
            row[name + "_s"] = t
            row[name + "_gflops"] = 2 * n ** 3 / t / 1e9
        info = {}
        c = ddblas.rgemm(a, b, algorithm="ozaki-fp64", info=info)
        row.update({k: info[k] for k in ("slices", "beta", "chunks", "gemms", "fallback")})
        row["phases_s"] = info["seconds"]
        rng = np.random.default_rng(3)
        pick = dict(rows=sorted(rng.choice(n, min(samples, n), replace=False).tolist()),
                    cols=sorted(rng.choice(n, min(samples, n), replace=False).tolist()))
        row["ozaki_err_u2"] = accuracy.gemm_error(c, a, b, **pick).max
        row["classic_err_u2"] = accuracy.gemm_error(ddblas.rgemm(a, b), a, b, **pick).max
        row["bound_u2"] = accuracy.bound("gemm", k=n)
        if flint and device == "cpu":
            row["flint_s"] = _flint_seconds(a, b, threads, repeat)
            row["speedup_vs_flint"] = row["flint_s"] / row["ozaki_s"]
        rows.append(row)
        phases = ", ".join(f"{k} {v:.3g}" for k, v in row["phases_s"].items())
        print(f"N={n}: ozaki {row['ozaki_s']:.4g} s ({row['ozaki_gflops']:.3g} GFLOP/s, S="
              f"{row['slices']}, beta={row['beta']}, {row['gemms']} GEMMs; {phases}), classic "
              f"{row['classic_s']:.4g} s ({row['classic_gflops']:.3g} GFLOP/s)"
              + (f", flint {row['flint_s']:.4g} s (ozaki {row['speedup_vs_flint']:.1f}x)"
                 if "flint_s" in row else "")
              + f"; max sampled error/u^2: ozaki {row['ozaki_err_u2']:.3g}, classic "
                f"{row['classic_err_u2']:.3g}, bound {row['bound_u2']:.4g}", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--flint", action="store_true", help="also time arb_mat (CPU)")
    parser.add_argument("--threads", type=int, default=2, help="flint threads")
    parser.add_argument("--out")
    args = parser.parse_args()
    rows = run(args.device, args.sizes, args.repeat, args.samples, args.flint, args.threads)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
