"""Objects with many optional members as left-linear rules (json_schema.member_rules), and
object alternatives whose branches start with an optional space before a rule.

Oracles: `jsonschema` (validity), the regex path (`re.fullmatch`, same language where both
apply) and the engine's recogniser on the engine path.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import warnings

import pytest

lark = pytest.importorskip("lark")
jsonschema = pytest.importorskip("jsonschema")

from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402
from grammar_oracle import lark_accepts as accepts  # noqa: E402
from grammar_oracle import lark_parser as parser  # noqa: E402


def dumps(v, compact: bool = True) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":")) if compact else json.dumps(v, ensure_ascii=False)


def nested(depth: int):
    v: object = 0
    for i in range(depth):
        v = [v] if i % 2 else {"k": v}
    return v


def differential(schema, docs, regex_too: bool = True) -> None:
    """Lark on the grammar text accepts each doc (compact and spaced) iff jsonschema says valid;
    the regex path agrees wherever it applies (docs nesting less than its cap)."""
    p = parser(compile_json_schema(schema, path="engine"))
    regex = re.compile(compile_json_schema(schema, path="regex").regex) if regex_too else None
    seen = set()
    for doc in docs:
        valid = jsonschema.Draft202012Validator(schema).is_valid(doc)
        seen.add(valid)
        for text in (dumps(doc), dumps(doc, compact=False)):
            assert accepts(p, text) == valid, text
            if regex is not None and "[[" not in text and '{"k"' not in text:
                assert (regex.fullmatch(text) is not None) == valid, text
    assert seen == {True, False}  # the docs exercise both answers


VALUES = {"s": ("x", 1), "i": (3, "3"), "b": (True, None), "a": ([1, {"q": []}], {}), "n": (-1.5e3, "n")}


@pytest.mark.parametrize("seed", range(6))
def test_random_members_required_and_extras_match_jsonschema_and_the_regex(seed):
    rng = random.Random(seed)
    n = rng.randint(5, 7)
    kinds = [rng.choice("sibna") for _ in range(n)]
    schemas = {"s": {"type": "string"}, "i": {"type": "integer"}, "b": {"type": "boolean"},
               "a": {"type": "array"}, "n": {"type": "number"}}
    names = [f"p{k}" for k in range(n)]
    required = [m for m in names if rng.random() < 0.3]
    extra = rng.choice([False, True, {"type": "integer"}])
    schema = {"type": "object", "properties": {m: schemas[k] for m, k in zip(names, kinds)},
              "additionalProperties": extra}
    if required:
        schema["required"] = required
    good = {m: VALUES[k][0] for m, k in zip(names, kinds)}
    docs = []
    for mask in itertools.product((0, 1), repeat=n):  # every subset, in schema order
        docs.append({m: good[m] for m, keep in zip(names, mask) if keep})
    docs = docs[:: max(1, len(docs) // 40)] + [good, {}]
    docs += [{m: VALUES[k][1]} for m, k in zip(names, kinds)]  # a wrong value
    docs += [dict(good, zz=5), dict(good, zz="5"), {"zz": 1}, {names[-1]: good[names[-1]], "zz": nested(4)}]
    differential(schema, docs, regex_too=extra is not True)  # free-form extras nest past the regex cap
    p = parser(compile_json_schema(schema, path="engine"))
    a, b = names[0], names[-1]
    assert not accepts(p, dumps({b: good[b], a: good[a]}))  # out of schema order: not the output format
    assert not accepts(p, dumps({a: good[a]})[:-1] + "," + "}")
    assert not accepts(p, "{" + dumps({a: good[a]})[1:-1] + "," + dumps({a: good[a]})[1:])  # a key twice


def test_wide_object_with_pattern_properties_takes_the_exact_grammar_path():
    # the shape of Snowplow sp_280 (122 optional members, free-form patternProperties), where
    # the grammar path refused (">600 alternatives") and "auto" took a depth-capped regex that
    # rejected deeper valid instances
    kinds = ["string", "boolean", "string", "integer", "string", "string"]
    props = {f"m{k:03}": {"type": kinds[k % 6]} for k in range(122)}
    schema = {"type": "object", "properties": props, "additionalProperties": False,
              "patternProperties": {"^contexts_.*": {"type": "array"}, "^unstruct_.*": {}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no depth-capped fallback
        compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    value = {"string": "v", "boolean": False, "integer": 7}
    docs = [{"m000": "a", "m121": 1, "contexts_x": [nested(9)], "unstruct_y": nested(12)},
            {f"m{k:03}": value[kinds[k % 6]] for k in range(0, 122, 5)}, {},
            {"m001": "no"}, {"other": 1}, {"m004": "a", "contexts_x": {}}, {"unstruct_": 1, "m002": 3},
            {"m003": 1.5}, {"m121": "x", "m120": "y"}]
    p = parser(compiled)
    for doc in docs:
        valid = jsonschema.Draft202012Validator(schema).is_valid(doc)
        text = dumps(doc)
        assert accepts(p, text) == valid, text
    assert accepts(p, dumps({"m003": 10, "unstruct_a": 1, "contexts_b": []}))
    assert not accepts(p, dumps({"m003": 1, "m002": "2"}))  # schema order


def test_alternatives_starting_with_an_optional_space_before_a_rule():
    # dependencies with a oneOf of objects (Glaiveai2K calculate_area_530837db): "a piece between
    # grammar rules can be empty: [ ]?" was refused, the branches start with an optional space
    num = {"type": "number"}
    schema = {"type": "object", "required": ["shape"],
              "properties": {"base": num, "height": num, "length": num, "radius": num,
                             "shape": {"enum": ["circle", "rectangle", "triangle"], "type": "string"}, "width": num},
              "dependencies": {"shape": {"oneOf": [
                  {"properties": {"radius": num, "shape": {"const": "circle"}}},
                  {"properties": {"length": num, "shape": {"const": "rectangle"}, "width": num}},
                  {"properties": {"base": num, "height": num, "shape": {"const": "triangle"}}}]}}}
    assert compile_json_schema(schema).path == "engine"  # exact, not the depth-capped regex
    docs = [{"shape": "circle"}, {"radius": 2, "shape": "circle"}, {"length": 3, "shape": "rectangle", "width": 1},
            {"shape": "square"}, {"radius": 1}, {"base": 1, "height": 2, "shape": "triangle"},
            {"height": 1, "shape": "rectangle"}, {"radius": "2", "shape": "circle"}, {"shape": "circle", "x": [[1]]},
            {"base": 1, "length": 1, "shape": "triangle", "width": 2}, {"shape": "triangle", "y": {"z": None}}]
    differential(schema, docs)  # docs in schema order: the output format's


def test_counted_items_with_alternatives_inside_get_a_rule():
    # minItems 600 of objects with free-form members (Github_easy o12622): `x~599` of an item
    # with 2 expansions was 2**599 alternatives, refused; the item is now a rule of its own
    item = {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}
    schema = {"type": "object", "properties": {"p": {"type": "array", "items": item, "minItems": 600}}}
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    p = parser(compiled)
    v = jsonschema.Draft202012Validator(schema)
    good = [{"n": str(i)} for i in range(600)]
    for doc in ({"p": good}, {"p": good + [{"n": "x", "free": [[{"d": [1]}]]}]}, {"p": good[:-1]}, {"p": good[:-1] + [{}]},
                {}, {"p": good, "q": {"r": [[[]]]}}):
        assert accepts(p, dumps(doc)) == v.is_valid(doc), dumps(doc)[-80:]
    # maxItems: x (sep x)~0..63 with 2 expansions per item was a sum of 2**k
    bounded = {"type": "array", "items": item, "maxItems": 64}
    assert compile_json_schema(bounded, path="engine").path == "engine"
    differential(bounded, [[], [{"n": "a"}], [{"n": "a", "z": [[1]]}] * 64, [{"n": "a"}] * 65, [{"n": 1}], [{}]],
                 regex_too=False)


def test_alternative_objects_sharing_first_members_on_the_engine():
    # Snowplow sp_124 (on the grammar path before the left-linear chains): its objects' shared
    # chains make the left-linear grammar refused ("terminals ... can both match"); the retry
    # writes wide objects right-linear, deciding nothing before each object's end
    from pathlib import Path


    path = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "jsonschemabench" / "Snowplow---sp_124_Normalized.json"
    if not path.exists():
        pytest.skip(f"JSONSchemaBench data not found at {path}")
    doc = json.loads(path.read_text(encoding="utf-8"))
    schema = doc["schema"]
    compiled = compile_json_schema(schema, path="engine")
    assert compiled.path == "engine" and not compiled.depth_capped
    p = parser(compiled)
    v = jsonschema.Draft202012Validator(schema)
    auto = compile_json_schema(schema)  # "auto": the engine path
    assert auto.path == "engine" and not auto.depth_capped
    for t in doc["tests"]:  # its instances, compact, are in schema order
        assert accepts(p, dumps(t["data"])) == v.is_valid(t["data"]), dumps(t["data"])[:200]
        assert auto.accepts(dumps(t["data"])) == v.is_valid(t["data"]), dumps(t["data"])[:200]
