"""`not` (and the `else` of if/then/else) of conditions on types, required names and member
values, written as an anyOf of plain schemas (module json_schema.negation) instead of a
lookahead over the whole value: the negation moves down to the member values. Judged against
jsonschema on both compile paths, with values built to hit each side of each condition."""

from __future__ import annotations

import itertools
import json
import random
import warnings
from typing import Any

import jsonschema
import pytest
from benchmark_modules import load
from grammar_oracle import acceptor
from random_json import random_values

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema, logic
from tokenguide.json_schema.negation import negation_branches
from tokenguide.json_schema.normalize import VALIDATION, constrains_nothing

KeyOrder = load("json_key_order").KeyOrder
DRAFT7 = "http://json-schema.org/draft-07/schema#"
ALL = ["null", "boolean", "object", "array", "number", "integer", "string"]


def test_negation_branches_of_each_keyword():
    # disjoint: the first name that rejects, the names before it not
    assert negation_branches({"required": ["a", "b"]}, ALL, VALIDATION, 2020) == [
        {"type": "object", "properties": {"a": False, "b": True}},
        {"type": "object", "required": ["a"], "properties": {"a": True, "b": False}}]
    assert negation_branches({"properties": {"k": {"const": 1}, "t": True, "f": False, "d": {"title": "x"}}},
                             ALL, VALIDATION, 2020) == [
        {"type": "object", "required": ["k"], "properties": {"k": {"not": {"const": 1}}, "t": True, "f": True, "d": True}},
        {"type": "object", "required": ["f"], "properties": {"k": {"const": 1}, "t": True, "f": True, "d": True}}]
    assert negation_branches({"type": "object", "required": ["a"]}, ["object"], VALIDATION, 2020) == [
        {"type": ["null", "boolean", "array", "number", "integer", "string"]},
        {"type": "object", "properties": {"a": False}}]
    assert negation_branches({"type": "string", "required": ["a"]}, ["string"], VALIDATION, 2020) == [
        {"type": ["null", "boolean", "object", "array", "number", "integer"]}]


def test_negation_branches_of_array_keywords():
    assert negation_branches({"contains": {"const": 1}}, ALL, VALIDATION, 2020) == [
        {"type": "array", "items": {"not": {"const": 1}}}]
    assert negation_branches({"type": "array", "items": {"type": "string"}}, ["array"], VALIDATION, 2020) == [
        {"type": ["null", "boolean", "object", "number", "integer", "string"]},
        {"type": "array", "contains": {"not": {"type": "string"}}}]
    assert negation_branches({"type": "string", "items": {"type": "string"}}, ["string"], VALIDATION, 2020) == [
        {"type": ["null", "boolean", "object", "array", "number", "integer"]}]
    assert negation_branches({"items": {"type": "string"}, "contains": {"const": "x"}}, ALL, VALIDATION, 2020) == [
        {"type": "array", "contains": {"not": {"type": "string"}}},
        {"type": "array", "items": {"allOf": [{"type": "string"}, {"not": {"const": "x"}}]}}]


_CONDITIONS = [
    {"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "integer"}, "c": {"enum": [1, "x"]}, "d": False}},
    {"properties": {"a": {"type": "array", "items": {"type": "string"}}, "b": {"type": "array", "items": {"type": "string"}}}},
    {"items": {"type": "integer"}, "contains": {"minimum": 3}},
    {"type": ["object", "string"], "required": ["a"]},
]


@pytest.mark.parametrize("condition", _CONDITIONS)
def test_negation_branches_are_disjoint_and_cover_the_complement(condition):
    """Each value the condition rejects is in exactly one branch, each value it accepts in none
    (jsonschema the judge): overlapping branches were one text parsed two ways, a reduce/reduce
    conflict on the grammar path (bitbucket-pipelines' agent permissions)."""
    types = condition.get("type", ALL)
    branches = negation_branches(condition, types if isinstance(types, list) else [types], VALIDATION, 2020)
    assert branches
    judge = jsonschema.Draft202012Validator(condition)
    sides = [jsonschema.Draft202012Validator(b) for b in branches]
    values = [None, 1, "s", [], [1], [3], [1, 3], ["x"], [2.5, 3], [2.5], {}, {"a": 1}, {"a": 1, "b": 2}, {"a": "x", "b": 1},
              {"a": 1, "b": 1, "c": 1}, {"a": 1, "b": 1, "c": 2}, {"a": 1, "b": 1, "d": 0}, {"a": ["s"], "b": [1]},
              {"a": [1], "b": [1]}, {"a": [1]}, {"b": ["s"]}, {"b": [2]}]
    for v in values:
        hits = sum(side.is_valid(v) for side in sides)
        assert hits == (0 if judge.is_valid(v) else 1), (v, hits)


def test_negation_branches_before_draft_6():
    """Draft 4 has no `contains`: an item outside `items` cannot be written, and a `contains` in
    the condition is an annotation. (Written anyway, the `contains` was ignored and the negation
    accepted every array: Github_easy---o78062 accepted an invalid instance.)"""
    assert negation_branches({"type": "array", "items": {"type": "string"}}, ["array"], VALIDATION, 4) is None
    assert negation_branches({"type": "array"}, ["array"], VALIDATION, 4) == [
        {"type": ["null", "boolean", "object", "number", "integer", "string"]}]
    assert negation_branches({"contains": {"const": 1}}, ALL, VALIDATION, 4) is None  # only an annotation: no condition


@pytest.mark.parametrize("path", ["engine", "regex"])
def test_draft_4_not_of_items_agrees_with_jsonschema(path):
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
              "properties": {"a": {"not": {"type": "array", "items": {"type": "string", "maxLength": 3000}}}}}
    # (on the grammar path the lookahead's automaton passes 2,000 states: the plain negation's turn)
    oracle = jsonschema.Draft4Validator(schema)
    try:
        compiled = compile_json_schema(schema, path=path)
    except UnsupportedSchemaError as exc:
        assert exc.keyword == "not"
        return
    for v in ({"a": []}, {"a": ["x"]}, {"a": [1]}, {"a": ["x", 2]}, {"a": 1}, {}, {"a": ["y" * 3001]}):
        assert compiled.accepts(json.dumps(v, separators=(",", ":"))) == oracle.is_valid(v), v


def test_not_of_a_recursive_ref_is_refused_by_name():
    """`not` whose schema is a $ref back into the schema being written (a RuleRef): the
    normaliser used to iterate it and crash with a TypeError."""
    schema = {"definitions": {"c": {"type": "object", "properties": {"k": {"type": "array", "items": {"$ref": "#/definitions/c"}}}}},
              "$ref": "#/definitions/c", "properties": {"x": {"not": {"type": "array", "items": {"$ref": "#/definitions/c"}}}}}
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(schema, path="engine")
    # (the plain negation's `contains` was refused at #/properties/x/not/anyOf/1/contains, a
    # pointer the schema does not hold; the refusal is the `not`'s own)
    assert (info.value.keyword, info.value.pointer) == ("not", "#/properties/x/not")


@pytest.mark.parametrize("kw", [{"items": [{}]}, {"contains": {}, "minContains": 2}, {"contains": {}, "required": ["a"]},
                                {"type": "integer"}, {"minProperties": 1, "required": ["a"]}, {"title": "x"},
                                {"properties": []}, {"required": [1]}])
def test_what_is_not_a_plain_negation(kw):
    types = ["integer"] if kw.get("type") == "integer" else ALL
    assert negation_branches(kw, types, VALIDATION, 2020) is None


def _action(kind: str) -> dict:
    """GitHub action metadata in miniature: `runs` is one of three objects told apart by `using`,
    and which `outputs` are allowed depends on it (if/then/else on a member's member)."""
    js = {"type": "object", "additionalProperties": False, "required": ["using", "main"],
          "properties": {"using": {"enum": ["node20", "node24"]}, "main": {"type": "string"}}}
    composite = {"type": "object", "additionalProperties": False, "required": ["using", "steps"],
                 "properties": {"using": {"const": "composite"}, "steps": {"type": "array"}}}
    docker = {"type": "object", "additionalProperties": False, "required": ["using", "image"],
              "properties": {"using": {"const": "docker"}, "image": {"type": "string"}}}
    outputs = {"type": "object", "additionalProperties": {"type": "object", "properties": {
        "description": {"type": "string"}}, "required": ["description"]}}
    with_value = {"type": "object", "additionalProperties": {"type": "object", "properties": {
        "value": {"type": "string"}}, "required": ["value"]}}
    cond = {"properties": {"runs": {"type": "object", "properties": {"using": {"const": "composite"}}}}}
    schema = {"$schema": DRAFT7, "type": "object", "additionalProperties": False, "required": ["name", "runs"],
              "properties": {"name": {"type": "string"}, "outputs": {}, "runs": {"oneOf": [js, composite, docker]}}}
    if kind == "if":
        schema.update({"if": cond, "then": {"properties": {"outputs": with_value}},
                       "else": {"properties": {"outputs": outputs}}})
    else:  # the same as an allOf of two conditions, the second as a `not`
        schema["anyOf"] = [{"allOf": [cond, {"properties": {"outputs": with_value}}]},
                           {"allOf": [{"not": cond}, {"properties": {"outputs": outputs}}]}]
    return schema


def _action_instances() -> list:
    runs = [{"using": "node20", "main": "a.js"}, {"using": "composite", "steps": []}, {"using": "docker", "image": "x"},
            {"main": "a.js", "using": "node20"}, {"steps": [], "using": "composite"},  # both key orders
            {"using": "composite", "main": "a.js"}, {"using": "node24"}, "composite", None]
    outs = [None, {"o": {"value": "v"}}, {"o": {"description": "d"}}, {"o": {"value": "v"}, "p": {"description": "d"}},
            {}, {"o": 1}]
    out = []
    for name, r, o in itertools.product([True, False], runs, outs):
        x: dict = {}
        if name:
            x["name"] = "n"
        if o is not None:
            x["outputs"] = o
        if r is not None:
            x["runs"] = r
        out.append(x)
    return out + [None, "s", 1, []]


def _ordered(x, order: list[str]):
    """`x` with every object's keys in `order` (the schemas' declaration order, which the
    compiled languages write; key order is judged elsewhere)."""
    if isinstance(x, dict):
        return {k: _ordered(x[k], order) for k in sorted(x, key=order.index)}
    if isinstance(x, list):
        return [_ordered(v, order) for v in x]
    return x


#: the keys of the `_action` schemas in their declaration order: the output format's order, which
#: the engine writes for `runs` (the regex path writes the oneOf's objects under the `if`'s
#: lookaheads in the order of their skeleton, as json_key_order models it)
ACTION_ORDER = ["name", "outputs", "runs", "using", "main", "steps", "image", "o", "p", "value", "description"]


def _keys(x) -> set:
    """Every key of every object in `x`."""
    if isinstance(x, dict):
        return set(x).union(*(_keys(v) for v in x.values()))
    if isinstance(x, list):
        return set().union(*(_keys(v) for v in x))
    return set()


NOT_DEEP = {"a": {"type": "object", "properties": {"a": {}, "b": {"type": "array", "maxItems": 0}}, "required": ["b"]}}

UV = {"type": "object", "properties": {"method": {"const": "uv"}}, "required": ["method"]}
INSTALL = {"type": "array", "items": {"anyOf": [
    {"type": "object", "properties": {"requirements": {"type": "string"}, "method": {"enum": ["pip", "uv"]}},
     "required": ["requirements"], "additionalProperties": False},
    {"type": "object", "properties": {"method": {"enum": ["uv"]}, "path": {"type": "string"}}, "required": ["method"]}]}}
INSTALLS = [[], [{"requirements": "r"}], [{"requirements": "r", "method": "uv"}], [{"method": "uv"}],
            [{"method": "uv", "path": "p"}, {"requirements": "r"}], [{"requirements": "r"}, {"requirements": "s", "method": "pip"}],
            [{"method": "uv"}, {"method": "uv"}], [{"method": "pip"}], [1], "x", None]

def _inputs() -> dict:
    """GitLab CI's inputs in miniature: several if/then on one member (merged, their negations
    are anyOf groups of conditions, one of them a `not`)."""
    def when(t: Any, default: dict) -> dict:
        cond = {"properties": {"type": {"const": t}}, "required": ["type"]} if t else {"not": {"required": ["type"]}}
        return {"if": cond, "then": {"properties": {"default": default}}}
    return {"$schema": DRAFT7, "type": "object", "additionalProperties": False,
            "properties": {"type": {"enum": ["string", "number", "boolean"]}, "default": {}},
            "allOf": [when("string", {"type": "string"}), when("number", {"type": "number"}),
                      when(None, {"type": "boolean"})]}


INPUTS = [{"type": t, "default": d} for t in ("string", "number", "boolean") for d in ("s", 1, True, None)] + [
    {"default": d} for d in ("s", 1, True)] + [{"type": "string"}, {}, {"type": "x"}, 1, "s"]

CASES = {
    "several if/then on one member (GitLab CI inputs)": (_inputs(), INPUTS),
    "if contains, then one item (Read the Docs' python.install)": (
        {**INSTALL, "$schema": DRAFT7, "allOf": [{"if": {"contains": UV}, "then": {"maxItems": 1}}]}, INSTALLS),
    "not contains": ({"type": "array", "items": {"type": ["integer", "string"]}, "not": {"contains": {"const": 1}}},
                     [[], [1], [2], [2, "1"], ["a", 1], [1, 1], ["1"], [[1]], 1, "x"]),
    # (written plainly on the grammar path this was refused as not LALR(1) until the items after
    # contains' last hit needed became one loop of any item: arrays.count_items' `uniform`)
    "not items": ({"type": "array", "items": {"type": ["object", "string", "integer"]},
                   "not": {"items": {"type": "string"}}},
                  [[], ["a"], ["a", 1], [{}], ["a", "b"], [1.5], [None], [{}, "a"], "a", {}]),
    # an enum beside other keywords, in a oneOf: its plain negation keeps the enum as a `not` of
    # its own (bitbucket-pipelines' agent permissions, whose lookahead is too long)
    "not of a oneOf of an enum and an object": (
        {"type": "object", "properties": {"p": {"not": {"type": "object", "properties": {"on": {"oneOf": [
            {"type": "string", "enum": ["allow", "deny"]},
            {"type": "object", "properties": {"allow": {"type": "array", "items": {"type": "string"}},
                                              "deny": {"type": "array", "items": {"type": "string"}}}}]}}}}}},
        [{"p": v} for v in ({}, {"on": "allow"}, {"on": "x"}, {"on": 1}, {"on": {}}, {"on": {"allow": ["a"]}},
                            {"on": {"allow": [1]}}, {"on": {"deny": [1], "allow": 2}}, {"on": {"allow": [], "deny": [2]}},
                            {"on": None}, 3, "s", [])] + [{}]),
    "if on a member's member, then/else on another member": (_action("if"), _action_instances()),
    "the same as anyOf of the condition and its not": (_action("not"), _action_instances()),
    "not of nested required members": (
        {"not": {"type": "object", "properties": NOT_DEEP, "required": ["a"]}},
        [{"a": {"b": []}}, {"a": {"b": [], "c": 1}}, {"a": {"b": [1]}}, {"a": {}}, {"a": 1}, {}, 5, {"a": {"b": []}, "b": 1}]
        + [_ordered(x, ["a", "b"]) for x in random_values(random.Random(1), 300, [0, "s", None, [], {}], ["a", "b"],
                                                          leaf=0.3, array=0.3, array_len=2)]),
    "not of member values beside free-form members": (
        {"type": "object", "properties": {"k": {}, "free": {}}, "not": {"properties": {"k": {"enum": [1, "x"]}}}},
        [_ordered(x, ["k", "free"]) for x in random_values(random.Random(2), 300, [1, "x", 2, None, []], ["k", "free"],
                                                           leaf=0.3, array=0.3, array_len=2)]),
}


_SUBTRACT = logic.subtract


def _always_refused(*args, **kwargs):
    raise UnsupportedSchemaError("the lookahead is refused (as for a value lexeme too long)", "not", "#")


def _lookahead_refused(em, a, negs):
    """logic.subtract refusing every condition that has a plain negation (as it refuses a value
    lexeme too long), so that the plain one is taken; the others as before."""
    for schema, _, ptr in negs:
        if logic.plain_negation(em.norm, schema, ptr, 0) is not None:
            _always_refused()
    return _SUBTRACT(em, a, negs)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("path", ["engine", "auto"])
@pytest.mark.parametrize("way", ["lookahead", "plain"])
def test_negation_is_exact(monkeypatch, name, path, way):
    """The lookahead is taken first; where it is refused, the plain negation (`plain`: the
    lookahead made to refuse)."""
    schema, instances = CASES[name]
    if way == "plain":
        monkeypatch.setattr(logic, "subtract", _lookahead_refused)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # auto may fall back to the depth-capped regex path
        compiled = compile_json_schema(schema, path=path)
    accepts = acceptor(compiled)
    validator = jsonschema.validators.validator_for(schema)(schema)
    valid = [x for x in instances if validator.is_valid(x)]
    assert 3 <= len(valid) <= len(instances) - 3  # both kinds
    order = KeyOrder(schema)  # as the benchmarks judge: as written, or with keys in the output order

    def accepted(x):
        spellings = [x, order.reorder(x)] + ([_ordered(x, ACTION_ORDER)] if _keys(x) <= set(ACTION_ORDER) else [])
        return any(accepts(json.dumps(y, separators=(",", ":"))) for y in spellings)

    wrong = [x for x in instances if validator.is_valid(x) != accepted(x)]
    assert wrong == []


def test_the_else_of_a_member_condition_needs_no_lookahead(monkeypatch):
    """With the lookahead refused, the `else` side is written from plain rules."""
    monkeypatch.setattr(logic, "subtract", _lookahead_refused)
    compiled = compile_json_schema(_action("if"), path="engine")
    assert compiled.path == "engine"


def test_a_condition_that_is_no_plain_negation_stays_refused(monkeypatch):
    monkeypatch.setattr(logic, "subtract", _always_refused)
    with pytest.raises(UnsupportedSchemaError, match="lookahead is refused"):
        compile_json_schema({"type": "object", "not": {"required": ["a"], "minProperties": 2}}, path="engine")


def test_key_order_of_items_matching_contains():
    """The benchmarks' key order (json_key_order) puts an item that matches `contains` in the
    order items-and-contains-merged are written: `method`, which contains requires, first; the
    library accepts that spelling (Read the Docs' python.install, minimised)."""
    schema = {"properties": {"install": {"allOf": [{"if": {"contains": {"required": ["method"]}},
                                                    "then": {"maxItems": 1}}]}}}
    value = {"install": [{"command": "", "method": ""}]}
    assert list(KeyOrder(schema).reorder(value)["install"][0]) == ["method", "command"]
    assert list(KeyOrder(schema).reorder({"install": [{"command": ""}]})["install"][0]) == ["command"]
    accepts = acceptor(compile_json_schema(schema, path="engine"))
    assert accepts('{"install":[{"method":"","command":""}]}')
    assert jsonschema.Draft202012Validator(schema).is_valid(value)


@pytest.mark.parametrize("schema, nothing", [
    ({"if": {"required": ["a"]}, "then": {"properties": {}}}, True),
    ({"if": {"required": ["a"]}, "then": {"properties": {"b": {"title": "x"}}, "required": []}, "else": True}, True),
    ({"if": {"required": ["a"]}, "then": {"properties": {"b": {"type": "string"}}}}, False),
    ({"if": {"required": ["a"]}, "else": {"required": ["b"]}}, False),
])
def test_conditions_whose_branches_accept_everything_decide_nothing(schema, nothing):
    """`then: {properties: {}}` and the like: the if/then/else is dropped (no lookahead)."""
    assert all(constrains_nothing(schema.get(k, True)) for k in ("then", "else")) == nothing
    compiled = compile_json_schema({"$schema": DRAFT7, **schema}, path="regex")
    assert ("(?!" not in compiled.regex) == nothing


def test_value_lexeme_text_too_long_to_build_is_refused_by_name():
    """The grammar path builds no automaton from a value lexeme's text over MAX_DFA_TEXT
    characters (such texts passed 2,000 states after seconds of work): a named refusal."""
    from tokenguide.json_schema.lexemes import MAX_DFA_TEXT

    excluded = [f"a reserved name, number {i:04d} of the list of names nobody may use" for i in range(400)]
    schema = {"type": "string", "pattern": "^[a-z ,0-9]+$", "not": {"enum": excluded}}
    with pytest.raises(UnsupportedSchemaError, match=f"over the {MAX_DFA_TEXT:,} an automaton is built from") as info:
        compile_json_schema(schema, path="engine")
    assert (info.value.keyword, info.value.pointer) == ("not", "#/not")
    regex = compile_json_schema(schema, path="regex")  # (the regex path writes the lookahead itself)
    assert not regex.accepts(json.dumps(excluded[7])) and regex.accepts('"a free name"')


def test_a_free_form_hole_ending_one_lexeme_and_inside_another_agrees_with_jsonschema():
    """`b`'s negation may be any array or object (a hole that ends its lexeme, before ` ?}`), and
    `a`'s has one inside an array (before a single ` `): one hole rule for both let LALR merge
    their lookaheads, and the grammar was refused (terminals ` ?}` and ` ` in one state). The
    hole that ends a lexeme is a rule of its own now."""
    schema = {"type": "object", "properties": {
        "a": {"not": {"type": "array", "items": {"type": "string"}}},
        "b": {"not": {"type": "string", "pattern": "^[^\\r\\n]+$"}}}}
    compiled = compile_json_schema(schema, path="engine")
    accepts = acceptor(compiled)
    oracle = jsonschema.Draft202012Validator(schema)
    docs = [{}, {"a": [1]}, {"a": ["x"]}, {"a": [{}, "x"]}, {"a": [[], {"k": [1]}]}, {"a": {}}, {"b": "x"}, {"b": ""},
            {"b": {}}, {"b": [1, {}]}, {"a": [{}], "b": {"k": {}}}, {"a": [{}], "b": "y"}, {"a": 1, "b": None}]
    verdicts = set()
    for doc in docs:
        for seps in ((",", ":"), (", ", ": ")):
            verdicts.add(oracle.is_valid(doc))
            assert accepts(json.dumps(doc, separators=seps)) == oracle.is_valid(doc), (doc, seps)
    assert verdicts == {True, False}


@pytest.mark.parametrize("vacuous", [{"additionalProperties": True}, {"additionalProperties": {}},
                                     {"propertyNames": {"title": "x"}}, {"unevaluatedProperties": True}])
def test_not_of_a_type_with_keywords_that_accept_everything_is_a_type_list(vacuous):
    """`not {type: object, additionalProperties: true}` (bitbucket-pipelines' free-form
    `overrides`, negated) is every non-object: a type list, not a lookahead over any value."""
    from tokenguide.json_schema.normalize import Normalizer, types_of

    schema = {"not": {"type": "object", **vacuous}}
    node = Normalizer(schema, 1, False).flatten(schema, "#")
    assert "not" not in node and set(types_of(node)) >= {"null", "boolean", "array", "number", "string"}
    assert "object" not in types_of(node)
    compiled = compile_json_schema(schema, path="engine")
    accepts = acceptor(compiled)
    for doc in ({}, {"a": 1}, [], 1, "x", None):
        assert accepts(json.dumps(doc)) == (not isinstance(doc, dict)), doc
