"""ECMA 262 `pattern` regexes translated to regexes over serialized JSON string content.

A schema's `pattern` is searched (unanchored) in the decoded string, with ASCII `\\d \\w`, and
`.` excluding line terminators; Unicode property escapes (`\\p{L}`) and lookaheads are read as
ECMA-262's `u` mode does (module `tokenguide.regex.properties`), one-character lookbehinds are
written into the items before them (`_behind`), longer ones only before the final `$`. The
translation reads the pattern with re's own parser (through the one shim,
`tokenguide.regex.sre`) and writes a regex over the canonical json.dumps serialization of the
string, so escapes count as one character.
"""

from __future__ import annotations

import json
import re
import threading

from ..regex import ranges as R
from ..regex.properties import UnknownPropertyError, property_ranges
from ..regex.sre import constants as C
from ..regex.sre import parse as sre_parse
from ..regex.sre import any_item, inner_sequences, subpattern, with_inner_sequences
from .text import STRING_CHAR, alt, group, json_chars, opt, rep
from .word_boundaries import drop_decided_boundaries

__all__ = ["PatternError", "class_run", "pattern_to_string_body", "pattern_within", "pattern_complement", "ecma_search", "pattern_width"]


class PatternError(Exception):
    """A `pattern` that cannot be translated; the message says why."""


_ECMA_DIGIT = R.normalize([(0x30, 0x39)])
_ECMA_WORD = R.normalize([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
_ECMA_SPACE = R.normalize([(0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
                           (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
                           (0xFEFF, 0xFEFF)])
_ECMA_DOT = R.complement(R.normalize([(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]))
_CATEGORIES = {
    C.CATEGORY_DIGIT: _ECMA_DIGIT,
    C.CATEGORY_NOT_DIGIT: R.complement(_ECMA_DIGIT),
    C.CATEGORY_WORD: _ECMA_WORD,
    C.CATEGORY_NOT_WORD: R.complement(_ECMA_WORD),
    C.CATEGORY_SPACE: _ECMA_SPACE,
    C.CATEGORY_NOT_SPACE: R.complement(_ECMA_SPACE),
}


#: placeholder code point -> the code points of a property escape (`\p{L}`, `\P{Nd}`) it stands
#: for while re's parser, which has no property escapes, reads the pattern; never in any output
_PROPERTY_MARKS: dict[int, R.Ranges] = {}
_MARK_OF: dict[tuple[bool, str], int] = {}
_MARKS_LOCK = threading.Lock()
_MARK_BASE = 0x10FD00  # (plane 16, private use: a pattern holding such characters is refused)
_PAIR = re.compile(r"\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.IGNORECASE)  # a surrogate pair escape


def _u_mode_escapes(pattern: str) -> str:
    """`pattern` with the escapes re reads otherwise than ECMA-262's `u` mode rewritten: each
    Unicode property escape as a placeholder character that `item_ranges` reads back, each
    surrogate pair escape as the one code point it spells. Raises PatternError."""
    if "\\p{" not in pattern and "\\P{" not in pattern and not _PAIR.search(pattern):
        return pattern
    if any(ord(ch) >= _MARK_BASE for ch in pattern):
        raise PatternError(f"pattern {pattern!r} holds property escapes and plane-16 private-use characters")
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        if pattern[i + 1:i + 3] in ("p{", "P{"):
            end = pattern.find("}", i + 3)
            if end < 0:
                raise PatternError(f"pattern {pattern!r} has an unterminated property escape at {i}")
            name = pattern[i + 3:end]
            negated = pattern[i + 1] == "P"
            try:
                found = property_ranges(name)
            except UnknownPropertyError as exc:
                raise PatternError(f"pattern {pattern!r}: {exc}") from None
            with _MARKS_LOCK:  # (one mark per escape, whichever thread meets it first)
                mark = _MARK_OF.get((negated, name))
                if mark is None:
                    mark = _MARK_OF[(negated, name)] = _MARK_BASE + len(_MARK_OF)
                    _PROPERTY_MARKS[mark] = R.complement(found) if negated else found
            out.append(chr(mark))
            i = end + 1
            continue
        pair = _PAIR.match(pattern, i)
        if pair is not None:  # `\\uD83D\\uDE00`: one code point in ECMA-262's `u` mode (re: two surrogates)
            hi, lo = int(pair.group(1), 16), int(pair.group(2), 16)
            out.append(f"\\U{0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00):08x}")
            i = pair.end()
            continue
        out.append(pattern[i:i + 2])  # any other escape, as re reads it
        i += 2
    return "".join(out)


def _parse(pattern: str):
    text = _u_mode_escapes(pattern)
    if text.startswith("^(?s)"):
        text = "(?s)^" + text[5:]  # (re takes a global flag at the very start only: `^(?s).+$`)
    try:
        parsed = sre_parse(text, 0)
    except re.error as exc:
        raise PatternError(f"pattern {pattern!r} is not a regular expression tokenguide can read ({exc})")
    except (RecursionError, OverflowError) as exc:
        raise PatternError(f"pattern {pattern!r} is too complex ({exc})")
    flags = parsed.state.flags
    if flags & (C.SRE_FLAG_IGNORECASE | C.SRE_FLAG_MULTILINE | C.SRE_FLAG_VERBOSE):
        raise PatternError(f"pattern {pattern!r} uses inline flags")
    # `(?s)` and `(?s:...)` (re's syntax and ECMA-262's modifiers; schemas in the wild write
    # `(?s).*`): `.` as re reads it then, every character
    _dot_all(parsed.data, bool(flags & C.SRE_FLAG_DOTALL))
    parsed.data[:] = drop_decided_boundaries(parsed.data, item_ranges)  # (`\b` its neighbours decide)
    return parsed


def _is_caret(op, av) -> bool:
    return op == C.AT and av in (C.AT_BEGINNING, C.AT_BEGINNING_STRING)


def _dot_all(items: list, on: bool) -> None:
    """Replace every `.` under a `(?s)` (`on`) or inside a `(?s:...)` group, at any depth, by
    the class of all characters, and drop the group's flag once read."""
    for i, (op, av) in enumerate(items):
        if op == C.ANY and on:
            items[i] = (C.IN, [(C.RANGE, (0, 0x10FFFF))])
            continue
        inner = on
        if op == C.SUBPATTERN and av[1] & C.SRE_FLAG_DOTALL and not av[2]:
            inner = True
            items[i] = (op, (av[0], av[1] & ~C.SRE_FLAG_DOTALL, av[2], av[3]))
        for sub in inner_sequences(op, av):
            _dot_all(sub.data, inner)


def _body(items: list) -> str | None:
    """Translate a parsed (anchor-free) sequence into a regex over serialized string content."""
    out: list[str] = []
    for i, (op, av) in enumerate(items):
        if op in (C.ASSERT, C.ASSERT_NOT) and av[0] < 0:
            before, after = _behind(items, i), _body(items[i + 1:])
            return None if before is None or after is None else before + after  # (before: items[:i] too)
        piece = _item(op, av)
        if piece is None:
            return None
        out.append(piece)
    return "".join(out)


def _behind(items: list, i: int) -> str | None:
    """`items[:i]` under the lookbehind at `items[i]`, which reads one character: the last
    character they match must (`(?<=c)`) or must not (`(?<!c)`) be in its class. AWS writes
    "no hyphen at the end of a label" as `[a-z0-9-]{1,63}(?<!-)\\.`. Raises PatternError for
    longer lookbehinds and for one that may look past the sequence it stands in."""
    op, (_, sub) = items[i]
    look = list(sub.data)
    ranges = item_ranges(*look[0]) if len(look) == 1 else None
    if ranges is None:
        raise PatternError("a lookbehind ((?<=...) or (?<!...)) of more than one character is not supported "
                           "before the end of the pattern")
    return _last_in(items[:i], ranges if op == C.ASSERT else R.complement(ranges))


def _last_in(items: list, allowed: R.Ranges) -> str | None:
    """Regex of the matches of sequence `items` whose last character is in `allowed` (None:
    there are none). Raises PatternError when the sequence may match nothing: the character
    before it is outside the sequence."""
    if not items:
        raise PatternError("a lookbehind ((?<=...) or (?<!...)) that may look before its group is not supported")
    head, (op, av) = items[:-1], items[-1]
    if op in (C.ASSERT, C.ASSERT_NOT, C.AT):  # zero width: the character is further back
        before, piece = _last_in(head, allowed), _item(op, av) if op != C.AT else _body([(op, av)])
        return None if before is None or piece is None else before + piece
    ranges = item_ranges(op, av)
    if ranges is not None:
        inside, start = R.intersection(ranges, allowed), _body(head)
        return None if not inside or start is None else start + json_chars(inside)
    if op == C.SUBPATTERN and not av[1] and not av[2]:
        return _last_in(head + list(av[-1].data), allowed)
    if op == C.BRANCH:
        return alt([_last_in(head + list(b.data), allowed) for b in av[1]])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT) and pattern_width(list(av[2].data))[0] > 0:
        lo, hi, sub = av
        if hi == 0:
            return _last_in(head, allowed)
        fewer = (op, (max(lo - 1, 0), hi if hi == C.MAXREPEAT else hi - 1, sub))
        last = [_last_in(head + [fewer] + list(sub.data), allowed)]  # the last repetition ends it
        return alt(last + [_last_in(head, allowed)] if lo == 0 else last)
    raise PatternError("a lookbehind ((?<=...) or (?<!...)) after this kind of item is not supported")


def _category(code) -> R.Ranges:
    if code not in _CATEGORIES:
        raise PatternError(f"unsupported category {code}")
    return _CATEGORIES[code]


def item_ranges(op, av) -> R.Ranges | None:
    """The code points a single-character item matches, or None if it is not one."""
    if op == C.LITERAL:
        return _PROPERTY_MARKS[av] if av in _PROPERTY_MARKS else R.normalize([(av, av)])
    if op == C.NOT_LITERAL:
        return R.complement(_PROPERTY_MARKS[av] if av in _PROPERTY_MARKS else R.normalize([(av, av)]))
    if op == C.ANY:
        return _ECMA_DOT
    if op == C.CATEGORY:
        return _category(av)
    if op == C.IN:
        negate = False
        rs: list = []
        for iop, iav in av:
            if iop == C.NEGATE:
                negate = True
            elif iop == C.LITERAL:
                rs.extend(_PROPERTY_MARKS[iav] if iav in _PROPERTY_MARKS else [(iav, iav)])
            elif iop == C.RANGE:
                if any(end in _PROPERTY_MARKS for end in iav):
                    raise PatternError("a property escape (\\p{...}) as the end of a range")
                rs.append(iav)
            elif iop == C.CATEGORY:
                rs.extend(_category(iav))
            else:
                raise PatternError(f"unsupported class item {iop}")
        norm = R.normalize(rs)
        return R.complement(norm) if negate else norm
    return None


def _item(op, av) -> str | None:
    rs = item_ranges(op, av)
    if rs is not None:
        return json_chars(rs)
    if op == C.SUBPATTERN:
        sub = av[-1]
        if av[1] or av[2]:
            raise PatternError("scoped inline flags other than (?s:...)")
        body = _body(list(sub.data))
        return None if body is None else group(body) if body else ""
    if op == C.BRANCH:
        return alt([_body(list(b.data)) for b in av[1]])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT):
        lo, hi, sub = av
        body = _body(list(sub.data))
        hi = None if hi == C.MAXREPEAT else hi
        if body is None:
            return "" if lo == 0 else None
        if body == "":
            return ""
        return rep(body, lo, hi)
    if op in (C.ASSERT, C.ASSERT_NOT):
        return _lookahead(op, av)
    if op == C.AT and av in (C.AT_END, C.AT_END_STRING):
        return '(?=")'  # the end of the string, inside a group (`^app-([0-9A-Za-z]{10}$)`): the closing quote next
    if op == C.AT:
        raise PatternError("an anchor (^, or a \\b/\\B the characters around it do not decide) inside the pattern")
    raise PatternError(f"{str(op).lower()} (lookaround, backreference or similar) is not regular")


def _lookahead(op, av) -> str | None:
    """An ECMA lookahead as one over the serialized content: its body reads the characters after
    it, and a `$` that ends it is the closing quote (a raw `"` is never content). Lookbehinds
    reaching here are refused: those `_body` can write, it writes before (`_behind`)."""
    direction, sub = av
    if direction < 0:
        raise PatternError("a lookbehind ((?<=...) or (?<!...)) is not supported")
    items = list(sub.data)
    end = bool(items) and items[-1][0] == C.AT and items[-1][1] in (C.AT_END, C.AT_END_STRING)
    body = _body(items[:-1] if end else items)
    if body is None:  # nothing can follow as the lookahead says
        return None if op == C.ASSERT else ""
    return ("(?=" if op == C.ASSERT else "(?!") + body + ('"' if end else "") + ")"


def _looks_ahead(items: list) -> bool:
    """Does a parsed sequence hold a lookahead at any depth? (an empty match then needs it to hold)"""
    return any_item(items, lambda op, av: op in (C.ASSERT, C.ASSERT_NOT))


def _split_anchors(items: list):
    """(anchored_start, body_items, anchored_end) for a top-level sequence."""
    start = end = False
    if items and items[0][0] == C.AT and items[0][1] in (C.AT_BEGINNING, C.AT_BEGINNING_STRING):
        start = True
        items = items[1:]
    if items and items[-1][0] == C.AT and items[-1][1] in (C.AT_END, C.AT_END_STRING):
        end = True
        items = items[:-1]
    return start, items, end


def _top_branches(items: list) -> list[list]:
    """Top-level alternatives of a pattern, looking through a single wrapping group."""
    while len(items) == 1 and items[0][0] == C.SUBPATTERN and not items[0][1][1] and not items[0][1][2]:
        items = list(items[0][1][-1].data)
    if len(items) == 1 and items[0][0] == C.BRANCH:
        out = []
        for b in items[0][1][1]:
            out.extend(_top_branches(list(b.data)))
        return out
    if len(items) > 1 and items[-1][0] == C.BRANCH and any(
            op == C.AT for b in items[-1][1][1] for op, _ in b.data[-1:]):
        # re's parser hoists a common prefix out of the alternatives ("^a$|^b$" is "^(?:a$|b$)"):
        # put it back so every alternative's anchors are at its ends again
        out = []
        for b in items[-1][1][1]:
            out.extend(_top_branches(items[:-1] + list(b.data)))
        return out
    return [items]


def pattern_to_string_body(pattern: str, min_len: int = 0, max_len: int | None = None,
                           within: int | None = None) -> str | None:
    """Regex for the content between the quotes of strings that `pattern` (ECMA 262, unanchored
    search) accepts, with a length range; None if no string qualifies. With `within`: the same
    strings of at most that many characters, counted repeats the length keeps already written
    unbounded (`_loosen`). Raises PatternError."""
    parsed = _parse(pattern)
    anychar = STRING_CHAR + "*"
    results: list[str | None] = []
    cases = []  # (start anchored, items, end anchored, a character before the match)
    for branch in _top_branches(list(parsed.data)):
        start, body, end = _split_anchors(branch)
        start = start or _forces_start(body)
        caret = any_item(body, _is_caret)
        if not start and caret:
            # a `^` inside a search holds only where the match starts the string: a match there,
            # or one after some character where every `^` fails (`(?!^[0-9]+$)[a-z0-9-]+`, AWS)
            cases += [(True, _caret_free(_without_leading_carets(body), 0), end, False),
                      (False, _caret_free(body), end, True)]
        else:
            if start:
                body = _without_leading_carets(body)
            cases.append((start, _caret_free(body, 0) if start and caret else body, end, False))
    for start, body, end, after in cases:
        ending = ""
        if end and body and body[-1][0] in (C.ASSERT, C.ASSERT_NOT) and body[-1][1][0] < 0:
            ending = _ending(body[-1])
            body = body[:-1]
            if ending is None:
                results.append(None)
                continue
        body = _search_edges(body, start, end)
        if within is not None:
            body = _loosen(body, within)
        if min_len > 0 or max_len is not None:
            body = _fit_length(body, start, end, min_len, max_len, pattern)
        shape = _excluded_prefixes(body) if start and end else None
        text = _body(body) if shape is None else _unprefixed(*shape)
        if text is None:
            results.append(None)
            continue
        results.append(ending + ("" if start else STRING_CHAR * after + anychar) + text + ("" if end else anychar))
    return alt(results)


def _caret_free(items: list, before: float = float("inf")) -> list:
    """A parsed sequence with each `^` that holds nowhere left as what matches nothing: one read
    after at least a character of the string, which `before` (the least read before the sequence
    starts; by default some are) and the items ahead of it in its sequences prove. Others stay."""
    out = []
    for op, av in items:
        if _is_caret(op, av) and before > 0:
            op, av = C.IN, []
        else:
            av = with_inner_sequences(op, av, [_caret_free(list(sub.data), before) for sub in inner_sequences(op, av)])
        out.append((op, av))
        before += pattern_width([(op, av)])[0]
    return out


def _excluded_prefixes(items: list) -> tuple[list[str], R.Ranges, int, int | None] | None:
    """For an anchored sequence of negative lookaheads of literal text (a trailing part that may
    match nothing aside: `(?!aws:.*)` is `(?!aws:)`) before one repeated character class
    (`^(?!aws:)(?!memorydb:)[a-zA-Z0-9 _.:/=+@-]{1,256}$`, AWS tags): (the literals, the class,
    the repeat's bounds); None for any other sequence."""
    *looks, last = items or [None]
    if last is None or last[0] not in (C.MAX_REPEAT, C.MIN_REPEAT) or not looks:
        return None
    lo, hi, sub = last[1]
    run = list(sub.data)
    ranges = item_ranges(*run[0]) if len(run) == 1 else None
    literals = []
    for op, av in looks:
        if op != C.ASSERT_NOT or av[0] < 0:
            return None
        body = list(av[1].data)
        while body and pattern_width(body[-1:])[0] == 0 and not _has_anchor(body[-1:]):
            body.pop()
        if not body or any(o != C.LITERAL or a in _PROPERTY_MARKS for o, a in body):
            return None
        literals.append("".join(chr(a) for _, a in body))
    return (literals, ranges, lo, None if hi == C.MAXREPEAT else hi) if ranges else None


def _unprefixed(literals: list[str], ranges: R.Ranges, lo: int, hi: int | None) -> str | None:
    """Content regex of the strings of lo..hi characters of class `ranges` that start with none
    of `literals`, without a lookahead: by the literals' trie, each string leaves it at its first
    character off every literal (then any characters of the class) or ends inside it. A key
    written as a grammar terminal holds no lookahead, and the lookahead's automaton times a
    long count passed the engine path's limits (AWS MGN's tag keys, `{1,128}`)."""
    trie: dict = {}
    for text in literals:
        node = trie
        for ch in text:
            node = node.setdefault(ch, {})
        node[""] = {}  # a literal ends here
    one = json_chars(ranges)

    def rest(node: dict, depth: int) -> str | None:
        if "" in node:
            return None
        out: list[str | None] = [""] if depth >= lo and (hi is None or depth <= hi) else []
        if hi is None or depth < hi:
            kids = [ch for ch in node if R.contains(ranges, ord(ch))]
            off = R.difference(ranges, R.normalize([(ord(ch), ord(ch)) for ch in kids]))
            if off:
                out.append(json_chars(off) + rep(one, max(lo - depth - 1, 0), None if hi is None else hi - depth - 1))
            for ch in kids:
                after = rest(node[ch], depth + 1)
                out.append(None if after is None else json_chars(R.normalize([(ord(ch), ord(ch))])) + after)
        return alt(out)

    return rest(trie, 0)


def _search_edges(items: list, start: bool, end: bool) -> list:
    """A searched sequence whose edge item is a counted repeat, repeated as few times as it must:
    free text comes before a match without `^`, so `.*X{lo,hi}R` and `.*X{lo}R` are one language
    (any further X belongs to that text), and likewise after a match without `$`. The repeat's
    automaton is the costly part of such patterns (`arn:[a-z0-9-.]{1,63}:...:[^/].{0,1023}`,
    AWS). Groups without flags at the edges are opened to find the repeat."""
    items = list(items)
    for at_front, anchored in ((True, start), (False, end)):
        while items and not anchored:
            i = 0 if at_front else -1
            op, av = items[i]
            if op == C.SUBPATTERN and not av[1] and not av[2]:
                inner = list(av[-1].data)
                items = inner + items[1:] if at_front else items[:-1] + inner
                continue
            if op not in (C.MAX_REPEAT, C.MIN_REPEAT) or av[0] == av[1]:
                break
            lo, _hi, sub = av
            if lo:
                items[i] = (op, (lo, lo, sub))
                break
            del items[i]
    return items


def _forces_start(items: list) -> bool:
    """Does every match of a sequence start at the string's start, because of a `^` it meets
    before reading any character (in a group on every path, or in a positive lookahead)?
    (`(?=^.{3,63}$)(?!^\\d+$)(^...$)`, `(^alias/\\S+$)`: AWS writes such searches.)"""
    for op, av in items:
        if op == C.AT and av in (C.AT_BEGINNING, C.AT_BEGINNING_STRING):
            return True
        if op == C.ASSERT and av[0] > 0:
            if _forces_start(list(av[1].data)):
                return True
        elif op == C.ASSERT_NOT:
            continue  # zero width; a `^` there forces nothing
        elif op == C.SUBPATTERN and not av[1] and not av[2]:
            return _forces_start(list(av[-1].data))
        elif op == C.BRANCH:
            return all(_forces_start(list(b.data)) for b in av[1])
        else:
            return False
    return False


def _without_leading_carets(items: list) -> list:
    """A start-anchored sequence without the `^`s that only zero-width items come before (in
    groups, alternatives and lookaheads at its start: `^(^arn:...)$`, `^(?=^[a-z]+$).{3,64}$`):
    they hold at the one position the match starts at. Other `^`s stay (and are refused)."""
    out: list = []
    consumed = False
    for op, av in items:
        if not consumed:
            if op == C.AT and av in (C.AT_BEGINNING, C.AT_BEGINNING_STRING):
                continue
            if op in (C.SUBPATTERN, C.BRANCH) or (op in (C.ASSERT, C.ASSERT_NOT) and av[0] > 0):
                # (rebuilt, not changed in place: `_top_branches` shares groups between branches)
                av = with_inner_sequences(op, av, [_without_leading_carets(list(sub.data))
                                                   for sub in inner_sequences(op, av)])
            consumed = pattern_width([(op, av)])[1] != 0
        out.append((op, av))
    return out


def _ending(item) -> str | None:
    """A lookbehind right before the final `$` (`^[0-9a-z.-]*(?<!\\.)$`: "not ending with a dot")
    as a lookahead at the start of the content: the content ends (or does not) with its body.
    None when it must and its body matches nothing."""
    op, (_, sub) = item
    body = _body(list(sub.data))
    if body is None:
        return None if op == C.ASSERT else ""
    return ("(?=" if op == C.ASSERT else "(?!") + STRING_CHAR + "*" + body + '")'


def class_run(pattern: str) -> tuple[str, tuple[int, int], str, int, int | None] | None:
    """For a start- and end-anchored pattern that ends in one repeated character class
    (`^[a-z]+$`, `^arn:[a-z]{1,63}:[^/].{0,1023}$`): the regex of the content before the run
    (`""` when the run is the whole string) and that part's (min, max) length, the regex of
    one serialized character of the class, and the repeat's bounds (None: unbounded). None for
    any other pattern, or a part before the run with lookarounds or anchors. Raises PatternError."""
    branches = _top_branches(list(_parse(pattern).data))
    if len(branches) != 1:
        return None
    start, body, end = _split_anchors(branches[0])
    while len(body) == 1 and body[0][0] == C.SUBPATTERN and not body[0][1][1] and not body[0][1][2]:
        body = list(body[0][1][-1].data)
    if not (start and end and body and body[-1][0] in (C.MAX_REPEAT, C.MIN_REPEAT)):
        return None
    head = body[:-1]
    if _has_anchor(head):
        return None
    lo, hi, sub = body[-1][1]
    items = list(sub.data)
    while len(items) == 1 and items[0][0] == C.SUBPATTERN and not items[0][1][1] and not items[0][1][2]:
        items = list(items[0][1][-1].data)  # `(\\S)*`: the group of one class is the class
    ranges = _one_class(items)
    before = _body(head)
    if not ranges or before is None:
        return None
    return before, pattern_width(head), json_chars(ranges), lo, None if hi == C.MAXREPEAT else hi


def pattern_within(pattern: str, max_len: int | None) -> str | None:
    """`pattern_to_string_body(pattern)` for strings of at most `max_len` characters: counted
    repeats whose upper bound `max_len` keeps already are left unbounded (`_loosen`;
    `^arn:[^:]{1,63}:…:[^/].{0,1023}$` under maxLength 1,024, `^https://([.a-z]+/?){3,1016}$`
    under 256): the same strings within the length, and an automaton without the long count.
    Raises PatternError."""
    return pattern_to_string_body(pattern, within=max_len)


def _loosen(items: list, room: int, ahead: int | None = None) -> list:
    """A parsed sequence that takes at most `room` characters, with every counted repeat whose
    bound that keeps (each time round reads at least w characters, the items around it at
    least the rest: room // w times at most) left unbounded. `ahead`: the most characters from
    where the sequence starts to the string's end (`room` by default), which bounds what a
    lookahead reads (`(?=.{1,255}$)` under maxLength 255); lookbehinds stay as written."""
    ahead = room if ahead is None else ahead
    least = pattern_width(items)[0]
    out = []
    for op, av in items:
        width = pattern_width([(op, av)])[0]
        mine = room - (least - width)  # (what the other items leave it)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            lo, hi, sub = av
            w = pattern_width(list(sub.data))[0]
            if hi != C.MAXREPEAT and w > 0 and mine // w <= hi:
                av = (lo, C.MAXREPEAT, sub)
            mine -= (max(lo, 1) - 1) * w  # (one time round: the others read their least)
        if op in (C.ASSERT, C.ASSERT_NOT):
            if av[0] > 0:  # (a lookahead reads what is left of the string where it stands)
                av = with_inner_sequences(op, av, [_loosen(list(av[1].data), ahead)])
        else:
            av = with_inner_sequences(op, av, [_loosen(list(sub.data), mine, ahead) for sub in inner_sequences(op, av)])
        out.append((op, av))
        ahead -= width
    return out


def _one_class(items: list) -> R.Ranges | None:
    """The code points of a sequence that is one character class, or alternatives of classes
    (`[^*?\\[\\]]|\\*`, AWS globs); None otherwise (or for no character at all)."""
    if len(items) != 1:
        return None
    op, av = items[0]
    if op == C.BRANCH:
        parts = [_one_class(list(b.data)) for b in av[1]]
        return None if any(p is None for p in parts) else R.union(*parts)  # type: ignore[arg-type]
    return item_ranges(op, av) or None


def _has_anchor(items: list) -> bool:
    """Does a parsed sequence hold an anchor or a lookaround at any depth?"""
    return any_item(items, lambda op, av: op in (C.AT, C.ASSERT, C.ASSERT_NOT))


def pattern_complement(pattern: str) -> str | None | bool:
    """Serialized content of the strings `pattern` does NOT find a match in: None when it matches
    every string, False when the complement is not one of the simple shapes handled here
    (one character class, repeated at least once, anchored or not). Raises PatternError."""
    parsed = _parse(pattern)
    branches = _top_branches(list(parsed.data))
    for branch in branches:
        start, body, end = _split_anchors(branch)
        if not (start and end) and pattern_width(body)[0] == 0 and all(op != C.AT for op, _ in body) \
                and not _looks_ahead(body):
            return None  # an empty match is found in every string
    if len(branches) != 1:
        return False
    start, body, end = _split_anchors(branches[0])
    if len(body) != 1:
        return False
    op, av = body[0]
    if op in (C.MAX_REPEAT, C.MIN_REPEAT):
        lo, hi, sub = av
        hi = None if hi == C.MAXREPEAT else hi
        if len(sub.data) != 1:
            return False
        op, av = sub.data[0]
    else:
        lo, hi = 1, 1
    chars = item_ranges(op, av)
    if chars is None:
        return False
    inside = json_chars(chars)
    outside = json_chars(R.complement(chars))
    anyc = STRING_CHAR + "*"
    if not start and not end:
        if lo != 1:
            return False
        return "" if outside is None else rep(outside, 0, None)  # no character of the class
    if start and end:
        alts: list[str | None] = [None if outside is None else anyc + group(outside) + anyc]
        if inside is not None:
            if lo > 0:
                alts.append(rep(inside, 0, lo - 1) if lo > 1 else "")
            if hi is not None:
                alts.append(rep(inside, hi + 1, None))
        elif lo > 0:
            alts.append("")
        return alt(alts) or False
    if lo != 1:
        return False
    if outside is None:
        return ""
    return opt(group(outside) + anyc) if start else opt(anyc + group(outside))


def pattern_width(items: list) -> tuple[int, int]:
    """(min, max) length in characters of a parsed sequence, as re computes it; (0, unbounded)
    for one holding a backreference away from its group (which is refused where it is written)."""
    try:
        lo, hi = subpattern(items).getwidth()
    except IndexError:  # (re looks the group's width up in its parser state: not this one)
        return 0, C.MAXREPEAT
    return lo, hi


def _fit_length(body: list, start: bool, end: bool, min_len: int, max_len: int | None, pattern: str) -> list:
    """Return `body` changed so its strings have a length in [min_len, max_len], or raise."""
    while len(body) == 1 and body[0][0] == C.SUBPATTERN and not body[0][1][1] and not body[0][1][2]:
        body = list(body[0][1][-1].data)  # `^(X*)$` is `^X*$` (AWS tags: `^([\p{L}\p{Z}...]*)$`)
    if start and end:
        lo, hi = pattern_width(body)
        if lo >= min_len and (max_len is None or hi <= max_len):
            return body
        # one repeat of a single-character item, everything else fixed width
        var = [i for i, it in enumerate(body) if pattern_width([it])[0] != pattern_width([it])[1]]
        if len(var) == 1:
            i = var[0]
            op, av = body[i]
            if op in (C.MAX_REPEAT, C.MIN_REPEAT) and pattern_width(list(av[2].data)) == (1, 1):
                fixed = sum(pattern_width([it])[0] for j, it in enumerate(body) if j != i)
                rlo, rhi = av[0], (None if av[1] == C.MAXREPEAT else av[1])
                nlo = max(rlo, min_len - fixed)
                cands = [x for x in (rhi, None if max_len is None else max_len - fixed) if x is not None]
                nhi = min(cands) if cands else None
                new = list(body)
                if nhi is not None and nhi < nlo:
                    new[i] = (C.IN, [])  # empty language
                    return new
                new[i] = (op, (nlo, C.MAXREPEAT if nhi is None else nhi, av[2]))
                return new
    raise PatternError(
        f"pattern {pattern!r} combined with minLength/maxLength is not expressible "
        "(only anchored patterns with one variable-length single-character repeat are)")


_SEARCH_CACHE: dict[str, re.Pattern] = {}


def ecma_search(pattern: str, text: str) -> bool:
    """Does the ECMA `pattern` find a match in `text`? (through the translated serialized form)"""
    rx = _SEARCH_CACHE.get(pattern)
    if rx is None:
        body = pattern_to_string_body(pattern)
        rx = re.compile("(?!)" if body is None else body + '"')  # (a lookahead's `$` reads the closing quote)
        if len(_SEARCH_CACHE) >= 1024:  # bounded for long-running processes (schemas keep coming)
            _SEARCH_CACHE.clear()
        _SEARCH_CACHE[pattern] = rx
    return rx.fullmatch(json.dumps(text, ensure_ascii=False)[1:]) is not None
