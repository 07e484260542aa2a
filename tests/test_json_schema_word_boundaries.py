"""`\\b`/`\\B` in a pattern whose neighbours decide it (json_schema.word_boundaries): dropped where
it always holds, so the pattern compiles on both paths; refused by name where it may or may not
hold (a repeat's body meeting its own start) or never holds. At a search's edge, the character
beyond the edge is read as part of the match. AWS
CloudFormation writes `cron\\((\\b[0-5]?[0-9]\\b) …`, `^(\\bTSTALIASID\\b|[0-9a-zA-Z]+)$` and
`arn:\\b(aws|aws-cn)\\b:`. Judged against jsonschema: Python's re reads `\\b` over ASCII strings as
ECMA-262 does (the strings here are ASCII: re's Unicode `\\w` would take `é`, ECMA's does not)."""

from __future__ import annotations

import random

import pytest
from test_json_schema_pattern_lookahead import pattern_agrees_with_jsonschema

from tokenguide.errors import UnsupportedSchemaError
from tokenguide.json_schema import compile_json_schema

PATTERNS = {
    "^(\\bTSTALIASID\\b|[0-9a-zA-Z]+)$": ["TSTALIASID", "ab9", "TST-x", ""],
    "^([a-zA-Z][-a-zA-Z0-9]*)|(arn:\\b(aws|aws-cn)\\b:[-a-zA-Z0-9:/._+]*)$": [
        "arn:aws:x/y", "1arn:aws-cn:", "9", "-arn:aws:", "arn:aws-us:"],
    "cron\\((\\b[0-5]?[0-9]\\b) (\\b2[0-3]\\b|\\b[0-1]?[0-9]\\b)\\)": ["cron(5 23)", "xcron(59 7)", "cron(60 1)", "cron(5 24)"],
    "^a\\b-$": ["a-", "a", "ab-"],
    "^a\\Bb$": ["ab", "a b"],
    "x(?=\\b-)": ["x-", "ax-", "xa"],  # (inside a lookahead: x before, - after)
    "^(-\\bab)+$": ["-ab", "-ab-ab", "ab", "-ab-"],  # (each iteration's - before its own a)
    "^(ab\\b-)+$": ["ab-", "ab-ab-", "ab"],
    # at a search's edges: the character beyond the edge is read as part of the match
    "\\b([0-9]|[0-9][0-9])\\b": ["5", "a5", "a 5", "x-59-", "599", "5a", "59"],
    "\\Bab": ["xab", "ab", "-ab", "xxab"],
    "ab\\b": ["ab", "ab-", "abx", "xab "],
    "x-|\\bab\\B": ["abx", "ab", "-abx", "x-"],
}
ALPHABET = ["a", "b", "x", "0", "5", "9", "-", " ", "(", ")", ":", "_", "T", "S"]


def _strings(seed: int, given: list[str], n: int) -> list[str]:
    rng = random.Random(seed)
    return given + ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 7))) for _ in range(n)]


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize("path", ["regex", "engine"])
def test_a_decided_word_boundary_agrees_with_jsonschema(pattern, path):
    pattern_agrees_with_jsonschema(pattern, path, _strings(sorted(PATTERNS).index(pattern), PATTERNS[pattern], 200))


@pytest.mark.parametrize("pattern", [
    "\\b(a|-)",  # at the search's start, but the match's own side is either kind
    "^(\\bab)+$",  # a later iteration follows a b, the first the start
    "((25[0-5]|1\\d|\\d)\\.?\\b){4}",  # an optional dot before it
    "^a\\bb$",  # never holds: left to the refusal, not guessed
    "^a(?<=\\ba)$",  # inside a lookbehind
])
def test_an_undecided_word_boundary_is_refused_by_name(pattern):
    for path in ("regex", "engine"):
        with pytest.raises(UnsupportedSchemaError) as info:
            compile_json_schema({"type": "string", "pattern": pattern}, path=path)
        assert info.value.keyword == "pattern"
