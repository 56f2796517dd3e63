"""How one token is labelled on a chip: its text, or its raw bytes when it is only part of a
UTF-8 character (byte-level BPE splits 「今」 over several tokens)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.core.detokenizer import token_piece
from ui.text import visible


@dataclass(frozen=True)
class Piece:
    token_id: int
    label: str  # what the chip shows
    is_bytes: bool = False  # label is hex bytes of an incomplete character


@lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte <-> printable-character table, inverted: 'Ċ' -> 0x0a, 'ä' -> 0xe4."""
    printable = (
        list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    )
    chars = printable[:]
    n = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(printable, chars)}


def piece_for(tokenizer, token_id: int) -> Piece:
    text = token_piece(tokenizer, token_id)
    if "\ufffd" not in tokenizer.decode([token_id], skip_special_tokens=False):
        return Piece(token_id, text)
    table = _byte_decoder()
    if text and all(c in table for c in text):
        return Piece(token_id, " ".join(f"{table[c]:02x}" for c in text), is_bytes=True)
    return Piece(token_id, text, is_bytes=True)  # another tokenizer family: show its own spelling


def piece_text(piece: Piece) -> str:
    """A piece for running text and tables: byte pieces as 0x.. so they read as bytes."""
    return " ".join(f"0x{b}" for b in piece.label.split()) if piece.is_bytes else piece.label


def pieces_for(tokenizer, token_ids: list[int]) -> list[Piece]:
    return [piece_for(tokenizer, t) for t in token_ids]


def _raw_bytes(piece: Piece) -> bytes | None:
    """A byte piece's bytes ("e4 bb" -> b"\\xe4\\xbb"); None for text, or another tokenizer's spelling."""
    if not piece.is_bytes:
        return None
    try:
        return bytes.fromhex(piece.label)
    except ValueError:
        return None


def byte_groups(pieces: list[Piece]) -> dict[int, tuple[int, str]]:
    """Runs of byte pieces that together spell whole characters: {first index: (end index, text)}.
    「今天天气」 in byte-level BPE is 9 tokens; grouped, they read 今 · 天 · 天气 again. A run still
    waiting for its last byte (a stream mid-character) is not grouped yet."""
    groups, start, buf = {}, None, b""
    for i, piece in enumerate(pieces):
        raw = _raw_bytes(piece)
        if raw is None:
            start, buf = None, b""
            continue
        if start is None:
            start, buf = i, b""
        buf += raw
        try:
            text = buf.decode("utf-8")
        except UnicodeDecodeError as e:
            if e.end < len(buf) or e.reason != "unexpected end of data":  # not a character at all: give up
                start, buf = None, b""
            continue
        groups[start] = (i + 1, text)
        start, buf = None, b""
    return groups


def axis_labels(pieces: list[Piece]) -> list[str]:
    """One readable label per token for a chart's axis: a byte token that is part of a character says
    which character and which of its bytes ("今 1/3"), as the chips group them, not its raw bytes."""
    labels = [visible(p.label) for p in pieces]
    for start, (end, text) in byte_groups(pieces).items():
        for k in range(start, end):
            labels[k] = f"{visible(text)} {k - start + 1}/{end - start}" if end - start > 1 else visible(text)
    return labels
