"""The words of the disaggregation lab: its `t` looks in the "disaggregation" context of the catalogues
(assets/locale, lab/catalogues.py) first, then in the shared one (ui/i18n.py)."""

from ui.i18n import page_translator

t = page_translator("disaggregation")
