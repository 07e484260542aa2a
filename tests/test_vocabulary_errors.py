"""Tests of tokenguide.vocabulary's error paths: every bad file, document, id, decoder and EOS gets
a specific VocabularyError (what, where, how to fix), never a crash."""

from __future__ import annotations

import json

import pytest

from tokenguide.vocabulary import Vocabulary
from tokenguide.vocabulary import hf_files as vocabulary_module
from vocab_docs import added, error_of, from_doc, tokenizer_json, write_json


# -- errors ----------------------------------------------------------------------------------


def test_missing_file_raises_file_not_found(tmp_path):
    missing = tmp_path / "nope" / "vocab.json"
    with pytest.raises(FileNotFoundError) as info:
        Vocabulary.from_file(missing)
    assert str(missing) in str(info.value)
    with pytest.raises(FileNotFoundError) as info:
        Vocabulary.from_file(tmp_path)  # a directory without vocabulary files
    assert str(tmp_path) in str(info.value)


def test_not_json_reports_line_and_column(tmp_path):
    path = tmp_path / "vocab.json"
    path.write_text('{\n  "a": 1,\n  "b" 2\n}\n')
    message = error_of(Vocabulary.from_file, path)
    assert "vocab.json" in message and "not valid JSON" in message and "line 3 column 7" in message


def test_not_utf8(tmp_path):
    path = tmp_path / "tokenizer.model"
    path.write_bytes(b"\n\x0e\n\x05<unk>\x15\x00\x00\x00\x00\x18\x02\xff\xfe")
    message = error_of(Vocabulary.from_file, path)
    assert "tokenizer.model" in message and "not UTF-8" in message


def test_duplicate_json_key():
    message = error_of(Vocabulary.from_json_text, '{"a": 0, "b": 1, "a": 2}', filename="my.json")
    assert "my.json" in message and "duplicate key 'a'" in message


@pytest.mark.parametrize("doc, expect", [([["a", 0]], "a list"), ("x", "a string"), (3, "an integer"), (None, "null")])
def test_wrong_top_level_shape(doc, expect):
    message = error_of(Vocabulary.from_json_text, json.dumps(doc), filename="v.json")
    assert "v.json" in message and "expected a JSON object" in message and expect in message


@pytest.mark.parametrize(
    "value, expect",
    [("1", "a string '1'"), (1.5, "a number 1.5"), (True, "a boolean"), (None, "null"), ([1], "a list"), (-3, "negative"), (2**31, "2**31")],
)
def test_bad_ids_in_vocab_json(value, expect):
    message = error_of(Vocabulary.from_json_text, json.dumps({"ok": 0, "bad<tok>": value}), filename="vocab.json")
    assert "vocab.json" in message and "'bad<tok>'" in message and expect in message


def test_config_file_given_as_vocabulary(tmp_path):
    path = write_json(tmp_path / "tokenizer_config.json", {"add_bos_token": True, "eos_token": "</s>"})
    message = error_of(Vocabulary.from_file, path)
    assert "tokenizer_config.json" in message and "'add_bos_token'" in message and "a tokenizer.json has a 'model' object" in message


def test_vocab_json_with_tokens_named_like_tokenizer_json_keys():
    v = Vocabulary.from_json_text(json.dumps({"model": 0, "decoder": 1, "added_tokens": 2, "</s>": 3}))
    assert v.tokens == {b"added_tokens": [2], b"decoder": [1], b"model": [0]}


def test_largest_id_accepted():
    v = Vocabulary.from_json_text(json.dumps({"a": 2**31 - 1, "</s>": 0}))
    assert v.vocab_size == 2**31


def test_duplicate_ids_name_both_tokens():
    message = error_of(Vocabulary.from_json_text, json.dumps({"a": 0, "first": 5, "second": 5}), filename="vocab.json")
    assert "vocab.json" in message and "id 5" in message and "'first'" in message and "'second'" in message
    doc = tokenizer_json({"x": 1, "y": 1})
    message = error_of(from_doc, doc)
    assert "tokenizer.json" in message and "model.vocab" in message and "'x'" in message and "'y'" in message


def test_empty_vocabulary():
    message = error_of(Vocabulary.from_json_text, "{}", filename="vocab.json")
    assert "vocab.json" in message and "empty vocabulary" in message
    # only EOS and specials: nothing ordinary left
    message = error_of(Vocabulary.from_json_text, json.dumps({"<|endoftext|>": 0, "": 1}), filename="vocab.json")
    assert "empty vocabulary" in message
    message = error_of(from_doc, tokenizer_json({}))
    assert "empty vocabulary" in message
    message = error_of(Vocabulary, 0, {"x": 0})
    assert "empty vocabulary" in message


def test_unknown_eos():
    message = error_of(Vocabulary.from_json_text, json.dumps({"a": 0, "b": 1}), filename="vocab.json")
    assert "vocab.json" in message and "eos=" in message and "--eos" in message and "no EOS" in message


def test_eos_given_but_not_in_vocabulary():
    text = json.dumps({"a": 0, "b": 1})
    message = error_of(Vocabulary.from_json_text, text, eos=7)
    assert "vocab.json" in message and "7" in message and "not in the vocabulary" in message
    message = error_of(Vocabulary.from_json_text, text, eos="<end>")
    assert "'<end>'" in message and "not in the vocabulary" in message
    message = error_of(Vocabulary.from_json_text, text, eos=1.0)
    assert "eos" in message and "float" in message
    assert Vocabulary.from_json_text(text, eos="1").eos_token_id == 1
    assert Vocabulary.from_json_text(text, eos="a").eos_token_id == 0


def test_eos_from_sibling_files_not_in_vocabulary(tmp_path):
    path = write_json(tmp_path / "vocab.json", {"a": 0, "</s>": 1})
    gen = write_json(tmp_path / "generation_config.json", {"eos_token_id": 9})
    message = error_of(Vocabulary.from_file, path)
    assert "generation_config.json" in message and "eos_token_id" in message and "9" in message
    write_json(gen, {"eos_token_id": ["2"]})
    message = error_of(Vocabulary.from_file, path)
    assert "generation_config.json" in message and "eos_token_id[0]" in message
    write_json(gen, {"eos_token_id": []})
    message = error_of(Vocabulary.from_file, path)
    assert "generation_config.json" in message and "empty list" in message
    write_json(gen, {"eos_token_id": None})  # null: look further
    write_json(tmp_path / "tokenizer_config.json", {"eos_token": {"content": "<end>"}})
    message = error_of(Vocabulary.from_file, path)
    assert "tokenizer_config.json" in message and "eos_token.content" in message and "'<end>'" in message
    write_json(tmp_path / "tokenizer_config.json", {"eos_token": 5})
    message = error_of(Vocabulary.from_file, path)
    assert "tokenizer_config.json" in message and "eos_token" in message and "an integer" in message
    write_json(tmp_path / "tokenizer_config.json", {"eos_token": None})
    assert Vocabulary.from_file(path).eos_token_id == 1  # falls through to the guess


def test_broken_sibling_file(tmp_path):
    path = write_json(tmp_path / "vocab.json", {"a": 0, "</s>": 1})
    (tmp_path / "tokenizer_config.json").write_text("{oops")
    message = error_of(Vocabulary.from_file, path)
    assert "tokenizer_config.json" in message and "not valid JSON" in message and "line 1" in message
    write_json(tmp_path / "tokenizer_config.json", ["x"])
    message = error_of(Vocabulary.from_file, path)
    assert "tokenizer_config.json" in message and "expected a JSON object" in message
    write_json(tmp_path / "tokenizer_config.json", {"added_tokens_decoder": {"x": {"content": "c"}}})
    message = error_of(Vocabulary.from_file, path)
    assert "tokenizer_config.json" in message and "added_tokens_decoder['x']" in message
    write_json(tmp_path / "tokenizer_config.json", {"added_tokens_decoder": {"4": {"special": True}}})
    message = error_of(Vocabulary.from_file, path)
    assert "tokenizer_config.json" in message and "added_tokens_decoder[4].content" in message
    message = error_of(Vocabulary.from_json_text, '{"a": 0}', siblings={"config.json": "{}"})
    assert "config.json" in message


def test_unknown_decoder_type():
    message = error_of(from_doc, tokenizer_json({"a": 0, "</s>": 1}, decoder={"type": "CTC", "pad_token": "<pad>"}), filename="tok.json")
    assert "tok.json" in message and "decoder.type" in message and "'CTC'" in message
    decoder = {"type": "Sequence", "decoders": [{"type": "ByteFallback"}, {"type": "BPEDecoder", "suffix": "</w>"}]}
    message = error_of(from_doc, tokenizer_json({"a": 0, "</s>": 1}, decoder=decoder))
    assert "decoder.decoders[1].type" in message and "'BPEDecoder'" in message


def test_wordpiece_decoder_rejected():
    doc = tokenizer_json({"[SEP]": 0, "hello": 1, "##lo": 2}, decoder={"type": "WordPiece", "prefix": "##", "cleanup": True}, model_type="WordPiece")
    message = error_of(from_doc, doc)
    assert "WordPiece" in message and "tokenizer.json" in message


def test_bad_decoder_shapes():
    base = {"a": 0, "</s>": 1}
    message = error_of(from_doc, tokenizer_json(base, decoder={"type": "Replace", "pattern": {"Regex": "▁+"}, "content": " "}))
    assert "decoder.pattern" in message and "Regex" in message
    message = error_of(from_doc, tokenizer_json(base, decoder={"type": "Replace", "pattern": {"String": "▁"}, "content": 3}))
    assert "decoder.content" in message
    message = error_of(from_doc, tokenizer_json(base, decoder={"type": "Sequence", "decoders": {"type": "Fuse"}}))
    assert "decoder.decoders" in message and "list" in message
    message = error_of(from_doc, tokenizer_json(base, decoder={"type": "Sequence", "decoders": ["Fuse"]}))
    assert "decoder.decoders[0]" in message
    message = error_of(from_doc, tokenizer_json(base, decoder={"type": "Metaspace", "replacement": ""}))
    assert "decoder.replacement" in message
    decoder = {"type": "Sequence", "decoders": [{"type": "ByteLevel"}, {"type": "ByteFallback"}]}
    message = error_of(from_doc, tokenizer_json(base, decoder=decoder))
    assert "mixes ByteLevel" in message


def test_bad_tokenizer_json_model():
    message = error_of(from_doc, {"model": {"type": "BPE"}, "added_tokens": []})
    assert "model.vocab" in message and "missing" in message
    message = error_of(from_doc, {"model": {"type": "BPE", "vocab": "x"}})
    assert "model.vocab" in message and "a string" in message
    message = error_of(from_doc, tokenizer_json([["a", 0.0], ["b"], 5], model_type="Unigram"))
    assert "model.vocab[2]" in message and "[piece, score]" in message
    message = error_of(from_doc, {"model": None, "added_tokens": [], "decoder": None})
    assert "tokenizer.json" in message and "model" in message


def test_bad_added_tokens():
    vocab = {"a": 0, "</s>": 1}
    message = error_of(from_doc, {**tokenizer_json(vocab), "added_tokens": {"id": 1}})
    assert "added_tokens" in message and "list" in message
    message = error_of(from_doc, tokenizer_json(vocab, added_tokens=[added(1, "</s>"), {"id": -1, "content": "x"}]))
    assert "added_tokens[1].id" in message and "negative" in message
    message = error_of(from_doc, tokenizer_json(vocab, added_tokens=[{"id": 3}]))
    assert "added_tokens[0].content" in message
    message = error_of(from_doc, tokenizer_json(vocab, added_tokens=[{"id": 3, "content": "x", "special": "yes"}]))
    assert "added_tokens[0].special" in message
    message = error_of(from_doc, tokenizer_json(vocab, added_tokens=[added(3, "x"), added(3, "y")]))
    assert "id 3" in message and "'x'" in message and "'y'" in message
    message = error_of(from_doc, tokenizer_json(vocab, added_tokens=["x"]))
    assert "added_tokens[0]" in message


def test_vocab_json_neither_byte_level_nor_sentencepiece():
    message = error_of(Vocabulary.from_json_text, json.dumps({"a": 0, "日本": 1, "</s>": 2}), filename="vocab.json")
    assert "vocab.json" in message and "'日本'" in message and "cannot tell" in message and "tokenizer.json" in message


def test_lone_surrogate_token():
    message = error_of(Vocabulary.from_json_text, '{"\\u2581a": 0, "\\ud800": 1, "</s>": 2}', filename="vocab.json")
    assert "vocab.json" in message and "surrogate" in message


def test_file_size_guard(tmp_path, monkeypatch):
    path = write_json(tmp_path / "vocab.json", {"a": 0, "</s>": 1, "b": 2})
    monkeypatch.setattr(vocabulary_module, "MAX_FILE_BYTES", 10)
    message = error_of(Vocabulary.from_file, path)
    assert "vocab.json" in message and "more than the 10" in message
    message = error_of(Vocabulary.from_json_text, '{"a": 0, "</s>": 1}', filename="big.json")
    assert "big.json" in message and "more than the 10" in message


@pytest.mark.parametrize(
    "eos, mapping, expect",
    [
        (0, {1: 2}, "expected str or bytes"),
        (0, {"a": "1"}, "'a'"),
        (0, {"a": -1}, "negative"),
        (0, {"a": 2**31}, "2**31"),
        (0, {"a": []}, "empty list"),
        (0, {"a": True}, "a boolean"),
        (0, {"a": 1, "b": [2, 1]}, "id 1 is given to two tokens"),
        (0, [("a", 1)], "expected a dict"),
        ("0", {"a": 1}, "eos_token_id"),
        (-1, {"a": 1}, "negative"),
        (0, {}, "empty vocabulary"),
        (0, {"\ud800": 1}, "surrogate"),
    ],
)
def test_mapping_constructor_errors(eos, mapping, expect):
    message = error_of(Vocabulary, eos, mapping)
    assert expect in message and "Vocabulary" in message
