"""One tall-and-skinny rgemm per width, for Nsight Compute (bench/device_run.sh profile-tsm):
A n x n, B n x k on the GPU, the default variant, a warm-up call first."""
import sys

import ddblas

n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
a = ddblas.random((n, n), seed=1, device="gpu")
for k in (1, 4, 16):
    b = ddblas.random((n, k), seed=2, device="gpu")
    for _ in range(2):
        ddblas.rgemm(a, b, algorithm="tsm")
