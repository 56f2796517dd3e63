"""The words of the roofline lab: its `t` looks in the "roofline" context of the catalogues
(assets/locale, lab/catalogues.py) first, then in the shared one (ui/i18n.py)."""

import re

from ui.i18n import page_translator

t = page_translator("roofline")


def formula(latex: str, lang: str) -> str:
    """A formula whose <word> markers are its words in `lang`: "<ridge> = …" → \\text{脊点} = …"""
    return re.sub(r"<(\w+)>", lambda m: r"\text{" + t(f"rf_w_{m.group(1)}", lang) + "}", latex)
