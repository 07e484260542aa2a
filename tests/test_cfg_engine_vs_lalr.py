"""The public CFGGuide (the grammar engine) against the Lark LALR guide (`FastCFGGuide`, the
oracle on LALR grammars): equal masks along the real GPT-2 tokenization of texts, on the bundled
grammars and the LALR test grammars; and the documented cases where Lark's contextual lexer
reads a text differently from the grammar's language (docs/grammars.md)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("lark")
pytest.importorskip("tokenizers")

from tokenguide import CFGGuide, grammars  # noqa: E402
from tokenguide.guides.cfg import FastCFGGuide  # noqa: E402
from tokenguide.guides.instructions import set_bits  # noqa: E402

STRINGS = 'start: "[" [ESCAPED_STRING ("," ESCAPED_STRING)*] "]"\n%import common.ESCAPED_STRING'

# grammar -> texts of its language (the same language for Lark's LALR reading and the engine)
SAME = {
    "json": (grammars.json, [
        json.dumps({"name": "Jöhn Smith", "age": 42, "tags": ["a", "b\"c", "日本語"], "ok": True, "x": None}),
        json.dumps([1.5e10, -3, 0.25, [], {}, {"x": [{"y": "z\\n"}]}, ""], indent=2),
    ]),
    "arithmetic": (grammars.arithmetic, ["(1 + 2.5) * -x_1 / 3e4 - .5", "a*b+c/(d-2E-3)"]),
    "csv": (grammars.csv, ['name,age,note\nJöhn,42,"a ""q"", b"\n,,\r\n']),
    "strings": (STRINGS, ['["a b","c\\"d","naïve",""]']),
    "optional repeats": (r'?start: "a" ("b" | "c")* "d"', ["abcbbd"]),
    "ignore": ('?start: "a" "b" "c" ("," "a" "b" "c")*\n%ignore /[ \\t]+/', ["a b c, abc ,\ta bc"]),
    "case-insensitive": ('start: ("ab"i | NAME)+\nNAME: /[c-d]+/', ["aBcdABdc"]),
    "non-ascii": ('start: ("größe" | "ñandú" | "日本") ("," ("größe" | "ñandú" | "日本"))*', ["größe,日本,ñandú"]),
    "words": ('start: WORD (" " WORD)*\nWORD: /[a-zà-ÿ\u3040-\u30ff\u4e00-\u9fff]+/', ["élan vital日本 ok"]),
    "key=value lines": ('start: line+\nline: KEY "=" VALUE "\\n"\nKEY: /[a-z_]+/\nVALUE: /[^\\n=]+/', ["a_b=1 2\nc=x\n"]),
}


def _differences(mine: bytes, theirs: bytes) -> str:
    a = set(set_bits(int.from_bytes(mine, "little")))
    b = set(set_bits(int.from_bytes(theirs, "little")))
    return f"engine only {sorted(a - b)[:8]}, LALR only {sorted(b - a)[:8]}"


@pytest.mark.parametrize("name", sorted(SAME))
def test_engine_masks_equal_the_lalr_guides(name, gpt2_vocabulary, gpt2_tokenizer):
    grammar, texts = SAME[name]
    engine = CFGGuide(grammar, gpt2_vocabulary)
    lalr = FastCFGGuide(grammar, gpt2_vocabulary)
    assert engine.vocab_size == lalr.vocab_size and engine.eos_token_id == lalr.eos_token_id
    eos = engine.eos_token_id
    masks = 0
    for text in texts:
        mine, theirs = engine.initial_state, lalr.initial_state
        ids = gpt2_tokenizer.encode(text).ids
        assert gpt2_tokenizer.decode(ids) == text
        for i, token in enumerate(ids + [eos]):
            a, b = engine.mask_bytes(mine), lalr.mask_bytes(theirs)
            assert a == b, f"{name} {text[:30]!r} before token {i}: {_differences(a, b)}"
            masks += 1
            assert engine.can_terminate_state(mine) == lalr.can_terminate_state(theirs)
            assert engine.must_terminate_state(mine) == lalr.must_terminate_state(theirs)
            mine, theirs = engine.get_next_state(mine, token), lalr.get_next_state(theirs, token)
        assert engine.get_next_instruction(mine).tokens == [eos] == lalr.get_next_instruction(theirs).tokens
    assert masks > len(texts)


def _allows(guide, text: str) -> bool:
    """Is `text` (then EOS) a whole text for `guide`, fed as bytes."""
    state = guide.advance_bytes(guide.initial_state, text.encode())
    return state is not None and guide.can_terminate_state(state)


# The differences on purpose: (grammar, text) in the grammar's language that Lark's contextual
# lexer reads otherwise (the engine follows every reading; Lark's lexer takes one match).
DIFFERENT = {
    # "let" matches NAME, but Lark turns a NAME equal to a string literal into that keyword
    "keywords": ('start: stmt+\nstmt: "let" NAME ";" | NAME ";"\nNAME: /[a-z]+/\n%ignore " "', "let;"),
    # a greedy /ab*/ takes every "b": Lark never leaves one for /bc?/
    "ambiguous terminals": (r"?start: /ab*/ /bc?/", "abb"),
    # the higher-priority A (/ab/) does not match at "aab", so B (/a+/) takes "aa" and "b" is left
    "priorities": ("start: (A | B)+\nA.2: /ab/\nB: /a+/", "aab"),
}


@pytest.mark.parametrize("name", sorted(DIFFERENT))
def test_where_larks_lexer_reads_otherwise(name):
    from lark import Lark
    from lark.exceptions import LarkError

    from tokenguide.vocabulary import Tokenizer, Vocabulary

    grammar, text = DIFFERENT[name]
    # one token per byte: the guides see the text itself
    tok = Tokenizer(Vocabulary(0, {"<eos>": 0, **{bytes([b]): b + 1 for b in range(32, 127)}}))
    earley = Lark(grammar, parser="earley", lexer="dynamic_complete")
    earley.parse(text)  # the grammar's language has the text
    with pytest.raises(LarkError):
        Lark(grammar, parser="lalr", lexer="contextual").parse(text)  # Lark's LALR reading does not
    assert _allows(CFGGuide(grammar, tok), text)
    assert not _allows(FastCFGGuide(grammar, tok), text)


def test_public_api_on_the_engine():
    """outlines' CFGGuide contract, as test_cfg_fast checks it on the LALR guide."""
    from array import array

    from tokenguide.errors import InvalidTokenError
    from tokenguide.guides import Generate, Write, bitmask_words, tokens_from_bitmask
    from tokenguide.guides.grammar import GrammarGuide
    from tokenguide.vocabulary import Tokenizer, Vocabulary

    tok = Tokenizer(Vocabulary(0, {"<eos>": 0, "a": 1, "b": 2, "ab": 3}))
    guide = CFGGuide(r'?start: "a" "b"', tok)
    assert isinstance(guide, GrammarGuide)
    a, b, ab = 1, 2, 3
    state = guide.initial_state
    assert guide.get_next_instruction(state) == Generate([a, ab])
    assert list(guide.iter_valid_token_ids(state, [ab, b, a])) == [ab, a]  # candidates' order kept
    assert not guide.can_terminate_state(state) and not guide.is_final_state(state)
    with pytest.raises(InvalidTokenError):
        guide.get_next_state(state, 0)  # EOS before the text is complete
    state = guide.get_next_state(state, a)
    assert guide.get_next_instruction(state) == Write([b])
    with pytest.raises(InvalidTokenError):
        guide.get_next_state(state, a)
    assert guide.advance_text(state, "a") is None and guide.advance_bytes(state, b"b") is not None
    state = guide.get_next_state(state, b)
    assert guide.get_next_instruction(state) == Write([0])
    assert guide.can_terminate_state(state) and guide.must_terminate_state(state) and guide.is_final_state(state)
    buffer = array("i", [0]) * bitmask_words(guide.vocab_size)
    guide.fill_bitmask(guide.initial_state, buffer)
    assert list(tokens_from_bitmask(buffer, guide.vocab_size)) == [a, ab]
    end = guide.get_next_state(state, 0)
    assert guide.allowed_token_ids(end) == [0] and guide.get_next_instruction(end) == Write([0])
    assert guide.get_next_state(end, a) is end and guide.must_terminate_state(end)
    assert guide.token_bytes(state, ab) == b"ab" and guide.token_text(state, 0) == ""
    other = guide.copy()
    assert other is not guide and other.get_next_instruction(guide.initial_state) == Generate([a, ab])
    assert repr(guide).startswith("CFGGuide(")


@pytest.mark.parametrize("grammar", [
    'start: "{" (" " "x")* "}"',
    'start: " "? "{" (" " "x")* "}"',
    grammars.json,
    'start: WORD (" " WORD)*\nWORD: /[a-z]+/',
])
def test_at_text_start_drops_the_first_leading_space_as_the_lalr_guide_does(grammar, llama2_vocabulary):
    """On a SentencePiece vocabulary (Llama 2), `at_text_start=True`: the whole first mask and the
    masks after each first token equal FastCFGGuide's with the same option (its leading space
    dropped by the decoder); without the option, "\u2581{" means " {" as in the regex Index."""
    from tokenguide import Tokenizer

    tok = Tokenizer(llama2_vocabulary)
    engine = CFGGuide(grammar, tok, at_text_start=True)
    lalr = FastCFGGuide(grammar, tok, at_text_start=True)
    first = engine.mask_bytes(engine.initial_state)
    assert first == lalr.mask_bytes(lalr.initial_state), _differences(first, lalr.mask_bytes(lalr.initial_state))
    allowed = list(set_bits(int.from_bytes(first, "little")))
    spaced = [t for t in allowed if (llama2_vocabulary.id_to_bytes(t) or b"")[:1] == b" "]
    assert spaced, "some first token with a leading space is allowed"
    for token in spaced[:6] + [t for t in allowed if t not in spaced][:6]:
        mine, theirs = engine.get_next_state(engine.initial_state, token), lalr.get_next_state(lalr.initial_state, token)
        assert engine.mask_bytes(mine) == lalr.mask_bytes(theirs), (token, _differences(
            engine.mask_bytes(mine), lalr.mask_bytes(theirs)))
        assert engine.token_bytes(engine.initial_state, token) == lalr.token_bytes(lalr.initial_state, token)
    plain = CFGGuide(grammar, tok)
    assert plain.mask_bytes(plain.initial_state) == FastCFGGuide(grammar, tok).mask_bytes(
        FastCFGGuide(grammar, tok).initial_state)


def test_at_text_start_is_checked():
    from tokenguide.errors import ArgumentError
    from tokenguide.vocabulary import Vocabulary

    vocab = Vocabulary(3, {b"a": 0, b" a": 1})
    with pytest.raises(ArgumentError, match="at_text_start"):
        CFGGuide('start: "a"', vocab, at_text_start="yes")
