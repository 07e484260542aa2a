"""Token vocabularies: Hugging Face files read into token id -> bytes (`hf_files`, `decoders`,
`byte_level`), the EOS rules (`eos`), the `Vocabulary` itself, and the adapter for tokenizer
objects (`tokenizer`). Dependencies point one way: checks <- decoders <- hf_files <- eos <-
vocabulary <- tokenizer."""

from .checks import MAX_TOKEN_ID
from .eos import EOS_GUESSES
from .hf_files import MAX_FILE_BYTES
from .tokenizer import Tokenizer, as_tokenizer, core_vocabulary_of, decode_utf8_prefix, tokenizer_token_ids
from .vocabulary import Vocabulary, require_vocabulary

__all__ = [
    "EOS_GUESSES",
    "MAX_FILE_BYTES",
    "MAX_TOKEN_ID",
    "Tokenizer",
    "Vocabulary",
    "as_tokenizer",
    "core_vocabulary_of",
    "decode_utf8_prefix",
    "require_vocabulary",
    "tokenizer_token_ids",
]
