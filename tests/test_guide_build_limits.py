"""Limits met while building a guide: deep group nesting, state limits (eager, lazy, mid-generation).

Deep nesting is parsed by re's own parser in slices (regex.sre.parse) and converted and built
without recursion, so nesting is no limit of the language; the oracle is re.fullmatch (with
Python's recursion limit raised for re itself when the pattern is deeper than re can parse).
"""

from __future__ import annotations

import json
import random
import re
import sys
import warnings
from contextlib import contextmanager

import pytest

from tokenguide.errors import RegexError, RegexNestingError, StateLimitError
from tokenguide.guides.instructions import MaskCache
from tokenguide.guides.stateful import Guide
from tokenguide.index import Index
from tokenguide.index.lazy import LazyIndex
from tokenguide.json_schema import compile_json_schema
from tokenguide.regex import sre
from tokenguide.regex.dfa import compile_regex
from tokenguide.regex.lazy import lazy_regex
from tokenguide.regex.parser import MAX_GROUP_DEPTH


@contextmanager
def deep_re():
    """Let the oracle (re itself, which recurses per group level) parse deep patterns."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def texts_for(pattern: str, extra: list[str], seed: int = 0) -> list[str]:
    """Random strings over the pattern's own characters, plus `extra` (strings that match)."""
    rng = random.Random(seed)
    alphabet = sorted({c for c in pattern if c.isalnum() or c in "() #"}) + ["~"]
    out = ["", *extra]
    for text in extra:  # near misses: one character dropped, added or changed
        for _ in range(5):
            if text:
                i = rng.randrange(len(text))
                out += [text[:i] + text[i + 1 :], text[:i] + rng.choice(alphabet) + text[i:], text[:i] + "~" + text[i + 1 :]]
    out += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(400)]
    return out


def assert_exact(pattern: str, texts: list[str]) -> None:
    """The eager and the lazy automaton accept exactly what re.fullmatch accepts, on `texts`."""
    with deep_re():
        rx = re.compile(pattern)
    eager, lazy = compile_regex(pattern), lazy_regex(pattern)
    hits = 0
    for text in texts:
        want = rx.fullmatch(text) is not None
        hits += want
        data = text.encode()
        assert eager.accepts(data) == want, (pattern[:80], text)
        assert lazy.accepts(data) == want, (pattern[:80], text)
    assert 0 < hits < len(texts)  # the sample holds both members and non-members


DEEP = 3 * sre.SLICE_DEPTH + 7  # several slices, far past the old limit of 100


@pytest.mark.parametrize(
    "pattern, members",
    [
        ("(" * DEEP + "a" + ")" * DEEP, ["a"]),
        ("".join(f"(?:x{i % 10}" for i in range(DEEP)) + "y" + ")?" * DEEP,
         ["".join(f"x{i % 10}" for i in range(k)) + "y" * (k == DEEP) for k in (0, 1, 5, 41, 80, DEEP)]),
        ("(?i:" + "(a|" * DEEP + "b" + ")" * DEEP + ")", ["a", "A", "b", "B"]),
        ("(?:" + "(?:q|" * 45 + "z" + ")" * 45 + ")+" + "(?=" * 120 + "w" + ")" * 120 + "w", ["zw", "qw", "zqzw"]),
        # groups at a slice boundary that re's parser merges into a class ("X|Y|c" -> [XYc])
        ("(?:" * (sre.SLICE_DEPTH - 1) + "(?:(a))|(b)|c|(?:de)" + ")" * (sre.SLICE_DEPTH - 1), ["a", "b", "c", "de"]),
        # verbose mode: whitespace and comments (which may hold parentheses) inside deep groups
        ("(?x: " + "( a # com(ment\n" * 90 + "b" + ")?" * 90 + ")", ["ab", "aab", "a" * 90 + "b", ""]),
        # brackets, escapes, comments and named groups do not open groups
        ("(?P<n1>" + "(" * 100 + r"[)(]\(" + ")" * 100 + ")(?#c(o)" + r"\)", ["(()", ")()"]),
    ],
)
def test_deep_nesting_is_exact(pattern, members):
    assert sre.outline(pattern).max_depth > sre.SLICE_DEPTH  # parsed in slices
    assert_exact(pattern, texts_for(pattern, members))


def test_nesting_deeper_than_re_itself_can_parse():
    """Past Python's own recursion limit (re raises RecursionError near 490 levels)."""
    depth = MAX_GROUP_DEPTH
    nested = "(?:x" * depth + ")?" * depth  # x{0,1000}
    with pytest.raises(RecursionError):
        re.compile(nested)
    eager = compile_regex(nested)
    flat = compile_regex(f"x{{0,{depth}}}")
    assert eager == flat
    for k in (0, 1, 999, depth, depth + 1):
        assert lazy_regex(nested).accepts(b"x" * k) == (k <= depth)


def test_pathological_nesting_is_a_named_error_at_its_position():
    deep = "a" + "(?:" * (MAX_GROUP_DEPTH + 1) + ")" * (MAX_GROUP_DEPTH + 1)
    with pytest.raises(RegexNestingError) as info:
        lazy_regex(deep)
    assert info.value.limit == MAX_GROUP_DEPTH and info.value.pos == 1 + 3 * MAX_GROUP_DEPTH
    assert f"nested more than {MAX_GROUP_DEPTH:,} deep; flatten the regex" in str(info.value)


@pytest.mark.parametrize(
    "pattern",
    [
        "(" * 130 + "a{3,1}" + ")" * 130,  # an error inside a slice
        "(" * 90 + "(?:b)*" * 3 + "x**" + ")" * 90,  # an error after inner slices
        "(" * 130 + "a" + ")" * 129,  # unclosed
        "(" * 130 + "a" + ")" * 131,  # one ) too many
        "(" * 130 + "[a" + ")" * 130,  # unterminated class
        "(?P<g>" + "(" * 130 + "a" + ")" * 130 + ")(?P<g>b)",  # a group name used twice
        "(" * 130 + "(?#x" + ")" * 129,  # unterminated comment
    ],
)
def test_deep_syntax_errors_are_re_errors_at_re_positions(pattern):
    with deep_re():
        with pytest.raises(re.error) as oracle:
            re.compile(pattern)
    with pytest.raises(RegexError) as info:
        compile_regex(pattern)
    assert info.value.pos == oracle.value.pos, (str(info.value), oracle.value)
    assert oracle.value.msg.split(" ")[0] in str(info.value)


def test_deep_refused_constructs_stay_refused():
    for pattern, what in [
        ("(" * 100 + "(?<=a)b" + ")" * 100, "lookbehind"),
        ("(" * 100 + "a++" + ")" * 100, "possessive"),
        ("(" * 100 + r"\bb" + ")" * 100, "word boundary"),
    ]:
        with pytest.raises(RegexError, match=what):
            compile_regex(pattern)


def many_optional_properties(n: int) -> dict:
    return {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(n)}, "additionalProperties": False}


def test_schema_whose_regex_nests_deeply_builds_on_both_paths(gpt2_vocabulary):
    """150 optional properties nest their regex about 150 deep: the regex path's guide builds
    from the deep regex, and "auto" runs the engine path, with the same language."""
    schema = many_optional_properties(150)
    compiled = compile_json_schema(schema, path="regex")
    assert compiled.path == "regex" and sre.outline(compiled.regex).max_depth > 100
    guides = [Guide.from_json_schema(schema, gpt2_vocabulary, path="regex"), Guide.from_json_schema(schema, gpt2_vocabulary)]
    assert [g.compiled.path for g in guides] == ["regex", "engine"]
    rx = re.compile(compiled.regex)
    for guide in guides:
        for instance in ({}, {"p0": 1, "p149": -2}, {f"p{i}": i for i in range(0, 150, 7)}):
            text = json.dumps(instance, separators=(",", ":"))
            assert rx.fullmatch(text)
            assert walk_text(guide, text, gpt2_vocabulary), text
        for bad in ('{"p149":1,"p0":2}', '{"p0":1,}', '{"q":1}'):
            assert rx.fullmatch(bad) is None
            assert not walk_text(guide, bad, gpt2_vocabulary), bad


def walk_text(guide: Guide, text: str, vocabulary) -> bool:
    """Feed `text` one byte-token at a time (GPT-2 has a token per byte); True if it ends final."""
    guide.reset()
    byte_token = byte_tokens(vocabulary)
    for b in text.encode():
        if byte_token[b] not in guide.get_tokens():
            return False
        guide.advance(byte_token[b], return_tokens=False)
    return guide.is_finished()


_BYTE_TOKENS: dict[int, list[int]] = {}


def byte_tokens(vocabulary) -> list[int]:
    """The id of the one-byte token of each byte value."""
    found = _BYTE_TOKENS.get(id(vocabulary))
    if found is None:
        found = [-1] * 256
        for token_id in range(vocabulary.vocab_size):
            data = vocabulary.id_to_bytes(token_id)
            if data is not None and len(data) == 1 and found[data[0]] < 0:
                found[data[0]] = token_id
        _BYTE_TOKENS[id(vocabulary)] = found
    return found




# -- state limits ---------------------------------------------------------------------------

WINDOW = "[ab]*a[ab]{4}"  # its lazy automaton keeps growing along a random text (32 states in all)


@pytest.fixture(scope="module")
def window_index(gpt2_vocabulary):
    return Index(WINDOW, gpt2_vocabulary)


def random_walk(guide: Guide, oracle: Index, steps: int, seed: int, vocabulary) -> bytes:
    """Advance along random allowed tokens, checking every step's tokens against the eager index."""
    rng = random.Random(seed)
    state, text = oracle.initial_state, b""
    vocab_eos = oracle.eos_token_id
    for _ in range(steps):
        tokens = guide.get_tokens()
        assert tokens == list(oracle.get_allowed_tokens(state))
        token = rng.choice([t for t in tokens if t != vocab_eos])
        guide.advance(token, return_tokens=False)
        state = oracle.get_next_state(state, token)
        text += vocabulary.id_to_bytes(token)
        assert guide.is_finished() == oracle.is_final_state(state) == (re.fullmatch(WINDOW, text.decode()) is not None)
    return text


def test_lazy_guide_meeting_max_states_mid_generation_goes_on(gpt2_vocabulary, window_index):
    """The first mask fits in 30 states, the generation does not: the guide goes on in a fresh
    automaton, with the same tokens allowed at every step as the eager index, rollback included."""
    lazy = LazyIndex(WINDOW, gpt2_vocabulary, max_states=30)
    lazy.mask_bytes(lazy.initial_state)
    guide = Guide(lazy, max_rollback=4)  # a renewal carries the history over: 6 states
    random_walk(guide, window_index, 120, 1, gpt2_vocabulary)
    assert guide.renewals > 0 and guide.index is not lazy
    twin, texts = guide.copy(), [b"", b"ab" * 9]
    for text in texts:  # the twin and the guide go on separately, each renewing its own automaton
        twin.reset()
        for b in text:
            twin.advance(gpt2_vocabulary.get(chr(b))[0], return_tokens=False)
        state = window_index.initial_state
        for b in text:
            state = window_index.get_next_state(state, gpt2_vocabulary.get(chr(b))[0])
        assert twin.get_tokens() == list(window_index.get_allowed_tokens(state))
    guide.rollback_state(4)
    guide.reset()
    random_walk(guide, window_index, 60, 2, gpt2_vocabulary)
    # without the renewal the same walk is stranded: the raw index raises
    raw = LazyIndex(WINDOW, gpt2_vocabulary, max_states=30)
    with pytest.raises(StateLimitError, match="max_states=30"):
        state = raw.initial_state
        # a de Bruijn text: every window of 5 letters, so every state of the automaton
        for token in (t for t in [gpt2_vocabulary.get(x)[0] for x in "aaaaabaaabbaabababbbaabbbbabbbbb" * 2]):
            state = raw.get_next_state(state, token)
            raw.mask_bytes(state)


def test_renewal_with_a_callers_mask_cache_drops_stale_masks(gpt2_vocabulary, window_index):
    guide = Guide(LazyIndex(WINDOW, gpt2_vocabulary, max_states=30), max_rollback=4, mask_cache=MaskCache())
    rng = random.Random(4)
    state = window_index.initial_state
    for _ in range(80):
        assert guide.mask_bytes() == window_index.mask_bytes(state)
        token = rng.choice([t for t in guide.get_tokens() if t != window_index.eos_token_id])
        guide.advance(token, return_tokens=False)
        state = window_index.get_next_state(state, token)
    assert guide.renewals > 0


def test_one_step_beyond_max_states_is_a_named_error(gpt2_vocabulary):
    """What a fresh automaton cannot hold either: an error that says so, not a stranded loop."""
    guide = Guide(LazyIndex(WINDOW, gpt2_vocabulary, max_states=20))
    with pytest.raises(StateLimitError, match="one step needs more automaton states than the limit.*max_states=20"):
        for _ in range(200):
            guide.advance(next(t for t in guide.get_tokens() if t != gpt2_vocabulary.eos_token_id), return_tokens=False)
    with pytest.raises(StateLimitError, match="max_states=5"):
        Guide.from_regex(WINDOW, gpt2_vocabulary, max_states=5).get_tokens()


def jsonschema_valid(schema: dict, text: str) -> bool:
    jsonschema = pytest.importorskip("jsonschema")
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return jsonschema.Draft202012Validator(schema).is_valid(value)


INSTANCES = ['"abaab"', '"bbbbaabab"', '"abab"', '"aaaaaaaaaaaaaaaaaaaaaaaabbbb"', '"abba"', '"ab', 'abaab',
             '{"n":1,"s":"ab"}', '{"n":-3}', '{"s":"x"}', '{"n":1.5}', '{"n":2,"s":"a","t":1}', '{}']


MID_STATES = 30  # the first mask fits, a long string does not


def test_json_schema_guide_meeting_max_states_mid_generation_stays_exact(gpt2_vocabulary):
    schema = {"type": "string", "pattern": f"^{WINDOW}$"}
    guide = Guide.from_json_schema(schema, gpt2_vocabulary, max_states=MID_STATES, max_rollback=4, path="regex")
    assert guide.compiled.path == "regex"
    for text in INSTANCES + ['"' + "ab" * 60 + 'bab"', '"' + "ba" * 70 + 'abbbb"']:
        assert walk_text(guide, text, gpt2_vocabulary) == jsonschema_valid(schema, text), text
    assert guide.renewals > 0


def test_automaton_over_max_states_needs_no_regex_on_the_engine_path(gpt2_vocabulary):
    """Eager (lazy=False) or lazy: the regex path meets the limit while building; "auto" runs the
    engine path whatever max_states says, accepting what jsonschema accepts."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
              "required": ["n"], "additionalProperties": False}
    for kwargs in ({"lazy": False, "use_cache": False}, {"lazy": True}):
        with pytest.raises(StateLimitError, match="max_states=3"):
            Guide.from_json_schema(schema, gpt2_vocabulary, max_states=3, path="regex", **kwargs)
        guide = Guide.from_json_schema(schema, gpt2_vocabulary, max_states=3, **kwargs)
        assert guide.compiled.path == "engine"
        for text in INSTANCES:
            assert walk_text(guide, text, gpt2_vocabulary) == jsonschema_valid(schema, text), text


def test_both_paths_refused_names_the_place_and_the_fix(gpt2_vocabulary):
    # 600 optional members of an open object (free-form values: the engine path, which reads
    # them as written; the Lark grammar once passed its 1,100 alternatives even as member rules)
    schema = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(600)}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        guide = Guide.from_json_schema(schema, gpt2_vocabulary, lazy=False, use_cache=False, max_states=50)
    assert guide.compiled.path == "engine" and "engine path takes it" in guide.compiled.reason
    assert guide.accepts_tokens(gpt2_vocabulary.get(t)[0] for t in ['{"', "p", "599", '":', "7", "}"])
    # a lookahead over a string of 30,000 characters: a lexeme past 2,000 states for the engine path too
    both = {"type": "string", "pattern": "^(?=.*a)([a-z]x){0,15000}$"}
    with pytest.raises(StateLimitError) as info:
        Guide.from_json_schema(both, gpt2_vocabulary, lazy=False, use_cache=False, max_states=50)
    text = str(info.value)
    assert "max_states=50" in text and "the engine path refuses it (" in text
    assert "at #/pattern" in text and "raise max_states" in text
    with pytest.raises(StateLimitError, match="max_states=2"):
        Guide.from_json_schema({"type": "string", "pattern": f"^{WINDOW}$"}, gpt2_vocabulary, max_states=2, path="regex")


def test_both_paths_refused_says_where_once(gpt2_vocabulary):
    """A grammar refusal that names its keyword and pointer is quoted as is, and the fix offered
    fits the regex path's limit (max_states, or the repetition counts that max_states does not bound)."""
    schema = {"type": "object", "properties": {"e": {"type": "string", "format": "email", "maxLength": 1024}},
              "additionalProperties": False}
    with pytest.raises(StateLimitError) as info:
        Guide.from_json_schema(schema, gpt2_vocabulary, max_states=1000)
    text = str(info.value)
    assert text.count("keyword 'maxLength' at #/properties/e/maxLength") == 1 and "raise max_states" in text
    # a lookahead (format + maxLength) keeps every repetition unrolled (counted ones are not, regex.nfa)
    huge = {"type": "array", "items": {"type": "string", "format": "email", "maxLength": 3000}, "maxItems": 1000}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(StateLimitError) as info:
            Guide.from_json_schema(huge, gpt2_vocabulary, path="regex")
    assert "automaton pieces" in str(info.value) and "reduce the repetition counts" in str(info.value)
