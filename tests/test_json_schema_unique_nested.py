"""Unique arrays whose items hold unique arrays (json_schema.value_checks.NestedDrops).

The item automaton of the outer array leaves the inner arrays' uniqueItems out (a superset,
the inner arrays are checked at their own places). That answers "can a new item still be
written" as the exact language would when every inner array is unbounded with infinitely many
possible items; otherwise the outer array is refused by name, as before.
Oracles: jsonschema on whole documents, the masks on prefixes whose continuations are known,
random GPT-2 generations that must never strand and must end valid.
"""

from __future__ import annotations

import itertools
import json

import pytest
from test_json_schema_arrays import dumps, valid
from test_json_schema_unique_values import char_vocabulary, greedy, guide_accepts, random_generations

from tokenguide import Guide
from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema
from tokenguide.json_schema.text_counts import distinct_values_at_least, infinitely_many, suffixes_around_marks_infinite
from tokenguide.regex.lazy import lazy_regex

PATHS = ("regex", "engine")
TAGS = {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "uniqueItems": True}
ENTRIES = {"type": "array", "uniqueItems": True, "items": {
    "type": "object", "additionalProperties": False, "required": ["t"],
    "properties": {"n": {"type": "string", "maxLength": 2}, "t": TAGS}}}


#: ENTRIES with at most two tags: the inner items are infinitely many, so a full inner array
#: never blocks a new outer item that the superset automaton finds (`_fresh_items`)
CAPPED = {**ENTRIES, "items": {**ENTRIES["items"], "properties": {"n": {"type": "string", "maxLength": 2},
                                                                  "t": {**TAGS, "maxItems": 2}}}}


#: ENTRIES with tags of up to 2,048 characters (AWS CloudTrail's field selectors): counting the
#: inner items' texts in full passed the automaton's limits; those of at most 17 characters are
#: enough to know the inner items are fresh (`_fresh_items`)
LONG = {**ENTRIES, "items": {**ENTRIES["items"], "properties": {"n": {"type": "string", "maxLength": 2}, "t": {
    "type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 2048}, "uniqueItems": True}}}}


def allowed_after(guide, tokens: list[str], prefix: str) -> set[str]:
    """The tokens (texts; "EOS") `guide` allows after the characters of `prefix`, one token each."""
    guide.reset()
    for ch in prefix:
        guide.advance(tokens.index(ch), return_tokens=False)
    return {tokens[i] if i < len(tokens) else "EOS" for i in guide.get_tokens()}


def entries_documents() -> list:
    tags = [[], ["a"], ["b"], ["a", "b"], ["b", "a"], ["a", "a"], ["ab", "a", "ab"], ["A"], [""]]
    items = [{"t": t} for t in tags] + [{"n": "x", "t": ["a"]}, {"n": "x", "t": ["a", "a"]}]
    out: list = [[]]
    for n in (1, 2, 3):
        out += [list(c) for c in itertools.product(items, repeat=n)][:: 3 if n == 3 else 1]
    return out


@pytest.mark.parametrize("schema", [ENTRIES, CAPPED, LONG], ids=["entries", "capped", "long"])
@pytest.mark.parametrize("path", PATHS)
def test_documents_agree_with_jsonschema(path, schema):
    compiled = compile_json_schema(schema, path=path)
    assert compiled.checks is not None
    judged = [0, 0]
    for v in entries_documents():
        want = valid(schema, v)
        assert compiled.accepts(dumps(v)) == want, v
        judged[want] += 1
    assert min(judged) >= 20, judged


@pytest.mark.parametrize("path", PATHS)
def test_masks_at_the_places_where_the_two_checks_meet(path):
    """An outer item that could only end equal to an earlier one is refused where it would
    commit to that; an inner duplicate cannot end; the item may still grow into a new one
    (another tag), so nothing strands."""
    vocab, tokens = char_vocabulary(['"]', '"a"', "]}", "}]"])
    guide = Guide.from_json_schema(ENTRIES, vocab, whitespace_pattern="", path=path)

    def allowed(prefix: str) -> set[str]:
        return allowed_after(guide, tokens, prefix)

    # closing the tags here leaves only `}`, which would end an item equal to the first one
    assert allowed('[{"t":["a"]},{"t":["a"') == {","}
    assert {"]", "]}", ","} <= allowed('[{"t":["a"]},{"t":["b"')
    assert allowed('[{"n":"x","t":["a"]},{"n":"x","t":["a"') == {","}
    assert "]" in allowed('[{"n":"x","t":["a"]},{"t":["a"')
    inner_again = allowed('[{"t":["a"]},{"t":["a","a')
    assert '"' not in inner_again and '"]' not in inner_again and "b" in inner_again
    assert "EOS" in allowed('[{"t":["a"]},{"t":["a","b"]}]')


@pytest.mark.parametrize("schema", [ENTRIES, CAPPED, LONG], ids=["entries", "capped", "long"])
@pytest.mark.parametrize("path", PATHS)
def test_gpt2_random_generations_never_strand_and_end_valid(gpt2_vocabulary, path, schema):
    vocab = gpt2_vocabulary
    guide = Guide.from_json_schema(schema, vocab, path=path, whitespace_pattern="")
    finished = random_generations(guide, vocab, 5, 10, 150, 0.4, (b'"', b"]", b"}"), 0.6)
    for text in finished:
        assert valid(schema, json.loads(text)), text
    ended = len(finished)
    assert ended >= 3
    doc = [{"t": ["a", "b"]}, {"n": "x", "t": ["a", "b"]}, {"t": ["b", "a"]}]
    assert guide_accepts(guide, greedy(vocab, dumps(doc)))
    assert not guide_accepts(guide, greedy(vocab, dumps(doc + [{"t": ["a", "b"]}])))
    assert not guide_accepts(guide, greedy(vocab, dumps([{"t": ["a", "b", "a"]}])))


@pytest.mark.parametrize("path", PATHS)
def test_masks_where_a_capped_inner_array_fills(path):
    vocab, tokens = char_vocabulary(['"]', '"a"', "]}", "}]"])
    guide = Guide.from_json_schema(CAPPED, vocab, whitespace_pattern="", path=path)
    # closing "b" would fill the inner array, which then must close and repeat the first item
    after_b = allowed_after(guide, tokens, '[{"t":["a","b"]},{"t":["a","b')
    assert '"' not in after_b and '"]' not in after_b and "b" in after_b
    after_c = allowed_after(guide, tokens, '[{"t":["a","b"]},{"t":["a","c"')
    assert after_c >= {"]", "]}"} and "," not in after_c  # (a third tag: past maxItems)


@pytest.mark.parametrize("inner, why", [
    ({"type": "array", "uniqueItems": True, "items": {"type": "string", "maxLength": 3}}, "not a small finite set"),
    ({"type": "array", "uniqueItems": True, "items": {"enum": [f"w{i}" for i in range(300)]}}, "not a small finite set"),
])
def test_bounded_or_finite_inner_arrays_keep_the_outer_refused(inner, why):
    """A full inner array (maxItems reached, or every one of finitely many items used) leaves
    few continuations, where the superset automaton would offer duplicates: refused by name."""
    schema = {"type": "array", "uniqueItems": True, "items": {
        "type": "object", "additionalProperties": False, "required": ["t"], "properties": {"t": inner}}}
    with pytest.raises(UnsupportedSchemaError) as exc:
        compile_json_schema(schema)
    assert exc.value.keyword == "uniqueItems" and exc.value.pointer == "#/uniqueItems"
    assert why in str(exc.value)


def test_distinct_values_at_least_counts_texts_without_recursion():
    small = lazy_regex("(a|b|cc)?d{0,2}")  # 4 x 3 texts
    assert distinct_values_at_least(small, 12) and not distinct_values_at_least(small, 13)
    assert distinct_values_at_least(lazy_regex("a(b|c)*"), 10 ** 9)  # a cycle
    assert not distinct_values_at_least(lazy_regex("ab|ab"), 2)
    long = lazy_regex("[ab]{5000}")  # 5,000 states deep: counted on a stack of its own
    assert distinct_values_at_least(long, 2 ** 64) and not distinct_values_at_least(lazy_regex("a{5000}"), 2)


def test_infinitely_many_reads_cycles():
    assert infinitely_many(lazy_regex('"[a-z]*"'))
    assert not infinitely_many(lazy_regex('"[a-z]{0,3}"|null'))
    assert not infinitely_many(lazy_regex("(?:w[0-9]{1,2}){1,3}"))


def test_a_branch_that_repeats_a_ref_already_applied_is_no_recursion():
    """`allOf [X, anyOf [X, Y]]`: the branch X is already true there (X and X), not a $ref back
    into X; the regex path is not depth-capped for it (the unique check's item schemas are built so)."""
    schema = {"$defs": {"p": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
                              "additionalProperties": False},
                        "e": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"],
                              "additionalProperties": False}},
              "allOf": [{"$ref": "#/$defs/p"}, {"anyOf": [{"$ref": "#/$defs/p"}, {"$ref": "#/$defs/e"}]}]}
    regex = compile_json_schema(schema, path="regex")
    assert regex.path == "regex" and not regex.depth_capped
    compiled = compile_json_schema(schema)
    assert compiled.path == "engine"
    for v in ({"name": "a"}, {"id": 1}, {"name": 1}, {}, {"name": "a", "id": 2}):
        assert regex.accepts(dumps(v)) == compiled.accepts(dumps(v)) == valid(schema, v), v


WORDS = [f"w{i}" for i in range(300)]
LICENSES = {"type": "array", "uniqueItems": True, "items": {"enum": WORDS}}


def records(order: tuple) -> dict:
    props = {"licenses": LICENSES, "notes": {"type": "string"}}
    return {"type": "array", "uniqueItems": True, "items": {
        "type": "object", "additionalProperties": False, "required": ["licenses"],
        "properties": {k: props[k] for k in order}}}


@pytest.mark.parametrize("path", PATHS)
def test_a_finite_inner_array_followed_by_a_member_that_grows_without_bound(path):
    """Inner items from 300 words (all of them can be used up): the outer check is still exact
    because after the inner array a string member may always follow (the marked automaton)."""
    schema = records(("licenses", "notes"))
    compiled = compile_json_schema(schema, path=path)
    assert compiled.checks is not None
    docs = [[{"licenses": ["w1"]}, {"licenses": ["w1"]}], [{"licenses": ["w1"]}, {"licenses": ["w1"], "notes": ""}],
            [{"licenses": ["w1", "w1"]}], [{"licenses": ["w1", "w2"]}, {"licenses": ["w2", "w1"]}],
            [{"licenses": [], "notes": "a"}, {"licenses": [], "notes": "a"}], [{"licenses": ["x"]}], []]
    judged = [0, 0]
    for v in docs:
        want = valid(schema, v)
        assert compiled.accepts(dumps(v)) == want, v
        judged[want] += 1
    assert min(judged) >= 2


def test_a_finite_inner_array_that_ends_the_item_is_refused():
    """With the inner array last, an item that has used up its words can only close: the
    superset automaton would still offer a repeated word there. Refused by name."""
    with pytest.raises(UnsupportedSchemaError) as exc:
        compile_json_schema(records(("notes", "licenses")))
    assert exc.value.pointer == "#/uniqueItems" and "not a small finite set" in str(exc.value)


def test_suffixes_around_marks():
    mark = 1
    assert suffixes_around_marks_infinite(lazy_regex(r'\{"a":\x01(?:,"n":"[a-z]*")?\}'), mark)
    assert not suffixes_around_marks_infinite(lazy_regex(r'\{(?:"n":"[a-z]*",)?"a":\x01\}'), mark)
    assert suffixes_around_marks_infinite(lazy_regex(r'"[a-z]*"'), mark)  # no mark at all
