"""Strings of the compare page, and its `t`: this table first, then the shared ones (ui/i18n.py).
{key: (en, zh)}; templates use str.format fields."""

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "cmp_title": ("Compare runs side by side", "并排对比多次运行"),
    "cmp_intro": (
        "Two to four columns, each a prompt with its own settings: KV cache, attention backend, dtype, model and "
        "sampling. **Run all** runs them one after another on the same engine; then replay them side by side, "
        "read the shared charts (every column is one line or bar in the same chart) and the table of differences. "
        "The defaults run one prompt with and without the KV cache, so the first click shows what no cache costs.",
        "二到四列，每列一个提示词并有自己的设置：KV 缓存、注意力后端、数据类型、模型与采样。**全部运行** 会在同一个引擎上"
        "依次运行它们；之后可以并排回放，查看共享图表（每一列是同一张图里的一条线或一组柱）和差异表。默认设置用同一个提示词"
        "分别开启和关闭 KV 缓存，第一次点击就能看到没有缓存的代价。",
    ),
    # controls
    "cmp_count": ("Columns", "列数"),
    "cmp_column": ("Column {n}", "第 {n} 列"),
    "cmp_model_help": (
        "The models the sidebar offers; a local folder or hub id can be typed in. A model that is "
        "not loaded yet is loaded (and warmed up) when its column runs, which can take a while.",
        "与侧边栏相同的模型列表；也可以输入本地文件夹或 Hub id。尚未加载的模型会在该列运行时加载"
        "（并预热），可能需要一些时间。",
    ),
    "cmp_chat_help": (
        "Wrap the prompt in the model's chat template, if the model has one (otherwise the prompt "
        "runs as typed, and the column says so).",
        "若模型带有对话模板，则用它包裹提示词（没有模板时按原文运行，并在该列注明）。",
    ),
    "cmp_run": ("Run all", "全部运行"),
    "cmp_sequential_note": (
        "The columns run one after another, never at once: on this 2-core CPU two runs at the same time would "
        "take cores from each other and each would measure the other's load. First every column is loaded and "
        "warmed up with an untimed two-token run of its own prompt, so the first column does not pay one-off costs "
        'alone; then each is timed, as many times as "Timed runs per column" says, and the summary gives each '
        "time's median and how far the runs spread.",
        "各列依次运行，从不同时运行：在这台 2 核 CPU 上同时运行会互相抢占核心，各自的测量都会包含对方的负载。"
        "先为每一列加载模型并用它自己的提示词做一次不计时的两 token 预热，避免第一列独自承担一次性开销；然后逐列计时，"
        "每列计时的次数由“每列计时次数”决定，汇总给出每项时间的中位数以及各次之间的离散程度。",
    ),
    "cmp_repeats": ("Timed runs per column", "每列计时次数"),
    "cmp_repeats_help": (
        "Each column is timed this many times, one run after another. The summary shows each time's median and its "
        "spread ((max − min) ÷ median), and a ratio inside that spread is not called a difference. The charts and "
        "tokens show the run with the median E2E. 1 is fastest; a single run can be off by tens of percent when "
        "something else uses the CPU.",
        "每一列连续计时这么多次。汇总显示每项时间的中位数及其离散程度（(最大 − 最小) ÷ 中位数），落在离散范围内的比值"
        "不算作差异。图表和 token 展示 E2E 处于中位数的那一次。1 次最快；当有别的程序占用 CPU 时，单次运行可能偏差"
        "几十个百分点。",
    ),
    # running
    "cmp_running": ("Running {n} columns one after another…", "正在依次运行 {n} 列…"),
    "cmp_loading": ("Loading model {spec} ({dtype})…", "正在加载模型 {spec}（{dtype}）…"),
    "cmp_progress_warm": (
        "{name} ({k} of {n}): loading, checking and warming up (untimed)",
        "{name}（第 {k} 个，共 {n} 个）：加载、检查并预热（不计时）",
    ),
    "cmp_progress": (
        "{name} ({k} of {n}), timed run {r} of {R}: {done} of at most {N} tokens",
        "{name}（第 {k} 个，共 {n} 个），第 {r}/{R} 次计时：已生成 {done} 个 token，最多 {N} 个",
    ),
    "cmp_progress_memory": (
        "{name} ({k} of {n}): memory on a second, untimed pass, step {done} of {total}",
        "{name}（第 {k} 个，共 {n} 个）：第二趟（不计时）测量内存，第 {done}/{total} 步",
    ),
    "cmp_progress_done": ("All {n} columns ran", "{n} 列均已运行"),
    "cmp_done": ("Done: {ok} of {n} columns finished", "完成：{n} 列中有 {ok} 列运行完毕"),
    "cmp_load_failed": (
        "The model {spec} could not be loaded for this column: {msg} Pick another model here; the "
        "bundled one always works offline.",
        "无法为这一列加载模型 {spec}：{msg} 请为这一列选择其他模型；内置模型离线也始终可用。",
    ),
    "cmp_not_run": ("Not run: the comparison was stopped before this column.", "未运行：对比在这一列之前被停止。"),
    "cmp_stopped": ("The comparison was stopped; below is what ran.", "对比已停止；下面是已完成的部分。"),
    "cmp_no_run": ("No comparison yet: press Run all.", "还没有对比：请点击全部运行。"),
    # settings phrases (also the legend names)
    "cmp_kv_on": ("KV on", "KV 开"),
    "cmp_kv_off": ("KV off", "KV 关"),
    "cmp_greedy": ("greedy", "贪心"),
    "cmp_sampled": (
        "temperature {temp:g}, top-k {k}, top-p {p:g}, seed {seed}",
        "温度 {temp:g}、top-k {k}、top-p {p:g}、种子 {seed}",
    ),
    "cmp_max_new_short": ("≤ {n} tokens", "≤ {n} 个 token"),
    "cmp_chat_on": ("chat template", "对话模板"),
    "cmp_chat_off": ("plain prompt", "纯提示词"),
    "cmp_chat_missing": ("plain prompt (the model has no chat template)", "纯提示词（模型没有对话模板）"),
    "cmp_prompt_named": ("«{text}» ({n} chars)", "«{text}»（{n} 个字符）"),
    "cmp_same_settings": ("same settings", "设置相同"),
    "cmp_sep": (", ", "、"),  # between the phrases of a name or a caption line
    "cmp_column_named": ("Column {n} ({detail})", "第 {n} 列（{detail}）"),
    # replay
    "cmp_replay_header": ("Replay side by side", "并排回放"),
    "cmp_replay_all": ("Replay all on the measured clock", "按实测时间一起回放"),
    "cmp_replay_stop": ("Stop replay", "停止回放"),
    "cmp_replay_all_help": (
        "Plays every column at once, each token appearing when it did in the run (sped up or "
        "slowed to last a few seconds), so a slower column visibly falls behind.",
        "所有列同时回放，每个 token 在它实际出现的时刻出现（整体加速或放慢到几秒钟），较慢的一列会明显落后。",
    ),
    "cmp_replay_clock": (
        "{s:.2f} s of {total:.2f} s measured (played at {x:.1f}× speed)",
        "实测 {total:.2f} 秒中的第 {s:.2f} 秒（以 {x:.1f} 倍速播放）",
    ),
    "cmp_replay_step": ("Step (-1: before the first)", "步（-1：第一步之前）"),
    "cmp_replay_step_help": (
        "The run as it stood after this engine step: step 0 is the prefill.",
        "该引擎步之后的状态：第 0 步是预填充。",
    ),
    # charts
    "cmp_charts_header": ("Shared charts", "共享图表"),
    "cmp_fig_latency": ("TTFT and TPOT per column", "各列的 TTFT 与 TPOT"),
    "cmp_fig_latency_median": (
        "TTFT and TPOT per column (median of {n} runs)",
        "各列的 TTFT 与 TPOT（{n} 次的中位数）",
    ),
    "cmp_fig_latency_medians": (
        "TTFT and TPOT per column (median of each column's runs)",
        "各列的 TTFT 与 TPOT（各列各次的中位数）",
    ),
    "cmp_axis_metric": ("metric", "指标"),
    "cmp_fig_itl": ("Inter-token latency over decode steps", "各解码步的 token 间延迟（ITL）"),
    "cmp_fig_kv": ("KV cache growth per step", "每步的 KV 缓存增长"),
    "cmp_fig_peak": ("Peak transient memory per step", "每步的瞬时内存峰值"),
    "cmp_charts_caption": (
        "The TTFT and TPOT bars are the summary table's numbers (the median over the column's timed runs). In the "
        "per-step charts each column is one trace (its run with the median E2E), in the same colour in every chart; "
        "they share one x axis "
        "(step 0 is the prefill). ITL is the gap before each decode token; the KV cache is the tokens whose K and V "
        "are held × the model's KV bytes per token (zero with the cache off); peak memory is what the engine's "
        "probe measured above each step's start, on a second, untimed pass over the same tokens (the timings come "
        "from the first pass, which has no probe).",
        "TTFT 与 TPOT 柱即汇总表中的数（该列各次计时的中位数）。逐步图中每一列是一条轨迹（取其 E2E 处于中位数的那一次），在所有图里颜色相同；三张逐步图共用同一个横轴（第 0 步是预填充）。ITL 是每个解码 token "
        "之前的间隔；KV 缓存 = 已缓存 K、V 的 token 数 × 模型每 token 的 KV 字节数（关闭缓存时为零）；内存峰值是"
        "引擎探针测得的、相对每步开始时的增量，来自用同样 token 再跑一遍的第二趟（不计时；时延来自没有探针的第一趟）。",
    ),
    # metrics and table
    "cmp_m_ttft": ("TTFT", "TTFT"),
    "cmp_m_tpot": ("TPOT", "TPOT"),
    "cmp_m_itl_p99": ("P99 ITL", "P99 ITL"),
    "cmp_m_e2e": ("E2E", "E2E"),
    "cmp_m_peak": ("peak memory", "内存峰值"),
    "cmp_m_kv": ("KV cache at the end", "结束时的 KV 缓存"),
    "cmp_table_header": ("Summary", "汇总"),
    "cmp_col_metric": ("metric", "指标"),
    "cmp_col_runs": ("timed runs", "计时次数"),
    "cmp_col_prompt": ("prompt tokens", "提示词 token"),
    "cmp_col_output": ("output tokens", "输出 token"),
    "cmp_col_ttft": ("TTFT (ms)", "TTFT（毫秒）"),
    "cmp_col_tpot": ("TPOT (ms)", "TPOT（毫秒）"),
    "cmp_col_itl_mean": ("ITL mean (ms)", "ITL 平均（毫秒）"),
    "cmp_col_itl_p50": ("ITL P50 (ms)", "ITL P50（毫秒）"),
    "cmp_col_itl_p99": ("ITL P99 (ms; the max when n < 100)", "ITL P99（毫秒；n < 100 时为最大值）"),
    "cmp_col_itl_n": ("ITL gaps behind it (n)", "其背后的 ITL 间隔数（n）"),
    "cmp_col_e2e": ("E2E (ms)", "E2E（毫秒）"),
    "cmp_col_ttft_spread": ("TTFT spread (%)", "TTFT 离散（%）"),
    "cmp_col_tpot_spread": ("TPOT spread (%)", "TPOT 离散（%）"),
    "cmp_col_e2e_spread": ("E2E spread (%)", "E2E 离散（%）"),
    "cmp_col_peak": ("peak memory (MiB)", "内存峰值（MiB）"),
    "cmp_col_kv": ("KV at the end (KiB)", "结束时 KV（KiB）"),
    "cmp_col_ttft_x": ("TTFT ÷ base (×)", "TTFT ÷ 基准（倍）"),
    "cmp_col_tpot_x": ("TPOT ÷ base (×)", "TPOT ÷ 基准（倍）"),
    "cmp_col_e2e_x": ("E2E ÷ base (×)", "E2E ÷ 基准（倍）"),
    "cmp_col_peak_x": ("peak memory ÷ base (×)", "内存峰值 ÷ 基准（倍）"),
    "cmp_col_kv_diff": ("KV − base (KiB)", "KV − 基准（KiB）"),
    "cmp_table_caption": (
        "The base is column {n}. TTFT = first token − arrival; TPOT = (E2E − TTFT) ÷ (output tokens − 1); ITL = the "
        "gaps between tokens; E2E = last token − arrival (vLLM's definitions). With several timed runs, TTFT, TPOT "
        "and E2E are their medians, the ITL percentiles are over every gap of every run, and spread = (max − min) ÷ "
        "median × 100. Tokens and memory come from the run with the median E2E. Peak memory is the largest per-step "
        "peak; KV at the end is the cache during the last step.",
        "基准是第 {n} 列。TTFT = 首个 token 时间 − 到达时间；TPOT = (E2E − TTFT) ÷ (输出 token 数 − 1)；ITL = 相邻 "
        "token 的间隔；E2E = 最后一个 token 时间 − 到达时间（vLLM 的定义）。多次计时时，TTFT、TPOT、E2E 取中位数，"
        "ITL 分位数取所有次的全部间隔，离散 = (最大 − 最小) ÷ 中位数 × 100。token 与内存来自 E2E 处于中位数的那一次。"
        "内存峰值取各步峰值的最大值；结束时 KV 是最后一步时的缓存大小。",
    ),
    "cmp_base_moved": (
        "Column 1 did not finish, so column {n} is the base the others are compared with.",
        "第 1 列没有完成，因此以第 {n} 列作为其他列的比较基准。",
    ),
    "cmp_diff_part": ("{metric} {x}× column {base}", "{metric} 是第 {base} 列的 {x} 倍"),
    "cmp_diff_line": ("{name}: {parts}", "{name}：{parts}"),
    "cmp_diff_noise": (
        "times within the runs' spread (no timing difference this run can tell)",
        "时间差异在多次计时的离散范围之内（本次无法分辨）",
    ),
    "cmp_diff_busy": ("time ratios unreliable (the machine was busy)", "时间比值不可靠（机器正忙）"),
    "cmp_diff_no_kv": (
        "{name} keeps no KV cache: every step recomputes K and V of the whole context.",
        "{name} 不保留 KV 缓存：每一步都重新计算整个上下文的 K 和 V。",
    ),
}
t = page_translator(STRINGS)
