"""Fast-forward (jump-forward) tokens: what a constraint forces next, tokenized as the tokenizer would.

`FastForward(vocabulary, encode)` answers for a stateful `Guide`:

- `forced_bytes(guide)`: the bytes every continuation starts with. Read off the token masks: the
  longest common prefix of the allowed tokens' bytes, taken and repeated until the allowed tokens
  disagree on a byte or the text may end (EOS allowed). Exact because a token is allowed exactly
  when its bytes can begin a continuation.
- `forced_tokens(guide)`: tokens that can be appended without a model call. The rule (llguidance's
  `compute_ff_tokens` / `chop_tokens`): encode the forced bytes F with the real tokenizer; find the
  first byte position p of F at which some allowed token is longer than the forced bytes left
  (F[p:]), that is, a token that could extend across the end of F (`order` when `orderId` may
  follow); keep only the encoded tokens that end at or before p. Past p the model's next token
  may cross the boundary, so the tokenizer's own encoding of the whole text could differ there.
  Where no allowed token crosses, the canonical encoding of F followed by anything has a token
  boundary at the end of F, and BPE merges never cross a token boundary, so its tokens inside F
  are the encoding of F. At the start of F the pre-tokenizer may join F to the word before it
  (`_name` after `"__`), so F is encoded after the last few tokens of the text (`previous`), and
  only when that gives those tokens back.

`encode(data: bytes) -> list[int]` is the real tokenizer (`hf_encoder(tokenizer)` for a
transformers or `tokenizers` tokenizer); without it only `forced_bytes` answers.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from ..errors import ArgumentError
from ..vocabulary import Vocabulary, require_vocabulary
from .instructions import set_bits

__all__ = ["FastForward", "hf_encoder"]

#: Forced bytes are read up to this length per call (a long literal is forwarded in several calls).
MAX_FORCED_BYTES = 512
#: How many tokens of the text before the forced bytes are encoded with them (`forced_tokens(previous=...)`).
CONTEXT_TOKENS = 8


def hf_encoder(tokenizer: Any) -> Callable[[bytes], Optional[list[int]]]:
    """`encode` for FastForward from a transformers tokenizer or a `tokenizers.Tokenizer` (duck-typed).

    Text is encoded without special tokens. A tokenizer that puts a dummy prefix (``▁``) before a
    text encodes "\\n" + text and drops the tokens of "\\n", so the forced text is encoded as a
    continuation. Bytes that are not whole UTF-8 characters encode their complete-character prefix.
    """
    backend = getattr(tokenizer, "backend_tokenizer", tokenizer)

    def plain(text: str) -> list[int]:
        if hasattr(backend, "encode") and hasattr(backend, "token_to_id"):  # tokenizers.Tokenizer
            return list(backend.encode(text, add_special_tokens=False).ids)
        return list(tokenizer.encode(text, add_special_tokens=False))

    marker = plain("\n")
    probe = plain("\na")
    dummy = plain("a") != probe[len(marker):] if probe[: len(marker)] == marker else True

    def encode(data: bytes) -> Optional[list[int]]:
        text = data.decode("utf-8", "ignore") if data else ""
        while text and text.encode("utf-8") != data[: len(text.encode("utf-8"))]:
            text = text[:-1]
        if not text:
            return []
        if not dummy:
            return plain(text)
        ids = plain("\n" + text)
        if ids[: len(marker)] != marker:
            return None
        return ids[len(marker):]

    return encode


class FastForward:
    """Forced bytes and fast-forward tokens for guides over `vocabulary` (see the module docstring)."""

    def __init__(self, vocabulary: Vocabulary, encode: Optional[Callable[[bytes], Optional[list[int]]]] = None):
        self.vocabulary = require_vocabulary(vocabulary, "vocabulary", "FastForward")
        if encode is not None and not callable(encode):
            raise ArgumentError(f"FastForward: encode must be a callable bytes -> token ids, got {type(encode).__name__}")
        self.encode = encode
        self._bytes = self.vocabulary.id_to_bytes
        self._single = {data[0]: ids[0] for data, ids in self.vocabulary.tokens.items() if len(data) == 1}
        self.max_token_bytes = max(len(data) for data in self.vocabulary.tokens)

    def _allowed(self, guide: Any) -> Any:
        return set_bits(int.from_bytes(guide.mask_bytes(), "little"))

    def _common_prefix(self, guide: Any) -> bytes:
        """The longest common prefix of the allowed tokens' bytes (b"" where EOS may come)."""
        if guide.is_finished():
            return b""
        common: Optional[bytes] = None
        for token in self._allowed(guide):
            data = self._bytes(token)
            if not data:
                continue
            if common is None:
                common = data
                continue
            size = min(len(common), len(data))
            i = 0
            while i < size and common[i] == data[i]:
                i += 1
            common = common[:i]
            if not common:
                return b""
        return common or b""

    def _take(self, guide: Any, data: bytes) -> bool:
        """Advance `guide` over `data` (one token spelling it, else one-byte tokens); False if it cannot."""
        ids = self.vocabulary.tokens.get(data)
        if ids and guide.accepts_tokens([ids[0]]):
            guide.advance(ids[0], return_tokens=False)
            return True
        for byte in data:
            token = self._single.get(byte)
            if token is None or not guide.accepts_tokens([token]):
                return False
            guide.advance(token, return_tokens=False)
        return True

    def forced_bytes(self, guide: Any, limit: int = MAX_FORCED_BYTES) -> bytes:
        """The bytes every continuation of `guide` starts with (at most `limit`); the guide is not changed."""
        walker = guide.copy()
        out = bytearray()
        while len(out) < limit:
            common = self._common_prefix(walker)
            if not common or not self._take(walker, common):
                break
            out += common
        return bytes(out[:limit])

    def _crossing_at(self, walker: Any, left: int) -> bool:
        """Some token allowed in `walker`'s state is longer than the `left` forced bytes still to come."""
        return any(len(self._bytes(t) or b"") > left for t in self._allowed(walker))

    def safe_length(self, guide: Any, forced: bytes) -> int:
        """The first position of `forced` at which an allowed token could cross its end (len(forced) if none)."""
        walker = guide.copy()
        start = max(0, len(forced) - self.max_token_bytes + 1)
        if start and not self._take(walker, forced[:start]):
            return 0
        for p in range(start, len(forced)):
            if self._crossing_at(walker, len(forced) - p):
                return p
            if not self._take(walker, forced[p : p + 1]):
                return p
        return len(forced)

    def _encode_after(self, forced: bytes, previous: Optional[Sequence[int]]) -> Optional[list[int]]:
        """The tokenizer's tokens for `forced` where it follows the `previous` tokens of the text.

        The last CONTEXT_TOKENS previous tokens are encoded with the forced bytes (the tokenizer's
        pre-tokenizer may join the forced text to a word before it); when that encoding does not
        give back those tokens, the text so far is already not what the tokenizer would write
        there and nothing is forced (None). Without `previous` (or after a special token), the forced
        bytes are encoded alone.
        """
        context = [int(t) for t in (previous or ())][-CONTEXT_TOKENS:]
        parts = [self._bytes(t) for t in context]
        for k in range(len(parts) - 1, -1, -1):  # a special token (no bytes) ends a text: keep what follows it
            if not parts[k]:
                context, parts = context[k + 1 :], parts[k + 1 :]
                break
        while context and 0x80 <= parts[0][0] < 0xC0:  # start the context on a character
            context, parts = context[1:], parts[1:]
        if not context:
            return self.encode(forced)
        ids = self.encode(b"".join(parts) + forced)
        if ids is None or ids[: len(context)] != context:
            return None
        return ids[len(context):]

    def forced_tokens(self, guide: Any, previous: Optional[Sequence[int]] = None) -> list[int]:
        """The tokenizer's tokens for the forced bytes, up to the first point a longer token could cross (see module).

        `previous`: the tokens of the text so far (the last few are used as context for the encoding).
        """
        if self.encode is None:
            raise ArgumentError("FastForward.forced_tokens: pass encode (the real tokenizer, e.g. hf_encoder(tokenizer))")
        forced = self.forced_bytes(guide)
        if not forced:
            return []
        safe = self.safe_length(guide, forced)
        if not safe:
            return []
        ids = self._encode_after(forced, previous)
        if not ids:
            return []
        kept: list[int] = []
        end = 0
        for token in ids:
            data = self._bytes(token)
            if not data or forced[end : end + len(data)] != data:
                return []  # not a spelling of the forced bytes (special tokens, normalisation): force nothing
            if end + len(data) > safe:
                break
            kept.append(token)
            end += len(data)
        if kept and not guide.accepts_tokens(kept):
            return []
        return kept

