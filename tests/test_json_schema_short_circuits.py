"""Where the JSON Schema compiler stops early or writes less: the verdicts must not change.

An empty positive side makes a `not` moot (logic.subtract), an empty schema found by the
grammar-mode emission of "auto" is reported without trying the regex path, and enum/const
checks in grammar mode write free-form values only as deep as the values checked nest.
Oracles: jsonschema (validity) and Lark (the grammar's language).
"""

from __future__ import annotations

import json
import re

import pytest

jsonschema = pytest.importorskip("jsonschema")
pytest.importorskip("lark")

from grammar_oracle import grammar_acceptor  # noqa: E402
from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402

# JSONSchemaBench Handwritten notnames10: a const that the propertyNames patterns and the
# recursive patternProperties reject (so no value), behind `not`s over recursive $refs
NOTNAMES10 = {
    "type": "object",
    "const": {"0000a5b00079": {"0000a5b00078": {"a5b0": 123}}},
    "allOf": [{"$ref": "#/definitions/npn1"}, {"$ref": "#/definitions/npn2"}, {"$ref": "#/definitions/npn3"},
              {"$ref": "#/definitions/pp"}, {"propertyNames": {"pattern": "^(\\w\\w\\d)+$"}},
              {"propertyNames": {"pattern": "^(\\w\\d)+$"}}, {"maxProperties": 1}],
    "definitions": {
        "npn1": {"not": {"propertyNames": {"not": {"pattern": "a5b"}}}},
        "npn2": {"not": {"propertyNames": {"not": {"pattern": "(^[^5]*$)|7"}}}},
        "npn3": {"not": {"propertyNames": {"not": {"pattern": "(^[^7]*$)|9"}}}},
        "pp": {"patternProperties": {"7": {"$ref": "#/definitions/al7"}, "9": {"$ref": "#/definitions/al9"}}},
        "al7": {"allOf": [{"$ref": "#/definitions/npn1"}, {"$ref": "#/definitions/pp"},
                          {"propertyNames": {"pattern": "^(\\w\\d)+$"}}, {"maxProperties": 1}]},
        "al9": {"allOf": [{"$ref": "#/definitions/npn2"}, {"$ref": "#/definitions/pp"},
                          {"propertyNames": {"pattern": "^(\\w\\d)+$"}}, {"maxProperties": 1}]},
    },
}


def test_notnames10_is_refused_not_called_empty():
    # its const is valid; a check unrolled too shallow (or free-form values written too shallow
    # in it) once made this "accepts no value", a wrong answer
    assert jsonschema.Draft7Validator(NOTNAMES10).is_valid(NOTNAMES10["const"])
    for path in ("auto", "engine"):
        with pytest.raises(UnsupportedSchemaError) as info:
            compile_json_schema(NOTNAMES10, path=path)
        assert "accepts no value" not in str(info.value)


def test_an_enum_value_deeper_than_the_free_form_depth_is_kept():
    schema = {"enum": [[[[[1]]]], [[["x"]]]], "items": {}}
    regex = compile_json_schema(schema, path="regex").regex
    compiled = compile_json_schema(schema)  # "auto": the engine path, the same language
    assert compiled.path == "engine"
    for v in schema["enum"]:
        assert re.fullmatch(regex, json.dumps(v, separators=(",", ":")))
        assert compiled.accepts(json.dumps(v, separators=(",", ":")))
    assert not re.fullmatch(regex, "[[[[2]]]]") and not compiled.accepts("[[[[2]]]]")


def test_auto_reports_the_grammar_paths_emptiness_but_an_invalid_whitespace_pattern_first():
    from tokenguide.errors import ArgumentError

    schema = {"$defs": {"t": {"type": "array", "items": {"$ref": "#/$defs/t"}}}, "$ref": "#/$defs/t",
              "minItems": 3, "maxItems": 2}
    with pytest.raises(UnsupportedSchemaError, match="accepts no value: minItems 3 is greater than maxItems 2"):
        compile_json_schema(schema)
    with pytest.raises(ArgumentError):
        compile_json_schema(schema, whitespace_pattern="(")


@pytest.mark.parametrize("schema", [
    # nothing is left of the positive side: its reason is named, whatever the `not` is
    {"type": "integer", "minimum": 5, "maximum": 3, "not": {"type": "object", "properties": {"a": {}}}},
    {"type": "string", "const": 3, "not": {"items": {"items": {}}}},
    {"$defs": {"t": {"type": "array", "items": {"$ref": "#/$defs/t"}}}, "type": "array",
     "items": {"$ref": "#/$defs/t"}, "minItems": 2, "maxItems": 1, "not": {"contains": {"const": 1}}},
])
@pytest.mark.parametrize("path", ["auto", "regex", "engine"])
def test_an_empty_positive_side_with_not_is_reported_empty(schema, path):
    with pytest.raises(UnsupportedSchemaError, match="accepts no value: .*keyword"):
        compile_json_schema(schema, path=path)


@pytest.mark.parametrize("schema, extra", [
    # values nesting 3 deep checked against items whose values are free-form below level 2
    ({"type": "array", "items": {"type": "array"}, "enum": [[[[1]]], [[{"a": []}]], [3], [[], [[]]]]},
     [[[[[1]]]], [[[1]]], [[]]]),
    # the check goes through a `not` (its lookahead side has free-form values too)
    ({"items": {"not": {"items": {"type": "string"}}},
      "enum": [[["a"]], [[1]], [{"k": ["x"]}], [["a"], [2]], [[], 3]]},
     [[[1]], [["a"]]]),
    # recursive: the enum check unrolls the $ref as deep as the values nest
    ({"$defs": {"t": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/t"}}, {"type": "integer"}]}},
      "$ref": "#/$defs/t", "enum": [[[[[1]]]], [[[["no"]]]], 4, [[{}]]]},
     [[[[1]]], [[[[[1]]]]], "no"]),
])
def test_grammar_mode_enum_checks_keep_exactly_the_valid_values(schema, extra):
    oracle = jsonschema.Draft202012Validator(schema)
    accepts = grammar_acceptor(compile_json_schema(schema, path="engine"))
    for v in schema["enum"] + extra:
        text = json.dumps(v, separators=(",", ":"))
        assert accepts(text) == oracle.is_valid(v), text


DEEP_CONST = {"$defs": {"t": {"type": "array", "items": {"$ref": "#/$defs/t"}}}, "$ref": "#/$defs/t",
              "const": [[[[[]]]]]}


def test_a_const_deeper_than_the_regex_paths_unrolling_takes_the_engine_path():
    # the regex path's check unrolls the $ref 3 times and finds no value: not a verdict
    with pytest.raises(UnsupportedSchemaError, match="accepts no value") as info:
        compile_json_schema(DEEP_CONST, path="regex")
    assert getattr(info.value, "cut", None) == "#/$defs/t/items"  # (cut there: not proved)
    compiled = compile_json_schema(DEEP_CONST)
    assert compiled.path == "engine" and "engine path takes it" in compiled.reason
    accepts = compiled.accepts
    assert accepts("[[[[[]]]]]") and not accepts("[[[[]]]]") and not accepts("[]")


def test_a_regex_path_cut_is_refused_by_keyword_not_called_empty():
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(DEEP_CONST, whitespace_pattern="[ ]*")  # (the engine path takes no such pattern)
    err = info.value
    assert "accepts no value" not in str(err) and "raise max_recursion_depth" in str(err)
    assert err.keyword == "$ref" and err.pointer == "#/$defs/t/items"
    compiled = compile_json_schema(DEEP_CONST, whitespace_pattern="[ ]*", max_recursion_depth=6)
    assert re.fullmatch(compiled.regex, "[[[[[ ]]]]]") and not re.fullmatch(compiled.regex, "[[[[]]]]")


@pytest.mark.parametrize("schema", [
    DEEP_CONST,
    {"$defs": {"n": {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {
        "type": "array", "items": {"$ref": "#/$defs/n"}}}, "required": ["v"]}}, "$ref": "#/$defs/n"},
    {"$defs": {"d": {"type": "integer", "minimum": 5}}, "type": "object",
     "properties": {"a": {"$ref": "#/$defs/d"}, "b": {}}, "required": ["a"]},
    {"$defs": {"s": {"type": "string"}}, "type": "array", "items": {"oneOf": [{"$ref": "#/$defs/s"}, {
        "type": "object", "properties": {"k": {"not": {"const": 1}}}}, {"type": "array"}]}},
])
@pytest.mark.parametrize("whitespace, order", [(None, "schema"), ("", "any")])
def test_auto_reuses_its_probe_emission_for_the_same_grammar(schema, whitespace, order):
    # "auto" takes the grammar of its recursion probe's emission; "engine" emits it afresh
    auto = compile_json_schema(schema, whitespace_pattern=whitespace, property_order=order)
    assert auto.path == "engine"
    fresh = compile_json_schema(schema, whitespace_pattern=whitespace, property_order=order, path="engine")
    assert auto.engine == fresh.engine
