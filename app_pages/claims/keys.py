"""Every st.session_state key of the claims page, widget keys included, named once: the page's
modules use these names, so a key is renamed in one place."""

# page.py
QUICK = "cl_quick"
ROUNDS = "cl_rounds"
RUN = "cl_run"

# panels.py

# run.py
RESULT = "cl_result"
RUNNING_FLAG = "cl_running_flag"
STOP = "cl_stop"

# Widgets whose option labels change with the language or the model: app.py hands them their value
# again after such a change (ui/widget_state.py says why).
TRANSLATED: tuple[str, ...] = ()
