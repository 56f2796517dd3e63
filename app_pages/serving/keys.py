"""Every st.session_state key of the serving lab, widget keys included, named once: the page's
modules use these names, so a key is renamed in one place."""

# controls.py
BATCH = "sv_batch"
BLOCK = "sv_block"
BUDGET = "sv_budget"
CUSTOM = "sv_custom"
CUSTOM_BASE = "sv_custom_base"
CUSTOM_KEPT = "sv_custom_kept"
FULL = "sv_full"
POLICY_A = "sv_policy_a"
POLICY_B = "sv_policy_b"
POOL = "sv_pool"
PRESET = "sv_preset"
ROUNDS = "sv_rounds"
SMALL = "sv_small"
SPEC_TABLE = "sv_spec_table"

# live.py
BK_RUN = "sv_bk_run"
FIG_CACHE = "sv_fig_cache"  # built timelines by (trace, language, time range): plain figures, no tensors
MX_GROUP = "sv_mx_group"
RESULT = "sv_result"
STOP = "sv_stop"
TL_RUN = "sv_tl_run"
TL_STEP = "sv_tl_step"

# page.py
RUN = "sv_run"

# goodput.py
ALL_POLICIES_RUN = "sv_all_policies_run"
ALL_POLICIES_TABLE = "sv_all_policies_table"
FIG_SLO = "sv_fig_slo"
GOODPUT_TABLE = "sv_goodput_table"
POLICY_RUNS = "sv_policy_runs"  # {"runs": {policy: PolicyRun}, "load": MachineLoad}
SLO_PREFIX = "sv"  # the SLO box's keys: sv_slo_ttft, sv_slo_tpot, sv_slo_itl, sv_slo_target (ui/slo_box.py)

# panels.py
BATCH_TABLE = "sv_batch_table"
FIG_COMP = "sv_fig_comp"
FIG_GANTT = "sv_fig_gantt"
FIG_GANTT_OTHER = "sv_fig_gantt_other"
FIG_METRICS = "sv_fig_metrics"
FIG_POOL = "sv_fig_pool"
FIG_PREFIX = "sv_fig_prefix"
FIG_WASTE = "sv_fig_waste"
METRICS_TABLE = "sv_metrics_table"
NEXT = "sv_next"
PREV = "sv_prev"
REQUEST_TABLE = "sv_request_table"

POLICY = {"a": POLICY_A, "b": POLICY_B}  # the two policy boxes, by slot


def param(preset_name: str, name: str) -> str:
    """A workload preset's number box: sv_<preset>_<parameter>."""
    return f"sv_{preset_name}_{name}"


# Widgets whose option labels change with the language or the model: app.py hands them their value
# again after such a change (ui/widget_state.py says why).
TRANSLATED: tuple[str, ...] = (PRESET, POLICY_A, POLICY_B, TL_RUN, BK_RUN, MX_GROUP)


def so_far(key: str, n: int) -> str:
    """A table drawn again as each round lands: a key of its own per redraw."""
    return f"{key}_so_far_{n}"
