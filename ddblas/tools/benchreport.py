"""The output of `python -m ddblas bench`: printed tables, bench.json and bench.csv (every
measurement with the machine, versions, date and commit), PNG plots and a markdown report that
can replace a marked section of a document (docs/performance.md)."""
from __future__ import annotations

import csv
import datetime
import json
import os
import platform
import re
import subprocess
import sys

import numpy as np

from ddblas import __version__, get_cpu_threads, gpu_available, introspect

from .accuracy_report import COLORS, figure, save_figure

# name -> (title, [(key, header, format)]); a table's rows are dicts with these keys.
TABLES = {
    "ceilings": ("In-register DD multiply-add ceiling", [
        ("device", "device", "s"), ("variant", "variant", "s"), ("threads", "threads", "d"),
        ("gflops", "GFLOP/s", ".1f")]),
    "rgemm-gpu": ("rgemm on the GPU (kernel time)", [
        ("n", "N", "d"), ("variant", "variant", "s"), ("algorithm", "algorithm", "s"),
        ("trans", "op", "s"), ("gflops", "GFLOP/s", ".1f"), ("ceiling_fraction", "of ceiling", "%"),
        ("seconds", "s", ".4f")]),
    "rgemm-transfers": ("rgemm from host arrays (transfers included) vs Nakasato's model", [
        ("n", "N", "d"), ("variant", "variant", "s"), ("algorithm", "algorithm", "s"),
        ("gflops", "GFLOP/s", ".1f"), ("seconds", "s", ".4f"), ("model_seconds", "model s", ".4f")]),
    "rgemm-cpu": ("rgemm on the CPU (all threads)", [
        ("n", "N", "d"), ("variant", "variant", "s"), ("threads", "threads", "d"),
        ("gflops", "GFLOP/s", ".2f"), ("ceiling_fraction", "of ceiling", "%"),
        ("seconds", "s", ".4f")]),
    "cpu-ladder": ("CPU rgemm: threads and vectorisation (default variant)", [
        ("n", "N", "d"), ("threads", "threads", "d"), ("vectorize", "vectorised", "s"),
        ("gflops", "GFLOP/s", ".2f"), ("speedup", "speed-up", ".1fx"),
        ("ceiling_fraction", "of ceiling", "%"), ("seconds", "s", ".4f")]),
    "rgemm-algorithms": ("rgemm algorithms: the classic kernel and Ozaki schemes I and II "
                         "(default variant)", [
        ("device", "device", "s"), ("n", "N", "d"), ("algorithm", "algorithm", "s"),
        ("gflops", "GFLOP/s", ".3g"), ("engine_fraction", "of engine", "%"),
        ("slices", "S / L", "d"), ("gemms", "GEMMs", "d"), ("error", "error u²", ".3g"),
        ("fallback", "fallback", "s"), ("seconds", "s", ".4f"), ("auto", "auto picks", "s")]),
    "baselines": ("ddblas against other libraries (same inputs; speed-up of the faster ddblas "
                  "algorithm)", [
        ("library", "library", "s"), ("engine", "engine", "s"), ("n", "N", "d"),
        ("seconds", "time s", ".4g"), ("gflops", "GFLOP/s", ".3g"), ("error", "error u²", ".3g"),
        ("error_bound", "bound u²", ".3g"), ("speedup", "ddblas speed-up", ".3gx")]),
    "fma-census": ("FP64 instructions per DD operation, read from the compiled code", [
        ("code", "code", "s"), ("op", "op", "s"), ("variant", "variant", "s"),
        ("fp64", "FP64 instr", "d"), ("fma", "of which FMA", "d"), ("source", "read from", "s")]),
    "fma-throughput": ("Throughput per variant", [
        ("device", "device", "s"), ("kind", "kind", "s"), ("n", "n", "d"),
        ("variant", "variant", "s"), ("rate", "rate", ".4g"), ("unit", "unit", "s")]),
    "elementwise-functions": ("Elementwise functions (default variant): G results/s, GB/s moved "
                              "(16 bytes per DD read or written), fraction of the device copy "
                              "rate on the GPU", [
        ("device", "device", "s"), ("function", "function", "s"), ("n", "n", "d"),
        ("variant", "variant", "s"), ("rate", "G results/s", ".4g"), ("gbs", "GB/s", ".1f"),
        ("memory_fraction", "of memory", "%"), ("seconds", "s", ".4g")]),
    "fma-ratio": ("FMA / non-FMA speed ratio: predicted from instruction counts vs measured", [
        ("device", "device", "s"), ("add", "add", "s"), ("predicted", "predicted", ".2f"),
        ("madd ceiling", "ceiling", ".2f"), ("rgemm", "rgemm", ".2f"),
        ("elementwise mul", "elementwise mul", ".2f"), ("census", "counts from", "s")]),
    "batched": ("rgemm_batched (default variant; GFLOP/s = 2 m k n batch / time of one call; "
                "kernel: the call captured in a CUDA graph and launched 20 times on the GPU "
                "(the kernel without Python's per-call time), and its fraction of the in-register "
                "ceiling; speed-up over a Python loop of rgemm calls; padded: m, k, n zero-padded "
                "to multiples of 16, unpadded flops)", [
        ("device", "device", "s"), ("shape", "m x k x n", "s"), ("batch", "batch", "d"),
        ("gflops", "GFLOP/s", ".2f"), ("seconds", "s", ".4g"),
        ("stream_gflops", "kernel GFLOP/s", ".2f"), ("ceiling_fraction", "of ceiling", "%"),
        ("loop_speedup", "vs rgemm loop", ".1fx"), ("padded_shape", "padded", "s"),
        ("padded_gflops", "padded GFLOP/s", ".2f")]),
    "dask": ("rgemm on Dask (ddblas.dask; C = A B, N x N, computed and kept on the workers): "
             "the share of one ddblas.rgemm call's rate on the same device, the GB moved "
             "between workers per product", [
        ("device", "device", "s"), ("n", "N", "d"), ("chunk", "chunk", "d"),
        ("workers", "workers", "d"), ("k", "k", "s"), ("algorithm", "algorithm", "s"),
        ("gflops", "GFLOP/s", ".2f"), ("single_gflops", "one call", ".2f"),
        ("share", "of one call", "%"), ("moved_gb", "GB moved", ".3f"), ("seconds", "s", ".4g")]),
    "tsm": ("Tall-and-skinny C = op(A) B (A n x n, B n x k): the tsm kernel and the classic "
            "one; GB/s drawn from op(A), of the device copy rate; fraction of the variant's "
            "in-register DD ceiling", [
        ("device", "device", "s"), ("n", "n", "d"), ("k", "k", "d"), ("trans", "op", "s"),
        ("algorithm", "algorithm", "s"), ("variant", "variant", "s"), ("gflops", "GFLOP/s", ".1f"), ("gbs", "GB/s", ".1f"),
        ("memory_fraction", "of memory", "%"), ("ceiling_fraction", "of ceiling", "%"),
        ("plan", "plan", "s"), ("seconds", "s", ".4g")]),
    "transfers": ("Host operands to a host result: synchronous (copy in, compute, copy back) vs "
                  "overlapped (device='gpu'; GFLOP/s, DD; model: min(kernel, transfer rate); "
                  "staging: the pageable/pinned host copies at the measured rate)", [
        ("routine", "routine", "s"), ("shape", "m x k x n", "s"), ("batch", "batch", "d"),
        ("kernel_gflops", "kernel", ".1f"), ("transfer_gflops", "transfer", ".1f"),
        ("model_gflops", "model", ".1f"), ("sync_gflops", "sync", ".1f"),
        ("overlapped_gflops", "overlapped", ".1f"), ("model_fraction", "of model", "%"),
        ("speedup", "vs sync", ".2fx"), ("chunk", "chunk", "d"), ("chunks", "chunks", "d"),
        ("staging_seconds", "staging s", ".4g"), ("seconds", "s", ".4g")]),
    "linalg-solve": ("ddblas.linalg.solve, A (n x n, float64-valued, 2-norm condition kappa) and "
                     "b = rgemm(A, x_true) in DD: wall time of the call against the float64 LU "
                     "and solve alone; the backward error is the solver's own DD-computed "
                     "measure, the forward error against x_true (b's rounding included)", [
        ("device", "device", "s"), ("n", "n", "d"), ("kappa", "κ", ".0e"),
        ("seconds", "solve s", ".4g"), ("float64_lu_seconds", "float64 LU s", ".4g"),
        ("method", "ran", "s"), ("iterations", "steps", "d"),
        ("backward_error_u2", "backward u²", ".3g"), ("forward_error", "forward", ".3g"),
        ("forward_over_kappa_u2", "forward / κu²", ".3g")]),
    "linalg-factor": ("DD factorizations: GFLOP/s (getrf 2n³/3, potrf n³/3) against float64 "
                      "(cuSOLVER / LAPACK) on the same n", [
        ("device", "device", "s"), ("routine", "routine", "s"), ("n", "n", "d"),
        ("dd_gflops", "DD GFLOP/s", ".3g"), ("seconds", "s", ".4g"),
        ("float64_gflops", "float64 GFLOP/s", ".4g"), ("slowdown", "DD / float64 time", ".1f")]),
    "linalg-batched": ("Batched solve of small systems (one DD LU launch + one solve launch; "
                       "flops 2n³/3 + 2n² a system) against the in-register DD madd ceiling", [
        ("device", "device", "s"), ("order", "n", "d"), ("batch", "systems", "d"),
        ("seconds", "s", ".4g"), ("dd_gflops", "DD GFLOP/s", ".3g"),
        ("ceiling_fraction", "of ceiling", "%"), ("systems_per_second", "systems/s", ".3g")]),
    "linalg-libraries": ("CPU: ddblas.linalg.solve against other libraries on one system "
                         "(kappa 1e6, float64-valued: exact inputs for all)", [
        ("library", "library", "s"), ("n", "n", "d"), ("library_seconds", "library s", ".4g"),
        ("ddblas_seconds", "ddblas s", ".4g"), ("speedup", "ddblas speed-up", ".3gx"),
        ("ddblas_backward_error_u2", "ddblas backward u² (exact)", ".3g"), ("note", "note", "s")]),
    "linalg-kappa": ("Forward error against kappa (mpmath at 320 bits as the reference)", [
        ("kappa", "κ₂", ".0e"), ("solver", "solver", "s"), ("forward_error", "forward error", ".3g"),
        ("ran", "ran", "s")]),
}


def progress_bar(iterable, desc):
    """tqdm over a sweep (stderr), so the tables on stdout stay clean."""
    from tqdm import tqdm
    return tqdm(list(iterable), desc=desc, unit="step", leave=False)


def _git_commit() -> str:
    """$DDBLAS_COMMIT if set (a copied tree whose .git is not its own: the device machine),
    else the checkout's commit (+dirty if it has changes), or 'unknown' outside git."""
    if os.environ.get("DDBLAS_COMMIT"):
        return os.environ["DDBLAS_COMMIT"]
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=here, capture_output=True, text=True).stdout.strip()
        return sha + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def metadata(command: str, plan) -> dict:
    meta = dict(date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                command=command, commit=_git_commit(), ddblas=__version__,
                python=platform.python_version(), numpy=np.__version__,
                machine=platform.machine(), cpu=_cpu_model(), cpu_threads=get_cpu_threads(),
                compiler=introspect.cpu_compiler_identity(), plan=vars(plan))
    if gpu_available():
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(0)
        meta.update(gpu=props["name"].decode(), cupy=cupy.__version__,
                    cuda_driver=cupy.cuda.runtime.driverGetVersion(),
                    nvrtc=".".join(map(str, cupy.cuda.nvrtc.getVersion())))
    return meta


def _cell(value, fmt: str) -> str:
    if value is None:
        return ""
    if fmt == "%":
        return f"{100 * value:.0f}%"
    if fmt.endswith("x"):
        return f"{value:{fmt[:-1]}}x"
    if fmt in ("d", "s"):
        return {True: "yes", False: "no"}.get(value, value) if isinstance(value, bool) \
            else str(value)
    return f"{value:{fmt}}"


def _rendered(name: str, rows: list[dict]) -> tuple[str, list[str], list[list[str]]]:
    title, columns = TABLES[name]
    return (title, [h for _, h, _ in columns],
            [[_cell(r.get(k), f) for k, _, f in columns] for r in rows])


def text_table(name: str, rows: list[dict]) -> str:
    title, headers, cells = _rendered(name, rows)
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h)
              for i, h in enumerate(headers)]
    lines = [f"== {title}", "  ".join(h.rjust(w) for h, w in zip(headers, widths))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def markdown_table(name: str, rows: list[dict]) -> str:
    title, headers, cells = _rendered(name, rows)
    lines = [f"**{title}**", "", "| " + " | ".join(headers) + " |",
             "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    return "\n".join(lines)


def _summary_lines(results) -> list[str]:
    s, lines = results["summary"], []
    if "cublas_dgemm_gflops" in s:
        lines.append(f"cuBLAS DGEMM (N = 8192): {s['cublas_dgemm_gflops']:.0f} GFLOP/s; PCIe "
                     f"host-to-device {s['pcie_gbs']:.1f} GB/s; transfer/compute balance at "
                     f"N = {s['balance_n']:.0f}")
    if "pinned_h2d_gbs" in s:
        lines.append(f"pinned host-to-device {s['pinned_h2d_gbs']:.1f} GB/s, device-to-host "
                     f"{s['pinned_d2h_gbs']:.1f} GB/s; host staging copy {s['staging_gbs']:.1f} "
                     f"GB/s ({introspect.copy_threads()} threads)")
    return lines + results["notes"]


def _plot_libraries(rows, path):
    fig, ax = figure((8.5, 6))
    for library, engine in dict.fromkeys((r["library"], r["engine"]) for r in rows):
        mine = sorted((r for r in rows if (r["library"], r["engine"]) == (library, engine)),
                      key=lambda r: r["n"])
        ax.loglog([r["n"] for r in mine], [r["gflops"] for r in mine], "o-" if engine == "cpu"
                  else "s--", markersize=4, label=f"{library} ({engine})",
                  linewidth=2.5 if library.startswith("ddblas") else 1)
    ax.set_xscale("log", base=2)
    save_figure(fig, ax, path, "N (N×N×N)", "GFLOP/s (2N³ / time)",
          "Matrix product in ~106-bit or better precision (float64/DGEMM for reference)")


def _plot_fma(rows, path):
    kinds = ["madd ceiling", "rgemm"]
    devices = list(dict.fromkeys(r["device"] for r in rows))
    fig, ax = figure((3.5 + 2.5 * len(devices), 4.5))
    width, groups = 0.2, [(d, k) for d in devices for k in kinds]
    for j, name in enumerate(c for c in COLORS if c != "float64"):
        values = [next(r["rate"] for r in rows if (r["device"], r["kind"], r["variant"]) ==
                       (d, k, name)) for d, k in groups]
        ax.bar(np.arange(len(groups)) + (j - 1.5) * width, values, width, color=COLORS[name],
               label=name)
    ax.set_xticks(np.arange(len(groups)), [f"{d}\n{k}" for d, k in groups])
    ax.set_yscale("log")
    save_figure(fig, ax, path, "", "DD GFLOP/s", "FMA vs non-FMA, accurate vs sloppy add")


def _plot_forward_error(rows, path):
    fig, ax = figure((7, 5))
    for solver in dict.fromkeys(r["solver"] for r in rows):
        mine = sorted((r for r in rows if r["solver"] == solver), key=lambda r: r["kappa"])
        ax.loglog([r["kappa"] for r in mine], [max(r["forward_error"], 1e-40) for r in mine],
                  "o-", markersize=4, label=solver)
    kappas = sorted({r["kappa"] for r in rows})
    ax.loglog(kappas, [k * 2.0 ** -106 for k in kappas], "k:", label="κ u² (u² = 2⁻¹⁰⁶)")
    ax.loglog(kappas, [min(1.0, k * 2.0 ** -53) for k in kappas], "k--", linewidth=0.8,
              label="κ u (float64)")
    save_figure(fig, ax, path, "κ₂(A)", "forward error ‖x̂ − x‖∞ / ‖x‖∞",
                "Ax = b: forward error against the condition number")


def _plot_rgemm(tables, path):
    """rgemm's DD GFLOP/s against N per variant (CPU: all threads; GPU: the fastest algorithm
    and layout at each N), with each variant's in-register ceiling as a dotted line."""
    fig, ax = figure((8, 5))
    kernels = {"cpu": tables.get("rgemm-cpu") or [], "gpu": tables.get("rgemm-gpu") or []}
    for device, rows in kernels.items():
        for variant in dict.fromkeys(r["variant"] for r in rows):
            best = {}
            for r in rows:
                if r["variant"] == variant:
                    best[r["n"]] = max(best.get(r["n"], 0.0), r["gflops"])
            sizes = sorted(best)
            ax.loglog(sizes, [best[n] for n in sizes], "o-" if device == "cpu" else "s--",
                      color=COLORS[variant], markersize=4, label=f"{variant} ({device})")
            ceiling = [c["gflops"] for c in tables.get("ceilings") or []
                       if c["device"] == device and c["variant"] == variant
                       and c.get("threads") == (rows[0].get("threads"))]
            if ceiling and len(sizes) > 0:
                ax.hlines(ceiling[0], sizes[0], sizes[-1], colors=COLORS[variant],
                          linestyles=":", linewidth=1)
    ax.set_xscale("log", base=2)
    save_figure(fig, ax, path, "N (N×N×N)", "DD GFLOP/s (2N³ / time)",
                "rgemm per variant (dotted: in-register madd ceilings)")


def plots(results, prefix: str) -> list[str]:
    """The PNGs this run's tables allow; returns their paths."""
    import matplotlib
    matplotlib.use("Agg")
    made, tables = [], results["tables"]
    if tables.get("rgemm-cpu") or tables.get("rgemm-gpu"):
        made.append(prefix + "rgemm.png")
        _plot_rgemm(tables, made[-1])
    if tables.get("baselines"):
        made.append(prefix + "gflops.png")
        _plot_libraries(tables["baselines"], made[-1])
    if tables.get("fma-throughput"):
        made.append(prefix + "fma.png")
        _plot_fma(tables["fma-throughput"], made[-1])
    if tables.get("linalg-kappa"):
        made.append(prefix + "linalg-forward-error.png")
        _plot_forward_error(tables["linalg-kappa"], made[-1])
    return made


def markdown(results, images: list[str], relative_to: str) -> str:
    meta = results["meta"]
    head = (f"Generated by `{meta['command']}` on {meta['date']}, commit `{meta['commit']}`: "
            f"ddblas {meta['ddblas']}, Python {meta['python']}, NumPy {meta['numpy']}; CPU "
            f"{meta['cpu']} ({meta['cpu_threads']} threads, {meta['compiler']})")
    if "gpu" in meta:
        head += f"; GPU {meta['gpu']} (CuPy {meta['cupy']}, NVRTC {meta['nvrtc']})"
    out = [head + ".", ""]
    out += [f"- {line}" for line in _summary_lines(results)] + [""]
    for name, rows in results["tables"].items():
        if rows:
            out += [markdown_table(name, rows), ""]
    out += [f"![{os.path.basename(p)}]({os.path.relpath(p, relative_to)})" for p in images]
    return "\n".join(out).rstrip() + "\n"


def replace_section(path: str, section: str, text: str) -> None:
    """Put text between the `ddblas bench: <section>` markers of the file at path (appended
    with its markers if the file has none)."""
    begin, end = f"<!-- ddblas bench: {section} begin -->", f"<!-- ddblas bench: {section} end -->"
    block = f"{begin}\n{text}{end}"
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    new = pattern.sub(lambda _: block, old) if pattern.search(old) else \
        old.rstrip("\n") + ("\n\n" if old else "") + block + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)


def write(results, out_dir: str, doc: str | None = None, section: str | None = None) -> None:
    for name, rows in results["tables"].items():
        if rows:
            print(text_table(name, rows) + "\n")
    for line in _summary_lines(results):
        print(line)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "bench.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    with open(os.path.join(out_dir, "bench.csv"), "w", newline="") as f:
        keys = ["table", *dict.fromkeys(k for rows in results["tables"].values() for r in rows
                                        for k in r), "date", "commit", "cpu", "gpu"]
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        meta = {k: results["meta"].get(k) for k in ("date", "commit", "cpu", "gpu")}
        for name, rows in results["tables"].items():
            for r in rows:
                writer.writerow(dict(r, table=name, **meta))
    image_dir = os.path.dirname(os.path.abspath(doc)) if doc else out_dir
    prefix = os.path.join(image_dir, f"bench-{section or 'results'}-" if doc else "bench-")
    images = plots(results, prefix)
    report = markdown(results, images, out_dir)
    with open(os.path.join(out_dir, "bench.md"), "w") as f:
        f.write(report)
    if doc:
        replace_section(doc, section or "results",
                        markdown(results, images, os.path.dirname(os.path.abspath(doc))))
    print(f"wrote {out_dir}/bench.json, bench.csv, bench.md" +
          (f", {len(images)} plots" if images else "") + (f"; updated {doc}" if doc else ""),
          file=sys.stderr)
