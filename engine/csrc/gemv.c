/* Decode-sized matrix products: y = x W^T for a few rows of x, the weight streamed from memory once.

   The weight is packed in blocks of 16 output rows, k-major: block b holds W[16b .. 16b+15][0 .. k-1]
   as k groups of 16, so a block is one sequential stream and each group feeds one 16-wide multiply-add
   per row of x (the last block is padded with zero rows). All rows of x run against a block while it
   is in cache. The blocks are split over OpenMP threads: torch's own libgomp (already loaded, so the
   same threads and torch.set_num_threads's count). Four accumulators per block hide the add latency.

   Built and loaded by engine/native.py, which also packs the weights. */

#include <stdint.h>
#include <string.h>
#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#define BLOCK 16
typedef float v16f __attribute__((vector_size(64)));

/* 16 int8 -> 16 float32. gcc's generic vector conversion goes through scalar code, so the x86
   sign-extend-and-convert instructions are named where the compiler targets them. */
static inline v16f widen(const int8_t *q) {
    v16f f;
#if defined(__AVX512F__)
    __m512 w = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)q)));
    memcpy(&f, &w, 64);
#elif defined(__AVX2__)
    __m256 w[2] = {_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)q))),
                   _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(q + 8))))};
    memcpy(&f, w, 64);
#else
    for (int j = 0; j < BLOCK; j++) f[j] = (float)q[j];
#endif
    return f;
}

/* One packed float32 block against one row of x: the 16 dot products. */
static inline v16f block_f32(const float *w, const float *x, long k) {
    v16f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, g;
    long i = 0;
    for (; i + 4 <= k; i += 4) {
        memcpy(&g, w + (i + 0) * BLOCK, 64); a0 += g * x[i + 0];
        memcpy(&g, w + (i + 1) * BLOCK, 64); a1 += g * x[i + 1];
        memcpy(&g, w + (i + 2) * BLOCK, 64); a2 += g * x[i + 2];
        memcpy(&g, w + (i + 3) * BLOCK, 64); a3 += g * x[i + 3];
    }
    for (; i < k; i++) {
        memcpy(&g, w + i * BLOCK, 64);
        a0 += g * x[i];
    }
    return (a0 + a1) + (a2 + a3);
}

/* The same on int8 weights: each group of 16 bytes widened to float in registers. */
static inline v16f block_i8(const int8_t *q, const float *x, long k) {
    v16f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    long i = 0;
    for (; i + 4 <= k; i += 4) {
        a0 += widen(q + (i + 0) * BLOCK) * x[i + 0];
        a1 += widen(q + (i + 1) * BLOCK) * x[i + 1];
        a2 += widen(q + (i + 2) * BLOCK) * x[i + 2];
        a3 += widen(q + (i + 3) * BLOCK) * x[i + 3];
    }
    for (; i < k; i++) a0 += widen(q + i * BLOCK) * x[i];
    return (a0 + a1) + (a2 + a3);
}

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

/* x: m rows of k floats; y: m rows of n floats; bias may be NULL. */
void gemv_f32(const float *packed, const float *bias, const float *x, float *y, long m, long n, long k) {
    long blocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static)
    for (long b = 0; b < blocks; b++)
        for (long r = 0; r < m; r++)
            store(y + r * n, block_f32(packed + b * k * BLOCK, x + r * k, k), b * BLOCK, n, 0, bias);
}

/* int8 weights with one float32 scale per output row: y = (x q^T) * scale + bias. */
void gemv_i8(const int8_t *packed, const float *scale, const float *bias, const float *x, float *y, long m, long n,
             long k) {
    long blocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static)
    for (long b = 0; b < blocks; b++)
        for (long r = 0; r < m; r++)
            store(y + r * n, block_i8(packed + b * k * BLOCK, x + r * k, k), b * BLOCK, n, scale, bias);
}
