"""Long length-bounded strings on the engine path: one counted lexeme (not the Lark path's blocks
of 128 characters), its masks equal to each token's own byte walk on GPT-2 (every token) at
counts around the bounds and past the trie's window, and its language equal to jsonschema's.
Also patterns under maxLength (an intersection, `&`, whose string contents take the slice of a
pattern's `.`), the same way."""

from __future__ import annotations

import json

import pytest

jsonschema = pytest.importorskip("jsonschema")

from tokenguide.guides.grammar import GrammarGuide  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402

SCHEMA = {"type": "object", "properties": {
    "s": {"type": "string", "minLength": 300, "maxLength": 1000},
    "p": {"type": "string", "pattern": "^[a-z é]+$", "maxLength": 600},
    "u": {"type": "string", "minLength": 400},
    "v": {"type": "string", "pattern": "^(\\d+\\.\\d+\\.\\d+.*)$", "maxLength": 32},
    "w": {"type": "string", "pattern": "^[a-z].*é", "minLength": 3, "maxLength": 300},
    "x": {"type": "string", "pattern": "^a+b[^e]*$", "maxLength": 40},
    "y": {"type": "string", "pattern": "[a-f0-9]{6}"}}, "additionalProperties": False}
PIECES = ["a", "é", "日", "\n", '"', "\\", "\U0001f600", " ", "bc"]


def text_of(n: int, seed: int) -> str:
    """n characters, mostly ASCII, some multi-byte and some written as JSON escapes."""
    out = []
    while len(out) < n:
        out.extend(PIECES[(len(out) * 7 + seed) % len(PIECES)] if (len(out) + seed) % 5 == 0 else "x")
    return "".join(out[:n])


def doc(key: str, n: int, seed: int = 1, plain: bool = False, head: str = "") -> str:
    text = head + (("é " * n)[:n] if plain else text_of(n, seed))
    return json.dumps({key: text}, ensure_ascii=False, separators=(",", ":"))


_QUOTED: list = []


def quoted(vocabulary) -> set:
    """The tokens of `vocabulary` holding a quote or a backslash."""
    if not _QUOTED:
        _QUOTED.append({t for t in range(vocabulary.vocab_size)
                        if any(c in (vocabulary.id_to_bytes(t) or b"") for c in b'"\\')})
    return _QUOTED[0]


@pytest.fixture(scope="module")
def guide(gpt2_vocabulary):
    compiled = compile_json_schema(SCHEMA, path="engine")
    assert compiled.path == "engine"
    grammar = compiled.engine
    # one lexeme per string value: no block of 128 characters (the Lark path's device)
    counts = set()
    todo = [lx.expr for lx in grammar.lexemes]
    while todo:
        x = todo.pop()
        if x.kind == "rep":
            counts.add(x.args[1:])
        todo.extend(a for a in x.args if hasattr(a, "kind"))
    assert (300, 1000) in counts and (128, 128) not in counts, counts
    return GrammarGuide(grammar, gpt2_vocabulary)


def test_language_equals_jsonschema(guide):
    validator = jsonschema.Draft202012Validator(SCHEMA)
    seen = {True: 0, False: 0}
    for key, counts, plain in (("s", (0, 127, 128, 129, 256, 299, 300, 301, 640, 999, 1000, 1001, 1130), False),
                               ("p", (1, 128, 599, 600, 601), True), ("u", (0, 129, 399, 400, 401, 1200), False)):
        for n in counts:
            for seed in (0, 3):
                text = doc(key, n, seed, plain)
                expected = validator.is_valid(json.loads(text))
                assert guide.accepts_bytes(text.encode()) == expected, (key, n, seed)
                seen[expected] += 1
    assert seen[True] >= 15 and seen[False] >= 12
    seen = {True: 0, False: 0}
    for key, head, counts in (("v", "1.0.0", (0, 1, 26, 27, 28, 40)), ("v", "12.3", (0, 5)), ("v", "1.0.12", (26, 27)),
                              # (w's lengths are checked on the values, beside the grammar: not here)
                              ("w", "a", (1, 2, 150, 298)), ("w", "A", (5,)),
                              ("x", "aab", (0, 1, 36, 37, 38)), ("x", "aabe", (0, 3)),
                              ("y", "zz0a1b2c", (0, 4)), ("y", "zz0a1b2", (0, 4)), ("y", "0a1b2", (0,))):
        for n in counts:
            for seed in (0, 3):
                text = doc(key, n, seed, head=head)
                if key == "w":
                    text = text[:-2] + 'é"}'
                expected = validator.is_valid(json.loads(text))
                assert guide.accepts_bytes(text.encode()) == expected, (key, head, n, seed)
                seen[expected] += 1
    assert seen[True] >= 12 and seen[False] >= 8


@pytest.mark.parametrize("key,counts,plain,head", [("s", (0, 128, 299, 300, 640, 999, 1000), False, ""),
                                                   ("p", (0, 127, 590, 599, 600), True, ""),
                                                   ("u", (5, 399, 400, 700), False, ""),
                                                   ("v", (0, 1, 9, 20, 26, 27), True, "1.0.0"),
                                                   ("v", (0,), True, "1.0"), ("v", (0, 3), False, "1.0.12"),
                                                   ("w", (0, 1, 20, 280, 297, 298), True, "a"),
                                                   ("x", (0, 1, 20, 30), False, "aab"),
                                                   ("y", (0, 2), True, "zz0a1b2c3d"), ("y", (0,), True, "zz0a1")])
def test_masks_equal_each_tokens_own_walk(guide, gpt2_vocabulary, key, counts, plain, head):
    eos = gpt2_vocabulary.eos_token_id
    for n in counts:
        prefix = doc(key, n, 2, plain, head)[:-2].encode()  # inside the string, n characters read
        state = guide.advance_bytes(guide.initial_state, prefix)
        assert state is not None, (key, n)
        allowed = set(guide.allowed_token_ids(state))
        # every token at the first count, and at the others every 3rd, every allowed one and
        # every one that holds a quote or a backslash (where the string may end or escape)
        sample = range(gpt2_vocabulary.vocab_size) if n == counts[0] else sorted(
            {t for t in range(0, gpt2_vocabulary.vocab_size, 3)} | allowed | quoted(gpt2_vocabulary))
        for t in sample:
            if t == eos:
                continue
            walked = guide.advance_bytes(state, gpt2_vocabulary.id_to_bytes(t)) is not None
            assert walked == (t in allowed), (key, n, t, gpt2_vocabulary.id_to_bytes(t))
