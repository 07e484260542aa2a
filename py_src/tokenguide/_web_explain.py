"""Why (not) this token, for the web app's live guide: how far a token's bytes get from a state.

`explain_regex_token` walks an index's transitions (the player does the same in JavaScript);
`explain_token_walk` asks any guide for its allowed tokens and follows only the tokens that spell
a piece of the token's bytes; `explain_engine_token` steps a grammar engine's state byte by byte
(with the lexemes the parser expects); `byte_classes` writes the bytes accepted where they die.
"""

from __future__ import annotations

from typing import Any, Callable

from .index import Index
from .vocabulary import Vocabulary

__all__ = ["byte_classes", "explain_engine_token", "explain_regex_token", "explain_token_walk"]


def byte_classes(values: list[int]) -> str:
    """A set of bytes as classes: runs become ranges, printable ASCII shown as characters."""

    def show(b: int) -> str:
        return chr(b) if 0x20 < b < 0x7F else "␠" if b == 0x20 else f"\\x{b:02x}"

    parts: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        parts.append(f"{show(values[i])}-{show(values[j])}" if j - i >= 2 else " ".join(show(b) for b in values[i : j + 1]))
        i = j + 1
    return " ".join(parts)


def explain_regex_token(index: Index, vocabulary: Vocabulary, state: int, token_id: int) -> dict[str, Any]:
    """How far the bytes of `token_id` get from `state` along the index's allowed tokens (a search
    over (state, byte offset)), the byte where they die and the bytes accepted there. Exact when the
    vocabulary holds every single byte, as byte-level ones do. (The player does the same in JavaScript.)"""
    data = vocabulary.id_to_bytes(token_id) or b""
    tokens_of = vocabulary.id_to_bytes
    eos = vocabulary.eos_token_id
    seen = {(state, 0)}
    queue = [(state, 0)]
    best, best_at = 0, [(state, 0)]
    expanded = 0
    while queue and expanded < 20_000:
        following = []
        for s, off in queue:
            expanded += 1
            ids, nexts = index.state_transitions(s)
            for u, nxt in zip(ids, nexts):
                ub = tokens_of(u) if u != eos else None
                if not ub:
                    continue
                k = 0
                while k < len(ub) and off + k < len(data) and ub[k] == data[off + k]:
                    k += 1
                reach = off + k
                if reach > best:
                    best, best_at = reach, []
                if reach == best:
                    best_at.append((s, off))
                if k == len(ub) and reach < len(data) and (nxt, reach) not in seen:
                    seen.add((nxt, reach))
                    following.append((nxt, reach))
        queue = following
    accepts: set[int] = set()
    for s, off in best_at:
        for u in index.state_transitions(s)[0]:
            ub = tokens_of(u) if u != eos else None
            k = best - off
            if ub and k < len(ub) and ub[:k] == data[off:best]:
                accepts.add(ub[k])
    values = sorted(accepts)
    return {"bytes": len(data), "reach": best, "dies_at": data[best] if best < len(data) else None,
            "accepts": values, "accepts_text": byte_classes(values)}


def explain_token_walk(
    allowed: Callable[[Any], list[int]],
    advance: Callable[[Any, int], Any],
    vocabulary: Vocabulary,
    state: Any,
    token_id: int,
    limit: int = 2_000,
) -> dict[str, Any]:
    """How far the bytes of `token_id` get from `state` through the allowed tokens of each state
    (any tokenization of them), the byte where they die and the bytes accepted there. Only tokens
    that spell a whole piece of the token's bytes are advanced along, so a state's next states are
    never all computed. Exact when the vocabulary holds every single byte, as byte-level ones do."""
    data = vocabulary.id_to_bytes(token_id) or b""
    tokens_of = vocabulary.id_to_bytes
    eos = vocabulary.eos_token_id
    queue = [(state, 0)]
    best, best_at = 0, [(state, 0)]
    expanded = 0
    while queue and expanded < limit:
        following = []
        for s, off in queue:
            expanded += 1
            for u in allowed(s):
                ub = tokens_of(u) if u != eos else None
                if not ub:
                    continue
                k = 0
                while k < len(ub) and off + k < len(data) and ub[k] == data[off + k]:
                    k += 1
                reach = off + k
                if reach > best:
                    best, best_at = reach, []
                if reach == best:
                    best_at.append((s, off))
                if k == len(ub) and reach < len(data):
                    following.append((advance(s, u), reach))
        queue = following
    accepts: set[int] = set()
    for s, off in best_at:
        for u in allowed(s):
            ub = tokens_of(u) if u != eos else None
            k = best - off
            if ub and k < len(ub) and ub[:k] == data[off:best]:
                accepts.add(ub[k])
    return {"bytes": len(data), "reach": best, "dies_at": data[best] if best < len(data) else None, "accepts": sorted(accepts)}


def expected_lexemes(guide: Any, state: Any) -> list[str]:
    """The names of the lexemes the parser expects next at some reading of `state` (an
    engine.EngineState of `guide`, a guides.grammar.GrammarGuide)."""
    bits = 0
    for row, _ in state.pairs:
        bits |= row.expected
    lexemes = guide.grammar.lexemes
    return sorted({lexemes[j].name for j in range(len(lexemes)) if bits >> j & 1})


def explain_engine_token(guide: Any, state: Any, token_id: int, before: str) -> dict[str, Any]:
    """How far the bytes of `token_id` get from `state` of a grammar engine guide (exact: the
    engine reads bytes), the bytes accepted where they die, the lexemes the parser expects, and
    the failure (the character of the text `before` + token where no reading goes on)."""
    data = guide.vocabulary.id_to_bytes(token_id) or b""
    here = state
    reach = 0
    for b in data:
        nxt = guide.advance_bytes(here, bytes((b,)))
        if nxt is None:
            break
        here, reach = nxt, reach + 1
    accepts = [b for b in range(256) if guide.advance_bytes(here, bytes((b,))) is not None]
    out: dict[str, Any] = {"bytes": len(data), "reach": reach, "dies_at": data[reach] if reach < len(data) else None,
                           "accepts": accepts, "accepts_text": byte_classes(accepts),
                           "expected": expected_lexemes(guide, state), "at": len(before), "failure": None}
    if reach < len(data):
        pos = len(before) + len(data[:reach].decode("utf-8", "replace"))
        out["failure"] = {"pos": pos, "char": data[reach:].decode("utf-8", "replace")[:1],
                          "expected": expected_lexemes(guide, here),
                          "what": "no reading of the text goes on with this character"}
    return out
