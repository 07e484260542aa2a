"""The engine's language against Lark's Earley parser (lexer="dynamic_complete": every way of
cutting the text into terminals), on the bundled grammars and on grammars that LALR(1) refuses
or narrows: texts the engine generates must parse, and random texts get the same verdict."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

lark = pytest.importorskip("lark")

from tokenguide.guides.grammar import GrammarGuide  # noqa: E402
from tokenguide.engine.lexer import LEXER_STATES  # noqa: E402
from tokenguide.errors import GrammarError  # noqa: E402
from tokenguide.grammars import GRAMMAR_PATH  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

# a byte-level vocabulary: every single byte is a token, so any text can be written
BYTES = Vocabulary(256, {bytes([b]): b for b in range(256)})

NOT_LALR = {
    "reduce_reduce": ('start: a "x" "y" | b "x" "z"\na: "w" | a "w"\nb: "w" | b "w"\n', "wxyz"),
    "palindromes": ('start: p\np: "a" p "a" | "b" p "b" | "aa" | "bb"\n', "ab"),
    "colliding_terminals": ('start: x\nx: A "!" | B "?"\nA: /a+b/\nB: /ab+/\n', "ab!?"),
    "ambiguous_sum": ('start: e\ne: e "+" e | e "*" e | "(" e ")" | NUM\nNUM: /[0-9]+/\n', "12+*()"),
    "right_and_left": ('start: l r\nl: l "a" | "a"\nr: "a" r | "b"\n', "ab"),
    "nullable": ('start: a b c\na: "x"?\nb: ("y" | )\nc: a "z" a\n', "xyz"),
    "prefix_terminals": ('start: T T | U\nT: /a+/\nU: /a+b/\n', "ab"),
    "ignored_space": ('start: WORD+\nWORD: /[a-z]+/\n%ignore " "\n', "ab "),
    "repeat_counts": ('start: ("ab" ~ 2..3) "c"\n', "abc"),
    "templates": ('start: pair{"x", "y"} pair{"y", "x"}\n_sep: ","\npair{a, b}: a _sep b\n', "xy,"),
    "case_insensitive": ('start: "select"i NAME\nNAME: /[a-z]+/\n%ignore " "\n', "sElctx "),
    "common_imports": ("start: SIGNED_NUMBER (\",\" SIGNED_NUMBER)*\n%import common.SIGNED_NUMBER\n%import common.WS\n%ignore WS\n", "1-2.e, 3"),
}


def _bundled(name: str) -> str:
    return (Path(GRAMMAR_PATH) / name).read_text(encoding="utf-8")


BUNDLED = {
    "json": (_bundled("json.lark"), '{}[]",:0123456789.e-tfaulsn \\'),
    "arithmetic": (_bundled("arithmetic.lark"), "0123456789+-*/() ."),
    "csv": (_bundled("csv.lark"), 'ab,"\n1 '),
}


def _oracle(text: str):
    return lark.Lark(text, parser="earley", lexer="dynamic_complete")


def _lark_accepts(parser, s: str) -> bool:
    try:
        parser.parse(s)
        return True
    except lark.exceptions.LarkError:
        return False


def _sample(guide: GrammarGuide, rng: random.Random, budget: int) -> bytes:
    """A text of the engine's language drawn byte by byte (ASCII), or b"" if none was finished."""
    state, out = guide.initial_state.pairs, bytearray()

    def ends(pairs) -> bool:
        return any(row.accepts and LEXER_STATES.boundary[t] for row, t in pairs)

    for step in range(budget):
        if out and ends(state) and rng.random() < 0.25:
            return bytes(out)
        options = [b for b in (9, 10, 13, *range(32, 127)) if guide.matcher.step_pairs(state, b)]
        if not options:
            break
        closing = [b for b in options if ends(guide.matcher.step_pairs(state, b))] if step > budget // 2 else []
        b = rng.choice(closing or options)
        state = guide.matcher.step_pairs(state, b)
        out.append(b)
    return bytes(out) if ends(state) else b""


CASES = {**NOT_LALR, **BUNDLED}


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_texts_parse_with_lark(name):
    text, _ = CASES[name]
    guide = GrammarGuide.from_lark(text, BYTES)
    parser = _oracle(text)
    rng = random.Random(name)
    found = 0
    for _ in range(60):
        s = _sample(guide, rng, 40)
        if s:
            found += 1
            assert _lark_accepts(parser, s.decode()), f"{name}: engine accepts {s!r}, Lark's Earley parser does not"
    assert found >= 10


@pytest.mark.parametrize("name", sorted(CASES))
def test_random_texts_same_verdict_as_lark(name):
    text, alphabet = CASES[name]
    guide = GrammarGuide.from_lark(text, BYTES)
    parser = _oracle(text)
    rng = random.Random(name + "/random")
    texts = {"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))) for _ in range(400)}
    # mutations of generated texts: near misses the uniform draw would rarely reach
    for _ in range(100):
        s = _sample(guide, rng, 30).decode()
        if s:
            i = rng.randrange(len(s))
            texts.update({s[:i] + s[i + 1 :], s[:i] + rng.choice(alphabet) + s[i:], s + rng.choice(alphabet), s})
    wrong = [t for t in sorted(texts) if guide.accepts_bytes(t.encode()) != _lark_accepts(parser, t)]
    assert not wrong, f"{name}: engine and Lark disagree on {wrong[:5]}"


def test_the_issue_examples_exactly():
    rr = GrammarGuide.from_lark(NOT_LALR["reduce_reduce"][0], BYTES)
    assert rr.accepts_bytes(b"wwxy") and rr.accepts_bytes(b"wxz") and not rr.accepts_bytes(b"wxx")
    pal = GrammarGuide.from_lark(NOT_LALR["palindromes"][0], BYTES)
    for s in (b"aaaa", b"bbbb", b"abbbba", b"aa", b"baab"):
        assert pal.accepts_bytes(s), s
    for s in (b"a", b"ab", b"aaa", b"abab"):
        assert not pal.accepts_bytes(s), s
    ab = GrammarGuide.from_lark(NOT_LALR["colliding_terminals"][0], BYTES)
    assert ab.accepts_bytes(b"ab?") and ab.accepts_bytes(b"ab!") and ab.accepts_bytes(b"aab!") and ab.accepts_bytes(b"abb?")
    assert not ab.accepts_bytes(b"aab?") and not ab.accepts_bytes(b"abb!")


@pytest.mark.parametrize(
    "text, message",
    [
        ("start: a\n", "not defined"),
        ('start: "x" | \nA: /a*/\nstart2: A\n', None),
        ("start: A\nA: /(?=a)a/\n", "lookahead"),
        ("start: A\nA: /a*/\n", "empty string"),
        ("start: \"a\" (", "Lark grammar"),
    ],
)
def test_bad_grammars_are_named_errors(text, message):
    if message is None:
        GrammarGuide.from_lark(text, BYTES)  # an empty alternative is fine; A is unused
        return
    with pytest.raises(GrammarError, match=message):
        GrammarGuide.from_lark(text, BYTES)


def test_start_rule_that_derives_nothing_is_refused():
    with pytest.raises(GrammarError, match="derives no text"):
        GrammarGuide.from_lark('start: "a" start\n', BYTES)
