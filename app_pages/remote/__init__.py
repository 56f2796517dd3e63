"""Remote server: the lab's views on a real OpenAI-compatible server (vLLM, SGLang, TGI,
`transformers serve`, or our own `python -m engine serve`).

    page.py             connect, then one prompt or a load
    connect.py          base URL, API key (this session only), timeout; the model list; the server's kind
    streamed_prompt.py  one streamed prompt: the text as it arrives, TTFT / TPOT / ITL per chunk
    load.py             a load (GuideLLM's modes, workloads, a rate sweep): percentiles, timeline, server gauges
    local_vs_server.py  the same requests on our engine in this process and on the server: one table of ratios
    open_saved.py       a saved trace, or a GuideLLM / vLLM report (imported.py), drawn with no server
    figures.py          the charts
    keys.py, strings.py
"""
