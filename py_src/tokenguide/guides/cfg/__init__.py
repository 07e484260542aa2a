"""Grammar-constrained guides over Lark grammars (imports lark).

- `grammar`: `LarkGrammar`, everything that touches Lark (parser, contextual lexer, terminals);
- `scanner`: a regex VM with re's leftmost-first semantics that knows which lexemes are settled;
- `reference`: `ReferenceCFGGuide`, exact and slow (tries each token with a parser copy): the oracle;
- `machine`: the lexer/parser configuration machine (lazily built, memoized) behind the fast guide;
- `trie`: token texts as a character trie and the walk that finds every viable token at once;
- `fast`: `FastCFGGuide`, the reference's answers from one trie walk per step.
"""

from .fast import FastCFGGuide
from .grammar import LarkGrammar
from .reference import CFGState, ReferenceCFGGuide
from .scanner import PrefixScanner
from .trie import CharTrie

CFGGuide = FastCFGGuide

__all__ = ["CFGGuide", "CFGState", "CharTrie", "FastCFGGuide", "LarkGrammar", "PrefixScanner", "ReferenceCFGGuide"]
