"""A Lark grammar as the CFG guides see it: the LALR parser, its contextual lexer, terminal scanners.

Everything that touches Lark's internals lives here, so the guides ask plain questions: which
terminals may the parser take next, what does Lark's lexer match at a position, what is the
parser state after a terminal. Each terminal's regex is also compiled for `scanner.PrefixScanner`
(the regex VM that knows whether a match could still grow), so unsupported regexes fail early.
Terminals with lookaheads are refused (GrammarError): a lookahead reads the text of the terminals
after it, and a negative one true now can be falsified by text not generated yet.

Lark's contextual lexer is built without interegular's terminal-collision report: outside
strict mode that report is only a logged warning (the guides follow Lark's own match either
way), and it dominated start-up (seconds to minutes on schema grammars, whose terminals
json_schema.grammar has already proved unambiguous). Lark's other lexer checks still run. The
same report is off while Lark builds its own parser of grammar text (`_quiet_meta_parser`).

Start-up: parsers are kept by grammar text (`build_lark`; the JSON Schema grammar path's check
builds the one its guide then uses) and terminal scanners by regex (`shared_scanner`); Lark's
FOLLOW sets, which its LALR analysis never reads, are not computed (`LazyFollow`).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping
from typing import Any, Optional

from lark import Lark, Token
from lark.exceptions import ConfigurationError, LarkError, LexError, UnexpectedToken
from lark.lexer import ContextualLexer, UnlessCallback
from lark.parsers import grammar_analysis, lalr_parser

try:  # lark >= 1.3 lexes TextSlice objects; earlier versions take the str itself
    from lark.utils import TextSlice

    def lexer_text(text: str) -> Any:
        """What Lark's lexer `match` takes for `text` (a TextSlice in lark >= 1.3)."""
        return TextSlice(text, 0, len(text))

except ImportError:  # pragma: no cover - lark 1.2

    def lexer_text(text: str) -> Any:
        """What Lark's lexer `match` takes for `text` (the str itself before lark 1.3)."""
        return text


from ...errors import ArgumentError, GrammarError, TokenguideError
from ...grammars import GRAMMAR_PATH
from ...regex.sre import constants as sre_constants
from ...regex.sre import parse as sre_parse
from .lalr import FastLalrAnalyzer
from .lru import LRU
from .scanner import PrefixScanner

__all__ = ["LarkGrammar", "LazyFollow", "QuietContextualLexer", "build_lark", "clear_lark_cache", "first_and_nullable",
           "lexer_text", "parse_table", "shared_scanner"]

_ACCEPTS_CACHE_LIMIT = 20_000


class QuietContextualLexer(ContextualLexer):
    """Lark's contextual lexer, validated as Lark does but without the interegular collision
    report (a logged warning outside strict mode; see the module docstring)."""

    def __init__(self, conf: Any, states: Any, always_accept: Any = ()) -> None:
        if not conf.skip_validation:
            names = {t.name for t in conf.terminals}
            for t in conf.terminals:
                try:
                    conf.re_module.compile(t.pattern.to_regexp(), conf.g_regex_flags)
                except conf.re_module.error:
                    raise LexError(f"Cannot compile token {t.name}: {t.pattern}") from None
                if t.pattern.min_width == 0:
                    raise LexError(f"Lexer does not allow zero-width terminals. ({t.name}: {t.pattern})")
            if not set(conf.ignore) <= names:
                raise LexError(f"Ignore terminals are not defined: {set(conf.ignore) - names}")
            conf = copy.copy(conf)
            conf.skip_validation = True
        super().__init__(conf, states, always_accept)


def first_and_nullable(rules: Any) -> tuple[dict, set]:
    """FIRST (symbol -> first terminals) and NULLABLE of Lark rules, the least fixed point that
    Lark's `calculate_sets` computes, without its quadratic prefix slices (one pass per rule)."""
    symbols = {sym for rule in rules for sym in rule.expansion} | {rule.origin for rule in rules}
    first = {sym: ({sym} if sym.is_term else set()) for sym in symbols}
    nullable: set = set()
    changed = True
    while changed:
        changed = False
        for rule in rules:
            target = first[rule.origin]
            for sym in rule.expansion:
                add = first[sym]
                if not add <= target:
                    target |= add
                    changed = True
                if sym not in nullable:
                    break
            else:
                if rule.origin not in nullable:
                    nullable.add(rule.origin)
                    changed = True
    return first, nullable


class LazyFollow(Mapping):
    """Lark's FOLLOW sets, computed by Lark's own `calculate_sets` only if something reads them
    (its LALR analysis never does: FOLLOW is for Earley, and costs most of the analysis)."""

    def __init__(self, rules: Any, original: Any) -> None:
        self._rules, self._original, self._sets = rules, original, None

    def _follow(self) -> dict:
        if self._sets is None:
            self._sets = self._original(self._rules)[1]
        return self._sets

    def __getitem__(self, key: Any) -> Any:
        return self._follow()[key]

    def __iter__(self) -> Any:
        return iter(self._follow())

    def __len__(self) -> int:
        return len(self._follow())


_sets_lock = threading.Lock()


def _quiet_meta_parser() -> None:
    """Build Lark's own parser of grammar text (made on its first use, then kept) with the
    interegular collision report off: that report compares Lark's ~30 meta-grammar terminals
    pairwise, a warning nobody sees, 0.7 s of the first grammar in every process. Call locked."""
    from lark import lexer as lark_lexer
    from lark import load_grammar

    get_parser = getattr(load_grammar, "_get_parser", None)
    if get_parser is None or hasattr(get_parser, "cache"):
        return
    saved = getattr(lark_lexer, "has_interegular", False)
    lark_lexer.has_interegular = False
    try:
        get_parser()
    finally:
        lark_lexer.has_interegular = saved


def _lark(text: str, strict: bool = False) -> Lark:
    """Lark's LALR parser with the quiet contextual lexer (Lark's own if its version lacks the hook).

    While it is built, Lark's `grammar_analysis.calculate_sets` is replaced by one returning the
    same FIRST and NULLABLE (`first_and_nullable`) and a `LazyFollow`, and its LALR analyzer by
    `FastLalrAnalyzer`: exactly Lark's tables, a fraction of the time (0.5 s -> 3 ms on a
    300-rule schema grammar; compose-spec's grammar, 10,645 rules: 400 s -> 3 s, bench_lalr.py)."""
    options: dict[str, Any] = dict(parser="lalr", lexer="contextual", propagate_positions=False,
                                   maybe_placeholders=False, import_paths=[GRAMMAR_PATH], strict=strict)
    original = getattr(grammar_analysis, "calculate_sets", None)
    analyzer = getattr(lalr_parser, "LALR_Analyzer", None)

    def calculate_sets(rules: Any) -> tuple:
        first, nullable = first_and_nullable(rules)
        return first, LazyFollow(rules, original), nullable

    with _sets_lock:
        _quiet_meta_parser()
        if original is not None:
            grammar_analysis.calculate_sets = calculate_sets
        if analyzer is not None:
            lalr_parser.LALR_Analyzer = FastLalrAnalyzer
        try:
            return Lark(text, _plugins={"ContextualLexer": QuietContextualLexer}, **options)
        except ConfigurationError as exc:  # pragma: no cover - a Lark without the `_plugins` option
            if "_plugins" not in str(exc):
                raise
            return Lark(text, **options)
        finally:
            if original is not None:
                grammar_analysis.calculate_sets = original
            if analyzer is not None:
                lalr_parser.LALR_Analyzer = analyzer


_LARK_KEEP = 8  # parsers kept by grammar text
_lark_cache = LRU()  # (text, strict) -> Lark


def build_lark(text: str, *, strict: bool = False) -> Lark:
    """Lark's LALR parser for grammar `text` (quiet contextual lexer), shared by text.

    The last `_LARK_KEEP` parsers are kept, so the grammar path's check (`strict=True`: Lark
    refuses shift/reduce conflicts instead of resolving them as shifts) and the guide built
    right after it analyse a grammar once. A strict parser also serves non-strict requests: once
    built, its tables are exactly the non-strict ones. Lark's errors propagate (nothing is kept).
    Parsers are only read once built (each parse and guide state copies what it changes)."""
    for key in ((text, True),) if strict else ((text, False), (text, True)):
        found = _lark_cache.get(key)
        if found is not None:
            return found
    found = _lark(text, strict)
    _lark_cache.put((text, strict), found, _LARK_KEEP)
    return found


def parse_table(parser: Lark) -> Any:
    """The LALR table of a Lark parser: `states[state][terminal or rule name] = (action, arg)`."""
    return parser.parser.parser._parse_table


def clear_lark_cache() -> None:
    """Forget every shared parser (and terminal scanner): later grammars are analysed anew."""
    _lark_cache.clear()
    _scanner_cache.clear()


_SCANNER_KEEP = 256  # terminal scanners kept by (regex, flags)
_scanner_cache = LRU()  # (regex, flags) -> PrefixScanner


def shared_scanner(pattern: str, flags: int) -> PrefixScanner:
    """The PrefixScanner of a terminal regex, shared by grammars with the same terminal (schema
    grammars share strings, keys and separators). Scanners only memoize what they computed."""
    key = (pattern, flags)
    found = _scanner_cache.get(key)
    if found is None:
        found = PrefixScanner(pattern, flags)
        _scanner_cache.put(key, found, _SCANNER_KEEP)
    return found


def _bundled() -> list[str]:
    """Names of the bundled grammar files (importable by the guides' grammars)."""
    import os

    return sorted(f[:-5] for f in os.listdir(GRAMMAR_PATH) if f.endswith(".lark"))


_LOOKAHEAD_FREE_KEEP = 4096
_lookahead_free: set[str] = set()  # regexes checked already (schema grammars share terminals)


def _check_no_lookahead(name: str, regex: str) -> None:
    """GrammarError when terminal `name`'s regex holds a lookahead (?=...) or (?!...)."""
    if regex in _lookahead_free:
        return
    try:
        stack = [list(sre_parse(regex))]
    except Exception:  # syntax errors are reported by the scanner, with their position
        return
    _find_lookahead(name, regex, stack)
    if len(_lookahead_free) >= _LOOKAHEAD_FREE_KEEP:
        _lookahead_free.clear()
    _lookahead_free.add(regex)


def _find_lookahead(name: str, regex: str, stack: list) -> None:
    """Raise _check_no_lookahead's GrammarError if a lookahead is in the parsed `stack`."""
    while stack:
        for op, av in stack.pop():
            if op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT) and av[0] > 0:
                found = [i for i in (regex.find("(?="), regex.find("(?!")) if i >= 0]
                where = f" at position {min(found)}" if found else ""
                raise GrammarError(
                    f"CFGGuide: terminal {name} (/{regex}/) uses a lookahead{where}: it may read the text of "
                    "the terminals after it, which the guides cannot follow exactly; write the condition "
                    "with grammar rules (or a lookbehind) instead"
                )
            if op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
                stack.append(list(av[1]))
            elif op is sre_constants.BRANCH:
                stack.extend(list(b) for b in av[1])
            elif op is sre_constants.SUBPATTERN:
                stack.append(list(av[-1]))
            elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) or op is getattr(
                sre_constants, "POSSESSIVE_REPEAT", None
            ):
                stack.append(list(av[2]))
            elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
                stack.append(list(av))
            elif op is sre_constants.GROUPREF_EXISTS:
                stack.extend(list(b) for b in av[1:] if b is not None)


class LarkGrammar:
    """A Lark grammar compiled for the guides (LALR parser, contextual lexer, no tree building).

    Attributes: `parser` (the Lark object), `lexer` (its ContextualLexer), `ignore` (names of the
    %ignore terminals), `terminals` (name -> TerminalDef), `regex_flags`, `start_state` (the
    parser state before any text).
    """

    def __init__(self, text: str):
        if not isinstance(text, str):
            raise ArgumentError(f"CFGGuide: the grammar must be a str, got {type(text).__name__}")
        self.text = text
        try:
            self.parser = build_lark(text)
        except LarkError as exc:
            raise GrammarError(f"CFGGuide: the grammar cannot be used with Lark's LALR parser: {exc}") from None
        except OSError as exc:  # %import of a grammar file that does not exist
            missing = getattr(exc, "filename", None) or exc
            raise GrammarError(
                f"CFGGuide: the grammar imports from {missing!s}, which is neither one of Lark's grammars "
                f"(common, lark, python, unicode) nor a bundled one ({', '.join(_bundled())}); "
                "fix the %import line or inline the rules"
            ) from None
        lexer = self.parser.parser.lexer
        if not isinstance(lexer, ContextualLexer):  # pragma: no cover - forced by lexer="contextual"
            raise GrammarError("CFGGuide: expected Lark's contextual lexer")
        if self.parser.options.postlex is not None:
            raise GrammarError("CFGGuide: grammars with a post-lexer (e.g. Indenter) are not supported")
        self.lexer = lexer
        self.ignore = frozenset(self.parser.lexer_conf.ignore)
        self.terminals = {t.name: t for t in self.parser.terminals}
        self._check_not_empty()
        for terminal in self.parser.terminals:
            if terminal.pattern is not None:
                _check_no_lookahead(terminal.name, terminal.pattern.to_regexp())
        self.regex_flags = self.parser.lexer_conf.g_regex_flags
        self._scanners: dict[str, PrefixScanner] = {}
        for terminal in self.parser.terminals:  # compile now so unsupported regexes fail early
            if terminal.pattern is not None:
                self.scanner(terminal.name)
        start = self.parser.parse_interactive("").parser_state
        conf = copy.copy(start.parse_conf)
        conf.callbacks = {}  # no tree building: only the state stack matters
        start.parse_conf = conf
        self._parse_conf = conf
        self.start_state = start
        self._accepts_cache: dict[tuple, frozenset] = {}

    def _check_not_empty(self) -> None:
        """Refuse a grammar whose start rule derives no text at all (`start: start`, or only
        %declare'd terminals): a guide for it could never allow anything, not even EOS."""
        productive: set[str] = set()
        changed = True
        while changed:
            changed = False
            for rule in self.parser.rules:
                name = rule.origin.name
                if name in productive:
                    continue
                if all(
                    (sym.is_term and self.terminals.get(sym.name) is not None and self.terminals[sym.name].pattern is not None)
                    or (not sym.is_term and sym.name in productive)
                    for sym in rule.expansion
                ):
                    productive.add(name)
                    changed = True
        starts = self.parser.options.start
        for start in starts if isinstance(starts, list) else [starts]:
            if start not in productive:
                declared = sorted(
                    {
                        sym.name
                        for rule in self.parser.rules
                        for sym in rule.expansion
                        if sym.is_term and getattr(self.terminals.get(sym.name), "pattern", None) is None
                    }
                )
                hint = f" (terminals declared without a pattern: {', '.join(declared)})" if declared else ""
                raise GrammarError(
                    f"CFGGuide: the grammar matches no text: rule {start!r} never derives a string of "
                    f"terminals{hint}; every rule needs an alternative that ends its recursion"
                )

    def scanner(self, name: str) -> PrefixScanner:
        """The prefix scanner of terminal `name` (compiled once)."""
        found = self._scanners.get(name)
        if found is None:
            pattern = self.terminals[name].pattern.to_regexp()
            try:
                found = self._scanners[name] = shared_scanner(pattern, self.regex_flags)
            except TokenguideError as exc:
                raise GrammarError(f"CFGGuide: terminal {name}: {exc}") from None
        return found

    def pattern_terminals(self) -> list[str]:
        """Names of the terminals that have a regex (declared-only terminals have none), sorted."""
        return sorted(name for name, t in self.terminals.items() if t.pattern is not None)

    def contextual_lexer(self, parser_state: Any) -> Any:
        """Lark's lexer for the parser state's LR state (its scanner and callbacks built)."""
        lexer = self.lexer.lexers[parser_state.position]
        lexer.scanner  # noqa: B018 - Lark builds its scanner and callbacks on first use
        return lexer

    @staticmethod
    def feed(parser_state: Any, token: Token) -> Optional[Any]:
        """A copy of `parser_state` after `token`, or None if the parser rejects it."""
        new = parser_state.copy(deepcopy_values=False)
        try:
            new.feed_token(token, token.type == "$END")
        except UnexpectedToken:
            return None
        return new

    def accepted_terminals(self, parser_state: Any) -> frozenset:
        """Terminal names the parser accepts next (Lark's InteractiveParser.accepts), '$END' included."""
        key = tuple(parser_state.state_stack)
        found = self._accepts_cache.get(key)
        if found is None:
            # The table also holds the rules' gotos; terminals are told apart by name, not by case
            # (a string terminal such as "日本" is named after its caseless text).
            choices = self._parse_conf.states[parser_state.position]
            found = frozenset(
                name
                for name in choices
                if (name in self.terminals or name == "$END") and self.feed(parser_state, Token(name, "")) is not None
            )
            if len(self._accepts_cache) >= _ACCEPTS_CACHE_LIMIT:
                self._accepts_cache.clear()
            self._accepts_cache[key] = found
        return found

    def acceptable(self, parser_state: Any) -> frozenset:
        """Terminals that may start the next lexeme: those the parser accepts, plus %ignore ones."""
        return (self.accepted_terminals(parser_state) - {"$END"}) | self.ignore

    @staticmethod
    def lark_match(lexer: Any, text: str, pos: int) -> tuple[Optional[str], Optional[str]]:
        """Lark's own lexer match at `pos` (value, type after its callbacks), or (None, None)."""
        found = lexer.match(lexer_text(text), pos)
        if not found:
            return None, None
        value, type_ = found
        callback = lexer.callback.get(type_)
        if callback is not None:
            type_ = callback(Token(type_, value)).type
        return value, type_

    @staticmethod
    def keywords_of(lexer: Any, name: str) -> tuple:
        """String terminals Lark folds into regex terminal `name` (retyped by its "unless" callback)."""
        callback = lexer.callback.get(name)
        return tuple(callback.scanner.terminals) if isinstance(callback, UnlessCallback) else ()

    def extension_acceptable(self, lexer: Any, name: str, rest: str, acceptable: frozenset) -> bool:
        """Can terminal `name`, still running past the end, end up as a token the parser accepts?

        Lark retypes a regex match equal to a string terminal's text (its "unless" callback), so a
        keyword that starts with `rest` counts too.
        """
        if name in acceptable:
            return True
        for keyword in self.keywords_of(lexer, name):
            if keyword.name in acceptable and self.scanner(keyword.name).scan(rest).can_extend:
                return True
        return False
