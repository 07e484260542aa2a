"""The lexeme intermediate form (`ir.lexemes`) and its derivative automaton (`ir.derivatives`),
checked against oracles written by others: `re.fullmatch`, the project's `LazyByteDFA`, the
set definitions of & and ~, Lark's own grammar loader, and fresh interpreters for determinism."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections import deque
from pathlib import Path

import pytest

from benchmark_modules import load
from oracle import fullmatch
from tokenguide.errors import RegexError, StateLimitError
from tokenguide.ir import derivatives, lexemes
from tokenguide.ir.derivatives import EmptinessBudgetError, LexemeDFA, LexemeStateLimitError
from tokenguide.ir.lexemes import (
    ANY_TEXT, EMPTY, EPSILON, LookaroundInLexemeError, NoRegexFormError, alt, chars, from_regex, inter,
    literal, neg, rep, seq, to_lark, to_re,
)
from tokenguide.regex.lazy import lazy_regex
from tokenguide.regex.parser import parse

ROOT = Path(__file__).resolve().parents[1]

HAND_PICKED = {
    "classes": r"[a-fA-F0-9_-]+\.[^\s,;]{0,3}",
    "digits": r"\d{2,4}",
    "words": r"\w+(\s\w+)*",
    "spaces": r"\s*x\s*",
    "not_digits": r"\D\W\S",
    "ignorecase": r"(?i)stra(ß|ss)e|k",
    "ignorecase_class": r"(?i)[a-z]{2}[^k]",
    "counted": r"(ab|a){2,3}b{0,2}",
    "stars_subset": r"[0-9]*(?:[a-z0-9.]|\\n)*!",  # x* y* is y* when every x is a y (ir.lexemes._seq2)
    "stars_overlap": r"[a-c]*[b-z]*!",  # ... and only then
    "stars_superset": r"[a-z0-9]*[0-9]*(?:x|[0-9])*",
    "search": r'[^"]*[0-9a-f]{3}[^"]*"',  # alternatives inside a `C* T` one dropped (ir.lexemes.alt)
    "star_tails": r"[a-c]*x|[a-d]*x|d+x|(?:a|bc)*y|b*y",  # ... only those inside it
    "counted_exact": r"(x[yz]){3}",
    "nested_counts": r"((a|bc){1,2}d){2}",
    "optional_chain": r"a?b?c?d?e?",
    "two_byte": "[\u00e0-\u00ff\u0400-\u04ff]+",
    "three_byte": "[\u0800-\u0fff\u4e00-\u9fff\ue000-\uffff]{1,3}",
    "four_byte": "[\U00010000-\U0010ffff]{2}",
    "not_ascii": r"[^\x00-\x7f]*",
    "any": r".*",
    "dotall": r"(?s).{3}",
    "mixed_widths": "(é|e\u0301|中|😀|a)+",
    "block_edges": "[\u07ff\u0800\uffff\U00010000\U0010ffff]+",
    "surrogate_neighbours": "[\ud7ff\ue000]x",
    "empty_string": "",
    "alternation_empty": "a|",
    "email_like": r"[^@\s]+@[^@\s]+\.[a-z]{2,}",
    "quoted": r'"([^"\\]|\\.)*"',
    "number": r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?",
}
_shared = load("regexes")
PATTERNS = {**_shared.REGEX_CASES, **_shared.HARD_REPETITIONS, **HAND_PICKED}
EXTRA_CHARS = "aAzZ09_ -.,\"\\@é中😀\n\t\u0301\u00ff\u0800\U0010ffff"


# -- a random text sampler over the regex parser's trees (independent of ir.lexemes) ------------------


def _sample(node, rng: random.Random, out: list[str]) -> None:
    kind = node[0]
    if kind == "chars":
        ranges = node[1]
        if not ranges:
            raise ValueError("no text")
        lo, hi = rng.choice(ranges)
        cp = rng.choice([lo, hi, rng.randint(lo, hi), rng.randint(lo, min(hi, lo + 30))])
        out.append(chr(cp))
    elif kind == "seq":
        for child in node[1]:
            _sample(child, rng, out)
    elif kind == "alt":
        _sample(rng.choice(node[1]), rng, out)
    elif kind == "rep":
        _, child, lo, hi = node
        top = lo + 3 if hi is None else min(hi, lo + 3)
        for _ in range(rng.randint(lo, top)):
            _sample(child, rng, out)
    else:
        raise ValueError(kind)


def texts_for(pattern: str, seed: int, count: int = 60) -> list[str]:
    """Texts of `pattern` (sampled), near misses (mutated) and random texts."""
    rng = random.Random(seed)
    tree = parse(pattern)
    alphabet = sorted(set(EXTRA_CHARS))
    found = []
    for _ in range(count):
        out: list[str] = []
        try:
            _sample(tree, rng, out)
        except ValueError:
            break
        found.append("".join(out))
    mutated = []
    for text in found:
        chars_ = list(text)
        choice = rng.randrange(4)
        if choice == 0 and chars_:
            del chars_[rng.randrange(len(chars_))]
        elif choice == 1:
            chars_.insert(rng.randint(0, len(chars_)), rng.choice(alphabet + chars_ if chars_ else alphabet))
        elif choice == 2 and chars_:
            chars_[rng.randrange(len(chars_))] = rng.choice(alphabet)
        else:
            chars_ = chars_[: rng.randint(0, len(chars_))]
        mutated.append("".join(chars_))
    noise = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6))) for _ in range(count // 3)]
    return found + mutated + noise + [""]


# -- languages ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_language_is_re_fullmatch(name):
    pattern = PATTERNS[name]
    dfa = LexemeDFA(from_regex(pattern))
    checked = 0
    for text in texts_for(pattern, seed=len(name)):
        expected = fullmatch(pattern, text)
        if expected is None:
            continue
        assert dfa.accepts(text.encode()) == expected, (name, text)
        checked += 1
    assert checked > 20


def _byte_strings(pattern: str, seed: int) -> list[bytes]:
    """Encodings of texts, cut at every kind of position (inside characters too), and random bytes."""
    rng = random.Random(seed)
    out = []
    for text in texts_for(pattern, seed, count=30):
        data = text.encode()
        out.append(data)
        if data:
            out.append(data[: rng.randrange(len(data))])
    out += [bytes(rng.randrange(256) for _ in range(rng.randint(1, 5))) for _ in range(20)]
    out += [b"\xc3", b"\xe4\xb8", b"\xf0\x9f\x98", b"\xed\xa0\x80", b"\xc0\x80", b"\xe0\x80\x80", b"\xf4\x90\x80\x80",
            b"\x80", b"\xff"]
    return out


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_rows_agree_with_lazy_byte_dfa(name):
    pattern = PATTERNS[name]
    theirs = lazy_regex(pattern)
    ours = LexemeDFA(from_regex(pattern))
    for data in _byte_strings(pattern, seed=7 + len(name)):
        a, b = theirs.initial, ours.initial
        assert theirs.is_final(a) == ours.is_final(b)
        for i, byte in enumerate(data):
            a, b = theirs.row(a)[byte], ours.row(b)[byte]
            assert (a < 0) == (b < 0), (name, data[: i + 1])
            if a < 0:
                break
            assert theirs.is_final(a) == ours.is_final(b), (name, data[: i + 1])


def _random_regex(rng: random.Random, depth: int, repeats: int = 0) -> str:
    """Regex text over a few characters of 1 to 4 bytes, with nested and counted repeats and empty
    branches (those only outside repeats: `re` backtracks exponentially on nested empty repeats)."""
    atoms = ["a", "b", "é", "中", "😀", "[ab]", "[^a]", ".", "[a-é]"] + ([] if repeats else ["(?:)"])
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(atoms)
    kind = rng.randrange(4)
    if kind == 0:
        return "".join(_random_regex(rng, depth - 1, repeats) for _ in range(rng.randint(2, 3)))
    if kind == 1:
        return "(?:" + "|".join(_random_regex(rng, depth - 1, repeats) if repeats or rng.random() < 0.85 else ""
                                for _ in range(rng.randint(2, 3))) + ")"
    if repeats >= 2:
        return _random_regex(rng, depth - 1, repeats)
    quantifier = rng.choice(["?", "*", "+", "{2}", "{0,2}", "{1,3}", "{2,}", "{0,1}", "{3}"])
    return "(?:" + _random_regex(rng, depth - 1, repeats + 1) + ")" + quantifier


@pytest.mark.parametrize("seed", range(12))
def test_random_regexes_are_re_fullmatch(seed):
    rng = random.Random(seed)
    alphabet = ["a", "b", "é", "中", "😀", "c"]
    for _ in range(25):
        pattern = _random_regex(rng, 4)
        lexeme = from_regex(pattern)
        dfa = LexemeDFA(lexeme)
        printed = re.compile(to_re(lexeme))
        texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7))) for _ in range(60)]
        texts += texts_for(pattern, seed, count=20)
        for text in texts:
            expected = re.fullmatch(pattern, text) is not None
            assert dfa.accepts(text.encode()) == expected, (pattern, text)
            assert (printed.fullmatch(text) is not None) == expected, (pattern, to_re(lexeme), text)


@pytest.mark.parametrize("seed", range(6))
def test_random_boolean_combinations_follow_their_definitions(seed):
    rng = random.Random(100 + seed)
    alphabet = ["a", "b", "é", "中"]
    for _ in range(12):
        a, b = _random_regex(rng, 3), _random_regex(rng, 3)
        la, lb = from_regex(a), from_regex(b)
        ma = lambda t: re.fullmatch(a, t) is not None  # noqa: E731
        mb = lambda t: re.fullmatch(b, t) is not None  # noqa: E731
        cases = [
            (inter(la, lb), lambda t: ma(t) and mb(t)),
            (neg(la), lambda t: not ma(t)),
            (alt(inter(la, neg(lb)), inter(lb, neg(la))), lambda t: ma(t) != mb(t)),
            (seq(neg(la), lb), lambda t: any(not ma(t[:i]) and mb(t[i:]) for i in range(len(t) + 1))),
            (neg(alt(neg(la), neg(lb))), lambda t: ma(t) and mb(t)),
        ]
        texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 5))) for _ in range(40)]
        texts += texts_for(a, seed, count=10) + texts_for(b, seed, count=10)
        for lexeme, definition in cases:
            dfa = LexemeDFA(lexeme)
            for text in texts:
                assert dfa.accepts(text.encode()) == definition(text), (a, b, to_lark(lexeme), text)
            for state in _reachable(dfa, limit=60):  # every state it hands out can still be completed
                assert _reaches_final(dfa, state) or (state == dfa.initial and not derivatives.is_live(lexeme))


# -- intersection and complement -----------------------------------------------------------------------

BOOLEAN_PAIRS = [
    (r"[a-z]+", r".*foo.*"),
    (r"[a-z0-9]{1,8}", r"\d+"),
    (r"(ab|a)*", r"a*b?a*"),
    (r'"([^"\\]|\\.)*"', r'".{0,4}"'),
    (r"[\u00e0-\u00ff\u4e00-\u4e10]+", r".*[\u00e9\u4e01].*"),
    (r"\w+", r"[\W\d_]*"),
    (r"x*", r"y*"),
]


def _valid(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@pytest.mark.parametrize("a,b", BOOLEAN_PAIRS)
def test_intersection_and_complement_follow_their_definitions(a, b):
    la, lb = from_regex(a), from_regex(b)
    cases = {
        "a&b": (inter(la, lb), lambda s: fullmatch(a, s) and fullmatch(b, s)),
        "~a": (neg(la), lambda s: not fullmatch(a, s)),
        "a&~b": (inter(la, neg(lb)), lambda s: fullmatch(a, s) and not fullmatch(b, s)),
        "~(a&b)": (neg(inter(la, lb)), lambda s: not (fullmatch(a, s) and fullmatch(b, s))),
        "~a|~b": (alt(neg(la), neg(lb)), lambda s: not fullmatch(a, s) or not fullmatch(b, s)),
        "(a&~b)*": (rep(inter(la, neg(lb)), 0, 2), None),
    }
    texts = texts_for(a, 3) + texts_for(b, 4)
    data = [t.encode() for t in texts] + _byte_strings(a, 5)
    for label, (lexeme, definition) in cases.items():
        dfa = LexemeDFA(lexeme)
        for item in data:
            text = _valid(item)
            if text is None:
                assert not dfa.accepts(item), (label, item)  # complement among texts only
                continue
            if any(fullmatch(p, text) is None for p in (a, b)):
                continue
            if definition is not None:
                assert dfa.accepts(item) == bool(definition(text)), (label, text)
    # (a & ~b){0,2} against its definition: a split of the text in at most two such parts
    star = LexemeDFA(rep(inter(la, neg(lb)), 0, 2))
    part = lambda s: bool(fullmatch(a, s)) and not fullmatch(b, s)  # noqa: E731
    for text in texts[:40]:
        if any(fullmatch(p, text) is None for p in (a, b)):
            continue
        expected = text == "" or part(text) or any(part(text[:i]) and part(text[i:]) for i in range(1, len(text)))
        assert star.accepts(text.encode()) == expected, text


def _reachable(dfa: LexemeDFA, limit: int = 3000) -> list[int]:
    seen = {dfa.initial}
    queue = deque([dfa.initial])
    while queue and len(seen) < limit:
        for t in set(dfa.row(queue.popleft())):
            if t >= 0 and t not in seen:
                seen.add(t)
                queue.append(t)
    return sorted(seen)


def _reaches_final(dfa: LexemeDFA, state: int) -> bool:
    seen = {state}
    queue = deque([state])
    while queue:
        s = queue.popleft()
        if dfa.is_final(s):
            return True
        for t in set(dfa.row(s)):
            if t >= 0 and t not in seen:
                seen.add(t)
                queue.append(t)
    return False


@pytest.mark.parametrize("a,b", BOOLEAN_PAIRS)
def test_every_live_state_reaches_a_final_state(a, b):
    for lexeme in (inter(from_regex(a), from_regex(b)), inter(from_regex(a), neg(from_regex(b))),
                   neg(from_regex(a))):
        dfa = LexemeDFA(lexeme)
        states = _reachable(dfa, limit=400)
        for s in states:
            if s == dfa.initial and not derivatives.is_live(lexeme):
                assert all(t < 0 for t in dfa.row(s))
                continue
            assert _reaches_final(dfa, s), (to_lark(lexeme), s)


def test_empty_intersections_are_dead_at_once():
    cases = [
        (inter(from_regex("a+"), from_regex("b+")), b""),
        (inter(from_regex("ab"), from_regex("a[^b]")), b"a"),
        (inter(from_regex("[a-z]+"), neg(from_regex("[a-z]*"))), b""),
        (inter(from_regex("x(abc)*"), from_regex("x(abc)*ab")), b"x"),
        (inter(from_regex("é+"), from_regex("è+")), b"\xc3"),  # dies inside the character
        (inter(from_regex("[a-z]{3}"), neg(from_regex("[a-y]{3}|.*z.*"))), b""),
    ]
    for lexeme, prefix in cases:
        dfa = LexemeDFA(lexeme)
        state = dfa.walk(prefix[:-1]) if prefix else None
        if prefix:
            assert state >= 0
            assert dfa.row(state)[prefix[-1]] == -1, to_lark(lexeme)
        else:
            assert all(t == -1 for t in dfa.row(dfa.initial)), to_lark(lexeme)
            assert not derivatives.is_live(lexeme)


# -- hash-consing and normalisation --------------------------------------------------------------------


def test_structurally_equal_expressions_are_one_object():
    a, b, c = literal("ab"), from_regex("[0-9]+"), chars([(0x4E00, 0x4E10)])
    assert from_regex("ab") is a and literal("ab") is seq(literal("a"), literal("b"))
    assert alt(a, b) is alt(b, a) is alt(a, alt(b, a), EMPTY)
    assert inter(a, a) is a and inter(b, ANY_TEXT) is b
    assert neg(neg(b)) is b and neg(EMPTY) is ANY_TEXT and neg(ANY_TEXT) is EMPTY
    assert seq(EPSILON, a, EPSILON) is a and seq(a, EMPTY) is EMPTY
    assert alt(chars([(48, 57)]), chars([(97, 102)])) is chars([(48, 57), (97, 102)])
    assert rep(rep(c, 0, None), 0, None) is rep(c, 0, None) and rep(rep(c, 1, None), 2, 5) is rep(c, 2, None)
    assert rep(a, 1, 1) is a and rep(a, 0, 0) is EPSILON and rep(EMPTY, 0, 3) is EPSILON
    assert inter(chars([(0, 100)]), chars([(50, 200)])) is chars([(50, 100)])
    assert inter(literal("a"), literal("b")) is EMPTY
    assert inter(a, neg(a)) is EMPTY
    assert from_regex("(?:a|b)") is chars([(97, 98)])
    assert lexemes.lexeme_of(b.id) is b


DETERMINISM_SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])
from tokenguide.ir.lexemes import from_regex, inter, neg, alt, to_lark
from tokenguide.ir.derivatives import LexemeDFA
out = []
words = inter(from_regex(r"\w{1,6}"), neg(from_regex(r".*(ab|é).*")))
for p in [r"[a-z]+", r'"([^"\\]|\\.)*"', r"(?i)straße", r"\d{2,4}|x"]:
    e = from_regex(p)
    out.append((e.id, to_lark(e)))
for e in [words, alt(words, from_regex("[0-9]")), neg(words)]:
    dfa = LexemeDFA(e)
    out.append((e.id, to_lark(e), dfa.row(dfa.initial), dfa.walk("abé中".encode())))
print(out)
"""


@pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses in Pyodide")
def test_ids_and_text_do_not_depend_on_the_hash_seed():
    runs = []
    for seed in ("1", "2", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        res = subprocess.run([sys.executable, "-c", DETERMINISM_SCRIPT, str(ROOT / "py_src")],
                             capture_output=True, text=True, env=env, check=True)
        runs.append(res.stdout)
    assert runs[0] == runs[1] == runs[2]
    assert len(runs[0]) > 1000


# -- printers ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_to_re_round_trips(name):
    pattern = PATTERNS[name]
    lexeme = from_regex(pattern)
    printed = to_re(lexeme)
    compiled = re.compile(printed)
    for text in texts_for(pattern, seed=11 + len(name)):
        expected = fullmatch(pattern, text)
        if expected is not None:
            assert (compiled.fullmatch(text) is not None) == expected, (name, printed, text)
    assert from_regex(printed) is lexeme  # the printed text normalises to the same expression


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_to_lark_is_a_lark_terminal_of_the_same_language(name):
    pattern = PATTERNS[name]
    lexeme = from_regex(pattern)
    if lexeme.nullable:
        lexeme = seq(lexeme, literal("!"))  # Lark refuses terminals that match the empty string
        pattern = f"(?:{pattern})!"
    builder = pytest.importorskip("lark.load_grammar").GrammarBuilder()
    builder.load_grammar(f"start: T\nT: {to_lark(lexeme)}\n")  # Lark's own loader (a parser is slow to build)
    terminals, _rules, _ignore = builder.build().compile(["start"], set())
    (terminal,) = [t for t in terminals if t.name == "T"]
    compiled = re.compile(terminal.pattern.to_regexp())
    for text in texts_for(pattern, seed=13 + len(name)):
        expected = fullmatch(pattern, text)
        if expected is not None:
            assert (compiled.fullmatch(text) is not None) == expected, (name, text)


def test_boolean_lexemes_print_for_lark_but_not_for_re():
    words = inter(from_regex("[a-z]+"), neg(from_regex(".*foo.*")))
    with pytest.raises(NoRegexFormError, match="intersection or a complement"):
        to_re(words)
    assert to_lark(words) == '/[a-z]/+ & ~(/[^\\x0a]/* "foo" /[^\\x0a]/*)'
    assert to_lark(neg(literal("ab"))) == '/(?s:.*)/ & ~"ab"'
    assert to_lark(rep(neg(literal("ab")), 1, None)) == '(/(?s:.*)/ & ~"ab")*'  # ~ab holds the empty text


class _ByteTokenizer:
    """One token per byte (and an EOS): llguidance then judges byte strings, not tokenizations."""

    eos_token_id = 256
    bos_token_id = None
    tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
    special_token_ids = [256]

    def __call__(self, text):
        return list(text.encode() if isinstance(text, str) else text)


def _llguidance_accepts():
    """A function (Lark text, bytes) -> llguidance's verdict, or a skip when llguidance is absent
    (it is a benchmark peer, in the `bench` extra)."""
    llguidance = pytest.importorskip("llguidance", reason="llguidance (bench extra) reads the & and ~ of to_lark")
    tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteTokenizer()))
    grammars: dict[str, object] = {}

    def accepts(body: str, data: bytes) -> bool:
        grammar = grammars.get(body)
        if grammar is None:
            grammar = grammars[body] = llguidance.LLMatcher.grammar_from_lark(f"start: T\nT: {body}\n")
            assert not llguidance.LLMatcher.validate_grammar(grammar), body
        matcher = llguidance.LLMatcher(tokenizer, grammar)
        return matcher.consume_tokens(list(data)) and matcher.is_accepting()

    return accepts


@pytest.mark.parametrize("a,b", BOOLEAN_PAIRS)
def test_llguidance_reads_to_lark_and_and_not_with_the_same_language(a, b):
    accepts = _llguidance_accepts()
    la, lb = from_regex(a), from_regex(b)
    for lexeme in (inter(la, lb), inter(la, neg(lb)), neg(inter(la, lb))):
        if lexeme.nullable:
            lexeme = seq(lexeme, literal("!"))
        dfa, body = LexemeDFA(lexeme), to_lark(lexeme)
        for text in texts_for(a, 21, count=15) + texts_for(b, 22, count=15):
            for data in (text.encode(), (text + "!").encode()):
                assert accepts(body, data) == dfa.accepts(data), (body, text)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_llguidance_reads_to_lark_with_the_same_language(name):
    accepts = _llguidance_accepts()
    pattern = PATTERNS[name]
    lexeme = from_regex(pattern)
    body = to_lark(lexeme)
    for text in texts_for(pattern, seed=17 + len(name), count=20):
        expected = fullmatch(pattern, text)
        if expected is not None and text:
            assert accepts(body, text.encode()) == expected, (name, body, text)


# -- refusals and limits -------------------------------------------------------------------------------


def test_lookarounds_are_refused_with_their_position():
    with pytest.raises(LookaroundInLexemeError) as info:
        from_regex(r"ab(?=c)c")
    assert isinstance(info.value, RegexError) and info.value.pos == 2
    assert "intersection or complement" in str(info.value)
    with pytest.raises(LookaroundInLexemeError):
        from_regex(r"a$b?")
    assert from_regex(r"^ab$") is literal("ab")  # anchors at the ends mean nothing to fullmatch


def test_limits_raise_named_errors():
    dfa = LexemeDFA(from_regex("[a-z]{1,5000}"), max_states=50)
    with pytest.raises(LexemeStateLimitError, match="max_states=50"):
        dfa.walk(b"a" * 100)
    assert issubclass(LexemeStateLimitError, StateLimitError)
    hard = inter(from_regex("(a|b){1,3000}"), from_regex("(a|b){2999,3000}c"))
    with pytest.raises(EmptinessBudgetError):
        LexemeDFA(hard, emptiness_budget=100).row(hard.id)
    assert issubclass(EmptinessBudgetError, StateLimitError)


def test_deep_nesting_is_derived_and_printed():
    depth = 900  # the regex parser allows 1,000 nested groups
    pattern = "(a" * depth + ")?" * depth
    lexeme = from_regex(pattern)
    dfa = LexemeDFA(lexeme)
    limit = sys.getrecursionlimit()
    assert dfa.accepts(b"a" * depth) and not dfa.accepts(b"a" * (depth + 1))
    assert from_regex(to_re(lexeme)) is lexeme and to_lark(lexeme).count("(") >= depth - 1
    assert sys.getrecursionlimit() == limit
    long = from_regex("a?" * 150 + "b")  # a long sequence of optional items: no recursion along it
    assert LexemeDFA(long).accepts(b"a" * 100 + b"b") and not LexemeDFA(long).accepts(b"a" * 151 + b"b")


def test_rows_are_shared_between_automata():
    lexeme = from_regex(r"[a-z]+\d")
    first, second = LexemeDFA(lexeme), LexemeDFA(from_regex(r"[a-z]+\d"))
    assert first.initial == second.initial
    assert first.row(first.initial) is second.row(second.initial)
    assert derivatives.byte_classes(lexeme).count(0) > 100  # one class for most bytes
