"""Fast CFG guide: the reference guide's allowed tokens, computed by one walk of a token trie.

`ReferenceCFGGuide` decides each candidate token by lexing (pending text + token text) with
Lark's contextual lexer and feeding a copy of the parser. `FastCFGGuide` gives the same answer
for every token at once, without parsing token by token:

- The vocabulary's token texts are put in a character trie (pre-order arrays, so a subtree is
  a contiguous range of keys), one per decoding context (first token, after a token that ended
  inside a UTF-8 sequence, ...); the usual context's trie is built once, at preparation.
- The reference's lexing rules are turned into a lazily built deterministic machine over
  characters. A *scan state* is what the lexer knows about the lexeme being read: for each
  terminal of the contextual lexer (in Lark's priority order) the threads of its regex VM (the
  reference's own `regex_prefix` programs, so greedy/lazy quantifiers and lookbehinds behave as
  in `re`), the terminal that currently wins Lark's first-match rule, and whether its match ends
  at the current character. Scan-state steps depend only on the contextual lexer, never on the
  parser stack, and are memoized. A *configuration* adds the parser state and, once some
  terminal has matched, the configuration of the text after that match (the reading the
  reference uses when no terminal can still run over the whole text). The parser is consulted
  only when a terminal completes inside the text (feeds memoized by (stack, terminal)).
- Viability of a configuration (would the reference accept a text ending here?) is memoized;
  so is each configuration step, computed once per character class (characters that every
  regex test of the grammar treats alike) whenever the configuration holds no character text.
  Walking the trie, a subtree whose classes all loop on the configuration reached is taken
  whole, so the inside of a JSON string costs a handful of visits; the answer is cached by the
  configuration reached after the pending text (inside a string, every step reaches the same).
- Decoding contexts: after a token that ended inside a UTF-8 sequence (held bytes h), a token
  not starting with a continuation byte reads as U+FFFD then its usual text, so the usual trie
  is walked from the configuration after U+FFFD; only tokens starting with a continuation byte
  get a small trie of their own per h. A SentencePiece first token (leading space dropped)
  walks the usual trie with its root " " child read as nothing.

Why not the core byte automata (`automaton.compile_regex`): Lark lexes with `re.match` on
text, which is leftmost-first, not longest-match (`/a|ab/` matches "a" in "ab"), with lazy
quantifiers and the lookbehind of common.ESCAPED_STRING; a minimal DFA keeps only the language
and cannot say which match `re` returns. The reference's priority-ordered VM threads, memoized
per (threads, character), are that DFA built lazily with `re`'s own semantics; token texts are
decoded text, as the reference sees them, so the trie is over characters, not bytes.

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
from itertools import compress
from typing import Any, Iterable, Iterator, Optional

from lark import Token
from lark.lexer import UnlessCallback

from ...index.trie import preorder_trie
from ...vocabulary import Tokenizer, decode_utf8_prefix
from ..instructions import Generate, Instruction, Write
from .reference import CFGState, ReferenceCFGGuide
from .scanner import CHAR, closure

__all__ = ["FastCFGGuide", "CharTrie"]

_DEAD = -1  # no configuration: the text can no longer be viable
_NONE = -2  # no continuation configuration: no terminal has matched yet
_MEMO_LIMIT = 400_000  # configurations kept before the memo tables are cleared
_CONTEXT_TRIES = 6  # tries kept for unusual decoding contexts
_RESULT_CACHE = 32  # allowed-token arrays kept per (start configuration, decoding context)


class CharTrie:
    """Token texts as a character trie in pre-order arrays.

    Keys (distinct texts) are sorted, so the keys of node i's subtree are
    `keys_before[i] .. keys_before[ends[i]]`. `labels[i]` is the character read to reach node i,
    `depths[i]` its depth, `ends[i]` the first node after its subtree, `ends_key[i]` whether a
    key ends at i, `below[i]` the bit mask of character classes in its subtree (below i).
    `flat_ids[id_start[k]:id_start[k + 1]]` are the token ids of key k.
    """

    def __init__(self, pieces: dict[str, list[int]], class_of):
        keys = sorted(pieces)
        self.keys = keys
        flat: list[int] = []
        id_start = [0]
        for key in keys:
            flat.extend(sorted(pieces[key]))
            id_start.append(len(flat))
        self.flat_ids = flat
        self.id_start = id_start
        labels, depths, ends, parents, ends_key, keys_before = preorder_trie(keys, "")
        n = len(labels)
        below = [0] * n
        for i in range(n - 1, 0, -1):
            below[parents[i]] |= below[i] | (1 << class_of(labels[i]))
        self.labels = labels
        self.depths = depths
        self.ends = ends
        self.ends_key = ends_key
        self.below = below
        self.keys_before = keys_before
        self.max_depth = max(depths)
        self._all: Optional[bytearray] = None  # token ids present, as a selector (built on demand)

    @property
    def num_nodes(self) -> int:
        return len(self.labels)

    def ids_of_ranges(self, ranges: list[tuple[int, int]]) -> list[int]:
        """Sorted token ids of the keys in `ranges` (ascending, disjoint (lo, hi) key ranges).

        Large answers are built as "every id but the excluded ones" with itertools.compress,
        which avoids sorting tens of thousands of ids at every step."""
        flat, id_start = self.flat_ids, self.id_start
        total = sum(id_start[hi] - id_start[lo] for lo, hi in ranges)
        if total * 4 < len(flat):
            out: list[int] = []
            for lo, hi in ranges:
                out.extend(flat[id_start[lo] : id_start[hi]])
            out.sort()
            return out
        if self._all is None:
            size = max(flat) + 1 if flat else 0
            present = bytearray(size)
            for t in flat:
                present[t] = 1
            self._all = present
        selected = bytearray(self._all)
        prev = 0
        for lo, hi in ranges + [(self.keys_before[-1], 0)]:
            for t in flat[id_start[prev] : id_start[lo]]:
                selected[t] = 0
            prev = hi
        return list(compress(range(len(selected)), selected))


class _LexerInfo:
    """What the fast lexer needs about one contextual lexer (one LR state's terminal list)."""

    __slots__ = ("position", "lexer", "names", "codes", "lives", "windows", "callbacks", "cap", "start")

    def __init__(self, guide: ReferenceCFGGuide, position: int):
        lexer = guide._lexer.lexers[position]
        scanner = lexer.scanner  # Lark builds its scanner and callbacks on first use
        self.position = position
        self.lexer = lexer
        self.names = [t.name for t in scanner.terminals]
        scanners = [guide._scanner(name) for name in self.names]
        self.codes = [s.program.code for s in scanners]
        self.lives = [s.program.live for s in scanners]
        self.windows = [s._window for s in scanners]
        self.callbacks = [lexer.callback.get(name) for name in self.names]
        keyword_lengths = [
            len(kw.pattern.value)
            for cb in self.callbacks
            if isinstance(cb, UnlessCallback)
            for kw in cb.scanner.terminals
        ]
        has_callbacks = any(cb is not None for cb in self.callbacks)
        # Lexeme texts are tracked (for keyword retyping) up to `cap` characters; -1: never.
        self.cap = (max(keyword_lengths, default=0) + 2) if has_callbacks else -1
        self.start = tuple(
            tuple(pc for pc in s._start_threads if live[pc]) for s, live in zip(scanners, self.lives)
        )


def _unsupported_reason(guide: ReferenceCFGGuide) -> Optional[str]:
    """Why the fast machine cannot model this grammar's terminals exactly (None: it can)."""
    for name, terminal in guide._terminals.items():
        if terminal.pattern is None:
            continue
        scanner = guide._scanner(name)
        if scanner._step_memo is None:
            return f"terminal {name} uses a lookahead, an anchor or a word boundary"
        if scanner._start_threads is None:
            return f"terminal {name} has a lookbehind before its first character"
        if scanner._start_match:
            return f"terminal {name} matches the empty string"
    return None


class FastCFGGuide(ReferenceCFGGuide):
    """CFG guide for a Lark grammar (LALR, contextual lexer) with the reference's exact answers,
    computed by walking a token trie through a lazily built lexer/parser machine."""

    def __init__(self, cfg_string: str, tokenizer: Any):
        super().__init__(cfg_string, tokenizer)
        self.fallback_reason = _unsupported_reason(self)
        self._bytes_decoding = isinstance(self.tokenizer, Tokenizer) and self.tokenizer._hf is None
        self._strip = bool(getattr(self.tokenizer, "strip_leading_space", False)) if self._bytes_decoding else False
        self._token_ids = sorted({int(i) for i in self.tokenizer.vocabulary.values()} - {self.eos_token_id})
        self._token_bytes: dict[int, bytes] = {}
        if self._bytes_decoding:
            self._token_bytes = {t: self.tokenizer.token_bytes(t) for t in self._token_ids}
        windows = [self._scanner(n)._window for n, t in self._terminals.items() if t.pattern is not None]
        self._tail = max(windows + [1]) - 1  # characters before the current one that lookbehinds see
        self._classes: dict[str, int] = {}  # character -> class
        self._class_signatures: dict[tuple, int] = {}
        self._class_reps: list[str] = []
        self._char_tests = self._collect_char_tests()
        self._reset_tables()
        self._held_split: Optional[tuple] = None
        self._tries: dict[Any, CharTrie] = {}
        if self.fallback_reason is None:
            self._trie_for_context((b"", False))  # the usual context, prepared now

    # -- memo tables ------------------------------------------------------------------------
    def _reset_tables(self) -> None:
        """(Re)create the memo tables (also used when they grow past _MEMO_LIMIT)."""
        self._lexers: dict[int, _LexerInfo] = {}
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
        self._cfg_steps: list[dict] = []
        self._viable: list[Optional[bool]] = []
        self._pure: list[bool] = []  # steps depend on characters only through their class
        self._loop_known: list[int] = []
        self._loop_yes: list[int] = []
        self._fresh: dict[tuple, int] = {}
        self._results: dict[tuple, array] = {}

    def _collect_char_tests(self) -> list:
        """Every single-character test of every terminal program (lookbehind programs included)."""
        tests = []
        seen = set()

        def visit(code) -> None:
            for ins in code:
                if ins[0] == CHAR and id(ins[1]) not in seen:
                    seen.add(id(ins[1]))
                    tests.append(ins[1])
                elif len(ins) > 1 and hasattr(ins[1], "program"):
                    visit(ins[1].program.code)

        for name, terminal in sorted(self._terminals.items()):
            if terminal.pattern is not None:
                visit(self._scanner(name).program.code)
        return tests

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
        out: list[int] = []
        if start >= 0:
            after = self._cfg_step(start, "\ufffd")
            if after >= 0:
                out = [t for t in self._walk(after, self._trie_for_context((b"", False))) if t not in continuation]
                if self._is_viable(after):
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
            out.extend(self._walk(start, trie))
        out.sort()
        return out

    # -- parser states ----------------------------------------------------------------------
    def _parser_id(self, parser_state) -> int:
        key = tuple(parser_state.state_stack)
        found = self._pid.get(key)
        if found is None:
            found = self._pid[key] = len(self._pstates)
            self._pstates.append(parser_state)
            position = parser_state.position
            info = self._lexers.get(position)
            if info is None:
                info = self._lexers[position] = _LexerInfo(self, position)
            acceptable = (self.accepted_terminals(parser_state) - {"$END"}) | self._ignore
            useful = 0
            for j, name in enumerate(info.names):
                callback = info.callbacks[j]
                keywords = callback.scanner.terminals if isinstance(callback, UnlessCallback) else ()
                if name in acceptable or any(k.name in acceptable for k in keywords):
                    useful |= 1 << j
            self._pinfo.append((info, acceptable, useful))
        return found

    def _feed_id(self, pid: int, type_: str) -> int:
        """Parser id after the terminal `type_` (unchanged for %ignore terminals), or _DEAD."""
        if type_ in self._ignore:
            return pid
        key = (pid, type_)
        found = self._feeds.get(key)
        if found is None:
            fed = self._feed(self._pstates[pid], Token(type_, ""))
            found = self._feeds[key] = _DEAD if fed is None else self._parser_id(fed)
        return found

    # -- scan states (lexeme being read; independent of the parser stack) ---------------------
    def _scan_intern(self, scan: tuple) -> int:
        found = self._scan_id.get(scan)
        if found is None:
            found = self._scan_id[scan] = len(self._scan)
            self._scan.append(scan)
            self._scan_steps.append({})
        return found

    def _term_step(self, info: _LexerInfo, j: int, threads: tuple, window: str) -> tuple:
        """One character through terminal j's regex VM, as the reference's scanner steps it.

        Returns (live threads after it, matched). Memoized by (threads, characters visible to
        lookbehinds)."""
        name = info.names[j]
        memo = self._term_memo.get(name)
        if memo is None:
            memo = self._term_memo[name] = {}
        w = info.windows[j]
        seen = window[-w:]
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
        tail = window[len(window) - self._tail :] if self._tail else ""
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
            self._cfg_steps.append({})
            self._viable.append(None)
            scan = self._scan[sid]
            pure = scan[5] is None and scan[6] == "" and (sub < 0 or self._pure[sub])
            self._pure.append(pure)
            self._loop_known.append(0)
            self._loop_yes.append(0)
        return found

    def _fresh_cfg(self, pid: int, tail: str) -> int:
        """The configuration at the start of a lexeme, parser in state `pid`."""
        key = (pid, tail)
        found = self._fresh.get(key)
        if found is None:
            info = self._pinfo[pid][0]
            text = "" if info.cap >= 0 else None
            sid = self._scan_intern((info.position, info.start, -1, None, False, text, tail))
            found = self._fresh[key] = self._cfg_intern(pid, sid, _NONE)
        return found

    def _cfg_step(self, cid: int, ch: str) -> int:
        """The configuration after one more character, or _DEAD."""
        found = self._cfg_steps[cid].get(ch)
        if found is not None:
            return found
        if self._pure[cid]:
            # Only the character's class matters here: compute the step once per class.
            k = self._classes.get(ch)
            rep = self._class_reps[self._class_of(ch) if k is None else k]
            if rep != ch:
                found = self._cfg_steps[cid][ch] = self._cfg_step(cid, rep)
                return found
        pid, sid, sub = self._cfg[cid]
        nsid = self._scan_step(sid, ch)
        position, threads, win, wtype, at_end, _text, tail = self._scan[nsid]
        if at_end:
            # A terminal matched up to here: what follows is read after feeding it.
            npid = self._feed_id(pid, wtype)
            nsub = _DEAD if npid == _DEAD else self._fresh_cfg(npid, tail)
        elif sub >= 0:
            nsub = self._cfg_step(sub, ch)
        else:
            nsub = sub
        if not any(threads) and not at_end:
            # The lexeme is decided: Lark's match, fed, then the text after it.
            result = nsub if nsub >= 0 else _DEAD
        else:
            useful = self._pinfo[pid][2]
            alive = nsub >= 0 or any(t and useful >> j & 1 for j, t in enumerate(threads))
            result = self._cfg_intern(pid, nsid, nsub) if alive else _DEAD
        self._cfg_steps[cid][ch] = result
        return result

    def _is_viable(self, cid: int) -> bool:
        """Would the reference accept a text ending in this configuration (ReferenceCFGGuide._settle)?"""
        found = self._viable[cid]
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
                result = self._is_viable(sub)  # Lark's match is fed; the rest must be viable
        self._viable[cid] = result
        return result

    def _extension_ok(self, info: _LexerInfo, j: int, text: Optional[str], acceptable) -> bool:
        name = info.names[j]
        if name in acceptable:
            return True
        if text is None or not isinstance(info.callbacks[j], UnlessCallback):
            return False
        return self._extension_acceptable(info.lexer, name, text, acceptable)

    def _loops(self, cid: int, mask: int) -> bool:
        """Does every character class in `mask` step configuration `cid` back to itself?"""
        if not self._pure[cid]:
            return False
        unknown = mask & ~self._loop_known[cid]
        while unknown:
            low = unknown & -unknown
            k = low.bit_length() - 1
            self._loop_known[cid] |= low
            if self._cfg_step(cid, self._class_reps[k]) == cid:
                self._loop_yes[cid] |= low
            unknown ^= low
        return mask & ~self._loop_yes[cid] == 0

    # -- the walk ---------------------------------------------------------------------------
    def _start_cfg(self, state: CFGState) -> int:
        cid = self._fresh_cfg(self._parser_id(state.parser_state), "")
        for ch in state.pending:
            cid = self._cfg_step(cid, ch)
            if cid < 0:
                break
        return cid

    def _walk(self, root: int, trie: CharTrie, strip_space: bool = False) -> list[int]:
        """Token ids (sorted) whose text is viable after configuration `root`.

        `strip_space`: texts lose one leading space (SentencePiece first token): the root's
        " " child reads nothing and its own key (the text " ", now empty) is never allowed."""
        if root < 0:
            return []
        labels, depths, ends, ends_key = trie.labels, trie.depths, trie.ends, trie.ends_key
        below, before = trie.below, trie.keys_before
        steps = self._cfg_steps
        viable = self._viable
        ranges: list[tuple[int, int]] = []
        stack = [root] * (trie.max_depth + 1)
        n = len(labels)
        i = 1
        while i < n:
            d = depths[i]
            c = stack[d - 1]
            ch = labels[i]
            if strip_space and d == 1 and ch == " ":
                stack[1] = root
                i += 1
                continue
            nc = steps[c].get(ch)
            if nc is None:
                nc = self._cfg_step(c, ch)
            if nc < 0:
                i = ends[i]
                continue
            mask = below[i]
            if mask == 0 or (self._pure[nc] and self._loops(nc, mask)):
                ok = viable[nc]
                if ok is None:
                    ok = self._is_viable(nc)
                if ok:
                    lo, hi = before[i], before[ends[i]]
                    if ranges and ranges[-1][1] == lo:
                        ranges[-1] = (ranges[-1][0], hi)
                    else:
                        ranges.append((lo, hi))
                i = ends[i]
                continue
            if ends_key[i]:
                ok = viable[nc]
                if ok is None:
                    ok = self._is_viable(nc)
                if ok:
                    k = before[i]
                    if ranges and ranges[-1][1] == k:
                        ranges[-1] = (ranges[-1][0], k + 1)
                    else:
                        ranges.append((k, k + 1))
            stack[d] = nc
            i += 1
        return trie.ids_of_ranges(ranges)

    def allowed_token_ids(self, state: CFGState) -> list[int]:
        """Sorted ids of every token allowed after `state` (EOS included when the text may end)."""
        if state.parser_state is None:
            return [self.eos_token_id]
        if self.fallback_reason is not None:
            return list(ReferenceCFGGuide.iter_valid_token_ids(self, state, self._candidates))
        context = self._context(state)
        if len(self._cfg) > _MEMO_LIMIT:
            self._reset_tables()
        root = self._start_cfg(state)
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
                found = self._walk(root, self._trie_for_context((b"", False)), strip_space=True)
            else:
                found = self._walk(root, self._trie_for_context(context))
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
        return f"FastCFGGuide(terminals={len(self._terminals)}, tokenizer={self.tokenizer!r})"
