"""Reference CFG guide: Lark-faithful lexing of a growing text, checked against plain Lark.

Three kinds of evidence:
- cases from outlines' issue tracker and test suite, with the expected answer derived from
  what plain Lark accepts (not from outlines' hand-written lists, some of which Lark rejects);
- brute force on small grammars: every string Lark accepts (up to a length) can be generated
  character by character, EOS is allowed exactly on those strings, and (for grammars without
  lexer conflicts) every state the guide reaches can still be completed;
- seeded random generations on the GPT-2 and Llama 2 vocabularies (candidate subsets, so the
  slow reference stays fast): finished texts parse with Lark.
"""

from __future__ import annotations

import itertools
import random
import re

import pytest
from lark import Lark
from lark.exceptions import LarkError

from tokenguide import grammars
from tokenguide.errors import RegexError
from tokenguide.guides import CFGState, FastCFGGuide, Generate, GrammarError, InvalidTokenError, ReferenceCFGGuide, Write
from tokenguide.guides.cfg import PrefixScanner
from tokenguide.vocabulary import Tokenizer
from tokenguide.vocabulary import Vocabulary

EOS = "<eos>"


def char_tokenizer(tokens) -> Tokenizer:
    """A vocabulary whose tokens are the given strings, EOS = 0."""
    mapping = {EOS: 0}
    for i, t in enumerate(dict.fromkeys(tokens)):
        mapping[t] = i + 1
    return Tokenizer(Vocabulary(0, mapping))


def lark_accepts(parser: Lark, text: str) -> bool:
    try:
        parser.parse(text)
        return True
    except LarkError:
        return False


def walk(guide: ReferenceCFGGuide, tok: Tokenizer, pieces) -> CFGState:
    state = guide.initial_state
    for piece in pieces:
        state = guide.get_next_state(state, tok.vocabulary[piece])
    return state


def allowed_strings(guide, tok, state) -> list[str]:
    inv = {i: t for t, i in tok.vocabulary.items()}
    ins = guide.get_next_instruction(state)
    return sorted(inv[i] for i in ins.tokens)


# -- the regex scanner the reference lexer relies on --------------------------------------------

SCANNER_PATTERNS = [
    r"ab*",
    r"bc?",
    r"a+?b",
    r"(a|ab)(c|bcd)?",
    r'".*?(?<!\\)(\\\\)*?"',
    r"[ab]*c",
    r"a{2,4}",
    r"a{2,4}?b",
    r"(?i:ab)",
    r"\d+(\.\d+)?",
    r"(ab|a)b*",
    r"[^\"\\]+",
    r"(a+)*b",
    r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?",
    r"é|ü+",
]


@pytest.mark.parametrize("pattern", SCANNER_PATTERNS)
def test_prefix_scanner_agrees_with_re(pattern):
    """match_end is re.match's; can_extend is True iff some continuation gives a longer match."""
    alphabet = 'ab"\\c.1eéü-'
    scanner = PrefixScanner(pattern)
    rx = re.compile(pattern)
    rng = random.Random(pattern)
    expected = {}  # (text, start) -> what `re` says: short texts come up many times, ask re once

    def by_re(text, start):
        if (text, start) not in expected:
            m = rx.match(text, start)
            extends = any(
                (m2 := rx.match(text + "".join(s), start)) is not None and m2.end() > len(text)
                for k in (1, 2, 3)
                for s in itertools.product(alphabet + "d", repeat=k)
            )
            expected[text, start] = (m.end() if m else None), extends
        return expected[text, start]

    for n in range(6):
        for _ in range(60):
            text = "".join(rng.choice(alphabet) for _ in range(n))
            start = rng.randrange(n + 1)
            result = scanner.scan(text, start)  # the scanner is asked every time
            match_end, extends = by_re(text, start)
            assert result.match_end == match_end, (text, start)
            assert result.can_extend == extends, (text, start)


def test_prefix_scanner_errors():
    with pytest.raises(RegexError, match="invalid regex"):
        PrefixScanner("a(")
    with pytest.raises(RegexError, match="does not support"):
        PrefixScanner(r"(a)\1")
    with pytest.raises(RegexError, match="empty string"):
        PrefixScanner(r"(a*)*b")
    with pytest.raises(RegexError, match="too large"):
        PrefixScanner(r"(a{1,1000}){1,1000}")


# -- cases from outlines' tracker and tests ----------------------------------------------------

# (grammar, vocabulary, generated, expected next tokens; None in the list stands for EOS)
TRACKER_CASES = {
    "next token does not complete terminal": (r'?start: "a" "bc"', ["a", "ab", "b", "c"], ["a"], ["b"]),
    "ambiguous terminal completion": (r'?start: "ab" | "abc"', ["a", "ab", "abc", "abcd", "b", "c"], ["a"], ["b"]),
    "token is substring of another": (r'?start: "abc" | "abcd"', ["a", "b", "bc", "bcd", "bcde"], ["a"], ["b", "bc", "bcd"]),
    "prefix matches several terminals": (
        r'?start: "abcd" | "abef"',
        ["a", "b", "be", "bcd", "bef", "bed"],
        ["a"],
        ["b", "bcd", "be", "bef"],
    ),
    "optional end": (r'?start: "a" "b" ["c"]', ["a", "b", "c"], ["a", "b"], ["c", None]),
    "empty prefix": (r'?start: "a" | "b"', ["a", "b", "c", "d"], [], ["a", "b"]),
    "ambiguous pattern completion": (r'?start: /a+/ "b" /c?d/', ["a", "aa", "b", "cd", "d"], ["a", "a", "b"], ["cd", "d"]),
    "optional with overlapping tokens": (r'?start: "a" "b"? "c"', ["a", "b", "bc", "c"], ["a"], ["b", "bc", "c"]),
    # Lark lexes /a+?/ lazily: "aab..." is A("a") then "a" again, which the parser rejects.
    "lazy quantifier as Lark lexes it": (r'?start: /a+?/ "b" /c/', ["a", "aa", "aaa", "b", "c"], ["a"], ["b"]),
    "recursive pattern then end": (r'?start: /a(bc)*/ "d"', ["a", "bc", "bcbcbc", "d"], ["a", "bc", "d"], [None]),
    "overlapping classes": (r'?start: /[ab]+/ "d"', ["a", "b", "c", "aa", "bb", "cc", "d"], ["a", "b"], ["a", "aa", "b", "bb", "d"]),
    "unicode": (r'?start: /[a-zA-Z]/ "é" /[0-9]+/', ["a", "b", "é", "é9", "2", "12"], ["a"], ["é", "é9"]),
    "ignored whitespace": (
        '?start: "a" "b" "c"\n%ignore /\\s+/',
        ["a", "b", "c", " "],
        ["a", " ", "b"],
        [" ", "c"],
    ),
    "escape characters": (r'?start: "a\n" ("\t")? "b"', ["a\nb", "a", "b", "\n", "\tb", "\t"], ["a", "\n"], ["\t", "\tb", "b"]),
    "repeated optional": (r'?start: ("a" ["b"])*', ["a", "b"], ["a", "b", "a"], ["a", "b", None]),
    "cross references": (
        "?start: term_a\nterm_a : /a/ term_b\nterm_b : /b/ term_a | /c/",
        ["a", "b", "c", "bac"],
        ["a"],
        ["b", "bac", "c"],
    ),
    # outlines issue #1151 "allow skipping rule": "d" must be allowed right after "a"
    "optional repeats": (
        r'?start: "a" ("b" | "c")* "d"',
        ["a", "b", "bc", "bcc", "cbc", "bcbc", "cbccccd", "c", "d", "bcdcb"],
        ["a"],
        ["b", "bc", "bcbc", "bcc", "c", "cbc", "cbccccd", "d"],
    ),
    "repeated and nested": (
        r'?start: "a" ("b" "c")* "d"',
        ["a", "b", "c", "bc", "bcc", "cbc", "bcbc", "cbccccd", "d", "bcbcd"],
        ["a", "b", "c"],
        ["b", "bc", "bcbc", "bcbcd", "d"],
    ),
    "non-ascii keywords": (
        '?start: ("größe" | "ñandú" | "日本") ("," ("größe" | "ñandú" | "日本"))*',
        ["g", "grö", "ße", "größe", "ñ", "andú", "日", "本", "日本", ",", "x"],
        ["grö"],
        ["ße"],
    ),
}


@pytest.mark.parametrize("name", sorted(TRACKER_CASES))
def test_tracker_case(name):
    grammar, vocabulary, generated, expected = TRACKER_CASES[name]
    tok = char_tokenizer(vocabulary)
    guide = FastCFGGuide(grammar, tok)
    state = walk(guide, tok, generated)
    expected_names = sorted(EOS if t is None else t for t in expected)
    assert allowed_strings(guide, tok, state) == expected_names
    # the expectation itself agrees with plain Lark: every allowed token starts an accepted text
    parser = Lark(grammar, parser="lalr")
    text = "".join(generated)
    if None in expected:
        assert lark_accepts(parser, text)
    else:
        assert not lark_accepts(parser, text)


def test_ambiguous_terminals_follow_lark():
    """/ab*/ next to /bc?/ (outlines #1151): Lark's greedy lexer gives /ab*/ every b, so no text
    parses; the guide never offers a token that would make Lark's lexing fail ("c" after "abb")
    and never allows EOS."""
    grammar = r"?start: /ab*/ /bc?/"
    tok = char_tokenizer(["a", "ab", "abc", "b", "bc", "c", "abbbc"])
    guide = FastCFGGuide(grammar, tok)
    state = walk(guide, tok, ["a", "b", "b"])
    assert allowed_strings(guide, tok, state) == ["b"]
    parser = Lark(grammar, parser="lalr")
    for text in ["abbc", "abb", "abbbc", "abc"]:
        assert not lark_accepts(parser, text)
    assert not guide.can_terminate_state(state)


def test_arithmetic_eos_at_the_end():
    """outlines' arithmetic_lots_of_ops sample: EOS must be allowed once the expression is complete."""
    sample = "5+3*2-4/2+(7-1)*3-8/4+6*2-1+2*(5-3)/2"
    tok = char_tokenizer(list("0123456789+-*/() "))
    guide = FastCFGGuide(grammars.arithmetic, tok)
    state = walk(guide, tok, list(sample))
    assert guide.can_terminate_state(state)
    assert 0 in guide.get_next_instruction(state).tokens
    assert not guide.must_terminate_state(state)  # "+..." or whitespace may still follow
    assert not guide.can_terminate_state(walk(guide, tok, list(sample[:-1])))


def test_json_strings_end_where_lark_ends_them():
    tok = char_tokenizer(list('{}[]":,ab\\ 1') + ['"a"x', '\\"'])
    guide = FastCFGGuide(grammars.json, tok)
    state = walk(guide, tok, ["{", '"', "a", '"'])
    allowed = allowed_strings(guide, tok, state)
    assert ":" in allowed and " " in allowed
    assert "a" not in allowed and "x" not in allowed  # the string is closed: Lark lexes `"a"` then fails on `a`
    inside = walk(guide, tok, ["[", '"', "a", '\\"'])  # escaped quote: still inside the string
    assert guide.advance_text(inside, "b") is not None
    assert not guide.can_terminate_state(walk(guide, tok, ["[", '"', "a", '\\"', "]"]))


def test_keywords_versus_names():
    """Lark retypes a NAME equal to a keyword (its "unless" callback) when both are in the
    contextual lexer's state; the guide follows ("let;" is LET then ";", a parse error)."""
    grammar = 'start: stmt+\nstmt: "let" NAME ";" | NAME ";"\nNAME: /[a-z]+/\n%ignore " "'
    parser = Lark(grammar, parser="lalr")
    assert not lark_accepts(parser, "let;") and lark_accepts(parser, "lettuce;") and lark_accepts(parser, "let x;")
    tok = char_tokenizer(["let", "x", ";", " ", "lettuce"])
    guide = FastCFGGuide(grammar, tok)
    assert allowed_strings(guide, tok, guide.initial_state) == [" ", "let", "lettuce", "x"]
    assert allowed_strings(guide, tok, walk(guide, tok, ["let"])) == [" ", "let", "lettuce", "x"]
    assert allowed_strings(guide, tok, walk(guide, tok, ["lettuce"])) == [" ", ";", "let", "lettuce", "x"]
    assert allowed_strings(guide, tok, walk(guide, tok, ["let", " "])) == [" ", "let", "lettuce", "x"]
    # after "let x;" a new statement may begin, or the text may end
    assert allowed_strings(guide, tok, walk(guide, tok, ["let", " ", "x", ";"])) == [" ", EOS, "let", "lettuce", "x"]


def test_write_when_one_token_is_valid_and_after_eos():
    tok = char_tokenizer(["a", "b"])
    guide = FastCFGGuide(r'?start: "a" "b"', tok)
    state = guide.initial_state
    assert guide.get_next_instruction(state) == Write([tok.vocabulary["a"]])
    state = walk(guide, tok, ["a", "b"])
    assert guide.get_next_instruction(state) == Write([0])
    assert guide.must_terminate_state(state) and guide.is_final_state(state)
    end = guide.get_next_state(state, 0)
    assert end.parser_state is None
    assert guide.get_next_instruction(end) == Write([0])
    assert list(guide.iter_valid_token_ids(end, [1, 2])) == [0]
    assert guide.get_next_state(end, 1).parser_state is None
    assert guide.can_terminate_state(end) and guide.must_terminate_state(end)


def test_errors():
    tok = char_tokenizer(["a", "b"])
    with pytest.raises(GrammarError, match="LALR"):
        FastCFGGuide("start: (", tok)  # syntax error
    with pytest.raises(GrammarError, match="LALR"):
        FastCFGGuide('start: a | b\na: "x"\nb: "x"', tok)  # reduce/reduce conflict
    with pytest.raises(GrammarError, match="does not support"):
        FastCFGGuide(r"start: /(a)\1/", tok)  # backreference in a terminal
    with pytest.raises(TypeError, match="must be a str"):
        FastCFGGuide(None, tok)  # type: ignore[arg-type]
    guide = FastCFGGuide(r'?start: "a" "b"', tok)
    with pytest.raises(InvalidTokenError, match="not allowed"):
        guide.get_next_state(guide.initial_state, tok.vocabulary["b"])


def test_bundled_grammars_load_by_name():
    assert grammars.names() == ["arithmetic", "csv", "json"]
    for name in grammars.names():
        Lark(grammars.load(name), parser="lalr")
    assert grammars.json == grammars.load("json")
    with pytest.raises(ValueError, match="bundled grammars: arithmetic, csv, json"):
        grammars.load("yaml")
    with pytest.raises(AttributeError):
        grammars.nope  # noqa: B018


# -- brute force against plain Lark on small grammars ---------------------------------------------

BRUTE_GRAMMARS = {
    # name: (grammar, alphabet, max length, completion slack or None when dead ends are possible)
    "optional repeats": (r'?start: "a" ("b" | "c")* "d"', "abcd", 7, 1),
    "sums": ('?start: sum\n?sum: atom | sum "+" atom\n?atom: NUMBER | "(" sum ")"\nNUMBER: /[0-9]+/', "1+()", 7, 4),
    "keywords": ('start: item ("," item)*\nitem: "if" -> kw | NAME\nNAME: /[a-z]+/', "if,x", 6, 1),
    "ignore": ('start: "a" "b" "c"\n%ignore " "', "abc ", 6, 3),
    "non-ascii": ('start: ("é" | "üa")+ NAME\nNAME: /[a-z]+/', "éüa", 5, 2),
    "strings": (
        'start: "[" [ESCAPED_STRING ("," ESCAPED_STRING)*] "]"\n%import common.ESCAPED_STRING',
        '[]"\\a,',
        6,
        3,
    ),
    "priorities": ('start: (A | B)+\nA.2: /ab/\nB: /a+/', "ab", 6, 2),
    "case-insensitive": ('start: ("ab"i | NAME)+\nNAME: /[c-d]+/', "aAbc", 5, 2),
    "ambiguous terminals": (r"?start: /ab*/ /bc?/", "abc", 6, None),
}


@pytest.mark.parametrize("name", sorted(BRUTE_GRAMMARS))
def test_brute_force_against_lark(name):
    grammar, alphabet, max_len, slack = BRUTE_GRAMMARS[name]
    parser = Lark(grammar, parser="lalr")
    accepted = set()
    for n in range(max_len + 1):
        for chars in itertools.product(alphabet, repeat=n):
            text = "".join(chars)
            if lark_accepts(parser, text):
                accepted.add(text)
    prefixes = {s[:i] for s in accepted for i in range(len(s) + 1)}

    tok = char_tokenizer(list(alphabet))
    guide = FastCFGGuide(grammar, tok)
    # walk every text the guide allows, up to max_len characters
    frontier = {"": guide.initial_state}
    seen = {}
    for _ in range(max_len + 1):
        nxt = {}
        for text, state in frontier.items():
            seen[text] = state
            assert guide.can_terminate_state(state) == (text in accepted), text
            if len(text) == max_len:
                continue
            for ch in alphabet:
                new = guide.advance_text(state, ch)
                if new is not None:
                    nxt[text + ch] = new
        frontier = nxt
    # every accepted string (and every prefix of one) is reachable: the guide never over-restricts
    assert prefixes <= set(seen)
    if slack is not None:
        # no dead ends: what the guide allows can be completed (within the enumerated lengths)
        for text in seen:
            if len(text) <= max_len - slack:
                assert text in prefixes, f"guide allows {text!r} but no accepted text starts with it"


@pytest.mark.parametrize("name", ["optional repeats", "strings", "keywords", "ignore"])
def test_state_does_not_depend_on_token_boundaries(name):
    """Appending "xy" at once or "x" then "y" gives the same viability and the same state."""
    grammar, alphabet, max_len, _ = BRUTE_GRAMMARS[name]
    guide = FastCFGGuide(grammar, char_tokenizer(list(alphabet)))
    rng = random.Random(name)
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, max_len + 1)))
        cut = rng.randrange(1, len(text) + 1)
        whole = guide.advance_text(guide.initial_state, text)
        first = guide.advance_text(guide.initial_state, text[:cut])
        parts = first if cut == len(text) or first is None else guide.advance_text(first, text[cut:])
        assert (whole is None) == (parts is None), (text, cut)
        if whole is not None:
            assert whole.pending == parts.pending
            assert whole.parser_state.state_stack == parts.parser_state.state_stack
            assert guide.can_terminate_state(whole) == guide.can_terminate_state(parts)


def test_must_terminate_agrees_with_allowed_tokens():
    for name in ["optional repeats", "sums", "keywords", "non-ascii"]:
        grammar, alphabet, max_len, _ = BRUTE_GRAMMARS[name]
        tok = char_tokenizer(list(alphabet))
        guide = FastCFGGuide(grammar, tok)
        rng = random.Random(name)
        for _ in range(40):
            state = guide.initial_state
            for _ in range(max_len):
                ins = guide.get_next_instruction(state)
                allowed = list(ins.tokens)
                assert guide.must_terminate_state(state) == (allowed == [0])
                assert guide.can_terminate_state(state) == (0 in allowed)
                if not allowed:
                    break
                state = guide.get_next_state(state, rng.choice(allowed))
                if state.parser_state is None:
                    break


# -- random generation on real vocabularies -----------------------------------------------------

CLOSERS = ['"', ":", "0", "}", "]", ")", "1", "\n", ",", "null"]  # texts, looked up by their bytes
OPENERS = ["{", "[", '"', ' "', '{"', "true", "-", ".", "e", "(", "*", " +", "x"]


def sample_generation(guide, tok, rng, *, steps, subset, closers):
    """Random walk over a random subset of the vocabulary each step, then try to finish with `closers`."""
    all_ids = sorted(set(tok.vocabulary.values()))
    vocab = tok.core_vocabulary
    closer_ids = [ids[0] for ids in (vocab.get(c) for c in closers) if ids]
    opener_ids = [ids[0] for ids in (vocab.get(c) for c in OPENERS) if ids]
    structural_ids = set(closer_ids) | set(opener_ids)
    state = guide.initial_state
    for step in range(steps + 30):
        finishing = step >= steps
        if finishing:
            candidates = [tok.eos_token_id] + closer_ids
        else:
            picked = set(rng.sample(all_ids, subset)) | set(closer_ids) | set(opener_ids)
            candidates = sorted(picked | {tok.eos_token_id})
        valid = list(guide.iter_valid_token_ids(state, candidates))
        for t in valid:  # every valid token leads to a viable state
            if t != tok.eos_token_id:
                assert guide.get_next_state(state, t).parser_state is not None
        if not valid:
            return state, False
        if tok.eos_token_id in valid and (finishing or rng.random() < 0.1):
            assert guide.can_terminate_state(state)
            return state, True
        structural = [t for t in valid if t in structural_ids]
        choice = rng.choice(structural if structural and rng.random() < 0.6 else valid)
        state = guide.get_next_state(state, choice)
    return state, False


@pytest.mark.parametrize("which", ["gpt2", "llama2"])
@pytest.mark.parametrize("grammar_name", ["json", "arithmetic", "csv"])
def test_random_generations_parse_with_lark(which, grammar_name, request):
    vocab = request.getfixturevalue(f"{which}_vocabulary")
    tok = Tokenizer(vocab)
    guide = FastCFGGuide(grammars.load(grammar_name), tok)
    parser = Lark(grammars.load(grammar_name), parser="lalr")
    rng = random.Random(f"{which}-{grammar_name}")
    completed = 0
    for _ in range(3):
        state, done = sample_generation(guide, tok, rng, steps=8, subset=300, closers=CLOSERS)
        if done:
            completed += 1
            assert lark_accepts(parser, state.text), state.text
    assert completed >= 1


def test_llama_first_token_leading_space(llama2_vocabulary):
    """With at_text_start (no prompt before the output), the first token's leading space is dropped
    as HF's decoder drops it; later tokens keep theirs."""
    tok = Tokenizer(llama2_vocabulary)
    guide = FastCFGGuide('start: "{" (" " "x")* "}"', tok, at_text_start=True)
    brace = tok.vocabulary["\u2581{"]
    x = tok.vocabulary["\u2581x"]
    assert list(guide.iter_valid_token_ids(guide.initial_state, [brace, x])) == [brace]
    state = guide.get_next_state(guide.initial_state, brace)
    assert state.text == "{"
    assert list(guide.iter_valid_token_ids(state, [brace, x])) == [x]
    assert guide.get_next_state(state, x).text == "{ x"


@pytest.mark.parametrize("guide_class", [FastCFGGuide, ReferenceCFGGuide])
def test_llama_first_token_is_its_vocabulary_bytes(llama2_vocabulary, guide_class):
    """By default a SentencePiece token means its vocabulary bytes ("\u2581" is a space) wherever it
    comes, as for the regex Index: "\u2581{" starts the text with " {"."""
    from tokenguide import Index

    tok = Tokenizer(llama2_vocabulary)
    brace, plain, x = (tok.vocabulary[t] for t in ["\u2581{", "{", "\u2581x"])
    guide = guide_class('start: "{" (" " "x")* "}"', tok)
    assert list(guide.iter_valid_token_ids(guide.initial_state, [brace, plain, x])) == [plain]
    spaced = guide_class('start: " "? "{" (" " "x")* "}"', tok)
    assert list(spaced.iter_valid_token_ids(spaced.initial_state, [brace, plain, x])) == [brace, plain]
    assert spaced.get_next_state(spaced.initial_state, brace).text == " {"
    index = Index(r" ?\{( x)*\}", llama2_vocabulary)  # the regex Index reads the tokens the same way
    assert brace in index.get_allowed_tokens(index.initial_state)
    assert plain in index.get_allowed_tokens(index.initial_state)


def test_copy_is_independent():
    tok = char_tokenizer(["a", "b"])
    guide = FastCFGGuide(r'?start: "a"+', tok)
    other = guide.copy()
    assert other is not guide
    state = guide.get_next_state(guide.initial_state, 1)
    assert isinstance(other.get_next_instruction(state), Generate)


@pytest.mark.parametrize("grammar_name", ["json", "arithmetic", "csv"])
def test_bundled_grammars_random_walks_char_vocabulary(grammar_name):
    """Random walks with a small character-level vocabulary: at every step EOS is offered exactly
    when plain Lark parses the text, and the guide never runs out of tokens (no dead ends)."""
    import string

    pieces = list(string.printable) + ["true", "fal", "se", "null", '"a', 'b"', '\\"', "\\\\", '{"', '":', "1e", "-0", ".5", "é", "€"]
    tok = char_tokenizer(pieces)
    guide = FastCFGGuide(grammars.load(grammar_name), tok)
    parser = Lark(grammars.load(grammar_name), parser="lalr")
    rng = random.Random(grammar_name)
    completed = 0
    for _ in range(25):
        state = guide.initial_state
        for _ in range(40):
            allowed = list(guide.get_next_instruction(state).tokens)
            parses = lark_accepts(parser, state.text)
            assert guide.can_terminate_state(state) == parses == (0 in allowed), state.text
            assert allowed, f"dead end after {state.text!r}"
            if 0 in allowed and rng.random() < 0.15:
                completed += 1
                break
            state = guide.get_next_state(state, rng.choice(allowed))
    assert completed > 0


def _regexes():
    """Small random regexes over the alphabet "ab": literals, classes, groups, alternation, repeats."""
    from hypothesis import strategies as st

    atoms = st.sampled_from(["a", "b", "[ab]", "[^a]", ".", "(?:ab)", "(?i:A)"])

    def extend(inner):
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map(lambda p: f"(?:{p[0]}|{p[1]})"),
            st.tuples(inner, st.sampled_from(["*", "+", "?", "*?", "+?", "??", "{1,2}", "{2}", "{0,2}?"])).map(
                lambda p: f"(?:{p[0]}){p[1]}"
            ),
        )

    return st.recursive(atoms, extend, max_leaves=5)


def test_prefix_scanner_fuzz_against_re():
    """match_end equals re.match's; any continuation that lengthens the match implies can_extend."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(_regexes(), st.text(alphabet="abA", max_size=5))
    def check(pattern, text):
        try:
            scanner = PrefixScanner(pattern)
        except RegexError as exc:  # nested repetition of an empty-capable part: refused, not mis-scanned
            assert "empty string" in str(exc)
            return
        rx = re.compile(pattern)
        result = scanner.scan(text)
        m = rx.match(text)
        assert result.match_end == (m.end() if m else None)
        for k in (1, 2):
            for s in itertools.product("abA", repeat=k):
                m2 = rx.match(text + "".join(s))
                if m2 is not None and m2.end() > len(text):
                    assert result.can_extend, (pattern, text, s)

    check()
