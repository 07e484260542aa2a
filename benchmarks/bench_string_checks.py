"""Strings checked on the values: what `format: "regex"` and long pattern lengths cost per mask.

    python -m benchmarks.bench_string_checks [--rounds 3]

For each schema, a GPT-2 `Guide` writes the masks along the GPT-2 tokens of a fixed document,
the first time each state is met (no mask cache; bench_unique_items.mask_row): p50/p90/max ms
per mask with the check (ValueChecksGuide around the inner guide), and without it (the schema
with the checked keyword removed: the inner guide alone, whose language is a superset). The
length rows write a string of 2,000 characters whose last ~130 are within a token's reach of
maxLength, where every token is tried.
"""

from __future__ import annotations

import argparse
import json

from benchmarks.bench_unique_items import HEADER, gpt2, mask_row

ARN = "^arn:aws(-[a-z]+)?:iam::[0-9]{12}:role/[a-zA-Z0-9+=,.@_/-]+$"
TREE = {"$ref": "#/$defs/t", "$defs": {"t": {"type": "object", "properties": {
    "role": {"type": "string", "pattern": ARN, "maxLength": 2048},
    "kids": {"type": "array", "items": {"$ref": "#/$defs/t"}}}, "additionalProperties": False}}}
JOB = {"type": "object", "properties": {
    "coverage": {"type": "string", "format": "regex", "pattern": "^/.+/$"},
    "regexes": {"type": "array", "items": {"type": "string", "format": "regex"}}}, "additionalProperties": False}

CASES = {
    "format regex (GitLab coverage, mergify regexes)": (
        JOB, {"coverage": "/Code coverage: \\d+\\.\\d+%/", "regexes": ["^feature/.*$", "(?<major>\\d+)\\.(?<minor>\\d+)",
                                                                       "[A-Z]{2,4}-[0-9]+", "^(?!wip).+$"]},
        "format", "engine"),
    "format regex, regex path": (
        JOB, {"regexes": ["^release-v[0-9]+(\\.[0-9]+){2}$", "a|b|(c[d-f]*)?"]}, "format", "regex"),
    "ARN under maxLength 2,048, 2,000 characters (engine path)": (
        TREE, {"kids": [{"role": "arn:aws:iam::123456789012:role/" + "service-role/" * 151 + "ab"}]},
        "maxLength", "engine"),
}


def without(node, keyword: str):
    """`node` with every `keyword` removed."""
    if isinstance(node, dict):
        return {k: without(v, keyword) for k, v in node.items() if k != keyword}
    if isinstance(node, list):
        return [without(v, keyword) for v in node]
    return node


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    vocab, bpe = gpt2()
    print(HEADER)
    for name, (schema, doc, keyword, path) in CASES.items():
        ids = bpe.encode(json.dumps(doc, separators=(",", ":"))).ids
        print(mask_row(name, path, schema, without(schema, keyword), vocab, ids, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
