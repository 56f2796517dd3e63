"""A Streamlit progress bar whose text ends in the time left at the run's own measured pace."""

from __future__ import annotations

from lab.eta import Pace
from ui.text import with_eta


class PacedBar:
    """Used as st.progress's bar is: .progress(fraction, text=...). The fraction must track the
    run's work (weigh its parts by their cost), since the estimate assumes an even pace."""

    def __init__(self, bar, lang: str):
        self._bar, self._lang, self._pace = bar, lang, Pace()

    def progress(self, fraction: float, text: str = "") -> None:
        f = min(max(float(fraction), 0.0), 1.0)
        self._bar.progress(f, text=with_eta(text, self._pace.seconds_left(f), self._lang))
