"""A SHA-256 of rgemm / rgemm_batched outputs over a fixed set of shapes, transposes, variants and
algorithms: structural changes must leave it unchanged (bit for bit the same results).

python bench/gemm_hash.py [cpu|gpu]   prints one line per algorithm and the overall hash.
Uses public names only, so it runs at any commit since rgemm_batched and ozaki-int8 exist. Its
operands come from its own generator (uniform_dd), fixed here so that changes to ddblas.random
leave the hash alone. The Ozaki rows of "all" use accuracy="bound" (the rule for S before the
accuracy-faithful default) where rgemm has that keyword; the lines after "all" hash the
default rule's Ozaki rows (accuracy="classic"), then scheme II's (ozaki2-int8, both rules,
where rgemm has it), to compare devices.
"""
import hashlib
import inspect
import sys

import numpy as np

import ddblas

SHAPES = [(1, 1, 1), (7, 5, 3), (33, 17, 65), (64, 64, 64), (130, 9, 257), (5, 200, 300),
          (96, 80, 1100)]
VARIANTS = [(True, "accurate"), (True, "sloppy"), (False, "accurate"), (False, "sloppy")]
ALGORITHMS = ["naive", "blocked", "tsm", "ozaki-fp64", "ozaki-int8", "auto"]


def uniform_dd(shape, seed, device):
    """Uniform DD values k * 2^-106 in [0, 1): hi + lo = top * 2^-53 + bottom * 2^-106 for two
    blocks of 53-bit integers drawn one after the other (ddblas.random's draws before 0.2)."""
    rng = np.random.default_rng(seed)
    top = rng.integers(0, 2 ** 53, size=shape, dtype=np.int64)
    bottom = rng.integers(0, 2 ** 53, size=shape, dtype=np.int64)
    # DDArray normalises the exact sum with two_sum: the pair fast_two_sum would give.
    x = ddblas.DDArray(np.ldexp(top.astype(np.float64), -53),
                       np.ldexp(bottom.astype(np.float64), -106))
    return x.to_device(device)


def operands(m, n, k, ta, tb, seed, device):
    a = uniform_dd((k, m) if ta == "T" else (m, k), seed, device)
    b = uniform_dd((n, k) if tb == "T" else (k, n), seed + 1, device)
    scale = uniform_dd((1,), seed + 2, device)
    return a * 3 - 1, b * scale - 0.5


def digest(h, x):
    x = x.to_device("cpu")
    h.update(np.ascontiguousarray(x.hi).tobytes())
    h.update(np.ascontiguousarray(x.lo).tobytes())


def algorithm_hash(algorithm, device, accuracy):
    """The hash of one algorithm's outputs over SHAPES x transposes x VARIANTS."""
    extra = {"accuracy": accuracy} if accuracy else {}
    h = hashlib.sha256()
    seed = 10
    for m, n, k in SHAPES:
        for ta, tb in (("N", "N"), ("T", "N"), ("N", "T")):
            for fma, add in VARIANTS:
                seed += 3
                a, b = operands(m, n, k, ta, tb, seed, device)
                c0 = uniform_dd((m, n), seed + 5, device)
                c = ddblas.rgemm(a, b, c0.copy(), alpha="0.3", beta="-1.25", transa=ta,
                                 transb=tb, fma=fma, add=add, algorithm=algorithm, **extra)
                digest(h, c)
    return h


def main(device):
    total = hashlib.sha256()
    rules = "accuracy" in inspect.signature(ddblas.rgemm).parameters
    for algorithm in ALGORITHMS:
        h = algorithm_hash(algorithm, device, "bound" if rules else None)
        print(f"{algorithm:12s} {h.hexdigest()[:16]}")
        total.update(h.digest())
    h = hashlib.sha256()
    for fma, add in VARIANTS:
        a = uniform_dd((50, 7, 9), 1, device)
        b = uniform_dd((9, 5), 2, device)
        digest(h, ddblas.rgemm_batched(a, b, fma=fma, add=add))
    print(f"{'batched':12s} {h.hexdigest()[:16]}")
    total.update(h.digest())
    print(f"{'all':12s} {total.hexdigest()[:16]}")
    if rules:
        for algorithm in ("ozaki-fp64", "ozaki-int8", "auto"):
            h = algorithm_hash(algorithm, device, "classic")
            print(f"{algorithm + ' (accuracy=classic)':33s} {h.hexdigest()[:16]}")
    if has_algorithm("ozaki2-int8", device):
        for rule in ("classic", "bound"):
            h = algorithm_hash("ozaki2-int8", device, rule)
            print(f"{'ozaki2-int8 (accuracy=' + rule + ')':33s} {h.hexdigest()[:16]}")


def has_algorithm(algorithm, device):
    """Whether this version of rgemm knows `algorithm`."""
    one = ddblas.ones((1, 1), device=device)
    try:
        ddblas.rgemm(one, one, algorithm=algorithm)
    except ValueError:
        return False
    return True


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cpu")
