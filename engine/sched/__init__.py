"""Who runs in a step, with no tensors: sequences and their states, the KV block pool with its prefix
cache, and the scheduler (continuous batching under a token budget, chunked prefill, preemption)."""
