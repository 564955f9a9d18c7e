"""Command line: `python -m ddblas demo [--n N] [--device cpu|gpu] [--seed S]`,
`python -m ddblas bench rgemm ...`, `python -m ddblas accuracy [--quick] [--out-dir DIR]` and
`python -m ddblas check-kernels`."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ddblas",
                                     description="double-double linear algebra on GPU and CPU")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="multiply two random DD matrices and check them "
                                            "against mpmath (GPU if present, else CPU)")
    demo.add_argument("--n", type=int, default=512, help="matrix size (default 512)")
    demo.add_argument("--device", choices=("cpu", "gpu"), default=None,
                      help="default: the GPU if one is available, else the CPU")
    demo.add_argument("--seed", type=int, default=0)
    bench = commands.add_parser("bench", help="benchmarks")
    bench.add_argument("what", choices=("rgemm",))
    bench.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096, 8192])
    bench.add_argument("--cpu-sizes", type=int, nargs="+", default=[256, 512])
    bench.add_argument("--repeat", type=int, default=3)
    bench.add_argument("--out", help="write every measurement as JSON to this file")
    acc = commands.add_parser("accuracy", help="measure DD errors exactly against the proven "
                                               "bounds; write DIR/accuracy.md and plots")
    acc.add_argument("--quick", action="store_true", help="small sizes (under a minute)")
    acc.add_argument("--out-dir", default="docs", help="where accuracy.md and the PNGs go "
                                                       "(default: docs)")
    commands.add_parser("check-kernels", help="compile every kernel (nvcc for sm_80/sm_90 if "
                                              "present, host C++) and check for compile errors, "
                                              "register spills and FMAs in non-FMA kernels")
    args = parser.parse_args(argv)
    if args.command == "bench":
        from ._bench import run as bench_run
        bench_run(sizes=args.sizes, cpu_sizes=args.cpu_sizes, repeat=args.repeat, out=args.out)
        return 0
    if args.command == "accuracy":
        from ._accuracy_report import run as accuracy_run
        command = "python -m ddblas accuracy" + (" --quick" if args.quick else "")
        return accuracy_run(quick=args.quick, out_dir=args.out_dir, command=command)
    if args.command == "check-kernels":
        from ._kernelcheck import main as check
        return check()
    if args.command == "demo":
        from ._demo import run
        if args.n < 1:
            parser.error(f"--n must be at least 1, got {args.n}")
        from .accuracy import bound
        worst = run(n=args.n, device=args.device, seed=args.seed)
        return 0 if worst <= bound("gemm", k=args.n) else 1  # the active variant's proven bound
    return 2


if __name__ == "__main__":
    sys.exit(main())
