"""The package's shape rules, checked on its source: layers (which package may import which), no
import cycles, no private names used across modules, and `import tokenguide` staying free of lark."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "py_src" / "tokenguide"

# Module boundaries follow concepts, never size: there is no line cap. Instead the package's units
# (a subpackage, or a top-level module) are layered: a unit may import only units of earlier
# layers (and itself); units of one layer are peers and do not import each other.
LAYERS: list[tuple[str, ...]] = [
    ("errors",),  # every public error
    ("arguments",),  # argument checks shared by the public entry points
    ("display",),  # token display for the CLI and the web app (plain functions over bytes)
    ("regex",),  # regex text -> byte automata (re semantics, ECMA-262 syntax)
    ("vocabulary",),  # Hugging Face files -> token bytes, EOS, the Tokenizer adapter
    ("ir",),  # lexemes (regex trees over code-point sets) and the grammar IR
    ("json_schema",),  # JSON Schema -> regex text, engine grammar (or Lark grammar on request)
    ("grammars",),  # bundled Lark grammars and the Lark reader into the IR (%json bodies via json_schema)
    ("index",),  # token trie, regex Index / LazyIndex, the .outlines format
    ("engine",),  # the Earley matcher over the IR and its masks
    ("guides",),  # RegexGuide, the Lark CFG guides, GrammarGuide (guides/grammar.py), Guide
    ("integrations", "outlines_core", "tokenguide"),  # frameworks, the drop-in, the public API
    ("cli", "_web_cancel", "_web_explain", "_web_playground", "_web_samples", "_web_schema_guide"),
    ("_web_bridge",),  # the web worker's entry point, over the _web_* helpers
    ("__main__",),
]

# Imports that go against the layers, each with its reason: (importing module, imported module).
LAYER_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("tokenguide.json_schema", "tokenguide.engine"): (
        "CompiledSchema.accepts reads a text of the engine path with the engine's own recogniser "
        "(engine.Matcher), at call time: the language the guide serves"
    ),
}


def _modules() -> dict[str, Path]:
    """Dotted module name -> path, for every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module named by a (possibly relative) import inside `module`."""
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _is_type_checking_only(path: Path) -> set[int]:
    """Line numbers of imports under `if TYPE_CHECKING:` (never run, so not dependencies)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            for sub in ast.walk(node):
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    lines.add(sub.lineno)
    return lines


def _runtime_graph() -> dict[str, set[str]]:
    """Module -> tokenguide modules it imports at run time (function-level imports included).

    A package's `__init__` re-exporting its submodules is not a dependency of those submodules,
    so edges into a package mean "its __init__", and a submodule importing its own package's
    __init__ is not counted (Python runs the __init__ first anyway).
    """
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        skip = _is_type_checking_only(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.lineno in skip:
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _resolve(name, is_package, node.level, node.module)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
            for target in targets:
                if target in MODULES and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def test_no_import_cycles():
    graph = _runtime_graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def _unit(module: str) -> str:
    """The layered unit a module belongs to: its top-level subpackage or module under tokenguide."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "tokenguide"


def test_every_unit_has_a_layer():
    declared = [unit for layer in LAYERS for unit in layer]
    assert len(declared) == len(set(declared)), "a unit is declared in two layers"
    missing = sorted({_unit(name) for name in MODULES} - set(declared))
    assert not missing, f"units without a layer (declare them in LAYERS): {missing}"


def test_no_import_from_a_later_layer():
    """No module imports (at run time, function-level included) a unit of its own or a later layer."""
    rank = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}
    bad = []
    for name, targets in _runtime_graph().items():
        for target in sorted(targets):
            here, there = _unit(name), _unit(target)
            if here == there or rank.get(there, -1) < rank.get(here, len(LAYERS)):
                continue
            if (name, target) not in LAYER_EXCEPTIONS:
                bad.append(f"{name} -> {target}")
    assert not bad, "imports against the layers (see LAYERS): " + ", ".join(bad)


def test_no_private_names_across_modules():
    """No module imports or reaches into another module's `_private` names."""
    found = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _resolve(name, is_package, node.level, node.module)
                if not base.startswith("tokenguide"):
                    continue
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    if full in MODULES:
                        aliases[alias.asname or alias.name] = full
                    elif alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{name}: from {base} import {alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("tokenguide") and alias.asname:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{name}: {aliases[node.value.id]}.{node.attr}")
    assert not found, "private names used across modules: " + ", ".join(sorted(set(found)))


@pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses in Pyodide")
def test_import_does_not_load_lark():
    code = "import sys, tokenguide; tokenguide.Index, tokenguide.Guide; print('lark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(PACKAGE.parent), "PATH": ""})
    assert out.stdout.strip() == "False"
