"""AWS CloudFormation resource schemas (cfn-lint's copy) as a third corpus of unseen schemas, and
what judging them needs: Unicode property escapes (`\\p{L}`) in their patterns.

cfn-lint (the `bench` extra) ships one JSON Schema per resource type
(`cfnlint/data/schemas/resources/*.json`, draft-07 without `$schema`): wide objects, enums,
`pattern`s with lookaheads (`^(?!aws:)`) and property escapes (tag values:
`^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$`). Python's re reads neither property escapes nor does
hypothesis-jsonschema, so:
- the oracle's `pattern` (fuzz_json_schema.oracle) reads a pattern with property escapes with
  the `regex` module, which does (ECMA-262's `$` as the end of the input);
- the generator reads such a pattern with each escape replaced by a class of a few characters of
  it (`for_generation`): a subset of the language (a superset inside a negated class), and every
  instance is judged by the oracle anyway, so the instances stay honest.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

from benchmarks.regexes import pattern_pieces

__all__ = ["cloudformation_dir", "cloudformation_corpus", "has_property_escape", "property_search",
           "generation_pattern", "for_generation"]

_ESCAPE = re.compile(r"\\([pP])\{([^}]*)\}")  # one property escape (a piece of regexes.pattern_pieces)


def cloudformation_dir() -> Path | None:
    """cfn-lint's resource schemas, or None when it is not installed."""
    try:
        import cfnlint
    except ImportError:
        return None
    d = Path(cfnlint.__file__).parent / "data" / "schemas" / "resources"
    return d if d.is_dir() else None


def cloudformation_corpus(every: int, offset: int, remote: Any) -> list[tuple[str, Any, str]]:
    """(name, schema, skip reason or "") for every `every`-th resource schema by file name from
    the `offset`-th (`every` 0: none); `remote(schema)` lists the refs that leave the document."""
    d = cloudformation_dir()
    if d is None or every <= 0:
        return []
    out = []
    for p in sorted(d.glob("*.json"))[offset::every]:
        schema = json.loads(p.read_text(encoding="utf-8"))
        refs = sorted(set(remote(schema)))
        name = schema.get("typeName", p.stem) if isinstance(schema, dict) else p.stem
        out.append((f"cloudformation/{name}", schema, f"remote $ref {refs[0]}" if refs else ""))
    return out


def has_property_escape(pattern: str) -> bool:
    return any(_ESCAPE.fullmatch(piece) for piece, _ in pattern_pieces(pattern))


def property_search(pattern: str, text: str) -> bool:
    """ECMA-262 search with property escapes, by the `regex` module (`$` only at the end)."""
    import regex

    return regex.search(_ecma_end(pattern), text) is not None


def _ecma_end(pattern: str) -> str:
    """`$` outside classes as `\\Z` (Python's `$` also matches before a final newline)."""
    return "".join("\\Z" if piece == "$" and not in_class else piece for piece, in_class in pattern_pieces(pattern))


_SAMPLES: dict[str, str] = {}


def _sample(name: str, negated: bool) -> str:
    """A few characters of General_Category `name` (its first letter: L, N, Z, ...), or outside it."""
    key = f"{negated}{name}"
    if key not in _SAMPLES:
        value = name.split("=")[-1] or "L"
        cat = value if len(value) == 2 else value[:1]  # (a long name: its first letter's group)
        chars = [chr(cp) for cp in range(0x20, 0x3000)
                 if (unicodedata.category(chr(cp)).startswith(cat) != negated) and chr(cp) not in "\\]^-["]
        step = max(1, len(chars) // 12)
        _SAMPLES[key] = "".join(chars[::step][:12]) or "a"
    return _SAMPLES[key]


def generation_pattern(pattern: str) -> str:
    """`pattern` with each property escape replaced by a few of its characters: a class of them,
    or inside a class, the characters alone (a subset of the pattern's language, but inside a
    negated class a superset)."""
    out = []
    for piece, in_class in pattern_pieces(pattern):
        m = _ESCAPE.fullmatch(piece)
        if m is not None:
            chars = re.escape(_sample(m.group(2), m.group(1) == "P"))
            piece = chars if in_class else f"[{chars}]"
        out.append(piece)
    return "".join(out)


def for_generation(node: Any) -> Any:
    """A copy of schema `node` whose patterns' property escapes are a few of their characters
    (hypothesis-jsonschema reads patterns with re)."""
    if isinstance(node, dict):
        out = {k: for_generation(v) for k, v in node.items()}
        p = node.get("pattern")
        if isinstance(p, str) and has_property_escape(p):
            out["pattern"] = generation_pattern(p)
        pp = node.get("patternProperties")
        if isinstance(pp, dict):
            out["patternProperties"] = {(generation_pattern(k) if has_property_escape(k) else k): for_generation(v)
                                        for k, v in pp.items()}
        return out
    if isinstance(node, list):
        return [for_generation(v) for v in node]
    return node
