"""Strings of the roofline lab, and its `t`: this table first, then the shared ones (ui/i18n.py).
{key: (en, zh)}; templates use str.format fields."""

import re

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "rf_title": (
        "Roofline lab: compute-bound prefill, bandwidth-bound decode",
        "屋顶线实验室：预填充受算力限制，解码受带宽限制",
    ),
    "rf_intro": (
        "A step can go no faster than its slower ceiling: the matrix-multiply rate (FLOP/s) or the memory read "
        "bandwidth (bytes/s). Which one binds depends on the step's **arithmetic intensity**, FLOPs per byte moved. "
        "Here this machine's ceilings are measured, every prefill and decode step of the loaded model is placed "
        "against them, the same formulas project famous models onto datasheet GPUs, and a calibration shows how "
        "well those formulas predict this machine. Claims [C3](/claims?claim=C3), [C7](/claims?claim=C7), [C10](/claims?claim=C10), [C11](/claims?claim=C11), [C19](/claims?claim=C19).",
        "一个步骤的速度不会超过较慢的那个上限：矩阵乘法速率（FLOP/s）或内存读取带宽（字节/秒）。哪个起作用取决于该"
        "步骤的**算术强度**，即每搬运一个字节对应的浮点运算数。这里测量本机的上限，把已加载模型的每个预填充和解码"
        "步骤放到它们面前，用同样的公式把知名模型投射到数据手册上的 GPU，并用校准说明这些公式对本机的预测有多准。"
        "对应论断 [C3](/claims?claim=C3)、[C7](/claims?claim=C7)、[C10](/claims?claim=C10)、[C11](/claims?claim=C11)、[C19](/claims?claim=C19)。",
    ),
    "rf_tab_ceilings": ("This machine's ceilings", "本机上限"),
    "rf_tab_roofline": ("Roofline of the loaded model", "已加载模型的屋顶线"),
    "rf_tab_projection": ("Projection to GPUs", "投射到 GPU"),
    "rf_tab_calibration": ("Calibration here", "本机校准"),
    "rf_need_ceilings": ("Measure this machine's ceilings first (first tab).", "请先测量本机上限（第一个标签页）。"),
    # --- ceilings ---------------------------------------------------------------------------
    "rf_ceil_intro": (
        "Measured once per machine and cached: a square matrix multiply per dtype (the fastest kernel the engine "
        "can use) and a streaming read over a buffer far larger than any cache (`torch.sum`; on the CPU also the "
        "engine's own C matrix kernel reading it as a decode reads its weights, the faster of the two). On CUDA "
        "the timings use CUDA events. A different CPU, thread count, torch version or device is measured again.",
        "每台机器只测一次并缓存：每种数据类型一次方阵乘法（取引擎可用的最快内核），以及一次对远大于任何缓存的缓冲区的"
        "流式读取（`torch.sum`；在 CPU 上还用引擎自己的 C 矩阵内核像解码读权重那样读一遍，取较快者）。CUDA 上用 CUDA "
        "事件计时。换了 CPU、线程数、torch 版本或设备都会重新测量。",
    ),
    "rf_remeasure": ("Re-measure", "重新测量"),
    "rf_measuring": ("Measuring this machine's ceilings (a few seconds)…", "正在测量本机上限（几秒钟）…"),
    "rf_measuring_stage": ("Measuring: {stage}", "正在测量：{stage}"),
    "rf_measured": ("Ceilings measured and cached", "上限已测量并缓存"),
    "rf_measure_failed": ("The measurement failed", "测量失败"),
    "rf_m_bandwidth": ("read bandwidth", "读取带宽"),
    "rf_m_fp32": ("fp32 matrix multiply", "fp32 矩阵乘法"),
    "rf_m_ridge": ("fp32 ridge point", "fp32 脊点"),
    "rf_col_dtype": ("dtype", "数据类型"),
    "rf_col_gemm": ("GEMM GFLOP/s", "GEMM GFLOP/s"),
    "rf_col_ridge": ("ridge point (FLOP/byte)", "脊点（FLOP/字节）"),
    "rf_ceil_caption": (
        "{device} ({dev}), {threads} threads, torch {torch}, measured {when}. Read: {read}. Kernels: {kernel}. "
        "Cache: {path}. A dtype without a fast kernel here (fp16 on most CPUs) shows its slow rate.",
        "{device}（{dev}），{threads} 个线程，torch {torch}，测量于 {when}。读取：{read}。内核：{kernel}。缓存：{path}。"
        "本机没有快速内核的数据类型（多数 CPU 上的 fp16）显示其较慢的速率。",
    ),
    "rf_ceil_load": (
        "Load average when measured: {load:.1f} on {cores} cores. Jobs running beside the measurement "
        "lower every roof; if it was busy, press Re-measure on an idle machine.",
        "测量时的负载均值：{load:.1f}（共 {cores} 个核）。与测量同时运行的任务会压低所有屋顶；"
        "若当时机器繁忙，请在空闲时点击“重新测量”。",
    ),
    # --- kernels -----------------------------------------------------------------------------------
    "rf_k_header": ("Which kernel each layer runs", "每一层用哪个内核"),
    "rf_k_intro": (
        "Three matrix-multiply kernels can run a float linear layer on a CPU: `linear` (PyTorch's `F.linear`, MKL "
        "behind it), `packed` (oneDNN's inner product on a weight reordered once at load) and `gemv` (our own C "
        "kernel, compiled on this machine at first load where a C compiler exists: the weight packed in blocks of "
        "16 rows, each block read once as one sequential stream). int8 weights have theirs: `int8pack`, `dequant` "
        "and `int8gemv`. None wins everywhere, so the engine times them on the model's own shapes when it first "
        "loads on a machine: one row, as in decode (the weight streamed from memory), and {rows} rows, as in "
        "prefill (a GEMM). Each layer uses the faster per regime; a near tie keeps one copy of the weight.",
        "CPU 上有三种矩阵乘法内核可以跑浮点线性层：`linear`（PyTorch 的 `F.linear`，背后是 MKL）、`packed`（oneDNN "
        "的内积，权重在加载时重排一次）和 `gemv`（我们自己的 C 内核，有 C 编译器时在首次加载时于本机编译：权重按 16 "
        "行一块打包，每块作为一段连续数据只读一遍）。int8 权重有自己的：`int8pack`、`dequant` 和 `int8gemv`。没有谁处处"
        "更快，所以引擎第一次在某台机器上加载模型时，会用模型自己的形状给它们计时：1 行（如解码，权重从内存流过）和 "
        "{rows} 行（如预填充，即 GEMM）。每层在每种情形下用更快的那个；差距很小时只保留一份权重。",
    ),
    "rf_k_native_missing": (
        "Our C kernel is not a candidate here: {why}.",
        "这里没有我们的 C 内核可选：{why}。",
    ),
    "rf_k_layer": ("layer (out × in)", "层（out × in）"),
    "rf_k_decode": ("decode kernel", "解码内核"),
    "rf_k_decode_us": ("1 row, µs ({kernels})", "1 行，微秒（{kernels}）"),
    "rf_k_decode_gbs": ("decode GB/s", "解码 GB/s"),
    "rf_k_prefill": ("prefill kernel", "预填充内核"),
    "rf_k_prefill_ms": ("{rows} rows, ms ({kernels})", "{rows} 行，毫秒（{kernels}）"),
    "rf_k_prefill_gflops": ("prefill GFLOP/s", "预填充 GFLOP/s"),
    "rf_k_source_measured": (
        "Measured just now on {cpu}, and cached for this machine.",
        "刚刚在 {cpu} 上测得，并为本机缓存。",
    ),
    "rf_k_source_cached": (
        "Measured earlier on this machine ({cpu}) and read from the cache.",
        "之前在本机（{cpu}）上测得，从缓存读取。",
    ),
    "rf_k_source_forced": (
        "Forced to `{forced}` by PDLAB_KERNELS: nothing was timed.",
        "由 PDLAB_KERNELS 强制为 `{forced}`：没有计时。",
    ),
    "rf_k_source_default": (
        "Nothing to choose on this device or dtype: every layer runs `F.linear`.",
        "在这个设备或数据类型上没有可选的：每层都用 `F.linear`。",
    ),
    # --- roofline run ---------------------------------------------------------------------------
    "rf_run_intro": (
        "Runs the loaded model through the engine: **B** copies of an L-token prompt are prefilled, then decode "
        "together for the chosen number of steps (continuous batching), once per batch size. Each step is a dot: "
        "x = its FLOPs / bytes moved (cost model), y = its FLOPs / measured time. A decode step reads all weights "
        "once whatever B is, so its intensity grows with B and it climbs the bandwidth slope toward the compute "
        "roof. Timings exclude the memory probe; the run holds the engine (other sessions wait).",
        "让已加载模型经过引擎运行：先对 **B** 份 L 个 token 的提示做预填充，然后它们一起解码所选的步数（连续批处理），"
        "每个批大小各运行一次。每个步骤是一个点：x = 其浮点运算数 / 搬运字节数（代价模型），y = 其浮点运算数 / 实测"
        "时间。无论 B 多大，一个解码步都只把全部权重读一遍，所以其强度随 B 增长，沿带宽斜线向算力屋顶爬升。计时不含"
        "内存探针；运行期间独占引擎（其他会话需等待）。",
    ),
    "rf_L": ("prompt length L (tokens)", "提示长度 L（token）"),
    "rf_L_help": (
        "The prompt is ordinary English text cut to exactly L tokens.",
        "提示为普通英文文本，截取为恰好 L 个 token。",
    ),
    "rf_steps": ("decode steps", "解码步数"),
    "rf_steps_help": (
        "Decode steps after the prefill, all B sequences together.",
        "预填充之后的解码步数，B 个序列一起。",
    ),
    "rf_batches": ("batch sizes B (concurrent sequences)", "批大小 B（并发序列数）"),
    "rf_batches_help": ("One run per batch size, smallest first.", "每个批大小运行一次，从小到大。"),
    "rf_run": ("Run the roofline", "运行屋顶线"),
    "rf_running": ("Running {n} batch sizes through the engine…", "正在用引擎运行 {n} 个批大小…"),
    "rf_progress": ("{done} of {total} batch sizes done", "已完成 {done}/{total} 个批大小"),
    "rf_progress_runs": ("{done} of {total} runs done", "已完成 {done}/{total} 次运行"),
    "rf_done": ("Done: {n} steps measured (L = {L})", "完成：测量了 {n} 个步骤（L = {L}）"),
    "rf_failed": ("The run failed", "运行失败"),
    "rf_not_run": ("Choose the settings and press **Run the roofline**.", "选择设置后点击**运行屋顶线**。"),
    "rf_phase_prefill": ("prefill", "预填充"),
    "rf_phase_decode": ("decode", "解码"),
    "rf_phase_mixed": ("mixed", "混合"),
    "rf_m_prefill_compute": ("prefill B={B}: % of compute", "预填充 B={B}：算力占比"),
    "rf_m_decode_bw": ("decode B={B}: % of bandwidth", "解码 B={B}：带宽占比"),
    "rf_m_decode_compute": ("decode B={B}: % of compute", "解码 B={B}：算力占比"),
    "rf_result_caption": (
        "{model}, {dtype}, L = {L}, {N} decode steps per batch size, {n} steps in all. Small dots: every step; "
        "large: the median step per phase and batch size.",
        "{model}，{dtype}，L = {L}，每个批大小 {N} 个解码步，共 {n} 个步骤。小点：每个步骤；大点：每个阶段和批大小的"
        "中位步骤。",
    ),
    "rf_util_header": (
        "**Utilisation per phase** (median step; FLOPs and bytes from the cost model, t measured):",
        "**各阶段利用率**（中位步骤；浮点运算数与字节数来自代价模型，t 为实测）：",
    ),
    "rf_col_phase": ("phase", "阶段"),
    "rf_col_batch": ("B", "B"),
    "rf_col_steps": ("steps", "步数"),
    "rf_col_ms": ("ms (median)", "ms（中位）"),
    "rf_col_gflop": ("GFLOP", "GFLOP"),
    "rf_col_mb": ("MB moved", "搬运 MB"),
    "rf_col_intensity": ("FLOP/byte", "FLOP/字节"),
    "rf_col_achieved": ("GFLOP/s", "GFLOP/s"),
    "rf_col_gbs": ("GB/s", "GB/s"),
    "rf_col_compute_share": ("% of compute roof", "占算力屋顶 %"),
    "rf_col_bw_share": ("% of bandwidth", "占带宽 %"),
    "rf_col_bound": ("side of the ridge", "位于脊点哪侧"),
    "rf_bound_compute": ("compute-bound", "受算力限制"),
    "rf_bound_memory": ("bandwidth-bound", "受带宽限制"),
    "rf_reading": (
        "Left of the ridge point ({ridge:.1f} FLOP/byte) a step is bound by bandwidth: its best case is "
        "intensity × bandwidth, and decode at B = 1 sits there at ~1 FLOP/byte (fp32: ~0.5). Right of it, by compute. "
        "Prefill of L tokens reuses each weight L times and lands far right. {measured}",
        "脊点（{ridge:.1f} FLOP/字节）左侧的步骤受带宽限制：最好情况为 强度 × 带宽，B = 1 的解码就在那里，约 1 FLOP/字节"
        "（fp32 约 0.5）。右侧则受算力限制。L 个 token 的预填充把每个权重复用 L 次，落在远处右侧。{measured}",
    ),
    "rf_reading_measured": (
        "**Measured here**, each median step against the roof at its own intensity, min(P, I × B): {shares}. "
        "What a step misses of its roof is what the roofline leaves out (per-step Python, kernel launches, "
        "small kernels).",
        "**本次实测**，每个中位步相对其自身强度下的屋顶 min(P, I × B)：{shares}。步骤与屋顶之间的差距就是屋顶线"
        "没有计入的部分（每步的 Python、内核启动、小内核）。",
    ),
    "rf_reading_busy": (
        "How close the steps came to their roofs is not judged: the machine was busy while they were timed.",
        "步骤离屋顶有多近不作判断：计时期间机器繁忙。",
    ),
    "rf_roof_share": ("{phase} B = {B} {share:.0%}", "{phase} B = {B} {share:.0%}"),
    "rf_nvml_header": ("**GPU utilisation and power (NVML)**", "**GPU 利用率与功耗（NVML）**"),
    "rf_nvml_cpu": (
        "Not available on CPU: NVML samples need a CUDA device (and the optional pynvml package).",
        "CPU 上不可用：NVML 采样需要 CUDA 设备（以及可选的 pynvml 包）。",
    ),
    "rf_nvml_missing": (
        "No NVML samples: {why}. Install the optional pynvml package to see them.",
        "没有 NVML 采样：{why}。安装可选的 pynvml 包即可查看。",
    ),
    # --- figures ---------------------------------------------------------------------------
    "rf_fig_roofline_title": (
        "Roofline: measured steps against this machine's ceilings (log-log)",
        "屋顶线：实测步骤与本机上限（双对数）",
    ),
    "rf_fig_x_intensity": ("arithmetic intensity (FLOP/byte, log)", "算术强度（FLOP/字节，对数）"),
    "rf_fig_y_gflops": ("achieved GFLOP/s (log)", "实际 GFLOP/s（对数）"),
    "rf_fig_roof": (
        "roof {dtype}: {peak:.0f} GFLOP/s, {bw:.1f} GB/s",
        "{dtype} 屋顶：{peak:.0f} GFLOP/s，{bw:.1f} GB/s",
    ),
    "rf_fig_ridge": ("ridge point {x:.1f} FLOP/byte", "脊点 {x:.1f} FLOP/字节"),
    "rf_fig_ridge_text": ("ridge {x:.1f}", "脊点 {x:.1f}"),
    "rf_fig_steps": ("{phase} steps", "{phase}步骤"),
    "rf_fig_medians": ("{phase}: median per batch size", "{phase}：各批大小中位数"),
    "rf_fig_ttft_title": ("Projected TTFT vs prompt length, {gpu}", "预测 TTFT 与提示长度，{gpu}"),
    "rf_fig_x_prompt": ("prompt length L (tokens, log)", "提示长度 L（token，对数）"),
    "rf_fig_y_ttft": ("TTFT (ms, log)", "TTFT（ms，对数）"),
    "rf_fig_tpot_batch_title": ("Projected TPOT vs batch, {gpu}, context {C}", "预测 TPOT 与批大小，{gpu}，上下文 {C}"),
    "rf_fig_tpot_ctx_title": ("Projected TPOT vs context, {gpu}, batch {B}", "预测 TPOT 与上下文，{gpu}，批大小 {B}"),
    "rf_fig_x_batch": ("batch B (concurrent sequences, log)", "批大小 B（并发序列，对数）"),
    "rf_fig_x_context": ("context C (tokens, log)", "上下文 C（token，对数）"),
    "rf_fig_y_tpot": ("TPOT (ms per token, log)", "TPOT（每 token ms，对数）"),
    "rf_fig_kv_title": ("Concurrent sequences of {C} tokens that fit, {gpu}", "可容纳的 {C} token 并发序列数，{gpu}"),
    "rf_fig_x_model": ("model", "模型"),
    "rf_fig_y_seqs": ("sequences", "序列数"),
    "rf_fig_kv_dtype": ("KV {dtype}", "KV {dtype}"),
    "rf_fig_cal_title": ("Predicted vs measured on this machine", "本机预测值与实测值"),
    "rf_fig_x_cal": ("metric and prompt length", "指标与提示长度"),
    "rf_fig_y_ms": ("ms (log)", "ms（对数）"),
    "rf_fig_predicted": ("predicted from the ceilings", "由上限预测"),
    "rf_fig_measured": ("measured on the engine", "引擎实测"),
    "rf_fig_nvml_title": ("GPU utilisation and power during the run", "运行期间的 GPU 利用率与功耗"),
    "rf_fig_nvml_util": ("GPU utilisation (%)", "GPU 利用率（%）"),
    "rf_fig_nvml_power": ("power (W)", "功耗（W）"),
    "rf_fig_x_seconds": ("time since start (s)", "自开始起的时间（s）"),
    # --- projection ---------------------------------------------------------------------------
    "rf_pj_intro": (
        "The cost model's FLOPs and bytes for famous models (fp16/bf16 weights), divided by datasheet ceilings times "
        "an efficiency factor (achievable / peak; 0.7 by default, editable). Prefill is compute-bound, so TTFT grows "
        "with L; decode is bandwidth-bound until B × intensity reaches the ridge, so TPOT stays flat in B for a long "
        "way and grows with the KV it reads.",
        "用代价模型计算知名模型（fp16/bf16 权重）的浮点运算数和字节数，除以数据手册上限乘以效率系数（可达值 / 峰值；"
        "默认 0.7，可修改）。预填充受算力限制，所以 TTFT 随 L 增长；解码在 B × 强度达到脊点之前都受带宽限制，所以 "
        "TPOT 在很大范围内不随 B 变化，并随其读取的 KV 增长。",
    ),
    "rf_pj_models": ("models", "模型"),
    "rf_pj_gpu": ("GPU", "GPU"),
    "rf_pj_eff_c": ("compute efficiency e_c", "算力效率 e_c"),
    "rf_pj_eff_b": ("bandwidth efficiency e_b", "带宽效率 e_b"),
    "rf_pj_eff_help": (
        "Achievable fraction of the datasheet peak. 0.7 puts the projection within a few per cent "
        "of the published figures in the table below.",
        "可达到的数据手册峰值比例。0.7 时投射值与下表中已发表的数字相差仅几个百分点。",
    ),
    "rf_pj_context": ("context C (tokens)", "上下文 C（token）"),
    "rf_pj_batch": ("batch B", "批大小 B"),
    "rf_pj_kv": ("KV dtype (TPOT)", "KV 数据类型（TPOT）"),
    "rf_pj_gpus": ("GPU presets and their datasheet sources", "GPU 预设及其数据手册来源"),
    "rf_col_gpu": ("GPU", "GPU"),
    "rf_col_tflops": ("dense FP16/BF16 TFLOP/s", "稠密 FP16/BF16 TFLOP/s"),
    "rf_col_tbs": ("bandwidth TB/s", "带宽 TB/s"),
    "rf_col_mem": ("memory GB", "显存 GB"),
    "rf_col_source": ("source", "来源"),
    "rf_pj_published": (
        "**The projection against published measurements** (batch 1, fp16/bf16; each figure's source in the table):",
        "**投射值与已发表的实测值对比**（批大小 1，fp16/bf16；每个数字的来源见表中）：",
    ),
    "rf_col_model": ("model", "模型"),
    "rf_col_metric": ("metric", "指标"),
    "rf_col_published": ("published ms", "已发表 ms"),
    "rf_col_projected": ("projected ms", "投射 ms"),
    "rf_col_error": ("projection error", "投射误差"),
    "rf_pj_pick": ("Pick at least one model.", "请至少选择一个模型。"),
    "rf_pj_too_big": (
        "{models}: the fp16 weights alone exceed the {gpu}'s {mem:.0f} GB (dotted lines: as if they "
        "fit, e.g. split over several GPUs; no sequence fits in the KV table).",
        "{models}：仅 fp16 权重就超过了 {gpu} 的 {mem:.0f} GB（点线：假设能放下，例如分到多块 GPU 上；"
        "KV 表中一个序列也放不下）。",
    ),
    "rf_pj_ttft_formula": (
        "**TTFT**: the prefill's FLOPs at the achievable compute rate, plus one read of the "
        "weights W at the achievable bandwidth.",
        "**TTFT**：预填充的浮点运算数按可达算力计算，再加上按可达带宽读一遍权重 W。",
    ),
    "rf_pj_symbols": (
        "P = {P:.0f} TFLOP/s, B_w = {Bw:.2f} TB/s, e_c = {ec:.2f}, e_b = {eb:.2f}; FLOPs and W from "
        "the engine's cost model.",
        "P = {P:.0f} TFLOP/s，B_w = {Bw:.2f} TB/s，e_c = {ec:.2f}，e_b = {eb:.2f}；浮点运算数与 W 来自 "
        "引擎的计算量模型。",
    ),
    "rf_pj_tpot_reading": (
        "**TPOT**: the slower of reading (weights + every sequence's KV, k_v bytes per token in {kv}) and computing. "
        "Growing B shares one weight read among more tokens, so TPOT stays nearly flat until the KV or the FLOPs "
        "take over; a longer context adds KV to read every step.",
        "**TPOT**：读取（权重 + 每个序列的 KV，{kv} 下每个 token k_v 字节）与计算两者中较慢者。增大 B 让更多 token 分摊"
        "一次权重读取，所以 TPOT 几乎不变，直到 KV 或浮点运算占主导；更长的上下文让每一步都要多读 KV。",
    ),
    "rf_pj_context_note": (
        "Lines stop at each model's context window: {models} tokens.",
        "每条线止于该模型的上下文窗口：{models} 个 token。",
    ),
    "rf_pj_kv_header": (
        "**KV capacity**: concurrent sequences of C = {C} tokens that fit in the {gpu}'s memory after "
        "the fp16 weights (90 % of memory usable, as vLLM's default):",
        "**KV 容量**：在 {gpu} 显存中放下 fp16 权重之后，还能容纳多少个 C = {C} token 的并发序列"
        "（可用 90 % 显存，同 vLLM 默认值）：",
    ),
    "rf_col_attn": ("attention", "注意力"),
    "rf_col_weights_gb": ("weights GB", "权重 GB"),
    "rf_col_kv_token": ("KiB/token {dtype}", "KiB/token {dtype}"),
    "rf_col_seqs": ("seqs {dtype}", "序列数 {dtype}"),
    "rf_pj_kv_reading": (
        "GQA shares each K/V head among several query heads: Llama-3-8B keeps 8 KV heads for 32 query heads, so a "
        "token's K and V take a quarter of the bytes of an MHA model of the same shape (LLaMA-7B: 32 KV heads). How "
        "many more sequences that holds depends on what the weights leave free: the table says, for this GPU and "
        "context. fp8 or int8 KV halves the KV bytes again.",
        "GQA 让多个查询头共享一个 K/V 头：Llama-3-8B 的 32 个查询头只保留 8 个 KV 头，所以每个 token 的 K 和 V 只占同样"
        "结构的 MHA 模型（LLaMA-7B：32 个 KV 头）的四分之一字节。能多容纳多少序列取决于权重之外剩下的显存：表格给出了"
        "这块 GPU 和这个上下文下的数字。fp8 或 int8 KV 再把 KV 字节数减半。",
    ),
    # --- calibration ---------------------------------------------------------------------------
    "rf_cal_intro": (
        "The projection's formulas with this machine's measured ceilings (P_here, B_here; efficiency 1, they are "
        "already achievable rates) against the engine's TTFT and TPOT on the loaded model, batch 1, greedy, memory "
        "probe off. A ratio near 1 means the roofline explains this machine; above 1, costs it leaves out (Python "
        "per step, attention kernels slower than the GEMM ceiling). A second prediction adds the third regime, "
        "overhead: the ops each step dispatches (counted, not timed) × the measured cost of one tiny op. Another "
        "process using the CPU shows up as a higher ratio.",
        "投射所用的公式配上本机实测上限（P_here、B_here；效率为 1，因为它们已是可达速率），与引擎在已加载模型上实测的 "
        "TTFT 和 TPOT 对比：批大小 1，贪心，关闭内存探针。比值接近 1 表示屋顶线能解释本机；大于 1 表示存在公式未计入的"
        "开销（每步的 Python、比 GEMM 上限慢的注意力内核）。第二个预测加入第三种情形——开销：每步分派的算子数（计数而非计时）"
        "× 单个极小算子的实测耗时。其他进程占用 CPU 会让比值变高。",
    ),
    "rf_cal_lengths": ("prompt lengths L", "提示长度 L"),
    "rf_cal_N": ("generated tokens N", "生成 token 数 N"),
    "rf_cal_repeats": ("repeats (median)", "重复次数（取中位数）"),
    "rf_cal_run": ("Run the calibration", "运行校准"),
    "rf_cal_running": ("Measuring TTFT and TPOT on the engine…", "正在引擎上测量 TTFT 和 TPOT…"),
    "rf_cal_done": ("Calibration done", "校准完成"),
    "rf_cal_not_run": (
        "Choose the prompt lengths and press **Run the calibration**.",
        "选择提示长度后点击**运行校准**。",
    ),
    "rf_m_ratio_ttft": ("TTFT measured / predicted", "TTFT 实测 / 预测"),
    "rf_m_ratio_tpot": ("TPOT measured / predicted", "TPOT 实测 / 预测"),
    "rf_col_predicted": ("predicted ms (roofs)", "预测 ms（屋顶）"),
    "rf_col_overhead": ("+ overhead ms", "+ 开销 ms"),
    "rf_col_ratio_oh": ("ratio with overhead", "计入开销的比值"),
    "rf_m_ratio_ttft_oh": ("TTFT / (roofs + overhead)", "TTFT / （屋顶 + 开销）"),
    "rf_m_ratio_tpot_oh": ("TPOT / (roofs + overhead)", "TPOT / （屋顶 + 开销）"),
    "rf_col_measured": ("measured ms", "实测 ms"),
    "rf_col_ratio": ("ratio", "比值"),
    "rf_cal_caption": (
        "{model}, {dtype}, N = {N}, median of {k}; ceilings P = {P:.0f} GFLOP/s, B = {B:.1f} GB/s; "
        "one tiny op t_op = {op:.2f} µs.",
        "{model}，{dtype}，N = {N}，{k} 次取中位数；上限 P = {P:.0f} GFLOP/s，B = {B:.1f} GB/s；"
        "单个极小算子 t_op = {op:.2f} µs。",
    ),
    "rf_cal_reading": (
        "Decode is predicted from bytes alone (weights + KV over the read bandwidth) and prefill from FLOPs; the "
        "same formulas, with datasheet ceilings, make the GPU projection.",
        "解码只根据字节数（权重 + KV 除以读取带宽）预测，预填充根据浮点运算数预测；同样的公式配上数据手册上限，"
        "就得到 GPU 投射。",
    ),
    # words inside the page's formulas (LaTeX \text{}), so a Chinese page shows Chinese formulas
    "rf_w_ridge": ("ridge point", "脊点"),
    "rf_cpu": ("{cpu}, {isa}, {n} threads, torch {torch}", "{cpu}，{isa}，{n} 个线程，torch {torch}"),
    "rf_w_peak": ("peak FLOP/s", "峰值 FLOP/s"),
    "rf_w_read_bw": ("read bandwidth", "读带宽"),
    "rf_w_compute_share": ("compute share", "算力占比"),
    "rf_w_bandwidth_share": ("bandwidth share", "带宽占比"),
    "rf_w_bytes": ("bytes", "字节"),
    "rf_w_out": ("out", "输出"),
    "rf_w_in": ("in", "输入"),
    "rf_w_bytes_per_weight": ("bytes per weight", "每个权重的字节"),
    "rf_w_row": ("row", "行"),
    "rf_w_rows": ("rows", "行"),
    "rf_w_overhead": ("overhead", "开销"),
    "rf_w_ops": ("ops", "算子"),
    "rf_w_step": ("step", "步"),
    "rf_w_op": ("op", "算子"),
    "rf_w_ratio": ("ratio", "比值"),
    "rf_w_measured": ("measured", "实测"),
    "rf_w_predicted": ("predicted", "预测"),
    "rf_w_prefill": ("prefill", "预填充"),
    "rf_w_decode": ("decode", "解码"),
    "rf_w_here": ("here", "本机"),
    "rf_w_seqs": ("seqs", "序列"),
    "rf_w_layers": ("layers", "层"),
    "rf_w_head": ("head", "头"),
    "rf_w_read": ("read", "读取"),
    "rf_w_compute": ("compute", "计算"),
}

t = page_translator(STRINGS)


def formula(latex: str, lang: str) -> str:
    """A formula whose <word> markers are its words in `lang`: "<ridge> = …" → \\text{脊点} = …"""
    return re.sub(r"<(\w+)>", lambda m: r"\text{" + t(f"rf_w_{m.group(1)}", lang) + "}", latex)
