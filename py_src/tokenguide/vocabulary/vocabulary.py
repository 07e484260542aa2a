"""Token vocabularies: which byte string every token id stands for, and which id is EOS.

A `Vocabulary` is what an index is built against. It can be made directly from a mapping
(like outlines-core's ``Vocabulary(eos_token_id, map)``) or read from a HuggingFace
``vocab.json`` / ``tokenizer.json``.

How token strings become bytes
------------------------------
* ``tokenizer.json``: the ``decoder`` decides.
  - ``ByteLevel`` (GPT-2, Llama 3, Qwen): every character maps back to one byte through the
    GPT-2 byte-to-unicode table (see `tokenguide.byte_level`). A model token with a character
    outside the table is taken as its UTF-8 text, as the HuggingFace decoder does.
  - ``Sequence`` / single decoders built from ``ByteFallback``, ``Replace``, ``Metaspace``,
    ``Fuse``, ``Strip`` (Llama 2, Mistral, Gemma): with ``ByteFallback`` a ``<0xNN>`` token is
    the single raw byte NN; the ``Replace`` pattern (a plain string) and the ``Metaspace``
    replacement character (usually ``▁``) become their content (a space); anything else is
    the token's UTF-8 text. ``Fuse`` and ``Strip`` act on whole decoded sequences and are
    ignored, as is the normalizer (e.g. ``Prepend`` of the dummy space prefix).
  - no decoder: same rule as for a bare vocab.json (below).
  - ``WordPiece`` decoder: rejected (a token's text depends on its position: ``##``
    continuations glue to the previous token, others start a new word after a space).
  - any other decoder type: VocabularyError naming the type.
* ``vocab.json`` (token -> id, nothing else): if every character of every token is in the
  GPT-2 table the vocabulary is ByteLevel; otherwise, if it has ``▁`` or ``<0xNN>`` tokens it
  is read SentencePiece style (``<0xNN>`` one byte, ``▁`` a space, the rest UTF-8 text, and
  the SentencePiece control pieces ``<unk>``, ``<s>``, ``</s>``, ``<pad>`` left out);
  anything else is an error (use the tokenizer.json instead).
* Added tokens (tokenizer.json ``added_tokens``; for a vocab.json, the ``added_tokens_decoder``
  of a tokenizer_config.json beside it): special ones are kept out of `Vocabulary.tokens`,
  non-special ones are ordinary tokens spelled by their literal UTF-8 text. An added token
  replaces a model token with the same id.

Which id is EOS
---------------
In order: the ``eos`` argument (an id, a string of digits meaning an id, or the token text);
``eos_token_id`` of generation_config.json beside the file (for a list, the first);
``eos_token`` of tokenizer_config.json, then of special_tokens_map.json; finally a guess
among well-known names (`EOS_GUESSES`, in that priority order). `Vocabulary.eos_note`
tells which rule chose it. EOS is never an ordinary token, even when the file lists it
as one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import sys
from array import array
from collections.abc import Iterable, Mapping
from typing import Any

from .byte_level import decode_byte_level_many, encode_byte_level
from ..errors import VocabularyError

__all__ = ["Vocabulary", "EOS_GUESSES", "MAX_FILE_BYTES", "MAX_TOKEN_ID"]

MAX_FILE_BYTES = 512 * 1024 * 1024
"""Vocabulary files larger than this are refused before being read (real ones are < 50 MB)."""

MAX_TOKEN_ID = 2**31 - 1
"""Largest accepted token id (ids are stored as u32 and handled as JS numbers in the browser)."""

EOS_GUESSES: tuple[str, ...] = (
    "<|endoftext|>",
    "</s>",
    "<|eot_id|>",
    "<|end_of_text|>",
    "<eos>",
    "<|im_end|>",
    "<|end|>",
    "<｜end▁of▁sentence｜>",
    "<|end_of_sentence|>",
    "<|eos|>",
    "[EOS]",
    "[SEP]",
)
"""Well-known EOS token texts, tried in this order when nothing else names the EOS token."""

SIBLING_FILES: tuple[str, ...] = ("generation_config.json", "tokenizer_config.json", "special_tokens_map.json")
"""Files read from the directory of a vocabulary file (when present) to find EOS and added tokens."""

_U32 = "I" if array("I").itemsize == 4 else "L"  # a 4-byte unsigned array type code
_SENTENCEPIECE_CONTROL = frozenset({"<unk>", "<s>", "</s>", "<pad>"})
_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")
_IGNORED_DECODERS = frozenset({"Fuse", "Strip"})


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


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _parse_json(text: str | bytes, filename: str) -> Any:
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
        raise VocabularyError(f"{filename}: duplicate key {_short(exc.key)} in a JSON object") from None
    except RecursionError:
        raise VocabularyError(f"{filename}: JSON nested too deeply") from None


def _check_id(value: Any, filename: str, where: str) -> int:
    """An id must be a JSON integer in 0..MAX_TOKEN_ID."""
    if type(value) is not int:
        raise VocabularyError(f"{filename}: {where}: expected a non-negative integer token id, got {_type_name(value)} {_short(value)}")
    if value < 0:
        raise VocabularyError(f"{filename}: {where}: token id {value} is negative")
    if value > MAX_TOKEN_ID:
        raise VocabularyError(f"{filename}: {where}: token id {value} is too large (ids must be below 2**31)")
    return value


def _check_id_map(vocab: dict[str, Any], filename: str, key: str | None) -> None:
    """Validate a token -> id object (`key` names it; None: the top level of a vocab.json).

    Ids must be integers in 0..MAX_TOKEN_ID and no id may be used twice.
    """
    for token, token_id in vocab.items():
        if type(token_id) is not int or token_id < 0 or token_id > MAX_TOKEN_ID:
            if key is None:
                hint = "" if type(token_id) is int else " (a vocab.json maps token -> id; a tokenizer.json has a 'model' object)"
                try:
                    _check_id(token_id, filename, f"token {_short(token)}")
                except VocabularyError as exc:
                    raise VocabularyError(f"{exc}{hint}") from None
            _check_id(token_id, filename, f"{key}[{_short(token)}]")
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
            f"{filename}: {key or 'tokens'}: id {token_id} is given to two tokens, {_short(one)} and {_short(two)} "
            f"({len(clashes)} duplicated id(s) in all); every token needs its own id"
        )


def _utf8_many(tokens: list[str], filename: str) -> list[bytes]:
    try:
        return [t.encode("utf-8") for t in tokens]
    except UnicodeEncodeError:
        for t in tokens:
            try:
                t.encode("utf-8")
            except UnicodeEncodeError:
                raise VocabularyError(f"{filename}: token {_short(t)} contains a lone surrogate, which is not text") from None
        raise  # pragma: no cover


class _Decoding:
    """How the model tokens of one file turn into bytes."""

    def __init__(self, kind: str, byte_fallback: bool = False, replacements: tuple[tuple[str, str], ...] = ()):
        self.kind = kind  # "byte-level" | "sentencepiece" | "text"
        self.byte_fallback = byte_fallback
        self.replacements = replacements

    def decode(self, tokens: list[str], filename: str) -> list[bytes]:
        if self.kind == "byte-level":
            try:
                return decode_byte_level_many(tokens)
            except VocabularyError:
                # A ByteLevel tokenizer.json may hold a few tokens outside the table: like the
                # HuggingFace decoder, take those as their UTF-8 text.
                out = []
                for t in tokens:
                    try:
                        out.extend(decode_byte_level_many([t]))
                    except VocabularyError:
                        out.extend(_utf8_many([t], filename))
                return out
        texts = tokens
        for pattern, content in self.replacements:
            texts = [t.replace(pattern, content) for t in texts]
        out = _utf8_many(texts, filename)
        if self.byte_fallback:
            match = _BYTE_TOKEN.fullmatch
            for i, t in enumerate(tokens):
                if len(t) == 6 and t[0] == "<":
                    m = match(t)
                    if m:
                        out[i] = bytes((int(m.group(1), 16),))
        return out


def _guess_decoding(tokens: list[str], filename: str) -> tuple[_Decoding, list[bytes] | None]:
    """Rule for a file without a decoder: ByteLevel if the whole vocabulary fits the table, else SentencePiece.

    Returns the decoding and, for ByteLevel, the decoded tokens (found while checking).
    """
    try:
        return _Decoding("byte-level"), decode_byte_level_many(tokens)
    except VocabularyError as exc:
        not_byte_level = str(exc)
    if any("▁" in t or (len(t) == 6 and _BYTE_TOKEN.fullmatch(t)) for t in tokens):
        return _Decoding("sentencepiece", byte_fallback=True, replacements=(("▁", " "),)), None
    raise VocabularyError(
        f"{filename}: cannot tell how tokens map to bytes: {not_byte_level}, and there are no "
        "SentencePiece '▁' or '<0xNN>' tokens; use the model's tokenizer.json instead"
    )


def _decoding_from_decoder(decoder: Any, filename: str) -> _Decoding | None:
    """The decoding a tokenizer.json `decoder` describes (None: no decoder)."""
    if decoder is None:
        return None
    flags = {"byte_level": False, "byte_fallback": False, "sentencepiece": False}
    replacements: list[tuple[str, str]] = []

    def visit(node: Any, where: str) -> None:
        if not isinstance(node, dict):
            raise VocabularyError(f"{filename}: {where}: expected a decoder object, got {_type_name(node)}")
        kind = node.get("type")
        if kind == "Sequence":
            members = node.get("decoders")
            if not isinstance(members, list):
                raise VocabularyError(f"{filename}: {where}.decoders: expected a list of decoders, got {_type_name(members)}")
            for i, member in enumerate(members):
                visit(member, f"{where}.decoders[{i}]")
        elif kind == "ByteLevel":
            flags["byte_level"] = True
        elif kind == "ByteFallback":
            flags["byte_fallback"] = True
            flags["sentencepiece"] = True
        elif kind == "Replace":
            pattern = node.get("pattern")
            content = node.get("content")
            if not (isinstance(pattern, dict) and isinstance(pattern.get("String"), str)):
                raise VocabularyError(
                    f"{filename}: {where}.pattern: only plain-string Replace decoders are supported "
                    f"(expected {{\"String\": ...}}), got {_short(pattern)}"
                )
            if not isinstance(content, str):
                raise VocabularyError(f"{filename}: {where}.content: expected a string, got {_type_name(content)}")
            if pattern["String"]:
                replacements.append((pattern["String"], content))
            flags["sentencepiece"] = True
        elif kind == "Metaspace":
            replacement = node.get("replacement", "▁")
            if not isinstance(replacement, str) or not replacement:
                raise VocabularyError(f"{filename}: {where}.replacement: expected a non-empty string, got {_short(replacement)}")
            replacements.append((replacement, " "))
            flags["sentencepiece"] = True
        elif kind in _IGNORED_DECODERS:
            pass
        elif kind == "WordPiece":
            raise VocabularyError(
                f"{filename}: {where}: decoder type 'WordPiece' is not supported: a WordPiece token's "
                "text depends on its position ('##' continuations join the previous token, other "
                "tokens start a new word after a space), so it has no fixed byte string"
            )
        else:
            raise VocabularyError(
                f"{filename}: {where}.type: unknown decoder type {_short(kind)}; supported: ByteLevel, "
                "or a Sequence of ByteFallback/Replace/Metaspace/Fuse/Strip"
            )

    visit(decoder, "decoder")
    if flags["byte_level"] and flags["sentencepiece"]:
        raise VocabularyError(
            f"{filename}: decoder: mixes ByteLevel with ByteFallback/Replace/Metaspace; cannot tell "
            "how tokens map to bytes"
        )
    if flags["byte_level"]:
        return _Decoding("byte-level")
    if flags["sentencepiece"]:
        return _Decoding("sentencepiece", byte_fallback=flags["byte_fallback"], replacements=tuple(replacements))
    return _Decoding("text")


class _Parsed:
    """Intermediate result of reading a file: raw strings and bytes per id, before EOS is chosen."""

    def __init__(self) -> None:
        self.id_to_token: dict[int, str] = {}
        self.id_to_bytes: dict[int, bytes] = {}  # ordinary (non-special) tokens only
        self.token_strings: dict[str, int] = {}
        self.special_ids: set[int] = set()
        self.decoding = "text"


def _read_added_tokens(entries: Iterable[tuple[int, Any, str]], filename: str) -> list[tuple[int, str, bool]]:
    """Validate added tokens given as (id, object, location) -> (id, content, special)."""
    out: list[tuple[int, str, bool]] = []
    seen: dict[int, str] = {}
    for token_id, entry, where in entries:
        if not isinstance(entry, dict):
            raise VocabularyError(f"{filename}: {where}: expected an object with 'id' and 'content', got {_type_name(entry)}")
        content = entry.get("content")
        if not isinstance(content, str):
            raise VocabularyError(f"{filename}: {where}.content: expected the token text (a string), got {_type_name(content)}")
        special = entry.get("special", False)
        if not isinstance(special, bool):
            raise VocabularyError(f"{filename}: {where}.special: expected true or false, got {_short(special)}")
        if token_id in seen and seen[token_id] != content:
            raise VocabularyError(
                f"{filename}: {where}: id {token_id} is given to two added tokens, {_short(seen[token_id])} and {_short(content)}"
            )
        seen[token_id] = content
        out.append((token_id, content, special))
    return out


def _apply_added(parsed: _Parsed, added: list[tuple[int, str, bool]], filename: str) -> None:
    """Merge added tokens into a parsed vocabulary (they win over model tokens with the same id)."""
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
            parsed.id_to_bytes[token_id] = _utf8_many([content], filename)[0]


def _parse_vocab_json(data: dict[str, Any], filename: str, siblings: Mapping[str, Any]) -> _Parsed:
    _check_id_map(data, filename, None)
    parsed = _Parsed()
    ordered = sorted(data.items(), key=lambda kv: kv[1])
    ids = [token_id for _, token_id in ordered]
    tokens = [token for token, _ in ordered]
    decoding, decoded = _guess_decoding(tokens, filename)
    if decoded is None:
        decoded = decoding.decode(tokens, filename)
    parsed.decoding = decoding.kind
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
                raise VocabularyError(f"{name}: added_tokens_decoder: expected an object id -> token, got {_type_name(decoder)}")
            entries = []
            for key, entry in decoder.items():
                if not (key.isascii() and key.isdigit()):
                    raise VocabularyError(f"{name}: added_tokens_decoder[{_short(key)}]: expected a token id (digits) as key")
                token_id = _check_id(int(key), name, f"added_tokens_decoder[{key}]")
                entries.append((token_id, entry, f"added_tokens_decoder[{key}]"))
            _apply_added(parsed, _read_added_tokens(entries, name), name)
    return parsed


def _parse_tokenizer_json(data: dict[str, Any], filename: str) -> _Parsed:
    model = data["model"]
    vocab = model.get("vocab")
    parsed = _Parsed()
    if isinstance(vocab, dict):
        _check_id_map(vocab, filename, "model.vocab")
        ordered = sorted(vocab.items(), key=lambda kv: kv[1])
        ids = [token_id for _, token_id in ordered]
        tokens = [token for token, _ in ordered]
        parsed.token_strings = dict(ordered)
    elif isinstance(vocab, list):
        tokens = []
        for i, entry in enumerate(vocab):
            if isinstance(entry, list) and entry and isinstance(entry[0], str):
                tokens.append(entry[0])
            else:
                raise VocabularyError(
                    f"{filename}: model.vocab[{i}]: expected a [piece, score] pair (Unigram), got {_short(entry)}"
                )
        if len(tokens) > MAX_TOKEN_ID + 1:  # pragma: no cover - would not fit in memory anyway
            raise VocabularyError(f"{filename}: model.vocab: too many tokens")
        ids = list(range(len(tokens)))
        for token_id, token in zip(ids, tokens):
            parsed.token_strings.setdefault(token, token_id)
    elif vocab is None:
        raise VocabularyError(f"{filename}: model.vocab: missing; expected the model's token -> id object")
    else:
        raise VocabularyError(
            f"{filename}: model.vocab: expected an object token -> id (BPE/WordPiece/WordLevel) or a list "
            f"of [piece, score] pairs (Unigram), got {_type_name(vocab)}"
        )
    added_raw = data.get("added_tokens", [])
    if added_raw is None:
        added_raw = []
    if not isinstance(added_raw, list):
        raise VocabularyError(f"{filename}: added_tokens: expected a list of token objects, got {_type_name(added_raw)}")
    entries = []
    for i, entry in enumerate(added_raw):
        where = f"added_tokens[{i}]"
        if not isinstance(entry, dict):
            raise VocabularyError(f"{filename}: {where}: expected an object with 'id' and 'content', got {_type_name(entry)}")
        entries.append((_check_id(entry.get("id"), filename, f"{where}.id"), entry, where))
    added = _read_added_tokens(entries, filename)

    decoding = _decoding_from_decoder(data.get("decoder"), filename)
    if decoding is None:
        added_ids = {token_id for token_id, _, _ in added}
        decoding = _guess_decoding([t for i, t in zip(ids, tokens) if i not in added_ids] or tokens, filename)[0]
    parsed.decoding = decoding.kind
    parsed.id_to_token = dict(zip(ids, tokens))
    # Tokens that an added token replaces are not decoded (they may be outside the decoder's alphabet).
    replaced = {token_id for token_id, _, _ in added}
    keep = [k for k, i in enumerate(ids) if i not in replaced] if replaced else None
    if keep is not None and len(keep) != len(ids):
        ids_d = [ids[k] for k in keep]
        tokens_d = [tokens[k] for k in keep]
    else:
        ids_d, tokens_d = ids, tokens
    parsed.id_to_bytes = dict(zip(ids_d, decoding.decode(tokens_d, filename)))
    _apply_added(parsed, added, filename)
    return parsed


def _sibling_eos_id(siblings: Mapping[str, Any], parsed: _Parsed) -> tuple[int, str] | None:
    """EOS from generation_config.json, tokenizer_config.json, special_tokens_map.json (in that order)."""
    gen = siblings.get("generation_config.json")
    if isinstance(gen, dict) and gen.get("eos_token_id") is not None:
        name = "generation_config.json"
        value = gen["eos_token_id"]
        if isinstance(value, list):
            if not value:
                raise VocabularyError(f"{name}: eos_token_id: empty list; expected a token id or a list of ids")
            ids = [_check_id(v, name, f"eos_token_id[{i}]") for i, v in enumerate(value)]
            note = f"from {name} eos_token_id"
            if len(ids) > 1:
                note += f", which lists {ids}; using the first"
        else:
            ids = [_check_id(value, name, "eos_token_id")]
            note = f"from {name} eos_token_id"
        if ids[0] not in parsed.id_to_token:
            raise VocabularyError(f"{name}: eos_token_id: token id {ids[0]} is not in the vocabulary")
        return ids[0], note
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        config = siblings.get(name)
        if not isinstance(config, dict) or config.get("eos_token") is None:
            continue
        value = config["eos_token"]
        if isinstance(value, dict):
            value = value.get("content")
            key = "eos_token.content"
        else:
            key = "eos_token"
        if not isinstance(value, str):
            raise VocabularyError(f"{name}: {key}: expected the EOS token text (a string), got {_type_name(value)}")
        if value not in parsed.token_strings:
            raise VocabularyError(f"{name}: {key}: EOS token {_short(value)} is not in the vocabulary")
        return parsed.token_strings[value], f"from {name} {key} {value!r}"
    return None


def _resolve_eos(eos: int | str | None, parsed: _Parsed, siblings: Mapping[str, Any], filename: str) -> tuple[int, str]:
    """Pick the EOS id (see the module docstring for the order) and say how it was chosen."""
    if eos is not None:
        if isinstance(eos, str) and eos.isascii() and eos.isdigit():
            eos_id: Any = int(eos)
        else:
            eos_id = eos
        if isinstance(eos_id, bool) or not isinstance(eos_id, (int, str)):
            raise VocabularyError(f"eos: expected a token id (int) or token text (str), got {type(eos).__name__}")
        if isinstance(eos_id, int):
            if eos_id not in parsed.id_to_token:
                raise VocabularyError(f"{filename}: eos: token id {eos_id} is not in the vocabulary")
            return eos_id, f"given: id {eos_id}"
        if eos_id not in parsed.token_strings:
            raise VocabularyError(
                f"{filename}: eos: token {_short(eos_id)} is not in the vocabulary; give its exact text or its id"
            )
        return parsed.token_strings[eos_id], f"given: token {eos_id!r}"
    found = _sibling_eos_id(siblings, parsed)
    if found is not None:
        return found
    for candidate in EOS_GUESSES:
        if candidate in parsed.token_strings:
            token_id = parsed.token_strings[candidate]
            return token_id, (
                f"guessed: {filename} does not say which token ends a sequence; using {candidate!r} "
                f"(id {token_id}), a well-known EOS name; pass eos= / --eos to choose another"
            )
    raise VocabularyError(
        f"{filename}: no EOS token: none given, no generation_config.json / tokenizer_config.json "
        "beside the file names one, and none of the well-known EOS names "
        f"({', '.join(EOS_GUESSES)}) is in the vocabulary; pass eos= (Python) or --eos (command "
        "line) with the EOS token id or text"
    )


class Vocabulary:
    """The byte strings of a tokenizer's tokens, plus its EOS id.

    ``Vocabulary(eos_token_id, mapping)`` mirrors outlines-core: keys are ``str`` (taken as their
    UTF-8 text, no byte-level decoding) or ``bytes``; values are an id or a list of ids.
    An entry whose id is the EOS id is dropped (EOS is never an ordinary token) but still
    recorded as `eos_token`; empty keys are left out. Ids given to two different keys are an error.
    """

    __slots__ = (
        "eos_token_id",
        "eos_token",
        "eos_note",
        "vocab_size",
        "tokens",
        "token_strings",
        "special_token_ids",
        "decoding",
        "source",
        "_id_to_bytes",
        "_id_to_token",
        "_fingerprint",
    )

    eos_token_id: int
    eos_token: str | None
    eos_note: str | None
    vocab_size: int
    tokens: dict[bytes, list[int]]
    token_strings: dict[str, int]
    special_token_ids: frozenset[int]
    decoding: str
    source: str | None

    def __init__(self, eos_token_id: int, mapping: Mapping[str | bytes, int | list[int]]):
        where = "Vocabulary"
        if isinstance(eos_token_id, bool) or not isinstance(eos_token_id, int):
            raise VocabularyError(f"{where}: eos_token_id: expected an integer token id, got {type(eos_token_id).__name__}")
        _check_id(eos_token_id, where, "eos_token_id")
        if not isinstance(mapping, Mapping):
            raise VocabularyError(f"{where}: mapping: expected a dict token -> id(s), got {type(mapping).__name__}")
        parsed = _Parsed()
        parsed.decoding = "mapping"
        owner: dict[int, str] = {}
        for key, value in mapping.items():
            if isinstance(key, str):
                try:
                    data = key.encode("utf-8")
                except UnicodeEncodeError:
                    raise VocabularyError(f"{where}: key {_short(key)} contains a lone surrogate, which is not text") from None
                raw = key
            elif isinstance(key, (bytes, bytearray)):
                data = bytes(key)
                try:
                    raw = data.decode("utf-8")
                except UnicodeDecodeError:
                    raw = encode_byte_level(data)
            else:
                raise VocabularyError(f"{where}: key {_short(key)}: expected str or bytes, got {type(key).__name__}")
            if isinstance(value, (list, tuple)):
                if not value:
                    raise VocabularyError(f"{where}: key {_short(key)}: empty list of ids")
                id_list = [_check_id(v, where, f"key {_short(key)}") for v in value]
            else:
                id_list = [_check_id(value, where, f"key {_short(key)}")]
            for token_id in id_list:
                if token_id in owner and owner[token_id] != raw:
                    raise VocabularyError(
                        f"{where}: id {token_id} is given to two tokens, {_short(owner[token_id])} and {_short(raw)}"
                    )
                owner[token_id] = raw
                parsed.id_to_token[token_id] = raw
                if token_id == eos_token_id:
                    continue
                parsed.id_to_bytes[token_id] = data
                prev = parsed.token_strings.get(raw)
                if prev is None or token_id < prev:
                    parsed.token_strings[raw] = token_id
        if eos_token_id in parsed.id_to_token:
            parsed.token_strings.setdefault(parsed.id_to_token[eos_token_id], eos_token_id)
        parsed.token_strings = dict(sorted(parsed.token_strings.items(), key=lambda kv: (kv[1], kv[0])))
        self._setup(parsed, eos_token_id, None, None)

    # -- construction from files -------------------------------------------------------------

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], eos: int | str | None = None) -> Vocabulary:
        """Read a HuggingFace vocab.json or tokenizer.json (or a directory holding one).

        generation_config.json, tokenizer_config.json and special_tokens_map.json beside the file
        are read when present, to find EOS (and, for a vocab.json, added tokens).
        """
        path = os.fspath(path)
        if os.path.isdir(path):
            for name in ("tokenizer.json", "vocab.json"):
                if os.path.isfile(os.path.join(path, name)):
                    path = os.path.join(path, name)
                    break
            else:
                raise FileNotFoundError(2, "no tokenizer.json or vocab.json in directory", path)
        if not os.path.isfile(path):
            raise FileNotFoundError(2, "vocabulary file not found", path)
        filename = os.path.basename(path)
        data = _read_limited(path, filename)
        directory = os.path.dirname(os.path.abspath(path))
        siblings: dict[str, bytes] = {}
        for name in SIBLING_FILES:
            sibling = os.path.join(directory, name)
            if name != filename and os.path.isfile(sibling):
                siblings[name] = _read_limited(sibling, name)
        vocab = cls.from_json_text(data, filename=filename, eos=eos, siblings=siblings)
        vocab.source = path
        return vocab

    @classmethod
    def from_json_text(
        cls,
        text: str | bytes,
        filename: str = "vocab.json",
        eos: int | str | None = None,
        siblings: Mapping[str, str | bytes] | None = None,
    ) -> Vocabulary:
        """Same as from_file, from the file's content (used where there is no file system, e.g. the web worker).

        `filename` is only used in messages. `siblings` optionally maps "generation_config.json",
        "tokenizer_config.json", "special_tokens_map.json" to their content.
        """
        data = _parse_json(text, filename)
        sibling_data: dict[str, Any] = {}
        for name, content in (siblings or {}).items():
            if name not in SIBLING_FILES:
                raise VocabularyError(f"siblings: unknown file {name!r}; expected one of {', '.join(SIBLING_FILES)}")
            value = _parse_json(content, name)
            if not isinstance(value, dict):
                raise VocabularyError(f"{name}: expected a JSON object at the top level, got {_type_name(value)}")
            sibling_data[name] = value
        if not isinstance(data, dict):
            raise VocabularyError(
                f"{filename}: expected a JSON object at the top level (token -> id for a vocab.json, or a "
                f"tokenizer.json with a 'model' object), got {_type_name(data)}"
            )
        if isinstance(data.get("model"), dict):
            parsed = _parse_tokenizer_json(data, filename)
        elif type(data.get("model", 0)) is not int and any(
            k in data for k in ("added_tokens", "decoder", "normalizer", "pre_tokenizer")
        ):
            raise VocabularyError(f"{filename}: model: expected the tokenizer model object, got {_type_name(data['model'])}")
        else:
            parsed = _parse_vocab_json(data, filename, sibling_data)
        if not parsed.id_to_token:
            raise VocabularyError(f"{filename}: empty vocabulary: the file has no tokens")
        eos_id, note = _resolve_eos(eos, parsed, sibling_data, filename)
        vocab = cls.__new__(cls)
        vocab._setup(parsed, eos_id, note, filename)
        return vocab

    def _setup(self, parsed: _Parsed, eos_token_id: int, eos_note: str | None, source: str | None) -> None:
        """Fill the public attributes from a parsed vocabulary (shared by every constructor)."""
        id_to_bytes = parsed.id_to_bytes
        id_to_bytes.pop(eos_token_id, None)
        owner = {data: token_id for token_id, data in id_to_bytes.items()}
        if b"" in owner:
            for token_id in [i for i, b in id_to_bytes.items() if not b]:
                del id_to_bytes[token_id]
            del owner[b""]
        tokens: dict[bytes, list[int]]
        if len(owner) == len(id_to_bytes):
            # usual case: every byte string has a single id
            tokens = {data: [owner[data]] for data in sorted(owner)}
        else:
            grouped: dict[bytes, list[int]] = {data: [] for data in sorted(owner)}
            for token_id, data in id_to_bytes.items():
                grouped[data].append(token_id)
            for ids in grouped.values():
                if len(ids) > 1:
                    ids.sort()
            tokens = grouped
        if not tokens:
            where = source or "Vocabulary"
            raise VocabularyError(f"{where}: empty vocabulary: no ordinary tokens (besides EOS, special and empty tokens)")
        max_id = max(max(parsed.id_to_token, default=0), eos_token_id)
        self.eos_token_id = eos_token_id
        self.eos_token = parsed.id_to_token.get(eos_token_id)
        self.eos_note = eos_note
        self.vocab_size = max_id + 1
        self.tokens = tokens
        self.token_strings = parsed.token_strings
        self.special_token_ids = frozenset(parsed.special_ids - {eos_token_id})
        self.decoding = parsed.decoding
        self.source = source
        self._id_to_bytes = id_to_bytes
        self._id_to_token = parsed.id_to_token
        self._fingerprint: str | None = None

    # -- queries ----------------------------------------------------------------------------

    def id_to_bytes(self, token_id: int) -> bytes | None:
        """Bytes of an ordinary token; None for EOS, special and empty tokens, and unknown ids."""
        return self._id_to_bytes.get(token_id)

    def id_to_token(self, token_id: int) -> str | None:
        """The raw token string as the tokenizer spells it (for display), for any id; None if unknown."""
        return self._id_to_token.get(token_id)

    def get(self, token: str | bytes) -> list[int] | None:
        """Ids of an ordinary token given by its bytes (str: its UTF-8 text), like outlines-core's Vocabulary.get."""
        data = token.encode("utf-8") if isinstance(token, str) else bytes(token)
        ids = self.tokens.get(data)
        return list(ids) if ids is not None else None

    def get_eos_token_id(self) -> int:
        """outlines-core spelling of `eos_token_id`."""
        return self.eos_token_id

    def __len__(self) -> int:
        """Number of ordinary token ids, plus one for EOS (outlines-core counts EOS too)."""
        return len(self._id_to_bytes) + 1

    def fingerprint(self) -> str:
        """sha256 hex of (eos id, vocab_size, sorted tokens): identical in every process and runtime."""
        if self._fingerprint is None:
            keys = list(self.tokens)
            values = list(self.tokens.values())
            lengths = array(_U32, map(len, keys))
            counts = array(_U32, map(len, values))
            ids = array(_U32, [i for id_list in values for i in id_list])
            if sys.byteorder == "big":  # pragma: no cover - the serialization is little-endian
                for part in (lengths, counts, ids):
                    part.byteswap()
            digest = hashlib.sha256(b"tokenguide-vocabulary-v1\0")
            digest.update(struct.pack("<III", self.eos_token_id, self.vocab_size, len(keys)))
            digest.update(lengths.tobytes())
            digest.update(b"".join(keys))
            digest.update(counts.tobytes())
            digest.update(ids.tobytes())
            self._fingerprint = digest.hexdigest()
        return self._fingerprint

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Vocabulary):
            return NotImplemented
        return (
            self.eos_token_id == other.eos_token_id
            and self.vocab_size == other.vocab_size
            and self.tokens == other.tokens
        )

    def __hash__(self) -> int:
        return hash(self.fingerprint())

    def __repr__(self) -> str:
        where = f", source={os.path.basename(self.source)!r}" if self.source else ""
        return (
            f"Vocabulary(eos_token_id={self.eos_token_id}, vocab_size={self.vocab_size}, "
            f"tokens={len(self.tokens)}, decoding={self.decoding!r}{where})"
        )


def _read_limited(path: str, filename: str) -> bytes:
    """Read a file after checking it is not absurdly large."""
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise VocabularyError(
            f"{filename}: file is {size:,} bytes, more than the {MAX_FILE_BYTES:,} accepted for a vocabulary file"
        )
    with open(path, "rb") as handle:
        return handle.read(MAX_FILE_BYTES + 1)
