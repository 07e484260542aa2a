"""An Earley recogniser over lexemes: the parser half of the engine.

`EarleyGrammar` compiles an `ir.grammar.Grammar` (productions numbered into dotted items,
nullable rules, rules that derive nothing removed). A `Row` is the Earley set after some
lexemes: items (dotted item, origin row), the lexemes it expects, whether the text may end
there, and the lexer state a next lexeme starts from. `Row.scan(finals)` is the row after a
lexeme that any of the automata `finals` accepted (cached per row), so any context-free grammar
is read: ambiguity, left and right recursion, and lexemes that match the same text.
Rows are made once per kernel (`EarleyGrammar.row_of`), and `EarleyGrammar.joined` makes the one
row of several begun at the same place, so readings of an ambiguous text never multiply.
Nullable rules are handled as Aycock and Horspool do (a predicted nullable rule is also
stepped over at once).
"""

from __future__ import annotations

from typing import Any, Optional

from ..errors import GrammarError, TokenguideError
from ..ir.grammar import Grammar
from ..ir.lexemes import REP, from_regex
from .lexer import EMPTY, LEXER_STATES, automaton_for, is_empty_language

__all__ = ["EarleyGrammar", "Row"]


class EarleyGrammar:
    """Productions as numbered dotted items, with the tables the rows read."""

    def __init__(self, grammar: Grammar):
        names, prods = grammar.productions()
        self.names = names
        self.lexemes = list(grammar.lexemes)
        # a special token (Terminal.token) is matched by token id, so it has no automaton
        automata = [automaton_for(lx) if lx.token is None else None for lx in self.lexemes]
        self.lexeme_automaton = automata
        self.special_bits = sum(1 << j for j, a in enumerate(automata) if a is None)
        nsyms = len(names)
        productive = self._productive(nsyms, prods, [a is not None and is_empty_language(a) for a in automata])
        start = names.index(grammar.start)
        if not productive[start]:
            raise GrammarError(f"grammar: the start rule {grammar.start!r} derives no text")
        prods = [(lhs, rhs) for lhs, rhs in prods if productive[lhs] and all(s < 0 or productive[s] for s in rhs)]
        self.start = start
        # dotted items: item k of production p at dot d is first[p] + d
        self.next_symbol: list[Optional[int]] = []  # symbol after the dot, None when complete
        self.lhs_of: list[int] = []
        self.first_items: list[list[int]] = [[] for _ in range(nsyms)]
        for lhs, rhs in prods:
            self.first_items[lhs].append(len(self.next_symbol))
            for d in range(len(rhs) + 1):
                self.next_symbol.append(rhs[d] if d < len(rhs) else None)
                self.lhs_of.append(lhs)
        self.nullable = self._nullable(nsyms, prods)
        # lexemes by automaton: a lexer state's final automata -> the lexemes they complete
        self.lexemes_of: dict[int, int] = {}
        for j, a in enumerate(automata):
            if a is not None:
                self.lexemes_of[a] = self.lexemes_of.get(a, 0) | (1 << j)
        self.ignore_bits = 0
        self.absorbing_bits = 0  # ignored lexemes L with L L inside L (x+, x{1,}): never twice in a row
        for j in grammar.ignore:
            self.ignore_bits |= 1 << j
            if absorbs_itself(grammar.lexemes[j]):
                self.absorbing_bits |= 1 << j
        self._starts: dict[int, tuple] = {}
        #: every row made, by its kernel: readings that reach the same items share one row
        self.rows_by_kernel: dict[frozenset, "Row"] = {}
        self.root = Row(self, frozenset())
        self.root.close([(k, self.root) for k in self.first_items[start]], start)

    @staticmethod
    def _productive(nsyms: int, prods: list, empty_lexemes: list) -> list[bool]:
        ok = [False] * nsyms
        changed = True
        while changed:
            changed = False
            for lhs, rhs in prods:
                if not ok[lhs] and all(ok[s] if s >= 0 else not empty_lexemes[-1 - s] for s in rhs):
                    ok[lhs] = changed = True
        return ok

    @staticmethod
    def _nullable(nsyms: int, prods: list) -> list[bool]:
        null = [False] * nsyms
        changed = True
        while changed:
            changed = False
            for lhs, rhs in prods:
                if not null[lhs] and all(s >= 0 and null[s] for s in rhs):
                    null[lhs] = changed = True
        return null

    def finals_bits(self, lexer_state: int) -> int:
        """The lexemes (bit j = lexeme j) complete in `lexer_state`."""
        if LEXER_STATES.final[lexer_state]:
            return self.lexemes_of.get(LEXER_STATES.automaton[lexer_state], 0)
        return 0

    def row_of(self, kernel: frozenset) -> "Row":
        """The row of kernel items `kernel` (made once: readings that reach the same items share it)."""
        row = self.rows_by_kernel.get(kernel)
        if row is None:
            row = self.rows_by_kernel[kernel] = Row(self, kernel)
            row.close(list(kernel), self.start)
        return row

    def joined(self, rows: list) -> "Row":
        """One row for the rows begun at the same place of the text by different readings (the
        union of their kernels: the Earley set there), so ambiguous readings never multiply."""
        return self.row_of(frozenset().union(*(r.kernel for r in rows)))

    def start_states(self, allowed: int) -> tuple[int, ...]:
        """The boundary lexer states for the lexemes of bit set `allowed` (one per automaton
        that can match something), or (EMPTY,) when there is none."""
        found = self._starts.get(allowed)
        if found is None:
            automata = sorted({a for j, a in enumerate(self.lexeme_automaton) if allowed >> j & 1 and a is not None})
            found = tuple(LEXER_STATES.start(a) for a in automata if not is_empty_language(a)) or (EMPTY,)
            self._starts[allowed] = found
        return found


def absorbs_itself(terminal: Any) -> bool:
    """The terminal's language L has L L inside L (a repeat x{m,} with m >= 1, or x*): then an
    ignored L never needs to follow itself, and the readings that would cut it twice are dropped."""
    expr = terminal.expr
    if expr is None:
        try:
            expr = from_regex(terminal.pattern)
        except TokenguideError:
            return False
    return expr.kind == REP and expr.args[2] is None


class Row:
    """An Earley set: items, expected lexemes, whether the text may end, and the boundary lexer
    states a next lexeme starts from (`lexer_start`; `lexer_resume` after an ignored lexeme)."""

    __slots__ = ("grammar", "kernel", "items", "waiting", "expected", "accepts", "lexer_start", "lexer_resume",
                 "_scans")

    def __init__(self, grammar: EarleyGrammar, kernel: frozenset):
        self.grammar = grammar
        self.kernel = kernel
        self.items: list[tuple[int, Any]] = []
        self.waiting: dict[int, list] = {}
        self.expected = 0
        self.accepts = False
        self.lexer_start: tuple = ()
        self.lexer_resume: tuple = ()
        self._scans: dict[int, Any] = {}

    def close(self, kernel: list, start: int) -> None:
        """Add `kernel` and everything predicted and completed from it."""
        g = self.grammar
        next_symbol, lhs_of, first_items, nullable = g.next_symbol, g.lhs_of, g.first_items, g.nullable
        seen: set = set()
        items = self.items
        waiting = self.waiting
        predicted: set = set()
        todo = list(kernel)
        expected = 0
        while todo:
            item = todo.pop()
            if item in seen:
                continue
            seen.add(item)
            items.append(item)
            k, origin = item
            sym = next_symbol[k]
            if sym is None:
                lhs = lhs_of[k]
                if origin is self:
                    continue  # a nullable rule done in this row: stepped over when predicted
                for k2, o2 in origin.waiting.get(lhs, ()):
                    todo.append((k2 + 1, o2))
            elif sym < 0:
                expected |= 1 << (-1 - sym)
            else:
                waiting.setdefault(sym, []).append(item)
                if sym not in predicted:
                    predicted.add(sym)
                    for k2 in first_items[sym]:
                        todo.append((k2, self))
                if nullable[sym]:
                    todo.append((k + 1, origin))
        self.expected = expected
        root = g.root if g.root is not None else self
        self.accepts = any(
            next_symbol[k] is None and lhs_of[k] == start and origin is root for k, origin in items
        ) or (nullable[start] and self is root)
        self.lexer_start = g.start_states(expected | g.ignore_bits)
        self.lexer_resume = g.start_states(expected | (g.ignore_bits & ~g.absorbing_bits))

    def scan(self, lexemes: int) -> tuple[tuple["Row", int], ...]:
        """The (row, boundary lexer state) pairs after a lexeme complete as any of bit set
        `lexemes`: the next Earley set if the row expects one of them, and this row itself for a
        skipped (ignored) lexeme (resuming without the ignored lexemes that absorb themselves).
        Pairs from which nothing can be read and where the text may not end are left out."""
        found = self._scans.get(lexemes)
        if found is None:
            out = []
            g = self.grammar
            hit = lexemes & self.expected
            if hit:
                next_symbol = g.next_symbol
                row = g.row_of(frozenset((k + 1, o) for k, o in self.items
                                         if (s := next_symbol[k]) is not None and s < 0 and hit >> (-1 - s) & 1))
                out.extend(row.starts())
            if lexemes & g.ignore_bits:
                out.extend((self, t) for t in self.lexer_resume
                           if t != EMPTY or self.accepts or self.expected & g.special_bits)
            found = self._scans[lexemes] = tuple(out)
        return found

    def starts(self) -> tuple:
        """The (this row, boundary lexer state) pairs a next lexeme starts from, leaving out the
        empty state where the text may not end and no special token is expected."""
        g = self.grammar
        return tuple((self, t) for t in self.lexer_start if t != EMPTY or self.accepts or self.expected & g.special_bits)
