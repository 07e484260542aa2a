"""allOf merges that validators allow: unknown keywords (x-* extensions, annotations) never block
a merge or change the language. Each schema's verdicts (regex path and grammar path) equal jsonschema's on valid and invalid instances."""

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
    accepts = acceptor(compile_json_schema(schema, path=path, whitespace_pattern="" if path == "grammar" else None))
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
}

@pytest.mark.parametrize("path", ["regex", "grammar"])
@pytest.mark.parametrize("name", list(EXTENSIONS))
def test_agrees_with_jsonschema(name, path):
    schema, instances = EXTENSIONS[name]
    check(schema, instances, path)


def test_an_extension_does_not_change_the_language():
    schema, _ = EXTENSIONS["x-kubernetes extension values"]
    plain = {"allOf": [{"type": "object", "properties": {"name": {"type": "string"}}}]}
    assert compile_json_schema(schema, path="regex").regex == compile_json_schema(plain, path="regex").regex
