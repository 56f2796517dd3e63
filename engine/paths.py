"""Where the lab keeps what it makes once and reuses: converted weights, kernel plans, built kernels."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """Where converted weights live; PDLAB_CACHE_DIR overrides ~/.cache/prefill-decode-lab."""
    root = os.environ.get("PDLAB_CACHE_DIR") or Path.home() / ".cache" / "prefill-decode-lab"
    return Path(root)
