/* One Adam/AdamW step for one float32 or float64 parameter in a single pass (optim/adam.py).
 *
 * The operations and their order are exactly those of adam.py's numpy update (one rounding per torch
 * op, in the parameter's dtype; -std=c11 does not contract a * b + c into an fma), so the C and numpy
 * paths agree bit for bit:
 *   g = maximize ? -grad : grad
 *   wd_mode 1 (L2):        g = g + wd * p          wd_mode 2 (decoupled): p = p * decay
 *   d = g - m;  lerp_small ? (m = m + d * w) : (m = g - d * w)      (torch's lerp; w is the weight used)
 *   v = v * beta2 + (g * (1 - beta2)) * g
 *   amsgrad: mx = max(mx, v) (NaN wins, like np.maximum), and mx replaces v below
 *   p = p + (m / (sqrt(v) / bc2_sqrt + eps)) * neg_step_size
 * Scalars arrive as double and are rounded to the parameter's dtype once, as the numpy path's f(...) does.
 * The four flags are compile-time constants in each of the 24 specialised loops the dispatcher below
 * picks (a flag tested inside the loop keeps gcc from vectorising it well: 20x slower).
 * no-trapping-math only lets gcc vectorise the selects (see gelu.c); values are unchanged.
 */
#pragma GCC optimize ("no-trapping-math")
#include <math.h>
#include <stdint.h>

/* the four (amsgrad, lerp_small) cases of dispatch index block J = maximize * 3 + wd_mode */
#define CASES4(NAME, J, MZ, WM)                                                                         \
    case 4 * J + 0: NAME##_body(p, grad, m, v, mx, n, MZ, WM, 0, 0, s); break;                          \
    case 4 * J + 1: NAME##_body(p, grad, m, v, mx, n, MZ, WM, 0, 1, s); break;                          \
    case 4 * J + 2: NAME##_body(p, grad, m, v, mx, n, MZ, WM, 1, 0, s); break;                          \
    case 4 * J + 3: NAME##_body(p, grad, m, v, mx, n, MZ, WM, 1, 1, s); break;

#define ADAM_DEF(T, SQRT, NAME)                                                                         \
static inline __attribute__((always_inline)) void NAME##_body(                                          \
        T *restrict p, const T *restrict grad, T *restrict m, T *restrict v, T *restrict mx, int64_t n, \
        const int maximize, const int wd_mode, const int amsgrad, const int lerp_small, const T *s) {  \
    const T wd_ = s[0], decay_ = s[1], w_ = s[2], b2_ = s[3], omb2_ = s[4], bc2_ = s[5], eps_ = s[6];    \
    const T ss_ = s[7];                                                                                 \
    _Pragma("omp simd")                                                                                 \
    for (int64_t i = 0; i < n; i++) {                                                                   \
        T g = maximize ? -grad[i] : grad[i];                                                            \
        T pi = p[i];                                                                                    \
        if (wd_mode == 1) g = g + wd_ * pi;                                                             \
        if (wd_mode == 2) pi = pi * decay_;                                                             \
        T mo = m[i];                                                                                    \
        T d = g - mo;                                                                                   \
        T mi = lerp_small ? mo + d * w_ : g - d * w_;                                                   \
        m[i] = mi;                                                                                      \
        T vi = v[i] * b2_ + (g * omb2_) * g;                                                            \
        v[i] = vi;                                                                                      \
        if (amsgrad) {                                                                                  \
            T a = mx[i];                                                                                \
            vi = (a > vi || a != a) ? a : vi;                                                           \
            mx[i] = vi;                                                                                 \
        }                                                                                               \
        T den = SQRT(vi) / bc2_ + eps_;                                                                 \
        p[i] = pi + (mi / den) * ss_;                                                                   \
    }                                                                                                   \
}                                                                                                       \
void NAME(T *p, const T *grad, T *m, T *v, T *mx, int64_t n, int maximize, int wd_mode, double wd,      \
          double decay, int lerp_small, double w, double beta2, double one_minus_beta2, double bc2_sqrt, \
          double eps, double neg_step_size) {                                                           \
    const T s[8] = {(T)wd, (T)decay, (T)w, (T)beta2, (T)one_minus_beta2, (T)bc2_sqrt, (T)eps,           \
                    (T)neg_step_size};                                                                  \
    int k = (((maximize != 0) * 3 + wd_mode) * 2 + (mx != 0)) * 2 + (lerp_small != 0);                  \
    switch (k) {                                                                                        \
    CASES4(NAME, 0, 0, 0)  CASES4(NAME, 1, 0, 1)  CASES4(NAME, 2, 0, 2)                                  \
    CASES4(NAME, 3, 1, 0)  CASES4(NAME, 4, 1, 1)  CASES4(NAME, 5, 1, 2)                                  \
    }                                                                                                   \
}

ADAM_DEF(float, sqrtf, adam_f32)
ADAM_DEF(double, sqrt, adam_f64)

/* The step for `count` parameters in one call (optim/adam.py calls this once per param group and dtype):
 * ptrs holds count rows of (p, grad, exp_avg, exp_avg_sq, max_exp_avg_sq or 0) addresses, sizes their
 * lengths; the bias corrections can differ per parameter (each has its own step count). */
#define ADAM_MULTI_DEF(T, NAME)                                                                         \
void NAME##_multi(int64_t count, const int64_t *ptrs, const int64_t *sizes, const double *neg_step_size,  \
                  const double *bc2_sqrt, int maximize, int wd_mode, double wd, double decay,           \
                  int lerp_small, double w, double beta2, double one_minus_beta2, double eps) {         \
    for (int64_t i = 0; i < count; i++) {                                                               \
        const int64_t *r = ptrs + 5 * i;                                                                \
        NAME((T *)r[0], (const T *)r[1], (T *)r[2], (T *)r[3], (T *)r[4], sizes[i], maximize, wd_mode,  \
             wd, decay, lerp_small, w, beta2, one_minus_beta2, bc2_sqrt[i], eps, neg_step_size[i]);     \
    }                                                                                                   \
}

ADAM_MULTI_DEF(float, adam_f32)
ADAM_MULTI_DEF(double, adam_f64)
