"""The lexer/parser configuration machine behind the fast CFG guide, built lazily and memoized.

The reference guide's lexing rules (`reference.ReferenceCFGGuide`) as a deterministic machine over
characters:

- a *scan state* is what the lexer knows about the lexeme being read: for each terminal of the
  contextual lexer (in Lark's priority order) the threads of its regex VM (`scanner`'s programs,
  so greedy/lazy quantifiers and lookbehinds behave as in `re`), the terminal that currently wins
  Lark's first-match rule, and whether its match ends at the current character. Scan-state steps
  depend only on the contextual lexer, never on the parser stack;
- a *configuration* adds the parser state and, once some terminal has matched, the configuration
  of the text after that match (the reading the reference uses when no terminal can still run
  over the whole text). The parser is consulted only when a terminal completes (feeds memoized
  by (stack, terminal)).

Viability (would the reference accept a text ending here?) and steps are memoized per
configuration; a configuration holding no character text steps alike on every character of a
class (characters every regex test of the grammar treats alike), so its steps are computed once
per class. Configurations are small integers; `_DEAD` means the text can no longer be viable.
"""

from __future__ import annotations

from typing import Any, Optional

from lark import Token

from .chars import CharClasses
from .grammar import LarkGrammar
from .scanner import closure

__all__ = ["ConfigurationMachine", "DEAD", "unsupported_reason"]

DEAD = -1  # no configuration: the text can no longer be viable
_NONE = -2  # no continuation configuration: no terminal has matched yet
UNKNOWN = -3  # in class_steps rows: not computed yet


def unsupported_reason(grammar: LarkGrammar) -> Optional[str]:
    """Why the machine cannot model this grammar's terminals exactly (None: it can)."""
    for name in grammar.pattern_terminals():
        scanner = grammar.scanner(name)
        if not scanner.steps_memoizable:
            return f"terminal {name} uses a lookahead, an anchor or a word boundary"
        if scanner.start_threads is None:
            return f"terminal {name} has a lookbehind before its first character"
        if scanner.start_match:
            return f"terminal {name} matches the empty string"
    return None


class LexerInfo:
    """What the machine needs about one contextual lexer (one LR state's terminal list)."""

    __slots__ = ("position", "lexer", "names", "codes", "lives", "windows", "callbacks", "keywords", "cap", "start")

    def __init__(self, grammar: LarkGrammar, parser_state: Any):
        lexer = grammar.contextual_lexer(parser_state)
        self.position = parser_state.position
        self.lexer = lexer
        self.names = [t.name for t in lexer.scanner.terminals]
        scanners = [grammar.scanner(name) for name in self.names]
        self.codes = [s.code for s in scanners]
        self.lives = [s.live for s in scanners]
        self.windows = [s.window for s in scanners]
        self.callbacks = [lexer.callback.get(name) for name in self.names]
        self.keywords = [grammar.keywords_of(lexer, name) for name in self.names]
        keyword_lengths = [len(kw.pattern.value) for kws in self.keywords for kw in kws]
        has_callbacks = any(cb is not None for cb in self.callbacks)
        # Lexeme texts are tracked (for keyword retyping) up to `cap` characters; -1: never.
        self.cap = (max(keyword_lengths, default=0) + 2) if has_callbacks else -1
        self.start = tuple(tuple(pc for pc in s.start_threads if live[pc]) for s, live in zip(scanners, self.lives))


class ConfigurationMachine:
    """Configurations (parser state, scan state, continuation) as ids, with memoized steps.

    `chars` gives a character's class and a character of each class: steps of a configuration
    without character text are computed once per class. `tail` is how many characters before the
    current one lookbehinds can see.
    """

    def __init__(self, grammar: LarkGrammar, chars: CharClasses, tail: int):
        self.grammar = grammar
        self.chars = chars
        self.class_of = chars.class_of
        self.class_reps = chars.reps
        self.tail = tail
        self._held_memo: dict[tuple, bool] = {}
        self._lexers: dict[int, LexerInfo] = {}
        self._pstates: list = []  # parser state by id
        self._pid: dict[tuple, int] = {}  # LR stack -> id
        self._pinfo: list = []  # per parser id: (lexer info, acceptable names, useful terminal mask)
        self._feeds: dict[tuple, int] = {}
        self._term_memo: dict[str, dict] = {}
        self._scan: list[tuple] = []  # scan states by id
        self._scan_id: dict[tuple, int] = {}
        self._scan_steps: list[dict] = []
        self._cfg: list[tuple] = []  # configurations by id: (pid, sid, sub)
        self._cfg_id: dict[tuple, int] = {}
        self.steps: list[dict] = []  # steps[cid][ch]: the configuration after ch (memo)
        self.viable: list[Optional[bool]] = []  # viable[cid] (memo; None: not computed yet)
        self.pure: list[bool] = []  # steps depend on characters only through their class
        # class_steps[cid][k]: the configuration after a character of class k (pure cid only, else None)
        self.class_steps: list[Optional[list[int]]] = []
        self._classes = chars.count
        self._loop_known: list[int] = []
        self._loop_yes: list[int] = []
        self._fresh: dict[tuple, int] = {}

    @property
    def size(self) -> int:
        """Number of configurations created so far (the memo tables grow with it)."""
        return len(self._cfg)

    # -- parser states ----------------------------------------------------------------------
    def parser_id(self, parser_state: Any) -> int:
        """A small id for the parser state's LR stack (created on first sight)."""
        key = tuple(parser_state.state_stack)
        found = self._pid.get(key)
        if found is None:
            found = self._pid[key] = len(self._pstates)
            self._pstates.append(parser_state)
            info = self._lexers.get(parser_state.position)
            if info is None:
                info = self._lexers[parser_state.position] = LexerInfo(self.grammar, parser_state)
            acceptable = self.grammar.acceptable(parser_state)
            useful = 0
            for j, name in enumerate(info.names):
                if name in acceptable or any(k.name in acceptable for k in info.keywords[j]):
                    useful |= 1 << j
            self._pinfo.append((info, acceptable, useful))
        return found

    def _feed_id(self, pid: int, type_: str) -> int:
        """Parser id after the terminal `type_` (unchanged for %ignore terminals), or DEAD."""
        if type_ in self.grammar.ignore:
            return pid
        key = (pid, type_)
        found = self._feeds.get(key)
        if found is None:
            fed = self.grammar.feed(self._pstates[pid], Token(type_, ""))
            found = self._feeds[key] = DEAD if fed is None else self.parser_id(fed)
        return found

    # -- scan states (lexeme being read; independent of the parser stack) ---------------------
    def _scan_intern(self, scan: tuple) -> int:
        found = self._scan_id.get(scan)
        if found is None:
            found = self._scan_id[scan] = len(self._scan)
            self._scan.append(scan)
            self._scan_steps.append({})
        return found

    def _term_step(self, info: LexerInfo, j: int, threads: tuple, window: str) -> tuple:
        """One character through terminal j's regex VM, as the reference's scanner steps it.

        Returns (live threads after it, matched). Memoized by (threads, characters visible to
        lookbehinds)."""
        name = info.names[j]
        memo = self._term_memo.get(name)
        if memo is None:
            memo = self._term_memo[name] = {}
        seen = window[-info.windows[j] :]
        key = (threads, seen)
        found = memo.get(key)
        if found is None:
            code = info.codes[j]
            ch = seen[-1]
            nxt: list = []
            visited: set = set()
            matched = False
            pos = len(seen)
            for pc in threads:
                if code[pc][1](ch) and closure(code, pc + 1, seen, pos, visited, nxt, []):
                    matched = True
                    break  # a match cuts every lower-priority thread, as in re
            live = info.lives[j]
            found = memo[key] = (tuple(pc for pc in nxt if live[pc]), matched)
        return found

    def _scan_step(self, sid: int, ch: str) -> int:
        found = self._scan_steps[sid].get(ch)
        if found is not None:
            return found
        position, threads, win, wtype, _at_end, text, tail = self._scan[sid]
        info = self._lexers[position]
        window = tail + ch
        if text is not None:
            text = text + ch
            if len(text) > info.cap:
                text = None
        new: list = []
        nwin, ntype, at_end = win, wtype, False
        for j, t in enumerate(threads):
            if not t:
                new.append(t)
                continue
            nt, matched = self._term_step(info, j, t, window)
            new.append(nt)
            if matched:  # the first terminal in priority order with a match wins (Lark's rule)
                nwin, at_end = j, True
                ntype = info.names[j]
                callback = info.callbacks[j]
                if callback is not None and text is not None:
                    ntype = callback(Token(ntype, text)).type
                break  # lower-priority terminals can no longer win
        tail = window[len(window) - self.tail :] if self.tail else ""
        found = self._scan_intern((position, tuple(new), nwin, ntype, at_end, text, tail))
        self._scan_steps[sid][ch] = found
        return found

    # -- configurations ---------------------------------------------------------------------
    def _cfg_intern(self, pid: int, sid: int, sub: int) -> int:
        key = (pid, sid, sub)
        found = self._cfg_id.get(key)
        if found is None:
            found = self._cfg_id[key] = len(self._cfg)
            self._cfg.append(key)
            self.steps.append({})
            self.viable.append(None)
            scan = self._scan[sid]
            pure = scan[5] is None and scan[6] == "" and (sub < 0 or self.pure[sub])
            self.pure.append(pure)
            self.class_steps.append([UNKNOWN] * self._classes if pure else None)
            self._loop_known.append(0)
            self._loop_yes.append(0)
        return found

    def fresh(self, pid: int, tail: str = "") -> int:
        """The configuration at the start of a lexeme, parser in state `pid` (`tail`: the
        characters before it that lookbehinds see)."""
        key = (pid, tail)
        found = self._fresh.get(key)
        if found is None:
            info = self._pinfo[pid][0]
            text = "" if info.cap >= 0 else None
            sid = self._scan_intern((info.position, info.start, -1, None, False, text, tail))
            found = self._fresh[key] = self._cfg_intern(pid, sid, _NONE)
        return found

    def start(self, parser_state: Any, pending: str) -> int:
        """The configuration after `pending` read from the start of a lexeme (or DEAD)."""
        cid = self.fresh(self.parser_id(parser_state))
        for ch in pending:
            cid = self.step(cid, ch)
            if cid < 0:
                break
        return cid

    def step(self, cid: int, ch: str) -> int:
        """The configuration after one more character, or DEAD."""
        found = self.steps[cid].get(ch)
        if found is not None:
            return found
        if self.pure[cid]:
            # Only the character's class matters here: compute the step once per class.
            rep = self.class_reps[self.class_of(ch)]
            if rep != ch:
                found = self.steps[cid][ch] = self.step(cid, rep)
                return found
        pid, sid, sub = self._cfg[cid]
        nsid = self._scan_step(sid, ch)
        _position, threads, _win, wtype, at_end, _text, tail = self._scan[nsid]
        if at_end:
            # A terminal matched up to here: what follows is read after feeding it.
            npid = self._feed_id(pid, wtype)
            nsub = DEAD if npid == DEAD else self.fresh(npid, tail)
        elif sub >= 0:
            nsub = self.step(sub, ch)
        else:
            nsub = sub
        if not any(threads) and not at_end:
            # The lexeme is decided: Lark's match, fed, then the text after it.
            result = nsub if nsub >= 0 else DEAD
        else:
            useful = self._pinfo[pid][2]
            alive = nsub >= 0 or any(t and useful >> j & 1 for j, t in enumerate(threads))
            result = self._cfg_intern(pid, nsid, nsub) if alive else DEAD
        self.steps[cid][ch] = result
        return result

    def class_step(self, cid: int, k: int) -> int:
        """The configuration after a character of class k, for a pure configuration `cid`."""
        found = self.class_steps[cid][k]
        if found == UNKNOWN:
            found = self.class_steps[cid][k] = self.step(cid, self.class_reps[k])
        return found

    def is_viable(self, cid: int) -> bool:
        """Would the reference accept a text ending in this configuration?"""
        found = self.viable[cid]
        if found is not None:
            return found
        pid, sid, sub = self._cfg[cid]
        info, acceptable, _useful = self._pinfo[pid]
        _position, threads, win, wtype, at_end, text, _tail = self._scan[sid]
        result = False
        for j, t in enumerate(threads):
            if t and self._extension_ok(info, j, text, acceptable):
                result = True  # an acceptable terminal can still run over the whole text
                break
        else:
            if at_end:
                result = wtype in acceptable  # Lark's match covers the text exactly
            elif win >= 0 and sub >= 0:
                result = self.is_viable(sub)  # Lark's match is fed; the rest must be viable
        self.viable[cid] = result
        return result

    def _extension_ok(self, info: LexerInfo, j: int, text: Optional[str], acceptable) -> bool:
        name = info.names[j]
        if name in acceptable:
            return True
        if text is None or not info.keywords[j]:
            return False
        return self.grammar.extension_acceptable(info.lexer, name, text, acceptable)

    def held_viable(self, cid: int, held: bytes) -> bool:
        """After configuration `cid`, can the incomplete character `held` still become a
        character that keeps the text viable? (One character per class the completions meet.)"""
        key = (cid, held)
        found = self._held_memo.get(key)
        if found is None:
            found = False
            pure = self.pure[cid]
            for k, ch in self.chars.held_classes(held):
                nc = self.class_step(cid, k) if pure else self.step(cid, ch)
                if nc >= 0 and self.is_viable(nc):
                    found = True
                    break
            self._held_memo[key] = found
        return found

    def loops(self, cid: int, mask: int) -> bool:
        """Does every character class in `mask` step configuration `cid` back to itself?"""
        if not self.pure[cid]:
            return False
        unknown = mask & ~self._loop_known[cid]
        while unknown:
            low = unknown & -unknown
            k = low.bit_length() - 1
            self._loop_known[cid] |= low
            if self.class_step(cid, k) == cid:
                self._loop_yes[cid] |= low
            unknown ^= low
        return mask & ~self._loop_yes[cid] == 0
