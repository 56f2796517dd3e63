"""The engine itself: add_request, step, generate (llm_engine.py), over sched/ and worker/; detokenizing,
speculative decoding (prompt lookup or a draft model), the KV hand-off between a prefill and a decode
engine, and the untimed replay that measures memory."""
