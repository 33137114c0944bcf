"""The package's layering holds: every module imports, and none imports across a forbidden line.

``docs/architecture.md`` draws the parts and the arrows between them; this test is the
part of it that a change cannot quietly break. The rules are about a module's own
imports (at the top or inside a function; type-only imports count too), read from its
source: the root ``config`` composes every package's settings and ``__init__`` re-exports
the public API, so what a module pulls in through them is not held against it.
"""

from __future__ import annotations

import ast
import importlib
from functools import cache
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "empathygraph"

# (importer, imported): no module under the first may import one under the second.
FORBIDDEN = [
    ("empathygraph.agents", "empathygraph.generators"),
    ("empathygraph.tools", "empathygraph.agents"),
    ("empathygraph.tools", "empathygraph.backbones"),
    ("empathygraph.tools", "empathygraph.eval"),
    ("empathygraph.generators", "empathygraph.agents"),
    ("empathygraph.generators", "empathygraph.backbones"),
    ("empathygraph.backbones", "empathygraph.agents"),
    *((vocabulary, part) for vocabulary in ("empathygraph.schemas", "empathygraph.state")
      for part in ("empathygraph.graphs", "empathygraph.agents", "empathygraph.trace")),
    *((part, "empathygraph.cli") for part in ("empathygraph.agents", "empathygraph.backbones", "empathygraph.config",
                                            "empathygraph.context", "empathygraph.eval", "empathygraph.generators",
                                            "empathygraph.graphs", "empathygraph.schemas", "empathygraph.session",
                                            "empathygraph.state", "empathygraph.studio", "empathygraph.tools",
                                            "empathygraph.trace", "empathygraph.turn")),
]
# Leaves import (almost) nothing of the package, so any part may use them without a cycle
# (the state holds trace records; the rest of the trace reads the state's vocabulary).
LEAVES = {
    "empathygraph.errors": set(),
    "empathygraph.paths": set(),
    "empathygraph.jsonl": {"empathygraph.errors"},
    "empathygraph.files": {"empathygraph.errors"},
    "empathygraph.trace.records": set(),
}


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _within(module: str, part: str) -> bool:
    return module == part or module.startswith(part + ".")


@cache
def imported(module: str, *, runtime_only: bool = False) -> frozenset[str]:
    """The package's modules that ``module`` imports (``runtime_only``: not those under ``if TYPE_CHECKING``)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if runtime_only and id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names}
    return frozenset(name for name in found if _within(name, "empathygraph") and name != module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_imports_and_keeps_the_layering(module: str):
    importlib.import_module(module)
    crossing = sorted(
        f"{module} imports {target} ({rule} -/-> {banned})"
        for target in imported(module)
        for rule, banned in FORBIDDEN
        if _within(module, rule) and _within(target, banned) and target not in LEAVES
    )
    assert not crossing, "\n".join(crossing)


@pytest.mark.parametrize("leaf", sorted(LEAVES))
def test_leaves_stay_leaves(leaf: str):
    assert imported(leaf) <= LEAVES[leaf], f"{leaf} is a leaf: it may import only {sorted(LEAVES[leaf]) or 'nothing'}"


def test_no_module_imports_itself_back():
    graph = nx.DiGraph()
    for module in MODULES:
        for target in imported(module, runtime_only=True):
            while target not in MODULES and "." in target:
                target = target.rpartition(".")[0]
            graph.add_edge(module, target)
    cycles = [" -> ".join(cycle) for cycle in nx.simple_cycles(graph)]
    assert not cycles, "import cycles:\n" + "\n".join(cycles[:10])


def test_the_rules_see_a_crossing():
    """The checker itself: a source that imports across a line is caught."""
    assert "empathygraph.generators.base" in imported("empathygraph.generators.renderer")
    assert any(_within("empathygraph.tools.safety", rule) and _within("empathygraph.eval.metrics", banned)
               for rule, banned in FORBIDDEN)
