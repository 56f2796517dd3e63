"""Strings of the playground, and its `t`: this table first, then the shared ones (ui/i18n.py).
{key: (en, zh)}; templates use str.format fields."""

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "axis_output_token": ("output token (#)", "输出 token（序号）"),
    "pg_title": ("Prefill vs decode, token by token", "预填充与解码，逐个 token 看"),
    "pg_intro": (
        "Type a prompt and press **Run**. The engine sends the whole prompt through the model in **one prefill "
        "step**, so every prompt token lights up at once, then produces the answer **one decode step per token**. "
        "Below the run: how the KV cache grows, the attention shapes (L×L vs 1×L) and real attention "
        "probabilities, the timings (TTFT, TPOT, ITL) and the memory of every step.",
        "输入提示词并点击 **运行**。引擎先用 **一次预填充（prefill）** 把整段提示词送进模型，所有提示词 token "
        "同时点亮；然后 **每个解码（decode）步只生成一个 token**。运行结束后可以查看：KV 缓存如何增长、注意力形状"
        "（L×L 对 1×L）与真实的注意力概率、时延（TTFT、TPOT、ITL）以及每一步的内存。",
    ),
    "probe": ("Measure memory per step", "逐步测量内存"),
    "probe_help": (
        "Tracks every tensor allocation to find each step's peak. It runs on a second, untimed pass "
        "over the same tokens after the timed run, so the timings never include its cost.",
        "跟踪每一次张量分配以得到每步的峰值内存。它在计时运行结束后、用同样的 token 再跑一遍（不计时）时测量，"
        "所以时延数据从不包含它的开销。",
    ),
    "attention_sdpa": ("fused kernel, never materialises the scores", "融合内核，从不生成完整分数矩阵"),
    "attention_eager": ("materialises the scores: enables the heatmap", "显式计算分数矩阵：可画热力图"),
    "run": ("Run", "运行"),
    "worked_example_btn": ("Load the worked example: 今天天气", "载入书中示例：今天天气"),
    "worked_example_help": (
        "The source's example (C12): prompt 「今天天气」, no chat template, 3 new tokens, "
        "eager attention so the heatmap is available.",
        "原文的示例（C12）：提示词「今天天气」，不用对话模板，生成 3 个 token，使用 eager 注意力以便画热力图。",
    ),
    "no_run_yet": ("No run yet: press Run.", "还没有运行：请点击运行。"),
    "output_text": ("Generated text", "生成的文本"),
    # tabs
    "tab_tokens": ("Tokens & replay", "Token 与回放"),
    "tab_kv": ("KV cache", "KV 缓存"),
    "tab_attention": ("Attention", "注意力"),
    "tab_timings": ("Timings", "时延"),
    "tab_memory": ("Memory", "内存"),
    "tab_steps": ("Step table (C12)", "步骤表（C12）"),
    # KV cache
    "kv_explain": (
        "Prefill writes the K and V of every prompt token at once; each decode step appends one "
        "token's K and V ([C5](/claims?claim=C5), [C6](/claims?claim=C6), [C10](/claims?claim=C10)). The cache size, with this model's numbers:",
        "预填充一次写入所有提示词 token 的 K 和 V；每个解码步追加一个 token 的 K 和 V（[C5](/claims?claim=C5)、[C6](/claims?claim=C6)、[C10](/claims?claim=C10)）。"
        "用本模型的参数计算缓存大小：",
    ),
    "kv_formula_caption": (
        "2 (K and V) × layers × kv_heads × head_dim × tokens × bytes per element, at the last "
        "step ({tokens} tokens; {per_token} per token in {dtype}). Blocks hold {block} tokens each.",
        "2（K 与 V）× 层数 × KV 头数 × 头维度 × token 数 × 每元素字节数，取最后一步（{tokens} 个 "
        "token；{dtype} 下每个 token {per_token}）。每块容纳 {block} 个 token。",
    ),
    "kv_off_note": (
        "KV cache off: nothing is kept between steps, so the cache stays empty while the K/V rows "
        "computed per step grow with the context ([C13](/claims?claim=C13)).",
        "KV 缓存已关闭：步与步之间不保留任何东西，缓存始终为空，而每步计算的 K/V 行数随上下文增长（[C13](/claims?claim=C13)）。",
    ),
    # attention
    "shapes_explain": (
        "One head's matrices, drawn to scale (one unit = one element): Q·Kᵀ gives the scores S, "
        "S·V the output O. Prefill makes an L×L score matrix ([C2](/claims?claim=C2)); decode a 1×L row ([C6](/claims?claim=C6)). The model "
        "does this for {heads} heads ({kv_heads} KV heads shared by groups, GQA) in each of {layers} "
        "layers.",
        "单个注意力头的矩阵，按比例绘制（一个单位 = 一个元素）：Q·Kᵀ 得到分数 S，S·V 得到输出 O。"
        "预填充产生 L×L 的分数矩阵（[C2](/claims?claim=C2)），解码只有 1×L 的一行（[C6](/claims?claim=C6)）。模型在 {layers} 层中的每一层都对 "
        "{heads} 个头（{kv_heads} 个 KV 头分组共享，GQA）这样计算。",
    ),
    "shapes_pick": ("Decode step to compare with prefill", "与预填充对比的解码步"),
    "heat_header": ("Real attention probabilities", "真实的注意力概率"),
    "heat_needs_eager": (
        "The heatmap needs the eager backend: sdpa never materialises the scores. Choose eager and run again.",
        "热力图需要 eager 后端：sdpa 从不生成分数矩阵。请选择 eager 后重新运行。",
    ),
    "heat_caption": (
        "Above the dashed line: the prefill step's causal triangle, computed in one pass. Below it: "
        "one row per decode step, each a 1×L row over everything cached so far. Blank cells are "
        "keys a query cannot see (the future).",
        "虚线以上：预填充一步算出的因果三角形。虚线以下：每个解码步一行，是对当前全部缓存的 1×L 注意力。"
        "空白格是查询看不到的键（未来位置）。",
    ),
    # timings
    "m_ttft": ("TTFT", "TTFT（首 token 时延）"),
    "m_ttft_help": (
        "Time to first token: request arrival to the first token (almost all prefill, C4).",
        "首 token 时延：从请求到达到第一个 token 返回（几乎全是预填充，C4）。",
    ),
    "m_tpot": ("TPOT", "TPOT（每 token 时延）"),
    "m_tpot_help": (
        "Time per output token after the first: (E2E − TTFT) / (tokens − 1), as vLLM defines it (C8).",
        "首个之后每个输出 token 的时间：(E2E − TTFT) / (token 数 − 1)，与 vLLM 的定义一致（C8）。",
    ),
    "m_e2e": ("E2E", "E2E（端到端）"),
    "m_e2e_help": ("Request arrival to the last token.", "从请求到达到最后一个 token。"),
    "m_tps": ("decode tokens/s", "解码 token/秒"),
    "m_tps_help": ("1000 / TPOT.", "1000 / TPOT。"),
    "m_share": ("prefill / decode share", "预填充 / 解码 占比"),
    "m_share_help": (
        "TTFT / E2E and the rest (C9 says that in long generations decode dominates).",
        "TTFT / E2E 与其余部分（C9 认为长生成中解码占主导）。",
    ),
    "two_pass_note": (
        "Timings come from the timed run, which runs bare; the memory readings (and the captured "
        "attention) come from a second, untimed pass over the same tokens.",
        "时延来自计时运行（不带任何探针）；内存读数（以及捕获的注意力）来自用同样 token 再跑一遍的第二趟（不计时）。",
    ),
    "lat_title": ("Latency of each output token", "每个输出 token 的时延"),
    "lat_ttft": ("TTFT (prefill)", "TTFT（预填充）"),
    "lat_itl": ("ITL (decode)", "ITL（解码）"),
    "lat_tpot": ("TPOT = {ms:.1f} ms", "TPOT = {ms:.1f} 毫秒"),
    "lat_engine": ("the engine's own time behind it", "其背后的引擎自身时间"),
    "share_title": ("Where the request's time went", "请求的时间花在哪里"),
    "share_prefill": ("prefill (TTFT)", "预填充（TTFT）"),
    "share_decode": ("decode (E2E − TTFT)", "解码（E2E − TTFT）"),
    "share_row": ("request", "请求"),
    "timings_caption": (
        "Bars: the time before each token reached the page, so they include its redraws; diamonds: the "
        "engine's own time for the step(s) behind each token. The difference is the code around the engine. "
        "Expected: a longer prompt raises TTFT, and TPOT grows slowly with the context ([C18](/claims?claim=C18) "
        "checks it).",
        "柱：每个 token 到达页面之前的时间，包含页面的重绘；菱形：每个 token 背后那一步（或几步）的引擎自身时间。"
        "两者之差是引擎之外的代码。预期：提示词越长 TTFT 越大，TPOT 随上下文缓慢增长（[C18](/claims?claim=C18) 会检验）。",
    ),
    # memory
    "mem_explain_cpu": (
        "Peak tensor memory allocated during each step, above where the step started, measured "
        "by a tensor-allocation tracker (it sees op outputs, not scratch buffers inside fused "
        "kernels). Prefill's activations and scores scale with L, decode's with 1 ([C10](/claims?claim=C10), [C20](/claims?claim=C20)).",
        "每步期间分配的张量内存峰值（相对本步开始时），由张量分配跟踪器测得（只看得到算子输出，"
        "看不到融合内核内部的临时缓冲）。预填充的激活与分数随 L 增长，解码的只与 1 相关（[C10](/claims?claim=C10)、[C20](/claims?claim=C20)）。",
    ),
    "mem_explain_cuda": (
        "Peak GPU memory allocated during each step above where it started "
        "(torch.cuda.max_memory_allocated). Prefill's activations and scores scale with L, "
        "decode's with 1 ([C10](/claims?claim=C10), [C20](/claims?claim=C20)).",
        "每步期间 GPU 显存分配峰值（相对本步开始时，torch.cuda.max_memory_allocated）。"
        "预填充的激活与分数随 L 增长，解码的只与 1 相关（[C10](/claims?claim=C10)、[C20](/claims?claim=C20)）。",
    ),
    "m_mem_prefill": ("prefill peak", "预填充峰值"),
    "m_mem_decode": ("decode peak (median)", "解码峰值（中位数）"),
    "m_mem_weights": ("weights (read every step)", "权重（每步都要读）"),
    "mem_step_title": ("Peak transient memory per step", "每步的瞬时内存峰值"),
    "mem_peak": ("peak, {phase}", "峰值，{phase}"),
    "mem_kv": ("KV cache held (MiB)", "KV 缓存占用（MiB）"),
    "mem_probe_off": ("The memory probe was off for this run.", "本次运行关闭了内存探针。"),
    "mem_pass_missing": (
        "The second pass that measures memory did not finish (stopped or interrupted), so this run "
        "has no memory readings. Run it again and let it finish.",
        "测量内存的第二趟没有跑完（被停止或中断），所以本次运行没有内存读数。请重新运行并等它完成。",
    ),
    "mem_from_pass": (
        "Memory measured on the second, untimed pass over the same tokens (same schedule, same "
        "shapes); the timings on this page come from the first pass, which had no probe.",
        "内存来自用同样 token 再跑一遍的第二趟（不计时；调度与形状相同）；本页的时延来自没有探针的第一趟。",
    ),
    # long runs (thin.py)
    "thinned_chart": (
        "This run has {total:,} points per series: the chart draws {shown:,} of them, evenly spaced "
        "(the first and last kept), so the page stays quick. The step table and the downloads hold "
        "every step.",
        "本次运行每条序列有 {total:,} 个点：图中均匀抽取其中 {shown:,} 个（保留首尾），以免页面卡顿。"
        "步骤表和下载文件包含全部步骤。",
    ),
    "table_page": ("Rows (page of {rows:,})", "行（每页 {rows:,} 行）"),
    "table_page_fmt": ("steps {first:,}–{last:,}", "第 {first:,}–{last:,} 步"),
    "table_paged": (
        "This run has {total:,} steps: the table shows {rows:,} at a time.",
        "本次运行有 {total:,} 步：表格每次显示 {rows:,} 步。",
    ),
    # step table (C12)
    "tbl_step": ("step", "步"),
    "tbl_phase": ("phase", "阶段"),
    "tbl_tokens_in": ("tokens in (T)", "输入 token（T）"),
    "tbl_drafts": ("drafts accepted / verified", "草稿 接受 / 验证"),
    "tbl_input": ("input", "输入"),
    "tbl_q": ("Q", "Q"),
    "tbl_scores": ("scores", "分数"),
    "tbl_kv": ("KV cache", "KV 缓存"),
    "tbl_shapes": (
        "Shapes: input [B, T, hidden] · Q [B, heads, T, head_dim] · scores [B, heads, T, C] · KV cache "
        "[layers, 2, C, kv_heads, head_dim]; T tokens in, C the context they attend to.",
        "形状：输入 [B, T, hidden] · Q [B, heads, T, head_dim] · 分数 [B, heads, T, C] · KV 缓存 "
        "[layers, 2, C, kv_heads, head_dim]；T 为输入 token 数，C 为其关注的上下文长度。",
    ),
    "tbl_recomputed": ("(recomputed, not kept)", "（重新计算，未保留）"),
    "tbl_token": ("token produced", "产生的 token"),
    "tbl_ms": ("ms", "毫秒"),
    "tbl_peak": ("peak memory", "峰值内存"),
    "c12_intro": (
        "**The worked example ([C12](/claims?claim=C12)), with real numbers.** [The source](/source) uses LLaMA-7B and counts "
        "「今天天气」 as 4 tokens. Here the model is **{model}** ({layers} layers, hidden {hidden}, {heads} "
        "heads, {kv_heads} KV heads, head_dim {head_dim}) and this prompt is **{L} tokens** (the real "
        "count from this tokenizer).\n",
        "**书中示例（[C12](/claims?claim=C12)），用真实数字。** [原文](/source)用 LLaMA-7B，并把「今天天气」算作 4 个 token。这里的模型是 "
        "**{model}**（{layers} 层，隐藏维度 {hidden}，{heads} 个头，{kv_heads} 个 KV 头，头维度 {head_dim}），"
        "本次提示词是 **{L} 个 token**（该分词器的真实数量）。\n",
    ),
    "c12_prefill": (
        "- **Prefill (step 0):** input [1, {L}, {hidden}]; per head a {L}×{L} causal score matrix; "
        "the KV cache becomes [{layers}, 2, {L}, {kv_heads}, {head_dim}]; only the last position's hidden "
        "state [1, {hidden}] goes to the LM head → first token {tok}.",
        "- **预填充（第 0 步）：** 输入 [1, {L}, {hidden}]；每个头一个 {L}×{L} 的因果分数矩阵；KV 缓存变为 "
        "[{layers}, 2, {L}, {kv_heads}, {head_dim}]；只有最后一个位置的隐藏状态 [1, {hidden}] 进入 LM head "
        "→ 第一个 token {tok}。",
    ),
    "c12_decode": (
        "- **Decode (step 1):** {prev} goes in as [1, 1, {hidden}]; the KV cache grows {L} → {L1}; "
        "attention is 1×{L1} → {tok}.",
        "- **解码（第 1 步）：** {prev} 以 [1, 1, {hidden}] 输入；KV 缓存 {L} → {L1}；注意力为 1×{L1} → {tok}。",
    ),
    "c12_prefill_nocache": (
        "- **Prefill (step 0), KV cache off:** input [1, {L}, {hidden}]; per head a {L}×{L} causal "
        "score matrix; K and V are computed and thrown away (nothing is cached); only the last "
        "position's hidden state [1, {hidden}] goes to the LM head → first token {tok}.",
        "- **预填充（第 0 步），KV 缓存关闭：** 输入 [1, {L}, {hidden}]；每个头一个 {L}×{L} 的因果分数矩阵；"
        "K、V 算完即丢弃（不缓存）；只有最后一个位置的隐藏状态 [1, {hidden}] 进入 LM head → 第一个 "
        "token {tok}。",
    ),
    "c12_decode_nocache": (
        "- **Decode (step 1), KV cache off:** the whole context, {prev} included, goes in again as "
        "[1, {L1}, {hidden}] and is recomputed; attention is {L1}×{L1}, of which only the last row "
        "picks {tok}.",
        "- **解码（第 1 步），KV 缓存关闭：** 整个上下文（含 {prev}）以 [1, {L1}, {hidden}] 再次输入并重算；"
        "注意力为 {L1}×{L1}，只有最后一行决定 {tok}。",
    ),
    "c12_more_nocache": (
        "- then {L2}, {L3}, … tokens recomputed per step: each step redoes the whole context.",
        "- 然后每步重算 {L2}、{L3} …… 个 token：每一步都重做整个上下文。",
    ),
    "c12_more": (
        "- then {L2}, {L3}, … one token per step until EOS or max_new_tokens.",
        "- 然后是 {L2}、{L3} …… 每步一个 token，直到 EOS 或 max_new_tokens。",
    ),
    "c12_gqa": (
        "\nThe source writes the KV cache as [layers, 2, T, num_heads, head_dim]. With grouped-query "
        "attention this model stores **kv_heads = {kv_heads}** heads of K and V, not {heads}.",
        "\n原文把 KV 缓存写成 [layers, 2, T, num_heads, head_dim]。本模型使用分组查询注意力（GQA），"
        "K 和 V 只存 **{kv_heads} 个 KV 头**（`kv_heads`），而不是 {heads} 个。",
    ),
    # downloads
    "sh_download_json": ("Download trace (JSON)", "下载运行记录（JSON）"),
    "sh_download_json_help": (
        "Everything this run recorded (settings, steps, tokens, timings, memory, KV numbers, "
        "captured attention). Load it again below to replay it without a model.",
        "本次运行记录的全部内容（设置、每一步、token、时延、内存、KV 数据、捕获的注意力）。"
        "之后可在下方重新载入，无需模型即可回放。",
    ),
    "sh_download_html": ("Download report (HTML)", "下载报告（HTML）"),
    "sh_download_html_help": (
        "One self-contained web page: settings, numbers, the charts and a token replay. "
        "It opens offline in any browser.",
        "一个自包含的网页：设置、指标、图表和 token 回放，离线即可在任何浏览器中打开。",
    ),
    # upload
    "sh_upload_header": ("Load a saved trace (JSON)", "载入已保存的运行记录（JSON）"),
    "sh_upload_label": (
        "Trace file, saved with “Download trace (JSON)”",
        "运行记录文件（用“下载运行记录（JSON）”保存）",
    ),
    "sh_upload_help": (
        "The run is shown below, with its replay and charts, without running any model. At most "
        "{mb} MB: a trace of the longest run with its attention is a few MB.",
        "运行结果会显示在下方（含回放与图表），不会运行任何模型。最大 {mb} MB：最长的运行连同注意力数据也只有几 MB。",
    ),
    "sh_loaded": (
        "Showing the trace loaded from **{file}** ({model}). No model was run: this is what was "
        "recorded. Press Run to replace it with a new run.",
        "正在显示从 **{file}** 载入的运行记录（{model}）。没有运行任何模型：这是当时记录的内容。"
        "点击运行即可用新的运行替换它。",
    ),
    "sh_load_failed": ("Could not load {file}. {msg}", "无法载入 {file}。{msg}"),
    # share link
    "sh_link_button": ("Show share link", "显示分享链接"),
    "sh_link_help": (
        "Show a link that opens the playground with this prompt and these settings.",
        "显示一个链接：打开后会带着这段提示词和这些设置进入演练场。",
    ),
    "sh_link_hide": ("Hide link", "隐藏链接"),
    "sh_link_explain": (
        "Opening this link fills in the prompt and these settings: model (unless it is a local "
        "folder), dtype, chat template, max_new_tokens, sampling, seed, attention backend and KV "
        "cache. The run itself is not in the link: press Run, or share the trace file.",
        "打开此链接会填入提示词和这些设置：模型（本地文件夹除外）、数据类型、对话模板、"
        "max_new_tokens、采样、随机种子、注意力后端和 KV 缓存。链接中不包含运行结果："
        "请点击运行，或分享运行记录文件。",
    ),
    "sh_link_copy_hint": (
        "To copy it, point at the box and press the copy button at its top right.",
        "要复制，把鼠标移到框上，点击右上角的复制按钮。",
    ),
    "sh_link_local_model": (
        "The model is a local folder, which others cannot open: the link leaves it out.",
        "当前模型是本地文件夹，别人无法打开：链接中不包含模型。",
    ),
    "sh_link_too_long": (
        "The prompt is too long for a link ({n} characters, at most {max}): the link leaves it "
        "out. Share the trace file instead.",
        "提示词太长，无法放进链接（{n} 个字符，最多 {max}）：链接中不包含提示词。请改为分享运行记录文件。",
    ),
    "sh_link_applied": ("Filled in from the shared link: {names}.", "已按分享链接填入：{names}。"),
    "sh_link_ignored": ("Ignored in the shared link: {items}.", "分享链接中被忽略的参数：{items}。"),
    "sh_clamped": (
        "max_new_tokens {n} is more than this model's context; set to {max}",
        "max_new_tokens {n} 超过了本模型的上下文，已设为 {max}",
    ),
    "sh_clamped_public": (
        "max_new_tokens {n} is more than this public server allows; set to {max}",
        "max_new_tokens {n} 超过了本公开服务器的上限，已设为 {max}",
    ),
    # the HTML report
    "rp_title": ("Prefill/decode lab: run report", "预填充与解码实验室：运行报告"),
    "rp_intro": (
        "One run of {model}, saved {created}. Everything here was measured on that run; this file "
        "needs no network and no model.",
        "{model} 的一次运行，保存于 {created}。这里的所有数字都来自那次运行的测量；此文件无需网络，也无需模型。",
    ),
    "rp_model": ("Model", "模型"),
    "rp_settings": ("Settings", "设置"),
    "rp_numbers": ("Numbers", "指标"),
    "output_cut_char": (
        "The text ends in �: the model writes some characters (most Chinese ones) as several byte-level "
        "tokens, and the run stopped after only some of the last one's bytes. A longer max_new_tokens completes it.",
        "文本以 � 结尾：模型把某些字符（多数汉字）写成几个字节级 token，而运行在最后一个字符只生成了部分字节时就停止了。"
        "增大 max_new_tokens 即可补全。",
    ),
    "rp_output": ("Generated text", "生成的文本"),
    "rp_replay": ("Token replay", "Token 回放"),
    "rp_replay_help": (
        "Drag the slider or press Play: the prompt's tokens light up together in the prefill step, "
        "then each decode step adds one token.",
        "拖动滑块或点击播放：提示词的 token 在预填充步中同时点亮，之后每个解码步增加一个 token。",
    ),
    "rp_play": ("Play", "播放"),
    "rp_charts": ("Charts", "图表"),
    "rp_no_heatmap": (
        "No attention heatmap: this run did not capture attention probabilities (only the eager "
        "backend materialises them).",
        "没有注意力热力图：本次运行没有捕获注意力概率（只有 eager 后端会显式计算它们）。",
    ),
    "rp_on": ("on", "开"),
    "rp_off": ("off", "关"),
    "rp_prompt_tokens": ("prompt tokens", "提示词 token 数"),
    "rp_output_tokens": ("generated tokens", "生成的 token 数"),
    "rp_steps": ("engine steps", "引擎步数"),
    "rp_footer": (
        "Made by the prefill/decode lab. Charts: Plotly, embedded in this file.",
        "由预填充与解码实验室生成。图表：Plotly，已内嵌在此文件中。",
    ),
    # the share link's parser (share_link.py)
    "sh_bad_int": ("not a whole number from {lo} to {hi}", "不是 {lo} 到 {hi} 之间的整数"),
    "sh_bad_float": ("not a number from {lo} to {hi}", "不是 {lo} 到 {hi} 之间的数"),
    "sh_bad_choice": ("not one of {choices}", "不是 {choices} 之一"),
    "sh_bad_bool": ("not 1 or 0", "不是 1 或 0"),
    "sh_bad_model": ("not 'bundled' or a hub id of the form org/name", "不是 'bundled' 或 org/name 形式的 Hub id"),
    "public_caps": (
        "This public server caps a prompt at {chars:,} characters and {step:,} tokens, a run at {tokens:,} "
        "new tokens (without the KV cache, {work:,} token rows in all), and runs take turns, so every "
        "visitor gets one.",
        "这台公开服务器把提示词限制为 {chars:,} 个字符、{step:,} 个 token，每次运行最多生成 {tokens:,} 个 "
        "token（不用 KV 缓存时总共 {work:,} 行 token），运行依次轮流，让每位访客都能轮到。",
    ),
    "public_prompt_capped": (
        "The prompt is {n:,} characters; this public server takes at most {cap:,}. Shorten it.",
        "提示词有 {n:,} 个字符；这台公开服务器最多接受 {cap:,} 个。请缩短。",
    ),
    "sh_model_ask": (
        "This link was made with the model {model}. Load it? (A hub id is downloaded: it may be "
        "large.) Until then the page keeps the current model.",
        "这个链接使用的模型是 {model}。要加载它吗？（Hub id 需要下载，可能很大。）在此之前页面保持当前模型。",
    ),
    "sh_model_load": ("Load that model", "加载该模型"),
    "sh_model_keep": ("Keep the current model", "保持当前模型"),
    "sh_model_not_offered": ("not a model this public server offers", "不是这台公开服务器提供的模型"),
    "sh_bad_text": ("longer than {max} characters", "超过 {max} 个字符"),
    "sh_unknown_param": ("not a setting the link can carry", "不是链接可以携带的设置"),
}
t = page_translator(STRINGS)
