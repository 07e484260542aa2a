"""Two `pattern`s on one string (allOf, or an anyOf branch merged into its node): the string
matches both. The regex path writes the second as a lookahead; the engine path, which once
refused the merge ("cannot merge two different 'pattern' values"), writes a string lexeme
from the intersection's automaton. Oracle: jsonschema (ECMA patterns read by Python's re on
these ASCII cases), on both paths, and the two paths agree."""

from __future__ import annotations

import itertools
import json

import jsonschema
import pytest

from tokenguide.json_schema import compile_json_schema

# GitLab CI's include item: a YAML file name that is an http(s) URL or no URL at all
GITLAB_INCLUDE = {"type": "string", "format": "uri-reference", "pattern": r"\w\.ya?ml$",
                  "anyOf": [{"pattern": "^https?://"}, {"not": {"pattern": r"^\w+://"}}]}
SCHEMAS = {
    "gitlab-include": GITLAB_INCLUDE,
    "allOf": {"allOf": [{"type": "string", "pattern": "^a"}, {"pattern": "b$"}, {"pattern": "^.{2,4}$"}]},
    "member": {"type": "object", "additionalProperties": {},
               "properties": {"x": {"allOf": [{"type": "string", "pattern": "^[a-z]+$"}, {"pattern": "^.{2,3}$"}]}}},
}
WORDS = ["", "a", "ab", "ba", "axb", "abxb", "abxxb", "AB", "a.yml", "https://a.yml", "ftp://a.yml",
         "https://a.txt", "dir/x_1.yaml", "http://h/p.yml"]


def values(name: str) -> list:
    if name == "member":
        return [{"x": w} for w in WORDS] + [{}, {"y": 1}, {"x": 1}]
    return WORDS + [1, None]


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_both_patterns_hold_on_both_paths(name):
    schema = SCHEMAS[name]
    oracle = jsonschema.Draft202012Validator(schema)
    compiled = {p: compile_json_schema(schema, path=p) for p in ("regex", "engine")}
    verdicts = set()
    for v, p in itertools.product(values(name), compiled):
        text = json.dumps(v, separators=(",", ":"))
        want = oracle.is_valid(v)
        verdicts.add(want)
        assert compiled[p].accepts(text) == want, (p, text)
    assert verdicts == {True, False}
