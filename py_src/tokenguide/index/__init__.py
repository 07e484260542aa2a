"""Token-level indexes: the vocabulary's byte trie, the index built over a regex automaton,
the `.outlines` file format (plain data in, plain data out), an index cache, and LazyIndex
(states and token rows computed on first visit, for a fast first mask)."""

from .format import DEFAULT_MAX_SIZE, IndexData, read_index_data
from .index import Index
from .lazy import LazyIndex
from .trie import PreparedVocabulary, prepare_vocabulary

__all__ = ["DEFAULT_MAX_SIZE", "Index", "IndexData", "LazyIndex", "PreparedVocabulary", "prepare_vocabulary", "read_index_data"]
