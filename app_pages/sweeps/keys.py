"""Every st.session_state key of the sweeps page, widget keys included, named once: the page's
modules use these names, so a key is renamed in one place."""

from ui import widget_state

# charts.py
FIG_SHARE = "sw_fig_share"
FIG_TPOT = "sw_fig_tpot"
FIG_TPOT_N = "sw_fig_tpot_n"
FIG_TTFT = "sw_fig_ttft"

# run.py
LS = "sw_Ls"
NEW = "sw_new"
NS = "sw_Ns"
OUT_L = "sw_out_L"
REPEATS = "sw_repeats"
RESULT = "sw_result"
RUN = "sw_run"
STOP = "sw_stop"

so_far = widget_state.so_far  # a chart's key in the n-th drawing made while the sweep runs


# Widgets whose option labels change with the language or the model: app.py hands them their value
# again after such a change (ui/widget_state.py says why).
TRANSLATED: tuple[str, ...] = ()
