"""A tokenizer adapter with the interface outlines' guides expect (decode, vocabulary, eos...).

Built from a core `Vocabulary`, from a vocab.json / tokenizer.json path, or from a
`transformers` tokenizer (duck typing: transformers is never imported). Encoding text is not
needed by the guides and raises NotImplementedError.
"""

from __future__ import annotations

import codecs
import os
from typing import Any, Iterable, Sequence

from ..arguments import check_bool, check_str, check_token_id, describe
from ..errors import ArgumentError, NotFoundError, TokenguideError, VocabularyError, VocabularyTypeError
from .vocabulary import Vocabulary, require_vocabulary

__all__ = ["Tokenizer", "as_tokenizer", "decode_utf8_prefix", "tokenizer_token_ids"]


def decode_utf8_prefix(data: bytes) -> str:
    """Text of `data`, holding back an incomplete UTF-8 sequence at the very end.

    Invalid bytes elsewhere become U+FFFD (as real tokenizers do with errors="replace"); a trailing
    lead byte with only some of its continuation bytes is left out until a later token completes it.
    """
    return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=False)


class Tokenizer:
    """outlines-style tokenizer over a core Vocabulary.

    Attributes: `eos_token_id`, `eos_token`, `pad_token_id` (EOS when there is no pad),
    `vocabulary` (raw token string -> id, every token incl. EOS/special, like HF get_vocab()),
    `special_tokens` (set of special token strings), `vocab_size`, `core_vocabulary`.
    `decode` follows outlines/HF batch_decode: a list whose items are ids or lists of ids gives a
    list of strings. Text comes from the concatenated token bytes; an incomplete UTF-8 sequence at
    the end is held back. When the vocabulary's decoder strips a leading space (Llama 2's
    ``Strip``, T5's ``Metaspace``; `Vocabulary.strips_leading_space`), one leading space of the
    decoded text is dropped too (`strip_leading_space`, default taken from the vocabulary).
    `hf_tokenizer` is the wrapped transformers tokenizer (None unless built by from_transformers).
    """

    def __init__(self, vocabulary: Vocabulary, *, strip_leading_space: bool | None = None):
        try:
            require_vocabulary(vocabulary, "vocabulary", "Tokenizer")
        except TokenguideError as exc:
            raise type(exc)(f"{exc}; or use Tokenizer.from_file(path) or as_tokenizer(obj) for other inputs") from None
        self.core_vocabulary = vocabulary
        self.eos_token_id = vocabulary.eos_token_id
        self.eos_token = vocabulary.eos_token if vocabulary.eos_token is not None else ""
        self.pad_token_id = vocabulary.eos_token_id
        self.vocabulary: dict[str, int] = dict(vocabulary.token_strings)
        self.vocab_size = vocabulary.vocab_size
        special_ids = set(vocabulary.special_token_ids) | {vocabulary.eos_token_id}
        self.special_tokens: set[str] = {
            tok for tok in (vocabulary.id_to_token(i) for i in special_ids) if tok is not None
        }
        if strip_leading_space is None:
            strip_leading_space = vocabulary.strips_leading_space
        check_bool("Tokenizer", "strip_leading_space", strip_leading_space)
        self.strip_leading_space = bool(strip_leading_space)
        self._hf: Any = None

    @property
    def hf_tokenizer(self) -> Any:
        """The transformers tokenizer this adapter decodes with, or None (decoding from token bytes)."""
        return self._hf

    # -- constructors ---------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | os.PathLike[str], eos: int | str | None = None, **kwargs) -> "Tokenizer":
        """Read a vocab.json or tokenizer.json (see Vocabulary.from_file)."""
        return cls(Vocabulary.from_file(path, eos=eos), **kwargs)

    @classmethod
    def from_transformers(cls, hf_tokenizer: Any) -> "Tokenizer":
        """Wrap a `transformers` tokenizer (duck typing: get_vocab, eos_token_id, decode...).

        The token bytes come from the fast tokenizer's tokenizer.json when available; decoding
        is delegated to the HF tokenizer so texts are exactly what the model's tokenizer produces.
        """
        eos = getattr(hf_tokenizer, "eos_token_id", None)
        if eos is None:
            raise VocabularyError("transformers tokenizer has no eos_token_id; set it before wrapping")
        backend = getattr(hf_tokenizer, "backend_tokenizer", None)
        vocab = None
        if backend is not None and hasattr(backend, "to_str"):
            vocab = Vocabulary.from_json_text(backend.to_str(), filename="tokenizer.json", eos=int(eos))
        else:
            mapping: dict[str | bytes, int] = {}
            for token, token_id in hf_tokenizer.get_vocab().items():
                text = hf_tokenizer.convert_tokens_to_string([token])
                if token.startswith("\u2581") and not text.startswith(" "):
                    text = " " + text
                mapping.setdefault(text, []).append(token_id)  # type: ignore[union-attr]
            vocab = Vocabulary(int(eos), mapping)
        tokenizer = cls(vocab, strip_leading_space=False)
        tokenizer.vocabulary = dict(hf_tokenizer.get_vocab())
        tokenizer.special_tokens = set(getattr(hf_tokenizer, "all_special_tokens", ()) or ())
        pad = getattr(hf_tokenizer, "pad_token_id", None)
        tokenizer.pad_token_id = pad if pad is not None else int(eos)
        tokenizer.eos_token = getattr(hf_tokenizer, "eos_token", None) or tokenizer.eos_token
        tokenizer._hf = hf_tokenizer
        return tokenizer

    # -- outlines Tokenizer protocol -----------------------------------------------------------
    def encode(self, prompt, **kwargs):
        """Not provided: the guides never encode text."""
        raise NotImplementedError("tokenguide's Tokenizer only decodes; encode text with the model's own tokenizer")

    def token_bytes(self, token_id: int) -> bytes:
        """Bytes of one token (b"" for EOS, special tokens and unknown ids)."""
        token_id = check_token_id("Tokenizer.token_bytes", "token_id", token_id)
        return self.core_vocabulary.id_to_bytes(token_id) or b""

    def decode_text(self, token_ids: Iterable[int]) -> str:
        """Text of one token sequence (see the class docstring for the rules)."""
        ids = _token_ids("Tokenizer.decode_text", token_ids)
        if self._hf is not None:
            return self._hf.decode(ids, skip_special_tokens=True)
        text = decode_utf8_prefix(b"".join(self.token_bytes(t) for t in ids))
        if self.strip_leading_space and text.startswith(" "):
            text = text[1:]
        return text

    def decode(self, token_ids: Sequence[Any]) -> list[str]:
        """Batch decode as outlines/HF batch_decode: each item is one id or a sequence of ids.

        decode([5, 7]) -> [text of 5, text of 7]; decode([[5, 7]]) -> [text of 5 then 7].
        """
        if hasattr(token_ids, "tolist"):
            token_ids = token_ids.tolist()
        if isinstance(token_ids, (str, bytes)) or not hasattr(token_ids, "__iter__"):
            raise ArgumentError(f"Tokenizer.decode: token_ids must be a list of ids or of id lists, got {describe(token_ids)}")
        out = []
        for item in token_ids:
            if hasattr(item, "tolist"):
                item = item.tolist()
            if hasattr(type(item), "__index__"):
                out.append(self.decode_text(_token_ids("Tokenizer.decode", [item])))
            else:
                out.append(self.decode_text(_token_ids("Tokenizer.decode", item)))
        return out

    def convert_token_to_string(self, token: str) -> str:
        """Text of a raw token string (e.g. 'Ġthe' -> ' the', '▁the' -> ' the'), no space stripping."""
        check_str("Tokenizer.convert_token_to_string", "token", token)
        token_id = self.vocabulary.get(token)
        if token_id is None:
            raise NotFoundError(f"Tokenizer.convert_token_to_string: token {token!r} is not in the vocabulary")
        if self._hf is not None:
            data = self.core_vocabulary.id_to_bytes(token_id)
            if data is None:
                return self._hf.convert_tokens_to_string([token])
            return data.decode("utf-8", errors="replace")
        return self.token_bytes(token_id).decode("utf-8", errors="replace")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tokenizer):
            return NotImplemented
        return (
            self.core_vocabulary == other.core_vocabulary
            and self.strip_leading_space == other.strip_leading_space
            and self._hf is other._hf
        )

    def __hash__(self) -> int:
        return hash((self.core_vocabulary.fingerprint(), self.strip_leading_space))

    def __repr__(self) -> str:
        return f"Tokenizer({self.core_vocabulary!r}, strip_leading_space={self.strip_leading_space})"


def _token_ids(where: str, token_ids: Any) -> list[int]:
    """`token_ids` as a list of ids (each an integer in 0..2**32-1), else ArgumentError."""
    if isinstance(token_ids, (str, bytes)) or not hasattr(token_ids, "__iter__"):
        raise ArgumentError(f"{where}: token_ids must be a sequence of token ids, got {describe(token_ids)}")
    return [check_token_id(where, "token_ids item", t) for t in token_ids]


def as_tokenizer(obj: Any, *, where: str = "as_tokenizer", argument: str = "tokenizer") -> Any:
    """Turn what a user passes as "tokenizer" into something with the outlines tokenizer interface.

    Anything else is a VocabularyTypeError naming `where` (the public entry point) and `argument`.
    Tokenizer -> itself; Vocabulary -> Tokenizer; a path -> Tokenizer.from_file; a transformers
    tokenizer (has get_vocab and convert_tokens_to_string) -> Tokenizer.from_transformers;
    any other object with eos_token_id, vocabulary and decode is returned unchanged.
    """
    if isinstance(obj, Tokenizer):
        return obj
    if isinstance(obj, Vocabulary):
        return Tokenizer(obj)
    if isinstance(obj, (str, os.PathLike)):
        return Tokenizer.from_file(obj)
    if hasattr(obj, "get_vocab") and hasattr(obj, "convert_tokens_to_string"):
        return Tokenizer.from_transformers(obj)
    if all(hasattr(obj, name) for name in ("eos_token_id", "vocabulary", "decode")):
        return obj
    hint = "; build a Vocabulary(eos_token_id, mapping) from a token -> id dict" if isinstance(obj, dict) else ""
    raise VocabularyTypeError(
        f"{where}: {argument}: expected a tokenguide Tokenizer or Vocabulary, a vocab.json/tokenizer.json path, "
        f"a transformers tokenizer, or an object with eos_token_id, vocabulary and decode; got {type(obj).__name__}{hint}"
    )


def tokenizer_token_ids(tokenizer: Any) -> set[int]:
    """Every token id a tokenizer names: the ids of its string `vocabulary` and, for a tokenguide
    Tokenizer, every id of its core Vocabulary (several ids can share one string, e.g. a mapping's
    str "a" and bytes b"a", which a string-keyed dict keeps only one of)."""
    ids = {int(i) for i in tokenizer.vocabulary.values()}
    core = getattr(tokenizer, "core_vocabulary", None)
    if isinstance(core, Vocabulary):
        for id_list in core.tokens.values():
            ids.update(id_list)
    return ids


def core_vocabulary_of(tokenizer: Any) -> Vocabulary:
    """The core Vocabulary behind a tokenizer-like object (built from convert_token_to_string if needed)."""
    if isinstance(tokenizer, Vocabulary):
        return tokenizer
    vocab = getattr(tokenizer, "core_vocabulary", None)
    if isinstance(vocab, Vocabulary):
        return vocab
    tok = as_tokenizer(tokenizer)
    vocab = getattr(tok, "core_vocabulary", None)
    if isinstance(vocab, Vocabulary):
        return vocab
    mapping: dict[str | bytes, list[int]] = {}
    special = set(getattr(tok, "special_tokens", ()) or ())
    for token, token_id in tok.vocabulary.items():
        if token_id == tok.eos_token_id or token in special:
            continue
        mapping.setdefault(tok.convert_token_to_string(token), []).append(int(token_id))
    return Vocabulary(int(tok.eos_token_id), mapping)
