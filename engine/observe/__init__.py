"""What the engine records and counts: the trace of every step, request metrics (TTFT, TPOT, ITL), the
memory probe, the analytic cost model (FLOPs and bytes per step) and this machine's identity."""
