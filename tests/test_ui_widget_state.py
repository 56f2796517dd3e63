"""The shared widget-state rules, checked on the source: every choice widget whose labels can change
is re-sent after a language switch, and every settings widget keeps its value across page visits."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from app_pages import translated_widgets

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "ui").glob("*.py")) + sorted((ROOT / "app_pages").glob("*/*.py"))
TRANSLATED_WIDGETS = translated_widgets()  # what app.py re-sends
CHOICE_WIDGETS = {"radio", "selectbox", "select_slider", "segmented_control", "pills", "multiselect"}
SETTINGS_WIDGETS = CHOICE_WIDGETS | {"slider", "number_input", "text_input", "text_area", "toggle", "checkbox"}
# Its labels read the same in every language (the model boxes re-send themselves: ui/sidebar.model_box)
STABLE_LABELS = {"lang"}
FRAME = {"sidebar.py"}  # drawn by app.py on every page: Streamlit keeps those values anyway


def widget_calls(path: Path) -> list[tuple[str, dict[str, ast.expr]]]:
    """(widget name, keyword arguments) of every st.<widget>(...) or column.<widget>(...) call."""
    calls = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SETTINGS_WIDGETS:
            calls.append((node.func.attr, {k.arg: k.value for k in node.keywords if k.arg}))
    return calls


def key_value(path: Path, node: ast.expr | None) -> str | None:
    """A key written as a literal, or as `keys.NAME` of the page's keys.py (None: made at run time)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "keys":
        value = getattr(importlib.import_module(f"app_pages.{path.parent.name}.keys"), node.attr)
        return value if isinstance(value, str) else None  # keys.column(...) and the like: made at run time
    return None


def constant_keys(sources: list[Path]) -> set[str]:
    """Every key written in the code: a string literal, or a name of a page's keys.py that is used."""
    found = set()
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
            elif isinstance(node, ast.Attribute):
                found.add(key_value(path, node) or "")
    return found


def test_every_translated_key_exists_in_the_app():
    missing = set(TRANSLATED_WIDGETS) - constant_keys(SOURCES)
    assert not missing, f"keys listed as TRANSLATED but drawn nowhere: {missing}"


def unsent_formatted_choices(paths: list[Path]) -> list[str]:
    """Choice widgets whose formatted labels change with the language but are not re-sent on a switch.
    A format_func makes the browser hold a label; unless that label never changes, the key must be in
    TRANSLATED_WIDGETS (a key passed in as a variable is covered by the test above)."""
    found = []
    for path in paths:
        for name, kw in widget_calls(path):
            key = key_value(path, kw.get("key"))
            if name in CHOICE_WIDGETS and "format_func" in kw and key is not None:
                if key not in TRANSLATED_WIDGETS and key not in STABLE_LABELS:
                    found.append(f"{path.name}: {name}(key={key!r}) has formatted labels but is not re-sent")
    return found


def unkept_settings(paths: list[Path]) -> list[str]:
    """Settings widgets that lose their value on a page visit (no key, or no persist_state=KEEP)."""
    found = []
    for path in paths:
        if path.name in FRAME:
            continue
        for name, kw in widget_calls(path):
            keep = kw.get("persist_state")
            if not ("key" in kw and isinstance(keep, ast.Name) and keep.id == "KEEP"):
                found.append(f"{path.name}: a {name} without a key and persist_state=KEEP")
    return found


def test_choice_widgets_with_formatted_labels_are_resent():
    found = unsent_formatted_choices(SOURCES)
    assert not found, "\n".join(found)


def test_every_settings_widget_is_kept_across_page_visits():
    found = unkept_settings(SOURCES)
    assert not found, "\n".join(found)


def test_both_widget_rules_catch_a_planted_violation(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        'st.selectbox("Pick", [1, 2], format_func=str, key="planted_pick", persist_state=KEEP)\n'
        'st.slider("How many", 1, 9, key="planted_count")\n'
    )
    assert unsent_formatted_choices([planted]) == [
        "planted.py: selectbox(key='planted_pick') has formatted labels but is not re-sent"
    ]
    assert unkept_settings([planted]) == ["planted.py: a slider without a key and persist_state=KEEP"]
    assert sum(len(widget_calls(p)) for p in SOURCES) > 50  # the rules see the app's widgets
