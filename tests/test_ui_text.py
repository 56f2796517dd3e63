"""Text the app shows: the catalogues of messages, token chips and their escaping, the C12 step table."""

from __future__ import annotations

import re

import pytest
from babel.messages.catalog import Catalog

from app_pages import PAGES
from app_pages.playground.step_table import produced_labels, step_table, worked_example_md
from app_pages.playground.strings import t
from lab import catalogues as catalogues_module
from lab.catalogues import SHARED, SOURCE, Joined, Message, catalogues, keys, languages, po_file, say, word
from tests.text_support import all_tables, write
from tests.ui_support import run_to_end
from ui.chips import chips_html
from ui.i18n import page_translator
from ui.text import md_escape, quoted
from ui.tokens import piece_for, piece_text

XSS = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>"]


def test_no_key_is_defined_in_two_tables():
    """A page looks in its own context, then the shared one: a key in two contexts would show the wrong text."""
    seen: dict[str, str] = {}
    for name, table in all_tables().items():
        for key in {k.split("[")[0] for k in table}:  # a plural's rows are one key
            assert key not in seen, f"{key} is in both {seen[key]} and {name}"
            seen[key] = name
    assert set(all_tables()) == {SHARED} | {p.name for p in PAGES}  # a context per page, and the shared one
    assert set(keys(SHARED)) == {k.split("[")[0] for k in all_tables()[SHARED]}


def test_a_page_table_may_not_shadow_a_shared_key(tmp_path, monkeypatch):
    planted = Catalog(locale="en")
    planted.add("language_name", "English", context=SHARED)
    planted.add("lang_label", "Language", context=SHARED)
    planted.add("lang_label", "Language", context="planted")
    write(planted, po_file("en", tmp_path))
    monkeypatch.setattr(catalogues_module, "LOCALES", tmp_path)
    with pytest.raises(RuntimeError, match="repeat shared keys: lang_label"):
        page_translator("planted")
    with pytest.raises(RuntimeError, match="No messages in context 'nowhere'"):
        page_translator("nowhere")


def test_t_picks_the_language():
    assert set(catalogues()) == {"en", "zh"} and languages() == {"en": "English", "zh": "简体中文"}
    assert t("run", "en") == "Run" and t("run", "zh") == "运行"
    assert t("replay_speed_fmt", "zh", n=4) == "每秒 4 步"


def test_a_missing_message_is_a_loud_error():
    with pytest.raises(KeyError, match="No message 'no_such_key' in context 'shared'"):
        t("no_such_key", "en")
    with pytest.raises(KeyError, match="No catalogue for language 'xx'"):
        t("run", "xx")
    with pytest.raises(KeyError, match="counted by a value n"):
        say("queue_ahead", "en", s=1.0)  # a plural without its count


def test_plurals_follow_each_languages_rule():
    """English has a form for one and one for the rest, Chinese one form: no "(s)", no `_1` keys."""
    claims_t = page_translator("claims")
    assert [claims_t("cl_n_holds", "en", n=n) for n in (1, 2, 0)] == ["1 holds", "2 hold", "0 hold"]
    assert [claims_t("cl_n_holds", "zh", n=n) for n in (1, 2)] == ["1 条成立", "2 条成立"]
    assert say("run_stopped", "en", n=1) == "Stopped after 1 generated token; below is what ran."
    assert say("run_stopped", "en", n=3) == "Stopped after 3 generated tokens; below is what ran."
    en = [text for text in catalogues()["en"].texts.values() for text in ([text] if isinstance(text, str) else text)]
    assert not [text for text in en if re.search(r"\w\(s\)", text)]  # "token(s)": a plural said by hand
    assert not [key for _, key in catalogues()["en"].texts if key.endswith("_1")]


def test_every_language_has_every_message_with_the_same_fields():
    """The catalogues' parity, in every language present (a third one included): every English
    message translated, as many forms as the language's rule has, the same str.format fields."""
    english = catalogues()[SOURCE].texts
    for lang, book in catalogues().items():
        forms = len({book.plural(n) for n in range(200)})
        for where, text in english.items():
            assert where in book.texts, f"{where} has no {lang} translation"
            theirs = book.texts[where]
            assert isinstance(theirs, str) == isinstance(text, str), where
            if not isinstance(text, str):
                assert len(theirs) == forms, (lang, where)
            fields = {f for x in ([text] if isinstance(text, str) else text) for f in re.findall(r"{(\w+)", x)}
            own = {f for x in ([theirs] if isinstance(theirs, str) else theirs) for f in re.findall(r"{(\w+)", x)}
            assert own == fields, (lang, where, own, fields)


def test_a_verdict_is_a_code_worded_from_the_catalogues():
    message = Message("search_answer_nothing", {"stopped": Message("search_stop_budget")})
    assert word(message) == "Nothing was measured (the time budget ran out)."
    assert word(message, "zh") == "什么也没测到（时间预算用完）。"
    both = Joined((Message("search_slo_threshold", {"name": "TTFT", "ms": 100.0}),) * 2, by="slo_and")
    assert word(both) == "TTFT ≤ 100 ms and TTFT ≤ 100 ms" and word(both, "zh") == "TTFT ≤ 100 ms 且 TTFT ≤ 100 ms"


@pytest.fixture(scope="module")
def xss_runs(tiny):
    return [run_to_end(tiny, prompt=p, max_new_tokens=3) for p in XSS]


def test_chips_escape_the_prompt(xss_runs):
    for run, prompt in zip(xss_runs, XSS):
        html = chips_html(run)
        assert "<script" not in html and "<img" not in html
        shown = "".join(p.label for p in run.prompt)
        assert shown == prompt  # the chips spell the prompt exactly, token by token
        assert "&lt;" in html


def test_chip_states_follow_the_steps(xss_runs):
    run = xss_runs[0]
    before = chips_html(run, upto_step=-1)
    assert before.count("pd-pending") == run.num_prompt_tokens and "pd-out" not in before
    after_prefill = chips_html(run, upto_step=0)
    assert after_prefill.count("pd-in") == run.num_prompt_tokens and "pd-pending" not in after_prefill
    assert after_prefill.count("pd-out") == 1 and "step 0 ·" in after_prefill
    assert chips_html(run).count("pd-out") == len(run.tokens)
    assert chips_html(run, upto_step=1).count("pd-current") == 1


def test_markdown_escape_neutralises_markup():
    for text in XSS + ["[x](javascript:alert(1))", "**bold** $x$ :material/home:"]:
        escaped = md_escape(text)
        assert all(f"\\{c}" in escaped for c in "<[*$:" if c in text)


def test_byte_pieces_for_chinese(tiny):
    ids = tiny.tokenizer("今天天气").input_ids
    pieces = [piece_for(tiny.tokenizer, i) for i in ids]
    assert len(ids) == 9 and all(p.is_bytes for p in pieces)  # byte-level BPE: 9 tokens, not 4
    assert bytes.fromhex(" ".join(p.label for p in pieces)).decode() == "今天天气"
    assert piece_text(pieces[0]) == "0xe4 0xbb"


def test_step_table_reproduces_the_worked_example(tiny):
    run = run_to_end(tiny, prompt="今天天气", max_new_tokens=3)
    m, L = run.model, run.num_prompt_tokens
    table = step_table(run.steps, produced_labels(run))
    assert list(table["step"]) == [0, 1, 2] and list(table["phase"]) == ["prefill", "decode", "decode"]
    assert table["input"][0] == f"[1, {L}, {m.hidden_size}]"
    assert table["scores"][0] == f"[1, {m.num_heads}, {L}, {L}]"
    assert table["scores"][1] == f"[1, {m.num_heads}, 1, {L + 1}]"
    kv = "KV cache"  # the dimension names are in the caption under the table (cut off up here)
    assert table[kv][2] == f"[{m.num_layers}, 2, {L + 2}, {m.num_kv_heads}, {m.head_dim}]"
    assert list(table["token produced"]) == [quoted(piece_text(p)) for p in run.pieces]
    text = worked_example_md(run)
    assert f"**{L} tokens**" in text and f"{L}×{L}" in text and f"1×{L + 1}" in text
    assert f"kv_heads = {m.num_kv_heads}**" in text  # GQA: the source's num_heads would be wrong here


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_worked_example_follows_the_kv_cache_setting(tiny, lang):
    """With the cache off the walk-through said "goes in as [1, 1, hidden]; the KV cache grows"
    while the step table's rows said [1, L+1, hidden] (recomputed)."""
    run = run_to_end(tiny, prompt="今天天气", max_new_tokens=3, kv_cache=False)
    m, L = run.model, run.num_prompt_tokens
    table = step_table(run.steps, produced_labels(run), lang)
    shown = table[t("tbl_input", lang)]
    assert shown[1] == f"[1, {L + 1}, {m.hidden_size}]"  # the row: the whole context again
    text = worked_example_md(run, lang)
    assert f"[1, {L + 1}, {m.hidden_size}]" in text and f"{L + 1}×{L + 1}" in text
    assert f"[1, 1, {m.hidden_size}]" not in text and f"{L} → {L + 1}" not in text
    cached = worked_example_md(run_to_end(tiny, prompt="今天天气", max_new_tokens=3), lang)
    assert f"[1, 1, {m.hidden_size}]" in cached and f"{L} → {L + 1}" in cached


def test_byte_tokens_are_grouped_under_the_character_they_make(tiny):
    """The worked example's chips showed raw bytes ("e4 bb", "8a", …) with nothing to say they
    spell 今天天气; now each run of byte tokens is boxed under its text, with "N tokens → 今" on hover."""

    ids = tiny.tokenizer("今天天气").input_ids
    pieces = [piece_for(tiny.tokenizer, i) for i in ids]
    from ui.tokens import byte_groups

    groups = byte_groups(pieces)
    assert "".join(text for _, text in groups.values()) == "今天天气"
    assert sum(end - start for start, (end, _) in groups.items()) == len(ids)  # every byte token in a group
    run = run_to_end(tiny, prompt="今天天气", max_new_tokens=2, chat=False)
    html = chips_html(run)
    shown = re.findall(r'class="pd-group-text">([^<]*)<', html)
    assert "".join(shown).startswith("今天天气")
    assert re.search(r'title="\d tokens → 今', html)
    assert "pd-group" not in chips_html(run_to_end(tiny, prompt="Hello there", max_new_tokens=2, chat=False))


def test_chart_axes_name_the_character_a_byte_token_belongs_to(tiny):
    """The attention heatmap's axes showed raw bytes ("e4 bb") where the chips group them; each byte
    token is now labelled with its character and which of its bytes it is."""
    from ui.tokens import axis_labels, byte_groups

    pieces = [piece_for(tiny.tokenizer, i) for i in tiny.tokenizer("Hi 今天").input_ids]
    labels, groups = axis_labels(pieces), byte_groups(pieces)
    assert (
        len(labels) == len(pieces) and labels[0] == "Hi" and any(end - start > 1 for start, (end, _) in groups.items())
    )
    for start, (end, text) in groups.items():
        n = end - start
        assert labels[start:end] == ([f"{text} {k}/{n}" for k in range(1, n + 1)] if n > 1 else [text])
    assert not any(re.fullmatch(r"[0-9a-f]{2}( [0-9a-f]{2})*", label) for label in labels)


def test_downloads_are_named_by_what_they_hold_and_when():
    """Every download had one fixed name, so a second one collided with the first."""
    from ui.text import download_name, slug

    assert slug("Why is the sky blue?") == "why-is-the-sky-blue"
    assert slug("今天天气 <script>") == "今天天气-script"
    a = download_name("trace", "SmolLM2-135M-Instruct", "Why is the sky blue?", ext="json", when=0)
    assert a.startswith("trace_smollm2-135m-instruct_why-is-the-sky-blue_19700101-") and a.endswith(".json")
    assert download_name("trace", "m", "Hello", ext="json", when=0) != download_name(
        "trace", "m", "Hello", ext="json", when=1
    )
    assert "/" not in download_name("x", "../../etc/passwd", ext="csv")


def test_a_long_prompt_shows_its_ends_and_a_count(tiny):
    """A 678-token prompt pushed decode ~2,000 px below the fold: a long prompt now shows its first and
    last PROMPT_ENDS chips and how many are left out; a short one shows all of them."""
    from ui.chips import PROMPT_ENDS

    run = run_to_end(tiny, prompt="the cat sat on the mat " * 60, max_new_tokens=2, chat=False)
    n = run.num_prompt_tokens
    assert n > 3 * PROMPT_ENDS
    body = chips_html(run)
    assert len(re.findall(r'class="pd-chip pd-prefill pd-in', body)) == 2 * PROMPT_ENDS
    assert f"… {n - 2 * PROMPT_ENDS:,} more prompt tokens …" in body
    assert len(re.findall(r"pd-out", body)) == len(run.tokens)  # the output is whole
    short = run_to_end(tiny, prompt="the cat sat on the mat", max_new_tokens=2, chat=False)
    assert "more prompt tokens" not in chips_html(short)
    assert len(re.findall(r'class="pd-chip pd-prefill pd-in', chips_html(short))) == short.num_prompt_tokens
