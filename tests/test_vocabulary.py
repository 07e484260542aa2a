"""Tests of tokenguide.byte_level and tokenguide.vocabulary: decoding rules, EOS choice, every error path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tokenguide.vocabulary.byte_level import (
    BYTE_TO_CHAR,
    CHAR_TO_BYTE,
    decode_byte_level,
    decode_byte_level_many,
    encode_byte_level,
    is_byte_level,
)
from tokenguide.errors import VocabularyError
from tokenguide.vocabulary import EOS_GUESSES, Vocabulary

ROOT = Path(__file__).resolve().parents[1]


from vocab_docs import LLAMA_DECODER, added, error_of, from_doc, tokenizer_json, write_json  # noqa: E402,F401


# -- byte-level table ------------------------------------------------------------------------


def test_byte_level_table_is_a_bijection_over_256_bytes():
    assert sorted(BYTE_TO_CHAR) == list(range(256))
    assert len(set(BYTE_TO_CHAR.values())) == 256
    assert {CHAR_TO_BYTE[c] for c in BYTE_TO_CHAR.values()} == set(range(256))
    for byte, char in BYTE_TO_CHAR.items():
        printable = 0x21 <= byte <= 0x7E or 0xA1 <= byte <= 0xAC or 0xAE <= byte <= 0xFF
        if printable:
            assert char == chr(byte)
        else:
            assert ord(char) >= 0x100
    # the shifted bytes take U+0100.. in byte order
    shifted = [BYTE_TO_CHAR[b] for b in range(256) if ord(BYTE_TO_CHAR[b]) >= 0x100]
    assert [ord(c) for c in shifted] == list(range(0x100, 0x100 + 68))


def test_byte_level_known_characters():
    assert BYTE_TO_CHAR[ord(" ")] == "Ġ"
    assert BYTE_TO_CHAR[ord("\n")] == "Ċ"
    assert BYTE_TO_CHAR[ord("\t")] == "ĉ"
    assert BYTE_TO_CHAR[0] == "Ā"
    assert decode_byte_level("Ġthe") == b" the"
    assert decode_byte_level("Ċ") == b"\n"
    assert decode_byte_level("é") == b"\xe9"  # a lone latin-1 byte, not UTF-8 for é
    assert decode_byte_level("") == b""


def test_byte_level_round_trip_all_bytes():
    data = bytes(range(256))
    text = encode_byte_level(data)
    assert len(text) == 256
    assert decode_byte_level(text) == data
    assert decode_byte_level_many(["Ġa", "", text, "Ċ"]) == [b" a", b"", data, b"\n"]


@pytest.mark.parametrize("token, char", [("a b", " "), ("x\n", "\n"), ("日本", "日"), ("ok\u00ad", "\u00ad"), ("\ufffe", "\ufffe")])
def test_byte_level_rejects_characters_outside_the_table(token, char):
    message = error_of(decode_byte_level, token)
    assert repr(char) in message and f"U+{ord(char):04X}" in message
    message = error_of(decode_byte_level_many, ["Ġok", token])
    assert repr(token) in message
    assert not is_byte_level(["Ġok", token])
    assert is_byte_level(["Ġok", "Ċ"])


# -- GPT-2 vocab.json ------------------------------------------------------------------------


def test_gpt2_known_tokens(gpt2_vocabulary):
    v = gpt2_vocabulary
    assert v.decoding == "byte-level"
    assert v.id_to_bytes(v.token_strings["Ġthe"]) == b" the"
    assert v.id_to_bytes(v.token_strings["Ċ"]) == b"\n"
    assert v.get(" the") == [v.token_strings["Ġthe"]]
    # partial UTF-8 sequences: a lone lead byte, and the first two bytes of '—' (e2 80 94)
    assert v.id_to_bytes(v.token_strings["Ã"]) == b"\xc3"
    assert v.id_to_bytes(v.token_strings["âĢ"]) == b"\xe2\x80"
    assert b"\xe2\x80".decode("utf-8", "replace") != "\u2014"
    # every single byte is a token
    assert all(bytes([b]) in v.tokens for b in range(256))


def test_gpt2_eos_is_guessed_and_kept_out_of_tokens(gpt2_vocabulary):
    v = gpt2_vocabulary
    assert v.eos_token_id == 50256
    assert v.eos_token == "<|endoftext|>"
    assert "guessed" in v.eos_note and "<|endoftext|>" in v.eos_note and "--eos" in v.eos_note
    assert v.vocab_size == 50257
    assert len(v.tokens) == 50256
    assert all(50256 not in ids for ids in v.tokens.values())
    assert v.id_to_bytes(50256) is None
    assert v.token_strings["<|endoftext|>"] == 50256
    assert v.id_to_token(50256) == "<|endoftext|>"
    assert len(v.token_strings) == 50257
    assert len(v) == 50257


def test_gpt2_tokens_sorted_and_every_id_round_trips(gpt2_vocabulary):
    v = gpt2_vocabulary
    keys = list(v.tokens)
    assert keys == sorted(keys)
    for data, ids in v.tokens.items():
        assert ids == sorted(ids) and ids
        for token_id in ids:
            assert v.id_to_bytes(token_id) == data
            assert encode_byte_level(data) == v.id_to_token(token_id)


def test_gpt2_from_json_text_matches_from_file(gpt2_vocabulary, gpt2_vocab_path):
    text = gpt2_vocab_path.read_bytes()
    again = Vocabulary.from_json_text(text, filename="encoder.json")
    assert again.fingerprint() == gpt2_vocabulary.fingerprint()
    assert again == gpt2_vocabulary
    assert again.eos_note == gpt2_vocabulary.eos_note
    # str input too
    assert Vocabulary.from_json_text(text.decode("utf-8")).tokens == gpt2_vocabulary.tokens


def test_gpt2_mapping_constructor_matches_file(gpt2_vocabulary):
    v = gpt2_vocabulary
    mapping = {data: list(ids) for data, ids in v.tokens.items()}
    rebuilt = Vocabulary(v.eos_token_id, mapping)
    assert rebuilt.fingerprint() == v.fingerprint()
    assert rebuilt.eos_token is None
    assert rebuilt.eos_note is None


@pytest.fixture
def gpt2_copy(tmp_path, gpt2_vocab_path) -> Path:
    return Path(shutil.copy(gpt2_vocab_path, tmp_path / "vocab.json"))


def test_gpt2_eos_from_tokenizer_config(gpt2_copy, gpt2_vocabulary):
    write_json(gpt2_copy.parent / "tokenizer_config.json", {"eos_token": "<|endoftext|>"})
    v = Vocabulary.from_file(gpt2_copy)
    assert v.eos_token_id == 50256
    assert "tokenizer_config.json" in v.eos_note and "guessed" not in v.eos_note
    assert v.fingerprint() == gpt2_vocabulary.fingerprint()


def test_gpt2_eos_from_tokenizer_config_object(gpt2_copy):
    write_json(gpt2_copy.parent / "tokenizer_config.json", {"eos_token": {"content": "Ċ", "special": True}})
    v = Vocabulary.from_file(gpt2_copy)
    assert v.eos_token_id == 198
    assert b"\n" not in v.tokens
    assert "eos_token.content" in v.eos_note


def test_gpt2_eos_from_generation_config_list(gpt2_copy):
    write_json(gpt2_copy.parent / "tokenizer_config.json", {"eos_token": "Ċ"})
    write_json(gpt2_copy.parent / "generation_config.json", {"eos_token_id": [50256, 198]})
    v = Vocabulary.from_file(gpt2_copy)
    assert v.eos_token_id == 50256  # generation_config.json wins over tokenizer_config.json
    assert "generation_config.json" in v.eos_note and "first" in v.eos_note and "[50256, 198]" in v.eos_note
    assert b"\n" in v.tokens


def test_gpt2_eos_from_generation_config_int(gpt2_copy):
    write_json(gpt2_copy.parent / "generation_config.json", {"eos_token_id": 198, "bos_token_id": 0})
    v = Vocabulary.from_file(gpt2_copy)
    assert v.eos_token_id == 198
    assert "generation_config.json" in v.eos_note and "first" not in v.eos_note


def test_special_tokens_map_eos(gpt2_copy):
    write_json(gpt2_copy.parent / "special_tokens_map.json", {"eos_token": {"content": "Ċ"}})
    assert Vocabulary.from_file(gpt2_copy).eos_token_id == 198


@pytest.mark.parametrize("eos", [198, "198", "Ċ"])
def test_eos_given_by_caller(gpt2_copy, eos):
    write_json(gpt2_copy.parent / "generation_config.json", {"eos_token_id": 50256})
    v = Vocabulary.from_file(gpt2_copy, eos=eos)
    assert v.eos_token_id == 198
    assert v.eos_note.startswith("given")
    assert b"\n" not in v.tokens
    assert v.id_to_bytes(50256) == b"<|endoftext|>"  # no longer EOS: an ordinary token
    assert v.vocab_size == 50257


def test_directory_path_finds_vocab_json(gpt2_copy):
    v = Vocabulary.from_file(gpt2_copy.parent)
    assert v.eos_token_id == 50256
    assert v.source == str(gpt2_copy)


# -- Llama 2 tokenizer.json ------------------------------------------------------------------


def test_llama2_known_tokens(llama2_vocabulary):
    v = llama2_vocabulary
    assert v.decoding == "sentencepiece"
    assert v.id_to_bytes(v.token_strings["▁the"]) == b" the"
    assert v.id_to_bytes(v.token_strings["<0x0A>"]) == b"\n"
    assert v.token_strings["<0x0A>"] in v.tokens[b"\n"]
    assert v.id_to_bytes(v.token_strings["<0xE2>"]) == b"\xe2"
    assert v.id_to_bytes(v.token_strings["▁"]) == b" "
    assert v.vocab_size == 32000
    assert len(v.token_strings) == 32000


def test_llama2_specials_and_eos(llama2_vocabulary):
    v = llama2_vocabulary
    assert v.eos_token_id == 2 and v.eos_token == "</s>"
    assert "tokenizer_config.json" in v.eos_note  # the sample ships one beside tokenizer.json
    for token_id, text in [(0, "<unk>"), (1, "<s>"), (2, "</s>")]:
        assert v.id_to_bytes(token_id) is None
        assert v.id_to_token(token_id) == text
        assert v.token_strings[text] == token_id
        assert all(token_id not in ids for ids in v.tokens.values())
    assert v.special_token_ids == frozenset({0, 1})
    assert b"<s>" not in v.tokens and b"</s>" not in v.tokens


def test_llama2_shared_bytes_keep_all_ids(llama2_vocabulary):
    v = llama2_vocabulary
    shared = {data: ids for data, ids in v.tokens.items() if len(ids) > 1}
    assert shared, "Llama 2 has byte tokens that duplicate literal one-character tokens"
    for data, ids in shared.items():
        assert ids == sorted(ids)
        assert all(v.id_to_bytes(i) == data for i in ids)
    # 32000 ids, minus 3 specials, all present in .tokens
    assert sum(len(ids) for ids in v.tokens.values()) == 32000 - 3


def test_llama2_bare_copy_guesses_eos(tmp_path, llama2_tokenizer_path, llama2_vocabulary):
    copy = Path(shutil.copy(llama2_tokenizer_path, tmp_path / "tokenizer.json"))
    v = Vocabulary.from_file(copy)
    assert v.eos_token_id == 2
    assert "guessed" in v.eos_note and "</s>" in v.eos_note
    assert v.fingerprint() == llama2_vocabulary.fingerprint()


# -- handmade tokenizer.json variants ---------------------------------------------------------


def test_sentencepiece_style_vocab_json(tmp_path):
    path = write_json(tmp_path / "vocab.json", {"<unk>": 0, "<s>": 1, "</s>": 2, "<0x0A>": 3, "▁the": 4, "a": 5, "▁": 6})
    v = Vocabulary.from_file(path)
    assert v.decoding == "sentencepiece"
    assert v.tokens == {b"\n": [3], b" ": [6], b" the": [4], b"a": [5]}
    assert v.eos_token_id == 2 and "guessed" in v.eos_note
    assert v.special_token_ids == frozenset({0, 1})
    assert v.vocab_size == 7


def test_vocab_json_added_tokens_from_tokenizer_config(tmp_path):
    path = write_json(tmp_path / "vocab.json", {"a": 0, "Ġb": 1})
    write_json(
        tmp_path / "tokenizer_config.json",
        {
            "eos_token": "<|im_end|>",
            "added_tokens_decoder": {
                "5": {"content": "<|im_end|>", "special": True},
                "4": {"content": "<|im_start|>", "special": True},
                "3": {"content": "Ġliteral", "special": False},
            },
        },
    )
    v = Vocabulary.from_file(path)
    assert v.eos_token_id == 5 and v.eos_token == "<|im_end|>"
    # a non-special added token goes through the decoder, as in HF tokenizers (test_real_tokenizers)
    assert v.tokens == {b" literal": [3], b" b": [1], b"a": [0]}
    assert v.special_token_ids == frozenset({4})
    assert v.vocab_size == 6


def test_vocab_json_token_marked_special_by_tokenizer_config(tmp_path):
    path = write_json(tmp_path / "vocab.json", {"a": 0, "<|im_start|>": 1, "<|endoftext|>": 2, "<x>": 3})
    write_json(
        tmp_path / "tokenizer_config.json",
        {"added_tokens_decoder": {"1": {"content": "<|im_start|>", "special": True}, "3": {"content": "<x>", "special": False}}},
    )
    v = Vocabulary.from_file(path)
    assert v.tokens == {b"<x>": [3], b"a": [0]}
    assert v.special_token_ids == frozenset({1})
    assert v.eos_token_id == 2 and "guessed" in v.eos_note
    assert v.token_strings == {"a": 0, "<|im_start|>": 1, "<|endoftext|>": 2, "<x>": 3}


def test_unigram_with_metaspace(tmp_path):
    doc = tokenizer_json(
        [["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0], ["▁hello", -1.0], ["x", -2.0], ["<0x41>", -3.0], ["x", -4.0]],
        decoder={"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        added_tokens=[added(0, "<pad>"), added(1, "</s>"), added(2, "<unk>")],
        model_type="Unigram",
    )
    v = from_doc(doc)
    # without ByteFallback, <0x41> is literal text; a repeated piece keeps both ids
    assert v.tokens == {b"<0x41>": [5], b" hello": [3], b"x": [4, 6]}
    assert v.eos_token_id == 1
    assert v.token_strings["x"] == 4


def test_byte_level_decoder_and_added_tokens():
    doc = tokenizer_json(
        {"Ġa": 0, "b": 1, "Ċ": 2, "": 3, "<|endoftext|>": 4, "x": 7},
        decoder={"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        added_tokens=[added(4, "<|endoftext|>"), added(5, "Ġliteral", special=False), added(6, "<tool>"), added(7, "b", special=False)],
    )
    v = from_doc(doc)
    assert v.decoding == "byte-level"
    # empty token left out; a non-special added token is decoded like model tokens (HF tokenizers
    # decodes added tokens through the decoder too); id 7 replaced by added "b"
    assert v.tokens == {b"\n": [2], b" a": [0], b"b": [1, 7], b" literal": [5]}
    assert v.eos_token_id == 4
    assert v.special_token_ids == frozenset({6})
    assert v.vocab_size == 8
    assert v.id_to_token(3) == "" and v.id_to_bytes(3) is None
    assert v.id_to_token(7) == "b"
    assert v.token_strings["x"] == 7  # the replaced model string still names its id
    assert v.id_to_token(99) is None and v.id_to_bytes(99) is None


def test_byte_level_tokenizer_json_keeps_tokens_outside_table_as_text():
    doc = tokenizer_json({"Ġa": 0, "日本": 1, "</s>": 2}, decoder={"type": "ByteLevel"})
    v = from_doc(doc)
    assert v.tokens == {b" a": [0], "日本".encode(): [1]}


def test_nested_sequence_decoder():
    decoder = {"type": "Sequence", "decoders": [{"type": "Sequence", "decoders": LLAMA_DECODER["decoders"]}]}
    v = from_doc(tokenizer_json({"</s>": 0, "▁a": 1, "<0xFF>": 2, "<0xff>": 3}, decoder=decoder))
    assert v.tokens == {b" a": [1], b"\xff": [2, 3]}


def test_no_decoder_falls_back_to_vocab_json_rule():
    v = from_doc(tokenizer_json({"</s>": 0, "Ġa": 1}))
    assert v.decoding == "byte-level" and v.tokens == {b" a": [1]}
    v = from_doc(tokenizer_json({"</s>": 0, "▁a": 1, "<0x0A>": 2}))
    assert v.decoding == "sentencepiece" and v.tokens == {b"\n": [2], b" a": [1]}


def test_decoder_with_only_fuse_strip_is_plain_text():
    v = from_doc(tokenizer_json({"</s>": 0, "▁a": 1, "<0x0A>": 2}, decoder={"type": "Sequence", "decoders": [{"type": "Fuse"}]}))
    assert v.decoding == "text"
    assert v.tokens == {b"<0x0A>": [2], "▁a".encode(): [1]}


def test_mapping_constructor():
    v = Vocabulary(3, {"a": 0, b"\xff": [1, 2], "é": 4, "<eos>": 3, "": 5})
    assert v.tokens == {b"a": [0], "é".encode(): [4], b"\xff": [1, 2]}
    assert v.eos_token_id == 3 and v.eos_token == "<eos>"
    assert v.vocab_size == 6
    assert v.token_strings["<eos>"] == 3 and v.token_strings["a"] == 0
    assert v.token_strings[encode_byte_level(b"\xff")] == 1
    assert v.id_to_token(2) == "ÿ"
    assert list(v.token_strings.values()) == sorted(v.token_strings.values())
    # str and bytes spelling the same bytes merge
    assert Vocabulary(9, {"a": 0, b"a": 1}).tokens == {b"a": [0, 1]}
    # eos beyond every token still counts in vocab_size
    assert Vocabulary(100, {"a": 0}).vocab_size == 101
    assert Vocabulary(0, {"a": [1, 1]}).tokens == {b"a": [1]}


def test_fingerprint_changes_with_content():
    base = Vocabulary(3, {"a": 0, "b": 1})
    assert base.fingerprint() == Vocabulary(3, {b"b": 1, b"a": [0]}).fingerprint()
    others = [
        Vocabulary(4, {"a": 0, "b": 1}),
        Vocabulary(3, {"a": 0, "b": 2}),
        Vocabulary(3, {"a": 0, "c": 1}),
        Vocabulary(3, {"a": [0, 2], "b": 1}),
        Vocabulary(3, {"ab": 0, "": 1, "x": 2}),
        Vocabulary(3, {"a": 0, "b": 1, "z": 7}),
    ]
    prints = {base.fingerprint()} | {o.fingerprint() for o in others}
    assert len(prints) == len(others) + 1
    assert all(len(p) == 64 for p in prints)


FINGERPRINT_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
from tokenguide.vocabulary import Vocabulary
v = Vocabulary(7, {"b": 1, "a": [3, 0], b"\\xff": 2, "z": 9, "ab": 4})
print(v.fingerprint())
print(list(v.tokens))
if len(sys.argv) > 2:
    print(Vocabulary.from_file(sys.argv[2]).fingerprint())
"""


@pytest.mark.skipif(sys.platform == "emscripten", reason="Pyodide cannot start subprocesses")
def test_fingerprint_independent_of_hash_seed(gpt2_vocab_path, gpt2_vocabulary):
    outputs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run(
            [sys.executable, "-c", FINGERPRINT_SCRIPT, str(ROOT / "py_src"), str(gpt2_vocab_path)],
            capture_output=True, text=True, env=env, check=True,
        )
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1]
    lines = outputs[0].splitlines()
    small = Vocabulary(7, {"b": 1, "a": [3, 0], b"\xff": 2, "z": 9, "ab": 4})
    assert lines[0] == small.fingerprint()
    assert lines[2] == gpt2_vocabulary.fingerprint()


def test_eos_guess_order_is_fixed():
    assert EOS_GUESSES[0] == "<|endoftext|>" and EOS_GUESSES[1] == "</s>"
    v = Vocabulary.from_json_text(json.dumps({"a": 0, "[SEP]": 1, "<|im_end|>": 2, "</s>": 3, "<|endoftext|>": 4}))
    assert v.eos_token_id == 4
    v = Vocabulary.from_json_text(json.dumps({"a": 0, "[SEP]": 1, "<|im_end|>": 2}))
    assert v.eos_token_id == 2


# -- added tokens through the decoder, EOS among special names, start-of-text facts ---------------

GEMMA_DECODER = {
    "type": "Sequence",
    "decoders": [
        {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
    ],
}


def test_added_tokens_go_through_the_decoder():
    """Gemma 3's non-special added tokens '▁▁'... decode to spaces, as the Replace decoder makes them."""
    doc = tokenizer_json(
        {"<pad>": 0, "<eos>": 1, "</s>": 2, "▁a": 3, "<0x41>": 4, "x": 5},
        decoder=GEMMA_DECODER,
        added_tokens=[added(0, "<pad>"), added(1, "<eos>"), added(6, "▁▁", special=False), added(7, "<0x42>", special=False)],
    )
    v = from_doc(doc)
    assert v.id_to_bytes(6) == b"  " and v.get("  ") == [6]
    assert v.id_to_bytes(7) == b"B"  # ByteFallback applies to added text too, as in tokenizers
    assert v.id_to_token(6) == "▁▁"


def test_eos_guess_prefers_a_special_token():
    """Without config files, Gemma's ordinary '</s>' (text) loses to its special '<eos>'."""
    doc = tokenizer_json(
        {"<pad>": 0, "<eos>": 1, "</s>": 2, "▁a": 3},
        decoder=GEMMA_DECODER,
        added_tokens=[added(0, "<pad>"), added(1, "<eos>")],
    )
    v = from_doc(doc)
    assert v.eos_token_id == 1 and v.eos_token == "<eos>"
    assert "guessed" in v.eos_note and "special" in v.eos_note
    assert v.get("</s>") == [2]  # still an ordinary token
    # with no special candidate the EOS_GUESSES order decides, as before
    v = from_doc(tokenizer_json({"<eos>": 0, "</s>": 1, "▁a": 2}, decoder=GEMMA_DECODER))
    assert v.eos_token_id == 1


@pytest.mark.skipif(sys.platform == "emscripten", reason="a 33 MB file; the small documents above test the same rules in Pyodide")
def test_real_gemma3_without_config_files():
    path = ROOT / "web" / "node_modules" / "@lenml" / "tokenizer-gemma3" / "models" / "tokenizer.json"
    if not path.exists():
        pytest.skip(f"{path} is missing: run `python3 build.py test` (it installs web/node_modules)")
    v = Vocabulary.from_json_text(path.read_bytes(), filename="tokenizer.json")
    assert v.eos_token_id == 1 and v.eos_token == "<eos>" and "guessed" in v.eos_note
    assert v.vocab_size == 262_145
    assert v.id_to_bytes(138) == b"  " and v.id_to_bytes(167) == b" " * 31
    assert not v.strips_leading_space and not v.adds_dummy_prefix


@pytest.mark.parametrize(
    "decoder, normalizer, pre_tokenizer, strips, prefix",
    [
        (LLAMA_DECODER, {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}]}, None, True, True),
        (GEMMA_DECODER, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}, None, False, False),
        (
            {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
            None,
            {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
            True,
            True,
        ),
        (
            {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": True},
            None,
            {"type": "Sequence", "pretokenizers": [{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never"}]},
            False,
            False,
        ),
        ({"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}, None, {"type": "Metaspace", "add_prefix_space": True}, True, True),
        ({"type": "ByteLevel"}, None, {"type": "ByteLevel", "add_prefix_space": False}, False, False),
    ],
)
def test_start_of_text_facts_are_recorded(decoder, normalizer, pre_tokenizer, strips, prefix):
    vocab = {"<unk>": 0, "</s>": 1, "▁a": 2, "b": 3} if decoder.get("type") != "ByteLevel" else {"</s>": 1, "Ġa": 2, "b": 3}
    doc = tokenizer_json(vocab, decoder=decoder, added_tokens=[added(1, "</s>")])
    doc["normalizer"], doc["pre_tokenizer"] = normalizer, pre_tokenizer
    v = from_doc(doc)
    assert (v.strips_leading_space, v.adds_dummy_prefix) == (strips, prefix)


def test_bare_sentencepiece_vocab_json_assumes_llama2_start_of_text():
    v = Vocabulary.from_json_text(json.dumps({"<unk>": 0, "<s>": 1, "</s>": 2, "▁a": 3, "<0x0A>": 4}))
    assert v.decoding == "sentencepiece" and v.strips_leading_space and v.adds_dummy_prefix
    v = Vocabulary.from_json_text(json.dumps({"a": 0, "Ġb": 1, "<|endoftext|>": 2}))
    assert not v.strips_leading_space and not v.adds_dummy_prefix
    v = Vocabulary(0, {"a": 1})
    assert v.decoding == "mapping" and not v.strips_leading_space and not v.adds_dummy_prefix


# -- numbers too long to be ids ------------------------------------------------------------------


def test_ids_with_thousands_of_digits(tmp_path):
    huge = "9" * 5000
    message = error_of(Vocabulary.from_json_text, '{"a": %s, "</s>": 1}' % huge, filename="vocab.json")
    assert "vocab.json: token 'a'" in message and "5,000 digits" in message and "2**31" in message
    message = error_of(Vocabulary.from_json_text, '{"model": {"vocab": {"a": 0}}, "added_tokens": [{"id": %s}]}' % huge)
    assert "added_tokens[0].id" in message and "5,000 digits" in message
    message = error_of(Vocabulary.from_json_text, '{"a": %s, "</s>": 1}' % ("9" * 400), filename="vocab.json")
    assert "token 'a'" in message and "too large" in message and len(message) < 300
    message = error_of(Vocabulary.from_json_text, json.dumps({"a": 0, "</s>": 1}), eos=huge)
    assert "eos" in message and "5,000 digits" in message and len(message) < 300
    path = write_json(tmp_path / "vocab.json", {"a": 0, "Ġb": 1, "</s>": 2})
    write_json(tmp_path / "tokenizer_config.json", {"added_tokens_decoder": {huge: {"content": "x"}}})
    message = error_of(Vocabulary.from_file, path)
    assert "tokenizer_config.json" in message and "5,000 digits" in message and len(message) < 400
    write_json(tmp_path / "tokenizer_config.json", {"model_max_length": 10**30})  # real configs hold such numbers
    assert Vocabulary.from_file(path).eos_token_id == 2


def test_start_of_text_regex(llama2_vocabulary, gpt2_vocabulary):
    import re

    from tokenguide.errors import VocabularyTypeError

    v = llama2_vocabulary
    assert v.start_of_text_regex("Hello") == r"\x20(?:Hello)"
    assert v.start_of_text_regex("(?i)hello|bye") == r"(?i)\x20(?:hello|bye)"
    assert v.start_of_text_regex("^ab") == r"^\x20(?:ab)" and v.start_of_text_regex(r"\Aab") == r"\A\x20(?:ab)"
    for regex, text in [("Hello", " Hello"), ("(?i)hello|bye", " BYE"), ("(?x) a b", " ab"), ("^a+", " aaa")]:
        assert re.fullmatch(v.start_of_text_regex(regex), text) and not re.fullmatch(v.start_of_text_regex(regex), text[1:])
    assert gpt2_vocabulary.start_of_text_regex("Hello") == "Hello"
    with pytest.raises(VocabularyTypeError, match="start_of_text_regex: regex"):
        v.start_of_text_regex(b"x")


def test_collector_is_back_on_after_a_load_or_a_failure():
    import gc

    assert gc.isenabled()
    Vocabulary.from_json_text(json.dumps({"a": 0, "<|endoftext|>": 1}))
    assert gc.isenabled()
    with pytest.raises(VocabularyError):
        Vocabulary.from_json_text("[[[")
    assert gc.isenabled()
    gc.disable()
    try:
        Vocabulary.from_json_text(json.dumps({"a": 0, "<|endoftext|>": 1}))
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()
