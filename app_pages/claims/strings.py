"""Strings of the claims page, and its `t`: this table first, then the shared ones (ui/i18n.py).
{key: (en, zh)}; templates use str.format fields."""

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "cl_title": ("The claims, checked on this model", "逐条核查原文论断"),
    "cl_intro": (
        "Every claim of [the source document](/source) (a Chinese tutorial on prefill and decode) with a live check: a few small runs of "
        "the loaded model on the real engine, then a verdict (holds / roughly / does not hold) with the numbers "
        "behind it, the rule used, and a link to the page that shows it in depth. Where the document is wrong "
        "or loose, the verdict says so and why.",
        "[原文](/source)（一篇讲预填充与解码的中文教程）的每一条论断都配有实时核查：用真实引擎在已加载的模型上做几次小规模运行，"
        "给出结论（成立 / 大致成立 / 不成立）、背后的数字、所用的判定规则，以及深入展示它的页面链接。原文有误或不严谨之处，"
        "结论会指出并说明原因。",
    ),
    "cl_run": ("Check all claims", "核查全部论断"),
    "cl_quick": ("Quick check (smaller runs, noisier timings)", "快速核查（运行规模更小，计时噪声更大）"),
    "cl_quick_help": (
        "About a fifth of the full check's work: shorter prompts and outputs, one repeat. Shape and "
        "memory checks are exact either way; timing verdicts are less reliable.",
        "约为完整核查工作量的五分之一：提示与输出更短，只重复一次。形状与内存类核查两种方式都精确；计时类结论则不太可靠。",
    ),
    "cl_not_run": (
        "Not checked yet: press Check all claims. On the bundled model and a quiet 2-core CPU the quick check "
        "takes about half a minute and the full one a few minutes; once the first runs are timed, the bar "
        "says how long is left at this machine's pace. The first time also loads a Hugging Face copy of the "
        "model for [C16](/claims?claim=C16).",
        "尚未核查：点击“核查全部论断”。在内置模型和空闲的双核 CPU 上，快速核查约需半分钟，完整核查需要几分钟；"
        "最初几次运行计时之后，进度条会按本机的速度给出剩余时间。首次还会为 [C16](/claims?claim=C16) 加载模型的 "
        "Hugging Face 副本。",
    ),
    "cl_running": ("Running the checks on {model}…", "正在 {model} 上运行核查…"),
    "cl_stage": ("{done} / {total}: {what}", "{done} / {total}：{what}"),
    "cl_stage_ceilings": ("this machine's ceilings (cached after the first time)", "本机的性能上限（首次测量后缓存）"),
    "cl_stage_run A": (
        "one request, eager attention, timed; then its memory on a second pass",
        "一个请求，eager 注意力，计时；再用第二趟测内存",
    ),
    "cl_stage_scores": (
        "an eager prefill of {n} tokens: the score matrix's bytes",
        "{n} 个 token 的 eager 预填充：分数矩阵的字节数",
    ),
    "cl_stage_worked": ("the worked example 今天天气", "示例 今天天气"),
    "cl_stage_sweep": ("a small sweep of prompt and output lengths", "小规模的提示长度与输出长度扫描"),
    "cl_stage_cache": ("KV cache on and off", "KV 缓存开与关"),
    "cl_stage_hol": ("head-of-line workload, without and with chunked prefill", "队头阻塞负载，不分块与分块预填充"),
    "cl_stage_leak": ("the naive Hugging Face loop against the engine", "朴素 Hugging Face 循环对比引擎"),
    "cl_quick_public": (
        "This public server runs the quick check only, so every visitor gets a turn.",
        "这台公开服务器只运行快速检查，让每位访客都能轮到。",
    ),
    "cl_stage_precision": (
        "int8 weights beside the model: decode and prefill timed",
        "int8 权重与原模型对照：解码与预填充计时",
    ),
    "cl_stage_hf": (
        "loading the Hugging Face copy of the model (once per server)",
        "加载模型的 Hugging Face 副本（每个服务器一次）",
    ),
    "cl_stage_done": ("verdicts", "得出结论"),
    "cl_done": ("Checked {n} claims in {secs:.1f} s", "已核查 {n} 条论断，用时 {secs:.1f} 秒"),
    "cl_failed": ("The checks failed", "核查失败"),
    "cl_stopped": (
        "Stopped before the checks finished: press Check all claims again.",
        "核查在完成前被停止：请再次点击“核查全部论断”。",
    ),
    "cl_summary": ("On **{model}**: {parts}.", "在 **{model}** 上：{parts}。"),
    # one part of the summary per kind of verdict, singular and plural (Chinese has one form)
    "cl_n_holds_1": ("{n} holds", "{n} 条成立"),
    "cl_n_holds": ("{n} hold", "{n} 条成立"),
    "cl_n_roughly_1": ("{n} holds roughly", "{n} 条大致成立"),
    "cl_n_roughly": ("{n} hold roughly", "{n} 条大致成立"),
    "cl_n_fails_1": ("{n} does not hold", "{n} 条不成立"),
    "cl_n_fails": ("{n} do not hold", "{n} 条不成立"),
    "cl_n_unmeasurable_1": ("{n} cannot be measured here", "{n} 条此处无法测量"),
    "cl_n_unmeasurable": ("{n} cannot be measured here", "{n} 条此处无法测量"),
    "cl_n_shown_1": ("{n} is shown on its page rather than measured", "{n} 条在相应页面展示而非测量"),
    "cl_n_shown": ("{n} are shown on their pages rather than measured", "{n} 条在相应页面展示而非测量"),
    "cl_n_unreliable_1": ("{n} is unreliable: it was timed while the machine was busy", "{n} 条不可靠：计时时机器正忙"),
    "cl_n_unreliable": (
        "{n} are unreliable: they were timed while the machine was busy",
        "{n} 条不可靠：计时时机器正忙",
    ),
    "cl_and": (", ", "，"),
    "cl_table_header": ("All verdicts", "全部结论"),
    "cl_table_note": (
        "Every claim is also below, one box each, with a link to the page that shows it.",
        "每条论断在下方也各有一个说明框，并附有展示它的页面链接。",
    ),
    "cl_details_header": ("Claim by claim", "逐条说明"),
    "cl_col_claim": ("claim", "论断"),
    "cl_col_text": ("statement", "内容"),
    "cl_col_verdict": ("verdict", "结论"),
    "cl_col_numbers": ("measured", "测量依据"),
    "cl_col_page": ("shown in depth on", "详见页面"),
    "cl_open_page": ("Open {page}", "打开{page}"),
    "cl_linked": ("You followed a link to {claim}:", "你从链接来到 {claim}："),
    "cl_no_leak": (
        "The [C16](/claims?claim=C16) leak loop needs the Hugging Face copy of the model; it could not be loaded ({msg}).",
        "[C16](/claims?claim=C16) 的泄漏循环需要模型的 Hugging Face 副本，但它无法加载（{msg}）。",
    ),
    "cl_filter": ("Show", "显示"),
    "cl_filter_all": ("all", "全部"),
    # the claims, short
    "claim_C1": (
        "The whole prompt goes through one forward pass; input [batch, prompt_len, hidden].",
        "整个提示一次前向传播完成；输入形状 [batch, prompt_len, hidden]。",
    ),
    "claim_C2": (
        "Prefill attention builds the full L×L (causal) score matrix: O(L²).",
        "预填充的注意力构建完整的 L×L（因果）分数矩阵：O(L²)。",
    ),
    "claim_C3": (
        "Prefill is big GEMMs: compute-bound, GPU utilisation 80–100 %.",
        "预填充以大矩阵乘为主：计算受限，GPU 利用率 80–100 %。",
    ),
    "claim_C4": (
        "TTFT is almost entirely prefill; a longer prompt gives a longer TTFT.",
        "TTFT 几乎全是预填充时间；提示越长，TTFT 越长。",
    ),
    "claim_C5": (
        "Prefill writes every prompt token's K, V; only the last position goes to the LM head.",
        "预填充写入每个提示 token 的 K、V；只有最后一个位置进入 LM head。",
    ),
    "claim_C6": (
        "Each decode step feeds one token [batch, 1, hidden], attends 1×L, appends its K, V, repeats.",
        "每个解码步输入一个 token [batch, 1, hidden]，注意力为 1×L，追加它的 K、V，循环往复。",
    ),
    "claim_C7": (
        "Decode is memory-bandwidth-bound: every step reads all weights and the KV cache; utilisation 20–40 %.",
        "解码受显存带宽限制：每步都要读取全部权重与 KV 缓存；利用率 20–40 %。",
    ),
    "claim_C8": ("TPOT sets how fluent streaming feels.", "TPOT 决定流式输出的流畅度。"),
    "claim_C9": ("In long generations ~90 % of the time is decode.", "长生成中约 90 % 的时间是解码。"),
    "claim_C10": (
        "Prefill vs decode: L vs 1 tokens, L×L vs 1×L, compute vs bandwidth, KV once vs +1, high vs low peak.",
        "预填充与解码对比：L 对 1 个 token、L×L 对 1×L、计算对带宽、KV 一次写入对每步 +1、瞬时峰值高对低。",
    ),
    "claim_C11": (
        "Prefill runs the GPU hot; decode leaves compute idle, power and temperature drop.",
        "预填充让 GPU 满负荷发热；解码时算力闲置，功耗与温度下降。",
    ),
    "claim_C12": (
        "Worked example: LLaMA-7B, 「今天天气」 = 4 tokens, [1,4,4096], 4×4 scores, KV 4 → 5 → 6.",
        "示例：LLaMA-7B，「今天天气」= 4 个 token，[1,4,4096]，4×4 分数，KV 4 → 5 → 6。",
    ),
    "claim_C13": (
        "Without a KV cache each step recomputes everything: O((L+N)²) per step, O(N³) in total.",
        "没有 KV 缓存时每步都要全部重算：每步 O((L+N)²)，总计 O(N³)。",
    ),
    "claim_C14": (
        "With a KV cache a step is O(L+N) (1×L attention), O(N²) in total.",
        "有 KV 缓存时每步为 O(L+N)（1×L 注意力），总计 O(N²)。",
    ),
    "claim_C15": (
        "The source then says “without a cache, O(N²)”: attention-only counts, and inconsistent.",
        "原文随后又说“没有缓存时为 O(N²)”：只计注意力，且前后矛盾。",
    ),
    "claim_C16": (
        "A hand-written HF loop that keeps appending to one cache leaks memory and slows down.",
        "手写的 HF 循环若一直向同一个缓存追加，会泄漏内存并变慢。",
    ),
    "claim_C17": (
        "Concurrent requests own KV caches of different, changing lengths; managing them is the hard part.",
        "并发请求各自拥有长度不同且不断变化的 KV 缓存；管理它们是最难的部分。",
    ),
    "claim_C18": (
        "A longer prompt raises TTFT, not TPOT; a longer generation raises TPOT slowly, not TTFT.",
        "更长的提示提高 TTFT 而不影响 TPOT；更长的生成让 TPOT 缓慢上升而不影响 TTFT。",
    ),
    "claim_C19": (
        "Quantisation, KV compression, GQA, PagedAttention mainly target decode (~90 % of the time).",
        "量化、KV 压缩、GQA、PagedAttention 主要针对解码（约占 90 % 的时间）。",
    ),
    "claim_C20": (
        "The L×L scores are an OOM trap: ~200 MB at L = 10,000 in FP16, even when weights + KV fit.",
        "L×L 分数矩阵是显存溢出陷阱：FP16、L = 10,000 时约 200 MB，即使权重与 KV 放得下。",
    ),
    "claim_C21": (
        "A very long prefill blocks every other request's decode (head-of-line blocking).",
        "超长提示的预填充会阻塞其他所有请求的解码（队头阻塞）。",
    ),
    "claim_C22": (
        "Chunked prefill interleaves prefill chunks with decode steps: no blocking, better P99 and throughput.",
        "分块预填充让预填充块与解码步交错进行：消除阻塞，改善 P99 与吞吐量。",
    ),
    "claim_C23": (
        "The KV cache is the bridge: prefill builds it, decode extends it; engines interleave both phases.",
        "KV 缓存是桥梁：预填充构建它，解码扩展它；引擎让两个阶段交错运行。",
    ),
    "claim_C24": (
        "The phases' goals conflict: prefill wants big parallel batches, decode little memory traffic; engines "
        "exist to reconcile them.",
        "两个阶段的优化目标天然冲突：预填充要大批量、大并行，解码要少访存；推理引擎的本质就是调和这一冲突。",
    ),
}
t = page_translator(STRINGS)
