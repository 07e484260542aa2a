"""The web app's live guide over a JSON Schema: `Guide.from_json_schema` stepped state by state.

The library chooses the path (regex, grammar or network; `Guide.compiled` says which and why);
`SchemaSteps` gives the stateful Guide the stateless interface the live guide steps through
(a state is a Guide copy), and `explain_token_walk` says how far a token's bytes get from a state
of any guide whose allowed tokens and next states can be asked for.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable

from .vocabulary import Vocabulary

__all__ = ["SchemaSteps", "describe_compiled", "explain_token_walk"]

_PATHS = {
    "regex": "regex path: a token automaton of the schema's regex, built lazily state by state",
    "grammar": "grammar path: a Lark LALR grammar run by CFGGuide",
    "network": "network path: a network of automata run by NetworkGuide",
}


def describe_compiled(compiled: Any) -> dict[str, Any]:
    """What the page shows about a CompiledSchema: the path, why, and what is checked on the values."""
    notes = []
    if getattr(compiled, "depth_capped", False):
        notes.append("the regex rejects valid instances nested deeper than its limits")
    if getattr(compiled, "checks", None) is not None:
        notes.append("distinct items / regex strings are checked on the values as they are generated")
    return {"path": compiled.path, "reason": compiled.reason, "what": _PATHS.get(compiled.path, compiled.path), "notes": notes}


class SchemaSteps:
    """A stateful `Guide` seen as a stateless one: a state is a Guide copy at that point."""

    def __init__(self, schema_text: str, vocabulary: Vocabulary):
        from .guides import Guide

        try:
            schema = json.loads(schema_text)
        except json.JSONDecodeError as exc:
            from .errors import TokenguideError

            raise TokenguideError(f"the schema is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
        start = time.perf_counter()
        self.guide = Guide.from_json_schema(schema, vocabulary)
        self.compile_seconds = time.perf_counter() - start
        self.compiled = self.guide.compiled
        self.schema = schema
        self.initial_state = self.guide.copy()
        self.eos_token_id = self.guide.eos_token_id

    @property
    def grammar(self) -> Any:
        """The CFGGuide's grammar on the grammar path (for the Lark explanations), else None."""
        return getattr(self.guide.guide, "grammar", None)

    def allowed(self, state: Any) -> list[int]:
        """The token ids allowed in `state`, ascending (EOS where the document may end)."""
        return state.get_tokens()

    def get_next_state(self, state: Any, token_id: int) -> Any:
        """A new state: `state` advanced by `token_id` (InvalidTokenError when not allowed)."""
        twin = state.copy()
        twin.advance(int(token_id), return_tokens=False)
        return twin

    def is_final_state(self, state: Any) -> bool:
        """The document so far is complete (EOS may come next)."""
        return bool(state.is_finished())

    def label(self, state: Any, steps: int) -> str:
        """The state as the page shows it: the automaton state on the regex path, else the step."""
        inner = state.get_state()
        return f"automaton state {inner}" if type(inner) is int else f"step {steps}"


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
