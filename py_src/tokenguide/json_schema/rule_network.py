"""The network path: a grammar-mode emission run as a network of byte automata (regex.network).

The grammar path turns the placeholder regex into Lark EBNF, whose LALR table and contextual
lexer refuse what they cannot tell apart in one token (conflicts, colliding terminals, rules
expanding into too many alternatives). Here each rule body, string or value lexeme and number
keeps its own regex, compiled to a byte automaton (lazily), and each rule placeholder in it
becomes a call code: the language is the placeholder regex's own, with no lexer to choose
between terminals and no table to conflict. Refused when a body could read a call byte as text
(a class with control characters), holds a lookahead or an end anchor (which would look at
call codes instead of the text they stand for), or a rule is left-recursive.
"""

from __future__ import annotations

from typing import Any

from ..errors import RegexError, StateLimitError
from ..regex import parser as regex_ast
from ..regex.lazy import EagerRows, LazyByteDFA, lazy_regex
from ..regex.network import CALL_BYTES, Machine, NetworkError, RuleNetwork, call_code, code_width
from .grammar_checks import refuse
from .lexemes import lexeme_dfa
from .text import STRING

__all__ = ["network_from_placeholders"]

_CALLS = frozenset(CALL_BYTES)
_QUANTIFIERS = ("*", "+", "?", "{")  # what would make a string under a quantifier of its own
MAX_BODY_STATES = 200_000  # states of one machine's automaton (built lazily, as texts reach them)
MAX_INLINE = 5_000  # characters of a rule's text, times its callers, written into them (see _Inliner)


def network_from_placeholders(root: str, sink: Any) -> RuleNetwork:
    """The RuleNetwork of root regex `root` and the rules, lexemes and numbers of `sink` (a
    GrammarSink); refused (UnsupportedSchemaError) where it would not be exact."""
    numbers = {ch: regex for regex, ch in sink.numbers.items()}
    inline = _Inliner(sink, root)
    machines: list[Machine | None] = []
    index: dict[str, int] = {}
    todo: list[tuple[int, str]] = []

    def machine_of(ch: str) -> int:
        found = index.get(ch)
        if found is None:
            found = index[ch] = len(machines)
            machines.append(None)
            todo.append((found, ch))
        return found

    def body_machine(name: str, regex: str) -> Machine:
        regex = inline.text(regex)
        callees: list[str] = []
        for ch in dict.fromkeys(c for c in regex if c in sink.names):
            if sink.names[ch]:
                callees.append(ch)
        if STRING in regex:
            callees.append(STRING)  # one machine for every plain string: its mask walks are shared
        width = code_width(max(len(callees), 1))
        codes = {call_code(i, width): machine_of(ch) for i, ch in enumerate(callees)}
        text = _substituted(name, regex, sink, {ch: call_code(i, width) for i, ch in enumerate(callees)})
        return Machine(name, _body_automaton(name, text), width, codes)

    root_index = len(machines)
    machines.append(None)
    machines[root_index] = body_machine("start", root)
    while todo:
        i, ch = todo.pop()
        name = sink.names.get(ch, "string")
        if ch in sink.bodies:
            machines[i] = body_machine(name, sink.bodies[ch])
        elif ch in sink.lexemes:
            holes = sink.holes.get(ch, {})
            d = lexeme_dfa(sink.lexemes[ch])
            if d is None:
                raise refuse(f"the automaton of lexeme {name!r} is too large")
            codes = {bytes((cp,)): machine_of(h) for cp, h in holes.items()}
            machines[i] = Machine(name, EagerRows(d), 1, codes)
        elif ch in numbers:
            machines[i] = Machine(name, _automaton(name, numbers[ch]), 1, {})
        elif ch == STRING:
            machines[i] = Machine("string", _automaton("string", STRING), 1, {})
        else:
            raise refuse(f"placeholder {name!r} has no rule")
    try:
        return RuleNetwork([m for m in machines if m is not None], root_index)  # (all built)
    except NetworkError as exc:
        raise refuse(str(exc)) from None


class _Inliner:
    """Rule bodies with the rules they call written in, where such a rule is not recursive and
    its text, times the places that call it, stays under MAX_INLINE characters (automata do not
    grow by copies of large values): one automaton then reads what would be a chain of calls
    (an object's optional members as member rules: a configuration per member skipped, 23 at
    once in a Snowplow schema, each walked for every mask)."""

    def __init__(self, sink: Any, root: str):
        self.sink = sink
        self.bodies = sink.bodies
        uses: dict[str, int] = {}
        for text in (root, *sink.bodies.values(), *sink.lexemes.values()):
            for c in text:
                if c in sink.bodies:
                    uses[c] = uses.get(c, 0) + 1
        for holes in sink.holes.values():  # (a hole is a call from a lexeme's automaton)
            for h in holes.values():
                uses[h] = uses.get(h, 0) + 2
        self.uses = uses
        self.recursive = _recursive_rules(sink.bodies)
        self.done: dict[str, str | None] = {}  # rule placeholder -> its text with rules written in, None: too long

    def text(self, regex: str) -> str:
        """`regex` with the rules it may take written in (never inside a class or after a
        backslash: those stay placeholders, which `_substituted` refuses by name)."""
        out: list[str] = []
        escaped = in_class = False
        for c in regex:
            if not escaped and not in_class and c in self.bodies and c not in self.recursive:
                inner = self.rule(c)
                out.append(c if inner is None else "(?:" + inner + ")")
            else:
                out.append(c)
            if not escaped:
                if in_class and c == "]":
                    in_class = False
                elif c == "[":
                    in_class = True
            escaped = not escaped and c == "\\"
        return "".join(out)

    def rule(self, ch: str) -> str | None:
        if ch not in self.done:
            self.done[ch] = None  # (not recursive: never asked again while being written)
            inner = self.text(self.bodies[ch])
            self.done[ch] = inner if len(inner) * self.uses.get(ch, 1) <= MAX_INLINE else None
        return self.done[ch]


def _recursive_rules(bodies: dict[str, str]) -> set[str]:
    """The rules that may call themselves (through other rules)."""
    calls = {ch: {c for c in body if c in bodies} for ch, body in bodies.items()}
    out: set[str] = set()
    for start in calls:
        seen: set[str] = set()
        todo = list(calls[start])
        while todo:
            c = todo.pop()
            if c == start:
                out.add(start)
                break
            if c not in seen:
                seen.add(c)
                todo.extend(calls[c])
    return out


def _automaton(name: str, text: str) -> Any:
    try:
        return lazy_regex(text, max_states=MAX_BODY_STATES)
    except StateLimitError:
        raise refuse(f"the automaton of rule {name!r} is too large") from None
    except RegexError as exc:
        raise refuse(f"rule {name!r} has no automaton ({exc})") from None


def _body_automaton(name: str, text: str) -> Any:
    """The lazy automaton of a body's text with its call codes, parsed once: refused where a
    class could read a call byte as text, or where it looks ahead or anchors the end."""
    try:
        tree = regex_ast.parse(text)
    except RegexError as exc:
        raise refuse(f"rule {name!r} has no automaton ({exc})") from None
    _check_tree(name, tree)
    try:
        return LazyByteDFA(tree, max_states=MAX_BODY_STATES, pattern=text)
    except StateLimitError:
        raise refuse(f"the automaton of rule {name!r} is too large") from None
    except RegexError as exc:
        raise refuse(f"rule {name!r} has no automaton ({exc})") from None


def _substituted(name: str, regex: str, sink: Any, codes: dict[str, bytes]) -> str:
    """`regex` with each rule placeholder as its call code, each boundary placeholder (cut,
    marks) as nothing and each whole plain string (text.STRING, not under a quantifier of its
    own) as a call of the string machine when `codes` has one; refused where the text writes a
    control character itself (a call byte as text: `_literal_controls`)."""
    if _literal_controls(regex):
        raise refuse(f"rule {name!r} may read control characters as text")

    def call(code: bytes) -> str:
        return "(?:" + "".join(f"\\x{b:02x}" for b in code) + ")"

    out: list[str] = []
    in_class = escaped = False
    i, n = 0, len(regex)
    string_code = codes.get(STRING)
    while i < n:
        c = regex[i]
        if escaped:
            escaped = False
            out.append(c)
            i += 1
            continue
        if (string_code is not None and c == '"' and not in_class and regex.startswith(STRING, i)
                and regex[i + len(STRING):i + len(STRING) + 1] not in _QUANTIFIERS):
            out.append(call(string_code))
            i += len(STRING)
            continue
        if c == "\\":
            escaped = True
        elif in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
        if c in sink.names:
            if in_class:
                raise refuse(f"rule {name!r} holds a rule in a character class")
            code = codes.get(c)
            out.append("" if code is None else call(code))
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _literal_controls(regex: str) -> bool:
    """Does `regex` write a control character that is a call byte by itself (raw, or escaped:
    `\\f`, `\\v`, `\\a`, `\\x01`, `\\u0001`, an octal escape, `\\N{...}`) outside a negated
    class? Such a text would read as a call; classes that hold call bytes among others are
    refused on the parsed tree (`_check_tree`), negated classes included."""
    in_class = negated = escaped = False
    i, n = 0, len(regex)
    while i < n:
        c = regex[i]
        if ord(c) in _CALLS:
            return True
        if escaped:
            escaped = False
            if not negated:
                rest = regex[i + 1:i + 9]
                if c in "fva01234567N":
                    return True
                if c == "x" and _hex_control(rest[:2]) or c == "u" and _hex_control(rest[:4]) \
                        or c == "U" and _hex_control(rest[:8]):
                    return True
        elif c == "\\":
            escaped = True
        elif in_class:
            if c == "]":
                in_class = negated = False
        elif c == "[":
            in_class = True
            negated = regex.startswith("^", i + 1)
        i += 1
    return False


def _hex_control(digits: str) -> bool:
    try:
        return int(digits, 16) in _CALLS
    except ValueError:
        return False


def _check_tree(name: str, tree: tuple) -> None:
    """Refuse a body whose classes may read a call byte as text (a class of call bytes only is
    calls side by side), or that looks ahead or anchors the end."""
    stack = [tree]
    while stack:
        node = stack.pop()
        kind = node[0]
        if kind == "chars":
            ranges = node[1]
            if any(lo <= CALL_BYTES[-1] and hi >= CALL_BYTES[0] and any(lo <= b <= hi for b in CALL_BYTES)
                   for lo, hi in ranges) and not all(_CALLS.issuperset(range(lo, hi + 1)) for lo, hi in ranges):
                raise refuse(f"rule {name!r} may read control characters as text")
        elif kind in ("look", "end"):
            raise refuse(f"rule {name!r} holds a lookahead or an end anchor beside its calls")
        elif kind in ("seq", "alt"):
            stack.extend(node[1])
        elif kind == "rep":
            stack.append(node[1])
