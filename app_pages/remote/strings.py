"""Strings of the remote-server page, and its `t`: this table first, then the shared ones.
{key: (en, zh)}; templates use str.format fields."""

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "rm_title": ("Remote server: prefill and decode on a real server", "远程服务器：真实服务器上的预填充与解码"),
    "rm_intro": (
        "Point the lab at an OpenAI-compatible server (vLLM, SGLang, TGI, `transformers serve`, or this lab's own "
        "`python -m engine serve`). Every streamed chunk is timed where it arrives, so TTFT is the prefill as a "
        "user feels it and the gaps after it are decode. The server's KV cache and attention stay inside it: this "
        "page shows what its API and its Prometheus metrics expose.",
        "把实验室指向一个兼容 OpenAI 的服务器（vLLM、SGLang、TGI、`transformers serve`，或本实验室自带的 "
        "`python -m engine serve`）。每个流式分块在到达时计时：TTFT 就是用户感受到的预填充，之后的间隔就是解码。"
        "服务器的 KV 缓存与注意力留在服务器内部：本页只展示它的 API 与 Prometheus 指标公开的内容。",
    ),
    "rm_url": ("Base URL", "基础 URL"),
    "rm_public_off": (
        "This page is off on this public server: it would make the server fetch any address a "
        "visitor types. Its owner can list the servers it may reach (remote_urls in the server's settings file).",
        "这台公开服务器关闭了本页：否则服务器会去访问访客输入的任意地址。服务器所有者可以列出允许访问的服务器"
        "（服务器设置文件中的 remote_urls）。",
    ),
    "rm_url_public": (
        "The servers this public lab may reach, as its owner listed them.",
        "这台公开实验室所有者列出的、允许访问的服务器。",
    ),
    "rm_url_help": (
        "The server's address; /v1 is added if missing. e.g. http://127.0.0.1:8000",
        "服务器地址；缺少 /v1 时会自动补上。例如 http://127.0.0.1:8000",
    ),
    "rm_key": ("API key (optional)", "API 密钥（可选）"),
    "rm_key_help": (
        "Kept in this browser session only: never in share links, traces, reports or logs.",
        "只保存在本浏览器会话中：不会进入分享链接、轨迹文件、报告或日志。",
    ),
    "rm_timeout": ("Timeout (s)", "超时（秒）"),
    "rm_timeout_help": (
        "How long to wait to connect and for each next piece of a reply.",
        "连接以及等待回复下一部分的最长时间。",
    ),
    "rm_connect": ("Connect", "连接"),
    "rm_connecting": ("Asking {url} for its models…", "正在向 {url} 查询模型…"),
    "rm_connected": (
        "Connected to {url}: {n} model(s). Server metrics: {kind}.",
        "已连接 {url}：{n} 个模型。服务器指标：{kind}。",
    ),
    "rm_kind_none": ("none (no /metrics)", "无（没有 /metrics）"),
    "rm_not_connected": ("Connect to a server first.", "请先连接一个服务器。"),
    "rm_model": ("Model", "模型"),
    "rm_tab_one": ("One prompt", "单个提示"),
    "rm_tab_load": ("Load", "负载"),
    "rm_prompt": ("Prompt", "提示词"),
    "rm_max_tokens": ("max_tokens", "max_tokens"),
    "rm_chat": ("Chat API (/v1/chat/completions)", "对话接口（/v1/chat/completions）"),
    "rm_run_one": ("Send", "发送"),
    "rm_streaming": ("Streaming: {n} chunks so far…", "流式接收中：已收到 {n} 个分块…"),
    "rm_one_failed": ("The request failed: {msg}", "请求失败：{msg}"),
    "rm_m_ttft": ("TTFT", "TTFT"),
    "rm_m_tpot": ("TPOT", "TPOT"),
    "rm_m_e2e": ("E2E", "E2E"),
    "rm_m_tokens": ("output tokens", "输出 token"),
    "rm_tokens_usage": ("from the server's usage", "来自服务器的 usage"),
    "rm_tokens_counted": ("counted from chunks: the server sent no usage", "按分块计数：服务器没有返回 usage"),
    "rm_chunks_note": (
        "{chunks} chunks carried {tokens} tokens: a chunk may hold several tokens, so ITL is the gap "
        "between chunks and TPOT = (E2E − TTFT) / (tokens − 1).",
        "{chunks} 个分块承载了 {tokens} 个 token：一个分块可能含多个 token，所以 ITL 是分块之间的间隔，"
        "TPOT = (E2E − TTFT) / (token 数 − 1)。",
    ),
    "rm_server_view": (
        "The server's own clock (this lab's engine, GET /pdlab/requests): TTFT {ttft:.1f} ms (queue {queue:.1f} + "
        "prefill {prefill:.1f}), TPOT {tpot} ms over {n} tokens. The client's TTFT above is {extra:+.1f} ms more: "
        "HTTP, the stream's framing and this page's own reading.",
        "服务器自己的时钟（本实验室的引擎，GET /pdlab/requests）：TTFT {ttft:.1f} ms（排队 {queue:.1f} + 预填充 "
        "{prefill:.1f}），TPOT {tpot} ms，共 {n} 个 token。上面客户端测得的 TTFT 多出 {extra:+.1f} ms：HTTP、"
        "流的分帧以及本页自身的读取。",
    ),
    "rm_no_views": (
        "No KV cache or attention views here: a server does not expose them over its API.",
        "这里没有 KV 缓存和注意力视图：服务器不会通过 API 公开它们。",
    ),
    "rm_chunks_title": ("When each chunk arrived", "每个分块的到达时间"),
    "rm_chunks_x": ("chunk (#)", "分块（#）"),
    "rm_chunks_y": ("gap before it (ms)", "与前一个的间隔（毫秒）"),
    "rm_chunks_ttft": ("first chunk (TTFT)", "第一个分块（TTFT）"),
    "rm_chunks_itl": ("later chunks (ITL)", "之后的分块（ITL）"),
    "rm_tab_beside": ("Beside our engine", "与本地引擎对照"),
    "rm_beside_intro": (
        "The same requests, all sent at once, first on this lab's engine in this process (the sidebar's model, "
        "continuous batching), then on the server. One table of P50s and the server/local ratio: below 1 the "
        "server is faster.",
        "同样的请求同时发出：先在本进程中的本实验室引擎上运行（侧边栏选中的模型，连续批处理），再在服务器上运行。"
        "一张表列出 P50 与服务器/本地之比：小于 1 表示服务器更快。",
    ),
    "rm_run_beside": ("Run on both", "两边都运行"),
    "rm_beside_running": ("Running on our engine, then on the server…", "先在本地引擎上运行，再在服务器上运行…"),
    "rm_col_local": ("our engine (in process)", "本地引擎（本进程）"),
    "rm_col_server": ("server", "服务器"),
    "rm_col_ratio": ("server / ours", "服务器 / 本地"),
    "rm_beside_caption": (
        "Ours: {model} in this process, prompts as token ids, no HTTP. Server: its own model and hardware, the same "
        "prompts as text through /v1/completions (greedy, asked to ignore EOS), timed where each chunk arrives. A different "
        "model or tokenizer on the server changes what is compared: say so when you show it.",
        "本地：本进程中的 {model}，提示为 token id，不经 HTTP。服务器：它自己的模型和硬件，同样的提示以文本形式经 "
        "/v1/completions 发送（贪心，要求忽略 EOS），在每个分块到达时计时。服务器上的模型或分词器不同，比较的内容也就不同："
        "展示时请说明。",
    ),
    "rm_mode": ("Mode", "模式"),
    "rm_mode_synchronous": ("synchronous: one at a time", "同步：一次一个"),
    "rm_mode_concurrent": ("concurrent: a fixed number in flight", "并发：固定数量同时进行"),
    "rm_mode_constant": ("constant rate", "恒定速率"),
    "rm_mode_poisson": ("Poisson rate (seeded)", "泊松速率（固定种子）"),
    "rm_mode_workload": ("a serving-lab workload", "服务实验室的工作负载"),
    "rm_mode_sweep": ("sweep over rates", "速率扫描"),
    "rm_requests": ("Requests", "请求数"),
    "rm_requests_help": (
        "How many requests (per rate, in a sweep). A workload has its own.",
        "请求数量（扫描时为每个速率的数量）。工作负载有自己的数量。",
    ),
    "rm_preset": ("Workload", "工作负载"),
    "rm_preset_help": (
        "For the workload mode: the serving lab's presets, sent at their own arrival times, their "
        "prompts cut from real text with the bundled model's tokenizer.",
        "用于工作负载模式：服务实验室的预设，按各自的到达时间发送；提示词由内置模型的分词器从真实文本中截取。",
    ),
    "rm_rates": ("Sweep rates (requests/s, comma-separated)", "扫描速率（请求/秒，逗号分隔）"),
    "rm_rates_help": (
        "For the sweep: a constant-rate load at each rate in turn, to see where latency climbs.",
        "用于扫描：依次以每个速率进行恒定速率负载，观察延迟从哪里开始上升。",
    ),
    "rm_bad_rates": (
        "“{text}” is not a list of 1-12 rates in (0, 1000] requests per second, separated by commas.",
        "“{text}” 不是用逗号分隔的 1–12 个速率（每个在 (0, 1000] 请求/秒之间）。",
    ),
    "rm_sweep_step": ("rate {rate:g}/s ({k} of {n}): ", "速率 {rate:g}/秒（第 {k}/{n} 个）："),
    "rm_gp_header": ("Goodput: did the load meet an SLO?", "Goodput：这次负载满足 SLO 吗？"),
    "rm_gp_intro": (
        "Each request meets the SLO when all of its own values are within the limits (vLLM's rule); goodput is "
        "the requests that met it per second of the load, attainment their share of the requests sent (a "
        "failed request missed). **Why** is the server's own account of the miss, from its /metrics over the "
        "load: queue against prefill time, decode time, the running and waiting requests and the KV cache.",
        "每个请求自己的各项数值都在阈值内才算满足 SLO（vLLM 的规则）；goodput 是这次负载中每秒满足 SLO 的请求数，"
        "达标率是它们占已发送请求的比例（失败的请求算未达标）。**原因**来自服务器自己在负载期间的 /metrics："
        "排队与预填充时间、解码时间、运行与等待的请求数以及 KV 缓存。",
    ),
    "rm_gp_col_load": ("load", "负载"),
    "rm_gp_col_why": ("why (the server's metrics)", "原因（服务器指标）"),
    "rm_gp_load_rate": ("{rate:g} req/s offered", "给定 {rate:g} 请求/秒"),
    "rm_gp_load_concurrent": ("{n} in flight", "{n} 个同时进行"),
    "rm_gp_load_other": ("{mode}, {n} requests", "{mode}，{n} 个请求"),
    "rm_gp_no_metrics": ("no /metrics to say why", "没有 /metrics 可说明原因"),
    "rm_sweep_header": ("Sweep: what the server delivers at each offered rate", "扫描：每个给定速率下服务器的实际表现"),
    "rm_col_rate": ("offered (req/s)", "给定速率（请求/秒）"),
    "rm_col_achieved": ("achieved (req/s)", "实际（请求/秒）"),
    "rm_col_tokens": ("output tokens/s", "输出 token/秒"),
    "rm_col_finished": ("finished", "完成"),
    "rm_sweep_title": ("Throughput and TTFT against the offered rate", "吞吐与 TTFT 随给定速率的变化"),
    "rm_sweep_x": ("offered rate (requests/s)", "给定速率（请求/秒）"),
    "rm_sweep_y": ("achieved (requests/s)", "实际吞吐（请求/秒）"),
    "rm_sweep_ttft": ("TTFT P50 (ms)", "TTFT P50（毫秒）"),
    "rm_sweep_ideal": ("achieved = offered", "实际 = 给定"),
    "rm_sweep_caption": (
        "Expected: below the server's capacity, throughput follows the offered rate and TTFT stays flat; past it, requests "
        "queue: throughput levels off and TTFT climbs (prefill waits its turn). The detail below is the last rate's.",
        "预期：低于服务器容量时，吞吐跟随给定速率，TTFT 保持平稳；超过容量后请求开始排队：吞吐趋于平稳，TTFT 上升"
        "（预填充要排队等候）。下面的详情是最后一个速率的。",
    ),
    "rm_concurrency": ("Concurrency", "并发数"),
    "rm_rate": ("Rate (requests/s)", "速率（请求/秒）"),
    "rm_duration": ("Time limit (s)", "时间上限（秒）"),
    "rm_load_tokens": ("tokens per reply", "每个回复的 token 数"),
    "rm_load_tokens_help": (
        "max_tokens of each request, with EOS ignored (ignore_eos), so every reply has this length on a server "
        "that honours it; one that does not is pointed out under the results.",
        "每个请求的 max_tokens，并忽略 EOS（ignore_eos），所以在支持该选项的服务器上每个回复都是这个长度；"
        "不支持的服务器会在结果下方指出。",
    ),
    "rm_prompts": ("Prompts", "提示词"),
    "rm_prompts_questions": ("chat questions", "聊天问题"),
    "rm_prompts_synthetic": ("synthetic, exact length", "合成，精确长度"),
    "rm_prompts_help": (
        "Chat questions: short, sent to the chat API. Synthetic: real text cut to exactly this many tokens by the "
        "tokenizer named beside it (as GuideLLM's synthetic data and vLLM's random dataset do), each numbered, sent "
        "to the completions API so no chat template adds tokens. Not used by the workload mode, whose presets bring "
        "their own prompts.",
        "聊天问题：较短，发往 chat 接口。合成：真实文本按旁边指定的分词器截成恰好这么多个 token（与 GuideLLM 的合成数据、"
        "vLLM 的 random 数据集相同），每个都带编号，发往 completions 接口，不会有聊天模板再加 token。工作负载模式不使用它，"
        "其预设自带提示词。",
    ),
    "rm_prompt_tokens": ("Prompt tokens", "提示 token 数"),
    "rm_tokenizer": ("Tokenizer (a folder or hub id)", "分词器（文件夹或 hub id）"),
    "rm_tokenizer_bundled": ("empty: {name}'s (bundled)", "留空：{name} 的（内置）"),
    "rm_tokenizer_help": (
        "The tokenizer that counts the synthetic prompts' tokens: the server's model's own (a folder with its "
        "tokenizer.json, or its hub id when online), so the lengths are the server's. Empty: the bundled model's. "
        "Under the results, the server's own count (usage.prompt_tokens) is shown beside it.",
        "为合成提示计数 token 的分词器：用服务器所用模型自己的（含 tokenizer.json 的文件夹，联网时也可以是 hub id），这样长度"
        "就是服务器的长度。留空：内置模型的。结果下方会并列显示服务器自己的计数（usage.prompt_tokens）。",
    ),
    "rm_tokenizer_public": (
        "Public mode: the bundled model's tokenizer (a visitor's folder or hub id would make this server read it).",
        "公开模式：使用内置模型的分词器（访客指定的文件夹或 hub id 会让本服务器去读取它）。",
    ),
    "rm_prompts_cutting": ("Cutting the prompts to their exact length…", "正在把提示词截成精确长度…"),
    "rm_prompt_len_same": (
        "Prompts: {n} tokens each by {tokenizer}'s tokenizer; the server counted {n} too (usage.prompt_tokens).",
        "提示词：按 {tokenizer} 的分词器每个 {n} 个 token；服务器的计数也是 {n}（usage.prompt_tokens）。",
    ),
    "rm_prompt_len_differs": (
        "Prompts: {n} tokens each by {tokenizer}'s tokenizer; the server counted {lo}–{hi} (usage.prompt_tokens): "
        "it adds special tokens or uses another tokenizer, and its count is the one its prefill ran.",
        "提示词：按 {tokenizer} 的分词器每个 {n} 个 token；服务器计为 {lo}–{hi}（usage.prompt_tokens）：它加了特殊 "
        "token 或用的是另一个分词器，它的计数才是预填充实际处理的长度。",
    ),
    "rm_prompt_len_unreported": (
        "Prompts: {n} tokens each by {tokenizer}'s tokenizer; the server reported no prompt token count to compare.",
        "提示词：按 {tokenizer} 的分词器每个 {n} 个 token；服务器没有报告提示 token 数，无法比较。",
    ),
    "rm_unique": ("Unique prompts", "提示各不相同"),
    "rm_unique_help": (
        "Servers that cache prompt prefixes (vLLM and SGLang with prefix caching, llama.cpp) reuse the KV of a prompt "
        "they have seen, so a repeated prompt's TTFT covers only its uncached part. On: each request's prompt starts "
        "with its own number, so no two share a prefix and every TTFT includes the whole prefill. Off: the questions "
        "repeat once every request has had one.",
        "缓存提示前缀的服务器（开启前缀缓存的 vLLM 与 SGLang、llama.cpp）会复用见过的提示的 KV，所以重复提示的 TTFT "
        "只包含未缓存的部分。开启：每个请求的提示以自己的编号开头，任意两个都没有相同的前缀，每个 TTFT 都包含完整的预填充。"
        "关闭：每个请求用过一个问题后，问题会重复。",
    ),
    "rm_prompts_repeat": (
        "{n} requests shared {k} different prompts: on a server that caches prompt prefixes, a repeated prompt's TTFT "
        "covers only its uncached part.",
        "{n} 个请求共用 {k} 个不同的提示：在缓存提示前缀的服务器上，重复提示的 TTFT 只包含未缓存的部分。",
    ),
    "rm_run_load": ("Run the load", "运行负载"),
    "rm_load_running": (
        "{done} of {total} requests done ({failed} failed)…",
        "已完成 {done}/{total} 个请求（失败 {failed} 个）…",
    ),
    "rm_load_done": (
        "{finished} of {requests} requests finished in {secs:.1f} s{stopped}.",
        "{requests} 个请求中完成 {finished} 个，用时 {secs:.1f} 秒{stopped}。",
    ),
    "rm_load_stopped": (" (stopped: the rest were cancelled)", "（已停止：其余请求已取消）"),
    "rm_ignored_eos": (
        "{n} of {total} replies ended at the model's end-of-sequence before their {tokens} tokens although the "
        "requests asked the server to ignore it (`ignore_eos`, vLLM's extension): this server does not honour "
        "it, so TPOT and tokens/s cover shorter replies than asked.",
        "{total} 个回复中有 {n} 个在生成满 {tokens} 个 token 之前就在模型的结束符处停下，尽管请求要求服务器忽略它"
        "（`ignore_eos`，vLLM 的扩展）：这台服务器不支持该选项，所以 TPOT 和 token/秒 覆盖的回复比要求的短。",
    ),
    "rm_load_errors": ("{n} of {total} requests failed:", "{total} 个请求中有 {n} 个失败："),
    "rm_cut_hint": (
        "Streams cut while other requests ran are what a server does when it stops a running request for a new "
        "one: llama-cpp-python's server does so by default (start it with `--interrupt_requests false`), or "
        "send the load one request at a time (synchronous).",
        "其他请求在运行时被切断的流，正是服务器为新请求而中止正在运行的请求时的表现：llama-cpp-python 的服务器"
        "默认如此（用 `--interrupt_requests false` 启动它），或者一次只发一个请求（同步模式）。",
    ),
    "rm_load_empty": (
        "{n} of {total} requests were answered with 0 tokens (finish reason: {finish}): they count as finished, "
        "but with no first token they have no TTFT, TPOT or E2E: the table leaves them out, and an SLO counts them as missed.",
        "{total} 个请求中有 {n} 个得到 0 个 token 的回复（结束原因：{finish}）：它们算作完成，但没有首个 token，"
        "也就没有 TTFT、TPOT 或 E2E：表格不计入它们，SLO 把它们算作未满足。",
    ),
    "rm_empty_reply": (
        "The server answered with 0 tokens (finish reason: {finish}): an empty reply, so there is nothing to time.",
        "服务器回复了 0 个 token（结束原因：{finish}）：回复为空，所以没有可计时的内容。",
    ),
    "rm_gantt_failed": ("failed (sent → error)", "失败（发送 → 出错）"),
    "rm_col_metric": ("metric (ms)", "指标（毫秒）"),
    "rm_throughput": (
        "Throughput: {rps:.2f} requests/s, {tps:.1f} output tokens/s (client side).",
        "吞吐：{rps:.2f} 请求/秒，{tps:.1f} 输出 token/秒（客户端侧）。",
    ),
    "rm_gantt_title": (
        "Each request: waiting for its first chunk, then streaming",
        "每个请求：等待首个分块，然后流式输出",
    ),
    "rm_gantt_x": ("time since the load started (s)", "负载开始后的时间（秒）"),
    "rm_gantt_y": ("request", "请求"),
    "rm_gantt_wait": ("sent → first chunk (queue + prefill)", "发送 → 首个分块（排队 + 预填充）"),
    "rm_gantt_stream": ("first → last chunk (decode)", "首个 → 最后一个分块（解码）"),
    "rm_server_title": ("The server's own view during the load", "负载期间服务器自己的视图"),
    "rm_server_y": ("requests", "请求数"),
    "rm_server_kv": ("KV cache in use (%)", "KV 缓存占用（%）"),
    "rm_pools": ("Also read these servers' /metrics (optional)", "同时读取这些服务器的 /metrics（可选）"),
    "rm_pools_help": (
        "One `name = base URL` per line: the pools behind this endpoint, such as a router's prefill and decode "
        "workers in a disaggregated vLLM, SGLang or Dynamo deployment (or this lab's `serve --role`). Each is read "
        "every half second during the load, beside the server above, and drawn pool by pool.",
        "每行一个 `名称 = 基础 URL`：这个端点背后的各个池，例如分离式 vLLM、SGLang 或 Dynamo 部署中路由器后面的预填充"
        "和解码 worker（或本实验室的 `serve --role`）。负载期间每半秒读取一次，与上面的服务器一起，按池分别绘制。",
    ),
    "rm_pools_public": (
        "Off in public mode: only the servers the owner lists are reached.",
        "公开模式下不可用：只访问所有者列出的服务器。",
    ),
    "rm_fig_pools": ("Each pool's gauges over the load", "负载期间各池的指标"),
    "rm_pool_line": ("**{name}**: {kind} names, {n} readings", "**{name}**：{kind} 指标名，{n} 次读取"),
    "rm_pool_moved": ("; {mib:.1f} MiB of KV hand-offs during the load", "；负载期间 KV 交接 {mib:.1f} MiB"),
    "rm_pool_unread": ("**{name}**: not read ({note})", "**{name}**：未读取（{note}）"),
    "rm_pool_kind_unknown": ("unknown", "未知"),
    "rm_series_running": ("running", "运行中"),
    "rm_series_waiting": ("waiting", "等待中"),
    "rm_server_p99": ("P99 ≈ {p99:.0f} ms", "P99 ≈ {p99:.0f} 毫秒"),
    "rm_server_no_p99": ("no P99 (under 100 requests none lies above it)", "不给 P99（不足 100 个请求时没有值高于它）"),
    "rm_tab_capacity": ("Capacity at an SLO", "SLO 下的容量"),
    "rm_cap_intro": (
        "How much load does this server carry while the SLO holds? Short loads at a rising load (chat questions, EOS "
        "ignored where the server honours it): doubling from the first step until a load misses the target, then "
        "bisecting between the last load that met it and the first that did not, within the time budget. A load is "
        "a number of requests in flight (10 requests, or 3 per slot), or a rate of requests sent per second "
        "whatever the server does (6 s of them, 10 at least). Each load is judged by goodput: a request meets the "
        "SLO when each of its own values is within its threshold.",
        "在 SLO 成立的前提下，这台服务器能承载多大的负载？以递增的负载运行短负载（聊天问题，服务器支持时忽略 EOS）：从第一档"
        "开始翻倍，直到某个负载未达目标，再在最后一个达标的负载与第一个未达标的负载之间二分，且不超过时间预算。负载可以是在途"
        "请求数（每次 10 个请求，或每个并发槽 3 个），也可以是每秒发送的请求数，不管服务器处理得如何（发送 6 秒，至少 10 个）。"
        "每个负载都按 goodput 判断：一个请求的每项指标都不超过其阈值时才算满足 SLO。",
    ),
    "rm_cap_by": ("search over", "搜索的负载"),
    "rm_cap_by_concurrency": ("requests in flight", "在途请求数"),
    "rm_cap_by_rate": ("request rate", "请求速率"),
    "rm_cap_by_help": (
        "Requests in flight: a closed loop, each finished request replaced by the next (a fixed number of users "
        "waiting for their replies). Request rate: an open loop, requests sent on a clock whether or not the server "
        "keeps up (users arriving), so a queue can build.",
        "在途请求数：闭环，每完成一个请求就补上下一个（固定数量的用户在等回复）。请求速率：开环，按时钟发送请求，不管服务器"
        "是否跟得上（用户陆续到来），因此会形成排队。",
    ),
    "rm_cap_max_rate": ("highest rate (requests/s)", "最高速率（每秒请求数）"),
    "rm_cap_rate_step": ("rate step (requests/s)", "速率步长（每秒请求数）"),
    "rm_cap_rate_step_help": (
        "The rates tried are multiples of this step: the answer is exact to one step.",
        "所试的速率都是这个步长的倍数：答案精确到一个步长。",
    ),
    "rm_cap_too_many_steps": (
        "The highest rate is {n} steps of the rate step; at most 256 are searched: raise the step or lower the rate.",
        "最高速率是速率步长的 {n} 倍；最多只搜索 256 档：请加大步长或降低速率。",
    ),
    "rm_cap_budget": ("time budget (s)", "时间预算（秒）"),
    "rm_cap_budget_help": (
        "The search starts no load it expects to run past this; what it measured is kept either way.",
        "搜索不会开始预计超出预算的负载；已测量的结果都会保留。",
    ),
    "rm_cap_max_load": ("most requests in flight", "最多同时在途请求数"),
    "rm_cap_run": ("Find the capacity", "寻找容量"),
    "rm_cap_running": ("Searching for the capacity at {slo}…", "正在寻找 {slo} 下的容量…"),
    "rm_cap_progress_concurrency": (
        "Measured concurrency {load:g} ({n} loads so far); about {left:.0f} s of the budget left",
        "已测并发度 {load:g}（共 {n} 个负载）；预算约剩 {left:.0f} 秒",
    ),
    "rm_cap_progress_rate": (
        "Measured {load:g} requests/s ({n} loads so far); about {left:.0f} s of the budget left",
        "已测每秒 {load:g} 个请求（共 {n} 个负载）；预算约剩 {left:.0f} 秒",
    ),
    "rm_cap_done": ("Search finished in {s:.0f} s", "搜索用时 {s:.0f} 秒"),
    "rm_cap_col_concurrency": ("requests in flight", "在途请求数"),
    "rm_cap_col_rate": ("requests sent per second", "每秒发送请求数"),
    "rm_cap_attainment": ("SLO attainment", "SLO 达标率"),
    "rm_cap_target": ("target {share:.0f} %", "目标 {share:.0f} %"),
    "rm_cap_fig_attainment": ("SLO attainment against load", "SLO 达标率与负载"),
    "rm_cap_x_concurrency": ("requests in flight (concurrency)", "在途请求数（并发度）"),
    "rm_cap_x_rate": ("requests sent per second (offered load)", "每秒发送请求数（施加的负载）"),
    "rm_cap_y_attainment": ("requests meeting the SLO (%)", "满足 SLO 的请求（%）"),
    "rm_cap_throughput": ("throughput", "吞吐"),
    "rm_cap_goodput": ("goodput", "goodput"),
    "rm_cap_fig_goodput": ("Goodput and throughput against load", "goodput 与吞吐随负载的变化"),
    "rm_cap_y_rate": ("requests per second", "每秒请求数"),
    "rm_cap_caption": (
        "Goodput = requests that met the SLO ÷ the load's wall time; throughput counts every finished request. Where the "
        "two part, requests still finish, but too slowly to count. A server on this machine is part of the "
        "measurement: its CPU time is not counted as other work.",
        "goodput = 满足 SLO 的请求数 ÷ 负载的墙钟时间；吞吐计入所有完成的请求。两者分开之处，请求仍能完成，但已慢到不算数。"
        "本机上的服务器属于被测对象：它的 CPU 时间不算作其他工作。",
    ),
    "rm_server_none": ("No server metrics: {note}.", "没有服务器指标：{note}。"),
    "rm_server_unread": ("none were read during this load", "这次负载期间没有读取"),
    "rm_server_hist": (
        "The server's own TTFT over this load: P50 ≈ {p50:.0f} ms, {tail} from {n} "
        "requests: its histogram's change over the run, read as Prometheus reads it (linear inside a "
        "bucket, so only as fine as the buckets: vLLM's bucket from 1 to 2.5 s is 1.5 s wide). The "
        "client's TTFT adds the network and the API.",
        "本次负载中服务器自己统计的 TTFT：P50 ≈ {p50:.0f} 毫秒，{tail}，共 {n} 个请求："
        "取其直方图在运行前后的差值，并按 Prometheus 的方式读取（桶内线性插值，精度只到桶的宽度："
        "vLLM 从 1 到 2.5 秒的桶宽 1.5 秒）。客户端的 TTFT 还包含网络与 API 开销。",
    ),
    "rm_plan_line": (
        "Plan: {mode}, {n} request(s){detail}, time limit {limit:g} s.",
        "计划：{mode}，{n} 个请求{detail}，时间上限 {limit:g} 秒。",
    ),
    "rm_plan_concurrency": (", concurrency {n}", "，并发数 {n}"),
    "rm_plan_rate": (", {rate:g} requests/s", "，{rate:g} 请求/秒"),
    "rm_report_title": ("Remote server run", "远程服务器运行记录"),
    "rm_report_intro": (
        "Server {url}, model {model}, server metrics: {kind}. Saved {created} by the prefill/decode lab.",
        "服务器 {url}，模型 {model}，服务器指标：{kind}。由 prefill/decode 实验室于 {created} 保存。",
    ),
    "rm_report_run": ("The run", "本次运行"),
    "rm_report_reply": ("The reply", "回复"),
    "rm_report_footer": (
        "Times are the client's: time.perf_counter() when the request was sent and when each chunk arrived "
        "(TTFT = first chunk − send; TPOT = (E2E − TTFT) / (tokens − 1); ITL = gaps between chunks). The server's "
        "gauges and histograms are its own Prometheus /metrics. The API key is not in this file.",
        "时间来自客户端：发送请求时与每个分块到达时的 time.perf_counter()（TTFT = 首个分块 − 发送；TPOT = "
        "(E2E − TTFT) / (token 数 − 1)；ITL = 分块之间的间隔）。服务器的仪表与直方图来自它自己的 Prometheus "
        "/metrics。本文件不含 API 密钥。",
    ),
    "rm_download_trace": ("Download trace (JSON)", "下载轨迹（JSON）"),
    "rm_download_trace_help": (
        "Every request's send and chunk times, texts and usage, the plan and the server's "
        "metrics; open it again above, without a server. No API key.",
        "每个请求的发送与分块时间、文本与 usage、负载计划以及服务器指标；之后可在上方重新打开，"
        "无需服务器。不含 API 密钥。",
    ),
    "rm_download_report": ("Download report (HTML)", "下载报告（HTML）"),
    "rm_download_report_help": (
        "One page that opens offline: the numbers, the tables and the charts as shown here.",
        "一个可离线打开的页面：与这里一样的数字、表格与图表。",
    ),
    "rm_open_header": ("Open a saved remote run", "打开已保存的远程运行"),
    "rm_open_label": (
        "A trace file saved by this page, a GuideLLM JSON report or a `vllm bench serve --save-result` file",
        "本页保存的轨迹文件、GuideLLM 的 JSON 报告，或 `vllm bench serve --save-result` 的结果文件",
    ),
    "rm_open_help": (
        "Drawn here as it was run, with no server and no connection. A GuideLLM or vLLM report is read request "
        "by request and judged by this lab's definitions, with the tool's own figures beside them.",
        "按运行时的样子在这里绘制，无需服务器，也无需连接。GuideLLM 或 vLLM 的报告会逐个请求读入，按本实验室的定义"
        "计算，并在旁边列出该工具自己的数字。",
    ),
    "rm_imported": (
        "Showing {file}: a report of {tool}, {runs} load(s), server {target}.",
        "正在显示 {file}：{tool} 的报告，{runs} 次负载，服务器 {target}。",
    ),
    "rm_imported_pick": ("Load", "负载"),
    "rm_imported_ours": (
        "**Ours**: recomputed from each request's own times by this lab's definitions (percentiles interpolated, "
        "P99 of fewer than 100 values shown as their maximum).",
        "**本实验室**：按本实验室的定义，从每个请求自己的时间重新计算（百分位数线性插值；少于 100 个值时 P99 显示为"
        "最大值）。",
    ),
    "rm_imported_theirs": (
        "**{tool}'s own figures**, as its report gives them:",
        "**{tool} 自己的数字**，与其报告一致：",
    ),
    "rm_imported_no_itl": (
        "No ITL of ours: the report keeps no time per chunk, only each request's first-token and end times.",
        "没有本实验室的 ITL：该报告没有保存每个分块的时间，只有每个请求的首 token 时间与结束时间。",
    ),
    "rm_imported_no_sends": (
        "No timeline: the report does not say when each request was sent.",
        "没有时间线：该报告没有记录每个请求的发送时间。",
    ),
    "rm_imported_server": (
        "A report holds no server metrics: the cause of a missed SLO cannot be read from the server.",
        "报告里没有服务器指标：无法从服务器读出未达 SLO 的原因。",
    ),
    "rm_imported_col_figure": ("figure", "指标"),
    "rm_imported_col_ours": ("ours", "本实验室对应"),
    "rm_imported_none": ("none (TTFT included)", "无（包含 TTFT）"),
    "rm_imported_diff_header": ("How their definitions differ from ours", "它们的定义与本实验室的区别"),
    "rm_imported_diff": (
        "- GuideLLM's **ITL** is one value per request, (last token − first token) / (output tokens − 1): our "
        "**TPOT**. Its **TPOT** is the request's latency / output tokens, so it includes TTFT. Both of its "
        "distributions count a request once per token (its n is the tokens), ours once per request.\n"
        "- GuideLLM's percentile is the first value at or above p; ours interpolate linearly (numpy's rule), so "
        "a median of an even n can differ while the means agree.\n"
        "- Our **ITL** pools every gap between streamed chunks; GuideLLM keeps no per-chunk times, so a GuideLLM "
        "run has none of ours. vLLM keeps them (`itls`): its ITL is ours.\n"
        "- Their end-to-end latency ends when the stream closes, ours at the last chunk.",
        "- GuideLLM 的 **ITL** 每个请求一个值，即（最后一个 token − 第一个 token）/（输出 token 数 − 1）：就是本实验室"
        "的 **TPOT**。它的 **TPOT** 是请求延迟 / 输出 token 数，因此包含 TTFT。它的这两个分布按 token 计数（n 是 token"
        " 数），本实验室按请求计数。\n"
        "- GuideLLM 的百分位数取第一个不小于 p 的值；本实验室线性插值（numpy 的规则），所以偶数个值的中位数可能不同，"
        "而平均值一致。\n"
        "- 本实验室的 **ITL** 汇集流式分块之间的每个间隔；GuideLLM 不保存每个分块的时间，所以导入的 GuideLLM 运行没有"
        "本实验室的 ITL。vLLM 保存了它们（`itls`）：它的 ITL 就是本实验室的 ITL。\n"
        "- 它们的端到端延迟在流关闭时结束，本实验室的在最后一个分块时结束。",
    ),
    "rm_open_failed": ("Could not open {file}: {msg}", "无法打开 {file}：{msg}"),
    "rm_opened": (
        "Showing {file}: {url}, model {model}, saved {created}.",
        "正在显示 {file}：{url}，模型 {model}，保存于 {created}。",
    ),
}

t = page_translator(STRINGS)
