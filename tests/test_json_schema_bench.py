"""No wrong answers on a deterministic sample of the JSONSchemaBench/MaskBench schemas.

Reads ../shared/data/jsonschemabench (beside the repository) and skips when it is absent. Every
40th file: the regex is built or a named UnsupportedSchemaError is raised; valid instances must
fullmatch their compact serialization, invalid ones must not. Valid instances rejected only
because they nest deeper than the documented limits ("depth", re-checked by rebuilding deeper)
are tolerated. The bench's own rules (key reordering through the schema's structure, guide
build failures counting as unsupported, the guide check) are tested on small synthetic schemas.
"""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

import benchmark_modules
import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "jsonschemabench"
EVERY = 40
LIMIT_S = 10.0


@pytest.fixture(scope="module")
def bench():
    if not DATA.is_dir():
        pytest.skip(f"JSONSchemaBench data not found at {DATA}")
    return benchmark_modules.load("bench_json_schema")


def test_sample_has_no_wrong_answers(bench):
    files = sorted(DATA.glob("*.json"))[::EVERY]
    assert files, "no schema files"
    old = signal.signal(signal.SIGALRM, bench.on_alarm)
    try:
        results = [bench.check_file((str(f), LIMIT_S, False, 0.0)) for f in files]
    finally:
        signal.signal(signal.SIGALRM, old)
    wrong = [(r["file"], r.get("detail")) for r in results if r["status"] == "wrong"]
    assert not wrong, wrong
    judged = [r for r in results if r["status"] != "no-tests"]
    passed = sum(r["status"] == "pass" for r in judged)
    unsupported = [r for r in judged if r["status"] == "unsupported"]
    assert all(r.get("keyword") and r.get("detail") for r in unsupported)
    # the sample must actually exercise the builder, not skip everything
    assert passed >= len(judged) // 2, (passed, len(judged))


# -- the bench's own judging rules, on small synthetic schemas (no shared data needed) ----------


@pytest.fixture(scope="module")
def judge():
    return benchmark_modules.load("bench_json_schema")


def _keys(value):
    """The key order of every object in `value`, depth first."""
    if isinstance(value, dict):
        return [list(value)] + [k for v in value.values() for k in _keys(v)]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v)]
    return []


# A recursive tree through $defs, a oneOf whose branches are a string, the object again or an
# array of it, an allOf adding properties, and patternProperties / additionalProperties values
# that are $ref'ed objects.
TREE = {
    "$id": "https://example.com/tree.json",
    "$ref": "#/$defs/node",
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "kids": {"oneOf": [{"type": "string"}, {"$ref": "#/$defs/node"},
                                   {"type": "array", "items": {"$ref": "#/$defs/node"}}]},
            },
            "allOf": [{"properties": {"meta": {"$ref": "#/$defs/meta"},
                                      "tags": {"type": "object", "patternProperties": {"^p_": {"$ref": "#/$defs/pair"}},
                                               "additionalProperties": False}}}],
            "required": ["name"],
        },
        "meta": {
            "type": "object",
            "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
            "required": ["x"],
            "additionalProperties": {"$ref": "#/$defs/pair"},
        },
        "pair": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                 "required": ["a", "b"], "additionalProperties": False},
    },
}
TREE_VALID = {"kids": [{"meta": {"y": 2, "x": 1}, "name": "leaf"},
                       {"kids": {"kids": "end", "name": "deep", "tags": {"p_q": {"b": 4, "a": 3}},
                                 "meta": {"other": {"b": 2, "a": 1}, "x": 5}},
                        "name": "mid"}],
              "name": "root"}
TREE_ORDER = [["name", "kids"], ["name", "meta"], ["x", "y"], ["name", "kids"], ["name", "kids", "meta", "tags"],
              ["x", "other"], ["a", "b"], ["p_q"], ["a", "b"]]


def test_reorder_follows_refs_combinators_items_and_patterns_at_every_depth(judge):
    import jsonschema

    out = judge.reorder(TREE_VALID, TREE, TREE)
    assert out == TREE_VALID and _keys(out) == TREE_ORDER
    assert jsonschema.Draft202012Validator(TREE).is_valid(out)


def test_reorder_resolves_id_based_references_in_embedded_resources(judge):
    import jsonschema

    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/root.json",
              "type": "array", "prefixItems": [{"$ref": "item.json"}], "items": {"$ref": "item.json#/$defs/inner"},
              "$defs": {"item": {"$id": "item.json", "type": "object", "properties": {"p": {}, "q": {"$ref": "#pt"}},
                                 "$defs": {"inner": {"$anchor": "pt", "properties": {"u": {}, "v": {}}}}}}}
    value = [{"q": {"v": 1, "u": 2}, "x": 0, "p": 1}, {"v": 3, "u": 4}]
    out = judge.reorder(value, schema, schema)
    assert out == value and _keys(out) == [["p", "q", "x"], ["u", "v"], ["u", "v"]]
    assert jsonschema.Draft202012Validator(schema).is_valid(out)


def test_reorder_never_changes_validity(judge):
    import jsonschema

    invalid = [dict(TREE_VALID, name=3), {"kids": [{"name": "a", "meta": {"z": {"b": 1}}}], "name": "r"},
               {"kids": {"kids": [{"name": "x", "meta": {"y": "no", "x": 1}}], "name": "m"}, "name": "r"},
               {"kids": [], "name": "r", "meta": {"y": 1.5}}]
    validator = jsonschema.Draft202012Validator(TREE)
    for value in [TREE_VALID] + invalid:
        out = judge.reorder(value, TREE, TREE)
        assert out == value
        assert validator.is_valid(out) == validator.is_valid(value) == (value is TREE_VALID)


def test_reorder_anyof_branch_dependencies_and_if_then(judge):
    schema = {"type": "object", "properties": {"a": {}, "z": {}},
              "anyOf": [{"properties": {"k": {"const": 1}, "b": {}}, "required": ["k"]},
                        {"properties": {"k": {"const": 2}, "c": {}}, "required": ["k"]}],
              "dependentSchemas": {"a": {"properties": {"d": {}}}},
              "if": {"properties": {"z": {"const": 0}}, "required": ["z"]}, "then": {"properties": {"t": {}}},
              "else": {"properties": {"e": {}}}}
    value = {"t": 1, "e": 1, "c": 1, "k": 2, "d": 1, "z": 0, "a": 1, "other": 1}
    # own properties, then the branch taken (the one with k = 2) and the dependency's, then `then`'s
    assert list(judge.reorder(value, schema, schema)) == ["a", "z", "k", "c", "d", "t", "e", "other"]
    assert list(judge.reorder(dict(value, z=1), schema, schema)) == ["a", "z", "k", "c", "d", "e", "t", "other"]
    # ... which is the order tokenguide's regex takes
    from tokenguide.json_schema import compile_json_schema

    accepts = judge.acceptor_of(compile_json_schema(schema))
    for v in (value, dict(value, z=1)):
        assert accepts(judge.compact(judge.reorder(v, schema, schema))) and not accepts(judge.compact(v))


def test_reorder_of_a_self_referencing_schema_terminates(judge):
    loop = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#"}]}},
            "allOf": [{"$ref": "#"}, {"$ref": "#/$defs/a"}], "properties": {"q": {"$ref": "#"}, "p": {}}}
    value = {"p": 1, "q": {"p": 2, "q": {"q": {}, "p": 3}}}
    out = judge.reorder(value, loop, loop)
    assert out == value and _keys(out) == [["q", "p"], ["q", "p"], ["q", "p"], []]


# the tiny vocabulary the guide tests run on: every printable ASCII character, one token each
_CHARS = [chr(c) for c in range(32, 127)]


@pytest.fixture()
def tiny(judge, monkeypatch):
    """The bench's worker state with first masks on, over a one-character-per-token vocabulary."""
    from tokenguide.vocabulary import Vocabulary

    vocab = Vocabulary(0, {"<eos>": 0, **{ch: i + 1 for i, ch in enumerate(_CHARS)}})
    monkeypatch.setitem(judge.COMPARE, "first_mask", True)
    monkeypatch.setitem(judge.COMPARE, "vocab", vocab)
    encode = lambda text: [_CHARS.index(ch) + 1 for ch in text]  # noqa: E731
    monkeypatch.setitem(judge.COMPARE, "encode", encode)
    old = signal.signal(signal.SIGALRM, judge.on_alarm)
    yield encode
    signal.signal(signal.SIGALRM, old)


# `not` needs lookaheads, which the grammar path refuses: a guide over the state limit has no fallback
NOT_SCHEMA = {"type": "object", "properties": {"n": {"type": "integer", "not": {"const": 3}}}, "required": ["n"],
              "additionalProperties": False}
NOT_TESTS = [{"data": {"n": 4}, "valid": True}, {"data": {"n": 3}, "valid": False}]
# contains counted to 100 over items told apart by a lookahead: the grammar path refuses it (its
# array lexeme has over 2,000 states), so only the regex path has it
CONTAINS_SCHEMA = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array",
                   "items": {"type": "string", "maxLength": 30}, "contains": {"pattern": "^a"}, "minContains": 100}
CONTAINS_TESTS = [{"data": ["a"] * 100, "valid": True}, {"data": ["a"] * 99, "valid": False}]


def test_guide_build_failure_counts_as_unsupported(judge, tiny):
    ok = judge.judge_tokenguide(NOT_SCHEMA, NOT_TESTS, LIMIT_S)
    assert ok["status"] == "pass" and ok["path"] == "engine" and "first_mask" in ok
    # items counted by a lookahead (contains): the engine path refuses it, and the regex guide fails
    # (the engine path's refusal takes about a second of CPU: room for a loaded machine)
    failed = judge.judge_tokenguide(CONTAINS_SCHEMA, CONTAINS_TESTS, LIMIT_S * 6, guide_kwargs={"max_states": 2})
    assert failed["status"] == "unsupported" and failed["keyword"] == "StateLimitError", failed
    assert failed["guide_failed"] and "max_states" in failed["detail"]


def test_guide_with_regex_options_is_judged_on_the_engine(judge, tiny):
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"enum": ["x", "y"]}},
              "required": ["a"], "additionalProperties": False}
    tests = [{"data": {"b": "x", "a": 12}, "valid": True}, {"data": {"a": "1"}, "valid": False}]
    out = judge.judge_tokenguide(schema, tests, LIMIT_S, guide_kwargs={"lazy": False, "max_states": 3, "use_cache": False})
    assert out["status"] == "pass" and out["path"] == "engine" and "fallback" not in out


def test_no_first_mask_says_guides_were_not_built_and_timeouts_are_named(judge, capsys, monkeypatch):
    monkeypatch.delitem(judge.COMPARE, "llg_error", raising=False)
    args = argparse.Namespace(every=10, limit=20.0, no_first_mask=True, guide_check=0, show=5)
    rows = [{"file": "A.json", "tokenguide": {"status": "pass", "path": "regex"}, "llguidance": {"status": "pass"}},
            {"file": "Slow---1.json", "tokenguide": {"status": "timeout", "stage": "judge"},
             "llguidance": {"status": "timeout"}}]
    judge.compare_report(rows, args, 1.0)
    out = capsys.readouterr().out
    assert "guides were NOT built" in out and "| tokenguide | 1 (50.0%) | 0 | 0 | 1 |" in out
    assert "not checked" in out.split("| tokenguide |")[1].splitlines()[0]
    assert "tokenguide timeouts (1): Slow---1.json (judge)" in out and "llguidance timeouts (1): Slow---1.json" in out


# a small recursive schema (engine path): objects whose keys are out of order deep down
NODE = {"$ref": "#/$defs/n", "$defs": {"n": {"type": "object", "properties": {
    "v": {"type": "integer"}, "c": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
    "required": ["v"], "additionalProperties": False}}}
NODE_TESTS = [{"data": {"v": 1, "c": [{"c": [{"v": 3}], "v": 2}]}, "valid": True},
              {"data": {"v": 1, "c": [{"c": [{"v": "3"}], "v": 2}]}, "valid": False},
              {"data": {"c": [], "v": 1, "w": 0}, "valid": False}]


def test_guide_check_agrees_with_the_oracle_and_finds_a_disagreement(judge, tiny):
    out = judge.judge_tokenguide(NODE, NODE_TESTS, LIMIT_S, check_guide=True)
    assert out["status"] == "pass" and out["path"] == "engine", out
    assert out["guide_check"] == {"texts": 6, "differ": []}
    # the valid instance passes only in the schema's key order, by Lark and by the guide
    from tokenguide.guides.stateful import Guide
    from tokenguide.json_schema import compile_json_schema

    accepts = judge.acceptor_of(compile_json_schema(NODE))
    raw, canon = judge.instance_texts(NODE_TESTS[0], NODE)
    assert canon == '{"v":1,"c":[{"v":2,"c":[{"v":3}]}]}' and accepts(canon) and not accepts(raw)
    guide = Guide.from_json_schema(NODE, judge.COMPARE["vocab"])
    assert judge.guide_verdict(guide, tiny(canon)) == (True, "")
    refused, where = judge.guide_verdict(guide, tiny(raw))
    assert not refused and where.startswith("token 14 ")  # the "c" where "v" must come
    done, where = judge.guide_verdict(guide, tiny('{"v":1'))
    assert not done and where == "EOS not allowed at the end"
    # the same guide beside an oracle that accepts everything: each invalid text is a difference
    found = judge.check_with_guide(guide, lambda x: True, NODE_TESTS, NODE, tiny)
    assert found["texts"] == 6 and len(found["differ"]) == 5
    assert all("oracle accepts, guide rejects" in d for d in found["differ"])
