"""tokenguide.integrations.outlines in outlines 1.x's own generation loop.

`outlines.from_transformers` on a randomly initialised 2-layer GPT-2 (built from a config: no
weights are downloaded) with the real GPT-2 tokenizer built offline from encoder.json + vocab.bpe,
`outlines.Generator(model, processor=...)`. Every finished output is judged by an oracle written by
others: `re.fullmatch`, `jsonschema`, Lark's own parser. Numpy logits are checked by direct calls.
"""

from __future__ import annotations

import json
import re
import sys

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "emscripten", reason="outlines, torch and transformers are CPython-only")

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")
outlines = pytest.importorskip("outlines")
numpy = pytest.importorskip("numpy")

from tiny_gpt2 import EOS, gpt2_hf_tokenizer, tiny_gpt2_model  # noqa: E402
from tokenguide.integrations.outlines import TokenguideBackend, TokenguideLogitsProcessor  # noqa: E402


@pytest.fixture(scope="module")
def hf_tokenizer(gpt2_vocab_path):
    return gpt2_hf_tokenizer(gpt2_vocab_path)


@pytest.fixture(scope="module")
def model(hf_tokenizer):
    with tiny_gpt2_model() as net:
        yield outlines.from_transformers(net, hf_tokenizer)


@pytest.fixture(scope="module")
def backend(model):
    return TokenguideBackend(model)


def run(model, processor, prompts, max_new_tokens, seed=1):
    """Generate with outlines' Generator; a list of texts, one per prompt."""
    torch.manual_seed(seed)
    generator = outlines.Generator(model, processor=processor)
    if isinstance(prompts, str):
        return [generator(prompts, max_new_tokens=max_new_tokens, do_sample=True, pad_token_id=EOS)]
    return generator.batch(prompts, max_new_tokens=max_new_tokens, do_sample=True, pad_token_id=EOS)


def test_backend_reads_the_models_tokenizer(backend, gpt2_vocabulary):
    assert backend.eos_token_id == EOS
    assert backend.tensor_library_name == "torch"
    assert backend.vocabulary.tokens == gpt2_vocabulary.tokens  # the same bytes as Vocabulary.from_file


def test_regex(model, backend):
    regex = r"[0-9]{3}-[0-9]{2}"
    processor = backend.get_regex_logits_processor(regex)
    assert isinstance(processor, outlines.processors.OutlinesLogitsProcessor)
    prompts = ["Call me at", "Number:", "The code for the door of the house is"]  # different lengths
    texts = run(model, processor, prompts, max_new_tokens=12)
    assert len(texts) == 3
    for text in texts:
        assert re.fullmatch(regex, text), text
    # the same processor again (the Generator calls reset()), one prompt
    again = run(model, processor, "Answer:", max_new_tokens=12, seed=2)
    assert re.fullmatch(regex, again[0]), again


def test_json_schema(model, backend):
    jsonschema = pytest.importorskip("jsonschema")
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "pattern": "^[a-z]{1,4}$"},
            "ok": {"type": "boolean"},
            "size": {"enum": ["S", "M", "L"]},
        },
        "required": ["name", "ok", "size"],
        "additionalProperties": False,
    }
    processor = backend.get_json_schema_logits_processor(json.dumps(schema))
    texts = run(model, processor, ["JSON:", "Here is the record:"], max_new_tokens=60)
    for text in texts:
        jsonschema.validate(json.loads(text), schema)
    compact = backend.get_json_schema_logits_processor(json.dumps(schema), whitespace_pattern="")
    (text,) = run(model, compact, "{", max_new_tokens=60)
    jsonschema.validate(json.loads(text), schema)
    assert " " not in text.replace('" ', "").split('"name"')[0]  # no whitespace outside strings: compact
    assert re.fullmatch(r'\{"name":"[a-z]{1,4}","ok":(true|false),"size":"[SML]"\}', text), text


def test_cfg(model, backend):
    lark = pytest.importorskip("lark")
    grammar = r"""
start: "(" NUM ("," NUM)? ")"
NUM: /[0-9]{1,2}/
"""
    processor = backend.get_cfg_logits_processor(grammar)
    texts = run(model, processor, ["Point:", "A pair"], max_new_tokens=10)
    parser = lark.Lark(grammar, parser="lalr")
    for text in texts:
        parser.parse(text)  # raises on any text outside the language
    (text,) = run(model, backend.get_cfg_logits_processor(outlines.types.CFG(grammar)), "P", max_new_tokens=10)
    parser.parse(text)


def test_numpy_logits(model):
    """numpy tensors (outlines' LlamaCpp models): refused tokens get -inf, rows advance, EOS after EOS."""
    backend = TokenguideBackend(model, tensor_library_name="numpy")
    processor = backend.get_regex_logits_processor(r"[0-9]{2}")
    assert isinstance(processor, TokenguideLogitsProcessor)
    vocab = 50257 + 43  # a model whose output is padded past the tokenizer's vocabulary
    rng = numpy.random.default_rng(0)
    scores = rng.standard_normal((2, vocab)).astype(numpy.float32)
    prompt = numpy.array([[10, 11], [12, 13]])
    out = processor(prompt, scores.copy())
    allowed = sorted(processor.guide.get_tokens())
    for row in range(2):
        assert numpy.flatnonzero(numpy.isfinite(out[row])).tolist() == allowed
        assert numpy.array_equal(out[row, allowed], scores[row, allowed])
    one, twelve = backend.vocabulary.get("1")[0], backend.vocabulary.get("12")[0]
    out = processor(numpy.array([[10, 11, one], [12, 13, twelve]]), numpy.zeros((2, vocab), numpy.float32))
    assert numpy.flatnonzero(numpy.isfinite(out[1])).tolist() == [EOS]
    assert EOS not in numpy.flatnonzero(numpy.isfinite(out[0])).tolist()
    out = processor(numpy.array([[10, 11, one, one], [12, 13, twelve, EOS]]), numpy.zeros((2, vocab), numpy.float32))
    assert numpy.flatnonzero(numpy.isfinite(out[1])).tolist() == [EOS]
    assert processor.finished() == [True, True]
    # a 1-D call (mlx-lm style: one sequence) after reset(): a fresh guide
    processor.reset()
    out = processor(numpy.array([5, 6]), numpy.zeros(vocab, numpy.float32))
    assert out.shape == (vocab,) and numpy.flatnonzero(numpy.isfinite(out)).tolist() == allowed
    with pytest.raises(ValueError, match="row 0 produced token"):
        processor(numpy.array([5, 6, backend.vocabulary.get("a")[0]]), numpy.zeros(vocab, numpy.float32))


def test_torch_mask_matches_the_guide(backend):
    processor = backend.get_json_schema_logits_processor('{"type": "object", "properties": {"a": {"type": "integer"}}}')
    scores = torch.randn(3, 50257)
    out = processor(torch.tensor([[1], [2], [3]]), scores.clone())
    allowed = processor.guide.get_tokens()
    for row in range(3):
        assert torch.isfinite(out[row]).nonzero().flatten().tolist() == allowed


def test_mlx_when_installed(backend):
    mx = pytest.importorskip("mlx.core", reason="mlx is only installable on Apple silicon")
    processor = TokenguideBackend.__new__(TokenguideBackend)
    processor.__dict__.update(backend.__dict__, tensor_library_name="mlx")
    proc = processor.get_regex_logits_processor(r"[0-9]{2}")
    out = proc(mx.array([[1, 2]]), mx.zeros((1, 50257)))
    assert int(mx.isfinite(out).sum()) == len(proc.guide.get_tokens())
