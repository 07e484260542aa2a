"""The grammar engine: an Earley recogniser over lazily built lexeme automata, on bytes.

- `lexer`: shared byte automata of lexemes and lexer states (sets of them at once);
- `earley`: the compiled grammar and Earley rows;
- `masks`: token sets from one walk of the vocabulary trie, cached per lexer state;
- `guide`: `EngineGuide`, the guide API over all of it.
"""

from .guide import EngineGuide, EngineState

__all__ = ["EngineGuide", "EngineState"]
