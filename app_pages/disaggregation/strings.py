"""Strings of the disaggregation lab, and its `t`: this table first, then the shared ones
(ui/i18n.py). {key: (en, zh)}; templates use str.format fields."""

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "dg_title": (
        "Disaggregation: prefill and decode on separate workers",
        "分离式部署：预填充与解码在不同的 worker 上",
    ),
    "dg_intro": (
        "On one device the two phases get in each other's way: a long prompt's prefill takes the step, and every "
        "running decode waits ([C21](/claims?claim=C21)). Chunked prefill splits the prompt so decodes keep "
        "moving ([C22](/claims?claim=C22)); since 2024 the field's main answer is to **separate them**: a prefill worker runs the prompt, "
        "hands its KV cache to a decode worker, and the decode worker only decodes (DistServe, Splitwise, "
        "Mooncake, vLLM's disaggregated prefill, SGLang, NVIDIA Dynamo). The price is a KV transfer per request. "
        "Here it runs for real: the same workload sent over HTTP to three set-ups of this engine's own server.",
        "在同一设备上，两个阶段互相妨碍：长提示的预填充占用整个步，所有正在进行的解码都要等待"
        "（[C21](/claims?claim=C21)）。分块预填充把提示拆开，让解码继续前进（[C22](/claims?claim=C22)）；2024 年以来业界的主要答案是**把它们分开**："
        "预填充 worker 处理提示，把 KV 缓存交给解码 worker，解码 worker 只做解码（DistServe、Splitwise、Mooncake、"
        "vLLM 的分离式预填充、SGLang、NVIDIA Dynamo）。代价是每个请求一次 KV 传输。这里真实地运行它：同一负载通过 "
        "HTTP 发往本引擎自带服务器的三种部署。",
    ),
    "dg_tab_run": ("Three set-ups, one workload", "三种部署，同一负载"),
    "dg_tab_transfer": ("The transfer on real hardware", "真实硬件上的传输"),
    # --- the run ---------------------------------------------------------------------------------
    "dg_setups": (
        "**Colocated, whole prompts**: one `serve --no-chunked-prefill` on every core. **Colocated, chunked "
        "prefill**: one `serve` that splits prompts into chunks of the budget below, beside the decodes. "
        "**1 prefill + 1 decode worker**: `serve --role prefill` pinned to CPU 0, `serve --role decode` pinned "
        "to CPU 1, and `python -m engine router` in front, which sends each request to the prefill worker and "
        "hands its KV and first token to the decode worker. The first run starts these four servers on the "
        "loaded model (each holds its own copy) and keeps them for the next runs.",
        "**同置，整段提示**：一个 `serve --no-chunked-prefill`，使用全部核心。**同置，分块预填充**：一个 `serve`，"
        "把提示按下面的预算切块，与解码一起执行。**1 个预填充 + 1 个解码 worker**：`serve --role prefill` 绑定 CPU 0，"
        "`serve --role decode` 绑定 CPU 1，前面是 `python -m engine router`：它把每个请求发给预填充 worker，再把 KV "
        "和第一个 token 交给解码 worker。第一次运行会在已加载的模型上启动这四个服务器（每个持有自己的一份模型），"
        "之后的运行继续使用它们。",
    ),
    "dg_uneven": (
        "On this machine ({cores} cores) the split is uneven by construction: each worker gets one core, where a "
        "colocated server has all of them for whichever phase runs. A GPU deployment gives each pool whole GPUs.",
        "在本机（{cores} 个核心）上，这种划分天然不对等：每个 worker 只有一个核心，而同置的服务器可以把所有核心都"
        "用于当前阶段。GPU 部署会给每个池整块的 GPU。",
    ),
    "dg_chats": ("Chats", "对话数"),
    "dg_chats_help": ("Requests that start together at t = 0 and decode.", "在 t = 0 同时开始并解码的请求。"),
    "dg_chat_tokens": ("Tokens per chat", "每个对话的 token 数"),
    "dg_long": ("Long prompt tokens", "长提示 token 数"),
    "dg_long_help": (
        "Each long prompt arrives while the chats decode: from 0.5 s on, one a second; it asks for 16 tokens.",
        "每个长提示在对话解码时到达：从 0.5 秒起每秒一个；每个生成 16 个 token。",
    ),
    "dg_longs": ("Long prompts", "长提示个数"),
    "dg_chunk": ("Chunk budget (tokens per step)", "分块预算（每步 token 数）"),
    "dg_chunk_help": (
        "The chunked server's token budget per step (`--max-num-batched-tokens`). Changing it restarts the servers.",
        "分块服务器每步的 token 预算（`--max-num-batched-tokens`）。修改它会重启服务器。",
    ),
    "dg_slo_header": ("Service-level objective", "服务等级目标（SLO）"),
    "dg_run": ("Run the three set-ups", "运行三种部署"),
    "dg_stop_servers": ("Stop the servers", "停止服务器"),
    "dg_stopped": (
        "The four servers are stopped; the next run starts them again.",
        "四个服务器已停止；下次运行会重新启动它们。",
    ),
    "dg_public_off": (
        "This page starts four server processes of its own: it is off in public mode.",
        "本页面会启动四个自己的服务器进程：公开模式下不可用。",
    ),
    "dg_starting": (
        "Starting four servers on {name} (first run only)…",
        "正在 {name} 上启动四个服务器（仅第一次运行）……",
    ),
    "dg_running": ("Sending the workload to each set-up in turn", "依次向每种部署发送负载"),
    "dg_progress": ("{setup}: {n} requests", "{setup}：{n} 个请求"),
    "dg_failed": ("The run failed", "运行失败"),
    "dg_done": ("Three set-ups measured ({s:.0f} s)", "三种部署测量完毕（{s:.0f} 秒）"),
    "dg_not_run": ("Run the three set-ups to compare them.", "运行三种部署以比较它们。"),
    "dg_setup_whole": ("colocated, whole prompts", "同置，整段提示"),
    "dg_setup_chunked": ("colocated, chunked prefill", "同置，分块预填充"),
    "dg_setup_pd": ("1 prefill + 1 decode worker", "1 个预填充 + 1 个解码 worker"),
    "dg_col_setup": ("set-up", "部署"),
    "dg_col_chat_tpot": ("chats' worst TPOT (ms)", "对话最差 TPOT（ms）"),
    "dg_col_chat_gap": ("chats' longest gap (ms)", "对话最长间隔（ms）"),
    "dg_col_chat_ttft": ("chats' TTFT, median (ms)", "对话 TTFT 中位数（ms）"),
    "dg_col_long_ttft": ("long prompts' TTFT, median (ms)", "长提示 TTFT 中位数（ms）"),
    "dg_col_transfer": ("hand-off transfer, median (ms)", "交接传输中位数（ms）"),
    "dg_col_handoff": ("hand-off (MiB)", "交接数据（MiB）"),
    "dg_summary_header": ("What each set-up gave", "每种部署的结果"),
    "dg_goodput_header": ("Goodput at the SLO", "SLO 下的有效吞吐"),
    "dg_winner": (
        "**Here, {best} gave the most goodput** ({goodput:.2f} requests/s meeting {slo}). The chats' longest "
        "stall: {gaps}. The long prompts' median TTFT: {ttfts}.",
        "**在这里，{best} 的有效吞吐最高**（{goodput:.2f} 个请求/秒满足 {slo}）。对话的最长停顿：{gaps}。"
        "长提示的 TTFT 中位数：{ttfts}。",
    ),
    "dg_tie": (
        "**No set-up gave more goodput than the others** ({goodput:.2f} requests/s meeting {slo}). The chats' "
        "longest stall: {gaps}. The long prompts' median TTFT: {ttfts}.",
        "**没有哪种部署的有效吞吐更高**（{goodput:.2f} 个请求/秒满足 {slo}）。对话的最长停顿：{gaps}。"
        "长提示的 TTFT 中位数：{ttfts}。",
    ),
    "dg_why_pd": (
        "The pair's decodes run on their own core, where no prompt's prefill shares their steps; its prompts pay "
        "a prefill on one core and a hand-off of {mib:.1f} MiB taking {ms:.0f} ms (HTTP on loopback, through the "
        "router).",
        "这一对 worker 的解码运行在自己的核心上，没有提示的预填充与它们共用步；它的提示要在一个核心上预填充，并交接 "
        "{mib:.1f} MiB，耗时 {ms:.0f} ms（本机回环上的 HTTP，经过路由器）。",
    ),
    "dg_busy_verdict": (
        "Other processes kept the machine busy during this run: the times above are not the set-ups' own, so "
        "no set-up is named the winner.",
        "本次运行期间其他进程占用了机器：上面的时间不是这些部署自身的，因此不判定胜者。",
    ),
    # --- figures ---------------------------------------------------------------------------------
    "dg_fig_dist": ("TTFT and TPOT of every request, per set-up", "每个请求的 TTFT 与 TPOT（按部署）"),
    "dg_fig_ttft_axis": ("TTFT (ms)", "TTFT（ms）"),
    "dg_fig_tpot_axis": ("TPOT (ms)", "TPOT（ms）"),
    "dg_fig_chat": ("chats", "对话"),
    "dg_fig_long": ("long prompts", "长提示"),
    "dg_fig_interference": (
        "Interference: the chats' gaps between tokens while long prompts prefill",
        "干扰：长提示预填充时对话的 token 间隔",
    ),
    "dg_fig_time_axis": ("time since the run started (s)", "自运行开始的时间（秒）"),
    "dg_fig_gap_axis": ("gap (ms)", "间隔（ms）"),
    "dg_fig_prefill_window": ("a long prompt: sent to first token", "长提示：发送到第一个 token"),
    "dg_interference_caption": (
        "Each dot is one gap between two tokens of a chat, placed where it ended. The shaded spans are the long "
        "prompts from sending to their first token: where their prefill runs. A dot high inside a span is a "
        "decode that waited for a prefill.",
        "每个点是对话中两个 token 之间的一次间隔，放在它结束的位置。阴影区间是长提示从发送到第一个 token 的时间："
        "也就是它们预填充的时间。阴影中高的点，就是等待预填充的解码。",
    ),
    "dg_fig_gantt": ("Each request on each worker", "每个请求在每个 worker 上"),
    "dg_fig_lane_axis": ("worker · request", "worker · 请求"),
    "dg_gantt_prefill_lane": ("prefill worker", "预填充 worker"),
    "dg_gantt_decode_lane": ("decode worker", "解码 worker"),
    "dg_gantt_server_lane": ("server", "服务器"),
    "dg_phase_waiting": ("waiting", "等待"),
    "dg_phase_p_queue": ("queue on the prefill worker", "在预填充 worker 排队"),
    "dg_phase_prefill": ("prefill", "预填充"),
    "dg_phase_transfer": ("KV hand-off", "KV 交接"),
    "dg_phase_d_queue": ("queue on the decode worker", "在解码 worker 排队"),
    "dg_phase_decode": ("decode", "解码"),
    "dg_gantt_setup": ("Set-up", "部署"),
    "dg_gantt_caption": (
        "For the pair, each request's record from the router, on one clock (the workers share this machine's): "
        "queue and prefill on the prefill worker's lane, the hand-off as an arrow to the decode worker's lane, "
        "queue and decode there. For a colocated server, what its client saw: waiting for the first token, then "
        "decoding.",
        "对于这一对 worker，每个请求的记录来自路由器，用同一个时钟（两个 worker 共享本机时钟）：预填充 worker 通道上"
        "的排队和预填充，交接以箭头画到解码 worker 通道，然后是那里的排队和解码。对于同置服务器，是客户端看到的："
        "等待第一个 token，然后解码。",
    ),
    # --- the transfer calculator -----------------------------------------------------------------
    "dg_calc_intro": (
        "What the hand-off costs on real hardware: the KV bytes of one prompt (the formula the engine's hand-off "
        "moves: layers × 2 × KV heads × head dim × bytes per element × tokens, plus int8's scales; MLA caches one "
        "compressed latent per token and layer instead) against a link's bandwidth, and against the prefill that "
        "produced them on the GPU (the roofline projection). A transfer shorter than its prefill can stream out "
        "layer by layer while the prefill runs and adds almost nothing; a longer one adds to TTFT.",
        "交接在真实硬件上的代价：一个提示的 KV 字节数（引擎交接所搬运的公式：层数 × 2 × KV 头数 × 头维度 × 每元素"
        "字节数 × token 数，int8 另加缩放因子；MLA 则每个 token 每层缓存一个压缩的潜向量），对比链路带宽，以及在 GPU 上"
        "产生它们的预填充时间（屋顶线投影）。比预填充短的传输可以在预填充进行时逐层流出，几乎不增加时间；更长的传输会"
        "加到 TTFT 上。",
    ),
    "dg_calc_model": ("Model", "模型"),
    "dg_calc_kv": ("KV dtype", "KV 数据类型"),
    "dg_calc_prompt": ("Prompt tokens", "提示 token 数"),
    "dg_calc_gpu": ("Prefill GPU", "预填充 GPU"),
    "dg_calc_bytes": ("KV to hand over", "需要交接的 KV"),
    "dg_calc_prefill": ("Projected prefill on {gpu}", "{gpu} 上的预计预填充"),
    "dg_calc_per_token": ("per token", "每 token"),
    "dg_calc_no_prefill": (
        "{model} is a mixture of experts: the roofline projection models dense models only, so no prefill time "
        "is projected; the transfer times stand alone.",
        "{model} 是混合专家模型：屋顶线投影只对稠密模型建模，因此不投影预填充时间；只给出传输时间。",
    ),
    "dg_col_link": ("link", "链路"),
    "dg_col_transfer_ms": ("transfer (ms)", "传输（ms）"),
    "dg_col_prefill_ms": ("prefill (ms)", "预填充（ms）"),
    "dg_col_hides": ("hides behind the prefill", "能否被预填充掩盖"),
    "dg_hides_yes": ("yes", "能"),
    "dg_hides_no": ("no: adds {ms:.0f} ms", "不能：增加 {ms:.0f} ms"),
    "dg_fig_calc": ("Hand-off time on each link against the prefill", "各链路上的交接时间与预填充对比"),
    "dg_fig_calc_axis": ("time (ms)", "时间（ms）"),
}
t = page_translator(STRINGS)
