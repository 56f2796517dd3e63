"""Strings of the sweeps page, and the explanations of the C4, C8, C9 and C18 verdicts (the claims page
shows them too). {key: (en, zh)}."""
STRINGS: dict[str, tuple[str, str]] = {
    "nav_sweeps": ("Sweeps", "扫描实验"),
    "sw_title": ("Sweeps: TTFT, TPOT and the decode share, measured", "扫描实验：实测 TTFT、TPOT 与解码占比"),
    "sw_intro": (
        "The same request at many prompt lengths and output lengths, repeated, timed by the engine itself "
        "(its token timestamps and step records). The medians and their spread test four claims: TTFT is "
        "prefill (C4), TPOT is what streaming feels like (C8), decode is most of a long generation (C9), and "
        "a longer prompt raises TTFT but hardly TPOT (C18).",
        "同一个请求在多种提示长度与输出长度下重复运行，由引擎自己计时（token 时间戳与步记录）。用中位数及其离散范围检验四条论断："
        "TTFT 就是预填充（C4）、TPOT 决定流式输出的流畅度（C8）、长生成中大部分时间是解码（C9）、更长的提示让 TTFT 变长而 "
        "TPOT 几乎不变（C18）。"),
    "sw_prompt_lens": ("Prompt lengths L (tokens, comma-separated)", "提示长度 L（token 数，逗号分隔）"),
    "sw_prompt_lens_help": ("Each length is one request of real English text cut to exactly L tokens.",
                            "每个长度对应一个请求：真实英文文本截取为恰好 L 个 token。"),
    "sw_prompt_new": ("New tokens per prompt-sweep request", "提示扫描中每个请求生成的 token 数"),
    "sw_output_L": ("Prompt length of the output sweep", "输出扫描的提示长度"),
    "sw_output_lens": ("Output lengths N (tokens, comma-separated)", "输出长度 N（token 数，逗号分隔）"),
    "sw_repeats": ("Repeats", "重复次数"),
    "sw_repeats_help": ("Every point is measured this many times; charts show the median and the min–max band.",
                        "每个点测量这么多次；图中画出中位数与最小–最大范围带。"),
    "sw_run": ("Run sweeps", "运行扫描"),
    "sw_bad_list": ("“{text}” is not a list of whole numbers separated by commas.",
                    "“{text}” 不是用逗号分隔的整数列表。"),
    "sw_running": ("Sweeping: {runs} requests…", "扫描中：{runs} 个请求…"),
    "sw_progress": ("{done} / {total}: {what}", "{done} / {total}：{what}"),
    "sw_warming": ("Warming up each prompt length once (not measured)…", "每个提示长度先预热一次（不计入测量）…"),
    "sw_done": ("Done: {runs} requests in {secs:.1f} s", "完成：{runs} 个请求，用时 {secs:.1f} 秒"),
    "sw_failed": ("The sweep failed", "扫描失败"),
    "sw_stopped": ("Stopped: the charts show the {runs} requests measured before Stop.",
                   "已停止：图表显示停止前测得的 {runs} 个请求。"),
    "sw_not_run": ("Not run yet: set the lengths and press Run sweeps (the defaults take tens of seconds).",
                   "尚未运行：设置长度后点击“运行扫描”（默认设置需要几十秒）。"),
    "sw_result_caption": ("{model} · prompt sweep: L = {Ls}, {n} new tokens · output sweep: L = {L}, N = {Ns} · "
                          "{repeats} repeats · greedy, KV cache on, sdpa",
                          "{model} · 提示扫描：L = {Ls}，生成 {n} 个 token · 输出扫描：L = {L}，N = {Ns} · "
                          "重复 {repeats} 次 · 贪心解码，KV 缓存开启，sdpa"),
    "sw_verdicts_header": ("Verdicts", "结论"),
    "sw_col_claim": ("claim", "论断"),
    "sw_col_verdict": ("verdict", "结论"),
    "sw_col_numbers": ("measured", "测量依据"),
    "sw_col_rule": ("rule", "判定规则"),
    "sw_noisy": ("{n} measured points had a repeat more than twice as slow as another: the machine was busy "
                 "during the sweep, and the timing verdicts may reflect that load rather than the model. Run it "
                 "again when the machine is idle.",
                 "有 {n} 个测量点的某次重复比另一次慢两倍以上：扫描期间机器较忙，计时类结论可能反映的是负载而非模型本身。"
                 "请在机器空闲时重新运行。"),
    "sw_charts_header": ("Measurements (median; band = min–max over repeats, or the middle half of all decode steps)",
                         "测量结果（中位数；色带 = 各次重复的最小–最大值，或所有解码步的中间一半）"),
    "sw_metrics_note": ("TTFT = first token − arrival; TPOT = (E2E − TTFT) / (N − 1); ITL = gaps between tokens; "
                        "decode share = (E2E − TTFT) / E2E (vLLM's definitions, engine/metrics.py).",
                        "TTFT = 首个 token 时间 − 到达时间；TPOT = (E2E − TTFT) / (N − 1)；ITL = 相邻 token 的间隔；"
                        "解码占比 = (E2E − TTFT) / E2E（与 vLLM 的定义相同，见 engine/metrics.py）。"),
    "sw_noise_note": ("Timings on a shared CPU are noisy: the band shows how much; the verdicts use medians.",
                      "共享 CPU 上的计时有噪声：色带显示其大小；结论使用中位数。"),
    # figures
    "sw_fig_ttft": ("TTFT and prefill step time against prompt length", "TTFT 与预填充步耗时随提示长度的变化"),
    "sw_fig_tpot": ("TPOT against prompt length", "TPOT 随提示长度的变化"),
    "sw_fig_tpot_n": ("TPOT and decode step time against output length", "TPOT 与解码步耗时随输出长度的变化"),
    "sw_fig_share": ("Decode share of the request's time against output length", "解码时间占请求总时间的比例随输出长度的变化"),
    "sw_axis_L": ("prompt length L (tokens, log scale)", "提示长度 L（token，对数坐标）"),
    "sw_axis_N": ("output length N, or tokens generated before the step", "输出长度 N，或该步之前已生成的 token 数"),
    "sw_axis_N_log": ("output length N (tokens, log scale)", "输出长度 N（token，对数坐标）"),
    "sw_axis_share": ("decode share of E2E (%)", "解码占 E2E 的比例（%）"),
    "sw_tr_ttft": ("TTFT (median)", "TTFT（中位数）"),
    "sw_tr_prefill": ("prefill step (median)", "预填充步（中位数）"),
    "sw_tr_tpot": ("TPOT (median)", "TPOT（中位数）"),
    "sw_tr_step": ("decode step time (median of all requests)", "解码步耗时（所有请求的中位数）"),
    "sw_tr_share": ("decode share (median)", "解码占比（中位数）"),
    "sw_tr_band": ("min–max over repeats", "各次重复的最小–最大值"),
    "sw_tr_iqr": ("middle half (IQR)", "中间一半（四分位距）"),
    "sw_tr_doc90": ("document: ~90 % (C9)", "原文：约 90 %（C9）"),
    # verdict words
    "verdict_holds": ("holds", "成立"),
    "verdict_roughly": ("roughly", "大致成立"),
    "verdict_does not hold": ("does not hold", "不成立"),
    "verdict_not measurable here": ("not measurable here", "此处无法测量"),
    "verdict_shown on page": ("shown on page", "见相应页面"),
    # C4
    "why_c4_holds": ("The prefill step is {share:.1%} of TTFT or more at every prompt length, and TTFT grows {growth:.1f}× from "
                     "L = {L0} ({ttft0:.0f} ms) to L = {L1} ({ttft1:.0f} ms), about {slope:.2f} ms per prompt token.",
                     "每个提示长度下预填充步都占 TTFT 的 {share:.1%} 或更多；TTFT 从 L = {L0}（{ttft0:.0f} 毫秒）到 "
                     "L = {L1}（{ttft1:.0f} 毫秒）增长 {growth:.1f} 倍，约每个提示 token {slope:.2f} 毫秒。"),
    "why_c4_roughly": ("Prefill is at least {share:.0%} of TTFT at every prompt length, and TTFT grows {growth:.2f}× "
                       "from L = {L0} ({ttft0:.0f} ms) to L = {L1} ({ttft1:.0f} ms): mostly prefill, growing, but "
                       "short of the rule's bounds.",
                       "每个提示长度下预填充至少占 TTFT 的 {share:.0%}，TTFT 从 L = {L0}（{ttft0:.0f} 毫秒）到 L = {L1}"
                       "（{ttft1:.0f} 毫秒）增长 {growth:.2f} 倍：大部分是预填充且在增长，但未达到规则的界限。"),
    "why_c4_fails": ("Prefill is only {share:.0%} of TTFT at some prompt length (queueing or other work fills the "
                     "rest), or TTFT grows only {growth:.2f}× from L = {L0} ({ttft0:.0f} ms) to L = {L1} "
                     "({ttft1:.0f} ms).",
                     "在某个提示长度下预填充只占 TTFT 的 {share:.0%}（其余是排队或其他工作），或 TTFT 从 L = {L0}"
                     "（{ttft0:.0f} 毫秒）到 L = {L1}（{ttft1:.0f} 毫秒）只增长 {growth:.2f} 倍。"),
    "rule_c4": ("prefill step / TTFT ≥ 90 % at every L and TTFT(longest) / TTFT(shortest) ≥ 1.5 → holds; "
                "≥ 70 % and > 1.1 → roughly", "每个 L 下预填充步 / TTFT ≥ 90 % 且 TTFT(最长)/TTFT(最短) ≥ 1.5 → 成立；"
                "≥ 70 % 且 > 1.1 → 大致成立"),
    # C8
    "why_c8_holds": ("The typical gap between tokens (median ITL {itl_median:.1f} ms) is TPOT ({tpot:.1f} ms) within "
                     "{off:.0%}, and 90 % of gaps are under {tail:.1f}× TPOT: TPOT is the stream's pace, "
                     "{rate:.0f} tokens/s.",
                     "相邻 token 的典型间隔（ITL 中位数 {itl_median:.1f} 毫秒）与 TPOT（{tpot:.1f} 毫秒）相差 {off:.0%} 以内，"
                     "90 % 的间隔小于 {tail:.1f} 倍 TPOT：TPOT 就是流式输出的节奏，每秒 {rate:.0f} 个 token。"),
    "why_c8_roughly": ("TPOT ({tpot:.1f} ms) is close to the median gap ({itl_median:.1f} ms, {off:.0%} off), but the "
                       "slowest 10 % of gaps reach {tail:.1f}× TPOT: an average hides stalls a reader would notice.",
                       "TPOT（{tpot:.1f} 毫秒）接近间隔中位数（{itl_median:.1f} 毫秒，相差 {off:.0%}），但最慢的 10 % "
                       "间隔达到 {tail:.1f} 倍 TPOT：平均值掩盖了读者能察觉的停顿。"),
    "why_c8_fails": ("TPOT ({tpot:.1f} ms) differs from the median gap ({itl_median:.1f} ms) by {off:.0%}, or the P90 "
                     "gap is {tail:.1f}× TPOT: the stream is uneven, and TPOT alone does not describe it.",
                     "TPOT（{tpot:.1f} 毫秒）与间隔中位数（{itl_median:.1f} 毫秒）相差 {off:.0%}，或 P90 间隔达 "
                     "{tail:.1f} 倍 TPOT：输出不均匀，单看 TPOT 无法描述它。"),
    "rule_c8": ("|median ITL / TPOT − 1| ≤ 15 % and P90 ITL ≤ 1.5 TPOT → holds; ≤ 30 % and ≤ 3 TPOT → roughly "
                "(each request of the longest output; the median one shown)", "|ITL 中位数 / TPOT − 1| ≤ 15 % 且 P90 ITL ≤ 1.5 TPOT → 成立；"
                "≤ 30 % 且 ≤ 3 TPOT → 大致成立（逐个判断最长输出的请求，显示居中的那个）"),
    # C9
    "why_c9_holds": ("At N = {N} new tokens decode is {share:.1%} of the request's time.",
                     "生成 N = {N} 个 token 时，解码占请求时间的 {share:.1%}。"),
    "why_c9_roughly": ("At N = {N} decode is {share:.1%} of the request's time: most, but not ~90 %.",
                       "N = {N} 时解码占请求时间的 {share:.1%}：占大部分，但不到约 90 %。"),
    "why_c9_fails": ("At N = {N} decode is only {share:.1%} of the request's time: the prompt dominates.",
                     "N = {N} 时解码只占请求时间的 {share:.1%}：提示（预填充）占主导。"),
    "rule_c9": ("decode share (E2E − TTFT) / E2E at the longest N ≥ 80 % → holds; ≥ 60 % → roughly",
                "最长 N 时解码占比 (E2E − TTFT) / E2E ≥ 80 % → 成立；≥ 60 % → 大致成立"),
    # C18
    "why_c18_holds": ("From L = {L0} to {L1} TTFT grows {ttft_growth:.1f}× while TPOT changes {tpot_L:+.0f} %; from "
                      "N = {N0} to {N1} TTFT varies {ttft_N:.0f} % and TPOT changes {tpot_N:+.0f} %.",
                      "从 L = {L0} 到 {L1}，TTFT 增长 {ttft_growth:.1f} 倍而 TPOT 变化 {tpot_L:+.0f} %；从 N = {N0} 到 "
                      "{N1}，TTFT 波动 {ttft_N:.0f} %，TPOT 变化 {tpot_N:+.0f} %。"),
    "why_c18_roughly": ("TTFT grows {ttft_growth:.1f}× from L = {L0} to {L1}, but TPOT does grow with context: "
                        "{tpot_L:+.0f} % ({tpot0:.1f} → {tpot1:.1f} ms), since every decode step reads the whole KV "
                        "cache. From N = {N0} to {N1} TTFT varies {ttft_N:.0f} %, TPOT {tpot_N:+.0f} %.",
                        "TTFT 从 L = {L0} 到 {L1} 增长 {ttft_growth:.1f} 倍，但 TPOT 确实随上下文增长："
                        "{tpot_L:+.0f} %（{tpot0:.1f} → {tpot1:.1f} 毫秒），因为每个解码步都要读取整个 KV 缓存。"
                        "从 N = {N0} 到 {N1}，TTFT 波动 {ttft_N:.0f} %，TPOT 变化 {tpot_N:+.0f} %。"),
    "why_c18_fails": ("Measured: TTFT ×{ttft_growth:.1f} and TPOT {tpot_L:+.0f} % from L = {L0} to {L1}; TTFT varies "
                      "{ttft_N:.0f} % and TPOT {tpot_N:+.0f} % from N = {N0} to {N1}: at least one half of the claim "
                      "is off by more than the rule allows.",
                      "实测：从 L = {L0} 到 {L1}，TTFT ×{ttft_growth:.1f}，TPOT {tpot_L:+.0f} %；从 N = {N0} 到 {N1}，"
                      "TTFT 波动 {ttft_N:.0f} %，TPOT {tpot_N:+.0f} %：论断至少有一半超出规则允许的范围。"),
    "rule_c18": ("TTFT(longest L) ≥ 1.5 × TTFT(shortest) with TPOT within 10 % (roughly: 50 %); over N, TTFT within "
                 "20 % of its median and TPOT −10 %…+25 % (roughly: ±50 %)",
                 "TTFT(最长 L) ≥ 1.5 × TTFT(最短 L) 且 TPOT 变化在 10 % 内（大致成立：50 %）；随 N 变化时 TTFT "
                 "在其中位数的 20 % 内，TPOT 在 −10 %…+25 % 内（大致成立：±50 %）"),
}
