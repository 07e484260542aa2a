"""Grammar-mode emission of the JSON Schema compiler, run by the engine (compile_json_schema, path="engine").

Oracles: `jsonschema` (validity), the regex path (`re.fullmatch`, same language where both
apply) and Lark itself (the grammar's language is what Lark's LALR parser accepts).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

lark = pytest.importorskip("lark")
jsonschema = pytest.importorskip("jsonschema")

from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import CompiledSchema, compile_json_schema  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

TREE = {
    "$defs": {"node": {"type": "object", "properties": {
        "value": {"type": "integer", "minimum": 0, "maximum": 100},
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "required": ["value"], "additionalProperties": False}},
    "$ref": "#/$defs/node",
}


def parser(grammar):
    """text -> accepted: Lark's LALR parser of Lark text, or a CompiledSchema's own reading."""
    if isinstance(grammar, CompiledSchema):
        return grammar.accepts
    lalr = lark.Lark(grammar, parser="lalr", lexer="contextual")

    def reads(text: str) -> bool:
        try:
            lalr.parse(text)
        except lark.exceptions.LarkError:
            return False
        return True
    return reads


def accepts(p, text: str) -> bool:
    return p(text)


def dumps(v, compact=True) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":")) if compact else json.dumps(v, ensure_ascii=False)


def deep_tree(depth: int, value: int = 7) -> dict:
    node: dict = {"value": value}
    for i in range(depth):
        node = {"value": i % 101, "children": [node, {"value": 100}]}
    return node


@pytest.mark.parametrize("path", ["auto", "engine"])
def test_recursive_schema_takes_the_engine_path_without_depth_cap(path):
    compiled = compile_json_schema(TREE, path=path)
    assert isinstance(compiled, CompiledSchema)
    assert compiled.path == "engine" and compiled.regex is None
    assert path != "auto" or "engine path takes it" in compiled.reason
    p = parser(compiled)
    validator = jsonschema.Draft202012Validator(TREE)
    good = [deep_tree(0), deep_tree(3), deep_tree(25), {"value": 0, "children": []}]
    bad = [{"value": 101}, {"children": []}, {"value": 1, "extra": 2}, {"value": 1, "children": [{"value": -1}]},
           deep_tree(20, value=1000), {"value": 1.5}]
    for v in good:
        assert validator.is_valid(v)
        assert accepts(p, dumps(v)) and accepts(p, dumps(v, compact=False)), v
    for v in bad:
        assert not validator.is_valid(v)
        assert not accepts(p, dumps(v)) and not accepts(p, dumps(v, compact=False)), v
    # the regex path unrolls the recursion and so rejects deep trees
    rx = re.compile(compile_json_schema(TREE, path="regex").regex)
    assert rx.fullmatch(dumps(deep_tree(1))) and not rx.fullmatch(dumps(deep_tree(6)))


@pytest.mark.parametrize("path", ["auto", "engine"])
def test_free_form_values_nest_without_cap_on_the_engine_path(path):
    schema = {"type": "object", "properties": {"meta": {}}, "required": ["meta"]}
    compiled = compile_json_schema(schema)  # auto: the engine path, exact
    assert compiled.path == "engine" and "engine path takes it" in compiled.reason and not compiled.depth_capped
    capped = compile_json_schema(schema, path="regex")
    assert capped.depth_capped and "free-form values nest at most 2" in capped.reason
    p = parser(compiled if path == "auto" else compile_json_schema(schema, path="engine"))
    deep: object = 1
    for i in range(30):
        deep = [{"k": deep, "s": "x"}, None] if i % 2 else [deep, 1.5]
    assert accepts(p, dumps({"meta": deep})) and accepts(p, dumps({"meta": deep}, compact=False))
    assert not accepts(p, dumps({"meta": deep})[:-1])
    assert not accepts(p, '{"meta":[1,]}') and not accepts(p, '{"meta":01}') and not accepts(p, '{}')


# Schemas where both paths apply: the languages must be equal.
DIFF_SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "integer", "minimum": -5, "maximum": 120},
                                      "b": {"type": "number", "exclusiveMinimum": 0, "maximum": 2.5},
                                      "c": {"type": "string", "maxLength": 3}}, "required": ["b"]},
    {"type": "array", "items": {"type": "number", "multipleOf": 0.01}, "minItems": 1, "maxItems": 3},
    {"anyOf": [{"type": "integer", "maximum": 10}, {"type": "string", "pattern": "^a+$"}, {"type": "null"}]},
    {"enum": [1, 2.5, "x", [1, 2], {"k": 3}, None, True]},
    {"type": "object", "additionalProperties": {"type": "integer"}},
    {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"},
                                      "tags": {"type": "array", "items": {"enum": ["a", "b"]}}},
     "additionalProperties": False},
    {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
     "oneOf": [{"required": ["x"]}, {"required": ["y"]}]},
    {"type": ["integer", "boolean", "array"], "items": {"type": "integer", "minimum": 3}},
    {"type": "object", "properties": {"n": {"type": "integer"}, "free": {}}},
    {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": {"type": "string"},
     "minProperties": 1, "maxProperties": 2},
    {"type": "integer", "minimum": 10, "maximum": 10000},
]
DIFF_VALUES = [
    {"a": 3, "b": 1}, {"a": 121, "b": 1}, {"b": 2.5, "c": "xyz"}, {"b": 0}, {"b": 1e-05}, {"c": "ab", "b": 2},
    [0.5], [1.25, 2, 3], [1.005], [], [1, 2, 3, 4], 10, 11, -3, "aaa", "ab", None, 2.5, "x", [1, 2], {"k": 3}, True,
    False, {"k": 3.0}, {}, {"q": 1, "r": -2}, {"q": 1.5}, {"id": "123e4567-e89b-12d3-a456-426614174000",
                                                        "tags": ["a", "b", "a"]},
    {"id": "nope"}, {"x": 1}, {"y": 2}, {"x": 1, "y": 2}, [3, 4], [2], {"n": 1, "free": [[[1]], {"a": {}}]},
    {"free": {"z": [None]}}, 10000, 10001, 9, "10", 1.0, 2.50, {"a": 1, "b": 2, "x": 3},
]


@pytest.mark.parametrize("schema", DIFF_SCHEMAS, ids=range(len(DIFF_SCHEMAS)))
def test_both_paths_give_the_same_language(schema):
    rx = re.compile(compile_json_schema(schema, path="regex", max_recursion_depth=5).regex)
    p = parser(compile_json_schema(schema, path="engine"))
    validator = jsonschema.Draft202012Validator(schema)
    for v in DIFF_VALUES:
        for text in (dumps(v), dumps(v, compact=False), dumps(v).replace(",", " , ")):
            in_regex = rx.fullmatch(text) is not None
            assert accepts(p, text) == in_regex, (text, in_regex)
        if accepts(p, dumps(v)):
            assert validator.is_valid(v), v  # never an invalid instance accepted


def test_compact_whitespace_and_custom_whitespace():
    p = parser(compile_json_schema(TREE, ""))
    assert accepts(p, '{"value":1,"children":[]}') and not accepts(p, '{"value": 1}')
    with pytest.raises(UnsupportedSchemaError, match="whitespace_pattern"):
        compile_json_schema(TREE, r"[ \n]*", path="engine")


def test_grammar_path_refusals_name_their_cause():
    with pytest.raises(ValueError, match="path must be"):
        compile_json_schema({}, path="lark")
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema({"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}, "minItems": 1}},
                             "$ref": "#/$defs/n"}, path="engine")
    assert "accepts no finite value" in str(info.value) and info.value.keyword == "$ref"
    with pytest.raises(UnsupportedSchemaError, match="accepts no finite value"):
        compile_json_schema({"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}, "minItems": 1}},
                             "anyOf": [{"type": "integer"}, {"$ref": "#/$defs/n"}]}, path="engine")
    sibling = {"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n", "maxItems": 2}}}, "$ref": "#/$defs/n"}
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(sibling, path="engine")
    assert info.value.keyword == "$ref" and "beside other keywords" in str(info.value)
    with pytest.warns(UserWarning, match="depth-capped"):
        fallback = compile_json_schema(sibling)  # auto: the regex path, saying the recursion is unrolled
    assert fallback.depth_capped
    assert fallback.path == "regex" and "unrolled 3 times" in fallback.reason and "beside other" in fallback.reason
    with pytest.raises(UnsupportedSchemaError, match="private use"):
        compile_json_schema({"const": "\U000f0001"}, path="engine")
    # oneOf over a recursive branch cannot be proved exclusive
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema({"$defs": {"t": {"oneOf": [{"type": "array", "items": {"$ref": "#/$defs/t"}},
                                                       {"type": "array", "items": {"type": "integer"}}]}},
                             "$ref": "#/$defs/t"}, path="engine")
    assert info.value.keyword == "oneOf"


def test_guide_from_json_schema_runs_the_grammar_path():
    from tokenguide.guides.stateful import Guide
    from tokenguide.vocabulary import Vocabulary

    chars = '{}[]:," abcdefghijklmnopqrstuvwxyz0123456789-.'
    vocab = Vocabulary(len(chars), {ch: i for i, ch in enumerate(chars)})
    guide = Guide.from_json_schema(TREE, vocab)
    assert guide.index is None  # a CFG guide, not an index
    doc = dumps(deep_tree(6))
    for ch in doc:
        assert chars.index(ch) in guide.get_tokens(), ch
        guide.advance(chars.index(ch))
    assert len(chars) in guide.get_tokens()  # EOS
    guide = Guide.from_json_schema(TREE, vocab)
    for ch in '{"value":10':
        guide.advance(chars.index(ch))
    assert sorted(chars[i] for i in guide.get_tokens() if i < len(chars)) == sorted("},0 ")
    # a schema the regex path takes too: still the engine, allowing what the regex index allows
    small = {"type": "integer", "maximum": 5}
    for text in ("5", "-12", "0", "4"):
        engine, regex = Guide.from_json_schema(small, vocab), Guide.from_json_schema(small, vocab, path="regex")
        assert engine.index is None and engine.compiled.path == "engine" and regex.index is not None
        for ch in text:
            assert engine.get_tokens() == regex.get_tokens(), (text, ch)
            engine.advance(chars.index(ch))
            regex.advance(chars.index(ch))
        assert engine.get_tokens() == regex.get_tokens() and engine.is_finished() == regex.is_finished(), text


@pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocess in Pyodide")
def test_grammar_text_is_deterministic_across_hash_seeds():
    code = ("import json,sys; sys.path.insert(0, 'py_src'); from tokenguide.json_schema import compile_json_schema;"
            f"print(compile_json_schema({json.dumps(TREE)!r}, path='engine').engine.to_lark())")
    outs = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"}).stdout for seed in ("0", "1", "77")}
    assert len(outs) == 1 and "start:" in outs.pop()


def test_empty_containers_on_the_grammar_path():
    p = parser(compile_json_schema({"type": "object", "properties": {"a": {"type": "object",
                                    "additionalProperties": False}, "b": {"type": "array", "maxItems": 0}}},
                                   path="engine"))
    assert accepts(p, '{"a":{ },"b":[ ]}') and accepts(p, '{"a":{},"b":[]}')
    assert not accepts(p, '{"a":{  }}') and not accepts(p, '{"b":[  ]}')


def test_grammar_path_lenient_names_what_it_ignored():
    """path="engine" with lenient=True warns with the keywords it dropped (it used to fail with
    a NameError instead of warning)."""
    import warnings as _w

    schema = {"type": "object", "properties": {"a": {"type": "array", "contains": {"type": "integer"},
                                                     "unevaluatedItems": False}}}
    with _w.catch_warnings(record=True) as caught:
        _w.simplefilter("always")
        out = compile_json_schema(schema, path="engine", lenient=True)
    assert out.path == "engine"
    messages = [str(w.message) for w in caught]
    assert any("compile_json_schema ignored" in m and "unevaluatedItems at #/properties/a/unevaluatedItems" in m
               for m in messages), messages
    with pytest.raises(UnsupportedSchemaError, match="unevaluatedItems"):
        compile_json_schema(schema, path="engine")
