// dd_config.h: what the DD sources need from the compiler, identical under NVRTC (GPU) and a host
// C++ compiler (CPU). Every function in cuda_src/ is DD_HD so one text serves both backends.
//
// Contraction rule: NVRTC is run with --fmad=false and the host compiler with -ffp-contract=off,
// so a*b+c is never fused behind our back; every fused multiply-add is an explicit fma() call.
#pragma once

#if defined(__CUDACC__)
#define DD_HD __host__ __device__ __forceinline__
#else
#include <cmath>
#include <cstdint>
#include <cstring>
#define DD_HD inline __attribute__((always_inline))  // as CUDA: whole operations in a function
using std::copysign;
using std::fabs;
using std::fma;
using std::isfinite;
using std::isnan;
using std::signbit;
using std::sqrt;
using std::trunc;
#endif

namespace ddblas {

typedef long long index_t;

// A double-double (DD) value hi + lo, normalized: hi = fl(hi + lo), so |lo| <= ulp(hi)/2.
struct dd {
    double hi;
    double lo;
};

// The arithmetic variant of an operation, chosen per call from Python:
// FMA   true: two_prod by one fma (FMA path); false: Dekker's split product (no FMA instruction).
// ACCURATE true: QD's IEEE-style DD addition; false: QD's sloppy addition.
template <bool FMA, bool ACCURATE>
struct Variant {
    static constexpr bool fma = FMA;
    static constexpr bool accurate = ACCURATE;
};

// from_bits: the double whose IEEE 754 encoding is `bits` (NVRTC has no __builtin_nan or
// __builtin_huge_val, and HUGE_VAL needs <cmath>, which device code does not see).
DD_HD double from_bits(unsigned long long bits) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)bits);
#else
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
#endif
}

// bits_of: the IEEE 754 encoding of x (from_bits' inverse).
DD_HD unsigned long long bits_of(double x) {
#if defined(__CUDA_ARCH__)
    return (unsigned long long)__double_as_longlong(x);
#else
    unsigned long long bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits;
#endif
}

// quiet_nan, infinity: the canonical quiet NaN 0x7ff8000000000000 and +inf.
DD_HD double quiet_nan() { return from_bits(0x7ff8000000000000ULL); }
DD_HD double infinity() { return from_bits(0x7ff0000000000000ULL); }

// canonical: x, or the quiet NaN 0x7ff8000000000000 if x is a NaN. IEEE 754 leaves a NaN's sign
// and payload to the hardware (x86 and NVIDIA GPUs differ), so kernels store NaNs canonically and
// CPU and GPU results agree bit for bit, NaNs included.
DD_HD double canonical(double x) {
    return isnan(x) ? quiet_nan() : x;
}

// loaded: an elementwise kernel's operand (hi, lo) as DDArray(normalize=True) makes it where a
// part is not finite (a pair wrapped with normalize=False): a nan in either part, or inf - inf,
// gives (nan, nan), another inf in either part (hi + lo, 0); a finite pair, and a non-finite hi
// with lo = 0, stay as they are.
DD_HD dd loaded(double hi, double lo) {
    if (isfinite(lo) && (isfinite(hi) || lo == 0.0)) return dd{hi, lo};
    const double s = hi + lo;
    return dd{s, isnan(s) ? s : 0.0};
}

}  // namespace ddblas
