"""Every st.session_state key of the disaggregation lab, widget keys included, named once: the
page's modules use these names, so a key is renamed in one place."""

# run.py: the three set-ups
CALIBRATE = "dg_calibrate"
CHATS = "dg_chats"
CHAT_TOKENS = "dg_chat_tokens"
CHUNK = "dg_chunk"
FIG_DIST = "dg_fig_dist"
FIG_GANTT = "dg_fig_gantt"
FIG_INTERFERENCE = "dg_fig_interference"
GANTT_SETUP = "dg_gantt_setup"
LONG = "dg_long"
LONGS = "dg_longs"
RESULT = "dg_result"
ROUNDS = "dg_rounds"
RUN = "dg_run"
SLO_PREFIX = "dg"
STOP = "dg_stop"
SUMMARY = "dg_summary"
GOODPUT = "dg_goodput"

# results.py: what each set-up gave
COMPARE = "dg_compare"


# transfer.py: the calculator
CALC_GPU = "dg_calc_gpu"
CALC_KV = "dg_calc_kv"
CALC_MODEL = "dg_calc_model"
CALC_PROMPT = "dg_calc_prompt"
CALC_TABLE = "dg_calc_table"
FIG_CALC = "dg_fig_calc"

# Widgets whose option labels change with the language or the model: app.py hands them their value
# again after such a change (ui/widget_state.py says why).
TRANSLATED: tuple[str, ...] = (GANTT_SETUP,)


def so_far(n: int) -> str:
    """The comparison drawn again as each round lands: a key of its own per redraw."""
    return f"{COMPARE}_so_far_{n}"
