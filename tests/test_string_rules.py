"""Rules every message of the app's catalogues keeps, one test per rule. Each rule walks every context
of them and fails listing every message that breaks it (context, key, text); each is shown to catch a planted
violation, so a rule that stopped looking would fail too.

- both languages fill in the same {fields};
- no string sends a visitor to a file of this repository (`bench/serving.py`, "the README");
- the Chinese side names its quantities in Chinese (tensor shapes in brackets, code spans,
  placeholders, link targets, tags and quoted values are exempt);
- every claim number in body text links to its claim (labels cannot hold links: `is_label`)."""

from __future__ import annotations

import re
import string
from collections.abc import Callable

from tests.text_support import LINKED, all_tables, bare_claims

Tables = dict[str, dict[str, tuple[str, str]]]
Rule = Callable[[str, tuple[str, str]], str | None]  # (key, (en, zh)) -> what is wrong, or None


def broken(rule: Rule, tables: Tables) -> list[str]:
    """Every string of `tables` that breaks `rule`, as 'table key: what is wrong'."""
    found = []
    for name, table in tables.items():
        for key, pair in table.items():
            problem = rule(key, pair)
            if problem:
                found.append(f"{name} {key}: {problem}")
    return found


def check(rule: Rule) -> None:
    found = broken(rule, all_tables())
    assert not found, f"{len(found)} string(s) break the rule:\n" + "\n".join(found)


def catches(rule: Rule, key: str, en: str, zh: str) -> bool:
    return bool(broken(rule, {"planted": {key: (en, zh)}}))


# --- both languages, the same fields ---------------------------------------------------------------------


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def same_fields(key: str, pair: tuple[str, str]) -> str | None:
    en, zh = pair
    if not (en.strip() and zh.strip()):
        return f"a language is empty: {pair!r}"
    if fields(en) != fields(zh):
        return f"the languages fill in different values: {sorted(fields(en))} vs {sorted(fields(zh))}"
    return None


def test_every_string_has_both_languages_with_the_same_fields():
    check(same_fields)


def test_the_fields_rule_catches_a_planted_violation():
    assert catches(same_fields, "k", "{n} tokens", "个")
    assert catches(same_fields, "k", "Run", " ")
    assert not catches(same_fields, "k", "{n} tokens", "{n} 个")


# --- no repository paths ------------------------------------------------------------------------------

REPO_PATH = re.compile(
    r"\b(?:engine|lab|ui|app_pages|bench|scripts|tests|assets|seed|docs)/[\w./-]*|\b[\w-]+\.(?:py|md|toml)\b"
    r"|\bREADME\b"
)


def no_repo_path(key: str, pair: tuple[str, str]) -> str | None:
    """Visitors of a served lab have no checkout: a path like `bench/serving.py` sends them nowhere."""
    hits = [m.group(0) for text in pair for m in REPO_PATH.finditer(text)]
    return f"names {hits}" if hits else None


def test_no_user_facing_string_names_a_repository_path():
    check(no_repo_path)


def test_the_repository_path_rule_catches_a_planted_violation():
    assert catches(no_repo_path, "k", "See seed/CLAIMS.md", "见说明")
    assert catches(no_repo_path, "k", "Run it", "见 README")
    assert not catches(no_repo_path, "k", "bench marks", "基准")


# --- Chinese quantities -------------------------------------------------------------------------------

ENGLISH_QUANTITIES = (
    "batch",
    "bytes",
    "heads",
    "hidden",
    "layers",
    "kv_heads",
    "head_dim",
    "vocab",
    "tokens",
    "bundled",
    "offline",
    "online",
)
# shapes, code, placeholders, link targets, tags, quoted values ('bundled' as typed)
EXEMPT = re.compile(r"\[[^\]]*\]|`[^`]*`|\{[^}]*\}|\([^)]*/[^)]*\)|<[^>]*>|'[^']*'")


def english_words(text: str) -> list[str]:
    bare = EXEMPT.sub(" ", text)
    return [w for w in ENGLISH_QUANTITIES if re.search(rf"(?<![\w_]){w}(?![\w_])", bare)]


def chinese_quantities(key: str, pair: tuple[str, str]) -> str | None:
    words = english_words(pair[1])
    return f"English {words} in {pair[1]!r}" if words else None


def test_chinese_text_names_its_quantities_in_chinese():
    check(chinese_quantities)


def test_the_chinese_rule_catches_what_it_was_written_for():
    assert english_words("SmolLM2（1 层，hidden 576）") == ["hidden"]
    assert english_words("公式：heads × L × L × bytes") == ["bytes", "heads"]
    assert english_words("SmolLM2-135M-Instruct (bundled, offline)") == ["bundled", "offline"]
    assert english_words("输入 [batch, 1, hidden]，见 `kv_heads`，{tokens} 个，不是 'bundled'") == []
    assert catches(chinese_quantities, "k", "heads", "heads 个")


# --- claim numbers link to their claims ------------------------------------------------------------------


def is_label(key: str) -> bool:
    """Strings drawn where Markdown links are not (tabs, titles, help tooltips, legends, table cells)."""
    return key.endswith(("_help", "_title")) or key.startswith(("tab_", "why_c", "sw_tr_")) or "_tab_" in key


def claims_linked(key: str, pair: tuple[str, str]) -> str | None:
    if is_label(key):
        return None
    bare = [c for text in pair for c in bare_claims(text)]
    return f"bare claim number(s) {bare}: {pair[0][:200]!r}" if bare else None


def test_every_claim_number_in_body_text_is_a_link():
    check(claims_linked)


def test_the_claim_link_rule_catches_a_planted_violation_and_has_links_to_check():
    assert catches(claims_linked, "k", "as C12 says", "如 C12 所说")
    assert catches(claims_linked, "k", "[C12](/claims?claim=C13)", "[C12](/claims?claim=C12)")  # the wrong claim
    assert not catches(claims_linked, "k", "[C12](/claims?claim=C12)", "[C12](/claims?claim=C12)")
    assert not catches(claims_linked, "tab_k", "C12", "C12")  # a label: links cannot be drawn there
    linked = sum(bool(LINKED.search(en)) for t in all_tables().values() for k, (en, _) in t.items() if not is_label(k))
    assert linked >= 20
