"""Every st.session_state key of the complexity lab, widget keys included, named once: the page's
modules use these names, so a key is renamed in one place."""

# panels.py
CROSSOVER_TABLE = "cx_crossover_table"
CROSS_MODEL = "cx_cross_model"
EXP_MODELS = "cx_exp_models"
FIG_CROSS = "cx_fig_cross"
FIG_EXP = "cx_fig_exp"
SHAPE_TABLE = "cx_shape_table"
WE_CACHE = "cx_we_cache"
WE_COUNT = "cx_we_count"
WE_MAX_NEW = "cx_we_max_new"
WE_MODEL = "cx_we_model"
WE_PROMPT = "cx_we_prompt"

# run.py, result.py
EXPONENTS = "cx_exponents"
FIG_RATIO = "cx_fig_ratio"
FIG_CUM_FLOPS = "cx_fig_cum_flops"
FIG_CUM_MS = "cx_fig_cum_ms"
FIG_STEP_FLOPS = "cx_fig_step_flops"
FIG_STEP_MS = "cx_fig_step_ms"
L = "cx_L"
N = "cx_N"
RESULT = "cx_result"
RUN = "cx_run"

# Widgets whose option labels change with the language or the model: app.py hands them their value
# again after such a change (ui/widget_state.py says why).
TRANSLATED: tuple[str, ...] = (CROSS_MODEL, EXP_MODELS, WE_MODEL, WE_COUNT)
