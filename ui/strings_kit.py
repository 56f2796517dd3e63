"""Strings of the shared kit (ui/): run settings several pages offer (prompt, sampling, KV cache,
attention), the live view, token chips, replay, the KV and attention figures, the KV-leak run, the
sweep verdict table. A key only one page uses lives in that page's strings.py. {key: (en, zh)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "slo_ttft": ("TTFT ≤ (ms)", "TTFT ≤（毫秒）"),
    "slo_ttft_help": (
        "Time to first token, per request; 0 leaves it out.",
        "每个请求的首 token 时间；0 表示不计入。",
    ),
    "slo_tpot": ("TPOT ≤ (ms)", "TPOT ≤（毫秒）"),
    "slo_tpot_help": (
        "Time per output token after the first, per request (its average); 0 leaves it out. A one-token reply "
        "has none and passes, as in vLLM.",
        "首个之后每个输出 token 的平均时间（每个请求）；0 表示不计入。只有一个 token 的回复没有 TPOT，视为通过（同 vLLM）。",
    ),
    "slo_itl": ("every ITL gap ≤ (ms)", "每个 ITL 间隔 ≤（毫秒）"),
    "slo_itl_help": (
        "The longest gap between two of a request's tokens: a stall behind another request's prefill shows "
        "here, while its TPOT averages it away; 0 leaves it out.",
        "一个请求相邻两个 token 之间的最长间隔：被其他请求的预填充卡住时会在这里显现，而 TPOT 会把它平均掉；"
        "0 表示不计入。",
    ),
    "slo_target": ("target (% of requests)", "目标（请求的百分比）"),
    "slo_target_help": (
        "The share of requests that must meet every objective for the SLO to hold (90 %: a P90 SLO).",
        "SLO 成立所需的、满足全部目标的请求比例（90 %：即 P90 SLO）。",
    ),
    "slo_and": (" and ", " 且 "),
    "slo_col_met": ("met the SLO", "满足 SLO"),
    "slo_col_attainment": ("attainment", "达标率"),
    "slo_col_goodput": ("goodput (req/s)", "goodput（请求/秒）"),
    "slo_col_throughput": ("throughput (req/s)", "吞吐（请求/秒）"),
    "slo_col_verdict": ("verdict", "结论"),
    "slo_col_limiting": ("broke first", "最先失守"),
    "slo_holds": ("holds", "成立"),
    "slo_fails": ("does not hold", "不成立"),
    "slo_limit": ("{name} ({n} missed)", "{name}（{n} 个未达标）"),
    "slo_busy_mark": (" (busy machine)", "（机器繁忙）"),
    # controls
    "prompt": ("Prompt", "提示词"),
    "chat_template": ("Chat template", "对话模板"),
    "chat_template_help": (
        "Wrap the prompt in the model's chat template (instruct models answer better). The "
        "template's tokens are part of the prompt and are prefilled too.",
        "用模型的对话模板包裹提示词（指令模型回答得更好）。模板自身的 token 也属于提示词，同样参与预填充。",
    ),
    "kv_cache": ("KV cache", "KV 缓存"),
    "kv_cache_help": (
        "Off: every step recomputes K and V of the whole context (the O(N³) baseline, C13).",
        "关闭时：每一步都重新计算整个上下文的 K 和 V（O(N³) 的基线，C13）。",
    ),
    "max_new_tokens": ("max_new_tokens", "max_new_tokens"),  # the parameter's name, in both languages
    "spec_k": ("Speculative: draft tokens k", "推测解码：草稿 token 数 k"),
    "spec_k_help": (
        "0: off. Otherwise each decode step drafts up to k tokens by prompt lookup (what followed the last "
        "few tokens earlier in the prompt or output) and verifies them in one forward pass; the output is "
        "the same as without (greedy: token for token). Needs the KV cache.",
        "0 表示关闭。否则每个解码步用提示查找（最后几个 token 在提示或输出中较早出现时后面跟着的内容）起草至多 k 个 "
        "token，并在一次前向传播中验证；输出与不开启时相同（贪心解码下逐 token 相同）。需要 KV 缓存。",
    ),
    "attention": ("Attention backend", "注意力后端"),
    "sampling_greedy": ("Sampling: greedy (temperature 0)", "采样：贪心（temperature 0）"),
    "sampling_active": ("Sampling: {what}", "采样：{what}"),
    "sampling_temperature": ("temperature {v:g}", "temperature {v:g}"),
    "sampling_seed": ("seed {v}", "种子 {v}"),
    "temperature": ("temperature", "temperature（温度）"),
    "temperature_help": ("0 = greedy: always the most likely token.", "0 表示贪心：总是选概率最高的 token。"),
    "top_k": ("top-k", "top-k"),
    "top_k_help": ("Keep the k most likely tokens; 0 = off.", "只保留概率最高的 k 个 token；0 表示不限制。"),
    "top_p": ("top-p", "top-p"),
    "top_p_help": (
        "Keep the smallest set of tokens whose probability reaches p; must be in (0, 1].",
        "保留累计概率达到 p 的最小 token 集合；取值范围 (0, 1]。",
    ),
    "seed": ("seed", "随机种子"),
    "seed_placeholder": ("random", "随机"),
    "stop": ("Stop", "停止"),
    # live view and banners
    "live_waiting": (
        "Prefill: all {L} prompt tokens in one forward pass; the view is drawn when it ends.",
        "预填充：{L} 个提示 token 在一次前向计算中处理，结束后再绘制。",
    ),
    "live_waiting_pace": (
        "{what} At the last prefill's pace here ({rate:,.0f} tokens/s) it takes about {left}.",
        "{what}按本机上次预填充的速度（每秒 {rate:,.0f} 个 token）约需 {left}。",
    ),
    "live_status": (
        "Step {step} · {phase} · {T} token(s) in · KV cache {kv} tokens ({kv_bytes}, {blocks} "
        "blocks) · {ms:.1f} ms · {n} generated",
        "第 {step} 步 · {phase} · 输入 {T} 个 token · KV 缓存 {kv} 个 token（{kv_bytes}，{blocks} "
        "块）· {ms:.1f} 毫秒 · 已生成 {n} 个",
    ),
    "live_measuring_soon": (
        "Timed run done. This tab fills after a second, untimed pass over the same tokens measures memory…",
        "计时运行已完成。本页将在用同样 token 再跑一遍（不计时）测量内存之后显示…",
    ),
    "live_measuring": (
        "Timed run done. Measuring memory on a second, untimed pass over the same tokens: step {done} of {total}…",
        "计时运行已完成。正在用同样的 token 再跑一遍（不计时）测量内存：第 {done}/{total} 步…",
    ),
    "live_kv_blocks": ("KV cache: {n} block(s) of {size} tokens", "KV 缓存：{n} 块，每块 {size} 个 token"),
    "run_done": (
        "Done: {n} tokens generated in {steps} steps from a {L}-token prompt (stopped by: {reason}).",
        "完成：{L} 个 token 的提示词，用 {steps} 步生成了 {n} 个 token（停止原因：{reason}）。",
    ),
    "run_stopped": (
        "Stopped after {n} generated token(s); below is what ran.",
        "已在生成 {n} 个 token 后停止；下面是已完成的部分。",
    ),
    # chips
    "chip_prompt_title": ("prompt token {i} · id {id}", "提示词第 {i} 个 token · id {id}"),
    "chip_out_title": ("output token {i} · id {id} · {phase}", "输出第 {i} 个 token · id {id} · {phase}"),
    "chip_meta": ("step {step} · {ms:.0f} ms", "第{step}步 · {ms:.0f}ms"),
    "chips_prompt_hidden": ("… {n:,} more prompt tokens …", "……还有 {n:,} 个提示词 token……"),
    "chips_earlier": (
        "… {n:,} earlier tokens (all of them are in the output text)",
        "……前面还有 {n:,} 个 token（输出文本里全都有）",
    ),
    "chip_legend_pending": ("prompt, not yet computed", "提示词，尚未计算"),
    "chip_legend_prefill": (
        "prefill: the whole prompt in one step (and the first new token)",
        "预填充：整段提示词一步完成（并产生第一个新 token）",
    ),
    "chip_legend_decode": ("decode: one token per step", "解码：每步一个 token"),
    "chip_legend_spec_ok": ("drafted, accepted", "草稿，被接受"),
    "chip_legend_spec_fix": ("the model's own, after a rejected draft", "模型自己的 token（草稿被拒之后）"),
    "chip_legend_spec_bonus": (
        "the model's own, after every draft was accepted",
        "模型自己的 token（草稿全部被接受之后）",
    ),
    "chip_legend_spec_no": ("drafted, rejected (not output)", "草稿，被拒绝（不输出）"),
    "chip_spec_title": (
        "output token {i} · id {id} · {kind} · step {step} verified {drafted} drafts, accepted {accepted}",
        "输出第 {i} 个 token · id {id} · {kind} · 第 {step} 步验证了 {drafted} 个草稿，接受 {accepted} 个",
    ),
    "chip_spec_rejected_title": (
        "drafted token · id {id} · rejected by the model in step {step}: not output, its KV rolled back",
        "草稿 token · id {id} · 在第 {step} 步被模型拒绝：不输出，其 KV 已回滚",
    ),
    "chip_legend_clock": (
        "ms on a chip: time since the previous token reached you (the first: since the request arrived); the "
        "step captions and the step table give the engine's own time inside each step, a little less",
        "标签上的毫秒：距上一个 token 到达你的时间（第一个：距请求到达）；步骤说明与步骤表给出的是引擎在每一步内部的时间，"
        "略短一些",
    ),
    # the machine's load during a timed run (ui/load_note.py)
    "load_quiet": (
        "While this was timed, other processes kept {other:.1f} of this machine's {cores} cores busy: the "
        "timings are the model's own.",
        "计时期间，其他进程平均占用了本机 {cores} 个核心中的 {other:.1f} 个：这些计时反映的是模型本身。",
    ),
    "load_busy": (
        "Unreliable timings: the machine was busy (other processes kept {other:.1f} of its {cores} cores busy "
        'while this was timed). Timed verdicts and ratios say "unreliable" instead of judging; run it '
        "again when the machine is quiet.",
        "计时不可靠：机器正忙（计时期间其他进程平均占用了 {cores} 个核心中的 {other:.1f} 个）。"
        "基于计时的结论与比值显示为“不可靠”而不作判断；请在机器空闲时再运行。",
    ),
    "busy_ratio_mark": ("⚠ unreliable: busy machine", "⚠ 不可靠：机器正忙"),
    "busy_ratio_value": ("⚠ unreliable", "⚠ 不可靠"),
    "busy_ratio_help": (
        "Not given: other processes kept the machine busy while this was timed, so the ratio would be "
        "theirs as much as the model's.",
        "不给出：计时期间其他进程占用着机器，这个比值反映的不只是模型本身。",
    ),
    "load_unrecorded": (
        "This saved run does not say how busy the machine was while it was timed (saved before the lab "
        "recorded it): read its timings with care.",
        "这次保存的运行没有记录计时期间机器的繁忙程度（保存于实验室开始记录之前）：请谨慎看待其计时。",
    ),
    "load_unknown": (
        "This system does not report its CPU use, so the lab cannot tell whether other work slowed these timings.",
        "本系统不提供 CPU 使用情况，因此无法判断其他工作是否拖慢了这些计时。",
    ),
    # the KV size formula's subscripts (ui/figures_kv.kv_formula)
    "kvf_layers": ("layers", "层"),
    "kvf_kv_heads": ("kv_heads", "KV 头"),
    "kvf_head_dim": ("head_dim", "头维度"),
    "kvf_tokens": ("tokens", "token"),
    "kvf_bytes": ("B", "字节"),
    # rough durations of estimates (ui/text.fmt_duration)
    "dur_s": ("{n} s", "{n} 秒"),
    "dur_min": ("{n} min", "{n} 分钟"),
    "eta_left": ("{what} · about {left} left", "{what} · 约剩 {left}"),  # a progress line and its estimate
    # replay
    "replay_play": ("Replay", "回放"),
    "replay_stop": ("Stop replay", "停止回放"),
    "replay_speed": ("Speed", "速度"),
    "replay_speed_fmt": ("{n} step/s", "每秒 {n} 步"),  # a unit, as in 8 km/h
    "chip_group_title": (
        "{n} tokens → {text}: byte-level BPE splits a character's UTF-8 bytes over tokens",
        "{n} 个 token → {text}：字节级 BPE 把一个字符的 UTF-8 字节拆进多个 token",
    ),
    "replay_step": ("Step", "步"),
    "replay_frame_before": ("before", "开始前"),
    "replay_before": (
        "Before the first step: the prompt is tokenised ({L} tokens) but nothing is computed yet.",
        "第一步之前：提示词已切分（{L} 个 token），但还没有任何计算。",
    ),
    "replay_prefill": (
        "Step {step} · **prefill**: all {T} prompt tokens in one forward pass ({T}×{C} attention "
        "per head), {ms:.1f} ms, and the first new token.",
        "第 {step} 步 · **预填充**：{T} 个提示词 token 一次前向完成（每个头 {T}×{C} 的注意力），"
        "{ms:.1f} 毫秒，并产生第一个新 token。",
    ),
    "replay_decode": (
        "Step {step} · **decode**: 1 token in, attending to {C} cached keys (1×{C}), {ms:.1f} ms.",
        "第 {step} 步 · **解码**：输入 1 个 token，关注 {C} 个缓存的键（1×{C}），{ms:.1f} 毫秒。",
    ),
    "replay_verify": (
        "Step {step} · **verify**: {T} tokens in (the last token and {k} drafted), attending causally to up to "
        "{C} keys ({T}×{C}), {ms:.1f} ms; {a} of {k} drafts accepted, {n} tokens out.",
        "第 {step} 步 · **验证**：输入 {T} 个 token（最后一个 token 加 {k} 个草稿），因果地关注至多 {C} 个键（{T}×{C}），"
        "{ms:.1f} 毫秒；{k} 个草稿中接受 {a} 个，输出 {n} 个 token。",
    ),
    "replay_recompute": (
        "Step {step} · **decode without a KV cache**: all {T} context tokens recomputed ({T}×{C}), {ms:.1f} ms.",
        "第 {step} 步 · **无 KV 缓存的解码**：重新计算全部 {T} 个上下文 token（{T}×{C}），{ms:.1f} 毫秒。",
    ),
    "kv_tokens_title": ("KV cache per step: tokens and blocks", "每步的 KV 缓存：token 与块"),
    "kv_computed_rows": ("K,V rows computed this step", "本步计算的 K、V 行数"),
    "kv_blocks": ("blocks allocated ({size} tokens each)", "已分配的块（每块 {size} 个 token）"),
    "kv_bytes_title": (
        "KV cache bytes per step (each of the {layers} layers holds an equal share)",
        "每步 KV 缓存字节数（{layers} 层各占相同一份）",
    ),
    "kv_total": ("total (MiB)", "总量（MiB）"),
    "kv_bytes_hover": (
        "step %{x}: %{y:.2f} MiB in all, %{customdata:.1f} KiB per layer<extra></extra>",
        "第 %{x} 步：共 %{y:.2f} MiB，每层 %{customdata:.1f} KiB<extra></extra>",
    ),
    "shapes_title": (
        "Attention shapes per head, to scale: prefill vs a later step",
        "每个头的注意力形状（按比例）：预填充对比之后的一步",
    ),
    "shapes_panel": ("step {step} ({phase}): T={T}, C={C}", "第 {step} 步（{phase}）：T={T}，C={C}"),
    "mat_q": ("Q (queries of the new tokens)", "Q（新 token 的查询）"),
    "mat_k": ("Kᵀ (keys of the context)", "Kᵀ（上下文的键）"),
    "mat_scores": ("S = Q·Kᵀ (scores)", "S = Q·Kᵀ（分数）"),
    "mat_v": ("V (values of the context)", "V（上下文的值）"),
    "mat_out": ("O = softmax(S)·V", "O = softmax(S)·V"),
    "heat_layer": ("Layer", "层"),
    "heat_head": ("Head", "头"),
    "heat_truncated": (
        "Only {n} of {total} layers fit the capture budget for this prompt.",
        "对这个提示词，捕获预算只够保存 {total} 层中的 {n} 层。",
    ),
    "heat_title": ("Attention probabilities, layer {layer}, head {head}", "注意力概率：第 {layer} 层，第 {head} 个头"),
    "heat_trace": ("attention probability", "注意力概率"),
    "heat_boundary": ("prefill ends, decode rows below", "预填充结束，以下为解码行"),
    "mem_err_leak_n": (
        "The number of requests must be between 2 and {max}, got {n}.",
        "请求数必须在 2 到 {max} 之间，收到的是 {n}。",
    ),
    "mem_err_leak_new": (
        "max_new_tokens must be between 1 and {max}, got {n}.",
        "max_new_tokens 必须在 1 到 {max} 之间，收到的是 {n}。",
    ),
    "mem_err_leak_ctx": (
        "{n} requests of up to {per} tokens would pass the model's context of {ctx} tokens in the "
        "naive loop's single cache; use fewer requests or tokens.",
        "{n} 个最多 {per} 个 token 的请求会让朴素循环的单一缓存超出模型 {ctx} 个 token 的上下文；"
        "请减少请求数或 token 数。",
    ),
    "sw_col_claim": ("claim", "论断"),
    "sw_col_verdict": ("verdict", "结论"),
    "sw_col_numbers": ("measured", "测量依据"),
    "sw_col_rule": ("rule", "判定规则"),
    "sw_noisy": (
        "{n} measured points had a repeat more than twice as slow as another: the machine was busy "
        "during the sweep, and the timing verdicts may reflect that load rather than the model. Run it "
        "again when the machine is idle.",
        "有 {n} 个测量点的某次重复比另一次慢两倍以上：扫描期间机器较忙，计时类结论可能反映的是负载而非模型本身。"
        "请在机器空闲时重新运行。",
    ),
}
