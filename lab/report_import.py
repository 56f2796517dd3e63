"""Reports of the load generators people already run, read into the remote page's own views:
GuideLLM's JSON report (`guidellm run --output=kind=json`, version 0.8) and the result file of
`vllm bench serve --save-result`.

Each request is rebuilt from the tool's own per-request times, so the page's percentiles,
attainment and goodput follow the lab's rules; the tool's summary figures are kept beside them as
the tool computed them (`Theirs`), mapped to the metric of ours they equal. Where the definitions
differ (GuideLLM's "ITL" is our TPOT; its "TPOT" includes TTFT; its percentiles take the first value
at or above p; it keeps no per-chunk times, so no ITL of ours), the remote page says so in its
definitions box (`rm_imported_diff`).

This module tells which tool wrote a file; each tool's format is read in its own module
(lab/report_guidellm.py, lab/report_vllm.py) into the records of lab/report_records.py.
"""

from __future__ import annotations

import json
import math
from typing import Any

from engine.errors import LabError
from lab.report_guidellm import from_guidellm
from lab.report_records import Imported, ImportedResult, ImportedRun, Theirs
from lab.report_vllm import from_vllm
from lab.schema import kind_of

__all__ = ["Imported", "ImportedResult", "ImportedRun", "Theirs", "kind_of_report", "read_report"]

MAX_BYTES = 64 << 20  # a report larger than this is not one a page should parse
NOT_A_REPORT = "Not a report this page reads: "


def _loads(data: str | bytes) -> Any:
    """JSON as the tools write it: Python's json, whose `Infinity` vLLM writes for an unlimited rate."""
    if len(data) > MAX_BYTES:
        raise LabError(f"{NOT_A_REPORT}the file is {len(data) / 2**20:.1f} MiB; at most {MAX_BYTES >> 20} MiB is read.")
    try:
        return json.loads(data, parse_constant=lambda name: math.inf if name == "Infinity" else None)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise LabError(f"{NOT_A_REPORT}the file is not JSON ({e}).") from None
    except RecursionError:
        raise LabError(f"{NOT_A_REPORT}the JSON is nested too deeply.") from None


def kind_of_report(doc: Any) -> str | None:
    """ "guidellm", "vllm" or None (not a report of a tool this module reads)."""
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("benchmarks"), list) and isinstance(doc.get("metadata"), dict):
        return "guidellm" if "guidellm_version" in doc["metadata"] else None
    if "ttfts" in doc and "itls" in doc:
        return "vllm"
    return None


def read_report(data: str | bytes) -> Imported | None:
    """A GuideLLM or vLLM report's runs, None for any other JSON (the page's own trace files), or a
    LabError naming what is wrong with a report that is one of theirs."""
    doc = _loads(data)
    kind = kind_of_report(doc)
    if kind == "guidellm":
        return from_guidellm(doc)
    if kind == "vllm":
        return from_vllm(doc)
    if not isinstance(doc, dict):
        raise LabError(f"{NOT_A_REPORT}the file should be an object, got {kind_of(doc)}.")
    return None
