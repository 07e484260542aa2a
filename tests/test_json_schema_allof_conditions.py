"""allOf merges that validators allow: unknown keywords (x-* extensions, annotations) never block
a merge or change the language (nor make a constraint of an anyOf with a branch that accepts
everything), and several if/then/else conditions combine exactly. Each schema's verdicts (regex
path and grammar path) equal jsonschema's on valid and invalid instances."""

from __future__ import annotations

import itertools
import json

import jsonschema
import pytest

pytest.importorskip("lark")

from grammar_oracle import acceptor  # noqa: E402
from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402


def spellings(x) -> list[str]:
    """Compact JSON texts of `x` with its objects' keys in every order."""
    if isinstance(x, dict):
        out = []
        for keys in itertools.permutations(x):
            for values in itertools.product(*(spellings(x[k]) for k in keys)):
                out.append("{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in zip(keys, values)) + "}")
        return out
    if isinstance(x, list):
        return ["[" + ",".join(vs) + "]" for vs in itertools.product(*map(spellings, x))]
    return [json.dumps(x, separators=(",", ":"))]


def check(schema, instances, path: str) -> None:
    validator = jsonschema.validators.validator_for(schema)(schema)
    accepts = acceptor(compile_json_schema(schema, path=path, whitespace_pattern="" if path == "engine" else None))
    verdicts = [validator.is_valid(x) for x in instances]
    assert True in verdicts and False in verdicts  # both kinds are tested
    wrong = [(x, ok) for x, ok in zip(instances, verdicts) if ok != any(accepts(t) for t in spellings(x))]
    assert not wrong


EXTENSIONS = {
    # Kubernetes' PersistentVolumeSpec claimRef: the referenced schema says "atomic", the site "granular"
    "x-kubernetes extension values": (
        {"allOf": [{"type": "object", "properties": {"name": {"type": "string"}}, "x-kubernetes-map-type": "atomic"}],
         "x-kubernetes-map-type": "granular"},
        [{}, {"name": "a"}, {"name": 1}, [], "x", None]),
    "unknown keywords and annotations": (
        {"type": "object", "nullable": False, "description": "one", "properties": {"a": {"type": "integer"}},
         "allOf": [{"nullable": True, "description": "two", "x-order": [1], "properties": {"a": {"minimum": 2}}}]},
        [{}, {"a": 2}, {"a": 1}, {"a": "2"}, None, 3]),
    # SchemaStore codecov's layout: anyOf of {} and an enum is any value (the enum branch, kept
    # beside a free-form value, made two terminals match "header" at one position); a oneOf is not
    "anyOf with an unconstrained branch": (
        {"type": "object", "required": ["n"],
         "properties": {"layout": {"anyOf": [{"description": "any"}, {"enum": ["header", "footer"]}]},
                        "n": {"anyOf": [True, {"type": "string"}]},
                        "one": {"oneOf": [{}, {"enum": ["a", "b"]}]}}},
        [{}, {"n": 1}, {"n": "x", "layout": "header"}, {"n": None, "layout": "hea"}, {"n": [], "layout": {"a": [1]}},
         {"n": 1, "one": "a"}, {"n": 1, "one": "c"}, {"n": 1, "one": 2}, [], "header"]),
}

CONDITIONS = {
    # SchemaStore's gitlab-ci / readthedocs shape: one discriminating property, several if/then
    "two if/then on one property": (
        {"type": "object", "properties": {"c": {"enum": ["a", "b"]}},
         "allOf": [{"if": {"properties": {"c": {"const": "a"}}}, "then": {"required": ["x"]}},
                   {"if": {"properties": {"c": {"const": "b"}}}, "then": {"required": ["y"]}}]},
        [{}, {"c": "a"}, {"c": "a", "x": 1}, {"c": "b"}, {"c": "b", "y": 1}, {"c": "b", "x": 1},
         {"c": "a", "y": 2}, {"c": "a", "x": 1, "y": 2}, {"x": 1}, {"c": "d"}, 5]),
    "three if/then/else, overlapping conditions": (
        {"allOf": [{"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}},
                   {"if": {"minimum": 10}, "then": {"multipleOf": 5}},
                   {"if": {"type": "string"}, "then": {"maxLength": 2}, "else": {"maximum": 50}}]},
        [0, 5, 7, 10, 15, 12, 55, 60, -1, "", "ab", "abc", 1.5, None, []]),
    "if/then beside the node's own if": (
        {"type": "object", "properties": {"k": {"type": "string"}, "n": {"type": "integer"}},
         "if": {"required": ["k"]}, "then": {"required": ["n"]},
         "allOf": [{"if": {"properties": {"n": {"minimum": 3}}, "required": ["n"]}, "else": {"properties": {"k": {"const": "z"}}}}]},
        [{}, {"k": "z"}, {"k": "a"}, {"k": "a", "n": 3}, {"k": "a", "n": 1}, {"k": "z", "n": 1}, {"n": 1}, {"n": 4}]),
    # a then/else without its if has no effect: it must not pair with another branch's if
    "then without if": (
        {"allOf": [{"then": {"type": "string"}}, {"if": {"type": "integer"}, "else": {"type": "null"}}]},
        [5, None, "a", 1.5, True]),
    "draft 6 ignores if/then": (
        {"$schema": "http://json-schema.org/draft-06/schema#", "type": "integer",
         "allOf": [{"if": {"minimum": 1}, "then": {"maximum": 3}}, {"if": {"maximum": 0}, "then": {"const": -1}}]},
        [0, 1, 5, -5, "x"]),
}


@pytest.mark.parametrize("path", ["regex", "engine"])
@pytest.mark.parametrize("name", list(EXTENSIONS) + list(CONDITIONS))
def test_agrees_with_jsonschema(name, path):
    schema, instances = {**EXTENSIONS, **CONDITIONS}[name]
    check(schema, instances, path)


def test_an_extension_does_not_change_the_language():
    schema, _ = EXTENSIONS["x-kubernetes extension values"]
    plain = {"allOf": [{"type": "object", "properties": {"name": {"type": "string"}}}]}
    assert compile_json_schema(schema, path="regex").regex == compile_json_schema(plain, path="regex").regex


def test_a_condition_that_cannot_be_merged_is_refused_with_its_pointer():
    # the second condition's `then` asks for a contains unlike the first's: refused, named
    schema = {"allOf": [{"if": {"type": "array"}, "then": {"contains": {"const": 1}}},
                        {"if": {"minItems": 1}, "then": {"contains": {"const": 2}}}]}
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(schema, path="regex")
    assert info.value.keyword is not None and info.value.pointer.startswith("#/allOf/")


def test_an_anyof_with_a_branch_accepting_everything_is_any_value():
    def with_layout(layout):
        return {"type": "object", "properties": {"layout": layout, "n": {"type": "integer"}}, "required": ["n"]}
    free = compile_json_schema(with_layout({}), path="engine").engine.to_lark()
    for layout in ({"anyOf": [{}, {"enum": ["header", "footer"]}]}, {"anyOf": [{"type": "string"}, True]}):
        assert compile_json_schema(with_layout(layout), path="engine").engine.to_lark() == free
