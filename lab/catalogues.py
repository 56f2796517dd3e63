"""The app's words in every language, read from its gettext catalogues, without Streamlit: the lab and
the bench word their verdicts here, and the pages through ui/i18n.py (which adds the session's language).

    say("lang_label", "zh")                            -> "语言"
    say("cl_n_holds", "en", "claims", n=2)             -> "2 hold"   (a plural: its form is chosen by n)
    word(Message("why_busy", {"other": 1.5, "cores": 2}), "zh")     (a code and its numbers, worded)

One catalogue per language, assets/locale/<lang>/LC_MESSAGES/messages.po (Babel's layout), compiled to
messages.mo by `make`; a .mo missing or older than its .po is not trusted, and the .po is read instead,
so a fresh clone or a just-edited .po works without a build. A language is its folder: adding one takes
no code. Each message has a context (msgctxt): a page's folder name for that page's own words, "shared"
for the frame's, the kit's, the verdicts' and the capacity search's. A plural message has the forms of
its language's plural rule (the catalogue's Plural-Forms) and is counted by its value `n`.

The msgids are symbolic keys ("run", "why_c4_holds"), and English is a catalogue like any other:
- callers keep working as they were, `t("key", **values)`, and keys built from codes (a verdict's
  reason, a cause's code) need no table from code to English sentence;
- an English sentence can be reworded without orphaning its translations (an English msgid would
  change, and every translation of it would fall to fuzzy and out of the compiled catalogue);
- a translator's tool still sees the English: `make messages` writes the template
  (assets/locale/messages.pot) with each key's English text as its extracted comment, which `pybabel
  update` copies into every language's .po, and tools such as Weblate read en.po as the base of
  monolingual gettext.
A message missing from a catalogue is a KeyError, never a key shown to the reader.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

LOCALES = Path(__file__).resolve().parent.parent / "assets" / "locale"
DOMAIN = "messages"
SOURCE = "en"  # the language every other one is checked against, and the one the bench prints
SHARED = "shared"  # the context of the words several pages (and the lab) use

Text = str | tuple[str, ...]  # a message, or a plural's forms in its language's order


@dataclass(frozen=True)
class Catalogue:
    """One language's messages: {(context, key): text}."""

    lang: str  # its folder: the code the app and its session use ("en", "zh")
    locale: str  # its Language header ("zh_Hans"), the locale of its plural rule
    plural: Callable[[int], int]  # the count -> the index of the form
    texts: dict[tuple[str, str], Text]

    def text(self, key: str, context: str = SHARED) -> Text:
        try:
            return self.texts[(context, key)]
        except KeyError:
            raise KeyError(f"No message {key!r} in context {context!r} of the {self.lang!r} catalogue.") from None


@dataclass
class Message:
    """A code and its numbers, worded by `word` in any language; a value may be a Message or Joined itself."""

    key: str
    values: Mapping[str, object] = field(default_factory=dict)
    context: str = SHARED


@dataclass
class Joined:
    """Several messages in a row, between each two the message `by` (", ", " and ")."""

    parts: tuple[Message, ...]
    by: str
    context: str = SHARED


def po_file(lang: str, folder: Path | None = None) -> Path:
    return (folder or LOCALES) / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def _read_catalog(po: Path) -> Catalog:
    mo = po.with_suffix(".mo")
    if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
        with mo.open("rb") as f:
            return read_mo(f)
    with po.open("rb") as f:
        return read_po(f)


def _read(lang: str, po: Path) -> Catalogue:
    catalog = _read_catalog(po)
    texts: dict[tuple[str, str], Text] = {}
    for m in catalog:
        forms = (m.string,) if isinstance(m.string, str) else tuple(m.string)
        if not m.id or m.fuzzy or not all(forms):
            continue  # the header, and what compiling leaves out: fuzzy or untranslated messages
        key = m.id if isinstance(m.id, str) else m.id[0]
        texts[(m.context or "", key)] = m.string if isinstance(m.string, str) else forms
    return Catalogue(lang, catalog.locale_identifier or lang, gettext.c2py(catalog.plural_expr), texts)


@functools.cache
def _read_folder(folder: Path) -> dict[str, Catalogue]:
    found = sorted(p.name for p in folder.iterdir() if po_file(p.name, folder).is_file())
    if SOURCE not in found:
        raise FileNotFoundError(f"No {SOURCE} catalogue under {folder}.")
    return {lang: _read(lang, po_file(lang, folder)) for lang in [SOURCE, *(f for f in found if f != SOURCE)]}


def catalogues() -> dict[str, Catalogue]:
    """Every language present under LOCALES, English first, read once per process."""
    return _read_folder(LOCALES)


def catalogue(lang: str) -> Catalogue:
    try:
        return catalogues()[lang]
    except KeyError:
        raise KeyError(f"No catalogue for language {lang!r}; there are {', '.join(catalogues())}.") from None


def languages() -> dict[str, str]:
    """{code: the language's own name}, for the language picker."""
    return {lang: say("language_name", lang) for lang in catalogues()}


@functools.cache
def _keys(folder: Path, context: str) -> frozenset[str]:
    return frozenset(k for c, k in _read_folder(folder)[SOURCE].texts if c == context)


def keys(context: str = SHARED) -> frozenset[str]:
    """The keys of one context (in the English catalogue, the source)."""
    return _keys(LOCALES, context)


def has(key: str, context: str = SHARED) -> bool:
    return key in keys(context)


def say(key: str, lang: str = SOURCE, context: str = SHARED, /, **values) -> str:
    """One message in `lang`, its str.format fields filled from `values` (any name, "context" too); a
    plural's form chosen by n."""
    book = catalogue(lang)
    text = book.text(key, context)
    if isinstance(text, tuple):
        if "n" not in values:
            raise KeyError(f"{key!r} is a plural message: it is counted by a value n.")
        text = text[book.plural(abs(int(values["n"])))]
    return text.format(**values) if values else text


def word(message: Message | Joined, lang: str = SOURCE) -> str:
    """A message worded in `lang`, the messages among its values first."""
    if isinstance(message, Joined):
        return say(message.by, lang, message.context).join(word(p, lang) for p in message.parts)
    values = {k: word(v, lang) if isinstance(v, Message | Joined) else v for k, v in message.values.items()}
    return say(message.key, lang, message.context, **values)
