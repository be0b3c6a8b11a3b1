/* A matrix product split over csrc/parallel.c's pool (the counterpart of ATen's cpublas::gemm run on the
   intra-op team: MKL's gemm threads are the OpenMP threads of at::parallel_for, one team for every op).
   runtime/gemm.py calls `ember_parallel_for(gemm_part, d, A, B, C, alpha, beta, items, grain, threads)`;
   each work item is one block of rows (or columns) of one matrix of a batch, computed by one call of numpy's
   own cblas_sgemm / cblas_dgemm (OpenBLAS held at one thread by runtime/blas.py, so that call never starts
   OpenBLAS's threads, whose workers spin for ~0.1 s of cpu after each threaded call and took the second core
   from this pool's worker in every op of a train step).

   Bits: a block of rows of C = op(A) op(B) takes the same rows of op(A) and the whole op(B) (columns: the
   reverse), and OpenBLAS sums every element of C over k in the same order whatever the rows around it, so
   the split result equals the single call's bit for bit, given two rules (runtime/gemm.py): blocks start at
   multiples of 64 rows or columns (whole micro-tiles), and every block is above OpenBLAS's small-matrix limit
   (m*n*k > 1e6: below it OpenBLAS's AVX-512 build takes other kernels, whose sums differ in the last bits).
   tests/kernels/test_c_gemm.py checks it on many shapes, thread counts and layouts.

   The descriptor d (int64): [0] the cblas function's address, [1] its integer width (32 or 64), [2] 1 for
   double, [3] [4] transA transB (cblas's 111 no / 112 transpose), [5] M [6] N [7] K, [8] lda [9] ldb [10] ldc,
   [11] [12] [13] the outer batch strides of A, B and C in elements (0: one matrix shared by the batch),
   [14] 0 to split rows, 1 columns, [15] the unit of block edges, [16] blocks per matrix, [17] the inner batch
   size, [18] [19] [20] the inner batch strides of A, B and C (a (B, H, M, K) stack of views is read in place).
   Item i is block i % d[16] of matrix j = i / d[16], at outer index j / d[17] and inner index j % d[17]; block
   q of nblk covers rows (columns) from (span * q / nblk) rounded down to a multiple of the unit up to where the
   next block starts (the last: to the end), so blocks differ by at most one unit.
   [21] the address of a bias added to each block once computed (0: none; addmm's bias, as numpy's
   `np.add(c, bias, out=c)` after the product: the same one rounding per element), [22] its row stride in elements
   (0: one row broadcast over the rows of C). p = {d, A, B, C}, s = {alpha, beta}.
   [23] the address of R (0: none): then C is scratch for a product split by rows, and each block of rows of C is
   written transposed into the same columns of R (row stride [24] elements) with bias [21] (a vector indexed by
   C's row, i.e. R's column) added: R = C^T + bias, F.linear's few-row product x @ w^T computed as
   (w @ x^T)^T (nn/functional/linear.py). One rounding per element, as numpy's `np.add(C.T, bias, out=R)`; done
   on the block's own thread while the block is in its cache (numpy's strided add of the transpose took 18 us
   for a (48, 384) result, a quarter of the product). 2-d products only. */
#include <stdint.h>

typedef void (*sgemm64_t)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t,
                          const float *, int64_t, float, float *, int64_t);
typedef void (*dgemm64_t)(int, int, int, int64_t, int64_t, int64_t, double, const double *, int64_t,
                          const double *, int64_t, double, double *, int64_t);
typedef void (*sgemm32_t)(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                          float *, int);
typedef void (*dgemm32_t)(int, int, int, int, int, int, double, const double *, int, const double *, int,
                          double, double *, int);

#define ROW_MAJOR 101
#define NO_TRANS 111

/* R[i][r] = C[r][i] + bias[r] for r < rows, i < cols (C: rows x cols at row stride ldc; R: cols x rows at row
   stride ldr): 16 rows of C at a time, so each write is a run of 16 consecutive elements of R and the 16 rows
   of C being read stay in L1. One IEEE add per element (or a copy): the bits do not depend on how it runs. */
#define EP_TRANSPOSE_ADD(NAME, T)                                                                         \
    static void NAME##_scalar(const T *c, int64_t ldc, T *r, int64_t ldr, const T *bias, int64_t rows,     \
                              int64_t cols) {                                                             \
        for (int64_t r0 = 0; r0 < rows; r0 += 16) {                                                       \
            const int64_t r1 = r0 + 16 < rows ? r0 + 16 : rows;                                           \
            for (int64_t i = 0; i < cols; i++) {                                                          \
                T *out = r + i * ldr;                                                                     \
                if (bias)                                                                                 \
                    for (int64_t q = r0; q < r1; q++) out[q] = c[q * ldc + i] + bias[q];                  \
                else                                                                                      \
                    for (int64_t q = r0; q < r1; q++) out[q] = c[q * ldc + i];                            \
            }                                                                                             \
        }                                                                                                 \
    }
EP_TRANSPOSE_ADD(ep_t_f32, float)
EP_TRANSPOSE_ADD(ep_t_f64, double)

/* float32 on AVX-512: whole 16 x 16 tiles transposed in registers (unpack / shuffle / 128-bit lane shuffles,
   64 shuffles a tile instead of 256 scalar loads and stores), the bias added as one vector per tile; the
   ragged edges (rows or columns past the last whole tile) take the scalar loop. A (384, 48) block of a
   swapped Linear product (F.linear's few-row x @ w^T, 48 rows by 384 outputs) with its bias, min us with the
   Python call (gemm.transpose_add), load ~8: 4.5, numpy's strided add 10.0; (512, 48) 7.7 against 13.4. */
#if defined(__AVX512F__)
#include <immintrin.h>
static inline void ep_tr16(__m512 v[16]) {
    __m512 t[16];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) {
        v[4 * i + 0] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        v[4 * i + 1] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        v[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        v[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            t[8 * i + j] = _mm512_shuffle_f32x4(v[8 * i + j], v[8 * i + 4 + j], 0x88);
            t[8 * i + 4 + j] = _mm512_shuffle_f32x4(v[8 * i + j], v[8 * i + 4 + j], 0xdd);
        }
    for (int j = 0; j < 8; j++) {
        v[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88);
        v[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0xdd);
    }
}

static void ep_t_f32(const float *c, int64_t ldc, float *r, int64_t ldr, const float *bias, int64_t rows,
                     int64_t cols) {
    const int64_t rt = rows / 16 * 16, ct = cols / 16 * 16;
    for (int64_t r0 = 0; r0 < rt; r0 += 16) {
        const __m512 bv = bias ? _mm512_loadu_ps(bias + r0) : _mm512_setzero_ps();
        for (int64_t i0 = 0; i0 < ct; i0 += 16) {
            __m512 v[16];
            for (int q = 0; q < 16; q++) v[q] = _mm512_loadu_ps(c + (r0 + q) * ldc + i0);
            ep_tr16(v);
            for (int i = 0; i < 16; i++) {
                const __m512 x = v[i];          /* (ep_tr16 leaves column i in v[i]) */
                _mm512_storeu_ps(r + (i0 + i) * ldr + r0, bias ? _mm512_add_ps(x, bv) : x);
            }
        }
    }
    if (ct < cols)          /* the last columns of every row */
        ep_t_f32_scalar(c + ct, ldc, r + ct * ldr, ldr, bias, rows, cols - ct);
    if (rt < rows)          /* the last rows, whole-tile columns */
        ep_t_f32_scalar(c + rt * ldc, ldc, r + rt, ldr, bias ? bias + rt : 0, rows - rt, ct);
}
#else
#define ep_t_f32 ep_t_f32_scalar
#endif
#define ep_t_f64 ep_t_f64_scalar

/* R = C^T + bias for a c-contiguous (rows, cols) C into a c-contiguous (cols, rows) R (bias: rows values or
   NULL), on the calling thread: mm_t's step for a product that is not split (nn/functional/linear.py). */
void transpose_add_f32(const float *c, float *r, const float *bias, int64_t rows, int64_t cols) {
    ep_t_f32(c, cols, r, rows, bias, rows, cols);
}
void transpose_add_f64(const double *c, double *r, const double *bias, int64_t rows, int64_t cols) {
    ep_t_f64(c, cols, r, rows, bias, rows, cols);
}

void gemm_part(void *const *p, const double *s, int64_t begin, int64_t end) {
    const int64_t *d = (const int64_t *)p[0];
    const int dbl = (int)d[2], ta = (int)d[3], tb = (int)d[4];
    const int64_t M = d[5], N = d[6], K = d[7], lda = d[8], ldb = d[9], ldc = d[10];
    const int64_t sa = d[11], sb = d[12], sc = d[13], cols = d[14], unit = d[15], nblk = d[16];
    const int64_t nb1 = d[17], sa1 = d[18], sb1 = d[19], sc1 = d[20];
    const int64_t size = dbl ? 8 : 4;
    for (int64_t i = begin; i < end; i++) {
        const int64_t mat = i / nblk, q = i % nblk, o = mat / nb1, in = mat % nb1;
        const int64_t span = cols ? N : M;
        const int64_t lo = span * q / nblk / unit * unit;
        const int64_t hi = q == nblk - 1 ? span : span * (q + 1) / nblk / unit * unit;
        int64_t offa = o * sa + in * sa1, offb = o * sb + in * sb1, offc = o * sc + in * sc1, m = M, n = N;
        if (cols) {
            offb += tb == NO_TRANS ? lo : lo * ldb;
            offc += lo;
            n = hi - lo;
        } else {
            offa += ta == NO_TRANS ? lo * lda : lo;
            offc += lo * ldc;
            m = hi - lo;
        }
        const char *a = (const char *)p[1] + offa * size, *b = (const char *)p[2] + offb * size;
        char *c = (char *)p[3] + offc * size;
        const int64_t r0 = cols ? 0 : lo, c0 = cols ? lo : 0;
        if (d[1] == 64) {
            if (dbl)
                ((dgemm64_t)(intptr_t)d[0])(ROW_MAJOR, ta, tb, m, n, K, s[0], (const double *)a, lda,
                                            (const double *)b, ldb, s[1], (double *)c, ldc);
            else
                ((sgemm64_t)(intptr_t)d[0])(ROW_MAJOR, ta, tb, m, n, K, (float)s[0], (const float *)a, lda,
                                            (const float *)b, ldb, (float)s[1], (float *)c, ldc);
        } else {
            if (dbl)
                ((dgemm32_t)(intptr_t)d[0])(ROW_MAJOR, ta, tb, (int)m, (int)n, (int)K, s[0], (const double *)a,
                                            (int)lda, (const double *)b, (int)ldb, s[1], (double *)c, (int)ldc);
            else
                ((sgemm32_t)(intptr_t)d[0])(ROW_MAJOR, ta, tb, (int)m, (int)n, (int)K, (float)s[0],
                                            (const float *)a, (int)lda, (const float *)b, (int)ldb, (float)s[1],
                                            (float *)c, (int)ldc);
        }
        if (d[23]) {
            if (dbl)
                ep_t_f64((const double *)p[3] + offc, ldc, (double *)(intptr_t)d[23] + lo, d[24],
                         d[21] ? (const double *)(intptr_t)d[21] + lo : 0, m, n);
            else
                ep_t_f32((const float *)p[3] + offc, ldc, (float *)(intptr_t)d[23] + lo, d[24],
                         d[21] ? (const float *)(intptr_t)d[21] + lo : 0, m, n);
        } else if (d[21]) {
            const int64_t bst = d[22];
            for (int64_t r = 0; r < m; r++) {
                if (dbl) {
                    double *cr = (double *)p[3] + offc + r * ldc;
                    const double *br = (const double *)(intptr_t)d[21] + (r0 + r) * bst + c0;
                    for (int64_t j = 0; j < n; j++) cr[j] = cr[j] + br[j];
                } else {
                    float *cr = (float *)p[3] + offc + r * ldc;
                    const float *br = (const float *)(intptr_t)d[21] + (r0 + r) * bst + c0;
                    for (int64_t j = 0; j < n; j++) cr[j] = cr[j] + br[j];
                }
            }
        }
    }
}
