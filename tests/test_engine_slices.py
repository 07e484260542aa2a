"""The engine's walks of string contents through a character slice (engine.slices), and walks
shared between automata, equal to each token's own byte walk on real vocabularies (GPT-2 and
Llama 3): plain, counted (under the window, past it, a repeat with nothing after it), inside
keys and after multi-byte characters."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("lark")

from tokenguide.guides.grammar import GrammarGuide  # noqa: E402
from tokenguide.engine.slices import CharSlice, slice_view  # noqa: E402
from tokenguide.ir.lexemes import chars, from_regex, literal, rep, seq  # noqa: E402

LLAMA3 = Path(__file__).resolve().parents[1] / "web" / "node_modules" / "@lenml" / "tokenizer-llama3" / "models" / "tokenizer.json"

C = r'(?:[^\x22\\\x00-\x1f]|\\[\x22\\bfnrt]|\\u[0-9a-fA-F]{4})'
GRAMMAR = (
    'start: "[" item ("," item)* "]"\n'
    'item: STR | SHORT | EXACT "!" | KEY "1" | "{" NAME ":" "2" "}" | TAIL\n'
    f'STR: /\\x22{C}*\\x22/\n'
    f'SHORT: /#{C}{{0,5}}\\x22/\n'
    f'EXACT: /\\${C}{{12}}/\n'
    f'KEY: /@{C}{{2,60}}\\x22 ?: ?/\n'
    f'NAME: /\\x22(?:name|names|naïve)\\x22/ | /\\x22{C}*\\x22/\n'
    f'TAIL: /%{C}{{0,3}}[!-~]\\x22/\n'
)

PREFIXES = [b'[', b'["', b'["ab', b'["a\xc3', b'["\xe6\x97\xa5', b'["x\\', b'["x\\u00', b'[#', b'[#abcd', b'[#abcde',
            b'[#\xc3\xa9\xc3\xa9', b'[$', b'[$abcdefghij', b'[$abcdefghijk', b'[@', b'[@' + b'k' * 59, b'[@ab',
            b'[{', b'[{"na', b'[{"nam', b'[{"names', b'[%', b'[%ab']


def _check(guide, vocabulary, prefixes, every: bool):
    ids = range(vocabulary.vocab_size)
    for text in prefixes:
        state = guide.advance_bytes(guide.initial_state, text)
        assert state is not None, text
        allowed = set(guide.allowed_token_ids(state))
        sample = ids if every else [t for t in ids if t % 7 == 0] + sorted(allowed)
        for t in sample:
            data = vocabulary.id_to_bytes(t)
            if data is None or t == vocabulary.eos_token_id:
                continue
            walked = guide.advance_bytes(state, data) is not None
            assert walked == (t in allowed), (text, t, data)


def test_string_walks_equal_each_tokens_own_walk_gpt2(gpt2_vocabulary):
    guide = GrammarGuide.from_lark(GRAMMAR, gpt2_vocabulary)
    _check(guide, gpt2_vocabulary, PREFIXES, every=True)


def test_string_walks_equal_each_tokens_own_walk_llama3():
    if not LLAMA3.exists():
        pytest.skip(f"{LLAMA3} is missing: run `python3 build.py test` (it installs web/node_modules)")
    from tokenguide.vocabulary import Vocabulary

    vocabulary = Vocabulary.from_file(LLAMA3)
    guide = GrammarGuide.from_lark(GRAMMAR, vocabulary)
    _check(guide, vocabulary, PREFIXES, every=False)


def test_slice_view_takes_only_string_contents():
    plain = from_regex(r'[^"\\\x00-\x1f]')
    contents = from_regex(C)
    quote = literal('"')
    assert slice_view(seq(rep(contents, 0, None), quote)) == (plain, 0, None, False)
    assert slice_view(seq(rep(contents, 2, 9), literal('" :'))) == (plain, 2, 9, False)
    assert slice_view(rep(contents, 3, 3)) == (plain, 3, 3, True)
    assert slice_view(seq(rep(contents, 0, None), literal("a"))) is None  # T starts with a character of P
    assert slice_view(seq(rep(chars(((97, 122),)), 0, None), quote)) is None  # a small set: no slice
    assert slice_view(seq(quote, rep(contents, 0, None), quote)) is None


def test_char_slice_counts_characters():
    tokens = [b"a", b"ab", b"\xc3\xa9", b'a"', b"\xc3", b"abc", b"x" * 9]
    slice_ = CharSlice(tokens, [[i] for i in range(len(tokens))], 8, 8, from_regex(r'[^"\\\x00-\x1f]'))
    assert slice_.upto[1] == 0b101  # "a", "é"
    assert slice_.alive(None, 0) == 0b100111  # not 'a"', the half character, nor the 9-byte token
    assert slice_.alive(1, 1) == 0b111  # at most 2 characters
    assert slice_.pure(0, 3) and not slice_.pure(0, 4)


def test_masks_stay_exact_past_the_slice_bound(gpt2_vocabulary, monkeypatch):
    """Past MAX_SLICES character sets a string state is walked as any other: same masks."""
    from tokenguide.engine import masks

    walks = masks.walks_for(gpt2_vocabulary)
    monkeypatch.setattr(walks, "_slices", {})
    monkeypatch.setattr(walks, "_slice_views", {})
    monkeypatch.setattr(walks, "_cache", {})
    monkeypatch.setattr(walks, "_follow", {})
    monkeypatch.setattr(masks, "MAX_SLICES", 0)
    guide = GrammarGuide.from_lark(GRAMMAR, gpt2_vocabulary)
    _check(guide, gpt2_vocabulary, PREFIXES[:8], every=False)
    assert not walks._slices


def test_long_tokens_outside_the_slice_jump_by_count_llama3():
    """Llama 3's tokens past the window made of a run of the slice's characters and then a byte
    outside it (`//----...--\\n`): the walk jumps over the run by its count (slices.after_chars).
    Every such token, at counts where the run and what follows it just fit and just do not."""
    if not LLAMA3.exists():
        pytest.skip(f"{LLAMA3} is missing: run `python3 build.py test` (it installs web/node_modules)")
    from tokenguide.engine.masks import walks_for
    from tokenguide.vocabulary import Vocabulary

    vocabulary = Vocabulary.from_file(LLAMA3)
    grammar = 'start: "[" ITEM "]"\nITEM: /#(?:[^"\\n\\\\]|\\n\\n?){0,90}"/\n'
    guide = GrammarGuide.from_lark(grammar, vocabulary)
    walks = walks_for(vocabulary)
    long_ids = [t for k in walks.long_keys for t in walks.prepared.ids[k]]
    assert len(long_ids) > 100
    seen = {True: 0, False: 0}
    for j in (0, 8, 9, 10, 11, 12, 40):
        state = guide.advance_bytes(guide.initial_state, b"[#" + b"a" * j)
        allowed = set(guide.allowed_token_ids(state))
        for t in long_ids + list(range(0, vocabulary.vocab_size, 997)):
            data = vocabulary.id_to_bytes(t)
            walked = guide.advance_bytes(state, data) is not None
            assert walked == (t in allowed), (j, t, data)
            if t in long_ids:
                seen[walked] += 1
    assert seen[True] > 50 and seen[False] > 50
