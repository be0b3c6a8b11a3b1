/* A fused multiply-add over n contiguous elements: out = a * b + c rounded once (C99 fmaf / fma: the FMA
   instruction where -march has it, else libm's correctly rounded software version; no fast-math).
   kernels/cpu/elementwise_fma.py calls it and keeps an exact numpy emulation for machines without a C compiler. */
#include <math.h>
#include <stdint.h>

void fma_f32(const float *a, const float *b, const float *c, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        out[i] = fmaf(a[i], b[i], c[i]);
}

void fma_f64(const double *a, const double *b, const double *c, double *out, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        out[i] = fma(a[i], b[i], c[i]);
}
