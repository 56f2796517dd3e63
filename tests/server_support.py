"""Helpers for the tests of `python -m engine serve`: read one sample of its Prometheus /metrics."""

from __future__ import annotations

import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def metric(url: str, name: str, sample: str) -> float:
    """The value of `sample` in metric family `name` (e.g. "vllm:generation_tokens", "..._total")."""
    with urllib.request.urlopen(f"{url}/metrics") as r:
        families = {f.name: f for f in text_string_to_metric_families(r.read().decode())}
    return next(s.value for s in families[name].samples if s.name == sample)
