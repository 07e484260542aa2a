"""The pure parts of benchmarks/bench_json_schema_unseen.py: Kubernetes ref bundling, the
annotation stripping that feeds hypothesis-jsonschema, and the mutations kept only when jsonschema
rejects them. Offline; the parts that read the installed corpus packages skip without them."""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from benchmark_modules import load

pytestmark = pytest.mark.skipif(sys.platform == "emscripten", reason="benchmarks are not run in Pyodide")

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (the oracle) is not installed")


@pytest.fixture(scope="module")
def unseen():
    return load("bench_json_schema_unseen")


DEFS = {
    "io.k8s.Meta": {"type": "object", "properties": {"name": {"type": "string"},
                                                     "owner": {"$ref": "#/$defs/io.k8s.Owner"}}},
    "io.k8s.Owner": {"type": "object", "properties": {"uid": {"type": "string"}}, "required": ["uid"]},
    "io.k8s.Unused": {"type": "integer"},
    "a/b~c": {"type": "boolean"},
}


def test_bundle_copies_reached_definitions_and_rewrites_refs(unseen):
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
              "properties": {"metadata": {"$ref": "/api/_definitions.json#/$defs/io.k8s.Meta"},
                             "flag": {"$ref": "/api/_definitions.json#/$defs/a~1b~0c"}}}
    out = unseen.bundle_definitions(schema, DEFS)
    assert out["properties"]["metadata"]["$ref"] == "#/$defs/io.k8s.Meta"
    assert out["properties"]["flag"]["$ref"] == "#/$defs/a~1b~0c"
    assert sorted(out["$defs"]) == ["a/b~c", "io.k8s.Meta", "io.k8s.Owner"]  # transitively, not the unused one
    assert schema["properties"]["metadata"]["$ref"].startswith("/api/")  # the input is left alone
    v = jsonschema.Draft202012Validator(out)  # self-contained: resolves without any other document
    assert v.is_valid({"metadata": {"owner": {"uid": "x"}}, "flag": True})
    assert not v.is_valid({"metadata": {"owner": {}}})
    assert not v.is_valid({"flag": 1})


def test_bundle_missing_definition_raises(unseen):
    with pytest.raises(KeyError):
        unseen.bundle_definitions({"$ref": "/api/_definitions.json#/$defs/nope"}, DEFS)


def test_bundle_leaves_other_refs(unseen):
    schema = {"$defs": {"local": {"type": "string"}}, "$ref": "#/$defs/local",
              "properties": {"x": {"$ref": "other.json#/$defs/io.k8s.Meta"}}}
    out = unseen.bundle_definitions(schema, DEFS)
    assert out["properties"]["x"]["$ref"] == "other.json#/$defs/io.k8s.Meta"
    assert out["$defs"] == {"local": {"type": "string"}}


def test_without_annotations_keeps_properties_named_like_annotations(unseen):
    schema = {"description": "text", "title": "T", "examples": [1], "x-kubernetes-list-type": "atomic",
              "type": "object", "required": ["description"],
              "properties": {"description": {"type": "string", "description": "d"},
                             "title": {"type": "integer"}, "x-ext": {"type": "null"}}}
    out = unseen.without_annotations(schema)
    assert out == {"type": "object", "required": ["description"],
                   "properties": {"description": {"type": "string"}, "title": {"type": "integer"},
                                  "x-ext": {"type": "null"}}}


SCHEMA = {"type": "object", "additionalProperties": False, "required": ["n", "tags"],
          "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 10},
                         "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}, "maxItems": 2},
                         "note": {"type": ["string", "null"]}}}


def test_mutations_cover_the_kinds(unseen):
    kinds = {k for k, _, _ in unseen.mutations({"n": 3, "tags": ["a"], "note": None})}
    assert kinds == {"drop key", "undeclared key", "other type", "out of range", "fractional",
                     "string length", "array length"}


def test_invalid_instances_are_all_rejected_by_jsonschema(unseen):
    is_valid = jsonschema.Draft202012Validator(SCHEMA).is_valid
    valid = [{"n": 3, "tags": ["a"], "note": "x"}, {"n": 10, "tags": [], "note": None}]
    assert all(is_valid(x) for x in valid)
    out = unseen.invalid_instances(valid, is_valid, 50)
    assert out, "the schema has many invalid neighbours"
    texts = [json.dumps(m, sort_keys=True) for _, _, m in out]
    assert len(set(texts)) == len(texts)
    assert not any(is_valid(m) for _, _, m in out)
    # neighbours that stay valid are not kept: dropping the optional "note" or nulling it
    assert {"n": 3, "tags": ["a"]} not in [m for _, _, m in out]
    kinds = {k for k, _, _ in out}
    assert {"drop key", "undeclared key", "other type", "out of range", "string length"} <= kinds
    first = unseen.invalid_instances(valid, is_valid, 4)
    assert len({k for k, _, _ in first}) == 4  # round-robin over kinds: four different ones first


def test_invalid_instances_none_when_every_mutation_stays_valid(unseen):
    assert unseen.invalid_instances([{"a": 1}, [1, "x"]], lambda x: True, 10) == []


def test_kubernetes_corpus_is_self_contained(unseen):
    if importlib.util.find_spec("kubernetes_validate") is None:
        pytest.skip("kubernetes-validate is not installed (pip install kubernetes-validate, the bench extra)")
    entries = unseen.kubernetes_corpus(every=50)
    assert entries
    for name, schema, skip in entries:
        assert skip == ""
        text = json.dumps(schema)
        assert "_definitions.json" not in text, name
        jsonschema.validators.validator_for(schema).check_schema(schema)
        assert not list(unseen.external_refs(schema))


def test_kubernetes_variants_differ_in_additional_properties(unseen):
    if importlib.util.find_spec("kubernetes_validate") is None:
        pytest.skip("kubernetes-validate is not installed (pip install kubernetes-validate, the bench extra)")
    strict = dict((n.split("/")[1], s) for n, s, _ in unseen.kubernetes_corpus(every=50))
    open_ = dict((n.split("/")[1], s) for n, s, _ in unseen.kubernetes_corpus(every=50, variant="open"))
    assert strict and set(strict) == set(open_)
    assert all(n.split("/")[0].endswith("-open") for n, _, _ in unseen.kubernetes_corpus(every=50, variant="open"))
    name = sorted(strict)[0]
    assert strict[name].get("additionalProperties") is False
    assert open_[name].get("additionalProperties", True) is not False


def test_schemastore_corpus_flags_remote_refs(unseen):
    if importlib.util.find_spec("check_jsonschema") is None:
        pytest.skip("check-jsonschema is not installed (pip install check-jsonschema, the bench extra)")
    entries = unseen.schemastore_corpus()
    assert len(entries) >= 20
    for name, schema, skip in entries:
        assert bool(skip) == bool(list(unseen.external_refs(schema))), name


def test_valid_instances_are_valid(unseen):
    if importlib.util.find_spec("hypothesis_jsonschema") is None:
        pytest.skip("hypothesis-jsonschema is not installed (pip install hypothesis-jsonschema, the bench extra)")
    is_valid = jsonschema.Draft202012Validator(SCHEMA).is_valid
    got, reason = unseen.valid_instances(SCHEMA, 4, is_valid)
    assert reason == "" and 1 <= len(got) <= 4
    assert all(is_valid(x) for x in got)
    assert unseen.valid_instances(SCHEMA, 4, is_valid) == (got, "")  # derandomized
    none, why = unseen.valid_instances(SCHEMA, 4, lambda x: False)
    assert none == [] and "valid for jsonschema" in why


def test_pattern_dialect_flags_unicode_digits_only(unseen):
    schema = {"type": "object", "properties": {"t": {"type": "string", "pattern": "^\\d+s$"}}}
    assert unseen.pattern_dialect(schema, {"t": "\U0001d7fds"})  # MATHEMATICAL DIGIT SEVEN: Unicode \d only
    assert not unseen.pattern_dialect(schema, {"t": "7s"})
    assert not unseen.pattern_dialect(schema, {"u": "\U0001d7fds"})  # no pattern applies


def test_pattern_dialect_flags_a_dot_that_took_a_line_terminator(unseen):
    """GitHub workflows' `uses` pattern: Python's `.` takes "\r", ECMA-262's stops there."""
    schema = {"properties": {"uses": {"type": "string", "pattern": "^(.+\\/)+(.+)\\.(ya?ml)(@.+)?$"}}}
    assert unseen.pattern_dialect(schema, {"uses": "a\r/b.yaml"})
    assert unseen.pattern_dialect(schema, {"uses": "a\u2028/b.yaml"})
    assert not unseen.pattern_dialect(schema, {"uses": "a\x1f/b.yaml"})
    assert unseen.ecma_dot("a.[.]\\.") == "a[^\\n\\r\\u2028\\u2029][.]\\."


def test_pattern_dialect_reads_member_names_as_ecma_does(unseen):
    """AWS EMR's ConfigurationProperties: additionalProperties false beside `^.*$` names. A name
    holding "\\r" matches in Python's re, not in ECMA-262: such an instance is valid only in re's
    dialect. Likewise a patternProperties schema applied to a name only Unicode `\\d` matches."""
    closed = {"type": "object", "patternProperties": {"^.*$": {"type": "string"}}, "additionalProperties": False}
    assert jsonschema.Draft7Validator(closed).is_valid({"a\rb": "x"})
    assert unseen.pattern_dialect(closed, {"a\rb": "x"})
    assert not unseen.pattern_dialect(closed, {"ab": "x"})
    extra = {"type": "object", "patternProperties": {"^\\d+$": {"type": "integer"}},
             "additionalProperties": {"type": "string"}}
    assert jsonschema.Draft7Validator(extra).is_valid({"\u0661": 1})  # ARABIC-INDIC ONE: Unicode \d only
    assert unseen.pattern_dialect(extra, {"\u0661": 1})  # ECMA: an additional member, not a string
    assert not unseen.pattern_dialect(extra, {"1": 1, "x": "y"})


TREE = {"$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"},
                                                            "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
        "$ref": "#/$defs/node", "required": ["v"]}


def test_inline_local_refs_cuts_recursion_to_a_subset(unseen):
    out = unseen.inline_local_refs(TREE, repeat=2)
    text = json.dumps(out)
    assert "$ref" not in text and "$defs" not in text
    full = jsonschema.Draft202012Validator(TREE)
    cut = jsonschema.Draft202012Validator(out)
    shallow = {"v": 1, "kids": [{"v": 2, "kids": []}]}
    deep = {"v": 1, "kids": [{"v": 2, "kids": [{"v": 3, "kids": [{"v": 4}]}]}]}
    assert full.is_valid(shallow) and cut.is_valid(shallow)
    assert full.is_valid(deep) and not cut.is_valid(deep)  # past the repeat limit: refused, never widened
    for bad in ({"kids": []}, {"v": "x"}, {"v": 1, "kids": [{"v": "x"}]}):  # the sibling `required` kept
        assert not full.is_valid(bad) and not cut.is_valid(bad)


def test_inline_local_refs_draft7_ignores_ref_siblings_and_budget(unseen):
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"s": {"type": "string"}},
              "properties": {"a": {"$ref": "#/definitions/s", "maxLength": 1}}}
    assert unseen.inline_local_refs(schema) == {"$schema": schema["$schema"], "properties": {"a": {"type": "string"}}}
    with pytest.raises(unseen.InlineTooLarge):
        unseen.inline_local_refs(TREE, repeat=50, budget=100)


@pytest.fixture(scope="module")
def cfn():
    return load("cloudformation_corpus")


def test_generation_patterns_are_a_subset_re_can_read(cfn):
    """Property escapes become a few of their characters (a class, or inside a class the
    characters alone): a subset of the language outside negated classes (inside one, a
    superset: the oracle judges every generated instance anyway); an escaped backslash before
    `p` stays as it is."""
    pytest.importorskip("regex", reason="the regex module (the oracle for property escapes) is not installed")
    import re

    assert re.compile(cfn.generation_pattern("[^\\p{N}]"))
    for pattern in ("^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$", "^\\p{Lu}\\P{L}+$", "x\\p{gc=Nd}y"):
        assert cfn.has_property_escape(pattern)
        generated = re.compile(cfn.generation_pattern(pattern))
        for s in ("ab c_1", "Aé", "x5y", "a", "Q!!", "٣"):
            if generated.search(s):
                assert cfn.property_search(pattern, s), (pattern, s)
    assert not cfn.has_property_escape("a\\\\p{L}")
    assert cfn.generation_pattern("a\\\\p{L}") == "a\\\\p{L}"


def test_the_oracle_reads_property_escapes_with_the_end_of_input_dollar(cfn):
    pytest.importorskip("regex", reason="the regex module (the oracle for property escapes) is not installed")
    fuzz = load("fuzz_json_schema")
    valid = fuzz.oracle({"pattern": "^[\\p{L}\\p{Z}]+$"})
    assert valid("héllo wörld") and not valid("h3llo") and not valid("hello\n") and valid(5)
    assert fuzz.oracle({"type": "string", "pattern": "^a+$"})("aa") and not fuzz.oracle({"pattern": "^a+$"})("b")


def test_the_oracle_reads_property_escapes_in_member_names(cfn):
    """patternProperties and additionalProperties find member names with `\\p{L}` too (jsonschema's
    own raised re.error out of the benchmark: AWS::ApiGateway::UsagePlan's first slice)."""
    pytest.importorskip("regex", reason="the regex module (the oracle for property escapes) is not installed")
    fuzz = load("fuzz_json_schema")
    closed = fuzz.oracle({"type": "object", "patternProperties": {"^\\p{L}+$": {"type": "integer"}},
                          "additionalProperties": False})
    assert closed({"abc": 1}) and closed({"é": 2}) and closed({})
    assert not closed({"abc": "x"}) and not closed({"a1": 1})
    typed = fuzz.oracle({"type": "object", "properties": {"a": {}}, "patternProperties": {"^x": {"type": "integer"}},
                         "additionalProperties": {"type": "string"}})
    assert typed({"a": [], "x1": 1, "y": "s"}) and not typed({"y": 1}) and not typed({"x": "s"})


@pytest.mark.skipif(importlib.util.find_spec("cfnlint") is None, reason="cfn-lint (the bench extra) is not installed")
def test_cloudformation_corpus_takes_every_nth_and_flags_remote_refs(unseen, cfn):
    entries = cfn.cloudformation_corpus(300, 1, unseen.external_refs)
    assert entries and all(name.startswith("cloudformation/AWS::") for name, _, _ in entries)
    assert cfn.cloudformation_corpus(0, 0, unseen.external_refs) == []
    for _, schema, skip in entries:
        assert (skip != "") == any(True for _ in unseen.external_refs(schema))
