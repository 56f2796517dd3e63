"""Every st.session_state key of the playground, widget keys included, named once: the page's
modules use these names, so a key is renamed in one place."""

# controls.py
ATTENTION = "pg_attention"
CHAT = "pg_chat"
EXAMPLE = "pg_example"
FORM = "pg_form"
KV = "pg_kv"
MAX_NEW = "pg_max_new"
PROBE = "pg_probe"
PROMPT = "pg_prompt"
RUN = "pg_run"
SEED = "pg_seed"
SPEC_K = "pg_spec_k"  # speculative decoding: tokens drafted per step, 0 = off
SHARE = "pg_share"  # the form's "Show share link" button (share.py shows the link)
TEMPERATURE = "pg_temperature"
TOP_K = "pg_top_k"
TOP_P = "pg_top_p"

# panels.py
FIG_HEAT = "pg_fig_heat"
FIG_KV_BYTES = "pg_fig_kv_bytes"
FIG_KV_TOKENS = "pg_fig_kv_tokens"
FIG_LATENCY = "pg_fig_latency"
FIG_MEMORY = "pg_fig_memory"
FIG_SHAPES = "pg_fig_shapes"
FIG_SHARE = "pg_fig_share"
HEAT_HEAD = "pg_heat_head"
HEAT_LAYER = "pg_heat_layer"
SHAPES_STEP = "pg_shapes_step"
STEP_PAGE = "pg_step_page"  # a long run's step table, a page at a time
STEP_TABLE = "pg_step_table"

# pass_view.py: the second pass (memory, captured attention) after the timed run
PASS_JOB = "pg_pass_job"  # this session's PassJob (app_pages/playground/second_pass.py)
# The container of its progress while it runs. A key ending "_background" marks work a page goes on
# with after its script has ended: scripts/app_browser.py's wait_idle waits for it too.
PASS_PROGRESS = "pg_pass_background"

# share.py
DL_REPORT = "pg_dl_report"
DL_TRACE = "pg_dl_trace"
LINK_HIDE = "pg_link_hide"
LINK_OPEN = "pg_link_open"
SHARE_BOX = "pg_share_box"
TRACE_UPLOAD = "pg_trace_upload"
TRACE_UPLOAD_ERROR = "pg_trace_upload_error"
TRACE_UPLOAD_SEEN = "pg_trace_upload_seen"  # the file id already loaded: a rerun does not load it again

# share_link.py
SHARE_LINK_CHECKED = "share_link_checked"  # the session's first run has looked at the address bar
SHARE_LINK_NOTES = "share_link_notes"  # (applied names, ignored [(name, value, reason key, values)])
SHARE_MODEL_PENDING = "share_model_pending"  # a model a link named, waiting for the visitor's yes
SHARE_MODEL_LOAD = "pg_share_model_load"
SHARE_MODEL_KEEP = "pg_share_model_keep"

# Widgets whose option labels change with the language or the model: app.py hands them their value
# again after such a change (ui/widget_state.py says why).
TRANSLATED: tuple[str, ...] = (STEP_PAGE,)  # the replay's are ui/replay.py's
