"""How a Hugging Face tokenizer's token strings become bytes: its `decoder`, or a guess without one.

* ``ByteLevel`` (GPT-2, Llama 3, Qwen): every character maps back to one byte through the GPT-2
  byte-to-unicode table (`byte_level`); a token with a character outside the table is taken as
  its UTF-8 text, as the Hugging Face decoder does.
* ``Sequence`` / single decoders built from ``ByteFallback``, ``Replace``, ``Metaspace``, ``Fuse``,
  ``Strip`` (Llama 2, Mistral, Gemma, T5): with ``ByteFallback`` a ``<0xNN>`` token is the single
  raw byte NN; the ``Replace`` pattern (a plain string) and the ``Metaspace`` replacement
  character (usually ``▁``) become their content (a space); the rest is the token's UTF-8 text.
  ``Fuse`` acts on whole sequences; ``Strip`` and ``Metaspace``'s prepend scheme only remove a
  space at the very start of a decoded text, recorded as `Decoding.strips_leading_space`.
* ``WordPiece`` is refused (a token's text depends on its position), other types are unknown.

Added tokens go through the same decoder as model tokens (Hugging Face ``tokenizers`` decodes
them alike), so `Decoding.decode` serves both.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import VocabularyError
from .byte_level import decode_byte_level_many
from .checks import short, type_name, utf8_texts

__all__ = ["BYTE_TOKEN", "Decoding", "adds_dummy_prefix", "decoding_from_decoder", "guess_decoding"]

BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")
"""A SentencePiece byte-fallback token such as ``<0x0A>``: one raw byte."""


class Decoding:
    """The rule turning one file's token strings into bytes.

    `kind` is "byte-level", "sentencepiece" or "text"; `byte_fallback` makes ``<0xNN>`` one byte;
    `replacements` are (pattern, content) string replacements applied in order;
    `strips_leading_space` says that the decoder drops one space at the start of a decoded text.
    """

    __slots__ = ("kind", "byte_fallback", "replacements", "strips_leading_space")

    def __init__(
        self,
        kind: str,
        byte_fallback: bool = False,
        replacements: tuple[tuple[str, str], ...] = (),
        strips_leading_space: bool = False,
    ):
        self.kind = kind
        self.byte_fallback = byte_fallback
        self.replacements = replacements
        self.strips_leading_space = strips_leading_space

    def decode(self, tokens: list[str], filename: str) -> list[bytes]:
        """Bytes of each token string (in a sequence after other text: no leading space is stripped)."""
        if self.kind == "byte-level":
            try:
                return decode_byte_level_many(tokens)
            except VocabularyError:
                # A token with a character outside the table is its UTF-8 text (as in the HF decoder).
                out: list[bytes] = []
                for t in tokens:
                    try:
                        out.extend(decode_byte_level_many([t]))
                    except VocabularyError:
                        out.extend(utf8_texts([t], filename))
                return out
        texts = tokens
        for pattern, content in self.replacements:
            texts = [t.replace(pattern, content) for t in texts]
        out = utf8_texts(texts, filename)
        if self.byte_fallback:
            match = BYTE_TOKEN.fullmatch
            for i, t in enumerate(tokens):
                if len(t) == 6 and t[0] == "<":
                    m = match(t)
                    if m:
                        out[i] = bytes((int(m.group(1), 16),))
        return out


SENTENCEPIECE_GUESS = Decoding("sentencepiece", byte_fallback=True, replacements=(("▁", " "),), strips_leading_space=True)
"""What a vocab.json without a decoder but with ``▁`` / ``<0xNN>`` tokens is taken to use (Llama 2 style)."""


def guess_decoding(tokens: list[str], filename: str) -> tuple[Decoding, list[bytes] | None]:
    """Rule for a file without a decoder: ByteLevel if the whole vocabulary fits the table, else SentencePiece.

    Returns the decoding and, for ByteLevel, the decoded tokens (found while checking).
    """
    try:
        return Decoding("byte-level"), decode_byte_level_many(tokens)
    except VocabularyError as exc:
        not_byte_level = str(exc)
    if any("▁" in t or (len(t) == 6 and BYTE_TOKEN.fullmatch(t)) for t in tokens):
        return SENTENCEPIECE_GUESS, None
    raise VocabularyError(
        f"{filename}: cannot tell how tokens map to bytes: {not_byte_level}, and there are no "
        "SentencePiece '▁' or '<0xNN>' tokens; use the model's tokenizer.json instead"
    )


def _metaspace_strips(node: dict[str, Any]) -> bool:
    """Whether a Metaspace decoder drops the leading space of a decoded text (prepend scheme, or the
    older add_prefix_space flag, which defaults to true)."""
    scheme = node.get("prepend_scheme")
    if isinstance(scheme, str):
        return scheme != "never"
    return node.get("add_prefix_space", True) is not False


def decoding_from_decoder(decoder: Any, filename: str) -> Decoding | None:
    """The decoding a tokenizer.json `decoder` describes (None: no decoder)."""
    if decoder is None:
        return None
    flags = {"byte_level": False, "byte_fallback": False, "sentencepiece": False, "strip": False}
    replacements: list[tuple[str, str]] = []

    def visit(node: Any, where: str) -> None:
        if not isinstance(node, dict):
            raise VocabularyError(f"{filename}: {where}: expected a decoder object, got {type_name(node)}")
        kind = node.get("type")
        if kind == "Sequence":
            members = node.get("decoders")
            if not isinstance(members, list):
                raise VocabularyError(f"{filename}: {where}.decoders: expected a list of decoders, got {type_name(members)}")
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
                    f"(expected {{\"String\": ...}}), got {short(pattern)}"
                )
            if not isinstance(content, str):
                raise VocabularyError(f"{filename}: {where}.content: expected a string, got {type_name(content)}")
            if pattern["String"]:
                replacements.append((pattern["String"], content))
            flags["sentencepiece"] = True
        elif kind == "Metaspace":
            replacement = node.get("replacement", "▁")
            if not isinstance(replacement, str) or not replacement:
                raise VocabularyError(f"{filename}: {where}.replacement: expected a non-empty string, got {short(replacement)}")
            replacements.append((replacement, " "))
            flags["sentencepiece"] = True
            flags["strip"] = flags["strip"] or _metaspace_strips(node)
        elif kind == "Strip":
            start = node.get("start") or 0
            if node.get("content") == " " and isinstance(start, int) and start >= 1:
                flags["strip"] = True
        elif kind == "Fuse":
            pass
        elif kind == "WordPiece":
            raise VocabularyError(
                f"{filename}: {where}: decoder type 'WordPiece' is not supported: a WordPiece token's "
                "text depends on its position ('##' continuations join the previous token, other "
                "tokens start a new word after a space), so it has no fixed byte string"
            )
        else:
            raise VocabularyError(
                f"{filename}: {where}.type: unknown decoder type {short(kind)}; supported: ByteLevel, "
                "or a Sequence of ByteFallback/Replace/Metaspace/Fuse/Strip"
            )

    visit(decoder, "decoder")
    if flags["byte_level"] and flags["sentencepiece"]:
        raise VocabularyError(
            f"{filename}: decoder: mixes ByteLevel with ByteFallback/Replace/Metaspace; cannot tell "
            "how tokens map to bytes"
        )
    if flags["byte_level"]:
        return Decoding("byte-level", strips_leading_space=flags["strip"])
    if flags["sentencepiece"]:
        return Decoding(
            "sentencepiece",
            byte_fallback=flags["byte_fallback"],
            replacements=tuple(replacements),
            strips_leading_space=flags["strip"],
        )
    return Decoding("text", strips_leading_space=flags["strip"])


def adds_dummy_prefix(normalizer: Any, pre_tokenizer: Any) -> bool:
    """Whether encoding puts a space marker before the text (SentencePiece's dummy prefix).

    True for a ``Prepend`` normalizer (Llama 2) or a ``Metaspace`` pre-tokenizer whose prepend
    scheme is not "never" (T5 and other Unigram models). Sequences are searched; anything that
    is not a dict is ignored (only used to describe the tokenizer, never to decode).
    """

    def visit(node: Any, members_key: str, want: str) -> bool:
        if not isinstance(node, dict):
            return False
        kind = node.get("type")
        if kind == "Sequence":
            return any(visit(m, members_key, want) for m in node.get(members_key) or [] if isinstance(m, dict))
        if want == "normalizer":
            return kind == "Prepend" and isinstance(node.get("prepend"), str) and bool(node.get("prepend"))
        return kind == "Metaspace" and _metaspace_strips(node)

    return visit(normalizer, "normalizers", "normalizer") or visit(pre_tokenizer, "pretokenizers", "pre_tokenizer")
