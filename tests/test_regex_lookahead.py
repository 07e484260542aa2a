"""Lookaheads `(?=X)` / `(?!X)`, `\\Z` and `$` in the middle: the byte automata against `re.fullmatch`."""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenguide import Index, Vocabulary
from tokenguide.errors import RegexError, StateLimitError
from tokenguide.index import LazyIndex
from tokenguide.json_schema.text import VALUE_END, value_difference, value_intersection
from tokenguide.regex import compile_regex
from tokenguide.regex import parser as regex_parser
from tokenguide.regex.lazy import EagerRows, LazyByteDFA, LookaheadNeedsEagerError, lazy_regex
from tokenguide.regex.nfa import estimate_size

ALPHABET = "abé日\n"


def all_strings(alphabet: str, max_len: int):
    for n in range(max_len + 1):
        for t in itertools.product(alphabet, repeat=n):
            yield "".join(t)


def assert_same_language(pattern: str, strings) -> None:
    dfa = compile_regex(pattern)
    compiled = re.compile(pattern)
    for s in strings:
        assert dfa.accepts(s.encode()) == bool(compiled.fullmatch(s)), (pattern, s)
    assert_trimmed(dfa)


def assert_trimmed(dfa) -> None:
    """Every state of the automaton reaches a final state: no byte leads to a dead end."""
    n = dfa.num_states
    back = [set() for _ in range(n)]
    for s, row in enumerate(dfa.table):
        for t in row:
            if t >= 0:
                back[t].add(s)
    alive = set(dfa.finals)
    stack = list(alive)
    while stack:
        for p in back[stack.pop()]:
            if p not in alive:
                alive.add(p)
                stack.append(p)
    assert len(alive) == n or (n == 1 and not dfa.finals)


# -- hypothesis: small regexes with lookaheads over a small alphabet --------------------------

ATOMS = ["a", "b", "é", "日", "[ab]", "[^a]", ".", "[é日]", r"\n"]


def regexes(depth: int = 3):
    leaf = st.sampled_from(ATOMS)
    if depth == 0:
        return leaf
    sub = regexes(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, sub).map(lambda p: p[0] + p[1]),
        st.tuples(sub, sub).map(lambda p: f"(?:{p[0]}|{p[1]})"),
        st.tuples(sub, st.sampled_from(["?", "*", "+", "{0,2}", "{2}"])).map(lambda p: f"(?:{p[0]}){p[1]}"),
        sub.map(lambda p: f"(?={p})"),
        sub.map(lambda p: f"(?!{p})"),
        sub.map(lambda p: f"(?={p}\\Z)"),
        sub.map(lambda p: f"(?!{p}(?:b|\\Z))"),
        st.just(r"\Z"),
        st.just("$"),
        st.just("(?=)"),
        st.just("(?!)"),
    )


STRINGS = list(all_strings("abé日\n", 4))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(regexes(), st.lists(st.text(alphabet=ALPHABET, max_size=8), max_size=30))
def test_random_lookahead_regexes_match_re_fullmatch(pattern, extra):
    assert_same_language(pattern, STRINGS[:400] + extra)


# -- fixed cases ------------------------------------------------------------------------------

NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
STRING = r'"(?:[^"\\\x00-\x1f]|\\["\\bfnrt])*"'


def array_of(x: str) -> str:
    return rf"\[(?:{x}(?:,{x})*)?\]"


FIXED = [
    r"a(?=b)[a-z]",
    r"(?:(?!ab)[ab])*",
    r"(?=)a|(?!)b",
    r"(?!)",
    r"(?=)",
    r"a(?=)",
    r"a(?!)|b",
    r"a(?=b|\Z)",
    r"a(?!b)",
    r"[ab]*(?=\Z)",
    r"(?:a(?=b\Z)|b)*",
    r"(?:(?=(?!ab)a)[ab])*",
    r"(?=(?=a)(?!ab))[ab]+",
    r"(?!(?!a)b)[ab]*",
    r"a$\n?",
    r"a$",
    r"(?m)a$\n?b?",
    r"a\Z|b",
    r"a\Zb",
    r"(?:é|日(?!é))*",
    r"(?=[^a]*日)[a-zé日]*",
    r"(?s:.)*(?=é\Z)..",
    r"(?:(?=a))*a",
    r"(?:(?!a)|b){2}[ab]",
    r"(?i:(?!AB)[ab])*",
    r"(?!.*\Z)(?s:.)*",
    r"(?:a|b(?=a$))*",
    r"(?=(?:[^a]*a){2})(?=(?:[^b]*b){1})(?s:.)*",
]


@pytest.mark.parametrize("pattern", FIXED)
def test_fixed_lookahead_regexes_match_re_fullmatch(pattern):
    assert_same_language(pattern, all_strings("abé日\n", 5))


def json_texts(rng: random.Random, n: int) -> list[str]:
    """Numbers, strings, arrays of them and near misses (prefixes, a stray comma)."""
    atoms = ["1", "12", "123", "0", "-1", "1.5", "12e3", "1e", "01", '""', '"a"', '"ab"', '"é日"', '"\\n"', '"1"', "true", "null"]
    out = list(atoms)
    for _ in range(n):
        k = rng.randint(0, 3)
        items = [rng.choice(atoms) for _ in range(k)]
        text = "[" + ",".join(items) + "]"
        out.append(text)
        out.append(text[: rng.randint(0, len(text))])
        out.append(text + rng.choice(["", ",", " ", "]", "1"]))
    return out


JSON_CASES = [
    (NUMBER, "(?:1|12)"),
    (NUMBER, "12"),
    (NUMBER, r"-?[0-9]+"),
    (STRING, '"a"'),
    (STRING, r'"[a-z]*"'),
    (f"(?:{NUMBER}|{STRING})", f"(?:{STRING}|1)"),
]


@pytest.mark.parametrize("a, b", JSON_CASES)
def test_json_value_difference_and_intersection(a, b):
    texts = json_texts(random.Random(7), 120)
    for make in (value_difference, value_intersection):
        value = make(a, b)
        for pattern in (value, array_of(value), f"(?:{value}|{array_of(value)})"):
            assert_same_language(pattern, texts)
    # Exactness spelled out: 12 is a number but not one of (1|12), and 123 is.
    diff = compile_regex(value_difference(NUMBER, "(?:1|12)"))
    assert [diff.accepts(t) for t in (b"1", b"12", b"123", b"13")] == [False, False, True, True]
    both = compile_regex(array_of(value_intersection(NUMBER, "(?:1|12)")))
    assert [both.accepts(t) for t in (b"[1,12]", b"[12,1]", b"[123]", b"[]")] == [True, True, False, True]


def test_nested_json_lookaheads():
    """A `not` inside a oneOf-like branch: lookaheads inside lookahead bodies."""
    inner = value_difference(NUMBER, "(?:1|12)")
    outer = value_difference(f"(?:{inner}|{STRING})", f"(?:{inner}|\"a\")")
    texts = json_texts(random.Random(3), 150)
    for pattern in (outer, array_of(outer), value_intersection(array_of(outer), array_of(NUMBER))):
        assert_same_language(pattern, texts)
    dfa = compile_regex(outer)
    assert [dfa.accepts(t) for t in (b"13", b'"a"', b'"b"', b"12")] == [False, False, True, False]


def test_json_schema_not_regex_when_available():
    """The JSON Schema compiler's own spelling of `not`, if it emits one."""
    from tokenguide.json_schema import build_regex_from_schema

    schema = {"type": "array", "items": {"type": "integer", "not": {"enum": [1, 12]}}}
    try:
        pattern = build_regex_from_schema(json.dumps(schema))
    except Exception as exc:  # pragma: no cover - depends on other modules' progress
        pytest.skip(f"`not` is not compiled yet: {exc}")
    dfa = compile_regex(pattern)
    for items in ([], [2], [1], [12], [123, 5], [5, 12]):
        text = json.dumps(items, separators=(",", ":"))
        assert dfa.accepts(text.encode()) == bool(re.fullmatch(pattern, text)) == (1 not in items and 12 not in items)


# -- token level: Index and LazyIndex against brute force ------------------------------------


def completable(pattern: re.Pattern, prefix: bytes, alphabet: str, max_len: int) -> bool:
    """Whether some completion of at most `max_len` characters of `alphabet` makes `prefix` (UTF-8,
    perhaps stopping inside a character) a full match; exhaustive, so exact for regexes whose
    completable prefixes all complete within `max_len` characters."""
    cut = len(prefix)
    lead = cut - 1
    while lead > 0 and lead > cut - 4 and prefix[lead] & 0xC0 == 0x80:
        lead -= 1
    if lead >= 0 and prefix[lead] >= 0xC0:
        need = 2 if prefix[lead] < 0xE0 else 3 if prefix[lead] < 0xF0 else 4
        if cut - lead < need:
            cut = lead
    try:
        head = prefix[:cut].decode()
    except UnicodeDecodeError:
        return False
    tail = prefix[cut:]
    firsts = [""] if not tail else [ch for ch in alphabet if ch.encode().startswith(tail) and ch.encode() != tail]
    if tail and not firsts:
        return False
    for first in firsts:
        for rest in all_strings(alphabet, max_len - (1 if first else 0)):
            if pattern.fullmatch(head + first + rest):
                return True
    return False


def check_index_against_brute_force(index, vocab_bytes: dict[int, bytes], pattern: str, alphabet: str,
                                    max_len: int, max_states: int, relevant=None) -> int:
    """Walk the index breadth first; in every state reached, a token is allowed iff its text
    completes, and every allowed token leads to a state from which a final state is reachable."""
    compiled = re.compile(pattern)
    eos = index.eos_token_id
    start = index.initial_state
    texts = {start: b""}
    queue = [start]
    checked = 0
    while queue and checked < max_states:
        state = queue.pop(0)
        checked += 1
        text = texts[state]
        allowed = set(index.get_allowed_tokens(state))
        assert (eos in allowed) == index.is_final_state(state) == bool(compiled.fullmatch(text.decode("utf-8", "replace")))
        for token, data in vocab_bytes.items():
            if relevant is not None and not relevant(data):
                assert token not in allowed, (text, data)
                continue
            expected = completable(compiled, text + data, alphabet, max_len)
            assert (token in allowed) == expected, (pattern, text, data, expected)
            if expected:
                nxt = index.get_next_state(state, token)
                assert nxt is not None
                if nxt not in texts:
                    texts[nxt] = text + data
                    queue.append(nxt)
    return checked


SMALL_TOKENS = ["a", "b", "ab", "ba", "c", "é", "日", b"\xc3", b"\xa9", "1", "12", "2", "3", ",", "[", "]", "[1", "1,", "2]", "e"]


def small_vocabulary() -> tuple[Vocabulary, dict[int, bytes]]:
    mapping = {tok: i for i, tok in enumerate(SMALL_TOKENS)}
    eos = len(SMALL_TOKENS)
    mapping["<eos>"] = eos
    as_bytes = {i: (tok if isinstance(tok, bytes) else tok.encode()) for tok, i in mapping.items() if i != eos}
    return Vocabulary(eos, mapping), as_bytes


TOKEN_CASES = [
    (array_of(value_difference(r"-?[0-9]+(?:e[0-9]+)?", "(?:1|12)")), "0123],[e", 4),
    (array_of(value_intersection(r"[0-9]+", "(?:1|12|2)")), "0123],[", 4),
    (r"(?:(?!ab)[abc])*c", "abc", 3),
    (r"(?=[^日]*日)[abé日]*", "abé日", 3),
    (r"(?:é(?!日)|日|a)+", "aé日", 3),
    (r"(?:a(?=b\Z)|b)*", "ab", 3),
]


@pytest.mark.parametrize("pattern, alphabet, max_len", TOKEN_CASES)
def test_index_on_a_small_vocabulary_is_exact(pattern, alphabet, max_len):
    vocab, as_bytes = small_vocabulary()
    index = Index(pattern, vocab)
    assert check_index_against_brute_force(index, as_bytes, pattern, alphabet, max_len, 40) > 1
    lazy = LazyIndex(pattern, vocab)
    assert isinstance(lazy.dfa, EagerRows)
    assert check_index_against_brute_force(lazy, as_bytes, pattern, alphabet, max_len, 40) > 1


def test_index_on_gpt2_is_exact(gpt2_vocab_path, gpt2_vocabulary):
    """Arrays of integers that are not 1 or 12, on GPT-2: every token of digits, commas and brackets checked."""
    from tokenguide.vocabulary.byte_level import decode_byte_level

    pattern = array_of(value_difference(r"-?(?:0|[1-9][0-9]*)", "(?:1|12)"))
    encoder = json.loads(gpt2_vocab_path.read_text())
    vocab = gpt2_vocabulary
    vocab_bytes = {i: decode_byte_level(tok) for tok, i in encoder.items() if i != vocab.eos_token_id}
    alphabet = set(b"0123456789-,[]")
    relevant = lambda data: set(data) <= alphabet  # other bytes never occur in the language  # noqa: E731
    index = Index(pattern, vocab)
    assert check_index_against_brute_force(index, vocab_bytes, pattern, "013-,]", 3, 6, relevant) == 6


def test_brute_force_check_catches_an_inexact_index():
    """The check above fails for the index of the same regex without its lookahead."""
    vocab, as_bytes = small_vocabulary()
    pattern = array_of(value_difference("[0-9]+", "(?:1|12)"))
    with pytest.raises(AssertionError):
        check_index_against_brute_force(Index(array_of("[0-9]+"), vocab), as_bytes, pattern, "0123],[", 4, 40)


# -- lazy path, limits, hooks, errors ---------------------------------------------------------


def test_lazy_automaton_refuses_lookaheads_and_lazy_regex_goes_eager():
    tree = regex_parser.parse(r"a(?!b)[a-z]")
    assert regex_parser.has_lookaround(tree)
    assert not regex_parser.has_lookaround(regex_parser.parse(r"a(?:b|c)*\Z"))  # a final \Z is only fullmatch
    with pytest.raises(LookaheadNeedsEagerError, match="lazy_regex") as info:
        LazyByteDFA(tree, pattern=r"a(?!b)[a-z]")
    assert isinstance(info.value, RegexError)
    rows = lazy_regex(r"a(?!b)[a-z]")
    assert isinstance(rows, EagerRows)
    eager = compile_regex(r"a(?!b)[a-z]")
    for text in (b"ab", b"aa", b"ac", b"a", b"abc"):
        assert rows.accepts(text) == eager.accepts(text) == bool(re.fullmatch(r"a(?!b)[a-z]", text.decode()))
        assert rows.walk(text) == eager.walk(text)
    state = rows.walk(b"a")
    assert rows.row(state)[ord("b")] == -1 and rows.row(state)[ord("c")] >= 0
    assert rows.is_final(rows.walk(b"ac")) and rows.num_states == eager.num_states
    assert isinstance(lazy_regex("a[bc]"), LazyByteDFA)


def test_guides_take_the_eager_automaton_for_lookaheads():
    from tokenguide import Guide

    vocab, _ = small_vocabulary()
    guide = Guide.from_regex(r"(?:(?!ab)[ab])*c", vocab)
    a, b, c = SMALL_TOKENS.index("a"), SMALL_TOKENS.index("b"), SMALL_TOKENS.index("c")
    guide.advance(a)
    assert b not in guide.get_tokens() and c in guide.get_tokens()
    eager = Guide.from_regex(r"(?:(?!ab)[ab])*c", vocab, lazy=False)
    eager.advance(a)
    assert guide.get_tokens() == eager.get_tokens()


def test_state_limit_and_checkpoint_with_lookaheads():
    pattern = r"(?:(?![ab]*a[ab]{8}c)[abc])*"
    with pytest.raises(StateLimitError, match="max_states"):
        compile_regex(pattern, max_states=50)
    calls = []
    compile_regex(r"(?:(?![ab]*a[ab]{6}c)[abc])*", checkpoint=lambda: calls.append(1))
    assert calls

    class Cancelled(Exception):
        pass

    def cancel():
        raise Cancelled

    with pytest.raises(Cancelled):
        compile_regex(r"(?:(?![ab]*a[ab]{6}c)[abc])*", checkpoint=cancel)


def test_memory_budget_with_lookaheads(monkeypatch):
    from tokenguide.regex import dfa as dfa_module

    monkeypatch.setattr(dfa_module, "MEMORY_BUDGET", 200_000)
    with pytest.raises(StateLimitError, match="MiB of memory while determinizing lookaheads"):
        compile_regex(r"(?:(?![ab]*a[ab]{6}c)[abc])*")


def test_estimate_size_counts_lookahead_bodies():
    plain = estimate_size(regex_parser.parse("a{50}b"))
    assert estimate_size(regex_parser.parse("(?=a{50})b")) > plain - 10
    assert estimate_size(regex_parser.parse(r"(?!x)a\Zb")) > estimate_size(regex_parser.parse("ab"))
    with pytest.raises(StateLimitError, match="repetition"):
        compile_regex(r"(?=(?:(?:a{1000}){1000}){10})b")


def test_nesting_guard_counts_lookaheads():
    from tokenguide.errors import RegexNestingError

    deep = "(?=" * (regex_parser.MAX_GROUP_DEPTH + 1) + "a" + ")" * (regex_parser.MAX_GROUP_DEPTH + 1)
    with pytest.raises(RegexNestingError):
        compile_regex(deep)
    ok = "(?!" * 30 + "a" + ")" * 30 + "b"
    assert_same_language(ok, ["a", "b", "ab", ""])


@pytest.mark.parametrize(
    "pattern, construct, pos",
    [
        (r"(?<=a)b", "lookbehind", 0),
        (r"a(?<!b)", "lookbehind", 1),
        (r"a(?=b(?<=b))b", "lookbehind", 5),
        (r"a(?!(b)\1)", "backreference", 7),
        (r"(a)(?=(?(1)b|c))", "conditional", 6),
        (r"a(?=\bb)", "word boundary", 4),
        (r"a(?=^b)", "anchor", 4),
        (r"(?m)a(?=\n^b)", "anchor", 10),
        (r"a(?=b*+)", "possessive", 5),
    ],
)
def test_constructs_still_refused_name_construct_and_position(pattern, construct, pos):
    with pytest.raises(RegexError) as info:
        compile_regex(pattern)
    assert construct in str(info.value)
    assert info.value.pos == pos


# -- grammar paths: no lookaround inside a terminal ------------------------------------------


@pytest.mark.parametrize(
    "grammar, pos",
    [
        ('start: (A | "b")+\nA: /a(?=b)/', 1),
        ("start: A\nA: /(?:x|(?!y)z)+/", 5),
        ('start: A "c"\nA: /a(?<=a)(?=c)/', 7),
    ],
)
def test_cfg_guides_refuse_terminals_with_lookaheads(grammar, pos):
    from tokenguide.errors import GrammarError
    from tokenguide.guides.cfg.grammar import LarkGrammar

    with pytest.raises(GrammarError, match=f"uses a lookahead at position {pos}") as info:
        LarkGrammar(grammar)
    assert "grammar rules" in str(info.value)


def test_cfg_guide_from_grammar_refuses_a_lookahead_terminal():
    from tokenguide import Guide
    from tokenguide.errors import GrammarError

    vocab, _ = small_vocabulary()
    with pytest.raises(GrammarError, match="terminal A"):
        Guide.from_grammar('start: (A | "b")+\nA: /a(?!b)/', vocab)


def test_cfg_guides_keep_lookbehinds():
    """Lookbehinds only read text already generated (common.ESCAPED_STRING has one)."""
    from tokenguide.guides.cfg.grammar import LarkGrammar

    assert LarkGrammar("%import common.ESCAPED_STRING\nstart: ESCAPED_STRING").terminals
