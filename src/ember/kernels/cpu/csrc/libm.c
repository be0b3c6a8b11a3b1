/* libm's scalar acos, cos and sin over n contiguous elements, float32 (acosf, cosf, sinf) and float64.

   torch's scalar cpu kernels call these same functions (std::acos(float) is acosf), while numpy's ufuncs
   take vectorised implementations chosen by the CPU (AVX-512 machines get other bits than AVX2 ones, by
   an ulp). Kernels whose error grows with a parameter (the Chebyshev polynomials' cos(n acos x)) call
   these so their results are the same on every CPU and equal torch's. No fast-math: gcc keeps the calls. */
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
