"""llguidance's extensions of the Lark syntax, rewritten into plain Lark text for Lark's own loader.

The text is cut into Lark's grammar tokens (the patterns of `lark.load_grammar.TERMINALS` for
strings, regexes and comments), never parsed as a whole. Then:

- ``item{m,n}``, ``{m,}``, ``{,n}``, ``{n}`` become Lark's ``item ~ m..n`` (``{m,}``: ``(item ~ m item*)``);
- ``<name>`` and ``<[ids]>`` special tokens, and ``%json {...}`` schemas, in rules become fresh
  placeholder terminals, listed in `Rewritten.specials` / `Rewritten.schemas`;
- a terminal definition using ``&`` or a prefix ``~`` (or naming such a terminal) keeps its name with a
  placeholder body; its expression is kept aside (`Rewritten.expressions`, module
  `terminal_expressions`), its strings and regexes as fresh terminals that Lark compiles.

`Rewritten.locate(offset)` maps an offset of the new text back to the original (line, column).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from ..errors import GrammarError
from .terminal_expressions import parse_terminal_expression

__all__ = ["Rewritten", "Token", "line_column", "rewrite_dialect", "scan"]


@dataclass
class Token:
    """One piece of the text: kind ("ws", "nl", "comment", "string", "regexp", "json", "special",
    "name", "number", "directive", "op"), its text and its offset in the original text."""

    kind: str
    text: str
    pos: int
    value: Any = None


@dataclass
class Rewritten:
    """Plain Lark text and what was set aside: `specials` (placeholder terminal -> token spec),
    `schemas` (placeholder terminal -> (rule name, schema)), `expressions` (terminal name -> parsed
    expression tree of module `terminal_expressions`), `atoms` (fresh terminals Lark compiles for
    them), `keep` (terminal names Lark must not drop)."""

    text: str
    original: str
    marks: list = field(default_factory=list)  # (offset in text, offset in original, same length?)
    specials: dict = field(default_factory=dict)
    schemas: dict = field(default_factory=dict)
    expressions: dict = field(default_factory=dict)
    atoms: set = field(default_factory=set)
    keep: set = field(default_factory=set)
    placeholders: dict = field(default_factory=dict)  # placeholder string -> terminal name

    def locate(self, offset: int) -> tuple[int, int]:
        """(line, column), 1-based, in the original text of `offset` in the rewritten text."""
        orig = 0
        for at, source, verbatim in self.marks:
            if at > offset:
                break
            orig = source + (offset - at if verbatim else 0)
        return line_column(self.original, orig)


def line_column(text: str, offset: int) -> tuple[int, int]:
    """(line, column), 1-based, of `offset` in `text`."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _lark_patterns() -> dict[str, "re.Pattern[str]"]:
    from lark.load_grammar import TERMINALS

    return {name: re.compile(TERMINALS[name]) for name in ("STRING", "REGEXP")}


_COMMENT = re.compile(r"//[^\n]*|#[^\n]*")
_WS = re.compile(r"\\[ ]*\r?\n|[ \t\f\r]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_DIRECTIVE = re.compile(r"%[a-z]+")
_SPECIAL = re.compile(r"<\[[^\]\n]*\]>|<[^<>\s]+>")
_REPEAT = re.compile(r"\{\s*(\d*)\s*(,)?\s*(\d*)\s*\}")
_TERMINAL_NAME = re.compile(r"_?[A-Z][_A-Z0-9]*$")


def _error(text: str, pos: int, message: str) -> GrammarError:
    line, column = line_column(text, pos)
    return GrammarError(f"Lark grammar: {message}, at line {line} column {column}", line, column)


def scan(text: str) -> list[Token]:
    """The tokens of Lark grammar text (with llguidance's `%json {...}` and `<...>` as one token each)."""
    patterns = _lark_patterns()
    out: list[Token] = []
    i, n = 0, len(text)
    decoder = json.JSONDecoder()
    while i < n:
        c = text[i]
        m = None
        kind = "op"
        if c == "\n":
            out.append(Token("nl", c, i))
            i += 1
            continue
        if (m := _WS.match(text, i)) is not None:
            kind = "ws"
        elif (m := _COMMENT.match(text, i)) is not None and (c == "#" or text.startswith("//", i)):
            kind = "comment"
        elif c == '"' and (m := patterns["STRING"].match(text, i)) is not None:
            kind = "string"
        elif c == "/" and (m := patterns["REGEXP"].match(text, i)) is not None:
            kind = "regexp"
        elif text.startswith("%json", i) and not text[i + 5 : i + 6].isalnum():
            j = i + 5
            while j < n and text[j] in " \t\r\n":
                j += 1
            try:
                schema, end = decoder.raw_decode(text, j)
            except json.JSONDecodeError as exc:
                raise _error(text, exc.pos, f"%json needs a JSON schema after it ({exc.msg})") from None
            if not isinstance(schema, (dict, bool)):
                raise _error(text, j, "%json needs a JSON schema (an object or a boolean) after it")
            out.append(Token("json", text[i:end], i, schema))
            i = end
            continue
        elif c == "%" and (m := _DIRECTIVE.match(text, i)) is not None:
            kind = "directive"
        elif c == "<" and (m := _SPECIAL.match(text, i)) is not None:
            kind = "special"
        elif (m := _NAME.match(text, i)) is not None:
            kind = "name"
        elif c.isdigit():
            m = re.compile(r"\d+").match(text, i)
            kind = "number"
        elif text.startswith("..", i) or text.startswith("->", i):
            m = re.compile(r"\.\.|->").match(text, i)
        if m is None or m.end() == i:
            out.append(Token("op", c, i))
            i += 1
            continue
        out.append(Token(kind, m.group(), i))
        i = m.end()
    return out


def _significant(tokens: list[Token], i: int, step: int) -> int:
    """The index of the next token from `i` (in direction `step`) that is not space or a comment; -1 if none."""
    while 0 <= i < len(tokens):
        if tokens[i].kind not in ("ws", "comment"):
            return i
        i += step
    return -1


def _atom_start(tokens: list[Token], end: int, text: str) -> int:
    """The index where the item ending at token `end` starts (for a postfix `{m,n}`)."""
    t = tokens[end]
    pairs = {")": "(", "]": "[", "}": "{"}
    if t.kind == "op" and t.text in pairs:
        depth, i = 0, end
        while i >= 0:
            u = tokens[i]
            if u.kind == "op" and u.text == t.text:
                depth += 1
            elif u.kind == "op" and u.text == pairs[t.text]:
                depth -= 1
                if depth == 0:
                    break
            i -= 1
        if i < 0:
            raise _error(text, t.pos, f"unbalanced {t.text!r} before a {{m,n}} repeat")
        start = i
        if t.text == "}":  # a template's arguments: the template's name is before them
            start = _significant(tokens, i - 1, -1)
            if start < 0 or tokens[start].kind != "name":
                raise _error(text, t.pos, "a {m,n} repeat must follow an item")
    elif t.kind in ("name", "string", "regexp", "special", "json"):
        start = end
        if t.kind == "string":  # a range "a".."z"
            dots = _significant(tokens, end - 1, -1)
            if dots >= 0 and tokens[dots].text == "..":
                first = _significant(tokens, dots - 1, -1)
                if first >= 0 and tokens[first].kind == "string":
                    start = first
    else:
        raise _error(text, t.pos, "a {m,n} repeat must follow an item")
    while True:  # llguidance's prefix ~ binds tighter than any postfix operator
        before = _significant(tokens, start - 1, -1)
        if before >= 0 and tokens[before].kind == "op" and tokens[before].text == "~":
            start = before
        else:
            return start


def _rewrite_repeats(tokens: list[Token], text: str) -> list[Token]:
    """`item{m,n}` (llguidance) as Lark's `item ~ m..n`."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        m = _REPEAT.match(text, t.pos) if t.kind == "op" and t.text == "{" else None
        if m is None or not (m.group(1) or m.group(3)):
            out.append(t)
            i += 1
            continue
        end = _significant(out, len(out) - 1, -1)
        if end < 0:
            raise _error(text, t.pos, "a {m,n} repeat must follow an item")
        start = _atom_start(out, end, text)
        item = out[start : end + 1]
        del out[start:]
        lo_text, comma, hi_text = m.groups()
        lo = int(lo_text) if lo_text else 0
        hi: Optional[int] = int(hi_text) if hi_text else (None if comma else lo)
        if hi is not None and hi < lo:
            raise _error(text, t.pos, f"the repeat {m.group()} has its upper bound below its lower one")

        def op(s: str, kind: str = "op") -> Token:
            return Token(kind, s, t.pos)

        if hi is None and lo <= 1:
            out.extend(item + [op("*" if lo == 0 else "+")])
        elif hi is None:
            out.extend([op("("), *item, op(" ", "ws"), op("~"), op(" ", "ws"), op(str(lo), "number"), op(" ", "ws"),
                        *item, op("*"), op(")")])
        else:
            bounds = str(lo) if lo == hi else f"{lo}..{hi}"
            out.extend([*item, op(" ", "ws"), op("~"), op(" ", "ws"), op(bounds, "number")])
        while i < len(tokens) and tokens[i].pos < m.end():
            i += 1
    return out


def _statements(tokens: list[Token]) -> list[list[Token]]:
    """Tokens cut into statements: a new one starts after a line break unless the line goes on with `|`."""
    out: list[list[Token]] = [[]]
    pending_nl = False
    for t in tokens:
        if t.kind == "nl":
            pending_nl = True
            out[-1].append(t)
            continue
        if pending_nl and t.kind not in ("ws", "comment") and not (t.kind == "op" and t.text == "|"):
            out.append([])
        if t.kind not in ("ws", "comment"):
            pending_nl = False
        out[-1].append(t)
    return out


def _header(statement: list[Token]) -> tuple[Optional[str], Optional[str], int]:
    """(directive or None, defined name or None, index of the body's first token)."""
    directive = None
    name = None
    for i, t in enumerate(statement):
        if t.kind in ("ws", "comment", "nl"):
            continue
        if t.kind == "directive" and directive is None and name is None:
            directive = t.text
            if directive not in ("%override", "%extend"):
                return directive, None, i + 1
            continue
        if t.kind == "name" and name is None:
            name = t.text
            continue
        if t.kind == "op" and t.text == ":":
            return directive, name, i + 1
        if name is None and t.kind == "op" and t.text in "?!":
            continue
        if name is not None:
            continue  # priority, template parameters
        return directive, None, i
    return directive, None, len(statement)


def _is_complement(body: list[Token], i: int) -> bool:
    """Is the `~` at body[i] llguidance's complement (not followed by a count)?"""
    j = _significant(body, i + 1, 1)
    return j < 0 or body[j].kind != "number"


def rewrite_dialect(text: str) -> Rewritten:
    """Plain Lark text for `text`, with llguidance's extensions set aside (GrammarError on misuse)."""
    tokens = _rewrite_repeats(scan(text), text)
    names = {t.text for t in tokens if t.kind == "name"}
    prefix = "_TG"
    while any(n.startswith(prefix) for n in names):
        prefix += "X"
    result = Rewritten("", text)
    statements = _statements(tokens)
    terminal_bodies: dict[str, list[Token]] = {}
    kinds = []
    for st in statements:
        directive, name, body_at = _header(st)
        body = st[body_at:]
        is_terminal = name is not None and _TERMINAL_NAME.match(name) is not None
        kinds.append((directive, name, body_at, is_terminal))
        for i, t in enumerate(body):
            where = f"terminal {name}" if is_terminal else (f"rule {name}" if name else (directive or "this line"))
            if t.kind == "special" and (is_terminal or name is None):
                raise _error(text, t.pos, f"the special token {t.text} stands for a token id, not text: use it in rules only (in {where})")
            if t.kind == "json" and (is_terminal or name is None):
                raise _error(text, t.pos, f"%json is a rule body, not a terminal's (in {where})")
            if not is_terminal and t.kind == "op" and (t.text == "&" or (t.text == "~" and _is_complement(body, i))):
                raise _error(text, t.pos, f"{t.text!r} (intersection / complement) is allowed in terminal definitions only (in {where})")
        if is_terminal and any(t.kind == "op" and (t.text == "&" or (t.text == "~" and _is_complement(body, i)))
                               for i, t in enumerate(body)):
            if directive is not None:
                raise _error(text, st[0].pos, f"{directive} of terminal {name} with & or ~ is not supported")
            terminal_bodies[name] = body
    # terminals naming an expression terminal are expressions too (Lark would inline a placeholder)
    changed = True
    while changed:
        changed = False
        for st, (directive, name, body_at, is_terminal) in zip(statements, kinds):
            if not is_terminal or name in terminal_bodies:
                continue
            body = st[body_at:]
            if any(t.kind == "name" and t.text in terminal_bodies for t in body):
                if directive is not None:
                    raise _error(text, st[0].pos, f"{directive} of terminal {name} with & or ~ is not supported")
                terminal_bodies[name] = body
                changed = True
    for st, (directive, name, body_at, is_terminal) in zip(statements, kinds):
        if directive in ("%override", "%extend") and name in terminal_bodies and st[body_at:] is not terminal_bodies[name]:
            raise _error(text, st[0].pos, f"{directive} of terminal {name}, which uses & or ~, is not supported")

    pieces: list[tuple[str, int, bool]] = []  # (text, original offset, verbatim)
    extra: list[tuple[str, int]] = []
    counter = [0]

    def fresh(kind: str) -> str:
        counter[0] += 1
        return f"{prefix}{kind}{counter[0]}"

    def placeholder(term: str) -> str:
        string = f"<tokenguide placeholder {term}>"
        result.placeholders[string] = term
        return f'"{string}"'

    specials: dict[str, str] = {}
    for st, (directive, name, body_at, is_terminal) in zip(statements, kinds):
        if is_terminal and name in terminal_bodies:
            body = terminal_bodies[name]
            for t in st[:body_at]:
                pieces.append((t.text, t.pos, True))
            trailing = [t for t in body if t.kind == "nl"]

            def atom(tokens_of_atom: list[Token]) -> str:
                term = fresh("A")
                source = "".join(t.text for t in tokens_of_atom)
                extra.append((f"{term}: {source}", tokens_of_atom[0].pos))
                result.atoms.add(term)
                return term

            try:
                tree = parse_terminal_expression(body, atom)
            except ValueError as exc:
                pos = exc.args[1] if len(exc.args) > 1 else st[0].pos
                raise _error(text, pos, f"terminal {name}: {exc.args[0]}") from None
            result.expressions[name] = (tree, "".join(t.text for t in body if t.kind != "nl").strip())
            pieces.append((" " + placeholder(name), body[0].pos if body else st[0].pos, False))
            for t in trailing[:1]:
                pieces.append((t.text, t.pos, True))
            continue
        for t in st:
            if t.kind == "special":
                term = specials.get(t.text)
                if term is None:
                    term = specials[t.text] = fresh("S")
                    result.specials[term] = _special_spec(t, text)
                    extra.append((f"{term}: {placeholder(term)}", t.pos))
                pieces.append((term, t.pos, False))
            elif t.kind == "json":
                term = fresh("J")
                result.schemas[term] = (name or "?", t.value)
                extra.append((f"{term}: {placeholder(term)}", t.pos))
                pieces.append((term, t.pos, False))
            else:
                pieces.append((t.text, t.pos, True))
    out: list[str] = []
    size = 0
    for piece, pos, verbatim in pieces:
        result.marks.append((size, pos, verbatim))
        out.append(piece)
        size += len(piece)
    if extra:
        out.append("\n")
        size += 1
    for line, pos in extra:
        result.marks.append((size, pos, False))
        out.append(line + "\n")
        size += len(line) + 1
    result.text = "".join(out)
    result.keep = set(result.atoms) | set(result.specials) | set(result.schemas) | set(result.expressions)
    for tree, _ in result.expressions.values():
        result.keep |= _names_in(tree)
    return result


def _names_in(tree: Any) -> set[str]:
    """Terminal names a parsed expression refers to."""
    out: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if node[0] == "name":
            out.add(node[1])
        elif node[0] in ("seq", "alt", "and"):
            stack.extend(node[1])
        elif node[0] in ("not", "rep"):
            stack.append(node[1])
    return out


def _special_spec(token: Token, text: str) -> Any:
    """A special token's spec: its name (str), or inclusive id ranges ((lo, hi), ...) with hi None for the last id."""
    body = token.text[1:-1]
    if not (body.startswith("[") and body.endswith("]")):
        return token.text
    inner = body[1:-1].replace(" ", "")
    negated = inner.startswith("^")
    if negated:
        inner = inner[1:]
    ranges: list[tuple[int, Optional[int]]] = []
    if inner == "*":
        ranges.append((0, None))
    else:
        for part in inner.split(","):
            m = re.fullmatch(r"(\d+)(?:-(\d+|MAX))?", part)
            if m is None:
                raise _error(text, token.pos, f"bad token id list {token.text} (ids and ranges like <[1,5-9]>, <[^1]>, <[*]>)")
            lo = int(m.group(1))
            hi = None if m.group(2) == "MAX" else int(m.group(2) or lo)
            if hi is not None and hi < lo:
                raise _error(text, token.pos, f"bad token id range {part} in {token.text}")
            ranges.append((lo, hi))
    ranges.sort(key=lambda r: r[0])
    if negated:
        out: list[tuple[int, Optional[int]]] = []
        at = 0
        for lo, hi in ranges:
            if lo > at:
                out.append((at, lo - 1))
            if hi is None:
                at = None
                break
            at = max(at, hi + 1)
        if at is not None:
            out.append((at, None))
        ranges = out
    return tuple(ranges)
