"""The kit the pages share: the frame (sidebar, model registry, strings, errors, theme, widgets, share
link), the run kit (run state, run driver, live view, chips, replay) and the figures several pages
draw (KV cache, attention). A module only one page uses lives in that page's folder instead."""
