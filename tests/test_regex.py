"""The byte automaton against Python's re.fullmatch, the oracle for the regex language."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tokenguide.regex import compile_regex as _compile_regex
from tokenguide.errors import RegexError, StateLimitError

import oracle

@functools.lru_cache(maxsize=None)
def _cached(pattern: str, ascii: bool = False):
    return _compile_regex(pattern, ascii=ascii)


def compile_regex(pattern, ascii=False, **kwargs):
    if kwargs or not isinstance(pattern, str):
        return _compile_regex(pattern, ascii=ascii, **kwargs)
    return _cached(pattern, ascii)


ALPHABET = "abcxyzABC019 _-.@\n\t\u00e9\u00df\u0130\u0131\u212a\u017f\u0660\u0969\u3000\u00a0😀😃\u4e2d\U0001d7ce"

PATTERNS = [
    r"a|ab",
    r"(a|b)*abb",
    r"[a-z]+@[a-z]+\.com",
    r"\d{2,3}-\d",
    r"\w+",
    r"\W*",
    r"\s+x",
    r"\S\D",
    r"(?a)\w+",
    r"(?a:\d)\d",
    r"(?i)straße",
    r"(?i)[a-c]+k",
    r"(?i)[^a-z]",
    r"(?i)\u0130|ſ",
    r"(?s).{1,2}",
    r".{1,2}",
    r"[^ab\n]*",
    r"é|😀+",
    r"[\u00e0-\u00ff\U0001F600-\U0001F64F]{2}",
    r"\N{LATIN SMALL LETTER A WITH GRAVE}+",
    r"^abc$",
    r"\Aab?\Z",
    r"x??y*?z+?",
    r"(?:ab){2,3}|c{0}d",
    r"[\d\s]+",
    r"[^\w]",
    r"(?x) a  b # comment",
    r"",
]


def _sample(pattern: str, n: int = 4000) -> None:
    import random

    dfa = compile_regex(pattern)
    rng = random.Random(pattern)
    for _ in range(n):
        s = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 5)))
        assert dfa.accepts(s.encode()) == (re.fullmatch(pattern, s) is not None), (pattern, s)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_random_strings_agree_with_fullmatch(pattern):
    _sample(pattern)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_matching_strings_are_accepted(pattern):
    """Strings the regex generates (via a tiny enumerator) are accepted, others are not."""
    dfa = compile_regex(pattern)
    for text in ["", "a", "ab", "abb", "abc", "straße", "STRASSE", "xyzK", "\u212a", "é", "😀😀", "ab@cd.com"]:
        assert dfa.accepts(text.encode()) == (re.fullmatch(pattern, text) is not None), text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(min_size=0, max_size=6))
def test_unicode_classes_on_any_text(text):
    if not oracle.judgeable(text):
        return
    for pattern in (r"\w*", r"\d*", r"\s*", r"(?i)[a-zé]*", r"[^\W\d]*", r"(?a)[\w\s]*"):
        dfa = compile_regex(pattern)
        assert dfa.accepts(text.encode("utf-8", "surrogatepass")) == (re.fullmatch(pattern, text) is not None)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab.@😀é", max_size=8))
def test_email_like(text):
    pattern = r"[a-zé😀]+(\.[a-z]+)*@[a-z]+(\.[a-z]+)+"
    assert compile_regex(pattern).accepts(text.encode()) == (re.fullmatch(pattern, text) is not None)


def test_partial_utf8_prefixes_are_live():
    dfa = compile_regex("😀+")
    data = "😀".encode()
    for cut in range(1, 4):
        assert dfa.walk(data[:cut]) >= 0
    assert not dfa.accepts(data[:2])
    assert dfa.walk(b"\xf0\x9f\x98\x81") == -1  # 😁 is another character
    assert dfa.walk(b"\xff") == -1


def test_invalid_utf8_is_never_accepted():
    dfa = compile_regex(r"(?s).*")
    assert dfa.accepts("any text ✓".encode())
    for bad in (b"\xc0\x80", b"\xed\xa0\x80", b"\xf5\x80\x80\x80", b"\x80", b"\xe2\x82"):
        assert not dfa.accepts(bad), bad


def test_ascii_option_and_flag():
    assert not compile_regex(r"\d", ascii=True).accepts("٣".encode())
    assert compile_regex(r"\d").accepts("٣".encode())
    assert compile_regex(r"(?a)\d") == compile_regex(r"\d", ascii=True)


def test_leftmost_first_alternation_is_not_copied():
    """outlines-core's engine drops `ab` from `a|ab`; the language includes it."""
    dfa = compile_regex("a|ab")
    assert dfa.accepts(b"a") and dfa.accepts(b"ab")
    date = r"([1-9]|0[1-9]|1[0-9]|2[0-9]|3[0-1])(\.|-|/)([1-9]|0[1-9]|1[0-2])(\.|-|/)([0-9][0-9]|19[0-9][0-9]|20[0-9][0-9])"
    assert re.fullmatch(date, "1.1.1999")
    assert compile_regex(date).accepts(b"1.1.1999")


def test_minimal_and_canonical():
    assert compile_regex("(a|b)*abb").num_states == 4
    assert compile_regex("a+") == compile_regex("aa*")
    assert compile_regex("[ab]|b") == compile_regex("a|b")


@pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses in Pyodide")
def test_same_automaton_under_any_hash_seed():
    code = (
        "import sys; sys.path.insert(0, 'py_src');"
        "from tokenguide.regex import compile_regex;"
        "d = compile_regex(r'(\\w+|[0-9]{2,4})@(?i:ex)\\.(com|org|😀)');"
        "print(d.classes.hex(), d.table, sorted(d.finals))"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        outputs.add(subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True).stdout)
    assert len(outputs) == 1


@pytest.mark.parametrize(
    "pattern, construct, pos",
    [
        (r"(?<=a)b", "lookbehind", 0),
        (r"a(?<!b)", "lookbehind", 1),
        (r"a(?=b(?<=b))b", "lookbehind", 5),
        (r"(a)\1", "backreference", 3),
        (r"(?P<x>a)(?P=x)", "backreference", 8),
        (r"\bword", "word boundary", 0),
        (r"(a)?(?(1)b|c)", "conditional", 4),
        (r"a^b", "anchor", 1),
        (r"(?m)a^b", "anchor", 5),
        (r"a(?=\Ab)", "anchor", 4),
        (r"a*+", "possessive", 1),
        (r"(?>ab)", "atomic", 0),
    ],
)
def test_unsupported_constructs_name_construct_and_position(pattern, construct, pos):
    with pytest.raises(RegexError) as info:
        compile_regex(pattern)
    assert construct in str(info.value)
    assert info.value.pos == pos


@pytest.mark.parametrize("pattern", ["a(b", "[a-", "a{2,1}", "*a", "(?P<1>a)", r"\N{NO SUCH NAME}"])
def test_syntax_errors_have_a_position(pattern):
    with pytest.raises(RegexError) as info:
        compile_regex(pattern)
    assert info.value.pos is not None
    assert "invalid regex" in str(info.value)


def test_not_a_string():
    with pytest.raises(RegexError, match="must be a str"):
        compile_regex(b"abc")  # type: ignore[arg-type]


def test_state_limit_is_an_error_not_a_hang():
    with pytest.raises(StateLimitError, match="max_states"):
        compile_regex(r"[ab]*a[ab]{16}", max_states=1000)
    with pytest.raises(StateLimitError, match="repetition"):  # lookaheads: repetitions are unrolled
        compile_regex(r"(?=a)((a{1000}){1000}){100}")
    with pytest.raises(StateLimitError, match="max_states=1,000 "):  # counted: the DFA's own limit
        compile_regex(r"((a{1000}){1000}){100}", max_states=1000)


def test_empty_language():
    dfa = compile_regex(r"[^\s\S]")
    assert dfa.finals == frozenset()
    assert not dfa.accepts(b"")


def test_pinned_unicode_tables_match_re_of_that_version():
    """The pinned \\d \\w \\s tables are exactly `re`'s where Python has the same Unicode version."""
    import unicodedata

    from tokenguide.regex import unicode_tables

    if unicodedata.unidata_version != unicode_tables.UNICODE_VERSION:
        pytest.skip(f"this Python has Unicode {unicodedata.unidata_version}, the tables {unicode_tables.UNICODE_VERSION}")
    assert not oracle.disagreeing()


def test_unicode_classes_are_pinned():
    """The same automaton on every runtime: U+1E4F0 (NAG MUNDARI DIGIT ZERO, Unicode 15) is a digit everywhere."""
    assert compile_regex(r"\d").accepts("\U0001E4F0".encode())
    assert not compile_regex(r"\d", ascii=True).accepts("\U0001E4F0".encode())


def test_deep_nesting_is_a_named_limit():
    """Only pathological nesting is refused (deep nesting itself: tests/test_guide_build_limits.py)."""
    from tokenguide.errors import RegexNestingError
    from tokenguide.regex.parser import MAX_GROUP_DEPTH

    deep = "(" * (MAX_GROUP_DEPTH + 5) + "a" + ")" * (MAX_GROUP_DEPTH + 5)
    with pytest.raises(RegexNestingError) as info:
        compile_regex(deep)
    assert info.value.limit == MAX_GROUP_DEPTH and info.value.pos == MAX_GROUP_DEPTH
    assert "nested more than" in str(info.value) and "flatten the regex" in str(info.value)
    # Brackets and escapes do not count as groups.
    literal = r"[(]" * 300 + r"\(" * 300
    assert compile_regex(literal).accepts(b"(" * 600)


def test_deep_nesting_builds_without_recursion():
    """Deeper than re itself can parse (about 490 levels), here and in Pyodide's smaller stack:
    parsed in slices, converted and built with explicit stacks (more in test_guide_build_limits)."""
    from tokenguide.regex.lazy import lazy_regex
    from tokenguide.regex.parser import MAX_GROUP_DEPTH

    depth = MAX_GROUP_DEPTH
    nested = "(?:x" * depth + ")?" * depth  # the same language as x{0,1000}
    assert compile_regex(nested) == compile_regex(f"x{{0,{depth}}}")
    lazy = lazy_regex("(?:" * (depth - 1) + "(a|b)" + ")*" * (depth - 1))  # (a|b)*
    for text in (b"", b"abba", b"abc"):
        assert lazy.accepts(text) == (re.fullmatch("[ab]*", text.decode()) is not None)


def test_exploding_regex_is_refused_within_the_memory_budget(monkeypatch):
    """Whatever max_states says, building stops at the memory budget with a StateLimitError."""
    import tracemalloc

    from tokenguide.regex import dfa as dfa_module

    budget = 24 << 20
    monkeypatch.setattr(dfa_module, "MEMORY_BUDGET", budget)
    tracemalloc.start()
    try:
        with pytest.raises(StateLimitError) as info:
            compile_regex("(a|b)*a(a|b){24}", max_states=10**7)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "MiB of memory" in str(info.value)
    assert peak < 3 * budget, f"peak {peak:,}"
