/* cdist with p = 1 (the sum of absolute differences), forward and the gradient for one side, over a
   batch of (P, M) by (R, M) row sets, without numpy's (P, R, M) temporaries.
   - cdist_p1: d (nb, P, R) = sum_m |a[i,m] - b[j,m]|
   - cdist_p1_grad: ga (nb, P, M) = sum_j g[i,j] * sign(a[i,m] - b[j,m]); the other side's gradient is the
     same call with the roles swapped and g transposed. sign keeps NaN, as numpy's and torch's do. */
#pragma GCC optimize("no-trapping-math")   /* the selects below vectorise (values, NaN, inf unchanged) */
#include <stdint.h>

#define CDIST(T, SFX)                                                                            \
void cdist_p1_##SFX(const T *a, const T *b, T *d, int64_t nb, int64_t np, int64_t nr, int64_t m) { \
    for (int64_t z = 0; z < nb; z++)                                                             \
        for (int64_t i = 0; i < np; i++) {                                                       \
            const T *ai = a + (z * np + i) * m;                                                  \
            T *di = d + (z * np + i) * nr;                                                       \
            for (int64_t j = 0; j < nr; j++) {                                                   \
                const T *bj = b + (z * nr + j) * m;                                              \
                T s = 0;                                                                         \
                for (int64_t k = 0; k < m; k++) {                                                \
                    const T v = ai[k] - bj[k];                                                   \
                    s += v < 0 ? -v : v;                                                         \
                }                                                                                \
                di[j] = s;                                                                       \
            }                                                                                    \
        }                                                                                        \
}                                                                                                \
                                                                                                 \
void cdist_p1_grad_##SFX(const T *g, const T *a, const T *b, T *ga, int64_t nb, int64_t np,      \
                         int64_t nr, int64_t m) {                                                \
    for (int64_t z = 0; z < nb; z++)                                                             \
        for (int64_t i = 0; i < np; i++) {                                                       \
            const T *ai = a + (z * np + i) * m, *gi = g + (z * np + i) * nr;                     \
            T *oi = ga + (z * np + i) * m;                                                       \
            for (int64_t k = 0; k < m; k++) oi[k] = 0;                                           \
            for (int64_t j = 0; j < nr; j++) {                                                   \
                const T *bj = b + (z * nr + j) * m;                                              \
                const T w = gi[j];                                                               \
                for (int64_t k = 0; k < m; k++) {                                                \
                    const T v = ai[k] - bj[k];                                                   \
                    const T s = v > 0 ? (T)1 : (v < 0 ? (T)-1 : v);    /* 0 stays 0, NaN stays NaN */ \
                    oi[k] += w * s;                                                              \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
}

CDIST(float, f32)
CDIST(double, f64)
