"""Lark grammar text read into the intermediate form (`ir.grammar.Grammar`) by Lark's own loader.

Lark's grammar loader (`lark.load_grammar`) does the reading: `%import` (common and local
files), `%ignore`, `%declare`-free terminals, templates, `?rule` and `_rule` (shapes of the
tree only, not of the language), EBNF operators and `{m,n}` on rules. Its terminals become
lexemes (their regex text, flags included) and its rules productions. None of Lark's parsers
or lexers is used: the engine reads the grammar's own language, with every lexeme allowed to
end wherever it is complete (so terminal priorities, which only steer Lark's lexer, do not
change the language).
"""

from __future__ import annotations

from typing import Any

from ..errors import GrammarError, RegexError
from ..regex.parser import has_lookaround
from ..regex.parser import parse as parse_regex
from ..ir.grammar import Choice, Grammar, Lex, Ref, Seq, Terminal

__all__ = ["read_lark"]


def read_lark(text: str, *, start: str = "start", import_paths: Any = ()) -> Grammar:
    """The Grammar of Lark text `text` with start rule `start` (GrammarError when Lark refuses it)."""
    if not isinstance(text, str):
        raise GrammarError(f"read_lark: the grammar must be a str of Lark text, got {type(text).__name__}")
    from lark.exceptions import GrammarError as LarkGrammarError
    from lark.exceptions import LarkError
    from lark.load_grammar import load_grammar

    try:
        loaded, _ = load_grammar(text, "<grammar>", list(import_paths), False)
        terminals, rules, ignore = loaded.compile([start], set())
    except (LarkError, LarkGrammarError) as error:
        raise GrammarError(f"Lark grammar: {error}".strip()) from None
    except KeyError as error:
        raise GrammarError(f"Lark grammar: rule or terminal {error} is used but not defined") from None
    grammar = Grammar(start=start)
    lexeme_index: dict[str, int] = {}
    for term in terminals:
        pattern = term.pattern.to_regexp()
        try:
            looks = has_lookaround(parse_regex(pattern))
        except RegexError as error:
            raise GrammarError(f"Lark grammar: terminal {term.name}: {error}") from None
        if looks:
            raise GrammarError(
                f"Lark grammar: terminal {term.name} /{pattern}/ has a lookahead or an end anchor: in Lark it reads "
                "text past the terminal, which a lexeme cannot; write the condition into the rules instead"
            )
        lexeme_index[term.name] = grammar.add_lexeme(Terminal(term.name, pattern))
    alternatives: dict[str, list] = {}
    for rule in rules:
        items = []
        for sym in rule.expansion:
            if sym.is_term:
                if sym.name not in lexeme_index:
                    raise GrammarError(f"Lark grammar: terminal {sym.name} is used but not defined")
                items.append(Lex(lexeme_index[sym.name]))
            else:
                items.append(Ref(sym.name))
        alternatives.setdefault(rule.origin.name, []).append(Seq(tuple(items)))
    if start not in alternatives:
        raise GrammarError(f"Lark grammar: no rule named {start!r} (the start rule)")
    for name, alts in alternatives.items():
        grammar.rules[str(name)] = alts[0] if len(alts) == 1 else Choice(tuple(alts))
    grammar.ignore = [lexeme_index[name] for name in ignore if name in lexeme_index]
    missing = [name for name in ignore if name not in lexeme_index]
    if missing:
        raise GrammarError(f"Lark grammar: %ignore names {', '.join(missing)}, which is not a terminal")
    return grammar
