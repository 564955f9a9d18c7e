"""`python -m ddblas accuracy [--quick] [--out-dir DIR]`: measure DD errors exactly against the
documented bounds and write DIR/accuracy.md with four PNG plots:

1. elementwise add, sub, mul, div, sqrt: max and median error per variant, and the bound;
2. rgemm componentwise error against K for the four variants and float64, with the bounds;
3. dot products: relative error against the condition number (2 ... 1e40) for float64 and the
   DD variants, with the u*cond and u^2*cond lines;
4. rgemm's algorithms: the classic kernel, ozaki-fp64 and ozaki-int8 against the exponent spread
   within the rows of A and columns of B (with the Ozaki schemes' S or fallback), with the bound;
5. rgemm's algorithms against N (square products, sampled entries): the classic kernel, both
   Ozaki schemes under both rules for S (accuracy="classic", the default, and "bound") and
   "auto", with S, the time and the ratio to the classic kernel's error, on the GPU when
   present (N up to 16384) else on the CPU (smaller N).
Cases 1-4 run on the CPU and, when present, on the GPU (results must agree bit for bit; GPU
points are drawn over the CPU ones). Returns 1 (and prints the worst case) if any error exceeds
its bound or the devices disagree, else 0.
"""
from __future__ import annotations

import datetime
import math
import os
import platform
from fractions import Fraction

import numpy as np

from ddblas import (DDArray, Options, __version__, accuracy, add, divide, dot, gpu_available,
                    multiply, random, rgemm, sqrt, subtract)

from .timing import time_on

VARIANTS = [Options(True, "accurate"), Options(True, "sloppy"), Options(False, "accurate"),
            Options(False, "sloppy")]
COLORS = {"fma/accurate": "tab:blue", "fma/sloppy": "tab:orange", "nofma/accurate": "tab:green",
          "nofma/sloppy": "tab:red", "float64": "black"}
# Variants often give identical errors: each series has its own marker, line style and a small
# shift along x (a factor SHIFT per series, on log axes), so that none hides another.
MARKERS = {"fma/accurate": ("o", "-"), "fma/sloppy": ("s", "--"), "nofma/accurate": ("^", "-."),
           "nofma/sloppy": ("v", ":"), "float64": ("D", "-")}
SHIFT = 1.04
OPS = ["add", "sub", "mul", "div", "sqrt"]
ALGORITHMS = {"blocked": "tab:blue", "ozaki-fp64": "tab:purple",  # rgemm's, as plotted
              "ozaki-int8": "tab:orange", "ozaki2-int8": "tab:green"}
U2 = float(accuracy.U2)
# Section 5's series: (label, rgemm keywords), and the rows and columns of C checked exactly
SIZE_SERIES = [("classic (blocked)", dict(algorithm="blocked")),
               ("ozaki-fp64", dict(algorithm="ozaki-fp64")),
               ("ozaki-fp64, accuracy=bound", dict(algorithm="ozaki-fp64", accuracy="bound")),
               ("ozaki-int8", dict(algorithm="ozaki-int8")),
               ("ozaki-int8, accuracy=bound", dict(algorithm="ozaki-int8", accuracy="bound")),
               ("ozaki2-int8", dict(algorithm="ozaki2-int8")),
               ("ozaki2-int8, accuracy=bound", dict(algorithm="ozaki2-int8", accuracy="bound")),
               ("auto (default)", dict(algorithm="auto"))]
SIZE_SAMPLES = 8


def _plan_size(info) -> str | None:
    """An Ozaki plan's size as the tables show it: "S = 6" (scheme I) or "L = 32" (scheme II),
    None where no Ozaki scheme ran."""
    if not info.get("algorithm", "").startswith("ozaki"):
        return None
    return f"S = {info['slices']}" if "slices" in info else f"L = {info['moduli']}"


def _own_bound(info, kw) -> float | None:
    """The default rule's own bound of the Ozaki scheme that ran (None: none ran, or
    accuracy="bound", whose bound is the classic one)."""
    if kw.get("accuracy", "classic") != "classic" or _plan_size(info) is None:
        return None
    return accuracy.bound("ozaki", Options(), info["slices"]) if "slices" in info else \
        accuracy.bound("ozaki2", Options())


def _name(v: Options) -> str:
    return f"{'fma' if v.fma else 'nofma'}/{v.add}"


def _same(x: DDArray, y: DDArray) -> bool:
    x, y = x.to_device("cpu"), y.to_device("cpu")
    return bool(np.array_equal(x.hi, y.hi, equal_nan=True) and np.array_equal(x.lo, y.lo,
                                                                            equal_nan=True))


class _Checks:
    """Collects every measurement's verdict; the worst violation decides the exit code."""

    def __init__(self):
        self.failures = []

    def bound(self, what: str, measured: float, limit: float):
        if not measured <= limit:
            self.failures.append((measured / limit, f"{what}: error {measured:.4g} u^2 exceeds "
                                                    f"the bound {limit:.4g}"))

    def devices(self, what: str, cpu: DDArray, gpu: DDArray):
        if not _same(cpu, gpu):
            self.failures.append((math.inf, f"{what}: CPU and GPU results differ"))

    def worst(self) -> str:
        return max(self.failures)[1]


def _elementwise(n, devices, checks, progress):
    a = accuracy.random_dd(n, exponents=(-20, 20), seed=11)
    b = accuracy.random_dd(n, exponents=(-20, 20), seed=12)
    ea, eb = accuracy.exact_values(a), accuracy.exact_values(b)
    positive = abs(a)
    with_mpmath = _sqrt_references(accuracy.exact_values(positive))
    exact = {"add": [x + y for x, y in zip(ea, eb)], "sub": [x - y for x, y in zip(ea, eb)],
             "mul": [x * y for x, y in zip(ea, eb)], "div": [x / y for x, y in zip(ea, eb)],
             "sqrt": with_mpmath}
    scale = {"add": [abs(x) + abs(y) for x, y in zip(ea, eb)]}
    scale["sub"] = scale["add"]
    compute = {"add": lambda v, x, y: add(x, y, fma=v.fma, add=v.add),
               "sub": lambda v, x, y: subtract(x, y, fma=v.fma, add=v.add),
               "mul": lambda v, x, y: multiply(x, y, fma=v.fma, add=v.add),
               "div": lambda v, x, y: divide(x, y, fma=v.fma, add=v.add),
               "sqrt": lambda v, x, y: sqrt(abs(x), fma=v.fma, add=v.add)}
    rows = []
    for op in OPS:
        for v in VARIANTS:
            results = {d: compute[op](v, a.to_device(d), b.to_device(d)) for d in devices}
            if "gpu" in results:
                checks.devices(f"{op} {_name(v)}", results["cpu"], results["gpu"])
            sloppy_add = op in ("add", "sub") and v.add == "sloppy"
            denominators = scale[op] if sloppy_add else [abs(w) for w in exact[op]]
            limit = accuracy.bound(op, v)
            row = dict(op=op, variant=_name(v), bound=limit,
                       measure="\\|a\\|+\\|b\\|" if sloppy_add else "relative")
            for device, result in results.items():
                errors = np.array([accuracy.ratio_u2(abs(g - w), d) for g, w, d in zip(
                    accuracy.exact_values(result), exact[op], denominators)])
                checks.bound(f"{op} {_name(v)} ({device})", float(errors.max()), limit)
                row[device] = float(errors.max())
                row[device + "_median"] = float(np.median(errors))
            rows.append(row)
            progress.update()
    return rows


def _sqrt_references(values):
    """sqrt of each exact value from mpmath at 320 bits, as exact Fractions (their own error,
    2^-320 relative, is far below u^2)."""
    import mpmath
    with mpmath.workprec(320):
        return [accuracy.exact_value(mpmath.sqrt(mpmath.mpf(q.numerator) / q.denominator))
                for q in values]


def _gemm(ks, m, devices, checks, progress):
    rows = []
    for k in ks:
        a = accuracy.random_dd((m, k), exponents=(-5, 5), seed=k)
        b = accuracy.random_dd((k, m), exponents=(-5, 5), seed=k + 1)
        for v in VARIANTS:
            results = {d: rgemm(a.to_device(d), b.to_device(d), fma=v.fma, add=v.add,
                                algorithm="blocked") for d in devices}
            if "gpu" in results:
                checks.devices(f"rgemm K={k} {_name(v)}", results["cpu"], results["gpu"])
            row = dict(k=k, variant=_name(v), bound=accuracy.bound("gemm", v, k=k))
            for device, result in results.items():
                row[device] = accuracy.gemm_error(result, a, b).max
                checks.bound(f"rgemm K={k} {_name(v)} ({device})", row[device], row["bound"])
            rows.append(row)
            progress.update()
        hi_a, hi_b = np.asarray(a.hi), np.asarray(b.hi)
        rows.append(dict(k=k, variant="float64", cpu=accuracy.gemm_error(hi_a @ hi_b, hi_a, hi_b).max,
                         bound=k / (1 - k * 2.0 ** -53) * 2.0 ** 53))  # gamma_K / u^2
        progress.update()
    return rows


def _algorithms(spreads, m, ks, devices, checks, progress):
    """The classic kernel ("blocked") and the Ozaki schemes at the default variant on A (m x K) and
    B (K x m) whose entries spread over 2^[-e, e] within every row of A and column of B."""
    rows = []
    for k, e in ((k, e) for k in ks for e in spreads):
        limit = accuracy.bound("gemm", Options(), k=k)
        a = accuracy.random_dd((m, k), exponents=(-e, e), seed=200 + e + k)
        b = accuracy.random_dd((k, m), exponents=(-e, e), seed=300 + e + k)
        for algorithm in ALGORITHMS:
            infos = {d: {} for d in devices}
            results = {d: rgemm(a.to_device(d), b.to_device(d), algorithm=algorithm,
                                info=infos[d]) for d in devices}
            what = f"rgemm {algorithm} K={k} spread 2^±{e}"
            if "gpu" in results:
                checks.devices(what, results["cpu"], results["gpu"])
            info = infos["cpu"]
            row = dict(k=k, spread=e, variant=algorithm, bound=limit,
                       slices=_plan_size(info) if info["algorithm"] == algorithm != "blocked"
                       else None,
                       fallback=info.get("fallback"))
            for device, result in results.items():
                row[device] = accuracy.gemm_error(result, a, b).max
                checks.bound(f"{what} ({device})", row[device], limit)
            rows.append(row)
            progress.update()
    return rows


def _against_n(sizes, device, checks, progress):
    """Section 5: every SIZE_SERIES entry on uniform A, B in [-1, 1) (N x N, all 106 bits
    random) on `device`; the error of SIZE_SAMPLES x SIZE_SAMPLES entries of C (exact), S, the
    time of one call (after a warm-up of each series on the smallest N)."""
    rows = []
    warm = random((64, 64), seed=1, device=device)
    for _, kw in SIZE_SERIES:
        rgemm(warm, warm, **kw)
    for n in sizes:
        try:
            a = random((n, n), seed=400 + n, device=device) * 2 - 1
            b = random((n, n), seed=500 + n, device=device) * 2 - 1
        except MemoryError as exc:   # the operands themselves: every series' row says so
            rows += [dict(n=n, series=label, error=None, note=f"out of memory ({exc})")
                     for label, _ in SIZE_SERIES]
            progress.update(len(SIZE_SERIES))
            continue
        picks = list(range(0, n, max(1, n // SIZE_SAMPLES)))[:SIZE_SAMPLES]
        limit = accuracy.bound("gemm", Options(), k=n)
        classic = None
        for label, kw in SIZE_SERIES:
            info = {}
            try:
                c = rgemm(a, b, info=info, **kw)
                seconds = time_on(device, lambda: rgemm(a, b, **kw), 1)
            except MemoryError as exc:   # cupy's OutOfMemoryError is a MemoryError
                rows.append(dict(n=n, series=label, error=None, note=f"out of memory ({exc})"))
                progress.update()
                continue
            error = accuracy.gemm_error(c, a, b, rows=picks, cols=picks).max
            del c
            ran = info.get("algorithm", kw["algorithm"])
            own = _own_bound(info, kw) or limit
            checks.bound(f"rgemm {label} N={n} ({device})", error, min(limit, own))
            classic = error if label.startswith("classic") else classic
            rows.append(dict(n=n, series=label, error=error, bound=min(limit, own),
                             ratio=error / classic if classic else None, ran=ran,
                             slices=_plan_size(info),
                             seconds=seconds, gflops=2 * n ** 3 / seconds / 1e9, note=""))
            progress.update()
    return rows


def _dot(conds, n, devices, checks, progress):
    rows = []
    for i, cond in enumerate(conds):
        x, y = accuracy.ill_conditioned_dot(n, cond, dd=False, seed=100 + i)
        actual = accuracy.dot_condition(x, y)
        ex, ey = accuracy.exact_values(x), accuracy.exact_values(y)
        exact = sum(p * q for p, q in zip(ex, ey))
        magnitude = sum(abs(p * q) for p, q in zip(ex, ey))
        f64 = Fraction(float(np.dot(np.asarray(x.hi), np.asarray(y.hi))))
        rows.append(dict(cond=actual, variant="float64", cpu=float(abs(f64 - exact) / abs(exact))))
        for v in VARIANTS:
            results = {d: dot(x.to_device(d), y.to_device(d), fma=v.fma, add=v.add)
                       for d in devices}
            if "gpu" in results:
                checks.devices(f"dot cond={actual:.3g} {_name(v)}", results["cpu"], results["gpu"])
            row = dict(cond=actual, variant=_name(v))
            for device, result in results.items():
                got = accuracy.exact_values(result)[0]
                checks.bound(f"dot cond={actual:.3g} {_name(v)} ({device}; error / sum|x y|)",
                             accuracy.ratio_u2(abs(got - exact), magnitude),
                             accuracy.bound("dot", v, k=n))
                row[device] = float(abs(got - exact) / abs(exact))
            rows.append(row)
            progress.update()
    return rows


def figure(size):
    """A new matplotlib figure and axes of `size` inches."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=size)
    return fig, ax


def save_figure(fig, ax, path, xlabel, ylabel, title):
    """Label, lay out and write a figure to `path` (PNG, 120 dpi), then close it."""
    import matplotlib.pyplot as plt
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_elementwise(rows, path):
    fig, ax = figure((9, 4.5))
    width = 0.2
    for j, v in enumerate(VARIANTS):
        name = _name(v)
        mine = [r for r in rows if r["variant"] == name]
        xs = np.arange(len(OPS)) + (j - 1.5) * width
        ax.bar(xs, [max(r["cpu"], 1e-3) for r in mine], width, color=COLORS[name], label=name)
        ax.plot(xs, [max(r["cpu_median"], 1e-3) for r in mine], "w.", markersize=6)
        if "gpu" in mine[0]:
            ax.plot(xs, [max(r["gpu"], 1e-3) for r in mine], "kx", markersize=6,
                    label="GPU max" if j == 0 else None)
        ax.hlines([r["bound"] for r in mine], xs - width / 2, xs + width / 2, colors="black")
    ax.set_xticks(np.arange(len(OPS)), OPS)
    ax.set_yscale("log")
    save_figure(fig, ax, path, "", "error / u²  (bar: CPU max, dot: median, line: bound)",
          "Elementwise DD operations (sloppy add/sub: error relative to |a|+|b|)")


def _series(ax, rows, x_key, floor, top=None):
    """One line per variant (CPU), each with its marker and style and shifted a little along x
    (MARKERS, SHIFT), the GPU's values as crosses, and thin bounds if any. Values are kept
    inside [floor, top]: those beyond top are drawn at top as hollow markers ("off the axis")."""
    clipped_label = "beyond the axis (drawn at its top)"
    for j, (name, color) in enumerate(COLORS.items()):
        mine = sorted((r for r in rows if r["variant"] == name), key=lambda r: r[x_key])
        xs = np.array([r[x_key] for r in mine], dtype=float) * SHIFT ** (j - (len(COLORS) - 1) / 2)
        marker, style = MARKERS[name]
        cpu = np.array([r["cpu"] for r in mine], dtype=float)
        ax.loglog(xs, np.clip(cpu, floor, top), marker=marker, linestyle=style, color=color,
                  label=name, markersize=5, markerfacecolor="none" if j % 2 else color)
        if top is not None and (cpu > top).any():
            ax.loglog(xs[cpu > top], np.full((cpu > top).sum(), top), marker=marker,
                      linestyle="none", color=color, markersize=11, markerfacecolor="none",
                      label=clipped_label)
            clipped_label = None
        if "gpu" in mine[0]:
            gpu = np.array([r["gpu"] for r in mine], dtype=float)
            ax.loglog(xs, np.clip(gpu, floor, top), "x", color="black", markersize=7,
                      label="GPU" if name == "fma/accurate" else None)
        if "bound" in mine[0]:
            ax.loglog(xs, [r["bound"] for r in mine], "--", color=color, linewidth=0.8)


def _plot_gemm(rows, path):
    fig, ax = figure((7, 4.5))
    _series(ax, rows, "k", 1e-3)
    save_figure(fig, ax, path, "K", "max |C − C_exact| / (|A||B|)  in u²",
          "rgemm componentwise error (dashed: proven bounds)")


def _plot_dot(rows, path):
    fig, ax = figure((7, 4.5))
    top = 1e3
    _series(ax, rows, "cond", 1e-40, top)
    conds = np.logspace(0, 41, 50)
    ax.loglog(conds, np.minimum(2.0 ** -53 * conds, top), "k:", label="u·cond")
    ax.loglog(conds, np.minimum(U2 * conds, top), "k--", label="u²·cond")
    ax.set_ylim(1e-41, top * 30)  # room for the markers drawn at the top
    save_figure(fig, ax, path, "condition number 2 Σ|x_i y_i| / |Σ x_i y_i|",
          "relative error of the dot product",
          "Dot products (Ogita–Rump–Oishi generator, float64 inputs)")


def _plot_algorithms(rows, path):
    fig, ax = figure((7, 4.5))
    for k, style in zip(sorted({r["k"] for r in rows}), ("-", ":")):
        for name, color in ALGORITHMS.items():
            mine = [r for r in rows if r["variant"] == name and r["k"] == k]
            xs = [r["spread"] for r in mine]
            ax.semilogy(xs, [max(r["cpu"], 1e-3) for r in mine], "o" + style, color=color,
                        markersize=4, label=("classic (blocked)" if name == "blocked" else name)
                        + f", K = {k}")
            if "gpu" in mine[0]:
                ax.semilogy(xs, [max(r["gpu"], 1e-3) for r in mine], "x", color="black",
                            markersize=7, label="GPU" if name == "blocked" else None)
            if name != "blocked":
                for r in mine:
                    ax.annotate(r["slices"].replace(" ", "") if r["slices"] else "fallback",
                                (r["spread"], max(r["cpu"], 1e-3)), textcoords="offset points",
                                xytext=(0, (-12 if style == "-" else 6)
                                        * (1 + list(ALGORITHMS).index(name) // 2)), ha="center",
                                fontsize=7, color=color)
        ax.semilogy(xs, [mine[0]["bound"]] * len(xs), "k" + ("--" if style == "-" else ":"),
                    linewidth=0.8, label=f"bound, K = {k}")
    save_figure(fig, ax, path, "e: entries spread over 2^[-e, e] within rows of A / columns of B",
          "max |C − C_exact| / (|A||B|)  in u²",
          "rgemm algorithms against the exponent spread (fma/accurate)")


def _plot_against_n(rows, device, path):
    fig, ax = figure((7, 4.5))
    colors = ["tab:blue", "tab:purple", "tab:purple", "tab:orange", "tab:orange", "tab:green",
              "tab:green", "black"]
    for j, ((label, kw), color) in enumerate(zip(SIZE_SERIES, colors)):
        mine = [r for r in rows if r["series"] == label and r["error"] is not None]
        shift = SHIFT ** (j - (len(SIZE_SERIES) - 1) / 2)  # equal errors stay apart along x
        ax.loglog([r["n"] * shift for r in mine], [max(r["error"], 1e-3) for r in mine],
                  "o" + (":" if kw.get("accuracy") == "bound" else "-"), color=color,
                  markersize=4 if label.startswith("auto") else 5, label=label, base=2)
    ns = sorted({r["n"] for r in rows})
    ax.loglog(ns, [accuracy.bound("gemm", Options(), k=n) for n in ns], "k--", linewidth=0.8,
              label="classic bound", base=2)
    save_figure(fig, ax, path, "N (A, B: N × N, entries uniform in [−1, 1))",
                "max sampled |C − C_exact| / (|A||B|)  in u²",
                f"rgemm algorithms against N ({device}, fma/accurate)")


def _against_n_table(rows) -> list:
    lines = ["| N | series | ran | S / L | error (u²) | / classic | bound | time (s) | GFLOP/s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["error"] is None:
            lines.append(f"| {r['n']} | {r['series']} | | | {r['note']} | | | | |")
            continue
        lines.append(f"| {r['n']} | {r['series']} | {r['ran']} | {r['slices'] or ''} | "
                     f"{r['error']:.3g} | {r['ratio']:.2g} | {r['bound']:.4g} | "
                     f"{r['seconds']:.3g} | {r['gflops']:.4g} |")
    return lines


def _device_line(devices) -> str:
    line = f"CPU: {platform.processor() or platform.machine()} ({os.cpu_count()} cores)"
    if "gpu" in devices:
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(0)
        line += f"; GPU: {props['name'].decode()} (CuPy {cupy.__version__})"
    return line


def _variant_table(rows, key, title, cell) -> list:
    """A markdown table: one row per value of `key`, one column per variant (CPU figures)."""
    lines = [f"| {title} | " + " | ".join(COLORS) + " |", "|---|" + "---|" * len(COLORS)]
    for x in sorted({r[key] for r in rows}):
        cells = [cell(next(r for r in rows if r[key] == x and r["variant"] == n)) for n in COLORS]
        lines.append(f"| {x:.3g} | " + " | ".join(cells) + " |")
    return lines


def _algorithm_table(rows) -> list:
    ozaki = [name for name in ALGORITHMS if name != "blocked"]
    lines = ["| K | spread e | classic (blocked) | " + " | ".join(
        f"{name} | {name} S / L or fallback" for name in ozaki) + " | bound |",
        "|---|---|---|" + "---|---|" * len(ozaki) + "---|"]
    for k, e in sorted({(r["k"], r["spread"]) for r in rows}):
        mine = {r["variant"]: r for r in rows if (r["k"], r["spread"]) == (k, e)}
        cells = []
        for name in ozaki:
            r = mine[name]
            cells.append(f"{r['cpu']:.3g} | " + (r["slices"] if r["slices"]
                                                   else f"fallback: {r['fallback']}"))
        lines.append(f"| {k} | {e} | {mine['blocked']['cpu']:.3g} | " + " | ".join(cells)
                     + f" | {mine['blocked']['bound']:.4g} |")
    return lines


def _markdown(element_rows, gemm_rows, dot_rows, algorithm_rows, size_rows, sizes, devices,
              command, checks) -> str:
    import mpmath
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        "# Accuracy of ddblas",
        "",
        f"Generated by `{command}` on {now}: ddblas {__version__}, NumPy {np.__version__}, "
        f"mpmath {mpmath.__version__}; {_device_line(devices)}. Devices measured: "
        f"{', '.join(devices)}" + (" (every result bitwise equal on both)." if len(devices) > 1
                                   else "."),
        "Errors are exact (rational arithmetic; sqrt against mpmath at 320 bits), in units of "
        "u² = 2^-106; bounds from `ddblas.accuracy.bound` (derivations in "
        "[algorithms.md](algorithms.md)). Verdict: " +
        ("**every error within its bound**." if not checks.failures else
         f"**{len(checks.failures)} violations**, the worst: {checks.worst()}"),
        "",
        "## Elementwise operations",
        "",
        "Random DD operands with all 106 bits set, exponents in [-20, 20], mixed signs "
        f"(n = {sizes['elementwise']} per case); sqrt of |a|. "
        "Relative error, except the sloppy add/sub whose bound is relative to |a| + |b|.",
        "",
        "![elementwise](accuracy-elementwise.png)",
        "",
        "| op | variant | max | median | bound | measured against |",
        "|---|---|---|---|---|---|",
    ]
    out += [f"| {r['op']} | {r['variant']} | {r['cpu']:.3g} | {r['cpu_median']:.3g} | "
            f"{r['bound']:.4g} | {r['measure']} |" for r in element_rows]
    out += ["", "## rgemm against K", "",
            f"C = A·B with A {sizes['gemm_m']}×K, B K×{sizes['gemm_m']}, random DD entries "
            "(exponents in [-5, 5]); "
            "componentwise error |C − C_exact| / (|A||B|), max over C. float64: NumPy's GEMM of "
            "the hi parts against their own exact product, bound γ_K = Ku/(1 − Ku).", "",
            "![gemm](accuracy-gemm.png)", "",
            ]
    out += _variant_table(gemm_rows, "k", "K", lambda r: f"{r['cpu']:.3g} (≤ {r['bound']:.3g})")
    out += ["", "## rgemm algorithms against the exponent range within rows", "",
            f"C = A·B with A {sizes['gemm_m']}×K, B K×{sizes['gemm_m']} "
            f"(K = {', '.join(map(str, sizes['spread_ks']))}), random DD entries times 2^e, e uniform in [−spread, spread] "
            "per entry, so each row of A and column of B spans about 2^(2·spread); default "
            "variant (fma/accurate). The classic kernel (`algorithm=\"blocked\"`), ozaki-fp64 "
            "and ozaki-int8 (docs/ozaki.md): their S grows with the spread (the slices must "
            "reach the small entries) until they need more than 16 (fp64) or 32 (int8) or an "
            "entry lies more than 2^450 below its row's largest, and they fall back to the "
            "classic kernel (then the columns are the same result); ozaki2-int8 (scheme II): "
            "its operands' bits, and so its moduli L, grow with the spread until it needs "
            "more than 160 bits or 40 moduli. Componentwise error, max "
            "over C; all are proven within the same bound. The Ozaki schemes run with the "
            "default rule (accuracy=\"classic\": the slices' truncation at most u² (|A||B|)ij, "
            "docs/ozaki.md).", "",
            "![algorithms](accuracy-ozaki.png)", ""]
    out += _algorithm_table(algorithm_rows)
    device = sizes["n_device"]
    out += ["", "## rgemm algorithms against N", "",
            f"C = A·B, A and B N×N with entries uniform in [−1, 1) (all 106 bits random), on "
            f"the {device.upper()}; the error of {SIZE_SAMPLES}×{SIZE_SAMPLES} sampled entries of "
            "C, exact; the time of one call after a warm-up. The Ozaki schemes under both rules "
            "for S (scheme II: for its bits and so L): accuracy=\"classic\" (the default: the "
            "truncation at most u² (|A||B|)ij, bound `accuracy.bound(\"ozaki\", variant, S)`, "
            "`accuracy.bound(\"ozaki2\")`) and "
            "accuracy=\"bound\" (the fewest slices that meet the classic bound, the rule "
            "before; faster, and at large N up to ~100× less accurate than the classic "
            "kernel). \"/ classic\": the ratio to the classic kernel's error on the same "
            "entries.", "", "![against N](accuracy-ozaki-n.png)", ""]
    out += _against_n_table(size_rows)
    out += ["", "## Dot products against the condition number", "",
            f"x, y of length {sizes['dot_n']} from `accuracy.ill_conditioned_dot(..., dd=False)` "
            "(float64 entries, so float64 and DD compute the same exact dot product); relative "
            "error. float64 loses all digits near cond = 1/u ≈ 1e16, DD near 1/u² ≈ 1e32.", "",
            "![dot](accuracy-dot.png)", ""]
    out += _variant_table(dot_rows, "cond", "cond", lambda r: f"{r['cpu']:.2g}")
    out += ["", _OWN_STUDY]
    return "\n".join(out) + "\n"


_OWN_STUDY = """## Your own accuracy study

```python
import mpmath, ddblas
from ddblas import accuracy

a = accuracy.hilbert(12)                                   # or your DDArray, ddblas.array(...)
b = accuracy.random_dd((12, 5), exponents=(-10, 10), seed=1)
for variant in ["fma/accurate", "fma/sloppy", "nofma/accurate", "nofma/sloppy"]:
    fma, add = variant.split("/")
    c = ddblas.rgemm(a, b, fma=fma == "fma", add=add)
    err = accuracy.gemm_error(c, a, b)                     # exact, in units of u^2
    print(variant, err, "bound", accuracy.bound("gemm", variant, k=a.shape[1]))

x = accuracy.random_dd(1000, seed=2)                       # elementwise: pass exact references
with mpmath.workprec(256):
    ref = [mpmath.sqrt(abs(v)) for v in x.to_mpmath()]
print(accuracy.error(ddblas.sqrt(abs(x)), ref))
```

`accuracy.ill_conditioned_dot(n, cond)` and `accuracy.ill_conditioned_matrix(n, cond)` generate
inputs of a chosen condition number (`dot_condition`, `matrix_condition` measure it exactly);
`accuracy.vandermonde(x)` builds Vandermonde matrices from exact rationals.

References are taken exactly; an mpmath constant (`mpmath.pi`) is refused with a TypeError:
evaluate it at the precision you need (`with mpmath.workprec(256): ref = +mpmath.pi`), since
mpmath's default 53 bits would be scored as the DD result's error. `exact_value` refuses values
whose exact form would be unbounded in size (mpmath numbers beyond 2^±332193, decimals beyond
10^±100000); `error` and `gemm_error` still score them, exactly: against a reference that far out
any finite result has relative error 1 (2^106 u²), or inf below 2^-332193 unless it is 0."""

def run(quick: bool = False, out_dir: str = "ddblas-accuracy",
        command: str = "python -m ddblas accuracy", n_sizes=None) -> int:
    """Measure, write out_dir/accuracy.md and the plots; n_sizes: section 5's N (default by
    device and `quick`). Returns 1 if any error exceeds its bound or the devices disagree."""
    try:
        import matplotlib
        from tqdm import tqdm
    except ImportError as exc:
        raise SystemExit(f"python -m ddblas accuracy needs matplotlib and tqdm ({exc}): "
                         "pip install 'ddblas[accuracy]', or pip install '.[accuracy]' in a "
                         "source checkout") from None
    matplotlib.use("Agg")
    devices = ["cpu", "gpu"] if gpu_available() else ["cpu"]
    sizes = dict(zip(("elementwise", "gemm_m", "dot_n", "spread_ks"),
                     (2000, 4, 20, (64,)) if quick else (20000, 8, 50, (256, 4096))))
    sizes["n_device"] = devices[-1]
    if n_sizes is None:
        n_sizes = {("cpu", True): (128, 256), ("cpu", False): (256, 512, 1024),
                   ("gpu", True): (1024, 2048),
                   ("gpu", False): (1024, 2048, 4096, 8192, 16384)}[devices[-1], quick]
    spreads = [0, 20, 50, 100, 200, 300]
    ks = [16, 64, 256] if quick else [16, 64, 256, 1024, 4096, 8192]
    conds = [2.0] + [10.0 ** e for e in ((10, 20, 30, 40) if quick else range(2, 41, 2))]
    checks = _Checks()
    total = (len(OPS) * len(VARIANTS) + len(ks) * (len(VARIANTS) + 1)
             + len(conds) * len(VARIANTS)
             + len(sizes["spread_ks"]) * len(spreads) * len(ALGORITHMS)
             + len(n_sizes) * len(SIZE_SERIES))
    with tqdm(total=total, desc="accuracy", unit="case") as progress:
        element_rows = _elementwise(sizes["elementwise"], devices, checks, progress)
        gemm_rows = _gemm(ks, sizes["gemm_m"], devices, checks, progress)
        dot_rows = _dot(conds, sizes["dot_n"], devices, checks, progress)
        algorithm_rows = _algorithms(spreads, sizes["gemm_m"], sizes["spread_ks"], devices,
                                     checks, progress)
        size_rows = _against_n(n_sizes, devices[-1], checks, progress)
    os.makedirs(out_dir, exist_ok=True)
    _plot_elementwise(element_rows, os.path.join(out_dir, "accuracy-elementwise.png"))
    _plot_gemm(gemm_rows, os.path.join(out_dir, "accuracy-gemm.png"))
    _plot_dot(dot_rows, os.path.join(out_dir, "accuracy-dot.png"))
    _plot_algorithms(algorithm_rows, os.path.join(out_dir, "accuracy-ozaki.png"))
    _plot_against_n(size_rows, devices[-1], os.path.join(out_dir, "accuracy-ozaki-n.png"))
    with open(os.path.join(out_dir, "accuracy.md"), "w") as f:
        f.write(_markdown(element_rows, gemm_rows, dot_rows, algorithm_rows, size_rows, sizes,
                          devices, command, checks))
    print(f"wrote {os.path.join(out_dir, 'accuracy.md')} and 5 plots")
    if checks.failures:
        print(f"{len(checks.failures)} violations; the worst: {checks.worst()}")
        return 1
    worst = max([r["cpu"] / r["bound"] for r in element_rows + algorithm_rows
                 + [g for g in gemm_rows if g["variant"] != "float64"]]
                + [r["error"] / r["bound"] for r in size_rows if r["error"] is not None])
    print(f"every error within its bound (worst error/bound ratio {worst:.3f})")
    return 0
