"""minLength/maxLength of a patterned string checked on the values on the engine path
(json_schema.string_lengths, guides.value_checks), where the pattern and the lengths together are
a lexeme too large to write (AWS ARNs under maxLength 2,048).

Oracles: jsonschema for whole documents (CompiledSchema.accepts); for masks, the prefixes of every
valid document of a small language (each mask exactly the tokens that keep the text a prefix of
one, EOS exactly on documents), with the lexeme limit lowered so that small bounds are left to
the check too; on GPT-2's vocabulary, random generations near the bound never strand and end
valid. Refusals name keyword, pointer and reason."""

from __future__ import annotations

import itertools
import re
import json

import jsonschema
import pytest
from test_json_schema_unique_values import assert_agrees, check_masks_exact, greedy, guide_accepts, random_generations

from tokenguide import Guide
from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema, lexemes
from tokenguide.json_schema.string_lengths import LengthAutomaton

ARN = "^arn:aws(-[a-z]+)?:iam::[0-9]{12}:role/[a-zA-Z0-9+=,.@_/-]+$"
ROLE = {"type": "string", "pattern": ARN, "minLength": 20, "maxLength": 2048}
TREE = {"type": "object", "properties": {"role": ROLE, "kids": {"type": "array", "items": {"$ref": "#"}}},
        "additionalProperties": False}


def dumps(v) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def test_a_long_bounded_pattern_is_left_to_the_check_on_the_engine_path():
    compiled = compile_json_schema(TREE)
    assert compiled.path == "engine" and compiled.checks is not None
    head = "arn:aws:iam::123456789012:role/"
    docs = [{"role": head + "x" * n} for n in (0, 1, 2017, 2018, 2100)] + \
        [{"kids": [{"role": head + "é" * 2017}]}, {"kids": [{"role": head + "é" * 2018}]},
         {"role": "arn:aws:iam::1234:role/x"}, {"role": head + "x y"}, {"kids": [{"kids": [{"role": head + "a"}]}]}]
    assert_agrees(compiled, TREE, docs)


def test_an_any_of_of_annotations_says_nothing_beside_the_checked_lengths():
    """AWS ResilienceHub's KmsKeyId: `anyOf` of three unknown formats (annotations: each branch
    accepts every value) beside a pattern under maxLength 2,048. The anyOf is dropped, so one
    alternative holds the lengths and the grammar path takes them; before, it fell back to the
    depth-capped regex. A oneOf of such branches is no such thing: it accepts no value."""
    kms = {"type": "string", "maxLength": 2048, "pattern": ARN,
           "anyOf": [{"format": "AWS::KMS::Key.Arn"}, {"format": "AWS::KMS::Key.Id"}, {"description": "x"}]}
    schema = {"properties": {"key": kms}}  # (free-form values elsewhere: the engine path is wanted)
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped and compiled.checks is not None
    head = "arn:aws:iam::123456789012:role/"
    docs = [{"key": head + "x" * n} for n in (1, 2017, 2018)] + \
        [[[[{"key": 1}]]], {"a": {"b": {"c": {"d": []}}}}, {"key": "arn:aws:iam::1:role/x"}, {"key": 7}]
    assert_agrees(compiled, schema, docs)
    exclusive = {"properties": {"key": {**kms, "oneOf": kms["anyOf"]}}}
    with pytest.raises(UnsupportedSchemaError) as info:  # (three alternatives hold the lengths: refused)
        compile_json_schema(exclusive, path="engine")
    assert info.value.keyword == "maxLength"
    compiled = compile_json_schema({"properties": {"key": {"oneOf": kms["anyOf"]}}}, path="engine")
    assert not compiled.accepts(dumps({"key": "x"})) and compiled.accepts(dumps({"k": "x"}))


@pytest.mark.parametrize("schema, docs", [
    ({"anyOf": [{"format": "zz"}, {"type": "string"}], "type": ["string", "integer"]}, ["x", 1, None]),
    ({"if": {"anyOf": [{"format": "zz"}, {"type": "string"}]}, "then": {"type": "integer"}, "else": {"type": "string"}},
     ["x", 1, None]),
    ({"anyOf": [{"format": "date"}, {"format": "zz"}], "type": "string"}, ["x", "2020-01-01", 3]),
    ({"not": {"anyOf": [True, {"type": "string"}]}, "type": "array"}, None),  # (accepts nothing: refused)
    # a branch may mark members evaluated: unevaluatedProperties beside it stays refused by name
    ({"anyOf": [{}, {"properties": {"a": {}}}], "unevaluatedProperties": False}, None),
])
def test_an_any_of_with_a_branch_of_annotations_is_dropped_where_silent(schema, docs):
    from tokenguide.json_schema.normalize import any_of_says_nothing

    assert any_of_says_nothing([{"format": "AWS::KMS::Key.Arn"}, {"type": "string"}])
    assert not any_of_says_nothing([{"format": "uuid"}, {"type": "string"}])  # (a known format asserts)
    assert not any_of_says_nothing([{}, {"properties": {"a": {}}}])
    oracle = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for path in ("engine", "regex"):
        if docs is None:
            with pytest.raises(UnsupportedSchemaError):
                compile_json_schema(schema, path=path)
            continue
        compiled = compile_json_schema(schema, path=path)
        assert [compiled.accepts(dumps(d)) for d in docs] == [oracle.is_valid(d) for d in docs]


def test_a_final_run_bounded_by_the_max_length_is_counted_by_the_check_alone():
    # `[^/].{0,1023}` after at least 9 characters, under maxLength 1,024: the run's own bound
    # can never bind, so the check's automaton is the pattern with `.*` (AWS FSx's access points;
    # the 1,023-fold count passed the check's 4,000 states)
    from tokenguide.json_schema.patterns import pattern_within

    pattern = "^arn:[^:]{1,63}:[^:]{0,63}:(?:|\\d{12}):[^/].{0,1023}$"
    assert "1023" not in pattern_within(pattern, 1024) and "1023" in pattern_within(pattern, 1040)
    assert pattern_within(pattern, None) == pattern_within(pattern, 2000)  # (no bound: as written)
    schema = {"type": "object", "additionalProperties": False, "properties": {
        "arn": {"type": "string", "pattern": pattern, "maxLength": 1024}, "kids": {"type": "array", "items": {"$ref": "#"}}}}
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and compiled.checks is not None
    head = "arn:s3:x::"
    docs = [{"arn": head + "k" + "é" * n} for n in (0, 1012, 1013, 1014, 1100)] + \
        [{"kids": [{"arn": "arn:a:b:123456789012:x"}]}, {"arn": "arn:a:b:12:x"}, {"arn": head + "/x"},
         {"kids": [{"kids": [{"arn": "arn:" + "a" * 63 + "::" + "1" * 12 + ":" + "q" * 930}]}]},
         {"arn": "arn:" + "a" * 63 + "::" + "1" * 12 + ":" + "q" * 944}]
    assert_agrees(compiled, schema, docs)


@pytest.mark.parametrize("pattern, within, dropped, kept", [
    ("^https://([.\\-_a-zA-Z0-9]+/?){3,1016}$", 256, ["1016"], ["{3,"]),  # a group: at least 1 a time
    ("[a-z0-9][\\.\\-a-z0-9]{1,61}[a-z0-9]", 63, ["61"], []),  # searched: the match is within it too
    ("^a{1,3}(b{0,100}|c{2,5})$", 50, ["100"], ["{1,3}", "{2,5}"]),  # an alternative keeps its own
    ("^(ab{0,40}){2,9}$", 30, ["40"], ["{2,9}"]),  # each time round: 30 less the other rounds and the a
    ("^(?=.{1,8}$)x{0,60}$", 50, [], ["{1,8}"]),  # a lookahead's own bound under the length stays
    ("^(?=.{1,255}$)[a-z]+(\\.[a-z]+)*$", 255, ["255"], []),  # AWS hostnames: what it reads is within it
    ("^(?!a{2,3}$)a{1,5}$", 4, ["{1,5}"], ["{2,3}"]),  # (a negative one reads from where it stands)
    ("^x(?=a{0,3}$)a*$", 4, ["{0,3}"], []),  # after `x`, 3 characters are left to read
])
def test_counted_repeats_the_length_keeps_are_written_unbounded(pattern, within, dropped, kept):
    """patterns._loosen: a repeat whose bound no string of at most `within` characters can
    pass is left unbounded; strings within the length match exactly as before."""
    import random

    from tokenguide.json_schema.patterns import pattern_to_string_body, pattern_within

    loose, exact = pattern_within(pattern, within), pattern_to_string_body(pattern)
    assert all(d not in loose for d in dropped) and all(k in loose for k in kept), loose
    rng = random.Random(5)
    alphabet = "abc:/.-9xh" if "https" not in pattern else "a./-"
    texts = ["https://" + "a/" * n for n in (0, 2, 3, 100, 124, 125)] + ["a" + "b" * n for n in (0, 40, 41, 48)]
    texts += ["a" + "b" * n + "a" + "b" * m for n, m in ((0, 0), (28, 0), (20, 8), (3, 4))] + ["a" * 3 + "c" * 5]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(within + 1))) for _ in range(300)]
    for t in texts:
        if len(t) <= within:
            body = json.dumps(t)[1:-1]
            assert bool(re.fullmatch(loose, body)) == bool(re.fullmatch(exact, body)), t


def test_a_lookahead_pattern_under_a_long_max_length_is_left_to_the_check():
    """AWS SSM OpsItem titles: `^(?!\\s*$).+$` under maxLength 1,024. With the lengths fitted in,
    the lookahead times the count passed the grammar path's 2,000 states (the depth-capped regex
    was taken); now the pattern alone is the lexeme and the lengths are checked on the values."""
    schema = {"type": "object", "properties": {"title": {"type": "string", "pattern": "^(?!\\s*$).+$", "maxLength": 1024},
                                                "kids": {"type": "array", "items": {"$ref": "#"}}}}
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and compiled.checks is not None and not compiled.depth_capped
    docs = [{"title": t} for t in ("a", "   ", " a ", "a" * 1024, "a" * 1025, "\t\n", "é" * 1024, "x\ny")] + \
        [{"kids": [{"kids": [{"title": " "}]}]}, {"kids": [{"kids": [{"title": "  b" * 341}]}]}]
    assert_agrees(compiled, schema, docs)


def test_a_pattern_with_a_lookahead_keeps_it_beside_the_checked_lengths():
    schema = {"type": "array", "items": {"type": "string", "pattern": "^(?!arn:aws-cn:)" + ARN[1:], "maxLength": 2048}}
    compiled = compile_json_schema(schema, path="engine")
    assert compiled.checks is not None
    head = "arn:aws:iam::123456789012:role/"
    for v, ok in (([head + "x"], True), ([head + "x" * 2018], False), (["arn:aws-cn:iam::123456789012:role/x"], False)):
        assert compiled.accepts(dumps(v)) == ok == jsonschema.Draft202012Validator(schema).is_valid(v), v


@pytest.mark.parametrize("pattern, lo, hi", [("^a[ab]*$", 0, 6), ("^(ab)+$", 3, 9), ('^[a"é]*b$', 2, 5), ("^x.*$", 1, None),
                                             ("^(?!ab)[abé]+$", 1, 4)])
def test_length_levels_against_enumeration(pattern, lo, hi):
    """The automaton's answer for every text of a small alphabet (its JSON bytes: an escape and a
    UTF-8 character are one character each): a whole string exactly when re and the bounds say
    so, and every prefix of one viable."""
    auto = LengthAutomaton(pattern, lo, hi)
    for n in range(8):
        for chars in itertools.product('ab"xé', repeat=n):
            text = "".join(chars)
            state, count, viable = auto.begin, 0, True
            for byte in json.dumps(text, ensure_ascii=False)[1:].encode():
                state, added = auto.step(state, byte)
                count += added
                if state < 0:
                    break
                viable = viable and (auto.viable(state, count) or auto.ends(state, count))
            want = re.search(pattern, text) is not None and lo <= len(text) <= (hi if hi is not None else 99)
            assert (state >= 0 and auto.ends(state, count)) == want, (pattern, text)
            if want:
                assert count == len(text) and viable, (pattern, text)


@pytest.mark.parametrize("path", ["engine"])
def test_masks_are_exact_over_a_small_language(path, monkeypatch):
    """With the lexeme limit lowered to 3 states, `^a+[b"é]*$` under lengths 2..4 is left to the
    check: each mask allows exactly the tokens that keep the text a prefix of a document."""
    monkeypatch.setattr(lexemes, "MAX_LEXEME_STATES", 3)
    schema = {"type": "array", "items": {"type": "string", "pattern": '^a+[b"é]*$', "minLength": 2, "maxLength": 4},
              "maxItems": 2}
    words = [w for n in range(2, 5) for w in map("".join, itertools.product('ab"é', repeat=n)) if re.fullmatch('a+[b"é]*', w)]
    docs = {dumps([])} | {dumps([w]) for w in words} | {dumps([w, v]) for w in words for v in words}
    extra = ['"a', 'b"', '\\"', "é", "\\", "aa", "ab\"", "\u00e9\""]
    assert check_masks_exact(schema, docs, extra, path, probes=500) == 500


def test_gpt2_generations_near_the_bound_never_strand_and_end_valid(gpt2_vocabulary):
    schema = {"$ref": "#/$defs/t", "$defs": {"t": {"type": "object", "properties": {
        "name": {"type": "string", "pattern": "^[a-z]+(-[a-z0-9]+)*$", "maxLength": 700},
        "kids": {"type": "array", "items": {"$ref": "#/$defs/t"}}}, "additionalProperties": False}}}
    guide = Guide.from_json_schema(schema, gpt2_vocabulary, whitespace_pattern="")
    assert guide.compiled.checks is not None
    finished = random_generations(guide, gpt2_vocabulary, 5, 6, 60, 0.3, (b'"', b"}", b"]"), 0.5)
    assert finished
    for text in finished:
        assert jsonschema.Draft202012Validator(schema).is_valid(json.loads(text)), text
    assert guide_accepts(guide, greedy(gpt2_vocabulary, dumps({"name": "a" * 700})))
    assert not guide_accepts(guide, greedy(gpt2_vocabulary, dumps({"name": "a" * 701})))
    guide.reset()
    for t in greedy(gpt2_vocabulary, '{"name":"' + "a" * 698):
        guide.advance(t, return_tokens=False)
    allowed = {gpt2_vocabulary.id_to_bytes(t) for t in guide.get_tokens() if t != gpt2_vocabulary.eos_token_id}
    # two characters left: `-` needs one after it, `-a` fits, `aaa` and `-ab` do not
    assert {b"a", b"aa", b"-", b'"', b'"}'} <= allowed and not {b"aaa", b"-ab", b"ab-"} & allowed


@pytest.mark.parametrize("schema, pointer, why", [
    ({"anyOf": [{"type": "string", "pattern": ARN, "maxLength": 2048}, {"type": "string", "pattern": "^x"}]},
     "#/anyOf/0/maxLength", "several alternatives accept strings"),
    ({"type": "string", "allOf": [{"pattern": ARN}, {"pattern": "[0-9]{12}"}], "maxLength": 2048}, "#/maxLength",
     "only beside exactly one pattern"),
    # AWS instance profiles: two counted runs the lengths do not keep, past 10,000 states
    ({"type": "string", "maxLength": 2048, "minLength": 1,
      "pattern": "^arn:aws(-[^:]+)?:iam::[0-9]{12}:instance-profile/([!-~]{1,510}/)?([\\w+=,.@-]{1,128})$"},
     "#/maxLength", "the pattern's automaton for the lengths check"),
    ({"not": {"type": "string", "pattern": ARN, "maxLength": 2048}}, None, None),
])
def test_what_cannot_be_checked_exactly_is_refused_by_name(schema, pointer, why):
    if pointer is None:  # (under `not`: the grammar path's lexeme refusal, as before)
        with pytest.raises(UnsupportedSchemaError):
            compile_json_schema({"type": "array", "items": schema}, path="engine")
        return
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(schema, path="engine")
    assert info.value.keyword == "maxLength" and info.value.pointer == pointer and why in str(info.value)


@pytest.mark.parametrize("path", ["engine"])
def test_a_token_into_a_state_that_cannot_end_within_the_bound_is_refused(path, monkeypatch):
    """`^(a+|b{9})$` under maxLength 5: a `b` can never end, far from the bound as it is."""
    monkeypatch.setattr(lexemes, "MAX_LEXEME_STATES", 3)
    schema = {"type": "string", "pattern": "^(a+|b{9})$", "maxLength": 5}
    docs = {dumps("a" * n) for n in range(1, 6)}
    assert check_masks_exact(schema, docs, ["b", "ab", "aa"], path) > 5


@pytest.mark.parametrize("alternatives, why", [
    ([[{"pattern": "^a", "maxLength": 3}], [{"maxLength": 2}]], "several alternatives accept strings"),
    ([[{"pattern": "^a", "maxLength": 3}], [{"pattern": "^a", "maxLength": 4}]], "several alternatives accept strings"),
    ([[{"pattern": "^a", "maxLength": 3}], [{"maxLength": 3, "pattern": "^a"}]], None),  # (one schema, two ways)
    ([[{"pattern": "^a", "maxLength": 3}, {"pattern": "b$"}]], "exactly one pattern"),
    ([[{"pattern": "^a", "format": "date-time", "maxLength": 3}]], "'format' beside the lengths"),
    ([[{"pattern": "^a", "enum": ["ab"], "maxLength": 3}]], "'enum' beside the lengths"),
    ([[{"pattern": "^[^\\s\\S]$", "maxLength": 3}]], "matches no string"),
    ([[{"pattern": "(?<=a)b", "maxLength": 3}]], "lookbehind"),
    ([[{"pattern": "^a", "format": "AWS::IAM::Role.Arn", "maxLength": 3}]], None),  # an unknown format: an annotation
])
def test_which_places_the_lengths_check_takes(alternatives, why):
    from tokenguide.json_schema.string_lengths import lengths_refusal

    got = lengths_refusal(alternatives)
    assert (got is None) if why is None else (got is not None and why in got), got


def test_one_string_schema_reached_along_two_alternatives_is_checked():
    """An object's variants share the definition of a patterned string of up to 2,048 characters
    (AWS SAM's event bus names): every alternative there holds the same string keywords, so the
    lengths are left to the check; documents agree with jsonschema around the bound."""
    schema = {"$defs": {"arn": {"type": "string", "pattern": ARN, "maxLength": 2048}},
              "anyOf": [{"type": "object", "properties": {"k": {"$ref": "#/$defs/arn"}, "a": {"type": "integer"}},
                         "required": ["a"], "additionalProperties": False},
                        {"type": "object", "properties": {"k": {"$ref": "#/$defs/arn"}, "b": {"type": "boolean"}},
                         "required": ["b"], "additionalProperties": False}]}
    compiled = compile_json_schema(schema, path="engine")
    assert compiled.checks is not None
    validator = jsonschema.Draft202012Validator(schema)
    head = "arn:aws:iam::123456789012:role/"
    verdicts = set()
    for n in (1, 2047 - len(head), 2048 - len(head), 2049 - len(head)):
        for doc in ({"k": head + "r" * n, "a": 1}, {"k": head + "r" * n, "b": True}, {"k": "x" * n, "a": 1}):
            want = validator.is_valid(doc)
            verdicts.add(want)
            assert compiled.accepts(dumps(doc)) == want, (n, list(doc))
    assert verdicts == {True, False}
