/* One SGD step with momentum for one float32 or float64 parameter in a single pass (optim/sgd.py).
 *
 * The operations and their order are exactly those of sgd.py's numpy update (_sgd_update: one rounding per
 * torch op, in the parameter's dtype; -std=c11 does not contract a * b + c into an fma), so the C and numpy
 * paths agree bit for bit:
 *   g = maximize ? -grad : grad
 *   weight decay:  g = g + wd * p
 *   buf = buf * momentum;  buf = buf + (dampening ? g * (1 - dampening) : g)
 *   nesterov ? (g = g + momentum * buf) : (g = buf)
 *   p = p + g * (-lr)
 * It reads grad, buf and p once and writes buf and p once; the numpy path makes ten passes and a scratch array.
 * Scalars arrive as double and are rounded to the parameter's dtype once, as the numpy path's f(...) does.
 * The four flags are compile-time constants in each of the 16 specialised loops (see adam.c).
 */
#include <stdint.h>

#define CASE(NAME, MZ, WD, DA, NE) \
    case MZ * 8 + WD * 4 + DA * 2 + NE: NAME##_body(p, grad, buf, n, MZ, WD, DA, NE, wd_, m_, omd_, nlr_); break;

#define SGD_DEF(T, NAME)                                                                                \
static inline __attribute__((always_inline)) void NAME##_body(                                          \
        T *restrict p, const T *restrict grad, T *restrict buf, int64_t n, const int maximize,          \
        const int decay, const int damp, const int nesterov, const T wd_, const T m_, const T omd_,     \
        const T nlr_) {                                                                                 \
    _Pragma("omp simd")                                                                                 \
    for (int64_t i = 0; i < n; i++) {                                                                   \
        T g = maximize ? -grad[i] : grad[i];                                                            \
        const T pi = p[i];                                                                              \
        if (decay) g = g + wd_ * pi;                                                                    \
        T b = buf[i] * m_;                                                                              \
        b = b + (damp ? g * omd_ : g);                                                                  \
        buf[i] = b;                                                                                     \
        g = nesterov ? g + m_ * b : b;                                                                  \
        p[i] = pi + g * nlr_;                                                                           \
    }                                                                                                   \
}                                                                                                       \
void NAME(T *p, const T *grad, T *buf, int64_t n, int maximize, int decay, int damp, int nesterov,     \
          double wd, double momentum, double one_minus_dampening, double neg_lr) {                      \
    const T wd_ = (T)wd, m_ = (T)momentum, omd_ = (T)one_minus_dampening, nlr_ = (T)neg_lr;            \
    switch ((maximize != 0) * 8 + (decay != 0) * 4 + (damp != 0) * 2 + (nesterov != 0)) {              \
        CASE(NAME, 0, 0, 0, 0) CASE(NAME, 0, 0, 0, 1) CASE(NAME, 0, 0, 1, 0) CASE(NAME, 0, 0, 1, 1)     \
        CASE(NAME, 0, 1, 0, 0) CASE(NAME, 0, 1, 0, 1) CASE(NAME, 0, 1, 1, 0) CASE(NAME, 0, 1, 1, 1)     \
        CASE(NAME, 1, 0, 0, 0) CASE(NAME, 1, 0, 0, 1) CASE(NAME, 1, 0, 1, 0) CASE(NAME, 1, 0, 1, 1)     \
        CASE(NAME, 1, 1, 0, 0) CASE(NAME, 1, 1, 0, 1) CASE(NAME, 1, 1, 1, 0) CASE(NAME, 1, 1, 1, 1)     \
    }                                                                                                   \
}

SGD_DEF(float, sgd_momentum_f32)
SGD_DEF(double, sgd_momentum_f64)
