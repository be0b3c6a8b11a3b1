/* embedding_dense_backward's scatter-add (the counterpart of ATen's embedding_dense_backward_cpu, which for
   float grads without scale_grad_by_freq runs index_add_'s serial loop): gw[idx[r]] += go[r] for r = 0 .. n-1
   in that order, rows of k values (vectorised across a row), into a zeroed (num, k) gw. So each weight row's
   gradient is the sum of its grad rows in their order, starting from 0: torch's bits (tests/kernels/
   test_c_embedding_bwd.py). The numpy path (kernels/cpu/index.py's add_rows: a stable sort, add.reduceat) sums
   each group pairwise, other bits than torch's whenever an index repeats. Returns -1, having written nothing,
   when an index is outside [0, num). One thread: a GPT's (1024, 128) token-embedding gradient is ~10 us. */
#include <stdint.h>

#define EMB_BWD(T, SFX)                                                                            \
int embedding_bwd_##SFX(const int64_t *idx, int64_t n, const T *go, int64_t k, T *gw, int64_t num) { \
    for (int64_t r = 0; r < n; r++)                                                                \
        if (idx[r] < 0 || idx[r] >= num) return -1;                                                \
    for (int64_t r = 0; r < n; r++) {                                                              \
        T *dst = gw + idx[r] * k;                                                                  \
        const T *src = go + r * k;                                                                 \
        _Pragma("omp simd")                                                                        \
        for (int64_t j = 0; j < k; j++) dst[j] += src[j];                                          \
    }                                                                                              \
    return 0;                                                                                      \
}

EMB_BWD(float, f32)
EMB_BWD(double, f64)
