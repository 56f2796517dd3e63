"""Strings of the speculative decoding lab, and its `t`: this table first, then the shared ones
(ui/i18n.py). {key: (en, zh)}; templates use str.format fields."""

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "sp_title": ("Speculative decoding: the compute decode leaves idle", "推测解码：利用解码闲置的算力"),
    "sp_intro": (
        "A decode step reads every weight to produce one token ([C7](/claims?claim=C7)): the arithmetic units "
        "mostly wait. Speculative decoding guesses the next k tokens cheaply and feeds the last token plus the k "
        "guesses as one causal chunk: one forward pass gives k + 1 rows of logits, the longest prefix of guesses "
        "the model agrees with is kept, plus one token of the model's own. Greedy output is exactly the plain "
        "output. It pays when a verify step costs little more than a decode step (the roofline's memory-bound "
        "side) and enough guesses are accepted. The guesses come from **prompt lookup**: what followed the "
        "last few tokens earlier in the prompt or the output (vLLM's `ngram`, Hugging Face's "
        "`prompt_lookup_num_tokens`), no second model; or from a **draft model**: this model's int8 copy.",
        "解码步为了产生一个 token 要读取全部权重（[C7](/claims?claim=C7)）：运算单元大多在等待。推测解码廉价地猜出接下来的 "
        "k 个 token，把最后一个 token 加上 k 个猜测作为一个因果块输入：一次前向传播得到 k + 1 行 logits，保留模型认可的最长"
        "猜测前缀，再加上一个模型自己的 token。贪心解码的输出与普通解码完全相同。当验证步只比解码步贵一点（屋顶线的"
        "带宽受限一侧）并且足够多的猜测被接受时，它就划算。猜测来自**提示查找**：最后几个 token 在提示或输出中较早"
        "出现时后面跟着的内容（vLLM 的 `ngram`，Hugging Face 的 `prompt_lookup_num_tokens`），不需要第二个模型；"
        "或者来自**草稿模型**：本模型的 int8 副本。",
    ),
    "sp_tab_run": ("A run, with and without", "同一提示，开与不开"),
    "sp_tab_cost": ("What a verify step costs", "验证步的代价"),
    # --- the run ---------------------------------------------------------------------------------
    "sp_run_intro": (
        "The same prompt twice, greedy, timed bare (no memory probe): plain decoding, then the drafter with "
        "k drafts per step. Prompt lookup shines where the answer repeats the prompt (repeat or edit a given "
        "text, code that reuses its names) and finds little in free chat: try both.",
        "同一提示运行两次，贪心解码，不带仪器计时（不开显存探针）：先普通解码，再用每步 k 个草稿的起草方式。当回答重复"
        "提示内容时（复述或修改给定文本、复用名字的代码）提示查找很有效，而在自由聊天中几乎找不到：两种都试试。",
    ),
    "sp_preset": ("Prompt", "提示"),
    "sp_preset_repeat": ("Repeat a given text (prompt lookup shines)", "复述给定文本（提示查找很有效）"),
    "sp_preset_code": ("Code that reuses its names", "复用名字的代码"),
    "sp_preset_free": ("Free question (little to look up)", "自由提问（几乎查不到）"),
    "sp_preset_own": ("Your own", "自己输入"),
    "sp_prompt": ("Prompt text (sent without a chat template)", "提示文本（不套用聊天模板）"),
    "sp_drafter": ("Drafter", "起草方式"),
    "sp_drafter_prompt_lookup": ("prompt lookup (no second model)", "提示查找（无需第二个模型）"),
    "sp_drafter_int8": (
        "a draft model: this model's int8 copy (int8 weights, bfloat16 activations)",
        "草稿模型：本模型的 int8 副本（int8 权重，bfloat16 激活）",
    ),
    "sp_drafter_help": (
        "A draft model proposes its own greedy continuation, k tokens a step, through an engine of its own "
        "(prefix caching on, so it prefills only what is new). Its drafts agree with the model more often than "
        "prompt lookup's on free text, but each costs k of its decode steps. The copy loads on the first run.",
        "草稿模型通过自己的引擎（开启前缀缓存，只预填充新增部分）每步给出 k 个贪心续写 token。在自由文本上它比提示查找"
        "更常与模型一致，但每个草稿要花 k 个它自己的解码步。副本在第一次运行时加载。",
    ),
    "sp_loading_draft": ("Loading the int8 copy of {name}…", "正在加载 {name} 的 int8 副本……"),
    "sp_k": ("Draft tokens k", "草稿 token 数 k"),
    "sp_adaptive": ("Adaptive k", "自适应 k"),
    "sp_adaptive_help": (
        "k starts at the value set and follows the acceptance: two more after a step that accepted every draft, "
        "one fewer after a rejection (Hugging Face's “heuristic” schedule), between 1 and 32.",
        "k 从设定值开始并随接受情况变化：某步草稿全部被接受后加 2，有草稿被拒绝后减 1（Hugging Face 的“heuristic”策略），"
        "范围 1 到 32。",
    ),
    "sp_k_adaptive": ("{k}, adaptive", "{k}，自适应"),
    "sp_k_help": ("Tokens prompt lookup proposes per step (1–32).", "提示查找每步提出的 token 数（1–32）。"),
    "sp_max_new": ("New tokens", "新 token 数"),
    "sp_run": ("Run both", "两种都运行"),
    "sp_not_run": ("Run both to compare them step by step.", "运行两种方式，逐步比较。"),
    "sp_running": ("Plain, then speculative decoding (k = {k})…", "先普通解码，再推测解码（k = {k}）……"),
    "sp_progress_plain": ("plain decoding: {done} of {n} tokens", "普通解码：{n} 个 token 中的 {done} 个"),
    "sp_progress_spec": ("speculative: {done} of {n} tokens", "推测解码：{n} 个 token 中的 {done} 个"),
    "sp_done": ("Done: {n} tokens both ways", "完成：两种方式各 {n} 个 token"),
    "sp_failed": ("The run failed", "运行失败"),
    "sp_empty_prompt": ("The prompt is empty: type some text to run.", "提示为空：请输入文本后再运行。"),
    "sp_m_tpot_plain": ("TPOT, plain", "TPOT，普通"),
    "sp_m_tpot_spec": ("TPOT, speculative", "TPOT，推测"),
    "sp_m_e2e_plain": ("E2E, plain", "E2E，普通"),
    "sp_m_e2e_spec": ("E2E, speculative", "E2E，推测"),
    "sp_m_per_step": ("Tokens per decode step", "每个解码步的 token 数"),
    "sp_m_accept": ("Drafts accepted", "草稿接受率"),
    "sp_m_accept_help": (
        "{accepted} of {drafted} drafted tokens, over the {steps} steps that drafted any.",
        "在起草过的 {steps} 步中，{drafted} 个草稿 token 里接受了 {accepted} 个。",
    ),
    "sp_m_speedup": ("Decode speed-up", "解码加速"),
    "sp_yes": ("yes", "是"),
    "sp_no": ("NO", "否"),
    "sp_same_line": (
        "Same tokens: **{same}**. Greedy speculative decoding must give exactly the plain output; a difference "
        "would be a bug.",
        "输出相同：**{same}**。贪心推测解码必须与普通输出完全相同；不同即为缺陷。",
    ),
    "sp_where_header": ("Where the speed-up comes from", "加速从哪里来"),
    "sp_where": (
        "Decode, from the engine's own step times: plain decoding took {plain_ms:.1f} ms per token. The "
        "speculative run took {steps} decode steps for {tokens} tokens, **{per_step:.2f} tokens per step**, and "
        "its steps cost {spec_ms:.1f} ms on average, **{ratio:.2f}× a plain step**. Speed-up = tokens per step ÷ "
        "step cost = {per_step:.2f} ÷ {ratio:.2f} = **{speedup:.2f}×**.",
        "解码阶段，按引擎自己的步耗时：普通解码每个 token {plain_ms:.1f} ms。推测解码用 {steps} 个解码步产生 {tokens} 个 "
        "token，**每步 {per_step:.2f} 个 token**，每步平均 {spec_ms:.1f} ms，**是普通步的 {ratio:.2f} 倍**。加速 = 每步 "
        "token 数 ÷ 步代价 = {per_step:.2f} ÷ {ratio:.2f} = **{speedup:.2f}×**。",
    ),
    "sp_where_busy": (
        "The speed-up is not given: the machine was busy while these runs were timed, so their step times are "
        "not comparable. Tokens per step ({per_step:.2f}) and acceptance do not depend on timing.",
        "不给出加速：计时期间机器繁忙，两次运行的步耗时不可比。每步 token 数（{per_step:.2f}）和接受率与计时无关。",
    ),
    "sp_where_none": (
        "Too few decode steps to compare: raise the number of new tokens.",
        "解码步太少，无法比较：请增加新 token 数。",
    ),
    "sp_chips_plain": ("Plain decoding: one token per step", "普通解码：每步一个 token"),
    "sp_chips_spec": (
        "Speculative ({drafter}, k = {k}): accepted drafts, the model's own tokens, rejected drafts struck through",
        "推测解码（{drafter}，k = {k}）：被接受的草稿、模型自己的 token、被拒绝的草稿（划线）",
    ),
    "sp_drafter_short_prompt_lookup": ("prompt lookup", "提示查找"),
    "sp_drafter_short_int8": ("int8 draft model", "int8 草稿模型"),
    "sp_fig_steps": ("Tokens of each speculative decode step", "推测解码每一步的 token"),
    "sp_fig_step_x": ("decode step", "解码步"),
    "sp_fig_step_y": ("tokens", "token 数"),
    "sp_tr_accepted": ("drafted, accepted (output)", "草稿，被接受（输出）"),
    "sp_tr_own": ("the model's own token (output)", "模型自己的 token（输出）"),
    "sp_tr_rejected": ("drafted, rejected (KV rolled back)", "草稿，被拒绝（KV 回滚）"),
    "sp_fig_kv": ("KV cache per step: written, then kept", "每步的 KV 缓存：写入与保留"),
    "sp_fig_kv_x": ("step", "步"),
    "sp_fig_kv_y": ("tokens in the KV cache", "KV 缓存中的 token 数"),
    "sp_tr_written": ("speculative: written in the step (with drafts)", "推测：本步写入（含草稿）"),
    "sp_tr_kept": ("speculative: kept after rollback", "推测：回滚后保留"),
    "sp_tr_plain_kv": ("plain decoding", "普通解码"),
    "sp_kv_caption": (
        "A verify step writes K and V for the last token and every draft; the rejected drafts' entries are "
        "rolled back (their blocks return to the pool). The gap between the two speculative lines is what "
        "each step rolled back.",
        "验证步为最后一个 token 和每个草稿写入 K 和 V；被拒绝草稿的条目会回滚（其块归还到池中）。两条推测曲线之间的差距"
        "就是每步回滚的部分。",
    ),
    # --- the verify cost -------------------------------------------------------------------------
    "sp_cost_intro": (
        "The engine's own step time for verifying k drafted tokens (a chunk of k + 1) against a plain decode "
        "step at the same context, median of {steps} steps each, memory probe off. While a step is bound by "
        "reading the weights the extra rows are nearly free and the curve is flat; past the roofline's ridge "
        "they cost compute and it rises. From the measured cost c (in decode steps) follows the acceptance "
        "rate a at which drafting k breaks even: a step yields (1 − a^(k+1)) / (1 − a) tokens on average, "
        "and it pays once that exceeds c.",
        "引擎自己测得的验证 k 个草稿 token（k + 1 个的块）的步耗时，与同一上下文下的普通解码步相比，各取 {steps} 步的中位数，"
        "不开显存探针。只要一步受读取权重限制，多出的行几乎免费，曲线是平的；越过屋顶线的脊点后它们要消耗算力，曲线上升。"
        "由测得的代价 c（以解码步计）可以得出起草 k 个 token 的盈亏平衡接受率 a：一步平均产出 (1 − a^(k+1)) / (1 − a) "
        "个 token，超过 c 就划算。",
    ),
    "sp_contexts": ("Contexts (tokens, comma-separated)", "上下文（token 数，逗号分隔）"),
    "sp_ks": ("Draft lengths k", "草稿长度 k"),
    "sp_cost_run": ("Measure", "测量"),
    "sp_cost_not_run": ("Measure the verify-cost curve on this machine.", "在本机上测量验证代价曲线。"),
    "sp_cost_running": ("Measuring verify steps…", "正在测量验证步……"),
    "sp_cost_progress": ("{done} of {n} measurements", "{n} 次测量中的 {done} 次"),
    "sp_cost_ceilings": (
        "Measuring this machine's ceilings once (for the ridge point)…",
        "首次测量本机的上限（用于脊点）……",
    ),
    "sp_cost_done": ("Measured {n} verify steps", "测量了 {n} 种验证步"),
    "sp_err_contexts": (
        "Contexts must be whole numbers from 1 to {max}, comma-separated (at most 4).",
        "上下文必须是 1 到 {max} 的整数，用逗号分隔（最多 4 个）。",
    ),
    "sp_err_ks": ("Pick at least one draft length k.", "请至少选择一个草稿长度 k。"),
    "sp_fig_cost": ("Verify step ÷ plain decode step, by draft length", "验证步 ÷ 普通解码步，按草稿长度"),
    "sp_fig_cost_x": ("drafted tokens k (log scale)", "草稿 token 数 k（对数坐标）"),
    "sp_fig_cost_y": ("÷ plain decode step (log scale)", "÷ 普通解码步（对数坐标）"),
    "sp_tr_context": ("context {C}", "上下文 {C}"),
    "sp_tr_flat": ("{within}× a decode step", "解码步的 {within} 倍"),
    "sp_tr_ideal": ("k + 1: one decode step per token", "k + 1：每个 token 一个解码步"),
    "sp_tr_ridge": ("ridge: compute-bound from k = {k} (cost model)", "脊点：k = {k} 起受算力限制（代价模型）"),
    "sp_fig_break": ("Acceptance rate needed to break even", "盈亏平衡所需的接受率"),
    "sp_fig_break_y": ("break-even acceptance (%)", "盈亏平衡接受率（%）"),
    "sp_cost_caption": (
        "The dashed line: the measured ratio's target for “about one decode step”; the dotted line k + 1 is "
        "where drafting can never pay (even every draft accepted yields only k + 1 tokens). The ridge is where "
        "the cost model's arithmetic intensity of a k + 1-token step reaches this machine's measured ridge "
        "point ({ridge:.1f} FLOP/byte, from the ceilings on the Roofline page).",
        "虚线：“约等于一个解码步”的目标比值；点线 k + 1 表示起草永远不划算（即使全部接受也只产出 k + 1 个 token）。脊点"
        "是代价模型中 k + 1 个 token 的步的算术强度达到本机实测脊点（{ridge:.1f} FLOP/字节，来自屋顶线页面的上限）的位置。",
    ),
    "sp_break_never": ("never pays", "永不划算"),
    "sp_break_always": ("always pays", "总是划算"),
    "sp_col_context": ("context", "上下文"),
    "sp_col_k": ("k", "k"),
    "sp_col_ms": ("step (ms)", "步耗时（ms）"),
    "sp_col_ratio": ("÷ plain decode step", "÷ 普通解码步"),
    "sp_col_break": ("break-even acceptance", "盈亏平衡接受率"),
    "sp_claim_header": ("Claim: decode leaves compute idle", "论断：解码让算力闲置"),
    "sp_claim": (
        "[C7](/claims?claim=C7) says decode is bound by reading memory, not by arithmetic. If so, verifying k "
        "drafted tokens costs about one decode step: **≤ {within}× one decode step up to k = …** on this "
        "machine?",
        "[C7](/claims?claim=C7) 说解码受内存读取限制，而不是运算。若如此，验证 k 个草稿 token 的代价约等于一个解码步："
        "本机上**不超过一个解码步的 {within} 倍，最多到 k = ……**？",
    ),
}
t = page_translator(STRINGS)
