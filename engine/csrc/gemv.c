/* Decode-sized matrix products: y = x W^T for a few rows of x, the weight streamed from memory once.

   The weight is packed in blocks of 16 output rows, k-major: block b holds W[16b .. 16b+15][0 .. k-1]
   as k groups of 16, so a block is one sequential stream and each group feeds one 16-wide multiply-add
   per row of x (the last block is padded with zero rows). All rows of x run against a block while it
   is in cache, four at a time. Four accumulators per block hide the add latency. The blocks are split
   over `threads` OpenMP threads: torch's own libgomp, already loaded, so torch's pool of threads
   (the count is passed, since an OpenMP thread count set in one thread does not reach another).

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

/* Group i of a packed block (its 16 weights at input i) as floats: int8 ones widened. `i8` is a
   constant wherever this is inlined, so each kernel compiles to its own loop. */
static inline v16f group(const void *w, long i, int i8) {
    if (i8) return widen((const int8_t *)w + i * BLOCK);
    v16f g;
    memcpy(&g, (const float *)w + i * BLOCK, 64);
    return g;
}

/* One packed block against R rows of x (R = 1 or 4): the 16 dot products of each row. Each row sums
   in the same order whatever R is (four accumulators by i mod 4), so a row's numbers do not depend on
   how many rows share the call; with R = 4 each group of weights is loaded (and widened) once for
   four rows: what makes the kernel usable for a prefill. */
static inline void block(const void *w, const float *x, long k, int rows, int i8, v16f *out) {
    v16f a[4][4] = {{{0}}};
    long i = 0;
    for (; i + 4 <= k; i += 4) {
        v16f g0 = group(w, i, i8), g1 = group(w, i + 1, i8), g2 = group(w, i + 2, i8), g3 = group(w, i + 3, i8);
        for (int r = 0; r < rows; r++) {
            const float *xr = x + r * k + i;
            a[r][0] += g0 * xr[0];
            a[r][1] += g1 * xr[1];
            a[r][2] += g2 * xr[2];
            a[r][3] += g3 * xr[3];
        }
    }
    for (; i < k; i++) {
        v16f g = group(w, i, i8);
        for (int r = 0; r < rows; r++) a[r][0] += g * x[r * k + i];
    }
    for (int r = 0; r < rows; r++) out[r] = (a[r][0] + a[r][1]) + (a[r][2] + a[r][3]);
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
