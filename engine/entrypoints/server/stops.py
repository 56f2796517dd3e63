"""OpenAI's `stop`: generation ends at the first stop string, which is left out of the reply, as it
is with vLLM. Text is released to the client only once it can no longer be the start of a stop
string, so a stream never shows part of one (a stop string may span several tokens).

Matching is incremental: each stop string keeps how much of it the text so far ends with (a
Knuth-Morris-Pratt automaton), so a token costs its own characters times the number of stop
strings, however long the reply or the stop strings grow; the text held back is never longer than
the longest stop string. Building the automata costs the stop strings' length once, in a worker
thread (`stop_matcher`), never on the event loop. protocol.py caps how many stop strings a request
may send and how long each may be."""

from __future__ import annotations

import asyncio


class StopMatcher:
    def __init__(self, stops: list[str], stop_token_ids: list[int] | None = None, min_tokens: int = 0):
        self.stops = [s for s in stops if s]
        self._fallback = [_fallback(s) for s in self.stops]
        self._matched = [0] * len(self.stops)  # how much of each stop string the text ends with
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
        if not (checking and self.stops):
            self._matched = [0] * len(self.stops)  # text released unchecked starts no stop string
            return self.flush() + text
        for i, char in enumerate(text):
            ended = self._advance(char)
            if ended:  # the stop strings that end at this character: the longest starts first
                start = len(self.held) + i + 1 - ended
                out, self.held, self.stopped = (self.held + text)[:start], "", True
                return out
        self.held += text
        keep = max(self._matched)  # the longest tail that may still grow into a stop string
        out, self.held = self.held[: len(self.held) - keep], self.held[len(self.held) - keep :]
        return out

    def _advance(self, char: str) -> int:
        """Each stop string's match after one more character; the length of the longest that the
        text now ends with in full (0: none)."""
        ended = 0
        for j, stop in enumerate(self.stops):
            k, fallback = self._matched[j], self._fallback[j]
            while k and stop[k] != char:
                k = fallback[k - 1]
            if stop[k] == char:
                k += 1
            if k == len(stop):
                ended, k = max(ended, k), fallback[k - 1]
            self._matched[j] = k
        return ended

    def flush(self) -> str:
        """Whatever is held, at the end of the reply (no stop string came)."""
        out, self.held = self.held, ""
        return out


def _fallback(stop: str) -> list[int]:
    """KMP's failure function: for each prefix of `stop`, the length of its longest proper prefix
    that is also its suffix (where a partial match goes on after a mismatch)."""
    table, k = [0] * len(stop), 0
    for i in range(1, len(stop)):
        while k and stop[i] != stop[k]:
            k = table[k - 1]
        if stop[i] == stop[k]:
            k += 1
        table[i] = k
    return table


async def stop_matcher(body) -> StopMatcher:
    """The request's matcher (a body with `stops`, `stop_token_ids`, `min_tokens`), built off the
    event loop when it has stop strings to prepare."""
    if not body.stops:
        return StopMatcher([], body.stop_token_ids, body.min_tokens)
    return await asyncio.to_thread(StopMatcher, body.stops, body.stop_token_ids, body.min_tokens)
