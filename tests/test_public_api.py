"""The public API, enumerated from `tokenguide.__all__`: every name resolves, `import tokenguide`
does not import lark, and every public callable, fed a table of wrong types and out-of-range
values, raises a TokenguideError subclass whose message names the argument at fault.

The list of callables is derived from `__all__` (constructors, and the public methods and
classmethods of each class, inherited ones included), so a new public name or method fails
`test_every_public_callable_has_a_table` until it gets entries here. Calls with the wrong number
of arguments or an unknown keyword are Python's own TypeError and are not in the tables.
"""

from __future__ import annotations

import ctypes
import inspect
import subprocess
import sys
from array import array
from pathlib import Path

import pytest

import tokenguide
from tokenguide import (
    ArgumentError,
    BaseGuide,
    Generate,
    Guide,
    Index,
    RegexGuide,
    StopAtEOSGuide,
    Tokenizer,
    TokenguideError,
    Vocabulary,
    Write,
)

REPO = Path(__file__).resolve().parents[1]

GRAMMAR = 'start: "a"+ "b"?'


def public_callables() -> dict[str, object]:
    """'Name' for constructors and functions, 'Class.method' for public methods, from __all__."""
    out: dict[str, object] = {}
    for name in tokenguide.__all__:
        obj = getattr(tokenguide, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            continue  # the error classes: see test_error_classes
        if isinstance(obj, type):
            out[name] = obj
            seen: set[str] = set()
            for cls in obj.__mro__:
                if cls is object:
                    continue
                for attr, raw in vars(cls).items():
                    if attr.startswith("_") or attr in seen:
                        continue
                    seen.add(attr)
                    if isinstance(raw, (classmethod, staticmethod)) or inspect.isfunction(raw):
                        out[f"{name}.{attr}"] = getattr(obj, attr)
        elif callable(obj):
            out[name] = obj
    return out


# -- objects the calls are made on ---------------------------------------------------------------


class Objects:
    """One small vocabulary and one of each public object built on it."""

    def __init__(self, tmp: Path):
        self.vocab = Vocabulary(3, {"a": 0, "b": 1, "ab": 2, "<eos>": 3})
        self.tok = Tokenizer(self.vocab)
        self.index = Index("(a|b)+", self.vocab)
        self.path = tmp / "i.outlines"
        self.index.save(self.path)
        self.vocab_path = tmp / "vocab.json"
        self.vocab_path.write_text('{"a": 0, "b": 1, "<|endoftext|>": 2}', encoding="utf-8")
        self.regex_guide = RegexGuide(self.index, self.tok)
        self.stop_guide = StopAtEOSGuide(self.tok)
        self.cfg = tokenguide.CFGGuide(GRAMMAR, self.tok)
        self.ref = tokenguide.ReferenceCFGGuide(GRAMMAR, self.tok)
        self.guide = Guide(self.index)
        self.buffer = array("i", [0])  # one int32 word: enough for 4 tokens
        self.raw = ctypes.create_string_buffer(64)


@pytest.fixture(scope="module")
def objects(tmp_path_factory) -> Objects:
    return Objects(tmp_path_factory.mktemp("api"))


def drive(coroutine):
    """Run a coroutine that only awaits asyncio.sleep(0) without an event loop (works in Pyodide too)."""
    try:
        while True:
            coroutine.send(None)
    except StopIteration as stop:
        return stop.value


# -- the tables: name -> [(call, words the message must contain), ...] --------------------------

NOT_INT = ["1", 1.5, None, [0], True]  # wrong types for an id, a state or a count


def _state_table(method: str, guide_attr: str, bad_states, extra=()):
    """Rows calling `guide.method(state)` with each bad state; the message must name `state`."""
    rows = [(lambda o, s=s: getattr(getattr(o, guide_attr), method)(s), ["state"]) for s in bad_states]
    return rows + list(extra)


def _guide_tables(cls_name: str, attr: str, bad_states, good_state) -> dict[str, list]:
    """The shared rows of the stateless guides' methods."""
    good = (lambda o: good_state(getattr(o, attr)))
    tables = {
        f"{cls_name}.{m}": _state_table(m, attr, bad_states)
        for m in ("get_next_instruction", "is_final_state", "can_terminate_state", "must_terminate_state",
                  "allowed_tokens", "mask_bytes")
    }
    tables[f"{cls_name}.get_next_state"] = [
        *[(lambda o, s=s: getattr(o, attr).get_next_state(s, 0), ["state"]) for s in bad_states],
        *[(lambda o, t=t: getattr(o, attr).get_next_state(good(o), t), ["token_id"]) for t in NOT_INT + [-1, 2**40]],
    ]
    tables[f"{cls_name}.fill_bitmask"] = [
        *[(lambda o, s=s: getattr(o, attr).fill_bitmask(s, array("i", [0])), ["state"]) for s in bad_states],
        (lambda o: getattr(o, attr).fill_bitmask(good(o), 5), ["buffer"]),
        (lambda o: getattr(o, attr).fill_bitmask(good(o), array("i")), ["buffer"]),
        (lambda o: getattr(o, attr).fill_bitmask(good(o), array("d", [0.0])), ["buffer"]),
        (lambda o: getattr(o, attr).fill_bitmask(good(o), bytes(4)), ["buffer", "read-only"]),
    ]
    return tables


def _tables() -> dict[str, list]:
    t: dict[str, list] = {}
    regex_states = ["1", 1.5, None, [0], True, 10**6, -2]
    t |= _guide_tables("RegexGuide", "regex_guide", regex_states, lambda g: g.initial_state)
    t |= _guide_tables("StopAtEOSGuide", "stop_guide", ["1", 1.5, None, True, 5, -2], lambda g: g.initial_state)
    cfg_states = ["1", 1.5, 0, [0], True]
    for name, attr in (("CFGGuide", "cfg"), ("ReferenceCFGGuide", "ref")):
        t |= _guide_tables(name, attr, cfg_states, lambda g: g.initial_state)
        if name == "ReferenceCFGGuide":  # the Lark LALR guide's own (the engine has no parser states)
            t[f"{name}.accepted_terminals"] = [
                (lambda o, p=p, a=attr: getattr(o, a).accepted_terminals(p), ["parser_state"]) for p in ["x", 0, None]
            ]
            t[f"{name}.completes"] = [
                *[(lambda o, s=s, a=attr: getattr(o, a).completes(s, b""), ["state"]) for s in cfg_states],
                *[(lambda o, v=v, a=attr: getattr(o, a).completes(getattr(o, a).initial_state, v), ["held"])
                  for v in [None, 5, "a"]],
            ]
        t[f"{name}.token_text"] = [
            *[(lambda o, s=s, a=attr: getattr(o, a).token_text(s, 0), ["state"]) for s in cfg_states],
            *[(lambda o, v=v, a=attr: getattr(o, a).token_text(getattr(o, a).initial_state, v), ["token_id"])
              for v in NOT_INT + [-1, 2**40]],
        ]
        t[f"{name}.advance_text"] = [
            *[(lambda o, s=s, a=attr: getattr(o, a).advance_text(s, "a"), ["state"]) for s in cfg_states],
            *[(lambda o, v=v, a=attr: getattr(o, a).advance_text(getattr(o, a).initial_state, v), ["piece"])
              for v in [None, 5, b"a"]],
            (lambda o, a=attr: getattr(o, a).advance_text(getattr(o, a).initial_state, "a", "x"), ["token_id"]),
        ]
        t[f"{name}.advance_bytes"] = [
            *[(lambda o, s=s, a=attr: getattr(o, a).advance_bytes(s, b"a"), ["state"]) for s in cfg_states],
            *[(lambda o, v=v, a=attr: getattr(o, a).advance_bytes(getattr(o, a).initial_state, v), ["data"])
              for v in [None, 5, "a"]],
        ]
        t[f"{name}.token_bytes"] = [
            *[(lambda o, s=s, a=attr: getattr(o, a).token_bytes(s, 0), ["state"]) for s in cfg_states],
            *[(lambda o, v=v, a=attr: getattr(o, a).token_bytes(getattr(o, a).initial_state, v), ["token_id"])
              for v in NOT_INT + [-1, 2**40]],
        ]
        t[f"{name}.iter_valid_token_ids"] = [
            *[(lambda o, s=s, a=attr: list(getattr(o, a).iter_valid_token_ids(s, [0])), ["state"]) for s in cfg_states],
            *[(lambda o, v=v, a=attr: list(getattr(o, a).iter_valid_token_ids(getattr(o, a).initial_state, v)),
               ["candidate_token_ids"]) for v in [5, None, ["x"], [-1]]],
        ]
        t[name] = [
            (lambda o, n=name, v=v: getattr(tokenguide, n)(v, o.tok), ["grammar"]) for v in [None, 5, b"start: x"]
        ] + [
            (lambda o, n=name, v=v: getattr(tokenguide, n)(GRAMMAR, v), ["tokenizer"]) for v in [None, 5, {"a": 0}]
        ]
    t["CFGGuide.allowed_token_ids"] = _state_table("allowed_token_ids", "cfg", cfg_states)
    t["CFGGuide.mask_int"] = _state_table("mask_int", "cfg", cfg_states)
    t["CFGGuide.accepts_bytes"] = [(lambda o, v=v: o.cfg.accepts_bytes(v), ["data"]) for v in [None, 5, "a"]]
    t["CFGGuide.from_lark"] = [
        *[(lambda o, v=v: tokenguide.CFGGuide.from_lark(v, o.tok), ["grammar"]) for v in [None, 5, b"start: x"]],
        *[(lambda o, v=v: tokenguide.CFGGuide.from_lark(GRAMMAR, v), ["tokenizer"]) for v in [None, 5, {"a": 0}]],
        (lambda o: tokenguide.CFGGuide.from_lark(GRAMMAR, o.tok, start=5), ["start"]),
        (lambda o: tokenguide.CFGGuide.from_lark(GRAMMAR, o.tok, start="nosuchrule"), ["start"]),
    ]

    t["RegexGuide"] = [
        *[(lambda o, v=v: RegexGuide(v, o.tok), ["index"]) for v in [None, "a+", 5]],
    ]
    t["RegexGuide.from_regex"] = [
        *[(lambda o, v=v: RegexGuide.from_regex(v, o.tok), ["regex"]) for v in [None, 5, b"a"]],
        *[(lambda o, v=v: RegexGuide.from_regex("a", v), ["tokenizer"]) for v in [None, 5, {"a": 0}]],
        (lambda o: RegexGuide.from_regex("a", o.tok, ascii="yes"), ["ascii"]),
        *[(lambda o, v=v: RegexGuide.from_regex("a", o.tok, max_states=v), ["max_states"]) for v in [0, -1, "9", 1.5]],
        (lambda o: RegexGuide.from_regex("a", o.tok, cache_dir=5), ["cache_dir"]),
        (lambda o: RegexGuide.from_regex("a", o.tok, use_cache="no"), ["use_cache"]),
        (lambda o: RegexGuide.from_regex("a", o.tok, progress=5), ["progress"]),
    ]
    t["RegexGuide.from_json_schema"] = [
        *[(lambda o, v=v: RegexGuide.from_json_schema(v, o.tok), ["schema"]) for v in [None, 5, "{", [1]]],
        (lambda o: RegexGuide.from_json_schema({}, None), ["tokenizer"]),
        *[(lambda o, v=v: RegexGuide.from_json_schema({}, o.tok, whitespace_pattern=v), ["whitespace_pattern"])
          for v in [5, "("]],
        *[(lambda o, v=v: RegexGuide.from_json_schema({}, o.tok, max_recursion_depth=v), ["max_recursion_depth"])
          for v in [-1, "3", 1.5]],
        (lambda o: RegexGuide.from_json_schema({}, o.tok, lenient="no"), ["lenient"]),
        *[(lambda o, v=v: RegexGuide.from_json_schema({}, o.tok, property_order=v), ["property_order"])
          for v in ["sorted", None]],
    ]

    t["StopAtEOSGuide"] = [(lambda o, v=v: StopAtEOSGuide(v), ["tokenizer"]) for v in [None, 5, "x" * 0]]

    t["Write"] = [(lambda o, v=v: Write(v), ["tokens"]) for v in [None, 5, "ab", b"ab", [0, "x"], [-1]]]
    t["Generate"] = [(lambda o, v=v: Generate(v), ["tokens"]) for v in [5, "ab", b"ab", [0, "x"], [-1]]]

    t["build_regex_from_schema"] = [
        *[(lambda o, v=v: tokenguide.build_regex_from_schema(v), ["schema"]) for v in [None, 5, "{", [1]]],
        *[(lambda o, v=v: tokenguide.build_regex_from_schema({}, v), ["whitespace_pattern"]) for v in [5, "(", b" "]],
        *[(lambda o, v=v: tokenguide.build_regex_from_schema({}, None, v), ["max_recursion_depth"])
          for v in [-1, "3", 1.5, None]],
        (lambda o: tokenguide.build_regex_from_schema({}, lenient="no"), ["lenient"]),
        *[(lambda o, v=v: tokenguide.build_regex_from_schema({}, property_order=v), ["property_order"])
          for v in ["Any", 1, None]],
    ]

    t["compile_json_schema"] = [
        *[(lambda o, v=v: tokenguide.compile_json_schema(v), ["schema"]) for v in [None, 5, "{", [1]]],
        *[(lambda o, v=v: tokenguide.compile_json_schema({}, v), ["whitespace_pattern"]) for v in [5, "(", b" "]],
        *[(lambda o, v=v: tokenguide.compile_json_schema({}, None, v), ["max_recursion_depth"])
          for v in [-1, "3", 1.5, None]],
        *[(lambda o, v=v: tokenguide.compile_json_schema({}, path=v), ["path"]) for v in ["fast", 1, None]],
        (lambda o: tokenguide.compile_json_schema({}, lenient="no"), ["lenient"]),
        *[(lambda o, v=v: tokenguide.compile_json_schema({}, property_order=v), ["property_order"])
          for v in ["Any", 1, None]],
    ]

    t["Vocabulary"] = [
        *[(lambda o, v=v: Vocabulary(v, {"a": 0}), ["eos_token_id"]) for v in ["1", 1.5, None, -1, 2**40]],
        *[(lambda o, v=v: Vocabulary(1, v), ["mapping"]) for v in [None, [("a", 0)], "a"]],
        (lambda o: Vocabulary(1, {"a": "0"}), ["'a'"]),
        (lambda o: Vocabulary(1, {"a": -1}), ["'a'"]),
        (lambda o: Vocabulary(1, {5: 0}), ["key"]),
    ]
    t["Vocabulary.from_file"] = [
        *[(lambda o, v=v: Vocabulary.from_file(v), ["path"]) for v in [None, 5, "", "a\0b"]],
        *[(lambda o, v=v: Vocabulary.from_file(o.vocab_path, eos=v), ["eos"]) for v in [1.5, [1], -1, 2**40, "zz"]],
    ]
    t["Vocabulary.from_json_text"] = [
        *[(lambda o, v=v: Vocabulary.from_json_text(v), ["text"]) for v in [None, 5, {"a": 0}]],
        (lambda o: Vocabulary.from_json_text('{"a": 1' + "0" * 5000 + "}"), ["vocab.json", "id"]),
        (lambda o: Vocabulary.from_json_text('{"a": 0}', filename=5), ["filename"]),
        *[(lambda o, v=v: Vocabulary.from_json_text('{"a": 0, "b": 1}', eos=v), ["eos"]) for v in [1.5, [1], -1]],
        *[(lambda o, v=v: Vocabulary.from_json_text('{"a": 0}', eos=0, siblings=v), ["siblings"])
          for v in [5, "x", {"nope.json": "{}"}]],
    ]
    for method in ("id_to_bytes", "id_to_token"):
        t[f"Vocabulary.{method}"] = [
            (lambda o, v=v, m=method: getattr(o.vocab, m)(v), ["token_id"]) for v in NOT_INT
        ]
    t["Vocabulary.get"] = [(lambda o, v=v: o.vocab.get(v), ["token"]) for v in [None, 5, ["a"]]]

    t["Tokenizer"] = [
        *[(lambda o, v=v: Tokenizer(v), ["vocabulary"]) for v in [None, {"a": 0}, "vocab.json"]],
        (lambda o: Tokenizer(o.vocab, strip_leading_space="no"), ["strip_leading_space"]),
    ]
    t["Tokenizer.from_file"] = [
        *[(lambda o, v=v: Tokenizer.from_file(v), ["path"]) for v in [None, 5, ""]],
        (lambda o: Tokenizer.from_file(o.vocab_path, eos=1.5), ["eos"]),
        (lambda o: Tokenizer.from_file(o.vocab_path, strip_leading_space="no"), ["strip_leading_space"]),
    ]
    t["Tokenizer.from_transformers"] = [(lambda o, v=v: Tokenizer.from_transformers(v), ["tokenizer"]) for v in [None, 5, "gpt2"]]
    t["Tokenizer.token_bytes"] = [(lambda o, v=v: o.tok.token_bytes(v), ["token_id"]) for v in NOT_INT]
    t["Tokenizer.decode_text"] = [
        (lambda o, v=v: o.tok.decode_text(v), ["token_ids"]) for v in [None, 5, ["x"], [1.5], [-1]]
    ]
    t["Tokenizer.decode"] = [(lambda o, v=v: o.tok.decode(v), ["token_ids"]) for v in [None, 5, ["x"], [[1.5]], [-1]]]
    t["Tokenizer.convert_token_to_string"] = [
        (lambda o: o.tok.convert_token_to_string(5), ["token"]),
        (lambda o: o.tok.convert_token_to_string("zzz"), ["token", "zzz"]),
    ]

    t["Index"] = [
        *[(lambda o, v=v: Index(v, o.vocab), ["regex"]) for v in [None, 5, b"a"]],
        *[(lambda o, v=v: Index("a", v), ["vocabulary"]) for v in [None, {"a": 0, "<eos>": 1}, "vocab.json"]],
        (lambda o: Index("a", o.vocab, ascii="yes"), ["ascii"]),
        *[(lambda o, v=v: Index("a", o.vocab, max_states=v), ["max_states"]) for v in [0, -1, "10", 1.5, None]],
        (lambda o: Index("a", o.vocab, progress=5), ["progress"]),
        (lambda o: Index("a", o.vocab, should_cancel="no"), ["should_cancel"]),
    ]
    t["Index.build_async"] = [
        (lambda o: drive(Index.build_async(5, o.vocab)), ["regex"]),
        (lambda o: drive(Index.build_async("a", {"a": 0})), ["vocabulary"]),
        (lambda o: drive(Index.build_async("a", o.vocab, max_states=0)), ["max_states"]),
        (lambda o: drive(Index.build_async("a", o.vocab, progress=5)), ["progress"]),
    ]
    t["Index.from_automaton"] = [
        *[(lambda o, v=v: Index.from_automaton(v, o.vocab), ["dfa"]) for v in [None, "a+"]],
        (lambda o: Index.from_automaton(o.index, o.vocab), ["dfa"]),
        (lambda o: Index.from_automaton(o.index.dfa, {"a": 0}), ["vocabulary"]),
        (lambda o: Index.from_automaton(o.index.dfa, o.vocab, progress=5), ["progress"]),
    ]
    t["Index.from_json_schema"] = [
        *[(lambda o, v=v: Index.from_json_schema(v, o.vocab), ["schema"]) for v in [None, 5, "{"]],
        (lambda o: Index.from_json_schema({}, {"a": 0}), ["vocabulary"]),
        (lambda o: Index.from_json_schema({}, o.vocab, whitespace_pattern=5), ["whitespace_pattern"]),
        (lambda o: Index.from_json_schema({}, o.vocab, max_recursion_depth=-1), ["max_recursion_depth"]),
        (lambda o: Index.from_json_schema({}, o.vocab, lenient="no"), ["lenient"]),
        (lambda o: Index.from_json_schema({}, o.vocab, property_order="any order"), ["property_order"]),
        (lambda o: Index.from_json_schema({}, o.vocab, max_states=0), ["max_states"]),
    ]
    ok = (array("I", [0]), array("I", [0]))
    t["Index.from_transitions"] = [
        *[(lambda o, v=v: Index.from_transitions(v, 0, 0, [0], {0: ok}), ["vocab_size"]) for v in ["2", 0, -1, 2**40]],
        *[(lambda o, v=v: Index.from_transitions(2, v, 0, [0], {0: ok}), ["eos_token_id"]) for v in ["0", -1, 2]],
        *[(lambda o, v=v: Index.from_transitions(2, 1, v, [0], {0: ok}), ["initial_state"]) for v in ["0", -1, None]],
        *[(lambda o, v=v: Index.from_transitions(2, 1, 0, v, {0: ok}), ["final_states"]) for v in [5, ["0"], [-1]]],
        *[(lambda o, v=v: Index.from_transitions(2, 1, 0, [0], v), ["transitions"])
          for v in [None, [ok], {"0": ok}, {0: ok[0]}, {0: (array("I", [0]), array("I"))}]],
    ]
    for method in ("is_final_state", "get_allowed_tokens", "state_transitions"):
        t[f"Index.{method}"] = [(lambda o, v=v, m=method: getattr(o.index, m)(v), ["state"]) for v in NOT_INT]
    t["Index.state_transitions"].append((lambda o: o.index.state_transitions(10**6), ["state", "1000000"]))
    t["Index.iter_transitions"] = [
        *[(lambda o, v=v: list(o.index.iter_transitions([v])), ["state"]) for v in NOT_INT],
        (lambda o: list(o.index.iter_transitions([0, 10**6])), ["state", "1000000"]),
    ]
    t["Index.get_next_state"] = [
        *[(lambda o, v=v: o.index.get_next_state(v, 0), ["state"]) for v in NOT_INT],
        *[(lambda o, v=v: o.index.get_next_state(0, v), ["token_id"]) for v in NOT_INT + [-1, 2**40]],
    ]
    for method in ("mask_bytes", "transition_count"):
        t[f"Index.{method}"] = [
            *[(lambda o, v=v, m=method: getattr(o.index, m)(v), ["state"]) for v in NOT_INT],
            (lambda o, m=method: getattr(o.index, m)(10**6), ["state", "1000000"]),
        ]
    t["Index.set_mask_cache_bytes"] = [
        (lambda o, v=v: Index("a+", o.vocab).set_mask_cache_bytes(v), ["max_bytes"]) for v in [-1, "9", None, 1.5]
    ]
    for method in ("to_bytes", "iter_bytes"):
        t[f"Index.{method}"] = [
            *[(lambda o, v=v, m=method: list(getattr(o.index, m)(level=v)), ["level"]) for v in ["6", -2, 10, None]],
            (lambda o, m=method: list(getattr(o.index, m)(progress=5)), ["progress"]),
            (lambda o, m=method: list(getattr(o.index, m)(should_cancel="no")), ["should_cancel"]),
        ]
    t["Vocabulary.start_of_text_regex"] = [
        (lambda o, v=v: o.vocab.start_of_text_regex(v), ["regex"]) for v in [None, 5, b"a"]
    ]
    t["Index.from_bytes"] = [
        *[(lambda o, v=v: Index.from_bytes(v), ["data"]) for v in [None, "x", 5, [1]]],
        *[(lambda o, v=v: Index.from_bytes(o.index.to_bytes(), max_size=v), ["max_size"]) for v in [-1, 0, "9", None]],
    ]
    t["Index.save"] = [(lambda o, v=v: o.index.save(v), ["path"]) for v in [None, 5, "", "a\0b"]]
    t["Index.load"] = [
        *[(lambda o, v=v: Index.load(v), ["path"]) for v in [None, 5, "", "a\0b"]],
        *[(lambda o, v=v: Index.load(o.path, max_size=v), ["max_size"]) for v in [-1, "9"]],
    ]

    t["Guide"] = [
        *[(lambda o, v=v: Guide(v), ["source"]) for v in [None, "a+", 5]],
        (lambda o: Guide(o.vocab), ["source"]),
        *[(lambda o, v=v: Guide(o.index, v), ["max_rollback"]) for v in [-1, "2", 1.5, None]],
        *[(lambda o, v=v: Guide(o.index, mask_cache=v), ["mask_cache"]) for v in [-1, "2", {}]],
    ]
    t["Guide.from_regex"] = [
        (lambda o: Guide.from_regex(5, o.vocab), ["regex"]),
        (lambda o: Guide.from_regex("a", None), ["tokenizer"]),
        (lambda o: Guide.from_regex("a", o.vocab, max_rollback=-1), ["max_rollback"]),
        (lambda o: Guide.from_regex("a", o.vocab, max_states=0), ["max_states"]),
    ]
    t["Guide.from_json_schema"] = [
        (lambda o: Guide.from_json_schema(5, o.vocab), ["schema"]),
        (lambda o: Guide.from_json_schema({}, None), ["tokenizer"]),
        (lambda o: Guide.from_json_schema({}, o.vocab, property_order="random"), ["property_order"]),
    ]
    t["Guide.from_grammar"] = [
        (lambda o: Guide.from_grammar(5, o.vocab), ["grammar"]),
        (lambda o: Guide.from_grammar(GRAMMAR, None), ["tokenizer"]),
        (lambda o: Guide.from_grammar(GRAMMAR, o.vocab, max_rollback=-1), ["max_rollback"]),
    ]
    t["Guide.advance"] = [
        *[(lambda o, v=v: Guide(o.index).advance(v), ["token_id"]) for v in NOT_INT + [-1, 2**40]],
        (lambda o: Guide(o.index).advance(0, return_tokens="no"), ["return_tokens"]),
    ]
    t["Guide.accepts_tokens"] = [(lambda o, v=v: o.guide.accepts_tokens(v), ["token_ids"]) for v in [None, 5, ["x"], [-1]]]
    t["Guide.rollback_state"] = [
        *[(lambda o, v=v: Guide(o.index).rollback_state(v), ["token_count"]) for v in NOT_INT + [-1, 1]],
    ]
    t["Guide.write_mask_into"] = [
        *[(lambda o, v=v: o.guide.write_mask_into(v), ["data"]) for v in [None, "x", 1.5, bytes(4), array("i"), -8]],
        (lambda o: o.guide.write_mask_into(0, 1, 4), ["data"]),
        *[(lambda o, v=v: o.guide.write_mask_into(ctypes.addressof(o.raw), v, 4), ["numel"]) for v in [0, None, "1"]],
        *[(lambda o, v=v: o.guide.write_mask_into(ctypes.addressof(o.raw), 1, v), ["element_size"]) for v in [8, None]],
    ]
    return t


# Methods that take no argument: nothing to feed them (their signatures are checked to stay so).
NO_ARGUMENTS = {
    "BaseGuide", "BaseGuide.copy", "RegexGuide.copy", "StopAtEOSGuide.copy", "CFGGuide.copy",
    "ReferenceCFGGuide.copy", "Index.get_initial_state", "Index.get_final_states", "Index.get_vocab_size",
    "Index.get_eos_token_id", "Index.states", "Index.get_transitions", "Index.key_ranges",
    "Vocabulary.get_eos_token_id", "Vocabulary.fingerprint", "Guide.get_state", "Guide.get_start_tokens",
    "Guide.get_tokens", "Guide.is_finished", "Guide.reset", "Guide.mask_bytes",
    "Guide.copy", "Guide.get_allowed_rollback",
}
# Callables whose every call fails by design: (a call, the exception it raises). BaseGuide's
# methods are abstract or call abstract ones; their argument checks are those of each subclass.
_BASE = BaseGuide()
NOT_PROVIDED = {
    "Tokenizer.encode": (lambda o: o.tok.encode("text"), NotImplementedError),
    "BaseGuide.get_next_instruction": (lambda o: _BASE.get_next_instruction(0), NotImplementedError),
    "BaseGuide.get_next_state": (lambda o: _BASE.get_next_state(0, 0), NotImplementedError),
    "BaseGuide.is_final_state": (lambda o: _BASE.is_final_state(0), NotImplementedError),
    "BaseGuide.can_terminate_state": (lambda o: _BASE.can_terminate_state(0), NotImplementedError),
    "BaseGuide.must_terminate_state": (lambda o: _BASE.must_terminate_state(0), NotImplementedError),
    "BaseGuide.fill_bitmask": (lambda o: _BASE.fill_bitmask(0, array("i", [0])), NotImplementedError),
    "BaseGuide.allowed_tokens": (lambda o: _BASE.allowed_tokens(0), NotImplementedError),
    "BaseGuide.mask_bytes": (lambda o: _BASE.mask_bytes(0), NotImplementedError),
}

TABLES = _tables()

# Entry points that do not check every row yet ({name: why}). Their rows run as non-strict
# xfails, so a fixed row shows as XPASS; remove the name once all its rows pass. Empty: keep it so.
KNOWN_GAPS: dict[str, str] = {}


def _row(name, i, call, words):
    marks = [pytest.mark.xfail(reason=KNOWN_GAPS[name], strict=False)] if name in KNOWN_GAPS else []
    return pytest.param(name, i, call, words, id=f"{name}-{i}", marks=marks)


ROWS = [_row(name, i, call, words) for name, rows in sorted(TABLES.items()) for i, (call, words) in enumerate(rows)]


def test_every_name_in_all_resolves():
    for name in tokenguide.__all__:
        assert getattr(tokenguide, name) is not None, name
    assert len(set(tokenguide.__all__)) == len(tokenguide.__all__)
    assert set(tokenguide.__all__) <= set(dir(tokenguide))
    with pytest.raises(AttributeError):
        tokenguide.no_such_name  # noqa: B018


@pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses in Pyodide")
def test_import_does_not_import_lark():
    code = (
        "import sys, tokenguide\n"
        "from tokenguide import Index, Vocabulary, Guide, RegexGuide, Tokenizer\n"
        "assert 'lark' not in sys.modules, sorted(m for m in sys.modules if 'lark' in m)\n"
        "tokenguide.CFGGuide, tokenguide.ReferenceCFGGuide\n"
        "assert 'lark' in sys.modules\n"
    )
    env = {"PYTHONPATH": str(REPO / "py_src"), "PATH": "/usr/bin:/bin"}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr


def test_error_classes():
    errors = [getattr(tokenguide, n) for n in tokenguide.__all__ if isinstance(getattr(tokenguide, n), type)
              and issubclass(getattr(tokenguide, n), BaseException)]
    assert len(errors) >= 10
    for cls in errors:
        assert issubclass(cls, TokenguideError), cls
        assert cls.__doc__, cls
    assert issubclass(ArgumentError, TypeError) and issubclass(ArgumentError, ValueError)


def test_every_public_callable_has_a_table():
    names = set(public_callables())
    covered = set(TABLES) | NO_ARGUMENTS | set(NOT_PROVIDED)
    assert sorted(names - covered) == [], "new public callables need rows in tests/test_public_api.py"
    assert sorted(covered - names) == [], "rows for names that are no longer public"
    for name in names:
        if name in NO_ARGUMENTS:
            continue
        assert TABLES.get(name) or name in NOT_PROVIDED, f"{name} has an empty table"


def test_no_argument_callables_take_no_arguments():
    found = public_callables()
    for name in NO_ARGUMENTS:
        params = [p for p in inspect.signature(found[name]).parameters.values()
                  if p.name != "self"]
        assert params == [], f"{name} now takes {params}: give it rows in the tables"


def test_not_provided_callables(objects):
    for name, (call, exc) in NOT_PROVIDED.items():
        with pytest.raises(exc):
            call(objects)


def test_known_gaps_are_public_names():
    assert sorted(set(KNOWN_GAPS) - set(TABLES)) == []


@pytest.mark.parametrize("name,row,call,words", ROWS)
def test_bad_argument(objects, name, row, call, words):
    with pytest.raises(TokenguideError) as info:
        call(objects)
    message = str(info.value)
    for word in words:
        assert word.lower() in message.lower(), f"{name}: {type(info.value).__name__}: {message!r} does not name {word!r}"
    assert len(message) < 600, message
