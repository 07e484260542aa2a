"""tokenguide.integrations.transformers in a real `model.generate()`.

A randomly initialised 2-layer GPT-2 (built from a config: no weights are downloaded) and the
real GPT-2 tokenizer built offline from encoder.json + vocab.bpe with `tokenizers`. Every
finished output is judged by an oracle written by others: `re.fullmatch`, `jsonschema`, and
Lark's own parser. Short generations keep each test to a few seconds.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "emscripten", reason="torch and transformers are CPython-only")

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from tokenguide.integrations.transformers import (  # noqa: E402
    CFGLogitsProcessor,
    GuideLogitsProcessor,
    JSONLogitsProcessor,
    RegexLogitsProcessor,
)
from tiny_gpt2 import EOS, gpt2_hf_tokenizer, tiny_gpt2_model  # noqa: E402


@pytest.fixture(scope="module")
def hf_tokenizer(gpt2_vocab_path):
    return gpt2_hf_tokenizer(gpt2_vocab_path, padding_side="left")


@pytest.fixture(scope="module")
def model():
    with tiny_gpt2_model() as net:
        yield net


def generate(model, tokenizer, processor, prompts, max_new_tokens, seed=1, sample=True):
    """Run generate() and return (texts of the generated parts, whether each row emitted EOS)."""
    torch.manual_seed(seed)
    batch = tokenizer(prompts, return_tensors="pt", padding=True)
    out = model.generate(
        **batch,
        logits_processor=transformers.LogitsProcessorList([processor]),
        max_new_tokens=max_new_tokens,
        do_sample=sample,
        pad_token_id=EOS,
        eos_token_id=EOS,
    )
    texts, ended = [], []
    for row in out[:, batch["input_ids"].shape[1] :].tolist():
        if EOS in row:
            ended.append(True)
            row = row[: row.index(EOS)]
        else:
            ended.append(False)
        texts.append(tokenizer.decode(row))
    return texts, ended


def test_regex_batch(model, hf_tokenizer):
    regex = r"[0-9]{3}-[0-9]{2}"
    processor = RegexLogitsProcessor(regex, hf_tokenizer)
    prompts = ["Call me at", "Number:", "The code for the door of the house is"]  # different lengths
    texts, ended = generate(model, hf_tokenizer, processor, prompts, max_new_tokens=12)
    assert all(ended), texts  # the language is finite: every row must reach EOS within 12 tokens
    for text in texts:
        assert re.fullmatch(regex, text), text
    assert processor.finished() == [True, True, True]


def test_regex_greedy_and_reuse(model, hf_tokenizer):
    regex = r"(yes|no|maybe)!"
    processor = RegexLogitsProcessor(regex, hf_tokenizer)
    first, ended = generate(model, hf_tokenizer, processor, ["Answer:"], max_new_tokens=8, sample=False)
    assert ended == [True] and re.fullmatch(regex, first[0])
    # the same processor in a second generate() call, with another batch size: fresh guides
    texts, ended = generate(model, hf_tokenizer, processor, ["Well?", "Tell me, yes or no"], max_new_tokens=8)
    assert all(ended) and all(re.fullmatch(regex, t) for t in texts), texts
    again, _ = generate(model, hf_tokenizer, processor, ["Answer:"], max_new_tokens=8, sample=False)
    assert again == first  # greedy decoding through the same constraint is deterministic


def test_json_schema(model, hf_tokenizer):
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
    processor = JSONLogitsProcessor(schema, hf_tokenizer)
    # at most 52 characters (14 optional spaces), so 60 tokens always reach EOS
    texts, ended = generate(model, hf_tokenizer, processor, ["JSON:", "Here is the record:"], max_new_tokens=60)
    assert all(ended), texts
    for text in texts:
        jsonschema.validate(json.loads(text), schema)
    texts, ended = generate(model, hf_tokenizer, JSONLogitsProcessor(json.dumps(schema), hf_tokenizer), ["{"], 60)
    assert ended == [True]
    jsonschema.validate(json.loads(texts[0]), schema)


def test_cfg(model, hf_tokenizer):
    lark = pytest.importorskip("lark")
    grammar = r"""
start: "(" NUM ("," NUM)? ")"
NUM: /[0-9]{1,2}/
"""
    processor = CFGLogitsProcessor(grammar, hf_tokenizer)
    texts, ended = generate(model, hf_tokenizer, processor, ["Point:", "A pair"], max_new_tokens=10)
    assert all(ended), texts  # at most 7 characters: "(99,99)"
    parser = lark.Lark(grammar, parser="lalr")
    for text in texts:
        parser.parse(text)  # raises on any text outside the language


def test_mask_applied_to_logits(hf_tokenizer):
    """Direct calls: refused tokens get -inf, allowed keep their logits, EOS only after EOS."""
    processor = RegexLogitsProcessor(r"[0-9]{2}", hf_tokenizer)
    vocab = 50257 + 43  # a model whose embedding is padded past the tokenizer's vocabulary
    scores = torch.randn(2, vocab)
    prompt = torch.tensor([[10, 11], [12, 13]])
    out = processor(prompt, scores.clone())
    allowed = sorted(processor.guide.get_tokens())
    for row in range(2):
        finite = torch.isfinite(out[row]).nonzero().flatten().tolist()
        assert finite == allowed
        assert torch.equal(out[row, allowed], scores[row, allowed])
    one = hf_tokenizer.convert_tokens_to_ids("1")
    twelve = hf_tokenizer.convert_tokens_to_ids("12")
    out = processor(torch.tensor([[10, 11, one], [12, 13, twelve]]), torch.zeros(2, vocab))
    assert torch.isfinite(out[1]).nonzero().flatten().tolist() == [EOS]  # "12" is complete
    assert EOS not in torch.isfinite(out[0]).nonzero().flatten().tolist()
    out = processor(torch.tensor([[10, 11, one, one], [12, 13, twelve, EOS]]), torch.zeros(2, vocab))
    assert torch.isfinite(out[1]).nonzero().flatten().tolist() == [EOS]
    assert processor.finished() == [True, True]
    with pytest.raises(ValueError, match="row 0 produced token"):
        processor(torch.tensor([[10, 11, one, one, one], [12, 13, twelve, EOS, EOS]]), torch.zeros(2, vocab))
    with pytest.raises(TypeError, match="expected a tokenguide Guide"):
        GuideLogitsProcessor("[0-9]")  # type: ignore[arg-type]


def test_dead_end_is_an_error_not_nan():
    """A lazy guide can reach a state the vocabulary cannot continue: a clear error, not -inf everywhere."""
    from tokenguide import Guide, GuideError, Vocabulary

    processor = GuideLogitsProcessor(Guide.from_regex(r"a(b|c)", Vocabulary(0, {"a": 1, "x": 2})))
    out = processor(torch.tensor([[2]]), torch.zeros(1, 3))
    assert torch.isfinite(out[0]).tolist() == [False, True, False]
    with pytest.raises(GuideError, match="row 0 reached a state where no token"):
        processor(torch.tensor([[2, 1]]), torch.zeros(1, 3))


def test_library_works_without_torch_numpy_transformers(gpt2_vocab_path):
    """The core library imports and fills masks with torch, numpy and transformers unimportable."""
    script = f"""
import sys
for name in ("torch", "numpy", "transformers", "tokenizers"):
    sys.modules[name] = None
import tokenguide, tokenguide.integrations
from tokenguide import Guide, Vocabulary
guide = Guide.from_regex(r"[0-9]{{2}}", Vocabulary.from_file({str(gpt2_vocab_path)!r}))
buf = bytearray(guide.words * 4)
guide.write_mask_into(buf)
assert sum(bin(b).count("1") for b in buf) == len(guide.get_tokens()) > 0
try:
    import tokenguide.integrations.transformers
except ImportError:
    print("ok")
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
