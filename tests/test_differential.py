"""Differential tests against outlines-core's Index on real vocabularies.

Both indexes are walked in parallel from their initial states over every reachable
pair of states. Allowed-token sets must agree, except that ours may allow more: each
extra token must come with a witness (the path so far + the token + a shortest
completion) that `re.fullmatch` accepts. outlines-core's engine is leftmost-first and
drops alternatives after a match (`a|ab` rejects `ab`), which is where such extras come from.
Regexes are compared in their ASCII spelling (\\d -> [0-9] ...) so that both engines'
Unicode tables cannot differ.
"""

from __future__ import annotations

import re
from collections import deque

import pytest

from benchmarks.regexes import REGEX_CASES, ascii_version
from tokenguide.index import Index

outlines_core = pytest.importorskip("outlines_core", reason="outlines-core (test-only, CPython) is not installed")

pytestmark = pytest.mark.slow


def _oc_vocabulary(vocab):
    mapping = {}
    for token, ids in vocab.tokens.items():
        mapping[token] = list(ids)
    return outlines_core.Vocabulary(vocab.eos_token_id, mapping)


_OC_VOCABS: dict[int, object] = {}


def _oc_index(regex, vocab):
    key = id(vocab)
    if key not in _OC_VOCABS:
        _OC_VOCABS[key] = _oc_vocabulary(vocab)
    return outlines_core.Index(regex, _OC_VOCABS[key])


def _completion(dfa, state) -> bytes | None:
    """Shortest byte string leading from `state` to a final state (BFS, bytes ascending)."""
    if state in dfa.finals:
        return b""
    seen = {state: b""}
    queue = deque([state])
    while queue:
        s = queue.popleft()
        for b in range(256):
            t = dfa.next_state(s, b)
            if t >= 0 and t not in seen:
                seen[t] = seen[s] + bytes([b])
                if t in dfa.finals:
                    return seen[t]
                queue.append(t)
    return None


def compare(regex: str, vocab) -> dict:
    ours = Index(regex, vocab)
    theirs = _oc_index(regex, vocab)
    eos = vocab.eos_token_id
    start = (ours.initial_state, theirs.get_initial_state())
    prefix = {start: b""}
    queue = deque([start])
    extra_tokens = 0
    while queue:
        a, b = queue.popleft()
        mine = set(ours.get_allowed_tokens(a))
        other = set(theirs.get_allowed_tokens(b) or ())
        missing = other - mine
        assert not missing, f"{regex!r}: outlines-core allows tokens we reject after {prefix[(a, b)]!r}: {sorted(missing)[:10]}"
        if theirs.is_final_state(b):
            assert ours.is_final_state(a)
        for token in mine - other:
            extra_tokens += 1
            if token == eos:
                text = prefix[(a, b)]
            else:
                nxt = ours.get_next_state(a, token)
                rest = _completion(ours.dfa, nxt)
                assert rest is not None
                text = prefix[(a, b)] + vocab.id_to_bytes(token) + rest
            assert re.fullmatch(regex, text.decode("utf-8")), f"{regex!r}: extra token {token} has no witness ({text!r})"
        for token in sorted(mine & other):
            if token == eos:
                continue
            pair = (ours.get_next_state(a, token), theirs.get_next_state(b, token))
            if pair not in prefix:
                prefix[pair] = prefix[(a, b)] + vocab.id_to_bytes(token)
                queue.append(pair)
    return {"pairs": len(prefix), "extra": extra_tokens}


CASES = {**REGEX_CASES, "a_or_ab": "a|ab"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gpt2_matches_outlines_core(name, gpt2_vocabulary):
    compare(ascii_version(CASES[name]), gpt2_vocabulary)


@pytest.mark.parametrize("name", ["email", "date", "ip", "url", "ssn", "json_string", "json_object", "a_or_ab"])
def test_llama2_matches_outlines_core(name, llama2_vocabulary):
    compare(ascii_version(CASES[name]), llama2_vocabulary)


def test_leftmost_first_difference_is_ours_to_keep(gpt2_vocabulary):
    """`a|ab`: outlines-core refuses `ab`; we allow it, and re.fullmatch agrees."""
    result = compare("a|ab", gpt2_vocabulary)
    assert result["extra"] > 0
    date = ascii_version(REGEX_CASES["date"])
    assert compare(date, gpt2_vocabulary)["extra"] > 0
    index = Index(date, gpt2_vocabulary)
    state = index.initial_state
    for ch in "1.1.1999":
        state = index.get_next_state(state, gpt2_vocabulary.get(ch.encode())[0])
        assert state is not None
    assert index.is_final_state(state)
