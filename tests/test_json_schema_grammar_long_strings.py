"""Long counted strings (minLength/maxLength in the hundreds or thousands) on the engine path:
blocks of STRING_BLOCK characters and a tail, one rule per block count (strings.counted_string),
instead of one terminal whose automaton outgrows the checks.

Oracles: `jsonschema` (validity), Lark itself (tests/grammar_oracle.py) and the regex path
(`re.fullmatch`, which writes the count whole).
"""

from __future__ import annotations

import json
import random

import pytest

jsonschema = pytest.importorskip("jsonschema")
pytest.importorskip("lark")

import grammar_oracle  # noqa: E402

from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402
from tokenguide.json_schema.strings import MAX_STRING_BLOCKS, STRING_BLOCK  # noqa: E402

K = STRING_BLOCK
CHARS = ["a", "é", "\n", '"', "\\", "\x01", "/", "\U0001f600", " "]


def tree(string: dict) -> dict:
    """A recursive schema (so the grammar path) with one string property `s`."""
    return {"$defs": {"n": {"type": "object", "properties": {
        "s": {"type": "string", **string}, "kids": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
        "additionalProperties": False}}, "$ref": "#/$defs/n"}


def lengths(lo: int, hi: int | None) -> list[int]:
    """Lengths at the bounds and at block boundaries, on both sides."""
    out = {0, 1, lo, hi or lo + 3 * K}
    for b in range(1, (hi or lo + 3 * K) // K + 2):
        out.update((b * K - 1, b * K, b * K + 1))
    return sorted(n for x in out for n in (x - 1, x, x + 1) if n >= 0)


def text_of(n: int, rng: random.Random) -> str:
    return "".join(rng.choice(CHARS) if rng.random() < 0.3 else "x" for _ in range(n))


@pytest.mark.parametrize("lo,hi", [(0, 3 * K + 5), (K + 3, 5 * K), (2 * K + 1, None), (4 * K, 4 * K), (0, 2 * K + 1)])
def test_long_strings_match_jsonschema_lark_and_the_regex_path(lo, hi):
    string = {"minLength": lo} | ({} if hi is None else {"maxLength": hi})
    schema = tree(string)
    compiled = compile_json_schema(schema, path="engine")
    assert compiled.path == "engine"
    lark_ok = grammar_oracle.acceptor(compiled)
    regex_ok = grammar_oracle.acceptor(compile_json_schema(schema, path="regex"))
    validator = jsonschema.Draft202012Validator(schema)
    rng = random.Random(lo * 7 + (hi or 1))
    seen = {True: 0, False: 0}
    for n in lengths(lo, hi):
        s = text_of(n, rng)
        for inst in ({"s": s}, {"s": s, "kids": [{"s": s[: max(lo, 0)]}, {}]}):
            text = json.dumps(inst, ensure_ascii=False, separators=(",", ":"))
            valid = validator.is_valid(inst)
            seen[valid] += 1
            assert lark_ok(text) == valid, (n, text[:80])
            if "kids" not in inst:
                assert regex_ok(text) == valid, (n, text[:80])
    assert seen[True] and seen[False]


def assert_guide_agrees(guide, validator, docs: list, tokens: dict) -> None:
    """Each document, fed through `guide` as its compact JSON in longest tokens first, is
    accepted exactly when `validator` finds it valid; both verdicts occur."""
    from tokenguide.errors import InvalidTokenError  # noqa: PLC0415

    verdicts = set()
    for doc in docs:
        want = validator.is_valid(doc)
        verdicts.add(want)
        guide.reset()
        ok = True
        data, i = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode(), 0
        while i < len(data) and ok:
            n = next(n for n in range(min(8, len(data) - i), 0, -1) if data[i:i + n] in tokens)
            try:
                guide.advance(tokens[data[i:i + n]][0], return_tokens=False)
            except InvalidTokenError:
                ok = False
            i += n
        assert (ok and guide.is_finished()) == want, str(doc)[:40]
    assert verdicts == {True, False}



@pytest.mark.parametrize("kw,lengths", [("minLength", {"minLength": (MAX_STRING_BLOCKS + 1) * K}),
                                        ("maxLength", {"minLength": (MAX_STRING_BLOCKS + 1) * K,
                                                       "maxLength": (MAX_STRING_BLOCKS + 3) * K})])
def test_lengths_past_the_block_rules_are_refused_by_keyword(kw, lengths):
    """A minLength past the block rules, alone or beside a maxLength past them (a maxLength past
    them beside a smaller minLength is counted digit by digit: test_json_schema_grammar_expansion
    and below)."""
    schema = tree(lengths)
    with pytest.raises(UnsupportedSchemaError) as info:
        compile_json_schema(schema, path="engine")
    assert (info.value.keyword, info.value.pointer) == (kw, f"#/$defs/n/properties/s/{kw}")
    with pytest.warns(UserWarning, match=kw):
        lenient = compile_json_schema(schema, path="engine", lenient=True)
    assert grammar_oracle.acceptor(lenient)('{"s":"' + "x" * 10 + '"}')


def test_a_key_pattern_counted_to_255_runs_in_a_guide(gpt2_vocabulary):
    """patternProperties `^.{1,255}$` (JSONSchemaBench Github_trivial o9908): the key terminal
    spells ECMA's `.` (escaped control characters included) 255 times, 60,969 instructions of the
    CFG guides' regex VM (it was refused past 50,000). Documents fed token by token through the
    guide agree with jsonschema: keys of 255 and 256 characters (the latter an additional
    property), a key with a line terminator, values of any shape."""
    from tokenguide import Guide  # noqa: PLC0415

    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
              "patternProperties": {"^.{1,255}$": {"type": "integer"}}}
    guide = Guide.from_json_schema(schema, gpt2_vocabulary)
    assert guide.compiled.path == "engine"
    validator = jsonschema.Draft4Validator(schema)
    tokens = gpt2_vocabulary.tokens
    docs = [{"k" * 255: 1}, {"k" * 255: "x"}, {"k" * 256: "x"}, {"a\nb": [1, {"c": None}]}, {"": 2}, {"ab": 1.5},
            {"é" * 3: 3, "x": 4}]
    assert_guide_agrees(guide, validator, docs, tokens)
    guide.reset()
    for byte in b'{"' + b"k" * 254:
        guide.advance(tokens[bytes([byte])][0], return_tokens=False)
    allowed = set(guide.get_tokens())  # one character left before the pattern's bound
    assert tokens[b"k"][0] in allowed and tokens[b'":'][0] in allowed and tokens[b"kk"][0] in allowed


# A pattern that is one class repeated over the whole string, counted past two blocks by its own
# bounds or by the lengths beside it: the blocks are of that class (strings._long_class_run),
# where one terminal of hi characters of the class outgrew the checks (AWS IAM policy documents:
# `^[\u0009\u000A\u000D\u0020-\u00FF]+$` with maxLength 131,072 fell back to the depth cap).
CLASS_RUNS = [
    ({"pattern": "^[\\u0009\\u000A\\u000D\\u0020-\\u00FF]+$", "maxLength": 3 * K + 5}, "x\t\n\"\\é"),
    ({"pattern": "^([a-z\"]{2,})$", "minLength": 2 * K + 3}, "ab\"Z"),
    ({"pattern": "^[^/]{1,1023}$"}, "a/é\n"),
    ({"pattern": "^[a-f]*$", "minLength": 1, "maxLength": (MAX_STRING_BLOCKS + 3) * K}, "abcg"),
    # a plain part before the run (its end decided where it is read), lengths it already keeps
    ({"pattern": "^arn:[a-z]{1,3}:[^/].{0,300}$", "minLength": 5, "maxLength": 400}, "arn:ab/\\é\u2028"),
    # a part of one length before the run: the lengths bound the run (AWS cookie paths)
    ({"pattern": "^/(\\S)*$", "minLength": 2, "maxLength": 3 * K + 5}, "ab/é\t "),
    # alternatives of classes are one class (AWS skill paths)
    ({"pattern": "^([^*?\\[\\]]|\\*)+$", "minLength": 1, "maxLength": 3 * K + 5}, "a*b/é\"["),
]


@pytest.mark.parametrize("string,alphabet", CLASS_RUNS)
def test_long_class_runs_are_counted_in_blocks_of_their_class(string, alphabet):
    schema = tree(string)
    compiled = compile_json_schema(schema, path="engine")
    assert compiled.path == "engine"
    lark_ok = grammar_oracle.acceptor(compiled)
    validator = jsonschema.Draft202012Validator(schema)
    rng = random.Random(len(string["pattern"]))
    hi = string.get("maxLength", 1023 if "1023" in string["pattern"] else 3 * K)
    if hi > 5 * K:
        hi = 3 * K  # (the digit-counted bound is tried below)
    prefix = "arn:ab:x" if string["pattern"].startswith("^arn") else "/" if string["pattern"].startswith("^/") else ""
    seen = {True: 0, False: 0}
    for n in lengths(string.get("minLength", 0), hi):
        for clean in (True, False):
            s = "".join(rng.choice(alphabet[:-1] if clean else alphabet) for _ in range(n))
            inst = {"s": prefix[:n] + s[len(prefix):] if clean else s, "kids": [{}]}
            text = json.dumps(inst, ensure_ascii=False, separators=(",", ":"))
            valid = validator.is_valid(inst)
            seen[valid] += 1
            assert lark_ok(text) == valid, (n, text[:80])
    assert seen[True] and seen[False]


def test_a_digit_counted_class_run_keeps_its_class_and_bound():
    string, _ = CLASS_RUNS[3]
    compiled = compile_json_schema(tree(string), path="engine")
    lark_ok = grammar_oracle.acceptor(compiled)
    top = (MAX_STRING_BLOCKS + 3) * K
    for n, ch, want in ((top, "a", True), (top + 1, "a", False), (top - 1, "f", True), (K * 7, "g", False), (0, "a", False)):
        assert lark_ok(json.dumps({"s": "ab" * (n // 2) + "a" * (n % 2) if ch == "a" else ch * n})) == want, (n, ch)


@pytest.mark.parametrize("pattern", ["^a[b-z]*[a-z]{0,400}$", "^(a|ab)[b-z]{0,400}$"])
def test_a_run_after_a_part_whose_end_is_not_plain_keeps_its_language(pattern):
    # the part before the run could go on in the run's class: not split there (one terminal
    # where it fits, else the refusal of before); the language is jsonschema's either way
    schema = tree({"pattern": pattern})
    try:
        compiled = compile_json_schema(schema, path="engine")
    except UnsupportedSchemaError:
        return
    lark_ok = grammar_oracle.acceptor(compiled)
    validator = jsonschema.Draft202012Validator(schema)
    for s in ("a", "ab", "abz", "a" + "b" * 400, "a" + "b" * 401, "a" + "b" * 420, "ba", "abA"):
        inst = {"s": s}
        assert lark_ok(json.dumps(inst, separators=(",", ":"))) == validator.is_valid(inst), s[:10]



def test_json_characters_of_any_subset_of_the_escaped_ones_match_their_escapes_alone():
    """json_chars over sets holding some of the 34 characters JSON escapes: the escapes are
    grouped (short ones in one class, `\\u00XX` by hex digits) and match exactly the json.dumps
    spelling of each character of the set, no other escape text."""
    import re  # noqa: PLC0415

    from tokenguide.json_schema.text import json_chars  # noqa: PLC0415

    special = [c for c in range(0x20)] + [0x22, 0x5C]
    texts = {json.dumps(chr(c))[1:-1] for c in special} | {f"\\u{c:04x}" for c in range(0x20)} | {"\\/", "a", "\\"}
    rng = random.Random(5)
    for n in (1, 2, 3, 10, 31, 33):
        for _ in range(20):
            chosen = sorted(rng.sample(special, n))
            regex = json_chars([(c, c) for c in chosen] + [(0x61, 0x61)])
            want = {json.dumps(chr(c))[1:-1] for c in chosen} | {"a"}
            assert {t for t in texts if re.fullmatch(regex, t)} == want, (chosen, regex)


def test_a_long_run_of_a_class_without_some_control_characters_builds_a_guide(gpt2_vocabulary):
    """`^[^\\sA-Z]{1,1023}\\.$` (Route 53 DNS names): each repetition spells the control
    characters the class keeps as escapes. Listed one by one they made the terminal's automaton
    too large for the checks and the CFG guides' regex VM (the schema fell back to the depth
    cap); grouped, documents fed through a GPT-2 guide agree with jsonschema."""
    from tokenguide import Guide  # noqa: PLC0415

    schema = tree({"pattern": "^[^\\sA-Z]{1,1023}\\.$"})
    guide = Guide.from_json_schema(schema, gpt2_vocabulary)
    assert guide.compiled.path == "engine"
    validator = jsonschema.Draft202012Validator(schema)
    docs = [{"s": "a" * 1023 + "."}, {"s": "a" * 1024 + "."}, {"s": "x\x01\"\\é."}, {"s": "aB."}, {"s": "a\t."},
            {"s": "."}, {"kids": [{"s": "..", "kids": []}]}, {"s": "a\x1f\x0b\x08."}]
    assert_guide_agrees(guide, validator, docs, gpt2_vocabulary.tokens)


@pytest.mark.parametrize("lo,hi", [(K, (MAX_STRING_BLOCKS + 1) * K), (1000, 10_000_000), (3 * K + 5, 40_000)])
def test_a_huge_max_length_beside_a_min_length_of_blocks(lo, hi):
    """maxLength past the block rules beside a minLength of a block or more (AWS SAML metadata
    documents: 1,000..10,000,000, which fell back to the depth cap): the blocks every string
    begins with, then the rest counted digit by digit. Lark and jsonschema agree around the
    bounds, the block and the digit boundaries."""
    schema = tree({"minLength": lo, "maxLength": hi})
    compiled = compile_json_schema(schema, path="engine")
    lark_ok = grammar_oracle.acceptor(compiled)
    validator = jsonschema.Draft202012Validator(schema)
    rng = random.Random(lo)
    near = {0, 1, lo - 1, lo, lo + 1, K - 1, K, K + 1, 2047, 2048, 2049, 32767, 32768, 32769, 65536}
    near |= {n for n in range(hi - 2 * K - 3, hi + 3) if n < 70_000}
    seen = {True: 0, False: 0}
    for n in sorted(x for x in near if x >= 0):
        inst = {"s": text_of(n, rng)}
        valid = validator.is_valid(inst)
        seen[valid] += 1
        assert lark_ok(json.dumps(inst, ensure_ascii=False, separators=(",", ":"))) == valid, n
    assert seen[True] and seen[False]
