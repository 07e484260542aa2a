"""ecma_syntax: the ECMA-262 `u`-mode pattern checker, by hand-written cases and against Node.

Node (V8) is the oracle for the differential tests. Node 20's V8 deviates from the pinned
ES2020 + Unicode 16.0 grammar in a few known places, which the generators below avoid: it knows
Unicode 17.0's scripts (Sidetic, ...), accepts `\\p{WSpace}`, and clamps quantifier bounds at
2**31 - 1 before comparing them (`a{2147483648,2147483647}` passes).
"""

from __future__ import annotations

import json
import random
import re
import subprocess

import pytest
from ecma_oracle import NODE, needs_node, node_valid

from tokenguide.regex import ecma_names
from tokenguide.regex.ecma_syntax import PLAIN_EXCLUDED, PrefixStatus, completion, name_continues, pattern_error, prefix_status
from tokenguide.regex.properties import property_ranges
from tokenguide.regex.ranges import contains

def offset(text: str) -> int | None:
    message = pattern_error(text)
    if message is None:
        return None
    match = re.match(r"at offset (\d+): \S", message)
    assert match, message
    return int(match.group(1))


# ---------------------------------------------------------------- hand-written cases

VALID = [
    "", "a", "a|", "|", "()", "(?:)", "a*?", "a+", "a??", "a{2}", "a{2,}", "a{2,3}?", "a{3,03}",
    "a{99999999999999999999999,999999999999999999999999}", "^$", "\\b\\B", "(?=a)", "(?!a)",
    "(?<=a)", "(?<!a)", ".", "[]", "[^]", "[a-z]", "[a-]", "[-a]", "[\\d-]", "[a-b-\\d]", "[--a]",
    "[---]", "[\\b]", "[\\-]", "[\\0]", "\\0", "\\0a", "[(){}|]", "[[]", "\\/", "\\^\\$\\\\\\.\\*",
    "\\cA", "\\cz", "\\x41", "\\u0041", "\\u{41}", "\\u{0000000041}", "\\u{10FFFF}",
    "[\\uDE00-\\uD83D\\uDE00]", "[\\uD83D\\uDE00-\\u{1F601}]", "\\uD83D", "\\uDE00\\uD83D",
    "()\\1", "\\1()", "(())\\2", "\\1(?<a>)", "(?<a>)\\k<a>", "\\k<a>(?<a>)", "(?<$>)", "(?<_a1>)",
    "(?<a\\u200C\\u200D>)", "(?<\\u0061>)\\k<a>", "(?<\\u{61}b>)", "(?<\\uD835\\uDC9C>)", "(?<\U0001d49c>)",
    "(?<é>)", "(?<a>)(?<b>)", "\\p{L}", "\\P{Letter}", "\\p{Lu}", "\\p{digit}", "\\p{punct}",
    "\\p{Combining_Mark}", "\\p{gc=Nd}", "\\p{General_Category=Cased_Letter}", "\\p{sc=Latn}",
    "\\p{Script=Old_Italic}", "\\p{scx=Sgnw}", "\\p{sc=Qaac}", "\\p{sc=Zinh}", "\\p{sc=Unknown}",
    "\\p{sc=Garay}", "\\p{ASCII}", "\\p{Any}", "\\p{EBase}", "\\p{space}", "[\\p{L}\\d]",
    "[\\p{L}-]", "a\ud800b", "[\ude00-\uffff]", "\\d+", "(a)+", "(?:a){2}", "\\k<a>+(?<a>)",
    "[\\u{10FFFF}-\\uDBFF\\uDFFF]",
]

INVALID = [  # (pattern, offset of the error)
    ("a{3,2}", 5), ("*", 0), ("a**", 2), ("a{2}{3}", 4), ("(*)", 1), ("|?", 1), ("{", 0),
    ("a{", 2), ("a{x}", 2), ("a{,5}", 2), ("a{1,x}", 4), ("}", 0), ("]", 0), (")", 0), ("a)", 1),
    ("(?=a)*", 5), ("(?!a){2}", 5), ("(?<=a)?", 6), ("(?<!a)+", 6), ("^*", 1), ("$+", 1),
    ("\\b*", 2), ("\\B{1}", 2), ("\\q", 1), ("\\-", 1), ("\\a", 1), ("\\c", 2), ("\\c1", 2),
    ("[\\c_]", 3), ("\\x4", 3), ("\\xg1", 2), ("\\u12", 4), ("\\u12g4", 4), ("\\u{}", 3),
    ("\\u{110000}", 8), ("\\u{12", 5), ("\\00", 2), ("\\01", 2), ("[\\00]", 3), ("\\0 \\09", 5),
    ("[\\1]", 2), ("[\\B]", 2), ("[\\k<a>]", 2), ("[z-a]", 3), ("[\\d-a]", 4), ("[a-\\d]", 4),
    ("[\\p{L}-z]", 7), ("[\\uDE00-\\uD83D]", 8), ("[a", 2), ("(a", 2), ("(?", 2), ("(?a)", 2),
    ("(?<a>)(?<a>)", 10), ("(?<1a>)", 3), ("(?<a-b>)", 4), ("(?<>)", 3), ("(?<\\u0031>)", 3),
    ("(?<\\x41>)", 4), ("(?<\\uD835>)", 3), ("\\k", 2), ("\\ka", 2), ("\\k<a>", 0), ("\\k<a", 4),
    ("\\1", 0), ("()\\2", 2), ("\\10()", 0), ("\\p", 2), ("\\pL", 2), ("\\p{}", 3),
    ("\\p{Foo}", 5), ("\\p{Latin}", 4), ("\\p{sc=Hrkt}", 7), ("\\p{WSpace}", 4), ("\\p{l}", 3),
    ("\\p{Script=latin}", 10), ("\\p{gc=Latn}", 7), ("\\p{Lu=Lu}", 5), ("\\p{ASCII", 8),
    ("\\p{Sidetic}", 4), ("\\p{sc=Sidetic}", 9), ("(?i:a)", 2), ("(?<a>)|(?<a>)", 11),
]


@pytest.mark.parametrize("text", VALID)
def test_valid_patterns(text):
    assert pattern_error(text) is None
    assert prefix_status(text)[:2] == (True, prefix_status(text).plain_ok) and not prefix_status(text).in_name
    assert completion(text) == ""


@pytest.mark.parametrize(("text", "where"), INVALID)
def test_invalid_patterns_name_the_offset(text, where):
    assert offset(text) == where, pattern_error(text)
    assert prefix_status(text) is None or not prefix_status(text).complete


def test_messages_say_what_is_wrong():
    assert pattern_error("a{3,2}") == "at offset 5: quantifier {3,2} has its maximum below its minimum"
    assert "duplicate group name 'a'" in pattern_error("(?<a>)(?<a>)")
    assert "unterminated group opened at offset 1" in pattern_error("a(b")
    assert "unterminated character class opened at offset 0" in pattern_error("[a")
    assert "back reference \\3" in pattern_error("()\\3")
    assert "\\k<x> names no group" in pattern_error("\\k<x>")
    assert "invalid escape '\\q'" in pattern_error("\\q")
    assert "unknown Unicode property 'Lowercase_L'" in pattern_error("\\p{Lowercase_L}")
    assert "no Unicode property name begins with 'Foo'" in pattern_error("\\p{Foo}")


def test_plain_excluded_is_the_fifteen_characters():
    assert PLAIN_EXCLUDED == frozenset("^$\\.*+?()[]{}|-") and len(PLAIN_EXCLUDED) == 15


# every prefix of these can still be completed; `completion` gives the expected suffix
VIABLE = [
    ("\\", "\\"), ("(", ")"), ("(?", ":)"), ("(?<", "=)"), ("(?<=", ")"), ("(?<a", ">)"),
    ("(?<a>)(?<a", "a>)"), ("(?<a>)(?<", "=)"), ("(?<\\", "u{24}>)"), ("(?<\\u", "0024>)"),
    ("(?<\\uD835", "\\uDC00>)"), ("(?<\\uD835\\uDC9", "0>)"), ("(?<\\u{1", "00}>)"),
    ("[", "]"), ("[^", "]"), ("[a-", "]"), ("[\\d-", "]"), ("[a-\\", "u{61}]"),
    ("[\\u{10FFFF}-\\uD", "BFF\\uDFFF]"), ("[\\u{10FFFF}-\\u{", "10FFFF}]"),
    ("[\\uDE00-\\uD83D", "\\uDC00]"), ("[\\uDE00-\\uD83D\\", "uDC00]"), ("a{", "1}"),
    ("a{3,", "}"), ("a{3,2", "9}"), ("a{30,0", "99}"), ("\\k", "<a>(?<a>)"), ("\\k<", "a>(?<a>)"),
    ("\\k<b", ">(?<b>)"), ("\\3", "()()()"), ("(\\2", ")()"), ("\\p", "{L}"), ("\\p{sc=", "Yi}"),
    ("\\p{Lowercase_L", "etter}"), ("\\u{", "0}"), ("\\u{10FFF", "}"), ("\\uD83D\\uDE", "00"),
    ("\\c", "A"), ("\\x", "00"), ("(?<a>", ")"), ("((?:[a-", "]))"),
]


@pytest.mark.parametrize(("text", "suffix"), VIABLE)
def test_viable_prefixes_and_their_completions(text, suffix):
    assert prefix_status(text) is not None
    assert completion(text) == suffix
    assert pattern_error(text + suffix) is None


NOT_VIABLE = [
    "[\\u{10FFFF}-\\u00", "[\\u{10FFFF}-\\uDC", "[\\u{10FFFF}-\\u{F", "[b-\\x0", "[b-\\c", "[a-\\0",
    "[\\u{10FFFF}-\\uDBFF\\u0", "[a-\\p", "[\\d-\\", "(?<\\uDB80", "(?<\\uD835\\u0", "(?<\\u003",
    "\\p{Lat", "\\p{sc=Foo", "a{3,2}", "\\u{110000", "\\00", "(?<a>)(?<a>", "(?=)*",
]


@pytest.mark.parametrize("text", NOT_VIABLE)
def test_dead_prefixes(text):
    assert prefix_status(text) is None and completion(text) is None
    assert pattern_error(text) is not None


def test_plain_ok_in_the_common_contexts():
    for text in ["", "a", "^", "\\b", "a*", "a{2}?", "(", "(?:", "(?=", "(?<a>", "a|", "[", "[^",
                 "[a", "[a-z", "[\\d", "\\d", "\\1", "\\k<a>", "\\uD83D", "[\\uD83D", "(a)"]:
        assert prefix_status(text).plain_ok, text
    for text in ["\\", "\\0", "[\\0", "[a-", "a{", "a{1", "(?", "(?<", "(?<a", "\\p{L", "\\k<a", "\\c"]:
        assert prefix_status(text).plain_ok is False, text


def test_long_numbers_compare_as_integers():
    assert offset("a{100000000000000000001,100000000000000000000}") == 45
    assert pattern_error("a{00000000000000000000001,1}") is None
    assert "back reference" in pattern_error("\\" + "1" * 30 + "()")
    assert prefix_status("\\" + "9" * 30)[:2] == (False, True)
    with pytest.raises(ValueError, match="capturing groups"):
        completion("\\" + "9" * 30)


def test_lone_surrogate_code_points_are_characters():
    assert pattern_error("[\udbff-\udc00]") is None  # two code points, not one pair
    assert offset("[\udc00-\udbff]") == 3
    assert offset("(?<\ud835\udc9c>)") == 3  # literal surrogate code points are no ID_Start


def test_id_start_derivation_matches_the_category_table():
    start, cont = ecma_names.id_start_ranges(), ecma_names.id_continue_ranges()
    assert contains(start, ord("a")) and not contains(start, ord("1"))
    assert not contains(start, 0x2E2F)  # Lm but Pattern_Syntax
    assert contains(start, 0x2118) and contains(cont, 0x00B7)
    assert not contains(start, 0x00B7) and contains(cont, 0x200D)


# ---------------------------------------------------------------- differential tests

_TOKENS = (
    list("abx0129,/<>=!:-^$\\.*+?()[]{}|") * 3
    + ["(?:", "(?=", "(?!", "(?<=", "(?<!", "(?<a>", "(?<b>", "(?<é>", "(?<\\u0061>", "(?<$",
       "(?<\\uD835\\uDC9C>", "\\k<a>", "\\k<b>", "\\k<", "\\k", "\\1", "\\2", "\\10", "\\0", "\\00",
       "\\d", "\\W", "\\b", "\\B", "\\cA", "\\c1", "\\c", "\\x4", "\\x41", "\\u00e9", "\\uD83D",
       "\\uDE00", "\\uDBFF", "\\uDFFF", "\\u{1F600}", "\\u{110000}", "\\u{", "\\u{10FFFF}", "\\u",
       "\\p{L}", "\\p{Lu}", "\\P{sc=Latn}", "\\p{Script=Greek}", "\\p{gc=Nd}", "\\p{Foo}",
       "\\p{ASCII}", "\\p{scx=Hira}", "\\p{Any}", "\\p{sc=Kawi}", "\\p{sc=Hrkt}", "\\p{digit}",
       "\\p{Letter}", "\\p{", "\\p", "\\q", "\\-", "\\/", "{2}", "{2,}", "{1,3}", "{3,1}", "{,2}",
       "{0,0}", "é", "ж", "中", "\U0001d49c", "\ud83d", "\ude00", "\\u0000", "[^", "[a-z]", "[z-a]",
       "[\\d-z]", "[a-\\d]", "-\\u0041", "\\u{41}"]
)
_MUTATION_CHARS = "ab09,<>=!:-^$\\.*+?()[]{}|uxcpkdDbB{}é\ud83d"


def _has_literal_pair(text: str) -> bool:
    """Adjacent lead and trail surrogate code points: one character to JavaScript, two here."""
    return any("\ud800" <= a <= "\udbff" and "\udc00" <= b <= "\udfff" for a, b in zip(text, text[1:]))


_ATOMS = ["a", "b", "x", "0", "9", ",", "/", "<", ">", "=", "!", ":", "-", "]", ".", "é", "中", "\U0001d49c",
          "\ud83d", "\\d", "\\S", "\\w", "\\cJ", "\\x7f", "\\u00e9", "\\uD83D\\uDE00", "\\uDE00",
          "\\u{10FFFF}", "\\u{0041}", "\\0", "\\1", "\\2", "\\k<a>", "\\k<b>", "\\p{L}", "\\P{Nd}",
          "\\p{sc=Grek}", "\\p{Script_Extensions=Latin}", "\\p{ID_Start}", "\\/", "\\.", "\\-", "\\$"]
_CLASS_ATOMS = ["a", "z", "0", "-", "^", "[", "(", "é", "\\b", "\\-", "\\d", "\\0", "\\cA", "\\x41",
                "\\uD83D", "\\uDE00", "\\uD83D\\uDE00", "\\u{1F600}", "\\p{Lu}", "\\]", "\ud83d"]


def _grammar_pattern(rng: random.Random, depth: int = 0) -> str:
    """A pattern from a rough grammar of u-mode patterns (mostly valid)."""
    alternatives = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        terms = []
        for _ in range(rng.randint(0, 4)):
            kind = rng.random()
            if kind < 0.1:
                terms.append(rng.choice(["^", "$", "\\b", "\\B"]))
                continue
            if kind < 0.25 and depth < 3:
                opener = rng.choice(["(", "(", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?<a>", "(?<b>",
                                     "(?<\\u0063>", "(?<é1>", "(?<$_>"])
                atom = opener + _grammar_pattern(rng, depth + 1) + ")"
            elif kind < 0.4:
                atoms = [rng.choice(_CLASS_ATOMS) for _ in range(rng.randint(0, 3))]
                if len(atoms) >= 2 and rng.random() < 0.5:
                    atoms.insert(1, "-")
                atom = rng.choice(["[", "[^"]) + "".join(atoms) + "]"
            else:
                atom = rng.choice(_ATOMS)
            if rng.random() < 0.3:
                atom += rng.choice(["*", "+", "?", "{2}", "{1,}", "{0,3}", "{3,1}", "{12,12}"])
                atom += rng.choice(["", "", "?"])
            terms.append(atom)
        alternatives.append("".join(terms))
    return "|".join(alternatives)


def _candidates(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count // 2):
        out.append("".join(rng.choice(_TOKENS) for _ in range(rng.randint(1, 10))))
        out.append(_grammar_pattern(rng))
    for base in list(out):
        chars = list(base)
        k = rng.randrange(len(chars) + 1)
        op = rng.randrange(3)
        if op == 0:
            chars.insert(k, rng.choice(_MUTATION_CHARS))
        elif chars and k < len(chars):
            if op == 1:
                del chars[k]
            else:
                chars[k] = rng.choice(_MUTATION_CHARS)
        out.append("".join(chars))
    return sorted({s for s in out if not _has_literal_pair(s)})


@pytest.fixture(scope="module")
def corpus():
    texts = _candidates(2020, 3000)
    return texts, node_valid(texts)


@needs_node
def test_pattern_error_agrees_with_node(corpus):
    texts, oracle = corpus
    wrong = [(t, pattern_error(t)) for t, ok in zip(texts, oracle) if (pattern_error(t) is None) != ok]
    assert not wrong, wrong[:20]
    assert 0.2 < sum(oracle) / len(oracle) < 0.8  # the generator makes both kinds


@needs_node
def test_prefixes_of_valid_patterns_are_viable_and_completions_are_valid(corpus):
    texts, oracle = corpus
    for text, ok in zip(texts, oracle):
        if ok:
            assert all(prefix_status(text[:k]) is not None for k in range(len(text) + 1)), text
    prefixes = sorted({t[:k] for t in texts for k in range(len(t) + 1)})
    viable = [p for p in prefixes if prefix_status(p) is not None]
    completed = [p + completion(p) for p in viable]
    for p, whole in zip(viable, completed):
        assert prefix_status(p).complete == (whole == p), p
    bad = [(p, c) for p, c, ok in zip(viable, completed, node_valid(completed)) if not ok]
    assert not bad, bad[:20]


@needs_node
def test_dead_prefixes_stay_dead(corpus):
    """A prefix called non-viable is refused by Node with any of a set of likely endings."""
    texts, _ = corpus
    endings = ["", "]", ")", "}", ">)", "]))", "0}", "}]", "a>)", "u0041]", "(?<a>)()()()", "DC00]"]
    dead = []
    for t in texts:
        k = next((k for k in range(len(t) + 1) if prefix_status(t[:k]) is None), None)
        if k is not None:
            live = t[:k - 1] + completion(t[:k - 1])
            dead += [t[:k] + e for e in endings] + [t[:k] + completion(t[:k - 1]), t, live]
    assert len(dead) > 1000
    checked = node_valid(dead)
    # `live` (the previous prefix completed) must pass, everything else must fail
    wrong = [d for i, (d, ok) in enumerate(zip(dead, checked)) if ok != (i % (len(endings) + 3) == len(endings) + 2)]
    assert not wrong, wrong[:20]


@needs_node
def test_plain_characters_may_follow_when_plain_ok(corpus):
    texts, _ = corpus
    rng = random.Random(7)
    plain = list("abcXYZ0123456789,/<>=!: é中_") + ["\U0001d49c"]
    assert not set(plain) & PLAIN_EXCLUDED
    prefixes = sorted({t[:k] for t in texts for k in range(len(t) + 1)})
    open_to_plain = [p for p in prefixes if (prefix_status(p) or (0, 0))[1]]
    assert len(open_to_plain) > 2500
    wholes = []
    for p in rng.sample(open_to_plain, 2500):
        extended = p + "".join(rng.choice(plain) for _ in range(rng.randint(1, 4)))
        assert prefix_status(extended) is not None, extended
        wholes.append(extended + completion(extended))
    bad = [w for w, ok in zip(wholes, node_valid(wholes)) if not ok]
    assert not bad, bad[:20]


def test_name_characters_keep_an_in_name_status():
    # in_name: the text ends inside a group name; a character that continues names leaves the
    # status as it is (regex_strings.piece_viable skips them unparsed)
    texts = _candidates(2020, 3000)
    rng = random.Random(11)
    prefixes = sorted({t[:k] for t in texts for k in range(len(t) + 1)} | {"(?<a", "\\k<ab", "(?<x>)\\k<x", "(?<b\\u0061"})
    in_name = [p for p in prefixes if (prefix_status(p) or PrefixStatus(False, False)).in_name]
    assert len(in_name) > 20 and "(?<a" in in_name and "(?<" not in in_name  # (a name's first character is ID_Start)
    name_chars = list("az_$09\u00e9\u4e2d\u0301\u200c") + ["\U0001d49c"]
    others = list(">(<-\\ .")
    assert all(name_continues(c) for c in name_chars) and not any(name_continues(c) for c in others)
    for p in in_name:
        status = prefix_status(p)
        for _ in range(5):
            extended = p + "".join(rng.choice(name_chars) for _ in range(rng.randint(1, 4)))
            assert prefix_status(extended) == status, extended


def test_piece_viable_agrees_with_parsing_the_whole_text():
    from tokenguide.json_schema.regex_strings import piece_viable, plain_tail

    texts = _candidates(2020, 3000)
    rng = random.Random(12)
    prefixes = sorted({t[:k] for t in texts for k in range(len(t) + 1)})
    live = [p for p in prefixes if prefix_status(p) is not None]
    pieces = ["ab", "a>", "ab>c", "a>)", "_1>x)", "a>(?<a", "a-", "\u0061>", "a\\", "xyz(", "é>", "a>b{2}", ">"]
    for text in rng.sample(live, 400) + ["(?<ma", "(?<a>)(?<b", "\\k<a", "(?<a>)(?<ab"]:
        memo: dict = {}
        for piece in pieces:
            assert piece_viable(text, piece, plain_tail(piece), memo) == (prefix_status(text + piece) is not None), \
                (text, piece)


@needs_node
def test_property_names_agree_with_node():
    gc = sorted(ecma_names.GENERAL_CATEGORY_VALUES)
    binary = sorted(ecma_names.BINARY_PROPERTIES)
    scripts = sorted(ecma_names.SCRIPT_VALUES)
    names = gc + binary + [f"{k}={v}" for k in ("gc", "General_Category") for v in gc]
    names += [f"{k}={v}" for k in ("sc", "Script_Extensions") for v in scripts]
    wrong = ["Foo", "L=L", "Script", "gc", "any", "Latin", "sc=L", "gc=Latin", "lu", "Hrkt", "sc=Hrkt"]
    patterns = [f"\\p{{{n}}}" for n in names + wrong]
    assert node_valid(patterns) == [pattern_error(p) is None for p in patterns]
    assert all(pattern_error(f"\\p{{{n}}}") is None for n in names)


@needs_node
def test_id_start_and_id_continue_agree_with_node():
    """Node's \\p{ID_Start}/\\p{ID_Continue} on every code point assigned in the pinned table."""
    unassigned = property_ranges("Cn")
    cps = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and not contains(unassigned, c)]
    start, cont = ecma_names.id_start_ranges(), ecma_names.id_continue_ranges()
    ours = [[c for c in cps if contains(start, c) and c not in (0x24, 0x5F)],
            [c for c in cps if contains(cont, c) and c != 0x24]]
    script = r"""
let data = ""; process.stdin.on("data", d => data += d); process.stdin.on("end", () => {
  const [cps, start, cont] = JSON.parse(data); const s = new Set(start), c = new Set(cont), diff = [];
  for (const cp of cps) { const ch = String.fromCodePoint(cp);
    if (/^\p{ID_Start}$/u.test(ch) !== s.has(cp) || /^\p{ID_Continue}$/u.test(ch) !== c.has(cp)) diff.push(cp); }
  process.stdout.write(JSON.stringify(diff));
});
"""
    done = subprocess.run([NODE, "-e", script], input=json.dumps([cps, *ours]), capture_output=True,
                          text=True, check=True, timeout=120)
    assert json.loads(done.stdout) == []
