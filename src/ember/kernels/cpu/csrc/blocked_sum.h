/* BLOCKED_SUM: a row sum for the row kernels (softmax.c, attention.c). */
/* Row sums are taken in blocks of SB elements summed in T (vector lanes), the block sums added in
 * double, so float32 rows of any length keep float32 accuracy at the speed of float lanes. */
#define SB 1024
#define BLOCKED_SUM(T, s, k, j, term)                                                   \
    double s = 0;                                                                       \
    for (int64_t j0 = 0; j0 < k; j0 += SB) {                                            \
        const int64_t j1 = k - j0 < SB ? k : j0 + SB;                                   \
        T bs = 0;                                                                       \
        _Pragma("omp simd reduction(+:bs)")                                             \
        for (int64_t j = j0; j < j1; j++) bs += term;                                   \
        s += (double)bs;                                                                \
    }
