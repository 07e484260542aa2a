"""Lark grammar text read into the intermediate form (`ir.grammar.Grammar`) by Lark's own loader.

Lark's grammar loader (`lark.load_grammar`) does the reading: `%import` (Lark's `common`, the
bundled grammars, `import_paths`, and files relative to `path`'s folder), `%ignore`, `%override`,
`%extend`, templates, `?rule` and `_rule` (shapes of the tree only, not of the language), EBNF
operators, `~ m..n`, `"..."i`. llguidance's extensions are rewritten into plain Lark first
(module `lark_dialect`): `{m,n}` repeats, `&` / `~` in terminals, `<special>` tokens, `%json`.
Lark's terminals become lexemes (their regex text, flags included) and its rules productions.
None of Lark's parsers or lexers is used: the engine reads the grammar's own language, with every
lexeme allowed to end wherever it is complete (so terminal priorities, which only steer Lark's
lexer, do not change the language).
"""

from __future__ import annotations

import os
import re
from typing import Any, Optional

from ..errors import GrammarError, RegexError, UnsupportedSchemaError
from ..ir.grammar import Choice, Grammar, Lex, Ref, Repeat, Seq, Terminal
from ..ir.lexemes import Lexeme, from_regex
from ..regex.parser import has_lookaround
from ..regex.parser import parse as parse_regex
from . import GRAMMAR_PATH
from .lark_dialect import Rewritten, rewrite_dialect
from .terminal_expressions import expression_lexeme

__all__ = ["JSON_WHITESPACE", "read_lark", "read_lark_file"]

#: whitespace a `%json` value may hold between its tokens (llguidance's whitespace_flexible default)
JSON_WHITESPACE = r"[ \t\n\r]*"

_AT = re.compile(r"at line (\d+),? col(?:umn)? (\d+)")

#: Lark's `common` terminals written with a lookbehind or a lazy quantifier, as the language Lark's
#: lexers give them (the first match: a string ends at its first unescaped quote, a comment at
#: its first */), written without either
LARK_COMMON_EQUIVALENTS = {
    '".*?(?<!\\\\)(\\\\\\\\)*?"': r'"(?:[^"\\\n]|\\[^\n])*"',  # ESCAPED_STRING
    "/\\*(.|\n)*?\\*/": r"/\*(?:[^*]|\*+[^*/])*\*+/",  # C_COMMENT
}


def read_lark_file(path: Any, *, start: str = "start", import_paths: Any = ()) -> Grammar:
    """The Grammar of the Lark file at `path` (relative `%import .name` look in its folder)."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return read_lark(text, start=start, import_paths=import_paths, path=path)


def read_lark(text: str, *, start: str = "start", import_paths: Any = (), path: Optional[Any] = None) -> Grammar:
    """The Grammar of Lark text `text` with start rule `start` (GrammarError when Lark refuses it,
    with the line and column Lark gives). `path`: the file the text comes from, for relative imports."""
    if not isinstance(text, str):
        raise GrammarError(f"read_lark: the grammar must be a str of Lark text, got {type(text).__name__}")
    from lark.exceptions import LarkError
    from lark.load_grammar import load_grammar

    rewritten = rewrite_dialect(text)
    name = os.path.abspath(os.fspath(path)) if path is not None else "<grammar>"
    paths = [os.fspath(p) for p in import_paths] + [GRAMMAR_PATH]
    try:
        loaded, _ = load_grammar(rewritten.text, name, paths, False)
        terminals, rules, ignore = loaded.compile([start], set(rewritten.keep))
    except LarkError as error:
        raise _lark_error(error, rewritten, name) from None
    except KeyError as error:
        raise GrammarError(f"Lark grammar: rule or terminal {error} is used but not defined") from None
    except OSError as error:
        raise GrammarError(f"Lark grammar: an %import names a grammar file that cannot be read ({error})") from None
    builder = _Builder(rewritten, {term.name: term for term in terminals})
    grammar = builder.grammar
    grammar.start = start
    alternatives: dict[str, list] = {}
    for rule in rules:
        items = []
        for sym in rule.expansion:
            items.append(builder.item(sym.name, bool(ignore)) if sym.is_term else Ref(sym.name))
        alternatives.setdefault(str(rule.origin.name), []).append(Seq(tuple(items)))
    if start not in alternatives:
        raise GrammarError(f"Lark grammar: no rule named {start!r} (the start rule)")
    for rule_name, alts in alternatives.items():
        grammar.rules[rule_name] = alts[0] if len(alts) == 1 else Choice(tuple(alts))
    missing = [term for term in ignore if term not in builder.terminals]
    if missing:
        raise GrammarError(f"Lark grammar: %ignore names {', '.join(missing)}, which is not a terminal")
    grammar.ignore = [builder.lexeme(term) for term in ignore]
    return grammar


def _lark_error(error: Exception, rewritten: Rewritten, name: str) -> GrammarError:
    """Lark's error as a GrammarError at the line and column of the original text."""
    message = str(error).strip()
    line = getattr(error, "line", None)
    column = getattr(error, "column", None)
    found = _AT.search(message)
    if found is not None:
        line, column = int(found.group(1)), int(found.group(2))
    head = message.split("\n\n")[0].strip()
    other_file = f" in {name}" not in head and " in " in head and "Unexpected input" in head
    if not isinstance(line, int) or not isinstance(column, int) or line < 1 or other_file:
        return GrammarError(f"Lark grammar: {_unplaceholder(head, rewritten)}")
    lines = rewritten.text.split("\n")
    offset = sum(len(x) + 1 for x in lines[: line - 1]) + column - 1
    line, column = rewritten.locate(offset)
    head = _AT.sub(f"at line {line} column {column}", head)
    if not _AT.search(head):
        head += f", at line {line} column {column}"
    source = rewritten.original.split("\n")[line - 1] if line - 1 < len(rewritten.original.split("\n")) else ""
    context = f"\n\n{source}\n{' ' * (column - 1)}^"
    return GrammarError(f"Lark grammar: {_unplaceholder(head, rewritten)}{context}", line, column)


def _unplaceholder(message: str, rewritten: Rewritten) -> str:
    for string, term in rewritten.placeholders.items():
        message = message.replace(string, term)
    return message


class _Builder:
    """Lexemes of the Grammar, added on first use: Lark's terminals, expressions, special tokens, schemas."""

    def __init__(self, rewritten: Rewritten, terminals: dict):
        self.rewritten = rewritten
        self.terminals = terminals
        self.grammar = Grammar()
        self.index: dict[str, int] = {}
        self.exprs: dict[str, Lexeme] = {}
        self.resolving: list[str] = []

    def item(self, name: str, has_ignore: bool) -> Any:
        """The body item of terminal `name`: its lexeme, or the start rule of a spliced `%json` grammar."""
        if name in self.rewritten.schemas:
            found = self.index.get(name)
            if found is None:
                rule, schema = self.rewritten.schemas[name]
                body = _schema_body(rule, schema, has_ignore)
                if isinstance(body, Terminal):
                    found = self.index[name] = self.grammar.add_lexeme(body)
                else:
                    found = self.index[name] = self.splice(name, body)
            return Ref(found) if isinstance(found, str) else Lex(found)
        return Lex(self.lexeme(name))

    def splice(self, prefix: str, sub: Grammar) -> str:
        """Add the rules and lexemes of `sub` under names `prefix__rule`; the name of its start rule."""
        lexemes = [self.grammar.add_lexeme(lx) for lx in sub.lexemes]

        def moved(body: Any) -> Any:
            if isinstance(body, Ref):
                return Ref(f"{prefix}__{body.name}")
            if isinstance(body, Lex):
                return Lex(lexemes[body.index])
            if isinstance(body, Repeat):
                return Repeat(moved(body.item), body.lo, body.hi)
            return type(body)(tuple(moved(x) for x in body.items))

        for rule_name, body in sub.rules.items():
            self.grammar.rules[f"{prefix}__{rule_name}"] = moved(body)
        return f"{prefix}__{sub.start}"

    def lexeme(self, name: str) -> int:
        """The lexeme index of terminal `name`."""
        found = self.index.get(name)
        if found is None:
            found = self.index[name] = self.grammar.add_lexeme(self.terminal(name))
        return found

    def terminal(self, name: str) -> Terminal:
        rw = self.rewritten
        if name in rw.specials:
            spec = rw.specials[name]
            shown = spec if isinstance(spec, str) else "<[" + ",".join(
                f"{lo}" if lo == hi else f"{lo}-{'MAX' if hi is None else hi}" for lo, hi in spec) + "]>"
            return Terminal(shown, "", token=spec)
        if name in rw.expressions:
            return Terminal(name, rw.expressions[name][1], expr=self.expression(name))
        if name not in self.terminals:
            raise GrammarError(f"Lark grammar: terminal {name} is used but not defined")
        return Terminal(name, _lark_pattern(name, self.terminals[name]))

    def expression(self, name: str) -> Lexeme:
        """The lexeme of a terminal or an atom of an expression terminal."""
        found = self.exprs.get(name)
        if found is not None:
            return found
        if name in self.resolving:
            raise GrammarError(f"Lark grammar: terminal {name} refers to itself ({' -> '.join(self.resolving + [name])})")
        if name in self.rewritten.expressions:
            self.resolving.append(name)
            try:
                found = expression_lexeme(self.rewritten.expressions[name][0], self.expression)
            finally:
                self.resolving.pop()
        elif name in self.terminals:
            pattern = _lark_pattern(name, self.terminals[name])
            try:
                found = from_regex(pattern)
            except RegexError as error:
                raise GrammarError(f"Lark grammar: terminal {name}: {error}") from None
        else:
            raise GrammarError(f"Lark grammar: terminal {name} is used but not defined")
        self.exprs[name] = found
        return found


def _lark_pattern(name: str, terminal: Any) -> str:
    """The regex of a Lark terminal as a lexeme's (fullmatch) pattern; GrammarError for a lookahead,
    a lookbehind or a lazy quantifier (except Lark's common terminals, rewritten without them)."""
    pattern = terminal.pattern.to_regexp()
    pattern = LARK_COMMON_EQUIVALENTS.get(pattern, pattern)
    if _has_lazy_repeat(pattern):
        raise GrammarError(
            f"Lark grammar: terminal {name} /{pattern}/ has a lazy quantifier (*?, +?, ??, {{m,n}}?): a lexeme may "
            "end wherever it is complete, so laziness would not apply; write the terminal without it (for "
            "example [^\"]* before a closing quote, or & ~/(?s:.*)END(?s:.*)/ before a delimiter)"
        )
    try:
        looks = has_lookaround(parse_regex(pattern))
    except RegexError as error:
        raise GrammarError(f"Lark grammar: terminal {name}: {error}") from None
    if looks:
        raise GrammarError(
            f"Lark grammar: terminal {name} /{pattern}/ has a lookahead or an end anchor: in Lark it reads "
            "text past the terminal, which a lexeme cannot; write the condition into the rules instead "
            "(or as & and ~ of terminals)"
        )
    return pattern


def _has_lazy_repeat(pattern: str) -> bool:
    """Does the regex hold a lazy quantifier (re's MIN_REPEAT)?"""
    from ..regex import sre

    try:
        tree = sre.parse(pattern)
    except re.error:
        return False  # (reported by the regex parser with its position)
    stack = [tree]
    while stack:
        node = stack.pop()
        for op, av in node:
            if op is sre.constants.MIN_REPEAT:
                return True
            if isinstance(av, (tuple, list)):
                for x in av:
                    if isinstance(x, sre.parser.SubPattern):
                        stack.append(x)
                    elif isinstance(x, list):
                        stack.extend(y for y in x if isinstance(y, sre.parser.SubPattern))
            elif isinstance(av, sre.parser.SubPattern):
                stack.append(av)
    return False


def _schema_body(rule: str, schema: Any, has_ignore: bool) -> Any:
    """A `%json` body of rule `rule`: one lexeme, the schema's regex with JSON whitespace, where the
    schema is regular and needs no lookahead; else the rules of its engine path (whitespace `[ ]?`),
    a Grammar to splice in (refused when the host grammar has %ignore, which would reach inside)."""
    from ..json_schema import compile_json_schema

    try:
        compiled = compile_json_schema(schema, JSON_WHITESPACE, path="regex", value_checks=False)
    except UnsupportedSchemaError as error:
        raise GrammarError(f"Lark grammar: rule {rule}: %json schema: {error}") from None
    if compiled.depth_capped:
        why = f"is not regular ({compiled.reason})"
    elif has_lookaround(parse_regex(compiled.regex)):
        why = ("needs an intersection or a complement of values (not, overlapping oneOf, if/then/else, pattern "
               "with lengths or format, contains), which the regex path writes as lookaheads")
    else:
        return Terminal(f"{rule}: %json", compiled.regex)
    if has_ignore:
        raise GrammarError(
            f"Lark grammar: rule {rule}: the %json schema {why}, so it is spliced in as grammar rules, and the "
            "grammar's %ignore would then apply between its tokens; drop the %ignore or make the schema regular"
        )
    try:
        compiled = compile_json_schema(schema, path="engine", value_checks=False)
    except UnsupportedSchemaError as error:
        raise GrammarError(f"Lark grammar: rule {rule}: %json schema: the schema {why}, and its engine path "
                           f"refuses it: {error}") from None
    return compiled.engine

