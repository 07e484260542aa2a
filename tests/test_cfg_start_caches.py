"""The CFG guides' start-up caches: same answers with and without them, never a stale entry, bounded.

Three caches make a grammar guide start fast: the vocabulary's token texts and trie skeletons
(`tokens.token_texts`, per Vocabulary object), Lark parsers by grammar text
(`grammar.build_lark`, shared by the JSON Schema grammar path's check and the guide built next)
and terminal scanners by regex (`grammar.shared_scanner`). Each test compares a guide built on a
warm cache with one built after the caches were cleared, or checks the key and the bounds.
"""

from __future__ import annotations

import random

import pytest
from lark.exceptions import GrammarError as LarkGrammarError

from grammar_oracle import schema_lark

from tokenguide import grammars
from tokenguide.guides.cfg import FastCFGGuide, ReferenceCFGGuide
from tokenguide.guides.cfg import grammar as cfg_grammar
from tokenguide.guides.cfg import tokens as cfg_tokens
from tokenguide.guides.cfg.chars import held_label, split_utf8
from tokenguide.guides.cfg.trie import CharTrie
from tokenguide.vocabulary import Tokenizer, Vocabulary

PIECES = ["{", "}", "[", "]", '"', ":", ",", " ", "a", "b", "ab", '"a', 'b"', "1", "12", "-", ".", "e",
          "true", "fal", "se", "null", "é", "日本", "\\", '\\"', "x"]


def vocab_of(pieces, eos="<eos>") -> Vocabulary:
    mapping = {eos: 0}
    for i, p in enumerate(pieces):
        mapping[p] = i + 1
    return Vocabulary(0, mapping)


def walk_answers(guide: FastCFGGuide, seed: int, steps: int = 25, states: list | None = None) -> list:
    """Allowed tokens and masks along a seeded random generation (its states put in `states`)."""
    rng = random.Random(seed)
    state, out = guide.initial_state, []
    for _ in range(steps):
        allowed = guide.allowed_token_ids(state)
        out.append((state.text, allowed, guide.mask_bytes(state)))
        if states is not None:
            states.append(state)
        choices = [t for t in allowed if t != guide.eos_token_id]
        if not choices:
            break
        state = guide.get_next_state(state, rng.choice(choices))
    return out


def cold(grammar: str, tokenizer) -> FastCFGGuide:
    """A guide built with every start-up cache empty."""
    cfg_tokens.clear_token_texts()
    cfg_grammar.clear_lark_cache()
    return FastCFGGuide(grammar, tokenizer)


@pytest.mark.parametrize("name", ["json", "arithmetic"])
def test_warm_and_cold_guides_answer_alike(name):
    grammar = grammars.load(name)
    tok = Tokenizer(vocab_of(PIECES))
    first = cold(grammar, tok)
    warm = FastCFGGuide(grammar, Tokenizer(tok.core_vocabulary))  # same vocabulary, new tokenizer object
    assert warm._texts is first._texts and warm.parser is first.parser
    for seed in range(3):
        expected = walk_answers(cold(grammar, tok), seed)
        states: list = []
        assert walk_answers(warm, seed, states=states) == expected
        for state, (_text, allowed, _mask) in list(zip(states, expected))[:6]:  # both are the reference's answer
            assert allowed == list(ReferenceCFGGuide.iter_valid_token_ids(warm, state, warm.candidate_ids))


def test_trie_from_a_shared_skeleton_is_the_trie_built_alone():
    tok = Tokenizer(vocab_of(PIECES + ["\u00e9t\u00e9", "\u65e5"]))
    guide = cold(grammars.json, tok)
    pieces: dict = {}
    for t in guide._token_ids:
        split = split_utf8(tok.token_bytes(t))
        if split is not None and split != ("", b""):
            pieces.setdefault(split[0] + held_label(split[1]), []).append(t)
    alone = CharTrie(pieces, guide.chars.class_of)
    shared = guide._trie_for_context(b"")
    assert shared.skeleton is cfg_tokens.token_texts(tok).skeleton(b"")
    for attr in ("keys", "labels", "depths", "ends", "ends_key", "keys_before", "flat_ids", "classes"):
        assert getattr(shared, attr) == getattr(alone, attr), attr
    assert [shared.below_of(i) for i in range(shared.num_nodes)] == [alone.below_of(i) for i in range(alone.num_nodes)]
    # below_of is the classes strictly inside the subtree
    for i in range(alone.num_nodes):
        inside = {alone.classes[j] for j in range(i + 1, alone.ends[i])}
        assert alone.below_of(i) == sum(1 << k for k in inside)


def test_another_vocabulary_never_gets_a_stale_entry():
    cfg_tokens.clear_token_texts()
    one = Tokenizer(vocab_of(["a", "b", "ab"]))
    swapped = Tokenizer(Vocabulary(0, {"<eos>": 0, "b": 1, "a": 2, "ab": 3}))  # same strings, other ids
    other_eos = Tokenizer(Vocabulary(3, {"<eos>": 0, "a": 1, "b": 2, "ab": 3}))
    grammar = 'start: "a" "b"'
    answers = {}
    for name, tok in (("one", one), ("swapped", swapped), ("other_eos", other_eos)):
        guide = FastCFGGuide(grammar, tok)
        assert guide._texts.vocabulary is tok.core_vocabulary
        answers[name] = guide.allowed_token_ids(guide.initial_state)
        assert answers[name] == list(ReferenceCFGGuide.iter_valid_token_ids(guide, guide.initial_state, guide.candidate_ids))
    assert answers == {"one": [1, 3], "swapped": [2, 3], "other_eos": [1]}  # "ab" is EOS there
    equal_copy = Tokenizer(vocab_of(["a", "b", "ab"]))  # equal content, another object: its own entry
    assert cfg_tokens.token_texts(equal_copy) is not cfg_tokens.token_texts(one)


def test_prepared_vocabularies_and_skeletons_are_bounded(monkeypatch):
    cfg_tokens.clear_token_texts()
    keep = cfg_tokens._KEEP
    toks = [Tokenizer(vocab_of(PIECES[: 5 + i])) for i in range(keep + 2)]
    for tok in toks:
        cfg_tokens.token_texts(tok)
    assert cfg_tokens.cached_vocabularies() == keep
    assert cfg_tokens.token_texts(toks[-1]) is cfg_tokens.token_texts(toks[-1])  # the newest are kept
    texts = cfg_tokens.token_texts(Tokenizer(Vocabulary(0, {"<eos>": 0, **{bytes([0xC3, b]): b for b in range(0x80, 0xA0)},
                                                          b"\xc3": 200, b"\xe6": 201, b"\xe6\x97": 202,
                                                          b"\xa9": 203, b"\x97\xa5": 204})))
    helds = [b"\xc3", b"\xe6", b"\xe6\x97", b"\xe2", b"\xe2\x82", b"\xf0", b"\xf0\x9f", b"\xf0\x9f\x98", b"\xce"]
    for held in helds:
        texts.skeleton(held)
    assert len([k for k in texts._skeletons if k]) == cfg_tokens._CONTEXT_SKELETONS
    assert texts.skeleton(b"") is texts.skeleton(b"")


def test_prepared_vocabularies_are_bounded_by_total_tokens(monkeypatch):
    """Past `_KEEP_TOKENS` tokens in all the oldest vocabularies go; a vocabulary larger than the
    bound alone is still kept (alone), and a guide on an evicted vocabulary answers the same."""
    cfg_tokens.clear_token_texts()
    monkeypatch.setattr(cfg_tokens, "_KEEP", 5)
    monkeypatch.setattr(cfg_tokens, "_KEEP_TOKENS", 30)
    small = [Tokenizer(vocab_of([f"{c}{i}" for i in range(12)])) for c in "abc"]  # 12 tokens each
    first = cfg_tokens.token_texts(small[0])
    cfg_tokens.token_texts(small[1])
    assert (cfg_tokens.cached_vocabularies(), cfg_tokens.cached_tokens()) == (2, 24)
    cfg_tokens.token_texts(small[2])  # 36 > 30: the oldest goes
    assert (cfg_tokens.cached_vocabularies(), cfg_tokens.cached_tokens()) == (2, 24)
    assert cfg_tokens.token_texts(small[1]) is cfg_tokens.token_texts(small[1])
    again = cfg_tokens.token_texts(small[0])
    assert again is not first and again.token_ids == first.token_ids == list(range(1, 13))
    assert again.token_bytes == first.token_bytes
    large = Tokenizer(vocab_of(PIECES + [f"x{i}" for i in range(20)]))  # 47 tokens, over the bound alone
    texts = cfg_tokens.token_texts(large)
    assert (cfg_tokens.cached_vocabularies(), cfg_tokens.cached_tokens()) == (1, 47)
    assert cfg_tokens.token_texts(large) is texts
    grammar = 'start: ("a" | "x1")+'
    kept = FastCFGGuide(grammar, large).allowed_token_ids(FastCFGGuide(grammar, large).initial_state)
    cfg_tokens.token_texts(small[2])  # evicts the large one
    assert cfg_tokens.cached_vocabularies() == 1
    rebuilt = FastCFGGuide(grammar, large)
    assert rebuilt._texts is not texts
    assert rebuilt.allowed_token_ids(rebuilt.initial_state) == kept == [9, 27, 29]  # "a", "x", "x1"


def test_lark_parsers_are_shared_by_text_and_strictness():
    cfg_grammar.clear_lark_cache()
    conflict = "start: a | b\na: X\nb: X\nX: /x/\n"  # reduce/reduce: refused even without strict
    with pytest.raises(LarkGrammarError):
        cfg_grammar.build_lark(conflict)
    shift_reduce = 'start: e\ne: e "+" e | "1"\n'  # a shift/reduce conflict Lark resolves as a shift
    loose = cfg_grammar.build_lark(shift_reduce)
    with pytest.raises(LarkGrammarError, match="Shift/Reduce"):
        cfg_grammar.build_lark(shift_reduce, strict=True)  # the non-strict parser does not answer for it
    assert cfg_grammar.build_lark(shift_reduce) is loose
    strict = cfg_grammar.build_lark(grammars.json, strict=True)
    assert cfg_grammar.build_lark(grammars.json) is strict  # a strict parser serves non-strict requests
    assert cfg_grammar.build_lark(grammars.json + "\n") is not strict  # another text, another parser
    for i in range(cfg_grammar._LARK_KEEP + 2):
        cfg_grammar.build_lark(f'start: "a{i}"')
    assert len(cfg_grammar._lark_cache) == cfg_grammar._LARK_KEEP
    assert cfg_grammar.build_lark(grammars.json, strict=True) is not strict  # evicted, built again


def test_terminal_scanners_are_shared_and_bounded(monkeypatch):
    cfg_grammar.clear_lark_cache()
    one = FastCFGGuide('start: NAME ":" NAME\nNAME: /[a-z]+/', Tokenizer(vocab_of(PIECES)))
    two = FastCFGGuide('start: NAME "," NAME\nNAME: /[a-z]+/', Tokenizer(vocab_of(PIECES)))
    assert one.grammar.scanner("NAME") is two.grammar.scanner("NAME")
    assert one.allowed_token_ids(one.initial_state) == two.allowed_token_ids(two.initial_state)
    monkeypatch.setattr(cfg_grammar, "_SCANNER_KEEP", 3)
    for i in range(6):
        cfg_grammar.shared_scanner(f"a{i}+", 0)
    assert len(cfg_grammar._scanner_cache) == 3
    assert cfg_grammar.shared_scanner("a5+", 0).scan("a555").match_end == 4


SCHEMAS = [
    {"type": "object", "properties": {"tag": {}, "n": {"type": "number"}}, "required": ["tag"]},
    {"$defs": {"t": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/t"}},
                                                     "name": {"type": "string"}}}}, "$ref": "#/$defs/t"},
]


def grammar_texts() -> list[str]:
    texts = [grammars.json, grammars.arithmetic, grammars.csv, 'start: e\ne: e "+" e | "1"\n',
             'start: a b c\na: "a"*\nb: ("b" a)?\nc: "c" | "d" c\n']  # nullable rules
    return texts + [schema_lark(f"caches_{i}") for i in range(len(SCHEMAS))]  # (the grammar path's texts)


def canonical_table(table) -> tuple:
    """An LALR table with its states numbered in BFS order from the start state (Lark numbers
    them in set order, which changes between constructions)."""
    start = table.start_states["start"]
    order, queue = {start: 0}, [start]
    while queue:
        state = queue.pop(0)
        for sym in sorted(table.states[state]):
            action, arg = table.states[state][sym]
            if action.name == "Shift" and arg not in order:
                order[arg] = len(order)
                queue.append(arg)
    states = {order[s]: {sym: (action.name, order[arg] if action.name == "Shift" else str(arg))
                         for sym, (action, arg) in table.states[s].items()} for s in order}
    return states, sorted(order[s] for s in table.end_states.values()), len(table.states)


@pytest.mark.parametrize("index", range(7))
def test_lark_analysis_with_lazy_follow_gives_lark_tables(index):
    from lark import Lark
    from lark.grammar import NonTerminal, Rule, Terminal
    from lark.parsers import grammar_analysis

    text = grammar_texts()[index]
    cfg_grammar.clear_lark_cache()
    ours = cfg_grammar.build_lark(text)
    assert grammar_analysis.calculate_sets is not None and grammar_analysis.calculate_sets.__module__.startswith("lark")
    plain = Lark(text, parser="lalr", lexer="contextual", maybe_placeholders=False,
                 _plugins={"ContextualLexer": cfg_grammar.QuietContextualLexer})
    mine, theirs = canonical_table(cfg_grammar.parse_table(ours)), canonical_table(cfg_grammar.parse_table(plain))
    assert mine == theirs and len(mine[0]) > 1
    rules = list(ours.rules) + [Rule(NonTerminal("$root_start"), [NonTerminal("start"), Terminal("$END")])]
    first, follow, nullable = grammar_analysis.calculate_sets(rules)
    assert cfg_grammar.first_and_nullable(rules) == (first, nullable)
    lazy = cfg_grammar.LazyFollow(rules, grammar_analysis.calculate_sets)
    assert dict(lazy) == follow and len(lazy) == len(follow)


def test_character_ranges_memo_gives_the_ranges_of_re(monkeypatch):
    from tokenguide.guides.cfg import chars as chars_module
    from tokenguide.guides.cfg.scanner import CharTest
    from tokenguide.regex.ranges import ranges_of_class

    monkeypatch.setattr(chars_module, "_RANGES_LIMIT", 4)
    chars_module._ranges_memo.clear()
    tests = [CharTest(p, f) for p, f in (("[a-z]", 0), ("[a-z]", 2), (r"[^\"\\\x00-\x1f]", 0), (r"\U00000061", 0),
                                         (r"\U00000061", 2), (r"[\d_]", 0), (r"[\w]", 256), (".", 0), (".", 16))]
    for _ in range(2):  # computed, then from the memo (cleared once it holds 4)
        for test in tests:
            assert chars_module.ranges_of_test(test) == ranges_of_class(test.pattern, test.flags), test.pattern
    assert len(chars_module._ranges_memo) <= 4


def test_lookahead_check_memo_never_accepts_a_lookahead():
    from tokenguide.errors import GrammarError

    cfg_grammar._lookahead_free.clear()
    tok = Tokenizer(vocab_of(PIECES))
    for _ in range(2):  # refused again with its own name when asked again
        with pytest.raises(GrammarError, match="terminal A .* uses a lookahead at position 1"):
            FastCFGGuide('start: A "b"\nA: /a(?=b)/', tok)
    FastCFGGuide('start: A "b"\nA: /a(?<=a)/', tok)  # a lookbehind is fine, and remembered
    assert "a(?<=a)" in cfg_grammar._lookahead_free and "a(?=b)" not in cfg_grammar._lookahead_free
    assert FastCFGGuide('start: B "b"\nB: /a(?<=a)/', tok).allowed_token_ids(FastCFGGuide(
        'start: B "b"\nB: /a(?<=a)/', tok).initial_state) == [PIECES.index("a") + 1, PIECES.index("ab") + 1]


def test_lark_builds_its_grammar_parser_without_the_collision_report():
    """In a fresh process, the first grammar (Lark's own parser of grammar text is built then)
    never asks interegular to compare terminals, yet the grammar reads as before; a plain
    `lark.Lark` afterwards still has interegular on (only the CFG guides' build turns it off)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("interegular")
    code = """if True:
        import interegular, lark.lexer
        asked = []
        real = interegular.Comparator.from_regexes
        def spy(*a, **k):
            asked.append(1)
            return real(*a, **k)
        interegular.Comparator.from_regexes = spy
        from tokenguide.guides.cfg.grammar import build_lark
        tree = build_lark('start: "a" B\\nB: /b+/\\n', strict=True).parse("abb")
        assert [t.value for t in tree.children] == ["bb"], tree
        assert asked == [], "interegular was asked while the guide's parser was built"
        assert lark.lexer.has_interegular
        lark.Lark('start: "a" | "ab"', parser="lalr")
        assert asked, "a plain Lark no longer reports collisions"
        print("ok")
    """.replace("TEXT", repr(schema_lark("tree_k")), 1)
    src = str(Path(__file__).resolve().parents[1] / "py_src")
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_grammars_build_and_guide_without_interegular():
    """tokenguide needs no interegular (not a dependency): with it missing, Lark's strict parser
    (once the JSON Schema grammar path's check), a schema's grammar and a CFG guide over it all work."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = """if True:
        import sys
        sys.modules["interegular"] = None  # as if not installed: `import interegular` raises ImportError
        import lark.lexer
        assert not lark.lexer.has_interegular
        from tokenguide.guides.cfg import FastCFGGuide
        from tokenguide.guides.cfg.grammar import build_lark
        from tokenguide.vocabulary import Tokenizer, Vocabulary
        tree = build_lark('start: "a" B\\nB: /b+/\\n', strict=True).parse("abb")
        assert [t.value for t in tree.children] == ["bb"], tree
        text = TEXT  # the grammar path's Lark text for a schema of objects {"k": ...} nesting without end
        pieces = ["<eos>", "{", "}", '"k"', ":", '{"k":{}}']
        guide = FastCFGGuide(text, Tokenizer(Vocabulary(0, {p: i for i, p in enumerate(pieces)})))
        state = guide.initial_state
        assert guide.allowed_token_ids(state) == [1, 5], guide.allowed_token_ids(state)
        state = guide.get_next_state(state, 5)
        assert 0 in guide.allowed_token_ids(state)
        assert "interegular" not in {m.split(".")[0] for m in sys.modules if sys.modules[m] is not None}
        print("ok")
    """.replace("TEXT", repr(schema_lark("tree_k")), 1)
    src = str(Path(__file__).resolve().parents[1] / "py_src")
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
