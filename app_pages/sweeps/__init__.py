"""The sweeps page (/sweeps): TTFT and TPOT against prompt and output length (C4, C8, C9, C18).

page.py the screen; run (controls and the sweep in rounds), verdicts (the table of paired ratios
with their intervals), charts and figures (medians with their spread over rounds), keys, strings.
The sweep and its verdicts are lab/sweeps.py and lab/sweep_verdicts.py."""
