/* Matrix products on a GGUF file's own quantised blocks, never de-quantised in memory: Q4_1 (32 weights
   of a row share a float16 scale d and minimum m, each weight d * q + m with q a 4-bit integer) and
   Q8_0 (32 weights share d, each d * q with q an 8-bit integer).

   Each value d * q + m (or d * q) is exact in float32 before the add (an 11-bit significand times a
   4- or 8-bit integer), so one rounding gives gguf's own de-quantised float32 to the bit, and the sums
   here run in gemv.c's order (block.h): a layer computes the same numbers as the float32 model
   de-quantised from the same file, reading 5 bits a weight (Q4_1) or 8.5 (Q8_0) instead of 32.

   Packed (engine/layers/gguf_weights.py) as gemv.c's weights, in blocks of 16 output rows, each block a run of
   groups of 32 inputs: the 16 rows' d (float16), then Q4_1's 16 m, then the quantised weights input by
   input, 16 to an input (one per row). Q4_1 holds two inputs per byte: input 2p in the low nibble,
   2p + 1 in the high. A few rows (a decode step) de-quantise in registers as they are used; more (a
   prefill) de-quantise a block once into a float32 copy that gemv.c's loop then runs on.

   Built and loaded with the other kernels by engine/kernels/native.py. */

#include <omp.h>
#include <stdlib.h>

#include "block.h"

#define GROUP 32
#define Q4_1_BYTES (GROUP * BLOCK / 2 + 2 * BLOCK * 2) /* per group of a block: nibbles, d and m */
#define Q8_0_BYTES (GROUP * BLOCK + BLOCK * 2)         /* int8 weights and d */

void block_rows_f32(const float *block, const float *bias, const float *x, float *y, long m, long n, long k,
                    long b);
void silu_block_pair(const float *wg, const float *wu, const float *x, float *y, long m, long f, long k, long b,
                     float *gate);

/* One float16 (raw bits) as a float, exactly: where the machine has no conversion instruction. */
static inline float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff, bits;
    float f;
    if (exponent == 0x1f)
        bits = sign | 0x7f800000 | (mantissa << 13); /* infinity, NaN */
    else if (exponent)
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13); /* rebias 15 -> 127 */
    else { /* zero or subnormal: mantissa x 2^-24, exact in float32 */
        f = (float)mantissa * 0x1p-24f;
        memcpy(&bits, &f, 4);
        bits |= sign;
    }
    memcpy(&f, &bits, 4);
    return f;
}

/* LANES float16 values (raw bits) as floats. */
static inline vf halves(const uint8_t *p) {
    vf f;
#if defined(__AVX512F__)
    __m512 v = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p));
    memcpy(&f, &v, 64);
#elif defined(__F16C__)
    __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
    memcpy(&f, &v, 32);
#else
    for (int j = 0; j < LANES; j++) {
        uint16_t h;
        memcpy(&h, p + 2 * j, 2);
        f[j] = half_to_float(h);
    }
#endif
    return f;
}

/* LANES bytes of nibbles: the low ones (lo) and the high ones (hi) as floats. */
static inline void nibbles(const uint8_t *p, vf *lo, vf *hi) {
    vi v;
#if defined(__AVX512F__)
    __m512i w = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p));
    memcpy(&v, &w, 64);
#elif defined(__AVX2__)
    __m256i w = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
    memcpy(&v, &w, 32);
#else
    for (int j = 0; j < LANES; j++) v[j] = p[j];
#endif
    *lo = __builtin_convertvector(v & 15, vf);
    *hi = __builtin_convertvector(v >> 4, vf);
}

static inline long group_bytes(int q4) { return q4 ? Q4_1_BYTES : Q8_0_BYTES; }

/* Part p of inputs i and i + 1 (i even) of a block's group grp (Q4_1 when q4, else Q8_0) as floats,
   given the part's d and m (converted once per group): a Q4_1 byte holds both inputs. */
static inline void input_pair(const uint8_t *grp, int i, int p, int q4, vf d, vf m, vf *w0, vf *w1) {
    if (q4) {
        vf lo, hi;
        nibbles(grp + 4 * BLOCK + (i / 2) * BLOCK + p * LANES, &lo, &hi);
        *w0 = d * lo + m;
        *w1 = d * hi + m;
    } else {
        const int8_t *q = (const int8_t *)grp + 2 * BLOCK + i * BLOCK + p * LANES;
        *w0 = d * widen(q);
        *w1 = d * widen(q + BLOCK);
    }
}

/* Part p's d and m of a group (Q8_0 has no m: d stands in, unused). */
static inline void scale_and_min(const uint8_t *grp, int p, int q4, vf *d, vf *m) {
    *d = halves(grp + p * LANES * 2);
    *m = q4 ? halves(grp + 2 * BLOCK + p * LANES * 2) : *d;
}

/* block.h's block() on a quantised block (k a multiple of 32): the same accumulators, each summing its
   inputs in the same order. */
static inline void quant_block(const uint8_t *w, const float *x, long k, int rows, int q4, float out[][BLOCK]) {
    vf a[ROWS][ACC][PARTS] = {{{{0}}}};
    for (long g = 0; g < k / GROUP; g++) {
        const uint8_t *grp = w + g * group_bytes(q4);
        const float *xg = x + g * GROUP;
        for (int p = 0; p < PARTS; p++) {
            vf d, m;
            scale_and_min(grp, p, q4, &d, &m);
            for (int i = 0; i < GROUP; i += ACC) {
                vf wv[ACC];
                for (int u = 0; u < ACC; u += 2) input_pair(grp, i + u, p, q4, d, m, &wv[u], &wv[u + 1]);
                for (int r = 0; r < rows; r++)
                    for (int u = 0; u < ACC; u++) a[r][u][p] += wv[u] * xg[r * k + i + u];
            }
        }
    }
    sum_accumulators(a, rows, out);
}

/* One block as gemv.c's float32 block: k groups of 16. */
static void dequantize_block(const uint8_t *w, long k, int q4, float *out) {
    for (long g = 0; g < k / GROUP; g++) {
        const uint8_t *grp = w + g * group_bytes(q4);
        for (int p = 0; p < PARTS; p++) {
            vf d, m, w0, w1;
            scale_and_min(grp, p, q4, &d, &m);
            for (int i = 0; i < GROUP; i += 2) {
                input_pair(grp, i, p, q4, d, m, &w0, &w1);
                store(out + (g * GROUP + i) * BLOCK + p * LANES, w0);
                store(out + (g * GROUP + i + 1) * BLOCK + p * LANES, w1);
            }
        }
    }
}

static inline void write_rows(float *y, float out[][BLOCK], int rows, long first, long n, const float *bias) {
    long count = n - first < BLOCK ? n - first : BLOCK;
    for (int r = 0; r < rows; r++)
        for (long j = 0; j < count; j++) y[r * n + first + j] = bias ? out[r][j] + bias[first + j] : out[r][j];
}

/* Rows [0, m) of x against one quantised block, in registers, ROWS rows a pass (constant counts inlined). */
static inline __attribute__((always_inline)) void rows_in_registers(const uint8_t *w, const float *x, float *y,
                                                                   long m, long n, long k, long b, int q4,
                                                                   const float *bias) {
    float out[ROWS][BLOCK];
    long r = 0;
    for (; r + ROWS <= m; r += ROWS) {
        quant_block(w, x + r * k, k, ROWS, q4, out);
        write_rows(y + r * n, out, ROWS, b * BLOCK, n, bias);
    }
    for (; r < m; r++) {
        quant_block(w, x + r * k, k, 1, q4, out);
        write_rows(y + r * n, out, 1, b * BLOCK, n, bias);
    }
}

/* y (m rows of n) = x (m rows of k, k a multiple of 32) against a packed Q4_1 (q4) or Q8_0 weight; bias may
   be NULL. Past one pass of rows, each block is de-quantised once into a float32 copy that gemv.c's loop
   runs on (where that copy cannot be allocated, the rows run in registers: the same numbers, slower). */
void gemv_quant(const uint8_t *packed, int q4, const float *bias, const float *x, float *y, long m, long n, long k,
                int threads) {
    long blocks = (n + BLOCK - 1) / BLOCK, bytes = (k / GROUP) * group_bytes(q4);
#pragma omp parallel num_threads(threads)
    {
        float *copy = m > ROWS ? malloc(k * BLOCK * sizeof(float)) : NULL; /* this thread's, k x 16 */
#pragma omp for schedule(static)
        for (long b = 0; b < blocks; b++) {
            const uint8_t *w = packed + b * bytes;
            if (copy) {
                dequantize_block(w, k, q4, copy);
                block_rows_f32(copy, bias, x, y, m, n, k, b);
            } else if (q4) /* a constant each way: each inlined copy is its own loop */
                rows_in_registers(w, x, y, m, n, k, b, 1, bias);
            else
                rows_in_registers(w, x, y, m, n, k, b, 0, bias);
        }
        free(copy);
    }
}

/* gemv.c's gemv_silu_f32 on a quantised [gate (f rows) | up (f rows)] weight, f a multiple of 16: each
   block pair de-quantised once into this thread's part of `copies` (threads x 2 x k x 16 floats), then
   gemv.c's pair loop (`scratch` as there). The same numbers as gemv_quant then silu_mul_f32. */
void gemv_quant_silu(const uint8_t *packed, int q4, const float *x, float *y, long m, long f, long k, float *copies,
                     float *scratch, int threads) {
    long blocks = f / BLOCK, bytes = (k / GROUP) * group_bytes(q4);
#pragma omp parallel num_threads(threads)
    {
        int me = omp_get_thread_num();
        float *wg = copies + (long)me * 2 * k * BLOCK, *wu = wg + k * BLOCK, *gate = scratch + (long)me * m * BLOCK;
#pragma omp for schedule(static)
        for (long b = 0; b < blocks; b++) {
            dequantize_block(packed + b * bytes, k, q4, wg);
            dequantize_block(packed + (b + blocks) * bytes, k, q4, wu);
            silu_block_pair(wg, wu, x, y, m, f, k, b, gate);
        }
    }
}
