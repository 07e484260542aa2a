"""Regex trees with lookaheads as lexemes: each lookahead becomes an intersection or a complement.

A lexeme matches whole texts, so a lookahead `(?=X)` (or `(?!X)`) at some point of it says that
the rest of the lexeme's text has (has not) a prefix in X, and `\\Z` that the rest is empty. The
tree is read right to left with its continuation K (the language of what follows, to the end):
`(?=X)` before K is `K & X.*`, `(?!X)` is `K & ~(X.*)`, `\\Z` is the empty string when K may be
empty (else nothing). Exact for fullmatch; a lookahead under an unbounded repeat is refused
(LookaroundInLexemeError), one under a bounded repeat is unrolled up to MAX_UNROLL copies.
"""

from __future__ import annotations

from ..regex.parser import parse as parse_regex
from .lexemes import (
    ANY_TEXT, EMPTY, EPSILON, Lexeme, LookaroundInLexemeError, alt, from_regex_tree, inter, neg, seq,
)

__all__ = ["MAX_UNROLL", "has_lookaround", "lexeme_with_lookaheads", "tree_with_lookaheads"]

#: copies of a repeated part that holds a lookahead, at most (beyond: refused)
MAX_UNROLL = 32


def has_lookaround(tree: tuple) -> bool:
    """Does the regex tree hold a lookahead or an end anchor anywhere?"""
    stack = [tree]
    while stack:
        node = stack.pop()
        kind = node[0]
        if kind in ("look", "end"):
            return True
        if kind in ("seq", "alt"):
            stack.extend(node[1])
        elif kind == "rep":
            stack.append(node[1])
    return False


def lexeme_with_lookaheads(pattern: str) -> Lexeme:
    """The lexeme of a Python regex (fullmatch meaning), its lookaheads and `\\Z` included."""
    return tree_with_lookaheads(parse_regex(pattern), pattern)


def tree_with_lookaheads(tree: tuple, pattern: str | None = None) -> Lexeme:
    """The lexeme of a `regex.parser.parse` tree (fullmatch), lookaheads as intersections."""
    looks: dict[int, bool] = {}

    def looking(node: tuple) -> bool:
        found = looks.get(id(node))
        if found is None:
            found = looks[id(node)] = has_lookaround(node)
        return found

    def conv(node: tuple, rest: Lexeme) -> Lexeme:
        if rest is EMPTY:
            return EMPTY
        if not looking(node):
            return seq(from_regex_tree(node, pattern), rest)
        kind = node[0]
        if kind == "end":
            return EPSILON if rest.nullable else EMPTY
        if kind == "look":
            body = conv(node[2], ANY_TEXT)
            return inter(rest, body if node[1] else neg(body))
        if kind == "seq":
            for item in reversed(node[1]):
                rest = conv(item, rest)
            return rest
        if kind == "alt":
            return alt(*(conv(item, rest) for item in node[1]))
        if kind == "rep":
            item, lo, hi = node[1], node[2], node[3]
            if hi is None or hi > MAX_UNROLL:
                raise LookaroundInLexemeError(
                    "a lookahead inside a repeat " + ("without a bound" if hi is None else f"of more than {MAX_UNROLL}")
                    + " has no lexeme form here (the continuation of each copy differs)", pattern, None)
            tail = rest
            for _ in range(hi - lo):
                tail = alt(rest, conv(item, tail))
            for _ in range(lo):
                tail = conv(item, tail)
            return tail
        raise LookaroundInLexemeError(f"unknown regex tree node {kind!r}", pattern, None)

    return conv(tree, EPSILON)

