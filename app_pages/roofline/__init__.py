"""The roofline lab (/roofline): prefill compute-bound, decode bandwidth-bound (C3, C7, C10, C11, C19).

page.py the screen, one tab each: ceilings (this machine's measured ceilings), run (the loaded
model on the roofline), projection (famous models on datasheet GPUs), calibration (the formulas
against this machine); figures (its charts), keys, strings."""
