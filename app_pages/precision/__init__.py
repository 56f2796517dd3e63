"""The precision lab (/precision): weight formats and KV cache dtypes measured on the loaded model (C19).

page.py the screen; run (controls and the measurement), tables (speed, quality, capacity), figures,
notes (what is said beside a bfloat16 row), keys, strings. The measurement is lab/precision_run.py
(lab/precision_timing.py times each format beside float32, lab/precision.py scores it,
lab/precision_pace.py says how long is left); the formats and their arithmetic are
lab/precision_formats.py, engine/layers/quant.py (weights) and engine/layers/kv_cache.py (KV dtypes)."""
