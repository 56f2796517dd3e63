"""The compare page (/compare): 2-4 prompts side by side, each with its own settings.

page.py the screen; state (what each column keeps), controls (columns and their settings), run
(run all), view (the last comparison), replay (side by side), metrics (the numbers compared),
figures (the shared charts), keys (session-state keys), strings (its words)."""
