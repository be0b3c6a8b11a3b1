/* libm's scalar acos, cos, sin, log and log1p over n contiguous elements, float32 (acosf, cosf, sinf, logf,
   log1pf) and float64.

   torch's scalar cpu kernels call these same functions (std::acos(float) is acosf), while numpy's ufuncs
   take vectorised implementations chosen by the CPU (AVX-512 machines get other bits than AVX2 ones, by
   an ulp). Kernels whose error grows with a parameter (the Chebyshev polynomials' cos(n acos x)) call
   these so their results are the same on every CPU and equal torch's; so do kernels that torch writes as a
   scalar loop over std::log / std::log1p (binary_cross_entropy). No fast-math: gcc keeps the calls. */
#include <math.h>
#include <stdint.h>

#define MAP(T, NAME, F)                                                                          \
void NAME(const T *x, T *y, int64_t n) {                                                         \
    for (int64_t i = 0; i < n; i++)                                                              \
        y[i] = F(x[i]);                                                                          \
}

MAP(float, acos_f32, acosf)
MAP(float, cos_f32, cosf)
MAP(float, sin_f32, sinf)
MAP(double, acos_f64, acos)
MAP(double, cos_f64, cos)
MAP(double, sin_f64, sin)
MAP(float, log_f32, logf)
MAP(float, log1p_f32, log1pf)
MAP(double, log_f64, log)
MAP(double, log1p_f64, log1p)

/* binary_cross_entropy's elements as torch's binary_cross_entropy_out_cpu computes them (a scalar loop over
   std::log1p / std::log, no contraction into fma): (t - 1) * max(log1p(-x), -100) - t * max(log(x), -100), where
   std::max(a, b) is (a < b) ? b : a (a NaN log stays NaN). One pass instead of five numpy ones around two libm
   maps (100k float32: ~1.8 ms -> see loss.py). */
#define BCE(T, NAME, LOG, LOG1P)                                                                 \
void NAME(const T *x, const T *t, T *y, int64_t n) {                                             \
    for (int64_t i = 0; i < n; i++) {                                                            \
        T a = LOG1P(-x[i]), b = LOG(x[i]);                                                       \
        a = a < (T)-100 ? (T)-100 : a;                                                           \
        b = b < (T)-100 ? (T)-100 : b;                                                           \
        const T u = (t[i] - (T)1) * a, v = t[i] * b;                                             \
        y[i] = u - v;                                                                            \
    }                                                                                            \
}

BCE(float, bce_f32, logf, log1pf)
BCE(double, bce_f64, log, log1p)
