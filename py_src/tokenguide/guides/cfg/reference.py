"""Reference CFG guide: tries every candidate token with a copy of a Lark LALR parser.

This is the straightforward algorithm outlines' documentation describes, kept simple and
exact so that faster guides can be tested against it. For each candidate token the decoded
text is appended to the text pending since the last settled lexeme, that text is lexed the way
Lark itself would lex the final text, and the token is kept if the parse can still continue.

What "can still continue" means here (the oracle's definition)
-------------------------------------------------------------
Lark's contextual lexer, at each position, offers the terminals the parser state can use (plus
`%ignore` terminals), in Lark's priority order, and takes the first one whose regex matches
(`re.match` semantics, so greedy and lazy quantifiers behave as in Lark). On a text that is
still growing, a lexeme is *settled* when the match on the current text ends before the end of
the text and no higher-priority path of any terminal could still extend past the end (checked
with `scanner.PrefixScanner`, a priority-aware regex VM). Settled lexemes are fed to the
parser. The text is *viable* when, after the settled lexemes (each accepted by the parser), the
remaining text is the start of one more lexeme: either some terminal the parser accepts (or an
`%ignore` terminal) could still extend over all of it, or Lark's match covers exactly all of it
with an acceptable terminal. When a lexeme is not settled both readings stay possible, so the
state keeps the text from that lexeme on (`CFGState.pending`) and lexes it again next time.

EOS is allowed exactly when plain Lark parses the text (pending text lexed to the end, then
`$END`). Known approximation: an unfinished last lexeme is checked against each acceptable
terminal on its own; whether that terminal would later lose to another one of higher priority
is only decided once the lexeme is complete (this can lead to dead ends, never to accepting a
text that Lark rejects at EOS). Example: with `?start: /ab*/ /bc?/` Lark's greedy /ab*/ takes
every "b", so Lark accepts no text at all; the guide offers "a", "b", ... forever, never EOS.

Hooks for faster guides (and for differential tests against them)
-----------------------------------------------------------------
- `advance_text(state, text)` checks a raw text, independent of any tokenizer; the resulting
  state does not depend on how the text is split into pieces (tested).
- `iter_valid_token_ids(state, candidates)` takes any candidate subset, so a full-vocabulary
  comparison can be sampled.
- `accepted_terminals(parser_state)`: the parser's acceptable terminals ('$END' included);
  `self.grammar` (`grammar.LarkGrammar`) answers every question about Lark's lexer and parser.
- `CFGState.pending` is the unsettled text; `parser_state.state_stack` identifies the LR stack.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator, Optional

from lark import Token

from ...arguments import check_bytes, check_str, check_token_id, describe
from ...errors import ArgumentError, GrammarError, InvalidTokenError
from ...vocabulary import Tokenizer, as_tokenizer, tokenizer_token_ids
from ..base import BaseGuide, vocab_size_of
from ..instructions import Generate, Instruction, Write
from .chars import CharClasses, completion_range, split_utf8
from .grammar import LarkGrammar

__all__ = ["ReferenceCFGGuide", "CFGState", "GrammarError", "InvalidTokenError"]


@dataclass(frozen=True)
class CFGState:
    """State of a CFG guide (the first two fields are outlines' CFGState).

    parser_state: Lark LALR parser state after every settled lexeme; None once EOS was emitted.
    prev_token: the last token id emitted (None at the start).
    pending: text after the last settled lexeme, lexed again with the next token's text.
    text: every complete character generated so far (kept for inspection and tests).
    held: the bytes of a last character still incomplete (a token may end inside a UTF-8
    sequence); the next token must continue it.
    """

    parser_state: Any
    prev_token: Optional[int] = None
    pending: str = ""
    text: str = field(default="", compare=False)
    held: bytes = b""


def check_state(where: str, state: Any) -> "CFGState":
    """`state` if it is a CFGState (what the CFG guides take and return), else ArgumentError."""
    if not isinstance(state, CFGState):
        raise ArgumentError(f"{where}: state must be a CFGState (e.g. guide.initial_state), got {describe(state)}")
    return state


def _optional_token(where: str, token_id: Any) -> Optional[int]:
    return None if token_id is None else check_token_id(where, "token_id", token_id)


@dataclass(frozen=True)
class _Look:
    """What the lexer sees at one position of the text (see ReferenceCFGGuide._look)."""

    value: Optional[str]  # Lark's match on the current text, or None
    type: Optional[str]  # its terminal name, after Lark's callbacks (string keywords)
    extendable: bool  # some terminal could still match past the end of the text
    extendable_ok: bool  # ... and one of those could become a token the parser accepts
    unfinished_ok: bool  # the rest of the text can start an acceptable lexeme


class ReferenceCFGGuide(BaseGuide):
    """Guide for the language of a Lark grammar (LALR, contextual lexer), the slow exact way.

    `tokenizer` is a tokenguide Tokenizer or Vocabulary, a vocab.json/tokenizer.json path, a
    transformers tokenizer (all three judged on token bytes), or any outlines-style tokenizer
    (eos_token_id, vocabulary, decode: judged on decoded texts, per previous token).

    Tokens are bytes, as in the regex Index: a token is allowed exactly when its bytes extend the
    output to a prefix of some sentence of the grammar (in UTF-8). A token may end inside a
    character (allowed when some completion of it continues viably) and then only tokens that
    continue that character validly may follow; invalid UTF-8 is never allowed. A SentencePiece
    token's `▁` is a space, wherever the token comes, as outlines-core and the regex Index read
    it. `at_text_start=True` says the generation starts the text (no prompt before it): then, as
    the tokenizer's decoder does (`Tokenizer.strip_leading_space`, SentencePiece), the first
    token's leading space is dropped.
    """

    final_state = None  # CFG states are CFGState objects; the terminal one has parser_state None

    def __init__(self, cfg_string: str, tokenizer: Any, *, at_text_start: bool = False):
        self.grammar = LarkGrammar(cfg_string)
        self.cfg_string = cfg_string
        self.parser = self.grammar.parser
        self.tokenizer = as_tokenizer(tokenizer)
        self.eos_token_id = int(self.tokenizer.eos_token_id)
        self.vocab_size = vocab_size_of(self.tokenizer)
        self.at_text_start = bool(at_text_start)
        self.on_bytes = isinstance(self.tokenizer, Tokenizer)
        self.strip_first_space = self.on_bytes and self.at_text_start and self.tokenizer.strip_leading_space
        tests = [t for name in self.grammar.pattern_terminals() for t in self.grammar.scanner(name).char_tests()]
        self.chars = CharClasses(tests)
        self.initial_state = CFGState(parser_state=self.grammar.start_state, prev_token=None)
        self.start_state = self.initial_state
        self._alone_text: dict[int, str] = {}
        self.candidate_ids = sorted(tokenizer_token_ids(self.tokenizer) | {self.eos_token_id})

    # -- lexing a growing text ------------------------------------------------------------------
    def accepted_terminals(self, parser_state) -> frozenset:
        """Terminal names the parser accepts next (Lark's InteractiveParser.accepts), '$END' included."""
        if not hasattr(parser_state, "state_stack"):
            raise ArgumentError(
                f"CFGGuide.accepted_terminals: parser_state must be a Lark parser state (CFGState.parser_state), "
                f"got {describe(parser_state)}"
            )
        return self.grammar.accepted_terminals(parser_state)

    def _look(self, parser_state, text: str, pos: int, checkpoints: Optional[dict] = None) -> _Look:
        """Lex at `pos` as Lark would, and say what more text could still change.

        `checkpoints` (terminal name -> scanner.Checkpoint) only speed up scans at pos 0 of
        texts that start with the checkpointed text; results are the same without them.
        """
        grammar = self.grammar
        lexer = grammar.contextual_lexer(parser_state)
        acceptable = grammar.acceptable(parser_state)
        value, type_ = grammar.lark_match(lexer, text, pos)
        rest = text[pos:]
        extendable = extendable_ok = False
        for terminal in lexer.scanner.terminals:  # Lark's priority order; the first match wins
            checkpoint = checkpoints.get(terminal.name) if checkpoints and pos == 0 else None
            result = grammar.scanner(terminal.name).scan(text, pos, checkpoint)
            if result.can_extend:
                extendable = True
                if not extendable_ok and grammar.extension_acceptable(lexer, terminal.name, rest, acceptable):
                    extendable_ok = True
            if result.match_end is not None:
                if value is None or result.match_end != pos + len(value):
                    raise AssertionError(  # pragma: no cover - would be a bug in the scanner
                        f"reference lexer disagrees with Lark on terminal {terminal.name} at {pos} in {text!r}"
                    )
                break  # lower-priority terminals can never win here
        covers_rest = value is not None and pos + len(value) == len(text) and type_ in acceptable
        return _Look(value, type_, extendable, extendable_ok, extendable_ok or covers_rest)

    def _settle(self, parser_state, text: str, checkpoints: Optional[dict] = None):
        """Lex `text` from `parser_state`; return (parser state, position) of the first unsettled
        lexeme (position len(text) if all settled), or None when the text is not viable."""
        branch = None
        pos = 0
        while pos < len(text):
            look = self._look(parser_state, text, pos, checkpoints)
            if look.unfinished_ok:
                if branch is None and not look.extendable and pos + len(look.value or "") == len(text):
                    # The last lexeme is complete and no terminal can run past it: settle it too.
                    if look.type not in self.grammar.ignore:
                        parser_state = self.grammar.feed(parser_state, Token(look.type, look.value))
                    return parser_state, len(text)
                return branch or (parser_state, pos)
            if look.value is None or pos + len(look.value) >= len(text):
                return None
            if look.type not in self.grammar.ignore:
                fed = self.grammar.feed(parser_state, Token(look.type, look.value))
                if fed is None:
                    return None
            else:
                fed = parser_state
            if branch is None and look.extendable:
                branch = (parser_state, pos)
            parser_state = fed
            pos += len(look.value)
        return branch or (parser_state, pos)

    def _parse_to_end(self, parser_state, text: str) -> bool:
        """Plain Lark on `text` from `parser_state`, then $END: does the parse complete?"""
        pos = 0
        while pos < len(text):
            lexer = self.grammar.contextual_lexer(parser_state)
            value, type_ = self.grammar.lark_match(lexer, text, pos)
            if value is None:
                return False
            if type_ not in self.grammar.ignore:
                parser_state = self.grammar.feed(parser_state, Token(type_, value))
                if parser_state is None:
                    return False
            pos += len(value)
        return self.grammar.feed(parser_state, Token("$END", "")) is not None

    # -- token text -------------------------------------------------------------------------
    def token_text(self, state: CFGState, token_id: int, _before: Optional[str] = None) -> str:
        """Text a token adds after `state` (tokenizers without token bytes): decoded alone for the
        first token, otherwise decode([prev, token]) minus decode([prev])."""
        check_state("CFGGuide.token_text", state)
        token_id = check_token_id("CFGGuide.token_text", "token_id", token_id)
        if self.on_bytes:
            return self.token_bytes(state, token_id).decode("utf-8", errors="replace")
        if state.prev_token is None:
            found = self._alone_text.get(token_id)
            if found is None:
                found = self._alone_text[token_id] = self.tokenizer.decode([token_id])[0]
            return found
        before = self.tokenizer.decode([[state.prev_token]])[0] if _before is None else _before
        both = self.tokenizer.decode([[state.prev_token, token_id]])[0]
        return both[len(before):]

    def token_bytes(self, state: CFGState, token_id: int) -> bytes:
        """The bytes a token adds after `state` (b"" for special tokens): its vocabulary bytes,
        minus one leading space for the first token when `strip_first_space`."""
        check_state("CFGGuide.token_bytes", state)
        token_id = check_token_id("CFGGuide.token_bytes", "token_id", token_id)
        data = self.tokenizer.token_bytes(token_id)
        if self.strip_first_space and state.prev_token is None and data[:1] == b" ":
            data = data[1:]
        return data

    def _checkpoints(self, state: CFGState) -> Optional[dict]:
        """Scanner checkpoints over the pending text, shared by every candidate of one step."""
        if state.parser_state is None:
            return None
        lexer = self.grammar.contextual_lexer(state.parser_state)
        found = {}
        for terminal in lexer.scanner.terminals:
            checkpoint = self.grammar.scanner(terminal.name).checkpoint(state.pending, 0)
            if checkpoint is not None:
                found[terminal.name] = checkpoint
        return found

    def advance_text(
        self, state: CFGState, piece: str, token_id: Optional[int] = None, _checkpoints: Optional[dict] = None
    ) -> Optional[CFGState]:
        """The state after appending the text `piece`, or None when the text stops being viable
        (or when `state` holds bytes of an incomplete character, which text cannot continue)."""
        check_state("CFGGuide.advance_text", state)
        check_str("CFGGuide.advance_text", "piece", piece)
        token_id = _optional_token("CFGGuide.advance_text", token_id)
        if state.parser_state is None or piece == "" or state.held:
            return None
        text = state.pending + piece
        settled = self._settle(state.parser_state, text, _checkpoints)
        if settled is None:
            return None
        parser_state, pos = settled
        return CFGState(parser_state, token_id, text[pos:], state.text + piece)

    def completes(self, state: CFGState, held: bytes) -> bool:
        """Can the incomplete character `held` become a character that continues `state` viably?
        Tried with one character of each character class the completions meet."""
        check_state("CFGGuide.completes", state)
        check_bytes("CFGGuide.completes", "held", held)
        span = completion_range(held)
        if span is None:
            return False
        return any(self.advance_text(state, ch) is not None for _k, ch in self.chars.classes_in(*span))

    def advance_bytes(
        self, state: CFGState, data: bytes, token_id: Optional[int] = None, _checkpoints: Optional[dict] = None
    ) -> Optional[CFGState]:
        """The state after appending the bytes `data`, or None when the output stops being the
        start of valid UTF-8 text that is a prefix of some sentence."""
        check_state("CFGGuide.advance_bytes", state)
        check_bytes("CFGGuide.advance_bytes", "data", data)
        token_id = _optional_token("CFGGuide.advance_bytes", token_id)
        if state.parser_state is None or not data:
            return None
        split = split_utf8(state.held + data)
        if split is None:
            return None
        text, held = split
        if text:
            new = self.advance_text(replace(state, held=b""), text, token_id, _checkpoints)
            if new is None:
                return None
        else:
            new = replace(state, prev_token=token_id)
        if held and not self.completes(replace(new, held=b""), held):
            return None
        return replace(new, held=held)

    def _advance_token(self, state: CFGState, token_id: int, before: Optional[str], checkpoints) -> Optional[CFGState]:
        if self.on_bytes:
            return self.advance_bytes(state, self.token_bytes(state, token_id), token_id, checkpoints)
        return self.advance_text(state, self.token_text(state, token_id, before), token_id, checkpoints)

    # -- Guide API --------------------------------------------------------------------------
    def iter_valid_token_ids(self, state: CFGState, candidate_token_ids: Iterable[int]) -> Iterator[int]:
        """Yield the candidates allowed after `state`, in the order given."""
        check_state("CFGGuide.iter_valid_token_ids", state)
        if state.parser_state is None:
            yield self.eos_token_id
            return
        can_end = None
        checkpoints = self._checkpoints(state)
        before = None
        if not self.on_bytes and state.prev_token is not None:
            before = self.tokenizer.decode([[state.prev_token]])[0]
        if isinstance(candidate_token_ids, (str, bytes)) or not hasattr(candidate_token_ids, "__iter__"):
            raise ArgumentError(
                f"CFGGuide.iter_valid_token_ids: candidate_token_ids must be an iterable of token ids, "
                f"got {describe(candidate_token_ids)}"
            )
        for token_id in candidate_token_ids:
            token_id = check_token_id("CFGGuide.iter_valid_token_ids", "candidate_token_ids item", token_id)
            if token_id == self.eos_token_id:
                if can_end is None:
                    can_end = self.can_terminate_state(state)
                if can_end:
                    yield token_id
            elif self._advance_token(state, token_id, before, checkpoints) is not None:
                yield token_id

    def get_next_instruction(self, state: CFGState) -> Instruction:
        """Write([eos]) after EOS; Write([t]) when t is the only valid token; else Generate(valid ids)."""
        check_state("CFGGuide.get_next_instruction", state)
        if state.parser_state is None:
            return Write([self.eos_token_id])
        valid = list(self.iter_valid_token_ids(state, self.candidate_ids))
        if len(valid) == 1:
            return Write(valid)
        return Generate(valid)

    def get_next_state(self, state: CFGState, token_id: int) -> CFGState:
        """The state after `token_id`; EOS (or anything after it) gives the terminal state."""
        check_state("CFGGuide.get_next_state", state)
        token_id = check_token_id("CFGGuide.get_next_state", "token_id", token_id)
        if state.parser_state is None or token_id == self.eos_token_id:
            return CFGState(None, token_id, "", state.text)
        new = self._advance_token(state, token_id, None, None)
        if new is None:
            raise InvalidTokenError(
                f"CFGGuide: token {token_id} ({self.token_text(state, token_id)!r}) is not allowed after "
                f"{state.text[-40:]!r}; sample from get_next_instruction's tokens"
            )
        return new

    def can_terminate_state(self, state: CFGState) -> bool:
        """EOS allowed: plain Lark parses the text generated so far."""
        check_state("CFGGuide.can_terminate_state", state)
        if state.parser_state is None:
            return True
        return not state.held and self._parse_to_end(state.parser_state, state.pending)

    def must_terminate_state(self, state: CFGState) -> bool:
        """Only EOS may come next: the text is complete, its last lexeme cannot grow, and the
        parser accepts no further terminal (nor an %ignore terminal)."""
        check_state("CFGGuide.must_terminate_state", state)
        if state.parser_state is None:
            return True
        if not self.can_terminate_state(state) or self.grammar.ignore:
            return False
        parser_state, text, pos = state.parser_state, state.pending, 0
        while pos < len(text):
            look = self._look(parser_state, text, pos)
            if look.extendable_ok:  # a lexeme could run over the rest of the text and beyond
                return False
            if look.type not in self.grammar.ignore:
                parser_state = self.grammar.feed(parser_state, Token(look.type, look.value))
            pos += len(look.value)
        return self.accepted_terminals(parser_state) <= {"$END"}

    def is_final_state(self, state: CFGState) -> bool:
        """outlines' meaning for CFG guides: same as can_terminate_state."""
        return self.can_terminate_state(state)

    def copy(self) -> "ReferenceCFGGuide":
        """Guides keep no per-generation data (it is all in the state): a shallow copy suffices."""
        return copy.copy(self)

    def __repr__(self) -> str:
        return f"ReferenceCFGGuide(terminals={len(self.grammar.terminals)}, tokenizer={self.tokenizer!r})"
