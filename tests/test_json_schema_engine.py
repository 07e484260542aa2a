"""The engine path (compile_json_schema(path="engine"): json_schema.engine_grammar, guides.grammar.GrammarGuide).

Oracles: jsonschema (documents with their keys in the output format's order) and the regex path
for the language, on the schemas of the grammar tests and recursive ones, random or deep
documents; `jsonschema` for validity (no invalid instance accepted); for masks, every token read
byte by byte through the engine on its own.
"""

from __future__ import annotations

import json
import random
import re
import warnings

import pytest

lark = pytest.importorskip("lark")
jsonschema = pytest.importorskip("jsonschema")

import test_json_schema_grammar_expansion as expansion  # noqa: E402
import test_json_schema_grammar_keys as keys_tests  # noqa: E402
import test_json_schema_lookahead_holes as holes_tests  # noqa: E402
from benchmark_modules import load  # noqa: E402
from grammar_oracle import acceptor  # noqa: E402
from random_json import random_values  # noqa: E402
from test_json_schema_grammar import DIFF_SCHEMAS, DIFF_VALUES, TREE, deep_tree  # noqa: E402

from tokenguide.guides.grammar import GrammarGuide  # noqa: E402
from tokenguide.errors import ArgumentError, InvalidTokenError, UnsupportedSchemaError  # noqa: E402
from tokenguide.ir.derivatives import LexemeDFA  # noqa: E402
from tokenguide.ir.lookaheads import lexeme_with_lookaheads  # noqa: E402
from tokenguide.ir.lexemes import LookaroundInLexemeError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402


def dumps(v, compact=True) -> str:
    return json.dumps(v, separators=(",", ":") if compact else (", ", ": "), ensure_ascii=False)


KeyOrder = load("json_key_order").KeyOrder


def _output_format_validator(schema):
    """jsonschema's validator of the schema's draft with the output format's integers: a float
    (json.dumps writes `1.0`) is never an integer; formats checked."""
    cls = jsonschema.validators.validator_for(schema)
    checker = cls.TYPE_CHECKER.redefine(
        "integer", lambda _, x: isinstance(x, int) and not isinstance(x, bool))
    return jsonschema.validators.extend(cls, type_checker=checker)(schema, format_checker=cls.FORMAT_CHECKER)


def _validator(schema):
    return jsonschema.validators.validator_for(schema)(schema)


#: recursive schemas and free-form values (the grammar path's first cases)
RECURSIVE = [
    TREE,
    {"$defs": {"v": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/v"}},
                               {"type": "object", "additionalProperties": {"$ref": "#/$defs/v"}}]}},
     "$ref": "#/$defs/v"},
    {"type": "object", "properties": {"name": {"type": "string", "maxLength": 4}, "meta": {}}, "required": ["name"]},
    {"type": "array", "items": {"type": "object", "properties": {"k": {"enum": ["a", "b"]}, "rest": True},
                                "additionalProperties": False}},
]

#: every schema of the grammar tests and the recursive ones, by name
SCHEMAS = {
    **{f"diff{i}": s for i, s in enumerate(DIFF_SCHEMAS)},
    **{f"recursive{i}": s for i, s in enumerate(RECURSIVE)},
    **{f"expansion_{k}": s for k, s in expansion.SCHEMAS.items()},
    **{f"keys{i}": keys_tests.tree(extra) for i, extra in enumerate(keys_tests.SCHEMAS)},
    **{f"holes_{k}": s for k, s in holes_tests.CASES.items()},
    "wide_event": expansion.WIDE,
    "pattern_and_length": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 4, "pattern": "^a"},
                                                            "meta": {}}, "required": ["name"]},
    "not_in_any": {"type": "array", "items": {"not": {"enum": [1, "a", [1]]}}},
}


def _documents(seed: int) -> list:
    rnd = random.Random(seed)
    docs = random_values(rnd, 250, [0, 7, -1, 2.5, 1e-05, "a", "abcde", "raw", "grub", None, True, False],
                         ["name", "meta", "k", "rest", "value", "children", "a", "b", "c", "x", "y", "n", "free",
                          "boot", "vol", "backing", "kids", "id"],
                         leaf=0.3, array=0.3, array_len=3, deep=0.1, max_depth=4)
    return docs + list(DIFF_VALUES) + [deep_tree(9), {"name": "ab", "meta": [[[[[[{"x": [1]}]]]]]]},
                                       [{"k": "a", "rest": {"z": [[]]}}]]


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_engine_language_agrees_with_jsonschema(name):
    """Each document, its keys put in the output format's order (benchmarks/json_key_order.py),
    compact and with spaces, is accepted exactly when jsonschema finds it valid."""
    schema = SCHEMAS[name]
    engine = compile_json_schema(schema, path="engine")
    assert engine.path == "engine" and engine.engine is not None
    validator = _output_format_validator(schema)
    reorder = KeyOrder(schema).reorder
    docs = _documents(len(name))
    if name == "wide_event":
        rnd = random.Random(5)
        docs = [expansion._value(rnd, schema) for _ in range(40)] + docs[:60]
    verdicts = set()
    for doc in docs:
        want = validator.is_valid(doc)
        for text in (dumps(reorder(doc)), dumps(reorder(doc), compact=False)):
            assert engine.accepts(text) == want, text
        verdicts.add(want)
    assert True in verdicts or name.startswith("holes_")


@pytest.mark.parametrize("schema", DIFF_SCHEMAS, ids=range(len(DIFF_SCHEMAS)))
def test_engine_and_regex_paths_give_the_same_language(schema):
    rx = re.compile(compile_json_schema(schema, path="regex", max_recursion_depth=5).regex)
    engine = compile_json_schema(schema, path="engine")
    for v in DIFF_VALUES:
        for text in (dumps(v), dumps(v, compact=False), dumps(v).replace(",", " , ")):
            assert engine.accepts(text) == (rx.fullmatch(text) is not None), text


@pytest.mark.parametrize("name", sorted(holes_tests.CASES))
def test_free_form_values_under_lookaheads_are_exact(name):
    """Value lexemes with holes (free-form values under not / oneOf / if): against jsonschema on
    instances nesting deeper than any written-out level, every key order tried."""
    schema = holes_tests.CASES[name]
    engine = compile_json_schema(schema, path="engine")
    instances = holes_tests._deep(len(name), 250) + [[], {}, [[]], {"a": {}}, {"b": []}]
    assert holes_tests._wrong(schema, acceptor(engine), instances) == []


LOOKAHEAD_REGEXES = [r'(?=a{0,2}$)a*b?', r'(?:(?="(?:[^"\\]){0,4}")(?:"a[^"\\]*"))', r'(?!ab)[ab]*',
                     r'(?:(?=ab)a|b){0,3}b', r'x(?!y\Z)[xy]*', r'(?=.*c)(?!.*d)[a-d]{0,5}', r'a(?=b|\Z)b?',
                     r'(?:(?=(?:a|b)*\Z)(?!.*bb).)*']


@pytest.mark.parametrize("regex", LOOKAHEAD_REGEXES[:-1])
def test_lookaheads_as_intersections_match_re(regex):
    import itertools

    dfa = LexemeDFA(lexeme_with_lookaheads(regex))
    for n in range(6):
        for letters in itertools.product('abcdxy"é', repeat=n):
            text = "".join(letters)
            assert dfa.accepts(text.encode()) == (re.fullmatch(regex, text) is not None), text


def test_a_lookahead_under_an_unbounded_repeat_is_refused_by_name():
    with pytest.raises(LookaroundInLexemeError, match="inside a repeat without a bound"):
        lexeme_with_lookaheads(LOOKAHEAD_REGEXES[-1])


def test_engine_path_reports_itself_and_checks_its_arguments():
    c = compile_json_schema(TREE, path="engine")
    assert (c.path, c.reason) == ("engine", "requested")
    assert c.accepts('{"value":1,"children":[{"value":2}]}') and not c.accepts('{"value":1,}')
    with pytest.raises(ArgumentError, match="'engine'"):
        compile_json_schema(TREE, path="engines")
    with pytest.raises(UnsupportedSchemaError, match="whitespace_pattern"):
        compile_json_schema(TREE, path="engine", whitespace_pattern=r"\s*")


def _tokens_of(vocab, text: bytes) -> list[int]:
    """Longest-first tokens of `text` in `vocab`."""
    by_first: dict[int, list[tuple[bytes, int]]] = {}
    for i in range(vocab.vocab_size):
        b = vocab.id_to_bytes(i)
        if b:
            by_first.setdefault(b[0], []).append((b, i))
    out, pos = [], 0
    while pos < len(text):
        b, i = max((x for x in by_first[text[pos]] if text.startswith(x[0], pos)), key=lambda x: len(x[0]))
        out.append(i)
        pos += len(b)
    return out


MASK_CASES = [
    (RECURSIVE[1], {"a": [1, [2, {"b": 3, "c": [[]]}]], "d": {}, "e": -40}),
    (SCHEMAS["pattern_and_length"], {"name": "abé", "meta": [{"x": "naïve"}, None, 1.5e10]}),
    (holes_tests.CASES["not empty array"], [[], {"x": [1, {"y": []}]}, "s"]),
    (TREE, deep_tree(6)),
]


@pytest.mark.parametrize("case", range(len(MASK_CASES)))
def test_engine_masks_are_each_tokens_own_walk(case, gpt2_vocabulary):
    from tokenguide.guides.stateful import Guide

    schema, doc = MASK_CASES[case]
    vocab = gpt2_vocabulary
    engine = Guide.from_json_schema(schema, vocab, path="engine")
    assert isinstance(engine.source, GrammarGuide)
    inner = engine.source
    rnd = random.Random(case)
    every = range(vocab.vocab_size)
    text = dumps(doc).encode()
    ids = _tokens_of(vocab, text)
    for step, token in enumerate(ids + [vocab.eos_token_id]):
        mask = engine.mask_bytes()
        state = engine.get_state()
        sample = every if step in (0, 3) else rnd.sample(every, 3000)
        for t in sample:
            if t == vocab.eos_token_id:
                continue
            walked = inner.advance_bytes(state, vocab.id_to_bytes(t)) is not None
            assert bool(mask[t >> 3] >> (t & 7) & 1) == walked, (step, t, vocab.id_to_bytes(t))
        assert bool(mask[token >> 3] >> (token & 7) & 1)
        if token != vocab.eos_token_id:
            engine.advance(token, return_tokens=False)
    assert engine.is_finished() or engine.get_state().can_end()


def test_engine_guide_refuses_tokens_and_early_eos(gpt2_vocabulary):
    from tokenguide.guides.stateful import Guide

    vocab = gpt2_vocabulary
    guide = Guide.from_json_schema(TREE, vocab, path="engine")
    with pytest.raises(InvalidTokenError):
        guide.advance(vocab.eos_token_id)
    with pytest.raises(InvalidTokenError):
        guide.advance(vocab.get("[")[0])
    for piece in ["{", '"', "value", '":', "1", "}"]:
        guide.advance(vocab.get(piece)[0], return_tokens=False)
    assert guide.mask_bytes()[vocab.eos_token_id >> 3] >> (vocab.eos_token_id & 7) & 1


def test_engine_guide_with_unique_items_checked_on_the_values(gpt2_vocabulary):
    from tokenguide.guides.stateful import Guide
    from tokenguide.guides.value_checks import ValueChecksGuide

    schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"},
                                                         "uniqueItems": True}, "meta": {}}}
    guide = Guide.from_json_schema(schema, gpt2_vocabulary, path="engine")
    assert guide.compiled.path == "engine" and guide.compiled.checks is not None
    assert isinstance(guide.source, ValueChecksGuide) and isinstance(guide.source.inner, GrammarGuide)
    ok = '{"tags":["a","b"],"meta":[{"x":[]}]}'
    assert guide.compiled.accepts(ok) and not guide.compiled.accepts('{"tags":["a","a"]}')
    for token in _tokens_of(gpt2_vocabulary, ok.encode()):
        guide.advance(token, return_tokens=False)
    assert guide.mask_bytes()[gpt2_vocabulary.eos_token_id >> 3] >> (gpt2_vocabulary.eos_token_id & 7) & 1
    guide.reset()
    for token in _tokens_of(gpt2_vocabulary, b'{"tags":["a",'):
        guide.advance(token, return_tokens=False)
    dup = _tokens_of(gpt2_vocabulary, b'"a"]')
    with pytest.raises(InvalidTokenError):
        for token in dup:
            guide.advance(token, return_tokens=False)


def test_the_network_path_is_replaced_by_the_engine():
    """path='network' (its own byte-automaton network, guide and token trie) is gone: a clear error names the engine."""
    with pytest.raises(ArgumentError, match="path='engine'"):
        compile_json_schema({"type": "integer"}, path="network")


def test_the_engine_path_emits_a_schema_once(monkeypatch):
    """No retries: whether the engine path takes a schema or refuses it, its grammar-mode
    emission runs once (an anyOf of objects, 400 and 5,000 members, a refused `not`)."""
    import tokenguide.json_schema as js

    calls: list[dict] = []
    emission = js._grammar_emission

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return emission(*args, **kwargs)

    monkeypatch.setattr(js, "_grammar_emission", spy)
    anyof = {"type": "array", "items": {"anyOf": [
        {"type": "object", "properties": {k: {"type": "integer" if i % 2 else "string"} for k in "abcdefgh"[i:i + 5]},
         "additionalProperties": False} for i in range(4)]}}  # a name with two meanings: not one object (object_unions)
    deep: dict = {"type": "array", "maxItems": 0}
    for key in "edcba":
        deep = {"type": "object", "properties": {key: deep}, "required": [key], "minProperties": 1}
    refused = {"type": "object", "properties": {"v": {"not": deep}}}
    wide = [{"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(n)},
             "additionalProperties": False} for n in (400, 5000)]
    for schema in [anyof, *wide, refused]:
        calls.clear()
        try:
            compile_json_schema(schema, path="engine")
        except UnsupportedSchemaError as exc:
            assert schema is refused and exc.keyword == "not"
        assert len(calls) == 1
