"""Strings of the memory lab, and its `t`: this table first, then the shared ones (ui/i18n.py).
{key: (en, zh)}; templates use str.format fields."""

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "mem_title": (
        "Memory lab: the prefill spike, the OOM trap and the KV leak",
        "显存实验室：预填充的峰值、OOM 陷阱与 KV 泄漏",
    ),
    "mem_intro": (
        "Prefill builds a transient **L×L attention-score matrix** per head; in a long prompt it can run a GPU out "
        "of memory even when the weights and the KV cache fit ([C20](/claims?claim=C20)). A hand-written generation loop that never "
        "frees its cache **leaks** ([C16](/claims?claim=C16)). Here both are measured on the real engine, predicted for big models, "
        "and drawn.",
        "预填充会为每个注意力头临时构造一个 **L×L 的注意力分数矩阵**；提示词很长时，即使权重和 KV 缓存放得下，"
        "它也可能让 GPU 显存溢出（[C20](/claims?claim=C20)）。手写的生成循环如果从不释放缓存，就会 **泄漏** 内存（[C16](/claims?claim=C16)）。"
        "本页在真实引擎上测量这两件事，对大模型做出预测，并把它们画出来。",
    ),
    "mem_needs_model": (
        "This tab runs the loaded model; pick one that loads in the sidebar.",
        "此页签需要运行已加载的模型；请在侧边栏选择一个能加载的模型。",
    ),
    "mem_tab_sweep": ("Measured sweep", "实测扫描"),
    "mem_tab_fit": ("Will it fit? (C20)", "放得下吗？（C20）"),
    "mem_tab_heat": ("Attention heatmaps", "注意力热力图"),
    "mem_tab_leak": ("KV leak (C16)", "KV 泄漏（C16）"),
    # sweep: controls and progress
    "mem_sweep_explain": (
        "Each point is a real prefill of **L** tokens through the engine, then one decode step. **Peak above "
        "baseline** is the most tensor memory alive at once during the prefill, beyond what existed before it "
        "(the weights and the preallocated KV pool). On CPU a tensor-allocation tracker measures it and tags the "
        "tensors eager attention allocates as *attention scores*; on CUDA it is `max_memory_allocated` (a total, "
        "no split). The formula for one layer's score matrix is **batch × heads × Lq × Lk × bytes**.",
        "每个点都是引擎上一次真实的 **L** 个 token 的预填充，然后再跑一个解码步。**基线之上的峰值** 指预填充期间同时存活的"
        "张量内存的最大值，不含预填充之前已有的部分（权重和预先分配的 KV 池）。在 CPU 上由张量分配跟踪器测量，并把 eager "
        "注意力分配的张量标记为 *注意力分数*；在 CUDA 上用 `max_memory_allocated`（只有总量，不能拆分）。一层分数矩阵的公式是 "
        "**批大小 × 头数 × Lq × Lk × 每元素字节数**。",
    ),
    "mem_lengths": ("Prompt lengths L", "提示词长度 L"),
    "mem_lengths_help": (
        "Comma-separated token counts, up to {max} (the model's context). On a small CPU a point "
        "takes under a second at L = 64, tens of seconds at L = 2048 and minutes beyond 4096 "
        "(eager); a point, once started, runs to its end.",
        "以逗号分隔的 token 数，最大 {max}（模型的上下文长度）。在小型 CPU 上，L = 64 的点不到一秒，"
        "L = 2048 需要几十秒，超过 4096 则需要几分钟（eager）；一个点一旦开始就会运行到结束。",
    ),
    "mem_backends": ("Attention backends", "注意力后端"),
    "mem_backends_help": (
        "eager materialises the scores (one layer's H×L×L matrix at a time); sdpa is PyTorch's "
        "fused kernel and never does.",
        "eager 会显式生成分数矩阵（每次一层的 H×L×L 矩阵）；sdpa 是 PyTorch 的融合内核，从不生成。",
    ),
    "mem_chunks": ("Chunk sizes", "分块大小"),
    "mem_chunks_help": (
        "Chunked prefill: this many prompt tokens per step (comma-separated; empty for none). "
        "Measured at every L longer than the chunk.",
        "分块预填充：每步处理这么多提示词 token（逗号分隔；留空表示不分块）。只在 L 大于块大小时测量。",
    ),
    "mem_run_sweep": ("Run sweep", "开始扫描"),
    "mem_sweep_none": (
        "No sweep yet: choose the lengths and press Run sweep.",
        "还没有扫描结果：选择长度后点击开始扫描。",
    ),
    "mem_sweep_running": ("Measuring {n} prefills…", "正在测量 {n} 次预填充…"),
    "mem_sweep_progress": ("Measuring L = {L}, {variant} ({i}/{n})…", "正在测量 L = {L}，{variant}（{i}/{n}）…"),
    "mem_point_done": (
        "L = {L} · {variant}: peak {peak} (scores {scores}) in {s:.1f} s",
        "L = {L} · {variant}：峰值 {peak}（分数 {scores}），用时 {s:.1f} 秒",
    ),
    "mem_sweep_done": ("Measured {n} prefills in {s:.0f} s", "已测量 {n} 次预填充，用时 {s:.0f} 秒"),
    "mem_sweep_failed": ("The sweep failed", "扫描失败"),
    "mem_sweep_stopped": (
        "The sweep was stopped after {done} of {n} points (any click reruns the page); below is what was measured.",
        "扫描在 {n} 个点中的第 {done} 个之后被中断（页面上的任何点击都会重新运行页面）；下面是已测得的部分。",
    ),
    "mem_variant_chunk": ("{backend}, chunks of {chunk}", "{backend}，每块 {chunk}"),
    "mem_what_lengths": ("prompt lengths", "提示词长度"),
    "mem_what_chunks": ("chunk sizes", "分块大小"),
    "mem_err_not_ints": (
        "The {what} must be whole numbers separated by commas, got “{text}”.",
        "{what} 必须是用逗号分隔的整数，收到的是“{text}”。",
    ),
    "mem_err_positive": ("The {what} must be positive.", "{what} 必须为正数。"),
    "mem_err_no_lengths": ("Give at least one prompt length.", "请至少给出一个提示词长度。"),
    "mem_err_too_many": (
        "{n} prompt lengths is too many for one sweep; at most {max}.",
        "一次扫描 {n} 个提示词长度太多了；最多 {max} 个。",
    ),
    "mem_err_too_long": (
        "L = {L} is longer than this model's context allows (at most {max} tokens).",
        "L = {L} 超出了该模型上下文允许的长度（最多 {max} 个 token）。",
    ),
    "mem_err_too_many_chunks": ("{n} chunk sizes is too many; at most 4.", "{n} 个分块大小太多了；最多 4 个。"),
    "mem_err_no_backend": ("Choose at least one attention backend.", "请至少选择一种注意力后端。"),
    # sweep: results
    "mem_half_note": (
        "This model runs in {dtype}: eager attention computes its softmax in float32 (as transformers does), so "
        "a float32 copy of the scores lives beside the {dtype} matrix for a moment. Here the scores alive at "
        "eager's peak were {ratio} of the formula at L = {L:,}.",
        "该模型以 {dtype} 运行：eager 注意力的 softmax 以 float32 计算（与 transformers 相同），因此在短时间内会有一份 "
        "float32 的分数副本与 {dtype} 矩阵同时存在。此处 L = {L:,} 时 eager 峰值时存活的分数是公式值的 {ratio}。",
    ),
    "mem_fig_peak": (
        "Prefill peak above baseline vs prompt length ({model}, {dtype})",
        "预填充的基线之上峰值与提示词长度（{model}，{dtype}）",
    ),
    "mem_tr_peak": ("measured peak: {variant}", "实测峰值：{variant}"),
    "mem_tr_formula": (
        "formula: heads × L × L × bytes (one layer's scores)",
        "公式：头数 × L × L × 每元素字节数（一层的分数）",
    ),
    "mem_tr_formula_chunk": (
        "formula, chunks of {chunk}: heads × {chunk} × L × bytes",
        "公式，每块 {chunk}：头数 × {chunk} × L × 每元素字节数",
    ),
    "mem_tr_scores_at_peak": ("measured: scores alive at eager's peak", "实测：eager 峰值时存活的分数"),
    "mem_tr_decode": ("measured: one decode step's peak", "实测：单个解码步的峰值"),
    "mem_axis_L": ("prompt length L (tokens, log scale)", "提示词长度 L（token，对数坐标）"),
    "mem_axis_L_cat": ("prompt length L (tokens)", "提示词长度 L（token）"),
    "mem_axis_mib_log": ("memory (MiB, log scale)", "内存（MiB，对数坐标）"),
    "mem_peak_caption": (
        "Both axes are logarithmic: a slope of 2 is L², a slope of 1 is L. The dashed line is one layer's score "
        "matrix (heads × L × L × bytes); chunked prefill caps the queries per step, so its matrix is heads × "
        "chunk × L; a decode step's scores are one row per head.",
        "两个坐标轴都是对数的：斜率 2 表示 L²，斜率 1 表示 L。虚线是一层的分数矩阵（头数 × L × L × 字节数）；"
        "分块预填充限制了每步的查询数，所以矩阵是 头数 × 块大小 × L；解码步的分数每个头只有一行。",
    ),
    "mem_slopes": (
        "**Measured here**, between the two longest prompts of each variant: {slopes}. The largest decode "
        "step's peak was {decode} against the largest prefill peak's {prefill}.",
        "**本次实测**（每种方式最长的两个提示词之间）：{slopes}。最大的解码步峰值为 {decode}，最大的预填充峰值为 {prefill}。",
    ),
    "mem_slope_item": (
        "{variant} grew as L^{k:.2f} (L = {L0:,} → {L1:,})",
        "{variant} 按 L^{k:.2f} 增长（L = {L0:,} → {L1:,}）",
    ),
    "mem_cmp_needs_both": (
        "Measure both eager and sdpa (whole prompt) to compare them with the formula.",
        "同时测量 eager 和 sdpa（整段提示词），才能与公式比较。",
    ),
    "mem_cmp_header": ("Eager minus sdpa against the formula", "eager 减 sdpa 与公式的对比"),
    "mem_cmp_explain": (
        "The only difference between the two backends is whether the scores are materialised, so **eager − sdpa** "
        "should be one layer's score matrix: heads × L × L × bytes = {heads} × L² × {bytes} B ({dtype}). Eager "
        "holds **exactly one layer's** matrix at a time, in place: matmul, scale, mask, and softmax all write into "
        "the same buffer, and it is freed before the next layer. Where the numbers differ, it is because of where "
        "each peak happens (each line below says where, read from what was alive at the peak): eager's is inside attention "
        "once the scores outgrow the MLP's activations; sdpa's is in the MLP where the MLP writes its gate/up "
        "product out (2 × ffn per token, then SiLU(gate) × up), and in attention where our C kernel applies "
        "SiLU × up as that product comes and never writes it (a float32 model on this engine's CPU kernels).",
        "两种后端唯一的区别是是否生成分数矩阵，所以 **eager − sdpa** 应当等于一层的分数矩阵："
        "头数 × L × L × 每元素字节数 = {heads} × L² × {bytes} 字节（{dtype}）。eager **每次只持有一层** 的矩阵，而且是原地计算："
        "矩阵乘、缩放、掩码和 softmax 都写入同一块缓冲区，并在下一层之前释放。两者不一致的地方，是因为各自的峰值出现在不同位置"
        "（下面每一行都写明位置，由峰值时刻存活的内存读出）：分数超过 MLP 的激活后，eager 的峰值在注意力内部；"
        "sdpa 的峰值在 MLP 把 gate/up 乘积写出来的时候出现在 MLP 中（每个 token 2 × ffn，再算 SiLU(gate) × up），"
        "而当我们的 C 内核在乘积产生时就算 SiLU × up、从不写出它时（本引擎 CPU 内核上的 float32 模型），则出现在注意力中。",
    ),
    "mem_col_eager": ("eager peak (MiB)", "eager 峰值（MiB）"),
    "mem_col_sdpa": ("sdpa peak (MiB)", "sdpa 峰值（MiB）"),
    "mem_col_diff": ("eager − sdpa (MiB)", "eager − sdpa（MiB）"),
    "mem_col_formula": ("formula (MiB)", "公式（MiB）"),
    "mem_col_ratio": ("(eager − sdpa) / formula", "(eager − sdpa) / 公式"),
    "mem_col_scores": ("scores at eager's peak (MiB)", "eager 峰值时的分数（MiB）"),
    "mem_site_attention": ("in attention", "在注意力中"),
    "mem_site_MLP": ("in the MLP", "在 MLP 中"),
    "mem_site_other": ("between blocks", "在块之间"),
    "mem_why_line": (
        "- **L = {L}** (peaks: eager {eager}, sdpa {sdpa}): eager − sdpa is {ratio} of the formula. {why}.",
        "- **L = {L}**（峰值：eager {eager}，sdpa {sdpa}）：eager − sdpa 是公式的 {ratio}。{why}。",
    ),
    "mem_why_agree": ("Agree within 10 %: the spike is the score matrix", "相差在 10% 以内：峰值就是分数矩阵"),
    "mem_why_mlp": (
        "The scores are smaller than the MLP's activations: both peaks are in the MLP",
        "分数比 MLP 的激活还小：两个峰值都在 MLP 中",
    ),
    "mem_why_gap": (
        "The peaks are in different places, eager's in attention and sdpa's in the MLP: the scores minus the "
        "MLP's extra activations",
        "峰值位置不同，eager 的在注意力中，sdpa 的在 MLP 中：差值是分数减去 MLP 多出的激活",
    ),
    "mem_why_attention": (
        "Both peaks are in attention: the scores, give or take the other bytes each holds at its own peak "
        "(sdpa's kernel keeps packed keys, a tile of scores per thread and its output there)",
        "两个峰值都在注意力中：差值是分数，加减各自峰值时刻持有的其他内存（sdpa 的内核在那里持有打包的键、每个线程的一块分数和它的输出）",
    ),
    "mem_why_swapped": (
        "The peaks are in different places, eager's in the MLP (its scores are smaller than the MLP's "
        "activations) and sdpa's in attention",
        "峰值位置不同，eager 的在 MLP 中（其分数比 MLP 的激活还小），sdpa 的在注意力中",
    ),
    "mem_why_elsewhere": (
        "A peak is between the blocks (norms, embedding, LM head), not in attention or the MLP",
        "有峰值出现在块之间（归一化、嵌入、LM head），不在注意力或 MLP 中",
    ),
    "mem_why_half": (
        "More than the formula: the softmax's float32 copy (half precision)",
        "超过公式：softmax 的 float32 副本（半精度）",
    ),
    "mem_why_unlabelled": (
        "Differ by more than 10 %: the CUDA counters give totals, no split",
        "相差超过 10%：CUDA 计数器只给总量，无法拆分",
    ),
    "mem_tr_diff": ("measured eager − sdpa (label: ÷ formula)", "实测 eager − sdpa（标注：÷ 公式）"),
    "mem_fig_diff": ("Eager minus sdpa peak vs one layer's score matrix", "eager 与 sdpa 峰值之差与一层分数矩阵"),
    "mem_breakdown_header": ("What is alive at the peak", "峰值时刻有哪些内存"),
    "mem_with_weights": ("Include the weights", "包括权重"),
    "mem_with_weights_help": (
        "The weights ({weights}) are the same at every L and dwarf the rest on this scale.",
        "权重（{weights}）在每个 L 下都一样，在这个刻度上会让其余部分显得很小。",
    ),
    "mem_fig_breakdown": (
        "Memory at the prefill peak: weights, KV cache, activations, attention scores",
        "预填充峰值时的内存：权重、KV 缓存、激活、注意力分数",
    ),
    "mem_axis_L_variant": ("prompt length L (tokens) · backend", "提示词长度 L（token）· 后端"),
    "mem_breakdown_caption": (
        "Weights: the model's parameters. KV cache: the bytes the prefill wrote (2 × layers × kv_heads × head_dim "
        "× L × bytes). Activations and attention scores: the transient peak, split by the tracker's tags at the "
        "moment of the peak.",
        "权重：模型参数。KV 缓存：预填充写入的字节数（2 × 层数 × KV 头数 × 头维度 × L × 每元素字节数）。"
        "激活与注意力分数：临时峰值，按跟踪器在峰值时刻的标记拆分。",
    ),
    "mem_download_csv": ("Download CSV", "下载 CSV"),
    "mem_download_png": ("Download PNG", "下载 PNG"),
    "mem_term_weights": ("weights", "权重"),
    "mem_term_kv": ("KV cache", "KV 缓存"),
    "mem_term_activations": ("activations", "激活"),
    "mem_term_scores": ("attention scores", "注意力分数"),
    # will it fit
    "mem_fit_explain": (
        "[C20](/claims?claim=C20) exactly, by formula, for any model: the score matrix at a prompt length **per head** and **per layer** "
        "beside the KV cache and the weights, and whether a prefill fits on 24 / 40 / 80 / 141 GB GPUs. The terms "
        "are added in the order they are needed (weights, KV cache, scores, activations); the first that crosses "
        "the GPU's size is the one that runs it out of memory. Sizes in GB = 10⁹ bytes, as GPUs are sold.",
        "按公式精确复现 [C20](/claims?claim=C20)，适用于任意模型：给定提示词长度时 **每个头** 与 **每层** 的分数矩阵，与 KV 缓存、权重并列；"
        "以及预填充在 24 / 40 / 80 / 141 GB 的 GPU 上能否放下。各项按需要的顺序相加（权重、KV 缓存、分数、激活），"
        "第一个越过 GPU 容量的那一项就是导致显存溢出的原因。GB = 10⁹ 字节，与 GPU 标称一致。",
    ),
    "mem_fit_model": ("Model", "模型"),
    "mem_fit_loaded": ("loaded: {name}", "已加载：{name}"),
    "mem_fit_L": ("Prompt length L", "提示词长度 L"),
    "mem_fit_chunk": ("Chunk size", "分块大小"),
    "mem_fit_chunk_help": (
        "For the chunked-prefill column: queries per step; each chunk attends to all keys so "
        "far, so its matrix is heads × chunk × L.",
        "用于分块预填充一列：每步的查询数；每块都要关注目前为止的所有键，所以矩阵是 头数 × 块大小 × L。",
    ),
    "mem_fit_batch": ("Batch", "批大小"),
    "mem_fit_beyond_ctx": (
        "L is beyond this model's trained context ({ctx} tokens); the arithmetic still holds.",
        "L 超出了该模型训练时的上下文长度（{ctx} 个 token）；算术仍然成立。",
    ),
    "mem_num_per_head": ("Scores, one head", "分数，单个头"),
    "mem_num_per_layer": ("Scores, one layer (all heads)", "分数，一层（所有头）"),
    "mem_num_kv_cache": ("KV cache", "KV 缓存"),
    "mem_num_weights": ("Weights", "权重"),
    "mem_num_activations": ("Activations (prefill)", "激活（预填充）"),
    "mem_loose_note": (
        "**Where [the source](/source) is loose.** Its “~200 MB at L = 10,000 in FP16” is **one head of one layer** "
        "(L × L × 2 bytes; here {per_head} at L = {L}). Eager attention computes all {heads} heads of a layer at "
        "once, so what must fit is **{per_layer}** for {model}. It is not × {layers} layers ({all_layers}): each "
        "layer's matrix is freed before the next one is built (the Measured sweep tab checks it: its table sets the "
        "scores alive at eager's peak against one layer's formula).",
        "**[原文](/source)不严谨之处。** 它说的“FP16 下 L = 10,000 时约 200 MB”是 **一层中的一个头**（L × L × 2 字节；此处 L = {L} "
        "时为 {per_head}）。eager 注意力一次计算一层的全部 {heads} 个头，所以 {model} 真正需要放下的是 **{per_layer}**。"
        "但不需要再乘以 {layers} 层（{all_layers}）：每层的矩阵在构造下一层之前就已释放（“实测扫描”标签页会检验这一点：它的表格把 eager 峰值时存活的分数与一层的公式值对比）。",
    ),
    "mem_trap": (
        "**[C20](/claims?claim=C20)'s trap, on a {gb} GB GPU:** weights + KV cache ({wkv}) fit, the score matrix ({scores}) "
        "does not. What rescues it: {rescued}.",
        "**[C20](/claims?claim=C20) 的陷阱，在 {gb} GB 的 GPU 上：** 权重 + KV 缓存（{wkv}）放得下，分数矩阵（{scores}）放不下。"
        "解决办法：{rescued}。",
    ),
    "mem_rescue_fused": ("a fused kernel (FlashAttention-style)", "融合内核（FlashAttention 式）"),
    "mem_rescue_chunked": (
        "prefill in chunks of {chunk} tokens (eager within each chunk)",
        "按每块 {chunk} 个 token 分块预填充（块内仍为 eager）",
    ),
    "mem_rescue_or": (" or ", "或"),
    "mem_trap_none": ("neither a fused kernel nor these chunks alone", "单靠融合内核或这个分块都不行"),
    "mem_no_trap": (
        "No GPU size here shows [C20](/claims?claim=C20)'s trap at this length (on 24 GB the first term to overflow: {first}).",
        "在这个长度下，没有哪个 GPU 容量出现 [C20](/claims?claim=C20) 的陷阱（24 GB 上第一个溢出的项：{first}）。",
    ),
    "mem_nothing": ("none, everything fits", "没有，全部放得下"),
    "mem_fit_eager": ("eager (materialised scores)", "eager（显式分数矩阵）"),
    "mem_fit_fused": ("fused kernel (FlashAttention-style)", "融合内核（FlashAttention 式）"),
    "mem_fit_chunked": ("eager, chunks of {chunk}", "eager，每块 {chunk}"),
    "mem_fig_fit": (
        "Predicted prefill peak, {model}, L = {L}, {bytes} bytes per value",
        "预测的预填充峰值，{model}，L = {L}，每个值 {bytes} 字节",
    ),
    "mem_axis_gb": ("memory (GB = 10⁹ bytes)", "内存（GB = 10⁹ 字节）"),
    "mem_axis_variant": ("attention", "注意力实现"),
    "mem_col_gpu": ("GPU", "GPU"),
    "mem_fits": ("fits ({total})", "放得下（{total}）"),
    "mem_oom": ("OOM at {term} ({total})", "在{term}处溢出（{total}）"),
    "mem_fit_table_header": ("**Does a prefill of L = {L} tokens fit?**", "**L = {L} 个 token 的预填充放得下吗？**"),
    "mem_max_table_header": (
        "**The longest prompt whose prefill fits (tokens)**",
        "**预填充能放下的最长提示词（token）**",
    ),
    "mem_fit_table_caption": (
        "Each cell: the prediction in {dtype}, and the total of the four terms; the longest prompts come from "
        "bisecting over L with the same settings. The predictor counts one copy of each term; real kernels add "
        "workspace and allocator fragmentation on top.",
        "每个单元格：{dtype} 下的预测，以及四项之和；最长提示词是在相同设置下对 L 二分查找得到的。"
        "预测器每项只计一份；真实内核还会额外占用工作区和分配器碎片。",
    ),
    "mem_formulas": ("Formulas, with this model's numbers", "公式（代入该模型的数值）"),
    "mem_formulas_caption": (
        "Activations count the hidden states, the norm output, q/k/v, the attention output "
        "and the MLP's gate, up and their product for the Lq queries of one step.",
        "激活包括一步中 Lq 个查询的隐藏状态、归一化输出、q/k/v、注意力输出，以及 MLP 的 gate、up 及其乘积。",
    ),
    # heatmaps
    "mem_heat_explain": (
        "Real attention probabilities of the loaded model (eager backend): the prefill step's L×L causal triangle, "
        "then one row per decode step (1×C, [C2](/claims?claim=C2) vs [C6](/claims?claim=C6)). Pick a layer and a head, the mean over heads, or every "
        "layer at once; download what is shown as PNG or CSV.",
        "已加载模型的真实注意力概率（eager 后端）：预填充步的 L×L 因果三角形，然后每个解码步一行（1×C，对应 [C2](/claims?claim=C2) 与 [C6](/claims?claim=C6)）。"
        "可以选择某一层某个头、所有头的平均，或一次查看所有层；并可将当前显示内容下载为 PNG 或 CSV。",
    ),
    "mem_heat_run": ("Run and capture", "运行并捕获"),
    "mem_heat_none": ("No capture yet: press Run and capture.", "还没有捕获：请点击运行并捕获。"),
    "mem_heat_running": ("Prefilling {L} tokens with eager attention…", "正在用 eager 注意力预填充 {L} 个 token…"),
    "mem_heat_progress": ("{n} of {total} tokens generated", "已生成 {n} / {total} 个 token"),
    "mem_heat_capturing": (
        "Capturing the attention on a second pass over the same tokens: step {done} of {total}",
        "用同样的 token 再跑一遍以捕获注意力：第 {done}/{total} 步",
    ),
    "mem_heat_mode": ("View", "视图"),
    "mem_heat_mode_head": ("one head", "单个头"),
    "mem_heat_mode_mean": ("mean over heads", "所有头平均"),
    "mem_heat_mode_layers": ("every layer", "所有层"),
    "mem_heat_mean_title": (
        "Attention probabilities, layer {layer}, mean over {heads} heads",
        "注意力概率，第 {layer} 层，{heads} 个头的平均",
    ),
    "mem_heat_mean_trace": ("mean over heads", "所有头平均"),
    "mem_heat_layers_title": (
        "Attention probabilities, mean over heads, {n} layers",
        "注意力概率，所有头平均，共 {n} 层",
    ),
    "mem_heat_layer_n": ("layer {layer}", "第 {layer} 层"),
    "mem_heat_grid_hover": (
        "layer {layer}: query %{{y}} → key %{{x}}<br>p = %{{z:.3f}}",
        "第 {layer} 层：查询 %{{y}} → 键 %{{x}}<br>p = %{{z:.3f}}",
    ),
    "mem_axis_key_pos": ("key position (token #)", "键位置（token 序号）"),
    "mem_axis_query_pos": ("query position (token #)", "查询位置（token 序号）"),
    "mem_heat_caption": (
        "{L} prompt tokens, {n} generated. Rows above the dashed line are the prefill step (all queries at once); "
        "each row below is one decode step. Blank cells are the causal future. Downloads hold exactly the matrix "
        "shown (the PNG on the chart's colour scale, white where blank).",
        "提示词 {L} 个 token，生成 {n} 个。虚线以上的行是预填充步（所有查询同时计算）；虚线以下每一行是一个解码步。"
        "空白单元格是因果意义上的未来。下载内容就是当前显示的矩阵（PNG 使用图中的色标，空白处为白色）。",
    ),
    # leak
    "mem_leak_explain": (
        "[C16](/claims?claim=C16): a hand-written Hugging Face loop that creates **one cache and never releases it** appends every "
        "request to it; the source says such a loop leaks memory and slows down. The engine frees a request's KV "
        "blocks when it finishes. The same N requests go through both; after each request the tensor memory still "
        "alive (created since the loop began) and the time per generated token are measured.",
        "[C16](/claims?claim=C16)：手写的 Hugging Face 循环如果 **只创建一个缓存且从不释放**，每个请求都会追加到它里面；原文说这样的循环会"
        "泄漏内存并且变慢。引擎在请求结束时释放它的 KV 块。同样的 N 个请求分别通过两者；每个请求之后测量仍然存活的张量内存"
        "（自循环开始以来创建的）以及每个生成 token 的时间。",
    ),
    "mem_leak_n": ("Requests N", "请求数 N"),
    "mem_leak_run": ("Run both loops", "运行两个循环"),
    "mem_leak_none": (
        "Not run yet: press Run both loops (the first run also loads the Hugging Face model).",
        "还没有运行：请点击运行两个循环（第一次运行还会加载 Hugging Face 模型）。",
    ),
    "mem_leak_running": ("Running {n} requests through each loop…", "正在让 {n} 个请求分别通过两个循环…"),
    "mem_leak_stage_hf": (
        "Loading the Hugging Face model (once per server)…",
        "正在加载 Hugging Face 模型（每个服务器只加载一次）…",
    ),
    "mem_leak_stage_naive": (
        "Naive loop: request {k} of {n}, one cache never released…",
        "朴素循环：第 {k} / {n} 个请求，一个从不释放的缓存…",
    ),
    "mem_leak_stage_engine": (
        "Engine: request {k} of {n}, blocks freed as each finishes…",
        "引擎：第 {k} / {n} 个请求，每个结束时释放其块…",
    ),
    "mem_leak_done": ("Both loops ran", "两个循环都已完成"),
    "mem_leak_failed": ("The leak demo failed", "泄漏演示失败"),
    "mem_loop_naive": ("naive HF loop (cache never released)", "朴素 HF 循环（缓存从不释放）"),
    "mem_loop_engine": ("engine (blocks freed)", "引擎（释放块）"),
    "mem_leak_hover_ctx": ("tokens held in the cache: %{{customdata}}", "缓存中保留的 token：%{{customdata}}"),
    "mem_fig_leak_mem": ("Memory left behind after each request", "每个请求之后遗留的内存"),
    "mem_fig_leak_speed": ("Time per generated token, request by request", "逐个请求的每 token 生成时间"),
    "mem_axis_request": ("request (#, in order)", "请求（按顺序编号）"),
    "mem_axis_retained": ("tensor memory still alive (MiB)", "仍然存活的张量内存（MiB）"),
    "mem_axis_ms_token": ("time per token (ms)", "每 token 时间（毫秒）"),
    "mem_leak_m_naive": ("Naive loop after {n} requests", "朴素循环，{n} 个请求之后"),
    "mem_leak_m_growth": ("+{b} per request", "每个请求 +{b}"),
    "mem_leak_m_engine": ("Engine after {n} requests", "引擎，{n} 个请求之后"),
    "mem_leak_m_ctx": ("Tokens in the naive cache", "朴素缓存中的 token"),
    "mem_leak_m_ms": ("ms/token, naive / engine", "毫秒/token，朴素 / 引擎"),
    "mem_leak_m_ms_help": (
        "Medians over the requests. Compare each loop's trend rather than the two levels: the "
        "naive loop runs transformers' model, the other our engine, both under the memory tracker.",
        "各请求的中位数。请比较各自的趋势而不是两者的高低：朴素循环运行的是 transformers 的模型，另一个是我们的引擎，"
        "两者都在内存跟踪器下运行。",
    ),
    "mem_leak_conclusion": (
        "**Where the leak shows.** The naive loop keeps every request's K and V (prompt + generated tokens × "
        "the KV bytes per token, {per_token} here); the engine frees a request's blocks when it finishes. "
        "**This run:** {verdict}",
        "**泄漏体现在哪里。** 朴素循环保留了每个请求的 K 和 V（提示词 + 生成的 token × 每 token 的 KV 字节数，此处为 "
        "{per_token}）；引擎在请求结束时释放它的块。**本次运行：**{verdict}",
    ),
    "mem_col_request": ("request", "请求"),
    "mem_col_naive_mib": ("naive: alive (MiB)", "朴素：存活（MiB）"),
    "mem_col_naive_ctx": ("naive: tokens held", "朴素：保留的 token"),
    "mem_col_naive_ms": ("naive: ms/token", "朴素：毫秒/token"),
    "mem_col_engine_mib": ("engine: alive (MiB)", "引擎：存活（MiB）"),
    "mem_col_engine_ctx": ("engine: tokens held", "引擎：保留的 token"),
    "mem_col_engine_ms": ("engine: ms/token", "引擎：毫秒/token"),
}
t = page_translator(STRINGS)
