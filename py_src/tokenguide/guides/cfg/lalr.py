"""Lark's LALR(1) parse tables built on interned integers: the same tables in a fraction of the time.

Lark's `LALR_Analyzer` builds the LR(0) automaton over sets of `RulePtr` items and derives
LALR(1) lookaheads the DeRemer-Pennello way (directly-reads, reads, includes and lookback
relations over nonterminal transitions, then two transitive closures). Every item, set and
relation there is hashed through Python-level `__hash__`/`__eq__` methods, and its
`compute_includes_lookback` scans a state's whole closure once per nonterminal transition out of
it: on grammars of a few thousand alternatives (large JSON Schemas) that takes minutes
(compose-spec: 400 s). `FastLalrAnalyzer` builds the same automaton and relations on integers:
symbols and items interned, a state's closure derived from the nonterminals its kernel reaches
through rules' first symbols (Lark's `expand_rule`) rather than listed, terminal sets as bitsets,
walks along rules shared from their second symbol on, an iterative closure (no recursion limit),
and then resolves conflicts as Lark's `compute_lalr1_states` does (rule priorities, Shift/Reduce
refused when strict else shifted, Reduce/Reduce refused) into Lark's `IntParseTable`.

The relations are Lark's own, item for item (including its reading of `includes` from every
closure item of the transition's nonterminal); the closures are the textbook least fixed points.
States are numbered breadth-first from the start states, in symbol order: the table is the same
on every run (Lark's numbering follows object addresses). `tests/test_cfg_lalr.py` compares the
tables with Lark's on the package's grammars, schema grammars and random grammars.
"""

from __future__ import annotations

from typing import Any

from lark.exceptions import GrammarError
from lark.grammar import Terminal
from lark.parsers.lalr_analysis import LALR_Analyzer, IntParseTable, Reduce, Shift

__all__ = ["FastLalrAnalyzer", "Lr0Automaton", "canonical_table", "closure_of"]

_NEEDS = ("lr0_start_states", "lr0_rules_by_origin", "NULLABLE", "strict", "debug")


class FastLalrAnalyzer(LALR_Analyzer):
    """Lark's LALR analyzer with this module's construction (see its docstring)."""

    def compute_lalr(self) -> None:
        if self.debug or not all(hasattr(self, name) for name in _NEEDS):  # pragma: no cover - Lark's own
            return super().compute_lalr()
        starts = {start: next(iter(state.kernel)).rule for start, state in self.lr0_start_states.items()}
        automaton = Lr0Automaton(self.lr0_rules_by_origin, starts, self.NULLABLE)
        self.parse_table = automaton.table(_lookaheads(automaton), self.strict)
        return None


class Lr0Automaton:
    """The LR(0) automaton of a Lark grammar on integers (see the module docstring).

    `states[i]` is a kernel (sorted item ids), `trans[i]` maps symbol ids to states; an item is
    a rule and a dot position, numbered `base[rule] + dot`."""

    def __init__(self, rules_by_origin: Any, starts: dict[str, Any], nullable: Any) -> None:
        self.symbols: list = []  # symbol id -> a Symbol object of that kind and name
        # symbol id -> (is terminal, name): the order states and conflicts are visited in, the
        # same in every run (ids follow the order symbols are met in, which set iteration
        # under PYTHONHASHSEED may change)
        self.keys: list[tuple] = []
        self._ids: dict[tuple, int] = {}
        self._by_object: dict[int, int] = {}  # id(Symbol) -> symbol id (the objects outlive this)
        self.rules: list = []
        self.shapes: list[tuple] = []  # rule index -> (expansion ids, nullable suffix start, rule, origin id)
        self.rules_of: dict[int, list[int]] = {}  # nonterminal id -> its rule indices
        rule_index: dict[int, int] = {}
        self.nullable = {self.sid(s) for s in nullable}
        for origin, rules in rules_by_origin.items():
            for rule in rules:
                rule_index[id(rule)] = len(self.rules)
                self.rules_of.setdefault(self.sid(origin), []).append(len(self.rules))
                self.rules.append(rule)
        self._items()
        self.with_rules = set(self.rules_of)
        self.end = self.sid(Terminal("$END"))
        self._reached: dict[int, frozenset] = {}
        # nonterminal -> first symbol -> its rules starting with it (empty rules: `empty_rules`)
        self.by_first: dict[int, dict[int, list[int]]] = {}
        self.empty_rules: dict[int, list[int]] = {}
        for a, rules in self.rules_of.items():
            groups: dict[int, list[int]] = {}
            for r in rules:
                if self.shapes[r][0]:
                    groups.setdefault(self.shapes[r][0][0], []).append(r)
                else:
                    self.empty_rules.setdefault(a, []).append(r)
            self.by_first[a] = groups
        self.states: list[tuple[int, ...]] = []
        self.trans: list[dict[int, int]] = []
        self.nexts: list[set[int]] = []
        self.start_states: dict[str, int] = {}
        self.end_items = {name: self.base[rule_index[id(rule)]] + len(rule.expansion) for name, rule in starts.items()}
        self._build({name: (self.base[rule_index[id(rule)]],) for name, rule in starts.items()})

    def _items(self) -> None:
        """Each rule's shape, and its items: `base[rule] + dot` for dot 0..len, with the rule and
        the symbol after the dot (-1 at the end) of each."""
        self.base: list[int] = []
        self.item_rule: list[int] = []
        self.item_next: list[int] = []
        for r, rule in enumerate(self.rules):
            expansion = tuple(self.sid(x) for x in rule.expansion)
            start = len(expansion)
            while start and expansion[start - 1] in self.nullable:
                start -= 1
            self.shapes.append((expansion, start, rule, self.sid(rule.origin)))
            self.base.append(len(self.item_rule))
            for dot in range(len(expansion) + 1):
                self.item_rule.append(r)
                self.item_next.append(expansion[dot] if dot < len(expansion) else -1)

    def _build(self, start_kernels: dict[str, tuple[int, ...]]) -> None:
        """The states reachable from the start kernels, breadth-first, transitions in symbol-name
        order; a state's closure is its kernel and the rules, dot first, of the nonterminals its
        kernel's next symbols reach (`_reach`)."""
        index: dict[tuple, int] = {}
        for name, kernel in start_kernels.items():
            if kernel not in index:
                index[kernel] = len(self.states)
                self.states.append(kernel)
            self.start_states[name] = index[kernel]
        item_next, base, with_rules = self.item_next, self.base, self.with_rules
        i = 0
        while i < len(self.states):
            groups: dict[int, list[int]] = {}
            reached: set[int] = set()
            for item in self.states[i]:
                x = item_next[item]
                if x >= 0:
                    groups.setdefault(x, []).append(item + 1)
                    if x in with_rules:
                        reached |= self._reach(x)
            for b in reached:
                for x, rules in self.by_first[b].items():
                    groups.setdefault(x, []).extend(base[r] + 1 for r in rules)
            row: dict[int, int] = {}
            for x in sorted(groups, key=self.keys.__getitem__):
                kernel = tuple(sorted(groups[x]))
                to = index.get(kernel)
                if to is None:
                    to = index[kernel] = len(self.states)
                    self.states.append(kernel)
                row[x] = to
            self.trans.append(row)
            self.nexts.append(set(groups))
            i += 1

    def sid(self, symbol: Any) -> int:
        """The interned id of a Lark symbol (terminals and rules apart, by name)."""
        found = self._by_object.get(id(symbol))
        if found is None:
            key = (symbol.is_term, str(symbol.name))
            found = self._ids.get(key)
            if found is None:
                found = self._ids[key] = len(self.symbols)
                self.symbols.append(symbol)
                self.keys.append(key)
            self._by_object[id(symbol)] = found
        return found

    def _reach(self, nonterminal: int) -> frozenset:
        """The nonterminals reached from `nonterminal` through rules' first symbols (itself too):
        the rules a closure holds, dot first, once `nonterminal` follows one of its dots."""
        found = self._reached.get(nonterminal)
        if found is None:
            seen, todo = {nonterminal}, [nonterminal]
            while todo:
                for first in self.by_first[todo.pop()]:
                    if first in self.with_rules and first not in seen:
                        seen.add(first)
                        todo.append(first)
            found = self._reached[nonterminal] = frozenset(seen)
        return found

    def table(self, reductions: list[dict[int, set]], strict: bool) -> IntParseTable:
        """Lark's parse table from the lookaheads `reductions[state][terminal] = rule indices`, with Lark's
        conflict rules (`LALR_Analyzer.compute_lalr1_states`)."""
        states: dict[int, dict[str, tuple]] = {}
        collisions = []
        for i, row in enumerate(self.trans):
            actions = {self.symbols[x].name: (Shift, to) for x, to in row.items()}
            for la in sorted(reductions[i], key=self.keys.__getitem__):
                chosen = reductions[i][la]
                rules = {self.rules[r] for r in chosen} if len(chosen) > 1 else {self.rules[next(iter(chosen))]}
                if len(rules) > 1:
                    ranked = sorted(((r.options.priority or 0, r) for r in rules), key=lambda p: p[0], reverse=True)
                    if ranked[0][0] > ranked[1][0]:
                        rules = {ranked[0][1]}
                    else:
                        collisions.append((self.symbols[la], rules))
                        continue
                (rule,) = rules
                if la in row:
                    if strict:
                        raise GrammarError(f"Shift/Reduce conflict for terminal {self.symbols[la].name}. "
                                           f"[strict-mode]\n * {rule}\n")
                else:
                    actions[self.symbols[la].name] = (Reduce, rule)
            states[i] = actions
        if collisions:
            raise GrammarError("\n\n".join(
                "Reduce/Reduce collision in %s between the following rules: %s"
                % (la, "".join("\n\t- " + str(r) for r in sorted(rules, key=str))) for la, rules in collisions))
        ends = {}
        for i, kernel in enumerate(self.states):
            for name, item in self.end_items.items():
                if item in kernel:
                    ends[name] = i
        return IntParseTable(states, dict(self.start_states), ends)


def _lookaheads(automaton: Lr0Automaton) -> list[dict[int, set]]:
    """Per state, per lookahead terminal id, the rules (indices) reduced there (see the module docstring)."""
    a = automaton
    nts: dict[tuple[int, int], int] = {}
    for i, nexts in enumerate(a.nexts):
        for n in sorted(nexts & a.with_rules):
            nts[(i, n)] = len(nts)
    # directly reads and reads
    direct, reads = [0] * len(nts), [[] for _ in nts]
    per_state: dict[int, tuple[int, list[int]]] = {}
    for (i, s), k in nts.items():
        to = a.trans[i][s]
        found = per_state.get(to)
        if found is None:
            bits = 0
            for n in a.nexts[to]:
                if n not in a.with_rules:
                    bits |= 1 << n
            found = per_state[to] = (bits, [nts[(to, n)] for n in sorted(a.nexts[to] & a.nullable)])
        direct[k], reads[k] = found
    for root in a.start_states.values():
        for item in a.states[root]:
            key = (root, a.item_next[item])
            if key in nts:
                direct[nts[key]] |= 1 << a.end
    read_sets = closure_of(direct, reads)
    includes, lookback = _includes_lookback(a, nts)
    follow = closure_of(read_sets, includes)
    reduced: list[dict[int, int]] = [{} for _ in a.states]  # state -> rule index -> lookahead bitset
    for k, reductions in enumerate(lookback):
        bits = follow[k]
        if bits:
            for state, r in reductions:
                row = reduced[state]
                row[r] = row.get(r, 0) | bits
    out: list[dict[int, set]] = [{} for _ in a.states]
    spelled: dict[int, list[int]] = {}
    for state, row in enumerate(reduced):
        table = out[state]
        for r, bits in row.items():
            terminals = spelled.get(bits)
            if terminals is None:
                terminals = spelled[bits] = [b for b in range(bits.bit_length()) if bits >> b & 1]
            for t in terminals:
                if t in table:
                    table[t].add(r)
                else:
                    table[t] = {r}
    return out


def _includes_lookback(a: Lr0Automaton, nts: dict[tuple[int, int], int]) -> tuple[list, list]:
    """Lark's includes relation (who includes whom) and each nonterminal transition's lookback
    reductions (final state, rule index).

    Rules read from a transition (p, A) with the dot first start with one of a few symbols X; all
    those starting with X continue from the same state goto(p, X), so the rest of their walks is
    computed once per (goto(p, X), A, X) and shared by every p leading there."""
    includes: list[list[int]] = [[] for _ in nts]
    lookback: list[list[tuple]] = [[] for _ in nts]
    trans, with_rules, shapes = a.trans, a.with_rules, a.shapes
    memo: dict[tuple, tuple] = {}  # (state, rule, dot >= 1) -> (final state, includes targets)

    def walk(at: int, r: int, i: int) -> tuple:
        expansion, start = shapes[r][0], shapes[r][1]
        path = []
        while True:
            if i:
                hit = memo.get((at, r, i))
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
                memo[(step, r, j)] = (final, targets)
        return final, targets

    # nonterminal -> [(first symbol, its rules, may the rest after it be empty)]
    by_first = {n: [(x, rs, x in with_rules and any(shapes[r][1] <= 1 for r in rs)) for x, rs in groups.items()]
                for n, groups in a.by_first.items()}
    shared: dict[tuple, tuple] = {}  # (goto state, nonterminal, first symbol) -> (lookbacks, targets)
    kernels: dict[int, dict[int, list]] = {}  # state -> origin -> kernel items (rule, dot)
    for (p, nonterminal), k in nts.items():
        found = lookback[k]
        for x, rs, first_target in by_first[nonterminal]:
            q = trans[p][x]
            rest = shared.get((q, nonterminal, x))
            if rest is None:
                finals, targets = [], set()
                for r in rs:
                    final, more = walk(q, r, 1)
                    finals.append((final, r))
                    targets.update(more)
                rest = shared[(q, nonterminal, x)] = (finals, sorted(targets))
            found.extend(rest[0])
            for target in rest[1]:
                includes[target].append(k)
            if first_target:
                includes[nts[(p, x)]].append(k)
        for r in a.empty_rules.get(nonterminal, ()):
            found.append((p, r))
        own = kernels.get(p)
        if own is None:
            own = kernels[p] = {}
            for item in a.states[p]:
                r = a.item_rule[item]
                own.setdefault(shapes[r][3], []).append((r, item - a.base[r]))
        for r, dot in own.get(nonterminal, ()):
            final, targets = walk(p, r, dot)
            for target in targets:
                includes[target].append(k)
    return includes, lookback


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


def canonical_table(table: Any, start: str = "start") -> list:
    """A Lark parse table in a form two analyzers' tables can be compared in: states numbered
    breadth-first from the start state, each a sorted list of (symbol, "shift", state) and
    (symbol, "reduce", rule origin, rule body)."""
    states = table.states
    first = table.start_states[start]
    order, queue, rows = {first: 0}, [first], []
    while queue:
        state = queue.pop(0)
        row = []
        for name in sorted(states[state]):
            action, arg = states[state][name]
            if action is Shift:
                if arg not in order:
                    order[arg] = len(order)
                    queue.append(arg)
                row.append((name, "shift", order[arg]))
            else:
                row.append((name, "reduce", arg.origin.name, tuple(s.name for s in arg.expansion)))
        rows.append(row)
    return rows
