"""BLAS-level routines: the one GEMM front end (gemmcall) and its algorithms: the classic kernels
(gemm), rgemm_batched (batched), tall-and-skinny (tsm), Ozaki scheme I (ozaki), the cost model
of algorithm="auto" (auto) and the overlapped host-operand pipeline (transfer)."""
