"""uniqueItems over items of which some types are free (module json_schema.value_kinds).

AWS MPA's approval team policies are objects declared without `"type": "object"`: an item may
then also be any string, number or array, beside the closed object. A string, number or array
of a type some alternative accepts every value of can always become new until it ends, so the
values check compares those when they end (1 and 1.0, [1] and [1.0] are equal) and searches
only the rest (true, false, null, the closed objects) in the item automaton. Oracles: jsonschema
for documents, the guide's masks for "never stranded, never a repeat", over a character
vocabulary and GPT-2's.
"""

from __future__ import annotations

import json

import jsonschema
import pytest
from test_json_schema_unique_values import (PATHS, assert_agrees, char_vocabulary, greedy, guide_accepts,
                                            random_generations)

from tokenguide import Guide
from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema.value_checks import Mixed
from tokenguide.json_schema.value_kinds import free_first, free_types

POLICY = {"additionalProperties": False, "properties": {"Arn": {"type": "string", "pattern": "^arn:[a-z]+$"}},
          "required": ["Arn"]}
POLICIES = {"type": "array", "uniqueItems": True, "maxItems": 10, "items": POLICY}


def allowed_after(schema: dict, prefix: str, path: str) -> set[str]:
    vocab, tokens = char_vocabulary(['"}'])
    g = Guide.from_json_schema(schema, vocab, path=path, whitespace_pattern="")
    for ch in prefix:
        g.advance(tokens.index(ch), return_tokens=False)
    return {tokens[i] for i in g.get_tokens() if i < len(tokens)}


@pytest.mark.parametrize("path", PATHS)
def test_untyped_closed_objects_beside_free_strings_numbers_and_arrays(path):
    compiled = compile_json_schema(POLICIES, path=path)
    assert compiled.checks is not None
    rest = compiled.checks.item_automaton(compiled.checks.root).rest
    assert isinstance(rest, Mixed) and sorted(rest.open_first) == sorted(b'"[-0123456789')
    docs = [[{"Arn": "arn:a"}, {"Arn": "arn:b"}], [{"Arn": "arn:a"}, {"Arn": "arn:a"}], [1, 1.0], [1, "1", [1]],
            [[1], [1.0]], [[{"a": 1, "b": 2}], [{"b": 2, "a": 1}]], ["x", "x"], [True, False, None], [None, None],
            [{"Arn": "arn:a", "x": 1}], [{"Arn": "x"}], [0, -0], [{"Arn": "arn:a"}, "arn:a"]]
    assert_agrees(compiled, POLICIES, docs)
    # a closed object written again cannot end; one still in its string can go on
    assert '"}' not in allowed_after(POLICIES, '[{"Arn":"arn:a"},{"Arn":"arn:a', path)
    assert "b" in allowed_after(POLICIES, '[{"Arn":"arn:a"},{"Arn":"arn:a', path)
    after = allowed_after(POLICIES, '[true,false,null,"x",[1],', path)
    assert not after & {"t", "f", "n"} and {'"', "[", "{", "1", "-"} <= after
    assert "]" not in allowed_after(POLICIES, '[[1],[1', path) and "," in allowed_after(POLICIES, '[[1],[1', path)


@pytest.mark.parametrize("path", PATHS)
def test_gpt2_generations_never_strand_and_stay_distinct(path, gpt2_vocabulary):
    guide = Guide.from_json_schema(POLICIES, gpt2_vocabulary, path=path)
    finished = random_generations(guide, gpt2_vocabulary, 3, 12, 80, 0.3, (b'"', b"]", b"}"), 0.6)
    assert finished
    for text in finished:
        assert jsonschema.Draft202012Validator(POLICIES).is_valid(json.loads(text)), text
    for doc in ([{"Arn": "arn:q"}, 7, "7", [7]], [{"Arn": "arn:q"}, {"Arn": "arn:q"}], [7, 7.0]):
        text = json.dumps(doc, separators=(",", ":"))
        assert guide_accepts(guide, greedy(gpt2_vocabulary, text)) == jsonschema.Draft202012Validator(
            POLICIES).is_valid(doc), text


@pytest.mark.parametrize("objs, free", [
    ([POLICY], {"string", "number", "array"}),
    ([{"type": "string", "format": "AWS::KMS::Key.Arn"}], {"string"}),  # an unknown format: an annotation
    ([{"type": "string", "format": "uuid"}], set()),
    ([{"type": ["string", "integer"]}], {"string"}),  # (integers: 0 cannot go on as one)
    ([{"type": "number", "minimum": 0}], set()),
    ([{"type": "array", "uniqueItems": True}], set()),
    ([{"not": {"type": "string"}}], set()),
    ([{"oneOf": [{"type": "string"}, {"pattern": "a"}]}], set()),
    ([{"minLength": 1}, {"type": ["array", "string"]}], {"array"}),  # (together: the strings are bounded)
    ([], {"string", "number", "array"}),
])
def test_which_types_are_free(objs, free):
    assert free_types(objs) == free


def test_free_first_bytes_and_the_types_left():
    assert free_first([[POLICY]]) == (b'[-0123456789"', ["boolean", "null", "object"])
    assert free_first([[]]) == (b'[-0123456789{"', ["boolean", "null"])
    assert free_first([[{"type": "object"}]]) == (b"{", [])  # open objects only: no automaton
    strings = [{"type": "string", "maxLength": 3}]
    assert free_first([strings]) == (b"", ["string"])  # (no free type: the automaton alone)
    # one alternative free for strings makes every string free, whatever the others say
    assert free_first([strings, [{"type": "string"}]]) == (b'"', [])
