"""Unicode property escapes in `pattern` (`\\p{L}`, `\\P{N}`, `\\p{gc=Nd}`), read as ECMA-262's
`u` mode does: AWS CloudFormation's tag values (`^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$`) were
refused ("bad escape \\p"). Judged against the `regex` module, which reads property escapes
(re does not), on characters whose category is the same in its Unicode version and in the
table tokenguide pins (tokenguide.regex.unicode_categories)."""

from __future__ import annotations

import json
import random
import unicodedata

import pytest
import regex
from grammar_oracle import acceptor

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema
from tokenguide.regex import unicode_tables
from tokenguide.regex.properties import UNICODE_VERSION, UnknownPropertyError, property_ranges
from tokenguide.regex.ranges import contains

PATTERNS = [
    "^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$",
    "^\\p{Lu}\\P{L}+$",
    "[^\\p{N}]",
    "^\\p{gc=Nd}{2}$",
    "\\p{Letter}x",
    "^[\\P{Z}]+$",
    "^\\p{General_Category=Punctuation}|\\p{Sc}$",
    "^(?!\\p{Lu})\\p{L}+$",
]
# letters of several scripts and cases, digits of several systems, separators, punctuation,
# symbols, a mark, a control, and JSON's escaped characters
CHARS = ["a", "Z", "é", "Ж", "ǅ", "ʰ", "中", "1", "٣", "Ⅻ", "²", " ", "\u3000", "\u2028", "_", "!", "-", "(",
         "$", "€", "+", "😀", "\u0301", "\t", '"', "\\", "x"]


def _oracle(pattern: str):
    # (ECMA's `$` is the end of the input; Python's also matches before a final newline)
    return regex.compile(pattern.replace("$", "\\Z"), regex.V1)


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("path", ["regex", "engine"])
def test_a_pattern_with_property_escapes_agrees_with_the_regex_module(pattern, path):
    oracle = _oracle(pattern)
    accepts = acceptor(compile_json_schema({"type": "string", "pattern": pattern}, path=path))
    rng = random.Random(PATTERNS.index(pattern))
    verdicts = set()
    for _ in range(250):
        s = "".join(rng.choice(CHARS) for _ in range(rng.randint(0, 4)))
        expected = oracle.search(s) is not None
        verdicts.add(expected)
        assert accepts(json.dumps(s, ensure_ascii=False)) == expected, s
    assert verdicts == {True, False}


def test_the_category_table_is_pinned_with_the_other_unicode_tables():
    assert UNICODE_VERSION == unicode_tables.UNICODE_VERSION
    letters = property_ranges("L")
    assert all(contains(letters, ord(c)) for c in "aZéЖǅʰ中")
    assert not any(contains(letters, ord(c)) for c in "1٣ _!😀")
    assert property_ranges("Letter") == letters == property_ranges("gc=L") == property_ranges("General_Category=L")
    assert property_ranges("digit") == property_ranges("Nd")
    assert not contains(property_ranges("Assigned"), 0x0378)  # unassigned in every version so far
    assert contains(property_ranges("Any"), 0x10FFFF) and not contains(property_ranges("Any"), 0xD800)
    # where this Python's Unicode agrees, each category is unicodedata's
    for cp in range(0, 0x3000, 7):
        cat = unicodedata.category(chr(cp))
        if cat not in ("Cn", "Cs"):
            assert contains(property_ranges(cat), cp), (hex(cp), cat)


@pytest.mark.parametrize("name", ["Script=Greek", "sc=Latn", "Graph", "Alphabetic", "L&", ""])
def test_other_properties_are_refused_by_name(name):
    with pytest.raises(UnknownPropertyError):
        property_ranges(name)
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema({"type": "object", "properties": {"p": {"type": "string", "pattern": f"^\\p{{{name}}}$"}}})
    assert (info.value.keyword, info.value.pointer) == ("pattern", "#/properties/p/pattern")


@pytest.mark.parametrize("pattern", ["[\\p{L}-z]", "[a-\\p{L}]", "\\p{L", "\U0010FD00\\p{L}"])
def test_malformed_property_escapes_are_refused_by_name(pattern):
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema({"type": "string", "pattern": pattern})
    assert (info.value.keyword, info.value.pointer) == ("pattern", "#/pattern")


def test_an_escaped_backslash_before_p_is_no_property_escape():
    r"""`\\p{L}` is a backslash, then `p{L}` (a quantifier-looking literal in re's reading)."""
    schema = {"type": "string", "pattern": "^a\\\\p$"}
    accepts = acceptor(compile_json_schema(schema, path="regex"))
    assert accepts(json.dumps("a\\p")) and not accepts(json.dumps("ab"))


def test_a_tag_pattern_in_a_group_takes_its_length_in_the_repeat():
    """`^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$` under maxLength 128 (every AWS resource's tags): the
    group around the one repeat is looked through, so the length bounds the repeat. Written as a
    length lookahead instead, the grammar path's automaton passed 2,000 states (UTF-8 letters
    times 128) and the schema fell back to the depth-capped regex path."""
    schema = {"type": "object", "properties": {"Key": {"type": "string", "minLength": 1, "maxLength": 128,
                                                       "pattern": "^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$"}},
              "additionalProperties": {"type": "object"}}
    accepts = acceptor(compile_json_schema(schema, path="engine"))
    oracle = _oracle("^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$")
    for key in ("", "a", "é" * 128, "é" * 129, "ab c:1", "a!b", "Ж" * 127 + "1", "x" * 200):
        expected = 1 <= len(key) <= 128 and oracle.search(key) is not None
        doc = {"Key": key, "more": {"deep": {"er": [{}]}}}
        assert accepts(json.dumps(doc, ensure_ascii=False, separators=(",", ":"))) == expected, key
