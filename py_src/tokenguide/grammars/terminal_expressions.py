"""Terminal definitions with llguidance's `&` (intersection) and prefix `~` (complement), as lexemes.

The body of one terminal definition is parsed (precedence as llguidance's: `|` lowest, then `&`,
then sequence, then postfix `* + ? ~n ~n..m`, then prefix `~`, so `~A+` is `(~A)+` and
`A & B | C` is `(A & B) | C`). Strings, string ranges and regexes are handed back to the caller
(`atom`), who has Lark compile them; `expression_lexeme` then builds the `ir.lexemes` expression.
`~A` is the complement among valid UTF-8 texts (`ir.lexemes.neg`), where llguidance's also holds
invalid byte strings.
"""

from __future__ import annotations

from typing import Any, Callable

from ..ir.lexemes import Lexeme, alt, inter, neg, rep, seq

__all__ = ["expression_lexeme", "parse_terminal_expression"]


def parse_terminal_expression(tokens: list, atom: Callable[[list], str]) -> tuple:
    """The tree of a terminal body (tokens of `lark_dialect.scan`): ("alt" | "seq" | "and", [nodes]),
    ("not", node), ("rep", node, lo, hi), ("atom", name from `atom(tokens)`), ("name", terminal).
    Raises ValueError(message, offset) on a syntax error."""
    items = [t for t in tokens if t.kind not in ("ws", "comment", "nl")]
    parser = _Parser(items, atom)
    tree = parser.alternation()
    if parser.i < len(items):
        t = items[parser.i]
        raise ValueError(f"unexpected {t.text!r}", t.pos)
    return tree


class _Parser:
    def __init__(self, items: list, atom: Callable[[list], str]):
        self.items = items
        self.atom_of = atom
        self.i = 0

    def peek(self, text: str | None = None, kind: str | None = None) -> bool:
        if self.i >= len(self.items):
            return False
        t = self.items[self.i]
        return (text is None or (t.kind == "op" and t.text == text) or (t.kind == "number" and t.text == text)) and \
            (kind is None or t.kind == kind)

    def fail(self, what: str) -> ValueError:
        if self.i < len(self.items):
            t = self.items[self.i]
            return ValueError(f"expected {what}, found {t.text!r}", t.pos)
        pos = self.items[-1].pos if self.items else 0
        return ValueError(f"expected {what} at the end of the definition", pos)

    def alternation(self) -> tuple:
        options = [self.conjunction()]
        while self.peek("|"):
            self.i += 1
            options.append(self.conjunction())
        return options[0] if len(options) == 1 else ("alt", options)

    def conjunction(self) -> tuple:
        parts = [self.sequence()]
        while self.peek("&"):
            self.i += 1
            parts.append(self.sequence())
        return parts[0] if len(parts) == 1 else ("and", parts)

    def starts_item(self) -> bool:
        if self.i >= len(self.items):
            return False
        t = self.items[self.i]
        if t.kind in ("string", "regexp", "name"):
            return True
        return t.kind == "op" and t.text in ("(", "[", "~")

    def sequence(self) -> tuple:
        items = []
        while self.starts_item():
            items.append(self.postfix())
        if not items:
            raise self.fail("a string, a regex, a terminal name, ( or ~")
        return items[0] if len(items) == 1 else ("seq", items)

    def postfix(self) -> tuple:
        node = self.prefix()
        while self.i < len(self.items):
            t = self.items[self.i]
            if t.kind == "op" and t.text in "*+?":
                self.i += 1
                node = ("rep", node, {"*": 0, "+": 1, "?": 0}[t.text], None if t.text != "?" else 1)
            elif t.kind == "op" and t.text == "~" and self.i + 1 < len(self.items) and self.items[self.i + 1].kind == "number":
                self.i += 2
                lo, hi = self.count(self.items[self.i - 1])
                node = ("rep", node, lo, hi)
            else:
                break
        return node

    def count(self, t: Any) -> tuple[int, int]:
        lo = hi = int(t.text.split("..")[0])
        if ".." in t.text:
            hi = int(t.text.split("..")[1])
        elif self.peek(".."):
            self.i += 1
            if not self.peek(kind="number"):
                raise self.fail("a count after ..")
            hi = int(self.items[self.i].text)
            self.i += 1
        if hi < lo:
            raise ValueError(f"the repeat ~{lo}..{hi} has its upper bound below its lower one", t.pos)
        return lo, hi

    def prefix(self) -> tuple:
        if self.peek("~"):
            self.i += 1
            return ("not", self.prefix())
        return self.primary()

    def primary(self) -> tuple:
        t = self.items[self.i]
        if t.kind == "op" and t.text in "([":
            self.i += 1
            inner = self.alternation()
            close = ")" if t.text == "(" else "]"
            if not self.peek(close):
                raise self.fail(repr(close))
            self.i += 1
            return inner if close == ")" else ("rep", inner, 0, 1)
        if t.kind == "name":
            self.i += 1
            return ("name", t.text)
        if t.kind == "string" and self.i + 2 < len(self.items) and self.items[self.i + 1].text == ".." \
                and self.items[self.i + 2].kind == "string":
            self.i += 3
            return ("atom", self.atom_of(self.items[self.i - 3 : self.i]))
        if t.kind in ("string", "regexp"):
            self.i += 1
            return ("atom", self.atom_of([t]))
        raise self.fail("a string, a regex, a terminal name, ( or ~")


def expression_lexeme(tree: tuple, resolve: Callable[[str], Lexeme]) -> Lexeme:
    """The lexeme of a parsed tree; `resolve(name)` gives the lexeme of an atom or a terminal name."""
    kind = tree[0]
    if kind in ("atom", "name"):
        return resolve(tree[1])
    if kind == "seq":
        return seq(*[expression_lexeme(x, resolve) for x in tree[1]])
    if kind == "alt":
        return alt(*[expression_lexeme(x, resolve) for x in tree[1]])
    if kind == "and":
        parts = [expression_lexeme(x, resolve) for x in tree[1]]
        out = parts[0]
        for p in parts[1:]:
            out = inter(out, p)
        return out
    if kind == "not":
        return neg(expression_lexeme(tree[1], resolve))
    return rep(expression_lexeme(tree[1], resolve), tree[2], tree[3])
