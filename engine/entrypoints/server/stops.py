"""OpenAI's `stop`: generation ends at the first stop string, which is left out of the reply, as it
is with vLLM. Text is released to the client only once it can no longer be the start of a stop
string, so a stream never shows part of one (a stop string may span several tokens)."""

from __future__ import annotations


class StopMatcher:
    def __init__(self, stops: list[str], stop_token_ids: list[int] | None = None, min_tokens: int = 0):
        self.stops = [s for s in stops if s]
        self.stop_token_ids = set(stop_token_ids or ())
        self.min_tokens = min_tokens
        self.held = ""  # text not yet released: it may be the start of a stop string
        self.num_tokens = 0
        self.stopped = False

    def feed(self, text: str, token_id: int | None = None) -> str:
        """One token's text; returns what may be sent now (sets `stopped` at a stop)."""
        self.num_tokens += 1
        checking = self.num_tokens > self.min_tokens  # vLLM: no stop before min_tokens
        if checking and token_id is not None and token_id in self.stop_token_ids:
            self.stopped = True
            return self.flush()
        self.held += text
        if not (checking and self.stops):
            return self.flush()
        hits = [i for i in (self.held.find(s) for s in self.stops) if i >= 0]
        if hits:
            self.stopped = True
            out, self.held = self.held[: min(hits)], ""
            return out
        keep = max((k for s in self.stops for k in range(1, len(s)) if self.held.endswith(s[:k])), default=0)
        out = self.held[: len(self.held) - keep]
        self.held = self.held[len(self.held) - keep :]
        return out

    def flush(self) -> str:
        """Whatever is held, at the end of the reply (no stop string came)."""
        out, self.held = self.held, ""
        return out
