/* Large elementwise kernels where numpy's ufuncs are slow (kernels/cpu/elementwise.py calls them from 4096
   contiguous float elements up, in chunks over the pool):

   - where: out = cond ? a : b as a branchless blend. numpy.where branches per element, and on a random
     mask the mispredictions made it ~20x slower than an add.
   - sigmoid: 1 / (1 + exp(-x)) in one pass with vmath.h's vectorisable exp (numpy needs three passes and
     two temporaries). exp(-x) overflowing to inf gives 0, as 1 / (1 + inf) should.
   - clamp: min(max(x, lo), hi) in one pass; an absent bound is passed as -inf / +inf. NaN in x stays NaN
     (both comparisons are false), like torch's clamp; NaN bounds take the numpy path. */
#pragma GCC optimize ("no-trapping-math")
#include <stdint.h>
#include "vmath.h"

#define WHERE(T, NAME)                                                                           \
void NAME(const uint8_t *c, const T *a, const T *b, T *o, int64_t n) {                           \
    _Pragma("omp simd")                                                                          \
    for (int64_t i = 0; i < n; i++) {                                                            \
        o[i] = c[i] ? a[i] : b[i];                                                               \
    }                                                                                            \
}

#define SIGMOID(T, EXP, NAME)                                                                    \
void NAME(const T *x, T *y, int64_t n) {                                                         \
    _Pragma("omp simd")                                                                          \
    for (int64_t i = 0; i < n; i++) {                                                            \
        y[i] = (T)1 / ((T)1 + EXP(-x[i]));                                                       \
    }                                                                                            \
}

#define CLAMP(T, NAME)                                                                           \
void NAME(const T *x, T *y, int64_t n, double lo_, double hi_) {                                 \
    const T lo = (T)lo_, hi = (T)hi_;                                                            \
    _Pragma("omp simd")                                                                          \
    for (int64_t i = 0; i < n; i++) {                                                            \
        T v = x[i];                                                                              \
        v = v < lo ? lo : v;                                                                     \
        y[i] = v > hi ? hi : v;                                                                  \
    }                                                                                            \
}

WHERE(float, where_f32)
WHERE(double, where_f64)
SIGMOID(float, vm_expf, sigmoid_f32)
SIGMOID(double, vm_exp, sigmoid_f64)
CLAMP(float, clamp_f32)
CLAMP(double, clamp_f64)
