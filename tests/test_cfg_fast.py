"""Fast CFG guide: exactly the reference guide's allowed tokens, step after step.

The fast guide subclasses the reference, so both answers can be asked of one guide object on
the same states: `ReferenceCFGGuide.iter_valid_token_ids(guide, ...)` runs the reference
algorithm (a parser copy per candidate token), `guide.allowed_token_ids(...)` the trie walk.
Evidence: seeded random generations on small character vocabularies (whole vocabulary compared
at every step), on GPT-2 and Llama 2 (candidate subsets at every step, the whole vocabulary at a
few steps in the slow tests), decoding contexts where the previous token ended inside a UTF-8
sequence, a tokenizer that is not tokenguide's own, and grammars the fast machine cannot model.
"""

from __future__ import annotations

import codecs
import random
import string
from array import array

import pytest

from tokenguide import grammars
from tokenguide.guides import (
    CFGState,
    Generate,
    InvalidTokenError,
    ReferenceCFGGuide,
    Write,
    bitmask_words,
    tokens_from_bitmask,
)
from tokenguide.guides.cfg import fast as cfg_fast
from tokenguide.guides.cfg import CharTrie, FastCFGGuide
from tokenguide.guides.cfg.chars import split_utf8
from tokenguide.vocabulary import Tokenizer, decode_utf8_prefix
from tokenguide.vocabulary import Vocabulary

EOS = "<eos>"

GRAMMARS = {
    "json": grammars.json,
    "arithmetic": grammars.arithmetic,
    "csv": grammars.csv,
    "ambiguous terminals": r"?start: /ab*/ /bc?/",
    "optional repeats": r'?start: "a" ("b" | "c")* "d"',
    "ignore": '?start: "a" "b" "c" ("," "a" "b" "c")*\n%ignore /[ \\t]+/',
    "keywords": 'start: stmt+\nstmt: "let" NAME ";" | NAME ";"\nNAME: /[a-z]+/\n%ignore " "',
    "priorities": "start: (A | B)+\nA.2: /ab/\nB: /a+/",
    "case-insensitive": 'start: ("ab"i | NAME)+\nNAME: /[c-d]+/',
    "lazy": r'?start: /a+?/ "b" /c/',
    "alternation order": r'start: (X | "," )+' + "\nX: /a|ab|abc/",
    "strings": 'start: "[" [ESCAPED_STRING ("," ESCAPED_STRING)*] "]"\n%import common.ESCAPED_STRING',
    "non-ascii": 'start: ("größe" | "ñandú" | "日本") ("," ("größe" | "ñandú" | "日本"))*',
    # lookbehinds that see characters before the lexeme (the machine keeps the last few characters)
    "lookbehind": 'start: (W | A | B)+\nW: /[ab](?<!aab)c/\nA: "a"\nB: /b+(?<!cab)/',
}

PIECES = list(string.printable) + [
    "true", "fal", "se", "null", '"a', 'b"', '\\"', "\\\\", '{"', '":', "1e", "-0", ".5", "é", "€",
    "a b", '" "', "1 ", " 1", "a1", "12", "1.", "e+", "ab", "abc", "bc", "bcd", "let", "let ", "lettuce",
    "AB", "aB", "aab", "größe", "grö", "ße", "ñ", "andú", "日", "本", "日本", "\t", "a\t", ", ",
]


def char_tokenizer(tokens) -> Tokenizer:
    mapping = {EOS: 0}
    for i, t in enumerate(dict.fromkeys(tokens)):
        mapping[t] = i + 1
    return Tokenizer(Vocabulary(0, mapping))


def reference_allowed(guide: FastCFGGuide, state: CFGState, candidates) -> list[int]:
    """The reference algorithm's answer, on the fast guide's own states."""
    return list(ReferenceCFGGuide.iter_valid_token_ids(guide, state, candidates))


def check_walks(guide: FastCFGGuide, rng: random.Random, walks: int, steps: int) -> int:
    """Random walks comparing the whole vocabulary at every step; returns the steps compared.

    The fast guide is asked at every step; the reference once per token path (walks share their
    first steps: it is a pure function of the path, and recomputing it would only cost time)."""
    compared = 0
    expected: dict[tuple, list[int]] = {}
    for _ in range(walks):
        state, path = guide.initial_state, ()
        for _ in range(steps):
            fast = guide.allowed_token_ids(state)
            if path not in expected:
                expected[path] = reference_allowed(guide, state, guide.candidate_ids)
            assert fast == expected[path], state.text
            compared += 1
            if not fast or fast == [guide.eos_token_id]:
                break
            choice = rng.choice(fast)
            if choice == guide.eos_token_id:
                break
            state, path = guide.get_next_state(state, choice), path + (choice,)
    return compared


@pytest.mark.parametrize("name", sorted(GRAMMARS))
def test_same_tokens_as_reference_char_vocabulary(name):
    guide = FastCFGGuide(GRAMMARS[name], char_tokenizer(PIECES))
    assert guide.fallback_reason is None
    assert (guide._tail > 0) == (name == "lookbehind")
    assert check_walks(guide, random.Random(name), walks=25, steps=25) >= 25


def test_memo_tables_reset_keeps_answers(monkeypatch):
    """Clearing the memo tables mid-generation (they are bounded) changes nothing."""
    monkeypatch.setattr(cfg_fast, "_MEMO_LIMIT", 5)
    monkeypatch.setattr(cfg_fast, "_RESULT_CACHE", 1)
    guide = FastCFGGuide(grammars.json, char_tokenizer(PIECES))
    assert check_walks(guide, random.Random(1), walks=6, steps=25) > 25


def test_unsupported_terminals_fall_back_to_the_reference():
    """A word boundary in a terminal cannot be stepped character by character: same answers, slowly.
    (Lookaheads in terminals are refused: tests/test_regex_lookahead.py.)"""
    grammar = 'start: (A | " b")+\nA: /a\\b/'
    guide = FastCFGGuide(grammar, char_tokenizer(["a", " b", "a b", " ba", "aa"]))
    assert "word boundary" in guide.fallback_reason
    assert check_walks(guide, random.Random(0), walks=10, steps=8) > 10


def test_duck_typed_tokenizer():
    """A tokenizer that is not tokenguide's own: texts come from its decode, per previous token."""
    inner = char_tokenizer(PIECES + ["\u2581x", "\u2581"])

    class Plain:
        eos_token_id = 0
        vocabulary = inner.vocabulary

        def decode(self, ids):
            texts = inner.decode(ids)
            return [t.replace("\u2581", " ").lstrip(" ") if t.startswith("\u2581") else t for t in texts]

    guide = FastCFGGuide(grammars.json, Plain())
    assert not guide._bytes_decoding
    assert check_walks(guide, random.Random(2), walks=8, steps=15) > 15


def test_api_matches_the_reference_guide():
    tok = char_tokenizer(["a", "b", "ab"])
    guide = FastCFGGuide(r'?start: "a" "b"', tok)
    assert isinstance(guide, ReferenceCFGGuide)
    a, b, ab = (tok.vocabulary[t] for t in ["a", "b", "ab"])
    state = guide.initial_state
    assert guide.get_next_instruction(state) == Generate([a, ab])
    assert list(guide.iter_valid_token_ids(state, [ab, b, a])) == [ab, a]  # candidates' order kept
    state = guide.get_next_state(state, a)
    assert guide.get_next_instruction(state) == Write([b])
    with pytest.raises(InvalidTokenError):
        guide.get_next_state(state, a)
    state = guide.get_next_state(state, b)
    assert guide.get_next_instruction(state) == Write([0])
    assert guide.can_terminate_state(state) and guide.must_terminate_state(state) and guide.is_final_state(state)
    buffer = array("i", [0]) * bitmask_words(guide.vocab_size)
    guide.fill_bitmask(guide.initial_state, buffer)
    assert list(tokens_from_bitmask(buffer, guide.vocab_size)) == [a, ab]
    end = guide.get_next_state(state, 0)
    assert guide.allowed_token_ids(end) == [0] and guide.get_next_instruction(end) == Write([0])
    assert list(guide.iter_valid_token_ids(end, [1, 2])) == [0]
    other = guide.copy()
    assert other is not guide and other.get_next_instruction(guide.initial_state) == Generate([a, ab])
    assert "FastCFGGuide" in repr(guide)


def test_char_trie_subtrees_are_key_ranges():
    pieces = {"a": [3], "ab": [1], "abc": [2, 7], "b": [4], "ba": [5]}
    trie = CharTrie(pieces, lambda ch: ord(ch) - ord("a"))
    assert trie.keys == ["a", "ab", "abc", "b", "ba"]
    assert trie.labels == ["", "a", "b", "c", "b", "a"]
    a_node = 1
    assert trie.keys_before[a_node] == 0 and trie.keys_before[trie.ends[a_node]] == 3
    assert trie.below_of(a_node) == 0b110 and trie.below_of(0) == 0b111
    assert trie.flat_ids[trie.id_start[2] : trie.id_start[3]] == [2, 7]
    assert trie.max_depth == 3 and trie.num_nodes == 6


# -- real vocabularies ----------------------------------------------------------------------------

STRUCTURAL = ["{", "[", '"', ' "', '{"', "true", "-", ".", "e", "(", "*", " +", "x", "}", "]", ":", ",",
              "0", "1", "\\", '\\"', ")", "\n", " ", "a", "b", "c", "d", "ab", "bc", " a", "\t"]


def subset_generation(guide, tok, rng, *, steps, subset, verdicts=None):
    """A random generation; at every step the fast answer is compared with the reference's on a
    candidate subset (random tokens, structural ones, and a sample of what the fast guide allows).

    `verdicts` ({(token path, token): allowed by the reference}, shared by a test's generations)
    keeps the reference's answers: generations all start at the initial state, where the
    reference is asked about each candidate once (it is a pure function of the path)."""
    vocab = tok.core_vocabulary
    structural = sorted({ids[0] for ids in (vocab.tokens.get(t.encode()) for t in STRUCTURAL) if ids})
    verdicts = {} if verdicts is None else verdicts
    state, path = guide.initial_state, ()
    for _ in range(steps):
        fast = guide.allowed_token_ids(state)
        candidates = set(rng.sample(guide.candidate_ids, subset)) | set(structural) | {guide.eos_token_id}
        candidates |= set(rng.sample(fast, min(len(fast), 200)))
        candidates = sorted(candidates)
        new = [t for t in candidates if (path, t) not in verdicts]
        allowed = set(reference_allowed(guide, state, new))
        verdicts.update(((path, t), t in allowed) for t in new)
        expected = [t for t in candidates if verdicts[path, t]]
        assert [t for t in fast if t in set(candidates)] == expected, state.text
        if not fast:
            return state
        pick = [t for t in fast if t in structural]
        choice = rng.choice(pick if pick and rng.random() < 0.5 else fast)
        if choice == guide.eos_token_id or len(state.pending) > 80:
            return state  # (the reference re-lexes the pending text for every candidate: keep it short)
        state, path = guide.get_next_state(state, choice), path + (choice,)
    return state


@pytest.mark.parametrize("which", ["gpt2", "llama2"])
@pytest.mark.parametrize("name", ["json", "arithmetic", "ambiguous terminals", "optional repeats", "ignore"])
def test_same_tokens_as_reference_real_vocabulary(which, name, request):
    tok = Tokenizer(request.getfixturevalue(f"{which}_vocabulary"))
    guide = FastCFGGuide(GRAMMARS[name], tok)
    rng = random.Random(f"{which}-{name}")
    verdicts = {}
    for _ in range(2):
        subset_generation(guide, tok, rng, steps=10, subset=400, verdicts=verdicts)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["gpt2", "llama2"])
@pytest.mark.parametrize("name", ["json", "arithmetic", "csv", "keywords", "strings", "non-ascii"])
def test_same_tokens_as_reference_real_vocabulary_long(which, name, request):
    tok = Tokenizer(request.getfixturevalue(f"{which}_vocabulary"))
    guide = FastCFGGuide(GRAMMARS[name], tok)
    rng = random.Random(f"long-{which}-{name}")
    verdicts = {}
    for _ in range(2):  # (was 3: the third cost a third of the suite's slowest tests and added no grammar or vocabulary)
        subset_generation(guide, tok, rng, steps=20, subset=600, verdicts=verdicts)


def held_tokens(vocab: Vocabulary) -> list[int]:
    """Tokens with complete text followed by an incomplete UTF-8 sequence (e.g. GPT-2's b' \\xe2\\x80')."""
    out = []
    for data, ids in vocab.tokens.items():
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        if decoder.decode(data) and decoder.getstate()[0]:
            out.append(ids[0])
    return sorted(out)


def test_held_bytes_decoding_identity(gpt2_vocabulary):
    """What the fast guide relies on after a token that ended inside a UTF-8 sequence: a token not
    starting with a continuation byte decodes as U+FFFD then its own text."""
    for held in (b"\xe2", b"\xe2\x80", b"\xf0\x9f\x98", b"\xc3", b"\xe0", b"\xed", b"\xf4"):
        for data in gpt2_vocabulary.tokens:
            if not 0x80 <= data[0] <= 0xBF:
                assert decode_utf8_prefix(held + data) == "\ufffd" + decode_utf8_prefix(data), (held, data)


@pytest.mark.parametrize("which", ["gpt2", "llama2"])
def test_after_tokens_ending_inside_utf8(which, request):
    """Tokens ending inside a UTF-8 character (GPT-2's b' \\xe2\\x80', Llama 2's byte tokens such as
    <0xE2>) are allowed where some completion of the character is viable, and only continuations
    of that character may follow them: the same answers as the reference's."""
    vocab = request.getfixturevalue(f"{which}_vocabulary")
    tok = Tokenizer(vocab)
    guide = FastCFGGuide(GRAMMARS["strings"], tok)
    rng = random.Random(which)
    ends_inside = sorted(ids[0] for data, ids in vocab.tokens.items() if (split_utf8(data) or ("", b""))[1])
    if which == "gpt2":
        assert len(held_tokens(vocab)) > 50
    opening = guide.get_next_state(guide.get_next_state(guide.initial_state, vocab.tokens[b"["][0]), vocab.tokens[b'"'][0])
    lead = vocab.tokens[b"\xe2"][0]
    assert lead in guide.allowed_token_ids(opening)  # a string may hold any character U+2000..U+2FFF
    assert lead not in guide.allowed_token_ids(guide.initial_state)  # the text must start with "["
    special = sorted(ids[0] for data, ids in vocab.tokens.items() if 0x80 <= data[0] <= 0xBF or split_utf8(data) is None)
    for token in [lead] + rng.sample(ends_inside, min(6, len(ends_inside))):
        candidates = sorted(set(special) | set(rng.sample(guide.candidate_ids, 500)) | {vocab.tokens[b'"'][0]})
        for state in (opening, guide.initial_state):
            if token not in guide.allowed_token_ids(state):
                continue
            after = guide.get_next_state(state, token)
            assert after.held and not guide.can_terminate_state(after)
            fast = guide.allowed_token_ids(after)
            assert fast and all(0x80 <= tok.token_bytes(t)[0] <= 0xBF for t in fast)
            assert [t for t in fast if t in set(candidates)] == reference_allowed(guide, after, candidates)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["gpt2", "llama2"])
def test_whole_vocabulary_at_a_few_steps(which, request):
    """Every token of the vocabulary, at a few steps of a JSON generation (the reference takes ~1 s a step)."""
    vocab = request.getfixturevalue(f"{which}_vocabulary")
    tok = Tokenizer(vocab)
    guide = FastCFGGuide(grammars.json, tok)
    state = guide.initial_state
    checked = 0
    for step, token in enumerate(greedy_tokens(vocab, '{"a": [1, -0.5e3, true], "b c": "x\\"y", "d": null}')):
        if step in (0, 1, 2, 3, 5, 8, 13):
            fast = guide.allowed_token_ids(state)
            assert fast == reference_allowed(guide, state, guide.candidate_ids), state.text
            checked += 1
        state = guide.get_next_state(state, token)
    assert guide.can_terminate_state(state) and checked == 7
    held = held_tokens(vocab)
    inside = guide.advance_text(guide.initial_state, '["x')
    if held and inside is not None:
        token = next(t for t in held if t in guide.allowed_token_ids(inside))
        after = guide.get_next_state(inside, token)
        assert guide.allowed_token_ids(after) == reference_allowed(guide, after, guide.candidate_ids)


def greedy_tokens(vocab: Vocabulary, text: str) -> list[int]:
    """Token ids spelling `text`, longest byte match first."""
    longest = max(len(data) for data in vocab.tokens)
    data = text.encode("utf-8")
    out, i = [], 0
    while i < len(data):
        size = next(n for n in range(min(longest, len(data) - i), 0, -1) if data[i : i + n] in vocab.tokens)
        out.append(vocab.tokens[data[i : i + size]][0])
        i += size
    return out
