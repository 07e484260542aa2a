"""minProperties no greater than the number of required names is dropped before the object is
written (emit.t_object): exact, and it keeps wide objects' regexes small."""

from __future__ import annotations

import itertools
import json
import re

import jsonschema

from tokenguide.json_schema import build_regex_from_schema


def _texts(v: dict) -> list[str]:
    return [json.dumps(dict(p)) for p in itertools.permutations(v.items())]


def test_min_properties_met_by_required_names_is_dropped():
    # as many required names as minProperties: every valid object already has that many keys,
    # so the count is not written out (91 optional properties made that regex too large)
    props = {f"p{i}": {"type": ["string", "null"], "maxLength": 8} for i in range(6)}
    schema = {"type": "object", "properties": props, "required": ["p0", "p3"], "minProperties": 2}
    plain = {k: v for k, v in schema.items() if k != "minProperties"}
    assert build_regex_from_schema(schema) == build_regex_from_schema(plain)
    rx = re.compile(build_regex_from_schema(schema))
    v = jsonschema.Draft202012Validator(schema)
    for x in ({"p0": "a", "p3": None}, {"p0": "a"}, {"p3": "b", "p0": "a", "p5": "c"}, {"p0": "a", "p3": "123456789"}):
        assert any(rx.fullmatch(t) for t in _texts(x)) == v.is_valid(x), x
    # more than the required names: still counted
    counted = dict(schema, minProperties=3)
    assert not re.fullmatch(build_regex_from_schema(counted), json.dumps({"p0": "a", "p3": None}))
