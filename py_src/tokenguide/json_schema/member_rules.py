"""Left-linear grammar rules for objects with many optional members (the grammar path).

Members 0..n-1 come in schema order, each optional or required. `G_k`, "members from 0..k
holding every required one among them, each followed by its separator", is

    G_k: G_{k-1} m_k SEP  |  G_{k-1} (m_k optional)  |  m_k SEP (no member before k required)

and the body ends with its last member: `G_{k-1} m_k | m_k` for each k after the last required
one. After a separator the next key says which member follows: the parser reduces the unit
chain `G_k: G_{k-1}` up to it (one token of lookahead, the key). The separator stays a terminal
of its own, as in every other context: merged into the next key (`,"key"`), LALR's shared
follow sets would put `,` and `,"key"` in one lexer state (after a number in an array and in
a member). Lark's LALR analysis stays about quadratic in the number of members: right-linear
rules (`T_i: SEP m_i T_{i+1} | T_{i+1}`) put every later member's rule in each state's closure
and made it cubic (Snowplow sp_280's 122 members: 52 s of Lark profiled, 1.5 s now), and
inline `?` expands 2**k alternatives.
"""

from __future__ import annotations

from typing import Any

__all__ = ["object_members", "right_linear_members"]


def _unmarked(sink: Any, regex: str) -> str:
    """`regex` without the boundary marks it starts with (see GrammarSink.mark)."""
    marks = set(sink.marks)
    i = 0
    while i < len(regex) and regex[i] in marks:
        i += 1
    return regex[i:]


def object_members(sink: Any, sep: str, items: list[tuple[str, bool]], extra: str | None) -> str:
    """Object body regex (placeholders for rules) for members `items` ((regex, required), in
    order), then any number of `extra` members: the rules of the module docstring."""
    members = [_unmarked(sink, m) for m, _ in items]
    # a member with rules inside is written three times below: a rule of its own keeps Lark
    # from expanding its optional parts in each place
    members = [sink.rule(m) if any(ch in sink.names for ch in m) else m for m in members]
    req = [r for _, r in items]
    n = len(members)
    last_req = max((k for k in range(n) if req[k]), default=-1)
    chain: list[str] = []  # chain[k]: placeholder of G_k
    for k in range(n if extra is not None else n - 1):
        alts = []
        if k:
            alts.append(chain[k - 1] + members[k] + sep)
            if not req[k]:
                alts.append(chain[k - 1])
        if not any(req[:k]):
            alts.append(members[k] + sep)
        chain.append(sink.rule(_alternation(alts)))
    ends = []  # the body by its last member
    for k in range(max(last_req, 0), n):
        if k:
            ends.append(chain[k - 1] + members[k])
        if not any(req[:k]):
            ends.append(sink.mark(k) + members[k])  # distinct marks: one terminal per member
    if extra is not None:  # the last member an extra one: G_{n-1} or nothing, then extras
        extras = f"(?:{extra}{sep})*{extra}"
        ends.append(chain[n - 1] + extras)
        if last_req < 0:
            ends.append(sink.mark(n) + extras)
    body = sink.rule(_alternation(ends))
    return body if last_req >= 0 else f"(?:{body})?"


def _alternation(alts: list[str]) -> str:
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


def right_linear_members(sink: Any, sep: str, items: list[tuple[str, bool]], extra: str | None) -> str:
    """The same body as right-linear rules (each member's continuation a rule of its own): the
    parser reduces nothing before the object's end, so alternatives of objects that share their
    first members (an anyOf) stay apart, where the left-linear chains, shared by such objects,
    would have to choose early. Cubic for Lark's analysis: the retry when the left-linear
    grammar is refused."""
    tail = None if extra is None else sink.rule(f"(?:{sep}{extra})+")  # one or more extras
    after, nullable = tail, True  # what may follow the last member (None: nothing)

    def then(rule: str | None, may_be_empty: bool) -> str:
        return "" if rule is None else f"(?:{rule})?" if may_be_empty else rule

    follows = [(after, nullable)]  # follows[k]: what may follow member n-1-k
    for m, req in reversed(items[1:]):
        step = f"{sep}{m}{then(after, nullable)}"
        if req or after is None:
            after, nullable = sink.rule(step), not req and after is None
        else:
            after = sink.rule(f"(?:{step}|{after})")
        follows.append((after, nullable))
    follows.reverse()  # follows[i]: what may follow member i
    first_req = next((i for i, (_, r) in enumerate(items) if r), None)
    if first_req is not None:
        body = items[first_req][0] + then(*follows[first_req])
        for i in range(first_req - 1, -1, -1):  # optional members before the first required one
            body = sink.rule(f"(?:{items[i][0]}{sep}{body}|{body})")
        return body
    first = None if extra is None else sink.rule(f"{extra}{then(tail, True)}")  # the body from member i on
    for i in range(len(items) - 1, -1, -1):
        lead = items[i][0] + then(*follows[i])
        first = sink.rule(lead if first is None else f"(?:{lead}|{first})")
    assert first is not None  # items is not empty
    return f"(?:{first})?"

