"""Strings of the playground page. {key: (en, zh)}; templates use str.format fields."""
STRINGS: dict[str, tuple[str, str]] = {
    "pg_title": ("Prefill vs decode, token by token", "预填充与解码，逐个 token 看"),
    "pg_intro": (
        "Type a prompt and press **Run**. The engine sends the whole prompt through the model in **one prefill "
        "step**, so every prompt token lights up at once, then produces the answer **one decode step per token**. "
        "Below the run: how the KV cache grows, the attention shapes (L×L vs 1×L) and real attention "
        "probabilities, the timings (TTFT, TPOT, ITL) and the memory of every step.",
        "输入提示词并点击 **运行**。引擎先用 **一次预填充（prefill）** 把整段提示词送进模型，所有提示词 token "
        "同时点亮；然后 **每个解码（decode）步只生成一个 token**。运行结束后可以查看：KV 缓存如何增长、注意力形状"
        "（L×L 对 1×L）与真实的注意力概率、时延（TTFT、TPOT、ITL）以及每一步的内存。"),
    # controls
    "prompt": ("Prompt", "提示词"),
    "chat_template": ("Chat template", "对话模板"),
    "chat_template_help": ("Wrap the prompt in the model's chat template (instruct models answer better). The "
                           "template's tokens are part of the prompt and are prefilled too.",
                           "用模型的对话模板包裹提示词（指令模型回答得更好）。模板自身的 token 也属于提示词，同样参与预填充。"),
    "kv_cache": ("KV cache", "KV 缓存"),
    "kv_cache_help": ("Off: every step recomputes K and V of the whole context (the O(N³) baseline, C13).",
                      "关闭时：每一步都重新计算整个上下文的 K 和 V（O(N³) 的基线，C13）。"),
    "probe": ("Measure memory per step", "逐步测量内存"),
    "probe_help": ("Tracks every tensor allocation to find each step's peak. On CPU it adds about 6 ms to each "
                   "~20 ms decode step, and the timings include that overhead while it is on.",
                   "跟踪每一次张量分配以得到每步的峰值内存。在 CPU 上它会给每个约 20 毫秒的解码步增加约 6 毫秒，"
                   "开启时时延数据包含这部分开销。"),
    "max_new_tokens": ("max_new_tokens", "max_new_tokens"),  # the parameter's name, in both languages
    "attention": ("Attention backend", "注意力后端"),
    "attention_sdpa": ("fused kernel, never materialises the scores", "融合内核，从不生成完整分数矩阵"),
    "attention_eager": ("materialises the scores: enables the heatmap", "显式计算分数矩阵：可画热力图"),
    "sampling": ("Sampling (greedy by default)", "采样（默认贪心）"),
    "temperature": ("temperature", "temperature（温度）"),
    "temperature_help": ("0 = greedy: always the most likely token.", "0 表示贪心：总是选概率最高的 token。"),
    "top_k": ("top-k", "top-k"),
    "top_k_help": ("Keep the k most likely tokens; 0 = off.", "只保留概率最高的 k 个 token；0 表示不限制。"),
    "top_p": ("top-p", "top-p"),
    "top_p_help": ("Keep the smallest set of tokens whose probability reaches p; must be in (0, 1].",
                   "保留累计概率达到 p 的最小 token 集合；取值范围 (0, 1]。"),
    "seed": ("seed", "随机种子"),
    "seed_placeholder": ("random", "随机"),
    "run": ("Run", "运行"),
    "stop": ("Stop", "停止"),
    "worked_example_btn": ("Load the worked example: 今天天气", "载入书中示例：今天天气"),
    "worked_example_help": ("The source's example (C12): prompt 「今天天气」, no chat template, 3 new tokens, "
                            "eager attention so the heatmap is available.",
                            "原文的示例（C12）：提示词「今天天气」，不用对话模板，生成 3 个 token，使用 eager 注意力以便画热力图。"),
    # live view and banners
    "live_waiting": ("Prompt tokenised: {L} tokens, waiting for the prefill step…",
                     "提示词已切分为 {L} 个 token，等待预填充…"),
    "live_status": ("Step {step} · {phase} · {T} token(s) in · KV cache {kv} tokens ({kv_bytes}, {blocks} "
                    "blocks) · {ms:.1f} ms · {n} generated",
                    "第 {step} 步 · {phase} · 输入 {T} 个 token · KV 缓存 {kv} 个 token（{kv_bytes}，{blocks} "
                    "块）· {ms:.1f} 毫秒 · 已生成 {n} 个"),
    "live_kv_blocks": ("KV cache: {n} block(s) of {size} tokens", "KV 缓存：{n} 块，每块 {size} 个 token"),
    "run_done": ("Done: {n} tokens generated in {steps} steps from a {L}-token prompt (stopped by: {reason}).",
                 "完成：{L} 个 token 的提示词，用 {steps} 步生成了 {n} 个 token（停止原因：{reason}）。"),
    "run_stopped": ("Stopped after {n} generated token(s); below is what ran.", "已在生成 {n} 个 token 后停止；下面是已完成的部分。"),
    "no_run_yet": ("No run yet: press Run.", "还没有运行：请点击运行。"),
    "output_text": ("Generated text", "生成的文本"),
    # chips
    "chip_prompt_title": ("prompt token {i} · id {id}", "提示词第 {i} 个 token · id {id}"),
    "chip_out_title": ("output token {i} · id {id} · {phase}", "输出第 {i} 个 token · id {id} · {phase}"),
    "chip_meta": ("step {step} · {ms:.0f} ms", "第{step}步 · {ms:.0f}ms"),
    "chip_legend_pending": ("prompt, not yet computed", "提示词，尚未计算"),
    "chip_legend_prefill": ("prefill: the whole prompt in one step (and the first new token)",
                            "预填充：整段提示词一步完成（并产生第一个新 token）"),
    "chip_legend_decode": ("decode: one token per step", "解码：每步一个 token"),
    # tabs
    "tab_tokens": ("Tokens & replay", "Token 与回放"),
    "tab_kv": ("KV cache", "KV 缓存"),
    "tab_attention": ("Attention", "注意力"),
    "tab_timings": ("Timings", "时延"),
    "tab_memory": ("Memory", "内存"),
    "tab_steps": ("Step table (C12)", "步骤表（C12）"),
    # replay
    "replay_play": ("Replay", "回放"),
    "replay_speed": ("Speed", "速度"),
    "replay_speed_fmt": ("{n} steps/s", "每秒 {n} 步"),
    "replay_step": ("Step", "步"),
    "replay_frame_before": ("before", "开始前"),
    "replay_before": ("Before the first step: the prompt is tokenised ({L} tokens) but nothing is computed yet.",
                      "第一步之前：提示词已切分（{L} 个 token），但还没有任何计算。"),
    "replay_prefill": ("Step {step} · **prefill**: all {T} prompt tokens in one forward pass ({T}×{C} attention "
                       "per head), {ms:.1f} ms, and the first new token.",
                       "第 {step} 步 · **预填充**：{T} 个提示词 token 一次前向完成（每个头 {T}×{C} 的注意力），"
                       "{ms:.1f} 毫秒，并产生第一个新 token。"),
    "replay_decode": ("Step {step} · **decode**: 1 token in, attending to {C} cached keys (1×{C}), {ms:.1f} ms.",
                      "第 {step} 步 · **解码**：输入 1 个 token，关注 {C} 个缓存的键（1×{C}），{ms:.1f} 毫秒。"),
    "replay_recompute": ("Step {step} · **decode without a KV cache**: all {T} context tokens recomputed "
                         "({T}×{C}), {ms:.1f} ms.",
                         "第 {step} 步 · **无 KV 缓存的解码**：重新计算全部 {T} 个上下文 token（{T}×{C}），{ms:.1f} 毫秒。"),
    # KV cache
    "kv_explain": ("Prefill writes the K and V of every prompt token at once; each decode step appends one "
                   "token's K and V (C5, C6, C10). The cache size, with this model's numbers:",
                   "预填充一次写入所有提示词 token 的 K 和 V；每个解码步追加一个 token 的 K 和 V（C5、C6、C10）。"
                   "用本模型的参数计算缓存大小："),
    "kv_formula_caption": ("2 (K and V) × layers × kv_heads × head_dim × tokens × bytes per element, at the last "
                           "step ({tokens} tokens; {per_token} per token in {dtype}). Blocks hold {block} tokens each.",
                           "2（K 与 V）× 层数 × kv_heads × head_dim × token 数 × 每元素字节数，取最后一步（{tokens} 个 "
                           "token；{dtype} 下每个 token {per_token}）。每块容纳 {block} 个 token。"),
    "kv_off_note": ("KV cache off: nothing is kept between steps, so the cache stays empty while the K/V rows "
                    "computed per step grow with the context (C13).",
                    "KV 缓存已关闭：步与步之间不保留任何东西，缓存始终为空，而每步计算的 K/V 行数随上下文增长（C13）。"),
    "kv_tokens_title": ("KV cache per step: tokens and blocks", "每步的 KV 缓存：token 与块"),
    "kv_computed_rows": ("K,V rows computed this step", "本步计算的 K、V 行数"),
    "kv_blocks": ("blocks allocated ({size} tokens each)", "已分配的块（每块 {size} 个 token）"),
    "kv_bytes_title": ("KV cache bytes per step: total and per layer", "每步 KV 缓存字节数：总量与每层"),
    "kv_total": ("total (MiB)", "总量（MiB）"),
    "kv_per_layer": ("per layer (KiB)", "每层（KiB）"),
    # attention
    "shapes_explain": ("One head's matrices, drawn to scale (one unit = one element): Q·Kᵀ gives the scores S, "
                       "S·V the output O. Prefill makes an L×L score matrix (C2); decode a 1×L row (C6). The model "
                       "does this for {heads} heads ({kv_heads} KV heads shared by groups, GQA) in each of {layers} "
                       "layers.",
                       "单个注意力头的矩阵，按比例绘制（一个单位 = 一个元素）：Q·Kᵀ 得到分数 S，S·V 得到输出 O。"
                       "预填充产生 L×L 的分数矩阵（C2），解码只有 1×L 的一行（C6）。模型在 {layers} 层中的每一层都对 "
                       "{heads} 个头（{kv_heads} 个 KV 头分组共享，GQA）这样计算。"),
    "shapes_pick": ("Decode step to compare with prefill", "与预填充对比的解码步"),
    "shapes_title": ("Attention shapes per head, to scale: prefill vs a later step", "每个头的注意力形状（按比例）：预填充对比之后的一步"),
    "shapes_panel": ("step {step} ({phase}): T={T}, C={C}", "第 {step} 步（{phase}）：T={T}，C={C}"),
    "mat_q": ("Q (queries of the new tokens)", "Q（新 token 的查询）"),
    "mat_k": ("Kᵀ (keys of the context)", "Kᵀ（上下文的键）"),
    "mat_scores": ("S = Q·Kᵀ (scores)", "S = Q·Kᵀ（分数）"),
    "mat_v": ("V (values of the context)", "V（上下文的值）"),
    "mat_out": ("O = softmax(S)·V", "O = softmax(S)·V"),
    "heat_header": ("Real attention probabilities", "真实的注意力概率"),
    "heat_needs_eager": ("The heatmap needs the eager backend: sdpa never materialises the scores. Choose eager "
                         "and run again.", "热力图需要 eager 后端：sdpa 从不生成分数矩阵。请选择 eager 后重新运行。"),
    "heat_layer": ("Layer", "层"),
    "heat_head": ("Head", "头"),
    "heat_truncated": ("Only {n} of {total} layers fit the capture budget for this prompt.",
                       "对这个提示词，捕获预算只够保存 {total} 层中的 {n} 层。"),
    "heat_title": ("Attention probabilities, layer {layer}, head {head}", "注意力概率：第 {layer} 层，第 {head} 个头"),
    "heat_trace": ("attention probability", "注意力概率"),
    "heat_boundary": ("prefill ends, decode rows below", "预填充结束，以下为解码行"),
    "heat_caption": ("Above the dashed line: the prefill step's causal triangle, computed in one pass. Below it: "
                     "one row per decode step, each a 1×L row over everything cached so far. Blank cells are "
                     "keys a query cannot see (the future).",
                     "虚线以上：预填充一步算出的因果三角形。虚线以下：每个解码步一行，是对当前全部缓存的 1×L 注意力。"
                     "空白格是查询看不到的键（未来位置）。"),
    # timings
    "m_ttft": ("TTFT", "TTFT（首 token 时延）"),
    "m_ttft_help": ("Time to first token: request arrival to the first token (almost all prefill, C4).",
                    "首 token 时延：从请求到达到第一个 token 返回（几乎全是预填充，C4）。"),
    "m_tpot": ("TPOT", "TPOT（每 token 时延）"),
    "m_tpot_help": ("Time per output token after the first: (E2E − TTFT) / (tokens − 1), as vLLM defines it (C8).",
                    "首个之后每个输出 token 的时间：(E2E − TTFT) / (token 数 − 1)，与 vLLM 的定义一致（C8）。"),
    "m_e2e": ("E2E", "E2E（端到端）"),
    "m_e2e_help": ("Request arrival to the last token.", "从请求到达到最后一个 token。"),
    "m_tps": ("decode tokens/s", "解码 token/秒"),
    "m_tps_help": ("1000 / TPOT.", "1000 / TPOT。"),
    "m_share": ("prefill / decode share", "预填充 / 解码 占比"),
    "m_share_help": ("TTFT / E2E and the rest (C9: in long generations decode dominates).",
                     "TTFT / E2E 与其余部分（C9：长生成中解码占主导）。"),
    "probe_overhead_note": ("The memory probe is on: these timings include its overhead (about 6 ms per decode "
                            "step on CPU). Turn it off for clean timings.",
                            "内存探针已开启：这些时延包含它的开销（CPU 上每个解码步约 6 毫秒）。关闭它可得到更干净的时延。"),
    "lat_title": ("Latency of each output token", "每个输出 token 的时延"),
    "lat_ttft": ("TTFT (prefill)", "TTFT（预填充）"),
    "lat_itl": ("ITL (decode)", "ITL（解码）"),
    "lat_tpot": ("TPOT = {ms:.1f} ms", "TPOT = {ms:.1f} 毫秒"),
    "share_title": ("Where the request's time went", "请求的时间花在哪里"),
    "share_prefill": ("prefill (TTFT)", "预填充（TTFT）"),
    "share_decode": ("decode (E2E − TTFT)", "解码（E2E − TTFT）"),
    "share_row": ("request", "请求"),
    "steptime_title": ("Engine time per step", "每步的引擎时间"),
    "timings_caption": ("ITL is measured where the page receives tokens, so it includes the page's own redraws; "
                        "the per-step chart is the engine's time alone. A longer prompt raises TTFT; TPOT grows "
                        "slowly with the context (C18).",
                        "ITL 在页面收到 token 的时刻测量，包含页面自身的重绘；每步时间图只含引擎时间。提示词越长 TTFT "
                        "越大；TPOT 随上下文缓慢增长（C18）。"),
    # memory
    "mem_explain_cpu": ("Peak tensor memory allocated during each step, above where the step started, measured "
                        "by a tensor-allocation tracker (it sees op outputs, not scratch buffers inside fused "
                        "kernels). Prefill's activations and scores scale with L, decode's with 1 (C10, C20).",
                        "每步期间分配的张量内存峰值（相对本步开始时），由张量分配跟踪器测得（只看得到算子输出，"
                        "看不到融合内核内部的临时缓冲）。预填充的激活与分数随 L 增长，解码的只与 1 相关（C10、C20）。"),
    "mem_explain_cuda": ("Peak GPU memory allocated during each step above where it started "
                         "(torch.cuda.max_memory_allocated). Prefill's activations and scores scale with L, "
                         "decode's with 1 (C10, C20).",
                         "每步期间 GPU 显存分配峰值（相对本步开始时，torch.cuda.max_memory_allocated）。"
                         "预填充的激活与分数随 L 增长，解码的只与 1 相关（C10、C20）。"),
    "m_mem_prefill": ("prefill peak", "预填充峰值"),
    "m_mem_decode": ("decode peak (median)", "解码峰值（中位数）"),
    "m_mem_weights": ("weights (read every step)", "权重（每步都要读）"),
    "mem_step_title": ("Peak transient memory per step", "每步的瞬时内存峰值"),
    "mem_peak": ("peak, {phase}", "峰值，{phase}"),
    "mem_kv": ("KV cache held (MiB)", "KV 缓存占用（MiB）"),
    "mem_probe_off": ("The memory probe was off for this run.", "本次运行关闭了内存探针。"),
    # step table (C12)
    "tbl_step": ("step", "步"),
    "tbl_phase": ("phase", "阶段"),
    "tbl_tokens_in": ("tokens in (T)", "输入 token（T）"),
    "tbl_input": ("input [B, T, hidden]", "输入 [B, T, hidden]"),
    "tbl_q": ("Q [B, heads, T, head_dim]", "Q [B, heads, T, head_dim]"),
    "tbl_scores": ("scores [B, heads, T, C]", "分数 [B, heads, T, C]"),
    "tbl_kv": ("KV cache [layers, 2, C, kv_heads, head_dim]", "KV 缓存 [layers, 2, C, kv_heads, head_dim]"),
    "tbl_recomputed": ("(recomputed, not kept)", "（重新计算，未保留）"),
    "tbl_token": ("token produced", "产生的 token"),
    "tbl_ms": ("ms", "毫秒"),
    "tbl_peak": ("peak memory", "峰值内存"),
    "c12_intro": ("**The worked example (C12), with real numbers.** The source uses LLaMA-7B and counts "
                  "「今天天气」 as 4 tokens. Here the model is **{model}** ({layers} layers, hidden {hidden}, {heads} "
                  "heads, {kv_heads} KV heads, head_dim {head_dim}) and this prompt is **{L} tokens** (the real "
                  "count from this tokenizer).\n",
                  "**书中示例（C12），用真实数字。** 原文用 LLaMA-7B，并把「今天天气」算作 4 个 token。这里的模型是 "
                  "**{model}**（{layers} 层，hidden {hidden}，{heads} 个头，{kv_heads} 个 KV 头，head_dim {head_dim}），"
                  "本次提示词是 **{L} 个 token**（该分词器的真实数量）。\n"),
    "c12_prefill": ("- **Prefill (step 0):** input [1, {L}, {hidden}]; per head a {L}×{L} causal score matrix; "
                    "the KV cache becomes [{layers}, 2, {L}, {kv_heads}, {head_dim}]; only the last position's hidden "
                    "state [1, {hidden}] goes to the LM head → first token {tok}.",
                    "- **预填充（第 0 步）：** 输入 [1, {L}, {hidden}]；每个头一个 {L}×{L} 的因果分数矩阵；KV 缓存变为 "
                    "[{layers}, 2, {L}, {kv_heads}, {head_dim}]；只有最后一个位置的隐藏状态 [1, {hidden}] 进入 LM head "
                    "→ 第一个 token {tok}。"),
    "c12_decode": ("- **Decode (step 1):** {prev} goes in as [1, 1, {hidden}]; the KV cache grows {L} → {L1}; "
                   "attention is 1×{L1} → {tok}.",
                   "- **解码（第 1 步）：** {prev} 以 [1, 1, {hidden}] 输入；KV 缓存 {L} → {L1}；注意力为 1×{L1} → {tok}。"),
    "c12_more": ("- then {L2}, {L3}, … one token per step until EOS or max_new_tokens.",
                 "- 然后是 {L2}、{L3} …… 每步一个 token，直到 EOS 或 max_new_tokens。"),
    "c12_gqa": ("\nThe source writes the KV cache as [layers, 2, T, num_heads, head_dim]. With grouped-query "
                "attention this model stores **kv_heads = {kv_heads}** heads of K and V, not {heads}.",
                "\n原文把 KV 缓存写成 [layers, 2, T, num_heads, head_dim]。本模型使用分组查询注意力（GQA），"
                "K 和 V 只存 **kv_heads = {kv_heads}** 个头，而不是 {heads} 个。"),
}
