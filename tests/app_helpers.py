"""Reading and driving pages under AppTest: what several test files do to a page (the AppTest itself
comes from the `new_app` and `app` fixtures in conftest.py)."""

from __future__ import annotations

import re


def unescaped(elements) -> list[str]:
    """The texts of these elements as a reader sees them (pages backslash-escape Markdown in them)."""
    return [re.sub(r"\\(.)", r"\1", e.value) for e in elements]


def errors(at) -> list[str]:
    """The page's error messages, as the reader sees them."""
    return unescaped(at.error)


def table_with(at, column: str, partial: bool = False):
    """The first table holding this column (or, partial, a column whose name contains it): AppTest does
    not expose a dataframe's key."""
    for frame in at.dataframe:
        columns = frame.value.columns
        if column in columns or (partial and any(column in c for c in columns)):
            return frame.value
    raise LookupError(f"no table has a column {column!r}")


def html_bodies(at) -> str:
    """The page's HTML elements, without the style sheet."""
    return "\n".join(h.proto.body for h in at.get("html") if not h.proto.body.startswith("<style>"))


def count_chips(body: str, *classes: str) -> int:
    """Chips whose class attribute has all of `classes`."""
    attrs = re.findall(r'class="(pd-chip [^"]*)"', body)
    return sum(all(c in a.split() for c in classes) for a in attrs)


def run_playground(at, prompt: str, **settings):
    """Run `prompt` on the playground with the chat template off and these pg_ settings, and draw the
    page again once its second pass (memory, captured attention) has ended."""
    at.session_state["pg_prompt"] = prompt
    at.session_state["pg_chat"] = False
    for key, value in settings.items():
        at.session_state[f"pg_{key}"] = value
    return click_run(at)


def click_run(at):
    """Click the playground's Run and return the page as it is once the run's second pass has ended."""
    return after_second_pass(at.button(key="pg_run").click().run())


def after_second_pass(at, timeout_s: float = 120):
    """The playground's second pass runs in a thread of its own after the timed run (the page polls
    it): wait for it to end, then draw the page again, as the page's poll does."""
    job = at.session_state["pg_pass_job"] if "pg_pass_job" in at.session_state else None
    if job is None:
        return at
    assert job.finished.wait(timeout_s), "the second pass did not end"
    return at.run()


def upload_trace(at, content: bytes | str, name: str = "trace.json"):
    """Open a trace file on the playground, as its uploader does."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    at.file_uploader(key="pg_trace_upload").set_value((name, data, "application/json"))
    return at.run()


def run_sweep(at, Ls: str = "8, 32", Ns: str = "2, 6", repeats: int = 2):
    """A small sweep on the Sweeps page."""
    at.text_input(key="sw_Ls").set_value(Ls)
    at.text_input(key="sw_Ns").set_value(Ns)
    at.number_input(key="sw_new").set_value(3)
    at.number_input(key="sw_out_L").set_value(8)
    at.number_input(key="sw_repeats").set_value(repeats)
    return at.button(key="sw_run").click().run()


def table_problems(at, allow_cut: bool = False) -> list[str]:
    """Where the page's tables break the rule of ui/tables.py: a column label over the cap, a label
    that shows less than its column's text without that text as help, a first column (or shown index)
    not pinned, a static table's header over the cap; and, unless allow_cut, a label the fallback cut
    (a page gives its long labels a short message at their source)."""
    import json

    from ui.tables import ELLIPSIS, INDEX, fits

    problems = []
    for frame in at.dataframe:
        config = json.loads(frame.proto.columns or "{}")
        index_shown = not config.get(INDEX, {}).get("hidden", False)
        names = ([INDEX] if index_shown else []) + [str(c) for c in frame.value.columns]
        for name in names:
            cfg = config.get(name, {})
            label, full = cfg.get("label", name), name if name != INDEX else cfg.get("help", "")
            if not fits(label):
                problems.append(f"label over the cap: {label!r}")
            if name != INDEX and label != full and cfg.get("help") != full:
                problems.append(f"label {label!r} without its full text {full!r} as help")
            if not allow_cut and label.endswith(ELLIPSIS) and cfg.get("help"):
                problems.append(f"label cut, not shortened at its source: {cfg['help']!r}")
        if names and not config.get(names[0], {}).get("pinned"):
            problems.append(f"first column not pinned: {names[0]!r} of {names}")
    for table in at.table:
        problems += [f"static table header over the cap: {c!r}" for c in table.value.columns if not fits(str(c))]
    return problems
