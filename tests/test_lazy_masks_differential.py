"""Masks of `Guide.from_regex` (the lazy index) against each token's own check with the `regex`
module's partial matching, along seeded generations, on the real GPT-2 and Llama 3 vocabularies.

A token is allowed after the text T exactly when T + token is the prefix of some text that
`fullmatch`es (`regex.fullmatch(..., partial=True)`, written by others); EOS exactly when T
`re.fullmatch`es. A token ending inside a UTF-8 character is allowed when a character that
completes it (the first or the last of the code points its bytes can still start) continues a
partial match: exact for classes that hold whole blocks of code points, as these regexes do.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from benchmarks.regexes import REGEX_CASES, ascii_version
from tokenguide import Guide

regex_module = pytest.importorskip("regex")

NAMES = list(REGEX_CASES)[:9]  # outlines-core's benchmark regexes (bench_masks' regex part)
STEPS = 8


def _completions(tail: bytes) -> list[str]:
    """The first and last code point that the incomplete UTF-8 sequence `tail` can still start."""
    lead = tail[0]
    size = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    out = []
    for fill in (0x80, 0xBF):
        for first_cont in ((0x80, 0xBF) if len(tail) == 1 else (None,)):
            data = bytearray(tail)
            if first_cont is not None:
                # E0 / ED / F0 / F4 narrow the first continuation byte
                low, high = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}.get(lead, (0x80, 0xBF))
                data.append(min(max(first_cont, low), high))
            data.extend([fill] * (size - len(data)))
            try:
                out.append(data.decode("utf-8"))
            except UnicodeDecodeError:
                pass
    return out


def _allowed(pattern, text: bytes) -> bool:
    """`text` (bytes) is a prefix of some UTF-8 text that fullmatches `pattern`."""
    for cut in range(len(text), max(len(text) - 4, -1), -1):
        try:
            head = text[:cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        tail = text[cut:]
        if not tail:
            return pattern.fullmatch(head, partial=True) is not None
        if tail[0] < 0xC2 or tail[0] > 0xF4 or any(b & 0xC0 != 0x80 for b in tail[1:]):
            return False
        return any(pattern.fullmatch(head + c, partial=True) is not None for c in _completions(tail)
                   if c.encode("utf-8").startswith(tail))
    return False


def _oracle_mask(pattern, vocabulary, by_first: dict, text: bytes) -> set[int]:
    allowed = set()
    for first, tokens in by_first.items():
        if first < 0x80 and not _allowed(pattern, text + bytes([first])):
            continue  # no text continues with this byte: no token starting with it either
        allowed.update(t for t, data in tokens if _allowed(pattern, text + data))
    return allowed


def _check_generation(name: str, vocabulary) -> None:
    source = ascii_version(REGEX_CASES[name])
    pattern = regex_module.compile(source)
    by_first: dict[int, list] = {}
    items = vocabulary.tokens
    for data, ids in (items.items() if isinstance(items, dict) else items):
        if data:
            by_first.setdefault(data[0], []).extend((t, data) for t in ids)
    guide = Guide.from_regex(source, vocabulary)
    rng = random.Random(name)
    eos = vocabulary.eos_token_id
    text = b""
    for _ in range(STEPS + 1):
        expected = _oracle_mask(pattern, vocabulary, by_first, text)
        if re.fullmatch(source, text.decode("utf-8", "ignore")) and text.decode("utf-8", "ignore").encode() == text:
            expected.add(eos)
        got = guide.get_tokens()
        assert set(got) == expected, (name, text, sorted(set(got) ^ expected)[:10])
        mask = guide.mask_bytes()
        assert {t for t in range(vocabulary.vocab_size) if mask[t >> 3] >> (t & 7) & 1} == expected, (name, text)
        choices = [t for t in got if t != eos]
        if not choices:
            break
        token = rng.choice(choices)
        guide.advance(token, return_tokens=False)
        text += vocabulary.id_to_bytes(token)


@pytest.mark.parametrize("name", NAMES)
def test_lazy_masks_match_partial_matching_gpt2(name, gpt2_vocabulary):
    _check_generation(name, gpt2_vocabulary)


@pytest.mark.parametrize("name", NAMES)
def test_lazy_masks_match_partial_matching_llama3(name, llama3_vocabulary):
    _check_generation(name, llama3_vocabulary)
