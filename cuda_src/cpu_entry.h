// cpu_entry.h: the CPU backend's kernel macros, included first by every CPU unit (units/*.cpp,
// compiled by ddblas/_cpu.py with the system C++ compiler, -O3 -ffp-contract=off, no fast-math,
// OpenMP, into one shared library per family).
#pragma once
#include "geometry.h"  // PARALLEL_MIN_ITEMS, PARALLEL_MIN_MADDS
#define DDBLAS_KERNEL extern "C" void
// Small arrays stay on one thread: starting the OpenMP team costs more than the work.
#define DDBLAS_FOR_EACH(i, n)                                                                  \
    _Pragma("omp parallel for schedule(static) if (n >= ddblas::PARALLEL_MIN_ITEMS)") for (    \
        ddblas::index_t i = 0; i < n; ++i)
// Heavy items (a whole small system each, about `madds` multiply-adds): OpenMP once the count
// of them makes PARALLEL_MIN_MADDS (starting the team cost a 3 x 3 solve 150 of its 250 us on
// 2 cores). Two statements: one use a scope, not the body of an unbraced if.
#define DDBLAS_FOR_EACH_SYSTEM(i, count, madds)                                                \
    const bool ddblas_systems_in_parallel = (count) * (madds) >= ddblas::PARALLEL_MIN_MADDS;   \
    _Pragma("omp parallel for schedule(static) if (ddblas_systems_in_parallel)") for (         \
        ddblas::index_t i = 0; i < count; ++i)
