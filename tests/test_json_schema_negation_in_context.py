"""`not` read where it applies (logic._minus): a condition narrowed to the values it meets there,
a double negation, and a union minus a condition branch by branch.

travis' notification hooks are the model: a secret `{secure}` (a closed object) minus a hook
object (closed, all members optional, one of them an array with uniqueItems, which no plain
negation writes) is just "a secret with `secure`", because the hook's members never appear in a
secret; the secret and a plain string are one oneOf, subtracted branch by branch. Oracle:
jsonschema, on the grammar and regex paths, with the lookahead (logic.subtract) made to refuse
conditions that mention the hook's array, as it refuses automaton text too long in travis."""

from __future__ import annotations

import json

import jsonschema
import pytest
from grammar_oracle import grammar_acceptor
from schema_oracle import assert_agrees

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema, logic
from tokenguide.json_schema import CompiledSchema
from tokenguide.json_schema.engine_grammar import grammar_from_emission
from tokenguide.json_schema.rule_sink import RuleSink

SECRET = {"type": "object", "additionalProperties": False, "properties": {"secure": {"type": "string"}}}
HOOK = {"type": "object", "additionalProperties": False,
        "properties": {"enabled": {"type": "boolean"},
                       "urls": {"type": "array", "uniqueItems": True, "items": {"type": "string"}}}}
DOCS = [{}, {"secure": "s"}, {"secure": 1}, {"enabled": True}, {"urls": ["a"]}, {"secure": "s", "enabled": True},
        {"other": 1}, "text", 3, None, [], ["a"]]
CASES = {
    # a closed object minus a closed object: only the names the first allows count
    "secret not hook": {"allOf": [SECRET, {"not": HOOK}]},
    # a oneOf of types minus an object: each branch minus it (the string branch keeps every string)
    "text or secret, not hook": {"oneOf": [{"type": "string"}, SECRET], "not": HOOK},
    # the hook minus one of two branches of other types: only its object branch counts there
    "hook not (text or secret)": {"allOf": [HOOK, {"not": {"oneOf": [{"type": "string"}, SECRET]}}]},
    # not (not X) is X
    "secret not not hook": {"allOf": [SECRET, {"not": {"not": HOOK}}]},
}


def _refuse_the_array(em, a, negs):
    """logic.subtract refusing every condition that still holds the hook's uniqueItems array."""
    for schema, keyword, ptr in negs:
        text = json.dumps(getattr(schema, "kw", schema), default=lambda o: getattr(o, "kw", str(o)))
        if "uniqueItems" in text:
            raise UnsupportedSchemaError("the lookahead is refused (as for a value lexeme too long)", keyword, ptr)
    return SUBTRACT(em, a, negs)


SUBTRACT = logic.subtract


@pytest.mark.parametrize("path", ["engine", "regex"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_condition_read_where_it_applies(monkeypatch, name, path):
    """Before, every case but the double negation was refused: the hook's array has no plain
    negation and its lookahead was refused."""
    monkeypatch.setattr(logic, "subtract", _refuse_the_array)
    schema = CASES[name]
    assert_agrees(compile_json_schema(schema, path=path), jsonschema.Draft7Validator(schema), DOCS)


def test_a_required_name_the_object_forbids():
    """A condition requiring a name the closed object forbids never holds there: `not` of it
    removes nothing (no lookahead needed)."""
    compiled = compile_json_schema({"allOf": [SECRET, {"not": {"required": ["enabled"]}}]}, path="engine")
    for doc in ({}, {"secure": "s"}, {"secure": 2}):
        assert compiled.accepts(json.dumps(doc, separators=(",", ":"))) == \
            jsonschema.Draft7Validator(SECRET).is_valid(doc)


def test_space_before_a_rule():
    """A piece of text that can be empty between two rules (` ?`) is written as the second rule
    alone or the text's nonempty strings and the rule (before: refused)."""
    sink = RuleSink(" ?")
    rule = sink.rule('"a"')
    accepts = CompiledSchema("engine", "", engine=grammar_from_emission(f"\\[{rule} ?{rule}\\]", sink)).accepts
    for text, want in (('["a""a"]', True), ('["a" "a"]', True), ('["a"  "a"]', False), ('["a"]', False)):
        assert accepts(text) is want, text
