"""`grammars.lark_reader.read_lark` on the engine, against independent oracles.

- What Lark's own loader reads (imports, %ignore, ?rule, _rule, templates, %override, %extend,
  priorities, "..."i, ~ m..n): the language against Lark's Earley parser with
  lexer="dynamic_complete" (every way of cutting the text into terminals).
- llguidance's extensions: `{m,n}` against hand-expanded Lark grammars; `&` and `~` against
  `re.fullmatch` of their sides; and all of them, `%json` and special tokens included, against
  llguidance itself where it is installed.
- Errors: GrammarError with the line and column of the original text.
"""

from __future__ import annotations

import json
import random
import re

import pytest

lark = pytest.importorskip("lark")

from tokenguide.engine import EngineState, Matcher  # noqa: E402
from tokenguide.errors import GrammarError, InvalidTokenError  # noqa: E402
from tokenguide.grammars import GRAMMAR_PATH  # noqa: E402
from tokenguide.grammars.lark_reader import read_lark, read_lark_file  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402
from tokenguide.vocabulary.byte_level import encode_byte_level  # noqa: E402

# a byte-level vocabulary: every single byte is a token, so any text can be written
BYTES = Vocabulary(256, {bytes([b]): b for b in range(256)})
SPECIALS = {256: "<|eot|>", 257: "<|python_tag|>", 258: "<|end|>"}


def _special_vocabulary() -> Vocabulary:
    tokenizer = {
        "model": {"type": "BPE", "vocab": {encode_byte_level(bytes([b])): b for b in range(256)}, "merges": []},
        "added_tokens": [{"id": i, "content": c, "special": True} for i, c in SPECIALS.items()],
        "decoder": {"type": "ByteLevel"},
    }
    return Vocabulary.from_json_text(json.dumps(tokenizer), filename="tokenizer.json", eos=258)


SPECIAL_VOCAB = _special_vocabulary()


def engine(text: str, vocabulary=BYTES, **kw) -> Matcher:
    return Matcher(read_lark(text, **kw), vocabulary)


def lark_accepts(parser, s: str) -> bool:
    try:
        parser.parse(s)
        return True
    except lark.exceptions.LarkError:
        return False


def earley(text: str, **kw):
    return lark.Lark(text, parser="earley", lexer="dynamic_complete", import_paths=[GRAMMAR_PATH], **kw)


def sample(m: Matcher, rng: random.Random, budget: int, alphabet: bytes) -> bytes:
    """A text of the engine's language drawn byte by byte from `alphabet`, or b"" if none was finished."""
    pairs, out = m.initial_state.pairs, bytearray()

    def ends(p) -> bool:
        return EngineState(p).can_end()

    for step in range(budget):
        if out and ends(pairs) and rng.random() < 0.3:
            return bytes(out)
        options = [b for b in alphabet if m.step_pairs(pairs, b)]
        if not options:
            break
        closing = [b for b in options if ends(m.step_pairs(pairs, b))] if step > budget // 2 else []
        b = rng.choice(closing or options)
        pairs = m.step_pairs(pairs, b)
        out.append(b)
    return bytes(out) if ends(pairs) else b""


def texts_for(m: Matcher, alphabet: str, seed: str, n: int = 300) -> list[str]:
    """Random texts over `alphabet`, texts of the engine's language and their one-edit mutations."""
    rng = random.Random(seed)
    texts = {"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9))) for _ in range(n)}
    found = 0
    for _ in range(80):
        s = sample(m, rng, 24, alphabet.encode()).decode()
        if s:
            found += 1
            i = rng.randrange(len(s))
            texts.update({s, s[:i] + s[i + 1 :], s[:i] + rng.choice(alphabet) + s[i:], s + rng.choice(alphabet)})
    assert found >= 5, f"{seed}: the engine's language gave too few texts"
    return sorted(texts)


# -- what Lark's loader reads, against Lark's Earley parser --------------------------------------

LARK_CASES = {
    "common_imports": (
        "start: item+\nitem: WORD | SIGNED_INT | ESCAPED_STRING\n"
        "%import common (WORD, SIGNED_INT, ESCAPED_STRING, WS)\n%ignore WS\n",
        'ab1-" \\',
    ),
    "bundled_import": ('start: "[" value "]"\n%import json.value\n', '[]{}"a:,1 '),
    "ignore_two_terminals": ('start: "a"+ "b"\n%ignore " "\n%ignore COMMENT\nCOMMENT: /#[^\\n]*\\n/\n', "ab #\n"),
    "inline_and_hidden_rules": (
        '?start: sum\n?sum: product | sum "+" product\n?product: _atom | product "*" _atom\n'
        '_atom: NUMBER | "(" sum ")"\n!keep: "k"\nNUMBER: /[0-9]+/\n',
        "12+*()",
    ),
    "templates": (
        'start: _list{item, ","} ";" _list{other, "|"}\n_list{x, sep}: x (sep x)*\n'
        'item: "a" | "b"\nother: "c"\n',
        "abc,|;",
    ),
    "override_extend": (
        'start: a b\na: "x"\nb: "y"\n%override a: "p" | "q"\n%extend b: "z"\n'
        '%import common.DIGIT\n%extend DIGIT: "x"\nc: DIGIT\n',
        "pqxyz",
    ),
    "imported_override": ('start: NUMBER+\n%import common.NUMBER\n%override NUMBER: /[0-9]/ "!"\n', "12!."),
    "terminal_priorities": ('start: A B | B A | A A\nA.5: /ab?/\nB.-2: /b+/\n', "ab"),
    "rule_priorities": ('start: x | y\nx.2: "a" "b"?\ny: "a"+\n', "ab"),
    "case_insensitive": ('start: "select"i NAME ("," NAME)*\nNAME: /[a-z]+/i\n%ignore " "\n', "sElctAB, "),
    "tilde_repeats": ('start: ("ab" ~ 2..3) X ~ 2\nX: "x" ~ 1..2 "y"\n', "abxy"),
    "ranges_and_optional": ('start: L [L] D ["!"]\nL: "a".."c"\nD: "0".."2"\n', "abcd012!"),
    "maybe_placeholders": ('start: "a" [b] "c"\nb: "b"\n', "abc"),
    "aliases": ('start: "a" -> one\n    | "b" "b" -> two\n', "ab"),
    "terminals_from_terminals": ('start: PAIR+\nPAIR: KEY "=" VAL ";"\nKEY: /[a-z]+/\nVAL: INT | KEY\n'
                                 "%import common.INT\n", "ab=1;"),
}


@pytest.mark.parametrize("name", sorted(LARK_CASES))
def test_same_language_as_lark_earley(name):
    text, alphabet = LARK_CASES[name]
    m = engine(text)
    parser = earley(text)
    wrong = [s for s in texts_for(m, alphabet, name) if m.accepts_bytes(s.encode()) != lark_accepts(parser, s)]
    assert not wrong, f"{name}: engine and Lark's Earley parser disagree on {wrong[:5]}"


def test_relative_imports_from_the_grammar_file_folder(tmp_path):
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "words.lark").write_text('word: LETTER+\nLETTER: "a".."c"\n', encoding="utf-8")
    (tmp_path / "numbers.lark").write_text("%import common.INT\nnum: INT\n", encoding="utf-8")
    main = tmp_path / "main.lark"
    main.write_text('start: (word | num) ("," (word | num))*\n%import .parts.words.word\n%import .numbers.num\n',
                    encoding="utf-8")
    m = Matcher(read_lark_file(main), BYTES)
    parser = lark.Lark.open(str(main), parser="earley", lexer="dynamic_complete")
    wrong = [s for s in texts_for(m, "ab1,", "relative") if m.accepts_bytes(s.encode()) != lark_accepts(parser, s)]
    assert not wrong
    from tokenguide.guides.grammar import GrammarGuide

    guide = GrammarGuide.from_lark(main.read_text(encoding="utf-8"), BYTES, path=main)
    assert guide.accepts_bytes(b"ab,12,c") and not guide.accepts_bytes(b"ab,d")
    # and through import_paths, without a file
    text = 'start: word+\n%import words.word\n'
    m2 = Matcher(read_lark(text, import_paths=[tmp_path / "parts"]), BYTES)
    assert m2.accepts_bytes(b"abcab") and not m2.accepts_bytes(b"abd")
    with pytest.raises(GrammarError, match="cannot be read"):
        read_lark("start: x\n%import .nowhere.x\n", path=tmp_path / "main.lark")


def test_priorities_do_not_change_the_language():
    """Under the all-splits rule a priority only ranks readings: with or without it, the same texts."""
    with_priorities = 'start: A B | B A\nA.9: /a+/\nB.-5: /a+b?/\n'
    without = 'start: A B | B A\nA: /a+/\nB: /a+b?/\n'
    m1, m2 = engine(with_priorities), engine(without)
    for s in texts_for(m2, "ab", "priorities"):
        assert m1.accepts_bytes(s.encode()) == m2.accepts_bytes(s.encode()), s


def test_contextual_lexer_reads_differently():
    """The documented example: Lark's LALR contextual lexer takes the longest match, the engine every split."""
    text = 'start: A "b"\nA: /a+b?/\n'
    assert engine(text).accepts_bytes(b"aab")  # A = "aa", then "b"
    assert not lark_accepts(lark.Lark(text, parser="lalr", lexer="contextual"), "aab")  # A took "aab"
    assert lark_accepts(earley(text), "aab")


# -- llguidance's extensions ------------------------------------------------------------------------

REPEATS = {  # llguidance syntax -> the same grammar in Lark, expanded by hand
    "rules": ('start: x{2,3} y{2} z{1,} w{,2} "."\nx: "a"\ny: "b"\nz: "c"\nw: "d"\n',
              'start: x x x? y y z+ w? w? "."\nx: "a"\ny: "b"\nz: "c"\nw: "d"\n', "abcd."),
    "groups": ('start: ("a" "b"){2,} ("c" | "d"){0,1}\n', 'start: "a" "b" "a" "b" ("a" "b")* ("c" | "d")?\n', "abcd"),
    "terminals": ('start: A B\nA: "ab"{1,2}\nB: /[0-9]/{2,}\n', 'start: A B\nA: "ab" "ab"?\nB: /[0-9][0-9]+/\n', "ab01"),
    "templates_and_repeats": ('start: pair{"x", "y"}{2}\npair{a, b}: a b\n', 'start: pair{"x", "y"} pair{"x", "y"}\npair{a, b}: a b\n', "xy"),
    "exact_zero": ('start: "a" "b"{0} "c"\n', 'start: "a" "c"\n', "abc"),
}


@pytest.mark.parametrize("name", sorted(REPEATS))
def test_repeats_as_hand_expanded_lark(name):
    dialect, plain, alphabet = REPEATS[name]
    m = engine(dialect)
    parser = earley(plain)
    wrong = [s for s in texts_for(m, alphabet, name) if m.accepts_bytes(s.encode()) != lark_accepts(parser, s)]
    assert not wrong, f"{name}: {wrong[:5]}"


BOOLEAN = {  # terminal definitions with & and ~ -> the definition, from re.fullmatch of the sides
    "keyword_excluded": ('start: KEY\nKEY: /[a-z]+/ & ~"class"\n',
                         lambda s: bool(re.fullmatch("[a-z]+", s)) and s != "class", "clas"),
    "no_double_b": ('start: A\nA: /[a-c]+/ & ~/(?s:.*)bb(?s:.*)/\n',
                    lambda s: bool(re.fullmatch("[a-c]+", s)) and "bb" not in s, "abc"),
    "and_binds_tighter_than_or": ('start: X\nX: /[ab]+/ & /a.*/ | "c"\n',
                                  lambda s: bool(re.fullmatch("[ab]+", s) and s.startswith("a")) or s == "c", "abc"),
    "not_binds_tighter_than_plus": ('start: X\nX: ~"a"+ & /[ab]+/\n',
                                    lambda s: bool(re.fullmatch("[ab]+", s)) and s != "a", "ab"),
    "complement_of_repeat_in_parens": ('start: X\nX: ~("a"+) & /[ab]{1,4}/\n',
                                       lambda s: bool(re.fullmatch("[ab]{1,4}", s)) and not re.fullmatch("a+", s), "ab"),
    "referenced_and_sequenced": ('start: B\nA: /[a-c]+/ & ~/(?s:.*)bb(?s:.*)/\nB: A "!" A\n',
                                 lambda s: bool(re.fullmatch(r"([a-c]+)!([a-c]+)", s))
                                 and all("bb" not in p for p in s.split("!")), "abc!"),
    "braced_repeat_of_complement": ('start: X\nX: (~"ab" & /[ab]{2}/){2}\n',
                                    lambda s: bool(re.fullmatch("[ab]{4}", s)) and s[:2] != "ab" and s[2:] != "ab", "ab"),
}


@pytest.mark.parametrize("name", sorted(BOOLEAN))
def test_intersection_and_complement_by_definition(name):
    text, definition, alphabet = BOOLEAN[name]
    m = engine(text)
    rng = random.Random(name)
    texts = {"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7))) for _ in range(600)}
    wrong = [s for s in sorted(texts) if m.accepts_bytes(s.encode()) != definition(s)]
    assert not wrong, f"{name}: {wrong[:5]}"
    assert any(definition(s) for s in texts) and not all(definition(s) for s in texts)


# -- against llguidance itself ------------------------------------------------------------------------


def _llguidance():
    llg = pytest.importorskip("llguidance", reason="llguidance (the bench extra) is not installed")

    class Tok:
        def __init__(self):
            self.tokens = [bytes([b]) for b in range(256)] + [c.encode() for c in SPECIALS.values()]
            self.eos_token_id = 258
            self.bos_token_id = None
            self.special_token_ids = list(SPECIALS)

        def __call__(self, s):
            return list(s)

    tok = llg.LLTokenizer(llg.TokenizerWrapper(Tok()))

    def accepts(grammar: str, ids: list[int]) -> bool:
        m = llg.LLMatcher(tok, llg.LLMatcher.grammar_from_lark(grammar), log_level=0)
        assert not m.is_error(), m.get_error()
        return m.validate_tokens(ids) == len(ids) and m.consume_tokens(ids) and m.is_accepting()

    return accepts


def _ours(m: Matcher, ids: list[int]) -> bool:
    state = m.initial_state
    try:
        for t in ids:
            if state.done and t != m.eos_token_id:
                return False  # nothing after EOS
            state = m.next_state(state, t)
    except InvalidTokenError:
        return False
    return state.can_end()


LLG_TEXT_CASES = {
    # llguidance has no templates and refuses {0}
    **{f"repeat_{k}": (v[0], v[2]) for k, v in REPEATS.items() if k not in ("templates_and_repeats", "exact_zero")},
    **{f"boolean_{k}": (v[0], v[2]) for k, v in BOOLEAN.items()},
    "json_object": ('start: "f(" obj ")"\nobj: %json {"type": "object", "properties": {"a": {"type": "integer"}, '
                    '"b": {"enum": ["x", "y"]}}, "required": ["a"], "additionalProperties": false}\n', '{}"ab:,1-xy ()f'),
    "json_array_of_strings": ('start: %json {"type": "array", "items": {"type": "string", "maxLength": 2}, "maxItems": 3}\n',
                              '[]",ab \\n'),
    "json_beside_text": ('start: TEXT | call\nTEXT: /[^{][a-z ]*/\ncall: %json {"type": "object", "properties": '
                         '{"n": {"const": 1}}, "required": ["n"], "additionalProperties": false}\n', '{}"n:1 ab'),
}


@pytest.mark.parametrize("name", sorted(LLG_TEXT_CASES))
def test_text_language_as_llguidance(name):
    llg_accepts = _llguidance()
    text, alphabet = LLG_TEXT_CASES[name]
    m = engine(text)
    wrong = [s for s in texts_for(m, alphabet, name, 200)
             if m.accepts_bytes(s.encode()) != llg_accepts(text, list(s.encode()))]
    assert not wrong, f"{name}: engine and llguidance disagree on {wrong[:5]}"


SPECIAL_GRAMMAR = ('start: "a" <|eot|> B | B <[257]> "c" | <[256-257]> "d" | <[^0-255,258]> "e" <|python_tag|>\n'
                   'B: /b+/\n')


def test_special_tokens_as_llguidance():
    llg_accepts = _llguidance()
    m = engine(SPECIAL_GRAMMAR, SPECIAL_VOCAB)
    rng = random.Random("special")
    pool = [ord(c) for c in "abcde"] + [256, 257, 258]
    sequences = {tuple(rng.choice(pool) for _ in range(rng.randint(0, 4))) for _ in range(1500)}
    sequences |= {(97, 256, 98), (98, 98, 257, 99), (256, 100), (257, 100), (256, 101, 257), (257, 101, 257, 258)}
    wrong = [ids for ids in sorted(sequences) if _ours(m, list(ids)) != llg_accepts(SPECIAL_GRAMMAR, list(ids))]
    assert not wrong, f"engine and llguidance disagree on token sequences {wrong[:5]}"
    assert sum(_ours(m, list(ids)) for ids in sequences) >= 6


def test_special_tokens_by_definition():
    m = engine(SPECIAL_GRAMMAR, SPECIAL_VOCAB)
    assert _ours(m, [97, 256, 98, 98]) and _ours(m, [98, 257, 99]) and _ours(m, [256, 100]) and _ours(m, [257, 101, 257])
    assert not m.accepts_bytes(b"a<|eot|>b")  # the token's text is not the token
    assert not _ours(m, [97, 257, 98])
    state = m.next_state(m.initial_state, 97)
    assert [i for i in range(259) if m.mask_int(state) >> i & 1] == [256]
    with pytest.raises(GrammarError, match="not a token of this vocabulary"):
        engine('start: "a" <|nope|>\n', SPECIAL_VOCAB)


# -- %json -----------------------------------------------------------------------------------------


def test_json_body_is_the_schema_regex():
    m = engine('start: "x=" v ";"\nv: %json {"type": "integer", "minimum": -5, "maximum": 120}\n')
    for n in range(-20, 140):
        assert m.accepts_bytes(f"x={n};".encode()) == (-5 <= n <= 120), n
    assert not m.accepts_bytes(b"x=01;") and not m.accepts_bytes(b"x=1.0;")


SPLICED = {  # schemas the regex path cannot make one lexeme of: spliced in as their grammar path's rules
    "free_form_object": ({"type": "object"}, '{}[]"a:,1n '),
    "recursive_ref": ({"type": "object", "properties": {"k": {"$ref": "#"}}, "additionalProperties": False},
                      '{}"k: ,'),
    "pattern_with_length": ({"type": "string", "pattern": "a", "maxLength": 3}, '"ab\\'),
    "overlapping_one_of": ({"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 3}]}, "0123.-e"),
}


@pytest.mark.parametrize("name", sorted(SPLICED))
def test_json_schema_spliced_as_rules_same_language_as_its_lark_grammar(name):
    """The oracle: Lark's LALR parser on the schema's grammar path (CompiledSchema.accepts), around host text."""
    from tokenguide.json_schema import compile_json_schema

    schema, alphabet = SPLICED[name]
    compiled = compile_json_schema(schema, path="engine", value_checks=False)
    m = engine(f'start: "<" v ">"\nv: %json {json.dumps(schema)}\n')
    texts = texts_for(m, alphabet + "<>", name, 200)
    wrong = [s for s in texts if m.accepts_bytes(s.encode())
             != (len(s) >= 2 and s[0] == "<" and s[-1] == ">" and compiled.accepts(s[1:-1]))]
    assert not wrong, f"{name}: {wrong[:5]}"
    assert sum(m.accepts_bytes(s.encode()) for s in texts) >= 5


@pytest.mark.parametrize("name", ["free_form_object", "recursive_ref", "pattern_with_length"])  # llguidance refuses oneOf
def test_json_schema_spliced_as_rules_same_language_as_llguidance(name):
    """On texts without whitespace (the spliced grammar path allows `[ ]?`, llguidance any JSON whitespace)."""
    llg_accepts = _llguidance()
    schema, alphabet = SPLICED[name]
    text = f'start: "<" v ">"\nv: %json {json.dumps(schema)}\n'
    m = engine(text)
    texts = texts_for(m, alphabet.replace(" ", "") + "<>", name, 200)
    wrong = [s for s in texts if m.accepts_bytes(s.encode()) != llg_accepts(text, list(s.encode()))]
    assert not wrong, f"{name}: engine and llguidance disagree on {wrong[:5]}"


def test_json_schema_refusals_name_the_rule():
    with pytest.raises(GrammarError, match="rule fun_call: the %json schema is not regular .* %ignore"):
        read_lark('start: TEXT | fun_call\nTEXT: /[^{].*/\nfun_call: %json {"type": "object"}\n%ignore " "\n')
    with pytest.raises(GrammarError, match="rule items: %json schema: .*uniqueItems"):
        read_lark('start: items\nitems: %json {"type": "array", "items": {"type": "string"}, "uniqueItems": true}\n')


# -- errors, with the line and column of the original text ----------------------------------------------

@pytest.mark.parametrize("text", ['start: "a" (\n', 'start: "a"\nb: "x" "y\n', "start: a\n a: \"x\" ]\n",
                                  'start: "a"\n\n%ignore "a" "b\n'])
def test_lark_syntax_errors_carry_larks_line_and_column(text):
    with pytest.raises(lark.exceptions.LarkError) as expected:
        lark.Lark(text, parser="earley", lexer="dynamic_complete")
    found = re.search(r"at line (\d+),? column (\d+)", str(expected.value))
    line, column = int(found.group(1)), int(found.group(2))
    with pytest.raises(GrammarError) as got:
        read_lark(text)
    assert (got.value.line, got.value.column) == (line, column)
    assert f"at line {line} column {column}" in str(got.value)


def test_error_positions_are_in_the_original_text_after_rewriting():
    text = ('start: <|eot|> obj x{2,3} (\n'      # line 1: the unclosed ( is Lark's error
            'obj: %json {\n  "type": "integer"\n}\n'
            'x: "x"\n')
    with pytest.raises(GrammarError) as got:
        read_lark(text)
    assert got.value.line == 1 and "Unclosed parenthesis" in str(got.value)
    text2 = 'obj: %json {\n  "type": "integer"\n}\nstart: obj ]\n'
    with pytest.raises(GrammarError) as got:
        read_lark(text2)
    assert (got.value.line, got.value.column) == (4, 12), str(got.value)
    assert "start: obj ]" in str(got.value)


@pytest.mark.parametrize(
    "text, message, line, column",
    [
        ('start: A\nA: "a" <|eot|>\n', "special token <|eot|> stands for a token id", 2, 8),
        ('start: A\nA: %json {"type": "integer"}\n', "%json is a rule body", 2, 4),
        ('start: a\na: "x" & "y"\n', "terminal definitions only", 2, 8),
        ('start: a\na: ~"x"\n', "terminal definitions only", 2, 4),
        ('start: A\nA: "x" &\n', "terminal A: expected", 2, 8),
        ('start: "a"{3,2}\n', "upper bound below", 1, 11),
        ('start: "a" %json {"type": \n', "%json needs a JSON schema", 2, 1),
        ('start: A\nA: /[a-z]+/ & ~B\nB: A "x"\n', "refers to itself", None, None),
        ('start: A\nA: /a(?=b)/\n', "lookahead", None, None),
        ("start: A\n%declare A\n", "used but not defined", None, None),
        ('start: A\nA: "a"\n%extend A: "b" & "c"\n', "not supported", 3, 1),
    ],
)
def test_refusals_are_named(text, message, line, column):
    with pytest.raises(GrammarError, match=re.escape(message)) as got:
        read_lark(text)
    if line is not None:
        assert (got.value.line, got.value.column) == (line, column), str(got.value)


def test_lexemes_that_match_the_empty_string_are_refused():
    with pytest.raises(GrammarError, match="empty string"):
        engine('start: A\nA: ~"x"\n')


def test_common_terminals_with_lookbehind_or_laziness_mean_larks_first_match():
    """ESCAPED_STRING and C_COMMENT: the rewritten pattern's fullmatch is exactly Lark's reading
    (re.match of Lark's own pattern takes the whole text), on every text up to 6 characters."""
    import itertools

    from tokenguide.grammars.lark_reader import LARK_COMMON_EQUIVALENTS

    alphabets = {'"': '"\\a\n', "/": "/*a\n"}
    for lark_pattern, ours in LARK_COMMON_EQUIVALENTS.items():
        alphabet = alphabets[lark_pattern[0]]
        for n in range(7):
            for chars in itertools.product(alphabet, repeat=n):
                s = "".join(chars)
                m = re.match(lark_pattern, s)
                assert (m is not None and m.end() == len(s)) == bool(re.fullmatch(ours, s)), (lark_pattern, s)
    m = engine('start: ESCAPED_STRING | C_COMMENT\n%import common (ESCAPED_STRING, C_COMMENT)\n')
    parser = earley('start: ESCAPED_STRING | C_COMMENT\n%import common (ESCAPED_STRING, C_COMMENT)\n')
    for s in ('"a\\"b"', '"a"b"', '"\\\\"', "/* a */", "/* a */ */", "/**/"):
        assert m.accepts_bytes(s.encode()) == lark_accepts(parser, s), s


def test_lazy_quantifiers_are_refused():
    with pytest.raises(GrammarError, match="lazy quantifier"):
        read_lark('start: A\nA: /a.*?b/\n')


def test_special_tokens_of_a_real_tokenizer():
    """Llama 3's tokenizer.json: <|start_header_id|> and <|eot_id|> by name (and by id) around a %json body."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "web" / "node_modules" / "@lenml" / "tokenizer-llama3" / "models" / "tokenizer.json"
    if not path.exists():
        pytest.skip(f"{path} is missing: run `python3 build.py test` (it installs web/node_modules)")
    v = Vocabulary.from_file(path)
    schema = '{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": false}'
    for call in (f"<|start_header_id|> %json {schema} <|eot_id|>", f"<[128006]> %json {schema} <[128009]>"):
        m = engine(f"start: TEXT | call\nTEXT: /[^{{<][a-z ]*/\ncall: {call}\n", v)
        start_mask = m.mask_int(m.initial_state)
        assert start_mask >> 128006 & 1 and not start_mask >> 128009 & 1
        state = m.next_state(m.initial_state, 128006)
        for ch in '{"n": 12}':
            assert not m.mask_int(state) >> 128009 & 1
            state = m.next_state(state, v.get(ch)[0])
        mask = m.mask_int(state)
        assert mask >> 128009 & 1 and not mask >> v.eos_token_id & 1 and not state.can_end()
        assert m.next_state(state, 128009).can_end()
