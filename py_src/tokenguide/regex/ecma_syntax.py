"""An exact syntax checker for ECMA-262 regular expressions with the `u` flag, for JSON Schema's
`format: "regex"` (ECMA-262 11th edition, ES2020, with Unicode 16.0 names; no Annex B).

Besides `pattern_error` (is this a valid Pattern?), it answers the questions a generator asks of
an unfinished pattern: can it still be completed (`prefix_status`), can plain characters follow,
and with what suffix (`completion`). One left-to-right pass: a construct cut short by the end of
the text is "unfinished" (still viable); an error detectable at a character makes every longer
text invalid too; the checks that depend on the whole pattern (`\\5` needs five capturing groups,
`\\k<name>` a group of that name) are made at the end and can always be fixed by appending groups.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import NamedTuple

from . import ecma_names as names
from . import ranges as R

__all__ = ["PLAIN_EXCLUDED", "MAX_COMPLETION_GROUPS", "PrefixStatus", "pattern_error", "prefix_status", "completion",
           "name_continues"]

#: the characters that are not "plain": the syntax characters and `-` (special inside a class)
PLAIN_EXCLUDED: frozenset[str] = frozenset("^$\\.*+?()[]{}|-")

_SYNTAX = frozenset("^$\\.*+?()[]{}|")
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_PROPERTY_CHARS = _LETTERS | _DIGITS | {"_", "="}
_CONTROL = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
_MAX = 0x10FFFF
#: groups `completion` is willing to write to satisfy a back reference such as `\99999999`
MAX_COMPLETION_GROUPS = 100_000


class PrefixStatus(NamedTuple):
    """What a generator needs to know about an unfinished pattern."""
    complete: bool  #: the text itself is a valid pattern
    plain_ok: bool  #: appending any non-empty string of plain characters keeps it viable
    #: the text ends inside a group name begun (`(?<maj`, `\\k<maj`): appending characters that
    #: continue a name (`name_continues`) leaves this same status
    in_name: bool = False


class _Error(Exception):
    """The text, and every text that extends it, is invalid."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(offset, message)
        self.offset, self.message = offset, message


class _Eof(Exception):
    """The text ends inside a construct; `suffix` finishes the innermost one (`value`: the code
    point an unfinished escape then stands for)."""

    def __init__(self, suffix: str, plain_ok: bool, what: str | None, value: int = -1, in_name: bool = False) -> None:
        super().__init__(suffix)
        self.suffix, self.plain_ok, self.what, self.value = suffix, plain_ok, what, value
        self.in_name = in_name  # (see PrefixStatus.in_name)


def _dec_cmp(a: str, b: str) -> int:
    """Compare two decimal digit strings as integers (of any length), -1/0/1."""
    a, b = a.lstrip("0"), b.lstrip("0")
    ka, kb = (len(a), a), (len(b), b)
    return (ka > kb) - (ka < kb)


def _first(want: tuple[tuple[int, int], ...] | None, lo: int, hi: int) -> int | None:
    if lo > hi:
        return None
    return lo if want is None else names.first_in_ranges(want, lo, hi)


def _pair(lead: int, trail: int) -> int:
    return 0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00)


def _complete_escape(partial: str, want: tuple[tuple[int, int], ...] | None) -> tuple[str, int] | None:
    """A suffix finishing the character escape `\\` + `partial` (cut short by the end of the
    text) so that it stands for a code point in `want`, with that code point; None if none can."""
    if partial == "":
        if want is None:
            return "\\", 0x5C
        v = _first(want, 0, _MAX)
        return None if v is None else (f"u{{{v:X}}}", v)
    kind, body = partial[0], partial[1:]
    if kind == "c":
        v = _first(want, 1, 26)
        return None if v is None else (chr(0x40 + v), v)
    if kind == "x":
        k = 2 - len(body)
        lo = int(body or "0", 16) << (4 * k)
        v = _first(want, lo, lo + (1 << 4 * k) - 1)
        return None if v is None else (f"{v:02X}"[len(body):], v)
    if body.startswith("{"):
        v0 = int(body[1:], 16) if len(body) > 1 else 0
        if len(body) > 1 and _first(want, v0, v0) is not None:
            return "}", v0
        k = 1
        while (lo := v0 << (4 * k)) <= _MAX:
            hi = min(lo + (1 << 4 * k) - 1, _MAX)
            v = _first(want, lo, hi)
            if v is not None:
                return f"{v - lo:0{k}X}}}", v
            if hi == _MAX:
                break
            k += 1
        return None
    head, tail = body[:4], body[4:]
    if len(head) < 4:
        k = 4 - len(head)
        lo = int(head or "0", 16) << (4 * k)
        hi = lo + (1 << 4 * k) - 1
        v = _first(want, lo, hi)
        if v is not None:
            return f"{v:04X}"[len(head):], v
        llo, lhi = max(lo, 0xD800), min(hi, 0xDBFF)
        v = _first(want, _pair(llo, 0xDC00), _pair(lhi, 0xDFFF)) if llo <= lhi else None
        if v is None:
            return None
        lead, trail = 0xD800 + ((v - 0x10000) >> 10), 0xDC00 + ((v - 0x10000) & 0x3FF)
        return f"{lead:04X}"[len(head):] + f"\\u{trail:04X}", v
    lead = int(head, 16)  # a lead surrogate, `tail` a proper prefix of `\uDC00`..`\uDFFF`
    if tail == "" and _first(want, lead, lead) is not None:
        return "", lead
    digits = tail[2:]
    k = 4 - len(digits)
    tlo = int(digits or "0", 16) << (4 * k)
    v = _first(want, _pair(lead, max(tlo, 0xDC00)), _pair(lead, min(tlo + (1 << 4 * k) - 1, 0xDFFF)))
    if v is None:
        return None
    return f"\\u{0xDC00 + ((v - 0x10000) & 0x3FF):04X}"[len(tail):], v


def _is_trail_prefix(rest: str) -> bool:
    """Whether `rest` (non-empty, shorter than 6) can begin `\\uDC00`..`\\uDFFF`."""
    return all(ch in allowed for ch, allowed in zip(rest, ("\\", "u", "dD", "cdefCDEF", _HEX)))


class _Parser:
    """One pass over a pattern; `run` raises _Error or _Eof, or returns at a complete end."""

    def __init__(self, text: str) -> None:
        self.s, self.n, self.i = text, len(text), 0
        self.groups = 0
        self.names: set[str] = set()
        self.backrefs: list[tuple[int, str]] = []  # (offset of `\`, digits)
        self.namerefs: list[tuple[int, str]] = []  # (offset of `\`, name)
        self.closers: list[tuple[str, int]] = []  # (`)` or `]`, offset of its opener)
        self.after_zero = False  # the last atom was `\0` (a digit may not follow)

    def fail(self, offset: int, message: str) -> _Error:
        return _Error(offset, message)

    def run(self) -> None:
        self.disjunction()
        if self.i < self.n:  # only `)` stops a top-level disjunction
            raise self.fail(self.i, "')' without a matching '('")

    def disjunction(self) -> None:
        s, n = self.s, self.n
        while True:
            while self.i < n and s[self.i] not in "|)":
                self.term()
            if self.i < n and s[self.i] == "|":
                self.i += 1
                self.after_zero = False
                continue
            return

    def term(self) -> None:
        s, i = self.s, self.i
        c = s[i]
        self.after_zero = False
        if c in "^$" or (c == "\\" and i + 1 < self.n and s[i + 1] in "bB"):
            self.i += 1 if c != "\\" else 2
            return self.no_quantifier(i)
        if c == "(":
            if self.group():
                return self.no_quantifier(i)
        elif c == "\\":
            self.atom_escape()
        elif c == "[":
            self.char_class()
        elif c in "*+?{":
            raise self.fail(i, f"{c!r} has nothing to repeat")
        elif c in "]}":
            raise self.fail(i, f"lone {c!r} (escape it as '\\{c}')")
        else:  # `.` or a pattern character
            self.i += 1
        self.quantifier()

    def no_quantifier(self, start: int) -> None:
        if self.i < self.n and self.s[self.i] in "*+?{":
            raise self.fail(self.i, f"the assertion at offset {start} cannot be quantified")

    def quantifier(self) -> None:
        s, n, i = self.s, self.n, self.i
        if i == n or s[i] not in "*+?{":
            return
        if s[i] == "{":
            self.braces()
        else:
            self.i += 1
        self.after_zero = False
        if self.i < n and s[self.i] == "?":
            self.i += 1

    def braces(self) -> None:
        s, n, start = self.s, self.n, self.i
        j = start + 1
        while j < n and s[j] in _DIGITS:
            j += 1
        low = s[start + 1:j]
        if j == n:
            raise _Eof("}" if low else "1}", False, f"unfinished quantifier at offset {start}")
        if not low:
            raise self.fail(j, "'{' must begin a quantifier {n}, {n,} or {n,m} (escape it as '\\{')")
        if s[j] == ",":
            k = j = j + 1
            while j < n and s[j] in _DIGITS:
                j += 1
            high = s[k:j]
            if j == n:
                nines = ""
                while high and _dec_cmp(high + nines, low) < 0:
                    nines += "9"
                raise _Eof(nines + "}", False, f"unfinished quantifier at offset {start}")
            if high and s[j] == "}" and _dec_cmp(high, low) < 0:
                raise self.fail(j, f"quantifier {{{low},{high}}} has its maximum below its minimum")
        if s[j] != "}":
            raise self.fail(j, f"expected a digit or '}}' in the quantifier at offset {start}")
        self.i = j + 1

    def group(self) -> bool:
        """A group at `(`; True when it is a lookaround (an assertion: not quantifiable)."""
        s, n, start = self.s, self.n, self.i
        self.closers.append((")", start))
        i = start + 1
        lookaround = False
        if i == n or s[i] != "?":
            self.groups += 1
        else:
            i += 1
            if i == n:
                raise _Eof(":", False, f"unfinished group at offset {start}")
            c = s[i]
            if c in "=!":
                lookaround, i = True, i + 1
            elif c == ":":
                i += 1
            elif c == "<":
                i += 1
                if i == n:
                    raise _Eof("=", False, f"unfinished group at offset {start}")
                if s[i] in "=!":
                    lookaround, i = True, i + 1
                else:
                    self.groups += 1
                    self.i = i - 1
                    self.group_name(define=True)
                    i = self.i
            else:
                raise self.fail(i, f"'(?' must be followed by ':', '=', '!', '<=', '<!' or '<name>', not {c!r}")
        self.i = i
        self.disjunction()
        if self.i == n:
            raise _Eof("", not self.after_zero, None)
        self.i += 1  # `)`
        self.closers.pop()
        self.after_zero = False
        return lookaround

    def group_name(self, define: bool) -> None:
        """`<name>` at `<`: a group's name (`define`) or the name in `\\k<name>`."""
        s, n = self.s, self.n
        start = self.i
        self.i += 1
        cps: list[int] = []
        while True:
            i = self.i
            if i == n:
                return self.unfinished_name(start, cps, "", define)
            c = s[i]
            if c == ">" and cps:
                self.i += 1
                break
            want = names.id_continue_ranges() if cps else names.id_start_ranges()
            if c == "\\":
                if i + 1 < n and s[i + 1] != "u":
                    raise self.fail(i + 1, "only \\u escapes may stand in a group name")
                try:
                    if i + 1 == n:
                        self.unfinished_escape(i, want)
                    self.i = i + 1
                    cp = self.unicode_escape(i, want)
                except _Eof as eof:
                    return self.unfinished_name(start, cps + [eof.value], eof.suffix, define)
                if not R.contains(want, cp):
                    raise self.fail(i, f"U+{cp:04X} cannot {'continue' if cps else 'start'} a group name")
            else:
                cp = ord(c)
                if not R.contains(want, cp):
                    if cps:
                        raise self.fail(i, f"{c!r} cannot continue a group name (expected '>')")
                    raise self.fail(i, f"{c!r} cannot start a group name")
                self.i += 1
            cps.append(cp)
        name = "".join(map(chr, cps))
        if not define:
            self.namerefs.append((start - 2, name))
        elif name in self.names:
            raise self.fail(self.i - 1, f"duplicate group name {name!r}")
        else:
            self.names.add(name)

    def unfinished_name(self, start: int, cps: list[int], suffix: str, define: bool) -> None:
        in_name = bool(cps) and not suffix  # (no escape open: a name character is next)
        name = "".join(map(chr, cps))
        if not name:
            name = suffix = "a"
        while define and name in self.names:
            name, suffix = name + "a", suffix + "a"
        if define:
            self.names.add(name)
        else:
            self.namerefs.append((start - 2, name))
        raise _Eof(suffix + ">", False, f"unfinished group name at offset {start}", in_name=in_name)

    def unfinished_escape(self, start: int, want: tuple[tuple[int, int], ...] | None) -> None:
        done = _complete_escape(self.s[start + 1:], want)
        if done is None:
            raise self.fail(start, "no completion of this escape gives an allowed character here")
        raise _Eof(done[0], False, f"unfinished escape at offset {start}", done[1])

    def atom_escape(self) -> None:
        s, n, start = self.s, self.n, self.i
        i = self.i = start + 1
        if i == n:
            self.unfinished_escape(start, None)
        c = s[i]
        if c in "123456789":
            j = i
            while j < n and s[j] in _DIGITS:
                j += 1
            self.backrefs.append((start, s[i:j]))
            self.i = j
        elif c == "k":
            self.i += 1
            if self.i == n:
                self.namerefs.append((start, "a"))
                raise _Eof("<a>", False, f"unfinished escape at offset {start}")
            if s[self.i] != "<":
                raise self.fail(self.i, "'\\k' must be followed by '<name>'")
            self.group_name(define=False)
        elif c in "dDsSwW":
            self.i += 1
        elif c in "pP":
            self.property_escape()
        else:
            self.char_escape(start, False, None)

    def property_escape(self) -> None:
        s, n, start = self.s, self.n, self.i - 1
        i = self.i + 1
        if i == n:
            raise _Eof("{L}", False, f"unfinished property escape at offset {start}")
        if s[i] != "{":
            raise self.fail(i, f"'\\{s[i - 1]}' must be followed by '{{name}}'")
        table = names.property_escape_names()
        i += 1
        body = i
        while i < n and s[i] in _PROPERTY_CHARS:
            i += 1
            k = bisect_left(table, s[body:i])
            if k == len(table) or not table[k].startswith(s[body:i]):
                raise self.fail(i - 1, f"no Unicode property name begins with {s[body:i]!r}")
        text = s[body:i]
        if i == n:
            k = bisect_left(table, text)
            best = table[k]
            while k < len(table) and table[k].startswith(text):
                if len(table[k]) < len(best):
                    best = table[k]
                k += 1
            raise _Eof(best[len(text):] + "}", False, f"unfinished property escape at offset {start}")
        k = bisect_left(table, text)
        if s[i] != "}" or k == len(table) or table[k] != text:
            raise self.fail(i, f"unknown Unicode property {text!r} in \\{s[start + 1]}{{...}}")
        self.i = i + 1

    def char_escape(self, start: int, in_class: bool, want: tuple[tuple[int, int], ...] | None) -> int:
        """A CharacterEscape (or `\\b`, `\\-` in a class) after `\\` at `start`; its code point."""
        s, n, i = self.s, self.n, self.i
        c = s[i]
        self.i = i + 1
        if c in _CONTROL:
            return _CONTROL[c]
        if c == "c":
            if i + 1 == n:
                self.unfinished_escape(start, want)
            if s[i + 1] not in _LETTERS:
                raise self.fail(i + 1, "'\\c' must be followed by an ASCII letter")
            self.i += 1
            return ord(s[i + 1]) % 32
        if c == "0":
            if i + 1 < n and s[i + 1] in _DIGITS:
                raise self.fail(i + 1, "'\\0' cannot be followed by a digit (no octal escapes with the u flag)")
            self.after_zero = True
            return 0
        if c == "x":
            for j in (i + 1, i + 2):
                if j == n:
                    self.unfinished_escape(start, want)
                if s[j] not in _HEX:
                    raise self.fail(j, "'\\x' must be followed by two hex digits")
            self.i = i + 3
            return int(s[i + 1:i + 3], 16)
        if c == "u":
            self.i = i
            return self.unicode_escape(start, want)
        if in_class and c in "b-":
            return 8 if c == "b" else 0x2D
        if c in _SYNTAX or c == "/":
            return ord(c)
        raise self.fail(i, f"invalid escape '\\{c}' (with the u flag only syntax characters and '/' may be escaped)")

    def unicode_escape(self, start: int, want: tuple[tuple[int, int], ...] | None) -> int:
        """`\\uHHHH` (a surrogate pair of two such escapes is one code point) or `\\u{H...}`, at `u`."""
        s, n = self.s, self.n
        j = self.i + 1
        if j < n and s[j] == "{":
            j += 1
            value = 0
            while j < n and s[j] in _HEX:
                value = value * 16 + int(s[j], 16)
                if value > _MAX:
                    raise self.fail(j, "code point above U+10FFFF in '\\u{...}'")
                j += 1
            if j == n:
                self.unfinished_escape(start, want)
            if s[j] != "}" or j == self.i + 2:
                raise self.fail(j, "'\\u{' must be followed by hex digits and '}'")
            self.i = j + 1
            return value
        for k in range(j, j + 4):
            if k == n:
                self.unfinished_escape(start, want)
            if s[k] not in _HEX:
                raise self.fail(k, "'\\u' must be followed by four hex digits or '{hex}'")
        value = int(s[j:j + 4], 16)
        j += 4
        if 0xD800 <= value <= 0xDBFF:
            rest = s[j:j + 6]
            if len(rest) == 6 and _is_trail_prefix(rest[:5]) and rest[5] in _HEX:
                self.i = j + 6
                return _pair(value, int(rest[2:], 16))
            if j + len(rest) == n and (0 < len(rest) < 6 and _is_trail_prefix(rest)
                                       or not rest and want is not None and not R.contains(want, value)):
                self.unfinished_escape(start, want)
        self.i = j
        return value

    def char_class(self) -> None:
        s, n, start = self.s, self.n, self.i
        self.closers.append(("]", start))
        self.i += 1
        if self.i < n and s[self.i] == "^":
            self.i += 1
        while True:
            if self.i == n:
                raise _Eof("", not self.after_zero, None)
            if s[self.i] == "]":
                break
            a = self.class_atom(None)
            if self.i == n or s[self.i] != "-":
                continue
            self.i += 1
            if self.i == n:
                raise _Eof("", False, None)
            if s[self.i] == "]":
                break
            b_start = self.i
            if a is None:
                raise self.fail(b_start, "a class escape such as \\d cannot start a range")
            b = self.class_atom(((a, _MAX),))
            if b is not None and b < a:  # (class_atom refuses class escapes when given a `want`)
                raise self.fail(b_start, f"class range out of order (U+{a:04X} to U+{b:04X})")
        self.i += 1
        self.closers.pop()
        self.after_zero = False

    def class_atom(self, want: tuple[tuple[int, int], ...] | None) -> int | None:
        """One ClassAtom: its code point, or None for a class escape (refused when `want` is
        given: the atom ends a range and must be a code point in `want`)."""
        s, n, start = self.s, self.n, self.i
        self.after_zero = False
        if s[start] != "\\":
            self.i += 1
            return ord(s[start])
        i = self.i = start + 1
        if i == n:
            self.unfinished_escape(start, want)
        c = s[i]
        if c in "dDsSwWpP":
            if want is not None:
                raise self.fail(i, "a class escape such as \\d cannot end a range")
            if c in "pP":
                self.property_escape()
            else:
                self.i += 1
            return None
        if c in _DIGITS and c != "0":
            raise self.fail(i, "a back reference cannot stand in a character class")
        if c in "Bk":
            raise self.fail(i, f"'\\{c}' cannot stand in a character class")
        return self.char_escape(start, True, want)


def _parse(text: str) -> tuple[_Parser, _Error | None, _Eof | None]:
    parser = _Parser(text)
    try:
        parser.run()
    except _Error as err:
        return parser, err, None
    except _Eof as eof:
        return parser, None, eof
    return parser, None, None


def _deferred_errors(parser: _Parser) -> list[tuple[int, str]]:
    """The errors only the whole pattern decides: back references to missing groups."""
    found = [(off, f"back reference \\{digits} but the pattern has {parser.groups} capturing group(s)")
             for off, digits in parser.backrefs if _dec_cmp(digits, str(parser.groups)) > 0]
    found += [(off, f"\\k<{name}> names no group of the pattern")
              for off, name in parser.namerefs if name not in parser.names]
    return sorted(found)


def pattern_error(text: str) -> str | None:
    """None when `text` is a valid Pattern (u flag); else a message 'at offset N: <what is wrong>'."""
    parser, err, eof = _parse(text)
    if err is not None:
        return f"at offset {err.offset}: {err.message}"
    if eof is not None:
        what = eof.what
        if what is None:
            closer, opened = parser.closers[-1]
            what = f"unterminated {'group' if closer == ')' else 'character class'} opened at offset {opened}"
        return f"at offset {len(text)}: {what}"
    found = _deferred_errors(parser)
    return f"at offset {found[0][0]}: {found[0][1]}" if found else None


def prefix_status(text: str) -> PrefixStatus | None:
    """None when no string s makes text + s a valid pattern; else the status."""
    parser, err, eof = _parse(text)
    if err is not None:
        return None
    if eof is not None:
        return PrefixStatus(False, eof.plain_ok, eof.in_name)
    return PrefixStatus(not _deferred_errors(parser), not parser.after_zero)


def name_continues(ch: str) -> bool:
    """Can `ch` continue a group name (ID_Continue, `$`, ZWNJ, ZWJ; ES2020)? Appended to a text
    whose status has `in_name`, it leaves that status."""
    return R.contains(names.id_continue_ranges(), ord(ch))


def completion(text: str) -> str | None:
    """A suffix s (short) with text + s a valid pattern, or None when there is none (same condition
    as prefix_status is None). Raises ValueError when a back reference such as `\\99999999` would
    need more than MAX_COMPLETION_GROUPS groups."""
    parser, err, eof = _parse(text)
    if err is not None:
        return None
    suffix = eof.suffix if eof is not None else ""
    suffix += "".join(closer for closer, _ in reversed(parser.closers))
    missing = list(dict.fromkeys(name for _, name in parser.namerefs if name not in parser.names))
    suffix += "".join(f"(?<{name}>)" for name in missing)
    have = parser.groups + len(missing)
    need = max((digits.lstrip("0") for _, digits in parser.backrefs), key=lambda d: (len(d), d), default="0")
    if _dec_cmp(need, str(have)) > 0:
        if _dec_cmp(need, str(have + MAX_COMPLETION_GROUPS)) > 0:
            raise ValueError(f"completing {text[:40]!r} needs {need} capturing groups (back reference)")
        suffix += "()" * (int(need) - have)
    return suffix
