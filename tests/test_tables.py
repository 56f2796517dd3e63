"""The tables rule (ui/tables.py): every table a page shows has short column labels (at most LABEL_CAP
display characters, a CJK character counting two) with the full text as the column's help, is as wide
as the page, and pins its first column. Held three ways: the helper's own behaviour, no page drawing a
table any other way, and every page's default render in both languages; each rule is shown to catch a
planted violation."""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from app_pages import PAGES, page_file
from tests.app_helpers import table_problems
from ui.tables import (
    INDEX,
    LABEL_CAP,
    display_width,
    fits,
    short_label,
    short_labels,
    table_config,
)

ROOT = Path(__file__).resolve().parent.parent
TABLE_CALLS = {"dataframe", "table", "data_editor"}  # Streamlit's ways to draw a table
HELPER = ROOT / "ui" / "tables.py"


# --- the helper -----------------------------------------------------------------------------------------


def test_a_cjk_character_counts_two():
    assert display_width("TTFT (ms)") == 9
    assert display_width("长提示 TTFT（ms）") == 6 + 1 + 4 + 6
    assert fits("x" * LABEL_CAP) and not fits("x" * (LABEL_CAP + 1))
    assert fits("中" * (LABEL_CAP // 2)) and not fits("中" * (LABEL_CAP // 2 + 1))


def test_a_label_over_the_cap_is_cut_at_a_word_and_a_short_one_is_kept():
    assert short_label("TTFT (ms)") == "TTFT (ms)"
    cut = short_label("hand-off transfer, median (ms)")
    assert cut == "hand-off transfer…" and fits(cut)
    assert short_label("a long label that goes on and on (ms)") == "a long label that goes…"
    chinese = short_label("每个 token 读取的权重（毫秒）与其他很多字")
    assert fits(chinese) and chinese.endswith("…")


def test_the_config_keeps_the_full_text_as_help_and_pins_the_first_column():
    long = "hand-off transfer, median (ms)"
    frame = pd.DataFrame({"set-up": ["pd"], long: [3], "TTFT (ms)": [1]})
    config = table_config(frame, short={long: "transfer (ms)"})
    assert config["set-up"] == {"label": "set-up", "pinned": True}
    assert config[long] == {"label": "transfer (ms)", "help": long}
    assert config["TTFT (ms)"] == {"label": "TTFT (ms)"}  # short already: no help to repeat it
    assert table_config(frame)[long] == {"label": "hand-off transfer…", "help": long}  # the fallback


def test_a_shown_index_is_pinned_and_a_given_config_is_kept():
    frame = pd.DataFrame({"Column 1 (KV cache on · eager · float32)": ["1.0"]}, index=pd.Index(["TTFT"], name="metric"))
    name = frame.columns[0]
    config = table_config(frame, {name: "Column 1"}, {name: {"type_config": {"type": "text"}}}, hide_index=False)
    assert config[INDEX]["pinned"] and config[INDEX]["label"] == "metric"
    assert config[name] == {"type_config": {"type": "text"}, "label": "Column 1", "help": name}


def test_short_labels_read_the_message_beside_the_long_one():
    from app_pages.disaggregation.strings import t

    for lang in ("en", "zh"):
        short = short_labels(t, lang, "dg_col_transfer")
        assert list(short) == [t("dg_col_transfer", lang)] and fits(short[t("dg_col_transfer", lang)])


# --- no page draws a table any other way -----------------------------------------------------------------


def table_calls(source: str) -> list[int]:
    """Lines of `source` that draw a table with Streamlit's own call (st.dataframe, a placeholder's
    .table, st.data_editor) rather than ui/tables.py."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TABLE_CALLS
    ]


def test_every_table_goes_through_the_helper():
    found = []
    for path in sorted([*(ROOT / "app_pages").rglob("*.py"), *(ROOT / "ui").rglob("*.py"), ROOT / "app.py"]):
        if path != HELPER:
            found += [f"{path.relative_to(ROOT)}:{n}" for n in table_calls(path.read_text(encoding="utf-8"))]
    assert not found, f"tables drawn without ui/tables.py (show_table, edit_table, show_static_table): {found}"


def test_the_helper_rule_catches_a_planted_direct_call():
    planted = "import streamlit as st\nbox = st.empty()\nst.dataframe(frame)\nbox.table(frame)\nst.data_editor(f)\n"
    assert table_calls(planted) == [3, 4, 5]
    assert table_calls("from ui.tables import show_table\nshow_table(frame, key='k')\n") == []


# --- every page's tables, as drawn ----------------------------------------------------------------------


def _planted_page():
    import pandas as pd
    import streamlit as st

    from ui.tables import show_table

    st.dataframe(pd.DataFrame({"hand-off transfer, median (ms)": [1]}), hide_index=True)  # not the helper
    show_table(pd.DataFrame({"set-up": ["pd"], "chats' longest gap ÷ whole's": [1.0]}))  # the fallback cut it


def test_the_page_rule_catches_a_planted_violation():
    problems = table_problems(AppTest.from_function(_planted_page).run())
    assert any("over the cap: 'hand-off transfer, median (ms)'" in p for p in problems), problems
    assert any("not pinned" in p for p in problems), problems
    assert any("cut, not shortened at its source" in p for p in problems), problems
    assert not [p for p in table_problems(AppTest.from_function(_planted_page).run(), True) if "cut" in p]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_draws_its_tables_by_the_rule(new_app, tiny_dirs, monkeypatch, lang):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app(300).run()
    if lang != "en":
        at = at.sidebar.radio(key="lang").set_value(lang).run()
    found, tables = {}, 0
    for page in PAGES:
        at.switch_page(page_file(page.name)).run()
        assert not at.exception, (page.name, [e.value for e in at.exception])
        tables += len(at.dataframe) + len(at.table)
        if problems := table_problems(at):
            found[page.name] = problems
    assert not found, found
    assert tables >= 8, "the walk met fewer tables than the pages draw at their defaults"


def test_a_header_with_the_machines_load_keeps_its_mark_in_sight():
    """A ratio column named with the load beside it ("… · ⚠ 1.2/2 cores busy with other work") is cut
    to fit, but its ⚠ stays in the label and the reading in the help."""
    name = "B ÷ A [95 % interval], n · ⚠ 1.2/2 cores busy with other work"
    label = short_label(name)
    assert label.endswith(" ⚠") and fits(label) and label.startswith("B ÷ A")
    config = table_config(pd.DataFrame({name: ["1.0×"]}))
    assert config[name]["label"] == label and config[name]["help"] == name
