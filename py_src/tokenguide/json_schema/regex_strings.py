"""`format: "regex"` checked on the values: strings that must be valid ECMA-262 regexes.

Which strings are regexes is no regular language (groups nest) and not even context-free
(`{3,2}`, a `\\k<name>` whose group comes later), so `compile_json_schema` writes such a string
without the keyword and leaves it to the values check beside the regex or grammar
(value_checks.ValueChecks finds where in a document such strings stand): the guide refuses
a token that leaves the string no valid completion (regex.ecma_syntax.prefix_status) or closes
it invalid, and `CompiledSchema.accepts` checks whole documents.

That is exact only when what else the schema says of those strings cannot strand a regex begun:
nothing else, or a `pattern` that frames any text between two literal ends (`^/.+/$`, GitLab's
coverage regexes). Any completion of a regex begun needs no line terminator, and a valid regex
followed by literal characters other than digits is still valid; so inside such a frame a
completion always exists. Other string keywords beside the format are refused by name.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..regex.ecma_syntax import PLAIN_EXCLUDED, name_continues, prefix_status

__all__ = ["is_regex_format", "regex_owners", "regex_strings_refusal", "framing_pattern", "partial_content",
           "viable_content", "plain_tail", "piece_viable", "SPECIAL_BYTES"]

#: bytes of the string's JSON text after which appending plain text may not stay viable (the
#: regex's syntax characters, the escape and the closing quote)
SPECIAL_BYTES = frozenset(c.encode()[0] for c in PLAIN_EXCLUDED) | frozenset(b'"\\')

_STRING_KEYWORDS = ("minLength", "maxLength", "pattern", "enum", "const", "format", "contentEncoding",
                    "contentMediaType", "contentSchema")
# a literal end of a framing pattern: characters that are regex atoms in the instance and no digit
_LITERAL = r"(?:[^\\^$.*+?()\[\]{}|0-9\-\n\r\u2028\u2029]|\\[/.\-])*"
_FRAME = re.compile(rf"\^({_LITERAL})\.(?:\*|\+|\{{[0-9]+,\}})({_LITERAL})\$")


def is_regex_format(obj: Any) -> bool:
    """Does schema object `obj` say `format: "regex"`?"""
    return isinstance(obj, dict) and obj.get("format") == "regex"


def framing_pattern(pattern: Any) -> bool:
    """Is `pattern` `^P.+S$` (or `.*`, `.{n,}`) with literal ends P and S of characters that are
    regex atoms and no digits? Then it cannot strand a regex begun (module docstring)."""
    return isinstance(pattern, str) and _FRAME.fullmatch(pattern) is not None


def regex_owners(alternatives: list[list[tuple[str, Any]]]) -> tuple[list[str], str | None]:
    """The schema objects (pointers) with format "regex" among a place's string `alternatives`
    (each the (pointer, object) pairs that apply together), and why their check could not be
    exact there (None: it can)."""
    owners = sorted({p for objs in alternatives for p, o in objs if is_regex_format(o)})
    if not owners:
        return owners, None
    return owners, regex_strings_refusal([[o for _, o in objs] for objs in alternatives])


def regex_strings_refusal(alternatives: list[list[Any]]) -> str | None:
    """Why strings at a place whose alternatives (each the schema objects that apply together and
    accept strings) are `alternatives` cannot be checked exactly as regexes; None: they can."""
    for objs in alternatives:
        if not any(is_regex_format(o) for o in objs):
            return "another schema that applies there accepts strings that are not regexes"
        for o in objs:
            if not isinstance(o, dict):
                continue
            for k in _STRING_KEYWORDS:
                if k not in o or (k == "format" and o[k] == "regex"):
                    continue
                if k == "format" and not isinstance(o[k], str):
                    continue
                if k == "pattern" and framing_pattern(o[k]):
                    continue
                return f"{k!r} beside it could leave a regex begun no way to end (only a pattern " \
                    "of the form ^P.+S$ with literal ends is checked with it)"
    return None


#: JSON's canonical escapes (json.dumps with ensure_ascii=False, what tokenguide writes): text -> character
_ESCAPES = {"\\" + k: v for k, v in (('"', '"'), ("\\", "\\"), ("b", "\b"), ("f", "\f"), ("n", "\n"),
                                     ("r", "\r"), ("t", "\t"))}
_ESCAPES.update({f"\\u{c:04x}": chr(c) for c in range(0x20) if chr(c) not in "\b\f\n\r\t"})


def partial_content(raw: bytes) -> tuple[str, str]:
    """The characters of a JSON string's content bytes `raw` (no quotes) so far, without an
    escape or UTF-8 character not complete yet; and the characters an escape begun may still
    become ("" when none is open)."""
    end = len(raw)
    back = raw.rfind(b"\\")
    pending = ""
    if back >= 0:
        n = 0  # (a run of backslashes: an odd one opens an escape)
        while back - n >= 0 and raw[back - n] == 0x5C:
            n += 1
        tail = raw[back:].decode("ascii", "replace")
        if n % 2 == 1 and tail not in _ESCAPES:
            end = back
            pending = "".join(c for e, c in _ESCAPES.items() if e.startswith(tail))
    cut = raw[:end]
    for k in range(1, 4):  # a UTF-8 lead byte whose character is not complete yet
        if len(cut) >= k and cut[-k] >= 0xC0:
            need = 2 if cut[-k] < 0xE0 else 3 if cut[-k] < 0xF0 else 4
            if k < need:
                cut = cut[:-k]
            break
        if len(cut) >= k and cut[-k] < 0x80:
            break
    return json.loads(b'"' + cut + b'"'), pending


def viable_content(raw: bytes) -> Any:
    """regex.ecma_syntax.prefix_status of the regex whose JSON content so far is `raw` (None: no
    way to end it valid). With an escape open, viable when one of the characters it may still
    become is, and `plain_ok` and `in_name` false (its next byte is no character of its own)."""
    text, pending = partial_content(raw)
    if not pending:
        return prefix_status(text)
    for c in pending:
        status = prefix_status(text + c)
        if status is not None:
            return status._replace(plain_ok=False, in_name=False)
    return None


def plain_tail(piece: str) -> int:
    """Where the run of plain characters (regex.ecma_syntax.PLAIN_EXCLUDED left out) that ends
    `piece` begins."""
    k = len(piece)
    while k and piece[k - 1] not in PLAIN_EXCLUDED:
        k -= 1
    return k


def piece_viable(text: str, piece: str, tail: int, memo: dict) -> bool:
    """Is the regex begun as `text` still viable with `piece` (characters, no quote) after it?
    `tail` is `plain_tail(piece)`: past a head after which plain text is always fine, the rest of
    the piece needs no parse, and inside a group name (`(?<maj`) characters that continue the
    name need none either; the heads' answers are kept in `memo` (one per `text`)."""
    k = tail
    while True:
        head = piece[:k]
        if head not in memo:
            memo[head] = prefix_status(text + head)
        status = memo[head]
        if status is None:
            return False
        if k == len(piece) or status.plain_ok:
            return True
        if status.in_name:
            while k < len(piece) and name_continues(piece[k]):
                k += 1
            if k == len(piece):
                return True
        k += 1
