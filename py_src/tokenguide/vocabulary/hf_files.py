"""Reading Hugging Face vocabulary files into plain data: token id -> raw string and bytes.

* ``vocab.json`` (token -> id, nothing else): if every character of every token is in the GPT-2
  table the vocabulary is ByteLevel; otherwise, if it has ``▁`` or ``<0xNN>`` tokens it is read
  SentencePiece style (``<0xNN>`` one byte, ``▁`` a space, the rest UTF-8 text, and the
  SentencePiece control pieces ``<unk>``, ``<s>``, ``</s>``, ``<pad>`` left out); anything else
  is an error (use the tokenizer.json instead).
* ``tokenizer.json``: the ``decoder`` decides (see `decoders`); without one, the vocab.json rule.
* Added tokens (tokenizer.json ``added_tokens``; for a vocab.json, the ``added_tokens_decoder`` of
  a tokenizer_config.json beside it): special ones are kept out of the ordinary tokens;
  non-special ones are ordinary tokens whose text goes through the same decoder as model tokens
  (as Hugging Face ``tokenizers`` decodes them: Gemma's ``'▁▁'`` is two spaces). An added token
  replaces a model token with the same id.

Every failure is a VocabularyError naming the file and the place in it. Files and texts are
refused above MAX_FILE_BYTES; an integer too long for int() is reported where it stands.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import VocabularyError
from .checks import MAX_TOKEN_ID, HugeInteger, check_id, id_from_digits, short, type_name
from .decoders import Decoding, adds_dummy_prefix, decoding_from_decoder, guess_decoding

__all__ = [
    "MAX_FILE_BYTES",
    "SIBLING_FILES",
    "ParsedVocabulary",
    "parse_json",
    "parse_tokenizer_json",
    "parse_vocab_json",
    "read_limited",
]

MAX_FILE_BYTES = 512 * 1024 * 1024
"""Vocabulary files larger than this are refused before being read (real ones are < 50 MB)."""

SIBLING_FILES: tuple[str, ...] = ("generation_config.json", "tokenizer_config.json", "special_tokens_map.json")
"""Files read from the directory of a vocabulary file (when present) to find EOS and added tokens."""

_SENTENCEPIECE_CONTROL = frozenset({"<unk>", "<s>", "</s>", "<pad>"})


class _DuplicateKey(Exception):
    def __init__(self, key: str):
        self.key = key


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json object hook that refuses duplicate keys (json.loads would silently keep the last)."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result


def _int_or_huge(digits: str) -> int | HugeInteger:
    """json integer hook of the second reading: digit strings too long for int() stay unconverted."""
    length = len(digits) - digits.startswith("-")
    limit = sys.get_int_max_str_digits()
    return HugeInteger(length) if limit and length > limit else int(digits)


def parse_json(text: str | bytes, filename: str) -> Any:
    """Parse JSON text, turning every failure into a VocabularyError that names the file."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        if len(text) > MAX_FILE_BYTES:
            raise VocabularyError(f"{filename}: file is {len(text):,} bytes, more than the {MAX_FILE_BYTES:,} accepted")
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise VocabularyError(
                f"{filename}: not UTF-8 text (bad byte at offset {exc.start}); "
                "expected a JSON vocab.json or tokenizer.json"
            ) from None
    elif not isinstance(text, str):
        raise VocabularyError(f"{filename}: expected JSON text (str or bytes), got {type(text).__name__}")
    elif text.startswith("\ufeff"):
        text = text[1:]
    if len(text) > MAX_FILE_BYTES:
        raise VocabularyError(f"{filename}: text is {len(text):,} characters, more than the {MAX_FILE_BYTES:,} accepted")
    try:
        return json.loads(text, object_pairs_hook=_pairs_hook)
    except json.JSONDecodeError as exc:
        raise VocabularyError(
            f"{filename}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except _DuplicateKey as exc:
        raise VocabularyError(f"{filename}: duplicate key {short(exc.key)} in a JSON object") from None
    except RecursionError:
        raise VocabularyError(f"{filename}: JSON nested too deeply") from None
    except ValueError:
        # int() refuses integers of more than sys.get_int_max_str_digits() digits: read the text
        # again keeping those as HugeInteger, so the check of the place that holds one names it.
        return json.loads(text, object_pairs_hook=_pairs_hook, parse_int=_int_or_huge)


def read_limited(path: str, filename: str) -> bytes:
    """Read a file after checking it is not absurdly large."""
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise VocabularyError(
            f"{filename}: file is {size:,} bytes, more than the {MAX_FILE_BYTES:,} accepted for a vocabulary file"
        )
    with open(path, "rb") as handle:
        return handle.read(MAX_FILE_BYTES + 1)


def _check_id_map(vocab: dict[str, Any], filename: str, key: str | None) -> None:
    """Validate a token -> id object (`key` names it; None: the top level of a vocab.json).

    Ids must be integers in 0..MAX_TOKEN_ID and no id may be used twice.
    """
    for token, token_id in vocab.items():
        if type(token_id) is not int or token_id < 0 or token_id > MAX_TOKEN_ID:
            if key is None:
                hint = "" if type(token_id) is int or isinstance(token_id, HugeInteger) else " (a vocab.json maps token -> id; a tokenizer.json has a 'model' object)"
                try:
                    check_id(token_id, filename, f"token {short(token)}")
                except VocabularyError as exc:
                    raise VocabularyError(f"{exc}{hint}") from None
            check_id(token_id, filename, f"{key}[{short(token)}]")
    if len(set(vocab.values())) != len(vocab):
        first: dict[int, str] = {}
        clashes: list[tuple[int, str, str]] = []
        for token, token_id in vocab.items():
            if token_id in first:
                clashes.append((token_id, first[token_id], token))
            else:
                first[token_id] = token
        token_id, one, two = min(clashes)
        raise VocabularyError(
            f"{filename}: {key or 'tokens'}: id {token_id} is given to two tokens, {short(one)} and {short(two)} "
            f"({len(clashes)} duplicated id(s) in all); every token needs its own id"
        )


class ParsedVocabulary:
    """A file read into plain data, before EOS is chosen.

    `id_to_token` holds every id's raw string, `id_to_bytes` the bytes of ordinary (non-special)
    tokens, `token_strings` raw string -> id (as HF get_vocab()), `special_ids` the special ids;
    `decoding` is the decoding kind, `strips_leading_space` and `adds_dummy_prefix` what the
    decoder and the normalizer do at the start of a text (see `Vocabulary`).
    """

    def __init__(self) -> None:
        self.id_to_token: dict[int, str] = {}
        self.id_to_bytes: dict[int, bytes] = {}
        self.token_strings: dict[str, int] = {}
        self.special_ids: set[int] = set()
        self.decoding = "text"
        self.strips_leading_space = False
        self.adds_dummy_prefix = False

    def set_decoding(self, decoding: Decoding) -> None:
        """Record the kind and start-of-text behaviour of the decoding in use."""
        self.decoding = decoding.kind
        self.strips_leading_space = decoding.strips_leading_space


def _read_added_tokens(entries: Iterable[tuple[int, Any, str]], filename: str) -> list[tuple[int, str, bool]]:
    """Validate added tokens given as (id, object, location) -> (id, content, special)."""
    out: list[tuple[int, str, bool]] = []
    seen: dict[int, str] = {}
    for token_id, entry, where in entries:
        if not isinstance(entry, dict):
            raise VocabularyError(f"{filename}: {where}: expected an object with 'id' and 'content', got {type_name(entry)}")
        content = entry.get("content")
        if not isinstance(content, str):
            raise VocabularyError(f"{filename}: {where}.content: expected the token text (a string), got {type_name(content)}")
        special = entry.get("special", False)
        if not isinstance(special, bool):
            raise VocabularyError(f"{filename}: {where}.special: expected true or false, got {short(special)}")
        if token_id in seen and seen[token_id] != content:
            raise VocabularyError(
                f"{filename}: {where}: id {token_id} is given to two added tokens, {short(seen[token_id])} and {short(content)}"
            )
        seen[token_id] = content
        out.append((token_id, content, special))
    return out


def _apply_added(parsed: ParsedVocabulary, added: list[tuple[int, str, bool]], decoding: Decoding, filename: str) -> None:
    """Merge added tokens into a parsed vocabulary (they win over model tokens with the same id).

    Non-special added tokens are decoded by the file's decoder, like model tokens.
    """
    ordinary = [(token_id, content) for token_id, content, special in added if not special]
    decoded = dict(zip((i for i, _ in ordinary), decoding.decode([c for _, c in ordinary], filename)))
    for token_id, content, special in added:
        # A replaced model string keeps its entry in token_strings, as in HF get_vocab().
        parsed.id_to_token[token_id] = content
        if content not in parsed.token_strings:
            parsed.token_strings[content] = token_id
        if special:
            parsed.special_ids.add(token_id)
            parsed.id_to_bytes.pop(token_id, None)
        else:
            parsed.special_ids.discard(token_id)
            parsed.id_to_bytes[token_id] = decoded[token_id]


def parse_vocab_json(data: dict[str, Any], filename: str, siblings: Mapping[str, Any]) -> ParsedVocabulary:
    """Read a vocab.json object (token -> id), with the added tokens of a tokenizer_config.json beside it."""
    _check_id_map(data, filename, None)
    parsed = ParsedVocabulary()
    ordered = sorted(data.items(), key=lambda kv: kv[1])
    ids = [token_id for _, token_id in ordered]
    tokens = [token for token, _ in ordered]
    decoding, decoded = guess_decoding(tokens, filename)
    if decoded is None:
        decoded = decoding.decode(tokens, filename)
    parsed.set_decoding(decoding)
    parsed.adds_dummy_prefix = decoding.kind == "sentencepiece"
    parsed.id_to_token = dict(zip(ids, tokens))
    parsed.token_strings = dict(ordered)
    parsed.id_to_bytes = dict(zip(ids, decoded))
    if decoding.kind == "sentencepiece":
        for token in _SENTENCEPIECE_CONTROL:
            if token in data:
                parsed.special_ids.add(data[token])
                parsed.id_to_bytes.pop(data[token], None)
    config = siblings.get("tokenizer_config.json")
    if config is not None:
        name = "tokenizer_config.json"
        decoder = config.get("added_tokens_decoder") if isinstance(config, dict) else None
        if decoder is not None:
            if not isinstance(decoder, dict):
                raise VocabularyError(f"{name}: added_tokens_decoder: expected an object id -> token, got {type_name(decoder)}")
            entries = []
            for key, entry in decoder.items():
                if not (key.isascii() and key.isdigit()):
                    raise VocabularyError(f"{name}: added_tokens_decoder[{short(key)}]: expected a token id (digits) as key")
                where = f"added_tokens_decoder[{key if len(key) <= 20 else short(key)}]"
                entries.append((id_from_digits(key, name, where), entry, where))
            _apply_added(parsed, _read_added_tokens(entries, name), decoding, name)
    return parsed


def _model_tokens(model: dict[str, Any], parsed: ParsedVocabulary, filename: str) -> tuple[list[int], list[str]]:
    """Ids and raw strings of a tokenizer.json model's vocabulary (BPE/WordLevel dict or Unigram list)."""
    vocab = model.get("vocab")
    if isinstance(vocab, dict):
        _check_id_map(vocab, filename, "model.vocab")
        ordered = sorted(vocab.items(), key=lambda kv: kv[1])
        parsed.token_strings = dict(ordered)
        return [token_id for _, token_id in ordered], [token for token, _ in ordered]
    if isinstance(vocab, list):
        tokens = []
        for i, entry in enumerate(vocab):
            if isinstance(entry, list) and entry and isinstance(entry[0], str):
                tokens.append(entry[0])
            else:
                raise VocabularyError(
                    f"{filename}: model.vocab[{i}]: expected a [piece, score] pair (Unigram), got {short(entry)}"
                )
        if len(tokens) > MAX_TOKEN_ID + 1:  # pragma: no cover - would not fit in memory anyway
            raise VocabularyError(f"{filename}: model.vocab: too many tokens")
        ids = list(range(len(tokens)))
        for token_id, token in zip(ids, tokens):
            parsed.token_strings.setdefault(token, token_id)
        return ids, tokens
    if vocab is None:
        raise VocabularyError(f"{filename}: model.vocab: missing; expected the model's token -> id object")
    raise VocabularyError(
        f"{filename}: model.vocab: expected an object token -> id (BPE/WordPiece/WordLevel) or a list "
        f"of [piece, score] pairs (Unigram), got {type_name(vocab)}"
    )


def parse_tokenizer_json(data: dict[str, Any], filename: str) -> ParsedVocabulary:
    """Read a tokenizer.json object: model vocabulary, added tokens, decoder, dummy-prefix normalizer."""
    parsed = ParsedVocabulary()
    ids, tokens = _model_tokens(data["model"], parsed, filename)
    added_raw = data.get("added_tokens", [])
    if added_raw is None:
        added_raw = []
    if not isinstance(added_raw, list):
        raise VocabularyError(f"{filename}: added_tokens: expected a list of token objects, got {type_name(added_raw)}")
    entries = []
    for i, entry in enumerate(added_raw):
        where = f"added_tokens[{i}]"
        if not isinstance(entry, dict):
            raise VocabularyError(f"{filename}: {where}: expected an object with 'id' and 'content', got {type_name(entry)}")
        entries.append((check_id(entry.get("id"), filename, f"{where}.id"), entry, where))
    added = _read_added_tokens(entries, filename)
    replaced = {token_id for token_id, _, _ in added}

    decoding = decoding_from_decoder(data.get("decoder"), filename)
    if decoding is None:
        decoding = guess_decoding([t for i, t in zip(ids, tokens) if i not in replaced] or tokens, filename)[0]
    parsed.set_decoding(decoding)
    parsed.adds_dummy_prefix = adds_dummy_prefix(data.get("normalizer"), data.get("pre_tokenizer"))
    parsed.id_to_token = dict(zip(ids, tokens))
    # Tokens that an added token replaces are not decoded (they may be outside the decoder's alphabet).
    if replaced:
        keep = [k for k, i in enumerate(ids) if i not in replaced]
        ids_d = [ids[k] for k in keep]
        tokens_d = [tokens[k] for k in keep]
    else:
        ids_d, tokens_d = ids, tokens
    parsed.id_to_bytes = dict(zip(ids_d, decoding.decode(tokens_d, filename)))
    _apply_added(parsed, added, decoding, filename)
    return parsed
