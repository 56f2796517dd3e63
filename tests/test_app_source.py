"""The source page says how many claims the lab checks, and that count is the Claims page's."""

from __future__ import annotations

from app_pages import page_file
from lab.claims import CLAIM_IDS

PAGE = page_file("source")


def test_the_source_counts_the_claims_the_claims_page_checks(app):
    intro = next(m.value for m in app.markdown if "claims**" in m.value)
    assert f"**{len(CLAIM_IDS)} claims**" in intro and f"claim={CLAIM_IDS[-1]})" in intro
    assert "23 claims" not in intro or len(CLAIM_IDS) == 23
    shown = " ".join(c.value for c in app.caption)
    assert all(f"claim={c})" in shown for c in CLAIM_IDS)  # every claim under its section
