"""The grammar path: a JSON Schema as a Lark grammar, for recursive or very large schemas.

The regex emitter runs in grammar mode: a `$ref` back to a schema being expanded, a free-form
value and every number are written as *placeholders* (private-use characters U+F0000...) that
stand for grammar rules. This module turns the placeholder regex into Lark EBNF: maximal runs
without placeholders become terminals, numbers become right-linear rules over single-character
terminals (from their minimal DFA), free-form values become one recursive `any` rule (no depth
cap), strings whose keywords intersect become right-linear rules from the intersection's exact
DFA (module `lexemes`: no lookahead in any terminal), so do whole values with lookaheads
(`not`, overlapping oneOf, if/then/else) and, on retry, anyOf/oneOf unions (value lexemes,
GrammarSink.value_lexeme / union), and objects with many optional members
left-linear rules (module `member_rules`: Lark expands optional parts inline). Then
module `grammar_checks` proves that Lark reads the grammar exactly as written, or refuses.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

from ..errors import StateLimitError, UnsupportedSchemaError
from ..regex.sre import constants as C
from ..regex.sre import parse as sre_parse
from ..regex.sre import nonempty, subpattern
from . import automaton_rules, grammar_checks, member_rules
from .automaton_rules import lark_char
from . import holes as holes_mod
from .grammar_checks import check_grammar, refuse
from .lexemes import HOLE_CHARS, MAX_LEXEME_STATES, check_text_size, finite_texts, lexeme_dfa
from .normalize import Node, types_of
from .text import NULL, NUMBER, STRING

__all__ = ["GrammarSink", "check_grammar", "grammar_from_placeholders", "PLACEHOLDER_BASE", "PLACEHOLDER_END"]

PLACEHOLDER_BASE = 0xF0000
_PLACEHOLDER_LIMIT = 0xFFFF  # placeholders per schema
PLACEHOLDER_END = PLACEHOLDER_BASE + _PLACEHOLDER_LIMIT - 1  # the last placeholder a schema may use
_MAX_EXPANSIONS = 600  # alternatives Lark may expand one rule into (its `?`, `|`, `~` are inline)
# alternatives of all rules. Set when Lark's own LALR analysis took 1-2 s here (686 in sp_280,
# 1,050 in sp_338); guides.cfg.lalr analyses 10,000 rules in seconds now, but a higher limit
# sends the first, inline emission of PodSpec-shaped schemas (the Kubernetes kinds) through the
# grammar checks instead of straight to their member-rule retry: 16,000 made them 3x slower
# (benchmarks/HISTORY.md, session 12). So the higher total is a retry, taken only on an estimate:
_MAX_ALTERNATIVES = 1_100
# the total of the retry of a schema refused at 1,100 whose estimated total (_estimate) is at
# most _MANY_ESTIMATE (GrammarSink.many_alternatives): many small objects written inline
# (compose-spec: estimated 7,278, compiled right-linear in ~7 s), which the rule-per-member forms
# cannot take (their objects' contexts meet). The PodSpec-shaped tests are estimated at 18,573
# and 38,714 (their wide objects' rules, not yet converted when the count passes 1,100, would
# expand far more) and go straight to member rules.
_MAX_MANY_ALTERNATIVES = 16_000
_MANY_ESTIMATE = 10_000
# the same with every object's optional members as rules (GrammarSink.member_rules): small rules of
# 2-3 alternatives each (3,613 in Kubernetes pod-v1; 4,000-5,000 in pod-v1 with objects open to
# undeclared members, whose grammar checks take ~10 s; 6,897 in buildkite's pipeline with its step
# unions as one object each, checked in 3 s)
_MAX_MEMBER_RULE_ALTERNATIVES = 8_000
_TAILS_FROM = 16  # a sequence expanding into more alternatives gets a rule per optional part
_SPACE = 0x20


class GrammarSink:
    """Hands out placeholders for rules while the emitter runs in grammar mode."""

    def __init__(self, ws: str, right_linear: bool = False, unions: bool = False, member_rules: bool = False,
                 value_rules: bool = False, many_alternatives: bool = False, conditionals: bool = False,
                 open_objects: bool = False, engine: bool = False) -> None:
        self.ws = ws
        self.engine = engine  # written for the engine path (strings.counted_string: one counted lexeme)
        # oneOf over open objects as branches told apart by their keys (one_of.open_objects_exclusive):
        # a retry, taken when `saw_open_objects` (the branches may not fit where automata do)
        self.open_objects = open_objects
        self.saw_open_objects = False
        self.open_branches: dict[str, int] = {}  # oneOf pointer -> objects the rewrite wrote for it (one_of caps them)
        # object unions and ifs on members' values as member chains (required_sets' literals); a
        # retry, taken when `saw_conditionals` (they change the grammar's size and may not fit)
        self.conditionals = conditionals
        self.saw_conditionals = False
        self.many_alternatives = many_alternatives  # inline, up to _MAX_MANY_ALTERNATIVES (see there)
        self.alternatives_estimate: int | None = None  # of the grammar, when its total was refused (_estimate)
        self.right_linear = right_linear  # wide objects as right-linear rules (see object_members)
        self.member_rules = member_rules  # every object with an optional member as rules (objects.members_chain)
        self.inline_optionals = False  # did members_chain write an object's optional members inline
        self.unions = unions  # regular anyOf/oneOf unions as value lexemes (see `union`)
        self.alternations = False  # did `union` see an anyOf/oneOf of two parts or more
        self.value_rules = value_rules  # objects' and arrays' member values in unions as rules (`member_value`)
        self.in_union = 0  # anyOf/oneOf branches being emitted around the current value (Emitter._distribute)
        self.split_values = False  # did member_value write a rule
        self.value_bodies: dict[str, str] = {}  # body regex -> placeholder of a value rule (`member_value`)
        self.wide_objects = False  # did object_members write any
        self.names: dict[str, str] = {}  # placeholder -> rule name
        self.ref_rules: dict[str, str] = {}  # JSON pointer -> placeholder
        self.pending: list[tuple[str, Any]] = []  # (placeholder, RuleRef) whose body is still to write
        self.bodies: dict[str, str] = {}  # placeholder -> regex with placeholders
        self.numbers: dict[str, str] = {}  # number regex -> placeholder
        self.lexemes: dict[str, str] = {}  # placeholder -> string regex (lookaheads confined to it)
        self.value_lexemes: set[str] = set()  # those of whole values (see value_lexeme)
        self.value_sources: dict[str, str] = {}  # value lexeme -> its regex with placeholders
        self.holes: dict[str, dict[int, str]] = {}  # value lexeme -> hole code point -> rule placeholder
        self.marks: list[str] = []  # see `mark`
        self.shared: dict[str, str] = {}  # body regex -> placeholder of a shared rule (see `rule`)
        self._any: str | None = None
        self._compound: str | None = None
        self.cut = self._new("")  # a boundary between terminals, no rule

    def many_alternatives_may_fit(self) -> bool:
        """Was the grammar refused at its total of alternatives with an estimate (`_estimate`)
        small enough that the inline retry with the higher total (`many_alternatives`) may take it?"""
        return self.alternatives_estimate is not None and self.alternatives_estimate <= _MANY_ESTIMATE

    def _new(self, name: str) -> str:
        if len(self.names) >= _PLACEHOLDER_LIMIT:
            raise refuse("too many grammar rules")
        ch = chr(PLACEHOLDER_BASE + len(self.names))
        self.names[ch] = name
        return ch

    def rule_ref(self, ref: Any) -> str:
        """The placeholder of the rule for a recursive `$ref` target (its body written later)."""
        ch = self.ref_rules.get(ref.ptr)
        if ch is None:
            ch = self.ref_rules[ref.ptr] = self._new(f"r{len(self.ref_rules)}")
            self.pending.append((ch, ref))
        return ch

    def mark(self, i: int) -> str:
        """Boundary placeholder number `i` (no rule, like `cut`): distinct marks at the start of
        alternatives keep Python's parser from factoring their common prefix (such as the
        opening quote of keys) into a terminal of its own."""
        while len(self.marks) <= i:
            self.marks.append(self._new(""))
        return self.marks[i]

    def rule(self, body: str) -> str:
        """The placeholder of a rule with regex `body` (one rule per distinct body)."""
        ch = self.shared.get(body)
        if ch is None:
            ch = self.shared[body] = self._new(f"s{len(self.shared)}")
            self.bodies[ch] = body
        return ch

    def object_members(self, sep: str, items: list[tuple[str, bool]], extra: str | None) -> str:
        """Object body for members `items` ((regex, required), in order) and then any number of
        `extra` members, as left-linear rules (module `member_rules`): written inline, k optional
        members make Lark expand 2**k alternatives."""
        self.wide_objects = True
        write = member_rules.right_linear_members if self.right_linear else member_rules.object_members
        return write(self, sep, items, extra)

    def number(self, regex: str) -> str:
        """The placeholder of a number rule for `regex` (a right-linear rule from its DFA)."""
        ch = self.numbers.get(regex)
        if ch is None:
            ch = self.numbers[regex] = self._new(f"n{len(self.numbers)}")
        return ch

    def lexeme(self, regex: str) -> str:
        """The placeholder of a rule for string regex `regex`, which may hold lookaheads confined
        to the string (an intersection of string languages): right-linear rules over single
        characters from its exact DFA (module `lexemes`), one per state."""
        for ch, known in self.lexemes.items():
            if known == regex:
                return ch
        ch = self._new(f"x{len(self.lexemes)}")
        self.lexemes[ch] = regex
        return ch

    def value_lexeme(self, regex: str, keyword: str, ptr: str, holes: bool = False) -> str | None:
        """The placeholder of a rule for the whole values of `regex` (lookaheads of `not`, oneOf,
        if/then/else included) when they form a regular language: its exact DFA as right-linear
        rules, like string lexemes. Exact in context: every lookahead ends with VALUE_END, and a
        complete value in a document is always followed by whitespace, `,`, `]`, `}` or the
        end, so what follows the value never changes a lookahead's verdict (full match of the
        value alone). None when no value is left; refused (`keyword` at `ptr`) beyond
        MAX_LEXEME_STATES states. Free-form values are written out a few levels deep around a
        hole for the arrays and objects below (module `holes`, which checks that no lookahead
        can see the hole read another way). With `holes` (no lookahead may see them: `union`
        only), the rules that are not regular stay rules, read as one symbol each (see `union`)."""
        text, filled = holes_mod.lexeme_text(self, regex, keyword, ptr, holes)
        check_text_size(text, keyword, ptr)
        d = lexeme_dfa(text)
        if d is None:
            raise refuse(f"{keyword!r} makes a value whose automaton has more than {MAX_LEXEME_STATES:,} states",
                         keyword, ptr)
        if not d.finals or d.finals == {0} and not d.live_bytes(0):
            return None  # the lookaheads leave no value (only the empty text, which no value is)
        hole_rules = {HOLE_CHARS[i]: h for i, h in enumerate(filled or ())}
        few = None if hole_rules else finite_texts(d)
        if few is not None:
            # a few values (an enum less a `not`): their texts, which merge with the key before
            # them into one terminal where rules over single characters would split it off
            # (buildkite's step `type`: "block" beside `"type": ` and the other steps' types)
            return "(?:" + "|".join(re.escape(t.decode("utf-8")) for t in few) + ")"
        for ch in self.value_lexemes:
            if self.lexemes[ch] == text and self.holes.get(ch, {}) == hole_rules:
                return ch
        ch = self._new(f"x{len(self.lexemes)}")
        self.lexemes[ch] = text
        self.value_lexemes.add(ch)
        self.value_sources[ch] = regex
        if hole_rules:
            self.holes[ch] = hole_rules
        return ch

    def has_lexeme(self, regex: str) -> bool:
        """Does `regex` use a lexeme placeholder (see `value_lexeme`)?"""
        return any(ch in regex for ch in self.value_lexemes)

    def union(self, parts: list[str], keyword: str, ptr: str) -> str | None:
        """One value lexeme for the alternation of `parts` when some part is a lexeme (the rules
        of two lexemes side by side would start with overlapping terminals) or, with `unions`,
        whenever they are regular (an anyOf of objects expands too much inline, and is
        ambiguous as rules of its own); None when they stay an alternation. A recursive $ref in a
        part becomes a hole: a control character of the automaton (no JSON text has one raw)
        whose moves are that rule; a free-form value is written out around compound holes
        (module `holes`, checked to read one way). Exact: a union of the parts' languages with
        each hole's language put in is the union of the parts; an ambiguity (a hole beside text
        it also matches) is a conflict or a terminal clash that check_grammar refuses."""
        if len(parts) >= 2:
            self.alternations = True
        if len(parts) < 2 or not (self.unions or any(self.has_lexeme(p) for p in parts)):
            return None
        try:
            return self.value_lexeme("(?:" + "|".join(parts) + ")", keyword, ptr, holes=self.unions)
        except UnsupportedSchemaError:
            return None

    def member_value(self, em: Any, schema: Any, ptr: str) -> str | None:
        """The regex of an object member's value (`schema` at `ptr`, emitted by `em`). With
        `value_rules`, inside an anyOf/oneOf branch, its objects and its arrays are each a rule
        of their own ("v", a hole in the union's lexeme: lexemes.regular_text) and its other
        values stay text: the union's automaton then reads a nested object in one symbol
        instead of all its states (Snowplow sp_343: over 4,000 states as text). Exact: the
        three parts are the value's language split by JSON type; two holes at one place of the
        automaton that may read the same text make an LALR conflict, which check_grammar refuses."""
        if not (self.value_rules and self.in_union):
            return em.value(schema, ptr)
        flat = em.norm.flatten(schema, ptr)
        if not isinstance(flat, Node) or not flat.constrains() or not {"object", "array"} & set(types_of(flat)):
            return em.value(schema, ptr)
        parts: list[str | None] = []
        for types in (["null", "boolean", "number", "string"], ["object"], ["array"]):
            m = em.norm.merge(flat, Node({"type": types}, ptr))
            compound, depth = types[0] in ("object", "array"), self.in_union
            self.in_union = 0 if compound else depth  # a rule's body is grammar, not the union's text
            try:
                v = None if m is False else em.flat_value(m)
            finally:
                self.in_union = depth
            if v is not None and compound:
                ch = self.value_bodies.get(v)
                if ch is None:
                    ch = self.value_bodies[v] = self._new(f"v{len(self.value_bodies)}")
                    self.bodies[ch] = v
                self.split_values = True
                v = ch
            parts.append(v)
        kept = [p for p in parts if p is not None]
        return None if not kept else kept[0] if len(kept) == 1 else "(?:" + "|".join(kept) + ")"

    def compound_value(self) -> str:
        """The placeholder of the rule for one JSON array or object of any values (nesting
        without limit): the hole of free-form values in value lexemes (module `holes`)."""
        if self._compound is None:
            ch = self._compound = self._new("compound")
            ws, cut, any_ = self.ws, self.cut, self.any_value()
            sep = f"{cut}{ws},{ws}{cut}"
            member = STRING + f"{ws}:{ws}" + any_
            self.bodies[ch] = (rf"\[{ws}(?:{any_}(?:{sep}{any_})*)?{cut}{ws}\]"
                               rf"|\{{{ws}(?:{member}(?:{sep}{member})*)?{cut}{ws}\}}")
        return self._compound

    def any_value(self) -> str:
        """The placeholder of the rule for any JSON value, nesting without limit."""
        if self._any is None:
            ch = self._any = self._new("any")
            ws, cut = self.ws, self.cut
            sep = f"{cut}{ws},{ws}{cut}"
            member = STRING + f"{ws}:{ws}" + ch
            self.bodies[ch] = (
                f"(?:{NULL}|true|false|{self.number(NUMBER)}|{STRING}"
                rf"|\[{ws}(?:{ch}(?:{sep}{ch})*)?{cut}{ws}\]|\{{{ws}(?:{member}(?:{sep}{member})*)?{cut}{ws}\}})"
            )
        return self._any


# --------------------------------------------------------------------------- regex tree -> EBNF

_CATEGORY_TEXT = {C.CATEGORY_DIGIT: r"\d", C.CATEGORY_NOT_DIGIT: r"\D", C.CATEGORY_SPACE: r"\s",
                  C.CATEGORY_NOT_SPACE: r"\S", C.CATEGORY_WORD: r"\w", C.CATEGORY_NOT_WORD: r"\W"}
def _unparse(items) -> str:
    return "".join(_unparse_item(op, av) for op, av in items)


def _unparse_item(op, av) -> str:
    if op == C.LITERAL:
        return lark_char(av)
    if op == C.NOT_LITERAL:
        return "[^" + lark_char(av, True) + "]"
    if op == C.IN:
        out = []
        for iop, iav in av:
            if iop == C.NEGATE:
                out.append("^")
            elif iop == C.LITERAL:
                out.append(lark_char(iav, True))
            elif iop == C.RANGE:
                out.append(lark_char(iav[0], True) + "-" + lark_char(iav[1], True))
            elif iop == C.CATEGORY:
                out.append(_CATEGORY_TEXT[iav])
            else:
                raise refuse(f"regex item {iop} in a terminal")
        return "[" + "".join(out) + "]"
    if op == C.CATEGORY:
        return _CATEGORY_TEXT[av]
    if op == C.BRANCH:
        return "(?:" + "|".join(_unparse(b.data) for b in av[1]) + ")"
    if op == C.SUBPATTERN:
        return "(?:" + _unparse(av[-1].data) + ")"
    if op in (C.MAX_REPEAT, C.MIN_REPEAT):
        lo, hi, sub = av
        items = list(sub.data)
        if len(items) == 1 and items[0][0] in (C.LITERAL, C.IN, C.CATEGORY, C.NOT_LITERAL):
            return _unparse(items) + _quantifier(lo, hi)
        return "(?:" + _unparse(items) + ")" + _quantifier(lo, hi)
    if op in (C.ASSERT, C.ASSERT_NOT, C.AT):
        raise refuse(
            "a lookaround (what exact not, overlapping oneOf, if/then/else and pattern with format compile to) "
            "would be part of a grammar terminal, and a terminal's automaton cannot see the text after it; "
            "such keywords need the regex path (a schema without recursive $ref)"
        )
    raise refuse(f"regex item {op} in a terminal")


def _ends_with_optional_space(items) -> bool:
    """Does the sequence end with a greedy optional space (the whitespace pattern `[ ]?`)?"""
    if not items:
        return False
    op, av = items[-1]
    if op != C.MAX_REPEAT or (av[0], av[1]) != (0, 1):
        return False
    inner = list(av[2].data)
    return len(inner) == 1 and inner[0] in ((C.LITERAL, _SPACE), (C.IN, [(C.LITERAL, _SPACE)]))


def _lark_text(regex: str) -> str:
    """`regex` as the body of a Lark /regex/ literal: `/` escaped, and a quote after an escaped
    backslash written as \\x22 (Lark's escape evaluation would read `\\\\"` as an escaped quote)."""
    out = []
    i = 0
    after_backslash = False
    while i < len(regex):
        if regex[i] == "\\":
            out.append(regex[i:i + 2])
            after_backslash = regex[i:i + 2] == "\\\\"
            i += 2
            continue
        out.append("\\x22" if regex[i] == '"' and after_backslash else "\\/" if regex[i] == "/" else regex[i])
        after_backslash = False
        i += 1
    return "".join(out)


def _quantifier(lo: int, hi: int) -> str:
    if hi == C.MAXREPEAT:
        return "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
    if (lo, hi) == (0, 1):
        return "?"
    return f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"


class _Converter:
    """Placeholder regex text -> Lark EBNF, collecting terminals."""

    def __init__(self, sink: GrammarSink, restructure: bool = False) -> None:
        self.sink = sink
        self.restructure = restructure  # rules for parts with alternatives (see seq_text)
        self.names = sink.names
        self.terms: dict[str, str] = {}  # regex -> terminal name
        self.trailing_space: set[str] = set()  # terminals ending with a greedy `[ ]?`
        self.number_regex = {ch: regex for regex, ch in sink.numbers.items()}  # placeholder -> regex
        self.numbers: dict[str, str] = {}  # rule name -> regex of the number rules used
        self.lexemes: dict[str, str] = {}  # rule name -> lexeme regex (see GrammarSink.lexeme)
        self.lexeme_placeholder: dict[str, str] = {}  # rule name -> its placeholder
        self._number_name: dict[str, str] = {}  # placeholder -> name of the rule for its language
        self._by_language: dict[tuple, str] = {}
        self._expansions: dict[str, int] = {}  # EBNF piece -> alternatives Lark expands it into
        self.alternatives = 0  # of the rules written so far, as Lark expands them
        self.helpers: dict[str, str] = {}  # EBNF of an optional part with alternatives -> its rule
        self.optional: dict[str, str] = {}  # EBNF `x?` -> x

    def helper(self, inner: str) -> str:
        """A rule of its own for `inner` (not nullable), so that Lark does not multiply the
        alternatives of the rule around it by those of `inner`."""
        name = self.helpers.get(inner)
        if name is None:
            name = self.helpers[inner] = f"h{len(self.helpers)}"
            self.alternatives += self.expansions(inner)
        return name

    def counted(self, text: str | None, n: int) -> str | None:
        """Record that Lark expands piece `text` into `n` alternatives; refuse too many (Lark's
        grammar compiler would take minutes: k optional pieces in a row are 2**k alternatives)."""
        if text is not None:
            if n > _MAX_EXPANSIONS:
                raise refuse(f"a rule would expand into more than {_MAX_EXPANSIONS:,} alternatives "
                              "(too many optional parts in a row)")
            self._expansions[text] = max(n, self._expansions.get(text, 1))
        return text

    def expansions(self, text: str) -> int:
        return self._expansions.get(text, 1)

    def seq_text(self, out: list[str]) -> str | None:
        n = 1
        for piece in out:
            n *= self.expansions(piece)
        if n > _TAILS_FROM and self.restructure:
            # alternatives multiply along a sequence: give the parts that have several a rule each
            out = [p if p in self.optional or self.expansions(p) == 1 else self.helper(p) for p in out]
            if sum(p in self.optional for p in out) > 1:
                return self.tails(out)
            n = math.prod(map(self.expansions, out))
        return self.counted(" ".join(out) or None, n)

    def tails(self, out: list[str]) -> str:
        """`a x? y? z? b` as `a t1` with `t1: x t2 | t2`, `t2: y t3 | t3`, `t3: z b | b`: linear
        in the number of optional parts where Lark's inline expansion is exponential."""
        first = next(i for i, p in enumerate(out) if p in self.optional)
        cur: list[str] = []  # what follows the current position, up to the end of the sequence
        for piece in reversed(out[first:]):
            if piece not in self.optional:
                cur.insert(0, piece)
                continue
            inner = self.optional[piece]
            n_cur = 1
            for p in cur:
                n_cur *= self.expansions(p)
            rest = " ".join(cur)
            body = self.counted(f"{inner} {rest} | {rest}" if rest else f"({inner})?",
                                (self.expansions(inner) + 1) * n_cur)
            cur = [self.helper(body)]
        return self.counted(" ".join(out[:first] + cur), math.prod(map(self.expansions, out[:first])))

    def number(self, ch: str) -> str:
        """The rule name for number placeholder `ch`: one rule per language, so that two
        spellings of one language never make an alternation ambiguous."""
        name = self._number_name.get(ch)
        if name is None:
            regex = self.number_regex[ch]
            try:
                d = grammar_checks.terminal_dfa(regex)
            except StateLimitError:
                raise refuse("a number rule's automaton is too large") from None
            name = self._by_language.setdefault((d.classes, tuple(d.table), d.finals), self.names[ch])
            self._number_name[ch] = name
        return name

    def merge_numbers(self, branches: list[list]) -> list[list]:
        """Alternatives that are numbers of different languages become one number rule (their
        union): alternatives of overlapping languages would make the grammar ambiguous."""
        singles = [b for b in branches if len(b) == 1 and b[0][0] == C.LITERAL and chr(b[0][1]) in self.number_regex]
        if len({self.number(chr(b[0][1])) for b in singles}) < 2:
            return branches
        union = "(?:" + "|".join(self.number_regex[chr(b[0][1])] for b in singles) + ")"
        ch = self.sink.number(union)
        self.number_regex[ch] = union
        rest = [b for b in branches if all(b is not x for x in singles)]
        return rest + [[(C.LITERAL, ord(ch))]]

    def term(self, regex: str, items=None) -> str:
        name = self.terms.get(regex)
        if name is None:
            name = self.terms[regex] = f"T{len(self.terms)}"
            if items is not None and _ends_with_optional_space(items):
                self.trailing_space.add(name)
        return name

    def has_placeholder(self, op, av) -> bool:
        if op == C.LITERAL:
            return chr(av) in self.names
        if op == C.IN:  # re's parser writes single-character alternatives as a set
            return any(iop == C.LITERAL and chr(iav) in self.names for iop, iav in av)
        if op == C.BRANCH:
            return any(self.seq_has(b.data) for b in av[1])
        if op == C.SUBPATTERN:
            return self.seq_has(av[-1].data)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            return self.seq_has(av[2].data)
        return False

    def seq_has(self, items) -> bool:
        return any(self.has_placeholder(op, av) for op, av in items)

    def starts_with_text(self, items: list, or_space: bool = False) -> bool:
        """Does the sequence start with a piece of text that cannot be empty, before any rule?
        With `or_space`, a piece that can be empty (such as `[ ]?`) counts too: text put in
        front of it makes it a terminal that cannot be empty."""
        lead = []
        for op, av in items:
            if self.has_placeholder(op, av):
                if not lead and op == C.BRANCH:
                    return all(self.starts_with_text(list(b.data), or_space) for b in av[1])
                break
            lead.append((op, av))
        return bool(lead) and (or_space or subpattern(lead).getwidth()[0] > 0)

    def seq(self, items) -> str | None:
        """EBNF of a sequence (None: the empty string)."""
        items = list(items)
        out: list[str] = []
        run: list = []
        for k, (op, av) in enumerate(items):
            if not self.has_placeholder(op, av):
                run.append((op, av))
                continue
            if run and subpattern(list(run)).getwidth()[0] == 0:
                # a piece that can be empty (re's parser factors a common `[ ]?` out of branches):
                # distribute it over what follows, so that no terminal can match the empty string
                piece = self.distribute(list(run), op, av, items[k + 1:])
                if piece:
                    out.append(piece)
                return self.seq_text(out)
            if run and op == C.BRANCH and all(self.starts_with_text(list(b.data), True) for b in av[1]):
                # re's parser moves a prefix common to the branches in front of them; put it back
                # in each, so that no branch's terminal starts at a different place than another's
                # (and no branch starts with a piece that can be empty, such as `\{(?:[ ]?r1|[ ]?r2)`)
                piece = self.branch([run + list(b.data) for b in av[1]])
                run = []
            else:
                self.flush(run, out)
                piece = self.item(op, av)
            if piece:
                out.append(piece)
        self.flush(run, out)
        return self.seq_text(out)

    def distribute(self, run: list, op, av, rest: list) -> str | None:
        """EBNF of `run item rest` where `run` can be empty, without an empty terminal."""
        if op == C.BRANCH:
            return self.branch([run + list(b.data) + rest for b in av[1]])
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            lo, hi, sub = av
            body = list(sub.data)
            if lo == 0:
                more = [] if hi == 1 else [(C.MAX_REPEAT, (0, hi if hi == C.MAXREPEAT else hi - 1, sub))]
                return self.branch([run + rest, run + body + more + rest])
            more = [] if hi == 1 else [(C.MAX_REPEAT, (lo - 1, hi if hi == C.MAXREPEAT else hi - 1, sub))]
            return self.seq(run + body + more + rest)
        if op == C.SUBPATTERN:
            return self.seq(run + list(av[-1].data) + rest)
        if op == C.LITERAL and not self.names[chr(av)]:
            return self.seq(run + rest)  # drop the cut rather than leave an empty piece
        texts = nonempty(run)
        if texts is not None:  # (run's nonempty texts) item rest | item rest
            return self.branch([t + [(op, av)] + rest for t in texts] + [[(op, av)] + rest])
        raise refuse("a piece between grammar rules can be empty: " + _unparse(run))

    def flush(self, run: list, out: list[str]) -> None:
        if run:
            if subpattern(list(run)).getwidth()[0] == 0:
                # (written as an optional terminal of its nonempty strings, such text let retries
                # that fail anyway reach Lark's analysis: github-workflows 5 s -> 7 s, no new pass)
                raise refuse("a piece between grammar rules can be empty: " + _unparse(run))
            out.extend(self.split_text(list(run)))
            run.clear()

    def split_text(self, run: list) -> list[str]:
        """EBNF pieces for text `run` (no rules, not empty): one terminal, or, when some match of
        that terminal extends to another (a closed object's optional members after its brace,
        `\\{ ?(?:"u" ?: ?null)?`; an array's optional item after its bracket), the trailing
        repeat as a piece of its own (`T0 (T1)?`, each part split again): the same language
        in pieces the lexer can tell apart, where one terminal would be refused."""
        regex = _unparse(run)
        flat = list(run)
        while flat[-1][0] == C.SUBPATTERN:  # `a(?:b(?:c)?)` ends as `abc?` does
            flat = flat[:-1] + list(flat[-1][1][-1].data)
        op, av = flat[-1]
        head = flat[:-1]
        if (op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[1] > av[0] and not _ends_with_optional_space(flat)
                and (not head or subpattern(head).getwidth()[0] > 0)):
            try:
                safe = grammar_checks.prefix_safe(grammar_checks.check_automaton(regex), False)
            except StateLimitError:
                safe = True  # too large to ask: one terminal, which check_grammar refuses by name
            if not safe:
                piece = self.item(op, av)
                return (self.split_text(head) if head else []) + ([piece] if piece else [])
        return [self.term(regex, run)]

    def branch(self, branches: list[list]) -> str | None:
        """EBNF of an alternation: the branches without rules form one terminal (nested
        alternations spliced in first, so that overlapping union branches are one terminal)."""
        branches = self.merge_numbers(_spliced(branches))
        free = [b for b in branches if not self.seq_has(b)]
        empty = any(not b for b in free)
        free = [b for b in free if b]
        alts = [self.term("(?:" + "|".join(_unparse(b) for b in free) + ")")] if free else []
        for b in branches:
            if self.seq_has(b):
                e = self.seq(b)
                if e is None:
                    empty = True
                else:
                    alts.append(e)
        if not alts:
            return None
        alts = list(dict.fromkeys(alts))
        return self.counted("(" + " | ".join(alts) + ")" + ("?" if empty else ""),
                            sum(map(self.expansions, alts)) + empty)

    def item(self, op, av) -> str | None:
        if op == C.LITERAL:
            if chr(av) in self.sink.lexemes:
                self.lexemes.setdefault(self.names[chr(av)], self.sink.lexemes[chr(av)])
                self.lexeme_placeholder[self.names[chr(av)]] = chr(av)
                return self.names[chr(av)]
            if chr(av) in self.number_regex:
                name = self.number(chr(av))
                self.numbers.setdefault(name, self.number_regex[chr(av)])
                return name
            return self.names[chr(av)] or None  # the cut has no rule
        if op == C.IN:  # a set with placeholders: the alternation it stands for
            chars = [[(iop, iav)] for iop, iav in av if iop == C.LITERAL and chr(iav) in self.names]
            others = [x for x in av if x[0] != C.LITERAL or chr(x[1]) not in self.names]
            if others and others[0][0] == C.NEGATE:
                raise refuse("a negated set of grammar rules")
            return self.branch(chars + ([[(C.IN, others)]] if others else []))
        if op == C.SUBPATTERN:
            inner = self.seq(av[-1].data)
            return None if inner is None else self.counted(f"({inner})", self.expansions(inner))
        if op == C.BRANCH:
            return self.branch([list(b.data) for b in av[1]])
        lo, hi, sub = av  # a repeat
        inner = self.seq(sub.data)
        if inner is None:
            return None
        n = self.expansions(inner)  # `*` and `+` are rules of their own, `x*` is `(x+)?`; `?`, `~` inline
        if n > 1 and (lo, hi) != (0, 1) and _counted_repeat(lo, hi, n) > _MAX_EXPANSIONS:
            inner, n = self.helper(inner), 1  # `x~600` (minItems) would be n**600 alternatives
        if hi == C.MAXREPEAT:
            self.alternatives += 2 * n  # the repetition's rule: `x` and `rule x`
            if lo <= 1:
                return self.counted(f"({inner})*", 2) if lo == 0 else f"({inner})+"
            return self.counted(f"({inner})~{lo} ({inner})*", _counted_repeat(lo, hi, n))
        if (lo, hi) == (0, 1):
            if n > 1 and self.restructure:
                inner = self.helper(inner)
            hoisted = n > 1 and self.restructure
            text = self.counted(f"{inner}?" if hoisted else f"({inner})?", 2 if hoisted else n + 1)
            self.optional[text] = inner if hoisted else f"({inner})"
            return text
        return self.counted(f"({inner})~{lo}" if lo == hi else f"({inner})~{lo}..{hi}", _counted_repeat(lo, hi, n))


def _spliced(branches: list[list]) -> list[list]:
    """The alternatives of an alternation, those that are themselves just an alternation (in a
    non-capturing group or not) replaced by its alternatives: `a|(?:b|c)` as `a|b|c`."""
    out: list[list] = []
    for b in branches:
        inner = b
        while len(inner) == 1 and inner[0][0] == C.SUBPATTERN and inner[0][1][0] is None and not any(inner[0][1][1:3]):
            inner = list(inner[0][1][-1].data)
        if len(inner) == 1 and inner[0][0] == C.BRANCH:
            out.extend(_spliced([list(x.data) for x in inner[0][1][1]]))
        else:
            out.append(b)
    return out


def _counted_repeat(lo: int, hi: int, n: int) -> int:
    """Alternatives Lark expands `x~lo..hi` into (`x*` for hi unbounded), x having n."""
    if hi == C.MAXREPEAT:
        return 2 * n ** min(lo, 64)
    return sum(n ** min(k, 64) for k in range(lo, min(hi, lo + 64) + 1))


def grammar_from_placeholders(root: str, sink: GrammarSink) -> str:
    """The Lark grammar text for root regex `root` and the sink's rules, checked (see module doc).

    Written as the regex is first; when that is refused, with a rule for each part with
    alternatives (Lark expands optional parts inline, exponentially), first with the terminals
    as they are, then with the separators merged into the terminals around them (rules of their
    own may need the longer terminals to decide, in one token, which part comes next)."""
    try:
        return _grammar_text(root, sink, False)
    except UnsupportedSchemaError as first:
        if "no finite value" in str(first) or "automaton is too large" in str(first):
            raise  # the retries have the same rules, or the same terminals grown by their separators
        for merge in ((False, True) if "expand into more than" in str(first) else (True,)):
            try:
                return _grammar_text(root, sink, True, merge)
            except UnsupportedSchemaError:
                pass
        raise first from None


def _grammar_text(root: str, sink: GrammarSink, restructure: bool, merge_cuts: bool | None = None) -> str:
    merge_cuts = restructure if merge_cuts is None else merge_cuts
    conv = _Converter(sink, restructure)
    limit = _MAX_MEMBER_RULE_ALTERNATIVES if sink.member_rules else \
        _MAX_MANY_ALTERNATIVES if sink.many_alternatives else _MAX_ALTERNATIVES
    lines = []
    done = [0]  # characters of placeholder regex converted so far

    def ebnf(regex: str, merge: bool = merge_cuts) -> str:
        done[0] += len(regex)
        out = conv.seq(list(_parsed(regex.replace(sink.cut, "") if merge else regex)))
        if out is None:
            raise refuse("an empty value")
        conv.alternatives += conv.expansions(out)
        if conv.alternatives > limit:
            if sink.alternatives_estimate is None:
                sink.alternatives_estimate = _estimate(conv.alternatives, done[0], root, sink)
            raise refuse(f"the grammar would have more than {limit:,} alternatives once Lark expands "
                          "its optional parts (too slow to analyse); the regex path caps nesting instead")
        return out

    lines.append(f"start: {ebnf(root)}")
    number_rules = []
    used = _reachable(root, sink)
    for ch, name in list(sink.names.items()):  # number rules may add names (merge_numbers)
        if ch in sink.bodies and ch in used:
            lines.append(f"{name}: {ebnf(sink.bodies[ch], merge_cuts and name not in ('any', 'compound'))}")
    for name, regex in conv.numbers.items():
        lines.append(f"{name}: {name}_0")
        number_rules.extend(automaton_rules.number_rules(name, regex, conv.term))
    lexemes, written = list(conv.lexemes.items()), set()
    end_copies: dict[str, str] = {}  # rule name -> the hole placeholder whose body it copies
    while lexemes:  # and the lexemes their holes stand for (GrammarSink.union)
        name, lexeme = lexemes.pop(0)
        if name not in written:
            written.add(name)
            holes = sink.holes.get(conv.lexeme_placeholder[name], {})
            # (a hole with a rule body gets a copy for where it ends the lexeme: end_copies)
            ends = {cp: f"{conv.names[h]}_end" for cp, h in holes.items() if h in sink.bodies}
            ended: set[str] = set()
            number_rules.extend(automaton_rules.lexeme_rules(
                name, lexeme, conv.term, {cp: conv.names[h] for cp, h in holes.items()}, ends, ended))
            end_copies.update((ends[cp], holes[cp]) for cp in ends if ends[cp] in ended)
            for h in holes.values():
                if h in sink.lexemes:
                    conv.lexeme_placeholder[sink.names[h]] = h
                    lexemes.append((sink.names[h], sink.lexemes[h]))
    for end, h in end_copies.items():
        lines.append(f"{end}: {ebnf(sink.bodies[h], merge_cuts and sink.names[h] not in ('any', 'compound'))}")
    lines.extend(f"{name}: {inner}" for inner, name in conv.helpers.items())
    lines.extend(number_rules)
    for regex, name in conv.terms.items():
        lines.append(f"{name}: /{_lark_text(regex)}/")
    text = "\n".join(lines) + "\n"
    check_grammar(text, conv.terms, conv.trailing_space)
    return text


@functools.lru_cache(maxsize=2048)
def _parsed(regex: str) -> tuple:
    """The items of re's parse of a placeholder regex, cached by text (only read): every retry
    converts the same rule bodies again, and parsing was most of a conversion's time (a
    Kubernetes NetworkPolicyList's grammar attempts: 6.3 s of 8.4 s)."""
    try:
        return tuple(sre_parse(regex).data)
    except (RecursionError, OverflowError):
        raise refuse("the schema nests too deeply") from None


def _estimate(alternatives: int, done: int, root: str, sink: GrammarSink) -> int:
    """The alternatives of the whole grammar, extrapolated from those of its first `done`
    characters of placeholder regex: cheap (no more conversion) and rough (it underestimates
    rules that expand more than those converted so far), but apart for the shapes it tells apart:
    many small objects (compose-spec: 7,278) and wide objects whose optional members multiply
    (the PodSpec-shaped tests: 18,573 and 38,714)."""
    total = len(root) + sum(len(sink.bodies[ch]) for ch in _reachable(root, sink) if ch in sink.bodies)
    return alternatives * max(total, done) // max(done, 1)


def _reachable(root: str, sink: GrammarSink) -> set[str]:
    """The placeholders the root regex uses, directly or through rule bodies: a rule whose
    only uses were written into a value lexeme (GrammarSink.value_lexeme) is left out."""
    seen: set[str] = set()
    todo = [root]
    while todo:
        for ch in set(todo.pop()) & sink.names.keys():
            if ch not in seen:
                seen.add(ch)
                if ch in sink.bodies:
                    todo.append(sink.bodies[ch])
                todo.extend(sink.holes.get(ch, {}).values())
    return seen


def schema_uses_placeholders(schema: Any) -> bool:
    """Does the schema text itself contain characters of the placeholder range?"""
    text = json.dumps(schema, ensure_ascii=False)
    return any(ord(ch) >= PLACEHOLDER_BASE for ch in text)
