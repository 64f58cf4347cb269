"""The package's import graph has no circle.

Every module of ``gridwm_judge`` is parsed with ``ast`` (nothing is imported), and every import
of a package module is an edge: module-level and function-level alike, since a function-local
import only hides a circle until the function runs; a type-only import (``if TYPE_CHECKING``)
counts too, as a circle a reader still has to untangle. ``from X import name`` is an edge to
``X.name`` when that is a module, else to ``X``. Importing ``a.b.c`` also runs ``a.b``'s
``__init__``, but that is how packages work and not counted: an edge goes to the module named.
"""

from __future__ import annotations

import ast
from pathlib import Path

import gridwm_judge

PACKAGE = "gridwm_judge"
ROOT = Path(gridwm_judge.__file__).resolve().parent

LAYERS: tuple[tuple[str, ...], ...] = (
    ("seeds", "schema", "results", "records", "item_hash", "resources", "world", "atomic",
     "locks", "redact", "workers", "command_line", "lazy_sequence", "install", "formats",
     "prices"),
    ("worlds.core",),
    ("worlds.minigrid", "worlds.miniworld"),
    ("worlds",),
    ("task_table", "prompts", "parsing", "headlines"),
    ("scoring._arrays", "scoring.causal"),  # pure metric functions: the build's ceilings too
    ("render",),
    ("tasks",),
    ("dataset", "dataset_io", "judges"),
    ("runner", "release"),
    ("scoring",),
    ("report",),
    ("integrations", "publish"),
    ("quickstart", "cli", "__main__"),
    ("testing",),  # test support: imported by no library module
)
"""The pipeline's direction, lowest first: a module may import its own layer and the ones
below, never one above (no import that runs back up). A name is a dotted path under the
package; a module belongs to the longest name that contains it (``worlds.minigrid.cards`` to
``worlds.minigrid``, ``worlds.commands`` to ``worlds``)."""


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def _resolve(importer: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """module -> modules of the package at ``root`` it imports anywhere in its source."""
    mods = modules(root)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(mod, is_package, node.level, node.module)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                           for a in node.names]
            for target in targets:
                if target in mods and target != mod:
                    graph[mod].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                scc = set()
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    scc.add(m)
                    if m == node:
                        break
                if len(scc) > 1:
                    out.append(frozenset(scc))
    return out


def describe(scc: frozenset[str], graph: dict[str, set[str]]) -> str:
    edges = sorted(f"{a} -> {b}" for a in scc for b in graph[a] if b in scc)
    return "{" + ", ".join(sorted(scc)) + "}: " + "; ".join(edges)


def test_graph_sees_every_kind_of_import(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from pkg.sub import low\n",
        "top.py": "import json\nimport pkg.sub.low as low\n\n"
                  "def f():\n    from pkg import mid\n    from .sub.low import VALUE\n",
        "mid.py": "from . import top\nfrom pkg.sub import low, NAME\n",
        "sub/__init__.py": "NAME = 1\n",
        "sub/low.py": "def g():\n    from ..mid import thing\n    from . import NAME\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    graph = import_graph(pkg)
    assert graph == {
        "pkg": {"pkg.sub.low"},
        "pkg.top": {"pkg.sub.low", "pkg.mid"},  # function-local ones included
        "pkg.mid": {"pkg.top", "pkg.sub.low", "pkg.sub"},
        "pkg.sub": set(),
        "pkg.sub.low": {"pkg.mid", "pkg.sub"},
    }
    assert cycles(graph) == [frozenset({"pkg.top", "pkg.mid", "pkg.sub.low"})]
    assert len(import_graph()) > 50  # the real package is found


def test_cycle_finder_finds_a_circle_through_a_function_local_import():
    graph = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.a"}}
    assert cycles(graph) == [frozenset({"p.a", "p.b", "p.c"})]
    assert cycles({"p.a": {"p.b"}, "p.b": set()}) == []


def test_no_import_cycle():
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(describe(c, graph) for c in found)


def _layer(module: str) -> int | None:
    parts = module.removeprefix(f"{PACKAGE}.").split(".")
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        for i, names in enumerate(LAYERS):
            if name in names:
                return i
    return None


def _placed(module: str) -> int:
    layer = _layer(module)
    assert layer is not None, f"{module} has no layer in LAYERS"
    return layer


def test_a_module_takes_the_layer_of_its_longest_name():
    assert _placed(f"{PACKAGE}.worlds.minigrid.cards") == _placed(f"{PACKAGE}.worlds.miniworld")
    assert _placed(f"{PACKAGE}.worlds.core.draw") < _placed(f"{PACKAGE}.worlds.minigrid.cards")
    assert _placed(f"{PACKAGE}.worlds.minigrid") < _placed(f"{PACKAGE}.worlds.commands")
    assert _placed(f"{PACKAGE}.worlds") < _placed(f"{PACKAGE}.task_table")
    assert _layer(f"{PACKAGE}.nowhere") is None


def test_no_world_imports_its_sibling():
    """MiniGrid and MiniWorld share code only through ``worlds.core``."""
    worlds = ("minigrid", "miniworld")
    crossing = sorted(
        f"{a} -> {b}" for a, targets in import_graph().items() for b in targets
        for w in worlds for other in worlds
        if w != other and a.startswith(f"{PACKAGE}.worlds.{w}")
        and b.startswith(f"{PACKAGE}.worlds.{other}"))
    assert not crossing, "a world imports its sibling:\n" + "\n".join(crossing)


def test_no_import_runs_back_up_the_pipeline():
    graph = import_graph()
    unplaced = sorted({m for m in graph if m != PACKAGE and _layer(m) is None})
    assert not unplaced, f"modules with no layer in LAYERS: {unplaced}"
    upward = [
        f"{a} -> {b}"
        for a, targets in graph.items()
        for b in targets
        if a != PACKAGE and b != PACKAGE and _placed(b) > _placed(a)
    ]
    assert not upward, "imports that run back up the pipeline:\n" + "\n".join(sorted(upward))
