"""One tall-and-skinny rgemm per width and variant, for Nsight Compute (bench/device_run.sh
profile-tsm): A n x n (row-major: the NN kernels), B n x k on the GPU, fma/accurate and
fma/sloppy, a warm-up call first.

    python3 bench/profile_tsm.py [n [k ...]]      (defaults: 8192, k = 1 4 16)
"""
import sys

import ddblas

n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
widths = [int(k) for k in sys.argv[2:]] or [1, 4, 16]
a = ddblas.random((n, n), seed=1, device="gpu")
for k in widths:
    b = ddblas.random((n, k), seed=2, device="gpu")
    for add in ("accurate", "sloppy"):
        for _ in range(2):
            ddblas.rgemm(a, b, algorithm="tsm", fma=True, add=add)
