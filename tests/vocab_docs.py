"""Small tokenizer documents and error helpers shared by the vocabulary tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tokenguide.errors import VocabularyError
from tokenguide.vocabulary import Vocabulary

__all__ = ["LLAMA_DECODER", "added", "error_of", "from_doc", "tokenizer_json", "write_json"]


def write_json(path: Path, data) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def tokenizer_json(vocab, decoder=None, added_tokens=(), model_type="BPE") -> dict:
    """A minimal tokenizer.json document."""
    return {
        "version": "1.0",
        "added_tokens": list(added_tokens),
        "normalizer": None,
        "pre_tokenizer": None,
        "decoder": decoder,
        "model": {"type": model_type, "vocab": vocab},
    }


def added(token_id: int, content: str, special: bool = True) -> dict:
    return {"id": token_id, "content": content, "special": special, "normalized": False}


LLAMA_DECODER = {
    "type": "Sequence",
    "decoders": [
        {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0},
    ],
}


def from_doc(doc, filename="tokenizer.json", **kw) -> Vocabulary:
    return Vocabulary.from_json_text(json.dumps(doc, ensure_ascii=False), filename=filename, **kw)


def error_of(func, *args, **kwargs) -> str:
    with pytest.raises(VocabularyError) as info:
        func(*args, **kwargs)
    return str(info.value)
