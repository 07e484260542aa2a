"""Lark's LALR(1) lookaheads computed on integers: the same tables in a fraction of the time.

Lark's `LALR_Analyzer` derives LALR(1) lookaheads from its LR(0) automaton the DeRemer-Pennello
way (directly-reads, reads, includes and lookback relations over nonterminal transitions, then
two transitive closures). Its `compute_includes_lookback` scans a state's whole closure once per
nonterminal transition out of it and finds each reduction's final item by comparing rules field
by field, and every relation is a set of tuples hashed through Python-level `__hash__` methods:
on grammars of a few thousand alternatives (large JSON Schemas) that takes minutes (compose-spec:
360 of 400 s). `FastLalrAnalyzer` keeps Lark's LR(0) automaton and its conflict handling
(`compute_lalr1_states`) and computes the relations between them on interned integers, with
terminal sets as bitsets, walks along rules shared from their second symbol on, and an
iterative closure (no recursion limit on long chains).

The relations are Lark's own, item for item (including its reading of `includes` from every
closure item of the transition's nonterminal); the closures are the textbook least fixed points.
`tests/test_cfg_lalr.py` compares the resulting parse tables with Lark's on the grammars the
suite builds.
"""

from __future__ import annotations

from typing import Any

from lark.grammar import Terminal
from lark.parsers.lalr_analysis import LALR_Analyzer

__all__ = ["FastLalrAnalyzer", "closure_of"]

_NEEDS = ("compute_lr0_states", "compute_lalr1_states", "lr0_start_states", "lr0_rules_by_origin", "NULLABLE")


class FastLalrAnalyzer(LALR_Analyzer):
    """Lark's LALR analyzer with the lookahead computation of this module (see its docstring)."""

    def compute_lalr(self) -> None:
        if not all(hasattr(self, name) for name in _NEEDS):  # pragma: no cover - another Lark layout
            return super().compute_lalr()
        self.compute_lr0_states()
        if not hasattr(self, "lr0_itemsets"):  # pragma: no cover - another Lark layout
            self.compute_reads_relations()
            self.compute_includes_lookback()
            self.compute_lookaheads()
        else:
            _Lookaheads(self).apply()
        self.compute_lalr1_states()
        return None


class _Lookaheads:
    """The LALR(1) lookaheads of one LR(0) automaton (see the module docstring)."""

    def __init__(self, analyzer: Any) -> None:
        self.symbols: list = []  # symbol id -> a Symbol object of that kind and name
        self._ids: dict[tuple, int] = {}
        self._by_object: dict[int, int] = {}  # id(Symbol) -> symbol id (the objects outlive this)
        self.states = list(analyzer.lr0_itemsets)
        self._index = {id(s): i for i, s in enumerate(self.states)}
        self.with_rules = {self.sid(o) for o in analyzer.lr0_rules_by_origin}
        self.nullable = {self.sid(s) for s in analyzer.NULLABLE}
        self.end = self.sid(Terminal("$END"))
        self.roots = [self._index[id(s)] for s in analyzer.lr0_start_states.values()]
        self._analyzer_rules = analyzer.lr0_rules_by_origin
        self._scan_states()

    def sid(self, symbol: Any) -> int:
        """The interned id of a Lark symbol (terminals and rules apart, by name)."""
        found = self._by_object.get(id(symbol))
        if found is None:
            key = (symbol.is_term, str(symbol.name))
            found = self._ids.get(key)
            if found is None:
                found = self._ids[key] = len(self.symbols)
                self.symbols.append(symbol)
            self._by_object[id(symbol)] = found
        return found

    def _scan_states(self) -> None:
        """Per state: transitions by symbol id, kernel items by rule origin, the symbols after the
        dots of its closure; and the nonterminal transitions, numbered.

        A closure is its kernel and every rule, dot first, of the nonterminals reached from the
        kernel's next symbols through rules' first symbols (Lark's `expand_rule`), so it is
        derived per nonterminal (`_reach`) instead of read item by item."""
        self._shapes: dict[int, tuple] = {}  # id(rule) -> shape (see _shape)
        self.rules_of: dict[int, list] = {}  # nonterminal id -> its rules' shapes
        for origin, rules in self._analyzer_rules.items():
            self.rules_of[self.sid(origin)] = [self._shape(r) for r in rules]
        self._reached: dict[int, frozenset] = {}  # nonterminal id -> first symbols of its reach
        self.trans: list[dict[int, int]] = []
        self.kernels: list[dict[int, list]] = []
        self.nexts: list[set[int]] = []
        self.nts: dict[tuple[int, int], int] = {}
        for i, state in enumerate(self.states):
            self.trans.append({self.sid(sym): self._index[id(to)] for sym, to in state.transitions.items()})
            kernel: dict[int, list] = {}
            nexts: set[int] = set()
            for rp in state.kernel:
                shape = self._shapes.get(id(rp.rule)) or self._shape(rp.rule)
                kernel.setdefault(shape[3], []).append((shape, rp.index))
                if rp.index < len(shape[0]):
                    nexts.add(shape[0][rp.index])
            for n in list(nexts & self.with_rules):
                nexts |= self._reach(n)
            self.kernels.append(kernel)
            self.nexts.append(nexts)
            for n in sorted(nexts & self.with_rules):
                self.nts[(i, n)] = len(self.nts)

    def _reach(self, nonterminal: int) -> frozenset:
        """The first symbols of the rules of every nonterminal reached from `nonterminal` through
        rules' first symbols (the symbols after the dots its expansion adds to a closure)."""
        found = self._reached.get(nonterminal)
        if found is None:
            seen, todo, firsts = {nonterminal}, [nonterminal], set()
            while todo:
                for shape in self.rules_of[todo.pop()]:
                    if shape[0]:
                        first = shape[0][0]
                        firsts.add(first)
                        if first in self.with_rules and first not in seen:
                            seen.add(first)
                            todo.append(first)
            found = self._reached[nonterminal] = frozenset(firsts)
        return found

    def _shape(self, rule: Any) -> tuple:
        """What the walks read of a rule: its symbol ids, where its all-nullable suffix starts, the
        rule, its origin's id (kept here while rules are keyed by id)."""
        expansion = tuple(self.sid(s) for s in rule.expansion)
        start = len(expansion)
        while start and expansion[start - 1] in self.nullable:
            start -= 1
        shape = self._shapes[id(rule)] = (expansion, start, rule, self.sid(rule.origin))
        return shape

    def _reads(self) -> tuple[list[int], list[list[int]]]:
        """Directly-reads bitsets and the reads relation of every nonterminal transition."""
        direct, reads = [0] * len(self.nts), [[] for _ in self.nts]
        per_state: dict[int, tuple[int, list[int]]] = {}
        for (i, s), k in self.nts.items():
            to = self.trans[i][s]
            found = per_state.get(to)
            if found is None:
                bits = 0
                for n in self.nexts[to]:
                    if n not in self.with_rules:
                        bits |= 1 << n
                found = per_state[to] = (bits, [self.nts[(to, n)] for n in sorted(self.nexts[to] & self.nullable)])
            direct[k], reads[k] = found
        for root in self.roots:
            for s in self._root_nexts(root):
                if (root, s) in self.nts:
                    direct[self.nts[(root, s)]] |= 1 << self.end
        return direct, reads

    def _root_nexts(self, root: int) -> list[int]:
        """The symbols after the dot of a start state's kernel item (its start rule's body)."""
        state = self.states[root]
        return [self.sid(rp.next) for rp in state.kernel]

    def _includes_lookback(self) -> tuple[list[list[int]], list[list[tuple]]]:
        """Lark's includes relation (who includes whom) and each transition's lookback reductions."""
        includes: list[list[int]] = [[] for _ in self.nts]
        lookback: list[list[tuple]] = [[] for _ in self.nts]
        memo: dict[tuple, tuple] = {}  # (state, id(rule), index >= 1) -> (final state, targets)
        nts, trans, with_rules = self.nts, self.trans, self.with_rules
        for (state, nonterminal), k in nts.items():
            items = [(shape, 0) for shape in self.rules_of[nonterminal]] + self.kernels[state].get(nonterminal, [])
            for shape, index in items:
                expansion, start, rule, _ = shape
                key_rule = id(rule)
                at, i, path = state, index, []
                while True:
                    if i:
                        hit = memo.get((at, key_rule, i))
                        if hit is not None:
                            final, targets = hit
                            break
                    if i == len(expansion):
                        final, targets = at, ()
                        break
                    path.append((at, i))
                    at = trans[at][expansion[i]]
                    i += 1
                for step, j in reversed(path):
                    if j + 1 >= start and expansion[j] in with_rules:
                        targets = (nts[(step, expansion[j])], *targets)
                    if j:
                        memo[(step, key_rule, j)] = (final, targets)
                for target in targets:
                    includes[target].append(k)
                if index == 0:
                    lookback[k].append((final, rule))
        return includes, lookback

    def apply(self) -> None:
        """Add every reduction's lookaheads to its state's `lookaheads`, as Lark's analysis does."""
        direct, reads = self._reads()
        read_sets = closure_of(direct, reads)
        includes, lookback = self._includes_lookback()
        follow = closure_of(read_sets, includes)
        spelled: dict[int, list] = {}
        for k, reductions in enumerate(lookback):
            bits = follow[k]
            if not bits or not reductions:
                continue
            symbols = spelled.get(bits)
            if symbols is None:
                symbols = spelled[bits] = [self.symbols[b] for b in range(bits.bit_length()) if bits >> b & 1]
            for state, rule in reductions:
                lookaheads = self.states[state].lookaheads
                for symbol in symbols:
                    lookaheads[symbol].add(rule)


def closure_of(base: list[int], relation: list[list[int]]) -> list[int]:
    """F(x) = base(x) | F(y) for every y that x relates to, the least such F (bitsets), by
    DeRemer and Pennello's traversal (strongly connected components share one set), iteratively."""
    n = len(base)
    done = n + 1  # above every stack depth
    depth = [0] * n  # 0: not visited yet; else the depth it was pushed at, lowered by its cycles
    result = list(base)
    stack: list[int] = []
    for x in range(n):
        if depth[x]:
            continue
        stack.append(x)
        depth[x] = len(stack)
        work = [[x, 0, len(stack)]]  # node, next edge, depth at push
        while work:
            frame = work[-1]
            node, edge = frame[0], frame[1]
            targets = relation[node]
            if edge < len(targets):
                frame[1] = edge + 1
                y = targets[edge]
                if depth[y] == 0:
                    stack.append(y)
                    depth[y] = len(stack)
                    work.append([y, 0, len(stack)])
                else:
                    if depth[y] < depth[node]:
                        depth[node] = depth[y]
                    result[node] |= result[y]
                continue
            work.pop()
            if depth[node] == frame[2]:  # the root of a strongly connected component
                bits = result[node]
                while True:
                    z = stack.pop()
                    depth[z] = done
                    result[z] = bits
                    if z == node:
                        break
            if work:  # back in the caller, as the recursive traversal returns
                parent = work[-1][0]
                if depth[node] < depth[parent]:
                    depth[parent] = depth[node]
                result[parent] |= result[node]
    return result
