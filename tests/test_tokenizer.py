"""Tokenizer adapter: outlines' tokenizer interface over a core Vocabulary."""

from __future__ import annotations

import pytest

from tokenguide.vocabulary import Tokenizer, as_tokenizer, core_vocabulary_of, decode_utf8_prefix
from tokenguide.vocabulary import Vocabulary


def small_tokenizer(**kwargs) -> Tokenizer:
    mapping = {"<eos>": 0, "a": 1, "b": 2, " c": 3, b"\xc3": 4, b"\xa9": 5, b"\xff": 6, "é": 7}
    return Tokenizer(Vocabulary(0, mapping), **kwargs)


@pytest.mark.parametrize(
    "data, text",
    [
        (b"abc", "abc"),
        (b"ab\xc3", "ab"),  # lead byte waiting for its continuation: held back
        (b"ab\xe2\x82", "ab"),
        (b"ab\xe2\x82\xac", "ab€"),
        (b"a\xffb", "a\ufffdb"),  # invalid byte in the middle: replaced
        (b"\x80", "\ufffd"),  # a lone continuation byte can never complete
        (b"a\xc3x", "a\ufffdx"),
        (b"", ""),
    ],
)
def test_decode_holds_back_incomplete_utf8(data, text):
    assert decode_utf8_prefix(data) == text


def test_attributes_and_batch_decode():
    tok = small_tokenizer()
    assert tok.eos_token_id == 0 and tok.eos_token == "<eos>" and tok.pad_token_id == 0
    assert tok.vocabulary["a"] == 1 and tok.vocabulary["<eos>"] == 0
    assert tok.special_tokens == {"<eos>"}
    assert tok.decode([1, 2]) == ["a", "b"]  # each id on its own, like HF batch_decode
    assert tok.decode([[1, 2, 3]]) == ["ab c"]
    assert tok.decode([[1, 4]]) == ["a"]  # incomplete é held back
    assert tok.decode([[1, 4, 5]]) == ["aé"]
    assert tok.decode([[0, 1]]) == ["a"]  # EOS has no text
    assert tok.decode_text([7]) == "é"
    assert tok.convert_token_to_string(" c") == " c"
    with pytest.raises(KeyError):
        tok.convert_token_to_string("zzz")
    with pytest.raises(NotImplementedError):
        tok.encode("a")


def test_strip_leading_space_option():
    tok = small_tokenizer(strip_leading_space=True)
    assert tok.decode([3]) == ["c"]
    assert tok.decode([[1, 3]]) == ["a c"]
    assert small_tokenizer().decode([3]) == [" c"]


def test_rejects_non_vocabulary():
    with pytest.raises(TypeError, match="Vocabulary"):
        Tokenizer({"a": 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected a tokenguide Tokenizer"):
        as_tokenizer(42)


class FakeHF:
    """Duck-typed stand-in for a transformers slow tokenizer (no backend_tokenizer)."""

    eos_token_id = 0
    eos_token = "</s>"
    pad_token_id = None
    all_special_tokens = ["</s>"]

    def __init__(self):
        self._vocab = {"</s>": 0, "\u2581hi": 1, "x": 2}

    def get_vocab(self):
        return dict(self._vocab)

    def convert_tokens_to_string(self, tokens):
        return "".join(t.replace("\u2581", " ") for t in tokens).lstrip(" ")

    def decode(self, ids, skip_special_tokens=False):
        inv = {v: k for k, v in self._vocab.items()}
        return self.convert_tokens_to_string([inv[i] for i in ids if not (skip_special_tokens and i == 0)])


def test_transformers_duck_typing():
    tok = as_tokenizer(FakeHF())
    assert isinstance(tok, Tokenizer)
    assert tok.eos_token_id == 0 and tok.pad_token_id == 0 and tok.eos_token == "</s>"
    assert tok.vocabulary == {"</s>": 0, "\u2581hi": 1, "x": 2}
    assert tok.core_vocabulary.id_to_bytes(1) == b" hi"  # leading space restored for token bytes
    assert tok.decode([[1, 2]]) == ["hix"]  # decoding delegated to the HF tokenizer
    assert core_vocabulary_of(tok) is tok.core_vocabulary


def test_outlines_style_tokenizer_gets_a_vocabulary():
    class Mock:
        vocabulary = {"<eos>": 0, "a": 1, "b": 2}
        eos_token_id = 0
        special_tokens = {"<eos>"}

        def convert_token_to_string(self, token):
            return token

        def decode(self, ids):
            return [""]

    vocab = core_vocabulary_of(Mock())
    assert vocab.eos_token_id == 0 and vocab.get("a") == [1] and vocab.get("b") == [2]


def test_gpt2_tokenizer(gpt2_vocab_path):
    tok = Tokenizer.from_file(gpt2_vocab_path)
    assert tok.eos_token_id == 50256 and tok.eos_token == "<|endoftext|>"
    assert not tok.strip_leading_space
    ids = [tok.vocabulary["Hello"], tok.vocabulary["\u0120world"]]
    assert tok.decode([ids]) == ["Hello world"]
    assert tok.convert_token_to_string("\u0120world") == " world"
    # "é" split over two byte tokens: the first alone decodes to nothing yet
    first, second = tok.vocabulary["\u00c3"], tok.vocabulary["\u00a9"]
    assert tok.decode([first]) == [""] and tok.decode([[first, second]]) == ["é"]


def test_llama2_tokenizer(llama2_tokenizer_path):
    tok = Tokenizer.from_file(llama2_tokenizer_path)
    assert tok.eos_token_id == 2 and tok.eos_token == "</s>"
    assert tok.strip_leading_space  # the tokenizer.json decoder has Strip(" ", start=1)
    hello, world = tok.vocabulary["\u2581Hello"], tok.vocabulary["\u2581world"]
    assert tok.decode([hello]) == ["Hello"]
    assert tok.decode([[hello, world]]) == ["Hello world"]
    assert tok.decode([tok.vocabulary["<0x41>"]]) == ["A"]
    assert tok.decode([1]) == [""]  # <s> is special: no text
    assert "<s>" in tok.special_tokens and "</s>" in tok.special_tokens


def test_transformers_fast_tokenizer_uses_its_tokenizer_json(llama2_tokenizer_path):
    """A fast HF tokenizer exposes backend_tokenizer.to_str(): token bytes come from that JSON."""
    text = open(llama2_tokenizer_path, encoding="utf-8").read()

    class Backend:
        def to_str(self):
            return text

    class FakeFast(FakeHF):
        eos_token_id = 2
        backend_tokenizer = Backend()

        def get_vocab(self):
            return {"</s>": 2, "\u2581hi": 1}

    tok = Tokenizer.from_transformers(FakeFast())
    assert tok.core_vocabulary.vocab_size == 32000
    assert tok.core_vocabulary.id_to_bytes(tok.core_vocabulary.get(" the")[0]) == b" the"
    assert tok.vocabulary == {"</s>": 2, "\u2581hi": 1}  # get_vocab() as the user's tokenizer gives it


def test_hf_tokenizer_accessor():
    hf = FakeHF()
    assert Tokenizer.from_transformers(hf).hf_tokenizer is hf
    assert small_tokenizer().hf_tokenizer is None


def test_strip_rule_comes_from_the_vocabulary_not_from_files(tmp_path, monkeypatch, llama2_tokenizer_path):
    """The adapter never re-reads a file: an unrelated ./tokenizer.json in the working directory
    (here Llama 2's, whose decoder strips) does not change a Gemma-style vocabulary read from text."""
    import json

    doc = {
        "added_tokens": [{"id": 0, "content": "<eos>", "special": True}],
        "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"}]},
        "model": {"type": "BPE", "vocab": {"<eos>": 0, "\u2581a": 1, "b": 2}},
    }
    (tmp_path / "tokenizer.json").write_bytes(llama2_tokenizer_path.read_bytes())
    monkeypatch.chdir(tmp_path)
    vocab = Vocabulary.from_json_text(json.dumps(doc), filename="tokenizer.json")
    tok = Tokenizer(vocab)
    assert not tok.strip_leading_space and tok.decode([1]) == [" a"]
    # Llama 2 read from its text (no file name to go by) strips, exactly as read from its file
    text = llama2_tokenizer_path.read_text(encoding="utf-8")
    from_text = Tokenizer(Vocabulary.from_json_text(text, filename="x.json"))
    assert from_text.strip_leading_space and Tokenizer.from_file(llama2_tokenizer_path).strip_leading_space
    assert from_text.decode([from_text.vocabulary["\u2581Hello"]]) == ["Hello"]


@pytest.mark.parametrize("bad", [{"a": 1}, "vocab.json", None, 3])
def test_vocabulary_arguments_are_checked(bad):
    from tokenguide.errors import ArgumentError, VocabularyError, VocabularyTypeError
    from tokenguide.index import Index

    for build in (lambda: Index("a", bad), lambda: Index("a", vocabulary=bad), lambda: Tokenizer(bad)):
        with pytest.raises(VocabularyTypeError, match="vocabulary: expected a tokenguide Vocabulary") as info:
            build()
        assert isinstance(info.value, (TypeError, VocabularyError, ArgumentError))
    with pytest.raises(VocabularyTypeError, match="Vocabulary\\(eos_token_id, mapping\\)"):
        Index("a", {"a": 1})
    with pytest.raises(VocabularyTypeError, match="Vocabulary.from_file"):
        Index("a", "vocab.json")


def test_every_vocabulary_entry_point_names_the_argument():
    from tokenguide import CFGGuide, Guide, RegexGuide
    from tokenguide.errors import VocabularyTypeError
    from tokenguide.index import Index, cache, prepare_vocabulary

    entry_points = {
        "get_index: vocabulary": lambda: cache.get_index("a", {"a": 1}),
        "prepare_vocabulary: vocabulary": lambda: prepare_vocabulary({"a": 1}),
        "Index: vocabulary": lambda: Index.from_json_schema({"type": "integer"}, {"a": 1}),
        "tokenizer: expected a tokenguide Tokenizer": lambda: RegexGuide.from_regex("a", {"a": 1}),
        "tokenizer: expected a tokenguide": lambda: Guide.from_regex("a", {"a": 1}),
        "tokenizer: expected": lambda: CFGGuide('start: "a"', {"a": 1}),
    }
    for expected, call in entry_points.items():
        with pytest.raises(VocabularyTypeError) as info:
            call()
        assert expected in str(info.value), (expected, str(info.value))
    with pytest.raises(VocabularyTypeError, match="as_tokenizer: tokenizer: .* got dict; build a Vocabulary"):
        as_tokenizer({"a": 1})
    with pytest.raises(VocabularyTypeError, match="MyGuide: tok: "):
        as_tokenizer(3.5, where="MyGuide", argument="tok")
