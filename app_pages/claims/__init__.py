"""The claims page (/claims): every claim C1-C24 checked live on the loaded model.

page.py the screen; run (the checks, with progress and Stop), panels (the summary, the table of
verdicts, claim by claim with a link to its page), keys, strings. The checks are lab/claims*.py."""
