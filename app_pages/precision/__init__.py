"""The precision lab (/precision): weight formats and KV cache dtypes measured on the loaded model (C19).

page.py the screen; run (controls and the measurement), tables (speed, quality, capacity), figures,
keys, strings. The measurement is lab/precision_formats.py and lab/precision.py; the formats are
engine/layers/quant.py (weights) and engine/layers/kv_cache.py (KV dtypes)."""
