"""Index's derived queries (a mixin): outlines-core's `get_*` spellings, whole-table views, repr.

Everything here goes through Index's public methods (`initial_state`, `states`,
`state_transitions`, ...), so the Index class itself stays about building and stepping.
"""

from __future__ import annotations

from typing import Any

from ..arguments import check_int

__all__ = ["IndexQueries"]


class IndexQueries:
    """outlines-core spellings and views derived from an Index's public state and transitions."""

    initial_state: Any
    final_states: Any
    vocab_size: Any
    eos_token_id: Any

    def get_initial_state(self) -> int:
        """outlines-core spelling of `initial_state`."""
        return self.initial_state

    def get_final_states(self) -> set[int]:
        return set(self.final_states)

    def get_vocab_size(self) -> int:
        return self.vocab_size

    def get_eos_token_id(self) -> int:
        return self.eos_token_id

    def is_final_state(self, state: int) -> bool:
        if type(state) is not int:
            state = check_int("Index.is_final_state", "state", state)
        return state in self.final_states

    def get_allowed_tokens(self, state: int) -> list[int] | None:
        """Sorted token ids allowed in `state` (eos included on final states); None for an unknown state."""
        if type(state) is not int:
            state = check_int("Index.get_allowed_tokens", "state", state)
        try:
            return self.state_transitions(state)[0].tolist()
        except KeyError:
            return None

    def get_transitions(self) -> dict[int, dict[int, int]]:
        """Every transition as {state: {token_id: next_state}} (built on demand; can be large)."""
        out = {}
        for s in self.states():
            tokens, nexts = self.state_transitions(s)
            if tokens:
                out[s] = dict(zip(tokens, nexts))
        return out

    def __repr__(self) -> str:
        return (
            f"Index(states={self.num_states}, transitions={self.num_transitions}, "
            f"finals={sorted(self.final_states)[:8]}, vocab_size={self.vocab_size}, eos={self.eos_token_id})"
        )
