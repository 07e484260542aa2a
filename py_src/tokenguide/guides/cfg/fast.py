"""Fast CFG guide: the reference guide's allowed tokens, computed by one walk of a token trie.

`ReferenceCFGGuide` decides each candidate token by lexing (pending text + token text) with
Lark's contextual lexer and feeding a copy of the parser. `FastCFGGuide` gives the same answer
for every token at once, without parsing token by token:

- the reference's lexing rules are a lazily built deterministic machine over characters
  (`machine.ConfigurationMachine`: scan states, configurations, memoized steps and viability);
- the vocabulary's token texts are put in a character trie (`trie.CharTrie`), one per decoding
  context (first token, after a token that ended inside a UTF-8 sequence, ...); the usual
  context's trie is built once, at preparation; `trie.walk` finds every viable token in one pass;
- the answer is cached by the configuration reached after the pending text (inside a string,
  every step reaches the same one).

Decoding contexts: after a token that ended inside a UTF-8 sequence (held bytes h), a token not
starting with a continuation byte reads as U+FFFD then its usual text, so the usual trie is
walked from the configuration after U+FFFD; only tokens starting with a continuation byte get a
small trie of their own per h. A SentencePiece first token (leading space dropped) walks the
usual trie with its root " " child read as nothing.

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

import codecs
from array import array
from bisect import insort
from typing import Any, Iterable, Iterator, Optional

from ...vocabulary import Tokenizer, decode_utf8_prefix
from ..instructions import Generate, Instruction, Write
from .machine import ConfigurationMachine, unsupported_reason
from .reference import CFGState, ReferenceCFGGuide
from .trie import CharTrie, walk

__all__ = ["FastCFGGuide", "CharTrie"]

_MEMO_LIMIT = 400_000  # configurations kept before the memo tables are cleared
_CONTEXT_TRIES = 6  # tries kept for unusual decoding contexts
_RESULT_CACHE = 32  # allowed-token arrays kept per (start configuration, decoding context)


class FastCFGGuide(ReferenceCFGGuide):
    """CFG guide for a Lark grammar (LALR, contextual lexer) with the reference's exact answers,
    computed by walking a token trie through a lazily built lexer/parser machine."""

    def __init__(self, cfg_string: str, tokenizer: Any):
        super().__init__(cfg_string, tokenizer)
        grammar = self.grammar
        self.fallback_reason = unsupported_reason(grammar)
        self._bytes_decoding = isinstance(self.tokenizer, Tokenizer)
        self._strip = bool(getattr(self.tokenizer, "strip_leading_space", False)) if self._bytes_decoding else False
        self._token_ids = sorted({int(i) for i in self.tokenizer.vocabulary.values()} - {self.eos_token_id})
        self._token_bytes: dict[int, bytes] = {}
        if self._bytes_decoding:
            self._token_bytes = {t: self.tokenizer.token_bytes(t) for t in self._token_ids}
        windows = [grammar.scanner(name).window for name in grammar.pattern_terminals()]
        self._tail = max(windows + [1]) - 1  # characters before the current one that lookbehinds see
        self._classes: dict[str, int] = {}  # character -> class
        self._class_signatures: dict[tuple, int] = {}
        self._class_reps: list[str] = []
        self._char_tests = [t for name in grammar.pattern_terminals() for t in grammar.scanner(name).char_tests()]
        self._reset_tables()
        self._held_split: Optional[tuple] = None
        self._tries: dict[Any, CharTrie] = {}
        if self.fallback_reason is None:
            self._trie_for_context((b"", False))  # the usual context, prepared now

    def _reset_tables(self) -> None:
        """(Re)create the memo tables (also used when they grow past _MEMO_LIMIT)."""
        self.machine = ConfigurationMachine(self.grammar, self._class_of, self._class_reps, self._tail)
        self._results: dict[tuple, array] = {}

    def _class_of(self, ch: str) -> int:
        """The class of a character: characters with the same answers to every regex test."""
        found = self._classes.get(ch)
        if found is None:
            signature = tuple(test(ch) for test in self._char_tests)
            found = self._class_signatures.get(signature)
            if found is None:
                found = self._class_signatures[signature] = len(self._class_reps)
                self._class_reps.append(ch)
            self._classes[ch] = found
        return found

    # -- token texts ------------------------------------------------------------------------
    def _context(self, state: CFGState) -> Any:
        """What decides the token texts of the next step (see token_text in the reference)."""
        if not self._bytes_decoding:
            return None if state.prev_token is None else ("prev", state.prev_token)
        if state.prev_token is None:
            return (b"", self._strip)
        prev = self._token_bytes.get(state.prev_token)
        if prev is None:
            prev = self.tokenizer.token_bytes(state.prev_token)
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        raw = decoder.decode(prev, final=False)
        held = decoder.getstate()[0]
        return (held, self._strip and raw == "")

    def _trie_for_context(self, context: Any) -> CharTrie:
        """The trie of token texts in a decoding context (built on first use, then kept)."""
        found = self._tries.get(context)
        if found is not None:
            return found
        pieces: dict[str, list[int]] = {}
        if self._bytes_decoding:
            held, strip = context
            token_bytes = self._token_bytes
            for t in self._token_ids:
                text = decode_utf8_prefix(held + token_bytes[t])
                if strip and text.startswith(" "):
                    text = text[1:]
                if text:
                    pieces.setdefault(text, []).append(t)
        else:
            prev = None if context is None else context[1]
            state = CFGState(None, prev)
            before = None if prev is None else self.tokenizer.decode([[prev]])[0]
            for t in self._token_ids:
                text = self.token_text(state, t, before)
                if text:
                    pieces.setdefault(text, []).append(t)
        self._remember_trie(context, CharTrie(pieces, self._class_of))
        return self._tries[context]

    def _remember_trie(self, context: Any, trie: CharTrie) -> None:
        usual = ((b"", False), (b"", self._strip))
        if context not in usual:
            extra = [k for k in self._tries if k not in usual]
            if len(extra) >= _CONTEXT_TRIES:
                del self._tries[extra[0]]
        self._tries[context] = trie

    def _prepare_held(self) -> None:
        """Split the vocabulary for contexts where the previous token ended inside a UTF-8 sequence.

        After held bytes h, a token whose first byte is not a continuation byte decodes as
        U+FFFD (h, replaced) followed by its usual text; only tokens starting with a continuation
        byte (a small set) need texts of their own, per h.
        """
        if self._held_split is not None:
            return
        continuation = []
        lone = []  # usual text empty (an incomplete sequence alone), first byte not a continuation
        for t in self._token_ids:
            data = self._token_bytes[t]
            if data.isascii():
                continue
            if 0x80 <= data[0] <= 0xBF:
                continuation.append(t)
            elif data and decode_utf8_prefix(data) == "":
                lone.append(t)
        self._held_split = (frozenset(continuation), lone)

    def _held_allowed(self, start: int, held: bytes) -> list[int]:
        """Allowed ids from configuration `start`, after a previous token that ended with the
        incomplete UTF-8 bytes `held`."""
        self._prepare_held()
        continuation, lone = self._held_split
        machine = self.machine
        out: list[int] = []
        if start >= 0:
            after = machine.step(start, "\ufffd")
            if after >= 0:
                usual = self._trie_for_context((b"", False))
                out = [t for t in walk(machine, after, usual) if t not in continuation]
                if machine.is_viable(after):
                    out.extend(lone)
            key = ("held", held)
            trie = self._tries.get(key)
            if trie is None:
                pieces: dict[str, list[int]] = {}
                for t in sorted(continuation):
                    text = decode_utf8_prefix(held + self._token_bytes[t])
                    if text:
                        pieces.setdefault(text, []).append(t)
                trie = CharTrie(pieces, self._class_of)
                self._remember_trie(key, trie)
            out.extend(walk(machine, start, trie))
        out.sort()
        return out

    # -- allowed tokens ---------------------------------------------------------------------
    def allowed_token_ids(self, state: CFGState) -> list[int]:
        """Sorted ids of every token allowed after `state` (EOS included when the text may end)."""
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
            elif self._bytes_decoding and context[0] and not context[1]:
                found = self._held_allowed(root, context[0])
            elif self._bytes_decoding and context == (b"", True):
                found = walk(machine, root, self._trie_for_context((b"", False)), strip_space=True)
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

    # -- Guide API --------------------------------------------------------------------------
    def iter_valid_token_ids(self, state: CFGState, candidate_token_ids: Iterable[int]) -> Iterator[int]:
        """Yield the candidates allowed after `state`, in the order given (after EOS: EOS only,
        whatever the candidates, as the reference does)."""
        if state.parser_state is None:
            yield self.eos_token_id
            return
        allowed = set(self.allowed_token_ids(state))
        for token_id in candidate_token_ids:
            if int(token_id) in allowed:
                yield int(token_id)

    def get_next_instruction(self, state: CFGState) -> Instruction:
        """Write([eos]) after EOS; Write([t]) when t is the only valid token; else Generate(valid ids)."""
        if state.parser_state is None:
            return Write([self.eos_token_id])
        valid = list(self.allowed_token_ids(state))
        if len(valid) == 1:
            return Write(valid)
        return Generate(valid)

    def __repr__(self) -> str:
        return f"FastCFGGuide(terminals={len(self.grammar.terminals)}, tokenizer={self.tokenizer!r})"
