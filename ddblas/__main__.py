"""Command line: `python -m ddblas demo [--n N] [--device cpu|gpu] [--seed S]` and
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
    demo.add_argument("--n", type=int, default=96, help="matrix size (default 96)")
    demo.add_argument("--device", choices=("cpu", "gpu"), default=None,
                      help="default: the GPU if one is available, else the CPU")
    demo.add_argument("--seed", type=int, default=0)
    commands.add_parser("check-kernels", help="compile every kernel (nvcc for sm_80/sm_90 if "
                                              "present, host C++) and check for compile errors, "
                                              "register spills and FMAs in non-FMA kernels")
    args = parser.parse_args(argv)
    if args.command == "check-kernels":
        from ._kernelcheck import main as check
        return check()
    if args.command == "demo":
        from ._demo import run
        if args.n < 1:
            parser.error(f"--n must be at least 1, got {args.n}")
        worst = run(n=args.n, device=args.device, seed=args.seed)
        # A DD dot product of length n is within about (c_mul + 3(n-1)) u^2 of |A||B|.
        return 0 if worst <= 5 + 3.0001 * (args.n - 1) else 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
