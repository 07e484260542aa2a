"""The sink of the emitter's grammar mode: placeholders that stand for grammar rules.

In grammar mode (the engine path) a `$ref` back to a schema being expanded, a free-form value
and every number are written as *placeholders* (private-use characters U+F0000...) that stand
for rules; strings whose keywords intersect and whole values with lookaheads (`not`,
overlapping oneOf, if/then/else) are *lexemes* from their exact automata (modules `lexemes`,
`holes`), and objects with many optional members left-linear rules (module `member_rules`).
`RuleSink` hands the placeholders out and keeps the rules' bodies; `engine_grammar` lowers the
root regex and the rules to an ir.grammar.Grammar.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import UnsupportedSchemaError
from . import holes as holes_mod
from . import member_rules
from .lexemes import HOLE_CHARS, MAX_LEXEME_STATES, check_text_size, finite_texts, lexeme_dfa, refuse
from .text import NULL, NUMBER, STRING

__all__ = ["PLACEHOLDER_BASE", "PLACEHOLDER_END", "RuleSink", "schema_uses_placeholders"]

PLACEHOLDER_BASE = 0xF0000
_PLACEHOLDER_LIMIT = 0xFFFF  # placeholders per schema
PLACEHOLDER_END = PLACEHOLDER_BASE + _PLACEHOLDER_LIMIT - 1  # the last placeholder a schema may use


class RuleSink:
    """Hands out placeholders for rules while the emitter runs in grammar mode."""

    def __init__(self, ws: str) -> None:
        self.ws = ws
        self.engine = True  # (strings.counted_string: one counted lexeme, as on the regex path)
        self.open_branches: dict[str, int] = {}  # oneOf pointer -> objects the rewrite wrote for it (one_of caps them)
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
        `extra` members, as left-linear rules (module `member_rules`): one rule per member, not
        the object's text written out around every optional member."""
        return member_rules.object_members(self, sep, items, extra)

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
        can see the hole read another way). With `holes` (no lookahead may see them), the rules
        that are not regular stay rules, read as one symbol each."""
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
        """One value lexeme for the alternation of `parts` when some part is a lexeme (a value
        lexeme read beside other rules' text); None when they stay an alternation."""
        if len(parts) < 2 or not any(self.has_lexeme(p) for p in parts):
            return None
        try:
            return self.value_lexeme("(?:" + "|".join(parts) + ")", keyword, ptr)
        except UnsupportedSchemaError:
            return None

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


def schema_uses_placeholders(schema: Any) -> bool:
    """Does the schema text itself contain characters of the placeholder range?"""
    text = json.dumps(schema, ensure_ascii=False)
    return any(ord(ch) >= PLACEHOLDER_BASE for ch in text)
