"""The memory lab (/memory): where prefill's memory goes (C10, C16, C20).

page.py the screen, one tab each: panel_sweep + sweep (measured prefill peaks), panel_fit + fit
("will it fit"), panel_heat + heat (attention heatmaps), panel_leak (the KV leak; its run is the
shared ui/memory_leak.py, which the claims page also uses); figures (its charts), keys, strings."""
