"""The lazy path: regex.lazy.LazyByteDFA against the eager minimal DFA and `re.fullmatch`, and
index.lazy.LazyIndex against the eager Index (same allowed tokens, masks and finality along
walks), computing only the states it visits."""

from __future__ import annotations

import random
import re

import pytest

from benchmarks.regexes import REGEX_CASES
from tokenguide.errors import RegexNestingError, StateLimitError
from tokenguide.index import Index
from tokenguide.index.lazy import LazyIndex
from tokenguide.regex.dfa import compile_regex
from tokenguide.regex.lazy import lazy_regex
from tokenguide.regex.parser import MAX_GROUP_DEPTH

PATTERNS = list(REGEX_CASES.values()) + [
    r".{3}", r"[^a]*é", r"(a|b)*a(a|b){3}", r"\w+@\d", r"(?s).", r"[\u0100-\U0001F600]+", r"(?i)straße|ǅ", r"", r"a?",
    r"a|[^\s\S]b", r"(x[^\s\S])*y", r"[^\x00-\x1f]{0,3}", r"(?:[^a]|ab){2,4}é", r"[\u0800-\uffff]{2}x",
    r"[\U00010000-\U0010ffff]{1,2}", r"[^\u07ff\U0001f600]{2}",
]
ALPHABET = ["a", "b", "0", "1", "9", "-", "@", ".", "é", "😀", "\n", " ", "(", ")", "|", "x", "/", ":", "h", "t", "p", "s", "'", '"', "ß", "Ā",
            "\u0800", "\u07ff", "\uffff", "\U00010000", "\U0010ffff", "\U0001f600", "\U0001f601"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_lazy_automaton_accepts_the_same_bytes(pattern):
    rng = random.Random(pattern)
    lazy, eager = lazy_regex(pattern), compile_regex(pattern)
    for _ in range(600):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 10)))
        data = text.encode()
        assert lazy.accepts(data) == eager.accepts(data) == bool(re.fullmatch(pattern, text)), text
        prefix = data[: rng.randint(0, len(data))]  # may stop inside a character
        assert (lazy.walk(prefix) >= 0) == (eager.walk(prefix) >= 0), prefix
    for _ in range(300):
        data = bytes(rng.randrange(256) for _ in range(rng.randint(1, 5)))
        assert (lazy.walk(data) >= 0) == (eager.walk(data) >= 0), data


def test_lazy_automaton_shares_states_across_blocks_of_one_class():
    """Inside a code point, a whole block of code points that one class holds is one state
    whatever block it is: a class of (nearly) all of Unicode counted three times, as JSON strings
    of at most 3 characters are, takes tens of states, not 50,000 (so counting its texts is cheap)."""
    lazy = lazy_regex(r'"(?:[^"\\\x00-\x1f]|\\["\\bfnrt]){0,3}"')
    seen, todo = {lazy.initial}, [lazy.initial]
    while todo:
        for t in set(lazy.row(todo.pop())) - {-1} - seen:
            seen.add(t)
            todo.append(t)
    assert len(seen) < 100, len(seen)
    for text in ('"a"', '"é😀\U0010ffff"', '"\\n\u0800"', '"abcd"', '"\x01"', '"\ud7ff"'):
        assert lazy.accepts(text.encode()) == bool(re.fullmatch(r'"(?:[^"\\\x00-\x1f]|\\["\\bfnrt]){0,3}"', text))


def test_lazy_automaton_limits_and_errors():
    rng = random.Random(3)
    lazy = lazy_regex("(a|b)*a(a|b){12}", max_states=50)
    with pytest.raises(StateLimitError):
        lazy.walk(bytes(rng.choice(b"ab") for _ in range(400)))
    with pytest.raises(RegexNestingError):
        lazy_regex("(" * (MAX_GROUP_DEPTH + 1) + "a" + ")" * (MAX_GROUP_DEPTH + 1))
    assert lazy_regex("[a-z]+").num_states == 1  # nothing determinized before it is asked for


@pytest.mark.parametrize("name", ["email", "complex_phone", "url", "ssn", "json_object", "complex_span_constrained_relation_extraction"])
def test_lazy_index_walks_like_the_eager_index(name, gpt2_vocabulary):
    regex = REGEX_CASES[name]
    lazy, eager = LazyIndex(regex, gpt2_vocabulary), Index(regex, gpt2_vocabulary)
    assert lazy.mask_bytes(lazy.initial_state) == eager.mask_bytes(eager.initial_state)
    assert lazy.num_visited_states == 1
    rng = random.Random(name)
    eos = gpt2_vocabulary.eos_token_id
    expected = {}  # eager state -> its answers: the eager Index is immutable, ask it once per state

    def eager_answers(es):
        if es not in expected:
            expected[es] = (eager.get_allowed_tokens(es), eager.mask_bytes(es), eager.is_final_state(es))
        return expected[es]

    for _ in range(25):
        ls, es = lazy.initial_state, eager.initial_state
        for _ in range(12):
            allowed = lazy.get_allowed_tokens(ls)  # the lazy index is asked every time (its caches too)
            assert (allowed, lazy.mask_bytes(ls), lazy.is_final_state(ls)) == eager_answers(es)
            token = rng.choice(allowed)
            if token == eos:
                assert lazy.get_next_state(ls, eos) == ls
                break
            wrong = rng.randrange(gpt2_vocabulary.vocab_size)
            assert (lazy.get_next_state(ls, wrong) is None) == (eager.get_next_state(es, wrong) is None)
            ls, es = lazy.get_next_state(ls, token), eager.get_next_state(es, token)
    assert lazy.num_visited_states <= eager.num_states * 4


def test_lazy_index_token_lists_are_bounded(monkeypatch):
    """The allowed-token lists are kept in an LRU bounded by bytes: a long generation visiting many
    states keeps at most the budget, and lists evicted then asked again are the same lists."""
    from tokenguide.vocabulary import Vocabulary

    pieces = sorted({a + b for a in "ab .01" for b in "ab .01"} | set("ab .01xyz"))
    vocabulary = Vocabulary(0, {"<eos>": 0, **{p: i + 1 for i, p in enumerate(pieces)}})
    budget = 3 * 4 * vocabulary.vocab_size  # about three whole-vocabulary lists
    monkeypatch.setattr(LazyIndex, "token_cache_bytes", budget)
    regex = r"[ab ]{0,30}\.[01]{1,20}"
    lazy, eager = LazyIndex(regex, vocabulary), Index(regex, vocabulary)
    rng = random.Random(5)
    seen = []
    for _ in range(8):
        ls, es = lazy.initial_state, eager.initial_state
        for _ in range(40):
            allowed = lazy.get_allowed_tokens(ls)
            assert allowed == eager.get_allowed_tokens(es)
            assert lazy._tokens.size <= budget
            seen.append((ls, es))
            token = rng.choice(allowed)
            if token == vocabulary.eos_token_id:
                break
            ls, es = lazy.get_next_state(ls, token), eager.get_next_state(es, token)
    assert lazy.num_visited_states > 20 and len(lazy._tokens) < lazy.num_visited_states  # some were evicted
    for ls, es in seen:  # evicted or kept, the same answers
        assert lazy.get_allowed_tokens(ls) == eager.get_allowed_tokens(es)
    twin = lazy.fresh()
    assert len(twin._tokens) == 0 and twin._tokens.max_bytes == budget
    assert twin.get_allowed_tokens(twin.initial_state) == eager.get_allowed_tokens(eager.initial_state)


def test_lazy_index_unknown_states_and_schema(gpt2_vocabulary):
    lazy = LazyIndex(r"\d{3}", gpt2_vocabulary)
    assert lazy.get_allowed_tokens(10**6) is None and lazy.get_next_state(10**6, 15) is None
    with pytest.raises(KeyError):
        lazy.mask_bytes(10**6)
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"enum": ["a", "b"]}}, "required": ["n"]}
    lazy = LazyIndex.from_json_schema(schema, gpt2_vocabulary)
    eager = Index.from_json_schema(schema, gpt2_vocabulary)
    assert lazy.mask_bytes(0) == eager.mask_bytes(eager.initial_state)
