// cpu_entry.h: the CPU backend's kernel macros, included first by every CPU unit (units/*.cpp,
// compiled by ddblas/_cpu.py with the system C++ compiler, -O3 -ffp-contract=off, no fast-math,
// OpenMP, into one shared library per family).
#pragma once
#include "geometry.h"  // PARALLEL_MIN_ITEMS
#define DDBLAS_KERNEL extern "C" void
// Small arrays stay on one thread: starting the OpenMP team costs more than the work.
#define DDBLAS_FOR_EACH(i, n)                                                                  \
    _Pragma("omp parallel for schedule(static) if (n >= ddblas::PARALLEL_MIN_ITEMS)") for (    \
        ddblas::index_t i = 0; i < n; ++i)
// Heavy items (a whole small system each): OpenMP over any count.
#define DDBLAS_FOR_EACH_SYSTEM(i, count) \
    _Pragma("omp parallel for schedule(static)") for (ddblas::index_t i = 0; i < count; ++i)
