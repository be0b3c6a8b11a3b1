/* One Adam/AdamW step for one float32 or float64 parameter in a single pass (optim/adam.py).
 *
 * The operations and their order are exactly those of adam.py's numpy update (one rounding per torch
 * op, in the parameter's dtype; -std=c11 does not contract a * b + c into an fma), so the C and numpy
 * paths agree bit for bit:
 *   g = maximize ? -grad : grad
 *   wd_mode 1 (L2):        g = g + wd * p          wd_mode 2 (decoupled): p = p * decay
 *   d = g - m;  lerp_small ? (m = m + d * w) : (m = g - d * (1 - w))      (torch's lerp, w = 1 - beta1)
 *   v = v * beta2 + (g * (1 - beta2)) * g
 *   amsgrad: mx = max(mx, v) (NaN wins, like np.maximum), and mx replaces v below
 *   p = p + (m / (sqrt(v) / bc2_sqrt + eps)) * neg_step_size
 * Scalars arrive as double and are rounded to the parameter's dtype once, as the numpy path's f(...) does.
 */
#include <math.h>
#include <stdint.h>

#define ADAM_BODY(T, SQRT)                                                                          \
    const T wd_ = (T)wd, decay_ = (T)decay, w_ = (T)w, b2_ = (T)beta2, omb2_ = (T)one_minus_beta2; \
    const T bc2_ = (T)bc2_sqrt, eps_ = (T)eps, ss_ = (T)neg_step_size;                             \
    for (int64_t i = 0; i < n; i++) {                                                               \
        T g = maximize ? -grad[i] : grad[i];                                                        \
        T pi = p[i];                                                                                \
        if (wd_mode == 1) g = g + wd_ * pi;                                                         \
        else if (wd_mode == 2) pi = pi * decay_;                                                    \
        T d = g - m[i];                                                                             \
        T mi = lerp_small ? m[i] + d * w_ : g - d * w_;                                             \
        m[i] = mi;                                                                                  \
        T vi = v[i] * b2_ + (g * omb2_) * g;                                                        \
        v[i] = vi;                                                                                  \
        if (mx) {                                                                                   \
            T a = mx[i];                                                                            \
            vi = (a > vi || a != a) ? a : vi;                                                       \
            mx[i] = vi;                                                                             \
        }                                                                                           \
        T den = SQRT(vi) / bc2_ + eps_;                                                             \
        p[i] = pi + (mi / den) * ss_;                                                               \
    }

/* w is the lerp weight applied: (1 - beta1) when lerp_small, else beta1 (= 1 - (1 - beta1)). */
void adam_f32(float *p, const float *grad, float *m, float *v, float *mx, int64_t n, int maximize,
              int wd_mode, double wd, double decay, int lerp_small, double w, double beta2,
              double one_minus_beta2, double bc2_sqrt, double eps, double neg_step_size) {
    ADAM_BODY(float, sqrtf)
}

void adam_f64(double *p, const double *grad, double *m, double *v, double *mx, int64_t n, int maximize,
              int wd_mode, double wd, double decay, int lerp_small, double w, double beta2,
              double one_minus_beta2, double bc2_sqrt, double eps, double neg_step_size) {
    ADAM_BODY(double, sqrt)
}
