"""The guard rails' checks, each a function of a folder so that its tests can point it at a
small package or test folder of their own (tests/test_guard_rails.py).

- :func:`long_modules`: modules over a number of lines;
- :func:`import_loops`: loops among a package's modules, counting the imports inside
  functions and under ``if TYPE_CHECKING`` (a loop closed at call time is a loop);
- :func:`tier_problems`: test files that do not declare exactly one tier;
- :func:`file_ruled_out`: test files none of whose tests a mark expression selects, read
  without importing them (a run with ``-m`` does not import them: tests/conftest.py);
- :func:`named_test_files`: test files a Makefile lists by name.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Set
from dataclasses import dataclass
from pathlib import Path

#: The tiers a test file is in (``make check`` runs the core; ``make test`` runs all).
TIERS = ("core", "stats", "e2e", "browser")

#: The most lines a module may have.
MAX_LINES = 600


def long_modules(root: Path, limit: int = MAX_LINES) -> list[tuple[Path, int]]:
    """Every ``.py`` file under ``root`` with more than ``limit`` lines, longest first.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     root = Path(folder)
    ...     _ = (root / "long.py").write_text("x = 1\\n" * 4)
    ...     _ = (root / "short.py").write_text("x = 1\\n" * 3)
    ...     [(p.name, n) for p, n in long_modules(root, limit=3)]
    [('long.py', 4)]
    """
    out = []
    for path in sorted(root.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            out.append((path, lines))
    return sorted(out, key=lambda item: -item[1])


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` at ``path``:``line``; ``where`` says when it runs."""

    source: str
    target: str
    path: Path
    line: int
    where: str  # "at import", "in a function" or "under TYPE_CHECKING"


def package_modules(src: Path, package: str) -> dict[str, Path]:
    """The dotted name of every module of ``package`` (a folder of ``src``): its file.

    A folder without ``__init__.py`` (data shipped beside the code) is not a package.
    """
    out: dict[str, Path] = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        folders = (src.joinpath(*parts[:i]) for i in range(1, len(parts)))
        if not all((folder / "__init__.py").is_file() for folder in folders):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement of a module, anywhere in it, with when it runs."""
    todo: list[tuple[ast.AST, str]] = [(tree, "at import")]
    while todo:
        node, where = todo.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, where
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            where = "in a function"
        if isinstance(node, ast.If) and _type_checking(node.test):
            todo += [(child, "under TYPE_CHECKING") for child in node.body]
            todo += [(child, where) for child in node.orelse]
            continue
        todo += [(child, where) for child in ast.iter_child_nodes(node)]


def module_imports(name: str, path: Path, modules: dict[str, Path]) -> list[Edge]:
    """The imports of module ``name`` (its file ``path``) among ``modules``.

    A relative import is resolved against the module's package; ``from pkg import name``
    imports the module ``pkg.name`` when there is one, else ``pkg``; ``import a.b`` imports
    ``a.b`` (or the longest of its prefixes that is one of ``modules``).
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    edges: list[Edge] = []

    def add(target: str | None, node: ast.stmt, where: str) -> None:
        if target is not None and target != name:
            edges.append(Edge(name, target, path, node.lineno, where))

    def known(dotted: str) -> str | None:
        parts = dotted.split(".")
        for end in range(len(parts), 0, -1):
            if ".".join(parts[:end]) in modules:
                return ".".join(parts[:end])
        return None

    for node, where in _imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(known(alias.name), node, where)
            continue
        if node.level:
            base_parts = package[: len(package) - (node.level - 1)]
            base = ".".join([*base_parts, *([node.module] if node.module else [])])
        else:
            base = node.module or ""
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            add(sub if sub in modules else known(base), node, where)
    return edges


def import_edges(src: Path, package: str, ignore_from: Iterable[str] = ()) -> list[Edge]:
    """Every import among ``package``'s modules, but those made by the modules in (or
    under) ``ignore_from``."""
    ignored = tuple(ignore_from)
    modules = package_modules(src, package)
    edges: list[Edge] = []
    for name, path in modules.items():
        if any(name == i or name.startswith(f"{i}.") for i in ignored):
            continue
        edges += module_imports(name, path, modules)
    return edges


def _components(nodes: list[str], succ: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for start in nodes:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            children = succ.get(node, [])
            if i < len(children):
                work.append((node, i + 1))
                child = children[i]
                if child not in index:
                    work.append((child, 0))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                out.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return out


@dataclass(frozen=True)
class Loop:
    """Modules that import each other round a loop, and one cycle through them."""

    modules: list[str]
    cycle: list[Edge]

    def describe(self, root: Path) -> str:
        """The loop in words: its modules, then each import of one cycle with its file:line."""
        lines = [f"a loop of {len(self.modules)} modules: {', '.join(self.modules)}"]
        for edge in self.cycle:
            where = edge.path.relative_to(root) if edge.path.is_relative_to(root) else edge.path
            lines.append(f"    {edge.source} -> {edge.target}  ({where}:{edge.line}, {edge.where})")
        return "\n".join(lines)


def find_loops(edges: list[Edge]) -> list[Loop]:
    """The loops among ``edges``: each strongly connected component of more than one
    module, with the shortest cycle through its first module (by name)."""
    first: dict[tuple[str, str], Edge] = {}
    for edge in sorted(edges, key=lambda e: (e.source, e.target, e.line)):
        first.setdefault((edge.source, edge.target), edge)
    succ: dict[str, list[str]] = {}
    for source, target in first:
        succ.setdefault(source, []).append(target)
    nodes = sorted({n for pair in first for n in pair})
    loops = []
    for component in _components(nodes, succ):
        if len(component) < 2:
            continue
        members = set(component)
        start = component[0]
        came: dict[str, str] = {}
        queue = deque([start])
        while queue:  # breadth first, so the cycle found is a shortest one
            node = queue.popleft()
            if node == start and came:
                break
            for child in succ.get(node, []):
                if child in members and child not in came:
                    came[child] = node
                    queue.append(child)
        path = [start]
        while len(path) == 1 or path[-1] != start:
            path.append(came[path[-1]])
        path.reverse()
        cycle = [first[(a, b)] for a, b in itertools.pairwise(path)]
        loops.append(Loop(component, cycle))
    return sorted(loops, key=lambda loop: (-len(loop.modules), loop.modules))


def import_loops(src: Path, package: str, ignore_from: Iterable[str] = ()) -> list[Loop]:
    """The import loops among ``package``'s modules (see :func:`import_edges`)."""
    return find_loops(import_edges(src, package, ignore_from))


def _is_pytestmark(target: ast.expr) -> bool:
    return isinstance(target, ast.Name) and target.id == "pytestmark"


def _tier_marks(node: ast.AST) -> list[str]:
    """The tiers named as ``pytest.mark.<tier>`` in an expression."""
    return [
        sub.attr
        for sub in ast.walk(node)
        if isinstance(sub, ast.Attribute)
        and sub.attr in TIERS
        and isinstance(sub.value, ast.Attribute)
        and sub.value.attr == "mark"
        and isinstance(sub.value.value, ast.Name)
        and sub.value.value.id == "pytest"
    ]


def _module_level(tree: ast.Module) -> Iterator[ast.stmt]:
    """A module's statements outside functions and classes (inside ``if`` and ``try`` too)."""
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop(0)
        yield node
        if isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
            for field in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, field, []):
                    if isinstance(child, ast.ExceptHandler):
                        todo.extend(child.body)
                    else:
                        todo.append(child)


def _assigned_tiers(tree: ast.Module) -> list[tuple[int, list[str]]]:
    """Each module-level assignment of ``pytestmark``: its line and the tiers it names."""
    assigned: list[tuple[int, list[str]]] = []
    for node in _module_level(tree):
        if isinstance(node, ast.Assign) and any(_is_pytestmark(t) for t in node.targets):
            assigned.append((node.lineno, _tier_marks(node.value)))
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and _is_pytestmark(node.target):
            assigned.append((node.lineno, _tier_marks(node.value) if node.value else []))
    return assigned


def file_tier_problem(path: Path) -> str | None:
    """What is wrong with a test file's tier, or None when it declares exactly one: a
    module-level ``pytestmark`` naming one of :data:`TIERS` as ``pytest.mark.<tier>``,
    never assigned again without it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return _tier_problem(path, _assigned_tiers(tree))


def _tier_problem(path: Path, assigned: list[tuple[int, list[str]]]) -> str | None:
    fix = (
        "add `pytestmark = pytest.mark.core` (or stats, e2e, browser; a list when there are "
        "other marks) at the top of the file"
    )
    if not assigned:
        return f"{path}: declares no tier; {fix}"
    for line, tiers in assigned:
        if len(tiers) > 1:
            return f"{path}:{line}: declares {len(tiers)} tiers ({', '.join(tiers)}); keep one"
        if not tiers:
            return (
                f"{path}:{line}: sets pytestmark without its tier (the tier is lost); "
                "append to the list instead (`pytestmark.append(...)`)"
            )
    return None


#: A mark named in a file's text: ``pytest.mark.slow``, ``mark.parametrize``.
_MARK = re.compile(r"\bmark\.([A-Za-z_]\w*)")


def file_marks(path: Path) -> tuple[str, frozenset[str]] | None:
    """A test file's tier and every other mark one of its tests may carry, read without
    importing the file: each ``mark.NAME`` its text names, ``stats`` beside ``slow``
    (tests/conftest.py marks the slow tests stats), and ``core`` when the text has an example
    (``>>>``: a doctest is core). None when the file does not declare
    exactly one tier, the same in every assignment of ``pytestmark``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "test_one.py"
    ...     text = "import pytest\\npytestmark = pytest.mark.e2e\\n@pytest.mark.slow\\n"
    ...     _ = path.write_text(text + "def test_x() -> None:\\n    pass\\n")
    ...     tier, others = file_marks(path)
    >>> tier, sorted(others)
    ('e2e', ['slow', 'stats'])
    """
    text = path.read_text(encoding="utf-8")
    assigned = _assigned_tiers(ast.parse(text, str(path)))
    tiers = {tier for _, named in assigned for tier in named}
    if len(tiers) != 1 or _tier_problem(path, assigned) is not None:
        return None
    (tier,) = tiers
    others = set(_MARK.findall(text)) - {tier}
    if "slow" in others:
        others.add("stats")
    if ">>>" in text:
        others.add("core")
    others.discard(tier)
    return tier, frozenset(others)


def file_ruled_out(
    path: Path, selects: Callable[[Set[str]], bool], names: Set[str] | None = None
) -> bool:
    """Whether no test of the file at ``path`` can be selected by ``selects`` (a mark
    expression, as a function of one test's marks): it is false for the file's tier with
    every combination of the other marks the file's tests may carry (:func:`file_marks`;
    ``names``: the marks the expression looks at, when known, the others left out). A file
    whose tier is not declared once is never ruled out: collecting it says what is wrong.

    Examples
    --------
    >>> import tempfile
    >>> core = lambda marks: "core" in marks and "stats" not in marks
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "test_one.py"
    ...     _ = path.write_text("import pytest\\npytestmark = pytest.mark.e2e\\n")
    ...     e2e = file_ruled_out(path, core)
    ...     _ = path.write_text("import pytest\\npytestmark = pytest.mark.core\\n")
    ...     kept = file_ruled_out(path, core)
    >>> e2e, kept
    (True, False)
    """
    found = file_marks(path)
    if found is None:
        return False
    tier, others = found
    free = sorted(others if names is None else others & names)
    if len(free) > 10:  # too many combinations to try: collect the file
        return False
    return not any(
        selects({tier, *combo})
        for size in range(len(free) + 1)
        for combo in itertools.combinations(free, size)
    )


def tier_problems(tests: Path) -> list[str]:
    """Every test file (``test_*.py``) under ``tests`` whose tier is not declared once."""
    problems = (file_tier_problem(p) for p in sorted(tests.rglob("test_*.py")))
    return [p for p in problems if p is not None]


def named_test_files(makefile: Path) -> list[str]:
    """The test files a Makefile names outside its comments (a list typed by hand, which a
    new file silently misses: a marker selects them instead)."""
    named = []
    for number, line in enumerate(makefile.read_text(encoding="utf-8").splitlines(), 1):
        code = line.split("#", 1)[0]
        named += [f"{makefile.name}:{number}: {m}" for m in re.findall(r"\S*test_\w*\.py", code)]
    return named
