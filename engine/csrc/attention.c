/* Causal attention of a prefill (or a chunk of one) in float32: T new queries at positions P .. P+T-1
   against C = P + T keys, query t seeing keys 0 .. P+t. Grouped-query: KV head g serves query heads
   g * H/G .. (g+1) * H/G - 1. The head size must be a multiple of 16.

   Keys are packed once per call in blocks of 16 keys, k-major (block.h's layout), so a tile of 16
   queries gets its scores with the matrix-product inner loop (four queries per pass); only the key
   blocks a tile can see are computed (the causal triangle's upper half is skipped). Then each query's
   softmax over its own keys (a vectorised exp), and the weighted sum of V, four queries and the 16-wide
   slices of the head together. A tile's scores are the only ones alive (16 x C per thread), never the
   T x C matrix. Tiles are split over the threads, as they come (later tiles see more keys).

   Built and loaded with the other kernels by engine/native.py. */

#include <math.h>
#include <omp.h>

#include "block.h"
#include "exp16.h"

#define TILE 16

/* Keys of one KV head in blocks of 16 (zero keys pad the last): block b, index d, lane j = K[16b + j][d]. */
static void pack_keys(const float *k, long row, long C, long D, float *out) {
    for (long b = 0; b < (C + BLOCK - 1) / BLOCK; b++)
        for (long j = 0; j < BLOCK; j++)
            for (long d = 0; d < D; d++) out[(b * D + d) * BLOCK + j] = 16 * b + j < C ? k[(16 * b + j) * row + d] : 0;
}

/* Scores of rows [r0, r0 + n) of a tile (their queries contiguous in q, D wide) against key blocks
   [0, blocks): s[r][key], rows of `stride` floats. */
static void scores(const float *packed, const float *q, long n, long D, long blocks, float *s, long stride) {
    v16f out[4];
    for (long b = 0; b < blocks; b++) {
        const float *w = packed + b * D * BLOCK;
        long r = 0;
        for (; r + 4 <= n; r += 4) {
            block(w, q + r * D, D, 4, 0, out);
            for (int i = 0; i < 4; i++) memcpy(s + (r + i) * stride + b * BLOCK, &out[i], 64);
        }
        for (; r < n; r++) {
            block(w, q + r * D, D, 1, 0, out);
            memcpy(s + r * stride + b * BLOCK, &out[0], 64);
        }
    }
}

/* Row s (its first `seen` entries are scores, already scaled): softmax in place, zeros up to `width`.
   decode.c's attention uses it too. */
void softmax_f32(float *s, long seen, long width) {
    typedef int v16i __attribute__((vector_size(64)));
    v16f most = {0}, x;
    most -= INFINITY;
    long j = 0;
    for (; j + 16 <= seen; j += 16) {
        memcpy(&x, s + j, 64);
        v16i more = x > most;
        most = (v16f)(((v16i)x & more) | ((v16i)most & ~more));
    }
    float top = -INFINITY;
    for (int i = 0; i < 16; i++) top = most[i] > top ? most[i] : top;
    for (; j < seen; j++) top = s[j] > top ? s[j] : top;
    v16f acc = {0};
    for (j = 0; j + 16 <= seen; j += 16) {
        memcpy(&x, s + j, 64);
        x = exp16(x - top);
        acc += x;
        memcpy(s + j, &x, 64);
    }
    float sum = 0;
    for (int i = 0; i < 16; i++) sum += acc[i];
    for (; j < seen; j++) sum += s[j] = expf(s[j] - top);
    float inv = 1.0f / sum;
    for (j = 0; j < seen; j++) s[j] *= inv;
    for (; j < width; j++) s[j] = 0;
}

/* acc rows x slices of 16 = p rows (width keys each) times V's slices [c, c + slices): one V line
   loaded per key for all rows. Inlined with constant counts in the common case (all in registers). */
static inline __attribute__((always_inline)) void weighted_rows(const float *p, long stride, long rows, long width,
                                                                const float *v, long row, long c, long slices,
                                                                float *out, long out_row) {
    v16f acc[4][4] = {{{0}}};
    for (long j = 0; j < width; j++) {
        v16f vj[4];
        for (long i = 0; i < slices; i++) memcpy(&vj[i], v + j * row + (c + i) * BLOCK, 64);
        for (long r = 0; r < rows; r++) {
            float pr = p[r * stride + j];
            for (long i = 0; i < slices; i++) acc[r][i] += vj[i] * pr;
        }
    }
    for (long r = 0; r < rows; r++)
        for (long i = 0; i < slices; i++) memcpy(out + r * out_row + (c + i) * BLOCK, &acc[r][i], 64);
}

/* out rows [0, n) = p rows (width keys each) times V (keys x D, `row` floats apart), four rows and
   four 16-wide slices of the head at a time. */
static void weighted_sum(const float *p, long stride, long n, long width, const float *v, long row, long D,
                         float *out, long out_row) {
    long slices = D / BLOCK;
    for (long r0 = 0; r0 < n; r0 += 4)
        for (long c = 0; c < slices; c += 4) {
            long rows = n - r0 < 4 ? n - r0 : 4, cs = slices - c < 4 ? slices - c : 4;
            const float *pr = p + r0 * stride;
            float *o = out + r0 * out_row;
            if (rows == 4 && cs == 4)
                weighted_rows(pr, stride, 4, width, v, row, c, 4, o, out_row);
            else
                weighted_rows(pr, stride, rows, width, v, row, c, cs, o, out_row);
        }
}

/* q[t * q_row + h * q_head + d], likewise k and v (per KV head) and out. kpack: G * blocks(C) * 16 * D
   floats; scratch: threads * TILE * (D + blocks(C) * 16) floats. Returns 0, or -1 where D is not a
   multiple of 16 (nothing written). */
int attention_prefill(const float *q, long q_row, long q_head, const float *k, long k_row, long k_head,
                      const float *v, long v_row, long v_head, float *out, long o_row, long o_head, long T, long C,
                      long H, long G, long D, float scale, float *kpack, float *scratch, int threads) {
    if (D % BLOCK || D > 256) return -1;
    long P = C - T, kblocks = (C + BLOCK - 1) / BLOCK, tiles = (T + TILE - 1) / TILE, stride = kblocks * BLOCK;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (long g = 0; g < G; g++) pack_keys(k + g * k_head, k_row, C, D, kpack + g * kblocks * BLOCK * D);
        float *qt = scratch + (long)omp_get_thread_num() * TILE * (D + stride), *s = qt + TILE * D;
#pragma omp for schedule(dynamic, 1)
        for (long task = 0; task < H * tiles; task++) {
            long h = task % H, t0 = (task / H) * TILE, g = h / (H / G);
            long n = T - t0 < TILE ? T - t0 : TILE, width = P + t0 + n; /* keys the tile's last query sees */
            for (long r = 0; r < n; r++) /* the scale goes on the queries: scores come out scaled */
                for (long d = 0; d < D; d++) qt[r * D + d] = q[(t0 + r) * q_row + h * q_head + d] * scale;
            scores(kpack + g * kblocks * BLOCK * D, qt, n, D, (width + BLOCK - 1) / BLOCK, s, stride);
            for (long r = 0; r < n; r++) softmax_f32(s + r * stride, P + t0 + r + 1, width);
            weighted_sum(s, stride, n, width, v + g * v_head, v_row, D, out + t0 * o_row + h * o_head, o_row);
        }
    }
    return 0;
}
