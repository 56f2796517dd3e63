"""Our engine behind an OpenAI-compatible HTTP API (`python -m engine serve`), so that the lab's
remote-server page, `curl`, the `openai` SDK and load tools drive it as they drive vLLM:

    loop.py             one Engine stepped by one thread; requests and cancellations reach it by queue
    submission.py       a request as that thread sees it, and the messages it sends back
    recent.py           the last finished requests' timing (GET /pdlab/requests), into /metrics too
    protocol.py         the request bodies (OpenAI's fields) and the response and stream chunks
    stops.py            stop strings, matched incrementally
    sse.py              OpenAI's stream framing (server-sent events, [DONE]), for the server and the router
    worker_protocol.py  what the disaggregated router and its prefill/decode workers say to each other
    prometheus.py       Prometheus /metrics in vLLM's names (running, waiting, KV usage, latency histograms)
    app.py              create_app: the engine loop, the routes and the layers each request passes first
    limits.py           those layers: the body limit and the API key (and a worker's hand-off token)
    connection.py       the HTTP/1.1 connection: read deadlines for headers and bodies, JSON 400s
    http_server.py      uvicorn on our socket, with a stop that has a deadline
    state.py            what the routes share (ServerState on app.state), reached as a dependency
    routes/             openai_api (/v1), pdlab (/pdlab: hand-offs, recent requests), ops (/health, /metrics)
    inputs.py, reply.py a body into token ids and sampling parameters; the answer, streamed or whole
"""
