"""Strings of the complexity lab, and its `t`: this table first, then the shared ones (ui/i18n.py).
{key: (en, zh)}; templates use str.format fields."""

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "cx_title": ("Complexity lab: what the KV cache saves", "复杂度实验室：KV 缓存省下了什么"),
    "cx_intro": (
        "[The source](/source) (section 5.5) says generating N tokens after an L-token prompt costs O(N³) without a KV cache "
        "and O(N²) with one. Here the engine runs both ways on the loaded model and counts every FLOP: the real "
        "exponents, which term (linear layers or attention) pays for them, and the worked example's tensor shapes "
        "for any model. Claims [C12](/claims?claim=C12)–[C15](/claims?claim=C15).",
        "[原文](/source)（5.5 节）说：在 L 个 token 的提示之后生成 N 个 token，没有 KV 缓存时总代价为 O(N³)，有缓存时为 "
        "O(N²)。这里引擎在已加载的模型上两种方式都跑一遍，并统计每一次浮点运算：真实的指数、由哪一项（线性层还是"
        "注意力）支付这些代价，以及任意模型的逐步张量形状示例。对应论断 [C12](/claims?claim=C12)–[C15](/claims?claim=C15)。",
    ),
    "cx_tab_cache": ("Cache on vs off (C13, C14)", "有缓存 vs 无缓存（C13、C14）"),
    "cx_tab_dominance": ("Which term dominates (C15)", "哪一项占主导（C15）"),
    "cx_tab_worked": ("Worked example (C12)", "逐步示例（C12）"),
    # --- section 1: cache on vs off --------------------------------------------------------
    "cx_cache_intro": (
        "Generates **N** tokens greedily after a prompt of **L** tokens, twice: with the KV cache (each decode step "
        "feeds one token and attends to the cached keys) and without it (each step feeds the whole context again: "
        "the O(N³) baseline). The tokens are identical both ways; only the cost differs. The cumulative charts are "
        "log-log: a power law is a straight line there and its slope is the exponent, fitted over log-spaced n from "
        "4 to the last step. Dotted: the document's Σ(L+t) (with the cache) and Σ(L+t)² (without), scaled to meet "
        "the measurement at the last step. The run holds the engine while it lasts (other sessions wait).",
        "在 **L** 个 token 的提示之后贪心生成 **N** 个 token，共两次：一次使用 KV 缓存（每个解码步只输入一个 token，"
        "对已缓存的键做注意力），一次不用（每一步都把整个上下文重新输入：即 O(N³) 基线）。两种方式生成的 token "
        "完全相同，只有代价不同。累计图为双对数坐标：幂律在其中是一条直线，斜率就是指数，在 n 从 4 到最后一步的"
        "对数等距点上拟合。点线：原文的 Σ(L+t)（有缓存）与 Σ(L+t)²（无缓存），缩放到在最后一步与测量值相交。"
        "运行期间独占引擎（其他会话需等待）。",
    ),
    "cx_L": ("prompt length L (tokens)", "提示长度 L（token）"),
    "cx_L_help": (
        "The prompt is ordinary English text cut to exactly L tokens.",
        "提示为普通英文文本，截取为恰好 L 个 token。",
    ),
    "cx_N": ("generated tokens N", "生成 token 数 N"),
    "cx_N_help": (
        "Each run generates N tokens (greedy, end-of-sequence ignored): 1 from the prefill, then N − 1 "
        "decode steps. Without the cache the time grows faster than N: N = 128 takes tens of seconds on "
        "a 2-core CPU.",
        "每次运行生成 N 个 token（贪心，忽略结束符）：1 个来自预填充，之后是 N − 1 个解码步。无缓存时耗时"
        "增长快于 N：在 2 核 CPU 上 N = 128 需要几十秒。",
    ),
    "cx_run": ("Run cache on vs off", "运行：有缓存 vs 无缓存"),
    "cx_running": (
        "Generating {N} tokens after {L} prompt tokens, with and without the KV cache…",
        "在 {L} 个提示 token 之后生成 {N} 个 token，分别使用与不使用 KV 缓存…",
    ),
    "cx_progress_on": ("with the KV cache: step {done} of {N}", "使用 KV 缓存：第 {done} / {N} 步"),
    "cx_progress_off": (
        "without the KV cache (recomputing the whole context): step {done} of {N}",
        "不使用 KV 缓存（每步重算整个上下文）：第 {done} / {N} 步",
    ),
    "cx_so_far": (
        "The run with the KV cache is done: its steps above. The run without the cache is going on; its "
        "curve and every other chart follow when it ends (no chart is redrawn while it is timed).",
        "使用 KV 缓存的一次已完成：上图是它的各步。不使用缓存的一次正在运行；它的曲线和其余图表在结束后给出"
        "（计时期间不重绘，以免占用 CPU）。",
    ),
    "cx_failed": ("The comparison could not run", "对比无法运行"),
    "cx_done": (
        "Done: {N} tokens after {L} prompt tokens, with and without the KV cache",
        "完成：在 {L} 个提示 token 之后生成 {N} 个 token，有缓存与无缓存各一次",
    ),
    "cx_not_run": (
        "Set L and N and press **Run cache on vs off**. A small N (such as 16) takes a few seconds.",
        "设置 L 与 N，然后点击 **运行：有缓存 vs 无缓存**。较小的 N（例如 16）只需几秒。",
    ),
    "cx_m_match": ("same tokens both ways", "两种方式 token 相同"),
    "cx_m_match_help": (
        "Greedy decoding with and without the cache must give the same tokens: the cache changes "
        "the cost, not the result.",
        "贪心解码在有无缓存时必须给出相同的 token：缓存改变的是代价，不是结果。",
    ),
    "cx_yes": ("yes", "是"),
    "cx_no": ("no", "否"),
    "cx_m_on": ("decode time, with cache", "解码耗时（有缓存）"),
    "cx_m_off": ("decode time, without cache", "解码耗时（无缓存）"),
    "cx_m_ratio": ("without / with", "无缓存 / 有缓存"),
    "cx_result_caption": (
        "{model}: L = {L} prompt tokens, N = {N} generated tokens. The first comes from the prefill (the same either "
        "way), the other {n} from decode steps, so the context grows to {last} tokens. Times are the engine's own "
        "per-step wall times; FLOPs are counted by its cost model.",
        "{model}：L = {L} 个提示 token，N = {N} 个生成 token。第一个来自预填充（两种方式相同），其余 {n} 个来自"
        "解码步，上下文增长到 {last} 个 token。时间为引擎记录的每步实际耗时；FLOPs 由其代价模型统计。",
    ),
    "cx_col_mode": ("run", "运行"),
    "cx_col_total_ms": ("decode ms", "解码毫秒"),
    "cx_col_slope_ms": ("slope: time", "斜率：时间"),
    "cx_col_slope_flops": ("slope: FLOPs", "斜率：FLOPs"),
    "cx_col_slope_doc_range": ("document's curve: slope here", "原文曲线：此处斜率"),
    "cx_col_slope_doc": ("document's exponent", "原文指数"),
    "cx_reading": (
        "**Reading it.** The contexts here stay at or below {last} tokens, far below where attention overtakes the "
        "linear layers on this model ({cross} tokens with the cache, {cross2} without: see *Which term dominates*). "
        "So the linear layers should set the cost. Expected: with the cache every step costs about the same and the "
        "total grows like n (slope ≈ 1, not the document's 2); without it a step costs about (L+t) × lin and the "
        "total follows Σ(L+t) (a slope between 1 and 2), not Σ(L+t)² (3). {measured}",
        "**怎么看。** 这里的上下文最多 {last} 个 token，远低于该模型上注意力超过线性层的位置（有缓存 {cross} 个 "
        "token，无缓存 {cross2} 个：见“哪一项占主导”）。因此代价应由线性层决定。预期：有缓存时每一步代价几乎相同，"
        "总代价随 n 线性增长（斜率 ≈ 1，而不是原文的 2）；无缓存时每一步约为 (L+t) × lin，总代价随 Σ(L+t) 增长"
        "（斜率介于 1 与 2 之间），而不是 Σ(L+t)²（3）。{measured}",
    ),
    "cx_reading_beyond": (
        "**Reading it.** The contexts here reach {last} tokens, past the point where attention overtakes the linear "
        "layers on this model ({cross} tokens with the cache, {cross2} without: see *Which term dominates*). "
        "Expected: the attention term shows, and the slopes climb toward the document's 2 (with the cache) and 3 "
        "(without). {measured}",
        "**怎么看。** 这里的上下文达到 {last} 个 token，已超过该模型上注意力超过线性层的位置（有缓存 {cross} 个 "
        "token，无缓存 {cross2} 个：见“哪一项占主导”）。预期：注意力项开始显现，斜率向原文的 2（有缓存）与 3（无缓存）"
        "攀升。{measured}",
    ),
    "cx_reading_measured": (
        "**Measured here:** slope of the total time {on_ms} with the cache, {off_ms} without; of the counted FLOPs "
        "{on_f} and {off_f}. Where time and FLOPs part, fixed per-step costs (Python, sampling, small kernels) "
        "flatten the time.",
        "**本次实测：**总时间的斜率有缓存 {on_ms}，无缓存 {off_ms}；统计的 FLOPs 斜率为 {on_f} 和 {off_f}。"
        "时间与 FLOPs 不一致之处，是每步固定开销（Python、采样、小算子）让时间曲线变平。",
    ),
    "cx_slope_busy": ("not judged (busy machine)", "不作判断（机器繁忙）"),
    "cx_slope_none": ("too few steps", "步数太少"),
    "cx_noise_note": (
        "Timings on a shared CPU vary from run to run (other processes, clock changes): the counted FLOPs are exact, "
        "the measured times are one sample. Run again to see the spread.",
        "共享 CPU 上的计时每次都会波动（其他进程、频率变化）：统计的 FLOPs 是精确的，实测时间只是一次采样。"
        "再运行一次即可看到波动范围。",
    ),
    "cx_text_header": ("Generated text (the same both ways)", "生成的文本（两种方式相同）"),
    # --- figures ------------------------------------------------------------------------------
    "cx_cache_on": ("with KV cache", "有 KV 缓存"),
    "cx_cache_off": ("without KV cache", "无 KV 缓存"),
    "cx_fig_step_ms": ("Time per decode step (measured)", "每个解码步的耗时（实测）"),
    "cx_fig_step_flops": ("FLOPs per decode step, by term (counted)", "每个解码步的 FLOPs，按项拆分（统计）"),
    "cx_fig_cum_ms": ("Cumulative decode time (log-log)", "累计解码耗时（双对数）"),
    "cx_fig_cum_flops": ("Cumulative counted FLOPs (log-log)", "累计统计 FLOPs（双对数）"),
    "cx_axis_context": ("context after the step, L + t (tokens)", "该步之后的上下文 L + t（token）"),
    "cx_axis_steps": ("decode steps n (log scale)", "解码步数 n（对数坐标）"),
    "cx_axis_gflop": ("GFLOP", "GFLOP"),
    "cx_term_linear": ("{cache}: linear layers", "{cache}：线性层"),
    "cx_term_attention": ("{cache}: attention", "{cache}：注意力"),
    "cx_measured": ("{cache}: measured, slope {slope}", "{cache}：实测，斜率 {slope}"),
    "cx_theory_sum1": ("document's Σ(L+t), scaled (slope {slope} here)", "原文的 Σ(L+t)，已缩放（此处斜率 {slope}）"),
    "cx_theory_sum2": ("document's Σ(L+t)², scaled (slope {slope} here)", "原文的 Σ(L+t)²，已缩放（此处斜率 {slope}）"),
    "cx_fig_cross": ("{model}: FLOPs of one decode step, by term", "{model}：单个解码步的 FLOPs（按项拆分）"),
    "cx_axis_context_c": ("context C (tokens, log scale)", "上下文 C（token，对数坐标）"),
    "cx_cross_on": ("attention overtakes, with cache: {n} tokens", "注意力反超（有缓存）：{n} 个 token"),
    "cx_cross_off": ("attention overtakes, without cache: {n} tokens", "注意力反超（无缓存）：{n} 个 token"),
    "cx_max_ctx": ("the model's context: {n} tokens", "模型上下文长度：{n} 个 token"),
    "cx_fig_exp": (
        "Apparent exponent of the total decode cost (N new tokens after L = N)",
        "总解码代价的表观指数（在 L = N 个提示 token 之后生成 N 个）",
    ),
    "cx_axis_n_eq_l": ("N = L (tokens, log scale)", "N = L（token，对数坐标）"),
    "cx_axis_exponent": ("d log(total FLOPs) / d log N", "d log(总 FLOPs) / d log N"),
    "cx_exp_model": ("{model}, {cache}", "{model}，{cache}"),
    "cx_doc_cubic": ("document: O(N³) without cache", "原文：无缓存 O(N³)"),
    "cx_doc_quadratic": ("document: O(N²) with cache", "原文：有缓存 O(N²)"),
    # --- section 2: which term dominates ------------------------------------------------------
    "cx_doc_wrong": (
        "**Where [the source document](/source) is wrong or loose**\n"
        "- **It contradicts itself ([C15](/claims?claim=C15)).** It derives an O(N³) total without a KV cache ([C13](/claims?claim=C13): every step recomputes "
        "all L+t tokens, Σ(L+t)² ≈ N·(L+N)²) and then concludes that without a KV cache the complexity is O(N²). "
        "The derivation is the right one, for the attention term.\n"
        "- **It counts attention only.** Every step also runs the linear layers (the Q, K, V and O projections and "
        "the MLP): lin FLOPs per token, O(d²). Without the cache a step feeds all C = L+t tokens through them, "
        "about C × lin, linear in C; the attention term a × C(C+1)/2 is quadratic, but a is tiny next to lin. "
        "Attention overtakes only past C* = 2 (lin − tail) / a: **{cross_off} tokens for LLaMA-7B**, far beyond its {ctx}-token "
        "context. Within any context LLaMA-7B can run, the no-cache total grows like lin × Σ(L+t) ≈ O(N·L + N²): "
        "quadratic, not cubic.\n"
        "- **With the cache ([C14](/claims?claim=C14))** a step costs lin + a × C: flat until C passes lin / a = {cross_on} tokens for "
        "LLaMA-7B, so in practice the total grows like N, not N². The O(N²) is the attention term alone.\n"
        "- **Both are asymptotic claims.** They say how the cost grows for large N, not what it is at the N you run; "
        "a log-log fit over a finite range reports something in between, as the exponent chart below shows.",
        "**[原文](/source)错误或不严谨之处**\n"
        "- **自相矛盾（[C15](/claims?claim=C15)）。** 它先推导出无 KV 缓存时总代价为 O(N³)（[C13](/claims?claim=C13)：每一步都重算全部 L+t 个 token，"
        "Σ(L+t)² ≈ N·(L+N)²），随后却得出“无 KV 缓存时复杂度为 O(N²)”的结论。推导本身是对的，但只针对注意力项。\n"
        "- **只计算了注意力。** 每一步还要经过线性层（Q、K、V、O 投影与 MLP）：每个 token lin 次浮点运算，"
        "O(d²)。无缓存时每一步把全部 C = L+t 个 token 送进线性层，代价约为 C × lin，对 C 是线性的；注意力项 "
        "a × C(C+1)/2 是二次的，但 a 远小于 lin。只有超过 C* = 2 (lin − tail) / a 之后注意力才占上风：**LLaMA-7B 为 "
        "{cross_off} 个 token**，远超其 {ctx} 个 token 的上下文。因此在 LLaMA-7B 能处理的任何上下文内，无缓存的"
        "总代价按 lin × Σ(L+t) ≈ O(N·L + N²) 增长：是二次的，不是三次的。\n"
        "- **有缓存时（[C14](/claims?claim=C14)）** 每一步代价为 lin + a × C：在 C 超过 lin / a（LLaMA-7B 为 {cross_on} 个 token）"
        "之前几乎不变，所以实际上总代价随 N 线性增长，而不是 N²。O(N²) 只是注意力项本身。\n"
        "- **两者都是渐近结论。** 它们描述 N 很大时代价如何增长，而不是你实际运行的 N 处的代价；在有限区间上做"
        "双对数拟合，得到的是介于两者之间的值，见下方的指数图。",
    ),
    "cx_formula_caption": (
        "lin: linear-layer FLOPs per token over all layers (Q, K, V and O projections and the gated MLP; d = hidden, "
        "q = heads × head_dim, kv = kv_heads × head_dim); a: attention FLOPs per query-key pair over all layers and "
        "heads (Q·Kᵀ and P·V, 2 FLOPs per multiply-add); tail: the last layer's O projection and MLP for one token, "
        "which only the sampled token goes through (the other C − 1 have made their K and V by then, all a later "
        "step needs of them). The LM head (2 × hidden × vocab per step) is the same with "
        "or without the cache and is left out of C*. These are the formulas that count the measured runs "
        "(the lab's own cost model).",
        "lin：每个 token 在所有层上的线性层 FLOPs（Q、K、V、O 投影与门控 MLP；d = 隐藏维度，q = 头数 × 头维度，"
        "kv = KV 头数 × 头维度）；a：每个查询-键对在所有层与头上的注意力 FLOPs（Q·Kᵀ 与 P·V，每次乘加计 2 "
        "FLOPs）；tail：最后一层的 O 投影与 MLP 对一个 token 的 FLOPs，只有被采样的 token 经过它们（其余 C − 1 "
        "个 token 此时已算出自己的 K 和 V，这是之后各步对它们的全部所需）。LM head（每步 2 × 隐藏维度 × 词表大小）有无缓存都一样，不计入 C*。实测运行的 FLOPs 也用这些公式统计"
        "（实验室自己的计算量模型）。",
    ),
    "cx_loaded_label": ("{name} (loaded)", "{name}（已加载）"),
    "cx_col_model": ("model", "模型"),
    "cx_col_lin": ("lin (GFLOP)", "lin（GFLOP）"),  # per token, as the caption says
    "cx_col_tail": ("tail (GFLOP)", "tail（GFLOP）"),
    "cx_col_a": ("a (FLOP)", "a（FLOP）"),  # per query-key pair, as the caption says
    "cx_col_cross_on": ("C* cached", "C*（有缓存）"),
    "cx_col_cross_off": ("C* uncached", "C*（无缓存）"),
    "cx_col_max_ctx": ("context", "上下文"),
    "cx_col_reached": ("C* uncached ≤ context", "无缓存 C* ≤ 上下文"),
    "cx_cross_pick": ("Model for the crossover chart", "反超图所用模型"),
    "cx_exp_pick": ("Models for the exponent chart", "指数图所用模型"),
    "cx_exp_none": ("Pick at least one model.", "请至少选择一个模型。"),
    "cx_cubic_from": (
        "- **{model}**: without the cache the total looks cubic (apparent exponent ≥ 2.5) only from "
        "N = L ≈ {n} tokens.",
        "- **{model}**：无缓存时，总代价只有从 N = L ≈ {n} 个 token 起才呈三次（表观指数 ≥ 2.5）。",
    ),
    "cx_exp_caption": (
        "What a log-log fit around N would report for N new tokens after N prompt tokens (the document's N ≈ L "
        "case), from the counted FLOPs: solid without the cache, dashed with it. Without the cache the exponent "
        "stays near 2 until the context nears the crossover and approaches 3 only past it; with the cache it stays "
        "near 1 until attention takes over, then approaches 2.",
        "在 N 个提示 token 之后生成 N 个 token（原文 N ≈ L 的情形），按统计的 FLOPs，在 N 附近做双对数拟合会得到的"
        "指数：实线为无缓存，虚线为有缓存。无缓存时指数在上下文接近反超点之前一直接近 2，超过之后才趋近 3；有缓存"
        "时在注意力占上风之前接近 1，之后趋近 2。",
    ),
    # --- section 3: worked example ------------------------------------------------------------
    "cx_we_intro": (
        "[The source](/source)'s worked example ([C12](/claims?claim=C12)): LLaMA-7B, prompt 「今天天气」, max_new_tokens 3. Pick any model, the "
        "loaded one or a preset (shapes by arithmetic from the config: no weights, nothing downloaded). B = batch "
        "(1), T = tokens fed this step, C = tokens in the KV cache after it. Q, K, V and the scores are per layer; "
        "the KV cache covers all layers.",
        "[原文](/source)的逐步示例（[C12](/claims?claim=C12)）：LLaMA-7B，提示「今天天气」，max_new_tokens 3。可选择任意模型：已加载的模型或预设"
        "（形状由配置算术得出：不需要权重，也不下载任何东西）。B = 批大小（1），T = 本步输入的 token 数，C = 本步"
        "之后 KV 缓存中的 token 数。Q、K、V 与分数均为每层的形状；KV 缓存包含所有层。",
    ),
    "cx_we_model": ("Model", "模型"),
    "cx_we_prompt": ("Prompt", "提示"),
    "cx_we_cache": ("KV cache", "KV 缓存"),
    "cx_we_tokens": (
        "{prompt} is **{n} tokens** in {tokenizer}'s tokenizer ({pieces}); the document counts "
        "{doc}, one per character.",
        "{prompt} 在 {tokenizer} 的分词器中是 **{n} 个 token**（{pieces}）；原文按每个字一个 token 计为 {doc} 个。",
    ),
    "cx_we_count": (
        "Prompt tokens for this preset (its own tokenizer is not here: nothing is downloaded)",
        "该预设的提示 token 数（其自带分词器不在本地：不下载任何东西）",
    ),
    "cx_we_count_doc": ("one per character, as the document counts", "按原文每字一个 token"),
    "cx_we_count_tokenizer": ("as the loaded tokenizer splits it", "按已加载模型的分词器"),
    "cx_col_tensor": ("tensor", "张量"),
    "cx_col_step": ("step {step} · {phase}", "第 {step} 步 · {phase}"),
    "cx_col_t": ("T (tokens in)", "T（输入 token）"),
    "cx_col_c": ("C (KV length)", "C（KV 长度）"),
    "cx_col_embedding": ("embedding [B, T, hidden]", "嵌入 [B, T, hidden]"),
    "cx_col_q": ("Q [B, heads, T, head_dim]", "Q [B, heads, T, head_dim]"),
    "cx_col_kv_layer": ("K, V [B, kv_heads, C, head_dim]", "K、V [B, kv_heads, C, head_dim]"),
    "cx_col_scores": ("scores [B, heads, T, C]", "分数 [B, heads, T, C]"),
    "cx_col_scores_head": ("scores per head (T×C)", "每头分数（T×C）"),
    "cx_col_kv_cache": ("KV cache [layers, 2, C, kv_heads, head_dim]", "KV 缓存 [layers, 2, C, kv_heads, head_dim]"),
    "cx_col_hidden": ("hidden out [B, T, hidden]", "隐藏输出 [B, T, hidden]"),
    "cx_col_last": ("last position [B, hidden]", "最后位置 [B, hidden]"),
    "cx_col_logits": ("logits [B, vocab]", "logits [B, vocab]"),
    "cx_walk_prefill": (
        "**Prefill (step 0).** All {L} prompt tokens go in at once: embedding {emb}. In each of the {layers} layers "
        "Q is {q}, K and V are {k}, and every head computes a {L}×{L} score matrix. The KV cache then holds {kv}; "
        "the hidden output is {hid}, and only the last position, {last}, goes to the LM head: logits {logits} → "
        "the first token.",
        "**预填充（第 0 步）。** 全部 {L} 个提示 token 一次输入：嵌入 {emb}。在 {layers} 层中的每一层，Q 为 {q}，"
        "K 与 V 为 {k}，每个头计算一个 {L}×{L} 的分数矩阵。之后 KV 缓存为 {kv}；隐藏输出为 {hid}，只有最后一个"
        "位置 {last} 进入 LM head：logits {logits} → 第一个 token。",
    ),
    "cx_walk_decode": (
        "**Decode (step 1).** Only the new token goes in: {emb}. The KV cache grows from {L} to {L1} tokens ({kv}) "
        "and each head's attention is 1×{L1}: one query against every cached key.",
        "**解码（第 1 步）。** 只输入新 token：{emb}。KV 缓存从 {L} 个 token 增长到 {L1} 个（{kv}），每个头的注意力"
        "为 1×{L1}：一个查询对所有已缓存的键。",
    ),
    "cx_walk_decode_nocache": (
        "**Decode without the cache (step 1).** The whole context goes in again: {emb}, a {L1}×{L1} score matrix per "
        "head; K and V of all {L1} tokens are recomputed ({kv}), {L} of them for the second time, and dropped after "
        "the step.",
        "**无缓存解码（第 1 步）。** 整个上下文重新输入：{emb}，每个头一个 {L1}×{L1} 的分数矩阵；全部 {L1} 个 "
        "token 的 K 与 V 都重新计算（{kv}），其中 {L} 个是第二次计算，并在本步之后丢弃。",
    ),
    "cx_walk_more": (
        "Each further step adds one token: contexts {contexts}.",
        "之后每一步增加一个 token：上下文为 {contexts}。",
    ),
    "cx_walk_gqa": (
        "This model uses grouped-query attention: its KV cache holds **kv_heads = {kv_heads}** heads, not "
        "num_heads = {heads} as the document's shape [layers, 2, T, num_heads, head_dim] says: {ratio}× smaller.",
        "该模型使用分组查询注意力（GQA）：KV 缓存保存 **{kv_heads} 个 KV 头**（`kv_heads`），而不是原文形状 "
        "[layers, 2, T, num_heads, head_dim] 中的 `num_heads` = {heads} 个：小 {ratio} 倍。",
    ),
    "cx_we_matches": (
        "This reproduces the document's numbers: embedding [1, 4, 4096], a 4×4 score matrix per head, KV cache "
        "[32, 2, 4, 32, 128], [1, 4096] to the LM head; then a 1×5 attention and a KV length of 5 at the first "
        "decode step.",
        "与原文数字一致：嵌入 [1, 4, 4096]，每头 4×4 分数矩阵，KV 缓存 [32, 2, 4, 32, 128]，[1, 4096] 进入 LM "
        "head；第一个解码步注意力为 1×5，KV 长度为 5。",
    ),
    "cx_we_differs": (
        "With {n} prompt tokens instead of the document's {doc}, the shapes differ from its walk-through: they "
        "scale with the token count, and that depends on the tokenizer.",
        "提示为 {n} 个 token 而不是原文的 {doc} 个，形状与原文不同：形状随 token 数变化，而 token 数取决于分词器。",
    ),
}
t = page_translator(STRINGS)
