"""Every st.session_state key of the remote-server page, widget keys included, named once."""

# connect.py
URL = "rm_url"
URL_CHOICE = "rm_url_choice"  # a public server's list of allowed base URLs
API_KEY = "rm_api_key"  # this session only: never in share links, traces, reports or logs
TIMEOUT = "rm_timeout"
CONNECT = "rm_connect"
CONNECTION = "rm_connection"
MODEL = "rm_model"

# streamed_prompt.py
PROMPT = "rm_prompt"
MAX_TOKENS = "rm_max_tokens"
CHAT = "rm_chat"
RUN_ONE = "rm_run_one"
ONE_RESULT = "rm_one_result"
ONE_VIEW = "rm_one_view"  # our server's own timing of that request, when the server is ours
FIG_CHUNKS = "rm_fig_chunks"

# load.py
MODE = "rm_mode"
REQUESTS = "rm_requests"
CONCURRENCY = "rm_concurrency"
RATE = "rm_rate"
DURATION = "rm_duration"
LOAD_TOKENS = "rm_load_tokens"
UNIQUE = "rm_unique"
PROMPTS = "rm_prompts"  # the chat questions, or synthetic prompts of an exact length
PROMPT_TOKENS = "rm_prompt_tokens"
TOKENIZER = "rm_tokenizer"
POOLS = "rm_pools"
PRESET = "rm_preset"
RATES = "rm_rates"
RUN_LOAD = "rm_run_load"
STOP = "rm_stop"
LOAD_RESULT = "rm_load_result"
SUMMARY_TABLE = "rm_summary_table"
FIG_GANTT = "rm_fig_gantt"
FIG_SERVER = "rm_fig_server"
FIG_POOLS = "rm_fig_pools"
SWEEP_TABLE = "rm_sweep_table"
FIG_SWEEP = "rm_fig_sweep"

# saving.py: download buttons (each key gets _trace / _report)
DL_ONE = "rm_dl_one"
DL_LOAD = "rm_dl_load"

# open_saved.py
UPLOAD = "rm_upload"
UPLOAD_SEEN = "rm_upload_seen"  # the file id already read, so a rerun does not parse it again
UPLOAD_ERROR = "rm_upload_error"
OPENED = "rm_opened"  # (file name, Saved or an imported report)
IMPORTED_THEIRS = "imported_theirs"  # the tool's own figures
SAVED_PREFIX = "rm_saved_"  # before the element keys of an opened run, apart from the live tabs' own

# local_vs_server.py
BESIDE_REQUESTS = "rm_beside_requests"
BESIDE_TOKENS = "rm_beside_tokens"
RUN_BESIDE = "rm_run_beside"
BESIDE_RESULT = "rm_beside_result"
BESIDE_TABLE = "rm_beside_table"

# Widgets whose option labels change with the language: app.py re-sends their value after a change.
# capacity.py
SLO_PREFIX = "rm"  # the SLO box's keys: rm_slo_ttft, rm_slo_tpot, rm_slo_itl, rm_slo_target (ui/slo_box.py)
CAP_BUDGET = "rm_cap_budget"
CAP_BY = "rm_cap_by"
CAP_MAX_LOAD = "rm_cap_max_load"
CAP_MAX_RATE = "rm_cap_max_rate"
CAP_RATE_STEP = "rm_cap_rate_step"
CAP_TOKENS = "rm_cap_tokens"
CAP_RUN = "rm_cap_run"
CAP_RESULT = "rm_cap_result"
CAP_TABLE = "rm_cap_table"
CAP_FIG_ATTAINMENT = "rm_cap_fig_attainment"
CAP_FIG_GOODPUT = "rm_cap_fig_goodput"
# load.py's goodput verdict (its own SLO box: both tabs are drawn in one script run)
LOAD_SLO_PREFIX = "rm_load"
LOAD_GOODPUT_TABLE = "rm_load_goodput_table"

TRANSLATED: tuple[str, ...] = (MODE, CAP_BY, PROMPTS)


def imported_pick(file_name: str) -> str:
    """After SAVED_PREFIX: which load of an imported report is shown, one choice per file (another
    report has other loads)."""
    return f"imported_pick_{file_name}"
