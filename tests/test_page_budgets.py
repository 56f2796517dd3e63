"""scripts/page_budgets.py's table of pages stays in step with the pages: each row names a page of
the app, a button that page draws (by its widget key, or its label's catalogue key), and the
playground's tab markers name its keyed elements. (Timing the app is the script's job, on a quiet
machine; nothing is timed here.)"""

from __future__ import annotations

import importlib

import pytest

from app_pages import BY_NAME
from app_pages.playground import keys as playground_keys
from lab.catalogues import keys as catalogue_keys
from scripts.page_budgets import PAGES, PLAYGROUND_TABS, SKIPPED, PageBudget, verdict


def page_keys(page: str) -> set[str]:
    module = importlib.import_module(f"app_pages.{page}.keys")
    return {v for v in vars(module).values() if isinstance(v, str)}


@pytest.mark.parametrize("spec", PAGES, ids=lambda s: s.name)
def test_each_row_names_a_page_and_its_button(spec: PageBudget):
    assert spec.page in BY_NAME
    if spec.button.startswith("label:"):
        assert spec.button.removeprefix("label:") in catalogue_keys(spec.page)
    else:
        assert spec.button in page_keys(spec.page), f"{spec.page} has no widget key {spec.button}"


def test_every_page_is_timed_or_says_why_not():
    assert {p.page for p in PAGES} | set(SKIPPED) == set(BY_NAME)
    assert PageBudget("playground", "pg_run").path == "" and PageBudget("compare", "cmp_run").path == "compare"


def test_the_playground_markers_are_its_keyed_elements():
    keyed = [sel.removeprefix(".st-key-") for _, sel in PLAYGROUND_TABS if sel.startswith(".st-key-")]
    assert keyed and set(keyed) <= page_keys("playground") | {"pg_replay_step"}
    assert playground_keys.PASS_PROGRESS.endswith("_background")  # what wait_idle and the script wait for
    assert [tab for tab, _ in PLAYGROUND_TABS][-1] == "Memory"


def test_verdict_against_a_budget():
    assert verdict(None, 5.0) == "not seen"
    assert verdict(4.9, 5.0) == "within" and verdict(6.25, 5.0) == "over by 1.2 s"
