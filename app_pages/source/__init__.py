"""The source page (/source): what the document behind the lab is, section by section, with the claims
each section makes (checked on the Claims page) and the page where each one is shown.

page.py the screen; sections (the table of sections, their claims and pages), keys, strings."""
