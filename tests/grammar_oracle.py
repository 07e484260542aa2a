"""Lark itself as the oracle for a grammar's language, and the compile paths' acceptors.

Built as the CFG guides build Lark (LALR, contextual lexer) but without interegular's
terminal-collision report, which can take minutes on wide Unicode classes.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any, Callable

import lark
import lark.lexer


class CompiledReader:
    """A CompiledSchema read through the parser's interface: `parse(text)` raises LarkError
    where the compiled schema (its engine recogniser or regex) does not accept `text`."""

    def __init__(self, compiled: Any):
        self.compiled = compiled

    def parse(self, text: str) -> None:
        if not self.compiled.accepts(text):
            raise lark.exceptions.LarkError(f"not accepted by the {self.compiled.path} path: {text[:60]!r}")


def lark_parser(grammar: Any) -> Any:
    """Lark's LALR parser (contextual lexer) for Lark text `grammar`, without the collision
    report; for a CompiledSchema, a `CompiledReader` of it."""
    if not isinstance(grammar, str):
        return CompiledReader(grammar)
    old = lark.lexer.has_interegular
    lark.lexer.has_interegular = False
    try:
        return lark.Lark(grammar, parser="lalr", lexer="contextual")
    finally:
        lark.lexer.has_interegular = old


def lark_accepts(parser: lark.Lark, text: str) -> bool:
    """Does Lark parse `text` whole?"""
    try:
        parser.parse(text)
    except lark.exceptions.LarkError:
        return False
    return True


def grammar_acceptor(grammar: str) -> Callable[[str], bool]:
    """text -> accepted by Lark's parser of `grammar`."""
    parser = lark_parser(grammar)
    return lambda text: lark_accepts(parser, text)


def acceptor(compiled: Any) -> Callable[[str], bool]:
    """text -> accepted, for a CompiledSchema: re.fullmatch on the regex path, the engine's
    recogniser on the engine path; and, when the compile left uniqueItems to check
    on the values, that check."""
    if compiled.path == "regex":
        rx = re.compile(compiled.regex)
        base = lambda text: rx.fullmatch(text) is not None  # noqa: E731
    else:
        base = dataclasses.replace(compiled, checks=None).accepts  # the engine's recogniser alone
    if compiled.checks is None:
        return base
    from tokenguide.json_schema.json_values import parse_document
    from tokenguide.json_schema.value_checks import find_violation

    return lambda text: base(text) and find_violation(compiled.checks, parse_document(text)) is None


def schema_lark(name: str) -> str:
    """The Lark text the JSON Schema grammar path wrote for the schema named `name` in
    fixtures/schema_lark_grammars.json: realistic LALR inputs for the Lark guides' tests, kept as
    data (independent of the JSON Schema compiler's paths)."""
    fixtures = Path(__file__).resolve().parent / "fixtures" / "schema_lark_grammars.json"
    return json.loads(fixtures.read_text(encoding="utf-8"))[name]["lark"]
