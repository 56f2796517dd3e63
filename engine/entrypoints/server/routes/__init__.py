"""The server's routes, one module per job: openai_api (OpenAI's /v1), pdlab (the lab's own /pdlab:
a disaggregated worker's hand-off, the recent requests' timing) and ops (/health, /metrics)."""
