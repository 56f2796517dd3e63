"""Every st.session_state key of the precision lab, widget keys included, named once."""

# run.py
WEIGHTS = "pr_weights"
KV = "pr_kv"
QUALITY_TOKENS = "pr_quality_tokens"
REPEATS = "pr_repeats"
RUN = "pr_run"
STOP = "pr_stop"
RESULT = "pr_result"

# page.py: the charts' context and batch (arithmetic only: no rerun of the measurement)
CONTEXT = "pr_context"
BATCH = "pr_batch"
WORK_TABLE = "pr_work_table"
TIME_TABLE = "pr_time_table"
QUALITY_TABLE = "pr_quality_table"
FIG_RATIO = "pr_fig_ratio"
FIG_BYTES = "pr_fig_bytes"

# capacity.py
GPU = "pr_gpu"
BUDGET = "pr_budget"
CAP_MODEL = "pr_cap_model"
CAP_CONTEXT = "pr_cap_context"
CAP_TABLE = "pr_cap_table"

# Widgets whose option labels change with the language or the model: app.py re-sends their value.
TRANSLATED: tuple[str, ...] = (CAP_MODEL,)
