"""GPT-2's real tokenizer (from the local vocab.json and vocab.bpe), as a `tokenizers` tokenizer and as a
transformers one, and a tiny GPT-2 model with random weights: what the tests tokenize and generate
with (no downloads)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

EOS = 50256


def gpt2_bpe_tokenizer(vocab_path: Path):
    """The `tokenizers` Tokenizer of GPT-2's BPE files (`vocab_path` and the vocab.bpe beside it),
    with the ByteLevel pre-tokenizer (no prefix space) and decoder."""
    import tokenizers

    backend = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(str(vocab_path), str(vocab_path.parent / "vocab.bpe")))
    backend.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = tokenizers.decoders.ByteLevel()
    return backend


def gpt2_hf_tokenizer(vocab_path: Path, *, padding_side: str | None = None):
    """transformers' fast tokenizer over GPT-2's BPE files (`gpt2_bpe_tokenizer`), EOS as pad."""
    import transformers

    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=gpt2_bpe_tokenizer(vocab_path), eos_token="<|endoftext|>")
    tok.pad_token = tok.eos_token
    if padding_side is not None:
        tok.padding_side = padding_side
    assert tok.eos_token_id == EOS and len(tok) == 50257
    return tok


@contextmanager
def tiny_gpt2_model() -> Iterator[object]:
    """A 2-layer GPT-2 with random weights (seed 0) over GPT-2's vocabulary, torch on one thread meanwhile."""
    import torch
    import transformers

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny model: threads only add contention on a shared machine
    torch.manual_seed(0)
    try:
        net = transformers.GPT2LMHeadModel(transformers.GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=50257))
        net.eval()
        yield net
    finally:
        torch.set_num_threads(threads)
