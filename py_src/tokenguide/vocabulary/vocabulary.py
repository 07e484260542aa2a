"""The `Vocabulary`: which byte string every token id stands for, and which id is EOS.

A `Vocabulary` is what an index is built against. It is made directly from a mapping (like
outlines-core's ``Vocabulary(eos_token_id, map)``) or read from a Hugging Face ``vocab.json`` /
``tokenizer.json`` (`hf_files` reads them, `decoders` turns token strings into bytes, `eos`
chooses EOS). It also records what the file says about the start of a text
(`strips_leading_space`, `adds_dummy_prefix`), so that nothing needs to read the file again.

What a token's bytes mean
-------------------------
A token's bytes are what it adds to a text that is already under way: a SentencePiece token
``▁Hello`` is ``b" Hello"`` (outlines-core and transformers see ``decode(prompt + generated)``,
where a ``▁`` after the prompt is a space). An index accepts a token sequence exactly when the
concatenation of these bytes is in the regex's language.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import re
import struct
import sys
from array import array
from collections.abc import Iterator, Mapping
from typing import Any

from ..arguments import check_int, check_path, check_str, describe
from ..errors import ArgumentError, VocabularyError, VocabularyTypeError
from .byte_level import encode_byte_level
from .checks import MAX_TOKEN_ID, check_id, short, type_name
from .eos import resolve_eos
from .hf_files import SIBLING_FILES, ParsedVocabulary, parse_json, parse_tokenizer_json, parse_vocab_json, read_limited

__all__ = ["Vocabulary", "require_vocabulary"]

_U32 = "I" if array("I").itemsize == 4 else "L"  # a 4-byte unsigned array type code
_LEADING_FLAGS_AND_ANCHOR = re.compile(r"(?:\(\?[aiLmsux]+\))*(?:\^|\\A)?")


def _parse_mapping(eos_token_id: int, mapping: Mapping[str | bytes, Any], where: str) -> ParsedVocabulary:
    """Read an outlines-core style token -> id(s) mapping (str keys are UTF-8 text, bytes keys raw).

    Each key's spelling (its `id_to_token` / `token_strings` name) is its text when its bytes are
    UTF-8, else its GPT-2 byte-level spelling; a byte-level spelling that is some other key's text
    (b"\\xe9" is "é" byte-level, and "é" is the text of b"\\xc3\\xa9") is taken by that text, so
    the non-UTF-8 key is spelled with `surrogateescape` (lone surrogates, which no text key can
    hold). Distinct byte strings thus never share a name, and every id keeps its own entry.
    """
    parsed = ParsedVocabulary()
    parsed.decoding = "mapping"
    id_to_token, id_to_bytes, token_strings = parsed.id_to_token, parsed.id_to_bytes, parsed.token_strings
    entries: list[tuple[Any, bytes, str | None, Any]] = []  # (key, bytes, text or None, ids)
    texts: set[str] = set()
    for key, value in mapping.items():
        if isinstance(key, str):
            try:
                data = key.encode("utf-8")
            except UnicodeEncodeError:
                raise VocabularyError(f"{where}: key {short(key)} contains a lone surrogate, which is not text") from None
            text: str | None = key
        elif isinstance(key, (bytes, bytearray)):
            data = bytes(key)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = None
        else:
            raise VocabularyError(f"{where}: key {short(key)}: expected str or bytes, got {type(key).__name__}")
        if text is not None:
            texts.add(text)
        entries.append((key, data, text, value))
    for key, data, text, value in entries:
        if text is not None:
            raw = text
        else:
            raw = encode_byte_level(data)
            if raw in texts:
                raw = data.decode("utf-8", "surrogateescape")
        ids = value if isinstance(value, (list, tuple)) else (value,)
        if not ids:
            raise VocabularyError(f"{where}: key {short(key)}: empty list of ids")
        for token_id in ids:
            if type(token_id) is not int or not 0 <= token_id <= MAX_TOKEN_ID:
                check_id(token_id, where, f"key {short(key)}")  # raises, naming the key
            known = id_to_token.get(token_id)
            if known is not None and known != raw:
                raise VocabularyError(f"{where}: id {token_id} is given to two tokens, {short(known)} and {short(raw)}")
            id_to_token[token_id] = raw
            if token_id == eos_token_id:
                continue
            id_to_bytes[token_id] = data
            prev = token_strings.get(raw)
            if prev is None or token_id < prev:
                token_strings[raw] = token_id
    if eos_token_id in id_to_token:
        token_strings.setdefault(id_to_token[eos_token_id], eos_token_id)
    parsed.token_strings = dict(sorted(token_strings.items(), key=lambda kv: (kv[1], kv[0])))
    return parsed


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a vocabulary's hundreds of thousands of small
    objects are made: none of them forms a cycle, and the collector's repeated passes over
    them cost a third of a large file's load time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Vocabulary:
    """The byte strings of a tokenizer's tokens, plus its EOS id.

    ``Vocabulary(eos_token_id, mapping)`` mirrors outlines-core: keys are ``str`` (taken as their
    UTF-8 text, no byte-level decoding) or ``bytes``; values are an id or a list of ids.
    An entry whose id is the EOS id is dropped (EOS is never an ordinary token) but still
    recorded as `eos_token`; empty keys are left out. Ids given to two different keys are an error.

    Besides the tokens: `decoding` ("byte-level", "sentencepiece", "text", "mapping"),
    `strips_leading_space` (the tokenizer's decoder drops one space at the very start of a decoded
    text: Llama 2's ``Strip``, T5's ``Metaspace``) and `adds_dummy_prefix` (its encoder puts a
    space marker before the text, so a text's first word is encoded as ``▁word``), `eos_note`
    (how EOS was chosen) and `source` (the file read, for display only: nothing re-reads it).
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
        "strips_leading_space",
        "adds_dummy_prefix",
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
    strips_leading_space: bool
    adds_dummy_prefix: bool
    source: str | None

    def __init__(self, eos_token_id: int, mapping: Mapping[str | bytes, int | list[int]]):
        where = "Vocabulary"
        if isinstance(eos_token_id, bool) or not isinstance(eos_token_id, int):
            raise VocabularyTypeError(f"{where}: eos_token_id: expected an integer token id, got {type(eos_token_id).__name__}")
        check_id(eos_token_id, where, "eos_token_id")
        if not isinstance(mapping, Mapping):
            raise VocabularyTypeError(f"{where}: mapping: expected a dict token -> id(s), got {type(mapping).__name__}")
        with _collector_paused():
            parsed = _parse_mapping(eos_token_id, mapping, where)
            self._setup(parsed, eos_token_id, None, None)

    # -- construction from files -------------------------------------------------------------

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], eos: int | str | None = None) -> Vocabulary:
        """Read a HuggingFace vocab.json or tokenizer.json (or a directory holding one).

        generation_config.json, tokenizer_config.json and special_tokens_map.json beside the file
        are read when present, to find EOS (and, for a vocab.json, added tokens).
        """
        path = os.fsdecode(check_path("Vocabulary.from_file", "path", path))
        _check_eos("Vocabulary.from_file", eos)
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
        data = read_limited(path, filename)
        directory = os.path.dirname(os.path.abspath(path))
        siblings: dict[str, bytes] = {}
        for name in SIBLING_FILES:
            sibling = os.path.join(directory, name)
            if name != filename and os.path.isfile(sibling):
                siblings[name] = read_limited(sibling, name)
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
        check_str("Vocabulary.from_json_text", "filename", filename)
        _check_eos("Vocabulary.from_json_text", eos)
        if siblings is not None and not isinstance(siblings, Mapping):
            raise ArgumentError(
                f"Vocabulary.from_json_text: siblings must be a mapping file name -> content or None, got {describe(siblings)}"
            )
        with _collector_paused():
            data = parse_json(text, filename)
            sibling_data: dict[str, Any] = {}
            for name, content in (siblings or {}).items():
                if name not in SIBLING_FILES:
                    raise VocabularyError(f"siblings: unknown file {name!r}; expected one of {', '.join(SIBLING_FILES)}")
                value = parse_json(content, name)
                if not isinstance(value, dict):
                    raise VocabularyError(f"{name}: expected a JSON object at the top level, got {type_name(value)}")
                sibling_data[name] = value
            if not isinstance(data, dict):
                raise VocabularyError(
                    f"{filename}: expected a JSON object at the top level (token -> id for a vocab.json, or a "
                    f"tokenizer.json with a 'model' object), got {type_name(data)}"
                )
            if isinstance(data.get("model"), dict):
                parsed = parse_tokenizer_json(data, filename)
            elif type(data.get("model", 0)) is not int and any(
                k in data for k in ("added_tokens", "decoder", "normalizer", "pre_tokenizer")
            ):
                raise VocabularyError(f"{filename}: model: expected the tokenizer model object, got {type_name(data['model'])}")
            else:
                parsed = parse_vocab_json(data, filename, sibling_data)
            if not parsed.id_to_token:
                raise VocabularyError(f"{filename}: empty vocabulary: the file has no tokens")
            eos_id, note = resolve_eos(eos, parsed, sibling_data, filename)
            vocab = cls.__new__(cls)
            vocab._setup(parsed, eos_id, note, filename)
        return vocab

    def _setup(self, parsed: ParsedVocabulary, eos_token_id: int, eos_note: str | None, source: str | None) -> None:
        """Fill the public attributes from a parsed vocabulary (shared by every constructor)."""
        id_to_bytes = parsed.id_to_bytes
        id_to_bytes.pop(eos_token_id, None)
        if b"" in id_to_bytes.values():
            for token_id in [i for i, b in id_to_bytes.items() if not b]:
                del id_to_bytes[token_id]
        # One id per byte string is the usual case; the few byte strings with several ids
        # (Llama 2's <0x41> beside A) get the others appended, then sorted.
        owner: dict[bytes, int] = {}
        extra: list[tuple[bytes, int]] = []
        for token_id, data in id_to_bytes.items():
            if owner.setdefault(data, token_id) != token_id:
                extra.append((data, token_id))
        tokens: dict[bytes, list[int]] = {data: [owner[data]] for data in sorted(owner)}
        for data, token_id in extra:
            tokens[data].append(token_id)
        for data in {data for data, _ in extra}:
            tokens[data].sort()
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
        self.strips_leading_space = parsed.strips_leading_space
        self.adds_dummy_prefix = parsed.adds_dummy_prefix
        self.source = source
        self._id_to_bytes = id_to_bytes
        self._id_to_token = parsed.id_to_token
        self._fingerprint: str | None = None

    # -- queries ----------------------------------------------------------------------------

    def id_to_bytes(self, token_id: int) -> bytes | None:
        """Bytes of an ordinary token; None for EOS, special and empty tokens, and unknown ids."""
        if type(token_id) is not int:
            token_id = check_int("Vocabulary.id_to_bytes", "token_id", token_id)
        return self._id_to_bytes.get(token_id)

    def id_to_token(self, token_id: int) -> str | None:
        """The raw token string as the tokenizer spells it (for display), for any id; None if unknown."""
        if type(token_id) is not int:
            token_id = check_int("Vocabulary.id_to_token", "token_id", token_id)
        return self._id_to_token.get(token_id)

    def get(self, token: str | bytes) -> list[int] | None:
        """Ids of an ordinary token given by its bytes (str: its UTF-8 text), like outlines-core's Vocabulary.get."""
        if not isinstance(token, (str, bytes, bytearray)):
            raise ArgumentError(f"Vocabulary.get: token must be str or bytes, got {describe(token)}")
        data = token.encode("utf-8", "surrogatepass") if isinstance(token, str) else bytes(token)
        ids = self.tokens.get(data)
        return list(ids) if ids is not None else None

    def start_of_text_regex(self, regex: str) -> str:
        """The regex to use when generation starts at the very beginning of a text (no prompt).

        A dummy-prefix tokenizer whose decoder strips that space (Llama 2, T5) spells a text
        ``Hello`` at the start as ``▁Hello``, b" Hello": the result accepts one space before the
        language (leading inline flags and a ``^`` / ``\\A`` anchor stay in front). For every other
        vocabulary the regex is returned unchanged. After a prompt, use the regex itself.
        """
        if not isinstance(regex, str):
            raise VocabularyTypeError(f"Vocabulary.start_of_text_regex: regex: expected a str, got {type(regex).__name__}")
        if not (self.adds_dummy_prefix and self.strips_leading_space):
            return regex
        head = _LEADING_FLAGS_AND_ANCHOR.match(regex)
        cut = head.end() if head else 0
        return f"{regex[:cut]}\\x20(?:{regex[cut:]})"  # \x20, not " ": a space means nothing under (?x)

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


def _check_eos(where: str, eos: Any) -> None:
    """`eos` must be None, a token id (int >= 0) or a token text (str)."""
    if eos is None or isinstance(eos, str):
        return
    try:
        check_int(where, "eos", eos, low=0)
    except ArgumentError as exc:
        raise VocabularyTypeError(f"{exc} (a token id, or the token's text)") from None


def require_vocabulary(value: Any, argument: str, where: str) -> Vocabulary:
    """`value` if it is a Vocabulary, else a VocabularyTypeError naming `where` and `argument`.

    Entry points that take a Vocabulary call this first, so that a plain dict or a path gets a
    message saying what to pass instead of an AttributeError from deep inside.
    """
    if isinstance(value, Vocabulary):
        return value
    if isinstance(value, Mapping):
        hint = "build one with Vocabulary(eos_token_id, mapping)"
    elif isinstance(value, (str, bytes, os.PathLike)):
        hint = "read the file with Vocabulary.from_file(path)"
    else:
        hint = "build one with Vocabulary(eos_token_id, mapping) or Vocabulary.from_file(path)"
    raise VocabularyTypeError(
        f"{where}: {argument}: expected a tokenguide Vocabulary, got {type(value).__name__}; {hint}"
    )
