"""Every st.session_state key of the compare page, widget keys included, named once: the page's
modules use these names, so a key is renamed in one place."""

# controls.py
FORM = "cmp_form"
N = "cmp_n"
REPEATS = "cmp_repeats"
RUN = "cmp_run"
PRESET_CACHE = "cmp_preset_cache"
PRESET_PROMPTS = "cmp_preset_prompts"

# replay.py
PLAY = "cmp_play"
PLAY_STOP = "cmp_play_stop"
PLAYING = "cmp_play_started"  # the perf_counter time the replay was started, while it plays
REPLAY_PREFIX = "cmp_replay_"  # + column index: that column's step slider (a new comparison drops them)

# run.py
STOP = "cmp_stop"

# state.py
RESULT = "cmp_result"

# view.py
FIG_ITL = "cmp_fig_itl"
FIG_KV = "cmp_fig_kv"
FIG_LATENCY = "cmp_fig_latency"
FIG_PEAK = "cmp_fig_peak"
FIG_WORK = "cmp_fig_work"
TABLE = "cmp_table"


def replay(i: int) -> str:
    """Column i's replay step slider."""
    return f"{REPLAY_PREFIX}{i}"


def column(field: str, i: int) -> str:
    """A column's setting: cmp_<field>_<column index>."""
    return f"cmp_{field}_{i}"


# Widgets whose option labels change with the language or the model: app.py hands them their value
# again after such a change (ui/widget_state.py says why).
TRANSLATED: tuple[str, ...] = ()
