"""The web app's live guide over a JSON Schema: `Guide.from_json_schema` stepped state by state.

The library chooses the path (regex or engine; `Guide.compiled` says which and why);
`SchemaSteps` gives the stateful Guide the stateless interface the live guide steps through
(a state is a Guide copy).
"""

from __future__ import annotations

import json
import time
from typing import Any

from .vocabulary import Vocabulary

__all__ = ["SchemaSteps", "describe_compiled"]

_PATHS = {
    "regex": "regex path: a token automaton of the schema's regex, built lazily state by state",
    "engine": "engine path: the schema's rules as a grammar run by the engine (GrammarGuide)",
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
        """The Lark grammar of a CFGGuide that runs Lark's parser (for the parser's explanations), else
        None (the regex and engine paths: no guide of a schema runs Lark's parser)."""
        grammar = getattr(self.guide.guide, "grammar", None)
        return grammar if hasattr(grammar, "acceptable") and hasattr(grammar, "parser") else None

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
