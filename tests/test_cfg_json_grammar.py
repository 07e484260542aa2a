"""The bundled JSON grammar is JSON (RFC 8259), exactly: JSONTestSuite's y_ files are accepted and its
n_ files rejected, both by Lark parsing the grammar and by the CFG guide fed the file byte by byte
(a vocabulary of the 256 single bytes, so invalid UTF-8 is judged too). The i_ (implementation-
defined) answers are pinned here and documented in json.lark and the README.

Data: ../shared/data/jsontestsuite (MIT), skipped when missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lark import Lark
from lark.exceptions import LarkError

from tokenguide import grammars
from tokenguide.guides import CFGGuide
from tokenguide.vocabulary import Tokenizer, Vocabulary

SUITE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "jsontestsuite" / "test_parsing"
GUIDE_MAX_BYTES = 10_000  # deeper files (100,000 open brackets) are judged by Lark only: the guide keys
# its memo tables by the whole LR stack, so a 50,000-deep nesting would cost gigabytes

# i_ files: accepted iff the bytes are valid UTF-8 without a byte order mark (the grammar itself accepts
# any syntax of RFC 8259: huge numbers, lone surrogate escapes, deep nesting).
I_ACCEPTED = {
    "i_number_double_huge_neg_exp.json", "i_number_huge_exp.json", "i_number_neg_int_huge_exp.json",
    "i_number_pos_double_huge_exp.json", "i_number_real_neg_overflow.json", "i_number_real_pos_overflow.json",
    "i_number_real_underflow.json", "i_number_too_big_neg_int.json", "i_number_too_big_pos_int.json",
    "i_number_very_big_negative_int.json", "i_object_key_lone_2nd_surrogate.json",
    "i_string_1st_surrogate_but_2nd_missing.json", "i_string_1st_valid_surrogate_2nd_invalid.json",
    "i_string_incomplete_surrogate_and_escape_valid.json", "i_string_incomplete_surrogate_pair.json",
    "i_string_incomplete_surrogates_escape_valid.json", "i_string_invalid_lonely_surrogate.json",
    "i_string_invalid_surrogate.json", "i_string_inverted_surrogates_U+1D11E.json",
    "i_string_lone_second_surrogate.json", "i_structure_500_nested_arrays.json",
}


def suite_files() -> list[Path]:
    if not SUITE.is_dir():
        pytest.skip(f"JSONTestSuite not found at {SUITE} (shared data)")
    return sorted(SUITE.iterdir())


def expected(path: Path) -> bool:
    name = path.name
    if name.startswith("i_"):
        return name in I_ACCEPTED
    assert name[:2] in ("y_", "n_"), name
    return name.startswith("y_")


def lark_accepts(parser: Lark, data: bytes) -> bool:
    try:
        parser.parse(data.decode("utf-8"))
    except (UnicodeDecodeError, LarkError):
        return False
    return True


def test_lark_parses_exactly_json():
    files = suite_files()
    parser = Lark(grammars.json, parser="lalr")
    wrong = [p.name for p in files if lark_accepts(parser, p.read_bytes()) != expected(p)]
    assert wrong == []
    counts = {k: sum(p.name.startswith(k) for p in files) for k in ("y_", "n_", "i_")}
    assert counts == {"y_": 95, "n_": 188, "i_": 35}


@pytest.fixture(scope="module")
def byte_guide():
    mapping: dict = {"<eos>": 0}
    for b in range(256):
        mapping[bytes([b])] = b + 1
    tok = Tokenizer(Vocabulary(0, mapping))
    return CFGGuide(grammars.json, tok), tok


def guide_accepts(guide, data: bytes) -> bool:
    """Feed `data` one byte token at a time; accepted when every byte is allowed and then EOS."""
    state = guide.initial_state
    for b in data:
        if b + 1 not in guide.allowed_token_ids(state):
            return False
        state = guide.get_next_state(state, b + 1)
    return guide.eos_token_id in guide.allowed_token_ids(state)


@pytest.mark.parametrize("prefix", ["y_", "n_", "i_"])
def test_guide_accepts_exactly_json(byte_guide, prefix):
    guide, _tok = byte_guide
    files = [p for p in suite_files() if p.name.startswith(prefix)]
    judged = [p for p in files if p.stat().st_size <= GUIDE_MAX_BYTES]
    wrong = [p.name for p in judged if guide_accepts(guide, p.read_bytes()) != expected(p)]
    assert wrong == []
    skipped = sorted(p.name for p in files if p not in judged)
    assert skipped == (["n_structure_100000_opening_arrays.json", "n_structure_open_array_object.json"]
                       if prefix == "n_" else [])


def test_the_grammar_file_says_what_language_it_is():
    for name in grammars.names():
        first = grammars.load(name).splitlines()[0]
        assert first.startswith("//") and len(first) > 30, name
