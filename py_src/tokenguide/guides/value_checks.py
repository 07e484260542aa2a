"""`ValueChecksGuide`: a regex or grammar guide that also keeps the items of some arrays distinct
and some strings valid regexes.

JSON Schema's uniqueItems over unbounded items is no regular or context-free language, so
`compile_json_schema` leaves it out of the regex/grammar and hands a `ValueChecks`
(json_schema.value_checks) beside it. This guide runs the inner guide unchanged and follows the
text with a small JSON scanner: it knows the location of every value (which arrays must hold
distinct items), keeps each such array's items seen so far, and refuses a token that would end an
item equal to one seen, or leave the current item no way to end as a new value (found by a search
in the item's byte automaton along the texts seen: exact because items are spelled canonically).
Strings that must be regexes (`format: "regex"`, json_schema.regex_strings) are kept as their
JSON text so far: a token that leaves one no valid completion, or closes it invalid, is refused.
Strings whose lengths beside a pattern are checked (json_schema.string_lengths) are followed
through the pattern's automaton with their count of characters: a token that passes the bound
or leaves no ending within it is refused.
Objects whose keys come in any order (json_schema.member_keys) are followed with their declared
keys seen and their member count: a token that repeats a declared key, closes the object too
early, adds a comma where no member can follow, or leaves a key only keys seen complete is refused.
A state is (inner state, scan); the scan is immutable, so states can be kept, compared and rolled back.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Optional

from ..errors import InvalidTokenError
from ..json_schema.json_values import canonical_number, parse_document, value_key
from ..json_schema.order_free import canonical_object
from ..json_schema.regex_strings import SPECIAL_BYTES, partial_content, piece_viable, plain_tail, viable_content
from ..json_schema.value_checks import OPEN_OBJECTS, Mixed
from ..regex.ecma_syntax import pattern_error
from ..vocabulary import core_vocabulary_of
from .base import BaseGuide
from .instructions import Generate, Instruction, mask_has, set_bits

__all__ = ["ValueChecksGuide"]

_WS = frozenset(b" \t\n\r")
_ENDS_SCALAR = frozenset(b" \t\n\r,]}")
_STRUCT = frozenset(b'",[]{}')


@lru_cache(maxsize=256)
def _trie(texts: frozenset) -> frozenset:
    """Every prefix (the empty one included) of the texts in `texts`."""
    return frozenset(t[:i] for t in texts for i in range(len(t) + 1))


_NUMBER = frozenset(b"+-.0123456789eE")
_NUMBER_START = frozenset(b"-0123456789")
_START = (b"", False, False, b"")  # an item's text before its first byte
_SEARCH_STEPS = 50_000


def _advance(text: tuple, c: int) -> tuple:
    """One byte of an item's text. `text` is (compact, in a string, after a backslash there, the
    number being written): the compact text drops JSON whitespace outside strings and spells
    each number, once it ends, canonically, so that equal values have equal texts."""
    compact, instr, esc, num = text
    if instr:
        if esc:
            return compact + bytes((c,)), True, False, b""
        return compact + bytes((c,)), c != 0x22, c == 0x5C, b""
    if num:
        if c in _NUMBER:
            return compact, False, False, num + bytes((c,))
        compact += canonical_number(num).encode()
    if c in _WS:
        return compact, False, False, b""
    if c in _NUMBER_START:
        return compact, False, False, bytes((c,))
    return compact + bytes((c,)), c == 0x22, False, b""


def _ended(text: tuple) -> bytes:
    """The compact text of a whole item (a number at its end spelled canonically)."""
    return text[0] + canonical_number(text[3]).encode() if text[3] else text[0]


def _alive(dfa: Any, q: int, text: tuple, texts: frozenset) -> bool:
    """Can the item whose automaton state is `q` and text `text` (see `_advance`) still end as a
    value whose compact text is not in `texts`? Leaving the texts seen behind is enough (every
    live automaton state can end, and compact texts are one per value); a number being written
    is compared once it ends. (Past _SEARCH_STEPS states, taken as alive.)"""
    prefixes = _trie(texts)
    if text[0] not in prefixes:
        return True
    todo, seen = [(q, text)], {(q, text[:3], _number_value(text[3]))}
    while todo:
        q, text = todo.pop()
        if dfa.is_final(q) and _ended(text) not in texts:
            return True
        row = dfa.row(q)
        for c in range(256):
            q2 = row[c]
            if q2 == -1:
                continue
            nxt = _advance(text, c)
            if nxt[0] not in prefixes:
                return True
            key = (q2, nxt[:3], _number_value(nxt[3]))
            if key not in seen:
                if len(seen) > _SEARCH_STEPS:
                    return True
                seen.add(key)
                todo.append((q2, nxt))
    return False


_CANONICAL_INTEGER = re.compile(rb"(-?)([0-9]+)e([0-9]{1,2})(?![0-9])")


@lru_cache(maxsize=256)
def _as_written(texts: frozenset) -> frozenset:
    """The compact texts of the items seen, and the same with each integer spelled as JSON writes
    it (`1e1` as `10`): the spellings a token may follow (a superset: strings are rewritten too)."""
    plain = {_CANONICAL_INTEGER.sub(lambda m: m[1] + m[2] + b"0" * int(m[3]), t) for t in texts}
    return frozenset(texts | plain)


@lru_cache(maxsize=256)
def _alive_at_start(dfa: Any, texts: frozenset) -> bool:
    """`_alive` for an item not begun (after a comma): the same for every token a mask tries."""
    return _alive(dfa, dfa.initial, _START, texts)


def _number_value(raw: bytes) -> Any:
    """A number being written, as far as its value goes (`1.0` and `1.00` are one search state)."""
    if not raw:
        return ""
    try:
        return canonical_number(raw), raw[-1:] in (b".", b"e", b"E", b"-", b"+")
    except ValueError:  # ("-", "1.", "1e", "1e+": not a number yet)
        return raw


@lru_cache(maxsize=4)
def _token_tables(vocab: Any, size: int, eos: int) -> tuple:
    """Per vocabulary, once: each token's bytes, the ids of each byte string, and as packed
    int bit sets the tokens holding a JSON delimiter, those holding whitespace, and those holding
    a regex syntax character, an escape or a quote (regex_strings.SPECIAL_BYTES), and those
    holding a digit or a minus sign (which may begin a number)."""
    token_bytes: list[Optional[bytes]] = [None if i == eos else vocab.id_to_bytes(i) for i in range(size)]
    by_bytes: dict[bytes, list[int]] = {}
    struct = ws = special = numeric = 0
    for i, b in enumerate(token_bytes):
        if not b:
            continue
        by_bytes.setdefault(b, []).append(i)
        if _STRUCT.intersection(b):
            struct |= 1 << i
        elif _WS.intersection(b):
            ws |= 1 << i
        if SPECIAL_BYTES.intersection(b):
            special |= 1 << i
        if _NUMBER_START.intersection(b):
            numeric |= 1 << i
    return token_bytes, by_bytes, struct, ws, special, numeric


@lru_cache(maxsize=4)
def _past_quote(vocab: Any, size: int, eos: int) -> int:
    """Per vocabulary, once: the tokens (a packed bit set) that may close a string and then
    write a delimiter (a JSON delimiter past a quote), or that hold a backslash."""
    out = 0
    for i, b in enumerate(_token_tables(vocab, size, eos)[0]):
        if b and (b"\\" in b or (b'"' in b and _STRUCT.intersection(b[b.index(b'"') + 1:]))):
            out |= 1 << i
    return out


@lru_cache(maxsize=4)
def _string_pieces(vocab: Any, size: int, eos: int) -> tuple[list, list]:
    """Per vocabulary, once and only for guides with regex strings: each token's characters
    inside a string (`_piece`), and past the opening quote of one."""
    token_bytes = _token_tables(vocab, size, eos)[0]
    quoted = [("", 0) if b == b'"' else _piece(b[1:]) if b and b[:1] == b'"' else None for b in token_bytes]
    return [_piece(b) for b in token_bytes], quoted


def _piece(data: Optional[bytes]) -> Optional[tuple[str, int]]:
    """(its characters, where their plain tail begins) for a token that holds no quote or escape
    and is whole UTF-8 (it stays inside a string as those characters); else None."""
    if not data or b'"' in data or b"\\" in data or any(c < 0x20 for c in data):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text, plain_tail(text)


def _unchecked(automaton: Any) -> bool:
    """No automaton to search: open objects (never stranded before they close) or no item there."""
    return automaton is None or automaton is OPEN_OBJECTS


class _Dup(Exception):
    """A token ends an item equal to one before it, or leaves an item no new value to end as."""


class _Scan:
    """The JSON scanner over a frozen scan state (see `ValueChecksGuide`)."""

    def __init__(self, check: Any, state: tuple):
        self.check = check
        # rx: the JSON content so far of a string that must be a regex; ln: (location, state,
        # characters) of a string whose lengths are checked (json_schema.string_lengths)
        frames, self.mode, self.key, self.rx, self.ln = state
        self.frames = [list(f) for f in frames]

    def freeze(self) -> tuple:
        return tuple(tuple(f) for f in self.frames), self.mode, self.key, self.rx, self.ln

    def value_loc(self) -> int:
        """The location of the value that starts next (or is being written)."""
        if not self.frames:
            return self.check.root
        top = self.frames[-1]
        return top[2] if top[0] == "o" else self.check.child_index(top[1], top[2])

    def _start_value(self, c: int) -> None:
        if c == 0x22:
            loc = self.value_loc()
            if self.check.regex_string(loc):
                self.rx = b""
            auto = self.check.length_automaton(loc)
            if auto is not None:
                self.ln = (loc, auto.begin, 0)
        if self.frames and self.frames[-1][0] == "a" and self.frames[-1][3] is not None:
            f = self.frames[-1]  # ["a", loc, index, ItemAutomata, value keys, texts, inside an item, q, text,
            #                        the item's automaton]
            auto = f[3].at(f[2])
            if isinstance(auto, Mixed):  # a value that can always become new, or one to search
                auto = OPEN_OBJECTS if c in auto.open_first else auto.automaton
            f[6], f[7], f[8], f[9] = True, 0 if _unchecked(auto) else auto.initial, _START, auto

    def _end_value(self) -> None:
        if self.frames and self.frames[-1][0] == "a" and self.frames[-1][6]:
            f = self.frames[-1]
            f[6] = False
            text = _ended(f[8])
            k = value_key(parse_document(text))
            if k in f[4]:
                raise _Dup
            f[4], f[5] = f[4] | {k}, f[5] | {text}

    def feed(self, data: bytes) -> None:
        for c in data:
            mode = self.mode
            if mode == "N" and c in _ENDS_SCALAR:
                self.mode = mode = "A"
                self._end_value()
            if mode == "V" and c not in _WS and not (c == 0x5D and self.frames and self.frames[-1][0] == "a"):
                self._start_value(c)
            for f in self.frames:
                if f[0] == "a" and f[6]:
                    if not _unchecked(f[9]):
                        q = f[9].row(f[7])[c]
                        if q == -1:
                            raise _Dup  # (the item automaton and the guide disagree: never expected)
                        f[7] = q
                    f[8] = _advance(f[8], c)
            self._step(mode, c)

    def _step(self, mode: str, c: int) -> None:
        if mode in ("V", "A", "K", "C") and c in _WS:
            return
        if mode == "V":
            if c == 0x22:
                self.mode = "S"
            elif c == 0x7B:
                loc = self.value_loc()
                # + seen, capture, and for a map inside checked items: (frame, where its text begins);
                # an any-order object's spec (json_schema.member_keys), its declared keys seen, its count
                self.frames.append(["o", loc, None, None, None, self._map_starts(loc), self.check.object_keys(loc),
                                    frozenset(), 0])
                self.mode = "K"
            elif c == 0x5B:
                loc = self.value_loc()
                dfa = self.check.item_automaton(loc)
                self.frames.append(["a", loc, 0, dfa, frozenset(), frozenset(), False, 0, _START, None])
                self.mode = "V"
            elif c == 0x5D:
                self.frames.pop()
                self.mode = "A"
                self._end_value()
            else:
                self.mode = "N"
            if c != 0x22 and self.frames and self.frames[-1][0] == "o":
                self.frames[-1][4] = None  # (a discriminator that is no string: never written)
        elif mode == "S":
            if c != 0x22 and self.rx is not None:
                self.rx += bytes((c,))
            if c != 0x22 and self.ln is not None:
                self._length_byte(c)
            if c == 0x5C:
                self.mode = "E"
            elif c == 0x22:
                if self.rx is not None:
                    if pattern_error(json.loads(b'"' + self.rx + b'"')) is not None:
                        raise _Dup
                    self.rx = None
                if self.ln is not None:
                    self._length_byte(c)
                    if not self.check.length_automaton(self.ln[0]).ends(*self.ln[1:]):
                        raise _Dup
                    self.ln = None
                self.mode = "A"
                self._end_value()
                top = self.frames[-1] if self.frames else None
                if top is not None and top[0] == "o" and top[4] is not None:
                    name = self.check.discriminator(top[1])
                    top[3], top[4] = (name, value_key(json.loads(b'"' + top[4] + b'"'))), None
            self._capture(c)
        elif mode == "E":
            self.mode = "S"
            if self.rx is not None:
                self.rx += bytes((c,))
            if self.ln is not None:
                self._length_byte(c)
            self._capture(c)
        elif mode == "k":
            if c == 0x22:
                self._member_key(json.loads(b'"' + self.key + b'"'))
                self.mode = "C"
            else:
                self.key += bytes((c,))
                self.mode = "e" if c == 0x5C else "k"
        elif mode == "e":
            self.key += bytes((c,))
            self.mode = "k"
        elif mode == "A":
            top = self.frames[-1]
            if c == 0x2C:
                if top[0] == "a":
                    top[2] += 1
                    self.mode = "V"
                else:
                    if top[6] is not None and not top[6].feasible(top[7], top[8], 1):
                        raise _Dup  # (no further member can come)
                    self.mode = "K"
            else:  # ] or }
                self._close()
                self.mode = "A"
                self._end_value()
        elif mode == "K":
            if c == 0x22:
                self.mode, self.key = "k", b""
            else:  # }
                self._close()
                self.mode = "A"
                self._end_value()
        elif mode == "C":
            self.mode = "V"

    def _map_starts(self, loc: int) -> Optional[tuple]:
        """For a map at `loc` (check.order_free_at) just opened: (index of each array frame
        inside an item, where the map's `{` sits in that item's compact text); else None."""
        if not self.check.order_free_at(loc):
            return None
        return tuple((i, len(f[8][0]) - 1) for i, f in enumerate(self.frames)
                     if f[0] == "a" and f[6] and not _unchecked(f[9]))

    def _close(self) -> None:
        """The top object or array ends: a map's text, in each item holding it, in one order
        (json_schema.order_free.canonical_object)."""
        top = self.frames.pop()
        if top[0] == "o" and top[6] is not None and not top[6].can_close(top[7], top[8]):
            raise _Dup  # (a required key missing, or too few members)
        if top[0] == "o" and top[5]:
            for i, start in top[5]:
                f = self.frames[i]
                f[8] = (f[8][0][:start] + canonical_object(f[8][0][start:]),) + tuple(f[8][1:])

    def _capture(self, c: int) -> None:
        """A byte of a string value: kept while it is the value of its object's discriminator."""
        top = self.frames[-1] if self.frames else None
        if top is not None and top[0] == "o" and top[4] is not None and not (c == 0x22 and self.mode == "A"):
            top[4] += bytes((c,))

    def _length_byte(self, c: int) -> None:
        """A byte of a string whose lengths are checked, through its automaton."""
        loc, state, count = self.ln
        state, added = self.check.length_automaton(loc).step(state, c)
        if state < 0:
            raise _Dup  # (the grammar's lexeme and the check's automaton disagree: never expected)
        self.ln = (loc, state, count + added)

    def _member_key(self, name: str) -> None:
        """The object at the top reads member `name`: its location, narrowed by the value of the
        object's discriminator (ValueChecks.discriminator), which the schema's key order
        writes first (a member before it is refused: never expected)."""
        top = self.frames[-1]
        if top[6] is not None:  # an any-order object: a declared key once, within the bounds
            after = top[6].after_key(top[7], top[8], name)
            if after is None:
                raise _Dup
            top[7], top[8] = after
        d = self.check.discriminator(top[1])
        if d is None or name == d:
            top[2] = self.check.child_key(top[1], name)
            if d is not None:
                top[4] = b""
        elif top[3] is None:
            raise _Dup
        else:
            top[2] = self.check.child_key(top[1], name, top[3])

    def alive(self) -> bool:
        """Can every item begun, and the one a comma calls for, still end as a new value? (An
        open object not closed yet always can: a member no value seen has.) Can a regex begun
        still end valid?"""
        if self.rx is not None and viable_content(self.rx) is None:
            return False
        if self.ln is not None and not self.check.length_automaton(self.ln[0]).viable(*self.ln[1:]):
            return False
        in_maps = {i for f in self.frames if f[0] == "o" and f[5] for i, _ in f[5]}
        for i, f in enumerate(self.frames):
            # (an item inside a map still open can always become new: a name no item has there)
            if f[0] == "a" and f[6] and not _unchecked(f[9]) and i not in in_maps and \
                    not _alive(f[9], f[7], f[8], f[5]):
                return False
        top = self.frames[-1] if self.frames else None
        if top is not None and top[0] == "o" and top[6] is not None and self.mode in ("k", "e") and \
                not top[6].prefix_ok(top[7], top[8], self.key):
            return False  # (only keys seen, or members past the bounds, complete this key)
        if top is not None and top[0] == "a" and top[3] is not None and self.mode == "V" and not top[6]:
            auto = top[3].at(top[2])
            return _unchecked(auto) or isinstance(auto, Mixed) or _alive_at_start(auto, top[5])
        return True


class ValueChecksGuide(BaseGuide):
    """`inner` (an Index or a BaseGuide over the regex/grammar) with `check`'s arrays kept distinct
    and its regex strings valid.

    `vocabulary` gives each token's bytes. Masks are the inner guide's with the tokens this
    guide refuses cleared: only tokens that hold a JSON delimiter or whitespace, or that follow an
    item seen so far, are tried, so a mask costs little more than the inner one away from such texts;
    inside a regex string, the tokens with a syntax character, or all where plain text might not do.
    """

    def __init__(self, inner: Any, check: Any, vocabulary: Any):
        self.inner, self.check = inner, check
        self.is_index = not isinstance(inner, BaseGuide)
        self.vocab_size = int(inner.vocab_size)
        self.eos_token_id = int(inner.eos_token_id)
        self._vocab_key = (core_vocabulary_of(vocabulary), self.vocab_size, self.eos_token_id)
        self.token_bytes, self.by_bytes, self.struct, self.ws, self.special, self.numeric = \
            _token_tables(*self._vocab_key)
        self.longest = max((len(b) for b in self.token_bytes if b), default=0)
        start = inner.initial_state
        self.initial_state = self.start_state = (start, ((), "V", b"", None, None))
        self.final_state = (getattr(inner, "final_state", -1), ((), "A", b"", None, None))
        self._masks: dict[Any, tuple[Any, bytes]] = {}
        try:
            hash(start)
            self._unhashable = False
        except TypeError:  # (the grammar guide's parser states)
            self._unhashable = True

    # ---- the inner guide, Index or BaseGuide ---------------------------------------------------
    def _inner_mask(self, s: Any) -> bytes:
        return self.inner.mask_bytes(s)

    def _inner_next(self, s: Any, token_id: int) -> Any:
        if self.is_index:
            nxt = self.inner.get_next_state(s, token_id)
            if nxt is None:
                raise InvalidTokenError(f"ValueChecksGuide: token {token_id} is not allowed in state {s!r:.60}")
            return nxt
        return self.inner.get_next_state(s, token_id)

    # ---- BaseGuide ------------------------------------------------------------------------------
    def scan(self, scan: tuple, data: bytes) -> Optional[tuple]:
        """The scan state after `data`, or None when `data` repeats an item or strands one."""
        sc = _Scan(self.check, scan)
        try:
            sc.feed(data)
        except _Dup:
            return None
        return sc.freeze() if sc.alive() else None

    def mask_bytes(self, state: Any) -> bytes:
        inner, scan = state
        key = (id(inner) if self._unhashable else inner, scan)
        found = self._masks.get(key)
        if found is not None and (not self._unhashable or found[0] is inner):
            return found[1]
        base = self._inner_mask(inner)
        frames = [f for f in scan[0] if f[0] == "a" and f[3] is not None]
        # the location of the value beginning or being written, where a value may be
        value_loc = _Scan(self.check, scan).value_loc() if scan[1] in ("V", "C", "N") else None
        candidates = self._candidates(frames, scan[1], value_loc) if frames else 0
        if scan[3] is not None:  # inside a regex string: tokens that may break it
            status = viable_content(scan[3])
            candidates |= self.special if status is not None and status.plain_ok else -1
        elif scan[1] == "V":  # a string checked on the values may begin: at its quote
            loc = value_loc
            if self.check.regex_string(loc) or self.check.length_automaton(loc) is not None:
                candidates |= self.struct
        if scan[4] is not None:  # inside a string whose lengths are checked: near the bounds, every token
            loc, _, count = scan[4]
            auto = self.check.length_automaton(loc)
            near = auto.longest_minimum is None or (auto.hi is not None and
                                                    auto.hi - count < self.longest + auto.longest_minimum)
            if count < auto.lo or near:
                candidates = -1
        restrict = None
        if any(f[0] == "o" and f[6] is not None for f in scan[0]):  # any-order objects' keys (member_keys)
            more, restrict = self._key_candidates(scan)
            candidates |= more
        if not candidates:
            return base
        if restrict is not None:
            base = (int.from_bytes(base, "little") & restrict).to_bytes(len(base), "little")
        mask = bytearray(base)
        quick = self._regex_pieces(scan, frames)
        for t in set_bits(int.from_bytes(base, "little") & candidates):
            piece = None if quick is None else quick[2][t]
            if not (piece_viable(quick[0], piece[0], piece[1], quick[1]) if piece is not None
                    else self.scan(scan, self.token_bytes[t]) is not None):
                mask[t >> 3] &= ~(1 << (t & 7)) & 0xFF
        out = bytes(mask)
        if len(self._masks) > 256:
            self._masks.clear()
        self._masks[key] = (inner, out)  # (an unhashable inner state is kept alive with its id)
        return out

    def _key_candidates(self, scan: tuple) -> tuple[int, Optional[int]]:
        """With an any-order object open (json_schema.member_keys): the tokens that may change
        its keys' verdict (a packed bit set: those with a delimiter; inside a string, those with
        one past a quote, or an escape), and inside the key of the object at the top when only
        declared names may complete it, the tokens allowed at all (prefixes of those names, or
        tokens with a delimiter, tried one by one); else None."""
        frames, mode = scan[0], scan[1]
        top = frames[-1]
        if mode in ("k", "e") and top[0] == "o" and top[6] is not None:
            spec, seen, count = top[6], top[7], top[8]
            if spec.other_next(seen, count):
                return self.struct, None
            key = scan[2]
            allowed = self.struct
            for n in spec.next_names(seen, count):
                text = spec.texts[n]
                if text.startswith(key):
                    rest = text[len(key):]
                    for i in range(1, len(rest) + 1):
                        for t in self.by_bytes.get(rest[:i], ()):
                            allowed |= 1 << t
            return self.struct, allowed
        if mode in ("S", "E", "k", "e"):
            return _past_quote(*self._vocab_key), None
        return self.struct, None

    def _regex_pieces(self, scan: tuple, frames: list) -> Optional[tuple[str, dict, list]]:
        """Inside a regex string with nothing else to check and its text complete so far (no
        escape or UTF-8 character open), or where one begins: (its text, a memo for
        `piece_viable`, each token's characters there: `_string_pieces`, inside or past an
        opening quote), so that a token that stays inside the string is judged from its characters;
        else None."""
        if frames or scan[4] is not None:
            return None
        if scan[3] is None:
            begins = scan[1] == "V" and self.check.regex_string(_Scan(self.check, scan).value_loc())
            return ("", {}, _string_pieces(*self._vocab_key)[1]) if begins else None
        text, pending = partial_content(scan[3])
        if pending or json.dumps(text, ensure_ascii=False)[1:-1].encode() != scan[3]:
            return None
        return text, {}, _string_pieces(*self._vocab_key)[0]

    def _candidates(self, frames: list, mode: str, value_loc: Optional[int]) -> int:
        """Tokens that may repeat or strand an item (a packed bit set): delimiters, whitespace
        (unless every open item is inside a string), those that follow the texts of items seen,
        and where a number with many spellings and few values (check.number_spellings_at:
        bounded, a multiple, an enum's) may begin or goes on, those that may write one: its
        digits may leave it only values seen (after 1 with a maximum of 1, `.0` strands the item)."""
        out = self.struct
        frames = [f for f in frames if not _unchecked(f[9] if f[6] else f[3].at(f[2]))]  # (open objects: at "}")
        if frames and value_loc is not None and self.check.number_spellings_at(value_loc):
            if mode == "N":
                return -1
            out |= self.numeric
        if not all(f[6] and f[8][1] for f in frames):
            out |= self.ws
        for f in frames:
            compact = f[8][0] + f[8][3] if f[6] else b""  # (with the number being written, as written)
            for text in _as_written(f[5]):
                if text.startswith(compact):
                    rest = text[len(compact):]
                    for n in range(1, len(rest) + 1):
                        for t in self.by_bytes.get(rest[:n], ()):
                            out |= 1 << t
        return out

    def get_next_instruction(self, state: Any) -> Instruction:
        mask = self.mask_bytes(state)
        return Generate([t for t in range(self.vocab_size) if mask_has(mask, t)])

    def get_next_state(self, state: Any, token_id: int) -> Any:
        inner, scan = state
        if token_id == self.eos_token_id:
            return (self._inner_next(inner, token_id), scan)
        data = self.token_bytes[token_id] if 0 <= token_id < self.vocab_size else None
        nxt = None if data is None else self.scan(scan, data)
        if nxt is None:
            raise InvalidTokenError(f"ValueChecksGuide: token {token_id} repeats an item of an array whose items "
                                    "must be distinct, or leaves one no new value to end as")
        return (self._inner_next(inner, token_id), nxt)

    def is_final_state(self, state: Any) -> bool:
        return self.inner.is_final_state(state[0])

    def can_terminate_state(self, state: Any) -> bool:
        if self.is_index:
            return self.inner.is_final_state(state[0])
        return self.inner.can_terminate_state(state[0])
