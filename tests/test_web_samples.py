"""The web worker's JSON Schema live guide, mask times and samples (tokenguide._web_bridge,
_web_samples) run in CPython. Samples are checked again here by oracles independent of the guide:
re.fullmatch, jsonschema, and the eager Index's transitions."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from tokenguide import _web_bridge as bridge
from tokenguide.index import Index
from tokenguide.vocabulary import Vocabulary

PIECES = ["{", "}", '"', "a", "b", "ab", '":', ":", ",", "[", "]", "1", "2", "true", "false", "Ġ", "<|endoftext|>"]
VOCAB = {t: i for i, t in enumerate(PIECES)}
EOS = PIECES.index("<|endoftext|>")
SCHEMA = {"type": "object", "properties": {"a": {"type": "boolean"}, "b": {"type": "array", "items": {"enum": [1, 2]}, "maxItems": 3}},
          "required": ["a", "b"], "additionalProperties": False}


def call(name: str, *args):
    reply = asyncio.run(bridge.call(name, *args))
    assert reply["ok"], reply
    return reply["result"]


@pytest.fixture(scope="module")
def fingerprint() -> str:
    return call("load_vocabulary", json.dumps(VOCAB), "vocab.json", None, "test:samples")["fingerprint"]


def test_schema_guide_says_its_path_times_masks_and_marks_forced_tokens(fingerprint):
    started = call("guide_start", "schema", json.dumps(SCHEMA), fingerprint, False)
    assert started["schema"]["path"] in ("regex", "engine") and started["schema"]["reason"]
    view = call("guide_view", "", 50)
    assert [i[0] for i in view["items"]] == [PIECES.index("{")]
    assert view["cost"]["forced"] and view["cost"]["masks"] == 1 and view["cost"]["mask_ms"] >= 0
    counts = []
    for piece in ["{", '"', "a", '":', "true", ","]:
        counts.append(view["num_allowed"])
        call("guide_step", PIECES.index(piece))
        view = call("guide_view", "", 50)
    assert view["text"] == '{"a":true,'
    assert counts[0] == 1 and counts[1] == 2  # '{' first; then '"' or white space
    assert [p[2] for p in view["path"]] == [n == 1 for n in counts]
    assert view["cost"]["masks"] == 7 and view["cost"]["mean_mask_ms"] >= 0
    why = call("guide_explain", PIECES.index("a"))  # a key is quoted: 'a' dies at its first byte
    assert not why["allowed"] and why["reach"] == 0 and why["accepts"] == [ord(" "), ord('"')]  # white space or the key's quote


def test_schema_samples_are_valid_documents(fingerprint):
    jsonschema = pytest.importorskip("jsonschema")
    call("guide_start", "schema", json.dumps(SCHEMA), fingerprint, False)
    for mode in ("uniform", "length"):
        samples = call("guide_samples", 8, mode, 200, 7)
        for sample in samples:
            assert sample["tokens"][-1][0] == EOS if sample["stop"] == "eos" else sample["stop"] == "budget"
            if sample["stop"] == "eos":
                assert sample["check"] == {"parser": "json.loads", "ok": True, "message": "well-formed JSON"}
                jsonschema.validate(json.loads(sample["text"]), SCHEMA)
        assert any(s["stop"] == "eos" for s in samples)


def test_regex_samples_walk_the_index_and_start_from_the_current_state(fingerprint, tmp_path):
    regex = r"(ab|b)+1?"
    call("guide_start", "regex", regex, fingerprint, False)
    call("guide_step", PIECES.index("ab"))
    (tmp_path / "vocab.json").write_text(json.dumps(VOCAB), encoding="utf-8")
    index = Index(regex, Vocabulary.from_file(tmp_path / "vocab.json"))
    for sample in call("guide_samples", 10, "length", 50, 3):
        ids = [t for t, _ in sample["prefix"] + sample["tokens"]]
        assert ids[0] == PIECES.index("ab")
        state = index.initial_state
        for token in ids[:-1] if sample["stop"] == "eos" else ids:
            assert token in index.get_allowed_tokens(state)
            state = index.get_next_state(state, token)
        if sample["stop"] == "eos":
            assert index.is_final_state(state) and re.fullmatch(regex, sample["text"]) and sample["check"]["ok"] is True


def test_grammar_check_is_lark_and_failures_are_reported():
    from tokenguide._web_samples import check_text

    grammar = 'start: "a" "b"+\n'
    assert check_text("cfg", grammar, "abb")["ok"] is True
    bad = check_text("cfg", grammar, "ba")
    assert bad["ok"] is False and bad["parser"] == "Lark (LALR)" and bad["message"]
    assert check_text("regex", "a+", "aab")["ok"] is False
    assert check_text("schema", "{}", '{"a": ')["ok"] is False
    assert check_text("schema", "{}", None)["ok"] is False


def test_sample_arguments_are_checked(fingerprint):
    call("guide_start", "regex", "a+", fingerprint, False)
    for args in ((0, "uniform", 10), (1, "greedy", 10), (1, "uniform", 0)):
        reply = asyncio.run(bridge.call("guide_samples", *args))
        assert not reply["ok"] and reply["error"]["kind"] == "TokenguideError"
