"""The serving lab (/serving): many requests on the real engine (C17, C21-C24).

page.py the screen; controls (workload and policies), workload (presets as requests), run (one
policy on the engine), live (both policies with progress), panels (the result tabs), timeline (what
the Gantt shows, computed), figures (the Gantt and batch charts), blocks (the KV block pool),
metrics (latency percentiles and throughput), keys (session-state keys), strings (its words)."""
