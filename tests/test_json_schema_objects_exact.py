"""JSON Schema objects, exact: property_order="any", patternProperties with properties and
additionalProperties, propertyNames with declared properties (issue 13).

Oracles: `jsonschema` (the schema's draft validator) for validity, Python's `re.fullmatch` for
the regex path (lookaheads included), the engine's recogniser for the engine path. Instances are
tried in every key order (`itertools.permutations`); duplicate keys are written as raw text.
"""

from __future__ import annotations

import io
import itertools
import json
import random
import re

import pytest

jsonschema = pytest.importorskip("jsonschema")
lark = pytest.importorskip("lark")

import tokenguide  # noqa: E402
from tokenguide import Guide, Index, Vocabulary  # noqa: E402
from tokenguide.cli import main as cli_main  # noqa: E402
from tokenguide.errors import ArgumentError, UnsupportedSchemaError  # noqa: E402
from tokenguide.guides import RegexGuide  # noqa: E402
from tokenguide.json_schema import build_regex_from_schema, compile_json_schema  # noqa: E402
from grammar_oracle import lark_parser  # noqa: E402


def dumps(v) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def valid(schema, x) -> bool:
    return jsonschema.validators.validator_for(schema)(schema).is_valid(x)


def orders(x: dict) -> list[str]:
    """The compact text of `x` in every key order."""
    return [dumps(dict(p)) for p in itertools.permutations(x.items())]


def check_any_order(schema, instances, regex=None) -> None:
    """Every key order of every instance: the regex accepts it exactly when jsonschema does."""
    regex = regex or build_regex_from_schema(schema, property_order="any")
    p = re.compile(regex)
    for x in instances:
        want = valid(schema, x)
        for text in orders(x):
            assert (p.fullmatch(text) is not None) == want, (schema, text, want)


def raw(*members: tuple[str, object]) -> str:
    """Object text with the members as given (duplicate keys allowed)."""
    return "{" + ",".join(f"{json.dumps(k)}:{dumps(v)}" for k, v in members) + "}"


PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0},
                                           "ok": {"type": "boolean"}},
          "required": ["name"]}
PERSON_INSTANCES = [
    {"name": "a", "age": 3, "ok": True}, {"name": "a"}, {"age": 3, "ok": True}, {"name": "a", "age": -1},
    {"name": "a", "x": 1}, {"name": "a", "x": 1, "y": [2], "age": 4}, {}, {"x": None}, {"name": 1, "ok": False},
]


# -- property_order="any" --------------------------------------------------------------------------------


@pytest.mark.parametrize("addl", [True, False, {"type": "null"}])
def test_any_order_required_optional_and_additional(addl):
    schema = dict(PERSON, additionalProperties=addl)
    check_any_order(schema, PERSON_INSTANCES + [{"name": "b", "x": None, "ok": True}, {"z": None, "name": "c"}])
    # the default stays schema order: a declared key after a later declared one is refused
    p = re.compile(build_regex_from_schema(schema))
    assert p.fullmatch('{"name":"a","age":1}') and not p.fullmatch('{"age":1,"name":"a"}')


def test_any_order_refuses_duplicate_and_missing_keys():
    p = re.compile(build_regex_from_schema(dict(PERSON, additionalProperties=False), property_order="any"))
    assert p.fullmatch(raw(("age", 1), ("name", "a")))
    assert not p.fullmatch(raw(("name", "a"), ("age", 1), ("name", "b")))
    assert not p.fullmatch(raw(("age", 1), ("age", 2), ("name", "b")))
    assert not p.fullmatch(raw(("age", 1), ("ok", True)))
    assert not p.fullmatch(raw(("name", "a"), ("extra", 1)))


@pytest.mark.parametrize("lo,hi", [(0, 1), (2, None), (2, 3), (4, 4), (3, 2)])
def test_any_order_with_property_counts(lo, hi):
    schema = dict(PERSON, additionalProperties={"type": "null"}, minProperties=lo)
    if hi is not None:
        schema["maxProperties"] = hi
    instances = PERSON_INSTANCES + [{"name": "b", "x": None, "y": None}, {"name": "b", "x": None, "ok": True, "age": 1}]
    try:
        regex = build_regex_from_schema(schema, property_order="any")
    except UnsupportedSchemaError as exc:
        assert lo > hi and "accepts no value" in str(exc)
        return
    check_any_order(schema, instances, regex)


def test_any_order_many_keys_uses_lookaheads_and_stays_exact():
    names = [f"k{i}" for i in range(9)]
    schema = {"type": "object", "properties": {n: {"type": "integer"} for n in names}, "required": ["k0", "k4"],
              "additionalProperties": {"type": "string"}}
    regex = build_regex_from_schema(schema, property_order="any")
    assert "(?!" in regex  # written with lookaheads (the lookahead-free text would pass its size bound)
    p = re.compile(regex)
    rnd = random.Random(13)
    for _ in range(1500):
        keys = [n for n in names if rnd.random() < 0.5] + rnd.sample(["x", "k1", "k4", "y"], rnd.randint(0, 2))
        rnd.shuffle(keys)
        members = [(k, rnd.choice([1, "s"])) for k in keys]
        want = len(set(keys)) == len(keys) and valid(schema, dict(members))
        assert (p.fullmatch(raw(*members)) is not None) == want, members


def test_any_order_small_objects_are_lookahead_free_through_a_guide():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"enum": ["x", "y"]}},
              "required": ["a"], "additionalProperties": False}
    regex = build_regex_from_schema(schema, property_order="any")
    assert "(?" not in regex.replace("(?:", "")
    chars = sorted(set('{}[]:," abxy0123456789-'))
    vocab = Vocabulary(0, {"<eos>": 0, **{c: i + 1 for i, c in enumerate(chars)}})
    ids = {c: i + 1 for i, c in enumerate(chars)}
    guide = Guide.from_json_schema(schema, vocab, property_order="any")

    def accepts(text: str) -> bool:
        guide.reset()
        for c in text:
            if ids[c] not in guide.get_tokens():
                return False
            guide.advance(ids[c])
        return 0 in guide.get_tokens()

    for text in ['{"a":1,"b":"x"}', '{"b":"y","a":-2}', '{"a":0}', '{"b":"x"}', '{"a":1,"a":2}', '{"b":"x","a":1,"b":"y"}']:
        assert accepts(text) == (re.fullmatch(regex, text) is not None)
    assert accepts('{"b":"y","a":-2}') and not accepts('{"a":1,"a":2}')


def test_any_order_nested_objects_and_arrays():
    schema = {"type": "object", "properties": {
        "meta": {"type": "object", "properties": {"u": {"type": "string"}, "v": {"type": "integer"}},
                 "required": ["v"], "additionalProperties": False},
        "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["meta"]}
    check_any_order(schema, [{"meta": {"v": 1, "u": "s"}, "tags": ["a"]}, {"tags": [], "meta": {"u": "s"}},
                             {"meta": {"v": 1}, "z": {"q": 1}}])
    p = re.compile(build_regex_from_schema(schema, property_order="any"))
    assert p.fullmatch('{"tags":[],"meta":{"u":"s","v":2}}') and not p.fullmatch('{"meta":{"v":1,"v":2}}')


def test_any_order_refuses_too_many_declared_properties():
    schema = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(13)}}
    with pytest.raises(UnsupportedSchemaError, match=r"13 declared properties.*property_order='schema'") as info:
        build_regex_from_schema(schema, property_order="any")
    assert info.value.keyword == "properties"
    build_regex_from_schema(schema)  # schema order has no such limit


def test_any_order_on_the_grammar_path():
    """Written out per set of keys seen (value_checks=False: the grammar alone is exact), and as a
    repetition of members with the keys checked beside it (CompiledSchema.accepts)."""
    schema = dict(PERSON, additionalProperties={"type": "null"})
    checked = compile_json_schema(schema, path="engine", property_order="any")
    assert checked.checks is not None and checked.checks.keys_taken
    compiled = compile_json_schema(schema, path="engine", property_order="any", value_checks=False)
    assert compiled.checks is None
    parser = lark_parser(compiled)

    def accepts(text: str) -> bool:
        try:
            parser.parse(text)
        except lark.exceptions.LarkError:
            return False
        return True

    for x in PERSON_INSTANCES + [{"name": "b", "x": None, "ok": True}]:
        for text in orders(x):
            assert accepts(text) == valid(schema, x), text
            assert checked.accepts(text) == valid(schema, x), text
    assert not accepts(raw(("name", "a"), ("name", "b")))
    assert not checked.accepts(raw(("name", "a"), ("name", "b")))


def test_any_order_recursive_schema_takes_the_engine_path():
    tree = {"$defs": {"n": {"type": "object", "properties": {"v": {"type": "integer"},
                                                             "kids": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
                            "required": ["v"], "additionalProperties": False}}, "$ref": "#/$defs/n"}
    compiled = compile_json_schema(tree, property_order="any", value_checks=False)
    assert compiled.path == "engine"
    assert compiled.accepts('{"kids":[{"v":2},{"kids":[],"v":3}],"v":1}')
    assert not compiled.accepts('{"v":1,"v":2}')
    checked = compile_json_schema(tree, property_order="any")  # (the keys checked beside the grammar)
    assert checked.path == "engine" and checked.checks.keys_taken
    assert checked.accepts('{"kids":[{"v":2},{"kids":[],"v":3}],"v":1}')
    assert not checked.accepts('{"v":1,"v":2}') and not checked.accepts('{"kids":[{"kids":[]}],"v":1}')


# -- argument checks --------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["Any", "sorted", None, 1, ["any"]])
def test_property_order_argument_checks(bad):
    calls = [
        lambda: build_regex_from_schema({}, property_order=bad),
        lambda: compile_json_schema({}, property_order=bad),
        lambda: tokenguide.build_regex_from_schema({"type": "object"}, property_order=bad),
        lambda: Guide.from_json_schema({}, Vocabulary(0, {"<eos>": 0, "a": 1}), property_order=bad),
        lambda: RegexGuide.from_json_schema({}, Vocabulary(0, {"<eos>": 0, "a": 1}), property_order=bad),
        lambda: Index.from_json_schema({}, Vocabulary(0, {"<eos>": 0, "a": 1}), property_order=bad),
    ]
    for call in calls:
        with pytest.raises(ArgumentError, match=r"property_order must be 'schema' .* or 'any'"):
            call()


def test_cli_property_order(tmp_path, capsys):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}))
    vocab = tmp_path / "vocab.json"
    vocab.write_text(json.dumps({**{c: i for i, c in enumerate('{}:,"ab0123456789')}, "<|endoftext|>": 99}))
    out = tmp_path / "x.outlines"
    assert cli_main(["build", "--json-schema", str(schema), "--property-order", "any", "--vocab", str(vocab),
                     "-o", str(out)]) == 0, capsys.readouterr().err
    index = Index.load(str(out))
    walk = index.initial_state
    for c in '{"b":1,"a":2}':
        walk = index.get_next_state(walk, '{}:,"ab0123456789'.index(c))
    assert walk is not None and index.is_final_state(walk)
    capsys.readouterr()
    assert cli_main(["build", "--regex", "a", "--property-order", "any", "--vocab", str(vocab),
                     "-o", str(tmp_path / "y.outlines")]) == 1
    assert "--property-order applies to --json-schema only" in capsys.readouterr().err
    assert cli_main(["build", "--json-schema", str(schema), "--property-order", "random", "--vocab", str(vocab),
                     "-o", str(tmp_path / "z.outlines")]) == 2
    assert "invalid choice: 'random'" in capsys.readouterr().err


# -- patternProperties with properties and additionalProperties -----------------------------------------


KEYS = ["a", "b", "x-a", "x-b", "x-", "ab", "xb", "1", "12", "", "x-1", "b1"]
VALUES = [None, True, 1, -1, "s", "long string", [1]]


def random_objects(rnd: random.Random, n: int, keys=KEYS) -> list[dict]:
    out = []
    for _ in range(n):
        ks = rnd.sample(keys, rnd.randint(0, 3))
        out.append({k: rnd.choice(VALUES) for k in ks})
    return out


PATTERN_SCHEMAS = [
    # declared + one pattern + additionalProperties schema
    {"properties": {"a": {"type": "integer"}}, "patternProperties": {"^x-": {"type": "string"}},
     "additionalProperties": {"type": "null"}},
    # a declared name also matched by a pattern takes both schemas
    {"properties": {"x-a": {"type": "string"}, "b": {}}, "patternProperties": {"^x-": {"maxLength": 4}},
     "additionalProperties": False},
    # overlapping patterns with different schemas: a key matching both takes both
    {"patternProperties": {"^x": {"type": ["string", "integer"]}, "b$": {"type": ["integer", "null"]}},
     "additionalProperties": {"type": "boolean"}},
    # patterns with different schemas, additionalProperties false
    {"properties": {"a": {"type": "boolean"}}, "patternProperties": {"^[0-9]+$": {"type": "integer"},
                                                                     "^x-": {"type": "string"}},
     "additionalProperties": False},
    # additionalProperties true beside a pattern (its keys still take the pattern's schema)
    {"properties": {"ab": {"type": "string"}}, "patternProperties": {"b": {"type": "string"}}},
    # required names not declared, matched by a pattern
    {"required": ["x-a"], "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "integer"}},
    # a pattern that matches nothing, one that matches everything
    {"properties": {"a": {}}, "patternProperties": {"[^\\s\\S]": {"type": "null"}, "": {"not": {"type": "array"}}},
     "additionalProperties": {"type": "integer"}},
]


@pytest.mark.parametrize("i", range(len(PATTERN_SCHEMAS)))
def test_pattern_properties_exact(i):
    schema = {"type": "object", **PATTERN_SCHEMAS[i]}
    rnd = random.Random(i)
    check_any_order(schema, random_objects(rnd, 150))
    # schema order: declared first (in the schema's order), then the others
    p = re.compile(build_regex_from_schema(schema))
    declared = list(schema.get("properties", {})) + [r for r in schema.get("required", [])
                                                     if r not in schema.get("properties", {})]
    for x in random_objects(rnd, 150):
        ordered = {k: x[k] for k in declared if k in x} | {k: v for k, v in x.items() if k not in declared}
        assert (p.fullmatch(dumps(ordered)) is not None) == valid(schema, x), (schema, ordered)


def test_pattern_properties_prefer_lookahead_free_regexes():
    # one character-class pattern: its complement is a plain regex; a disjoint pattern needs no difference
    r = build_regex_from_schema({"type": "object", "patternProperties": {"^[0-9]+$": {"type": "integer"}},
                                 "additionalProperties": {"type": "string"}})
    assert "(?!" not in r and "(?=" not in r
    r = build_regex_from_schema({"type": "object", "patternProperties": {"^[0-9]+$": {"type": "integer"},
                                                                         "^[a-z]+$": {"type": "string"}},
                                 "additionalProperties": False})
    assert "(?!" not in r and "(?=" not in r
    r = build_regex_from_schema({"type": "object", "properties": {"id": {}},
                                 "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False})
    assert "(?!" not in r and "(?=" not in r


def test_key_lookaheads_on_the_grammar_path():
    # keys that need a lookahead are written without one from their automaton: same language
    for i in range(len(PATTERN_SCHEMAS)):
        schema = {"type": "object", **PATTERN_SCHEMAS[i]}
        regex = re.compile(build_regex_from_schema(schema))
        parser = lark_parser(compile_json_schema(schema, path="engine"))
        declared = list(schema.get("properties", {}))
        for x in random_objects(random.Random(i), 150):
            text = dumps({k: x[k] for k in declared if k in x} | {k: v for k, v in x.items() if k not in declared})
            try:
                parser.parse(text)
                got = True
            except lark.exceptions.LarkError:
                got = False
            assert got == valid(schema, x) == (regex.fullmatch(text) is not None), (schema, text)
    # too large an automaton to write without one: refused by keyword, ignored when lenient
    schema = {"type": "object", "properties": {"a": {}}, "patternProperties": {"^x-.{0,300}$": {"type": "string"}},
              "additionalProperties": {"type": "null"}}
    with pytest.raises(UnsupportedSchemaError, match="lookahead.*path='regex'") as info:
        compile_json_schema(schema, path="engine")
    assert info.value.keyword == "patternProperties"
    with pytest.warns(UserWarning, match="patternProperties"):
        compile_json_schema(schema, path="engine", lenient=True)
    # the lookahead-free combinations stay on the grammar path
    cases = [
        ({"properties": {"id": {"type": "string"}}, "patternProperties": {"^[0-9]+$": {"type": "integer"}},
          "additionalProperties": False}, '{"id":"a","12":3}', ['{"id":"a","12":true}', '{"x":1}', '{"id":1}']),
        ({"patternProperties": {"^[0-9]+$": {"type": "integer"}}, "additionalProperties": {"type": "boolean"}},
         '{"12":3,"x":true}', ['{"12":true}', '{"x":1}']),
    ]
    for extra, good, bads in cases:
        grammar = compile_json_schema({"type": "object", **extra}, path="engine")
        parser = lark_parser(grammar)
        parser.parse(good)
        for bad in bads:
            with pytest.raises(lark.exceptions.LarkError):
                parser.parse(bad)


def test_too_many_pattern_schemas_are_refused():
    schema = {"type": "object", "patternProperties": {f"^{c}": {"maxLength": i} for i, c in enumerate("abcde")}}
    with pytest.raises(UnsupportedSchemaError, match="5 patternProperties with different schemas") as info:
        build_regex_from_schema(schema)
    assert info.value.pointer == "#/patternProperties"


# -- propertyNames with declared properties ---------------------------------------------------------------


PROPERTY_NAMES_SCHEMAS = [
    {"properties": {"a": {"type": "integer"}, "xb": {}}, "propertyNames": {"maxLength": 1}},
    {"properties": {"a": {"type": "integer"}}, "propertyNames": {"pattern": "^[a-z]+$"},
     "additionalProperties": {"type": "string"}},
    {"properties": {"b": {}}, "required": ["b"], "propertyNames": {"enum": ["a", "b", "x-a"]},
     "patternProperties": {"^x-": {"type": "null"}}},
    {"properties": {"ab": {"type": "string"}}, "propertyNames": {"not": {"const": "b"}},
     "additionalProperties": {"type": "integer"}},
]


@pytest.mark.parametrize("i", range(len(PROPERTY_NAMES_SCHEMAS)))
def test_property_names_with_declared_properties(i):
    schema = {"type": "object", **PROPERTY_NAMES_SCHEMAS[i]}
    try:
        regex = build_regex_from_schema(schema, property_order="any")
    except UnsupportedSchemaError as exc:  # a propertyNames schema the regex path cannot express
        pytest.fail(f"unsupported: {exc}")
    check_any_order(schema, random_objects(random.Random(100 + i), 200), regex)


# -- lookahead regexes through tokenguide's own compiler ---------------------------------------------------


CHARS = sorted(set('{}[]:," abkxyz-0123456789nuls'))
IDS = {c: i + 1 for i, c in enumerate(CHARS)}


def guide_accepts(guide, text: str) -> bool:
    guide.reset()
    for c in text:
        if IDS[c] not in guide.get_tokens():
            return False
        guide.advance(IDS[c])
    return 0 in guide.get_tokens()


def test_lookahead_regexes_through_guides():
    vocab = Vocabulary(0, {"<eos>": 0, **IDS})
    pattern = {"type": "object", **PATTERN_SCHEMAS[0]}
    many = {"type": "object", "properties": {f"k{i}": {"type": "integer"} for i in range(7)}, "required": ["k0"],
            "additionalProperties": False}
    cases = [
        (pattern, "schema", ['{"a":1,"x-b":"s","z":null}', '{"x-b":null}', '{"z":"s"}', '{"a":1,"a":null}',
                             '{"x":null}', '{"x-":""}', '{"a":null}']),
        (many, "any", ['{"k3":1,"k0":2}', '{"k0":1,"k0":2}', '{"k1":1}', '{"k0":1,"k3":2,"k1":3,"k3":4}',
                       '{"k6":1,"k5":1,"k4":1,"k3":1,"k2":1,"k1":1,"k0":1}']),
    ]
    for schema, order, texts in cases:
        regex = build_regex_from_schema(schema, property_order=order)
        assert "(?!" in regex
        guide = Guide.from_json_schema(schema, vocab, property_order=order)
        for text in texts:
            assert guide_accepts(guide, text) == (re.fullmatch(regex, text) is not None), text


def test_any_order_lookaheads_see_only_this_objects_keys():
    # nested values hold the same key names, brackets and commas inside strings: only top-level
    # keys count as repeats or as the required key being present
    names = [f"k{i}" for i in range(7)]
    inner = {"type": "object", "properties": {"k0": {"type": "string"}, "k1": {"type": "array"}}}
    schema = {"type": "object", "properties": {n: inner if n in ("k2", "k3") else {"type": "string"} for n in names},
              "required": ["k0"], "additionalProperties": {"type": "array", "items": {"type": "string"}}}
    regex = build_regex_from_schema(schema, property_order="any")
    assert '[^"\\[\\]{}]' in regex  # the key scanner, not whole-member skips
    p = re.compile(regex)
    tricky = ['a,"k0":"b', "]}{[", '"k1"', ""]
    rnd = random.Random(7)
    for _ in range(600):
        keys = [n for n in names if rnd.random() < 0.4] + rnd.sample(["k0", "k2", "x", "y"], rnd.randint(0, 2))
        rnd.shuffle(keys)
        members = []
        for k in keys:
            if k in ("k2", "k3"):
                v = {"k1": [rnd.choice(tricky)], "k0": rnd.choice(tricky)} if rnd.random() < 0.7 else {"k0": 1}
            elif k in ("x", "y"):
                v = [rnd.choice(tricky)]
            else:
                v = rnd.choice(tricky)
            members.append((k, v))
        want = len(set(keys)) == len(keys) and valid(schema, dict(members))
        assert (p.fullmatch(raw(*members)) is not None) == want, members


def test_any_order_with_unbalanced_brace_keys_skips_whole_members():
    names = ["a{", "b[", "c", "d}", "e", "f", "g"]
    schema = {"type": "object", "properties": {n: {"type": "integer"} for n in names}, "required": ["c"],
              "additionalProperties": False}
    regex = build_regex_from_schema(schema, property_order="any")
    assert "(?!" in regex and '[^"\\[\\]{}]' not in regex
    p = re.compile(regex)
    rnd = random.Random(3)
    for _ in range(400):
        keys = [n for n in names if rnd.random() < 0.5] + rnd.sample(["c", "a{"], rnd.randint(0, 1))
        rnd.shuffle(keys)
        members = [(k, 1) for k in keys]
        want = len(set(keys)) == len(keys) and valid(schema, dict(members))
        assert (p.fullmatch(raw(*members)) is not None) == want, members


def test_any_order_grammar_path_refuses_many_declared_properties():
    schema = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(9)}}
    with pytest.raises(UnsupportedSchemaError, match=r"at most 8 declared properties.*has 9.*path='regex'") as info:
        compile_json_schema(schema, path="engine", property_order="any", value_checks=False)
    assert info.value.keyword == "properties" and info.value.pointer == "#"
    assert re.fullmatch(compile_json_schema(schema, path="regex", property_order="any", value_checks=False).regex,
                        '{"p8":1,"p0":2}')
    checked = compile_json_schema(schema, path="engine", property_order="any")  # (keys checked beside it)
    assert checked.accepts('{"p8":1,"p0":2}') and not checked.accepts('{"p8":1,"p0":2,"p8":3}')


def test_grammar_path_keeps_keys_sharing_a_prefix_whole():
    # keys "k0"/"k1" and the other keys all start with '"': without marks Python's parser would
    # factor the prefix into a terminal of its own, which the grammar check refuses
    schema = {"type": "object", "properties": {"k0": {"type": "integer"}, "k1": {"type": "integer"}},
              "additionalProperties": {"type": "string"}}
    for order in ("schema", "any"):
        parser = lark_parser(compile_json_schema(schema, path="engine", property_order=order))
        for x in [{"k0": 1, "k1": 2}, {"k1": 2}, {"k0": 1, "z": "s"}, {"k": "s"}, {"k0": "s"}, {"z": 1}, {}]:
            texts = orders(x) if order == "any" else [dumps(x)]
            for text in texts:
                try:
                    parser.parse(text)
                    got = True
                except lark.exceptions.LarkError:
                    got = False
                assert got == valid(schema, x), (order, text)
