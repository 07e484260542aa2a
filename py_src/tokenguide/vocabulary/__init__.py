"""Token vocabularies: Hugging Face files read into token id -> bytes, byte-level and
SentencePiece decoding, the EOS rules, and the adapter for Hugging Face tokenizer objects."""

from .tokenizer import Tokenizer, as_tokenizer, core_vocabulary_of, decode_utf8_prefix
from .vocabulary import EOS_GUESSES, MAX_FILE_BYTES, MAX_TOKEN_ID, Vocabulary

__all__ = [
    "EOS_GUESSES",
    "MAX_FILE_BYTES",
    "MAX_TOKEN_ID",
    "Tokenizer",
    "Vocabulary",
    "as_tokenizer",
    "core_vocabulary_of",
    "decode_utf8_prefix",
]
