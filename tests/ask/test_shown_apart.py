"""What the screen shows stands apart from the words about it.

The engine (``tradeoff.learn``) and the simulated people (``tradeoff.simulation``) answer on
the numbers a person reads (:mod:`tradeoff.ask.shown`); the prompts and the trade-offs in
words (:mod:`tradeoff.ask.words`, :mod:`tradeoff.ask.narrative`, :mod:`tradeoff.ask.aspects`)
read those numbers and are never read by them. Imports inside functions count: a loop
closed by one holds only at import time.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tradeoff

pytestmark = pytest.mark.core

SRC = Path(tradeoff.__file__).resolve().parent
WORDS = {"tradeoff.ask.words", "tradeoff.ask.narrative", "tradeoff.ask.aspects"}


def _module(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (inside functions too), as written; a
    ``from package import name`` counts ``package.name`` as well."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out |= {f"{node.module}.{alias.name}" for alias in node.names}
    return out


def _graph(folder: str) -> dict[str, set[str]]:
    paths = sorted((SRC / folder).glob("*.py"))
    names = {_module(p) for p in paths}
    return {_module(p): (_imports(p) & names) - {_module(p)} for p in paths}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A loop in ``graph`` (depth-first), or ``None``."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_cycle_finder_finds_a_loop_closed_inside_a_function() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_loop_between_ask_modules() -> None:
    assert _cycle(_graph("ask")) is None


def test_the_numbers_shown_read_no_words() -> None:
    for name in ("shown", "queries", "scenario"):
        assert not _imports(SRC / "ask" / f"{name}.py") & WORDS, name


def test_learning_and_the_simulated_people_import_only_the_numbers() -> None:
    for folder in ("learn", "simulation"):
        for path in sorted((SRC / folder).glob("*.py")):
            assert not _imports(path) & WORDS, path.name
