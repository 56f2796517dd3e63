"""Every st.session_state key of the memory lab, widget keys included, named once: the page's
modules use these names, so a key is renamed in one place."""

from ui import widget_state

# panel_fit.py
FIG_FIT = "mem_fig_fit"
FIT_BATCH = "mem_fit_batch"
FIT_CHUNK = "mem_fit_chunk"
FIT_DTYPE = "mem_fit_dtype"
FIT_L = "mem_fit_L"
FIT_MODEL = "mem_fit_model"
FIT_TABLE = "mem_fit_table"
MAX_TABLE = "mem_max_table"

# panel_heat.py
FIG_HEAT = "mem_fig_heat"
FIG_LAYERS = "mem_fig_layers"
HEAT_CHAT = "mem_heat_chat"
HEAT_CSV = "mem_heat_csv"
HEAT_FORM = "mem_heat_form"
HEAT_HEAD = "mem_heat_head"
HEAT_LAYER = "mem_heat_layer"
HEAT_MODE = "mem_heat_mode"
HEAT_NEW = "mem_heat_new"
HEAT_PNG = "mem_heat_png"
HEAT_PROMPT = "mem_heat_prompt"
HEAT_RESULT = "mem_heat_result"
HEAT_RUN = "mem_heat_run"

# panel_leak.py
FIG_LEAK_MEM = "mem_fig_leak_mem"
FIG_LEAK_SPEED = "mem_fig_leak_speed"
LEAK = "mem_leak"
LEAK_FORM = "mem_leak_form"
LEAK_N = "mem_leak_n"
LEAK_NEW = "mem_leak_new"
LEAK_RUN = "mem_leak_run"
LEAK_TABLE = "mem_leak_table"

# panel_sweep.py
BACKENDS = "mem_backends"
CHUNKS = "mem_chunks"
CMP_TABLE = "mem_cmp_table"
FIG_BREAKDOWN = "mem_fig_breakdown"
FIG_DIFF = "mem_fig_diff"
FIG_PEAK = "mem_fig_peak"
LENGTHS = "mem_lengths"
ROUNDS = "mem_rounds"
RUN_SWEEP = "mem_run_sweep"
SWEEP = "mem_sweep"
SWEEP_CSV = "mem_sweep_csv"
SWEEP_FORM = "mem_sweep_form"
TIMED = "mem_timed"
TIME_JSON = "mem_time_json"
TIME_TABLE = "mem_time_table"
WITH_WEIGHTS = "mem_with_weights"

# Widgets whose option labels change with the language or the model: app.py hands them their value
# again after such a change (ui/widget_state.py says why).
TRANSLATED: tuple[str, ...] = (FIT_MODEL, HEAT_MODE)


so_far = widget_state.so_far  # a chart's key in the n-th drawing made while the sweep runs
