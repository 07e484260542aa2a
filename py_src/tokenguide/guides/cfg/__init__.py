"""Grammar-constrained guides over Lark grammars (imports lark).

- `scanner`: a regex VM with re's leftmost-first semantics that knows which lexemes are settled;
- `reference`: `ReferenceCFGGuide`, exact and slow (tries each token with a parser copy): the oracle;
- `fast`: `FastCFGGuide`, the same answers from one walk of a character trie through a lazily
  built lexer/parser machine.
"""

from .fast import CharTrie, FastCFGGuide
from .reference import CFGState, ReferenceCFGGuide
from .scanner import PrefixScanner

CFGGuide = FastCFGGuide

__all__ = ["CFGGuide", "CFGState", "CharTrie", "FastCFGGuide", "PrefixScanner", "ReferenceCFGGuide"]
