"""Strings of the precision lab, and its `t`: this table first, then the shared ones.
{key: (en, zh)}; templates use str.format fields."""

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "pr_title": (
        "Precision lab: quantised weights and a compressed KV cache (C19)",
        "精度实验室：量化权重与压缩 KV 缓存（C19）",
    ),
    "pr_intro": (
        "Decode is memory-bound: each step reads every weight and the whole KV cache to make one token per "
        "sequence. The levers are fewer bytes per weight (quantisation), fewer bytes per cached token (KV "
        "compression, GQA) and less waste (paging). Here each configuration of the loaded model is loaded, "
        "timed and scored against float32: what it stores, what a step reads, the TPOT and prefill time it "
        "measures, and what it costs in quality.",
        "解码受内存带宽限制：每一步都要读取全部权重和整个 KV 缓存，才能为每个序列生成一个 token。可用的杠杆是："
        "每个权重更少的字节（量化）、每个缓存 token 更少的字节（KV 压缩、GQA）以及更少的浪费（分页）。这里把已加载"
        "模型的每种配置分别加载、计时并与 float32 比较质量：它存储多少、每步读取多少、测得的 TPOT 与预填充时间，以及"
        "质量代价。",
    ),
    "pr_weights": ("Weights (and activations)", "权重（与激活）"),
    "pr_weights_help": (
        "float32 is the reference and always runs first: float32 arithmetic on the loaded weights (the bundled "
        "model's are Q4_1, 4-bit, de-quantised; load the original bf16 checkpoint, HuggingFaceTB/"
        "SmolLM2-135M-Instruct, from the hub for the true reference). int8 is weight-only (one scale per output row); "
        "“+ bfloat16” runs the activations in bfloat16, where CPUs with native bf16 have a fast int8 kernel (the "
        "speed table shows whether this one does). "
        "w8a8 also quantises the activations per call (fbgemm): fast, and lossy. gguf Q4_1 (bundled model only) "
        "computes on the GGUF file's own 4-bit blocks without de-quantising them, reading 5 bits a weight instead "
        "of 32: float32's numbers (float32 here is those blocks de-quantised), exactly where float32 runs on this "
        "lab's C kernels (the roofline page's kernel table says which ran).",
        "float32 是参照，总是最先运行：在已加载的权重上做 float32 运算（内置模型的权重是 Q4_1，4 位，已反量化；"
        "要得到真正的参照，请从 Hub 加载原始 bf16 检查点 HuggingFaceTB/SmolLM2-135M-Instruct）。int8 只量化权重（每个输出行一个缩放因子）；“+ bfloat16”表示激活用 "
        "bfloat16 计算，原生支持 bf16 的 CPU 在这种情况下有快速 int8 内核（速度表会显示本机是否如此）。w8a8 还会在每次调用时量化激活（fbgemm）：快，但有损。gguf Q4_1（仅内置模型）直接在 GGUF 文件自带的 4 位块上计算、"
        "不做反量化，每个权重只读 5 位而不是 32 位：数值即 float32 的数值（这里的 float32 就是这些块反量化的结果），"
        "当 float32 也在本实验室的 C 内核上运行时完全相同（屋顶线页面的内核表会显示用了哪个内核）。",
    ),
    "pr_kv": ("KV cache dtypes (with float32 weights)", "KV 缓存数据类型（配 float32 权重）"),
    "pr_kv_help": (
        "Each adds a row: float32 weights with the cache stored this way, dequantised when read. int8 keeps one "
        "scale per token and head.",
        "每项增加一行：float32 权重，KV 缓存按此类型存储，读取时反量化。int8 为每个 token 的每个头保存一个缩放因子。",
    ),
    "pr_quality_tokens": ("Text tokens to score", "用于评分的文本 token 数"),
    "pr_quality_tokens_help": (
        "Of the lab's sample text (English, then Chinese from the source document; 2,456 tokens in all). "
        "0 skips perplexity, KL and top-1; more is slower and steadier.",
        "取自实验室的样本文本（先英文，后为原文档的中文；共 2,456 个 token）。0 表示跳过困惑度、KL 与 "
        "top-1；越多越慢，也越稳定。",
    ),
    "pr_repeats": ("Timing repeats", "计时重复次数"),
    "pr_run": ("Measure", "测量"),
    "pr_running": ("Measuring {n} configurations…", "正在测量 {n} 种配置…"),
    "pr_failed": ("The measurement failed", "测量失败"),
    "pr_progress": ("configuration {k} of {n}, {name}: {stage}", "第 {k} / {n} 种配置（{name}）：{stage}"),
    "pr_stage_reference": ("loading the float32 reference", "加载 float32 参照"),
    "pr_stage_loading": ("loading", "加载中"),
    "pr_stage_timing": ("timing prefill and decode", "为预填充与解码计时"),
    "pr_stage_perplexity": ("perplexity and KL against float32", "对照 float32 的困惑度与 KL"),
    "pr_stage_greedy": ("greedy agreement", "贪心输出一致率"),
    "pr_stage_done": ("done", "完成"),
    "pr_not_run": (
        "Choose the configurations and press Measure. Each is loaded (int8 kernels are timed once per "
        "machine), timed and scored: about 20-60 s each for the bundled model on a quiet 2-core CPU; the bar says "
        "how long is left at this machine's pace.",
        "选择配置后点击“测量”。每种配置都会被加载（int8 内核在每台机器上只计时一次）、计时并评分：在双核 "
        "CPU 上内置模型每种约 20-60 秒（机器空闲时）；进度条会按本机的速度给出剩余时间。",
    ),
    "pr_done": ("Measured {n} configurations of {model}.", "已测量 {model} 的 {n} 种配置。"),
    "pr_stopped": (
        "Stopped: {n} configuration(s) measured; below is what ran.",
        "已停止：测量了 {n} 种配置；下面是已完成的部分。",
    ),
    "pr_speed_header": ("Speed and memory", "速度与内存"),
    "pr_context": ("Context for the bytes (tokens)", "计算字节数所用的上下文（token）"),
    "pr_batch": ("Batch", "批大小"),
    "pr_col_config": ("configuration", "配置"),
    "pr_col_weights_mb": ("weights (MB)", "权重（MB）"),
    "pr_col_kv_token": ("KV B/token", "每 token KV 字节"),
    "pr_col_read": ("read/step at L={L}, B={B} (MB)", "L={L}、B={B} 时每步读取（MB）"),
    "pr_col_intensity": ("FLOP/B there", "该处 FLOP/字节"),
    "pr_col_tpot": ("TPOT (ms)", "TPOT（毫秒）"),
    "pr_col_vs": ("× float32", "× float32"),
    "pr_col_gbs": ("reached GB/s", "达到 GB/s"),
    "pr_col_prefill": ("prefill L={L} (ms)", "预填充 L={L}（毫秒）"),
    "pr_speed_caption": (
        "TPOT: decode of {n} tokens after a {L}-token prompt, batch 1, median of {r} (memory probe off). Bytes "
        "read per step = weights as stored + batch × context × KV bytes per token (the engine's cost model); "
        "“reached” = the bytes at the timed context ÷ TPOT. At batch 1 and a short context TPOT follows the "
        "weights' bytes only where the kernel streams them at float32's rate; the KV dtype matters only where "
        "the KV part of the sum is large (long context, big batch).",
        "TPOT：{L} 个 token 的提示之后解码 {n} 个 token，批大小 1，{r} 次的中位数（关闭内存探针）。每步读取字节 = "
        "按存储格式的权重 + 批大小 × 上下文 × 每 token KV 字节（引擎的计算量模型）；“达到” = 计时上下文处的字节 ÷ "
        "TPOT。批大小 1、上下文较短时，只有当内核以 float32 的速率读取权重，TPOT 才跟随权重字节数；只有当 KV 部分"
        "很大（长上下文、大批量）时，KV 数据类型才重要。",
    ),
    "pr_fig_tpot_title": (
        "TPOT against the bytes a decode step reads (batch 1, L ≈ {L})",
        "TPOT 与每个解码步读取的字节数（批大小 1，L ≈ {L}）",
    ),
    "pr_fig_tpot_x": ("bytes read per decode step (MB)", "每个解码步读取的字节（MB）"),
    "pr_fig_tpot_y": ("TPOT (ms)", "TPOT（毫秒）"),
    "pr_fig_rate_line": ("at float32's bytes per second", "按 float32 的每秒字节数"),
    "pr_fig_bytes_title": (
        "Bytes a decode step reads at batch {B}: the weights, then the KV cache",
        "批大小 {B} 时每个解码步读取的字节：先是权重，然后是 KV 缓存",
    ),
    "pr_fig_bytes_x": ("context length (tokens, log scale)", "上下文长度（token，对数刻度）"),
    "pr_fig_bytes_y": ("bytes read per step (MB, log scale)", "每步读取的字节（MB，对数刻度）"),
    "pr_fig_bytes_context": ("context {C}: the tables' row", "上下文 {C}：表格中的这一行"),
    "pr_quality_header": ("Quality against float32", "与 float32 相比的质量"),
    "pr_col_ppl": ("perplexity", "困惑度"),
    "pr_col_ppl_vs": ("vs float32", "相对 float32"),
    "pr_col_kl": ("KL (nats)", "KL（奈特）"),
    "pr_col_top1": ("top-1 agree", "top-1 一致"),
    "pr_col_greedy": ("greedy top-1", "贪心 top-1"),
    "pr_quality_caption": (
        "Perplexity = exp(mean next-token loss) over the first {n} tokens of the text, fed 32 per forward so each "
        "chunk reads the earlier ones through the KV cache (float32: {ppl}). KL = mean KL(float32 ‖ format) of the "
        "next-token distributions; top-1 = how often both rank the same token first. Greedy top-1: float32's "
        "greedy continuation of {p} prompts fed to the format, the share of its tokens the format also ranks "
        "first.",
        "困惑度 = 文本前 {n} 个 token 上平均下一 token 损失的指数，每次前向输入 32 个 token，使每块都通过 KV 缓存读取"
        "之前的内容（float32：{ppl}）。KL = 下一 token 分布的平均 KL(float32 ‖ 格式)；top-1 = 两者排第一的 token "
        "相同的比例。贪心 top-1：把 float32 对 {p} 个提示的贪心续写输入该格式，它同样排第一的 token 所占比例。",
    ),
    "pr_samples_header": ("The same prompt, greedy, in each configuration", "同一提示在各配置下的贪心生成"),
    "pr_col_sample": ("continuation", "续写"),
    "pr_reference": ("float32 on the loaded weights (reference)", "在已加载权重上的 float32（参照）"),
    "pr_cap_header": ("Capacity: how much fits on a GPU", "容量：一块 GPU 能装下多少"),
    "pr_cap_intro": (
        "tokens that fit = (budget − weights) ÷ KV bytes per token; sequences = tokens ÷ context. Weights = "
        "parameters × bytes per weight.",
        "可容纳 token 数 = （预算 − 权重）÷ 每 token KV 字节；序列数 = token 数 ÷ 上下文。权重 = 参数量 × 每个权重的字节数。",
    ),
    "pr_cap_gpu": ("GPU", "GPU"),
    "pr_cap_budget": ("Share of its memory (%)", "使用其内存的比例（%）"),
    "pr_cap_budget_help": (
        "What the server may use for weights and KV cache; the rest is activations and the runtime.",
        "服务器可用于权重与 KV 缓存的部分；其余留给激活与运行时。",
    ),
    "pr_cap_model": ("Model", "模型"),
    "pr_cap_loaded": ("the loaded model ({name})", "已加载的模型（{name}）"),
    "pr_cap_context": ("Context per sequence", "每个序列的上下文"),
    "pr_cap_mha": ("same size, MHA (no GQA)", "同规模 MHA（无 GQA）"),
    "pr_cap_col_model": ("model", "模型"),
    "pr_cap_col_weights": ("weights", "权重"),
    "pr_cap_col_weights_gb": ("weights (GB)", "权重（GB）"),
    "pr_cap_col_kv": ("KV cache", "KV 缓存"),
    "pr_cap_col_kv_token": ("KV bytes/token", "每 token KV 字节"),
    "pr_cap_col_tokens": ("KV tokens that fit", "可容纳的 KV token"),
    "pr_cap_col_seqs": ("sequences of {L}", "{L} token 的序列数"),
    "pr_cap_caption": (
        "{heads} query heads share {kv_heads} KV heads (GQA, {group} per group): the KV cache is {group}× smaller "
        "than the same model with one KV head per query head (the MHA rows). Budget: {budget:.1f} GB of the "
        "{gpu}.",
        "{heads} 个查询头共享 {kv_heads} 个 KV 头（GQA，每组 {group} 个）：KV 缓存比每个查询头一个 KV 头的同规模模型"
        "（MHA 行）小 {group} 倍。预算：{gpu} 的 {budget:.1f} GB。",
    ),
}

t = page_translator(STRINGS)
