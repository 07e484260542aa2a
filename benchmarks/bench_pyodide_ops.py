"""The operations under the engine's masks and advances, one by one, in CPython and in Pyodide.

    python benchmarks/bench_pyodide_ops.py EXPORT [--vocab gpt2] [--item 5] [--clock cpu|wall]
    node tests/pyodide/run_pytest.mjs . WHEELS --exec benchmarks/bench_pyodide_ops.py EXPORT ...

EXPORT is a `bench_walk.py --export` file: its schema number `--item` is compiled on the engine
path and walked halfway along its document; then each piece of an advance from there (a fresh
state, so the engine computes it again: `Matcher.next_state`, `step_pairs` for one byte, ...)
and the big-int and interpreter operations the masks are made of run in tight loops. Per call,
the fastest of 5 loops, by `bench_walk_replay`'s clocks (process CPU time by default). Hot loops:
caches stay warm, unlike along a walk, where a mask runs between two advances.
"""

from __future__ import annotations

import argparse
import sys
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_walk_replay as replay  # noqa: E402


def per_call(clock, fn, n: int) -> float:
    """Seconds per call of `fn(n)` (a loop of n calls): the fastest of 5 loops."""
    best = float("inf")
    for _ in range(5):
        start = clock()
        fn(n)
        best = min(best, clock() - start)
    return best / n


def engine_pieces(data: dict, vocab_name: str, item: int) -> tuple[str, list]:
    """(what was walked, [(label, loop, n)]) for the pieces of one engine advance halfway along item `item`."""
    from tokenguide.arguments import check_token_id
    from tokenguide.engine.matcher import EngineState
    from tokenguide.guides.instructions import mask_has

    spec = data["vocabularies"][vocab_name]
    vocab = replay.load_vocabulary(spec["path"], spec["eos"])
    case = data["schemas"][item]
    tokens = case["tokens"][vocab_name]
    guide = replay.compile_guide("engine", case["schema"], vocab)
    source, buffer = guide.source, array("i", [0]) * ((vocab.vocab_size + 31) // 32)
    state = source.initial_state
    for token in tokens[: len(tokens) // 2]:
        guide.write_mask_into(buffer)
        guide.advance(token, return_tokens=False)
        state = source.get_next_state(state, token)
    token = tokens[len(tokens) // 2]
    text, matcher, mask = vocab.id_to_bytes(token), source.matcher, source.mask_bytes(state)

    def fresh_next_state(n):
        for _ in range(n):
            source.get_next_state(EngineState(state.pairs), token)

    def fresh_advance_bytes(n):
        for _ in range(n):
            matcher.advance_bytes(EngineState(state.pairs), text)

    def one_byte(n):
        for _ in range(n):
            matcher.step_pairs(state.pairs, text[0])

    def new_state(n):
        for _ in range(n):
            EngineState(state.pairs)

    def token_check(n):
        for _ in range(n):
            check_token_id("w", "token_id", token)

    def has(n):
        for _ in range(n):
            mask_has(mask, token)

    def to_bytes(n):
        for _ in range(n):
            vocab.id_to_bytes(token)

    what = (f"{case['file']}, token {len(tokens) // 2} of {len(tokens)} ({text!r}), "
            f"{len(state.pairs)} (row, lexer state) pairs alive")
    return what, [("GrammarGuide.get_next_state from a fresh state", fresh_next_state, 20000),
                  ("Matcher.advance_bytes from a fresh state", fresh_advance_bytes, 20000),
                  ("Matcher.step_pairs, one byte", one_byte, 20000), ("EngineState(pairs)", new_state, 50000),
                  ("check_token_id", token_check, 100000), ("mask_has", has, 100000),
                  ("Vocabulary.id_to_bytes", to_bytes, 100000)]


def int_and_interpreter_ops() -> list:
    """[(label, loop, n)]: big-int operations on vocabulary-sized bit sets, and interpreter basics."""
    ops = []
    for bits in (50257, 128256):
        x, y = (1 << bits) - 12345, (1 << bits) - 999 - (1 << 3000)
        raw = x.to_bytes((bits + 7) // 8, "little")

        def f_or(n, x=x, y=y):
            for _ in range(n):
                x | y

        def f_and(n, x=x, y=y):
            for _ in range(n):
                x & y

        def f_and_not(n, x=x, y=y):
            for _ in range(n):
                x & ~y

        def f_to_bytes(n, x=x, size=len(raw)):
            for _ in range(n):
                x.to_bytes(size, "little")

        def f_from_bytes(n, raw=raw):
            for _ in range(n):
                int.from_bytes(raw, "little")

        def f_bit_count(n, x=x):
            for _ in range(n):
                x.bit_count()

        ops += [(f"{bits:,}-bit int: x \\| y", f_or, 3000), (f"{bits:,}-bit int: x & y", f_and, 3000),
                (f"{bits:,}-bit int: x & ~y", f_and_not, 3000), (f"{bits:,}-bit int: to_bytes", f_to_bytes, 1000),
                (f"{bits:,}-bit int: int.from_bytes", f_from_bytes, 1000),
                (f"{bits:,}-bit int: bit_count", f_bit_count, 3000)]
    table = {(i, i + 1): i for i in range(1000)}
    keys = [object() for _ in range(8)]

    def dict_get(n):
        for _ in range(n):
            table.get((5, 6))

    def pairs_into_dict(n):
        for _ in range(n):
            out = {}
            for k in keys:
                out[(k, 7)] = None
            tuple(out)

    def calls(n):
        def g(a, b):
            return a
        for i in range(n):
            g(i, i)

    def iterate_bytes(n, data=bytes(range(16))):
        s = 0
        for _ in range(n):
            for c in data:
                s += c

    return ops + [("dict.get, tuple key", dict_get, 200000), ("8 (object, int) keys into a dict, then tuple",
                                                               pairs_into_dict, 50000),
                  ("a Python call", calls, 200000), ("iterating 16 bytes", iterate_bytes, 50000)]


def main(argv=None) -> int:
    """Print µs per call of each operation on this runtime."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("export", help="a bench_walk.py --export file")
    parser.add_argument("--vocab", default="gpt2")
    parser.add_argument("--item", type=int, default=5, help="which of the export's schemas to walk")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = parser.parse_args(argv)
    clock, words = replay.clock_of(args.clock)
    what, pieces = engine_pieces(replay.load_export(args.export), args.vocab, args.item)
    print(f"{replay.runtime()}; {words}; fastest of 5 loops. Engine advance pieces at {what}.\n")
    print("| operation | µs per call |")
    print("|---|---:|")
    for label, loop, n in pieces + int_and_interpreter_ops():
        print(f"| {label} | {per_call(clock, loop, n) * 1e6:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
