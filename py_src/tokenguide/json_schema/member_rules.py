"""Left-linear grammar rules for objects with many optional members (the engine path).

Members 0..n-1 come in schema order, each optional or required. `G_k`, "members from 0..k
holding every required one among them, each followed by its separator", is

    G_k: G_{k-1} m_k SEP  |  G_{k-1} (m_k optional)  |  m_k SEP (no member before k required)

and the body ends with its last member: `G_{k-1} m_k | m_k` for each k after the last required
one: one rule per member, where the object written as text would hold each optional member's
text once per alternative around it (and objects nested in objects multiply that).
"""

from __future__ import annotations

from typing import Any

__all__ = ["object_members"]


def _unmarked(sink: Any, regex: str) -> str:
    """`regex` without the boundary marks it starts with (see RuleSink.mark)."""
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
