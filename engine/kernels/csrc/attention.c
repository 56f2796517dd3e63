/* Causal attention of a prefill (or a chunk of one) in float32: T new queries at positions P .. P+T-1
   against C = P + T keys, query t seeing keys 0 .. P+t. Grouped-query: KV head g serves query heads
   g * H/G .. (g+1) * H/G - 1. The head size must be a multiple of 16.

   Keys are packed once per call in blocks of 16 keys, k-major (block.h's layout), so a tile of 16
   queries gets its scores with the matrix-product inner loop (block.h's ROWS queries per pass); only
   the key blocks a tile can see are computed (the causal triangle's upper half is skipped). Then each
   query's softmax over its own keys (a vectorised exp; the division by the sum waits for the output),
   and the weighted sum of V, ROWS queries and four vectors of the head together. A tile's scores are
   the only ones alive (16 x C per thread), never the T x C matrix. Tiles are split over the threads,
   as they come (later tiles see more keys).

   Built and loaded with the other kernels by engine/kernels/native.py. */

#include <math.h>
#include <omp.h>

#include "block.h"
#include "expv.h"

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
    float out[ROWS][BLOCK];
    for (long b = 0; b < blocks; b++) {
        const float *w = packed + b * D * BLOCK;
        long r = 0;
        for (; r + ROWS <= n; r += ROWS) {
            block(w, q + r * D, D, ROWS, 0, out);
            for (int i = 0; i < ROWS; i++) memcpy(s + (r + i) * stride + b * BLOCK, out[i], sizeof out[i]);
        }
        for (; r < n; r++) {
            block(w, q + r * D, D, 1, 0, out);
            memcpy(s + r * stride + b * BLOCK, out[0], sizeof out[0]);
        }
    }
}

/* Row s (its first `seen` entries are scores, already scaled): e^(s - max) in place, zeros up to
   `width`; returns 1 / the sum, the softmax's normaliser (applied once to the weighted sum's output
   rather than to every score). */
static float softmax_exp(float *s, long seen, long width) {
    vf most[4], x;
    for (int u = 0; u < 4; u++) most[u] = (vf){0} - INFINITY;
    long j = 0;
    for (; j + 4 * LANES <= seen; j += 4 * LANES) /* four chains: each max waits for the one before */
        for (int u = 0; u < 4; u++) most[u] = vmax(most[u], load(s + j + u * LANES));
    for (; j + LANES <= seen; j += LANES) most[0] = vmax(most[0], load(s + j));
    most[0] = vmax(vmax(most[0], most[1]), vmax(most[2], most[3]));
    float top = -INFINITY;
    for (int i = 0; i < LANES; i++) top = most[0][i] > top ? most[0][i] : top;
    for (; j < seen; j++) top = s[j] > top ? s[j] : top;
    vf acc = {0};
    for (j = 0; j + LANES <= seen; j += LANES) {
        x = expv(load(s + j) - top);
        acc += x;
        store(s + j, x);
    }
    float sum = 0;
    for (int i = 0; i < LANES; i++) sum += acc[i];
    for (; j < seen; j++) sum += s[j] = expf(s[j] - top);
    for (j = seen; j < width; j++) s[j] = 0;
    return 1.0f / sum;
}

/* The normalised softmax of a row's first `seen` scores, zeros up to `width` (decode.c's attention). */
void softmax_f32(float *s, long seen, long width) {
    float inv = softmax_exp(s, seen, width);
    for (long j = 0; j < seen; j++) s[j] *= inv;
}

/* acc rows x slices of LANES = p rows (width keys each) times V's slices [c, c + slices), each row
   scaled by its inv at the end: one V line loaded per key for all rows. Inlined with constant counts
   in the common case (all in registers). */
static inline __attribute__((always_inline)) void weighted_rows(const float *p, long stride, long rows, long width,
                                                                const float *v, long row, long c, long slices,
                                                                const float *inv, float *out, long out_row) {
    vf acc[ROWS][4] = {{{0}}};
    for (long j = 0; j < width; j++) {
        vf vj[4];
        for (long i = 0; i < slices; i++) {
            vj[i] = load(v + j * row + (c + i) * LANES);
            IN_REGISTER(vj[i]);
        }
        for (long r = 0; r < rows; r++) {
            float pr = p[r * stride + j];
            for (long i = 0; i < slices; i++) acc[r][i] += vj[i] * pr;
        }
    }
    for (long r = 0; r < rows; r++)
        for (long i = 0; i < slices; i++) store(out + r * out_row + (c + i) * LANES, acc[r][i] * inv[r]);
}

/* out rows [0, n) = p rows (width keys each) times V (keys x D, `row` floats apart), ROWS rows and
   four vectors of the head at a time. */
static void weighted_sum(const float *p, long stride, long n, long width, const float *v, long row, long D,
                         const float *inv, float *out, long out_row) {
    long slices = D / LANES;
    for (long r0 = 0; r0 < n; r0 += ROWS)
        for (long c = 0; c < slices; c += 4) {
            long rows = n - r0 < ROWS ? n - r0 : ROWS, cs = slices - c < 4 ? slices - c : 4;
            const float *pr = p + r0 * stride;
            float *o = out + r0 * out_row;
            if (rows == ROWS && cs == 4)
                weighted_rows(pr, stride, ROWS, width, v, row, c, 4, inv + r0, o, out_row);
            else
                weighted_rows(pr, stride, rows, width, v, row, c, cs, inv + r0, o, out_row);
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
            float inv[TILE];
            for (long r = 0; r < n; r++) inv[r] = softmax_exp(s + r * stride, P + t0 + r + 1, width);
            weighted_sum(s, stride, n, width, v + g * v_head, v_row, D, inv, out + t0 * o_row + h * o_head, o_row);
        }
    }
    return 0;
}
