"""Object bodies with property_order="any": the declared members in every order, each at most
once, the required ones present, other members anywhere among them, property counts exact.

With compile_json_schema's value checks, an object is written as a repetition of its members
(`member_loop`) and the keys seen are checked beside the grammar (module member_keys: any number
of declared properties). Without them (build_regex_from_schema, inside lookaheads, or where the
check cannot locate the object), the language needs one automaton state per set of declared keys
already seen (2^n for n declared keys). Three spellings, smallest first:

* regex path, small objects: the continuation after each key set written out (lookahead-free;
  its text grows like n! because a regex cannot share sub-expressions, so it is used only
  while it stays under `INLINE_CHARS`);
* engine path: one rule per (key set, count), shared, so the size stays 2^n rules;
* regex path, larger objects: one loop over all members with lookaheads at the object's start,
  "no key occurs twice" and "required key r occurs". They find the object's own keys with a
  scanner (whole strings, other characters, bracket groups as deep as the members nest), or,
  when that depth is unknown, by skipping whole members; both exact, since the text the loop
  accepts has one parse.

More than `MAX_ANY_ORDER_KEYS` declared keys (`MAX_GRAMMAR_KEYS` on the engine path) are
refused (UnsupportedSchemaError), with the reason the value checks could not take the object.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import UnsupportedSchemaError
from ..regex.sre import constants as C
from ..regex.sre import parse as sre_parse
from .text import STRING, alt, cat, lit, opt, rep

__all__ = ["any_order_body", "member_loop", "MAX_ANY_ORDER_KEYS", "MAX_GRAMMAR_KEYS", "INLINE_CHARS", "PROPERTY_ORDERS"]

PROPERTY_ORDERS = ("schema", "any")
MAX_ANY_ORDER_KEYS = 12  # 2^12 key sets
MAX_GRAMMAR_KEYS = 8  # engine path: 2^8 rules per object written out (the value checks take wider ones)
INLINE_CHARS = 20_000  # lookahead-free regex text written out at most per object (then lookaheads)
_MAX_RULE_STATES = 50_000


class _TooBig(Exception):
    """The written-out regex passed INLINE_CHARS."""


def member_loop(em: Any, members: list[str | None], extra: str | None, nonempty: bool) -> str:
    """Object body of any number of members, each a declared one (not None) or another
    (`extra`), in any order and repeating: the keys seen are checked beside it (module
    member_keys). `nonempty`: at least one member."""
    items = [m if em.sink is None else em.sink.mark(i) + m for i, m in enumerate(members) if m is not None]
    if extra is not None:
        items.append(extra if em.sink is None else em.sink.mark(len(members)) + extra)
    one = alt(items)
    if one is None:
        return ""
    if em.sink is not None and len(items) > 1:
        one = em.sink.rule(one)  # (written twice below: once)
    body = one + rep(em.sep + one, 0, None)
    return body if nonempty else opt(body)


def any_order_body(em: Any, names: list[str], members: list[str | None], req: list[bool], extra: str | None,
                   min_p: int, max_p: int | None, ptr: str, why: str | None = None) -> str | None:
    """Object body (between ``{`` + whitespace and the closer; "" = only the empty object) for
    the members in any order, written out; None when no object qualifies. `ptr`: the object's
    pointer; `why`: why the value checks could not take it (said in a refusal)."""
    if any(m is None and r for m, r in zip(members, req)):
        return None
    keep = [i for i, m in enumerate(members) if m is not None]
    because = "" if why is None else f"; the keys seen could not be checked beside the grammar: {why}"
    if len(keep) > MAX_ANY_ORDER_KEYS:
        raise UnsupportedSchemaError(
            f"property_order='any' with {len(keep)} declared properties needs 2^{len(keep)} key-set states "
            f"(at most {MAX_ANY_ORDER_KEYS} declared properties are written out; at {ptr}{because}); use "
            "property_order='schema' (keys in the schema's order) or split the object", "properties", ptr)
    mem = [members[i] for i in keep]  # type: ignore[misc]
    rq = [req[i] for i in keep]
    keys = [lit(json.dumps(names[i], ensure_ascii=False)) for i in keep]
    if max_p is not None and max_p < min_p:
        return None
    if em.sink is not None:
        if len(keep) > MAX_GRAMMAR_KEYS:
            raise UnsupportedSchemaError(
                f"property_order='any' on the engine path takes at most {MAX_GRAMMAR_KEYS} declared properties "
                f"per object written out (this one has {len(keep)}, at {ptr}: 2^{len(keep)} grammar rules{because}); use path='regex' (lookaheads) or property_order='schema'",
                "properties", ptr)
        return _Writer(em, mem, rq, extra, min_p, max_p, rules=True).body()
    try:
        return _Writer(em, mem, rq, extra, min_p, max_p, rules=False).body()
    except _TooBig:
        return _lookahead_body(em, mem, keys, rq, extra, min_p, max_p)


class _Writer:
    """The continuation regex after each (key set, member count), memoized; with `rules`, each
    continuation is a grammar rule (placeholder) instead of inline text."""

    def __init__(self, em: Any, members: list[str], req: list[bool], extra: str | None,
                 min_p: int, max_p: int | None, rules: bool) -> None:
        self.em = em
        self.members = members
        self.req_mask = sum(1 << i for i, r in enumerate(req) if r)
        self.extra = extra
        self.min_p = min_p
        self.max_p = max_p
        self.rules = rules
        self.memo: dict[tuple[int, int], str | None] = {}
        self.size = 0

    def body(self) -> str | None:
        return self.cont(0, 0)

    def cont(self, used: int, c: int) -> str | None:
        """Members after `c` members with declared key set `used` (bit i: member i seen)."""
        key = (used, c if self.max_p is not None else min(c, max(self.min_p, 1)))
        if key in self.memo:
            return self.memo[key]
        if len(self.memo) > _MAX_RULE_STATES:
            raise UnsupportedSchemaError(
                f"property_order='any': the object needs over {_MAX_RULE_STATES:,} (key set, property count) "
                "states; lower minProperties/maxProperties or use property_order='schema'", "properties", "#")
        res = self.write(used, c)
        if self.rules and res:
            res = self.em.sink.rule(res)
        elif not self.rules and res is not None:
            self.size += len(res)
            if len(res) > INLINE_CHARS or self.size > 20 * INLINE_CHARS:
                raise _TooBig()
        self.memo[key] = res
        return res

    def write(self, used: int, c: int) -> str | None:
        sep = self.em.sep
        lead = sep if c else ""
        done = (used & self.req_mask) == self.req_mask and c >= self.min_p
        more = self.max_p is None or c < self.max_p
        opts: list[str | None] = []
        if more:
            for i, m in enumerate(self.members):
                if not used >> i & 1:
                    opts.append(cat(lead, self.mark(i), m, self.cont(used | 1 << i, c + 1)))
        if done:
            opts.append("")
        rest = alt(opts)
        e = self.extra
        if e is None or not more:
            return rest
        if self.max_p is None and c >= self.min_p and c >= 1:
            loop = rep(sep + self.mark(len(self.members)) + e, 0, None)  # any number of other members here, the count stays >= min
            return None if rest is None else loop + rest
        return alt([rest, cat(lead, self.mark(len(self.members)), e, self.cont(used, c + 1))])

    def mark(self, i: int) -> str:
        """Grammar mode: a distinct boundary before member `i` (see RuleSink.mark)."""
        return self.em.sink.mark(i) if self.rules else ""


def _lookahead_body(em: Any, members: list[str], keys: list[str], req: list[bool], extra: str | None,
                    min_p: int, max_p: int | None) -> str | None:
    """One loop over every member, with lookaheads at its start for "no key twice" and
    "every required key present"."""
    sep = em.sep
    any_m = alt(members + ([extra] if extra is not None else []))
    assert any_m is not None
    depths = [member_nesting(m) for m in members + ([extra] if extra is not None else [])]
    if None not in depths and max(depths) <= _MAX_SCAN_DEPTH:  # type: ignore[type-var]
        depth: int = max(depths)  # type: ignore[type-var, assignment]
        # key positions found by a scanner: strings whole, brackets balanced, so a comma it
        # passes at its own level is a separator of this object's members
        tok = _scanner(depth)
        first = f"(?:{tok}*,{em.ws})?"
        checks = ["(?!" + first + alt([f"{k}{tok}*,{em.ws}{k}" for k in keys]) + ")"]  # type: ignore[operator]
        checks += [f"(?={first}{k})" for k, r in zip(keys, req) if r]
    else:  # skip whole members (exact member regexes)
        skip = f"(?:{any_m}{sep})*"
        checks = [f"(?!{skip}{m}(?:{sep}{any_m})*{sep}{k})" for m, k in zip(members, keys)]
        checks += [f"(?={skip}{k})" for k, r in zip(keys, req) if r]
    lo = max(min_p, sum(req), 1)
    if max_p is not None and max_p < lo:
        return None if min_p > 0 or any(req) else ""
    loop = any_m + rep(sep + any_m, lo - 1, None if max_p is None else max_p - 1)
    body = "".join(checks) + loop
    return body if min_p > 0 or any(req) else f"(?:{body})?"


_MAX_SCAN_DEPTH = 10


def _scanner(depth: int) -> str:
    """One item of JSON text at the current level: a whole string, a character that is no
    quote or bracket, or a bracketed group nesting at most `depth` deep."""
    item = rf'(?:{STRING}|[^"\[\]{{}}])'
    for _ in range(depth):
        inner = item + "*"
        item = rf'(?:{STRING}|[^"\[\]{{}}]|\[{inner}\]|\{{{inner}\}})'
    return item


_OPEN = (ord("{"), ord("["))
_CLOSE = (ord("}"), ord("]"))


def member_nesting(regex: str) -> int | None:
    """An upper bound on how deep the values a member regex matches nest (literal braces and
    brackets counted as they open and close), or None when the regex is not balanced that way
    (a key or enum string with a lone brace, say)."""
    try:
        parsed = sre_parse(regex)
    except (re.error, RecursionError, OverflowError):  # no bound: the exact members are used
        return None
    res = _nesting(list(parsed.data))
    if res is None or res[1] != 0:
        return None
    return res[0]


def _nesting(items: list) -> tuple[int, int] | None:
    """(highest excess of openers over closers, net excess) of a parsed sequence."""
    high = net = 0
    for op, av in items:
        if op == C.LITERAL:
            sub = (1, 1) if av in _OPEN else (0, -1) if av in _CLOSE else (0, 0)
        elif op == C.SUBPATTERN:
            sub = _nesting(list(av[-1].data))
        elif op == C.BRANCH:
            subs = [_nesting(list(b.data)) for b in av[1]]
            if any(s is None for s in subs) or len({s[1] for s in subs}) != 1:  # type: ignore[index]
                return None
            sub = (max(s[0] for s in subs), subs[0][1])  # type: ignore[index]
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
            body = _nesting(list(av[2].data))
            if body is None or body[1] != 0:
                return None
            sub = (body[0] if av[1] else 0, 0)
        else:  # one character, an anchor, or a lookahead (which consumes nothing)
            sub = (0, 0)
        if sub is None:
            return None
        high = max(high, net + sub[0])
        net += sub[1]
    return high, net
