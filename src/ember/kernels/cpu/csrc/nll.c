/* nll_loss on a contiguous (rows, c) matrix of log-probabilities with one class index per row
 * (int64), an optional per-class weight and an ignore_index: the forward gathers one value per row,
 * the backward writes the whole gradient matrix (zeros except one entry per row) in one pass. */
#include <stdint.h>
#include <string.h>

/* losses[r] = -x[r, t[r]] * w[t[r]] (0 for ignored rows; losses may be NULL); sums[0] += the losses,
 * sums[1] += the weights of the rows not ignored (in double). Returns -1, or the last row whose
 * target is out of [0, c) (nothing else is meaningful then). */
#define NLL_FWD(T, SUF)                                                                 \
int64_t nll_fwd_##SUF(const T *x, const int64_t *t, int64_t rows, int64_t c, const T *w, \
                      int64_t ignore, T *losses, double *sums) {                        \
    int64_t bad = -1;                                                                   \
    double s = 0, tw = 0;                                                               \
    for (int64_t r = 0; r < rows; r++) {                                                \
        int64_t k = t[r];                                                               \
        T l = 0;                                                                        \
        if (k != ignore) {                                                              \
            if (k < 0 || k >= c) { bad = r; continue; }                                 \
            T wk = w ? w[k] : (T)1;                                                     \
            l = -x[r * c + k] * wk;                                                     \
            s += (double)l;                                                             \
            tw += (double)wk;                                                           \
        }                                                                               \
        if (losses) losses[r] = l;                                                      \
    }                                                                                   \
    sums[0] += s;                                                                       \
    sums[1] += tw;                                                                      \
    return bad;                                                                         \
}

/* gi[r, :] = 0 except gi[r, t[r]] = -w[t[r]] * go[r] (rows with t[r] == ignore stay all zero). The
 * targets were checked by the forward. */
#define NLL_BWD(T, SUF)                                                                 \
void nll_bwd_##SUF(T *gi, const int64_t *t, const T *go, int64_t rows, int64_t c, const T *w, \
                   int64_t ignore) {                                                    \
    for (int64_t r = 0; r < rows; r++) {                                                \
        T *row = gi + r * c;                                                            \
        memset(row, 0, (size_t)c * sizeof(T));                                         \
        int64_t k = t[r];                                                               \
        if (k != ignore && k >= 0 && k < c)                                             \
            row[k] = -(w ? w[k] : (T)1) * go[r];                                        \
    }                                                                                   \
}

NLL_FWD(float, f32)
NLL_FWD(double, f64)
NLL_BWD(float, f32)
NLL_BWD(double, f64)
