"""The claims page (/claims): every claim C1-C24 checked live on the loaded model.

page.py the screen; estimate (how long both checks take here, and the quick one suggested where the
full one is long), run (the checks, each verdict landing as it is judged, with progress and Stop),
panels (the summary, the table of verdicts, claim by claim with a link to its page), keys, strings.
The checks are lab/claims*.py (lab/claims_run.py runs them)."""
