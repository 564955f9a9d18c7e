import ddblas
n = 4096
a = ddblas.random((n, n), seed=1, device="gpu") * 2 - 1
b = ddblas.random((n, n), seed=2, device="gpu") * 2 - 1
ddblas.rgemm(a, b, algorithm="ozaki2-int8")
