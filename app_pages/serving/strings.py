"""Strings of the serving lab, and its `t`: this table first, then the shared ones (ui/i18n.py).
{key: (en, zh)}; templates use str.format fields."""

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "sv_title": ("Serving lab: many requests, one engine", "服务实验室：多个请求，一个引擎"),
    "sv_intro": (
        "A real server runs many requests at once, each with its own KV cache of a different, growing length "
        "([C17](/claims?claim=C17)). Build a workload, run it under two scheduling policies on the loaded model, and compare: a long "
        "prompt's prefill blocks the decode steps of everyone else (head-of-line blocking, [C21](/claims?claim=C21)) unless it is cut "
        "into chunks that share each step with the others' decodes (chunked prefill, [C22](/claims?claim=C22)); continuous batching "
        "lets requests join and leave at every step; the KV cache lives in fixed-size blocks (PagedAttention) and "
        "a shared prompt prefix is stored once (prefix caching). Every number below comes from the recorded run "
        "([C23](/claims?claim=C23)).",
        "真实的服务端同时处理许多请求，每个请求都有自己的 KV 缓存，长度各不相同且不断增长（[C17](/claims?claim=C17)）。构造一个负载，"
        "在已加载的模型上用两种调度策略分别运行并比较：长提示词的预填充会阻塞其他所有请求的解码步（队头阻塞，"
        "[C21](/claims?claim=C21)），除非把它切成小块，与其他请求的解码共享每一步（分块预填充，[C22](/claims?claim=C22)）；连续批处理让请求在每一步加入和"
        "离开；KV 缓存存放在固定大小的块中（PagedAttention），共享的提示词前缀只存一份（前缀缓存）。下面的每个"
        "数字都来自记录下来的真实运行（[C23](/claims?claim=C23)）。",
    ),
    "sv_workload_header": ("1. Workload", "1. 负载"),
    "sv_policies_header": ("2. Two policies to compare", "2. 要比较的两种策略"),
    "sv_preset": ("Workload", "负载"),
    "sv_preset_head-of-line": ("Long prompt among chats", "聊天中的长提示词"),
    "sv_preset_shared-prefix": ("Shared system prompt", "共享系统提示词"),
    "sv_preset_random-mix": ("Random mix", "随机混合"),
    "sv_preset_custom": ("Custom table", "自定义表格"),
    "sv_preset_head-of-line_help": (
        "Short chats are decoding when one long prompt arrives ([C21](/claims?claim=C21)). Its whole prefill runs in one step, and "
        "every chat waits for it; chunked prefill splits it ([C22](/claims?claim=C22)).",
        "几个短对话正在解码时，一个长提示词到达（[C21](/claims?claim=C21)）。它的整段预填充在一步内完成，所有对话都得等它；分块预填充"
        "会把它拆开（[C22](/claims?claim=C22)）。",
    ),
    "sv_preset_shared-prefix_help": (
        "Requests that start with the same long system prompt, arriving one after another: with prefix caching "
        "its full blocks are computed once and shared.",
        "以同一段长系统提示词开头、先后到达的请求：开启前缀缓存后，它的完整块只计算一次并被共享。",
    ),
    "sv_preset_random-mix_help": (
        "Prompt and output lengths drawn uniformly (seeded); arrival rate 0 queues everything at t = 0, a rate "
        "gives Poisson arrivals. Fewer batch slots than requests show static against continuous batching.",
        "提示词与输出长度均匀随机（固定种子）；到达率为 0 时所有请求在 t = 0 排队，否则按泊松过程到达。批次上限"
        "小于请求数时，静态批处理与连续批处理的差别就显现出来。",
    ),
    "sv_preset_custom_help": (
        "One row per request: arrival (s after the start), prompt and output length in tokens. Prompts are real "
        "English text cut to length. Add or delete rows at the table's edge.",
        "每行一个请求：到达时间（开始后的秒数）、提示词与输出长度（token 数）。提示词是截取到指定长度的真实英文"
        "文本。在表格边缘可以添加或删除行。",
    ),
    "sv_param_num_streams": ("chat streams", "对话数"),
    "sv_param_num_streams_help": ("Short chats decoding from t = 0.", "从 t = 0 开始解码的短对话数量。"),
    "sv_param_long_prompt": ("long prompt (tokens)", "长提示词（token）"),
    "sv_param_long_prompt_help": ("Length of the prompt that arrives late.", "晚到的那个提示词的长度。"),
    "sv_param_stream_output": ("chat output (tokens)", "对话输出（token）"),
    "sv_param_stream_output_help": ("Tokens each chat generates.", "每个对话生成的 token 数。"),
    "sv_param_long_arrival_s": ("long prompt arrives (s)", "长提示词到达（秒）"),
    "sv_param_long_arrival_s_help": (
        "When the long prompt arrives, in seconds after the chats.",
        "长提示词在对话开始后多少秒到达。",
    ),
    "sv_param_num_requests": ("requests", "请求数"),
    "sv_param_num_requests_help": ("How many requests the workload has.", "负载中的请求数量。"),
    "sv_param_system_tokens": ("system prompt (tokens)", "系统提示词（token）"),
    "sv_param_system_tokens_help": ("Length of the prefix every request shares.", "所有请求共享的前缀长度。"),
    "sv_param_output": ("output (tokens)", "输出（token）"),
    "sv_param_output_help": ("Tokens each request generates.", "每个请求生成的 token 数。"),
    "sv_param_gap_s": ("gap between arrivals (s)", "到达间隔（秒）"),
    "sv_param_gap_s_help": ("Seconds between one request and the next.", "相邻两个请求之间的秒数。"),
    "sv_param_prompt_min": ("shortest prompt", "最短提示词"),
    "sv_param_prompt_min_help": (
        "Tokens, drawn uniformly between shortest and longest.",
        "token 数，在最短与最长之间均匀抽取。",
    ),
    "sv_param_prompt_max": ("longest prompt", "最长提示词"),
    "sv_param_prompt_max_help": ("Tokens.", "token 数。"),
    "sv_param_output_min": ("shortest output", "最短输出"),
    "sv_param_output_min_help": (
        "Tokens, drawn uniformly between shortest and longest.",
        "token 数，在最短与最长之间均匀抽取。",
    ),
    "sv_param_output_max": ("longest output", "最长输出"),
    "sv_param_output_max_help": ("Tokens.", "token 数。"),
    "sv_param_rate_per_s": ("arrivals per second", "每秒到达数"),
    "sv_param_rate_per_s_help": (
        "0: everything arrives at t = 0 (a throughput test); otherwise Poisson arrivals.",
        "0：所有请求在 t = 0 到达（吞吐测试）；否则按泊松过程到达。",
    ),
    "sv_param_seed": ("seed", "随机种子"),
    "sv_param_seed_help": (
        "The same seed gives the same lengths and arrivals.",
        "相同的种子给出相同的长度与到达时间。",
    ),
    "sv_size_small": ("Interactive size", "交互规模"),
    "sv_size_small_help": (
        "Small numbers: each run takes a few seconds on a CPU.",
        "较小的数字：在 CPU 上每次运行只需几秒。",
    ),
    "sv_size_full": ("Full size", "完整规模"),  # a short label: a long one was cut off in its column
    "sv_size_full_help": (
        "The benchmark's numbers: on a 2-core CPU a run takes 10–30 s per policy.",
        "基准测试的数字：在 2 核 CPU 上每种策略要运行 10–30 秒。",
    ),
    "sv_workload_summary": (
        "{n} requests · {prompt} prompt tokens · {output} output tokens · arrivals over {span:.2f} s",
        "{n} 个请求 · 提示词共 {prompt} token · 输出共 {output} token · 到达时间跨度 {span:.2f} 秒",
    ),
    "sv_policy_a_label": ("Policy A", "策略 A"),
    "sv_policy_b_label": ("Policy B", "策略 B"),
    "sv_policy_help": (
        "sequential: one request at a time. static: a batch runs until all of its requests finish. continuous: "
        "requests join and leave at every step. Chunked prefill caps each step at the token budget; prefix "
        "caching reuses full prompt blocks already in the pool.",
        "逐个：一次只处理一个请求。静态批处理：一个批次要等其中所有请求都结束。连续批处理：请求在每一步加入和离开。"
        "分块预填充让每一步不超过 token 预算；前缀缓存复用池中已有的完整提示词块。",
    ),
    "sv_policy_sequential": ("sequential", "逐个处理"),
    "sv_policy_static": ("static batching", "静态批处理"),
    "sv_policy_continuous": ("continuous batching", "连续批处理"),
    "sv_policy_chunked": ("continuous + chunked prefill", "连续批处理 + 分块预填充"),
    "sv_policy_prefix": ("continuous + prefix caching", "连续批处理 + 前缀缓存"),
    "sv_policy_chunked-prefix": ("continuous + chunked prefill + prefix caching", "连续批处理 + 分块预填充 + 前缀缓存"),
    "sv_batch": ("batch limit (sequences)", "批次上限（序列数）"),
    "sv_batch_help": ("max_num_seqs: how many requests may run at once.", "max_num_seqs：同时运行的请求数上限。"),
    "sv_budget": ("token budget per step (chunked)", "每步 token 预算（分块）"),
    "sv_budget_help": (
        "max_num_batched_tokens for the chunked policies: decode tokens first, then prefill chunks, at most this "
        "many tokens per step. Policies without chunking take a whole prompt in one step.",
        "分块策略的 max_num_batched_tokens：先放解码 token，再放预填充块，每步最多这么多 token。不分块的策略在一步内"
        "处理整段提示词。",
    ),
    "sv_block": ("block size (tokens)", "块大小（token）"),
    "sv_block_help": ("Tokens per KV block (PagedAttention).", "每个 KV 块容纳的 token 数（PagedAttention）。"),
    "sv_pool": ("KV pool (blocks)", "KV 池（块数）"),
    "sv_pool_auto": ("auto", "自动"),
    "sv_pool_help": (
        "Empty: enough blocks for every request at full length at once. Fewer blocks force preemption: a request "
        "loses its KV and is recomputed later.",
        "留空：足够所有请求以最大长度同时驻留。块数更少时会触发抢占：请求丢掉自己的 KV，稍后重新计算。",
    ),
    "sv_pool_caption": (
        "The longest request needs {longest} blocks of {size} tokens; every request at full length at once "
        "{all} (the automatic pool).",
        "最长的请求需要 {longest} 个 {size} token 的块；所有请求以最大长度同时驻留需要 {all} 个（自动大小）。",
    ),
    "sv_run": ("Run both policies", "运行两种策略"),
    "sv_run_help": (
        "Runs the workload under policy A, then under policy B, on the loaded model; arrivals are in real time.",
        "在已加载的模型上先按策略 A、再按策略 B 运行该负载；请求按真实时间到达。",
    ),
    "sv_no_run": ("Pick a workload and two policies, then press Run.", "选择负载与两种策略，然后点击运行。"),
    "sv_running": ("Running {n} requests under two policies…", "正在用两种策略运行 {n} 个请求…"),
    "sv_progress": (
        "{slot} · {policy}: step {steps} · {finished}/{total} requests done · {tokens}/{total_tokens} tokens",
        "{slot} · {policy}：第 {steps} 步 · 已完成 {finished}/{total} 个请求 · {tokens}/{total_tokens} 个 token",
    ),
    "sv_run_finished": ("{name}: done in {s:.1f} s, {steps} steps", "{name}：完成，用时 {s:.1f} 秒，共 {steps} 步"),
    "sv_failed": ("The run failed", "运行失败"),
    "sv_done": (
        "Done: {n} requests of “{preset}” under both policies ({secs}).",
        "完成：“{preset}”的 {n} 个请求已在两种策略下运行（{secs}）。",
    ),
    "sv_stopped": ("Stopped. Kept: {kept}.", "已停止。保留：{kept}。"),
    "sv_nothing": ("nothing (no run had finished)", "无（没有运行已完成）"),
    "sv_run_name": ("{slot}: {policy}", "{slot}：{policy}"),
    "sv_tab_timeline": ("Timeline", "时间线"),
    "sv_tab_blocks": ("KV blocks", "KV 块"),
    "sv_tab_metrics": ("Metrics A vs B", "指标 A 对比 B"),
    "sv_inspect_run": ("Run", "运行"),
    "sv_timeline_intro": (
        "Each request over wall time: **waiting** (arrived, not in the batch), then one bar per engine step it "
        "took part in, **prefill** (a whole prompt or a chunk) or **decode** (one token). A step is one forward "
        "pass over the whole batch, so a decode that shares a step with a long prefill lasts as long as that "
        "prefill ([C21](/claims?claim=C21)). Step through the run one iteration at a time.",
        "每个请求随真实时间的经历：**等待**（已到达但不在批次中），然后它参与的每个引擎步一根条：**预填充**（整段提示"
        "词或其中一块）或**解码**（一个 token）。一步是对整个批次的一次前向计算，所以与长预填充同处一步的解码要持续"
        "和那次预填充一样久（[C21](/claims?claim=C21)）。可以一次一步地逐步查看。",
    ),
    "sv_prev": ("Previous", "上一步"),
    "sv_next": ("Next", "下一步"),
    "sv_step_slider": ("Step", "步"),
    "sv_step_mark": ("step {step}", "第 {step} 步"),
    "sv_gantt_title": ("Requests over time, {name}", "各请求随时间的进度，{name}"),
    "sv_step_caption": (
        "**Step {step}** of 0–{last} · {start:.3f}–{end:.3f} s · {ms:.1f} ms · {seqs} sequences: {decode} decode + "
        "{prefill} prefill = **{total} tokens** ({budget}) · {waiting} waiting · {blocks}/{pool} blocks in use",
        "**第 {step} 步**（共 0–{last}）· {start:.3f}–{end:.3f} 秒 · {ms:.1f} 毫秒 · {seqs} 个序列：{decode} 个解码 + "
        "{prefill} 个预填充 = **{total} 个 token**（{budget}）· {waiting} 个在等待 · 已用 {blocks}/{pool} 块",
    ),
    "sv_budget_of": ("budget {n}", "预算 {n}"),
    "sv_budget_none": ("no chunking: whole prompts", "不分块：整段提示词"),
    "sv_no_steps": ("This run recorded no steps.", "这次运行没有记录到任何步。"),
    "sv_col_request": ("request", "请求"),
    "sv_col_arrival": ("arrival (s)", "到达（秒）"),
    "sv_col_prompt": ("prompt tokens", "提示词 token"),
    "sv_col_output": ("output tokens", "输出 token"),
    "sv_col_prompt_text": ("prompt starts with", "提示词开头"),
    "sv_col_phase": ("phase", "阶段"),
    "sv_col_tokens": ("tokens", "token 数"),
    "sv_col_positions": ("positions", "位置"),
    "sv_positions": ("{a}–{b} of {p}", "{a}–{b}（共 {p}）"),
    "sv_col_blocks": ("KV blocks", "KV 块"),
    "sv_kind_waiting": ("waiting", "等待"),
    "sv_kind_prefill": ("prefill (whole or chunk)", "预填充（整段或分块）"),
    "sv_kind_decode": ("decode (1 token)", "解码（1 个 token）"),
    "sv_token_marks": ("output token returned", "返回的输出 token"),
    "sv_hover_token": ("{label}: token {n} at {s} s", "{label}：第 {n} 个 token，{s} 秒"),
    "sv_hover_wait": ("{label}: waiting {ms} ms", "{label}：等待 {ms} 毫秒"),
    "sv_hover_step": (
        "{label} · step {step}: {name}, {tokens} tokens, context {context}<br>the step: {batch} tokens in all, {ms} ms",
        "{label} · 第 {step} 步：{name}，{tokens} 个 token，上下文 {context}<br>这一步：共 {batch} 个 token，{ms} 毫秒",
    ),
    "sv_axis_wall_s": ("wall time since the first arrival (s)", "自第一个请求到达起的真实时间（秒）"),
    "sv_axis_request": ("request", "请求"),
    "sv_comp_title": ("Batch composition per step", "每一步的批次组成"),
    "sv_tokens_prefill": ("prefill tokens", "预填充 token"),
    "sv_tokens_decode": ("decode tokens", "解码 token"),
    "sv_budget_line": ("token budget ({n})", "token 预算（{n}）"),
    "sv_batch_size": ("sequences in the batch (right axis)", "批次中的序列数（右轴）"),
    "sv_hover_tokens": ("step {step}: {n} tokens", "第 {step} 步：{n} 个 token"),
    "sv_axis_tokens_step": ("tokens in the step", "本步 token 数"),
    "sv_axis_seqs": ("sequences", "序列数"),
    "sv_timeline_caption": (
        "Bars are measured: each starts when its step started and ends when the step's tokens existed. Gaps "
        "between bars are the engine's own bookkeeping between steps.",
        "条形都是实测的：从所在步开始时起，到这一步的 token 生成时止。条形之间的空隙是引擎在两步之间的簿记开销。",
    ),
    "sv_blocks_intro": (
        "The physical KV blocks (rows) after every step (columns), coloured by the request that owns them: "
        "each request's cache grows block by block and is freed when it finishes ([C17](/claims?claim=C17)). A block owned by several "
        "requests is a shared prefix block (prefix caching).",
        "每一步（列）之后的物理 KV 块（行），按拥有它的请求着色：每个请求的缓存逐块增长，结束时释放（[C17](/claims?claim=C17)）。"
        "被多个请求共同持有的块是共享前缀块（前缀缓存）。",
    ),
    "sv_pool_title": ("KV block pool over time, {name}", "KV 块池随时间的变化，{name}"),
    "sv_block_free": ("free", "空闲"),
    "sv_block_shared": ("shared (prefix cache)", "共享（前缀缓存）"),
    "sv_blocks_trace": ("blocks", "块"),
    "sv_hover_block": ("block {block} after step {step}: {owner}", "第 {step} 步后的块 {block}：{owner}"),
    "sv_axis_block": ("physical block id", "物理块编号"),
    "sv_m_pool": ("peak blocks / pool", "块的峰值 / 池大小"),
    "sv_m_pool_value": ("{used} / {pool}", "{used} / {pool}"),
    "sv_m_pool_help": ("The pool holds {size} of KV cache.", "这个池可容纳 {size} 的 KV 缓存。"),
    "sv_m_waste_paged": ("waste, paged", "浪费（分页）"),
    "sv_m_waste_contig": ("waste, contiguous", "浪费（连续预分配）"),
    "sv_m_waste_help": (
        "Share of reserved KV slots, summed over all steps, that held no token. Paged: only each request's last "
        "block is partly empty. Contiguous: each running request reserves prompt + max_new_tokens slots up front.",
        "所有步累计的已预留 KV 槽位中没有存 token 的比例。分页：每个请求只有最后一个块部分为空。连续预分配：每个"
        "运行中的请求预先预留“提示词 + max_new_tokens”个槽位。",
    ),
    "sv_m_prefix": ("prefix-cache hits", "前缀缓存命中"),
    "sv_m_prefix_help": (
        "{hits} of {total} prompt tokens had their K and V reused from the prefix cache instead of computed.",
        "{total} 个提示词 token 中有 {hits} 个直接从前缀缓存复用 K、V，无需计算。",
    ),
    "sv_prefix_off": (
        "This policy has no prefix caching: every prompt token is computed by prefill.",
        "这个策略没有前缀缓存：每个提示词 token 都由预填充计算。",
    ),
    "sv_m_preempt": ("preemptions", "抢占次数"),
    "sv_m_preempt_help": (
        "Times a request lost its blocks to make room and was recomputed later (a smaller pool forces this).",
        "请求为腾出空间而失去其块、之后被重新计算的次数（池更小时会发生）。",
    ),
    "sv_waste_title": (
        "KV slots: stored tokens against what each allocator reserves",
        "KV 槽位：已存 token 与各种分配方式的预留量",
    ),
    "sv_waste_stored": ("tokens stored", "已存 token"),
    "sv_waste_paged": ("paged blocks", "分页块"),
    "sv_waste_contiguous": ("contiguous, prompt + max_new", "连续，提示词 + max_new"),
    "sv_waste_contiguous_max": ("contiguous, max_model_len {ctx}", "连续，max_model_len {ctx}"),
    "sv_axis_slots": ("KV slots (tokens)", "KV 槽位（token）"),
    "sv_prefix_title": (
        "Prompt tokens: computed against served from the prefix cache",
        "提示词 token：计算得到的与前缀缓存提供的",
    ),
    "sv_prefix_computed": ("computed by prefill (cumulative)", "预填充计算的（累计）"),
    "sv_prefix_hits": ("served from the prefix cache (cumulative)", "前缀缓存提供的（累计）"),
    "sv_axis_prompt_tokens": ("prompt tokens", "提示词 token"),
    "sv_blocks_caption": (
        "At step {step}, the fullest moment: {stored} of K and V stored, {paged} reserved in blocks; contiguous "
        "preallocation would reserve {contig} (prompt + max_new_tokens each) or {full} (max_model_len = {ctx} "
        "each; click it in the legend).",
        "在第 {step} 步（最满的时刻）：已存 K、V 共 {stored}，分页块预留 {paged}；连续预分配需要预留 {contig}"
        "（每个请求 提示词 + max_new_tokens）或 {full}（每个请求 max_model_len = {ctx}；在图例中点击显示）。",
    ),
    "sv_metrics_intro": (
        "Latency as vLLM's benchmark defines it: TTFT = first token − arrival; TPOT = (E2E − TTFT) / (output "
        "tokens − 1); ITL = every gap between consecutive tokens; E2E = last token − arrival. Pick a group to "
        "look at, e.g. only the short chats of the head-of-line workload.",
        "延迟按 vLLM 基准测试的定义：TTFT = 首 token 时间 − 到达时间；TPOT = (E2E − TTFT) / (输出 token 数 − 1)；"
        "ITL = 相邻 token 之间的每个间隔；E2E = 最后一个 token 时间 − 到达时间。可以只看某一组请求，例如队头阻塞负载"
        "中的短对话。",
    ),
    "sv_group": ("Requests summarised", "统计的请求"),
    "sv_group_all": ("all requests", "全部请求"),
    "sv_m_throughput_run": ("throughput {slot}", "吞吐量 {slot}"),
    "sv_m_throughput_help": (
        "{name}: output tokens of all requests / (last token − first arrival).",
        "{name}：所有请求的输出 token 数 / (最后一个 token 时间 − 第一个到达时间)。",
    ),
    "sv_m_same": ("identical outputs A = B", "输出完全相同 A = B"),
    "sv_m_same_help": (
        "Greedy decoding: the scheduling policy must not change any request's tokens.",
        "贪心解码：调度策略不应改变任何请求的 token。",
    ),
    "sv_col_metric": ("metric", "指标"),
    "sv_col_stat": ("percentile", "分位数"),
    "sv_col_ratio": ("B / A", "B / A"),
    "sv_m_ttft_ms": ("TTFT (ms)", "TTFT（毫秒）"),
    "sv_m_tpot_ms": ("TPOT (ms)", "TPOT（毫秒）"),
    "sv_m_itl_ms": ("ITL (ms)", "ITL（毫秒）"),
    "sv_m_e2e_ms": ("E2E (ms)", "E2E（毫秒）"),
    "sv_m_throughput": ("throughput (tok/s)", "吞吐量（token/秒）"),
    "sv_metrics_title": ("Latency percentiles, A against B", "延迟分位数，A 对比 B"),
    "sv_axis_percentile": ("percentile (of n values)", "分位数（n 个值中）"),
    "sv_gp_header": ("Goodput at an SLO", "SLO 下的有效吞吐（goodput）"),
    "sv_gp_intro": (
        "The operator's question: how many requests were served well enough? A request meets the SLO when "
        "each of its own values is within its threshold (vLLM's rule): its TTFT, its TPOT, and for ITL every "
        "one of its gaps. Goodput is the requests that met it per second of the run (DistServe); attainment "
        "is their share of the workload; the SLO holds when attainment reaches the target.",
        "运维者的问题：有多少请求被服务得足够好？一个请求的每项指标都不超过其阈值时才算满足 SLO（vLLM 的规则）："
        "它的 TTFT、TPOT，以及 ITL 的每一个间隔。goodput 是每秒满足 SLO 的请求数（DistServe）；达标率是它们占整个"
        "负载的比例；达标率达到目标时，SLO 成立。",
    ),
    "sv_gp_run": ("run", "运行"),
    "sv_gp_holds": ("holds", "成立"),
    "sv_gp_fails": ("does not hold", "不成立"),
    "sv_gp_sentence": (
        "At **{slo}** for {target:.0f} % of requests: {runs}",
        "在 **{slo}**、{target:.0f} % 的请求须达标时：{runs}",
    ),
    "sv_gp_sentence_run": (
        "{name}: {met} of {n} met it ({share:.0f} %), goodput {goodput:.2f} req/s, **{verdict}**.",
        "{name}：{n} 个中 {met} 个达标（{share:.0f} %），goodput {goodput:.2f} 请求/秒，**{verdict}**。",
    ),
    "sv_gp_busy": (
        "Measured while other processes kept the machine busy: these latencies, and so the verdicts, are not "
        "the engine's own. Run again on a quiet machine.",
        "测量时其他进程占用着机器：这些延迟以及由此得出的结论都不是引擎自身的表现。请在机器空闲时重新运行。",
    ),
    "sv_gp_policy": ("policy", "策略"),
    "sv_gp_all_intro": (
        "The same workload under each of the four policies, judged at this SLO: whether chunked prefill buys "
        "goodput under an ITL or TPOT objective here, and what sequential serving costs. Runs them one after another.",
        "同一负载在四种策略下各运行一次，并用这个 SLO 判断：看分块预填充在 ITL 或 TPOT 目标下换来多少 goodput，"
        "以及逐个服务的代价。四次运行依次进行。",
    ),
    "sv_gp_all_run": ("Judge all four policies at this SLO", "用这个 SLO 判断全部四种策略"),
    "sv_gp_all_running": ("Running {k} / {n}: {policy}", "正在运行 {k} / {n}：{policy}"),
    "sv_gp_box": ("inside: meets TTFT and TPOT", "框内：满足 TTFT 与 TPOT"),
    "sv_gp_fig_title": ("Each request's TTFT against its TPOT, with the SLO", "每个请求的 TTFT 与 TPOT，以及 SLO"),
    "sv_gp_fig_x": ("TTFT (ms)", "TTFT（毫秒）"),
    "sv_gp_fig_y": ("TPOT (ms)", "TPOT（毫秒）"),
    "sv_gp_caption": (
        "Goodput = requests that met the SLO ÷ the run's wall time; throughput counts every finished request. "
        "The box shows the TTFT and TPOT objectives; an ITL objective is judged per gap and is not drawn.",
        "goodput = 满足 SLO 的请求数 ÷ 运行的墙钟时间；吞吐计入所有完成的请求。框表示 TTFT 与 TPOT 目标；ITL "
        "目标按每个间隔判断，图中不画出。",
    ),
    "sv_metrics_caption": (
        "Wall-clock numbers from one run each on a shared CPU: expect ±10 % between runs. Each percentile "
        "names n, the values behind it; where n is too small for any value to lie above it (a P99 needs "
        '100, a P90 10), it is their maximum and is shown as "max of n".',
        "这些是在共享 CPU 上各运行一次得到的真实时间：两次运行之间可能相差 ±10 %。每个分位数都注明其 n（背后的"
        "数值个数）；当 n 太小、没有任何值能高于它时（P99 需要 100 个，P90 需要 10 个），它就是最大值，显示为"
        "“n 个中的最大值”。",
    ),
    # what to look for, per preset: the caption follows the workload that ran
    "sv_metrics_note_head-of-line": (
        "Expected: chunked prefill trades a little of the long prompt's TTFT for much shorter ITL "
        "tails of the others ([C22](/claims?claim=C22)).",
        "预期：分块预填充用长提示词的少量 TTFT 换来其他请求短得多的 ITL 尾部（[C22](/claims?claim=C22)）。",
    ),
    "sv_metrics_note_shared-prefix": (
        "Expected: with prefix caching, the shared system prompt's KV blocks are computed once: "
        "every later request skips most of its prefill, so its TTFT drops.",
        "预期：开启前缀缓存后，共享系统提示词的 KV 块只计算一次：之后的每个请求都跳过大部分预填充，TTFT 随之下降。",
    ),
    "sv_metrics_note_random-mix": (
        "Expected: continuous batching lets a new request join as soon as a slot frees, so the "
        "queue drains faster than with static batches that wait for their slowest member.",
        "预期：连续批处理让新请求在有空位时立即加入，因此队列比等待最慢成员的静态批处理消化得更快。",
    ),
    "sv_metrics_note_custom": (
        "Your own workload: compare the rows where A and B differ most.",
        "你自己的工作负载：看 A 与 B 差别最大的那几行。",
    ),
    # what this run showed of it (notes.py): B ÷ A of the metrics the note names
    "sv_here": ("Here, B ÷ A: {parts}.", "本次运行，B ÷ A：{parts}。"),
    "sv_here_part": ("{what} ({stat}) {q:.2f}×", "{what}（{stat}）{q:.2f} 倍"),
    "sv_here_join": ("; ", "；"),
    "sv_here_long_ttft": ("the long prompt's TTFT", "长提示词的 TTFT"),
    "sv_here_chat_itl": ("the chats' ITL", "聊天请求的 ITL"),
    "sv_here_ttft": ("TTFT", "TTFT"),
    "sv_here_e2e": ("E2E", "E2E"),
    "sv_here_busy": (
        "Here: not judged, the machine was busy while the runs were timed.",
        "本次运行：不作判断，计时期间机器正忙。",
    ),
    "sv_requests_header": ("Every request", "每个请求"),
    "sv_col_ttft": ("TTFT {slot} (ms)", "TTFT {slot}（毫秒）"),
    "sv_col_e2e": ("E2E {slot} (ms)", "E2E {slot}（毫秒）"),
    "sv_col_preempt": ("preempted {slot}", "被抢占 {slot}"),
    "sv_col_text": ("output text", "输出文本"),
}
t = page_translator(STRINGS)
