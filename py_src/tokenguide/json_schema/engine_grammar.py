"""The engine path: a grammar-mode emission as an `ir.grammar.Grammar`, for `guides.grammar.GrammarGuide`.

The emitter's grammar mode writes regex text in which private-use placeholders stand for rules
(recursive `$ref`s, free-form values, shared bodies), numbers and lexemes, and cuts mark where
a run of text ends (module `rule_sink`). Here each text is parsed once into a regex tree
and lowered: a rule placeholder becomes a `Ref`, a number or a lexeme a lexeme of its own, so
does every plain string (one lexeme shared by all grammars, whose token walks are cached per
vocabulary), and each run of other text between cuts one lexeme (a key with its colon); around
them sequences, alternations and repeats become `Seq`, `Choice` and `Repeat`. The engine reads
every lexeme at every place it may end, so where a run is cut the language does not change.
A lexeme's lookaheads (confined to it by the emitter) become intersections and complements
(`ir.lookaheads`). A value lexeme whose automaton calls rules on hole characters (module
`holes`) is lowered like a rule body with its holes as `Ref`s when it has no lookahead, and
otherwise from its exact automaton: one rule per state that may still reach a hole, with the
rest of the value as one lexeme from there. Refused by name (UnsupportedSchemaError) where it
would not be exact: a lookahead in a rule body (it would look at a rule), a rule inside a
character class, a lookahead under an unbounded repeat.
"""

from __future__ import annotations

from typing import Any

from ..errors import RegexError, StateLimitError, UnsupportedSchemaError
from ..ir.derivatives import LexemeDFA
from ..ir.grammar import Choice, Grammar, Lex, Ref, Repeat, Seq, Terminal
from ..ir.lexemes import (
    EMPTY, EPSILON, Lexeme, alt, chars, from_regex_tree, inter, lexeme_of, rep, seq,
)
from ..ir.lookaheads import has_lookaround, tree_with_lookaheads
from ..regex.parser import parse as parse_regex
from .automaton_regex import lookahead_free
from .lexemes import HOLE_CHARS, char_moves, refuse
from .text import STRING

__all__ = ["MAX_HOLE_STATES", "grammar_from_emission"]

#: states of a value lexeme's automaton walked to lower it around its holes (beyond: refused)
MAX_HOLE_STATES = 4_000
#: characters of a lexeme's automaton written back as a regex without lookaheads (`_expression`)
_MAX_FREE_CHARS = 400_000
_NONEMPTY = rep(chars(((0, 0x10FFFF),)), 1, None)
_STRING_TREE = parse_regex(STRING)
_STRING_ITEMS = _STRING_TREE[1]
_STRING = from_regex_tree(_STRING_TREE)
_HOLES = frozenset(HOLE_CHARS)


def grammar_from_emission(root: str, sink: Any) -> Grammar:
    """The Grammar of root regex `root` and the rules, lexemes and numbers of `sink` (a
    rule_sink.RuleSink); refused (UnsupportedSchemaError) where it would not be exact."""
    try:
        grammar = _Lowering(sink).grammar(root)
    except RecursionError:
        raise UnsupportedSchemaError("the schema nests too deeply for the engine path", None, "#") from None
    stuck = _unproductive(grammar)
    if stuck:
        raise UnsupportedSchemaError(
            f"the schema accepts no finite value through rule {stuck[0]} (a recursion without a base case)",
            "$ref", "#")
    return grammar


def _unproductive(grammar: Grammar) -> list[str]:
    """The rules of `grammar` that derive no finite text (sorted; helper rules left out)."""
    names, prods = grammar.productions()
    productive = [False] * len(names)
    changed = True
    while changed:
        changed = False
        for lhs, rhs in prods:
            if not productive[lhs] and all(x < 0 or productive[x] for x in rhs):
                productive[lhs] = changed = True
    return sorted(name for i, name in enumerate(names) if not productive[i] and name in grammar.rules)


class _Break:
    """A lexeme boundary (the emitter's cuts and marks): the text around it is not merged."""


BREAK = _Break()


class _Lowering:
    """One emission's lowering: bodies as grammar, runs of plain text as lexemes."""

    def __init__(self, sink: Any) -> None:
        self.sink = sink
        self.numbers = {ch: regex for regex, ch in sink.numbers.items()}
        self.out = Grammar(start="start")
        self.lexeme_index: dict[int, int] = {}  # expression id -> lexeme index
        self.expressions: dict[str, Lexeme] = {}  # placeholder of a number or lexeme -> its language
        self.rule_names: dict[str, str] = {}  # placeholder -> rule name in `out`
        self.todo: list[str] = []

    # -- lexemes ----------------------------------------------------------------------------
    def lexeme(self, expr: Lexeme, name: str) -> Any:
        """A body reading exactly `expr` (lexemes are never empty: a nullable one is optional)."""
        if expr is EPSILON:
            return Seq(())
        if expr is EMPTY:
            return Choice(())
        if expr.nullable:
            return Choice((Seq(()), self.lexeme(inter(expr, _NONEMPTY), name)))
        found = self.lexeme_index.get(expr.id)
        if found is None:
            found = self.lexeme_index[expr.id] = self.out.add_lexeme(Terminal(f"{name}{len(self.out.lexemes)}", "", expr))
        return Lex(found)

    def expression(self, ch: str) -> Lexeme:
        """The language of the number or lexeme (without holes) of placeholder `ch`."""
        found = self.expressions.get(ch)
        if found is None:
            name = self.sink.names[ch]
            if ch in self.numbers:
                found = _expression(self.numbers[ch], name, lookaheads=False)
            else:
                found = _expression(self.sink.lexemes[ch], name, lookaheads=True)
            self.expressions[ch] = found
        return found

    def ref(self, ch: str) -> Ref:
        """A reference to the rule of placeholder `ch` (its body lowered later)."""
        name = self.rule_names.get(ch)
        if name is None:
            name = self.rule_names[ch] = f"{self.sink.names[ch] or 'rule'}_{len(self.rule_names)}"
            self.todo.append(ch)
        return Ref(name)

    # -- trees ------------------------------------------------------------------------------
    def lower(self, tree: tuple, name: str, holes: dict[int, str]) -> Any:
        """A regex tree (no lookaheads) as a Lexeme (plain text, to merge with its neighbours),
        BREAK, or a grammar body; `holes`: code point -> placeholder of the rule it stands for."""
        kind = tree[0]
        if kind == "chars":
            return self.symbol(tree[1], name, holes)
        if kind in ("look", "end"):
            raise refuse(f"rule {name!r} holds a lookahead or an end anchor beside its calls")
        if tree == _STRING_TREE:
            return self.lexeme(_STRING, "string")  # one lexeme for every plain string: shared walks
        if kind == "seq":
            items = self.lower_items(tree[1], name, holes)
            if all(isinstance(x, Lexeme) for x in items):
                return seq(*items)
            out: list[Any] = []
            run: list[Lexeme] = []
            for x in items:
                if isinstance(x, Lexeme):
                    run.append(x)
                    continue
                if run:
                    out.append(self.lexeme(seq(*run), name))
                    run = []
                if x is not BREAK:
                    out.append(x)
            if run:
                out.append(self.lexeme(seq(*run), name))
            if not out:
                return BREAK
            return out[0] if len(out) == 1 else Seq(tuple(out))
        if kind == "alt":
            items = [self.lower(item, name, holes) for item in tree[1]]
            if all(isinstance(x, Lexeme) for x in items):
                return alt(*items)
            regular = [x for x in items if isinstance(x, Lexeme)]
            rest = [Seq(()) if x is BREAK else x for x in items if not isinstance(x, Lexeme)]
            if regular:
                rest.insert(0, self.lexeme(alt(*regular), name))
            return Choice(tuple(rest))
        if kind == "rep":
            item = self.lower(tree[1], name, holes)
            if isinstance(item, Lexeme):
                return rep(item, tree[2], tree[3])
            if item is BREAK:
                return BREAK
            return Repeat(item, tree[2], tree[3])
        raise refuse(f"rule {name!r}: unknown regex node {kind!r}")

    def lower_items(self, items: list, name: str, holes: dict[int, str]) -> list:
        """The items of a sequence lowered, each plain string in them (text.STRING, three items
        in a row) as its lexeme."""
        out = []
        i, n, k = 0, len(items), len(_STRING_ITEMS)
        while i < n:
            if items[i] == _STRING_ITEMS[0] and items[i:i + k] == _STRING_ITEMS:
                out.append(self.lexeme(_STRING, "string"))
                i += k
                continue
            out.append(self.lower(items[i], name, holes))
            i += 1
        return out

    def symbol(self, ranges: tuple, name: str, holes: dict[int, str]) -> Any:
        """A character set of a body: text, or placeholders (one each, the emitter's alternation
        of several read as one set), or the holes of a value lexeme."""
        sink = self.sink
        text: list[tuple[int, int]] = []
        parts: list[Any] = []
        for lo, hi in ranges:
            if holes and lo in holes:
                if any(cp not in holes for cp in range(lo, hi + 1)):
                    raise refuse(f"lexeme {name!r} reads a hole character as text")
                parts.extend(self.call(holes[cp]) for cp in range(lo, hi + 1))
            elif hi - lo < 64 and all(chr(cp) in sink.names for cp in range(lo, hi + 1)):
                parts.extend(self.call(chr(cp)) for cp in range(lo, hi + 1))
            else:
                text.append((lo, hi))
        if text:
            parts.insert(0, chars(text))
        if len(parts) == 1:
            return parts[0]
        regular = [x for x in parts if isinstance(x, Lexeme)]
        rest = [Seq(()) if x is BREAK else x for x in parts if not isinstance(x, Lexeme)]
        if regular:
            rest.insert(0, self.lexeme(alt(*regular), name))
        return Choice(tuple(rest))

    def call(self, ch: str) -> Any:
        """Placeholder `ch` in a body: a boundary, a lexeme of its own (numbers, lexemes without
        holes) or a reference to its rule."""
        sink = self.sink
        if not sink.names[ch]:
            return BREAK
        if ch in self.numbers or (ch in sink.lexemes and not sink.holes.get(ch)):
            return self.lexeme(self.expression(ch), sink.names[ch])
        if ch in sink.bodies or ch in sink.lexemes:
            return self.ref(ch)
        raise refuse(f"placeholder {sink.names[ch]!r} has no rule")

    # -- the grammar ------------------------------------------------------------------------
    def body(self, ch: str) -> Any:
        """The grammar body of irregular placeholder `ch`."""
        sink = self.sink
        name = sink.names[ch] or "rule"
        if ch in sink.bodies:
            return self.as_body(self.lower(parse_body(name, sink.bodies[ch]), name, {}), name)
        if ch in sink.lexemes:
            holes = {cp: rule for cp, rule in sink.holes[ch].items()}
            tree = _parse(name, sink.lexemes[ch])
            if not has_lookaround(tree):
                return self.as_body(self.lower(tree, name, holes), name)
            return self.automaton_body(name, sink.lexemes[ch], holes)
        raise refuse(f"placeholder {name!r} has no rule")

    def as_body(self, x: Any, name: str) -> Any:
        if x is BREAK:
            return Seq(())
        return self.lexeme(x, name) if isinstance(x, Lexeme) else x

    def grammar(self, root: str) -> Grammar:
        """Lower `root` and every rule it reaches."""
        self.out.rules["start"] = self.as_body(self.lower(parse_body("start", root), "start", {}), "start")
        while self.todo:
            ch = self.todo.pop()
            self.out.rules[self.rule_names[ch]] = self.body(ch)
        return self.out

    # -- value lexemes with holes and lookaheads ---------------------------------------------
    def automaton_body(self, name: str, text: str, holes: dict[int, str]) -> Any:
        """A value lexeme with holes and lookaheads from its exact automaton (derivatives of
        its expression, hole characters as text): from each state that may still reach a hole,
        either the rest of the value that reads no hole as one lexeme (the state's own expression,
        without holes) or a rule that reads at least one hole, moving one character (or one hole:
        its rule) at a time. The two never read the same text, so a text has one reading (a rest
        lexeme begun at every character, beside the character moves, gave a reading per
        position, multiplied at every value: 44 s to read a 652-byte Snowplow document)."""
        expr = _expression(text, name, lookaheads=True)
        dfa = _ByteRows(LexemeDFA(expr))
        no_holes = rep(chars(_without_holes()), 0, None)
        start = expr.id
        # the states reachable on characters and holes, and which may reach a hole
        moves: dict[int, dict[int, list[tuple[int, int]]]] = {}
        todo = [start]
        memo: dict = {}
        while todo:
            q = todo.pop()
            if q in moves:
                continue
            if len(moves) >= MAX_HOLE_STATES:
                raise refuse(f"the automaton of value lexeme {name!r} has more than {MAX_HOLE_STATES:,} states "
                             "around its holes")
            moves[q] = char_moves(dfa, q, memo)
            todo.extend(t for t in moves[q] if t not in moves)
        reaches = {q for q, m in moves.items()
                   if any(a in _HOLES for rs in m.values() for lo, hi in rs for a, _z in _split_holes(lo, hi))}
        changed = True
        while changed:
            changed = False
            for q, m in moves.items():
                if q not in reaches and any(t in reaches for t in m):
                    reaches.add(q)
                    changed = True
        rule_of = {q: f"{name}_q{q}" for q in reaches}
        holed_of = {q: f"{name}_h{q}" for q in reaches}  # the texts from q that read a hole

        def rest(q: int) -> list[Any]:
            """The rest of the value from state `q` that reads no hole: nothing (where `q` may
            end) or one lexeme."""
            out: list[Any] = []
            state = lexeme_of(q)
            if state.nullable:
                out.append(Seq(()))
            plain = inter(state, no_holes)
            if plain is not EMPTY and plain is not EPSILON:
                nonempty = inter(plain, _NONEMPTY)
                if nonempty is not EMPTY:
                    out.append(self.lexeme(nonempty, name))
            return out

        for q in reaches:
            alts: list[Any] = []
            for t, ranges in moves[q].items():
                # after a hole, the state it leads to: its rule, or (reaching no hole) its rest
                after = [Ref(rule_of[t])] if t in reaches else rest(t)
                if not after:
                    continue
                then = after[0] if len(after) == 1 else Choice(tuple(after))
                text_ranges: list[tuple[int, int]] = []
                for lo, hi in ranges:
                    for a, z in _split_holes(lo, hi):
                        if a in _HOLES:
                            alts.append(Seq((self.call(holes[a]) if a in holes else Choice(()), then)))
                        elif t in reaches:  # (text into a state that reaches no hole: in `rest(q)`)
                            text_ranges.append((a, z))
                if text_ranges:
                    alts.append(Seq((self.lexeme(chars(text_ranges), name), Ref(holed_of[t]))))
            self.out.rules[holed_of[q]] = Choice(tuple(alts))
            self.out.rules[rule_of[q]] = Choice(tuple(rest(q)) + (Ref(holed_of[q]),))
        if start not in reaches:
            return self.lexeme(inter(expr, no_holes), name)
        return Ref(rule_of[start])


class _ByteRows:
    """A LexemeDFA read as json_schema.lexemes.char_moves reads a ByteDFA (`next_state`)."""

    def __init__(self, dfa: LexemeDFA) -> None:
        self.dfa = dfa

    def next_state(self, state: int, byte: int) -> int:
        return self.dfa.row(state)[byte]


def _without_holes() -> tuple:
    out, start = [], 0
    for cp in sorted(_HOLES):
        if start < cp:
            out.append((start, cp - 1))
        start = cp + 1
    out.append((start, 0x10FFFF))
    return tuple(out)


def _split_holes(lo: int, hi: int) -> list[tuple[int, int]]:
    """lo..hi cut so that every hole character is a range of its own."""
    out, start = [], lo
    for cp in sorted(h for h in _HOLES if lo <= h <= hi):
        if start < cp:
            out.append((start, cp - 1))
        out.append((cp, cp))
        start = cp + 1
    if start <= hi:
        out.append((start, hi))
    return out


def _parse(name: str, text: str) -> tuple:
    try:
        return parse_regex(text)
    except RegexError as exc:
        raise refuse(f"rule {name!r} has no regex tree ({exc})") from None


def parse_body(name: str, text: str) -> tuple:
    """The regex tree of a rule body's text (placeholders are characters of their own)."""
    return _parse(name, text)


def _expression(text: str, name: str, lookaheads: bool) -> Lexeme:
    """The lexeme expression of a placeholder-free regex text (fullmatch); a lexeme whose
    lookaheads have no intersection form (under an unbounded repeat) is its exact automaton
    written back as a regex without lookaheads (automaton_regex.lookahead_free)."""
    tree = _parse(name, text)
    try:
        if lookaheads:
            return tree_with_lookaheads(tree, text)
        return from_regex_tree(tree, text)
    except (RegexError, StateLimitError) as exc:
        # (a lexeme of the engine may be a long regex: limits well above a Lark terminal's)
        plain = lookahead_free(text, max_states=MAX_HOLE_STATES, max_chars=_MAX_FREE_CHARS) if lookaheads else None
        if plain is not None:
            try:
                return from_regex_tree(parse_regex(plain), plain)
            except (RegexError, StateLimitError):
                pass
        raise refuse(f"lexeme {name!r} has no engine form ({exc})") from None

