"""Special-token terminals (`Terminal.token`) on the engine: matched by token id only, never by
text, between two lexemes; by name (looked up in the vocabulary) or by id ranges."""

from __future__ import annotations

import json

import pytest

from tokenguide.engine import Matcher
from tokenguide.errors import GrammarError, InvalidTokenError
from tokenguide.ir.grammar import Choice, Grammar, Lex, Seq, Terminal
from tokenguide.vocabulary import Vocabulary
from tokenguide.vocabulary.byte_level import encode_byte_level

SPECIALS = {256: "<|eot|>", 257: "<|python_tag|>", 258: "<|end|>"}


def special_vocabulary() -> Vocabulary:
    """Every byte a token (ids 0-255), three special tokens (no text), EOS 258."""
    tokenizer = {
        "model": {"type": "BPE", "vocab": {encode_byte_level(bytes([b])): b for b in range(256)}, "merges": []},
        "added_tokens": [{"id": i, "content": c, "special": True} for i, c in SPECIALS.items()],
        "decoder": {"type": "ByteLevel"},
    }
    return Vocabulary.from_json_text(json.dumps(tokenizer), filename="tokenizer.json", eos=258)


VOCAB = special_vocabulary()


def grammar(*alternatives) -> Grammar:
    g = Grammar()
    index = {}
    alts = []
    for alt in alternatives:
        items = []
        for item in alt:
            if item not in index:
                index[item] = g.add_lexeme(item)
            items.append(Lex(index[item]))
        alts.append(Seq(tuple(items)))
    g.rules["start"] = Choice(tuple(alts))
    return g


A = Terminal("A", "a")
B = Terminal("B", "b+")
EOT = Terminal("<|eot|>", "", token="<|eot|>")
TAG = Terminal("<[257]>", "", token=((257, 257),))


def walk(matcher: Matcher, ids: list[int]):
    state = matcher.initial_state
    for t in ids:
        state = matcher.next_state(state, t)
    return state


def test_special_token_by_name_and_by_id():
    m = Matcher(grammar((A, EOT, B), (B, TAG)), VOCAB)
    assert set(bits(m.mask_int(m.initial_state))) == {ord("a"), ord("b")}
    after_a = walk(m, [ord("a")])
    assert bits(m.mask_int(after_a)) == [256]
    after_eot = walk(m, [ord("a"), 256])
    assert bits(m.mask_int(after_eot)) == [ord("b")]
    done = walk(m, [ord("a"), 256, ord("b"), ord("b")])
    assert m.mask_int(done) >> 258 & 1 and done.can_end()
    after_b = walk(m, [ord("b"), ord("b")])
    assert set(bits(m.mask_int(after_b))) == {ord("b"), 257}
    assert walk(m, [ord("b"), 257]).can_end()


def test_special_token_is_not_its_text_and_not_another_token():
    m = Matcher(grammar((A, EOT, B)), VOCAB)
    state = walk(m, [ord("a")])
    for t in (257, ord("<")):
        with pytest.raises(InvalidTokenError):
            m.next_state(state, t)
    # the text "<|eot|>" byte by byte is not the special token
    assert not m.accepts_bytes(b"a<|eot|>b")


def test_special_token_ranges_and_open_end():
    every_special = Terminal("<[256-MAX]>", "", token=((256, None),))
    m = Matcher(grammar((A, every_special)), VOCAB)
    assert bits(m.mask_int(walk(m, [ord("a")]))) == [256, 257, 258]
    # EOS as the special token here: read as the token, then the text may end
    state = walk(m, [ord("a"), 258])
    assert state.can_end() and not state.done


def test_unknown_special_token_is_a_grammar_error():
    with pytest.raises(GrammarError, match="not a token of this vocabulary"):
        Matcher(grammar((A, Terminal("<|nope|>", "", token="<|nope|>"))), VOCAB)
    with pytest.raises(GrammarError, match="past the vocabulary"):
        Matcher(grammar((A, Terminal("<[999]>", "", token=((999, 999),)))), VOCAB)


def bits(x: int) -> list[int]:
    return [i for i in range(x.bit_length()) if x >> i & 1]
