"""The playground (the root URL): one prompt through the real engine.

page.py the screen; controls (prompt and settings), results (output, numbers, one tab per topic),
panels (the tabs), figures (latency and memory charts), step_table (the C12 worked example),
share (link, uploads, downloads), trace_file (a run as JSON and back) with trace_attention (its
attention arrays), report, report_figures and report_replay (the standalone HTML report), keys
(session-state keys), strings (its words)."""
