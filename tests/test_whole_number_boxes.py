"""Every count box reads "1e3" as 1000. Streamlit's browser side reads what is typed into a whole-number
(int) st.number_input with parseInt, so "1e3" became 1; ui/widgets.whole_number_box is a float box (read
with parseFloat) rounded back to a whole number. These tests hold that no page draws an int box."""

from __future__ import annotations

import ast
from pathlib import Path

from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.testing.v1 import AppTest

from app_pages import page_file
from ui.widgets import whole_number

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "ui").glob("*.py")) + sorted((ROOT / "app_pages").glob("*/*.py"))
# Keys of int boxes left as they are, each with its reason. Empty: every count is a whole_number_box.
INT_BOXES_ALLOWED: set[str] = set()
# Count boxes each page draws before anything is run (the walk below must meet them, or it proves nothing)
EXPECTED = {
    "playground": {"pg_max_new", "pg_top_k", "pg_seed"},
    "memory": {"mem_fit_L", "mem_fit_chunk", "mem_fit_batch", "mem_heat_new", "mem_leak_n", "mem_leak_new"},
    "complexity": {"cx_L", "cx_N", "cx_we_max_new"},
    "serving": {
        "sv_batch",
        "sv_budget",
        "sv_pool",
        "sv_head-of-line_num_streams",
        "sv_shared-prefix_output",
        "sv_random-mix_seed",
    },
    "compare": {"cmp_repeats", "cmp_top_k_0", "cmp_seed_0", "cmp_max_new_0"},
    "roofline": {"rf_L", "rf_steps", "rf_cal_N", "rf_cal_repeats", "rf_pj_context", "rf_pj_batch"},
    "sweeps": {"sw_new", "sw_repeats", "sw_out_L"},
    "remote": {"rm_timeout"},
    "precision": {"pr_quality_tokens", "pr_repeats", "pr_budget", "pr_cap_context"},
}


def test_whole_number_rounds_as_the_box_shows_and_keeps_an_empty_box_empty():
    assert whole_number(999.6) == 1000 and type(whole_number(999.6)) is int
    assert whole_number(32) == 32 and type(whole_number(32.0)) is int
    assert whole_number(None) is None  # an empty seed box is no seed, not seed 0


def _seed_box_script():
    import streamlit as st

    from ui.widgets import whole_number_box

    st.session_state.setdefault("seed", None)  # as the playground seeds it: empty, no seed
    st.session_state["read"] = whole_number_box(st, "seed", 0, None, "seed", value=None, placeholder="none")


def test_an_empty_seed_box_gives_none_and_a_typed_one_a_whole_number():
    at = AppTest.from_function(_seed_box_script).run()
    box = at.number_input(key="seed")
    assert box.proto.data_type == NumberInput.FLOAT and box.proto.format == "%.0f" and not box.proto.has_max
    assert box.value is None and at.session_state["read"] is None
    at = box.set_value(1000.0).run()  # what the browser sends for "1e3"
    assert at.session_state["read"] == 1000 and type(at.session_state["read"]) is int
    at = at.number_input(key="seed").set_value(None).run()  # the box emptied again
    assert at.session_state["read"] is None


def _float_bound(node: ast.expr | None) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, float)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"
    )


def test_every_number_input_in_the_code_is_a_float_box():
    """Also the boxes the walk below cannot reach without a run (the precision results, the remote page
    once connected): an int min_value makes Streamlit draw an int box. A count goes through
    whole_number_box (whose float(lo) passes here); a fraction has float bounds."""
    found = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "number_input":
                kw = {k.arg: k.value for k in node.keywords}
                low = kw.get("min_value", node.args[1] if len(node.args) > 1 else None)
                if not _float_bound(low):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"number_input with an int (or no) min_value, read with parseInt: {found}"


def test_no_page_draws_an_int_number_box(new_app, tiny_dirs, monkeypatch):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app(300).run()
    int_boxes, seen = {}, {}
    for page in EXPECTED:
        at.switch_page(page_file(page)).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        boxes = list(at.number_input)
        if page == "serving":  # each preset draws its own numbers
            for preset in ("shared-prefix", "random-mix"):
                at = at.radio(key="sv_preset").set_value(preset).run()
                assert not at.exception, (page, preset, [e.value for e in at.exception])
                boxes += list(at.number_input)
        seen[page] = {box.key for box in boxes}
        int_boxes.update(
            {
                box.key: page
                for box in boxes
                if box.proto.data_type == NumberInput.INT and box.key not in INT_BOXES_ALLOWED
            }
        )
    assert not int_boxes, f"int number boxes (typing 1e3 gives 1): {int_boxes}"
    missing = {page: keys - seen[page] for page, keys in EXPECTED.items() if keys - seen[page]}
    assert not missing, f"count boxes the walk did not meet: {missing}"


def test_typed_counts_reach_the_share_link_and_the_sampling_title_as_whole_numbers(new_app, tiny_dirs, monkeypatch):
    """A float box holds 1000.0: the link, the run and the labels must still say 1000."""
    from urllib.parse import parse_qsl, urlsplit

    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app(120).run()
    at.number_input(key="pg_temperature").set_value(0.7)
    at.number_input(key="pg_max_new").set_value(9.0)
    at.number_input(key="pg_top_k").set_value(1000.0)  # what the browser sends for "1e3"
    at.number_input(key="pg_seed").set_value(7.0)
    at = at.button(key="pg_share").click().run()
    assert not at.exception, [e.value for e in at.exception]
    query = dict(parse_qsl(urlsplit(at.code[0].value).query))
    assert (query["max_new_tokens"], query["top_k"], query["seed"]) == ("9", "1000", "7"), query
    assert any("top-k 1000" in e.label and "7.0" not in e.label for e in at.expander), [e.label for e in at.expander]


def test_a_kept_count_above_the_context_is_lowered_to_it_not_reset(new_app, tiny_dirs, monkeypatch):
    """max_new_tokens kept from a model with a longer context is a float (the box's): it comes down to
    this model's context, as an int would (a value out of the box's bounds would be reset to 1)."""
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))  # context 512
    at = new_app(120)
    at.session_state["pg_max_new"] = 5000.0
    at = at.run()
    assert not at.exception and at.number_input(key="pg_max_new").value == 512
    assert any("5000" in w.value and "5000.0" not in w.value for w in at.warning), [w.value for w in at.warning]
