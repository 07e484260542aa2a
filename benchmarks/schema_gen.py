"""Seeded random JSON Schemas and instances for the differential fuzzer (fuzz_json_schema.py).

`random_schema(seed)` writes a schema over the keywords tokenguide claims to support, shaped
like real-world schemas (an object of named properties, nested objects, arrays of objects,
string enums, optional properties, descriptions) with adversarial corners mixed in (type lists,
combinators, conditionals, recursion through $defs, anchors, dependencies, draft-4 exclusive
bounds). Each schema is written for one draft (its `$schema`, or none: 2020-12 semantics), using
only that draft's spellings, so the jsonschema validator that `$schema` selects reads the same
keywords. `random_instances(schema, seed)` gives values built from the schema (valid-looking),
mutations of them (a required key dropped, a wrong type, off-by-one lengths and bounds, extra
keys, duplicate items, deeper nesting) and random JSON values. Validity is never assumed here:
the fuzzer asks jsonschema. Same seed, same output, whatever PYTHONHASHSEED is.

Value ranges avoid what the output format documents as outside it (tokenguide's module
docstring): integer-valued floats (``1.0`` is not an ``integer`` spelling there), floats
json.dumps writes with an exponent, and, in strings, the line terminators on which ECMA 262
and Python's `re` disagree (``$`` before a final newline, ``.`` and U+2028).
"""

from __future__ import annotations

import copy
import random
from typing import Any

__all__ = ["DRAFTS", "FORMATS", "random_schema", "random_instances", "random_json", "sanitize"]

DRAFTS = {
    "none": None,
    "4": "http://json-schema.org/draft-04/schema#",
    "6": "http://json-schema.org/draft-06/schema#",
    "7": "http://json-schema.org/draft-07/schema#",
    "2019": "https://json-schema.org/draft/2019-09/schema",
    "2020": "https://json-schema.org/draft/2020-12/schema",
}
# Draft order for feature tests; "none" reads as 2020-12 (the oracle's default validator).
_LEVEL = {"none": 2020, "4": 4, "6": 6, "7": 7, "2019": 2019, "2020": 2020}

WORDS = ["id", "name", "type", "value", "count", "items", "tags", "status", "email", "url", "title", "age",
         "price", "created", "meta", "data", "kind", "user_id", "isActive", "firstName", "lastName", "x",
         "version", "options", "a b", "é", "key/with~slash", "$ref", "null", "0"]
STRINGS = ["", "a", "ab", "abc", "hello", "Hello World", "x1", "ABC-12", "foo", "bar", "baz", "2024-02-29",
           "1.2.3.4", "::1", "é", "中文", "😀", 'q"uote', "back\\slash", "tab\tin", "ctl\u0001", "a/b",
           "  ", "0", "true", "null", "zzzzzzzzzz", "aaaa", "foo-bar", "FOO"]
STR_ENUMS = [["red", "green", "blue"], ["small", "medium", "large"], ["asc", "desc"], ["a", "b"],
             ["open", "closed", "pending", "Open"], ["x"], ["", " "], ["é", "e"], ['"q"', "\\"]]
# (ECMA pattern, strings it matches, strings it does not): \d \w \s avoided (Unicode in Python's re)
PATTERNS = [
    ("^[a-z]+$", ["abc", "z"], ["", "aB", "a1"]),
    ("^[A-Z]{2,3}-[0-9]{1,4}$", ["AB-1", "XYZ-1234"], ["A-1", "AB-12345", "ab-1"]),
    ("abc", ["abc", "xabcx"], ["ab", "ABC"]),
    ("^(foo|bar)", ["foo", "barx"], ["xfoo", "fo"]),
    ("[0-9]$", ["a1", "9"], ["1a", ""]),
    ("^.{2,5}$", ["ab", "abcde", "é😀"], ["a", "abcdef"]),
    ("^x*y?$", ["", "xxy", "y"], ["yy", "xyx"]),
    ("^[^@ ]+@[^@ ]+$", ["a@b", "x.y@z"], ["a@", "@b", "a b@c"]),
    ("^(a|b)*c{0,2}$", ["abba", "cc", ""], ["ccc", "ad"]),
    ("^[a-f0-9]{4}$", ["beef", "0a1b"], ["bee", "ghij"]),
    ("^\\+?[0-9 -]{3,}$", ["+1 23", "123"], ["12", "+a12"]),
    ("é|ü", ["é", "xü"], ["e", "u"]),
]
FORMATS = {  # the formats jsonschema's FormatChecker implements exactly (see fuzz_json_schema.ORACLE_FORMATS)
    "date": (["2024-02-29", "1999-12-31", "2000-01-01"], ["2023-02-29", "2024-13-01", "2024-1-01", "24-01-01"]),
    "ipv4": (["1.2.3.4", "255.255.255.255", "0.0.0.0"], ["256.1.1.1", "1.2.3", "01.2.3.4", "1.2.3.4.5"]),
    "ipv6": (["::1", "fe80::1", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4"], ["1:2:3:4:5:6:7:8:9", ":::", "g::1"]),
}
ANNOTATION_FORMATS = ["int32", "float", "color"]  # formats tokenguide and jsonschema both ignore
LINE_TERMINATORS = "\r\u2028\u2029\n"


def sanitize(value: Any) -> Any:
    """`value` with integer-valued floats as ints (the same JSON Schema value; json.dumps would
    write ``1.0``, which the output format's integers exclude) and no float json.dumps writes
    with an exponent."""
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return 0
        if value.is_integer():
            return int(value)
        if abs(value) < 1e-4 or abs(value) >= 1e15:
            return round(value)
        return value
    if isinstance(value, list):
        return [sanitize(v) for v in value]
    if isinstance(value, dict):
        return {k: sanitize(v) for k, v in value.items()}
    return value


def random_json(rnd: random.Random, depth: int = 2) -> Any:
    """A random JSON value, at most `depth` containers deep."""
    k = rnd.randrange(8 if depth > 0 else 6)
    if k == 0:
        return None
    if k == 1:
        return rnd.random() < 0.5
    if k == 2:
        return rnd.choice([0, 1, -1, 2, 7, 10, 100, -50, 3, 2**40])
    if k == 3:
        return rnd.choice([0.5, -1.25, 3.14, 99.9, 0.001])
    if k in (4, 5):
        return rnd.choice(STRINGS)
    if k == 6:
        return [random_json(rnd, depth - 1) for _ in range(rnd.randrange(4))]
    return {rnd.choice(WORDS): random_json(rnd, depth - 1) for _ in range(rnd.randrange(4))}


class SchemaGen:
    """One schema's generator: `rnd`, the draft key ("none", "4", ... "2020") and its spellings."""

    def __init__(self, rnd: random.Random, draft: str, small: bool = False) -> None:
        self.rnd = rnd
        self.draft = draft
        self.level = _LEVEL[draft]
        self.defs: dict[str, Any] = {}
        self.defs_key = "$defs" if self.level >= 2019 and rnd.random() < 0.7 else "definitions"
        self.anchors: dict[str, str] = {}  # anchor name -> def name
        self.small = small
        self.budget = 10 if small else 60  # subschemas left: keeps schemas small enough to compile quickly

    # -- helpers -----------------------------------------------------------------------------
    def chance(self, p: float) -> bool:
        return self.rnd.random() < p

    def names(self, k: int) -> list[str]:
        pool = WORDS[:24] if self.chance(0.85) else WORDS
        return self.rnd.sample(pool, min(k, len(pool)))

    def described(self, schema: dict) -> dict:
        if self.chance(0.3):
            schema["description"] = self.rnd.choice(["The value.", "An identifier", "Optional; see docs"])
        if self.chance(0.1):
            schema["title"] = "T"
        return schema

    # -- schemas ----------------------------------------------------------------------------
    def schema(self, depth: int) -> Any:
        """A subschema at nesting `depth` (0 = leaves only)."""
        self.budget -= 1
        r = self.rnd
        if depth <= 0 or self.budget <= 0:
            kind = r.choice(["string", "string", "integer", "number", "boolean", "enum", "const", "null",
                             "typelist", "empty"])
        else:
            kind = r.choices(
                ["object", "array", "string", "integer", "number", "boolean", "enum", "const", "null", "typelist",
                 "anyOf", "oneOf", "allOf", "not", "if", "ref", "bool", "empty", "multi"],
                [14, 9, 12, 6, 5, 2, 5, 2, 1, 3, 4, 4, 3, 2, 3 if self.level >= 7 else 0, 4, 1, 1, 2])[0]
        return getattr(self, "k_" + kind)(depth)

    def k_empty(self, depth: int) -> Any:
        return {} if self.chance(0.8) else self.described({})

    def k_bool(self, depth: int) -> Any:
        if self.level < 6:
            return {}
        return self.chance(0.8)

    def k_null(self, depth: int) -> Any:
        return {"type": "null"}

    def k_boolean(self, depth: int) -> Any:
        return self.described({"type": "boolean"})

    def k_string(self, depth: int) -> dict:
        s: dict = {"type": "string"}
        r = self.rnd
        if self.chance(0.3):
            s["minLength"] = r.choice([0, 1, 2, 3])
        if self.chance(0.3):
            s["maxLength"] = r.choice([0, 1, 3, 5, 10])
            if s["maxLength"] < s.get("minLength", 0) and self.chance(0.9):
                s["maxLength"] = s["minLength"] + r.choice([0, 1, 4])
        if self.chance(0.25):
            s["pattern"] = r.choice(PATTERNS)[0]
        if self.chance(0.15):
            s["format"] = r.choice(list(FORMATS) + ANNOTATION_FORMATS)
        if self.chance(0.1):
            s["enum"] = r.choice(STR_ENUMS)
        return self.described(s)

    def bound(self, integer: bool) -> float:
        if integer or self.chance(0.5):
            return self.rnd.choice([-10, -1, 0, 1, 2, 5, 10, 100, 1000])
        return self.rnd.choice([-2.5, 0.5, 1.5, 9.99, 0.25])

    def k_integer(self, depth: int, kind: str = "integer") -> dict:
        s: dict = {"type": kind}
        integer = kind == "integer"
        lo = hi = None
        if self.chance(0.5):
            lo = self.bound(integer)
            if self.level == 4 and self.chance(0.3):
                s["minimum"], s["exclusiveMinimum"] = lo, self.chance(0.7)
            elif self.level >= 6 and self.chance(0.25):
                s["exclusiveMinimum"] = lo
            else:
                s["minimum"] = lo
        if self.chance(0.5):
            hi = self.bound(integer)
            if lo is not None and hi < lo and self.chance(0.9):
                hi = lo + self.rnd.choice([0, 1, 10])
            if self.level == 4 and self.chance(0.3):
                s["maximum"], s["exclusiveMaximum"] = hi, self.chance(0.7)
            elif self.level >= 6 and self.chance(0.25):
                s["exclusiveMaximum"] = hi
            else:
                s["maximum"] = hi
        if self.chance(0.15):
            s["multipleOf"] = self.rnd.choice([1, 2, 5, 10, 100] if integer else [1, 0.1, 0.01, 0.5, 2])
        if self.chance(0.05):
            s["enum"] = [1, 2, 3] if integer else [1.5, 2, -0.5]
        return self.described(s)

    def k_number(self, depth: int) -> dict:
        return self.k_integer(depth, "number")

    def k_enum(self, depth: int) -> dict:
        r = self.rnd
        pick = r.randrange(5)
        if pick < 3:
            return self.described({"type": "string", "enum": list(r.choice(STR_ENUMS))} if self.chance(0.6)
                                  else {"enum": list(r.choice(STR_ENUMS))})
        if pick == 3:
            return {"enum": r.sample([1, "1", None, True, False, 0, 2.5, [1], {"a": 1}, "a", []], r.randint(1, 4))}
        return {"enum": [r.choice([1, 2, 3]), r.choice(["a", "b"])], "type": ["integer", "string"]}

    def k_const(self, depth: int) -> dict:
        if self.level < 6:
            return {"enum": [self.rnd.choice(STRINGS)]}
        return {"const": self.rnd.choice(["fixed", 1, True, None, 0, {"k": [1, "a"]}, [1, 2], "é", 2.5])}

    def k_typelist(self, depth: int) -> dict:
        types = self.rnd.sample(["string", "integer", "number", "boolean", "null", "object", "array"],
                                self.rnd.randint(1, 3))
        s: dict = {"type": types if len(types) > 1 or self.chance(0.5) else types[0]}
        if "string" in types and self.chance(0.4):
            s["maxLength"] = self.rnd.choice([2, 4])
        if ("integer" in types or "number" in types) and self.chance(0.4):
            s["minimum"] = self.rnd.choice([0, 1])
        if "array" in types and self.chance(0.5):
            s["items"] = self.k_string(0) if self.chance(0.5) else {"type": "integer"}
        if "object" in types and self.chance(0.5):
            s["properties"] = {"a": {"type": "integer"}}
            if self.chance(0.5):
                s["additionalProperties"] = False
        return s

    def k_multi(self, depth: int) -> dict:
        """A schema without `type` whose keywords of several types all apply (each to its own type)."""
        s: dict = {"minLength": 2, "minimum": 0}
        if self.chance(0.5):
            s["properties"] = {"n": {"type": "integer"}}
            s["required"] = ["n"]
        if self.chance(0.5):
            s["maxItems"] = 2
        return s

    def k_object(self, depth: int) -> dict:
        r = self.rnd
        s: dict = {"type": "object"} if self.chance(0.9) else {}
        names = self.names(r.randint(0, 3 if self.small else 6 if depth > 1 else 4))
        if names or self.chance(0.5):
            s["properties"] = {n: self.schema(depth - 1) for n in names}
        if names and self.chance(0.6):
            s["required"] = [n for n in names if self.chance(0.5)] or names[:1]
        if self.chance(0.05):
            s.setdefault("required", []).append("undeclared")
        roll = r.random()
        if roll < 0.3:
            s["additionalProperties"] = False
        elif roll < 0.4:
            s["additionalProperties"] = self.schema(0)
        elif roll < 0.45:
            s["additionalProperties"] = True
        if self.chance(0.1):
            s["patternProperties"] = {r.choice(["^x-", "^[0-9]+$", "_id$", "a"]): self.schema(0)}
        if self.level >= 6 and self.chance(0.08):
            s["propertyNames"] = r.choice([{"pattern": "^[a-z_]+$"}, {"maxLength": 4}, {"enum": names + ["z"]}])
        if self.chance(0.1):
            s["minProperties"] = r.choice([1, 2])
        if self.chance(0.1):
            s["maxProperties"] = r.choice([1, 2, 3])
        if names and self.chance(0.1):
            self.dependencies(s, names)
        return self.described(s)

    def dependencies(self, s: dict, names: list[str]) -> None:
        a = names[0]
        other = names[1:2] or ["extra"]
        if self.level <= 7:
            s["dependencies"] = {a: other} if self.chance(0.5) else {a: {"required": other}}
        elif self.chance(0.5):
            s["dependentRequired"] = {a: other}
        else:
            s["dependentSchemas"] = {a: {"properties": {other[0]: {"type": "string"}}, "required": other}}

    def k_array(self, depth: int) -> dict:
        r = self.rnd
        s: dict = {"type": "array"}
        roll = r.random()
        if roll < 0.15:  # a tuple
            prefix = [self.schema(depth - 1) for _ in range(r.randint(1, 3))]
            if self.level >= 2020:
                s["prefixItems"] = prefix
                if self.chance(0.5):
                    s["items"] = self.chance(0.5) and self.schema(0)
            else:
                s["items"] = prefix
                if self.chance(0.5):
                    s["additionalItems"] = False if self.chance(0.5) else self.schema(0)
        elif roll < 0.9:
            s["items"] = self.k_object(depth - 1) if self.chance(0.3) else self.schema(depth - 1)
        if self.chance(0.3):
            s["minItems"] = r.choice([0, 1, 2])
        if self.chance(0.3):
            s["maxItems"] = r.choice([1, 2, 3, 5])
        if self.chance(0.12):
            s["uniqueItems"] = True
            if self.chance(0.7):
                s["items"] = r.choice([{"enum": ["a", "b", "c"]}, {"type": "boolean"},
                                       {"type": "integer", "minimum": 0, "maximum": 3}])
        if self.level >= 6 and self.chance(0.12):
            s["contains"] = r.choice([{"const": 1}, {"type": "string"}, {"type": "integer", "minimum": 5}])
            if self.level >= 2019 and self.chance(0.5):
                s["minContains" if self.chance(0.5) else "maxContains"] = r.choice([0, 1, 2])
        return self.described(s)

    def branches(self, depth: int, k: int) -> list:
        return [self.schema(depth - 1) for _ in range(k)]

    def k_anyOf(self, depth: int) -> dict:
        return {"anyOf": self.branches(depth, self.rnd.randint(1, 3))}

    def k_oneOf(self, depth: int) -> dict:
        if self.chance(0.5):  # the common real-world shape: disjoint types or tagged objects
            tag = [{"type": "object", "properties": {"kind": {"enum": [t]}, "v": self.schema(0)}, "required": ["kind"]}
                   for t in ("a", "b")]
            return {"oneOf": tag if self.chance(0.5) else [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
        return {"oneOf": self.branches(depth, self.rnd.randint(1, 3))}

    def k_allOf(self, depth: int) -> dict:
        subs = [self.k_object(depth - 1) if self.chance(0.6) else self.schema(depth - 1)
                for _ in range(self.rnd.randint(1, 3))]
        s: dict = {"allOf": subs}
        if self.chance(0.3):
            s["type"] = "object"
        return s

    def k_not(self, depth: int) -> dict:
        r = self.rnd
        neg = r.choice([{"type": "string"}, {"type": ["null", "boolean"]}, {"enum": ["a", 1]}, {"required": ["id"]},
                        {"const": 0}, {"type": "integer", "minimum": 3}, {"pattern": "^a"}, {"maxLength": 2}])
        if self.level < 6 and "const" in neg:
            neg = {"enum": [0]}
        s: dict = {"not": neg}
        if self.chance(0.6):
            s["type"] = r.choice(["string", "integer", "object", ["string", "integer"]])
        return s

    def k_if(self, depth: int) -> dict:
        r = self.rnd
        s: dict = {"type": "object", "properties": {"kind": {"enum": ["a", "b"]}, "n": {"type": "integer"}}}
        s["if"] = r.choice([{"properties": {"kind": {"const": "a"}}}, {"required": ["n"]},
                            {"properties": {"n": {"minimum": 5}}, "required": ["n"]}])
        if self.chance(0.8):
            s["then"] = r.choice([{"required": ["n"]}, {"properties": {"n": {"maximum": 10}}}, self.schema(0)])
        if self.chance(0.6):
            s["else"] = r.choice([{"properties": {"kind": {"const": "b"}}}, {"maxProperties": 1}, self.schema(0)])
        if self.chance(0.3):
            s = {"if": {"type": "string"}, "then": {"maxLength": 3}, "else": {"type": "integer"}}
        return s

    def k_ref(self, depth: int) -> dict:
        r = self.rnd
        done = sorted(n for n, b in self.defs.items() if b is not None)  # never a bare $ref to itself
        if done and self.chance(0.4):
            name = r.choice(done)
        else:
            name = f"d{len(self.defs)}"
            self.defs[name] = None  # reserved: a recursive reference may point here while building
            if self.chance(0.25) and depth > 1:
                body: Any = {"type": "object", "properties": {
                    "value": self.schema(0),
                    "children": {"type": "array", "items": {"$ref": self.pointer(name)}, "maxItems": 3}}}
                if self.chance(0.5):
                    body["properties"]["next"] = {"$ref": self.pointer(name)}
                if self.chance(0.5):
                    body["required"] = ["value"]
            else:
                body = self.schema(depth - 1)
            if isinstance(body, dict) and self.chance(0.2):
                self.anchor(name, body)
            self.defs[name] = body
        ref: dict = {"$ref": self.pointer(name)}
        if self.chance(0.15):  # a sibling: ignored in drafts <= 7, applied from 2019-09
            ref["description"] = "see definition"
            if self.chance(0.5):
                ref["type"] = r.choice(["object", "string", "integer"])
        return ref

    def anchor(self, name: str, body: dict) -> None:
        label = f"a{name}"
        if self.level >= 2019:
            body["$anchor"] = label
        elif self.level >= 6:
            body["$id"] = f"#{label}"
        else:
            body["id"] = f"#{label}"
        self.anchors[name] = label

    def pointer(self, name: str) -> str:
        if name in self.anchors and self.chance(0.7):
            return f"#{self.anchors[name]}"
        return f"#/{self.defs_key}/{name}"

    def document(self) -> dict:
        """The root: usually an object of named properties, as real-world schemas are."""
        depth = self.rnd.choice([1, 2, 2] if self.small else [2, 3, 3, 4])
        root = self.k_object(depth) if self.chance(0.75) else self.schema(depth)
        if not isinstance(root, dict):
            root = {"anyOf": [root]}
        # a definition only referenced by an anchor keeps its place in `defs_key`
        if self.defs:
            root[self.defs_key] = {n: b for n, b in self.defs.items()}
        if DRAFTS[self.draft] is not None:
            root = {"$schema": DRAFTS[self.draft], **root}
        return root


def random_schema(seed: int, small: bool = False) -> dict:
    """The fuzzer's schema number `seed` (`small`: at most ~10 subschemas, 2 levels, for tests)."""
    rnd = random.Random(f"schema-{seed}" + ("-small" if small else ""))
    draft = rnd.choices(list(DRAFTS), [30, 10, 5, 25, 10, 20])[0]
    return SchemaGen(rnd, draft, small).document()


# -- instances --------------------------------------------------------------------------------


class InstanceGen:
    """Valid-looking values of one schema document (`root`), and mutations of them."""

    def __init__(self, root: Any, rnd: random.Random) -> None:
        self.root = root
        self.rnd = rnd
        self.anchors: dict[str, Any] = {}
        self.find_anchors(root)
        self.newline_ok = "pattern" not in repr(root) and "propertyNames" not in repr(root)

    def find_anchors(self, node: Any) -> None:
        if isinstance(node, dict):
            for key in ("$anchor", "$id", "id"):
                v = node.get(key)
                if isinstance(v, str) and v.lstrip("#"):
                    self.anchors[v.lstrip("#")] = node
            for k, v in node.items():
                if k not in ("enum", "const"):
                    self.find_anchors(v)
        elif isinstance(node, list):
            for v in node:
                self.find_anchors(v)

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            return self.anchors.get(ref.lstrip("#"), {})
        node = self.root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            else:
                return {}
        return node

    def text(self, lo: int = 0, hi: int = 8) -> str:
        r = self.rnd
        if r.random() < 0.5:
            s = r.choice(STRINGS)
        else:
            alphabet = "abcxyzAB019 -_.é中😀\"\\\t\u0001/" + ("\n" if self.newline_ok else "")
            s = "".join(r.choice(alphabet) for _ in range(r.randint(lo, max(lo, hi))))
        return s

    def value(self, schema: Any, depth: int = 5) -> Any:
        """A value meant to satisfy `schema` (no guarantee: the oracle decides)."""
        r = self.rnd
        if schema is True or schema is False or not isinstance(schema, dict):
            return random_json(r, 1)
        if "$ref" in schema and isinstance(schema["$ref"], str):
            if depth <= 0:
                return None
            return self.value(self.resolve(schema["$ref"]), depth - 1)
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return copy.deepcopy(r.choice(schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                branch = r.choice(schema[key])
                base = {k: v for k, v in schema.items() if k != key}
                return self.merged([base, branch], depth)
        if isinstance(schema.get("allOf"), list):
            base = {k: v for k, v in schema.items() if k != "allOf"}
            return self.merged([base] + schema["allOf"], depth)
        if "if" in schema:
            base = {k: v for k, v in schema.items() if k not in ("if", "then", "else")}
            extra = [schema["if"], schema.get("then", {})] if r.random() < 0.5 else [schema.get("else", {})]
            return self.merged([base] + extra, depth)
        t = schema.get("type")
        if isinstance(t, list):
            t = r.choice(t) if t else None
        if t is None:
            t = ("object" if "properties" in schema or "required" in schema else
                 "array" if "items" in schema or "prefixItems" in schema else
                 "string" if "minLength" in schema or "pattern" in schema else
                 r.choice(["string", "integer", "object", "null"]))
        return getattr(self, "v_" + t, lambda s, d: random_json(r, 1))(schema, depth)

    def merged(self, parts: list, depth: int) -> Any:
        """A value for the conjunction of `parts`: their dict keywords merged, properties united."""
        out: dict = {}
        for p in parts:
            if isinstance(p, dict) and "$ref" in p and isinstance(p["$ref"], str):
                p = self.resolve(p["$ref"])
            if not isinstance(p, dict):
                continue
            for k, v in p.items():
                if k == "properties" and isinstance(v, dict):
                    out.setdefault("properties", {}).update(v)
                elif k == "required" and isinstance(v, list):
                    out["required"] = list(dict.fromkeys(out.get("required", []) + v))
                elif k not in out:
                    out[k] = v
        return self.value(out, depth)

    def v_null(self, schema: dict, depth: int) -> Any:
        return None

    def v_boolean(self, schema: dict, depth: int) -> Any:
        return self.rnd.random() < 0.5

    def v_string(self, schema: dict, depth: int) -> str:
        r = self.rnd
        fmt = schema.get("format")
        if fmt in FORMATS and r.random() < 0.8:
            return r.choice(FORMATS[fmt][0] if r.random() < 0.8 else FORMATS[fmt][1])
        pat = schema.get("pattern")
        for p, yes, no in PATTERNS:
            if p == pat and r.random() < 0.85:
                return r.choice(yes if r.random() < 0.8 else no)
        lo = schema.get("minLength", 0)
        hi = schema.get("maxLength", lo + 6)
        return self.text(lo, hi) if r.random() < 0.7 else "x" * r.randint(lo, max(lo, hi))

    def v_integer(self, schema: dict, depth: int) -> Any:
        r = self.rnd
        lo, hi = self.range(schema)
        lo = int(lo) if lo is not None else int(hi) - 20 if hi is not None else -20
        hi = int(hi) if hi is not None else lo + 40
        x = r.randint(min(lo, hi), max(lo, hi))
        m = schema.get("multipleOf")
        if isinstance(m, int) and m > 0 and r.random() < 0.7:
            x -= x % m
        return x

    def v_number(self, schema: dict, depth: int) -> Any:
        r = self.rnd
        if r.random() < 0.4:
            return self.v_integer(schema, depth)
        lo, hi = self.range(schema)
        lo = lo if lo is not None else -100
        hi = hi if hi is not None else lo + 100
        return round(r.uniform(min(lo, hi), max(lo, hi)), r.choice([1, 2, 3]))

    @staticmethod
    def range(schema: dict) -> tuple:
        lo = schema.get("minimum")
        hi = schema.get("maximum")
        for key in ("exclusiveMinimum", "exclusiveMaximum"):
            v = schema.get(key)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                if key == "exclusiveMinimum":
                    lo = v
                else:
                    hi = v
        lo = lo if isinstance(lo, (int, float)) and not isinstance(lo, bool) else None
        hi = hi if isinstance(hi, (int, float)) and not isinstance(hi, bool) else None
        return lo, hi

    def v_array(self, schema: dict, depth: int) -> list:
        r = self.rnd
        if depth <= 0:
            return []
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        rest = items
        if isinstance(items, list):
            prefix, rest = items, schema.get("additionalItems", {})
        prefix = prefix if isinstance(prefix, list) else []
        lo = schema.get("minItems", 0)
        hi = schema.get("maxItems", max(lo, len(prefix)) + 3)
        n = r.randint(min(lo, hi), max(lo, hi))
        out = [self.value(prefix[i] if i < len(prefix) else (rest if rest is not None else True), depth - 1)
               for i in range(n)]
        contains = schema.get("contains")
        if isinstance(contains, dict) and r.random() < 0.8:
            out.insert(r.randint(0, len(out)), self.value(contains, depth - 1))
        return out

    def v_object(self, schema: dict, depth: int) -> dict:
        r = self.rnd
        if depth <= 0:
            return {}
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        out: dict = {}
        for name, sub in props.items():
            if name in required or r.random() < 0.5:
                out[name] = self.value(sub, depth - 1)
        for name in required:
            if name not in out:
                out[name] = self.value({}, depth - 1)
        addl = schema.get("additionalProperties", True)
        if addl is not False and r.random() < 0.2:
            out[r.choice(["extra", "x-a", "12", "my_id"])] = self.value(addl, depth - 1)
        return out

    # -- mutations -------------------------------------------------------------------------
    def mutate(self, value: Any) -> Any:
        """`value` with one random change somewhere inside it."""
        value = copy.deepcopy(value)
        spots = []

        def walk(v, parent, key):
            spots.append((v, parent, key))
            if isinstance(v, dict):
                for k in list(v):
                    walk(v[k], v, k)
            elif isinstance(v, list):
                for i in range(len(v)):
                    walk(v[i], v, i)
        walk(value, None, None)
        v, parent, key = self.rnd.choice(spots)
        new = self.changed(v)
        if parent is None:
            return None if new is _DROP else new
        parent[key] = new
        if isinstance(parent, dict) and new is _DROP:
            del parent[key]
        elif new is _DROP:
            parent.pop(key)
        return value

    def changed(self, v: Any) -> Any:
        r = self.rnd
        k = r.randrange(6)
        if k == 0:
            return random_json(r, 1)
        if k == 1:
            return [v] if r.random() < 0.5 else {"value": v}
        if isinstance(v, dict):
            if v and r.random() < 0.5:
                del v[r.choice(list(v))]
                return v
            v[r.choice(WORDS)] = random_json(r, 0)
            return v
        if isinstance(v, list):
            roll = r.random()
            if v and roll < 0.4:
                v.append(copy.deepcopy(r.choice(v)))
            elif v and roll < 0.7:
                v.pop(r.randrange(len(v)))
            else:
                v.append(random_json(r, 0))
            return v
        if isinstance(v, bool) or v is None:
            return r.choice([0, "true", None if v is not None else False])
        if isinstance(v, int):
            return r.choice([v + 1, v - 1, -v, v * 10, v + 0.5, str(v)])
        if isinstance(v, float):
            return r.choice([v + 1, -v, round(v + 0.01, 2), int(v)])
        if isinstance(v, str):
            roll = r.random()
            if roll < 0.3:
                return v + r.choice("ax1é ")
            if roll < 0.6:
                return v[:-1] if v else _DROP
            if roll < 0.8:
                return v.upper() if v != v.upper() else v.lower() + "a"
            return r.choice([1, None, [v]])
        return _DROP


_DROP = object()


def random_instances(schema: Any, seed: int, n: int = 24) -> list:
    """Up to `n` distinct instances for `schema`: built from it, mutated, and random JSON."""
    import json

    rnd = random.Random(f"instances-{seed}")
    gen = InstanceGen(schema, rnd)
    out: dict[str, Any] = {}
    built = []
    for _ in range(n * 3):
        if len(out) >= n:
            break
        roll = rnd.random()
        if roll < 0.45 or not built:
            v = gen.value(schema)
            built.append(v)
        elif roll < 0.9:
            v = gen.mutate(rnd.choice(built))
            if rnd.random() < 0.3:
                v = gen.mutate(v)
        else:
            v = random_json(rnd, 2)
        v = sanitize(v)
        if _has_line_terminator(v, gen.newline_ok):
            continue
        out.setdefault(json.dumps(v, sort_keys=False, ensure_ascii=False), v)
    return list(out.values())


def _has_line_terminator(v: Any, newline_ok: bool) -> bool:
    bad = LINE_TERMINATORS[:-1] if newline_ok else LINE_TERMINATORS
    if isinstance(v, str):
        return any(c in v for c in bad)
    if isinstance(v, list):
        return any(_has_line_terminator(x, newline_ok) for x in v)
    if isinstance(v, dict):
        return any(_has_line_terminator(k, newline_ok) or _has_line_terminator(x, newline_ok) for k, x in v.items())
    return False
