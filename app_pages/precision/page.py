"""Precision lab (C19): weight formats and KV cache dtypes of the loaded model, each loaded, its work
counted, timed beside float32 and scored against it; the bytes a decode step reads at any context and
batch; what fits on a GPU."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.precision import keys
from app_pages.precision.capacity import render_capacity
from app_pages.precision.figures import bytes_figure, ratio_figure
from app_pages.precision.notes import bf16_note
from app_pages.precision.run import current, measure_formats, render_controls
from app_pages.precision.strings import t
from app_pages.precision.tables import quality_table, samples_table, time_table, work_short, work_table
from lab.pairing import BUSY_MARGIN
from ui.i18n import current_lang
from ui.models import get_registry, load_for_page
from ui.paired import explain_text, retaken_text
from ui.queue_wait import take_turn
from ui.sidebar import CHOICE_KEY
from ui.tables import show_static_table, show_table
from ui.text import md_literal
from ui.widgets import whole_number_box

lang = current_lang()
st.title(t("pr_title", lang))
st.markdown(t("pr_intro", lang))

choice = st.session_state[CHOICE_KEY]
bundle = load_for_page(choice, lang)
if render_controls(lang) and bundle is not None:
    reference = bundle if bundle.model.dtype.itemsize == 4 and bundle.model.weight_format == "native" else None
    with take_turn(lang) as go:
        if go:
            measure_formats(choice.spec, reference, get_registry(), lang)

run = current()
if run is None or not run.results:
    st.info(t("pr_not_run", lang))
else:
    if run.stopped or len(run.results) < len(run.settings.configs):
        st.warning(t("pr_stopped", lang, n=len(run.results)), icon=":material/stop_circle:")
    else:
        st.success(
            t("pr_done", lang, n=len(run.results), model=md_literal(run.model.name)), icon=":material/check_circle:"
        )
    st.subheader(t("pr_speed_header", lang))
    c1, c2 = st.columns(2)
    context = whole_number_box(
        c1, t("pr_context", lang), 1, run.model.max_position, keys.CONTEXT, value=min(4096, run.model.max_position)
    )
    batch = whole_number_box(c2, t("pr_batch", lang), 1, 1024, keys.BATCH, value=1)
    st.markdown(f"**{t('pr_work_header', lang)}**")
    show_table(work_table(run, context, batch, lang), key=keys.WORK_TABLE, short=work_short(context, batch, lang))
    st.markdown(f"**{t('pr_time_header', lang)}**")
    show_table(time_table(run, lang), key=keys.TIME_TABLE)
    s = run.settings
    st.caption(t("pr_speed_caption", lang, L=run.prompt_len, P=s.timing_plan.prefill_len, m=BUSY_MARGIN))
    if fewer := run.fewer_threads:
        n, rows = min(r.timing.threads for r in fewer), ", ".join(r.config.name for r in fewer)
        st.caption(t("pr_threads_note", lang, n=n, of=fewer[0].timing.of_threads, rows=rows))
    if run.retaken:
        st.caption(retaken_text(run.retaken, lang))
    with st.expander(t("pr_method", lang)):
        st.markdown(explain_text(lang))
    note = bf16_note(run, lang)
    chart, beside = st.columns([3, 1]) if note else (st.container(), None)
    chart.plotly_chart(ratio_figure(run, lang), key=keys.FIG_RATIO)
    if beside is not None:
        beside.info(note, icon=":material/memory:")
    st.plotly_chart(bytes_figure(run, context, batch, lang), key=keys.FIG_BYTES)
    if any(r.text is not None or r.greedy is not None for r in run.results):
        st.subheader(t("pr_quality_header", lang))
        show_table(quality_table(run, lang), key=keys.QUALITY_TABLE)
        st.caption(
            t(
                "pr_quality_caption",
                lang,
                n=s.quality_tokens,
                p=s.greedy_prompts,
                ppl=f"{run.reference_ppl:.3f}" if run.reference_ppl else "—",
            )
        )
        st.subheader(t("pr_samples_header", lang))
        show_static_table(samples_table(run, lang))

render_capacity(bundle.model.config if bundle is not None else None, lang)
