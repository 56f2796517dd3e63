/* Decode-sized matrix products: y = x W^T for a few rows of x, the weight streamed from memory once.

   The weight is packed in blocks of 16 output rows, k-major: block b holds W[16b .. 16b+15][0 .. k-1]
   as k groups of 16, so a block is one sequential stream and each group feeds one 16-wide multiply-add
   per row of x (the last block is padded with zero rows). All rows of x run against a block while it
   is in cache, four at a time. Four accumulators per block hide the add latency. The blocks are split
   over `threads` OpenMP threads: torch's own libgomp, already loaded, so torch's pool of threads
   (the count is passed, since an OpenMP thread count set in one thread does not reach another).

   Built and loaded by engine/native.py, which also packs the weights. */

#include "block.h"

/* Write a block's 16 results (fewer in a padded last block), scaled and biased where given. */
static inline void store(float *y, v16f s, long first, long n, const float *scale, const float *bias) {
    float out[BLOCK];
    memcpy(out, &s, 64);
    long count = n - first < BLOCK ? n - first : BLOCK;
    for (long j = 0; j < count; j++) {
        float v = out[j];
        if (scale) v *= scale[first + j];
        if (bias) v += bias[first + j];
        y[first + j] = v;
    }
}

/* All m rows against block b: four rows at a time, then one at a time. */
static inline void rows_of_block(const void *w, const float *x, float *y, long m, long n, long k, long b, int i8,
                                 const float *scale, const float *bias) {
    v16f out[4];
    long r = 0;
    for (; r + 4 <= m; r += 4) {
        block(w, x + r * k, k, 4, i8, out);
        for (int j = 0; j < 4; j++) store(y + (r + j) * n, out[j], b * BLOCK, n, scale, bias);
    }
    for (; r < m; r++) {
        block(w, x + r * k, k, 1, i8, out);
        store(y + r * n, out[0], b * BLOCK, n, scale, bias);
    }
}

/* x: m rows of k floats; y: m rows of n floats; bias may be NULL. */
void gemv_f32(const float *packed, const float *bias, const float *x, float *y, long m, long n, long k,
              int threads) {
    long blocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long b = 0; b < blocks; b++) rows_of_block(packed + b * k * BLOCK, x, y, m, n, k, b, 0, 0, bias);
}

/* int8 weights with one float32 scale per output row: y = (x q^T) * scale + bias. */
void gemv_i8(const int8_t *packed, const float *scale, const float *bias, const float *x, float *y, long m, long n,
             long k, int threads) {
    long blocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long b = 0; b < blocks; b++) rows_of_block(packed + b * k * BLOCK, x, y, m, n, k, b, 1, scale, bias);
}
