"""The grammar engine: an Earley recogniser over lazily built lexeme automata, on bytes.

- `lexer`: shared byte automata of lexemes and lexer states (sets of them at once);
- `earley`: the compiled grammar and Earley rows;
- `masks`: token sets from one walk of the vocabulary trie, cached per lexer state;
- `slices`: the tokens made of whole characters of a large set (string contents), by count;
- `matcher`: `Matcher`, states, steps and masks for one grammar and vocabulary.

The guide API over it is `guides.grammar.GrammarGuide`.
"""

from .matcher import EngineState, Matcher

__all__ = ["EngineState", "Matcher"]
