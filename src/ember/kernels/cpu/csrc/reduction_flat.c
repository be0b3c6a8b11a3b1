/* Full sums of big contiguous float arrays (ATen's sum kernel over a flat range, run by at::parallel_for)
   with numpy's exact bits: `sum_all_<f32|f64>(x, n, nthreads, parallel_for)` returns numpy's
   np.add.reduce(x, axis=None) for a c-contiguous x of n elements, computed over csrc/parallel.c's pool
   (`parallel_for` is ember_parallel_for's address, so this library needs no link to that one); `*joined`
   gets how many threads took part (runtime/flat.py's last_threads).

   numpy sums a contiguous float array by pairwise summation (loops_utils.h.src, `pairwise_sum`): below 8
   elements one by one from 0; up to 128 elements in 8 accumulators (element i into accumulator i % 8) then
   ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) and the rest one by one; above 128 the two halves
   (the first n / 2 rounded down to a multiple of 8) summed apart and added; the reduction then adds that
   to its initial 0. The tree depends on n only, so its top 2^d subtrees can be summed on any threads and
   joined in the tree's order: the same bits for any thread count, and numpy's. Accumulators are the
   array's type (float32 sums in float32, as numpy's and torch's do).

   Speed: one 128-element leaf is 16 dependent vector adds, latency bound (numpy's version runs ~26 GB/s on
   one core here); a node of up to 512 elements whose children (or grandchildren) are all leaves sums them
   in one loop, 2 or 4 independent chains. A node of exactly 1024 elements (each one of a power-of-two-sized
   array: 1M, 1024 x 1024, ...) runs its 8 leaves in one loop at fixed offsets and folds them with lane-wise
   adds of even and odd lanes (the scalar fold's ~120 extracts and adds cost more than the loads), and
   power-of-two nodes up to 65536 run their 1024-nodes in a row without recursion. The 8 accumulators
   are one GCC vector (lane-wise IEEE adds, left operand first, no fast-math: nothing reassociated).
   1M float32 on one thread, minimum over calls: numpy 156 us, the recursion alone 81, with the 1024-node
   form 54.5 (a plain 6-accumulator loop, other bits: 42; torch 46). */
#include <stdint.h>

typedef int (*ep_par)(void *fn, void *p0, void *p1, void *p2, void *p3, double s0, double s1, int64_t n,
                      int64_t grain, int nthreads);

/* cache lines of a 1024-element node prefetched in each of pw_1024's 15 iterations (all of them in 15) */
#define PF_LINES(T) ((int)((16 * sizeof(T) + 14) / 15))

#define LEAF_MIN 16384             /* elements of a top subtree (a chunk of the pool) at least */
#define MAX_DEPTH 8                /* at most 256 top subtrees */

/* V: the 8 accumulators of a leaf as one vector (GCC vector extension: lane-wise IEEE adds, so numpy's bits),
   loaded unaligned */
typedef float v8f32 __attribute__((vector_size(32)));
typedef float v8f32u __attribute__((vector_size(32), aligned(4)));
typedef double v8f64 __attribute__((vector_size(64)));
typedef double v8f64u __attribute__((vector_size(64), aligned(8)));
typedef int32_t m8f32 __attribute__((vector_size(32)));     /* shuffle masks of the same lane count */
typedef int64_t m8f64 __attribute__((vector_size(64)));

#define PAIRWISE(T, SFX)                                                                           \
static T pw_small_##SFX(const T *a, int64_t n) {                                                   \
    T res = 0;                                                                                     \
    for (int64_t i = 0; i < n; i++) res += a[i];                                                   \
    return res;                                                                                    \
}                                                                                                  \
static inline v8##SFX ld_##SFX(const T *a) { return *(const v8##SFX##u *)a; }                      \
static inline T fold_##SFX(v8##SFX r, const T *a, int64_t from, int64_t n) {                       \
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));                     \
    for (int64_t i = from; i < n; i++) res += a[i];                                                \
    return res;                                                                                    \
}                                                                                                  \
/* one leaf of 8..128 elements */                                                                  \
static T pw_leaf_##SFX(const T *a, int64_t n) {                                                    \
    v8##SFX r = ld_##SFX(a);                                                                       \
    const int64_t m = n - (n % 8);                                                                 \
    for (int64_t i = 8; i < m; i += 8) r += ld_##SFX(a + i);                                       \
    return fold_##SFX(r, a, m, n);                                                                 \
}                                                                                                  \
/* k <= 4 leaves a[j][0, n[j]) (8 <= n[j] <= 128) in one loop: independent chains (a leaf alone is    \
   latency bound), each leaf's adds in its own order */                                            \
static void pw_leaves_##SFX(const T *const *a, const int64_t *n, int k, T *out) {                  \
    v8##SFX r[4];                                                                                  \
    int64_t m[4], both = 1 << 30;                                                                  \
    for (int j = 0; j < k; j++) {                                                                  \
        r[j] = ld_##SFX(a[j]);                                                                     \
        m[j] = n[j] - (n[j] % 8);                                                                  \
        both = m[j] < both ? m[j] : both;                                                          \
    }                                                                                              \
    int64_t i = 8;                                                                                 \
    if (k == 4) {                                                                                  \
        for (; i < both; i += 8) {                                                                 \
            r[0] += ld_##SFX(a[0] + i); r[1] += ld_##SFX(a[1] + i);                                \
            r[2] += ld_##SFX(a[2] + i); r[3] += ld_##SFX(a[3] + i);                                \
        }                                                                                          \
    } else {                                                                                       \
        for (; i < both; i += 8) { r[0] += ld_##SFX(a[0] + i); r[1] += ld_##SFX(a[1] + i); }       \
    }                                                                                              \
    for (int j = 0; j < k; j++) {                                                                  \
        for (int64_t t = i; t < m[j]; t += 8) r[j] += ld_##SFX(a[j] + t);                          \
        out[j] = fold_##SFX(r[j], a[j], m[j], n[j]);                                               \
    }                                                                                              \
}                                                                                                  \
static inline int64_t half_##SFX(int64_t n) { int64_t h = n / 2; return h - h % 8; }               \
static inline int is_leaf_##SFX(int64_t n) { return n >= 8 && n <= 128; }                          \
/* a node of exactly 1024 elements (every node of a power-of-two-sized tree at that level): its 8 leaves \
   of 128 in one loop with fixed offsets, joined in the tree's order */                             \
static T pw_1024_##SFX(const T *a) {                                                               \
    v8##SFX r0 = ld_##SFX(a), r1 = ld_##SFX(a + 128), r2 = ld_##SFX(a + 256), r3 = ld_##SFX(a + 384); \
    v8##SFX r4 = ld_##SFX(a + 512), r5 = ld_##SFX(a + 640), r6 = ld_##SFX(a + 768), r7 = ld_##SFX(a + 896); \
    for (int i = 8; i < 128; i += 8) {                                                             \
        /* the next node's lines, a share each iteration: its 8 interleaved streams a page apart     \
           are not a pattern the hardware prefetcher follows well (1M float32 58 -> 52 us, 4M          \
           ~310 -> ~250 us on one thread, best of 30 calls under load 9; torch 46 / 230) */            \
        const char *q_ = (const char *)(a + 1024) + (i / 8 - 1) * PF_LINES(T) * 64;                \
        for (int k = 0; k < PF_LINES(T); k++) __builtin_prefetch(q_ + 64 * k);                     \
        r0 += ld_##SFX(a + i); r1 += ld_##SFX(a + 128 + i);                                        \
        r2 += ld_##SFX(a + 256 + i); r3 += ld_##SFX(a + 384 + i);                                  \
        r4 += ld_##SFX(a + 512 + i); r5 += ld_##SFX(a + 640 + i);                                  \
        r6 += ld_##SFX(a + 768 + i); r7 += ld_##SFX(a + 896 + i);                                  \
    }                                                                                              \
    /* each leaf's ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then the leaves' tree, as lane-wise  \
       adds of even and odd lanes (left operand first, as the scalar tree: the same bits) */       \
    const m8##SFX ev = {0, 2, 4, 6, 8, 10, 12, 14}, od = {1, 3, 5, 7, 9, 11, 13, 15};              \
    const v8##SFX w01 = __builtin_shuffle(r0, r1, ev) + __builtin_shuffle(r0, r1, od);             \
    const v8##SFX w23 = __builtin_shuffle(r2, r3, ev) + __builtin_shuffle(r2, r3, od);             \
    const v8##SFX w45 = __builtin_shuffle(r4, r5, ev) + __builtin_shuffle(r4, r5, od);             \
    const v8##SFX w67 = __builtin_shuffle(r6, r7, ev) + __builtin_shuffle(r6, r7, od);             \
    const v8##SFX x03 = __builtin_shuffle(w01, w23, ev) + __builtin_shuffle(w01, w23, od);         \
    const v8##SFX x47 = __builtin_shuffle(w45, w67, ev) + __builtin_shuffle(w45, w67, od);         \
    const v8##SFX l = __builtin_shuffle(x03, x47, ev) + __builtin_shuffle(x03, x47, od);           \
    const v8##SFX l2 = __builtin_shuffle(l, l, ev) + __builtin_shuffle(l, l, od);                  \
    const v8##SFX l4 = __builtin_shuffle(l2, l2, ev) + __builtin_shuffle(l2, l2, od);              \
    return l4[0] + l4[1];                                                                          \
}                                                                                                  \
/* a node of 1024 2^k <= 65536 elements: its 1024-element nodes in a row, then joined level by level */ \
static T pw_pow2_##SFX(const T *a, int64_t n) {                                                    \
    T s[64];                                                                                       \
    int64_t m = n / 1024;                                                                          \
    for (int64_t j = 0; j < m; j++) s[j] = pw_1024_##SFX(a + 1024 * j);                            \
    for (; m > 1; m /= 2)                                                                          \
        for (int64_t j = 0; j < m / 2; j++) s[j] = s[2 * j] + s[2 * j + 1];                        \
    return s[0];                                                                                   \
}                                                                                                  \
static T pw_##SFX(const T *a, int64_t n) {                                                         \
    if (n >= 1024 && n <= 65536 && (n & (n - 1)) == 0)                                             \
        return pw_pow2_##SFX(a, n);                                                                \
    if (n < 8)                                                                                     \
        return pw_small_##SFX(a, n);                                                               \
    if (n <= 128)                                                                                  \
        return pw_leaf_##SFX(a, n);                                                                \
    const int64_t n2 = half_##SFX(n);                                                              \
    if (n <= 512) {                /* children or grandchildren that are all leaves: one loop */   \
        const int64_t l = n2, r = n - n2;                                                          \
        if (is_leaf_##SFX(l) && is_leaf_##SFX(r)) {                                                \
            const T *p[2] = {a, a + l};                                                            \
            const int64_t c[2] = {l, r};                                                           \
            T o[2];                                                                                \
            pw_leaves_##SFX(p, c, 2, o);                                                           \
            return o[0] + o[1];                                                                    \
        }                                                                                          \
        const int64_t l2 = half_##SFX(l), r2 = half_##SFX(r);                                      \
        if (l > 128 && r > 128 && is_leaf_##SFX(l2) && is_leaf_##SFX(l - l2)                       \
                && is_leaf_##SFX(r2) && is_leaf_##SFX(r - r2)) {                                   \
            const T *p[4] = {a, a + l2, a + l, a + l + r2};                                        \
            const int64_t c[4] = {l2, l - l2, r2, r - r2};                                         \
            T o[4];                                                                                \
            pw_leaves_##SFX(p, c, 4, o);                                                           \
            return (o[0] + o[1]) + (o[2] + o[3]);                                                  \
        }                                                                                          \
    }                                                                                              \
    return pw_##SFX(a, n2) + pw_##SFX(a + n2, n - n2);                                             \
}                                                                                                  \
/* p[0] the array, p[1] the subtree bounds (int64), p[2] the subtree sums */                       \
static void pw_part_##SFX(void *const *p, const double *s, int64_t b, int64_t e) {                 \
    const T *x = (const T *)p[0];                                                                  \
    const int64_t *bounds = (const int64_t *)p[1];                                                 \
    T *sums = (T *)p[2];                                                                           \
    (void)s;                                                                                       \
    for (int64_t i = b; i < e; i++) sums[i] = pw_##SFX(x + bounds[i], bounds[i + 1] - bounds[i]);  \
}                                                                                                  \
double sum_all_##SFX(const T *x, int64_t n, int nthreads, void *parallel_for, int *joined) {       \
    int depth = 0;                                                                                 \
    while (depth < MAX_DEPTH && (n >> (depth + 1)) >= LEAF_MIN) depth++;                           \
    *joined = 1;                                                                                   \
    if (depth == 0 || parallel_for == 0 || nthreads < 2)                                           \
        return (double)((T)0 + pw_##SFX(x, n));                                                    \
    /* the tree's nodes at `depth` (every node above has more than 2 * LEAF_MIN > 128 elements, so   \
       numpy splits it): bounds[i] the start of subtree i, in order */                             \
    int64_t bounds[(1 << MAX_DEPTH) + 1];                                                          \
    T sums[1 << MAX_DEPTH];                                                                        \
    bounds[0] = 0;                                                                                 \
    bounds[1] = n;                                                                                 \
    int64_t count = 1;                                                                             \
    for (int d = 0; d < depth; d++) {                                                              \
        for (int64_t i = count; i >= 1; i--) {                                                     \
            const int64_t lo = bounds[i - 1], len = bounds[i] - lo;                                \
            int64_t n2 = len / 2;                                                                  \
            n2 -= n2 % 8;                                                                          \
            bounds[2 * i] = bounds[i];                                                             \
            bounds[2 * i - 1] = lo + n2;                                                           \
            bounds[2 * i - 2] = lo;                                                                \
        }                                                                                          \
        count *= 2;                                                                                \
    }                                                                                              \
    *joined = ((ep_par)parallel_for)((void *)pw_part_##SFX, (void *)x, bounds, sums, 0, 0.0, 0.0,  \
                                     count, 1, nthreads);                                          \
    for (; count > 1; count /= 2)                                                                  \
        for (int64_t i = 0; i < count / 2; i++) sums[i] = sums[2 * i] + sums[2 * i + 1];           \
    return (double)((T)0 + sums[0]);                                                               \
}                                                                                                  \
/* Row sums: np.add.reduce(x, axis=-1) of a c-contiguous (rows, cols) array is 0 + pairwise(row) for each    \
   row (numpy's inner loop gets one whole row); rows shared over the pool (p[0] x, p[2] out, s[0] cols) */ \
static void rows_part_##SFX(void *const *p, const double *s, int64_t b, int64_t e) {               \
    const T *x = (const T *)p[0];                                                                  \
    T *out = (T *)p[2];                                                                            \
    const int64_t cols = (int64_t)s[0];                                                            \
    for (int64_t r = b; r < e; r++) out[r] = (T)0 + pw_##SFX(x + r * cols, cols);                  \
}                                                                                                  \
void sum_rows_##SFX(const T *x, int64_t rows, int64_t cols, T *out, int nthreads, void *parallel_for,     \
                    int *joined) {                                                                 \
    void *p[3] = {(void *)x, 0, out};                                                              \
    const double s[1] = {(double)cols};                                                            \
    int64_t grain = LEAF_MIN / (cols > 0 ? cols : 1);                                              \
    grain = grain < 1 ? 1 : grain;                                                                 \
    *joined = 1;                                                                                   \
    if (parallel_for == 0 || nthreads < 2 || rows <= grain)                                        \
        rows_part_##SFX(p, s, 0, rows);                                                            \
    else                                                                                           \
        *joined = ((ep_par)parallel_for)((void *)rows_part_##SFX, (void *)x, 0, out, 0, (double)cols, \
                                         0.0, rows, grain, nthreads);                              \
}

PAIRWISE(float, f32)
PAIRWISE(double, f64)
