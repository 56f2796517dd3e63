"""OpenAI's stream framing, written in one place (engine/entrypoints/server/sse.py) for the server
and the router: the order of a stream's events, a failure's ending, and no second copy of the
framing anywhere else in the engine."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from pathlib import Path

from engine.entrypoints.server.protocol import ResponseIds
from engine.entrypoints.server.sse import DONE, openai_events

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Ended:
    failure: str | None = None
    finish_reason: str = "length"
    num_prompt_tokens: int = 5
    num_output_tokens: int = 2


async def texts(*pieces: str):
    for piece in pieces:
        yield piece


def events(names: ResponseIds, answer: Ended, include_usage: bool) -> list[str]:
    async def run() -> list[str]:
        return [e async for e in openai_events(names, texts("Hel", "lo"), answer, include_usage, 502)]

    return asyncio.run(run())


def test_a_chat_stream_opens_with_the_role_and_ends_with_finish_usage_and_done():
    sent = events(ResponseIds(True, "m"), Ended(), include_usage=True)
    assert all(e.startswith("data: ") and e.endswith("\n\n") for e in sent) and sent[-1] == DONE
    chunks = [json.loads(e.removeprefix("data: ")) for e in sent[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert [c["choices"][0]["delta"].get("content") for c in chunks[1:3]] == ["Hel", "lo"]
    assert chunks[3]["choices"][0]["finish_reason"] == "length"
    assert chunks[4]["usage"] == {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}


def test_a_completion_stream_has_no_role_and_a_failure_ends_it_without_done():
    sent = events(ResponseIds(False, "m"), Ended(failure="the decode worker went away"), include_usage=True)
    assert [json.loads(e.removeprefix("data: "))["choices"][0]["text"] for e in sent[:2]] == ["Hel", "lo"]
    assert json.loads(sent[2].removeprefix("data: "))["error"]["code"] == 502 and len(sent) == 3


def test_the_framing_is_written_only_in_sse_py():
    framing = re.compile(r"data: \[DONE\]|f[\"']data: ")
    found = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "engine").rglob("*.py"))
        if framing.search(path.read_text(encoding="utf-8")) and path.name != "sse.py"
    ]
    assert found == [] and framing.search((ROOT / "engine/entrypoints/server/sse.py").read_text(encoding="utf-8"))
