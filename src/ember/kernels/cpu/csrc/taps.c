/* Weighted taps of a resampling op (grid_sample): every output point of a plane reads k input
   points of the same image ("taps") with a weight each. The caller computes the taps once per image,
   idx (n, k, L) flat indices into an input plane (negative: the tap is outside the input and is
   skipped, as torch skips it: it is never read, so an inf or NaN there cannot leak in) and their
   weights wt (n, k, L); the channel loops, where the work is, run here:
   - taps_gather:  out (n, c, L)      = sum_t wt * x[idx]              (the forward)
   - taps_scatter: gi (n, c, plane)  += go * wt, added at idx          (grad of the input)
   - taps_dot:     prod (n, k, L)     = sum over channels of go * x[idx] (grad of the weights, which
                                        the caller turns into the grid's gradient)
   Taps are summed in order t = 0..k-1 starting from zero, like the numpy path. */
#include <stdint.h>
#include <string.h>

#define TAPS(T, SFX)                                                                             \
void taps_gather_##SFX(const T *x, const int64_t *idx, const T *wt, T *out, int64_t n, int64_t c, \
                       int64_t plane, int64_t k, int64_t L) {                                    \
    for (int64_t i = 0; i < n; i++)                                                              \
        for (int64_t ch = 0; ch < c; ch++) {                                                     \
            const T *xp = x + (i * c + ch) * plane;                                              \
            T *o = out + (i * c + ch) * L;                                                       \
            memset(o, 0, sizeof(T) * (size_t)L);                                                 \
            for (int64_t t = 0; t < k; t++) {                                                    \
                const int64_t *it = idx + (i * k + t) * L;                                       \
                const T *w = wt + (i * k + t) * L;                                               \
                for (int64_t l = 0; l < L; l++)                                                  \
                    if (it[l] >= 0) o[l] += w[l] * xp[it[l]];                                    \
            }                                                                                    \
        }                                                                                        \
}                                                                                                \
                                                                                                 \
void taps_scatter_##SFX(const T *go, const int64_t *idx, const T *wt, T *gi, int64_t n,          \
                        int64_t c, int64_t plane, int64_t k, int64_t L) {                        \
    for (int64_t i = 0; i < n; i++)                                                              \
        for (int64_t ch = 0; ch < c; ch++) {                                                     \
            const T *g = go + (i * c + ch) * L;                                                  \
            T *gp = gi + (i * c + ch) * plane;                                                   \
            for (int64_t t = 0; t < k; t++) {                                                    \
                const int64_t *it = idx + (i * k + t) * L;                                       \
                const T *w = wt + (i * k + t) * L;                                               \
                for (int64_t l = 0; l < L; l++)                                                  \
                    if (it[l] >= 0) gp[it[l]] += g[l] * w[l];                                    \
            }                                                                                    \
        }                                                                                        \
}                                                                                                \
                                                                                                 \
void taps_dot_##SFX(const T *go, const T *x, const int64_t *idx, T *prod, int64_t n, int64_t c,  \
                    int64_t plane, int64_t k, int64_t L) {                                       \
    for (int64_t i = 0; i < n; i++) {                                                            \
        T *p = prod + i * k * L;                                                                 \
        memset(p, 0, sizeof(T) * (size_t)(k * L));                                               \
        for (int64_t ch = 0; ch < c; ch++) {                                                     \
            const T *g = go + (i * c + ch) * L, *xp = x + (i * c + ch) * plane;                  \
            for (int64_t t = 0; t < k; t++) {                                                    \
                const int64_t *it = idx + (i * k + t) * L;                                       \
                T *pt = p + t * L;                                                               \
                for (int64_t l = 0; l < L; l++)                                                  \
                    if (it[l] >= 0) pt[l] += g[l] * xp[it[l]];                                   \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
}

TAPS(float, f32)
TAPS(double, f64)
