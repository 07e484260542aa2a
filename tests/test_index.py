"""Index semantics on small handmade vocabularies and on the real sample vocabularies."""

from __future__ import annotations

import asyncio
import random
import re
import zlib

import pytest

from tokenguide.errors import ArgumentError, BuildCancelled, IncompatibleVocabularyError, RegexError
from tokenguide.index import Index
from tokenguide.vocabulary import Vocabulary

import oracle


def small_vocab() -> Vocabulary:
    return Vocabulary(9, {"a": 0, "b": 1, "ab": 2, "ba": 3, "c": 4, b"\xf0\x9f": 5, b"\x98\x80": 6, "1": 7, "12": [8, 10], "<eos>": 9})


def test_allowed_tokens_and_transitions():
    index = Index("a+b?", small_vocab())
    s0 = index.initial_state
    assert index.get_allowed_tokens(s0) == [0, 2]
    s1 = index.get_next_state(s0, 0)
    assert index.is_final_state(s1)
    assert 9 in index.get_allowed_tokens(s1)
    assert index.get_next_state(s1, 9) == s1  # eos loop on final states
    assert index.get_next_state(s0, 9) is None
    assert index.get_next_state(s0, 1) is None
    assert index.get_next_state(s0, 12345) is None
    s2 = index.get_next_state(s1, 1)
    assert index.get_allowed_tokens(s2) == [9]
    assert index.get_allowed_tokens(999) is None


def test_shared_bytes_give_every_id():
    index = Index("1+2?", small_vocab())
    assert {8, 10} <= set(index.get_allowed_tokens(index.initial_state))


def test_partial_utf8_tokens():
    index = Index("😀", small_vocab())
    mid = index.get_next_state(index.initial_state, 5)
    assert mid is not None and not index.is_final_state(mid)
    end = index.get_next_state(mid, 6)
    assert index.is_final_state(end)


def test_transitions_dict_and_counts():
    index = Index("(ab|ba)+", small_vocab())
    transitions = index.get_transitions()
    assert sum(len(t) for t in transitions.values()) == index.num_transitions
    for state, moves in transitions.items():
        assert index.get_allowed_tokens(state) == sorted(moves)
        for token, nxt in moves.items():
            assert index.get_next_state(state, token) == nxt
    for final in index.final_states:
        assert transitions[final][9] == final


def test_equality_and_outlines_core_spellings():
    a = Index("a|ab", small_vocab())
    b = Index("ab?", small_vocab())
    assert a == b
    assert a != Index("ab", small_vocab())
    assert a.get_initial_state() == a.initial_state
    assert a.get_final_states() == set(a.final_states)
    assert a.get_vocab_size() == 11


def test_incompatible_vocabulary_names_the_needed_bytes():
    with pytest.raises(IncompatibleVocabularyError, match="0x7a"):
        Index("az", small_vocab())
    with pytest.raises(IncompatibleVocabularyError):
        Index("z", small_vocab())


def test_regex_errors_surface():
    with pytest.raises(RegexError):
        Index("a(?<=b)", small_vocab())


def test_progress_and_cancel(gpt2_vocabulary):
    seen = []
    Index(r"[a-z]{1,40}", gpt2_vocabulary, progress=lambda stage, done, total: seen.append((stage, done, total)))
    stages = [s for s, _, _ in seen]
    assert {"automaton", "vocabulary", "states"} <= set(stages)
    done_states = [d for s, d, t in seen if s == "states"]
    assert done_states == sorted(done_states) and done_states[-1] == 41
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(BuildCancelled):
        Index(r"[a-z]{1,400}", gpt2_vocabulary, should_cancel=cancel)


def test_async_build_matches_sync(gpt2_vocabulary):
    regex = r"[0-9]{1,3}(\.[0-9]{1,3}){3}"
    built = asyncio.run(Index.build_async(regex, gpt2_vocabulary))
    assert built == Index(regex, gpt2_vocabulary)


def _random_walk_language(index: Index, vocab: Vocabulary, regex: str, seed: int, walks: int = 40) -> None:
    rng = random.Random(seed)
    for _ in range(walks):
        state = index.initial_state
        text = b""
        for _ in range(30):
            allowed = index.get_allowed_tokens(state)
            token = rng.choice(allowed)
            if token == vocab.eos_token_id:
                break
            text += vocab.id_to_bytes(token)
            state = index.get_next_state(state, token)
        if index.is_final_state(state):
            assert oracle.fullmatch(regex, text.decode("utf-8")) in (True, None), text
        else:
            # A prefix of the language: some completion exists, so the state must be alive.
            assert index.get_allowed_tokens(state)


@pytest.mark.parametrize("regex", [r"\w+@\w+\.com", r"[^\"]{0,10}", r"(\d{1,3}\.){3}\d{1,3}", r"(?i)true|false|null", r"😀+é?"])
def test_random_walks_stay_in_the_language(regex, gpt2_vocabulary, llama2_vocabulary):
    for vocab in (gpt2_vocabulary, llama2_vocabulary):
        index = Index(regex, vocab)
        _random_walk_language(index, vocab, regex, seed=zlib.crc32(regex.encode()))


def test_every_allowed_token_is_justified(gpt2_vocabulary):
    """Each allowed token leads to a state from which the regex can still be completed."""
    regex = r"(0|[1-9][0-9]*)(\.[0-9]+)?"
    index = Index(regex, gpt2_vocabulary)
    dfa = index.dfa
    for state in index.states():
        for token in index.get_allowed_tokens(state):
            if token == gpt2_vocabulary.eos_token_id:
                assert index.is_final_state(state)
                continue
            nxt = dfa.walk(gpt2_vocabulary.id_to_bytes(token), state)
            assert nxt == index.get_next_state(state, token)
    # and nothing is missing: every single-token match of the regex is allowed at the start
    start = set(index.get_allowed_tokens(index.initial_state))
    for token_bytes, ids in gpt2_vocabulary.tokens.items():
        if dfa.walk(token_bytes) >= 0:
            assert set(ids) <= start
        else:
            assert not set(ids) & start


def test_huge_sparse_token_ids_do_not_allocate_per_id():
    vocab = Vocabulary(2_000_000_000, {"a": 0, "b": 1_999_999_999})
    index = Index("a+b", vocab)
    s1 = index.get_next_state(index.initial_state, 0)
    s2 = index.get_next_state(s1, 1_999_999_999)
    assert index.is_final_state(s2)
    assert index.get_allowed_tokens(s2) == [2_000_000_000]
    assert index.get_next_state(s1, 12345) is None


def test_dense_states_agree_with_a_walk_of_every_token(gpt2_vocabulary):
    """The largest states (expanded through bitsets, several targets) list exactly the tokens the
    automaton can read from there, each leading to the state the automaton reaches."""
    from benchmarks.regexes import REGEX_CASES

    index = Index(REGEX_CASES["url"], gpt2_vocabulary)
    largest = sorted(index.states(), key=index.transition_count)[-3:]
    for state in largest:
        tokens, nexts = index.state_transitions(state)
        assert len(tokens) * 8 > gpt2_vocabulary.vocab_size  # really a dense state
        assert len(set(nexts)) > 1
        expected = {}
        for token_id in range(gpt2_vocabulary.vocab_size):
            data = gpt2_vocabulary.id_to_bytes(token_id)
            if token_id == gpt2_vocabulary.eos_token_id or not data:
                continue
            target = index.dfa.walk(data, state)
            if target >= 0:
                expected[token_id] = target
        if index.is_final_state(state):
            expected[gpt2_vocabulary.eos_token_id] = state
        assert list(tokens) == sorted(expected)
        assert dict(zip(tokens, nexts)) == expected
        assert index.transition_count(state) == len(tokens)


COUNTED = [
    # counted repetitions: many states share one range pattern with other targets (expand.py)
    r'"[^"]{0,12}"',  # tokens collapsed by byte classes (several ids per trie key)
    r'(?:[^"]{0,6}"|ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789)(?:,[^"]{0,6}"){0,2}',  # byte trie
]


@pytest.mark.parametrize("regex", COUNTED)
def test_counted_states_agree_with_a_walk_of_every_token(regex, gpt2_vocabulary):
    """States of counted repetitions, dense and sparse, written by the file writer's pass
    (iter_transitions, work shared between alike states) and asked one by one (state_transitions),
    list exactly the tokens the automaton can read from there, each to the state it reaches."""
    index = Index(regex, gpt2_vocabulary)
    vocab = gpt2_vocabulary
    states = index.states()
    written = dict(zip(states, index.iter_transitions(states)))
    by_size = sorted(states, key=index.transition_count)
    sample = sorted(set(by_size[-4:] + by_size[len(by_size) // 2 : len(by_size) // 2 + 3] + by_size[:2]))
    assert any(index.transition_count(s) * 8 > vocab.vocab_size for s in sample)
    assert any(0 < index.transition_count(s) * 8 < vocab.vocab_size for s in sample)
    texts = [(t, vocab.id_to_bytes(t)) for t in range(vocab.vocab_size) if t != vocab.eos_token_id]
    for state in sample:
        expected = {}
        for token_id, data in texts:
            target = index.dfa.walk(data, state) if data else -1
            if target >= 0:
                expected[token_id] = target
        if index.is_final_state(state):
            expected[vocab.eos_token_id] = state
        tokens, nexts = written[state]
        assert list(tokens) == sorted(expected)
        assert dict(zip(tokens, nexts)) == expected
        assert index.state_transitions(state) == (tokens, nexts)
        assert index.transition_count(state) == len(tokens)
    assert index.num_transitions == sum(len(t) for t, _ in written.values())


def test_mask_bytes_are_the_packed_allowed_tokens(gpt2_vocabulary):
    from tokenguide.guides.instructions import pack_tokens

    from benchmarks.regexes import REGEX_CASES

    for regex in (REGEX_CASES["url"], REGEX_CASES["ssn"], "[a-z]+"):
        index = Index(regex, gpt2_vocabulary)
        loaded = Index.from_bytes(index.to_bytes())
        for state in index.states():
            expected = pack_tokens(index.get_allowed_tokens(state), index.vocab_size)
            assert index.mask_bytes(state) == expected
            assert loaded.mask_bytes(state) == expected
            assert index.mask_bytes(state) is index.mask_bytes(state)  # cached
    with pytest.raises(KeyError):
        index.mask_bytes(10**6)


def test_mask_cache_is_bounded_by_bytes(gpt2_vocabulary):
    from benchmarks.regexes import REGEX_CASES

    index = Index(REGEX_CASES["url"], gpt2_vocabulary)
    one = len(index.mask_bytes(index.initial_state))
    index.set_mask_cache_bytes(5 * one)
    for state in index.states():
        index.mask_bytes(state)
    assert index.mask_cache_size == (5, 5 * one)
    with pytest.raises(ArgumentError):
        index.set_mask_cache_bytes(-1)


def test_long_automaton_build_reports_progress_and_can_be_cancelled(gpt2_vocabulary):
    """`.{5000}` takes seconds: the automaton stage itself reports progress and honours cancel."""
    stages = []

    def progress(stage, done, total):
        stages.append(stage)

    calls = []

    def cancel_after_many():
        calls.append(1)
        return len(calls) > 60

    with pytest.raises(BuildCancelled):
        Index(".{5000}", gpt2_vocabulary, progress=progress, should_cancel=cancel_after_many)
    assert stages.count("automaton") > 50 and "states" not in stages


def test_writing_streams_with_progress_cancel_and_identical_bytes(gpt2_vocabulary):
    from tokenguide.index import format as file_format

    index = Index(r"[a-z ]{0,12}\d", gpt2_vocabulary)
    canonical = file_format.gzip_compress(file_format.encode_payload(index))
    seen = []
    chunks = list(index.iter_bytes(progress=lambda stage, done, total: seen.append((stage, done, total))))
    assert len(chunks) > 3 and b"".join(chunks) == canonical == index.to_bytes()
    assert seen[0] == ("writing", 0, index.num_transitions) and seen[-1][1:] == (index.num_transitions,) * 2
    assert [d for _, d, _ in seen] == sorted(d for _, d, _ in seen)
    with pytest.raises(BuildCancelled):
        index.to_bytes(should_cancel=lambda: True)
    fast = index.to_bytes(level=1)
    assert fast != canonical and Index.from_bytes(fast) == index
    for bad in (10, -1, "6", True):
        with pytest.raises(ArgumentError):
            index.to_bytes(level=bad)


def test_reading_checks_its_arguments_and_reports_progress(gpt2_vocabulary):
    index = Index(r"[a-z ]{0,12}\d", gpt2_vocabulary)
    data = index.to_bytes()
    for bad in (-1, "1", None, True, 2.5):
        with pytest.raises(ArgumentError) as info:
            Index.from_bytes(data, max_size=bad)
        assert "max_size" in str(info.value)
    with pytest.raises(ArgumentError):
        Index.from_bytes("not bytes")
    seen = []
    assert Index.from_bytes(data, progress=lambda *a: seen.append(a)) == index
    assert seen and seen[-1][0] == "reading"
    with pytest.raises(BuildCancelled):
        Index.from_bytes(data, should_cancel=lambda: True)
    assert Index.from_bytes(bytearray(data)) == index
