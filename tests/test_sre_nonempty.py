"""`regex.sre.nonempty`: the nonempty strings of a regex that can match "", as sequences of parse
items (json_schema.grammar writes text that can be empty before a rule with them:
tests/test_json_schema_negation_in_context.py). Oracle: Python's `re.fullmatch` over every
string of a small alphabet."""

from __future__ import annotations

import itertools
import re

import pytest

from tokenguide.regex.sre import constants as C
from tokenguide.regex.sre import nonempty, parse

PATTERNS = ["(?:a|)", "a?b*", "(?:ab|c?)?", " ?(?:ab|c?)?", "(?:a?b?){0,3}", "(?:(?:a|)(?:b|))c?", "a*?b??",
            "(?:a|b?c?)*", "(?:(?:ab)?|c)(?:a|)"]


def _spelled(items) -> str:
    """Regex text of parse items (the ops PATTERNS use), to ask `re` about them."""
    out = []
    for op, av in items:
        if op == C.LITERAL:
            out.append(re.escape(chr(av)))
        elif op == C.BRANCH:
            out.append("(?:" + "|".join(_spelled(b.data) for b in av[1]) + ")")
        elif op == C.SUBPATTERN:
            out.append("(?:" + _spelled(av[-1].data) + ")")
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
            lo, hi, sub = av
            top = "" if hi == C.MAXREPEAT else str(hi)
            out.append("(?:" + _spelled(sub.data) + "){" + f"{lo},{top}" + "}" + ("?" if op == C.MIN_REPEAT else ""))
        elif op == C.IN:
            out.append("[" + "".join(re.escape(chr(v)) for o, v in av) + "]")
        else:
            raise AssertionError(op)
    return "".join(out)


def _strings(alphabet: str, longest: int):
    for n in range(longest + 1):
        for chars in itertools.product(alphabet, repeat=n):
            yield "".join(chars)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_nonempty_is_the_pattern_less_the_empty_string(pattern):
    parts = nonempty(list(parse(pattern).data))
    assert parts
    union = re.compile("|".join(f"(?:{_spelled(p)})" for p in parts))
    for s in _strings("abc ", 5):
        assert bool(union.fullmatch(s)) == (s != "" and bool(re.fullmatch(pattern, s))), s


def test_anchors_and_lookarounds_are_declined():
    assert nonempty(list(parse("(?:a|)(?=b)").data)) is None
    assert nonempty(list(parse("(?:^|a)").data)) is None
