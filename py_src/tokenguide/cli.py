"""Command line: `python -m tokenguide build | inspect | walk`.

build    regex (or JSON Schema) + vocabulary -> `.outlines` index file, with a progress bar
inspect  what an index file holds: header, sizes, busiest states, final states
walk     does some token path from the initial state spell exactly a given text?

Expected problems (bad regex, bad vocabulary, bad or missing file) print one line on stderr and
exit with status 1; usage errors exit with status 2 (argparse); there are no tracebacks.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import deque
from typing import Sequence, TextIO

from .display import show_bytes, token_display
from .errors import ArgumentError, TokenguideError, VocabularyError

PROG = "tokenguide"


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------


class ProgressBar:
    """A one-line progress bar on a text stream, redrawn at most ~10 times a second.

    Used as the `progress(stage, done, total)` callback of Index. Disabled bars do nothing.
    """

    def __init__(self, stream: TextIO, enabled: bool, interval: float = 0.1, width: int = 30):
        self.stream = stream
        self.enabled = enabled
        self.interval = interval
        self.width = width
        self._stage: str | None = None
        self._last = 0.0
        self._shown = 0  # length of the line currently on screen

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if stage == self._stage and now - self._last < self.interval and done < total:
            return
        self._stage = stage
        self._last = now
        total = max(total, 1)
        done = min(max(done, 0), total)
        filled = self.width * done // total
        line = f"{stage:<10} [{'#' * filled}{'.' * (self.width - filled)}] {done:,}/{total:,}"
        self.stream.write("\r" + line + " " * max(0, self._shown - len(line)))
        self.stream.flush()
        self._shown = len(line)

    def close(self) -> None:
        """End the bar's line (if one was drawn)."""
        if self.enabled and self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = 0


_MAX_ID_DIGITS = 10  # token ids are u32 in the file format


def _parse_eos(value: str | None) -> int | str | None:
    """--eos: ASCII digits are an id, anything else is the token's text.

    `str.isdigit` is not used: it is true for '²' and other digits `int` cannot read, which
    are ordinary token texts (the API then picks the token of that text).
    """
    if value is None:
        return None
    if value.isascii() and value.isdigit():
        if len(value.lstrip("0")) > _MAX_ID_DIGITS:
            raise ArgumentError(f"--eos: {len(value)}-digit token id {value[:12]}...: ids are below 2**32")
        return int(value)
    return value


def _text_bytes(text: str, option: str) -> bytes:
    """The bytes of a command-line text: UTF-8, with undecodable argv bytes (surrogateescape) passed through."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise ArgumentError(
            f"{option}: character {ascii(text[exc.start])} at position {exc.start} is a lone surrogate, "
            "which is neither text nor a raw byte; pass valid text"
        ) from None


def _load_vocabulary(path: str, eos: str | None):
    from .vocabulary import Vocabulary

    return Vocabulary.from_file(path, eos=_parse_eos(eos))


def _check_vocabulary_matches(vocabulary, vocab_size: int, eos_token_id: int, vocab_path: str) -> None:
    """Refuse a vocabulary that cannot be the one the index was built with."""
    if vocabulary.vocab_size != vocab_size or vocabulary.eos_token_id != eos_token_id:
        raise VocabularyError(
            f"{vocab_path} has vocab_size {vocabulary.vocab_size} and EOS id {vocabulary.eos_token_id}, "
            f"but the index was built for vocab_size {vocab_size} and EOS id {eos_token_id}: "
            "pass the vocabulary the index was built with (and --eos if its EOS was chosen by hand)"
        )


def _regex_from_args(args: argparse.Namespace) -> str:
    """The regex to build: given directly, or made from a JSON Schema file."""
    if args.regex is not None:
        if args.property_order != "schema":
            raise ArgumentError("--property-order applies to --json-schema only; drop it with --regex")
        return args.regex
    from . import json_schema

    with open(args.json_schema, encoding="utf-8") as handle:
        schema_text = handle.read()
    return json_schema.build_regex_from_schema(schema_text, property_order=args.property_order)


def _size(n: int) -> str:
    return f"{n:,} bytes"


# --------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------


def cmd_build(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .index import Index

    regex = _regex_from_args(args)
    vocabulary = _load_vocabulary(args.vocab, args.eos)
    if args.eos is None and vocabulary.eos_note:
        err.write(f"note: EOS is id {vocabulary.eos_token_id} ({vocabulary.eos_token!r}): {vocabulary.eos_note}\n")
    bar = ProgressBar(err, enabled=args.progress or err.isatty())
    started = time.perf_counter()
    try:
        index = Index(regex, vocabulary, ascii=args.ascii, max_states=args.max_states, progress=bar)
    finally:
        bar.close()
    built = time.perf_counter() - started
    from .index.format import encode_payload, gzip_compress

    payload = encode_payload(index)
    data = gzip_compress(payload)
    handle = open(args.output, "wb")
    try:
        with handle:
            handle.write(data)
    except BaseException:  # interrupted or disk full: leave no truncated index behind
        try:
            os.remove(args.output)
        except OSError:
            pass
        raise
    out.write(
        f"wrote {args.output}: {index.num_states:,} states, {index.num_transitions:,} transitions, "
        f"{_size(len(data))} (raw {_size(len(payload))}), built in {built:.2f} s\n"
    )
    return 0


def cmd_inspect(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .index.format import read_index_data

    with open(args.file, "rb") as handle:
        data = handle.read()
    info = read_index_data(data, max_size=args.max_size)
    vocabulary = None
    if args.vocab is not None:
        vocabulary = _load_vocabulary(args.vocab, args.eos)
        _check_vocabulary_matches(vocabulary, info.vocab_size, info.eos_token_id, args.vocab)

    def name(token_id: int) -> str:
        return f"{token_id} {token_display(vocabulary, token_id)}" if vocabulary is not None else str(token_id)

    counts = {state: len(tokens) for state, (tokens, _) in info.transitions.items()}
    targets = set()
    for _, nexts in info.transitions.values():
        targets.update(nexts)
    listed = set(counts)
    dead_ends = sorted(targets - listed)
    total = sum(counts.values())
    ratio = info.raw_size / len(data) if data else 0.0
    lines = [
        f"file:              {args.file}",
        f"file size:         {_size(len(data))} (gzip)",
        f"raw size:          {_size(info.raw_size)}",
        f"compression:       {ratio:.1f}x (file is {100 * len(data) / max(info.raw_size, 1):.1f}% of raw)",
        f"format:            v1, index_type {info.index_type}",
        f"vocab_size:        {info.vocab_size:,}",
        f"eos_token_id:      {name(info.eos_token_id)}",
        f"initial state:     {info.initial_state}",
        f"states:            {len(listed | targets | {info.initial_state}):,} "
        f"({len(listed):,} with transitions, {len(dead_ends):,} without)",
        f"transitions:       {total:,} (including {len(info.final_states):,} eos self-loops)",
        f"final states:      {len(info.final_states):,}: {_short_list(info.final_states, args.top)}",
    ]
    if dead_ends:
        lines.append(f"states without transitions: {_short_list(dead_ends, args.top)}")
    lines.append(f"states with the most transitions (top {min(args.top, len(counts))}):")
    busiest = sorted(counts, key=lambda s: (-counts[s], s))[: args.top]
    for state in busiest:
        tokens, nexts = info.transitions[state]
        final = ", final" if state in info.final_states else ""
        line = f"  state {state}: {counts[state]:,} transitions, {len(set(nexts)):,} next states{final}"
        if vocabulary is not None:
            sample = ", ".join(token_display(vocabulary, t) for t in tokens[:5])
            line += f"; first tokens: {sample}{' ...' if len(tokens) > 5 else ''}"
        lines.append(line)
    out.write("\n".join(lines) + "\n")
    return 0


def _short_list(values, limit: int) -> str:
    values = sorted(values)
    shown = ", ".join(str(v) for v in values[:limit])
    return f"[{shown}{', ...' if len(values) > limit else ''}]"


def find_token_path(index, vocabulary, text: bytes):
    """Shortest token path (fewest tokens) from the initial state that spells exactly `text`.

    Breadth-first search over (byte offset, state) pairs; at each offset only the tokens that are
    prefixes of the rest of the text are tried (dictionary lookups by length). Among end states,
    a final one is preferred. Returns (path, end_state, reached) where path is a list of
    (token_id, state_before, state_after) or None when no path exists, and `reached` is the
    longest prefix length that some path spells.
    """
    tokens = vocabulary.tokens
    max_len = max(map(len, tokens), default=0)
    n = len(text)
    start = (0, index.initial_state)
    parent: dict[tuple[int, int], tuple[int, int, int] | None] = {start: None}
    depth = {start: 0}
    queue = deque([start])
    reached = 0
    ends = []
    while queue:
        node = queue.popleft()
        offset, state = node
        reached = max(reached, offset)
        if offset == n:
            ends.append(node)
            continue
        for length in range(1, min(max_len, n - offset) + 1):
            ids = tokens.get(text[offset : offset + length])
            if not ids:
                continue
            for token_id in ids:
                nxt = index.get_next_state(state, token_id)
                if nxt is None:
                    continue
                key = (offset + length, nxt)
                if key not in parent:
                    parent[key] = (offset, state, token_id)
                    depth[key] = depth[node] + 1
                    queue.append(key)
    if not ends:
        return None, None, reached
    end = min(ends, key=lambda k: (not index.is_final_state(k[1]), depth[k], k[1]))
    path = []
    node = end
    while parent[node] is not None:
        offset, state, token_id = parent[node]
        path.append((token_id, state, node[1]))
        node = (offset, state)
    path.reverse()
    return path, end[1], n


def cmd_walk(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .index import Index

    index = Index.load(args.file, max_size=args.max_size)
    vocabulary = _load_vocabulary(args.vocab, args.eos)
    _check_vocabulary_matches(vocabulary, index.vocab_size, index.eos_token_id, args.vocab)
    text = _text_bytes(args.text, "--text")
    path, end_state, reached = find_token_path(index, vocabulary, text)
    if path is None:
        out.write(
            f"no token path spells {show_bytes(text)} ({len(text)} bytes); the longest prefix some path "
            f"spells is {reached} bytes: {show_bytes(text[:reached])}\n"
        )
        return 1
    out.write(f"{len(path)} tokens spell {show_bytes(text)} ({len(text)} bytes):\n")
    for step, (token_id, before, after) in enumerate(path, 1):
        out.write(f"  {step:>3}. token {token_id:>6} {token_display(vocabulary, token_id):<20} state {before} -> {after}\n")
    if index.is_final_state(end_state):
        out.write(f"end state {end_state} is final: the text is a complete match (EOS {index.eos_token_id} allowed)\n")
    else:
        out.write(f"end state {end_state} is not final: the text is only a prefix of a match\n")
    return 0


# --------------------------------------------------------------------------------------------
# Parser and entry point
# --------------------------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    from .index.format import DEFAULT_MAX_SIZE

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Build, inspect and check token-level indexes (.outlines files) for constrained generation.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    build = sub.add_parser(
        "build",
        help="build an index from a regex and a vocabulary and write it as an .outlines file",
        description="Build an index from a regex (or a JSON Schema) and a vocabulary; write it in format v1.",
        epilog=(
            "Long builds show their progress and can be interrupted: a regex such as '.{5000}' on GPT-2's "
            "50,257 tokens takes seconds. The progress bar is drawn on stderr when it is a terminal (or "
            "with --progress); Ctrl-C stops the build with a one-line message (exit status 130) and "
            "writes no file."
        ),
    )
    source = build.add_mutually_exclusive_group(required=True)
    source.add_argument("--regex", metavar="R", help="regular expression (Python re syntax; full match)")
    source.add_argument(
        "--json-schema", metavar="FILE", help="JSON Schema file to turn into a regex (needs tokenguide.json_schema)"
    )
    build.add_argument(
        "--property-order", choices=("schema", "any"), default="schema",
        help="with --json-schema: object keys in the schema's order (default) or in any order",
    )
    build.add_argument("--vocab", required=True, metavar="FILE", help="vocab.json or tokenizer.json (or a directory)")
    build.add_argument("--eos", metavar="ID_OR_TOKEN", help="EOS token id or text (default: from the tokenizer files)")
    build.add_argument("--ascii", action="store_true", help="\\d, \\w, \\s match ASCII only (default: Unicode, like re)")
    build.add_argument("--max-states", type=_positive_int, default=100_000, metavar="N", help="automaton state limit (default 100000)")
    build.add_argument("--progress", action="store_true", help="draw the progress bar even when stderr is not a terminal")
    build.add_argument("-o", "--output", required=True, metavar="OUT.outlines", help="file to write")
    build.set_defaults(func=cmd_build)

    inspect = sub.add_parser(
        "inspect",
        help="show what an .outlines file holds",
        description="Show header fields, counts, sizes, the states with most transitions and the final states.",
    )
    inspect.add_argument("file", metavar="FILE.outlines")
    inspect.add_argument("--vocab", metavar="FILE", help="vocabulary the index was built with, to show token texts")
    inspect.add_argument("--eos", metavar="ID_OR_TOKEN", help="EOS of that vocabulary, if chosen by hand at build time")
    inspect.add_argument("--top", type=_positive_int, default=10, metavar="N", help="how many states to list (default 10)")
    inspect.add_argument("--max-size", type=_positive_int, default=DEFAULT_MAX_SIZE, metavar="BYTES", help=argparse.SUPPRESS)
    inspect.set_defaults(func=cmd_inspect)

    walk = sub.add_parser(
        "walk",
        help="check that some token path spells a text",
        description=(
            "Search the token paths from the initial state for one that spells exactly the UTF-8 bytes of "
            "TEXT (no tokenizer involved; bytes of the argument that are not UTF-8 are searched as they "
            "are). Prints the shortest such path; exit status 0 if found, 1 if not."
        ),
    )
    walk.add_argument("file", metavar="FILE.outlines")
    walk.add_argument("--vocab", required=True, metavar="FILE", help="vocabulary the index was built with")
    walk.add_argument("--eos", metavar="ID_OR_TOKEN", help="EOS of that vocabulary, if chosen by hand at build time")
    walk.add_argument("--text", required=True, help="text to spell")
    walk.add_argument("--max-size", type=_positive_int, default=DEFAULT_MAX_SIZE, metavar="BYTES", help=argparse.SUPPRESS)
    walk.set_defaults(func=cmd_walk)
    return parser


def _describe_os_error(exc: OSError) -> str:
    if exc.filename is not None:
        return f"{exc.strerror or exc}: {exc.filename}"
    return str(exc)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 bad input or not found, 2 usage)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2): argparse already printed
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    out, err = sys.stdout, sys.stderr
    try:
        return args.func(args, out, err)
    except TokenguideError as exc:
        err.write(f"{PROG} {args.command}: error: {exc}\n")
    except OSError as exc:  # FileNotFoundError, IsADirectoryError, PermissionError...
        err.write(f"{PROG} {args.command}: error: {_describe_os_error(exc)}\n")
    except json.JSONDecodeError as exc:
        err.write(f"{PROG} {args.command}: error: invalid JSON: {exc}\n")
    except UnicodeDecodeError as exc:
        err.write(f"{PROG} {args.command}: error: file is not UTF-8 text ({exc.reason})\n")
    except KeyboardInterrupt:
        written = " (no file written)" if args.command == "build" else ""
        err.write(f"\n{PROG} {args.command}: interrupted{written}\n")
        return 130
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
