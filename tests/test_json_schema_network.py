"""The network path (compile_json_schema(path="network"), regex.network, guides.network).

Oracles: the regex path (`re.fullmatch`) and Lark's parser of the grammar path for the language,
where they apply; `jsonschema` for validity; for masks, every token read byte by byte through
the network on its own, and the grammar path's CFG guide on the same schema and vocabulary.
"""

from __future__ import annotations

import json
import random
import re

import pytest

lark = pytest.importorskip("lark")
jsonschema = pytest.importorskip("jsonschema")

from random_json import random_values  # noqa: E402
from test_json_schema_grammar import DIFF_SCHEMAS, DIFF_VALUES, TREE, deep_tree  # noqa: E402

from tokenguide.errors import InvalidTokenError, UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402
from tokenguide.regex.lazy import lazy_regex  # noqa: E402
from tokenguide.regex.network import CALL_BYTES, Machine, NetworkError, RuleNetwork, call_code, code_width  # noqa: E402


def dumps(v, compact=True) -> str:
    return json.dumps(v, separators=(",", ":") if compact else (", ", ": "))


@pytest.mark.parametrize("schema", DIFF_SCHEMAS, ids=range(len(DIFF_SCHEMAS)))
def test_network_and_regex_paths_give_the_same_language(schema):
    rx = re.compile(compile_json_schema(schema, path="regex", max_recursion_depth=5).regex)
    net = compile_json_schema(schema, path="network")
    assert net.path == "network" and net.network is not None
    validator = jsonschema.Draft202012Validator(schema)
    for v in DIFF_VALUES:
        for text in (dumps(v), dumps(v, compact=False), dumps(v).replace(",", " , ")):
            assert net.accepts(text) == (rx.fullmatch(text) is not None), text
        if net.accepts(dumps(v)):
            assert validator.is_valid(v), v


RECURSIVE = [
    TREE,
    {"$defs": {"v": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/v"}},
                               {"type": "object", "additionalProperties": {"$ref": "#/$defs/v"}}]}},
     "$ref": "#/$defs/v"},
    {"type": "object", "properties": {"name": {"type": "string", "maxLength": 4}, "meta": {}}, "required": ["name"]},
    {"type": "array", "items": {"type": "object", "properties": {"k": {"enum": ["a", "b"]}, "rest": True},
                                "additionalProperties": False}},
]


@pytest.mark.parametrize("schema", RECURSIVE, ids=range(len(RECURSIVE)))
def test_network_and_lark_grammar_give_the_same_language(schema):
    from tokenguide.guides.cfg.grammar import build_lark

    parser = build_lark(compile_json_schema(schema, path="grammar").grammar)
    net = compile_json_schema(schema, path="network")
    validator = jsonschema.Draft202012Validator(schema)
    rnd = random.Random(7)
    docs = random_values(rnd, 300, [0, 7, -1, 2.5, "a", "abcde", None, True], ["name", "meta", "k", "rest", "value",
                                                                                "children", "x"],
                         leaf=0.3, array=0.3, array_len=3, deep=0.1, max_depth=4)
    docs += [deep_tree(9), {"name": "ab", "meta": [[[[[[{"x": [1]}]]]]]]}, [{"k": "a", "rest": {"z": [[]]}}]]
    verdicts = set()
    for doc in docs:
        for text in (dumps(doc), dumps(doc, compact=False)):
            try:
                parser.parse(text)
                want = True
            except lark.exceptions.LarkError:
                want = False
            assert net.accepts(text) == want, text
            verdicts.add(want)
            if want:
                assert validator.is_valid(doc), doc
    assert verdicts == {True, False}


def _machine(name, regex, codes=None, width=1):
    return Machine(name, lazy_regex(regex), width, codes or {})


def test_a_network_runs_calls_returns_and_alternatives_that_read_alike():
    call = "\\x" + format(CALL_BYTES[0], "02x")
    # root: a list of items; item: "a" or a bracketed root (recursion), or "a" again (a second
    # reading of the same text: both configurations live until they meet)
    root = _machine("root", f"\\[(?:{call}(?:,{call})*)?\\]", {bytes((CALL_BYTES[0],)): 1})
    item = _machine("item", f"a|b*a|{call}", {bytes((CALL_BYTES[0],)): 0})
    net = RuleNetwork([root, item], 0)
    for text, ok in [("[]", True), ("[a]", True), ("[a,[a,ba],[]]", True), ("[[[[a]]]]", True), ("[a,]", False),
                     ("[[a]", False), ("[c]", False), ("", False), ("[a]]", False)]:
        assert net.accepts(text.encode()) == ok, text
    assert not net.step(net.start(), CALL_BYTES[0])  # call bytes are never text
    assert net.can_end(net.walk(net.start(), b"[a]")) and not net.can_end(net.walk(net.start(), b"[a"))


def test_left_recursion_and_bad_codes_are_refused():
    call = "\\x" + format(CALL_BYTES[0], "02x")
    with pytest.raises(NetworkError, match="left-recursive"):
        RuleNetwork([_machine("root", call, {bytes((CALL_BYTES[0],)): 1}),
                     _machine("loop", f"{call}x|y", {bytes((CALL_BYTES[0],)): 1})], 0)
    assert code_width(1) == 1 and code_width(len(CALL_BYTES)) == 1 and code_width(len(CALL_BYTES) + 1) == 2
    assert call_code(len(CALL_BYTES), 2) == bytes((CALL_BYTES[1], CALL_BYTES[0]))
    with pytest.raises(NetworkError, match="more than 1 code bytes"):
        call_code(len(CALL_BYTES), 1)
    stray = RuleNetwork([_machine("root", f"x{call}", {})], 0)  # a code that names no callee
    with pytest.raises(NetworkError, match="names no callee"):
        stray.step(stray.walk(stray.start(), b"x"), ord("y"))


def test_bodies_that_could_read_call_codes_are_refused():
    from tokenguide.json_schema.grammar import GrammarSink
    from tokenguide.json_schema.rule_network import network_from_placeholders

    sink = GrammarSink("[ ]?")
    rule = sink.rule("x")  # a rule placeholder, its body plain text
    with pytest.raises(UnsupportedSchemaError, match="control characters as text"):
        network_from_placeholders(f"[\\x00-\\x20]{rule}", sink)
    with pytest.raises(UnsupportedSchemaError, match="lookahead or an end anchor"):
        network_from_placeholders(f"(?!ab){rule}", sink)
    with pytest.raises(UnsupportedSchemaError, match="in a character class"):
        network_from_placeholders(f"[a{rule}]", sink)
    assert network_from_placeholders(f"a{rule}{sink.cut}b", sink).accepts(b"axb")


def test_compile_json_schema_network_path_reports_itself_and_checks_its_arguments():
    c = compile_json_schema(TREE, path="network")
    assert c.path == "network" and c.regex is None and c.grammar is None
    assert "requested" in c.reason and c.accepts(dumps(deep_tree(12))) and not c.accepts('{"value":101}')
    with pytest.raises(Exception, match="'auto', 'regex', 'grammar', 'network' or 'engine'"):
        compile_json_schema(TREE, path="networks")


# -- the guide -------------------------------------------------------------------------------


def _drive(guide, vocab, text: bytes, check) -> None:
    """Feed `text` to `guide` longest token first, calling `check(state, mask)` before each."""
    token_bytes = {i: vocab.id_to_bytes(i) for i in range(vocab.vocab_size)}
    by_first: dict[int, list[int]] = {}
    for i, b in token_bytes.items():
        if b:
            by_first.setdefault(b[0], []).append(i)
    pos = 0
    while pos < len(text):
        mask = guide.mask_bytes()
        check(guide.get_state(), mask)
        options = [i for i in by_first.get(text[pos], []) if text.startswith(token_bytes[i], pos)
                   and mask[i >> 3] >> (i & 7) & 1]
        assert options, (pos, text[pos:pos + 20])
        best = max(options, key=lambda i: len(token_bytes[i]))
        guide.advance(best, return_tokens=False)
        pos += len(token_bytes[best])
    assert guide.is_finished() or guide.mask_bytes()[vocab.eos_token_id >> 3] >> (vocab.eos_token_id & 7) & 1


def test_network_guide_masks_are_each_tokens_own_walk_and_the_cfg_guides(gpt2_vocabulary):
    from tokenguide.guides.network import NetworkGuide
    from tokenguide.guides.stateful import Guide

    vocab = gpt2_vocabulary
    net = compile_json_schema(RECURSIVE[1], path="network").network
    guide = Guide(NetworkGuide(net, vocab))
    cfg = Guide.from_json_schema(RECURSIVE[1], vocab, path="grammar")
    rnd = random.Random(3)
    sample = rnd.sample(range(vocab.vocab_size), 4000)
    doc = {"a": [1, [2, {"b": 3, "c": [[]]}]], "d": {}, "e": -40}
    steps = []

    def check(state, mask):
        steps.append(mask)
        for i in sample:
            b = vocab.id_to_bytes(i)
            want = bool(b) and bool(net.walk(state, b))
            assert bool(mask[i >> 3] >> (i & 7) & 1) == want, (i, b)

    _drive(guide, vocab, dumps(doc).encode(), check)
    cfg_steps = []
    _drive(cfg, vocab, dumps(doc).encode(), lambda state, mask: cfg_steps.append(mask))
    assert len(steps) == len(cfg_steps)
    for a, b in zip(steps, cfg_steps):
        assert a[:len(b)] == b  # the same language, the same vocabulary: the same masks


def test_network_guide_refuses_tokens_and_early_eos(gpt2_vocabulary):
    from tokenguide.guides.network import NetworkGuide

    vocab = gpt2_vocabulary
    g = NetworkGuide(compile_json_schema(TREE, path="network").network, vocab)
    s = g.initial_state
    with pytest.raises(InvalidTokenError, match="EOS"):
        g.get_next_state(s, vocab.eos_token_id)
    brace = vocab.get("{")[0]
    with pytest.raises(InvalidTokenError, match="not allowed here"):
        g.get_next_state(s, vocab.get("[")[0])
    s = g.get_next_state(s, brace)
    assert not g.is_final_state(s) and not g.must_terminate_state(s)
    for piece in ['"', "value", '":', "1", "}"]:
        s = g.get_next_state(s, vocab.get(piece)[0])
    assert g.is_final_state(s) and g.must_terminate_state(s)
    assert g.get_next_instruction(s).tokens == [vocab.eos_token_id]
    end = g.get_next_state(s, vocab.eos_token_id)
    assert end is None and g.get_next_instruction(end).tokens == [vocab.eos_token_id]
    with pytest.raises(Exception, match="RuleNetwork"):
        NetworkGuide("not a network", vocab)


def test_network_guide_with_unique_items_checked_on_the_values(gpt2_vocabulary):
    from tokenguide.guides.network import NetworkGuide
    from tokenguide.guides.stateful import Guide

    schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"},
                                                         "uniqueItems": True}, "meta": {}}}
    guide = Guide.from_json_schema(schema, gpt2_vocabulary, path="network")
    assert guide.compiled.path == "network" and guide.compiled.checks is not None
    assert isinstance(guide.source.inner, NetworkGuide)
    assert guide.accepts_tokens([])  # (nothing fed: the start)
    ok = '{"tags":["a","b"],"meta":[{"x":[]}]}'
    assert guide.compiled.accepts(ok) and not guide.compiled.accepts('{"tags":["a","a"]}')
    _drive(guide, gpt2_vocabulary, ok.encode(), lambda state, mask: None)


def test_callees_that_read_nothing_are_taken_and_cannot_loop():
    call = "\\x" + format(CALL_BYTES[0], "02x")
    code = {bytes((CALL_BYTES[0],)): 1}
    # root: "a", any number of calls of a rule that may read nothing, then "c"
    net = RuleNetwork([_machine("root", f"a(?:{call})*c", code), _machine("maybe", "b?")], 0)
    for text, ok in [("ac", True), ("abc", True), ("abbbc", True), ("a", False), ("abd", False), ("c", False)]:
        assert net.accepts(text.encode()) == ok, text
    tail = RuleNetwork([_machine("root", f"a{call}", code), _machine("maybe", "b?")], 0)
    assert tail.can_end(tail.walk(tail.start(), b"a")) and tail.accepts(b"ab") and not tail.accepts(b"abb")
    with pytest.raises(NetworkError, match="left-recursive"):
        RuleNetwork([_machine("root", f"{call}", code),
                     _machine("r", f"{call}?{call}x|y", {bytes((CALL_BYTES[0],)): 2}),
                     _machine("s", f"(?:{call})?z?", {bytes((CALL_BYTES[0],)): 1})], 0)


def test_member_rules_are_written_into_one_automaton(monkeypatch):
    """An object with many optional members is written as a chain of member rules (for Lark);
    the network writes the short, non-recursive ones into their callers, so that one
    configuration, not one per member skipped, reads the object (masks walk each one): up to
    four here (a declared key, the string machine of an undeclared one, what stays a call),
    against 79 without."""
    from tokenguide.json_schema import rule_network

    schema = {"type": "object", "properties": {f"p{i}": {"type": ["string", "null"]} for i in range(12)},
              "additionalProperties": True}
    net = compile_json_schema(schema, path="network").network
    rx = re.compile(compile_json_schema(schema, path="regex", max_recursion_depth=4).regex)
    for prefix in [b'{"', b'{"p3":null,"', b'{"p11":"a","zz":[[1]],"']:
        assert len(net.walk(net.start(), prefix)) <= 4, prefix
    monkeypatch.setattr(rule_network, "MAX_INLINE", 0)
    calls = compile_json_schema(schema, path="network").network
    assert len(calls.walk(calls.start(), b'{"')) > 40  # the chain of calls, without it (79)
    for doc in [{}, {"p0": None}, {"p2": "a", "p5": None, "other": {"x": [1]}}, {"p5": "a", "p2": None},
                {"p1": 1}, {"p11": "b", "p11x": True}]:
        text = dumps(doc)
        assert net.accepts(text.encode()) == (rx.fullmatch(text) is not None), text


@pytest.mark.parametrize("text", ["\\f", "\\v", "\\x05", "\\u0007", "\\U0000001e", "\\01", "[\\x05]", "\x05",
                                  "[\\x00-\\x1f]", "[^a]", "\\s"])
def test_text_that_writes_a_call_byte_is_refused(text):
    from tokenguide.json_schema.grammar import GrammarSink
    from tokenguide.json_schema.rule_network import network_from_placeholders

    sink = GrammarSink("[ ]?")
    rule = sink.rule("x")
    with pytest.raises(UnsupportedSchemaError, match="control characters as text"):
        network_from_placeholders(f"a{text}{rule}", sink)
    assert network_from_placeholders(f"[^\\x00-\\x1f]{rule}", sink).accepts(b"zx")  # a class that leaves them out
