"""Every st.session_state key of the roofline lab, widget keys included, named once: the page's
modules use these names, so a key is renamed in one place."""

# calibration.py
CAL_LENGTHS = "rf_cal_lengths"
CAL_N = "rf_cal_N"
CAL_REPEATS = "rf_cal_repeats"
CAL_RESULT = "rf_cal_result"
CAL_RUN = "rf_cal_run"
CAL_TABLE = "rf_cal_table"
FIG_CAL = "rf_fig_cal"

# ceilings.py
CEIL_CHECKED = "rf_ceil_checked"  # when the page last looked whether busy ceilings can be measured again
CEILINGS = "rf_ceilings"
CEIL_TABLE = "rf_ceil_table"
REMEASURE = "rf_remeasure"

# kernels.py
KERNEL_TABLE = "rf_kernel_table"

# projection.py
FIG_KV = "rf_fig_kv"
FIG_TPOT_BATCH = "rf_fig_tpot_batch"
FIG_TPOT_CTX = "rf_fig_tpot_ctx"
FIG_TTFT = "rf_fig_ttft"
PJ_BATCH = "rf_pj_batch"
PJ_CONTEXT = "rf_pj_context"
PJ_EFF_B = "rf_pj_eff_b"
PJ_EFF_C = "rf_pj_eff_c"
PJ_GPU = "rf_pj_gpu"
PJ_GPU_TABLE = "rf_pj_gpu_table"
PJ_KV = "rf_pj_kv"
PJ_KV_TABLE = "rf_pj_kv_table"
PJ_MODELS = "rf_pj_models"
PJ_PUBLISHED_TABLE = "rf_pj_published_table"

# run.py
BATCHES = "rf_batches"
FIG_NVML = "rf_fig_nvml"
FIG_ROOFLINE = "rf_fig_roofline"
L = "rf_L"
RESULT = "rf_result"
RUN = "rf_run"
STEPS = "rf_steps"
UTIL_TABLE = "rf_util_table"

# Widgets whose option labels change with the language or the model: app.py hands them their value
# again after such a change (ui/widget_state.py says why).
TRANSLATED: tuple[str, ...] = ()
