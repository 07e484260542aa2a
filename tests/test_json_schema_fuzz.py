"""The differential JSON Schema fuzzer (benchmarks/fuzz_json_schema.py) on fixed seeds: no wrong
answer against jsonschema on seeded random schemas and instances, and the fuzzer's own machinery
(judging, minimising, determinism) checked on cases built to fail."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import benchmark_modules
import pytest

pytest.importorskip("lark")
pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def fuzz():
    fuzz_json_schema = benchmark_modules.load("fuzz_json_schema")
    import lark.lexer

    old = lark.lexer.has_interegular
    lark.lexer.has_interegular = False  # the oracle parser, as the bench builds it
    yield fuzz_json_schema
    lark.lexer.has_interegular = old


SEEDS = range(5000, 5100)


def test_no_wrong_answers_on_seeded_schemas(fuzz):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = fuzz.run(SEEDS, limit=30.0, small=True)
    wrong = [(r["seed"], r.get("kind"), r.get("detail"), r.get("instance")) for r in results if r["status"] == "wrong"]
    assert not wrong, wrong
    timeouts = [r["seed"] for r in results if r["status"] == "timeout"]
    assert not timeouts, timeouts
    judged = [r for r in results if r["status"] in ("pass", "depth-capped ok", "depth-capped wrong")]
    assert len(judged) >= len(results) * 0.6, len(judged)  # the sample exercises the compiler, not just refusals
    assert sum(r["valid"] for r in judged) >= 5 * len(judged) and sum(r["invalid"] for r in judged) >= 5 * len(judged)
    # the engine path wherever it takes the schema; the regex path only where it refuses
    assert "engine" in {r.get("path") for r in judged} <= {"regex", "engine"}
    unsupported = [r for r in results if r["status"] == "unsupported"]
    assert all(r["keyword"] and r["detail"] for r in unsupported)


def test_judge_counts_both_kinds_of_wrong_answer(fuzz):
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
              "additionalProperties": False}
    tests = [{"data": {"a": 1}, "valid": True}, {"data": {}, "valid": False}, {"data": {"a": "x"}, "valid": False}]
    assert fuzz.instance_errors(lambda text: True, schema, tests) == [(1, "invalid accepted"), (2, "invalid accepted")]
    assert fuzz.instance_errors(lambda text: False, schema, tests) == [(0, "valid rejected")]
    accepts, compiled = fuzz.tokenguide_acceptor(schema)
    assert compiled.path == "engine" and fuzz.instance_errors(accepts, schema, tests) == []


def test_judge_reads_keys_in_schema_order(fuzz):
    """A valid instance written in another key order is judged also in the output format's order."""
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
              "additionalProperties": False}
    res = fuzz.judge_schema(schema, [{"b": "x", "a": 1}, {"a": "1"}])
    assert res["status"] == "pass" and (res["valid"], res["invalid"]) == (1, 1)


def test_oracle_checks_exact_formats_only(fuzz):
    assert not fuzz.oracle({"format": "date"})("2023-02-29") and fuzz.oracle({"format": "date"})("2024-02-29")
    assert not fuzz.oracle({"format": "ipv4"})("01.2.3.4")
    assert fuzz.oracle({"format": "uuid"})("+2345678-1234-1234-1234-123456789012")  # not checked (inexact)
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}
    assert not fuzz.oracle(draft7)({"a": 1}) and fuzz.oracle({"dependencies": {"a": ["b"]}})({"a": 1})


def test_refused_as_empty_with_a_valid_instance_is_wrong(fuzz, monkeypatch):
    from tokenguide.errors import UnsupportedSchemaError

    def refuse(schema):
        raise UnsupportedSchemaError("the schema accepts no value", None, "#")

    monkeypatch.setattr(fuzz, "tokenguide_acceptor", refuse)
    res = fuzz.judge_schema({"type": "integer"}, ["a", 3])
    assert res["status"] == "wrong" and res["kind"] == "refused as empty" and res["instance"] == 3
    assert fuzz.judge_schema({"type": "integer"}, ["a"])["status"] == "empty"


def test_minimise_shrinks_schema_and_instance(fuzz, monkeypatch):
    """With an acceptor that wrongly takes any text holding "9", the case shrinks to its core."""
    real = fuzz.tokenguide_acceptor

    def buggy(schema):
        accepts, compiled = real(schema)
        return (lambda text: "9" in text or accepts(text)), compiled

    monkeypatch.setattr(fuzz, "tokenguide_acceptor", buggy)
    schema = {"type": "object", "description": "d", "properties": {
        "a": {"type": "integer", "maximum": 5}, "b": {"type": "string", "minLength": 2}, "c": {"type": "boolean"}},
        "required": ["a", "b"]}
    instance = {"a": 9, "b": "hello", "c": True}
    res = fuzz.judge_schema(schema, [instance])
    assert res["status"] == "wrong" and res["kind"] == "invalid accepted"
    small_schema, small_instance = fuzz.minimise(schema, instance, "invalid accepted", budget=20.0)
    assert len(json.dumps(small_schema)) < len(json.dumps(schema)) and small_instance != instance
    assert "9" in json.dumps(small_instance) and not fuzz.oracle(small_schema)(small_instance)


def test_generator_is_deterministic_across_hash_seeds():
    code = ("import json, sys; sys.path.insert(0, '.'); from benchmarks.schema_gen import random_schema, "
            "random_instances; print(json.dumps([[random_schema(s), random_instances(random_schema(s), s)] "
            "for s in range(40)]))")
    outs = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": h}).stdout for h in ("1", "2")}
    assert len(outs) == 1 and len(next(iter(outs))) > 10000


def test_generator_uses_the_claimed_keywords():
    random_schema = benchmark_modules.load("schema_gen").random_schema
    text = json.dumps([random_schema(s) for s in range(300)])
    for kw in ("type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties",
               "propertyNames", "minProperties", "maxProperties", "items", "prefixItems", "additionalItems",
               "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "minLength",
               "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
               "multipleOf", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependencies",
               "dependentRequired", "dependentSchemas", "$defs", "definitions", "$ref", "$anchor", "$schema"):
        assert f'"{kw}"' in text, kw
    assert "draft-04" in text and "draft-07" in text and "2020-12" in text and "2019-09" in text
