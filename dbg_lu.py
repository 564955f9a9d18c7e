import collections, logging, time
import cupy
import ddblas
from ddblas import linalg, accuracy
from ddblas.blas import gemm as _gemm

spent = collections.defaultdict(float)
count = collections.Counter()
for name, runner in list(_gemm.RUNNERS.items()):
    def wrapped(call, plan, runner=runner, name=name):
        cupy.cuda.Device().synchronize(); s = time.perf_counter()
        runner(call, plan)
        cupy.cuda.Device().synchronize()
        spent[(name, call.m >= 4096)] += time.perf_counter() - s
        count[(name, call.m >= 4096)] += 1
    _gemm.RUNNERS[name] = wrapped
choices = []
class H(logging.Handler):
    def emit(self, r):
        m = r.getMessage()
        if "chose" in m: choices.append(m[:160])
logging.getLogger("ddblas").addHandler(H()); logging.getLogger("ddblas").setLevel(logging.DEBUG)
for n in (8192, 16384):
    a = accuracy.random_dd((n, n), seed=1, device="gpu")
    spd = ddblas.rgemm(a, a, transb="T") + ddblas.eye(n, device="gpu") * n
    for f, x in (("lu_factor", a), ("cholesky", spd)):
        spent.clear(); count.clear(); choices.clear()
        cupy.cuda.Device().synchronize(); s = time.perf_counter()
        getattr(linalg, f)(x)
        cupy.cuda.Device().synchronize(); total = time.perf_counter() - s
        print(f"n={n} {f}: {total:.3f} s; rgemm by (algorithm, M>=4096): " +
              ", ".join(f"{k}: {count[k]} calls {v:.3f} s" for k, v in sorted(spent.items())))
        for c in choices[:6]: print("   ", c)
