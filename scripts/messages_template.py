"""Writes the translators' template, assets/locale/messages.pot (`make messages` runs it, then `pybabel
update` and `pybabel compile`). The messages are the English catalogue's keys, in its contexts and
order, plurals included; each carries, as comments a translator's tool shows beside it, its English
text and the notes written for it, and, as references, the files that name it (Babel's extraction of
the `t`, `say` and `Message` calls whose key is a literal; keys built at run time have none).

    .venv/bin/python scripts/messages_template.py
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from babel.messages.catalog import Catalog  # noqa: E402
from babel.messages.extract import extract_from_dir  # noqa: E402
from babel.messages.pofile import read_po, write_po  # noqa: E402

from lab.catalogues import LOCALES, SHARED, SOURCE, po_file  # noqa: E402

CALLS = {"t": (1,), "say": (1,), "Message": (1,)}  # the key is the first argument
CODE = ("app.py", "app_pages", "ui", "lab", "bench")


def references(known: dict[str, set[str]]) -> dict[tuple[str, str], list[tuple[str, None]]]:
    """{(context, key): [(file, None)]} for every literal key of a known message in the code: a page's
    file names its own context's keys first, then the shared ones. Files without line numbers, so that
    editing the code does not change every catalogue."""
    found: dict[tuple[str, str], list[tuple[str, None]]] = {}
    for top in CODE:
        method_map = [("**.py", "python")] if (ROOT / top).is_dir() else [(top, "python")]
        folder = ROOT / top if (ROOT / top).is_dir() else ROOT
        with contextlib.redirect_stderr(io.StringIO()):  # one warning per key built at run time: expected
            extracted = list(extract_from_dir(folder, method_map, keywords=CALLS, comment_tags=()))
        for name, _, key, _, _ in extracted:
            if not isinstance(key, str):
                continue
            path = (folder / name).relative_to(ROOT).as_posix()
            parts = path.split("/")
            page = parts[1] if parts[0] == "app_pages" and len(parts) > 2 else None
            context = page if page and key in known.get(page, ()) else SHARED
            if key in known.get(context, ()) and (path, None) not in found.get((context, key), []):
                found.setdefault((context, key), []).append((path, None))
    return found


def english_comments(message) -> list[str]:
    if isinstance(message.string, str):
        return [f"English: {message.string}"]
    return [f"English, {n}: {form}" for n, form in zip(("singular", "plural"), message.string)]


def template() -> Catalog:
    with po_file(SOURCE).open("rb") as f:
        english = read_po(f)
    known: dict[str, set[str]] = {}
    for m in english:
        if m.id:
            known.setdefault(m.context, set()).add(m.id if isinstance(m.id, str) else m.id[0])
    where = references(known)
    pot = Catalog(
        domain="messages",
        project=english.project,
        version=english.version,
        copyright_holder=english.copyright_holder,
        creation_date=english.creation_date,  # a fixed date: `make messages` on an unchanged tree changes nothing
        header_comment="# The prefill/decode lab's messages, the template of every language's catalogue.",
        fuzzy=False,
    )
    for m in english:
        if m.id:
            key = m.id if isinstance(m.id, str) else m.id[0]
            pot.add(
                m.id,
                context=m.context,
                auto_comments=[*m.auto_comments, *english_comments(m)],
                locations=where.get((m.context, key), ()),
            )
    return pot


def main() -> None:
    out, pot = LOCALES / "messages.pot", template()
    with out.open("wb") as f:
        write_po(f, pot)
    print(f"{len(pot)} messages in {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
