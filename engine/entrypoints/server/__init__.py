"""Our engine behind an OpenAI-compatible HTTP API (`python -m engine serve`), so that the lab's
remote-server page, `curl`, the `openai` SDK and load tools drive it as they drive vLLM:

    loop.py        one Engine stepped by one thread; requests and cancellations reach it by queue
    protocol.py    the request bodies (OpenAI's fields) and the response and stream chunks
    prometheus.py  Prometheus /metrics in vLLM's names (running, waiting, KV usage, latency histograms)
    app.py         the FastAPI routes: /v1/completions, /v1/chat/completions, /v1/models, /health, /metrics
"""
