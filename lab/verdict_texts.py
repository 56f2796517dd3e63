"""The words of a verdict and the sentence that explains each one, in English and Chinese, keyed by
Verdict.verdict ("verdict_" + word), Verdict.reason ("why_…") and the rule of each sweep claim
("rule_c4", …). The checks in lab/claims*.py and lab/sweep_verdicts.py fill them with their measured
numbers; the claims and sweeps pages show them through ui/i18n.py, the bench prints the English ones.
{key: (en, zh)}."""

LANG_INDEX = {"en": 0, "zh": 1}  # the place of each language in every (en, zh) pair of the app's tables
VERDICT_TEXTS: dict[str, tuple[str, str]] = {
    "why_busy": (  # short: a busy run shows it in every timed row, after one note that says why
        "Not judged: other processes kept {other:.1f} of {cores} cores busy while this was timed.",
        "不作判断：计时期间其他进程占用了 {cores} 个核心中的 {other:.1f} 个。",
    ),
    "why_c1_holds": (
        "One prefill step fed all L = {L} prompt tokens at once; the layer input was {shape}.",
        "一个预填充步一次输入了全部 L = {L} 个提示 token；层输入形状为 {shape}。",
    ),
    "why_c1_fails": (
        "The prompt went through {steps} prefill steps (the first fed {T} of {L} tokens, input {shape}): "
        "not one forward pass.",
        "提示分 {steps} 个预填充步完成（第一步输入 {L} 个中的 {T} 个，形状 {shape}）：不是一次前向传播。",
    ),
    "why_c5_holds": (
        "The prefill forward fed {fed} tokens and its LM head returned {rows} row of logits (the last "
        "position's); the KV cache then held {kv} tokens, all L = {L} prompt tokens.",
        "预填充前向输入了 {fed} 个 token，LM head 只输出 {rows} 行 logits（最后一个位置）；随后 KV 缓存持有 {kv} "
        "个 token，即全部 L = {L} 个提示 token。",
    ),
    "why_c5_fails": (
        "The prefill forward fed {fed} tokens and returned {rows} rows of logits; the KV cache held {kv} of "
        "L = {L} tokens.",
        "预填充前向输入了 {fed} 个 token，输出 {rows} 行 logits；KV 缓存持有 L = {L} 个中的 {kv} 个 token。",
    ),
    "why_c6_holds": (
        "All {n} decode steps fed one token [1, 1, hidden] ({one}/{n}), attended 1×C ({row}/{n}), got one "
        "row of logits ({head}/{n}) and grew the KV cache by one ({first} → {last}); it stopped on "
        "“{finish}”.",
        "全部 {n} 个解码步都输入一个 token [1, 1, hidden]（{one}/{n}），注意力为 1×C（{row}/{n}），得到一行 "
        "logits（{head}/{n}），KV 缓存每步加一（{first} → {last}）；停止原因为“{finish}”。",
    ),
    "why_c6_fails": (
        "Of {n} decode steps: {one} fed one token, {row} attended 1×C, {head} got one row of logits, {grows} "
        "grew the KV by one ({first} → {last}); stop: “{finish}”.",
        "{n} 个解码步中：{one} 个输入一个 token，{row} 个注意力为 1×C，{head} 个得到一行 logits，{grows} 个"
        "让 KV 加一（{first} → {last}）；停止原因：“{finish}”。",
    ),
    "why_c2_holds": (
        "The prefill's scores were {T}×{C} per head; at L = {Ls} the eager backend held "
        "{measured:,} bytes of scores at its peak, {ratio:.2f}× heads × L × L × bytes; counted attention "
        "FLOPs grow as L^{exponent:.2f}.",
        "预填充的分数矩阵每个头为 {T}×{C}；L = {Ls} 时 eager 后端在峰值处持有 {measured:,} 字节分数，"
        "是「头数 × L × L × 每元素字节数」的 {ratio:.2f} 倍；统计的注意力 FLOPs 按 L^{exponent:.2f} 增长。",
    ),
    "why_c2_roughly": (
        "The scores are {T}×{C} and counted attention FLOPs grow as L^{exponent:.2f}, but the probe saw "
        "{measured:,} bytes of scores at L = {Ls} ({ratio:.2f}× the formula): a fused kernel (sdpa) never "
        "materialises the matrix.",
        "分数矩阵为 {T}×{C}，统计的注意力 FLOPs 按 L^{exponent:.2f} 增长，但 L = {Ls} 时探测到的分数只有 "
        "{measured:,} 字节（公式的 {ratio:.2f} 倍）：融合内核（sdpa）从不物化该矩阵。",
    ),
    "why_c2_fails": (
        "The prefill's scores were {T}×{C} (not L×L for L = {L}), or attention FLOPs grow only as L^{exponent:.2f}.",
        "预填充的分数矩阵为 {T}×{C}（L = {L} 时并非 L×L），或注意力 FLOPs 只按 L^{exponent:.2f} 增长。",
    ),
    "why_c3_holds": (
        "Prefill's intensity is {i:.0f} FLOP/B, above this machine's balance point of {balance:.1f} FLOP/B, "
        "and it reached {compute:.0f} % of the measured GEMM rate. GPU utilisation cannot be read on a CPU.",
        "预填充的算术强度为 {i:.0f} FLOP/B，高于本机的平衡点 {balance:.1f} FLOP/B，达到实测 GEMM 速率的 "
        "{compute:.0f} %。CPU 上无法读取 GPU 利用率。",
    ),
    "why_c3_roughly": (
        "Prefill's intensity, {i:.0f} FLOP/B, is above the balance point ({balance:.1f} FLOP/B): "
        "compute-bound by the roofline. But it reached only {compute:.0f} % of the GEMM rate (small "
        "matrices, attention, norms); the document's 80–100 % GPU utilisation cannot be measured here.",
        "预填充的算术强度 {i:.0f} FLOP/B 高于平衡点（{balance:.1f} FLOP/B）：按屋顶线属于计算受限。但只达到 "
        "GEMM 速率的 {compute:.0f} %（矩阵较小、注意力、归一化）；原文的 80–100 % GPU 利用率在此无法测量。",
    ),
    "why_c3_fails": (
        "Prefill's intensity, {i:.1f} FLOP/B, is below this machine's balance point ({balance:.1f} FLOP/B): "
        "at this prompt length and model size it is bandwidth-bound, not compute-bound.",
        "预填充的算术强度 {i:.1f} FLOP/B 低于本机平衡点（{balance:.1f} FLOP/B）：在这个提示长度和模型规模下"
        "它受带宽限制，而非计算受限。",
    ),
    "why_c7_holds": (
        "A decode step does {i:.2f} FLOP per byte moved, far below the balance point ({balance:.1f}); it "
        "used {bandwidth:.0f} % of the read bandwidth and {compute:.1f} % of the GEMM rate. GPU utilisation "
        "(20–40 %) cannot be read on a CPU.",
        "解码步每移动 1 字节只做 {i:.2f} 次 FLOP，远低于平衡点（{balance:.1f}）；它用了 {bandwidth:.0f} % 的"
        "读带宽和 {compute:.1f} % 的 GEMM 速率。CPU 上无法读取 GPU 利用率（20–40 %）。",
    ),
    "why_c7_roughly": (
        "Decode's intensity ({i:.2f} FLOP/B) is below the balance point ({balance:.1f}): bandwidth-bound "
        "by the roofline, but it reached only {bandwidth:.0f} % of the read bandwidth ({compute:.1f} % of "
        "the GEMM rate): per-step overheads weigh in at this size.",
        "解码的算术强度（{i:.2f} FLOP/B）低于平衡点（{balance:.1f}）：按屋顶线受带宽限制，但只达到读带宽的 "
        "{bandwidth:.0f} %（GEMM 速率的 {compute:.1f} %）：在这个规模下每步的固定开销占了不少。",
    ),
    "why_c7_fails": (
        "Decode's intensity ({i:.1f} FLOP/B) is above the balance point ({balance:.1f}): not bandwidth-bound.",
        "解码的算术强度（{i:.1f} FLOP/B）高于平衡点（{balance:.1f}）：并非带宽受限。",
    ),
    "why_c10_holds": (
        "All {rows} rows hold: input {L} vs 1 token, L×L vs 1×C scores, step {pre_ms:.0f} vs {dec_ms:.0f} ms, "
        "intensity {i_pre:.0f} vs {i_dec:.2f} FLOP/B around a balance of {balance:.1f}, KV +1 per decode "
        "step, transient peak {peak_pre:,} vs {peak_dec:,} bytes. (Utilisation: not measurable on a CPU.)",
        "全部 {rows} 行成立：输入 {L} 对 1 个 token，L×L 对 1×C 分数，每步 {pre_ms:.0f} 对 {dec_ms:.0f} 毫秒，"
        "算术强度 {i_pre:.0f} 对 {i_dec:.2f} FLOP/B（平衡点 {balance:.1f}），每个解码步 KV +1，瞬时峰值 "
        "{peak_pre:,} 对 {peak_dec:,} 字节。（利用率在 CPU 上无法测量。）",
    ),
    "why_c10_partly": (
        "{ok} of {rows} rows hold; off: {failed}. Measured: step {pre_ms:.0f} vs {dec_ms:.0f} ms, intensity "
        "{i_pre:.1f} vs {i_dec:.2f} FLOP/B (balance {balance:.1f}), peak {peak_pre:,} vs {peak_dec:,} bytes.",
        "{rows} 行中 {ok} 行成立；不成立：{failed}。实测：每步 {pre_ms:.0f} 对 {dec_ms:.0f} 毫秒，算术强度 "
        "{i_pre:.1f} 对 {i_dec:.2f} FLOP/B（平衡点 {balance:.1f}），峰值 {peak_pre:,} 对 {peak_dec:,} 字节。",
    ),
    "why_c11_proxy_agrees": (
        "Power and temperature cannot be measured on a CPU. What can: prefill reached {pre:.1f} % of "
        "the GEMM rate, decode {dec:.2f} % ({ratio:.0f}× less), while decode used {bw:.0f} % of the "
        "read bandwidth: compute sits idle in decode, as the claim says.",
        "CPU 上无法测量功耗与温度。可以测的是：预填充达到 GEMM 速率的 {pre:.1f} %，解码只有 {dec:.2f} %"
        "（低 {ratio:.0f} 倍），而解码用了 {bw:.0f} % 的读带宽：解码时算力闲置，与论断一致。",
    ),
    "why_c11_fails": (
        "Power cannot be measured here, and the proxy disagrees: prefill reached {pre:.1f} % of the GEMM rate, "
        "decode {dec:.2f} % (only {ratio:.1f}×), decode {bw:.0f} % of the bandwidth.",
        "此处无法测量功耗，且替代指标不符：预填充达到 GEMM 速率的 {pre:.1f} %，解码 {dec:.2f} %（仅 "
        "{ratio:.1f} 倍），解码用了 {bw:.0f} % 的带宽。",
    ),
    "why_c12_holds": (
        "The document's LLaMA-7B shapes follow by arithmetic, this tokenizer makes {n} tokens of 今天天气, "
        "and the real run went {contexts} with KV {kv}.",
        "原文 LLaMA-7B 的形状可由算术得出，此分词器把 今天天气 切成 {n} 个 token，实际运行的上下文为 "
        "{contexts}，KV 形状 {kv}。",
    ),
    "why_c12_roughly": (
        "The shapes follow (LLaMA-7B: [1,4,4096], 4×4, KV [32,2,4,32,128]; here the run went {contexts}, "
        "KV {kv}), but this tokenizer makes {n} tokens of 今天天气, not 4; and the KV cache holds kv_heads "
        "= {kv_heads} heads, not heads = {heads}, on a GQA model. The first token 「真」 needs LLaMA's "
        "weights.",
        "形状推导成立（LLaMA-7B：[1,4,4096]、4×4、KV [32,2,4,32,128]；此处运行的上下文为 {contexts}，"
        "KV {kv}），但此分词器把 今天天气 切成 {n} 个 token 而不是 4 个；GQA 模型的 KV 缓存存的是 "
        "{kv_heads} 个 KV 头，而不是 {heads} 个头。首个 token「真」需要 LLaMA 的权重才能验证。",
    ),
    "why_c12_fails": (
        "The shapes do not follow the document's pattern: the run went {contexts} with KV {kv}.",
        "形状不符合原文的规律：运行的上下文为 {contexts}，KV {kv}。",
    ),
    "why_c13_holds": (
        "Without the cache, step time grows as C^{measured:.2f} over C = {C0}…{C1} (attention counted: "
        "C^{counted:.2f}); the whole run took {ratio:.1f}× the cached one.",
        "没有缓存时，每步耗时在 C = {C0}…{C1} 范围按 C^{measured:.2f} 增长（统计的注意力：C^{counted:.2f}）；"
        "整个运行耗时是有缓存时的 {ratio:.1f} 倍。",
    ),
    "why_c13_roughly": (
        "Recomputing costs {ratio:.1f}× the cached run, and attention FLOPs per step do grow as "
        "C^{counted:.2f}; but the measured step time grows only as C^{measured:.2f} (C = {C0}…{C1}): the "
        "linear layers, O(C·d²), dominate until C ≈ {cross:,}. O(N³) total is the attention-only count.",
        "重算耗时是有缓存时的 {ratio:.1f} 倍，每步注意力 FLOPs 确实按 C^{counted:.2f} 增长；但实测每步耗时只按 "
        "C^{measured:.2f} 增长（C = {C0}…{C1}）：在 C ≈ {cross:,} 之前线性层 O(C·d²) 占主导。总计 O(N³) 只是"
        "注意力部分的计数。",
    ),
    "why_c13_fails": (
        "Without the cache, measured step time grows as C^{measured:.2f} (C = {C0}…{C1}) and the run took "
        "{ratio:.1f}× the cached one: not the claimed growth.",
        "没有缓存时，实测每步耗时按 C^{measured:.2f} 增长（C = {C0}…{C1}），整个运行是有缓存时的 {ratio:.1f} "
        "倍：与所称的增长不符。",
    ),
    "why_c14_holds": (
        "With the cache, step time grows as C^{measured:.2f} (C = {C0}…{C1}), as O(L+N) says.",
        "有缓存时，每步耗时按 C^{measured:.2f} 增长（C = {C0}…{C1}），与 O(L+N) 一致。",
    ),
    "why_c14_roughly": (
        "Attention FLOPs per step grow as C^{counted:.2f}, as claimed, but the measured step time barely "
        "moves (C^{measured:.2f}, {growth:+.0f} % from C = {C0} to {C1}): reading the weights dominates "
        "each step until C ≈ {cross:,}, so the total is ~O(N) here, O(N²) only beyond that.",
        "每步注意力 FLOPs 按 C^{counted:.2f} 增长，与论断一致，但实测每步耗时几乎不变（C^{measured:.2f}，"
        "从 C = {C0} 到 {C1} 变化 {growth:+.0f} %）：在 C ≈ {cross:,} 之前读取权重占主导，因此这里总计约 "
        "O(N)，超过该点才是 O(N²)。",
    ),
    "why_c14_fails": (
        "With the cache, measured step time grows as C^{measured:.2f} ({growth:+.0f} %, C = {C0}…{C1}): "
        "not O(C) per step.",
        "有缓存时，实测每步耗时按 C^{measured:.2f} 增长（{growth:+.0f} %，C = {C0}…{C1}）：并非每步 O(C)。",
    ),
    "why_c15_holds": (
        "The counted attention total without a cache grows as N^{counted:.2f}: the source's O(N²) matches.",
        "没有缓存时统计的注意力总量按 N^{counted:.2f} 增长：与原文的 O(N²) 相符。",
    ),
    "why_c15_fails": (
        "The source's “without a cache, O(N²)” contradicts its own Σ(L+t)²: the engine's attention count "
        "grows as N^{counted:.2f} (L = N). Measured here, the total time grows as n^{measured:.2f}, because "
        "the linear layers (O(C·d²) per uncached step) dominate until C ≈ {cross:,} (this run reached "
        "C = {C}).",
        "原文“没有缓存时为 O(N²)”与它自己推导的 Σ(L+t)² 矛盾：引擎统计的注意力总量按 N^{counted:.2f} 增长"
        "（L = N）。这里实测总耗时按 n^{measured:.2f} 增长，因为在 C ≈ {cross:,} 之前线性层（无缓存时每步 "
        "O(C·d²)）占主导（本次运行最长到 C = {C}）。",
    ),
    "why_spec_verify_holds": (
        "Verifying k drafted tokens cost at most {within}× one decode step up to {flat}: the step stayed "
        "bound by reading the weights, and the extra rows used compute that a decode step leaves idle.",
        "验证 k 个草稿 token 的代价不超过一个解码步的 {within} 倍，范围为 {flat}：这一步仍受读取权重的限制，多出的行用的是"
        "解码步闲置的算力。",
    ),
    "why_spec_verify_roughly": (
        "Only partly: verifying k drafted tokens cost at most {within}× one decode step up to {flat}; beyond "
        "that each extra row costs time, because a step here is not purely bound by reading the weights.",
        "只部分成立：验证 k 个草稿 token 的代价不超过一个解码步的 {within} 倍的范围为 {flat}；超过之后每多一行都要"
        "花时间，因为这里的一步并不完全受读取权重的限制。",
    ),
    "why_spec_verify_fails": (
        "Not on this machine: verifying even k = {k1} drafted token cost {r1:.2f}× one decode step (C = {ctx1}), "
        "more than {within}×. Each extra row costs measurable time here: a decode step on this machine is not "
        "purely bound by reading the weights.",
        "在本机上不成立：即使只验证 k = {k1} 个草稿 token，代价也是一个解码步的 {r1:.2f} 倍（C = {ctx1}），超过 {within} 倍。"
        "这里每多一行都要花可测的时间：本机上的解码步并不完全受读取权重的限制。",
    ),
    "why_c16_holds": (
        "The naive loop kept {per:.0f} KiB more per request ({last:.0f} KiB after {n}) and its last request "
        "ran {slow:.2f}× slower per token; the engine held {engine:.0f} KiB after each request.",
        "朴素循环每个请求多保留 {per:.0f} KiB（{n} 个请求后共 {last:.0f} KiB），最后一个请求每 token 慢 "
        "{slow:.2f} 倍；引擎在每个请求后持有 {engine:.0f} KiB。",
    ),
    "why_c16_roughly": (
        "It leaks: the naive loop's one cache kept {per:.0f} KiB more per request ({last:.0f} KiB after "
        "{n}), the engine {engine:.0f} KiB. But it hardly slows down (×{slow:.2f} per token): attending "
        "over the leaked tokens is a small part of a step at these lengths. The leak is the loop's "
        "reuse of one cache object, not Hugging Face's: generate() starts a fresh cache each call.",
        "确实泄漏：朴素循环的同一个缓存每个请求多保留 {per:.0f} KiB（{n} 个请求后 {last:.0f} KiB），引擎为 "
        "{engine:.0f} KiB。但几乎没有变慢（每 token ×{slow:.2f}）：在这个长度下，对泄漏 token 的注意力只占每步"
        "的一小部分。泄漏来自循环重复使用同一个缓存对象，而不是 Hugging Face 本身：generate() 每次调用都会"
        "新建缓存。",
    ),
    "why_c16_busy": (
        "The naive loop's one cache kept {per:.0f} KiB more per request ({last:.0f} KiB after {n}), the engine "
        "{engine:.0f} KiB. Whether the leak slows each token is not judged: the machine was busy (other "
        "processes kept {other:.1f} of its {cores} cores busy while this was timed).",
        "朴素循环的同一个缓存每个请求多保留 {per:.0f} KiB（{n} 个请求后 {last:.0f} KiB），引擎为 {engine:.0f} KiB。"
        "泄漏是否拖慢每个 token 不作判断：机器正忙（计时期间其他进程平均占用了 {cores} 个核心中的 {other:.1f} 个）。",
    ),
    "why_c16_fails": (
        "The naive loop's cache did not grow every request, or the engine kept memory ({engine:.0f} KiB): "
        "no leak as described.",
        "朴素循环的缓存并未随每个请求增长，或引擎保留了内存（{engine:.0f} KiB）：没有所述的泄漏。",
    ),
    "why_c16_shown": (
        "The leak loop needs the Hugging Face copy of the model: see the Memory lab.",
        "泄漏循环需要模型的 Hugging Face 副本：见显存实验室。",
    ),
    "why_c17_holds": (
        "Up to {distinct} requests with different KV lengths ran in one step, lengths changed {changed} "
        "times; paged blocks wasted {paged:.0f} % of their slots where reserving each request's maximum "
        "would waste {contiguous:.0f} %. (“The hardest part” is a judgement, not a measurement.)",
        "同一步中最多有 {distinct} 个 KV 长度不同的请求，长度共变化 {changed} 次；分页块浪费了 {paged:.0f} % "
        "的槽位，而为每个请求预留最大长度会浪费 {contiguous:.0f} %。（“最难的部分”是判断，不是测量。）",
    ),
    "why_c17_roughly": (
        "{distinct} different KV lengths shared a step, but paged blocks ({paged:.0f} % waste) did not beat "
        "reserving the maximum ({contiguous:.0f} %) in this workload.",
        "有 {distinct} 种不同的 KV 长度共享同一步，但在这个负载中分页块（浪费 {paged:.0f} %）并不比预留最大长度"
        "（{contiguous:.0f} %）更好。",
    ),
    "why_c17_fails": (
        "Only {distinct} KV length per step: the requests never overlapped.",
        "每步只有 {distinct} 种 KV 长度：请求从未重叠。",
    ),
    "why_c19_holds": (
        "Decode is {share:.0f} % of the time, bandwidth-bound ({i:.2f} FLOP/B < {balance:.1f}), and KV bytes "
        "are {kv:.0f} % of a decode step's traffic at C = {C}: the KV techniques act on most of it.",
        "解码占 {share:.0f} % 的时间且受带宽限制（{i:.2f} FLOP/B < {balance:.1f}），C = {C} 时 KV 字节占解码步"
        "流量的 {kv:.0f} %：KV 相关技术作用于其大部分。",
    ),
    "why_c19_roughly": (
        "The premise holds (decode {share:.0f} % of the time, bandwidth-bound at {i:.2f} FLOP/B), but at "
        "C = {C} the KV cache is only {kv:.1f} % of a decode step's bytes: weights dominate, so weight "
        "quantisation helps decode most; KV compression, GQA (÷{gqa:.0f} here) and PagedAttention pay "
        "off at long contexts and large batches (PagedAttention is about capacity, not per-step speed), "
        "and quantisation speeds prefill too.",
        "前提成立（解码占 {share:.0f} % 的时间，{i:.2f} FLOP/B 受带宽限制），但 C = {C} 时 KV 缓存只占解码步"
        "字节的 {kv:.1f} %：权重占主导，所以权重量化对解码帮助最大；KV 压缩、GQA（此处 ÷{gqa:.0f}）和 "
        "PagedAttention 在长上下文和大批量时才见效（PagedAttention 关乎容量而非单步速度），而量化同样加速预填充。",
    ),
    "why_c19_measured_holds": (
        "Decode is {share:.0f} % of the time and bandwidth-bound ({i:.2f} FLOP/B < {balance:.1f}). Measured here: "
        "{fmt} weights ({wb:.2f}× the bytes) made decode {dec:.2f}× faster (TPOT {tpot0:.1f} → {tpot1:.1f} ms) "
        "and prefill of L = {L} {pre:.2f}×: the lever acts on decode. The KV levers shrink the KV bytes (int8 "
        "{kv8:.2f}×, GQA ÷{gqa:.0f}), which are {kv:.1f} % of a decode step's bytes at C = {C}: they pay at long "
        "contexts and big batches (the precision lab measures both).",
        "解码占 {share:.0f} % 的时间且受带宽限制（{i:.2f} FLOP/B < {balance:.1f}）。此处实测：{fmt} 权重（字节数为 "
        "{wb:.2f}×）使解码快 {dec:.2f}×（TPOT {tpot0:.1f} → {tpot1:.1f} 毫秒），L = {L} 的预填充为 {pre:.2f}×："
        "这一杠杆作用于解码。KV 相关杠杆缩小 KV 字节（int8 {kv8:.2f}×，GQA ÷{gqa:.0f}），而 C = {C} 时它们只占解码步"
        "字节的 {kv:.1f} %：在长上下文与大批量时才见效（精度实验室对两者都做了测量）。",
    ),
    "why_c19_measured_roughly": (
        "Decode is {share:.0f} % of the time and bandwidth-bound ({i:.2f} FLOP/B), but measured here {fmt} weights "
        "({wb:.2f}× the bytes) changed decode only {dec:.2f}× (TPOT {tpot0:.1f} → {tpot1:.1f} ms) against prefill "
        "{pre:.2f}× at L = {L}: fewer bytes help decode only as far as this machine's int8 kernel streams them. "
        "KV levers: int8 {kv8:.2f}× the KV bytes, GQA ÷{gqa:.0f}, on {kv:.1f} % of a step's bytes at C = {C}.",
        "解码占 {share:.0f} % 的时间且受带宽限制（{i:.2f} FLOP/B），但此处实测 {fmt} 权重（字节数为 {wb:.2f}×）只使解码"
        "变为 {dec:.2f}×（TPOT {tpot0:.1f} → {tpot1:.1f} 毫秒），L = {L} 的预填充为 {pre:.2f}×：字节减少只在本机 int8 "
        "内核能以相应速率读取时才帮助解码。KV 杠杆：int8 为 {kv8:.2f}× 的 KV 字节，GQA ÷{gqa:.0f}，C = {C} 时占每步字节的 "
        "{kv:.1f} %。",
    ),
    "why_c19_fails": (
        "Decode is only {share:.0f} % of the time, or not bandwidth-bound ({i:.2f} FLOP/B vs {balance:.1f}): "
        "the premise does not hold here.",
        "解码只占 {share:.0f} % 的时间，或并非带宽受限（{i:.2f} FLOP/B 对 {balance:.1f}）：前提在此不成立。",
    ),
    "why_c20_holds": (
        "At L = {L:,} in FP16 one head's scores are {per_head:.0f} MB (the document's {doc:.0f} MB is per "
        "head); one layer's {heads} heads at once hold {per_layer:.1f} GB. On a {gpu} GB GPU {model}'s "
        "weights + KV fit but the eager prefill does not; a fused kernel does. Eager scores measured "
        "here: {measured}× the formula.",
        "FP16、L = {L:,} 时一个头的分数为 {per_head:.0f} MB（原文的 {doc:.0f} MB 是单头）；一层 {heads} 个头"
        "同时需要 {per_layer:.1f} GB。在 {gpu} GB 的 GPU 上 {model} 的权重 + KV 放得下，但 eager 预填充放不下；"
        "融合内核可以。此处实测 eager 分数为公式的 {measured} 倍。",
    ),
    "why_c20_roughly": (
        "The trap is real ({gpu} GB GPU: weights + KV fit, eager prefill does not), but one head's scores "
        "at L = {L:,} are {per_head:.0f} MB, not {doc:.0f} MB.",
        "陷阱确实存在（{gpu} GB GPU：权重 + KV 放得下，eager 预填充放不下），但 L = {L:,} 时一个头的分数为 "
        "{per_head:.0f} MB，不是 {doc:.0f} MB。",
    ),
    "why_c20_fails": (
        "No GPU size where weights + KV fit but the scores overflow ({model}, L = {L:,}); one head's scores "
        "are {per_head:.0f} MB.",
        "找不到权重 + KV 放得下而分数溢出的 GPU 规格（{model}，L = {L:,}）；一个头的分数为 {per_head:.0f} MB。",
    ),
    "why_c21_holds": (
        "While the long prompt's prefill ran ({prefill:.0f} ms), the short requests waited up to "
        "{longest:.0f} ms between tokens, {ratio:.1f}× their typical {median:.0f} ms.",
        "长提示预填充运行期间（{prefill:.0f} 毫秒），短请求的 token 间隔最长达 {longest:.0f} 毫秒，是其典型值 "
        "{median:.0f} 毫秒的 {ratio:.1f} 倍。",
    ),
    "why_c21_roughly": (
        "The short requests' longest gap, {longest:.0f} ms, is {ratio:.1f}× their typical {median:.0f} ms: "
        "a stall, smaller than the long prefill ({prefill:.0f} ms) at this size.",
        "短请求的最长间隔 {longest:.0f} 毫秒是典型值 {median:.0f} 毫秒的 {ratio:.1f} 倍：有停顿，但在这个规模下"
        "小于长预填充（{prefill:.0f} 毫秒）。",
    ),
    "why_c21_fails": (
        "The short requests' longest gap ({longest:.0f} ms) is only {ratio:.1f}× their typical gap: no blocking seen.",
        "短请求的最长间隔（{longest:.0f} 毫秒）只是典型间隔的 {ratio:.1f} 倍：没有观察到阻塞。",
    ),
    "why_c22_holds": (
        "With chunked prefill {mixed} steps mixed prefill chunks and decode tokens; the short requests' P99 "
        "gap (of {gaps} gaps: under 100, their largest) fell from {p99a:.0f} to {p99b:.0f} ms ({gain:.0f} % better), throughput {tput:+.0f} %.",
        "分块预填充后有 {mixed} 步同时包含预填充块和解码 token；短请求的 P99 间隔（共 {gaps} 个间隔，不足 100 个时取最大值）从 {p99a:.0f} 降到 "
        "{p99b:.0f} 毫秒（改善 {gain:.0f} %），吞吐量 {tput:+.0f} %。",
    ),
    "why_c22_roughly": (
        "Chunks interleave ({mixed} mixed steps) and the P99 gap (of {gaps}; under 100, the largest) improves {gain:.0f} % ({p99a:.0f} → "
        "{p99b:.0f} ms), but throughput changes {tput:+.0f} %: each chunk re-reads the weights.",
        "分块交错进行（{mixed} 个混合步），P99 间隔（共 {gaps} 个，不足 100 个时取最大值）改善 {gain:.0f} %（{p99a:.0f} → {p99b:.0f} 毫秒），但吞吐量"
        "变化 {tput:+.0f} %：每个块都要重新读取权重。",
    ),
    "why_c22_fails": (
        "Chunked prefill: {mixed} mixed steps, P99 gap (of {gaps}; under 100, the largest) {p99a:.0f} → {p99b:.0f} ms ({gain:+.0f} %), "
        "throughput {tput:+.0f} %: no clear improvement here.",
        "分块预填充：{mixed} 个混合步，P99 间隔（共 {gaps} 个，不足 100 个时取最大值）{p99a:.0f} → {p99b:.0f} 毫秒（{gain:+.0f} %），吞吐量 "
        "{tput:+.0f} %：此处没有明显改善。",
    ),
    "why_c24_holds": (
        "Judged at what each phase gets alone (decode: no gap over {itl:.0f} ms, 3 × the chats' median {d:.0f} ms; "
        "prefill: the long prompt's first token within {ttft:.0f} ms, 1.5 × its {p:.0f} ms prefill), neither schedule "
        "serves both. Whole prompts: {wa} of {n} chats keep their pace (worst gap {gapa:.0f} ms), long prompt's TTFT "
        "{ta:.0f} ms; chunked prefill: {wb} of {n} (worst gap {gapb:.0f} ms), TTFT {tb:.0f} ms. Chunks trade the "
        "prefill's latency (TTFT {ta:.0f} → {tb:.0f} ms) for the decodes' pace (worst gap {gapa:.0f} → {gapb:.0f} ms); "
        "goodput at these objectives {ga:.2f} → {gb:.2f} requests/s.",
        "以各阶段单独运行时的表现为目标（解码：间隔不超过 {itl:.0f} 毫秒，即聊天请求间隔中位数 {d:.0f} 毫秒的 3 倍；预填充："
        "长提示的首个 token 在 {ttft:.0f} 毫秒内，即其 {p:.0f} 毫秒预填充的 1.5 倍），两种调度都无法同时满足。整段预填充："
        "{n} 个聊天请求中 {wa} 个保持节奏（最长间隔 {gapa:.0f} 毫秒），长提示 TTFT {ta:.0f} 毫秒；分块预填充：{wb} 个（最长间隔 "
        "{gapb:.0f} 毫秒），TTFT {tb:.0f} 毫秒。分块用预填充的延迟（TTFT {ta:.0f} → {tb:.0f} 毫秒）换来解码的节奏（最长间隔 "
        "{gapa:.0f} → {gapb:.0f} 毫秒）；按这些目标计算的 goodput 从 {ga:.2f} 变为 {gb:.2f} 请求/秒。",
    ),
    "why_c24_roughly": (
        "Neither schedule serves both phases at what each gets alone (decode: gaps within {itl:.0f} ms; prefill: "
        "TTFT within {ttft:.0f} ms), but chunks do not trade one for the other here: whole prompts {wa} of {n} chats, "
        "worst gap {gapa:.0f} ms, TTFT {ta:.0f} ms; chunked {wb} of {n}, worst gap {gapb:.0f} ms, TTFT {tb:.0f} ms "
        "(goodput {ga:.2f} → {gb:.2f} requests/s).",
        "两种调度都无法让两个阶段同时达到各自单独运行时的表现（解码：间隔不超过 {itl:.0f} 毫秒；预填充：TTFT 不超过 "
        "{ttft:.0f} 毫秒），但这里分块并没有用一个阶段换另一个：整段预填充 {n} 个聊天请求中 {wa} 个，最长间隔 {gapa:.0f} 毫秒，"
        "TTFT {ta:.0f} 毫秒；分块 {wb} 个，最长间隔 {gapb:.0f} 毫秒，TTFT {tb:.0f} 毫秒（goodput {ga:.2f} → {gb:.2f} 请求/秒）。",
    ),
    "why_c24_fails": (
        "A schedule served both phases at what each gets alone (decode: gaps within {itl:.0f} ms; prefill: TTFT "
        "within {ttft:.0f} ms): whole prompts {wa} of {n} chats, TTFT {ta:.0f} ms; chunked {wb} of {n}, TTFT "
        "{tb:.0f} ms. At this load the phases did not get in each other's way.",
        "有一种调度让两个阶段都达到了各自单独运行时的表现（解码：间隔不超过 {itl:.0f} 毫秒；预填充：TTFT 不超过 {ttft:.0f} "
        "毫秒）：整段预填充 {n} 个聊天请求中 {wa} 个，TTFT {ta:.0f} 毫秒；分块 {wb} 个，TTFT {tb:.0f} 毫秒。在这个负载下两个阶段"
        "没有互相妨碍。",
    ),
    "why_c23_holds": (
        "Prefill wrote {kv} tokens of KV, each of {n} decode steps added one, and with chunked prefill "
        "{mixed} of {steps} steps ran prefill chunks and decode tokens together.",
        "预填充写入了 {kv} 个 token 的 KV，{n} 个解码步每步加一个；分块预填充时 {steps} 步中有 {mixed} 步同时运行"
        "预填充块与解码 token。",
    ),
    "why_c23_roughly": (
        "Prefill built the cache ({kv} tokens) and decode extended it, but no step mixed the phases ({steps} steps).",
        "预填充构建了缓存（{kv} 个 token），解码扩展了它，但没有一步混合两个阶段（共 {steps} 步）。",
    ),
    "why_c23_fails": (
        "The cache was not built by prefill and extended by one per decode step (KV {kv}, {n} decode steps).",
        "缓存并非由预填充构建、每个解码步加一（KV {kv}，{n} 个解码步）。",
    ),
    # verdict words
    "verdict_holds": ("holds", "成立"),
    "verdict_roughly": ("roughly", "大致成立"),
    "verdict_does not hold": ("does not hold", "不成立"),
    "verdict_not measurable here": ("not measurable here", "此处无法测量"),
    "verdict_unreliable": ("unreliable: the machine was busy", "不可靠：机器正忙"),
    "verdict_shown on page": ("shown on page", "见相应页面"),
    # C4
    "why_c4_holds": (
        "The prefill step is {share:.1%} of TTFT or more at every prompt length, and TTFT grows {growth:.1f}× from "
        "L = {L0} ({ttft0:.0f} ms) to L = {L1} ({ttft1:.0f} ms), about {slope:.2f} ms per prompt token.",
        "每个提示长度下预填充步都占 TTFT 的 {share:.1%} 或更多；TTFT 从 L = {L0}（{ttft0:.0f} 毫秒）到 "
        "L = {L1}（{ttft1:.0f} 毫秒）增长 {growth:.1f} 倍，约每个提示 token {slope:.2f} 毫秒。",
    ),
    "why_c4_roughly": (
        "Prefill is at least {share:.0%} of TTFT at every prompt length, and TTFT grows {growth:.2f}× "
        "from L = {L0} ({ttft0:.0f} ms) to L = {L1} ({ttft1:.0f} ms): mostly prefill, growing, but "
        "short of the rule's bounds.",
        "每个提示长度下预填充至少占 TTFT 的 {share:.0%}，TTFT 从 L = {L0}（{ttft0:.0f} 毫秒）到 L = {L1}"
        "（{ttft1:.0f} 毫秒）增长 {growth:.2f} 倍：大部分是预填充且在增长，但未达到规则的界限。",
    ),
    "why_c4_fails": (
        "Prefill is only {share:.0%} of TTFT at some prompt length (queueing or other work fills the "
        "rest), or TTFT grows only {growth:.2f}× from L = {L0} ({ttft0:.0f} ms) to L = {L1} "
        "({ttft1:.0f} ms).",
        "在某个提示长度下预填充只占 TTFT 的 {share:.0%}（其余是排队或其他工作），或 TTFT 从 L = {L0}"
        "（{ttft0:.0f} 毫秒）到 L = {L1}（{ttft1:.0f} 毫秒）只增长 {growth:.2f} 倍。",
    ),
    "rule_c4": (
        "prefill step / TTFT ≥ 90 % at every L and TTFT(longest) / TTFT(shortest) ≥ 1.5 → holds; "
        "≥ 70 % and > 1.1 → roughly",
        "每个 L 下预填充步 / TTFT ≥ 90 % 且 TTFT(最长)/TTFT(最短) ≥ 1.5 → 成立；≥ 70 % 且 > 1.1 → 大致成立",
    ),
    # C8
    "why_c8_holds": (
        "The typical gap between tokens (median ITL {itl_median:.1f} ms) is TPOT ({tpot:.1f} ms) within "
        "{off:.0%}, and 90 % of gaps are under {tail:.1f}× TPOT: TPOT is the stream's pace, "
        "{rate:.0f} tokens/s.",
        "相邻 token 的典型间隔（ITL 中位数 {itl_median:.1f} 毫秒）与 TPOT（{tpot:.1f} 毫秒）相差 {off:.0%} 以内，"
        "90 % 的间隔小于 {tail:.1f} 倍 TPOT：TPOT 就是流式输出的节奏，每秒 {rate:.0f} 个 token。",
    ),
    "why_c8_roughly": (
        "TPOT ({tpot:.1f} ms) is close to the median gap ({itl_median:.1f} ms, {off:.0%} off), but the "
        "slowest 10 % of gaps reach {tail:.1f}× TPOT: an average hides stalls a reader would notice.",
        "TPOT（{tpot:.1f} 毫秒）接近间隔中位数（{itl_median:.1f} 毫秒，相差 {off:.0%}），但最慢的 10 % "
        "间隔达到 {tail:.1f} 倍 TPOT：平均值掩盖了读者能察觉的停顿。",
    ),
    "why_c8_fails": (
        "TPOT ({tpot:.1f} ms) differs from the median gap ({itl_median:.1f} ms) by {off:.0%}, or the P90 "
        "gap is {tail:.1f}× TPOT: the stream is uneven, and TPOT alone does not describe it.",
        "TPOT（{tpot:.1f} 毫秒）与间隔中位数（{itl_median:.1f} 毫秒）相差 {off:.0%}，或 P90 间隔达 "
        "{tail:.1f} 倍 TPOT：输出不均匀，单看 TPOT 无法描述它。",
    ),
    "rule_c8": (
        "|median ITL / TPOT − 1| ≤ 15 % and P90 ITL ≤ 1.5 TPOT → holds; ≤ 30 % and ≤ 3 TPOT → roughly "
        "(each request of the longest output; the median one shown)",
        "|ITL 中位数 / TPOT − 1| ≤ 15 % 且 P90 ITL ≤ 1.5 TPOT → 成立；"
        "≤ 30 % 且 ≤ 3 TPOT → 大致成立（逐个判断最长输出的请求，显示居中的那个）",
    ),
    # C9
    "why_c9_holds": (
        "At N = {N} new tokens decode is {share:.1%} of the request's time.",
        "生成 N = {N} 个 token 时，解码占请求时间的 {share:.1%}。",
    ),
    "why_c9_roughly": (
        "At N = {N} decode is {share:.1%} of the request's time: most, but not ~90 %.",
        "N = {N} 时解码占请求时间的 {share:.1%}：占大部分，但不到约 90 %。",
    ),
    "why_c9_fails": (
        "At N = {N} decode is only {share:.1%} of the request's time: the prompt dominates.",
        "N = {N} 时解码只占请求时间的 {share:.1%}：提示（预填充）占主导。",
    ),
    "rule_c9": (
        "decode share (E2E − TTFT) / E2E at the longest N ≥ 80 % → holds; ≥ 60 % → roughly",
        "最长 N 时解码占比 (E2E − TTFT) / E2E ≥ 80 % → 成立；≥ 60 % → 大致成立",
    ),
    # C18
    "why_c18_holds": (
        "From L = {L0} to {L1} TTFT grows {ttft_growth:.1f}× while TPOT changes {tpot_L:+.0f} %; from "
        "N = {N0} to {N1} TTFT varies {ttft_N:.0f} % and TPOT changes {tpot_N:+.0f} %.",
        "从 L = {L0} 到 {L1}，TTFT 增长 {ttft_growth:.1f} 倍而 TPOT 变化 {tpot_L:+.0f} %；从 N = {N0} 到 "
        "{N1}，TTFT 波动 {ttft_N:.0f} %，TPOT 变化 {tpot_N:+.0f} %。",
    ),
    "why_c18_roughly": (
        "TTFT grows {ttft_growth:.1f}× from L = {L0} to {L1}, but TPOT does grow with context: "
        "{tpot_L:+.0f} % ({tpot0:.1f} → {tpot1:.1f} ms), since every decode step reads the whole KV "
        "cache. From N = {N0} to {N1} TTFT varies {ttft_N:.0f} %, TPOT {tpot_N:+.0f} %.",
        "TTFT 从 L = {L0} 到 {L1} 增长 {ttft_growth:.1f} 倍，但 TPOT 确实随上下文增长："
        "{tpot_L:+.0f} %（{tpot0:.1f} → {tpot1:.1f} 毫秒），因为每个解码步都要读取整个 KV 缓存。"
        "从 N = {N0} 到 {N1}，TTFT 波动 {ttft_N:.0f} %，TPOT 变化 {tpot_N:+.0f} %。",
    ),
    "why_c18_fails": (
        "Measured: TTFT ×{ttft_growth:.1f} and TPOT {tpot_L:+.0f} % from L = {L0} to {L1}; TTFT varies "
        "{ttft_N:.0f} % and TPOT {tpot_N:+.0f} % from N = {N0} to {N1}: at least one half of the claim "
        "is off by more than the rule allows.",
        "实测：从 L = {L0} 到 {L1}，TTFT ×{ttft_growth:.1f}，TPOT {tpot_L:+.0f} %；从 N = {N0} 到 {N1}，"
        "TTFT 波动 {ttft_N:.0f} %，TPOT {tpot_N:+.0f} %：论断至少有一半超出规则允许的范围。",
    ),
    "rule_c18": (
        "TTFT(longest L) ≥ 1.5 × TTFT(shortest) with TPOT within 10 % (roughly: 50 %); over N, TTFT within "
        "20 % of its median and TPOT −10 %…+25 % (roughly: ±50 %)",
        "TTFT(最长 L) ≥ 1.5 × TTFT(最短 L) 且 TPOT 变化在 10 % 内（大致成立：50 %）；随 N 变化时 TTFT "
        "在其中位数的 20 % 内，TPOT 在 −10 %…+25 % 内（大致成立：±50 %）",
    ),
}
