/* relu forward and backward over n contiguous elements (one pass, vectorised by gcc).

   Forward, like torch's clamp_min(x, 0): y = x < 0 ? 0 : x, so NaN and -0.0 pass through unchanged.
   Backward, torch's threshold_backward(grad, result, 0): gi = result <= 0 ? 0 : grad, so a NaN
   result passes its grad on; a masked-off NaN grad becomes 0 (a select, not a multiply). */
#include <stdint.h>

#define RELU(T, NAME)                                                                            \
void NAME(const T *x, T *y, int64_t n) {                                                         \
    _Pragma("omp simd")                                                                          \
    for (int64_t i = 0; i < n; i++) {                                                            \
        const T v = x[i];                                                                        \
        y[i] = v < 0 ? (T)0 : v;                                                                 \
    }                                                                                            \
}

#define RELU_BWD(T, NAME)                                                                        \
void NAME(const T *g, const T *r, T *gi, int64_t n) {                                            \
    _Pragma("omp simd")                                                                          \
    for (int64_t i = 0; i < n; i++) {                                                            \
        const T v = g[i];                                                                        \
        gi[i] = r[i] <= 0 ? (T)0 : v;                                                            \
    }                                                                                            \
}

RELU(float, relu_f32)
RELU(double, relu_f64)
RELU_BWD(float, relu_backward_f32)
RELU_BWD(double, relu_backward_f64)
