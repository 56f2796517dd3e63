"""The source page's words, English and Simplified Chinese (ui/i18n.py explains the tables)."""

from __future__ import annotations

from ui.i18n import page_translator

STRINGS: dict[str, tuple[str, str]] = {
    "src_title": ("The source: a tutorial on prefill and decode", "原文：一篇讲预填充与解码的教程"),
    "src_intro": (
        "The lab was built from one document: **a Chinese tutorial on how a large language model runs inference**, "
        "the chapter that explains the two phases of generation, **prefill** (the whole prompt in one parallel "
        "pass, which fills the KV cache) and **decode** (one token per step, reusing that cache). It states 23 "
        "claims, about shapes, costs, bottlenecks, timings and memory. The lab restates each one as **[C1](/claims?claim=C1) … [C23](/claims?claim=C23)** "
        "and checks it on a real model: the **Claims** page runs every check, and each claim's own page shows it "
        "in depth. Where the document is wrong or loose ([C12](/claims?claim=C12), [C15](/claims?claim=C15), [C16](/claims?claim=C16), [C19](/claims?claim=C19)), the lab says so and shows what "
        "it measured. Its sections, in the lab's words:",
        "本实验室源自一篇文档：**一篇讲大语言模型如何推理的中文教程**，其中一章解释生成的两个阶段："
        "**预填充**（整个提示一次并行前向，写满 KV 缓存）和**解码**（每步一个 token，复用这份缓存）。"
        "它提出了 23 条论断，涉及形状、计算量、瓶颈、时延与显存。实验室把每条重述为 **[C1](/claims?claim=C1) … [C23](/claims?claim=C23)**，"
        "并在真实模型上核查：**论断核查**页运行全部检查，每条论断也有自己的页面深入展示。原文有误或不严谨之处"
        "（[C12](/claims?claim=C12)、[C15](/claims?claim=C15)、[C16](/claims?claim=C16)、[C19](/claims?claim=C19)），实验室会指出并给出实测结果。各节内容（用实验室自己的话）：",
    ),
    "src_open_claims": ("Check every claim on the Claims page", "在「论断核查」页核查全部论断"),
    "src_claims": ("Claims in this section: {claims}", "本节论断：{claims}"),
    "src_see_on": ("See it on: {page}", "查看：{page}"),
    "src_prefill_title": ("Prefill: the whole prompt at once", "预填充：整个提示一次完成"),
    "src_prefill_text": (
        "The prompt's tokens go through the model together, as one [batch, L, hidden] input; attention is an L×L "
        "matrix, so the work grows as L². The pass writes every layer's keys and values into the KV cache, and "
        "only the last position's logits pick the first new token. Prefill is compute-bound, and its time is "
        "the time to first token (TTFT).",
        "提示的所有 token 作为一个 [batch, L, hidden] 的输入一起通过模型；注意力是 L×L 矩阵，计算量随 L² 增长。"
        "这一次前向把每层的键和值写入 KV 缓存，只有最后一个位置的 logits 用来选出第一个新 token。"
        "预填充受算力限制，它的耗时就是首 token 延迟（TTFT）。",
    ),
    "src_decode_title": ("Decode: one token per step", "解码：每步一个 token"),
    "src_decode_text": (
        "Each step feeds only the newest token, [batch, 1, hidden]: one query row attends to the whole cache "
        "(1×L), and its own key and value are appended. Little arithmetic, but every step reads all the weights "
        "and the whole cache, so decode is bound by memory bandwidth. Its time per token (TPOT) is how fluent "
        "streaming feels, and in long answers it is most of the total time.",
        "每一步只输入最新的一个 token，[batch, 1, hidden]：一行查询关注整个缓存（1×L），并追加自己的键和值。"
        "计算很少，但每步都要读取全部权重和整个缓存，因此解码受显存带宽限制。每个 token 的耗时（TPOT）"
        "决定流式输出是否流畅，长回答的大部分时间都花在这里。",
    ),
    "src_table_title": ("The two phases side by side", "两个阶段对照"),
    "src_table_text": (
        "A table puts the two phases against each other: input length, attention shape, cost per step, "
        "bottleneck, utilisation, the metric each one sets, the optimisations that help each, how the KV cache "
        "grows, and the transient memory peak of prefill's L×L scores.",
        "一张表把两个阶段逐项对比：输入长度、注意力形状、每步计算量、瓶颈、利用率、各自决定的指标、"
        "各自适用的优化、KV 缓存如何增长，以及预填充 L×L 分数带来的瞬时显存峰值。",
    ),
    "src_example_title": ("A worked example: 「今天天气」", "完整示例：「今天天气」"),
    "src_example_text": (
        "The document follows one short Chinese prompt through LLaMA-7B with every tensor shape, and counts it "
        "as 4 tokens. A real byte-level tokenizer makes more of it (9 on the bundled model): the lab shows the "
        "same walk-through with the real count.",
        "原文用一个简短的中文提示在 LLaMA-7B 上走完整个过程，给出每个张量的形状，并把它算作 4 个 token。"
        "真实的字节级分词器会切出更多（在内置模型上是 9 个）：实验室用真实数量重现同样的步骤。",
    ),
    "src_complexity_title": ("Complexity with and without the cache", "有无缓存时的复杂度"),
    "src_complexity_text": (
        "Generating N tokens after an L-token prompt: without a KV cache every step recomputes the whole "
        "context, with it each step only adds one row. The document gives the totals, and contradicts itself "
        "about them; the lab counts the work step by step.",
        "在 L 个 token 的提示之后生成 N 个 token：没有 KV 缓存时每一步都重算整个上下文，有缓存时每步只增加一行。"
        "原文给出了总量，但前后自相矛盾；实验室逐步计数。",
    ),
    "src_production_title": ("Notes from production", "工程实践补充"),
    "src_production_text": (
        "A hand-written generation loop that never frees its cache leaks memory; each request has its own cache "
        "of its own length; a longer prompt raises TTFT but not TPOT; quantisation and other decode-side "
        "optimisations matter most; and prefill's L×L scores make a memory spike that can run out of memory "
        "even when weights and cache fit.",
        "手写的生成循环若从不释放缓存就会泄漏显存；每个请求有自己的、长度各异的缓存；提示越长 TTFT 越高，"
        "但 TPOT 基本不变；量化等解码侧优化最重要；预填充的 L×L 分数会造成显存尖峰，即使权重和缓存放得下也可能 OOM。",
    ),
    "src_chunked_title": ("Chunked prefill", "分块预填充"),
    "src_chunked_text": (
        "One very long prompt's prefill holds the device while every other request's decode waits "
        "(head-of-line blocking). Splitting it into chunks, with other requests' decode steps between them, "
        "removes the blocking.",
        "一个超长提示的预填充会独占设备，其他请求的解码只能等待（队头阻塞）。把它切成若干块，"
        "在块之间穿插其他请求的解码步，就能消除阻塞。",
    ),
    "src_summary_title": ("Summary", "本章总结"),
    "src_summary_text": (
        "The KV cache is the bridge between the phases: prefill builds it, decode reuses it. Modern engines "
        "interleave the two at fine grain (continuous batching, chunked prefill) to use both compute and "
        "bandwidth.",
        "KV 缓存是两个阶段之间的桥梁：预填充建立它，解码复用它。现代推理引擎以细粒度交错执行两者"
        "（连续批处理、分块预填充），同时用满算力与带宽。",
    ),
}
t = page_translator(STRINGS)
