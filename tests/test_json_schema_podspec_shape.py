"""Schemas shaped like Kubernetes' PodSpec kinds on the engine path: hundreds of optional
members over shared `$ref`'d sub-objects, small objects (up to 3 optional members) nested in
each other. Written inline, their optional members multiply past the alternatives limits; the
retry with every object's members as rules (member rules, then right-linear) takes them.

Oracles: `jsonschema` (validity) and Lark's LALR parser on the grammar text.
"""

from __future__ import annotations

import json
import random
import warnings

import pytest

lark = pytest.importorskip("lark")
jsonschema = pytest.importorskip("jsonschema")

from tokenguide.errors import UnsupportedSchemaError  # noqa: E402
from tokenguide.json_schema import compile_json_schema  # noqa: E402
from grammar_oracle import lark_accepts, lark_parser  # noqa: E402

LEAVES = [{"type": "string"}, {"type": "integer"}, {"type": "boolean"},
          {"type": "array", "items": {"type": "string"}}]


def podspec_like(seed: int, wide: int = 90) -> dict:
    """A schema with the PodSpec kinds' shape: small defs (3 members, most optional) nested five
    levels, a wide `Container` and `Volume` referring to them, a spec holding arrays of both
    (Container in two members), a `metadata` def, and closed objects (additionalProperties: false)."""
    rng = random.Random(seed)
    defs: dict[str, dict] = {}
    names: list[str] = []
    for level in range(5):
        below = names[-6:]
        for i in range(6):
            props = {}
            for j in range(3):
                props[f"p{level}{i}{j}"] = ({"$ref": f"#/$defs/{rng.choice(below)}"} if below and rng.random() < 0.7
                                            else rng.choice(LEAVES))
            name = f"D{level}_{i}"
            defs[name] = {"type": "object", "properties": props, "additionalProperties": False}
            if rng.random() < 0.3:
                defs[name]["required"] = [next(iter(props))]
            names.append(name)

    def wide_object(prefix: str, n: int, required: list[str]) -> dict:
        props = {f"{prefix}{k}": ({"$ref": f"#/$defs/{rng.choice(names)}"} if rng.random() < 0.6
                                  else rng.choice(LEAVES)) for k in range(n)}
        props[required[0]] = {"type": "string"}
        return {"type": "object", "properties": props, "required": required, "additionalProperties": False}

    defs["Container"] = wide_object("c", wide, ["name"])
    defs["Volume"] = wide_object("v", wide, ["name"])
    defs["Meta"] = {"type": "object", "additionalProperties": False, "properties": {
        "name": {"type": "string"}, "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}
    spec = wide_object("s", wide // 2, ["containers"])
    spec["properties"].update({
        "containers": {"type": "array", "items": {"$ref": "#/$defs/Container"}},
        "initContainers": {"type": "array", "items": {"$ref": "#/$defs/Container"}},
        "volumes": {"type": "array", "items": {"$ref": "#/$defs/Volume"}},
    })
    defs["Spec"] = spec
    return {"$defs": defs, "type": "object", "additionalProperties": False, "properties": {
        "kind": {"const": "Pod"}, "metadata": {"$ref": "#/$defs/Meta"},
        "spec": {"$ref": "#/$defs/Spec"}}, "required": ["kind"]}


def resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def instance(schema: dict, node: dict, rng: random.Random, depth: int = 0):
    """A random instance of `node` (valid by construction: the shape above only)."""
    node = resolve(schema, node)
    if "const" in node:
        return node["const"]
    kind = node["type"]
    if kind == "object":
        props = node.get("properties", {})
        out = {}
        for k, sub in props.items():  # schema order, as the grammar writes them
            if k in node.get("required", []) or rng.random() < (0.5 if depth < 3 else 0.15):
                out[k] = instance(schema, sub, rng, depth + 1)
        if isinstance(node.get("additionalProperties"), dict):
            for i in range(rng.randint(0, 2)):
                out[f"x{i}"] = instance(schema, node["additionalProperties"], rng, depth + 1)
        return out
    if kind == "array":
        return [instance(schema, node["items"], rng, depth + 1) for _ in range(rng.randint(0, 2))]
    return {"string": "a", "integer": 7, "boolean": True}[kind]


def paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, path + (i,))


def mutate(value, rng: random.Random):
    """The value with one change at a random place: a key dropped or added, a value retyped."""
    value = json.loads(json.dumps(value))
    path = rng.choice(list(paths(value)))
    parent, last = None, None
    target = value
    for step in path:
        parent, last, target = target, step, target[step]
    how = rng.randrange(3)
    if how == 0 and isinstance(target, dict) and target:
        del target[rng.choice(sorted(target))]
    elif how == 1 and isinstance(target, dict):
        target["zz"] = 1
    elif parent is not None:
        parent[last] = rng.choice([1, "s", None, [], {}, False, 2.5])
    else:
        return []
    return value


def agrees_on_instances(schema: dict, seed: int, rounds: int) -> dict:
    """Compile `schema` on the grammar path and assert Lark's parser of it agrees with jsonschema
    on `rounds` random instances and two mutations of each (compact and spaced); the verdicts seen."""
    p = lark_parser(compile_json_schema(schema, path="engine"))
    check = jsonschema.Draft202012Validator(schema).is_valid
    rng = random.Random(seed)
    seen = {True: 0, False: 0}
    for _ in range(rounds):
        doc = instance(schema, schema, rng)
        for d in (doc, mutate(doc, rng), mutate(doc, rng)):
            valid = check(d)
            seen[valid] += 1
            for text in (json.dumps(d, separators=(",", ":")), json.dumps(d)):
                assert lark_accepts(p, text) == valid, text
    return seen


def many_small_objects(n: int = 200) -> dict:
    """compose-spec's shape: many small objects (3 optional members each), side by side."""
    return {"type": "object", "additionalProperties": False, "properties": {
        f"o{i}": {"type": "object", "additionalProperties": False,
                  "properties": {f"a{i}": {"type": "string"}, f"b{i}": {"type": "integer"}, f"c{i}": {"type": "boolean"}}}
        for i in range(n)}}


def test_many_small_objects_on_the_engine():
    schema = many_small_objects()
    p = lark_parser(compile_json_schema(schema, path="engine"))
    check = jsonschema.Draft202012Validator(schema).is_valid
    # (keys in schema order, as the grammar writes them)
    for doc in ({}, {"o0": {}}, {"o3": {"a3": "x", "c3": True}, "o199": {"b199": 2}}, {"o1": {"a2": "x"}},
                {"o0": {"b0": "x"}}, {"o200": {}}, {"o1": {}, "o2": {"a2": "x", "b2": 1, "c2": False}}, {"o1": {"a1": 1}}):
        assert lark_accepts(p, json.dumps(doc, separators=(",", ":"))) == check(doc), doc


@pytest.mark.parametrize("seed", range(2))
def test_podspec_shape_on_the_grammar_path_matches_jsonschema(seed):
    schema = podspec_like(seed)
    n_optional = sum(len(d["properties"]) - len(d.get("required", [])) for d in schema["$defs"].values())
    assert n_optional > 300
    seen = agrees_on_instances(schema, seed, 40)
    assert seen[True] >= 40 and seen[False] >= 10


def test_auto_path_takes_the_grammar_with_free_form_values():
    """With a free-form value (as Kubernetes' `x-kubernetes-preserve-unknown-
    fields` objects), `auto` takes the exact grammar path, not the depth-capped regex."""
    schema = podspec_like(1)
    schema["properties"]["extra"] = {}
    compiled = compile_json_schema(schema, path="auto")
    assert compiled.path == "engine" and not compiled.depth_capped  # (its first Lark grammar is refused)
    assert compiled.accepts(json.dumps({"kind": "Pod", "extra": [[[[{"a": [[[1]]]}]]]]}))
    assert not compiled.accepts(json.dumps({"kind": "Pod", "spec": {}}))  # containers required
    p = lark_parser(compile_json_schema(schema, path="engine"))  # the Lark retries take it too
    assert lark_accepts(p, json.dumps({"kind": "Pod", "extra": [[[[{"a": [[[1]]]}]]]]}))
    assert not lark_accepts(p, json.dumps({"kind": "Pod", "spec": {}}))


def opened(schema: dict) -> dict:
    """`schema` with every object open to undeclared members (no `additionalProperties: false`),
    as Kubernetes' schemas are outside their `-strict` variant."""
    if isinstance(schema, dict):
        return {k: opened(v) for k, v in schema.items() if not (k == "additionalProperties" and v is False)}
    if isinstance(schema, list):
        return [opened(v) for v in schema]
    return schema


@pytest.mark.parametrize("seed", range(2))
def test_open_podspec_shape_on_the_grammar_path_matches_jsonschema(seed):
    """Open objects add a member rule for undeclared keys to every object: the right-linear
    member rules (the first retry for wide objects) take them within their total."""
    schema = opened(podspec_like(seed, wide=60))
    assert "additionalProperties" not in json.dumps(schema["$defs"]["Container"])
    seen = agrees_on_instances(schema, seed, 30)
    assert seen[True] >= 40 and seen[False] >= 5


def _on(kind: str, **props) -> dict:
    return {"type": [kind, "null"], **props}


def _obj(**props) -> dict:
    return _on("object", properties=props)


def _arr(ref: str) -> dict:
    return _on("array", items={"$ref": f"#/$defs/{ref}"})


# Kubernetes' EndpointSliceList with objects open to undeclared members, cut down (by deleting
# members while the three refusals below stayed) and with its definitions renamed
ENDPOINT_SLICE_LIST = {
    "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["items"],
    "properties": {"apiVersion": _on("string", enum=["discovery.k8s.io/v1"]), "items": _arr("EndpointSlice"),
                   "kind": _on("string", enum=["EndpointSliceList"]), "metadata": {"$ref": "#/$defs/ListMeta"}},
    "$defs": {
        "ObjectReference": _obj(apiVersion=_on("string"), namespace=_on("string"), resourceVersion=_on("string"),
                                uid=_on("string")),
        "Endpoint": _obj(hints={"$ref": "#/$defs/EndpointHints"}, nodeName=_on("string"),
                         targetRef={"$ref": "#/$defs/ObjectReference"}, zone=_on("string")),
        "EndpointHints": _obj(forNodes=_arr("ForNode"), forZones=_arr("ForZone")),
        "EndpointPort": _obj(), "ForNode": _obj(), "ForZone": _obj(), "ShardInfo": _obj(),
        "EndpointSlice": _obj(endpoints=_arr("Endpoint"), kind=_on("string", enum=["EndpointSlice"]),
                              metadata={"$ref": "#/$defs/ObjectMeta"}, ports=_arr("EndpointPort")),
        "ListMeta": _obj(remainingItemCount=_on("integer"), resourceVersion=_on("string"), selfLink=_on("string"),
                         shardInfo={"$ref": "#/$defs/ShardInfo"}),
        "ManagedFieldsEntry": _obj(apiVersion=_on("string"), operation=_on("string"), subresource=_on("string"),
                                   time={"$ref": "#/$defs/Time"}),
        "ObjectMeta": _obj(managedFields=_arr("ManagedFieldsEntry")),
        "Time": _on("string"),
    },
}


def test_a_kubernetes_list_of_open_objects_on_the_engine():
    """A Kubernetes EndpointSliceList with objects open to undeclared members (colliding terminals
    and too many alternatives for the Lark grammar path once): the engine, against jsonschema."""
    schema = ENDPOINT_SLICE_LIST
    p = lark_parser(compile_json_schema(schema, path="engine"))
    check = jsonschema.Draft202012Validator(schema).is_valid
    slice_ = {"endpoints": [{"hints": {"forNodes": [{}], "forZones": None}, "nodeName": "n",
                             "targetRef": {"apiVersion": "v1", "uid": "u", "extra": [1, {"a": None}]}, "zone": "z"},
                            None, {"zone": None, "other": {"x": 1}}],
              "kind": "EndpointSlice", "metadata": {"managedFields": [{"operation": "Apply", "time": "t"}, None]},
              "ports": [{}, {"port": 80}], "x": True}
    docs = [
        {"items": []}, {"items": None}, {"items": [slice_]}, {"items": [slice_, None, {}]},
        {"apiVersion": "discovery.k8s.io/v1", "items": [], "kind": "EndpointSliceList",
         "metadata": {"remainingItemCount": 3, "resourceVersion": "1", "selfLink": None, "shardInfo": {"s": 1}}},
        {"items": [], "more": {"nested": [[{}]]}},
        {}, {"items": [1]}, {"apiVersion": "v1", "items": []}, {"items": [], "kind": "EndpointSlice"},
        {"items": [{"endpoints": [{"zone": 1}]}]}, {"items": [{"kind": "Other"}]},
        {"items": [{"metadata": {"managedFields": [{"time": 5}]}}]},
        {"items": [], "metadata": {"remainingItemCount": 1.5}}, {"items": [{"ports": [[]]}]},
        {"items": [{"endpoints": [{"hints": {"forZones": [3]}}]}]}, [], None,
    ]
    verdicts = {True: 0, False: 0}
    for doc in docs:
        valid = check(doc)
        verdicts[valid] += 1
        for text in (json.dumps(doc, separators=(",", ":")), json.dumps(doc)):
            assert lark_accepts(p, text) == valid, text
    assert verdicts[True] >= 6 and verdicts[False] >= 10


def test_open_podspec_shape_takes_the_engine_path_with_member_rules():
    """auto: the regex is too large and the plain grammar-mode emission outgrows the regex limit
    in one object; the engine path's retry writes every object's optional members as rules
    (as the Lark grammar path's retry did), and agrees with jsonschema on instances."""
    schema = opened(podspec_like(1, wide=60))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = compile_json_schema(schema)
    assert compiled.path == "engine" and not compiled.depth_capped
    check = jsonschema.Draft202012Validator(schema).is_valid
    rng = random.Random(1)
    seen = {True: 0, False: 0}
    for _ in range(20):
        doc = instance(schema, schema, rng)
        for d in (doc, mutate(doc, rng)):
            valid = check(d)
            seen[valid] += 1
            assert compiled.accepts(json.dumps(d, separators=(",", ":"))) == valid, d
    assert seen[True] >= 10 and seen[False] >= 1
