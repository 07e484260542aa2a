"""Scan a regex over text that may still grow, with Python `re`'s leftmost-first semantics.

The reference CFG guide must know, for the text lexed so far, whether a terminal's match is
settled or could still change once more text arrives. Python `re` has no partial matching, so
this module runs a small Pike VM (a Thompson NFA simulated with thread priorities, like RE2)
over the parse tree of `re._parser`. Single-character tests are delegated to `re` itself
(each character class is compiled on its own, with its flags), so their meaning is exactly
Python's. Threads are kept in the backtracking engine's priority order, so the match found is
the one `re.match` returns, and the threads still running at the end of the text are exactly
the higher-priority paths that could still win with more text.

Supported: literals, classes, `.`, alternation, groups, greedy and lazy repeats, inline flags,
anchors and lookarounds. Repeating a sub-pattern that can match the empty string (`(a*)*`) is
refused: `re` ends such a loop after an empty iteration, which a Thompson VM cannot mirror. Assertions are evaluated on the current text, as `re` would; one that
fails only for lack of text (a lookahead running past the end, `\\b` at the end) keeps its path
open for `can_extend`. Not modelled: an assertion true now that more text would falsify (`$`,
a negative lookahead at the end) — grammars rarely put those in terminals. Backreferences, atomic groups, possessive repeats and
conditionals raise RegexError too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from ...errors import RegexError
from ...regex.sre import constants as _c
from ...regex.sre import parser as _sre_parse

__all__ = ["CHAR", "CharTest", "Checkpoint", "PrefixScanner", "ScanResult", "closure"]

#: instructions; counted repeats are unrolled, so cap the size (a JSON key of 1 to 255 characters
#: under an ECMA `.`, its escaped control characters spelled out: 60,969, built in 0.2 s)
MAX_PROGRAM = 200_000
_MAXREPEAT = _c.MAXREPEAT
_PRED_FLAGS = re.IGNORECASE | re.DOTALL | re.ASCII | re.UNICODE | re.MULTILINE

_CATEGORY_TEXT = {
    _c.CATEGORY_DIGIT: r"\d",
    _c.CATEGORY_NOT_DIGIT: r"\D",
    _c.CATEGORY_SPACE: r"\s",
    _c.CATEGORY_NOT_SPACE: r"\S",
    _c.CATEGORY_WORD: r"\w",
    _c.CATEGORY_NOT_WORD: r"\W",
}
_AT_TEXT = {
    _c.AT_BEGINNING: "^",
    _c.AT_BEGINNING_STRING: r"\A",
    _c.AT_END: "$",
    _c.AT_END_STRING: r"\Z",
    _c.AT_BOUNDARY: r"\b",
    _c.AT_NON_BOUNDARY: r"\B",
}

# Instruction opcodes of the VM program.
CHAR, SPLIT, JMP, ASSERT, MATCH = range(5)


def _char(code: int) -> str:
    """A character as a `re` escape usable inside and outside classes."""
    return f"\\U{code:08x}"


class CharTest:
    """Does one character match a single-character node? Answered by `re` on a compiled class, memoized.

    `pattern` is the one-character regex (a literal escape, `.` or a class) and `flags` its flags.
    """

    __slots__ = ("fullmatch", "memo", "pattern", "flags")

    def __init__(self, pattern: str, flags: int):
        self.pattern = pattern
        self.flags = flags & _PRED_FLAGS
        self.fullmatch = re.compile(pattern, self.flags).fullmatch
        self.memo: dict[str, bool] = {}

    def __call__(self, ch: str) -> bool:
        found = self.memo.get(ch)
        if found is None:
            found = self.memo[ch] = self.fullmatch(ch) is not None
        return found


@dataclass(frozen=True)
class ScanResult:
    """Outcome of scanning a regex from `start` to the end of the text.

    match_end: where `re.match(pattern, text, start)` ends on the current text (None: no match).
    can_extend: some path of higher priority than that match is still running at the end of the
    text and can still reach a match, so more text could give a longer (different) match.
    """

    match_end: Optional[int]
    can_extend: bool


class _Program:
    """A compiled VM program: instructions plus, per instruction, whether MATCH is reachable."""

    def __init__(self, code: list, pattern: str):
        self.code = code
        self.pattern = pattern
        self.live = self._liveness()

    def _liveness(self) -> list[bool]:
        """live[pc]: MATCH can be reached from pc (assertions and characters assumed passable)."""
        n = len(self.code)
        preds: list[list[int]] = [[] for _ in range(n)]
        for pc, ins in enumerate(self.code):
            op = ins[0]
            if op == SPLIT:
                preds[ins[1]].append(pc)
                preds[ins[2]].append(pc)
            elif op == JMP:
                preds[ins[1]].append(pc)
            elif op in (CHAR, ASSERT):
                preds[pc + 1].append(pc)
        live = [False] * n
        stack = [pc for pc, ins in enumerate(self.code) if ins[0] == MATCH]
        for pc in stack:
            live[pc] = True
        while stack:
            pc = stack.pop()
            for p in preds[pc]:
                if not live[p]:
                    live[p] = True
                    stack.append(p)
        return live


class _Compiler:
    """Turns a `re._parser` tree into a VM program (Thompson construction, priorities kept)."""

    def __init__(self, pattern: str, flags: int):
        self.pattern = pattern
        self.code: list = []

    def emit(self, *ins) -> int:
        if len(self.code) >= MAX_PROGRAM:
            raise RegexError(
                f"regex too large for the reference lexer (more than {MAX_PROGRAM} VM instructions after "
                "unrolling counted repeats); use smaller repeat counts",
                self.pattern,
            )
        self.code.append(list(ins))
        return len(self.code) - 1

    def compile_seq(self, items, flags: int) -> None:
        for op, av in items:
            self.compile_node(op, av, flags)

    def compile_node(self, op, av, flags: int) -> None:
        if op is _c.LITERAL:
            self.emit(CHAR, CharTest(_char(av), flags))
        elif op is _c.NOT_LITERAL:
            self.emit(CHAR, CharTest(f"[^{_char(av)}]", flags))
        elif op is _c.ANY:
            self.emit(CHAR, CharTest(".", flags))
        elif op is _c.IN:
            self.emit(CHAR, CharTest(self.class_text(av), flags))
        elif op is _c.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            self.compile_seq(sub, (flags | add_flags) & ~del_flags)
        elif op is _c.BRANCH:
            _, alternatives = av
            jumps = []
            for i, alt in enumerate(alternatives):
                if i < len(alternatives) - 1:
                    split = self.emit(SPLIT, 0, 0)
                    self.code[split][1] = len(self.code)
                    self.compile_seq(alt, flags)
                    jumps.append(self.emit(JMP, 0))
                    self.code[split][2] = len(self.code)
                else:
                    self.compile_seq(alt, flags)
            for j in jumps:
                self.code[j][1] = len(self.code)
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            low, high, sub = av
            greedy = op is _c.MAX_REPEAT
            if high > 1 and sub.getwidth()[0] == 0:
                # `re` stops a loop after an iteration that matched nothing; a Thompson VM cannot
                # follow that rule, so such patterns would be scanned differently: refuse them.
                raise RegexError(
                    "the reference CFG lexer does not support repeating a sub-pattern that can match "
                    "the empty string (e.g. (a*)*); rewrite it without the nested optional part",
                    self.pattern,
                )
            for _ in range(low):
                self.compile_seq(sub, flags)
            if high == _MAXREPEAT:
                loop = self.emit(SPLIT, 0, 0)
                body = len(self.code)
                self.compile_seq(sub, flags)
                self.emit(JMP, loop)
                out = len(self.code)
                self.code[loop][1:] = [body, out] if greedy else [out, body]
            else:
                splits = []
                for _ in range(high - low):
                    split = self.emit(SPLIT, 0, 0)
                    splits.append(split)
                    body = len(self.code)
                    self.compile_seq(sub, flags)
                    self.code[split][1] = body
                out = len(self.code)
                for split in splits:
                    self.code[split][1:] = [self.code[split][1], out] if greedy else [out, self.code[split][1]]
        elif op is _c.AT:
            self.emit(ASSERT, _AnchorTest(_AT_TEXT[av], flags))
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            direction, sub = av
            program = compile_program(self.pattern, sub, flags)
            self.emit(ASSERT, _LookTest(program, direction, op is _c.ASSERT_NOT, sub))
        else:
            raise RegexError(
                f"the reference CFG lexer does not support {str(op).lower()} in terminal regexes "
                "(backreferences, atomic groups, possessive repeats and conditionals are unsupported)",
                self.pattern,
            )

    @staticmethod
    def class_text(items) -> str:
        parts = []
        negate = False
        for op, av in items:
            if op is _c.NEGATE:
                negate = True
            elif op is _c.LITERAL:
                parts.append(_char(av))
            elif op is _c.RANGE:
                parts.append(f"{_char(av[0])}-{_char(av[1])}")
            elif op is _c.CATEGORY:
                parts.append(_CATEGORY_TEXT[av])
            else:  # pragma: no cover - re._parser emits nothing else inside classes
                raise RegexError(f"unexpected item {op} in a character class")
        return "[" + ("^" if negate else "") + "".join(parts) + "]"


class _AnchorTest:
    """An anchor (^ $ \\A \\Z \\b \\B) evaluated by `re`; at the end of the text its outcome is open."""

    def __init__(self, text: str, flags: int):
        self.match = re.compile(text, flags & _PRED_FLAGS).match

    def __call__(self, text: str, pos: int) -> Optional[bool]:
        if self.match(text, pos) is not None:
            return True
        return None if pos >= len(text) else False  # at the end, more text may make it true


class _LookTest:
    """A lookahead or lookbehind, evaluated with the VM on the current text."""

    def __init__(self, program: _Program, direction: int, negate: bool, sub):
        self.program = program
        self.behind = direction < 0
        self.negate = negate
        low, high = sub.getwidth()
        self.width = low if low == high else None
        self.memo: dict[str, bool] = {}  # lookbehind outcome by the `width` characters before pos
        self.memoizable = not any(ins[0] == ASSERT for ins in program.code)  # no nested look-around

    def __call__(self, text: str, pos: int) -> Optional[bool]:
        """True/False on the current text; None when false now but more text could make it true."""
        if self.behind:
            if self.width is None:  # pragma: no cover - re rejects variable-width lookbehind
                return True
            start = pos - self.width
            if start < 0:
                return self.negate
            window = text[start:pos]
            found = self.memo.get(window)
            if found is None:
                found = pos in _all_match_ends(self.program, text, start, limit=pos)
                if self.memoizable and len(self.memo) < 100_000:
                    self.memo[window] = found
            return found != self.negate
        ends, open_end = _all_match_ends_open(self.program, text, pos)
        if self.negate:
            return not ends
        if ends:
            return True
        return None if open_end else False


def compile_program(pattern: str, tree, flags: int) -> _Program:
    compiler = _Compiler(pattern, flags)
    compiler.compile_seq(tree, flags)
    compiler.emit(MATCH)
    return _Program(compiler.code, pattern)


def _epsilon_reaches_assert(code, pc: int) -> bool:
    """Is an assertion reachable from pc without consuming a character?"""
    stack, seen = [pc], set()
    while stack:
        pc = stack.pop()
        if pc in seen:
            continue
        seen.add(pc)
        ins = code[pc]
        if ins[0] == ASSERT:
            return True
        if ins[0] == JMP:
            stack.append(ins[1])
        elif ins[0] == SPLIT:
            stack.extend(ins[1:3])
    return False


def closure(code, pc: int, text: str, pos: int, visited: set, out: list, pending: list) -> bool:
    """Add the threads reachable from pc without consuming text, in priority order.

    Returns True when MATCH is reached; the caller then cuts every lower-priority thread.
    Paths stopped by an assertion that more text could satisfy are put in `pending`.
    """
    stack = [pc]
    while stack:
        pc = stack.pop()
        if pc in visited:
            continue
        visited.add(pc)
        ins = code[pc]
        op = ins[0]
        if op == CHAR:
            out.append(pc)
        elif op == JMP:
            stack.append(ins[1])
        elif op == SPLIT:
            stack.append(ins[2])  # lower priority, explored after everything from ins[1]
            stack.append(ins[1])
        elif op == ASSERT:
            outcome = ins[1](text, pos)
            if outcome:
                stack.append(pc + 1)
            elif outcome is None:
                pending.append(pc + 1)
        else:  # MATCH
            return True
    return False


def _all_match_ends_open(program: _Program, text: str, start: int, limit: Optional[int] = None):
    """Every position where some path matches from `start` (no priorities), and whether paths run past the end."""
    code = program.code
    end = len(text) if limit is None else limit
    ends = set()
    threads: list = []
    if _closure_all(code, 0, text, start, set(), threads):
        ends.add(start)
    pos = start
    while threads and pos < end:
        ch = text[pos]
        nxt: list = []
        visited: set = set()
        for pc in threads:
            if pc >= 0 and code[pc][1](ch) and _closure_all(code, pc + 1, text, pos + 1, visited, nxt):
                ends.add(pos + 1)
        threads = nxt
        pos += 1
    open_end = any(pc < 0 for pc in threads) or (pos >= len(text) and any(program.live[pc] for pc in threads))
    return ends, open_end


def _all_match_ends(program: _Program, text: str, start: int, limit: int) -> set:
    return _all_match_ends_open(program, text, start, limit)[0]


def _closure_all(code, pc: int, text: str, pos: int, visited: set, out: list) -> bool:
    """Like _closure but never cuts: reports whether MATCH is reachable, keeps every thread."""
    matched = False
    stack = [pc]
    while stack:
        pc = stack.pop()
        if pc in visited:
            continue
        visited.add(pc)
        ins = code[pc]
        op = ins[0]
        if op == CHAR:
            out.append(pc)
        elif op == JMP:
            stack.append(ins[1])
        elif op == SPLIT:
            stack.append(ins[2])
            stack.append(ins[1])
        elif op == ASSERT:
            outcome = ins[1](text, pos)
            if outcome:
                stack.append(pc + 1)
            elif outcome is None:
                out.append(-1)  # undecided: counts as a path still open at the end
        else:
            matched = True
    return matched


@dataclass(frozen=True)
class Checkpoint:
    """The VM's threads after scanning text[start:pos]; lets many scans sharing that text resume there.

    `dead_after` remembers, per next character, the result when no thread survives that character
    (then nothing after it matters): most candidates of a step are settled by their first character.
    """

    text: str
    start: int
    pos: int
    threads: tuple
    match_end: Optional[int]
    dead_after: dict = field(default_factory=dict, compare=False, repr=False)


class PrefixScanner:
    """One regex, compiled for scanning text that may continue (see the module docstring)."""

    def __init__(self, pattern: str, flags: int = 0):
        try:
            tree = _sre_parse.parse(pattern, flags)
        except re.error as exc:
            raise RegexError(f"invalid regex: {exc.msg}", pattern, exc.pos) from None
        flags = tree.state.flags if hasattr(tree, "state") else flags
        self.pattern = pattern
        self.program = compile_program(pattern, tree, flags)
        # Resuming is exact only when no assertion looks at text after its position.
        self.resumable = not any(
            ins[0] == ASSERT and not (isinstance(ins[1], _LookTest) and ins[1].behind) for ins in self.program.code
        )
        # A step (threads, next character) -> (threads, matched) depends on nothing else when the
        # only assertions are simple lookbehinds: memoize steps, keyed with the characters those
        # lookbehinds can see. This makes the VM a lazily built DFA.
        behind = [ins[1] for ins in self.program.code if ins[0] == ASSERT]
        self._step_memo: Optional[dict] = None
        # `window`: characters a step can see (the current one plus what lookbehinds look at).
        self.window = 1
        if all(isinstance(t, _LookTest) and t.behind and t.memoizable and t.width is not None for t in behind):
            self._step_memo = {}
            self.window = max([t.width for t in behind] + [1])
        # When no assertion is reachable before the first character, the starting threads do not
        # depend on the text, and a first character that no thread accepts settles the scan.
        # `start_threads` (None otherwise) and `start_match` (the empty string matches) say so.
        self.start_threads: Optional[tuple] = None
        self.start_match = False
        self._first_char_dead: dict[str, bool] = {}
        if not _epsilon_reaches_assert(self.program.code, 0):
            threads: list = []
            self.start_match = closure(self.program.code, 0, "", 0, set(), threads, [])
            self.start_threads = tuple(threads)

    @property
    def steps_memoizable(self) -> bool:
        """A step (threads, next character) depends only on the characters in `window`: true
        when the regex has no assertion other than fixed-width lookbehinds (no lookahead, anchor
        or word boundary). Then the VM is a DFA over (threads, window) built lazily."""
        return self._step_memo is not None

    @property
    def code(self) -> list:
        """The VM program: instructions [op, ...] (CHAR tests are CharTest objects)."""
        return self.program.code

    @property
    def live(self) -> list:
        """live[pc]: a match is reachable from instruction pc."""
        return self.program.live

    def char_tests(self) -> list:
        """Every single-character test of the program, lookbehind programs included, in order."""
        tests: list = []
        seen: set = set()

        def visit(code) -> None:
            for ins in code:
                if ins[0] == CHAR and id(ins[1]) not in seen:
                    seen.add(id(ins[1]))
                    tests.append(ins[1])
                elif ins[0] == ASSERT and isinstance(ins[1], _LookTest):
                    visit(ins[1].program.code)

        visit(self.program.code)
        return tests

    def _run(self, text: str, pos: int, threads: list, match_end: Optional[int], pending: list, steps: int = -1):
        """Advance the threads over text[pos:] (at most `steps` characters if >= 0);
        returns (position reached, threads, match_end)."""
        code = self.program.code
        n = len(text) if steps < 0 else min(len(text), pos + steps)
        memo = self._step_memo
        window = self.window
        while threads and pos < n:
            ch = text[pos]
            key = None
            if memo is not None:
                key = (tuple(threads), text[max(0, pos + 1 - window) : pos + 1])
                hit = memo.get(key)
                if hit is not None:
                    threads, matched = hit
                    if matched:
                        match_end = pos + 1
                    pos += 1
                    continue
            nxt: list = []
            visited: set = set()
            matched = False
            for pc in threads:
                if code[pc][1](ch) and closure(code, pc + 1, text, pos + 1, visited, nxt, pending):
                    matched = True
                    match_end = pos + 1
                    break  # a match: every lower-priority thread is cut
            if key is not None and len(memo) < 200_000:
                memo[key] = (tuple(nxt), matched)
            threads = nxt
            pos += 1
        return pos, list(threads), match_end

    def _begin(self, text: str, start: int, pending: list):
        threads: list = []
        match_end = start if closure(self.program.code, 0, text, start, set(), threads, pending) else None
        return threads, match_end

    def checkpoint(self, text: str, start: int = 0) -> Optional[Checkpoint]:
        """Threads after text[start:], for scans of longer texts starting with `text`; None if not resumable."""
        if not self.resumable:
            return None
        threads, match_end = self._begin(text, start, [])
        pos, threads, match_end = self._run(text, start, threads, match_end, [])
        return Checkpoint(text, start, pos, tuple(threads), match_end)

    def scan(self, text: str, start: int = 0, checkpoint: Optional[Checkpoint] = None) -> ScanResult:
        """Match at `start` like `re.match(pattern, text[...])`, and say whether more text could extend it.

        Text before `start` is visible to lookbehinds, as with a compiled pattern's match(text, pos).
        A `checkpoint` taken on a prefix of `text` (same start) skips re-scanning that prefix.
        """
        pending: list = []
        if checkpoint is not None and checkpoint.start == start and text.startswith(checkpoint.text):
            if not checkpoint.threads:  # every path ended inside the checkpointed text
                return ScanResult(checkpoint.match_end, False)
            pos, threads, match_end = checkpoint.pos, list(checkpoint.threads), checkpoint.match_end
            if pos < len(text):
                ch = text[pos]
                known = checkpoint.dead_after.get(ch)
                if known is not None:
                    return known
                pos, threads, match_end = self._run(text, pos, threads, match_end, pending, steps=1)
                if not threads and not pending:
                    result = ScanResult(match_end, False)
                    if len(checkpoint.dead_after) < 10_000:
                        checkpoint.dead_after[ch] = result
                    return result
        elif self.start_threads is not None and start < len(text):
            ch = text[start]
            match_end = start if self.start_match else None
            if self._first_char_dead.get(ch):
                return ScanResult(match_end, False)
            code = self.program.code
            if not any(code[pc][1](ch) for pc in self.start_threads):
                if len(self._first_char_dead) < 10_000:
                    self._first_char_dead[ch] = True
                return ScanResult(match_end, False)
            threads, pos = list(self.start_threads), start
        else:
            threads, match_end = self._begin(text, start, pending)
            pos = start
        pos, threads, match_end = self._run(text, pos, threads, match_end, pending)
        live = self.program.live
        can_extend = (pos >= len(text) and any(live[pc] for pc in threads)) or any(live[pc] for pc in pending)
        return ScanResult(match_end, can_extend)

    def __repr__(self) -> str:
        return f"PrefixScanner({self.pattern!r})"
