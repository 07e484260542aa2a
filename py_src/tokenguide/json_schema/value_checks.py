"""uniqueItems and `format: "regex"` checked on the values, where no regular language or grammar can say them.

Distinct items drawn from an unbounded set (strings, integers...) are not a regular language, so
module `arrays` refuses them. `compile_json_schema` can instead write such an array without the
keyword, leaving it to this `ValueChecks` beside the regex or grammar: for every place in a
document it knows whether the array there must hold distinct items (a *location*: the schema
objects that may apply there, as alternatives of conjunctions), and the byte automaton of one
item there, so that a guide (guides.value_checks) refuses a token that repeats an item or leaves no
way to write a new one, and `find_violation` checks a whole document.

It is exact only where it can prove it, and says why otherwise (`take`): every array left to it
must lie only at locations where *every* alternative that accepts an array requires distinct
items (so checking them never refuses a valid document), with no `contains` beside it, never
under a `not`, and with items spelled one way per value once whitespace is dropped and numbers
are spelled canonically (strings, numbers, booleans, null, closed objects
with one key order, arrays of those; no free-form values), so that "some new item can still be
written" is a question about texts; or items that can always become new until they end (module
value_kinds: open objects, and strings, numbers or arrays of a type some alternative accepts
every value of), compared by value when they end. Strings that must be regexes are found by the same locations (module
regex_strings judges what may stand beside the format): `regex_string(loc)`. So are the objects
that property_order="any" writes as a repetition of members (`take_object`, `object_keys`:
module member_keys), where every place holding them holds them alone.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

from ..errors import StateLimitError, UnsupportedSchemaError
from ..regex.ecma_syntax import pattern_error
from .failed_ifs import FailedIfs
from .json_values import value_key
from .member_keys import OBJECT_KEYWORDS, UNTRACKED_KEYWORDS, KeySpec
from .negation import negated_objects
from .order_free import inexhaustible, is_order_free
from .normalize import VALIDATION, any_of_says_nothing, schema_draft
from .patterns import PatternError, ecma_search
from .refs import RefResolver
from .regex_strings import regex_owners
from .string_lengths import LengthAutomaton, automata_refusal, length_automaton, length_owners
from .text import ptr_escape
from .value_kinds import VALUE_TYPES, free_first, types_let_through, types_together
from .text_counts import distinct_values_at_least, suffixes_around_marks_infinite

__all__ = ["OPEN_OBJECTS", "ItemAutomata", "Mixed", "NestedDrops", "ValueChecks", "find_violation"]

MAX_LOCATIONS = 4_000
MAX_ALTERNATIVES = 64
MAX_PATTERNS = 6  # pattern subsets explored per object location: 2**MAX_PATTERNS
_RANGE = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")

_ROOT = "tokenguide-item-root"
Dnf = frozenset


class _OpenObjects:
    """The item automaton of arrays whose items all can always become new until they end
    (`value_kinds.free_first`: open objects, free strings...): none needed."""

    def __repr__(self) -> str:
        return "OPEN_OBJECTS"


OPEN_OBJECTS = _OpenObjects()


class Mixed:
    """The items of a position that are unchecked until they end (like OPEN_OBJECTS) when their
    first byte is in `open_first`, else searched in `automaton`: open objects beside values of
    other types, or any JSON value (only true, false and null can be stranded: a string, number,
    array or object not ended can always become new)."""

    def __init__(self, automaton: Any, open_first: bytes = b"{"):
        self.automaton, self.open_first = automaton, open_first

    def __repr__(self) -> str:
        return f"Mixed({self.automaton!r}, {self.open_first!r})"


class ItemAutomata:
    """The byte automata of an array's items: one per prefixItems position, then `rest` (an
    automaton, OPEN_OBJECTS, or None where no item may stand)."""

    def __init__(self, prefix: list, rest: Any):
        self.prefix, self.rest = prefix, rest

    def at(self, index: int) -> Any:
        """The automaton of the item at position `index`."""
        return self.prefix[index] if index < len(self.prefix) else self.rest


class _Refusal(Exception):
    """Why a check of the values could not be exact (the pointer is added by the caller)."""  # frozenset of conjunctions, each a frozenset of schema-object pointers


class ValueChecks:
    """Where arrays must hold distinct items and strings must be regexes, for a schema whose
    regex/grammar leaves them out.

    Made while the schema is emitted: `take(pointer)` leaves a uniqueItems (or format "regex") to it, or says why its
    check could not be exact; `finish()` then builds the item automata. `root` is the location
    id of the whole document; `child_key(loc, key)` and `child_index(loc, i)` step into a member
    or an item; `item_automaton(loc)` is the byte automaton of one item of the array at `loc`
    when that array must be checked, else None.
    """

    def __init__(self, schema: Any, compile_item: Callable[[Any, str, int, Any], Any], any_order: bool = False):
        self.schema = schema
        self.any_order = any_order
        self.draft = schema_draft(schema)
        self.resolver = RefResolver(schema, self.draft)
        self.objs: dict[str, Any] = {"#": schema}
        self.dropped: dict[str, str] = {}  # schema object -> pointer of its uniqueItems, left to check
        self.regex_dropped: dict[str, str] = {}  # schema object -> pointer of its format "regex", left to check
        self._regex_owners: dict[int, list[str]] = {}  # location -> the schema objects with format "regex" there
        self._regex_locs: frozenset[int] = frozenset()
        self.length_dropped: dict[str, str] = {}  # schema object -> pointer of its min/maxLength, left to check
        self._length_owners: dict[int, list[str]] = {}  # location -> the schema objects with lengths there
        self._lengths: dict[int, LengthAutomaton] = {}  # location -> its strings' automaton, once taken
        self._compile_item = compile_item
        #: locations where a number spelled several ways (1, 1.0, 10e-1) may have only finitely many
        #: values (bounded, a multiple, an enum): text counts there do not count values (`_nested_drops`)
        self._number_spellings: set[int] = set()
        self._order_free: set[int] = set()  # locations of objects inside items spelled in one order once closed
        self._dnfs: dict[str, list[frozenset]] = {}
        self._locs: list[Dnf] = []
        self._loc_id: dict[Dnf, int] = {}
        self._children: dict[tuple, int] = {}
        self._items: dict[int, Any] = {}
        self._built: dict[int, ItemAutomata] = {}  # location -> its item automata, once built
        self._building: set[int] = set()
        self._discriminators: dict[int, str | None] = {}
        self._arrays: dict[int, list[str]] = {}  # location -> the schema objects with uniqueItems there
        self._verdicts: dict[str, str] = {}  # schema object -> why its check could not be exact
        self._broken: str | None = None
        self._negated_objs: set[str] = set()
        #: any-order objects (module member_keys): owners (schema objects with member keywords) -> spec
        self.keys_taken: dict[frozenset, KeySpec] = {}
        self._owners_at: dict[int, frozenset] = {}  # location -> the owner sets of its object alternatives
        self._key_conflicts: list[str] = []  # owners of objects taken once and written otherwise later
        self._fails = FailedIfs(lambda ref, ptr: self.resolver.resolve(ref, ptr, self._ref_refused), value_key)
        self.root = -1  # (the locations are explored when first asked: `_explore_once`)

    def _explore_once(self) -> None:
        if self.root >= 0 or self._broken is not None:
            return
        try:
            self._negated_objs = negated_objects(self.schema, self.resolver, self._ref_refused)
            self.root = self._location(frozenset(self._dnf("#", ())))
            self._explore()
        except _Refusal as exc:
            self._broken = exc.args[0]

    def refusal(self, uptr: str) -> str | None:
        """Why the uniqueItems (format "regex", min/maxLength) at `uptr` cannot be checked exactly on the
        values (None: it can)."""
        self._explore_once()
        owner, keyword = uptr.rsplit("/", 1)
        what = "array" if keyword == "uniqueItems" else "string"
        if owner in self._negated_objs:
            return f"this {what} sits under a `not`, where a check of its values would be reversed"
        if self._broken is not None:
            return self._broken
        places = self._arrays if keyword == "uniqueItems" else \
            self._regex_owners if keyword == "format" else self._length_owners
        if not any(owner in owners for owners in places.values()):
            return f"no place of a document reaches this {what} through the keywords the check follows " \
                "(it sits under propertyNames or an unknown applicator)"
        if keyword in ("minLength", "maxLength"):
            return self._verdicts.get(f"{owner}/lengths") or automata_refusal(
                [[self.objs[p] for p in self._live(loc, "string")[0]] for loc, o in self._length_owners.items() if owner in o])
        return self._verdicts.get(owner if keyword != "format" else uptr)

    @staticmethod
    def placeholder(uptr: str) -> None:
        """Arrays left to this check are written without the keyword (NestedDrops may mark them)."""
        return None

    def take(self, uptr: str) -> str | None:
        """Leave the uniqueItems at `uptr` to this check; else why not (see `refusal`)."""
        why = self.refusal(uptr)
        if why is None:
            owner, keyword = uptr.rsplit("/", 1)
            kept = self.dropped if keyword == "uniqueItems" else \
                self.regex_dropped if keyword == "format" else self.length_dropped
            kept[owner] = uptr
        return why

    def finish(self) -> None:
        """Build the item automaton of every array holding a uniqueItems taken (`take`); items
        that are open objects need none (OPEN_OBJECTS: never stranded before they close)."""
        if self._key_conflicts:  # (a recursive $ref cut by the regex path's unrolling: members missing deep down)
            ptr = self._key_conflicts[0]
            raise UnsupportedSchemaError(
                f"property_order='any': the object at {ptr} is written with different members in different "
                "places (a recursive $ref cut at the regex path's depth limit), so its keys cannot be checked "
                "beside the regex; use the engine path or property_order='schema'", "properties", ptr)
        for loc, owners in self._arrays.items():
            taken = [o for o in owners if o in self.dropped]
            if taken:
                self._items[loc] = _automata_of(self, loc, self.dropped[taken[0]])
        self._regex_locs = frozenset(loc for loc, owners in self._regex_owners.items()
                                     if any(o in self.regex_dropped for o in owners))
        for loc, owners in self._length_owners.items():
            if any(o in self.length_dropped for o in owners):
                self._lengths[loc] = length_automaton([self.objs[p] for p in self._live(loc, "string")[0]])

    def length_automaton(self, loc: int) -> LengthAutomaton | None:
        """The automaton whose lengths a string at `loc` must keep (a min/maxLength left to this
        check, module string_lengths), else None."""
        return self._lengths.get(loc)

    def number_spellings_at(self, loc: int) -> bool:
        """May a number at `loc` (inside checked items) have few values but many spellings
        (bounded, a multiple, an enum's), so that its digits may strand its item?"""
        return loc in self._number_spellings

    def take_object(self, owners: frozenset, spec: KeySpec) -> str | None:
        """Check the keys of the any-order objects whose member keywords the schema objects
        `owners` hold against `spec` (module member_keys); else why not. Every place of a
        document holding them must hold them alone: one alternative, those very owners."""
        self._explore_once()
        if self._broken is not None:
            return self._broken
        if owners & self._negated_objs:
            return "this object sits under a `not`, where a check of its keys would be reversed"
        places = [sets for sets in self._owners_at.values() if any(o & owners for o in sets)]
        if not places:
            return "no place of a document reaches this object through the keywords the check follows"
        for p in sorted(owners | {p for sets in places for o in sets for p in o}):
            obj = self.objs.get(p)
            for k in UNTRACKED_KEYWORDS:
                if isinstance(obj, dict) and obj.get(k) not in (None, True, {}):
                    return f"{k} beside it (at {p}/{ptr_escape(k)}) is not checked with the keys"
        for sets in places:
            if len(sets) > 1:
                return "where it stands, objects may match several alternatives (anyOf/oneOf branches, if, " \
                    "dependent schemas), each with its own members"
            if next(iter(sets)) != owners:
                return "where it stands, other schema objects also say what its members are"
        if self.keys_taken.setdefault(owners, spec) != spec:
            self._key_conflicts.append(sorted(owners)[0])  # (`finish` refuses: one spec per place)
            return "it is written with different members in different places"
        return None

    def object_keys(self, loc: int) -> KeySpec | None:
        """The spec of an any-order object at `loc` whose keys are checked here, else None."""
        sets = self._owner_sets(loc)
        return self.keys_taken.get(next(iter(sets))) if len(sets) == 1 else None

    def _owner_sets(self, loc: int) -> frozenset:
        """The owners (schema objects with member keywords) of each alternative at `loc` that
        accepts objects."""
        found = self._owners_at.get(loc)
        if found is None:
            found = self._owners_at[loc] = frozenset(
                frozenset(p for p in c if isinstance(self.objs[p], dict) and any(k in self.objs[p] for k in OBJECT_KEYWORDS))
                for c in self._live(loc, "object"))
        return found

    def order_free_at(self, loc: int) -> bool:
        """Is an object at `loc`, inside an item whose distinctness is checked, a map: its members
        in any order, spelled in one order once it closes (module order_free)?"""
        return loc in self._order_free

    def regex_string(self, loc: int) -> bool:
        """Must a string at `loc` be a valid regex (a format "regex" left to this check)?"""
        return loc in self._regex_locs

    # ---- locations ------------------------------------------------------------------------------
    def _location(self, dnf: Dnf) -> int:
        found = self._loc_id.get(dnf)
        if found is None:
            if len(self._locs) >= MAX_LOCATIONS:
                self._refuse("", f"more than {MAX_LOCATIONS:,} places to check")
            found = self._loc_id[dnf] = len(self._locs)
            self._locs.append(dnf)
        return found

    @staticmethod
    def _refuse(ptr: str, why: str) -> None:
        raise _Refusal(why)

    def _dnf(self, ptr: str, stack: tuple) -> list[frozenset]:
        """The schema object at `ptr` as alternatives of conjunctions of schema objects that apply
        at the same place (allOf, $ref, anyOf/oneOf, if/then/else, dependent schemas)."""
        done = self._dnfs.get(ptr)
        if done is not None:
            return done
        obj = self.objs[ptr]
        if obj is False:
            return []
        if not isinstance(obj, dict) or ptr in stack:
            return [frozenset()]
        stack = stack + (ptr,)
        for k in ("$dynamicRef", "$recursiveRef"):
            if k in obj:
                self._refuse(f"{ptr}/{k}", f"{k} is not followed by the check")
        out = [frozenset({ptr})]
        if "$ref" in obj:
            target = self.resolver.resolve(obj["$ref"], ptr, self._ref_refused)
            if target is None:
                self._refuse(f"{ptr}/$ref", "a $ref it cannot resolve")
            tobj, tptr = target
            self.objs.setdefault(tptr, tobj)
            sub = self._dnf(tptr, stack)
            if self.draft <= 7:  # drafts 3-7: the siblings of $ref are ignored
                self._dnfs[ptr] = sub
                return sub
            out = self._product(out, sub, ptr)
        for i, sub in enumerate(obj.get("allOf") or []):
            out = self._product(out, self._sub(f"{ptr}/allOf/{i}", sub, stack), ptr)
        for k in ("anyOf", "oneOf"):
            if isinstance(obj.get(k), list) and not (k == "anyOf" and any_of_says_nothing(obj[k])):
                alts = [c for i, sub in enumerate(obj[k]) for c in self._sub(f"{ptr}/{k}/{i}", sub, stack)]
                out = self._product(out, alts, ptr)
        if "if" in obj and self.draft >= 7:
            then = self._sub(f"{ptr}/then", obj["then"], stack) if "then" in obj else [frozenset()]
            yes = self._product(self._sub(f"{ptr}/if", obj["if"], stack), then, ptr)
            no = self._sub(f"{ptr}/else", obj["else"], stack) if "else" in obj else [frozenset()]
            no = self._fails.mark(ptr, obj["if"], no, self.objs)  # (the `else` side knows the `if` failed)
            out = self._product(out, yes + no, ptr)
        for k in ("dependentSchemas", "dependencies"):
            for name, sub in (obj.get(k) or {}).items() if isinstance(obj.get(k), dict) else ():
                if isinstance(sub, (dict, bool)):
                    out = self._product(out, self._sub(f"{ptr}/{k}/{ptr_escape(name)}", sub, stack)
                                        + [frozenset()], ptr)
        self._dnfs[ptr] = out
        return out

    @staticmethod
    def _ref_refused(keyword: str, pointer: str, why: str) -> None:
        raise _Refusal(f"{why} (keyword {keyword!r} at {pointer})")

    def _sub(self, ptr: str, obj: Any, stack: tuple) -> list[frozenset]:
        self.objs.setdefault(ptr, obj)
        return self._dnf(ptr, stack)

    def _product(self, a: list[frozenset], b: list[frozenset], ptr: str) -> list[frozenset]:
        out = list(dict.fromkeys(x | y for x in a for y in b))
        if self._fails:
            out = [c for c in out if self._fails.satisfiable(c, self.objs)]
        if len(out) > MAX_ALTERNATIVES:
            self._refuse(ptr, f"more than {MAX_ALTERNATIVES} combinations of anyOf/oneOf/if branches")
        return out

    def _live(self, loc: int, kind: str) -> list[frozenset]:
        """The conjunctions at `loc` that accept a value of type `kind`."""
        return [c for c in self._locs[loc] if all(kind in types_let_through(self.objs[p]) for p in c)]

    # ---- stepping in ----------------------------------------------------------------------------
    def child_key(self, loc: int, key: str, seen: tuple | None = None) -> int:
        """The location of member `key` of an object at `loc`; `seen`: (member, value key) of
        the object's discriminator (`discriminator`), when written before."""
        if seen is not None:
            loc = self.narrowed(loc, *seen)
        matched = []
        for c in self._live(loc, "object"):
            for p in c:
                for pat in (self.objs[p].get("patternProperties") or {}) if isinstance(self.objs[p], dict) else ():
                    try:
                        if ecma_search(pat, key):
                            matched.append(f"{p}/patternProperties/{ptr_escape(pat)}")
                    except PatternError:
                        matched.append(f"{p}/patternProperties/{ptr_escape(pat)}")
        return self._member(loc, key, frozenset(matched))

    def narrowed(self, loc: int, name: str, key: Any) -> int:
        """`loc` without the alternatives whose `if`s on member `name` rule out its value `key`."""
        return self._child((loc, "d", name, key), lambda: [c for c in self._locs[loc]
                                                           if self._fails.consistent(c, self.objs, name, key)])

    def discriminator(self, loc: int) -> str | None:
        """The member of every object at `loc` whose string value, always written first, picks
        its alternatives (`if`s on it: module function `_discriminator`); None if none."""
        if loc not in self._discriminators:
            self._discriminators[loc] = _discriminator(self, loc)
        return self._discriminators[loc]

    def _member(self, loc: int, key: str | None, pats: frozenset) -> int:
        """Member `key` (None: a name no conjunct declares) matching the patterns `pats`."""
        return self._child((loc, "k", key, pats), lambda: self._member_alternatives(loc, key, pats))

    def _child(self, memo: tuple, alternatives: Callable[[], list]) -> int:
        """The location `alternatives()` describe, computed once per `memo`."""
        found = self._children.get(memo)
        if found is None:
            found = self._children[memo] = self._location(frozenset(alternatives()))
        return found

    def _member_alternatives(self, loc: int, key: str | None, pats: frozenset) -> list[frozenset]:
        """The alternatives of the member: none at all (any value) when under every alternative
        of the object one of the member's accepts anything (`anyOf [job_template, {}]`): then no
        choice made elsewhere in the object constrains it (a free alternative under only some
        would: the member's value picks between the object's alternatives)."""
        out: list[frozenset] = []
        free = True
        for c in self._live(loc, "object"):
            alts = [frozenset()]
            for p in c:
                obj = self.objs[p]
                props = obj.get("properties") if isinstance(obj.get("properties"), dict) else {}
                own = [q for q in pats if q.startswith(f"{p}/patternProperties/")]
                subs = [(f"{p}/properties/{ptr_escape(key)}", props[key])] if key in props else []
                subs += [(q, self._pattern_schema(p, q)) for q in own]
                if not subs and "additionalProperties" in obj:
                    subs = [(f"{p}/additionalProperties", obj["additionalProperties"])]
                for sptr, sub in subs:
                    alts = self._product(alts, self._sub(sptr, sub, ()), sptr)
            free = free and any(all(_only_distributed(self.objs[p]) for p in a) for a in alts)
            out.extend(alts)
        return [frozenset()] if free and out else out

    def _pattern_schema(self, owner: str, ptr: str) -> Any:
        for pat, sub in self.objs[owner]["patternProperties"].items():
            if f"{owner}/patternProperties/{ptr_escape(pat)}" == ptr:
                return sub
        raise KeyError(ptr)  # pragma: no cover - built from the same patterns

    def prefix_length(self, loc: int) -> int:
        """How many leading items of an array at `loc` have schemas of their own."""
        n = 0
        for c in self._live(loc, "array"):
            for p in c:
                obj = self.objs[p]
                for k in ("prefixItems", "items"):
                    if isinstance(obj.get(k), list):
                        n = max(n, len(obj[k]))
        return n

    def child_index(self, loc: int, i: int) -> int:
        """The location of item `i` of an array at `loc`."""
        cls = i if i < self.prefix_length(loc) else -1
        return self._child((loc, "i", cls), lambda: _item_alternatives(self, loc, cls))

    # ---- which arrays, and their items ----------------------------------------------------------
    def item_automaton(self, loc: int) -> "ItemAutomata | None":
        """The automata of the items of the array at `loc` if its items must be distinct (and the
        regex/grammar does not say so), else None."""
        return self._items.get(loc)

    def _explore(self) -> None:
        """Visit every location a document can reach; judge each one holding a uniqueItems."""
        seen, todo = {self.root}, [self.root]
        while todo:
            loc = todo.pop()
            owners = sorted({p for c in self._live(loc, "array") for p in c
                             if isinstance(self.objs[p], dict) and self.objs[p].get("uniqueItems") is True})
            if owners:
                self._arrays[loc] = owners
                try:
                    self._check_array(loc)
                except _Refusal as exc:
                    for o in owners:
                        self._verdicts.setdefault(o, exc.args[0])
            _judge_strings(self, loc)
            self._owner_sets(loc)
            kids = [self.child_index(loc, i) for i in range(self.prefix_length(loc))] + [self.child_index(loc, -1)]
            kids += self._member_children(loc)
            for k in kids:
                if k not in seen:
                    seen.add(k)
                    todo.append(k)

    def _member_children(self, loc: int) -> list[int]:
        """The locations of the members of an object at `loc` (narrowed by its discriminator:
        then the members after it are reached only through one of its value classes)."""
        k = self.discriminator(loc)
        if k is None:
            return self._plain_member_children(loc)
        keys = {key for c in self._live(loc, "object") for n, vals, _ in self._fails.tests_in(c, self.objs)
                if n == k for key in vals}
        return [self.child_key(loc, k)] + [kid for key in sorted(keys, key=repr) + [_OTHER]
                                           for kid in self._plain_member_children(self.narrowed(loc, k, key))]

    def _plain_member_children(self, loc: int) -> list[int]:
        names, pats = set(), set()
        for c in self._live(loc, "object"):
            for p in c:
                obj = self.objs[p]
                if isinstance(obj.get("properties"), dict):
                    names.update(obj["properties"])
                if isinstance(obj.get("patternProperties"), dict):
                    pats.update(f"{p}/patternProperties/{ptr_escape(x)}" for x in obj["patternProperties"])
        if len(pats) > MAX_PATTERNS:
            self._refuse("", f"objects with more than {MAX_PATTERNS} patternProperties on the way")
        kids = [self.child_key(loc, n) for n in sorted(names)]
        pats_l = sorted(pats)
        for r in range(len(pats_l) + 1):
            kids += [self._member(loc, None, frozenset(sub)) for sub in itertools.combinations(pats_l, r)]
        return kids

    def _check_array(self, loc: int) -> None:
        """Raise _Refusal where a check of the array at `loc` could not be exact."""
        for c in self._live(loc, "array"):
            if not any(isinstance(self.objs[p], dict) and self.objs[p].get("uniqueItems") is True for p in c):
                self._refuse("", "another schema that applies there accepts arrays with equal items")
            if any(isinstance(self.objs[p], dict) and "contains" in self.objs[p] for p in c):
                self._refuse("", "contains beside it")
        for i in [*range(self.prefix_length(loc)), -1]:
            item = self.child_index(loc, i)
            _canonical(self, item, "", set(self._free(item)[1]), set())

    def _free(self, loc: int) -> tuple[bytes, list[str]]:
        """`value_kinds.free_first` of the values at `loc`: the first bytes of those that can
        always become new until they end, and the types of the others."""
        return free_first([[self.objs[p] for p in c] for c in sorted(self._locs[loc], key=sorted)])

    def _item_automaton(self, loc: int, where: str) -> "ItemAutomata":
        """The automata of the items of the array at `loc`, per position (compile_item raises by name)."""
        min_items = max((self.objs[p].get("minItems", 0) for c in self._live(loc, "array") for p in c
                         if isinstance(self.objs[p], dict) and isinstance(self.objs[p].get("minItems", 0), int)),
                        default=0)
        return ItemAutomata([self._position(self.child_index(loc, i), where, min_items)
                             for i in range(self.prefix_length(loc))],
                            self._position(self.child_index(loc, -1), where, min_items))

    def _position(self, item: int, where: str, min_items: int, cap: int | None = None) -> Any:
        """The byte automaton of the items at location `item` (OPEN_OBJECTS for open objects,
        None where no item may stand); `cap`: of the items that are no strings over that long."""
        if not self._locs[item]:
            return None
        first, left = self._free(item)
        if not left:
            return OPEN_OBJECTS
        synthetic = {k: v for k, v in self.schema.items() if k not in VALIDATION}
        synthetic["$defs"] = {**(synthetic.get("$defs") or {}), _ROOT: {
            k: v for k, v in self.schema.items() if k not in ("$id", "id", "$schema")}}
        synthetic["anyOf"] = [{"allOf": [{"$ref": self._moved(p)} for p in sorted(c)]} for c in self._locs[item]]
        if first:
            synthetic["type"] = left
        if cap is not None:
            synthetic["maxLength"] = cap
        automaton = self._compile_item(synthetic, where, min_items, _nested_drops(self, item, where, synthetic))
        return Mixed(automaton, first) if first else automaton

    def _moved(self, ptr: str) -> str:
        """`ptr` in the item schema `_check_array` builds, where the user's root sits under $defs."""
        head = ptr[2:].split("/", 1)[0]
        if ptr != "#" and head not in VALIDATION:
            return ptr
        return f"#/$defs/{_ROOT}" + ptr[1:]



def _judge_strings(check: ValueChecks, loc: int) -> None:
    """Note the objects with format "regex" or lengths of the strings at `loc`, and why
    their checks could not be exact (modules regex_strings, string_lengths)."""
    live = [[(p, check.objs[p]) for p in sorted(c)] for c in check._live(loc, "string")]
    for places, (owners, why), tag in ((check._regex_owners, regex_owners(live), "format"),
                                       (check._length_owners, length_owners(live), "lengths")):
        if owners:
            places[loc] = owners
        for o in owners if why else ():
            check._verdicts.setdefault(f"{o}/{tag}", why)


def _item_alternatives(check: ValueChecks, loc: int, cls: int) -> list[frozenset]:
    """The alternatives at item `cls` (-1: past the tuple) of an array at `loc`."""
    out: list[frozenset] = []
    for c in check._live(loc, "array"):
        alts = [frozenset()]
        for p in c:
            obj = check.objs[p]
            tuple_kw = "prefixItems" if isinstance(obj.get("prefixItems"), list) else \
                "items" if isinstance(obj.get("items"), list) else None
            rest_kw = "items" if tuple_kw == "prefixItems" else "additionalItems" if tuple_kw else "items"
            if tuple_kw and 0 <= cls < len(obj[tuple_kw]):
                alts = check._product(alts, check._sub(f"{p}/{tuple_kw}/{cls}", obj[tuple_kw][cls], ()), p)
            elif rest_kw in obj and not isinstance(obj[rest_kw], list):
                alts = check._product(alts, check._sub(f"{p}/{rest_kw}", obj[rest_kw], ()), p)
            if "contains" in obj:  # (an item may match it or not)
                alts = check._product(alts, check._sub(f"{p}/contains", obj["contains"], ()) + [frozenset()], p)
        out.extend(alts)
    return out


def _only_distributed(schema: Any) -> bool:
    """Does `schema` say nothing but what a conjunction holds already (its anyOf branch, allOf
    parts, $ref target)? oneOf (exclusive), if (a failed one), not and dependent schemas (which
    may apply or not) say more than their conjuncts."""
    return schema is True or (isinstance(schema, dict) and not any(
        k in VALIDATION and k not in ("anyOf", "allOf", "$ref") for k in schema))


def _has_number(v: Any) -> bool:
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return False
    if isinstance(v, (int, float)):
        return True
    return any(_has_number(x) for x in (v.values() if isinstance(v, dict) else v))


def _canonical(check: "ValueChecks", loc: int, where: str, left: set | None, seen: set) -> None:
    """Refuse (in `check`) item values with several spellings of one value (open or mixed-order
    objects) or free-form ones: there "a new item" is not a question about texts. Numbers are
    searched by value (guides.value_checks); where one may have few values (bounded, a multiple,
    an enum) but many spellings, `loc` is noted (`_number_spellings`). `left`: at an item's own
    place, the types searched in its automaton (`ValueChecks._free`; the others are compared when they end)."""
    if loc in seen:
        return
    seen.add(loc)
    for c in check._locs[loc]:
        types = types_together([check.objs[p] for p in c]) & (set(VALUE_TYPES) if left is None else left)
        if not c and types - {"boolean", "null"}:
            check._refuse(where, "its items (or values inside them) may be any JSON value")
        ranged = False
        for p in c:
            obj = check.objs[p]
            if isinstance(obj, dict):
                ranged = ranged or any(k in obj for k in _RANGE)
                vals = [obj["const"]] if "const" in obj else obj.get("enum") or []
                if any(_has_number(v) for v in vals):
                    check._number_spellings.add(loc)
        if "number" in types and ranged:
            check._number_spellings.add(loc)
        if "object" in types and not any(isinstance(check.objs[p], dict) and ("enum" in check.objs[p] or
                                                                             "const" in check.objs[p]) for p in c):
            _objects_canonical(check, loc, where, seen)
        if "array" in types:
            for i in range(check.prefix_length(loc)):
                _canonical(check, check.child_index(loc, i), where, None, seen)
            _canonical(check, check.child_index(loc, -1), where, None, seen)


def _objects_canonical(check: "ValueChecks", loc: int, where: str, seen: set) -> None:
    """Objects among the items: one spelling per value when closed (additionalProperties
    false, no patternProperties) with their names in one order wherever several alternatives
    declare them; their member values canonical in turn. Objects whose members come in any
    order (maps) when each can always take one more member (module order_free): the guide
    spells them in one order once closed (`order_free_at`)."""
    if check.any_order:
        check._refuse(where, 'its items may be objects, whose keys come in any order with property_order="any"')
    orders: list[list[str]] = []
    live = check._live(loc, "object")
    free = [is_order_free([check.objs[p] for p in c]) for c in live]
    for c, order_free in zip(live, free):
        objs = [check.objs[p] for p in c if isinstance(check.objs[p], dict)]
        declared = [o["properties"] for o in objs if isinstance(o.get("properties"), dict) and o["properties"]]
        why = inexhaustible(objs) if all(free) else None
        if order_free and len(free) > 1:  # (one more member must keep the alternative it is in)
            why = why or "its items hold objects that are maps under several alternatives"
        if (order_free and (not all(free) or why)) or any("unevaluatedProperties" in o for o in objs) \
                or len(declared) > 1:
            check._refuse(where, (why or "its items may be objects that are open (other keys in any order) or "
                                  "merged from several declarations"))
        orders.append(list(declared[0]) if declared else [])
    if free and all(free):
        check._order_free.add(loc)
        for kid in check._member_children(loc):
            _canonical(check, kid, where, None, seen)
        return
    for a, b in itertools.combinations(orders, 2):
        shared = [n for n in a if n in b]
        if shared != [n for n in b if n in a]:
            check._refuse(where, "its items may be objects whose alternatives declare shared keys in different orders")
    for name in dict.fromkeys(n for o in orders for n in o):
        _canonical(check, check.child_key(loc, name), where, None, seen)


_OTHER = ("other value",)  # the key of a value no discriminator `if` lists (no value_key is this)


def _discriminator(check: "ValueChecks", loc: int) -> str | None:
    """A member that every object at `loc` requires, every schema object there declares first
    (written first: the key order is the schema's), whose value is a string and which `if`s of
    the alternatives test by const/enum (failed_ifs): its value, read before any other member,
    tells which alternatives hold for the rest. None with property_order "any" or no such member."""
    conjs = check._live(loc, "object")
    if check.any_order or not conjs:
        return None
    objs = check.objs
    names = sorted({n for c in conjs for n, _, _ in check._fails.tests_in(c, objs)})
    for k in names:
        if not all(any(isinstance(objs[p], dict) and isinstance(objs[p].get("required"), list)
                       and k in objs[p]["required"] for p in c) for c in conjs):
            continue
        if any(isinstance(objs[p], dict) and isinstance(objs[p].get("properties"), dict) and objs[p]["properties"]
               and next(iter(objs[p]["properties"])) != k for c in conjs for p in c):
            continue
        value = check.child_key(loc, k)
        if check._locs[value] and not any(check._live(value, t) for t in VALUE_TYPES if t != "string"):
            return k
    return None


def _nested_drops(check: "ValueChecks", item: int, where: str, synthetic: Any) -> "NestedDrops | None":
    """What lets `check`'s item automaton at `item` leave out the uniqueItems of arrays inside the
    items (checked at their own locations), when that superset automaton answers "can a new
    item still be written" as the exact one would; else None (the item build refuses them).
    It does when every such array takes fresh items (`_fresh_items`): a continuation the superset
    finds, its new inner items replaced by distinct ones found nowhere in the document (same
    counts: maxItems holds), is exact and still a new item. Or when, with each inner array one
    marked byte, the texts left wherever one is ahead or just ended are infinitely many."""
    seen = _subtree(check, item)
    inner = sorted(loc for loc in seen if loc in check._arrays)
    if not inner:
        return None
    # (the counts below count texts: where a number has few values but many spellings, they
    # count spellings, so such numbers must stay out of what they count)
    if all(not _subtree(check, loc) & check._number_spellings and _fresh_items(check, loc, where) for loc in inner):
        return NestedDrops(check)
    # else: the places around the inner arrays must leave infinitely many texts, seen in the
    # item automaton where each such array is one marked byte
    if seen & check._number_spellings:
        return None
    try:
        marked = check._compile_item(synthetic, where, 0, NestedDrops(check, marking=True))
    except UnsupportedSchemaError:
        return None  # (the build without marks says why)
    return NestedDrops(check) if marked is not None and suffixes_around_marks_infinite(marked, MARK) else None

def _subtree(check: "ValueChecks", loc: int) -> set[int]:
    """`loc` and every location inside its values (items, members)."""
    seen, todo = {loc}, [loc]
    while todo:
        here = todo.pop()
        for k in [check.child_index(here, i) for i in range(check.prefix_length(here))] + \
                [check.child_index(here, -1)] + check._member_children(here):
            if k not in seen:
                seen.add(k)
                todo.append(k)
    return seen


def _fresh_items(check: "ValueChecks", loc: int, where: str) -> bool:
    """Can the array at `loc` always take an item no document has yet (no prefixItems, at least
    FRESH_ITEMS possible items or a cycle)? False when the count passes its limits. Long
    strings (CloudTrail's `(.+)` under maxLength 2,048) are counted up to a few characters
    past their least length: those number enough already, and they are some of the items."""
    if loc in check._building or check.prefix_length(loc):
        return False  # (being built: recursive items, which the item build refuses)
    item = check.child_index(loc, -1)
    objs = [o for c in check._locs[item] for o in map(check.objs.get, c) if isinstance(o, dict)]
    least = max((o["minLength"] for o in objs if isinstance(o.get("minLength"), int)), default=0)
    if any(isinstance(o.get("maxLength"), int) and o["maxLength"] > least + _SHORT for o in objs):
        try:
            if distinct_values_at_least(check._position(item, where, 0, cap=least + _SHORT), FRESH_ITEMS):
                return True
        except (StateLimitError, UnsupportedSchemaError):
            pass
    rest = _automata_of(check, loc, where).rest
    if isinstance(rest, Mixed):
        return True  # (items of a type that can always become new: infinitely many)
    try:
        return rest is None or rest is OPEN_OBJECTS or distinct_values_at_least(rest, FRESH_ITEMS)
    except StateLimitError:
        return False


_SHORT = 16  # characters past the least length that long strings are counted with (`_fresh_items`)


def _automata_of(check: "ValueChecks", loc: int, where: str) -> "ItemAutomata":
    """`_item_automaton(loc)`, built once per location."""
    if loc not in check._built:
        check._building.add(loc)
        try:
            check._built[loc] = check._item_automaton(loc, where)
        finally:
            check._building.discard(loc)
    return check._built[loc]



FRESH_ITEMS = 2 ** 64  # possible items no document exhausts (strings of up to 128 characters: far more)
MARK = 0x01  # the byte an inner array stands as, in a marked item automaton (raw, never in JSON text)


class NestedDrops:
    """Stands for the check while an item automaton is built (`compile_item`'s last argument):
    the uniqueItems of arrays inside the items are left to `check` at their own locations, in
    the item schema's pointers (the user's root moved under $defs, `ValueChecks._moved`).
    With `marking`, each such array is written as the one byte MARK instead (`placeholder`)."""

    def __init__(self, check: ValueChecks, marking: bool = False):
        self.check = check
        self.marking = marking
        self.taken: set[str] = set()

    def placeholder(self, uptr: str) -> str | None:
        """The regex to write for the whole array whose uniqueItems at `uptr` was taken, when
        marking (else None: the array without the keyword)."""
        return f"\\x{MARK:02x}" if self.marking and uptr in self.taken else None

    def take(self, uptr: str) -> str | None:
        """Leave the uniqueItems at `uptr` (a pointer of the item schema) to the check; else why not."""
        if uptr.endswith("/format"):
            return "a regex string inside items whose distinctness is checked on the values"
        moved = f"#/$defs/{_ROOT}"
        where = "#" + uptr[len(moved):] if uptr == moved or uptr.startswith(moved + "/") else uptr
        why = self.check.refusal(where)
        if why is None:
            self.taken.add(uptr)
        return why


def find_violation(check: ValueChecks, value: Any) -> str | None:
    """The JSON pointer of the first array in `value` (a parsed document, json_values.parse_document)
    whose items must be distinct and are not, of the first any-order object whose keys break its
    spec (module member_keys), or of the first string that must be a regex and is not; or None."""
    def walk(v: Any, loc: int, ptr: str) -> str | None:
        if isinstance(v, str):
            auto = check.length_automaton(loc)
            if auto is not None and not (auto.lo <= len(v) and (auto.hi is None or len(v) <= auto.hi)):
                return ptr or "/"
            return (ptr or "/") if check.regex_string(loc) and pattern_error(v) is not None else None
        if isinstance(v, list):
            if check.item_automaton(loc) is not None and len({value_key(x) for x in v}) < len(v):
                return ptr or "/"
            for i, x in enumerate(v):
                bad = walk(x, check.child_index(loc, i), f"{ptr}/{i}")
                if bad:
                    return bad
        elif isinstance(v, dict):
            spec = check.object_keys(loc)
            if spec is not None and spec.violation(list(v), getattr(v, "repeated", ())):
                return ptr or "/"
            d = check.discriminator(loc)
            seen = (d, value_key(v[d])) if d is not None and isinstance(v.get(d), str) else None
            for k, x in v.items():
                bad = walk(x, check.child_key(loc, k, None if k == d else seen), f"{ptr}/{ptr_escape(k)}")
                if bad:
                    return bad
        return None
    return walk(value, check.root, "")
