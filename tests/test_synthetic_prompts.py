"""Prompts of an exact token length (lab/synthetic_prompts.py), counted by the bundled tokenizer."""

from __future__ import annotations

import pytest

from engine.errors import LabError
from lab.synthetic_prompts import count, exact_prompt, exact_prompts


@pytest.mark.parametrize("length", [1, 2, 7, 64, 300])
def test_each_prompt_counts_exactly_its_length_and_starts_its_own_way(tokenizer, length):
    prompts = exact_prompts(tokenizer, length, 12, first=4)
    assert [count(tokenizer, p) for p in prompts] == [length] * 12
    if length >= 7:  # room for the number and some text: no two alike, numbered from first + 1
        assert len(set(prompts)) == 12 and prompts[0].startswith("(5) ") and prompts[-1].startswith("(16) ")
    assert count(tokenizer, exact_prompt(tokenizer, length, offset=3)) == length


def test_lengths_and_counts_out_of_range_are_refused(tokenizer):
    for bad in (dict(length=0, n=1), dict(length=40_000, n=1), dict(length=8, n=0)):
        with pytest.raises(LabError):
            exact_prompts(tokenizer, **bad)
