"""Which token id ends a sequence (EOS), and a sentence saying how it was chosen.

In order: the ``eos`` argument (an id, a string of ASCII digits meaning an id, or the token
text); ``eos_token_id`` of generation_config.json beside the file (for a list, the first);
``eos_token`` of tokenizer_config.json, then of special_tokens_map.json; finally a guess among
well-known names (`EOS_GUESSES`): a candidate that the file marks special wins over one that is
an ordinary token (Gemma's ``</s>`` is ordinary text, its EOS is the special ``<eos>``), then
the order of `EOS_GUESSES` decides.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import VocabularyError
from .checks import check_id, id_from_digits, short, type_name
from .hf_files import ParsedVocabulary

__all__ = ["EOS_GUESSES", "resolve_eos"]

EOS_GUESSES: tuple[str, ...] = (
    "<|endoftext|>",
    "</s>",
    "<|eot_id|>",
    "<|end_of_text|>",
    "<eos>",
    "<|im_end|>",
    "<|end|>",
    "<｜end▁of▁sentence｜>",
    "<|end_of_sentence|>",
    "<|eos|>",
    "[EOS]",
    "[SEP]",
)
"""Well-known EOS token texts, tried in this order when nothing else names the EOS token."""


def _sibling_eos_id(siblings: Mapping[str, Any], parsed: ParsedVocabulary) -> tuple[int, str] | None:
    """EOS from generation_config.json, tokenizer_config.json, special_tokens_map.json (in that order)."""
    gen = siblings.get("generation_config.json")
    if isinstance(gen, dict) and gen.get("eos_token_id") is not None:
        name = "generation_config.json"
        value = gen["eos_token_id"]
        if isinstance(value, list):
            if not value:
                raise VocabularyError(f"{name}: eos_token_id: empty list; expected a token id or a list of ids")
            ids = [check_id(v, name, f"eos_token_id[{i}]") for i, v in enumerate(value)]
            note = f"from {name} eos_token_id"
            if len(ids) > 1:
                note += f", which lists {ids}; using the first"
        else:
            ids = [check_id(value, name, "eos_token_id")]
            note = f"from {name} eos_token_id"
        if ids[0] not in parsed.id_to_token:
            raise VocabularyError(f"{name}: eos_token_id: token id {ids[0]} is not in the vocabulary")
        return ids[0], note
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        config = siblings.get(name)
        if not isinstance(config, dict) or config.get("eos_token") is None:
            continue
        value = config["eos_token"]
        if isinstance(value, dict):
            value = value.get("content")
            key = "eos_token.content"
        else:
            key = "eos_token"
        if not isinstance(value, str):
            raise VocabularyError(f"{name}: {key}: expected the EOS token text (a string), got {type_name(value)}")
        if value not in parsed.token_strings:
            raise VocabularyError(f"{name}: {key}: EOS token {short(value)} is not in the vocabulary")
        return parsed.token_strings[value], f"from {name} {key} {value!r}"
    return None


def _given_eos(eos: Any, parsed: ParsedVocabulary, filename: str) -> tuple[int, str]:
    """The EOS the caller named: an int id, a string of ASCII digits (an id), or the token text."""
    if isinstance(eos, str) and eos.isascii() and eos.isdigit():
        eos_id: Any = id_from_digits(eos, filename, "eos")
    else:
        eos_id = eos
    if isinstance(eos_id, bool) or not isinstance(eos_id, (int, str)):
        raise VocabularyError(f"eos: expected a token id (int) or token text (str), got {type(eos).__name__}")
    if isinstance(eos_id, int):
        if eos_id not in parsed.id_to_token:
            raise VocabularyError(f"{filename}: eos: token id {short(eos_id)} is not in the vocabulary")
        return eos_id, f"given: id {eos_id}"
    if eos_id not in parsed.token_strings:
        raise VocabularyError(
            f"{filename}: eos: token {short(eos_id)} is not in the vocabulary; give its exact text or its id"
        )
    return parsed.token_strings[eos_id], f"given: token {eos_id!r}"


def resolve_eos(
    eos: int | str | None, parsed: ParsedVocabulary, siblings: Mapping[str, Any], filename: str
) -> tuple[int, str]:
    """Pick the EOS id (see the module docstring for the order) and say how it was chosen."""
    if eos is not None:
        return _given_eos(eos, parsed, filename)
    found = _sibling_eos_id(siblings, parsed)
    if found is not None:
        return found
    present = [(name, parsed.token_strings[name]) for name in EOS_GUESSES if name in parsed.token_strings]
    special = [(name, token_id) for name, token_id in present if token_id in parsed.special_ids]
    for candidate, token_id in special or present:
        kind = "a special token with a well-known EOS name" if special else "a well-known EOS name"
        return token_id, (
            f"guessed: {filename} does not say which token ends a sequence; using {candidate!r} "
            f"(id {token_id}), {kind}; pass eos= / --eos to choose another"
        )
    raise VocabularyError(
        f"{filename}: no EOS token: none given, no generation_config.json / tokenizer_config.json "
        "beside the file names one, and none of the well-known EOS names "
        f"({', '.join(EOS_GUESSES)}) is in the vocabulary; pass eos= (Python) or --eos (command "
        "line) with the EOS token id or text"
    )
