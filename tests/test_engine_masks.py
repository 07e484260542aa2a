"""The engine's masks on real vocabularies: equal to each token's own byte walk, and equal to
the Lark LALR guide's masks (an oracle built on Lark's parser and contextual lexer) on the
bundled JSON grammar along the real tokenization of documents."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("lark")
tokenizers = pytest.importorskip("tokenizers")

from tokenguide import Guide  # noqa: E402
from tokenguide.guides.grammar import GrammarGuide  # noqa: E402
from tokenguide.errors import InvalidTokenError  # noqa: E402
from tokenguide.grammars import GRAMMAR_PATH  # noqa: E402
from tokenguide.guides.instructions import set_bits  # noqa: E402

JSON_GRAMMAR = (Path(GRAMMAR_PATH) / "json.lark").read_text(encoding="utf-8")

DOCS = [
    {"name": "Jöhn Smith", "age": 42, "tags": ["a", "b\"c", "naïve", "日本語"], "ok": True, "none": None},
    [1.5e10, -3, 0.25, [], {}, {"x": [{"y": "z\\n"}]}, "tab\there", ""],
]


def _texts():
    for doc in DOCS:
        yield json.dumps(doc, ensure_ascii=False)
        yield json.dumps(doc, indent=2, ensure_ascii=False)


def test_masks_equal_each_tokens_own_walk(gpt2_vocabulary, gpt2_tokenizer):
    guide = GrammarGuide.from_lark(JSON_GRAMMAR, gpt2_vocabulary)
    rng = random.Random(7)
    every = list(range(gpt2_vocabulary.vocab_size))
    eos = gpt2_vocabulary.eos_token_id
    checked = 0
    for n, text in enumerate(_texts()):
        ids = gpt2_tokenizer.encode(text).ids
        state = guide.initial_state
        for i, token in enumerate(ids):
            allowed = set(guide.allowed_token_ids(state))
            # every token at a few states, a sample elsewhere
            sample = every if (n == 0 and i in (0, 9)) else rng.sample(every, 150) + sorted(allowed)[:50]
            for t in sample:
                if t == eos:
                    continue
                walked = guide.advance_bytes(state, gpt2_vocabulary.id_to_bytes(t)) is not None
                assert walked == (t in allowed), (text[:40], i, t, gpt2_vocabulary.id_to_bytes(t))
                checked += 1
            assert (eos in allowed) == guide.can_terminate_state(state)
            assert token in allowed
            state = guide.get_next_state(state, token)
        assert eos in guide.allowed_token_ids(state)
        assert guide.is_final_state(guide.get_next_state(state, eos))
    assert checked > 80_000


def test_masks_equal_the_lark_lalr_guide(gpt2_vocabulary, gpt2_tokenizer):
    for text in _texts():
        engine = GrammarGuide.from_lark(JSON_GRAMMAR, gpt2_vocabulary)
        lalr = Guide.from_grammar(JSON_GRAMMAR, gpt2_vocabulary)
        state = engine.initial_state
        for token in gpt2_tokenizer.encode(text).ids + [gpt2_vocabulary.eos_token_id]:
            mine = engine.mask_bytes(state)
            theirs = lalr.guide.mask_bytes(lalr.get_state())
            if mine != theirs:
                a = set(set_bits(int.from_bytes(mine, "little")))
                b = set(set_bits(int.from_bytes(theirs, "little")))
                raise AssertionError(f"{text[:30]!r}: engine only {sorted(a - b)[:8]}, LALR only {sorted(b - a)[:8]}")
            if token == gpt2_vocabulary.eos_token_id:
                break
            state = engine.get_next_state(state, token)
            lalr.advance(token)


def test_tokens_cut_inside_a_character(gpt2_vocabulary):
    guide = GrammarGuide.from_lark(JSON_GRAMMAR, gpt2_vocabulary)
    state = guide.advance_bytes(guide.initial_state, b'"')
    half = [t for t in range(gpt2_vocabulary.vocab_size) if gpt2_vocabulary.id_to_bytes(t) == "é".encode()[:1]]
    assert half, "GPT-2 has a token for the first byte of é"
    allowed = set(guide.allowed_token_ids(state))
    assert half[0] in allowed
    mid = guide.get_next_state(state, half[0])
    ids = guide.allowed_token_ids(mid)
    assert all(0x80 <= gpt2_vocabulary.id_to_bytes(t)[0] <= 0xBF for t in ids)  # only continuation bytes
    with pytest.raises(InvalidTokenError):
        guide.get_next_state(mid, gpt2_vocabulary.eos_token_id)


def test_eos_only_where_the_text_may_end(gpt2_vocabulary):
    guide = GrammarGuide.from_lark(JSON_GRAMMAR, gpt2_vocabulary)
    eos = gpt2_vocabulary.eos_token_id
    assert eos not in guide.allowed_token_ids(guide.initial_state)
    done = guide.advance_bytes(guide.initial_state, b"12")
    assert eos in guide.allowed_token_ids(done)  # a number may end here, or go on
    assert any(gpt2_vocabulary.id_to_bytes(t) == b"3" for t in guide.allowed_token_ids(done))
    after = guide.get_next_state(done, eos)
    assert guide.allowed_token_ids(after) == [eos]


def test_counted_lexemes_masks_equal_each_tokens_own_walk(gpt2_vocabulary):
    """Walks start from counts relaxed past the trie's depth (ir.windows): still exact."""
    grammar = 'start: "[" item ("," item)* "]"\nitem: SHORT | LONG | EXACT\nSHORT: /"[a-z ]{1,5}"/\nLONG: /"[a-z ]{2,300}"/\nEXACT: /#[0-9a-f]{140}#/\n'
    guide = GrammarGuide.from_lark(grammar, gpt2_vocabulary)
    rng = random.Random(3)
    every = list(range(gpt2_vocabulary.vocab_size))
    texts = [b'["', b'["ab', b'["abcdef', b'["' + b"x" * 250, b'["' + b"y" * 299, b'[#' + b"0" * 10, b'[#' + b"a" * 139]
    for text in texts:
        state = guide.advance_bytes(guide.initial_state, text)
        assert state is not None, text
        allowed = set(guide.allowed_token_ids(state))
        for t in rng.sample(every, 4000) + sorted(allowed)[:300]:
            if t == gpt2_vocabulary.eos_token_id:
                continue
            walked = guide.advance_bytes(state, gpt2_vocabulary.id_to_bytes(t)) is not None
            assert walked == (t in allowed), (text[-12:], t, gpt2_vocabulary.id_to_bytes(t))


def test_keys_that_are_not_declared_masks_equal_each_tokens_own_walk():
    """A lexeme `string & ~declared` reads on as any string once it differs from the declared
    keys: its walks are delegated to the string's (TrieWalks._delegated); still exact, on a
    vocabulary with every byte and tokens that end a declared key or another one."""
    from tokenguide.vocabulary import Vocabulary

    words = [b'age"', b'age":', b'agent"', b'ag', b'name"', b'names"', b'first":1', b'x"', b'"age"', b'"agex"',
             b'"', b'":', b'a\\"', b'\xc3\xa9"', b'ge"', b'e"', b'irst"']
    mapping = {bytes([b]): b for b in range(256)}
    mapping.update({w: 256 + i for i, w in enumerate(words)})
    vocabulary = Vocabulary(300, mapping)
    grammar = (
        'start: "{" KEY ":" "1" "}"\n'
        'KEY: /"(?:[^"\\\\\\x00-\\x1f]|\\\\.)*"/ & ~/"(age|name|first)"/\n'
    )
    guide = GrammarGuide.from_lark(grammar, vocabulary)
    for text in (b'{', b'{"', b'{"a', b'{"ag', b'{"age', b'{"x', b'{"n\xc3', b'{"fir', b'{"names'):
        state = guide.advance_bytes(guide.initial_state, text)
        assert state is not None, text
        allowed = set(guide.allowed_token_ids(state))
        for t in range(300):
            data = vocabulary.id_to_bytes(t)
            if data is None:
                continue
            walked = guide.advance_bytes(state, data) is not None
            assert walked == (t in allowed), (text, data)
    assert guide.accepts_bytes(b'{"agent":1}') and guide.accepts_bytes(b'{"ag":1}') and not guide.accepts_bytes(b'{"age":1}')


def test_a_text_that_ended_allows_nothing_but_eos_whatever_lexeme_came_last():
    """A pair (row, EMPTY) after a whole text: its walk is empty. (EMPTY has no lexeme: seen
    through the window it once took the last lexeme made, and `b` was allowed after `"a"`.)"""
    from tokenguide.vocabulary import Vocabulary

    pieces = ['"', "a", "b", "aa", "ab"]
    vocabulary = Vocabulary(len(pieces), {p: i for i, p in enumerate(pieces)} | {"</s>": len(pieces)})
    guide = GrammarGuide.from_lark('start: /"(a+|b{9,})"/', vocabulary)
    state = guide.advance_bytes(guide.initial_state, b'"a"')
    assert guide.allowed_token_ids(state) == [vocabulary.eos_token_id]
