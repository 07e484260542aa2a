"""JSON Schema to regular expression or engine grammar, exact where it claims support.

`compile_json_schema(schema)` ("auto", what `Guide.from_json_schema` runs) takes the engine path
(module `engine_grammar`: the grammar-mode emission as an ir.grammar.Grammar run by the engine)
wherever it takes the schema, and the regex path below only where the engine path refuses; both
accept the same documents where both apply, the engine path without the depth limits. Modules: `normalize` ($ref, allOf
-> Nodes), `refs` ($id bases, anchors), `emit` (regex emitter), `objects`, `any_order`, `keys`
(pattern/additional/property names), `arrays` (contains, uniqueItems), `value_sets` (finite value sets for uniqueItems),
`value_checks` (uniqueItems checked on the values, beside the regex or grammar; `order_free`: maps
inside its items), `one_of`, `logic` (not,
overlapping oneOf, if/then/else), `numbers`, `multiples` (multipleOf by remainder), `formats`, `strings` (format, pattern, lengths
together), `patterns` (ECMA `pattern`), `text`, `rule_sink` (the grammar mode's placeholders for rules), `lexemes`
(string automata), `holes` (free-form values inside value lexemes), `member_rules` (wide objects as
left-linear rules), `object_unions`/`required_sets` (unions of object branches as one chain of
members), `engine_grammar` (the engine path: the grammar-mode emission, written once without
retries, as an ir.grammar.Grammar for guides.grammar.GrammarGuide).

`build_regex_from_schema(schema)` returns a Python regex whose `re.fullmatch` language is the
set of JSON texts, in the output format below, of the instances the schema accepts. The regex
uses what tokenguide's automaton compiler reads: no backreferences or inner anchors; lookaheads
only as `text.value_difference`/`value_intersection` write them (exact for complete values,
which are prefix-free up to what may follow them), where a keyword needs a complement or an
intersection. The engine path writes string intersections (format/pattern/lengths) and whole
values with lookaheads (not, overlapping oneOf, if/then/else; value lexemes) as lexemes of the
engine (intersections and complements, module `engine_grammar`), free-form values in them
written out around holes for deeper arrays and objects (module `holes`), and refuses by name a
lookahead over a recursive $ref (not regular) or one telling free-form values apart too deep.

Output format
-------------
* Compact JSON as written by ``json.dumps(x, ensure_ascii=False, separators=(",", ":"))``.
  The whitespace pattern (default ``[ ]?``: at most one optional space, never unbounded
  whitespace) may appear where outlines-core puts it: after ``{`` and ``[``, before ``}`` and
  ``]``, and on both sides of ``:`` and ``,``; so ``json.dumps(x)`` with its default separators
  matches too. ``whitespace_pattern`` replaces it (``""``: compact only).
* Property order: the properties declared in ``properties`` come first, in the schema's order
  (with ``allOf``, the order of the subschemas; the properties an ``anyOf``/``oneOf`` branch
  adds take the place of that ``anyOf``/``oneOf`` among the others); a required property that
  is not declared comes next, in ``required`` order; then, when the schema allows other
  properties (``additionalProperties`` absent, true or a schema, or ``patternProperties``), any
  number of other properties in any order. Other keys never repeat a declared name; free-form
  objects (values of ``{}``/``true``) may repeat keys (a regex cannot check distinct keys).
  ``property_order="any"`` accepts the declared properties in every order instead: each at
  most once, required ones present, other properties anywhere among them, min/maxProperties
  exact. With compile_json_schema's value checks, any number of declared properties: a
  repetition of members, the keys seen checked beside it (module `member_keys`); else (and
  where that check cannot be exact) at most 12 declared properties per object (8 on the engine
  path, whose rules grow as 2^n), written out per set of keys seen while small and with
  lookaheads beyond.
* Strings: the canonical escaping of ``json.dumps(ensure_ascii=False)`` only: ``\\"``, ``\\\\``,
  ``\\b \\f \\n \\r \\t`` and ``\\u00XX`` (lowercase hex) for the other control characters below
  U+0020; every other character (``/`` and U+007F included) is written as itself; other valid
  JSON escapes (``\\u0041``, ``\\/``) are not accepted. ``minLength``/``maxLength`` count code
  points, an escape counts as one. ``pattern`` follows ECMA 262 (unanchored search, ASCII
  ``\\d \\w``, ``.`` excludes line terminators) and is matched against the decoded string.
* Numbers: integers without fraction or exponent and without ``-0`` (so an integer-valued float
  such as ``1.0`` is not an ``integer``); ``number`` accepts any JSON number spelling (``1``,
  ``1.0``, ``1e+16``, ``1E5``...). Within a range (minimum, maximum, multipleOf...), plain
  decimal spellings are exact, and exponent spellings (mantissa ``d.ddd``) are accepted only for
  the magnitudes json.dumps writes that way, ``|x| >= 1e16`` and ``0 < |x| < 1e-4``: whole when
  the range contains them, and per exponent, the mantissas in range, when a bound cuts them
  (``minimum: 0.00001``, ``maximum: 1e20``; with a decimal multipleOf that is unsupported). Enum/const numbers match every plain
  spelling of their value (``2``, ``2.0``, ``2.00``). Where a value is checked against a lookahead (not, overlapping
  oneOf, if), its numbers are plain decimals without ``-0`` or json.dumps' small exponent form
  (``1.5e-05``); ``1e2`` and ``1E+16`` are not accepted there.
* Depth (regex path only): recursive ``$ref`` cycles are unrolled ``max_recursion_depth``
  times, and free-form values (``{}``, ``true``, missing ``items``, additional properties
  without a schema) nest at most ``max_recursion_depth - 1`` non-empty arrays/objects deep;
  deeper instances are not accepted. "auto" takes the regex only when the engine path refuses,
  and then for such schemas with
  ``CompiledSchema.depth_capped`` true, a reason naming the refusal, and a warning. Regexes over 500,000 characters are refused (UnsupportedSchemaError).
  When a cut ``$ref`` leaves the regex path no value (an enum/const value nesting deeper than
  the unrolling), "auto" refuses (keyword ``$ref``): it reports "accepts no value" only when
  no cut was made.

Keywords
--------
Supported: type (all seven, lists, draft 3 "any"), enum, const, properties, required,
additionalProperties, patternProperties (with properties and additionalProperties: a key takes
every matching pattern's schema, a declared property also those of the patterns matching its
name, additionalProperties the rest; at most 4 distinct pattern schemas; in allOf, the
patternProperties of every subschema together, unless one side's additionalProperties would
govern keys only the other's non-false patterns match), propertyNames,
minProperties (nothing to count when the required names alone reach it), maxProperties (a count
over the members; written out, as grammar rules, or on the regex path as lookaheads when too large), items
(schema or draft 4 array), prefixItems, additionalItems,
minItems, maxItems, contains (draft 6 on) with minContains/maxContains (2019-09 on), counted
together with prefixItems and minItems/maxItems; uniqueItems when every item's values form a
finite set of at most 256 values (enum/const, boolean, null, bounded integer ranges, arrays and
closed objects of those; an item that occurs once with types no other item has may take any value,
and so may one that the others meet only in finitely many strings, booleans or null, with at most
256 arrays; at most 1,024 sets of distinct values; equality as JSON Schema's:
``1 == 1.0``, ``true != 1``, key order ignored), and otherwise, with compile_json_schema's
``value_checks``, checked on the values (module `value_checks`: items of strings, numbers
(by value), booleans, null, closed objects and arrays of those, or open objects; not
under `not`, beside contains, or where another applicable schema lets items repeat), minLength, maxLength, pattern (also with
lengths and with format: their intersection), format (below), minimum, maximum,
exclusiveMinimum, exclusiveMaximum (draft 4 booleans too), multipleOf (integers: any divisor,
with or without a range, as a digit automaton by remainder written without lookaheads, up to
50,000 characters: every divisor up to 8, 10, 12, 15, 16, 20, 24, 25, 30, 40 and every divisor
of a power of ten unbounded, any divisor over a range of a few hundred values; a non-integer
multipleOf p/q on integers is multipleOf p; numbers (decimal arithmetic): 1/q for q = 2^a 5^b up
to 1000 with at most 4 decimals (0.5, 0.25, 0.2, 0.1, 0.05, 0.01, ..., 0.0001), integer divisors
within +-1e16 and, past it, divisors of 10000 on a range unbounded that way; several multipleOf in allOf: their least common multiple), allOf (merged), anyOf,
oneOf (disjoint branches as they are: proved by types, enum/const values, a required
property with disjoint values, a required key the other branch forbids (false, or closed by
additionalProperties: false with no pattern matching it), through nested anyOf/oneOf;
overlapping ones as each branch minus the branches it may overlap, at most 8 such together), not (type lists, enum/const and required names directly; anything else by
complement), if/then/else ((base and if and then) or ((base and else) minus if)),
dependencies/dependentRequired/dependentSchemas, local $ref (JSON pointers with ~0/~1 and
percent-encoding; $id/id bases resolved per RFC 3986 to embedded resources, so remote-looking
URIs that a subschema declares resolve locally; $anchor and drafts 4-7 "#name" ids scoped to
their resource; siblings of $ref, $id included, ignored in drafts 3 to 7), boolean schemas. A
$schema naming a draft decides if/then/else (draft 7 on), dependencies (drafts 3-7),
dependentSchemas/dependentRequired (2019-09 on), const/propertyNames/contains (draft 6 on) and
prefixItems (2020-12), as that draft's validator does; without one, all apply. Complements
and intersections (not, overlapping oneOf, if, pattern with format, lengths a pattern cannot
absorb, key classes, contains, uniqueItems) are lookaheads on the regex path, only with a
whitespace pattern that matches JSON whitespace alone. The engine path writes them as lexemes
from exact automata (string intersections, value lexemes, keys without lookaheads, contains
arrays and uniqueItems arrays too many to write out as one value lexeme; see above), free-form
values in them around holes; an anyOf/oneOf of key-presence branches over declared properties
as one chain of members (json_schema.required_sets), unions of object variants sharing their
members (ifs on members' values and values told apart included) as one object
(json_schema.object_unions), a oneOf over open objects as branches told apart by their keys,
and, where a lookahead is refused, `not`/`else` of conditions on types, required names, member
and item values as an anyOf of plain schemas (json_schema.negation). One emission, no retries.

Format languages, each from its RFC's grammar (quoted letters case-insensitive): date, time,
date-time (RFC 3339 section 5.6, leap years; second 60 at any time of day), duration (RFC 3339
appendix A), email (RFC 5321 Mailbox: dot-string or quoted local part, domain or address
literal; the section 4.5.3.1 size limits are not checked), hostname (RFC 1123: labels of at most
63, total at most 253), ipv4 (dotted quad, no leading zeros), ipv6 (RFC 4291 text forms),
uri/uri-reference (RFC 3986), iri/iri-reference (RFC 3987), uri-template (RFC 6570),
json-pointer (RFC 6901), relative-json-pointer (index manipulation from 2020-12), uuid (RFC
9562). regex, idn-email and idn-hostname are refused; other formats (int32, float, ...) are
annotations.

Unsupported (UnsupportedSchemaError naming the keyword and its JSON pointer): other multipleOf
values (integer divisors whose automaton is too large, 9, 11, 13..., unbounded; other decimals
such as 0.3 or 2.5, whose multiples depend on the integer part too), unevaluatedProperties/Items
beside anyOf/oneOf/if/dependentSchemas branches that evaluate properties/items (and
unevaluatedItems beside contains; otherwise they are the merged object's additionalProperties
or items, json_schema.unevaluated), $dynamicRef/$recursiveRef where the dynamic scope matters
(embedded $id resources; in one resource they are $refs), remote $ref, uniqueItems over
unbounded item sets that other items may equal (not regular: checked on the values by
compile_json_schema where `value_checks` can be exact, refused otherwise), two different contains in one allOf, oneOf with a branch
that may overlap more than 7 others, patterns that are not regular or use inline flags, on the
engine path lookaheads over recursive $refs and value lexemes over 2,000 states (or whose
free-form values no text written out 4 levels deep tells apart), and the combinations above
that are not listed as supported.
``lenient=True`` ignores them instead and warns once with the list. Annotations and unknown
keywords (title, description, examples, default, $comment, deprecated, readOnly...) are ignored,
as the JSON Schema specification says.
"""

from __future__ import annotations

import dataclasses
import json
import re
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Literal

from ..arguments import check_bool, check_int, check_str
from ..errors import ArgumentError, StateLimitError, UnsupportedSchemaError
from .any_order import PROPERTY_ORDERS
from .emit import Emitter
from .normalize import VALUE_CHECKED_UNIQUE, Normalizer
from .numbers import int_range_regex
from .text import MAX_REGEX_CHARS, is_atom_like
from .text_counts import distinct_values_at_least
from .json_values import parse_document
from .value_checks import ValueChecks, find_violation
from ..regex.lazy import lazy_regex

__all__ = ["CompiledSchema", "build_regex_from_schema", "compile_json_schema", "int_range_regex",
           "UnsupportedSchemaError", "WHITESPACE"]

WHITESPACE = r"[ ]?"


def load_schema(schema: Any) -> dict | bool:
    """The schema as a dict or bool (JSON text is parsed); UnsupportedSchemaError otherwise."""
    if isinstance(schema, (str, bytes)):
        try:
            schema = json.loads(schema)
        except ValueError as exc:
            raise UnsupportedSchemaError(f"the schema is not valid JSON: {exc}", None, "#") from None
    if not isinstance(schema, (dict, bool)):
        raise UnsupportedSchemaError(
            f"a schema must be a JSON object or a boolean, not {type(schema).__name__}", None, "#")
    return schema


def whitespace_regex(whitespace_pattern: str | None) -> str:
    """The whitespace pattern to insert (default WHITESPACE), grouped when it needs to be."""
    if whitespace_pattern is not None:
        check_str("build_regex_from_schema", "whitespace_pattern", whitespace_pattern)
    ws = WHITESPACE if whitespace_pattern is None else whitespace_pattern
    if ws:
        try:
            re.compile(ws)
        except re.error as exc:
            raise ArgumentError(f"build_regex_from_schema: whitespace_pattern is not a valid regex: {exc}") from None
        ws = ws if is_atom_like(ws) else f"(?:{ws})"
    return ws


def build_regex_from_schema(
    schema: str | dict | bool,
    whitespace_pattern: str | None = None,
    max_recursion_depth: int = 3,
    *,
    lenient: bool = False,
    property_order: Literal["schema", "any"] = "schema",
) -> str:
    """Regex (Python `re` syntax, fullmatch) for the JSON texts of the instances `schema` accepts.

    `schema` is a JSON string, a dict or a bool. `whitespace_pattern` replaces the default
    ``[ ]?`` at the places listed in the module docstring. `max_recursion_depth` bounds how often
    a recursive ``$ref`` is unrolled and how deep free-form values nest. With `lenient`, keywords
    that cannot be expressed are ignored (listed in a warning) instead of raising
    UnsupportedSchemaError. Strings use canonical json.dumps escaping only. `property_order`:
    "schema" (declared properties in the schema's order) or "any" (every order, each key at
    most once; up to 12 declared properties per object here: compile_json_schema's value checks
    take any number).
    """
    schema = load_schema(schema)
    max_recursion_depth = check_int("build_regex_from_schema", "max_recursion_depth", max_recursion_depth, low=0)
    lenient = check_bool("build_regex_from_schema", "lenient", lenient)
    order = check_property_order("build_regex_from_schema", property_order)
    return _regex(schema, whitespace_pattern, max_recursion_depth, lenient, "build_regex_from_schema", order)[0]


def check_property_order(where: str, value: Any) -> str:
    """`value` if it is a property order ("schema" or "any"); ArgumentError otherwise."""
    if not isinstance(value, str) or value not in PROPERTY_ORDERS:
        raise ArgumentError(f"{where}: property_order must be 'schema' (keys in the schema's order) or 'any' "
                            f"(keys in any order), got {value!r:.60}")
    return value


class EmptySchemaError(UnsupportedSchemaError):
    """The UnsupportedSchemaError of a schema that accepts no value (`empty_schema_error`);
    `cut`: a recursive $ref the emitter cut at its unrolling limit (then it is not proved)."""

    cut: str | None = None


def empty_schema_error(norm: Normalizer) -> UnsupportedSchemaError:
    """The error for a schema that accepts no value, naming the first reason found."""
    if not norm.empty_reasons:
        err = EmptySchemaError("the schema accepts no value", None, "#")
    else:
        kw, ptr, why = norm.empty_reasons[0]
        hint = "; raise max_recursion_depth" if kw == "$ref" else ""
        err = EmptySchemaError(f"the schema accepts no value: {why} (keyword {kw!r} at {ptr}){hint}", None, "#")
    err.cut = norm.cuts[0] if norm.cuts else None
    return err


@dataclass(frozen=True)
class CompiledSchema:
    """What `compile_json_schema` chose: `path` is "regex" or "engine", `reason` says why, and
    `regex` (Python re, fullmatch) or `engine` (an ir.grammar.Grammar, for
    guides.grammar.GrammarGuide) holds the result.
    `depth_capped`: the regex rejects valid instances nested deeper than its limits."""

    path: str
    reason: str
    regex: str | None = None
    depth_capped: bool = False
    #: the engine path's grammar (an ir.grammar.Grammar, for guides.grammar.GrammarGuide), where `path` is "engine"
    engine: Any = None
    #: arrays whose distinct items and strings whose regex syntax the regex/grammar leaves out, to
    #: check on the values (a value_checks.ValueChecks; None: the regex/grammar alone is exact)
    checks: Any = None

    def accepts(self, text: str) -> bool:
        """Does the document `text` belong to the schema's language as compiled (the regex with
        re.fullmatch or the engine's recogniser, and the uniqueItems and regex checks on its values)?"""
        if self.path == "regex":
            ok = re.fullmatch(self.regex, text) is not None
        else:
            ok = _engine_recogniser(self).accepts_bytes(text.encode("utf-8"))
        return ok and (self.checks is None or find_violation(self.checks, parse_document(text)) is None)


def _engine_recogniser(compiled: CompiledSchema) -> Any:
    """An engine.Matcher of the compiled grammar over single bytes (kept on `compiled`), to read texts."""
    found = compiled.__dict__.get("_recogniser")
    if found is None:
        from ..engine import Matcher
        from ..vocabulary import Vocabulary

        found = Matcher(compiled.engine, Vocabulary(256, {bytes((b,)): b for b in range(256)}))
        object.__setattr__(compiled, "_recogniser", found)
    return found


def compile_json_schema(
    schema: str | dict | bool,
    whitespace_pattern: str | None = None,
    max_recursion_depth: int = 3,
    *,
    path: Literal["auto", "regex", "engine"] = "auto",
    lenient: bool = False,
    property_order: Literal["schema", "any"] = "schema",
    value_checks: bool = True,
) -> CompiledSchema:
    """Compile `schema` to an engine grammar or, where the engine path refuses it, a regex (see `_compile`).

    With `value_checks` (default), a uniqueItems no regex or grammar can express (distinct items
    from an unbounded set: strings, integers...) is left out of the language and returned as
    `CompiledSchema.checks` (json_schema.value_checks), which `Guide.from_json_schema` enforces
    token by token and `CompiledSchema.accepts` on whole documents; the regex or grammar alone then
    accepts a superset. So is `format: "regex"` (valid ECMA-262 regexes, module regex_strings),
    and on the engine path, the lengths of a patterned string whose lexeme would be too large
    (module string_lengths); and with property_order="any", the keys of objects written as a
    repetition of members (module member_keys: any number of declared properties).
    `value_checks=False` refuses such schemas (UnsupportedSchemaError; any-order objects are
    written out per set of keys seen then, up to 12 declared properties).
    """
    value_checks = check_bool("compile_json_schema", "value_checks", value_checks)
    schema = load_schema(schema)

    def item(synthetic: Any, where: str, min_items: int, drops: Any = None) -> Any:
        """The byte automaton of one item (the regex path of `synthetic`), or a refusal by name;
        `drops` (a value_checks.NestedDrops) takes the uniqueItems of arrays inside the items."""
        def refused(why: str) -> UnsupportedSchemaError:
            return UnsupportedSchemaError(f"uniqueItems checked on the values: {why} (keyword 'uniqueItems' at "
                                          f"{where})", "uniqueItems", where)
        if _recursion(synthetic, False) is not None:
            raise refused("its items are recursive")
        inner = VALUE_CHECKED_UNIQUE.set(drops)
        try:
            regex = build_regex_from_schema(synthetic, whitespace_pattern, max_recursion_depth,
                                            property_order=property_order)
        except EmptySchemaError as exc:
            if exc.cut is None:
                return None  # no item can stand there (proved): nothing to search
            raise refused(f"its items have no regex ({exc})") from None
        except UnsupportedSchemaError as exc:
            raise refused(f"its items have no regex ({exc})") from None
        finally:
            VALUE_CHECKED_UNIQUE.reset(inner)
        try:
            automaton = lazy_regex(regex)
        except StateLimitError as exc:
            raise refused(f"the automaton of its items is too large ({exc})") from None
        if min_items > 1 and not distinct_values_at_least(automaton, min_items):
            raise refused(f"minItems {min_items} distinct items may not exist")
        return automaton

    wanted = value_checks and (property_order == "any" or _mentions(
        schema, lambda d: d.get("uniqueItems") is True or d.get("format") == "regex" or "maxLength" in d
        or "minLength" in d))
    check = ValueChecks(schema, item, property_order == "any") if wanted else None
    token = VALUE_CHECKED_UNIQUE.set(check)
    try:
        compiled = _compile(schema, whitespace_pattern, max_recursion_depth, path, lenient, property_order)
    finally:
        VALUE_CHECKED_UNIQUE.reset(token)
    if check is None or not (check.dropped or check.regex_dropped or check.length_dropped or check.keys_taken):
        return compiled
    check.finish()
    return dataclasses.replace(compiled, checks=check)


def _mentions(schema: Any, holds: Callable[[dict], bool]) -> bool:
    """Does some schema object (dict) anywhere in `schema` satisfy `holds`? (Iterative: schemas nest deep.)"""
    stack = [schema]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            if holds(x):
                return True
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return False


def _compile(
    schema: Any,
    whitespace_pattern: str | None,
    max_recursion_depth: int,
    path: str,
    lenient: bool,
    property_order: str,
) -> CompiledSchema:
    """Compile `schema` on the path asked for; "auto": the engine path wherever it takes the schema.

    "auto" builds the engine path's grammar (exact, nesting without limit; what guides run) and
    takes the regex path only where the engine path refuses (a recursive $ref beside other
    keywords, a whitespace pattern other than the default or "", ...): `reason` names that refusal;
    for recursive schemas and free-form values the regex is depth-capped (`depth_capped`, a
    warning). The two paths accept the same documents where both apply. Raises
    UnsupportedSchemaError (keyword, JSON pointer) for what neither path can express.
    `property_order` as in `build_regex_from_schema` (on the regex path, "any" may need lookaheads).
    """
    if path in ("network", "grammar"):
        raise ArgumentError(f"compile_json_schema: path={path!r} was replaced by the grammar engine: pass "
                            "path='engine' (the same rules, run by one Earley recogniser)")
    if path not in ("auto", "regex", "engine"):
        raise ArgumentError(f"compile_json_schema: path must be 'auto', 'regex' or 'engine', got {path!r}")
    max_recursion_depth = check_int("compile_json_schema", "max_recursion_depth", max_recursion_depth, low=0)
    lenient = check_bool("compile_json_schema", "lenient", lenient)
    order = check_property_order("compile_json_schema", property_order)
    if path == "regex":
        regex, free = _regex(schema, whitespace_pattern, max_recursion_depth, lenient, "compile_json_schema", order)
        recursive = _recursion(schema, lenient) is not None
        capped = free or recursive
        return CompiledSchema("regex", "requested" + ("; " + _cap(max_recursion_depth, free, recursive) if capped else ""),
                              regex=regex, depth_capped=capped)
    if path == "engine":
        return CompiledSchema("engine", "requested", engine=_engine(schema, whitespace_pattern, lenient, order))
    try:
        built = _engine(schema, whitespace_pattern, lenient, order)
    except EmptySchemaError as exc:
        if exc.cut is None:  # proved: the engine path's recursion is not cut off
            raise
        refusal: UnsupportedSchemaError = exc
    except UnsupportedSchemaError as exc:
        refusal = exc
    else:
        return CompiledSchema("engine", "the engine path takes it (exact, nesting without limit)", engine=built)
    return _regex_fallback(schema, whitespace_pattern, max_recursion_depth, lenient, order, refusal)


def _regex_fallback(schema: Any, whitespace_pattern: str | None, depth: int, lenient: bool, order: str,
                    refusal: UnsupportedSchemaError) -> CompiledSchema:
    """"auto"'s regex path, where the engine path refused (`refusal`): the reason names that refusal
    and, for recursive schemas and free-form values, the depth limits (with a warning). When the
    regex path refuses too, its own refusal is raised, or the engine's where the regex was only too large."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            regex, free = _regex(schema, whitespace_pattern, depth, lenient, "compile_json_schema", order)
    except EmptySchemaError as exc:
        if exc.cut is None:
            raise
        # its depth limits, not the schema, left no value (a recursive $ref cut where a value,
        # or an enum/const value's check, goes deeper): not a verdict on the schema
        raise UnsupportedSchemaError(
            f"the regex path finds no value with recursive $refs unrolled max_recursion_depth={depth} times "
            f"(cut at {exc.cut}; raise max_recursion_depth), and engine path: {refusal}", "$ref", exc.cut) from None
    except UnsupportedSchemaError as exc:
        if "characters long" in str(exc) or "nests too deeply" in str(exc):
            raise refusal from None  # (the engine's refusal says what in the schema is wrong)
        raise
    for w in caught:
        warnings.warn(w.message, stacklevel=3)
    recursive = _recursion(schema, lenient) is not None
    where = f"keyword {refusal.keyword!r} at {refusal.pointer or '#'}" if refusal.keyword else f"at {refusal.pointer or '#'}"
    reason = f"the engine path refuses it ({refusal}{'' if where in str(refusal) else '; ' + where})"
    if not (free or recursive):
        return CompiledSchema("regex", reason, regex=regex)
    reason = f"depth-capped: {_cap(depth, free, recursive)}; {reason}"
    warnings.warn(f"compile_json_schema: the regex path is {reason}", stacklevel=3)
    return CompiledSchema("regex", reason, regex=regex, depth_capped=True)


def _cap(depth: int, free: bool, recursive: bool = True) -> str:
    """What the regex path's depth limits are, in words."""
    parts = []
    if recursive:
        parts.append(f"recursive $ref unrolled {depth} times")
    if free:
        parts.append(f"free-form values nest at most {max(depth - 1, 0)} arrays/objects deep")
    return ", ".join(parts) + " (deeper valid instances are rejected)"


def _regex(schema: Any, whitespace_pattern: str | None, depth: int, lenient: bool, caller: str,
           order: str = "schema") -> tuple[str, bool]:
    """The regex path (arguments already checked by `caller`), and whether the regex has
    depth-limited free-form values."""
    norm = Normalizer(schema, depth, lenient)
    em = Emitter(norm, whitespace_regex(whitespace_pattern), property_order=order)
    try:
        out = em.value(schema, "#")
    except RecursionError:
        raise UnsupportedSchemaError("the schema nests too deeply", None, "#") from None
    if norm.ignored:
        listed = ", ".join(f"{k} at {p}" for k, p in sorted(set(norm.ignored)))
        warnings.warn(f"{caller} ignored keywords it cannot express: {listed}", stacklevel=3)
    if out is None:
        raise empty_schema_error(norm)
    if len(out) > MAX_REGEX_CHARS:
        raise UnsupportedSchemaError(f"the regex would be {len(out):,} characters long", None, "#")
    return out, em.used_free_form


def _grammar_emission(schema: Any, whitespace_pattern: str | None, lenient: bool, norm: Any = None,
                      order: str = "schema"):
    """Run the emitter in grammar mode: (root placeholder regex, sink with the rules, normaliser)."""
    from .rule_sink import RuleSink, schema_uses_placeholders

    ws = whitespace_regex(whitespace_pattern)
    if ws not in ("", WHITESPACE):
        raise UnsupportedSchemaError(
            f"the engine path supports whitespace_pattern {WHITESPACE!r} (the default) or '' only, not {ws!r}",
            None, "#")
    if schema_uses_placeholders(schema):
        raise UnsupportedSchemaError("the engine path cannot take schemas containing characters of "
                                     "Unicode plane 15/16 (private use)", None, "#")
    norm = Normalizer(schema, 1, lenient, grammar=True) if norm is None else norm
    sink = RuleSink(ws)
    em = Emitter(norm, ws, sink, property_order=order)
    try:
        root = em.value(schema, "#")
        if root is None:  # (the rules it refers to do not matter then)
            raise empty_schema_error(norm)
        while sink.pending:
            ch, ref = sink.pending.pop(0)
            norm.ref_stack = [ref.ptr]
            body = em.value(ref.schema, ref.ptr)
            if body is None:
                raise UnsupportedSchemaError(f"the recursive schema at {ref.ptr} accepts no finite value",
                                             "$ref", ref.ptr)
            sink.bodies[ch] = body
    except RecursionError:
        raise UnsupportedSchemaError("the schema nests too deeply", None, "#") from None
    return root, sink, norm


def _recursion(schema: Any, lenient: bool) -> str | None:
    """The pointer of a recursive `$ref` target, or None when the schema has no `$ref` cycle
    (found by a grammar-mode emission, where recursive $refs are rules)."""
    if not _has_ref(schema):
        return None
    norm = Normalizer(schema, 1, lenient, grammar=True)
    try:
        _grammar_emission(schema, "", lenient, norm)
    except UnsupportedSchemaError:
        pass  # the recursion found so far still counts; the paths report what is wrong
    return norm.recursive[0] if norm.recursive else None


def _has_ref(node: Any) -> bool:
    if isinstance(node, dict):
        return (any(k in node for k in ("$ref", "$dynamicRef", "$recursiveRef"))
                or any(_has_ref(v) for k, v in node.items() if k not in ("enum", "const")))
    if isinstance(node, list):
        return any(_has_ref(v) for v in node)
    return False


def _engine(schema: Any, whitespace_pattern: str | None, lenient: bool, order: str) -> Any:
    """The engine path: the grammar-mode emission as an ir.grammar.Grammar for guides.grammar.GrammarGuide
    (json_schema.engine_grammar), one emission (no retries)."""
    return _engine_grammar(*_grammar_emission(schema, whitespace_pattern, lenient, order=order))


def _engine_grammar(root: str, sink: Any, norm: Any) -> Any:
    """The Grammar of one engine emission (warning once of the keywords it ignored)."""
    from .engine_grammar import grammar_from_emission

    built = grammar_from_emission(root, sink)
    if norm.ignored:
        listed = ", ".join(f"{k} at {p}" for k, p in sorted(set(norm.ignored)))
        warnings.warn(f"compile_json_schema ignored keywords it cannot express: {listed}", stacklevel=5)
    return built
