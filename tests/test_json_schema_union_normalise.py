"""anyOf/oneOf unions the engine path refused ("terminals Tx and Ty can both match at one
position"), so that "auto" fell back to the depth-capped regex (fuzzer seeds 135, 341, 784, 822, 833):
an anyOf with a branch accepting every value is that branch (json_schema.unions), nested anyOf
are spliced, a branch inside another's whole types dropped, and nested alternations of terminals are one terminal (grammar._spliced). Judged
against jsonschema on the engine path (deep values too) and on the regex path (values within
its cap); and the free-form value's whitespace is the same on both paths."""

from __future__ import annotations

import json
import random
import re
import warnings

import jsonschema
import pytest
from benchmark_modules import load
from grammar_oracle import acceptor
from random_json import chain, nesting, random_values


from tokenguide.json_schema import EmptySchemaError, build_regex_from_schema, compile_json_schema

random_schema = load("schema_gen").random_schema
instance_texts = load("bench_json_schema").instance_texts

SCHEMAS = {
    # fuzz seeds, minimised (each refused by the grammar path before)
    "seed135": {"properties": {"id": {"anyOf": [{"anyOf": [{}, {"type": "number", "minimum": 2}]}, {}]}}},
    "seed341": {"properties": {"email": {"anyOf": [{"anyOf": [{}, {"type": "null"}]}, True]}}},
    "seed822": {"properties": {"title": {"properties": {"version": {"anyOf": [{}, {"type": "string"}]}}},
                               "email": {"not": {"enum": ["", 1]}}}},
    "seed784": {"properties": {"name": {"anyOf": [{"$ref": "#/definitions/d0"},
                                                  {"oneOf": [{"type": "string"}, {"type": "integer"}]}]}},
                "definitions": {"d0": {"enum": [""]}}},
    "seed833": {"properties": {"data": {"anyOf": [{"type": "object", "properties": {}, "additionalProperties": False},
                                                  {"type": "array", "minItems": 2},
                                                  {"type": "object", "properties": {}}]},
                               "null": {"not": {"const": 0}}}},
    "root_any_true": {"anyOf": [{"anyOf": [{}, {"type": "null"}]}, True]},
    # branches inside another branch's whole types are dropped; keywords that do constrain kept
    "whole_types": {"anyOf": [{"type": "integer", "minimum": 3}, {"type": "number", "minLength": 0},
                              {"type": "object", "required": ["a"]},
                              {"type": ["object", "null"], "properties": {"a": True}, "required": []}]},
    "not_whole": {"anyOf": [{"type": "object", "properties": {"a": False}}, {"type": "object", "required": ["v"]},
                            {"type": "array", "items": {"type": "integer"}}, {"type": "array", "minItems": 0}]},
    "all_types_whole": {"anyOf": [{"type": "string", "maxLength": 1},
                                  {"type": ["null", "boolean", "object", "array", "number", "string"],
                                   "additionalProperties": {}, "items": True}]},
    "annotation_branch": {"anyOf": [{"type": "integer"}, {"title": "anything", "description": "d"}]},
    # nested anyOf spliced, a sibling keyword kept
    "nested_any_of": {"type": ["string", "integer", "null", "array"],
                      "anyOf": [{"anyOf": [{"type": "string", "maxLength": 2}, {"type": "null"}]},
                                {"anyOf": [{"type": "integer", "maximum": 3}, {"const": "abc"}]}]},
    # overlapping scalar branches, one inside a oneOf (not spliced, its alternation is)
    "overlap_in_one_of": {"anyOf": [{"enum": ["", "x", 2]},
                                    {"oneOf": [{"type": "string"}, {"type": "integer", "minimum": 1}]}]},
    # oneOf with a branch accepting every value: exactly the values no other branch accepts
    "one_of_true": {"type": "object", "properties": {"v": {"oneOf": [True, {"type": "null"}, {"const": 2}]}}},
    "one_of_nested_any": {"oneOf": [{"anyOf": [{}, {"type": "string"}]}, {"type": "string"}]},
}

KEYS = ["id", "email", "title", "version", "name", "v", "a", "data", "null"]
LEAVES = [None, True, False, 0, 1, 2, 3, 2.5, -1, "", "x", "ab", "abc", "é", [], {}]


def _values(seed: int) -> list:
    rnd = random.Random(seed)
    vals = random_values(rnd, 150, LEAVES, KEYS, leaf=0.35, array=0.3, array_len=3, deep=0.1)
    vals += [chain(rnd, rnd.randint(4, 8), LEAVES, KEYS) for _ in range(20)]
    vals += [{k: v} for k in KEYS for v in LEAVES]
    return vals


def _judge(schema, path: str, values: list, max_nesting: int | None = None) -> int:
    validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(schema)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback, no ignored keyword
        compiled = compile_json_schema(schema, path=path)
    assert compiled.path == path
    accepts = acceptor(compiled)
    n = 0
    for x in values:
        if max_nesting is not None and nesting(x) > max_nesting:
            continue
        valid = validator.is_valid(x)
        hits = [accepts(t) for t in instance_texts({"data": x, "valid": valid}, schema)]  # keys also in schema order
        assert (any(hits) if valid else not any(hits)), (path, x)
        n += 1
    return n


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_union_exact_on_both_paths(name):
    schema = SCHEMAS[name]
    values = _values(len(name))
    assert _judge(schema, "engine", values) == len(values)
    assert _judge(schema, "regex", values, max_nesting=2) > 50


@pytest.mark.parametrize("name", ["seed135", "seed341", "seed784", "seed822", "seed833", "root_any_true"])
def test_auto_takes_the_engine_path(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the depth-capped fallback warns
        assert compile_json_schema(SCHEMAS[name]).path == "engine"


@pytest.mark.parametrize("seed", [135, 341, 784, 822, 833])
def test_fuzz_seed_schema_on_grammar_path(seed):
    """The fuzzer's whole schema for the seed, judged as the fuzzer does (its instances, keys
    also in schema order): now on the engine path, no longer the depth-capped fallback."""
    schema = random_schema(seed, False)
    fuzz = load("fuzz_json_schema")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        verdict = fuzz.judge_schema(schema, load("schema_gen").random_instances(schema, seed) + _values(seed))
    assert verdict["status"] == "pass" and verdict["path"] == "engine", verdict
    assert verdict["valid"] > 0 and verdict["invalid"] > 0


def test_one_of_with_two_branches_accepting_everything_accepts_nothing():
    for path in ("engine", "regex"):
        with pytest.raises(EmptySchemaError):
            compile_json_schema({"oneOf": [True, {"title": "t"}, {"type": "null"}]}, path=path)
    assert _judge({"type": "object", "properties": {"a": {"oneOf": [{}, True]}}}, "engine", _values(7)) > 100


def test_regex_path_keeps_a_branch_deeper_than_its_free_form_cap():
    """On the regex path free-form values nest at most max_recursion_depth - 1 deep: an anyOf
    beside `{}` or `{"type": "array"}` keeps its explicit deeper branch's values."""
    deep = {"type": "array", "items": {"type": "array", "items": {"type": "array", "items": {"type": "array"}}}}
    for other in ({}, {"type": "array"}):
        regex = re.compile(build_regex_from_schema({"anyOf": [other, deep]}, max_recursion_depth=2))
        assert regex.fullmatch("[[[[]]]]") and regex.fullmatch("[[]]")
        assert not regex.fullmatch("[[[[[[[1]]]]]]]")  # deeper than the explicit branch and the cap
        grammar = acceptor(compile_json_schema({"anyOf": [other, deep]}, path="engine"))
        assert grammar("[[[[]]]]") and grammar("[[[[1]]]]") and grammar("[[[[[[{}]]]]]]")


# ---- whitespace of free-form values: the same on both paths ---------------------------------

def _spellings(x) -> set[str]:
    """Texts of `x` with zero, one or two spaces inside its arrays/objects and around `,`/`:`."""
    compact = json.dumps(x, separators=(",", ":"))
    out = {compact, json.dumps(x)}
    for sp in ("", " ", "  "):
        t = re.sub(r"([\[{])", r"\1" + sp, compact)
        out.add(t)
        out.add(re.sub(r"([\]}])", sp + r"\1", t))
        out.add(re.sub(r"([\]}])", sp + r"\1", compact))
        out.add(re.sub(r"([,:])", sp + r"\1" + sp, compact))
    return out


@pytest.mark.parametrize("schema", [{}, True, {"type": "array"}, {"type": "object"},
                                    {"properties": {"a": {}}}, {"items": {}}])
def test_free_form_whitespace_same_on_both_paths(schema):
    """Empty and non-empty containers with 0-2 spaces at each whitespace place: the depth-capped
    regex and the grammar path accept exactly the same spellings (within the regex's cap), and
    those are the ones with at most one space at each place (after `[`/`{`, before `]`/`}`,
    around `,`/`:`): two in an empty container, as outlines-core writes it."""
    regex = re.compile(build_regex_from_schema(schema, max_recursion_depth=3))
    grammar = acceptor(compile_json_schema(schema, path="engine"))
    values = [[], {}, [[]], [{}], {"a": []}, {"a": {}}, [1, []], {"a": 1, "b": [{}]}, [[], {}]]
    seen = 0
    for x in values:
        valid = jsonschema.Draft202012Validator(schema).is_valid(x)
        for text in sorted(_spellings(x)):
            want = valid and "  " not in re.sub(r"\[  \]|\{  \}", "0", text)
            assert bool(regex.fullmatch(text)) == want, ("regex", text)
            assert grammar(text) == want, ("grammar", text)
            seen += want
    assert seen > 10


@pytest.mark.parametrize("schema", [
    {"properties": {"p": {"allOf": [{"$ref": "#/$defs/v"}, {"anyOf": [{"$ref": "#/$defs/v"}, {"minLength": 1}]}]}},
     "$defs": {"v": {"enum": ["a", "b", "", 3]}}},
    {"properties": {"p": {"$ref": "#/$defs/w"}}, "$defs": {
        "v": {"enum": ["a", "b", "", 3]},
        "w": {"allOf": [{"$ref": "#/$defs/v"}], "anyOf": [{"$ref": "#/$defs/v"}, {"minLength": 1}]}}},
])
def test_a_branch_naming_the_schema_the_node_already_holds_is_no_recursion(schema):
    """dependabot's package-ecosystem: the value is `v`, and anyOf [`v`, ...] beside it. On the
    grammar path the branch's $ref to `v` (being expanded) is not a recursion (no value entered):
    it holds already, the branch is true."""
    accepts = acceptor(compile_json_schema(schema, path="engine"))
    validator = jsonschema.Draft202012Validator(schema)
    for p in ("a", "b", "", 3, "c", 4, None):
        doc = {"p": p}
        assert accepts(json.dumps(doc, separators=(",", ":"))) == validator.is_valid(doc), doc
