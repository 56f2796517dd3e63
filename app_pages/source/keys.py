"""Every st.session_state key of the source page: it has no widgets of its own."""

TRANSLATED: tuple[str, ...] = ()  # no widget whose options change with the language
