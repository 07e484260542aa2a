"""Fast CFG guide: the reference guide's allowed tokens, computed by one walk of a token trie.

`ReferenceCFGGuide` decides each candidate token by lexing (pending text + token text) with
Lark's contextual lexer and feeding a copy of the parser. `FastCFGGuide` gives the same answer
for every token at once, without parsing token by token:

- the reference's lexing rules are a lazily built deterministic machine over characters
  (`machine.ConfigurationMachine`: scan states, configurations, memoized steps and viability);
- the vocabulary's token texts are put in a character trie (`trie.CharTrie`), one per decoding
  context (first token, after a token that ended inside a UTF-8 sequence, ...); the trie's
  arrays are the vocabulary's and shared by every guide on it (`tokens.token_texts`), the
  grammar only classifies its characters; `trie.walk` finds every viable token in one pass;
- the answer is cached by the configuration reached after the pending text (inside a string,
  every step reaches the same one).

Tokens are bytes: a key of the trie is a token's complete text followed by the bytes of an
incomplete last character (as `chars.held_label` characters; such a key is viable when some
completion of that character is), and tokens that are not valid UTF-8 have no key. After a
token that ended inside a character (held bytes h), only tokens starting with a continuation
byte can follow: they get a small trie of their own per h. With `at_text_start` on a
SentencePiece vocabulary, the first step walks the usual trie with its root " " child read as
nothing.

Why not the core byte automata (`regex.compile_regex`): Lark lexes with `re.match` on text,
which is leftmost-first, not longest-match (`/a|ab/` matches "a" in "ab"), with lazy
quantifiers and the lookbehind of common.ESCAPED_STRING; a minimal DFA keeps only the language
and cannot say which match `re` returns. The reference's priority-ordered VM threads, memoized
per (threads, character), are that DFA built lazily with `re`'s own semantics.

Everything else (get_next_state, can/must_terminate_state, the state objects) is the
reference's, so both guides share states and can be compared step by step.

Limits (the guide then answers with the reference algorithm, exactly but slowly): terminals
with lookaheads, anchors or word boundaries, or with a lookbehind reachable before their first
character; tokenizers other than tokenguide's own `Tokenizer` are supported, but token texts
are then decoded per previous token (slower steps).
"""

from __future__ import annotations

from array import array
from bisect import insort
from typing import Any, Iterable, Iterator, Optional

from ...arguments import check_token_id, describe
from ...errors import ArgumentError
from ...vocabulary import tokenizer_token_ids
from ..instructions import DEFAULT_MASK_CACHE_BYTES, Generate, Instruction, MaskCache, Write, bitmask_words, pack_tokens
from .machine import ConfigurationMachine, unsupported_reason
from .reference import CFGState, ReferenceCFGGuide, check_state
from .tokens import TokenTexts, token_texts
from .trie import CharTrie, walk, walk_ranges

__all__ = ["FastCFGGuide", "CharTrie"]

_MEMO_LIMIT = 400_000  # configurations kept before the memo tables are cleared
_CONTEXT_TRIES = 6  # tries kept for unusual decoding contexts
_RESULT_CACHE = 32  # allowed-token arrays kept per (start configuration, decoding context)


class FastCFGGuide(ReferenceCFGGuide):
    """CFG guide for a Lark grammar (LALR, contextual lexer) with the reference's exact answers,
    computed by walking a token trie through a lazily built lexer/parser machine."""

    def __init__(
        self,
        cfg_string: str,
        tokenizer: Any,
        *,
        at_text_start: bool = False,
        mask_cache_bytes: int = DEFAULT_MASK_CACHE_BYTES,
    ):
        super().__init__(cfg_string, tokenizer, at_text_start=at_text_start)
        self.masks = MaskCache(mask_cache_bytes)  # packed masks by (configuration, context, EOS allowed)
        self._words = bitmask_words(self.vocab_size)
        grammar = self.grammar
        self.fallback_reason = unsupported_reason(grammar)
        self._bytes_decoding = self.on_bytes
        self._texts: Optional[TokenTexts] = token_texts(self.tokenizer) if self.on_bytes else None
        if self._texts is not None:
            self._token_ids = self._texts.token_ids
            self._token_bytes = self._texts.token_bytes
        else:
            self._token_ids = sorted(tokenizer_token_ids(self.tokenizer) - {self.eos_token_id})
            self._token_bytes = {}
        windows = [grammar.scanner(name).window for name in grammar.pattern_terminals()]
        self._tail = max(windows + [1]) - 1  # characters before the current one that lookbehinds see
        self._reset_tables()
        self._tries: dict[Any, CharTrie] = {}
        if self.fallback_reason is None:
            self._trie_for_context(b"" if self.on_bytes else None)  # the usual context, prepared now

    def _reset_tables(self) -> None:
        """(Re)create the memo tables (also used when they grow past _MEMO_LIMIT)."""
        self.machine = ConfigurationMachine(self.grammar, self.chars, self._tail)
        self._results: dict[tuple, array] = {}
        masks = getattr(self, "masks", None)
        if masks is not None:
            masks.clear()  # keyed by configuration ids, which start again

    # -- token texts ------------------------------------------------------------------------
    def _context(self, state: CFGState) -> Any:
        """What decides the token texts of the next step: the held bytes of an incomplete last
        character (b"" usually) and whether the first token's leading space is dropped; for
        tokenizers without token bytes, the previous token."""
        if not self.on_bytes:
            return None if state.prev_token is None else ("prev", state.prev_token)
        return (state.held, self.strip_first_space and state.prev_token is None)

    def _trie_for_context(self, held: Any) -> CharTrie:
        """The trie of token texts after held bytes `held` (built on first use, then kept); for
        tokenizers without token bytes, `held` is the context of `_context`.

        On token bytes the trie is the vocabulary's shared skeleton (`tokens.TokenTexts`) with
        this grammar's character classes. Otherwise keys are the token texts decoded after the
        previous token."""
        found = self._tries.get(held)
        if found is not None:
            return found
        if self._texts is not None:
            trie = CharTrie.from_skeleton(self._texts.skeleton(held), self.chars.class_of)
        else:
            pieces: dict[str, list[int]] = {}
            prev = None if held is None else held[1]
            state = CFGState(None, prev)
            before = None if prev is None else self.tokenizer.decode([[prev]])[0]
            for t in self._token_ids:
                text = self.token_text(state, t, before)
                if text:
                    pieces.setdefault(text, []).append(t)
            trie = CharTrie(pieces, self.chars.class_of)
        if held:
            extra = [k for k in self._tries if k]
            if len(extra) >= _CONTEXT_TRIES:
                del self._tries[extra[0]]
        self._tries[held] = trie
        return trie

    # -- allowed tokens ---------------------------------------------------------------------
    def allowed_token_ids(self, state: CFGState) -> list[int]:
        """Sorted ids of every token allowed after `state` (EOS included when the text may end)."""
        check_state("CFGGuide.allowed_token_ids", state)
        if state.parser_state is None:
            return [self.eos_token_id]
        if self.fallback_reason is not None:
            return list(ReferenceCFGGuide.iter_valid_token_ids(self, state, self.candidate_ids))
        context = self._context(state)
        if self.machine.size > _MEMO_LIMIT:
            self._reset_tables()
        machine = self.machine
        root = machine.start(state.parser_state, state.pending)
        # The configuration decides every token's fate: inside a JSON string, say, each step
        # reaches the same configuration and reuses the list.
        key = (root, context)
        found = self._results.get(key)
        if found is None:
            if root < 0:
                found = []
            elif self.on_bytes:
                found = walk(machine, root, self._trie_for_context(context[0]), strip_space=context[1])
            else:
                found = walk(machine, root, self._trie_for_context(context))
            if len(self._results) >= _RESULT_CACHE:
                self._results.pop(next(iter(self._results)))
            found = self._results[key] = array("I", found)
        if self.can_terminate_state(state):
            found = found.tolist()
            insort(found, self.eos_token_id)
            return found
        return found.tolist()

    def mask_bytes(self, state: CFGState) -> bytes:
        """The packed bitmask of the tokens allowed after `state` (ceil(vocab_size/32)
        little-endian int32 words, bit t % 32 of word t // 32), cached per (configuration,
        decoding context, EOS allowed) in `masks`, a byte-bounded LRU: a mask seen before is
        returned as is, and a new one is packed from the walk's key ranges at C speed."""
        check_state("CFGGuide.mask_bytes", state)
        if state.parser_state is None or self.fallback_reason is not None:
            return pack_tokens(self.allowed_token_ids(state), self.vocab_size)
        if self.machine.size > _MEMO_LIMIT:
            self._reset_tables()
        context = self._context(state)
        root = self.machine.start(state.parser_state, state.pending)
        can_end = self.can_terminate_state(state)
        key = (root, context, can_end)
        found = self.masks.get(key)
        if found is None:
            extra = (self.eos_token_id,) if can_end else ()
            if root < 0:
                found = pack_tokens(list(extra), self.vocab_size)
            elif self.on_bytes:
                trie = self._trie_for_context(context[0])
                ranges = walk_ranges(self.machine, root, trie, strip_space=context[1])
                found = trie.mask_of_ranges(ranges, self._words, extra)
            else:
                trie = self._trie_for_context(context)
                found = trie.mask_of_ranges(walk_ranges(self.machine, root, trie), self._words, extra)
            self.masks.put(key, found)
        return found

    # -- Guide API --------------------------------------------------------------------------
    def iter_valid_token_ids(self, state: CFGState, candidate_token_ids: Iterable[int]) -> Iterator[int]:
        """Yield the candidates allowed after `state`, in the order given (after EOS: EOS only,
        whatever the candidates, as the reference does)."""
        check_state("CFGGuide.iter_valid_token_ids", state)
        if state.parser_state is None:
            yield self.eos_token_id
            return
        if isinstance(candidate_token_ids, (str, bytes)) or not hasattr(candidate_token_ids, "__iter__"):
            raise ArgumentError(
                f"CFGGuide.iter_valid_token_ids: candidate_token_ids must be an iterable of token ids, "
                f"got {describe(candidate_token_ids)}"
            )
        allowed = set(self.allowed_token_ids(state))
        for token_id in candidate_token_ids:
            token_id = check_token_id("CFGGuide.iter_valid_token_ids", "candidate_token_ids item", token_id)
            if token_id in allowed:
                yield token_id

    def get_next_instruction(self, state: CFGState) -> Instruction:
        """Write([eos]) after EOS; Write([t]) when t is the only valid token; else Generate(valid ids)."""
        check_state("CFGGuide.get_next_instruction", state)
        if state.parser_state is None:
            return Write([self.eos_token_id])
        valid = list(self.allowed_token_ids(state))
        if len(valid) == 1:
            return Write(valid)
        return Generate(valid)

    def __repr__(self) -> str:
        return f"FastCFGGuide(terminals={len(self.grammar.terminals)}, tokenizer={self.tokenizer!r})"
