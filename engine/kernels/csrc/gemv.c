/* Decode-sized matrix products: y = x W^T for a few rows of x, the weight streamed from memory once.

   The weight is packed in blocks of 16 output rows, k-major: block b holds W[16b .. 16b+15][0 .. k-1]
   as k groups of 16, so a block is one sequential stream and each group feeds one 16-wide
   multiply-add per row of x (two 8-wide with AVX2; the last block is padded with zero rows). All rows
   of x run against a block while it is in cache, ROWS at a time (block.h: as many as the registers
   hold); ACC accumulators per row hide the add latency. The blocks are split over `threads` OpenMP
   threads: torch's own libgomp, already loaded, so torch's pool of threads (the count is passed,
   since an OpenMP thread count set in one thread does not reach another).

   Built and loaded by engine/kernels/native.py, which also packs the weights. */

#include <omp.h>

#include "block.h"
#include "expv.h"

/* Write a block's 16 results (fewer in a padded last block), scaled and biased where given. */
static inline void write_block(float *y, const float *out, long first, long n, const float *scale,
                               const float *bias) {
    long count = n - first < BLOCK ? n - first : BLOCK;
    for (long j = 0; j < count; j++) {
        float v = out[j];
        if (scale) v *= scale[first + j];
        if (bias) v += bias[first + j];
        y[first + j] = v;
    }
}

/* All m rows against block b: ROWS rows at a time, then one at a time. */
static inline void rows_of_block(const void *w, const float *x, float *y, long m, long n, long k, long b, int i8,
                                 const float *scale, const float *bias) {
    float out[ROWS][BLOCK];
    long r = 0;
    for (; r + ROWS <= m; r += ROWS) {
        block(w, x + r * k, k, ROWS, i8, out);
        for (int j = 0; j < ROWS; j++) write_block(y + (r + j) * n, out[j], b * BLOCK, n, scale, bias);
    }
    for (; r < m; r++) {
        block(w, x + r * k, k, 1, i8, out);
        write_block(y + r * n, out[0], b * BLOCK, n, scale, bias);
    }
}

/* x: m rows of k floats; y: m rows of n floats; bias may be NULL. */
void gemv_f32(const float *packed, const float *bias, const float *x, float *y, long m, long n, long k,
              int threads) {
    long blocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long b = 0; b < blocks; b++) rows_of_block(packed + b * k * BLOCK, x, y, m, n, k, b, 0, 0, bias);
}

/* All m rows against block b of a float32 weight of n outputs, the block given on its own (gguf.c's
   de-quantised copies). */
void block_rows_f32(const float *block, const float *bias, const float *x, float *y, long m, long n, long k,
                    long b) {
    rows_of_block(block, x, y, m, n, k, b, 0, 0, bias);
}

/* int8 weights with one float32 scale per output row: y = (x q^T) * scale + bias. */
void gemv_i8(const int8_t *packed, const float *scale, const float *bias, const float *x, float *y, long m, long n,
             long k, int threads) {
    long blocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long b = 0; b < blocks; b++) rows_of_block(packed + b * k * BLOCK, x, y, m, n, k, b, 1, scale, bias);
}

/* Row r's 16 outputs of a gate/up block pair: SiLU(gate) * up. Not inlined: inside the product's loop
   its constants took the accumulators' registers (the whole product ran 17 % slower). */
static __attribute__((noinline)) void silu_block(float *y, const float *gate, const float *up) {
    for (int p = 0; p < PARTS; p++) store(y + p * LANES, silu_times(load(gate + p * LANES), load(up + p * LANES)));
}

/* Block pair b of a [gate | up] weight (wg, wu: its gate block and its up block) against all m rows:
   SiLU(gate) * up into y's columns 16b .. 16b + 15 (rows of f). The gate block's m x 16 results wait in
   `gate` until the up block's come (gguf.c's de-quantised pairs run here too). */
void silu_block_pair(const float *wg, const float *wu, const float *x, float *y, long m, long f, long k, long b,
                     float *gate) {
    float up[ROWS][BLOCK];
    rows_of_block(wg, x, gate, m, BLOCK, k, 0, 0, 0, 0); /* the gate block: rows of 16 */
    long r = 0;
    for (; r + ROWS <= m; r += ROWS) {
        block(wu, x + r * k, k, ROWS, 0, up);
        for (int j = 0; j < ROWS; j++) silu_block(y + (r + j) * f + b * BLOCK, gate + (r + j) * BLOCK, up[j]);
    }
    for (; r < m; r++) {
        block(wu, x + r * k, k, 1, 0, up);
        silu_block(y + r * f + b * BLOCK, gate + r * BLOCK, up[0]);
    }
}

/* SiLU(x G^T) * (x U^T) for a [gate (f rows) | up (f rows)] weight packed as one, f a multiple of 16:
   y (m rows of f). Each thread takes a gate block and its up block in turn (silu_block_pair, its part of
   `scratch`: threads x m x 16 floats), so the (m, 2f) product is never written. The same numbers as
   gemv_f32 then silu_mul_f32. */
void gemv_silu_f32(const float *packed, const float *x, float *y, long m, long f, long k, float *scratch,
                   int threads) {
    long blocks = f / BLOCK;
#pragma omp parallel num_threads(threads)
    {
        float *gate = scratch + (long)omp_get_thread_num() * m * BLOCK;
#pragma omp for schedule(static)
        for (long b = 0; b < blocks; b++)
            silu_block_pair(packed + b * k * BLOCK, packed + (b + blocks) * k * BLOCK, x, y, m, f, k, b, gate);
    }
}

/* Floats per vector this build uses (block.h): 16 with AVX-512, 8 with AVX2, else 4. */
int vector_lanes(void) { return LANES; }
