/* A decode step through every layer in one call: each row of h is one sequence's one new token.

   Per layer, as engine/models/llama.py's forward: RMSNorm, the fused q/k/v product (gemv.c), Qwen3's q/k
   norms, RoPE (rotate-half, the sign kept in the sin table), the new K and V written to their slots
   in the float32 pool, each head's 1 x C row of scores against its context read through the
   sequence's block table (grouped-query: a KV head serves heads / kv_heads query heads), softmax,
   the weighted sum of V, the output product and the residual; then RMSNorm, gate/up, SiLU(gate) *
   up, down and the residual. The torch forward spends ~15 small operators per layer on the parts
   between the matrix products (a few microseconds each, plus Python): here they are a few loops.

   Scratch comes from the caller (torch tensors, so the memory probe sees them). Each row's numbers
   depend on its own inputs only: the products sum a row alike alone or with others (gemv.c), and
   attention runs per row. Built and loaded with the other kernels by engine/kernels/native.py. */

#include "block.h"

void gemv_f32(const float *packed, const float *bias, const float *x, float *y, long m, long n, long k, int threads);
void gemv_i8(const int8_t *packed, const float *scale, const float *bias, const float *x, float *y, long m,
             long n, long k, int threads);
void gemv_quant(const uint8_t *packed, int q4, const float *bias, const float *x, float *y, long m, long n, long k,
                int threads);
void rms_norm_f32(const float *x, const float *w, float *y, long m, long k, float eps, int threads);
void silu_mul_f32(const float *gu, float *out, long rows, long f, int threads);
void softmax_f32(float *s, long seen, long width);
void rope_f32(const float *x, long row, float *out, long rows, long heads, long d, const float *cos,
              const float *sin_rot, long table_row, int threads);

/* Attention over fewer keys than this (summed over rows and heads) stays on one thread: waking the
   others costs more than the work. */
#ifndef PARALLEL_KEYS
#define PARALLEL_KEYS 2048
#endif

typedef struct {
    const void *w;        /* packed by engine/kernels/native.py (engine/layers/gguf_weights.py for GGUF blocks) */
    const float *scale;   /* int8 weights: a scale per output row; float32 weights: NULL */
    const float *bias;    /* or NULL */
    long n, k;
    int kind;             /* 0: float32 or int8 (by scale); GGUF blocks: 1 Q4_1, 2 Q8_0 */
} linear_t;

typedef struct {
    const float *attn_norm, *mlp_norm, *q_norm, *k_norm; /* q/k norms: Qwen3 only, else NULL */
    linear_t qkv, o, gate_up, down;
} layer_t;

typedef struct {
    long layers, hidden, heads, kv_heads, head_dim, ffn;
    float eps, scale;
    const layer_t *layer;
} model_t;

/* One step's rows: where each token sits and what it sees. */
typedef struct {
    long rows;
    const long *positions;    /* RoPE position of each row */
    const long *write_slots;  /* the pool slot its K and V go to */
    const long *context_lens; /* keys it attends to, itself included */
    const long *tables;       /* rows x table_width block ids, in order */
    long table_width, block_size;
    float *kv;                /* the pool: (layers, 2, kv_heads, num_slots, head_dim) float32 */
    long num_slots;
    const float *cos, *sin_rot; /* (positions, head_dim) tables */
} step_t;

static void linear(const linear_t *l, const float *x, float *y, long m, int threads) {
    if (l->kind)
        gemv_quant(l->w, l->kind == 1, l->bias, x, y, m, l->n, l->k, threads);
    else if (l->scale)
        gemv_i8(l->w, l->scale, l->bias, x, y, m, l->n, l->k, threads);
    else
        gemv_f32(l->w, l->bias, x, y, m, l->n, l->k, threads);
}

/* One query head of one row against its context: softmax(q K^T * scale) V into out (d). */
static void attend(const float *q, const float *k, const float *v, const step_t *s, long row, long d, float scale,
                   float *scores, float *out) {
    const long *table = s->tables + row * s->table_width;
    long n = s->context_lens[row], bs = s->block_size;
    for (long j = 0; j < n; j++) scores[j] = dot(q, k + (table[j / bs] * bs + j % bs) * d, d) * scale;
    softmax_f32(scores, n, n);
    memset(out, 0, d * sizeof(float));
    for (long j = 0; j < n; j++) {
        const float *vj = v + (table[j / bs] * bs + j % bs) * d;
        for (long i = 0; i < d; i++) out[i] += scores[j] * vj[i];
    }
}

/* One layer's attention block: h (rows, hidden) gains the attention output. */
static void attention(const model_t *m, long li, const step_t *s, float *h, float *x, float *qkv, float *att,
                      float *y, float *scores, long max_context, int threads) {
    const layer_t *l = &m->layer[li];
    long d = m->head_dim, H = m->heads, G = m->kv_heads, rows = s->rows;
    long width = (H + 2 * G) * d, hidden = m->hidden;
    rms_norm_f32(h, l->attn_norm, x, rows, hidden, m->eps, threads);
    linear(&l->qkv, x, qkv, rows, threads);
    float *kpool = s->kv + (li * 2 + 0) * G * s->num_slots * d, *vpool = s->kv + (li * 2 + 1) * G * s->num_slots * d;
    for (long r = 0; r < rows; r++) {
        float *q = qkv + r * width, *k = q + H * d, *v = k + G * d;
        if (l->q_norm) {
            rms_norm_f32(q, l->q_norm, q, H, d, m->eps, 1);
            rms_norm_f32(k, l->k_norm, k, G, d, m->eps, 1);
        }
        const float *c = s->cos + s->positions[r] * d, *sn = s->sin_rot + s->positions[r] * d;
        rope_f32(q, H * d, q, 1, H, d, c, sn, d, 1);
        rope_f32(k, G * d, k, 1, G, d, c, sn, d, 1);
        for (long g = 0; g < G; g++) {
            memcpy(kpool + (g * s->num_slots + s->write_slots[r]) * d, k + g * d, d * sizeof(float));
            memcpy(vpool + (g * s->num_slots + s->write_slots[r]) * d, v + g * d, d * sizeof(float));
        }
    }
    long pairs = rows * H, work = 0;
    for (long r = 0; r < rows; r++) work += s->context_lens[r] * H;
#pragma omp parallel for schedule(static) num_threads(threads) if (work > PARALLEL_KEYS)
    for (long p = 0; p < pairs; p++) {
        long r = p / H, head = p % H, g = head / (H / G);
        attend(qkv + r * width + head * d, kpool + g * s->num_slots * d, vpool + g * s->num_slots * d, s, r, d,
               m->scale, scores + p * max_context, att + r * H * d + head * d);
    }
    linear(&l->o, att, y, rows, threads);
    for (long i = 0; i < rows * hidden; i++) h[i] += y[i];
}

/* One layer's MLP block: h gains down(SiLU(gate) * up). */
static void mlp(const model_t *m, long li, long rows, float *h, float *x, float *gu, float *act, float *y,
                int threads) {
    const layer_t *l = &m->layer[li];
    long f = m->ffn, hidden = m->hidden;
    rms_norm_f32(h, l->mlp_norm, x, rows, hidden, m->eps, threads);
    linear(&l->gate_up, x, gu, rows, threads);
    silu_mul_f32(gu, act, rows, f, threads);
    linear(&l->down, act, y, rows, threads);
    for (long i = 0; i < rows * hidden; i++) h[i] += y[i];
}

/* h: (rows, hidden), in place. scratch: decode_scratch_floats(m, rows) floats; scores: rows * heads *
   max_context floats (max_context: the longest context_len). */
void decode_layers(const model_t *m, const step_t *s, float *h, float *scratch, float *scores, long max_context,
                   int threads) {
    long rows = s->rows, d = m->head_dim;
    float *x = scratch, *qkv = x + rows * m->hidden, *att = qkv + rows * (m->heads + 2 * m->kv_heads) * d;
    float *gu = att + rows * m->heads * d, *act = gu + rows * 2 * m->ffn, *y = act + rows * m->ffn;
    for (long li = 0; li < m->layers; li++) {
        attention(m, li, s, h, x, qkv, att, y, scores, max_context, threads);
        mlp(m, li, rows, h, x, gu, act, y, threads);
    }
}

long decode_scratch_floats(const model_t *m, long rows) {
    long d = m->head_dim;
    return rows * (2 * m->hidden + (2 * m->heads + 2 * m->kv_heads) * d + 3 * m->ffn);
}
