"""Terminals split where one match would extend to another: a closed object's optional members
written with its opening brace (`\\{ ?(?:"u" ?: ?null)?`), an array's optional items with its
bracket. The engine path refused these as prefix-unsafe (fuzzer seeds 331, 403, 468), so
"auto" fell back to the depth-capped regex; now the trailing optional part is a piece of its
own. Judged against jsonschema and against the regex path, in compact and spaced spellings."""

from __future__ import annotations

import json
import random
import re
import warnings

import jsonschema
import pytest
from benchmark_modules import load
from grammar_oracle import acceptor
from random_json import nesting, random_values

from tokenguide.json_schema import compile_json_schema

KeyOrder = load("json_key_order").KeyOrder

CLOSED = {"type": "object", "properties": {"u": {"type": "null"}}, "additionalProperties": False}

SCHEMAS = {
    # seed 403, minimised: a closed object of one optional member after a free-form value
    "closed_member": {"type": "object", "additionalProperties": False, "properties": {"p": {}, "x": CLOSED}},
    "closed_members": {"type": "object", "additionalProperties": False,
                       "properties": {"p": {}, "x": CLOSED, "y": {"type": "boolean"}}},
    # seed 331, minimised: a value that, if an array, holds at most one string
    "one_item": {"properties": {"c": {"properties": {"f": {"items": {"type": "string"}, "maxItems": 1}, "u": {}}}}},
    # seed 468, minimised: an array of at most one const after a non-empty one
    "const_item": {"type": "object", "properties": {"s": {"type": "object", "properties": {"p": {
        "type": "object", "properties": {"t": {"minItems": 1}, "f": {"type": "array", "items": {"const": ""},
                                                                         "maxItems": 1}}}}}}},
    # closed objects nested in a closed object, each member optional, and a bounded const array
    "nested": {"type": "object", "additionalProperties": False, "properties": {
        "p": {},
        "o": {"type": "object", "additionalProperties": False, "properties": {
            "a": {"enum": [1, "b"]}, "b": {"type": "object", "additionalProperties": False,
                                             "properties": {"c": {"type": "boolean"}, "u": {"type": "null"}}}}},
        "q": {"type": "array", "items": {"const": "k"}, "maxItems": 2}}},
}
KEYS = ["x", "y", "u", "p", "f", "o", "a", "b", "c", "q", "s", "t", "zz"]
LEAVES = [None, True, False, 1, "b", "k", "", 0.5]


def _texts(x, order: KeyOrder) -> list[str]:
    """The compact JSON of `x` as written and with its keys in the output format's order and,
    for each, one with a space after every `,`/`:`, inside every non-empty object and array
    (the leaves above hold none of these characters)."""
    out = []
    for t in dict.fromkeys(json.dumps(y, separators=(",", ":"), ensure_ascii=False) for y in (x, order.reorder(x))):
        out.append(t)
        spaced = re.sub(r"([,:])", r"\1 ", t)
        out.append(re.sub(r"([{\[])(?![}\]])", r"\1 ", re.sub(r"(?<![{\[])([}\]])", r" \1", spaced)))
    return out


def _instances(seed: int) -> list:
    rnd = random.Random(seed)
    values = random_values(rnd, 500, LEAVES, KEYS, leaf=0.25, array=0.2, array_len=3, deep=0.05)
    values += [{}, {"x": {}}, {"x": {"u": None}}, {"x": {"u": 1}}, {"x": {"v": None}}, {"x": {"u": None}, "y": True},
               {"c": {"f": []}}, {"c": {"f": ["b"]}}, {"c": {"f": ["b", "b"]}}, {"c": {"f": [1]}}, {"c": {"f": 1}},
               {"s": {"p": {"f": [""]}}}, {"s": {"p": {"t": [1], "f": []}}}, {"s": {"p": {"t": [], "f": [""]}}},
               {"s": {"p": {"f": ["", ""]}}}, {"o": {}}, {"o": {"b": {}}}, {"o": {"a": 1, "b": {"c": True}}},
               {"o": {"b": {"u": None, "c": False}}}, {"q": ["k", "k"]}, {"q": ["k", "k", "k"]},
               {"p": [[[[{"a": [1]}]]]], "x": {"u": None}}]
    return values


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_closed_optional_members_take_the_exact_grammar_path(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a depth-capped fallback warns
        compiled = compile_json_schema(SCHEMAS[name])
    assert compiled.path == "engine" and not compiled.depth_capped


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_split_terminals_agree_with_jsonschema_and_the_regex_path(name):
    schema = SCHEMAS[name]
    accepts = acceptor(compile_json_schema(schema, path="engine"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # depth-capped
        regex = re.compile(compile_json_schema(schema, path="regex").regex)
    instances = _instances(sorted(SCHEMAS).index(name))
    order = KeyOrder(schema)
    assert sum(map(validator.is_valid, instances)) >= 15  # the sample tests something
    for x in instances:
        texts = _texts(x, order)
        verdicts = [accepts(t) for t in texts]
        assert any(verdicts) == validator.is_valid(x), x
        for text, verdict in zip(texts, verdicts):
            if nesting(x) <= 2:  # deeper, the capped regex may reject a valid instance
                assert verdict == (regex.fullmatch(text) is not None), text


@pytest.mark.parametrize("seed", [331, 403, 468])
def test_fuzzer_seeds_take_the_grammar_path(seed):
    """The fuzzer's schemas that fell back to the depth-capped regex, judged by its oracle
    (jsonschema with the formats it checks) on its instances."""
    oracle = load("fuzz_json_schema").oracle
    gen = load("schema_gen")
    schema = gen.random_schema(seed, False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    accepts, valid = acceptor(compiled), oracle(schema)
    instances = gen.random_instances(schema, seed)
    assert any(map(valid, instances)) and not all(map(valid, instances))
    order = KeyOrder(schema)
    for x in instances:
        assert any(accepts(t) for t in _texts(x, order)) == valid(x), x
