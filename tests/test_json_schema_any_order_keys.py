"""property_order="any" with the keys checked beside the grammar (json_schema.member_keys): any
number of declared properties, each once, in any order.

Oracles: jsonschema on documents whose keys are shuffled (every order for small objects, random
ones for large, more than 12 declared properties among them), on every path; the output format's
rule that a declared key never repeats (jsonschema cannot see a repeated key: json.loads keeps the
last); for masks, the prefixes of every valid document of a finite language (each GPT-2 mask must
allow exactly the tokens that keep the text a prefix of one, EOS exactly on documents), and each
token's bytes fed through the check on their own (`ValueChecksGuide.scan`) against the mask's
shortcuts; JSONSchemaBench schemas (skipped when the data is absent) with their valid instances'
keys shuffled."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import jsonschema
import pytest

from tokenguide import Guide
from tokenguide.errors import UnsupportedSchemaError
from tokenguide.guides.value_checks import ValueChecksGuide
from tokenguide.json_schema import build_regex_from_schema, compile_json_schema
from tokenguide.vocabulary import Vocabulary

PATHS = ("auto", "regex", "engine")
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "jsonschemabench"


def valid(schema, value) -> bool:
    return jsonschema.validators.validator_for(schema)(schema).is_valid(value)


def raw(*members, compact: bool = True) -> str:
    """An object's text with exactly these (key, value) members, repeats kept."""
    sep, colon = (",", ":") if compact else (", ", ": ")
    return "{" + sep.join(json.dumps(k) + colon + json.dumps(v) for k, v in members) + "}"


def wide(n: int, **extra) -> dict:
    return {"type": "object", "properties": {f"k{i}": {"type": "integer"} if i % 3 else {"type": "string"}
                                             for i in range(n)}, **extra}


def value_of(n: int, keys) -> list:
    return [(k, 5 if int(k[1:]) % 3 else "s") for k in keys]


SMALL = [
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"}},
     "required": ["a"], "additionalProperties": False},
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"}},
     "required": ["b", "c"]},
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"}},
     "minProperties": 2, "maxProperties": 3, "additionalProperties": {"type": "null"}},
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": False},
     "required": ["a"], "maxProperties": 2},
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
     "required": ["a", "z"], "additionalProperties": {"type": "boolean"}},
]
MEMBERS = [("a", 1), ("b", "x"), ("c", True), ("z", True), ("q", None), ("a", "no")]


def small_documents() -> list[list]:
    """Member lists of every order over subsets of MEMBERS (keys repeated too)."""
    out = []
    for n in range(5):
        for combo in itertools.permutations(MEMBERS, n):
            out.append(list(combo))
    return out


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("index", range(len(SMALL)))
def test_small_objects_in_every_order_agree_with_jsonschema(path, index):
    schema = SMALL[index]
    compiled = compile_json_schema(schema, property_order="any", path=path)
    assert compiled.checks is not None and compiled.checks.keys_taken
    judged = [0, 0]
    for members in small_documents():
        keys = [k for k, _ in members]
        declared = set(schema["properties"]) | set(schema.get("required", []))
        repeats = len(set(keys)) < len(keys)
        # a declared key repeated is refused by the output format; other keys may repeat (the
        # format counts each member: here the small documents repeat only declared keys)
        want = not repeats and valid(schema, dict(members)) if not any(
            keys.count(k) > 1 and k not in declared for k in keys) else None
        if want is None:
            continue
        for compact in (True, False):
            assert compiled.accepts(raw(*members, compact=compact)) == want, (members, want)
        judged[want] += 1
    assert min(judged) >= 5, judged


@pytest.mark.parametrize("path", PATHS)
def test_more_than_twelve_declared_properties_in_random_orders(path):
    rng = random.Random(3)
    schema = wide(20, required=["k4", "k11", "k17"], additionalProperties=False)
    compiled = compile_json_schema(schema, property_order="any", path=path)
    assert compiled.checks.keys_taken
    names = list(schema["properties"])
    judged = [0, 0]
    for trial in range(120):
        keys = rng.sample(names, rng.randint(0, 20))
        if trial % 2:
            keys = list(dict.fromkeys(keys + ["k4", "k11", "k17"]))
            rng.shuffle(keys)
        members = value_of(20, keys)
        if trial % 4 == 0 and keys:  # a declared key again
            members.insert(rng.randint(0, len(members)), members[rng.randrange(len(members))])
        if trial % 5 == 0:
            members.append(("other", 1))
        want = len({k for k, _ in members}) == len(members) and valid(schema, dict(members))
        assert compiled.accepts(raw(*members)) == want, members
        judged[want] += 1
    assert min(judged) >= 20, judged
    for _ in range(20):  # every declared key, in a random order
        keys = rng.sample(names, 20)
        assert compiled.accepts(raw(*value_of(20, keys)))


@pytest.mark.parametrize("path", ("auto", "engine"))
def test_counts_and_other_keys_beside_many_declared(path):
    rng = random.Random(5)
    schema = wide(16, required=["k1"], minProperties=3, maxProperties=6, additionalProperties={"type": "integer"})
    compiled = compile_json_schema(schema, property_order="any", path=path)
    names = list(schema["properties"])
    judged = [0, 0]
    for _ in range(150):
        keys = rng.sample(names, rng.randint(0, 8))
        if rng.random() < 0.5:
            keys = list(dict.fromkeys(["k1"] + keys))
        members = value_of(16, keys) + [(f"x{i}", i) for i in range(rng.randint(0, 3))]
        rng.shuffle(members)
        want = valid(schema, dict(members))
        assert compiled.accepts(raw(*members)) == want, members
        judged[want] += 1
    assert min(judged) >= 20, judged


def test_nested_objects_arrays_and_recursion_in_any_order():
    schema = {"$defs": {"node": {"type": "object", "properties": {
        "name": {"type": "string"}, "size": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}},
        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}},
        "meta": {"type": "object", "properties": {f"m{i}": {"type": "integer"} for i in range(14)},
                 "required": ["m0"], "additionalProperties": False}},
        "required": ["name"], "additionalProperties": False}}, "$ref": "#/$defs/node"}
    rng = random.Random(9)

    def node(depth: int) -> dict:
        out = {"name": "n", "size": 3, "tags": ["a"]}
        if rng.random() < 0.7:
            out["meta"] = {f"m{i}": i for i in [0] + rng.sample(range(1, 14), rng.randint(0, 13))}
        if depth:
            out["kids"] = [node(depth - 1) for _ in range(rng.randint(0, 2))]
        return out

    def shuffle(v):
        if isinstance(v, dict):
            keys = list(v)
            rng.shuffle(keys)
            return {k: shuffle(v[k]) for k in keys}
        return [shuffle(x) for x in v] if isinstance(v, list) else v

    for path in ("auto", "engine"):
        compiled = compile_json_schema(schema, property_order="any", path=path)
        for _ in range(25):
            v = shuffle(node(2))
            assert compiled.accepts(json.dumps(v)), v
            text = json.dumps(v)
            assert not compiled.accepts(text.replace('"name": "n"', '"name": "n", "name": "m"', 1))
            assert not compiled.accepts(text.replace('"m0": 0', '"m0": 0, "m0": 1', 1)) or '"m0": 0' not in text
            assert not compiled.accepts(text.replace('"name": "n", ', "", 1).replace(', "name": "n"', "", 1)) \
                or text.count('"name"') > 1


def test_where_the_keys_cannot_be_checked_the_objects_are_written_out_or_refused_by_name():
    # anyOf branches with their own declared properties at one place: written out per key set
    union = {"anyOf": [{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                        "required": ["a"], "additionalProperties": False},
                       {"type": "object", "properties": {"c": {"type": "integer"}, "b": {"type": "string"}},
                        "required": ["c"], "additionalProperties": False}]}
    compiled = compile_json_schema(union, property_order="any")
    for members, want in ([("b", 1), ("a", 2)], True), ([("b", "s"), ("c", 1)], True), ([("b", 1), ("c", 1)], False), \
            ([("a", 1), ("a", 2)], False):
        assert compiled.accepts(raw(*members)) == want, members
    big = {f"p{i}": {"type": "integer"} for i in range(13)}
    with pytest.raises(UnsupportedSchemaError, match="several alternatives") as info:
        compile_json_schema({"anyOf": [{"type": "object", "properties": big, "required": ["p0"]},
                                       {"type": "object", "properties": big, "required": ["p1"]}]},
                            property_order="any")
    assert info.value.keyword == "properties"
    # dependentRequired beside a wide object: refused by name (written out when small)
    dep = wide(13, dependentRequired={"k1": ["k2"]})
    with pytest.raises(UnsupportedSchemaError, match="dependentRequired") as info:
        compile_json_schema(dep, property_order="any")
    assert info.value.keyword == "properties"
    small = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
             "dependentRequired": {"a": ["b"]}}
    compiled = compile_json_schema(small, property_order="any")
    for members, want in ([("b", 1), ("a", 2)], True), ([("a", 1)], False), ([("b", 1)], True):
        assert compiled.accepts(raw(*members)) == want
    # without value checks the documented limit stays (written out per key set)
    with pytest.raises(UnsupportedSchemaError, match="13 declared properties"):
        compile_json_schema(wide(13), property_order="any", value_checks=False)
    with pytest.raises(UnsupportedSchemaError, match="13 declared properties"):
        build_regex_from_schema(wide(13), property_order="any")


# -- GPT-2 guides ---------------------------------------------------------------------------------------


def greedy(vocab: Vocabulary, text: str) -> list[int]:
    longest = max(len(b) for b in vocab.tokens)
    data, out, i = text.encode(), [], 0
    while i < len(data):
        n = next(n for n in range(min(longest, len(data) - i), 0, -1) if data[i:i + n] in vocab.tokens)
        out.append(vocab.tokens[data[i:i + n]][0])
        i += n
    return out


def guide_accepts(guide: Guide, ids: list[int]) -> bool:
    guide.reset()
    for t in ids:
        mask = guide.mask_bytes()
        if not mask[t >> 3] >> (t & 7) & 1:
            return False
        guide.advance(t, return_tokens=False)
    return guide.is_finished()


@pytest.mark.parametrize("path", ("auto", "engine"))
def test_gpt2_guide_takes_shuffled_documents_and_refuses_repeats(gpt2_vocabulary, path):
    rng = random.Random(11)
    schema = wide(20, required=["k4", "k11"], maxProperties=15, additionalProperties={"type": "boolean"})
    guide = Guide.from_json_schema(schema, gpt2_vocabulary, property_order="any", path=path)
    names = list(schema["properties"])
    judged = [0, 0]
    for trial in range(16):
        members = value_of(20, list(dict.fromkeys(["k4", "k11"] * (trial % 2) + rng.sample(names, rng.randint(1, 13)))))
        if trial % 3 == 0:
            members.append(("extra", True))
        if trial % 4 == 0:
            members.append(members[0])
        rng.shuffle(members)
        want = len({k for k, _ in members}) == len(members) and valid(schema, dict(members))
        assert guide_accepts(guide, greedy(gpt2_vocabulary, raw(*members, compact=trial % 2 == 0))) == want, members
        judged[want] += 1
    assert min(judged) >= 4, judged


FINITE = {"type": "object", "properties": {"ab": {"enum": ["p", "qq"]}, "abc": {"const": True}, "b": {"const": "x"},
                                           "c": {"enum": [None, "r"]}},
          "required": ["b"], "maxProperties": 3, "additionalProperties": False}


def finite_documents() -> set[bytes]:
    """Every compact text of FINITE's valid instances, keys in every order (jsonschema judges)."""
    values = {"ab": ["p", "qq"], "abc": [True], "b": ["x"], "c": [None, "r"]}
    out = set()
    for n in range(5):
        for keys in itertools.permutations(values, n):
            for vals in itertools.product(*(values[k] for k in keys)):
                value = dict(zip(keys, vals))
                if valid(FINITE, value):
                    out.add(json.dumps(value, separators=(",", ":")).encode())
    return out


@pytest.mark.parametrize("path", ("auto", "engine"))
def test_gpt2_masks_are_exact_on_a_finite_language(gpt2_vocabulary, path):
    docs = finite_documents()
    prefixes = {d[:i] for d in docs for i in range(len(d) + 1)}
    vocab = gpt2_vocabulary
    guide = Guide.from_json_schema(FINITE, vocab, property_order="any", path=path, whitespace_pattern="")
    eos = vocab.eos_token_id
    rng = random.Random(2)
    texts = sorted(docs)
    for doc in rng.sample(texts, 12):
        guide.reset()
        text = b""
        for t in greedy(vocab, doc.decode()):
            allowed = set(guide.get_tokens())
            want = {i for b, ids in vocab.tokens.items() for i in ids if i != eos and text + b in prefixes}
            if text in docs:
                want.add(eos)
            assert allowed == want, (text, sorted(allowed ^ want)[:5])
            guide.advance(t, return_tokens=False)
            text += vocab.id_to_bytes(t)
        assert guide.is_finished() and eos in guide.get_tokens()


def test_gpt2_masks_match_each_tokens_own_scan(gpt2_vocabulary):
    """The mask's shortcuts (which tokens are tried, the key prefixes allowed) against every
    token of the inner mask fed through the check on its own."""
    vocab = gpt2_vocabulary
    schema = wide(20, required=["k4", "k11"], maxProperties=18, additionalProperties={"type": "boolean"})
    closed = wide(20, required=["k4", "k11"], additionalProperties=False)
    rng = random.Random(4)
    for sch in (schema, closed):
        guide = Guide.from_json_schema(sch, vocab, property_order="any", path="engine")
        inner = guide.source
        assert isinstance(inner, ValueChecksGuide)
        members = value_of(20, rng.sample(list(sch["properties"]), 17))
        ids = greedy(vocab, raw(*members, compact=False))
        state = inner.initial_state
        for step, t in enumerate(ids):
            if step % 3 == 0 or step > len(ids) - 8:
                mask = inner.mask_bytes(state)
                base = inner.inner.mask_bytes(state[0])
                for u in range(vocab.vocab_size):
                    if not base[u >> 3] >> (u & 7) & 1 or u == inner.eos_token_id:
                        continue
                    want = inner.scan(state[1], inner.token_bytes[u]) is not None
                    assert bool(mask[u >> 3] >> (u & 7) & 1) == want, (step, vocab.id_to_bytes(u))
            state = inner.get_next_state(state, t)
        assert inner.can_terminate_state(state)


@pytest.mark.parametrize("path", ("auto", "engine"))
def test_gpt2_random_generations_never_strand_and_end_valid(gpt2_vocabulary, path):
    vocab = gpt2_vocabulary
    schema = {"type": "object", "properties": {"ab": {"enum": [1, 2]}, "abc": {"type": "boolean"},
                                               "b": {"const": "x"}, "bc": {"enum": [3, 4]}},
              "required": ["b"], "minProperties": 2, "maxProperties": 3, "additionalProperties": {"const": 0}}
    guide = Guide.from_json_schema(schema, vocab, property_order="any", path=path, whitespace_pattern="")
    rng = random.Random(8)
    finished = 0
    for _ in range(16):
        guide.reset()
        text = b""
        for _ in range(40):
            allowed = guide.get_tokens()
            assert allowed, f"stranded after {text!r}"
            if vocab.eos_token_id in allowed and rng.random() < 0.5:
                break
            closing = [t for t in allowed if (vocab.id_to_bytes(t) or b"")[-1:] in (b"}", b",", b'"')]
            pick = rng.choice(closing if closing and rng.random() < 0.5 else allowed)
            if pick == vocab.eos_token_id:
                break
            guide.advance(pick, return_tokens=False)
            text += vocab.id_to_bytes(pick)
        if guide.is_finished():
            finished += 1
            pairs = json.loads(text, object_pairs_hook=lambda p: p)
            declared = [k for k, _ in pairs if k in schema["properties"]]
            assert len(set(declared)) == len(declared), text
            assert valid(schema, json.loads(text)), text
    assert finished >= 5


# -- JSONSchemaBench ------------------------------------------------------------------------------------


def _shuffled(value, rng):
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: _shuffled(value[k], rng) for k in keys}
    return [_shuffled(v, rng) for v in value] if isinstance(value, list) else value


def test_jsonschemabench_valid_instances_in_any_key_order():
    if not DATA.is_dir():
        pytest.skip(f"JSONSchemaBench data not found at {DATA}")
    files = sorted(DATA.glob("*.json"))[7::97]
    judged = refused = 0
    for f in files:
        doc = json.loads(f.read_text())
        tests = [t for t in doc.get("tests") or [] if "data" in t]
        if not tests:
            continue
        try:
            compiled = compile_json_schema(doc["schema"], property_order="any")
        except UnsupportedSchemaError as exc:
            assert exc.keyword or exc.pointer, (f.name, exc)
            refused += 1
            continue
        judged += 1
        for t in tests:
            text = json.dumps(t["data"], ensure_ascii=False)
            assert compiled.accepts(text) == bool(t["valid"]), (f.name, text[:200])
            if t["valid"]:
                rng = random.Random(len(text))
                for _ in range(3):
                    assert compiled.accepts(json.dumps(_shuffled(t["data"], rng), ensure_ascii=False)), f.name
    assert judged >= 3 * refused, (judged, refused)


def test_recursion_cut_by_the_regex_path_is_refused_by_name_and_the_grammar_takes_it():
    tree = {"$defs": {"n": {"type": "object", "properties": {"v": {"type": "integer"}, "w": {"type": "integer"},
                                                             "child": {"$ref": "#/$defs/n"}},
                            "required": ["v"], "additionalProperties": False}}, "$ref": "#/$defs/n"}
    with pytest.raises(UnsupportedSchemaError, match="different members in different places") as info:
        compile_json_schema(tree, property_order="any", path="regex")
    assert (info.value.keyword, info.value.pointer) == ("properties", "#/$defs/n")
    for path in ("auto", "engine"):
        compiled = compile_json_schema(tree, property_order="any", path=path)
        deep = {"v": 1}
        for i in range(6):
            deep = {"child": deep, "w": i, "v": i} if i % 2 else {"v": i, "child": deep}
        assert compiled.accepts(json.dumps(deep)) and valid(tree, deep)
        assert not compiled.accepts('{"child":{"v":2,"w":1,"w":3},"v":1}')
        assert not compiled.accepts('{"child":{"w":1},"v":1}')
