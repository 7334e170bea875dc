"""``tradeoff.pool`` holds no import loop, counting the imports inside functions and the
package's own ``__init__`` (a loop closed by an import in a function holds only at import
time), and no module of it is over 600 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import tradeoff.pool

POOL = Path(tradeoff.pool.__file__).parent
#: ``copa`` is COPA's criterion, on its way to ``tradeoff.choose``; it is counted in the
#: loops, not in the sizes.
MOVING = {"copa"}


def _module(path: Path) -> str:
    stem = path.stem
    return "tradeoff.pool" if stem == "__init__" else f"tradeoff.pool.{stem}"


def _imports(path: Path) -> set[str]:
    """Every module of ``tradeoff.pool`` that ``path`` imports, at any depth of its code."""
    submodules = {_module(p) for p in POOL.glob("*.py")}
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("tradeoff.pool")}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not node.module.startswith("tradeoff.pool"):
                continue
            for alias in node.names:  # `from tradeoff.pool import measuring` is a submodule
                name = f"{node.module}.{alias.name}"
                out.add(name if name in submodules else node.module)
    return out & submodules


def _loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle found by a depth-first walk (each as the path that closes it)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                walk(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node, [node])
    return found


def test_no_import_loop_in_pool_counting_imports_in_functions() -> None:
    graph = {_module(p): _imports(p) - {_module(p)} for p in POOL.glob("*.py")}
    assert _loops(graph) == []
    # what the old loop went through: the package imported back from a submodule it imports
    back = sorted(m for m, targets in graph.items() if "tradeoff.pool" in targets)
    assert back == [], f"{back} import tradeoff.pool back"


def test_the_loop_finder_finds_a_loop_closed_inside_a_function(tmp_path: Path) -> None:
    """The walk sees an import inside a function (the way ``sklearn_inputs`` imported
    ``tradeoff.pool`` back)."""
    code = "def f():\n    from tradeoff.pool import read_table\n    return read_table\n"
    (tmp_path / "x.py").write_text(code)
    assert _imports(tmp_path / "x.py") == {"tradeoff.pool"}
    graph = {"tradeoff.pool": {"tradeoff.pool.m"}, "tradeoff.pool.m": {"tradeoff.pool"}}
    assert _loops(graph) == [["tradeoff.pool", "tradeoff.pool.m", "tradeoff.pool"]]


def test_no_pool_module_is_over_600_lines() -> None:
    sizes = {
        p.name: len(p.read_text(encoding="utf-8").splitlines())
        for p in POOL.glob("*.py")
        if p.stem not in MOVING
    }
    assert {name: n for name, n in sizes.items() if n > 600} == {}
