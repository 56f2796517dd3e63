"""Every st.session_state key of the speculative decoding lab, widget keys included, named once: the
page's modules use these names, so a key is renamed in one place."""

# run.py: the same prompt with and without speculation
ADAPTIVE = "sp_adaptive"
DRAFTER = "sp_drafter"
FIG_KV = "sp_fig_kv"
FIG_STEPS = "sp_fig_steps"
K = "sp_k"
MAX_NEW = "sp_max_new"
PRESET = "sp_preset"
PROMPT = "sp_prompt"
RESULT = "sp_result"
ROUNDS = "sp_rounds"
RUN = "sp_run"

# cost.py: the verify-cost curve
CONTEXTS = "sp_contexts"
COST_RESULT = "sp_cost_result"
COST_RUN = "sp_cost_run"
COST_TABLE = "sp_cost_table"
FIG_BREAK_EVEN = "sp_fig_break_even"
FIG_COST = "sp_fig_cost"
KS = "sp_ks"

# Widgets whose option labels change with the language or the model: app.py hands them their value
# again after such a change (ui/widget_state.py says why).
TRANSLATED: tuple[str, ...] = (PRESET, DRAFTER)
