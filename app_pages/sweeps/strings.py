"""Strings of the sweeps page, and its `t`: this table first, then the shared ones (ui/i18n.py).
{key: (en, zh)}; templates use str.format fields."""

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "sw_what_points": ("lengths to measure (both sweeps together)", "个要测量的长度（两个扫描合计）"),
    "sw_title": ("Sweeps: TTFT, TPOT and the decode share, measured", "扫描实验：实测 TTFT、TPOT 与解码占比"),
    "sw_intro": (
        "The same request at many prompt lengths and output lengths, repeated, timed by the engine itself "
        "(its token timestamps and step records). The medians and their spread test four claims: TTFT is "
        "prefill ([C4](/claims?claim=C4)), TPOT is what streaming feels like ([C8](/claims?claim=C8)), decode is most of a long generation ([C9](/claims?claim=C9)), and "
        "a longer prompt raises TTFT but hardly TPOT ([C18](/claims?claim=C18)).",
        "同一个请求在多种提示长度与输出长度下重复运行，由引擎自己计时（token 时间戳与步记录）。用中位数及其离散范围检验四条论断："
        "TTFT 就是预填充（[C4](/claims?claim=C4)）、TPOT 决定流式输出的流畅度（[C8](/claims?claim=C8)）、长生成中大部分时间是解码（[C9](/claims?claim=C9)）、更长的提示让 TTFT 变长而 "
        "TPOT 几乎不变（[C18](/claims?claim=C18)）。",
    ),
    "sw_prompt_lens": ("Prompt lengths L (tokens, comma-separated)", "提示长度 L（token 数，逗号分隔）"),
    "sw_prompt_lens_help": (
        "Each length is one request of real English text cut to exactly L tokens.",
        "每个长度对应一个请求：真实英文文本截取为恰好 L 个 token。",
    ),
    "sw_prompt_new": ("New tokens per prompt-sweep request", "提示扫描中每个请求生成的 token 数"),
    "sw_output_L": ("Prompt length of the output sweep", "输出扫描的提示长度"),
    "sw_output_lens": ("Output lengths N (tokens, comma-separated)", "输出长度 N（token 数，逗号分隔）"),
    "sw_repeats": ("Repeats", "重复次数"),
    "sw_repeats_help": (
        "Every point is measured this many times; charts show the median and the min–max band.",
        "每个点测量这么多次；图中画出中位数与最小–最大范围带。",
    ),
    "sw_run": ("Run sweeps", "运行扫描"),
    "sw_bad_list": (
        "“{text}” is not a list of whole numbers separated by commas.",
        "“{text}” 不是用逗号分隔的整数列表。",
    ),
    "sw_running": ("Sweeping: {runs} requests…", "扫描中：{runs} 个请求…"),
    "sw_progress": ("{done} / {total}: {what}", "{done} / {total}：{what}"),
    "sw_so_far": (
        "So far ({done} of {total} requests): the charts fill in after each group of lengths and the "
        "verdicts come at the end. Nothing is redrawn while a request is timed.",
        "目前（{total} 个请求中的 {done} 个）：每测完一组长度，图表就补上一批点；结论在最后给出。"
        "计时中的请求不会被重绘打扰。",
    ),
    "sw_warming": ("Warming up each prompt length once (not measured)…", "每个提示长度先预热一次（不计入测量）…"),
    "sw_done": ("Done: {runs} requests in {secs:.1f} s", "完成：{runs} 个请求，用时 {secs:.1f} 秒"),
    "sw_failed": ("The sweep failed", "扫描失败"),
    "sw_stopped": (
        "Stopped: the charts show the {runs} requests measured before Stop.",
        "已停止：图表显示停止前测得的 {runs} 个请求。",
    ),
    "sw_not_run": (
        "Not run yet: set the lengths and press Run sweeps (the defaults take under a minute on 2 quiet CPU cores).",
        "尚未运行：设置长度后点击“运行扫描”（默认设置在 2 个空闲 CPU 核心上不到一分钟）。",
    ),
    "sw_result_caption": (
        "{model} · prompt sweep: L = {Ls}, {n} new tokens · output sweep: L = {L}, N = {Ns} · "
        "{repeats} repeats · greedy, KV cache on, sdpa",
        "{model} · 提示扫描：L = {Ls}，生成 {n} 个 token · 输出扫描：L = {L}，N = {Ns} · "
        "重复 {repeats} 次 · 贪心解码，KV 缓存开启，sdpa",
    ),
    "sw_verdicts_header": ("Verdicts", "结论"),
    "sw_charts_header": (
        "Measurements (median; band = min–max over repeats, or the middle half of all decode steps)",
        "测量结果（中位数；色带 = 各次重复的最小–最大值，或所有解码步的中间一半）",
    ),
    "sw_metrics_note": (
        "TTFT = first token − arrival; TPOT = (E2E − TTFT) / (N − 1); ITL = gaps between tokens; "
        "decode share = (E2E − TTFT) / E2E (vLLM's definitions).",
        "TTFT = 首个 token 时间 − 到达时间；TPOT = (E2E − TTFT) / (N − 1)；ITL = 相邻 token 的间隔；"
        "解码占比 = (E2E − TTFT) / E2E（与 vLLM 的定义相同）。",
    ),
    "sw_noise_note": (
        "Timings on a shared CPU are noisy: the band shows how much; the verdicts use medians.",
        "共享 CPU 上的计时有噪声：色带显示其大小；结论使用中位数。",
    ),
    # figures
    "sw_fig_ttft": ("TTFT and prefill step time against prompt length", "TTFT 与预填充步耗时随提示长度的变化"),
    "sw_fig_tpot": ("TPOT against prompt length", "TPOT 随提示长度的变化"),
    "sw_fig_tpot_n": ("TPOT and decode step time against output length", "TPOT 与解码步耗时随输出长度的变化"),
    "sw_fig_share": (
        "Decode share of the request's time against output length",
        "解码时间占请求总时间的比例随输出长度的变化",
    ),
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
}
t = page_translator(STRINGS)
