import time
import numpy as np
import cupy
import ddblas
from ddblas.blas import ozaki as o
from ddblas.engines import backend as _backend

n = 8192
a = ddblas.random((n, n), seed=1, device="gpu") * 2 - 1
b = ddblas.random((n, n), seed=2, device="gpu") * 2 - 1
xp = cupy
def t(label, f, rep=3):
    f(); cupy.cuda.Device().synchronize()
    s = time.perf_counter()
    for _ in range(rep): r = f()
    cupy.cuda.Device().synchronize()
    print(f"{label}: {(time.perf_counter() - s) / rep * 1e3:.2f} ms", flush=True)
    return r
t("scan total", lambda: o.scan(a, b))
ra = t("line_stats A (rows)", lambda: o._line_stats(xp, a.hi, 1))
rb = t("line_stats B (cols)", lambda: o._line_stats(xp, b.hi, 0))
t("abs A", lambda: xp.abs(a.hi))
t("max axis1", lambda: xp.abs(a.hi).max(axis=1))
t("max axis0", lambda: xp.abs(b.hi).max(axis=0))
be = _backend.backend("gpu")
first = o.Plan(slices=1, beta=7, k=n)
da = t("int8 slices A", lambda: o.int8_slices(be, a, ra[0], first, n, reverse=False))
db = t("int8 slices B^T", lambda: o.int8_slices(be, b.T, rb[0], first, n, reverse=False))
p = xp.empty((n, n), dtype=np.int32)
t("int8 gemm", lambda: o.int8_gemm("gpu")(da, db, p))
live_r, live_c = ra[1] > 0, rb[1] > 0
t("live check", lambda: bool((live_r[:, None] & live_c[None, :] & (p == 0)).any()))
t("min positive", lambda: int(xp.where(p > 0, p, np.int32(2 ** 31 - 1)).min()))
t("first_digit_low", lambda: o._first_digit_low(be, a, b, ra[0], rb[0], live_r, live_c))
