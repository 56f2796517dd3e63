"""The source document's sections, the claims each makes (lab/claims.py numbers them) and the lab
pages that show them: the table the source page draws."""

from __future__ import annotations

from dataclasses import dataclass

from lab.claims import CLAIM_IDS, CLAIM_PAGES


@dataclass(frozen=True)
class Section:
    number: str  # "5.1"; "" for the chapter's summary
    key: str  # the strings key of its title and summary (src_<key>_title, src_<key>_text)
    claims: tuple[str, ...]


SECTIONS = (
    Section("5.1", "prefill", ("C1", "C2", "C3", "C4", "C5")),
    Section("5.2", "decode", ("C6", "C7", "C8", "C9")),
    Section("5.3", "table", ("C10", "C11")),
    Section("5.4", "example", ("C12",)),
    Section("5.5", "complexity", ("C13", "C14", "C15", "C24")),
    Section("5.6", "production", ("C16", "C17", "C18", "C19", "C20")),
    Section("5.7", "chunked", ("C21", "C22")),
    Section("", "summary", ("C23",)),
)


def pages_of(section: Section) -> list[str]:
    """The lab pages that show a section's claims, in the order its claims name them."""
    return list(dict.fromkeys(CLAIM_PAGES[c] for c in section.claims))


def intro_numbers() -> dict[str, int]:
    """The intro's counts, from the claims the lab checks (lab/claims.py): the document's, C1 to the
    last but one, then the one the lab adds (C24, the conflict between the phases)."""
    return {"n": len(CLAIM_IDS), "last_doc": len(CLAIM_IDS) - 1, "extra": 1}
