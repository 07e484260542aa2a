"""A network of byte automata that call one another: a pushdown automaton over bytes.

Each machine is a byte DFA (lazy or eager, `lazy.lazy_regex`'s interface) whose text may hold
*calls*: fixed-width codes over CALL_BYTES (control bytes that no JSON text holds raw) that
stand for the whole text of another machine. Reading text, a configuration is a stack of
(machine, state) frames; at a state with a call the callee starts (its return state pushed),
at a final state of a callee the frame returns. Several configurations may be live at once
(alternatives that read the same text), so the network runs on *sets* of stacks, a breadth-
first simulation that needs no lookahead and no LALR table: exact for any network whose
machines are not left-recursive (refused when built).
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["CALL_BYTES", "Machine", "NetworkError", "RuleNetwork", "Stack", "call_code"]

#: the bytes of call codes: control characters other than JSON whitespace and 0x00/0x1F
CALL_BYTES = bytes(cp for cp in range(1, 0x1F) if cp not in (0x09, 0x0A, 0x0D))
_CALL_SET = frozenset(CALL_BYTES)

#: a configuration: (machine index, state, the stack below or None), immutable and hashable
Stack = tuple


class NetworkError(ValueError):
    """A network that cannot be run exactly (left recursion, a code out of range)."""


def call_code(index: int, width: int) -> bytes:
    """The code of callee number `index` among a machine's callees, `width` bytes long."""
    out = []
    for _ in range(width):
        index, digit = divmod(index, len(CALL_BYTES))
        out.append(CALL_BYTES[digit])
    if index:
        raise NetworkError(f"callee {index} needs more than {width} code bytes")
    return bytes(reversed(out))


def code_width(callees: int) -> int:
    """Bytes per call code for a machine with `callees` distinct callees."""
    width = 1
    while len(CALL_BYTES) ** width < callees:
        width += 1
    return width


class Machine:
    """One automaton of a network: `dfa` (row/is_final/initial 0), its callees by code."""

    __slots__ = ("name", "dfa", "width", "codes", "_calls")

    def __init__(self, name: str, dfa: Any, width: int, codes: dict[bytes, int]):
        self.name = name
        self.dfa = dfa
        self.width = width
        self.codes = codes  # call code -> callee machine index
        self._calls: dict[int, tuple] = {}

    def calls(self, state: int) -> tuple:
        """The calls possible at `state`: ((callee, state after the call), ...)."""
        found = self._calls.get(state)
        if found is None:
            out: list[tuple[int, int]] = []
            frontier = [(state, b"")]
            for _ in range(self.width):
                nxt = []
                for q, code in frontier:
                    row = self.dfa.row(q)
                    for b in CALL_BYTES:
                        t = row[b]
                        if t >= 0:
                            nxt.append((t, code + bytes((b,))))
                frontier = nxt
            for q, code in frontier:
                callee = self.codes.get(code)
                if callee is None:
                    raise NetworkError(f"machine {self.name!r} reads call code {code!r}, which names no callee")
                out.append((callee, q))
            found = self._calls[state] = tuple(out)
        return found


class RuleNetwork:
    """Machines calling one another; `root` is where every text starts (and must end)."""

    def __init__(self, machines: list[Machine], root: int):
        self.machines = machines
        self.root = root
        self.why = ""  # what made the caller choose this network (for reports)
        self._first: dict[int, frozenset | None] = {}
        self._plain: dict[tuple[int, int], bool] = {}
        self._check_left_recursion()

    # -- construction checks ------------------------------------------------------------------
    def nullable(self, m: int) -> bool:
        """May machine m read the empty text (a rule of optional parts)?"""
        return self.machines[m].dfa.is_final(0)

    def _left_callees(self, m: int) -> set[int]:
        """Machines that may start at the start of machine `m`, before any byte of its own
        (after callees that read nothing)."""
        out: set[int] = set()
        todo, seen = [0], {0}
        while todo:
            q = todo.pop()
            for callee, r in self.machines[m].calls(q):
                out.add(callee)
                if self.nullable(callee) and r not in seen:
                    seen.add(r)
                    todo.append(r)
        return out

    def _check_left_recursion(self) -> None:
        """Refuse a machine that may call itself before reading a byte: its stacks would grow
        without end."""
        graph = {m: self._left_callees(m) for m in range(len(self.machines))}
        state: dict[int, int] = {}  # 1: on the path, 2: done
        for start in graph:
            if state.get(start):
                continue
            path = [(start, iter(graph[start]))]
            state[start] = 1
            while path:
                m, it = path[-1]
                nxt = next(it, None)
                if nxt is None:
                    state[m] = 2
                    path.pop()
                elif state.get(nxt) == 1:
                    raise NetworkError(f"rule {self.machines[nxt].name!r} is left-recursive (it may call itself "
                                       "before reading a byte)")
                elif not state.get(nxt):
                    state[nxt] = 1
                    path.append((nxt, iter(graph[nxt])))

    # -- running ------------------------------------------------------------------------------
    def first_bytes(self, m: int) -> frozenset | None:
        """The bytes machine `m`'s text may start with (its own, or its first callees'); None
        when it may read nothing (what follows in the caller may come first)."""
        if m in self._first:
            return self._first[m]
        machine = self.machines[m]
        found: frozenset | None = None
        if not machine.dfa.is_final(0):
            row = machine.dfa.row(0)
            out = {b for b in range(256) if row[b] >= 0 and b not in _CALL_SET}
            for callee, _ in machine.calls(0):
                sub = self.first_bytes(callee)
                if sub is None:
                    out = None
                    break
                out |= sub
            found = None if out is None else frozenset(out)
        self._first[m] = found
        return found

    def plain(self, m: int, q: int, bottom: bool) -> bool:
        """Is state q of machine m one where only its own bytes may come (no call, no return)?"""
        key = (m, q)
        found = self._plain.get(key)
        if found is None:
            found = self._plain[key] = not self.machines[m].calls(q)
        return found and (bottom or not self.machines[m].dfa.is_final(q))

    def start(self) -> frozenset:
        """The configurations before any byte."""
        return frozenset({(self.root, 0, None)})

    def step(self, stacks: Iterable[Stack], byte: int) -> frozenset:
        """The configurations after `byte` (empty: the text can no longer be completed)."""
        out: set = set()
        if byte in _CALL_SET:
            return frozenset()
        seen: set = set()
        for st in stacks:
            self._consume(st, byte, out, seen)
        return frozenset(out)

    def _consume(self, st: Stack, byte: int, out: set, seen: set) -> None:
        """Read `byte` from `st`: in its machine, or entering a call, or after returning
        (`seen`: configurations met before this byte, so that empty calls cannot loop)."""
        if st in seen:
            return
        seen.add(st)
        m, q, below = st
        machine = self.machines[m]
        t = machine.dfa.row(q)[byte]
        if t >= 0:
            out.add((m, t, below))
        for callee, r in machine.calls(q):
            first = self.first_bytes(callee)
            if first is None or byte in first:
                self._consume((callee, 0, (m, r, below)), byte, out, seen)
        if below is not None and machine.dfa.is_final(q):
            self._consume(below, byte, out, seen)

    def walk(self, stacks: Iterable[Stack], data: bytes) -> frozenset:
        cur = frozenset(stacks)
        for b in data:
            cur = self.step(cur, b)
            if not cur:
                break
        return cur

    def can_end(self, stacks: Iterable[Stack]) -> bool:
        """May the text end here (every frame returns, the root machine in a final state; calls
        of callees that read nothing taken on the way)?"""
        seen: set = set()
        return any(self._ends(st, seen) for st in stacks)

    def _ends(self, st: Stack, seen: set) -> bool:
        if st in seen:
            return False
        seen.add(st)
        m, q, below = st
        machine = self.machines[m]
        if machine.dfa.is_final(q) and (below is None or self._ends(below, seen)):
            return True
        return any(self.nullable(callee) and self._ends((m, r, below), seen) for callee, r in machine.calls(q))

    def accepts(self, data: bytes) -> bool:
        """Does the network read all of `data` from its start and end there?"""
        return self.can_end(self.walk(self.start(), data))
