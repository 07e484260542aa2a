"""`format: "regex"` checked on the values (json_schema.regex_strings, guides.value_checks): strings that
must be valid ECMA-262 regexes (u flag), beside the regex or the grammar.

Oracle: Node's own parser, `new RegExp(s, "u")`, for documents (CompiledSchema.accepts, both
paths) and for masks: over a small alphabet, every token a mask allows leads to a text that
Node completes to a valid regex (regex.ecma_syntax.completion, checked by Node), and every token it
refuses leads to a text no string of the alphabet up to a length makes valid. On GPT-2's
vocabulary, random generations never strand and end valid for Node. The refusals name keyword,
pointer and reason."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from ecma_oracle import node_valid
from test_json_schema_unique_values import char_vocabulary, greedy, guide_accepts, random_generations

from tokenguide import Guide
from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema
from tokenguide.regex.ecma_syntax import completion

PATHS = ("regex", "engine")
REGEX = {"type": "string", "format": "regex"}
JOB = {  # (GitLab CI's coverage and mergify's regexes, in one schema)
    "type": "object",
    "properties": {
        "coverage": {"type": "string", "format": "regex", "pattern": "^/.+/$"},
        "regexes": {"type": "array", "items": {"format": "regex", "type": "string"}},
        "name": {"type": "string"},
    },
    "additionalProperties": False,
}
RECURSIVE = {"$ref": "#/$defs/node", "$defs": {"node": {
    "type": "object", "properties": {"match": REGEX, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
    "additionalProperties": False}}}

SAMPLES = ["", "a", "a+", "^/x/$", ".*+", "a{2,1}", "a{1,2}", "(?<n>a)\\k<n>", "\\k<n>", "(a", "a)", "[z-a]",
           "[a-z]", "\\p{L}", "\\p{Letter}", "\\p{Foo}", "(?=a)*", "\\1(a)", "\\2(a)", "{", "a|*", "\\/", "\\-",
           "[\\-]", "\\u{10FFFF}", "\\u{110000}", "\\c", "\\cA", "(?<a>x)(?<a>y)", "x**", "a??", "[\\d-z]",
           "Code coverage: \\d+\\.\\d+", "é+", "\\é", "\n", "\"", "a\\\\b"]


@pytest.mark.parametrize("path", PATHS)
def test_documents_agree_with_node(path):
    want = node_valid(SAMPLES)
    assert True in want and False in want
    for schema, wrap in ((REGEX, lambda s: s), (JOB, lambda s: {"regexes": [s, "ok"]})):
        compiled = compile_json_schema(schema, path=path)
        assert compiled.checks is not None
        for s, ok in zip(SAMPLES, want):
            text = json.dumps(wrap(s), ensure_ascii=False, separators=(",", ":"))
            assert compiled.accepts(text) == ok, (s, ok)


def test_recursive_schemas_check_every_level():
    compiled = compile_json_schema(RECURSIVE)
    assert compiled.path == "engine" and compiled.checks is not None
    good = {"match": "a+", "kids": [{"match": "b*", "kids": [{"match": "(c)"}]}]}
    bad = {"match": "a+", "kids": [{"match": "b*", "kids": [{"match": "(c"}]}]}
    assert compiled.accepts(json.dumps(good, separators=(",", ":")))
    assert not compiled.accepts(json.dumps(bad, separators=(",", ":")))


def test_the_framing_pattern_is_checked_with_the_format():
    compiled = compile_json_schema(JOB)
    for s, ok in (("/a+/", True), ("/(a/", False), ("a+", False), ("//", False), ("/x{2}/", True)):
        assert compiled.accepts(json.dumps({"coverage": s})) == ok, s


@pytest.mark.parametrize("schema, keyword, pointer, why", [
    ({"type": "string", "format": "regex", "maxLength": 5}, "format", "#/format", "'maxLength' beside it"),
    ({"type": "string", "format": "regex", "pattern": "^a"}, "format", "#/format", "'pattern' beside it"),
    ({"anyOf": [REGEX, {"type": "string", "pattern": "^x"}]}, "format", "#/anyOf/0/format",
     "accepts strings that are not regexes"),
    ({"not": {"type": "string", "format": "regex"}}, "not", "#/not", "not under a `not`"),
    ({"type": "array", "items": REGEX, "uniqueItems": True}, "uniqueItems", "#/uniqueItems",
     "format 'regex' is checked on the values"),
])
def test_what_cannot_be_checked_exactly_is_refused_by_name(schema, keyword, pointer, why):
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(schema, path="engine")
    assert (info.value.keyword, info.value.pointer) == (keyword, pointer) and why in str(info.value)


def test_value_checks_off_refuses_the_format():
    with pytest.raises(UnsupportedSchemaError, match="format 'regex' is checked on the values"):
        compile_json_schema(REGEX, value_checks=False)


ALPHABET = ["a", "(", ")", "*", "{", "}", "1", ",", "\\", "?"]


@pytest.mark.parametrize("path", PATHS)
def test_masks_match_node_over_a_small_alphabet(path):
    """Every prefix up to 3 characters: an allowed token's text completes to a regex Node takes;
    a refused one's text extends to none within 4 more characters of the alphabet."""
    vocab, tokens = char_vocabulary(['"', *ALPHABET])
    guide = Guide.from_json_schema(REGEX, vocab, whitespace_pattern="", path=path)
    prefixes = ["".join(p) for n in range(4) for p in itertools.product(ALPHABET, repeat=n)]
    allowed: dict[str, bool] = {}
    for p in prefixes:
        if any(allowed.get(p[:i]) is False for i in range(1, len(p) + 1)):
            continue
        guide.reset()
        for ch in '"' + json.dumps(p)[1:-1]:
            guide.advance(tokens.index(ch), return_tokens=False)
        got = set(guide.get_tokens())
        for ch in ALPHABET:
            text = json.dumps(p + ch)[1:-1]
            allowed[p + ch] = tokens.index(text[len(json.dumps(p)[1:-1])]) in got
        allowed[p + '"'] = tokens.index('"') in got
    said_yes = [p for p, ok in allowed.items() if ok and not p.endswith('"')]
    done = [p[:-1] for p, ok in allowed.items() if p.endswith('"')]
    verdicts = node_valid([p + completion(p) for p in said_yes] + done)
    assert all(verdicts[:len(said_yes)]), [p for p, v in zip(said_yes, verdicts) if not v][:5]
    assert [ok for p, ok in allowed.items() if p.endswith('"')] == verdicts[len(said_yes):]
    said_no = sorted(p for p, ok in allowed.items() if not ok and not p.endswith('"'))
    assert said_no and said_yes
    tails = ["".join(t) for n in range(5) for t in itertools.product(ALPHABET, repeat=n)]
    sample = random.Random(5).sample(said_no, min(40, len(said_no)))
    texts = [p + t for p in sample for t in tails]
    assert not any(node_valid(texts))


@pytest.mark.parametrize("path", PATHS)
def test_gpt2_random_generations_never_strand_and_end_valid(gpt2_vocabulary, path):
    guide = Guide.from_json_schema(JOB, gpt2_vocabulary, path=path, whitespace_pattern="")
    finished = random_generations(guide, gpt2_vocabulary, 11, 16, 60, 0.4, (b'"', b"]", b"}"), 0.5)
    assert len(finished) >= 4
    docs = [json.loads(t) for t in finished]
    regexes = [s for d in docs for s in ([d["coverage"]] if "coverage" in d else []) + d.get("regexes", [])]
    assert regexes and all(node_valid(regexes)), regexes


def test_gpt2_documents_agree_with_node(gpt2_vocabulary):
    guide = Guide.from_json_schema(JOB, gpt2_vocabulary)
    want = node_valid(SAMPLES)
    for s, ok in zip(SAMPLES, want):
        text = json.dumps({"regexes": [s]}, ensure_ascii=False, separators=(",", ":"))
        assert guide_accepts(guide, greedy(gpt2_vocabulary, text)) == ok, s
