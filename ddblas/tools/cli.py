"""Command line: `python -m ddblas demo [--n N] [--device cpu|gpu] [--seed S]`,
`python -m ddblas bench {rgemm,baselines,fma,batched,transfers,tsm,linalg,dask,all} [--quick] ...`,
`python -m ddblas accuracy [--quick] [--out-dir DIR]`, `python -m ddblas check-kernels` and
`python -m ddblas cache [--clear]`."""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import re
import sys
import tempfile


MAX_ORDER = 2 ** 20   # a DD matrix of this order takes 16 TiB: larger sizes are typos


def _at_least(parser, option: str, value, low: int, high: int | None = None) -> None:
    """parser.error unless value (an int, a list of ints, or None: not given) is >= low (and
    <= high when given)."""
    values = value if isinstance(value, list) else [] if value is None else [value]
    shown = " ".join(map(str, values))
    if values and min(values) < low:
        parser.error(f"{option} must be {'positive' if low == 1 else f'at least {low}'}, "
                     f"got {shown}")
    if values and high is not None and max(values) > high:
        parser.error(f"{option} must be at most {high}, got {shown}")


def _nearest_existing(path: str) -> str:
    """path made absolute, or its nearest ancestor that exists."""
    path = os.path.abspath(path)
    while not os.path.lexists(path):
        path = os.path.dirname(path)
    return path


def _output_dir(parser, option: str, path: str) -> None:
    """parser.error unless path is a writable directory or one that can be made (its nearest
    existing ancestor is a writable directory): checked before the run, which writes it last."""
    existing = _nearest_existing(path)
    if not os.path.isdir(existing):
        parser.error(f"{option} {path}: {existing} exists and is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        parser.error(f"{option} {path}: the directory {existing} is not writable")
    # os.access says yes to root anywhere: /proc and /sys passed, the whole run went by, and
    # writing its results failed; making (and removing) a directory there settles it
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".ddblas-probe-", dir=existing))
    except OSError as exc:
        parser.error(f"{option} {path}: cannot create a directory in {existing} "
                     f"({exc.strerror})")


def _doc_file(parser, path: str) -> None:
    """parser.error unless path names a markdown file that can be written (a writable file, or
    none yet in a writable directory, where its plots go too)."""
    if os.path.isdir(path):
        parser.error(f"--doc {path} is a directory; it takes a markdown file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        parser.error(f"--doc {path}: the directory {folder} does not exist")
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        parser.error(f"--doc {path} is not writable")
    try:   # its plots go into folder: os.access says yes to root anywhere (/proc)
        os.rmdir(tempfile.mkdtemp(prefix=".ddblas-probe-", dir=folder))
    except OSError as exc:
        parser.error(f"--doc {path}: cannot write into {folder} ({exc.strerror})")
    if os.path.exists(path):   # read before the run, which rewrites its marked section last
        try:
            with open(path, encoding="utf-8") as f:
                f.read()
        except (UnicodeDecodeError, OSError) as exc:
            parser.error(f"--doc {path} cannot be read as UTF-8 text ({exc})")


def _bench(parser, args, argv) -> int:
    try:   # imported here so that a missing one is a usage error, not a traceback later
        for module in ("matplotlib", "tqdm"):
            importlib.import_module(module)
    except ImportError as exc:
        parser.error(f"python -m ddblas bench needs matplotlib and tqdm ({exc}): "
                     "pip install 'ddblas[bench]', or pip install '.[bench]' in a source checkout")
    _output_dir(parser, "--out-dir", args.out_dir)
    if args.doc is not None:
        _doc_file(parser, args.doc)
    elif args.section is not None:
        parser.error("--section names a section of --doc: give --doc too")
    if args.section is not None and not re.fullmatch(r"[A-Za-z0-9_.-]+", args.section):
        parser.error(f"--section {args.section!r}: letters, digits, '_', '.' and '-' only "
                     f"(it names the plots' files and the markers in --doc)")
    from . import bench as _bench
    plan = _bench.Plan.quick() if args.quick else _bench.Plan()
    for option, field in (("sizes", None), ("cpu_sizes", None),
                          ("baseline_sizes", "baseline_sizes"), ("repeat", "repeat")):
        value = getattr(args, option)
        _at_least(parser, f"--{option.replace('_', '-')}", value, 1,
                  None if option == "repeat" else MAX_ORDER)
        if value is not None and field is not None:
            setattr(plan, field, tuple(value) if isinstance(value, list) else value)
    if args.sizes is not None and args.baseline_sizes is not None and args.what == "baselines":
        parser.error("--sizes and --baseline-sizes both set the baselines' sizes: give one")
    # every suite with sizes takes --sizes / --cpu-sizes (only rgemm did: the rest ignored them)
    from ddblas import gpu_available
    try:
        _bench.set_sizes(plan, args.what, args.sizes, args.cpu_sizes, gpu=gpu_available())
    except ValueError as exc:
        parser.error(str(exc))
    suites = _bench.SUITES if args.what == "all" else (args.what,)
    command = "python -m ddblas " + " ".join(sys.argv[1:] if argv is None else argv)
    _bench.run(suites, plan, out_dir=args.out_dir, doc=args.doc, section=args.section,
               command=command)
    return 0


def _accuracy(parser, args) -> int:
    _at_least(parser, "--sizes", args.sizes, 1, MAX_ORDER)
    _output_dir(parser, "--out-dir", args.out_dir)
    from .accuracy_report import run
    command = "python -m ddblas accuracy" + (" --quick" if args.quick else "") + \
        (" --sizes " + " ".join(map(str, args.sizes)) if args.sizes else "")
    return run(quick=args.quick, out_dir=args.out_dir, command=command, n_sizes=args.sizes)


def _demo(parser, args) -> int:
    _at_least(parser, "--n", args.n, 1, MAX_ORDER)
    _at_least(parser, "--seed", args.seed, 0)
    from ddblas import gpu_available
    if args.device == "gpu" and not gpu_available():
        parser.error("--device gpu: no usable GPU (needs CuPy and a CUDA device)")
    from .demo import SOLVE_ORDER, run
    from ddblas.accuracy import bound
    product, solved = run(n=args.n, device=args.device, seed=args.seed)
    # the active variant's proven bound, and the refinement's (docs/linalg.md)
    limits = {"product": (product, bound("gemm", k=args.n)),
              "solve": (solved, bound("refine", k=SOLVE_ORDER))}
    above = [f"the {what}'s error {error:.3g} u^2 exceeds its bound {limit:.3g} u^2"
             for what, (error, limit) in limits.items() if not error <= limit]
    for line in above:
        print(f"ddblas demo: {line}", file=sys.stderr)
    return 1 if above else 0


def _cache(args) -> int:
    """Print the kernel cache's folders, files and bytes; with --clear remove ddblas's files."""
    from ddblas import introspect
    if args.clear:
        removed, freed = introspect.clear_cache()
        print(f"removed {removed} files ({freed / 2**20:.1f} MiB) from "
              + ", ".join(map(str, introspect.cache_folders())))
        return 0
    for folder in introspect.cache_folders():
        files = introspect.cache_files(folder)
        size = sum(f.stat().st_size for f in files if f.exists())
        kernels = sum(f.suffix in (".so", ".cubin", ".ptx") for f in files)
        print(f"{folder}: {kernels} compiled kernel files, {len(files)} files in all, "
              f"{size / 2**20:.1f} MiB")
    print("(python -m ddblas cache --clear removes them; each is compiled again at first use)")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ddblas",
                                     description="double-double linear algebra on GPU and CPU")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="multiply two random n x n DD matrices and check the "
                                            "product's error exactly (ddblas.accuracy), then "
                                            "solve a 200 x 200 system (GPU if present, else CPU); "
                                            "exit status 1 if either error exceeds its bound")
    demo.add_argument("--n", type=int, default=512, help="matrix size (default 512)")
    demo.add_argument("--device", choices=("cpu", "gpu"), default=None,
                      help="default: the GPU if one is available, else the CPU")
    demo.add_argument("--seed", type=int, default=0, help="random seed >= 0 (default 0)")
    bench = commands.add_parser("bench", help="benchmarks: rgemm (GPU and CPU sweep), baselines "
                                              "(other libraries), fma (FMA vs non-FMA), batched "
                                              "(rgemm_batched on CFD shapes), transfers "
                                              "(host operands: synchronous vs overlapped, GPU "
                                              "only), tsm (tall-and-skinny), linalg "
                                              "(factorizations and solves), dask (several GPUs; "
                                              "needs the dask extra), all (every suite but dask)")
    bench.add_argument("what", choices=("rgemm", "baselines", "fma", "batched", "transfers",
                                        "tsm", "linalg", "dask", "all"))
    bench.add_argument("--quick", action="store_true",
                       help="small sizes (minutes a suite on 2 CPU cores)")
    bench.add_argument("--sizes", type=int, nargs="+",
                       help="the suite's matrix orders on the GPU, and on the CPU where there "
                            "is no GPU (unless --cpu-sizes): rgemm and all: the rgemm sweep; "
                            "baselines: its sizes (both devices); fma: the rgemm n (one); "
                            "transfers: the square rgemm sizes; tsm: n; linalg: the solve, "
                            "LU/Cholesky and QR orders; dask: N (one). batched has none")
    bench.add_argument("--cpu-sizes", type=int, nargs="+",
                       help="the suite's matrix orders on the CPU (as --sizes; one for fma, "
                            "tsm and dask; baselines and transfers have none)")
    bench.add_argument("--baseline-sizes", type=int, nargs="+", help="sizes of the library "
                                                                     "comparison (baselines)")
    bench.add_argument("--repeat", type=int, help="timed repetitions (median)")
    bench.add_argument("--out-dir", default="bench-results",
                       help="where bench.json, bench.csv, bench.md and the plots go")
    bench.add_argument("--doc", help="also write the report into this markdown file, between "
                                     "its '<!-- ddblas bench: SECTION begin/end -->' markers")
    bench.add_argument("--section", help="the marked section of --doc (default: results)")
    acc = commands.add_parser("accuracy", help="measure DD errors exactly against the proven "
                                               "bounds; write DIR/accuracy.md and plots")
    acc.add_argument("--quick", action="store_true", help="small sizes (under a minute)")
    acc.add_argument("--out-dir", default="ddblas-accuracy",
                     help="where accuracy.md and the PNGs go (default: ./ddblas-accuracy, made "
                          "if missing; pass --out-dir docs to regenerate the repository's docs)")
    acc.add_argument("--sizes", type=int, nargs="+", default=None,
                     help="N of the 'against N' section (default: 1024 .. 16384 on the GPU, "
                          "256 .. 1024 on the CPU; with --quick 128 and 256 on the CPU)")
    commands.add_parser("check-kernels", help="compile every kernel (nvcc for sm_80/sm_90 if "
                                              "present, host C++) and check for compile errors, "
                                              "register spills and FMAs in non-FMA kernels")
    cache = commands.add_parser("cache", help="show the compiled-kernel cache's folders and size "
                                              "($DDBLAS_CACHE_DIR, else ~/.cache/ddblas)")
    cache.add_argument("--clear", action="store_true",
                       help="remove ddblas's files there (each family compiles again at first "
                            "use; other files in the folder are left alone)")
    args = parser.parse_args(argv)
    # The first use of a kernel family compiles it: say so on stderr ("compiling ddblas gemm
    # kernels for sm_90 (first use, cached) ...").
    build_log = logging.getLogger("ddblas.build")
    build_log.setLevel(logging.INFO)
    if not build_log.handlers:
        build_log.addHandler(logging.StreamHandler())
    # every argument is checked before any work, errors through the subcommand's parser; what
    # the library raises on the way (a compiler that fails, memory, files) is one line and exit
    # status 2, not a traceback (demo's exit status 1 is an error bound exceeded)
    try:
        if args.command == "bench":
            return _bench(bench, args, argv)
        if args.command == "accuracy":
            return _accuracy(acc, args)
        if args.command == "demo":
            return _demo(demo, args)
        if args.command == "cache":
            return _cache(args)
        from .kernelcheck import main as check
        return check()
    except (RuntimeError, MemoryError, OSError) as error:
        print(f"python -m ddblas {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
