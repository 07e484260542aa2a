"""compile_json_schema(path="auto") takes the engine path wherever it takes the schema, and the
regex only where the engine path refuses, never depth-capped silently (issue 13, 39).

Oracles: Python's `re.fullmatch` (regex path), the engine's recogniser (engine path),
`jsonschema` (validity of the instances, against the engine's recogniser).
"""

from __future__ import annotations

import json
import re
import warnings

import pytest

lark = pytest.importorskip("lark")
jsonschema = pytest.importorskip("jsonschema")

from tokenguide.errors import StateLimitError, UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402
from grammar_oracle import grammar_acceptor  # noqa: E402

FREE = {"type": "object", "properties": {"meta": {}, "tags": {"type": "array"}}, "required": ["meta"]}


def dumps(v) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def accepts(grammar, text: str) -> bool:
    """Lark's LALR parser of Lark text `grammar`, or a CompiledSchema's own reading (the engine's recogniser)."""
    if not isinstance(grammar, str):
        return grammar.accepts(text)
    try:
        lark.Lark(grammar, parser="lalr", lexer="contextual").parse(text)
    except lark.exceptions.LarkError:
        return False
    return True


def nested(depth: int) -> object:
    v: object = 1
    for i in range(depth):
        v = {"k": v} if i % 2 else [v, "x"]
    return v


def test_auto_takes_the_exact_engine_path_for_every_schema_it_takes():
    compiled = compile_json_schema(FREE)
    assert compiled.path == "engine" and "engine path takes it" in compiled.reason and not compiled.depth_capped
    deep = {"meta": nested(12), "tags": [nested(9)]}
    jsonschema.validate(deep, FREE)
    assert compiled.accepts(dumps(deep))
    assert not compiled.accepts(dumps({"tags": []}))  # meta is required
    regex = compile_json_schema(FREE, path="regex")
    assert regex.depth_capped and "nest at most 2" in regex.reason
    assert re.fullmatch(regex.regex, dumps({"meta": nested(2)})) and not re.fullmatch(regex.regex, dumps(deep))
    # a schema the regex path takes exactly: the engine path all the same, with the same language
    closed = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"enum": ["x", [1]]}},
              "additionalProperties": False}
    plain = compile_json_schema(closed)
    assert plain.path == "engine" and not plain.depth_capped and plain.regex is None
    exact = compile_json_schema(closed, path="regex")
    assert exact.path == "regex" and not exact.depth_capped
    validator = jsonschema.Draft202012Validator(closed)
    for text in ('{}', '{"a":1}', '{"a":1,"b":"x"}', '{"b":[1]}', '{"a":1.5}', '{"b":"y"}', '{"c":1}', '{"b":"x","a":1}',
                 '{"a":-0}', '{"a":01}', '{ "a" : 2 }', '{"a":2,}', '[]'):
        want = re.fullmatch(exact.regex, text) is not None
        assert plain.accepts(text) == want, text
        if want:
            assert validator.is_valid(json.loads(text)), text


def test_refused_engine_path_falls_back_to_a_regex_that_says_it_is_capped():
    # a `not` telling free-form values apart 6 levels down, below what the grammar-mode emission
    # writes out around its holes (json_schema.holes): the engine path refuses and "auto" keeps
    # the capped regex
    deep: dict = {"type": "array", "maxItems": 0}
    for key in "edcba":
        deep = {"type": "object", "properties": {key: deep}, "required": [key]}
    deep["minProperties"] = 1  # not only properties/required: no plain negation (json_schema.negation)
    schema = {"type": "object", "properties": {"p3": {"type": "array"}, "v": {"not": deep}}}
    with pytest.raises(UnsupportedSchemaError, match="'not'") as refused:
        compile_json_schema(schema, path="engine")
    assert refused.value.keyword == "not" and refused.value.pointer == "#/properties/v/not"
    with pytest.warns(UserWarning, match="depth-capped"):
        compiled = compile_json_schema(schema)
    assert compiled.path == "regex" and compiled.depth_capped
    assert "free-form values nest at most 2" in compiled.reason
    assert f"the engine path refuses it ({refused.value}" in compiled.reason  # its refusal, quoted
    assert re.fullmatch(compiled.regex, dumps({"p3": [[1]], "v": {"a": 1}}))
    assert not re.fullmatch(compiled.regex, dumps({"p3": [[[[1]]]], "v": "a"}))  # nested past the cap


def test_slash_and_backslash_quote_in_terminals():
    schema = {"type": "object", "properties": {"u": {"const": "http://a/b"}, "q": {"enum": ['x\\"y', "/"]},
                                               "any": {}}, "required": ["u", "q"]}
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine"
    lark_grammar = compile_json_schema(schema, path="engine")
    for doc in ({"u": "http://a/b", "q": 'x\\"y', "any": [{}]}, {"u": "http://a/b", "q": "/"}):
        jsonschema.validate(doc, schema)
        assert compiled.accepts(dumps(doc)) and accepts(lark_grammar, dumps(doc)), doc
    for doc in ({"u": "http:/a/b", "q": "/"}, {"u": "http://a/b", "q": 'x"y'}, {"u": "http://a/b", "q": 'x\\y'}):
        assert not compiled.accepts(dumps(doc)) and not accepts(lark_grammar, dumps(doc)), doc


def test_overlapping_number_alternatives_become_one_rule():
    schema = {"type": "array", "items": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "number", "maximum": -1},
                                                   {"type": "number", "minimum": 0}, {"type": "array"}]}}
    grammar = compile_json_schema(schema, path="engine")
    regex = compile_json_schema({"anyOf": [{"type": "integer", "minimum": 0}, {"type": "number", "maximum": -1}]},
                                path="regex").regex
    single = compile_json_schema({"anyOf": [{"type": "integer", "minimum": 0}, {"type": "number", "maximum": -1}]},
                                 path="engine")
    for text in ("0", "7", "-1", "-1.5", "-0.5", "0.5", "-0", "1e3", "-2E+1", "01"):
        assert accepts(single, text) == bool(re.fullmatch(regex, text)), text
    assert accepts(grammar, "[0,-3.5,0.5,[null]]") and not accepts(grammar, "[01]")


def test_prefix_factored_property_names_with_additional_properties():
    schema = {"type": "object", "additionalProperties": True,
              "properties": {"tiff:ImageWidth": {"type": "string"}, "tiff:ImageLength": {"type": "string"}}}
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine"
    good = [{"tiff:ImageWidth": "1", "tiff:ImageLength": "2", "tiff:Image": [[{}]]}, {"tiff:ImageX": 1}, {}]
    for doc in good:
        jsonschema.validate(doc, schema)
        assert compiled.accepts(dumps(doc)), doc
    assert not compiled.accepts('{"tiff:ImageWidth":1}')


def test_guides_take_the_engine_path_where_the_regex_automaton_would_be_too_large():
    from tokenguide.guides.stateful import Guide
    from tokenguide.vocabulary import Vocabulary

    chars = '{}[]:," abcdefghijklmnopqrstuvwxyz0123456789-.'
    vocab = Vocabulary(len(chars), {ch: i for i, ch in enumerate(chars)})
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
              "additionalProperties": False}
    guide = Guide.from_json_schema(schema, vocab, lazy=False, max_states=3, use_cache=False)
    assert guide.index is None and guide.compiled.path == "engine"
    for ch in '{"n":12,"s":"ab"}':
        guide.advance(chars.index(ch))
    assert guide.is_finished()
    regex = Guide.from_json_schema(schema, vocab, path="regex")
    assert regex.index is not None and regex.compiled.path == "regex"
    engine = Guide.from_json_schema(schema, vocab)
    assert engine.compiled.path == "engine"
    for ch in '{"n":12,"s":"ab"}':  # the same tokens allowed at every step on both paths
        assert engine.get_tokens() == regex.get_tokens(), ch
        regex.advance(chars.index(ch))
        engine.advance(chars.index(ch))
    assert regex.is_finished() and engine.is_finished() and engine.get_tokens() == regex.get_tokens()
    with pytest.raises(StateLimitError):
        Guide.from_json_schema(schema, vocab, lazy=False, max_states=3, use_cache=False, path="regex")
    # a counted repeat too large for a Lark terminal: the engine path builds its automaton lazily
    big = Guide.from_json_schema({"type": "string", "pattern": "^([a-z]x){0,15000}$"}, vocab, lazy=False,
                                 max_states=3, use_cache=False)
    assert big.compiled.path == "engine"
    for ch in '"axbx"':
        big.advance(chars.index(ch))
    assert big.is_finished() and chars.index("a") not in big.get_tokens()
    # the engine path refuses, the regex fallback's automaton is too large: the error names both causes
    both = {"type": "string", "pattern": "^(?=.*a)([a-z]x){0,15000}$"}
    with pytest.raises(UnsupportedSchemaError):
        compile_json_schema(both, path="engine")
    with pytest.raises(StateLimitError, match=r"max_states.*the engine path refuses it \("):
        Guide.from_json_schema(both, vocab, lazy=False, max_states=3, use_cache=False)
    # one class repeated over the whole string is blocks and a tail too (strings._long_class_run)
    run = Guide.from_json_schema({"type": "string", "pattern": "^[a-z]{0,30000}$"}, vocab, lazy=False,
                                 max_states=3, use_cache=False)
    assert run.compiled.path == "engine"
    for ch in '"ab"':
        run.advance(chars.index(ch))
    assert run.is_finished()
    # a long maxLength alone is blocks and a tail in the grammar-mode emission (strings.counted_string)
    long = Guide.from_json_schema({"type": "string", "maxLength": 30000}, vocab, lazy=False, max_states=3,
                                  use_cache=False)
    assert long.compiled.path == "engine"
    for ch in '"ab"':
        long.advance(chars.index(ch))
    assert long.is_finished()


def test_depth_capped_warning_is_issued_once_per_compile():
    # a recursive $ref beside other keywords: the engine path refuses, "auto" takes the regex
    # unrolled 3 times, and says so once
    schema = {"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n", "maxItems": 2}}}, "$ref": "#/$defs/n"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = compile_json_schema(schema)
    assert compiled.path == "regex" and compiled.depth_capped and "unrolled 3 times" in compiled.reason
    assert "engine path refuses it (" in compiled.reason and "'$ref'" in compiled.reason
    assert [str(w.message).count("depth-capped") for w in caught] == [1]
    # a recursive schema the engine takes: exact, no warning
    recursive = {"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}, "maxItems": 2}}, "$ref": "#/$defs/n"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exact = compile_json_schema(recursive)
    assert exact.path == "engine" and not exact.depth_capped and not caught
    assert exact.accepts(dumps([[[[[[]]]]], []])) and not exact.accepts(dumps([[[], [], []]]))


def test_many_optional_parts_get_rules_of_their_own():
    # inline, Lark would expand the object rule into about 2**12 alternatives
    schema = {"type": "object", "properties": {f"p{i}": {"type": "array"} for i in range(12)},
              "additionalProperties": False}
    grammar = compile_json_schema(schema, path="engine")
    good = [{}, {"p0": []}, {"p11": [[1], {"a": None}]}, {"p1": [1], "p3": [[2]], "p10": []},
            {f"p{i}": [i] for i in range(12)}]
    for doc in good:
        jsonschema.validate(doc, schema)
        assert accepts(grammar, dumps(doc)), doc
    for text in ('{"p3":[],"p1":[]}', '{"p1":[],"p1":[]}', '{"q":[]}', '{"p1":1}', '{,"p1":[]}', '{"p1":[]"p2":[]}'):
        assert not accepts(grammar, text), text


def test_lark_grammar_skips_only_the_collision_report():
    from tokenguide.errors import GrammarError
    from tokenguide.guides.cfg.grammar import LarkGrammar, QuietContextualLexer

    g = LarkGrammar('start: A | B\nA: /a+/\nB: /a/\n')  # colliding terminals: Lark would only log them
    assert isinstance(g.lexer, QuietContextualLexer)
    with pytest.raises(GrammarError, match="zero-width"):
        LarkGrammar('start: A\nA: /a*/\n')
    with pytest.raises(GrammarError, match="Ignore terminals are not defined"):
        LarkGrammar('start: "a"\n%ignore WS\n%declare WS\n')


def test_lazy_guide_that_would_meet_the_state_limit_runs_on_the_engine():
    from tokenguide.guides.stateful import Guide
    from tokenguide.vocabulary import Vocabulary

    chars = '{}[]:," abcdefghijklmnopqrstuvwxyz0123456789-.'
    vocab = Vocabulary(len(chars), {ch: i for i, ch in enumerate(chars)})
    schema = {"type": "object", "properties": {"s": {"type": "string", "maxLength": 40}}, "additionalProperties": False}
    # lazy: the limit is met by the first mask (its tokens, one character each, are leaves of the
    # trie: the initial state's row is all the walk makes)
    with pytest.raises(StateLimitError):
        Guide.from_json_schema(schema, vocab, max_states=1, path="regex")
    guide = Guide.from_json_schema(schema, vocab, max_states=1)
    assert guide.compiled.path == "engine"
    for ch in '{"s":"abc"}':
        guide.advance(chars.index(ch))
    assert guide.is_finished()


def test_items_counted_past_the_regex_limit_take_the_engine_path():
    """contains with minContains over wide objects: counting them on the regex path passes its
    200,000 characters, the engine path counts with rules; "auto" takes it (it refused), and
    when the engine path cannot either, the refusal still names the counting keyword."""
    item = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(40)},
            "additionalProperties": False}
    schema = {"type": "array", "items": item, "contains": {"required": ["p0"]}, "minContains": 2, "maxItems": 8}
    with pytest.raises(UnsupportedSchemaError, match="needs a regex over"):
        compile_json_schema(schema, path="regex")
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine"
    validator = jsonschema.Draft202012Validator(schema)
    docs = [[{"p0": "a"}, {"p0": "b"}], [{"p0": "a"}], [{"p0": "a"}, {}, {"p0": "y", "p1": "x"}], [{}] * 9,
            [{"p0": "a"}] * 8, [{"p0": "a"}] * 9, [{"p0": "a"}, {"p0": 1}], []]
    verdicts = set()
    acceptor = compiled.accepts
    for doc in docs:
        want = validator.is_valid(doc)
        verdicts.add(want)
        assert acceptor(dumps(doc)) == want, doc
    assert verdicts == {True, False}
    # one more item counted (once past the Lark grammar path's first total of alternatives): the
    # engine path, on "auto" too
    wider = {**schema, "maxItems": 9}
    compiled = compile_json_schema(wider, path="engine")
    auto = compile_json_schema(wider)
    assert compiled.path == "engine" and auto.path == "engine"
    acceptor = compiled.accepts
    for doc in docs + [[{"p0": "a"}] * 9, [{"p0": "a"}] * 10, [{}] * 7 + [{"p0": "a"}] * 2]:
        assert acceptor(dumps(doc)) == jsonschema.Draft202012Validator(wider).is_valid(doc), doc
        assert auto.accepts(dumps(doc)) == jsonschema.Draft202012Validator(wider).is_valid(doc), doc
    counted = {**schema, "minContains": 8, "maxItems": 20}
    with pytest.raises(UnsupportedSchemaError, match="needs a regex over") as info:
        compile_json_schema(counted)
    assert info.value.keyword == "contains"
