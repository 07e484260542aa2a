"""The other members of an object: keys that are not declared names, exact for every mix of
patternProperties, additionalProperties and propertyNames.

A key that is not a declared name belongs to exactly one class, the set T of patternProperties
(grouped by equal schemas) whose pattern it matches: its value takes all of T's schemas, or
additionalProperties when T is empty; propertyNames applies to every key. Key languages are
quoted JSON strings, so the intersections and differences the classes need are written with
`value_intersection` / `value_difference` (lookaheads, regex path only) unless a lookahead-free
regex is known (`not_in_keys`, `pattern_complement`) or a byte-DFA check proves it unnecessary.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import TokenguideError
from ..regex import dfa as dfa_mod
from ..regex import product
from .automaton_regex import MAX_ELIMINATED_STATES, lookahead_free
from .rule_sink import PLACEHOLDER_BASE, PLACEHOLDER_END
from .lexemes import lexeme_dfa
from .normalize import Node
from .patterns import PatternError, pattern_complement, pattern_to_string_body
from .text import STRING, alt, canon, has_lookahead, lit, not_in_keys, ptr_escape, value_difference, value_intersection

__all__ = ["extra_member", "MAX_PATTERN_GROUPS"]

#: patternProperties schemas (distinct ones) combined exactly; each subset of them is a key class.
MAX_PATTERN_GROUPS = 4
_DFA_STATES = 2_000  # byte DFAs built only to prove two key languages disjoint


class _Group:
    """patternProperties sharing one schema: their quoted key regexes and that schema."""

    def __init__(self, schema: Any, ptr: str) -> None:
        self.schema = schema
        self.ptr = ptr
        self.keys: list[str] = []  # quoted key regexes, one per pattern
        self.patterns: list[str] = []
        self.universal = False  # some pattern matches every key

    def key(self) -> str | None:
        return alt(self.keys)  # type: ignore[arg-type]


def extra_member(em: Any, s: Node, names: list[str], addl: Any, pprops: dict) -> str | None:
    """Regex for one member whose key is not in `names` (declared or required names), or None
    when no such member is allowed."""
    pp_ptr = s.kptr("patternProperties")
    pn = s.get("propertyNames", True)
    pn_key: str | None = STRING
    if pn not in (True, {}):
        pn_key = em.value({"allOf": [pn, {"type": "string"}]}, s.kptr("propertyNames"))
        if pn_key is None:
            return None
    groups: dict[str, _Group] = {}
    for pat, psch in pprops.items():
        ppt = f"{pp_ptr}/{ptr_escape(pat)}"
        try:
            body = pattern_to_string_body(pat)
            comp = pattern_complement(pat)
        except PatternError as exc:
            em.unsupported("patternProperties", ppt, str(exc))
            continue
        key = None if body is None else f'"{body}"'
        if key is not None and em.sink is not None and has_lookahead(key):
            # the engine path's keys are terminals, which hold no lookahead: the same keys by
            # the automaton (the lookahead reads the key alone: its content, then the quote)
            key = lookahead_free(key, (PLACEHOLDER_BASE, PLACEHOLDER_END))
            if key is None:
                em.unsupported("patternProperties", ppt, f"pattern {pat!r} has a lookahead whose keys have "
                               f"no automaton of at most {MAX_ELIMINATED_STATES:,} states; use path='regex'")
                continue
        g = groups.setdefault(canon(psch), _Group(psch, ppt))
        g.patterns.append(pat)
        if key is not None:
            g.keys.append(key)
        g.universal = g.universal or comp is None
    glist = list(groups.values())
    if len(glist) > MAX_PATTERN_GROUPS:
        em.unsupported("patternProperties", pp_ptr,
                       f"{len(glist)} patternProperties with different schemas make {2 ** len(glist)} key "
                       f"classes (at most {MAX_PATTERN_GROUPS} distinct schemas are combined); give patterns "
                       "that share a schema the same schema object")
        glist = glist[:MAX_PATTERN_GROUPS]
    ctx = _Keys(em, s, names, pn_key if pn not in (True, {}) else None)
    out: list[str | None] = []
    for mask in range(1 << len(glist)):
        inside = [g for i, g in enumerate(glist) if mask >> i & 1]
        outside = [g for i, g in enumerate(glist) if not mask >> i & 1]
        if any(g.key() is None for g in inside) or any(g.universal for g in outside):
            continue  # no key matches a pattern that matches nothing / misses a universal one
        if not inside and addl is False:
            continue
        key = ctx.key_class(inside, outside)
        if key is None:
            continue
        if inside:
            schema = inside[0].schema if len(inside) == 1 else {"allOf": [g.schema for g in inside]}
            v = em.value(schema, inside[0].ptr)
        else:
            v = em.value(addl, s.kptr("additionalProperties"))
        if v is not None:
            out.append(f"{key}{em.ws}:{em.ws}{v}")
    if em.sink is not None and len(out) > 1:  # keep each class's key in one terminal
        out = [em.sink.mark(100 + i) + m for i, m in enumerate(out)]
    return alt(out)


class _Keys:
    """Builds the quoted-key regex of one key class (patterns inside / outside, names excluded)."""

    def __init__(self, em: Any, s: Node, names: list[str], pn_key: str | None) -> None:
        self.em = em
        self.s = s
        self.names = names
        self.pn_key = pn_key
        self._dfas: dict[str, Any] = {}

    def key_class(self, inside: list[_Group], outside: list[_Group]) -> str | None:
        pos: list[tuple[str, str]] = [(g.key(), "patternProperties") for g in inside if not g.universal]  # type: ignore[misc]
        if self.pn_key is not None:
            pos.append((self.pn_key, "propertyNames"))
        neg = [g for g in outside if g.key() is not None]
        for a in range(len(pos)):
            for b in range(a + 1, len(pos)):
                if self.disjoint(pos[a][0], pos[b][0]):
                    return None
        neg = [g for g in neg if not any(self.disjoint(p, g.key()) for p, _ in pos)]  # type: ignore[arg-type]
        if not pos:
            return self.outside_only(neg)
        key: str | None = pos[0][0]
        for p, kw in pos[1:]:
            key = self.lookahead(kw, value_intersection, key, p)
        if neg:
            key = self.lookahead("patternProperties", value_difference, key, alt([g.key() for g in neg]))
        if key is None:
            return None
        clash = self.clashing(key)
        if not clash:
            return key
        kw = "patternProperties" if pos[0][1] == "patternProperties" else "propertyNames"
        return self.lookahead(kw, value_difference, key, alt([lit(json.dumps(n, ensure_ascii=False)) for n in clash]))

    def clashing(self, key: str) -> list[str]:
        """The declared names that the quoted-key regex `key` matches."""
        rx = re.compile(key)
        return [n for n in self.names if rx.fullmatch(json.dumps(n, ensure_ascii=False))]

    def outside_only(self, neg: list[_Group]) -> str | None:
        """Keys matching none of the `neg` groups' patterns, declared names excluded."""
        if not neg:
            return '"' + not_in_keys(self.names) + '"'
        if len(neg) == 1 and len(neg[0].patterns) == 1:
            comp = pattern_complement(neg[0].patterns[0])
            if isinstance(comp, str) and not self.clashing(f'"{comp}"'):
                return f'"{comp}"'
        negs = alt([g.key() for g in neg])
        assert negs is not None
        rx = re.compile(negs)
        kept = [n for n in self.names if not rx.fullmatch(json.dumps(n, ensure_ascii=False))]
        base = '"' + not_in_keys(kept) + '"'
        return self.lookahead("patternProperties", value_difference, base, negs)

    def lookahead(self, keyword: str, combine: Any, a: str | None, b: str | None) -> str | None:
        """`combine(a, b)` (a lookahead); in grammar mode, which has no lookaheads, the same keys
        written without one (`lookahead_free`: by the automaton), else refused."""
        both = combine(a, b)
        if self.em.sink is None or both is None or both == a:
            return both
        if not any(PLACEHOLDER_BASE <= ord(ch) <= PLACEHOLDER_END for ch in both):
            d = lexeme_dfa(both)
            if d is not None and not d.finals:
                return None  # no key is in both languages / in the difference
            plain = lookahead_free(both, (PLACEHOLDER_BASE, PLACEHOLDER_END))
            if plain is not None:
                return plain
        ptr = self.s.kptr(keyword)
        self.em.unsupported(keyword, ptr, "these keys need a lookahead (an intersection or difference of key "
                            f"languages) that cannot be written without one here (an automaton over "
                            f"{MAX_ELIMINATED_STATES:,} states, a regex too long or too deep, or a key that "
                            "holds a grammar rule); use path='regex'")
        return a  # lenient: the constraint is ignored

    def dfa(self, regex: str) -> Any:
        d = self._dfas.get(regex)
        if d is None and regex not in self._dfas:
            try:
                d = dfa_mod.compile_regex(regex, max_states=_DFA_STATES)
            except (TokenguideError, RecursionError):
                d = None  # a lookahead, or too large: not proved disjoint
            self._dfas[regex] = d
        return d

    def disjoint(self, a: str, b: str) -> bool:
        """True when the two key regexes provably share no key (product of their byte DFAs)."""
        if a == STRING or b == STRING:
            return False
        da, db = self.dfa(a), self.dfa(b)
        if da is None or db is None:
            return False
        return product.disjoint(da, db, max_pairs=4 * _DFA_STATES)

