"""Strings of the frame, which every page shows: navigation, sidebar, model loading, errors, phases,
and axes. {key: (en, zh)}; templates use str.format fields."""

STRINGS: dict[str, tuple[str, str]] = {
    "lang_label": ("Language", "语言"),
    "nav_playground": ("Playground", "演练场"),
    "model_header": ("Model", "模型"),
    "model_label": ("Model", "模型"),
    "model_bundled_label": ("SmolLM2-135M-Instruct (bundled, offline)", "SmolLM2-135M-Instruct（内置，可离线）"),
    "model_hub_label": ("{spec} (hub, online only)", "{spec}（Hub，需联网）"),
    "model_help_public": ("This public server offers these models.", "这台公开服务器提供这些模型。"),
    "settings_invalid": (
        "The server's settings file is not valid ({msg}): running in public mode with safe defaults.",
        "服务器的设置文件无效（{msg}）：以公开模式和安全的默认值运行。",
    ),
    "public_step_capped": (
        "This run's largest step would compute {n:,} token rows ({P:,} prompt tokens, {N:,} new); this "
        "public server allows {cap:,} per step so that no visitor's step holds the others up. "
        "Shorten the prompt or ask for fewer tokens.",
        "这次运行最大的一步要计算 {n:,} 行 token（提示 {P:,} 个，新生成 {N:,} 个）；这台公开服务器每步"
        "最多允许 {cap:,} 行，以免一位访客的一步拖住其他人。请缩短提示或减少生成的 token。",
    ),
    "public_work_capped": (
        "Without the KV cache every step recomputes the whole context: n·P + n(n−1)/2 = {N:,}·{P:,} + "
        "{N:,}·{N1:,}/2 = {n:,} token rows; this public server allows {cap:,} per run. Turn the "
        "cache on, shorten the prompt or ask for fewer tokens.",
        "没有 KV 缓存时每一步都重算整个上下文：n·P + n(n−1)/2 = {N:,}·{P:,} + {N:,}·{N1:,}/2 = "
        "{n:,} 行 token；这台公开服务器每次运行最多允许 {cap:,} 行。请打开缓存、缩短提示或减少生成的 "
        "token。",
    ),
    "public_capped_help": (
        "Capped at {cap:,} on this public server, so every visitor gets a turn.",
        "这台公开服务器上限为 {cap:,}，让每位访客都能轮到。",
    ),
    "public_count_capped": (
        "This run has {n:,} {what}; this public server takes at most {cap:,}, so every visitor gets a turn.",
        "这次运行有 {n:,} 个{what}；这台公开服务器最多接受 {cap:,} 个，让每位访客都能轮到。",
    ),
    "public_size_capped": (
        "{what}: {n:,} is over this public server's cap of {cap:,}, so every visitor gets a turn.",
        "{what}：{n:,} 超过了这台公开服务器的上限 {cap:,}，让每位访客都能轮到。",
    ),
    "public_what_requests": ("requests", "请求"),
    "queue_ahead": (
        "Waiting for the engine: {n} run(s) ahead of you ({s:.0f} s so far). Runs take turns on this public server.",
        "等待引擎：前面还有 {n} 个运行（已等 {s:.0f} 秒）。在这台公开服务器上，运行依次轮流。",
    ),
    "queue_cancel": ("Cancel", "取消"),
    "queue_rate_limited": (
        "This public server starts at most {n} runs a minute per visitor; the next can start in {s:.0f} s.",
        "这台公开服务器每位访客每分钟最多开始 {n} 次运行；{s:.0f} 秒后可以开始下一次。",
    ),
    "model_help": (
        "Pick the bundled model, or type a local folder (config.json + *.safetensors) or a Hugging Face "
        "hub id such as org/name and press Enter.",
        "选择内置模型，或输入本地文件夹（含 config.json 与 *.safetensors）或 Hugging Face Hub 的 "
        "org/name 形式的 id，然后按回车。",
    ),
    "model_caption": (
        "Local folders and hub ids can be typed in. Hub ids need internet: offline they fail with "
        "a message, and the bundled model always works.",
        "可以直接输入本地文件夹或 Hub id。Hub id 需要联网：离线时会给出提示，内置模型始终可用。",
    ),
    "dtype_label": ("dtype", "数据类型"),
    "dtype_help": (
        "Weights and KV cache precision. float32 matches Hugging Face to 1e-4; bfloat16 halves the KV bytes per token.",
        "权重与 KV 缓存的精度。float32 与 Hugging Face 的误差在 1e-4 以内；bfloat16 让每个 token 的 KV 字节数减半。",
    ),
    "device_label": ("Device", "设备"),
    "loading_model": ("Loading model {spec}…", "正在加载模型 {spec}…"),
    "loading_start": ("Starting", "开始"),
    "loading_failed": ("The model could not be loaded", "模型加载失败"),
    "loading_failed_msg": (
        "The model could not be loaded. {msg} Pick another model in the sidebar: the bundled one always works offline.",
        "模型无法加载。{msg} 请在侧边栏选择其他模型：内置模型离线也始终可用。",
    ),
    "stat_max_of": ("max of {n}", "{n} 个中的最大值"),
    "stat_of_n": ("{stat} of {n}", "{n} 个中的 {stat}"),
    "model_bundled_provenance": (
        " · weights: the bundled Q4_1 (4-bit) GGUF, de-quantised to float32 once, so “float32” here means "
        "float32 arithmetic on 4-bit weights",
        " · 权重：内置的 Q4_1（4 位）GGUF，加载时一次性反量化为 float32；因此这里的“float32”是指在 4 位权重上做 "
        "float32 运算",
    ),
    "model_summary": (
        "**{name}** · {layers} layers · hidden {hidden} · {heads} heads · {kv_heads} KV heads · "
        "head_dim {head_dim} · {params:.0f} M parameters ({weights}) · context {ctx} · {dtype} on "
        "{device}",
        "**{name}** · {layers} 层 · 隐藏维度 {hidden} · {heads} 个注意力头 · {kv_heads} 个 KV 头 · "
        "头维度 {head_dim} · {params:.0f} M 参数（{weights}）· 上下文 {ctx} · {dtype} / {device}",
    ),
    "err_input": ("Cannot run this: {msg}", "无法运行：{msg}"),
    "err_internal": (
        "Internal error ({kind}), logged as {id}: a bug in the app, not a problem with your input. "
        "Try again or change the settings.",
        "内部错误（{kind}），日志编号 {id}：这是应用的缺陷，不是您的输入有问题。请重试或修改设置。",
    ),
    "err_unexpected": (
        "Something went wrong inside the app ({kind}). The details are in the server log; "
        "try again or change the settings.",
        "应用内部出错（{kind}）。详细信息已写入服务器日志；请重试或修改设置。",
    ),
    "phase_prefill": ("prefill", "预填充"),
    "phase_decode": ("decode", "解码"),
    "phase_mixed": ("mixed", "混合"),
    "phase_pending": ("not yet computed", "尚未计算"),
    "axis_step": ("engine step", "引擎步"),
    "axis_tokens": ("tokens", "token 数"),
    "axis_blocks": ("blocks", "块数"),
    "axis_mib": ("MiB", "MiB"),
    "axis_ms": ("time (ms)", "时间（毫秒）"),
    "axis_elements": ("elements", "元素"),
    "axis_probability": ("probability", "概率"),
    "axis_key": ("key position: token", "键位置：token"),
    "axis_query": ("query position: token", "查询位置：token"),
    "finish_eos": ("end-of-sequence token", "结束符（EOS）"),
    "finish_length": ("max_new_tokens reached", "达到 max_new_tokens"),
    "finish_none": ("—", "—"),
    "nav_memory": ("Memory lab", "显存实验室"),
    "nav_complexity": ("Complexity lab", "复杂度实验室"),
    "nav_serving": ("Serving lab", "服务实验室"),
    "nav_compare": ("Compare", "对比"),
    "nav_roofline": ("Roofline lab", "屋顶线实验室"),
    "nav_sweeps": ("Sweeps", "扫描实验"),
    "nav_claims": ("Claims", "论断核查"),
    "nav_remote": ("Remote server", "远程服务器"),
    "nav_precision": ("Precision lab", "精度实验室"),
    "nav_speculative": ("Speculative decoding", "推测解码"),
    "nav_disaggregation": ("Disaggregation", "分离式部署"),
    "nav_source": ("The source", "原文"),
}
