/* fold16_f32: the sum of an AVX-512 float vector's 16 lanes in one fixed order (lanes + 8, + 4, + 2, + 1), shared
 * by the kernels whose documented bits rest on it: norm.c's layer norm backward row sums, softmax.c's short-row
 * backward. In registers: a store and 15 scalar adds per sum cost ~30 us of a (1024, 128) layer norm backward. */
#ifndef EMBER_FOLD16_H
#define EMBER_FOLD16_H
#if defined(__AVX512F__)
#include <immintrin.h>
static inline float fold16_f32(__m512 v) {
    const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v),
                                   _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    const __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    const __m128 d = _mm_add_ps(q, _mm_movehl_ps(q, q));
    return _mm_cvtss_f32(_mm_add_ss(d, _mm_shuffle_ps(d, d, 1)));
}
#endif
#endif
