"""Grammars of the intermediate form: lexemes (regular languages) and rules over them.

A rule body is a tree of `Seq`, `Choice`, `Repeat`, `Ref` (a rule by name) and `Lex` (a lexeme
by index); `Grammar.productions` lowers every body to plain productions, the form the engine
reads. Symbols in productions are ints: a rule is its index (>= 0), a lexeme `j` is `-1 - j`.
Every front end builds this form directly (the Lark reader; the JSON Schema lowering).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Union

from ..errors import GrammarError

__all__ = ["Choice", "Grammar", "Lex", "Ref", "Repeat", "Seq", "Terminal", "lexeme_symbol"]

#: `{m,n}` repeats on rules are expanded: refuse counts past this (a clear error, not a huge grammar)
MAX_REPEAT = 10_000


@dataclass(frozen=True)
class Terminal:
    """A terminal: a lexeme (regular language) given as Python `re` text (fullmatch meaning)
    or as an `ir.lexemes` expression (`expr`, which wins), named for messages and printing.

    `token` makes it a special token instead, matched by token id and never by text: a token's
    name (str, looked up in the vocabulary, e.g. "<|eot_id|>") or inclusive id ranges
    ((lo, hi), ...) with hi None for the vocabulary's last id."""

    name: str
    pattern: str
    expr: Any = None
    token: Any = None


@dataclass(frozen=True)
class Seq:
    """The items one after the other."""

    items: tuple


@dataclass(frozen=True)
class Choice:
    """Any one of the alternatives."""

    items: tuple


@dataclass(frozen=True)
class Repeat:
    """`item` between `lo` and `hi` times (`hi` None: no upper bound)."""

    item: Any
    lo: int = 0
    hi: Optional[int] = None


@dataclass(frozen=True)
class Ref:
    """The rule named `name`."""

    name: str


@dataclass(frozen=True)
class Lex:
    """The lexeme of index `index`."""

    index: int


Body = Union[Seq, Choice, Repeat, Ref, Lex]


def lexeme_symbol(index: int) -> int:
    """The production symbol of lexeme `index` (negative; rules are >= 0)."""
    return -1 - index


@dataclass
class Grammar:
    """Lexemes, the ones skipped between any two (`ignore`), and named rules with bodies.

    `start` names the start rule. `productions()` gives (names, productions) where a production
    is (lhs index, tuple of symbols) and names[i] is rule i (helper rules are named after the
    rule they come from).
    """

    lexemes: list = field(default_factory=list)
    rules: dict = field(default_factory=dict)
    start: str = "start"
    ignore: list = field(default_factory=list)

    def add_lexeme(self, lexeme: Terminal) -> int:
        """Append a terminal; its lexeme index."""
        self.lexemes.append(lexeme)
        return len(self.lexemes) - 1

    def productions(self) -> tuple[list[str], list[tuple[int, tuple[int, ...]]]]:
        """Every body lowered to plain productions (repeats become left-recursive helper rules)."""
        if self.start not in self.rules:
            raise GrammarError(f"grammar: the start rule {self.start!r} is not defined")
        names = list(self.rules)
        index = {name: i for i, name in enumerate(names)}
        out: list[tuple[int, tuple[int, ...]]] = []
        helpers: dict[Any, int] = {}

        def new_rule(base: str) -> int:
            names.append(f"{base}__{len(names)}")
            return len(names) - 1

        def alternatives(body: Any, owner: str) -> list[tuple[int, ...]]:
            if isinstance(body, Choice):
                alts: list[tuple[int, ...]] = []
                for item in body.items:
                    alts.extend(alternatives(item, owner))
                return alts
            if isinstance(body, Seq):
                return [tuple(symbol(item, owner) for item in body.items)]
            return [(symbol(body, owner),)]

        def symbol(body: Any, owner: str) -> int:
            if isinstance(body, Lex):
                if not 0 <= body.index < len(self.lexemes):
                    raise GrammarError(f"grammar: rule {owner!r} uses lexeme {body.index}, which does not exist")
                return lexeme_symbol(body.index)
            if isinstance(body, Ref):
                if body.name not in index:
                    raise GrammarError(f"grammar: rule {owner!r} refers to {body.name!r}, which is not defined")
                return index[body.name]
            key = (body, owner) if not isinstance(body, Repeat) else body
            found = helpers.get(key)
            if found is not None:
                return found
            if isinstance(body, Repeat):
                found = repeat(body, owner)
            else:
                found = new_rule(owner)
                for alt in alternatives(body, owner):
                    out.append((found, alt))
            helpers[key] = found
            return found

        def repeat(body: Repeat, owner: str) -> int:
            lo, hi = body.lo, body.hi
            if lo < 0 or (hi is not None and hi < lo):
                raise GrammarError(f"grammar: rule {owner!r} has a repeat {{{lo},{hi}}} with bad bounds")
            if max(lo, hi or 0) > MAX_REPEAT:
                raise GrammarError(
                    f"grammar: rule {owner!r} repeats an item {{{lo},{hi}}} times, past the limit of {MAX_REPEAT}; "
                    "use an unbounded repeat (*, +) and check the count on the value"
                )
            item = symbol(body.item, owner)
            rule = new_rule(owner)
            if hi is None:  # item{lo,}: lo copies then a left-recursive star
                star = new_rule(owner)
                out.append((star, ()))
                out.append((star, (star, item)))
                out.append((rule, (item,) * lo + (star,)))
                return rule
            # item{lo,hi}: lo copies, then up to hi-lo optional ones nested (linear size)
            tail = None
            for _ in range(hi - lo):
                opt = new_rule(owner)
                out.append((opt, ()))
                out.append((opt, (item,) if tail is None else (item, tail)))
                tail = opt
            out.append((rule, (item,) * lo + ((tail,) if tail is not None else ())))
            return rule

        for name, body in self.rules.items():
            for alt in alternatives(body, name):
                out.append((index[name], alt))
        return names, out

    def to_lark(self) -> str:
        """The grammar as Lark text (for reading and debugging; lexemes as regex terminals)."""
        names, prods = self.productions()
        lines = []
        by_lhs: dict[int, list[tuple[int, ...]]] = {}
        for lhs, rhs in prods:
            by_lhs.setdefault(lhs, []).append(rhs)

        def rule_name(i: int) -> str:
            return "".join(c if c.isalnum() or c == "_" else "_" for c in names[i]).lower()

        def show(sym: int) -> str:
            return rule_name(sym) if sym >= 0 else f"L{-1 - sym}"

        for lhs in sorted(by_lhs):
            alts = [" ".join(show(s) for s in rhs) or '""' for rhs in by_lhs[lhs]]
            lines.append(f"{rule_name(lhs)}: " + "\n    | ".join(alts))
        for j, lexeme in enumerate(self.lexemes):
            if lexeme.token is not None:
                lines.append(f"L{j}: /(?!)/  // special token {lexeme.name} (matched by token id)")
            elif lexeme.expr is not None:
                from .lexemes import to_lark as lexeme_lark

                lines.append(f"L{j}: {lexeme_lark(lexeme.expr)}  // {lexeme.name}")
            else:
                lines.append(f"L{j}: /{lexeme.pattern.replace('/', chr(92) + '/')}/  // {lexeme.name}")
        for j in self.ignore:
            lines.append(f"%ignore L{j}")
        return "\n".join(lines) + "\n"
