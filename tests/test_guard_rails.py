"""The guard rails that keep the house: no module over 600 lines; no import loop, counting
the imports inside functions and under ``if TYPE_CHECKING`` (but the command line's, which
are lazy for start-up); every test file in one tier; no test file listed by hand.

Each check is a function of a folder (tests/guards.py); the tests below run it on the code,
and on small packages and test folders made in ``tmp_path`` that show it fails when it must.
"""

from __future__ import annotations

import functools
import re
import textwrap
import types
from pathlib import Path

import pytest

from .conftest import ROOT, _mark_expression, module_tier_problem
from .guards import (
    MAX_LINES,
    Edge,
    file_ruled_out,
    find_loops,
    import_edges,
    import_loops,
    long_modules,
    named_test_files,
    tier_problems,
)

pytestmark = pytest.mark.core

SRC = ROOT / "src"


@functools.cache
def code_edges() -> tuple[Edge, ...]:
    """The package's imports, but the command line's (read once for the tests below)."""
    return tuple(import_edges(SRC, "tradeoff", ignore_from=["tradeoff.cli"]))


# -- on the code ------------------------------------------------------------------------


def test_no_module_is_over_600_lines() -> None:
    long = long_modules(SRC / "tradeoff", MAX_LINES)
    assert not long, "\n".join(
        f"{path.relative_to(ROOT)}: {lines} lines (over {MAX_LINES}): split it by job, "
        "each job a module of its own"
        for path, lines in long
    )


def test_no_import_loop_even_inside_functions() -> None:
    loops = find_loops(list(code_edges()))
    assert not loops, (
        f"{len(loops)} import loops (an import inside a function or under TYPE_CHECKING "
        "closes a loop too); open each by placing the shared names lower:\n"
        + "\n".join(loop.describe(ROOT) for loop in loops)
    )


def test_every_test_file_declares_one_tier() -> None:
    problems = tier_problems(ROOT / "tests")
    assert not problems, "\n".join(problems)


def test_the_makefile_lists_no_test_file() -> None:
    named = named_test_files(ROOT / "Makefile")
    assert not named, (
        "the Makefile names test files (a new file would be missed): mark them instead "
        "(`pytest.mark.other_path`) and select with -m:\n" + "\n".join(named)
    )


def test_the_checks_see_the_code() -> None:
    """The checks read the real package: its modules, its imports (functions' too)."""
    edges = code_edges()
    sources = {e.source for e in edges}
    assert "tradeoff.choose.decide" in sources and "tradeoff.pool" in sources
    assert not any(s.startswith("tradeoff.cli") for s in sources)
    assert {e.where for e in edges} == {"at import", "in a function", "under TYPE_CHECKING"}


# -- the checks fail when they must -----------------------------------------------------


def write(root: Path, files: dict[str, str]) -> Path:
    """A tree of files under ``root`` (``{"pkg/a.py": source}``)."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def loops_in(tmp_path: Path, files: dict[str, str], **kwargs: list[str]) -> list[str]:
    write(tmp_path, {"pkg/__init__.py": "", **files})
    return [" ".join(loop.modules) for loop in import_loops(tmp_path, "pkg", **kwargs)]


def test_a_module_of_601_lines_is_too_long_and_600_is_not(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/ok.py": "x = 1\n" * 600, "pkg/sub/long.py": "x = 1\n" * 601})
    assert long_modules(tmp_path) == [(tmp_path / "pkg/sub/long.py", 601)]


def test_a_loop_closed_inside_a_function_is_a_loop(tmp_path: Path) -> None:
    files = {
        "pkg/a.py": "from pkg.b import f\n",
        "pkg/b.py": "def f() -> None:\n    from pkg.a import g\n",
    }
    assert loops_in(tmp_path, files) == ["pkg.a pkg.b"]
    (loop,) = import_loops(tmp_path, "pkg")
    assert [(e.source, e.target, e.line, e.where) for e in loop.cycle] == [
        ("pkg.a", "pkg.b", 1, "at import"),
        ("pkg.b", "pkg.a", 2, "in a function"),
    ]
    assert "pkg/b.py:2, in a function" in loop.describe(tmp_path)


def test_no_loop_without_the_import_back(tmp_path: Path) -> None:
    files = {"pkg/a.py": "from pkg.b import f\n", "pkg/b.py": "def f() -> None:\n    pass\n"}
    assert loops_in(tmp_path, files) == []


def test_a_loop_under_type_checking_is_a_loop(tmp_path: Path) -> None:
    files = {
        "pkg/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        "pkg/b.py": "from . import a\n",
    }
    assert loops_in(tmp_path, files) == ["pkg.a pkg.b"]


def test_relative_imports_resolve_against_the_package(tmp_path: Path) -> None:
    files = {
        "pkg/sub/__init__.py": "",
        "pkg/sub/x.py": "from ..top import t\n",
        "pkg/top.py": "def t() -> None:\n    from .sub import x\n",
    }
    assert loops_in(tmp_path, files) == ["pkg.sub.x pkg.top"]


def test_a_package_and_its_submodule_importing_it_are_a_loop(tmp_path: Path) -> None:
    files = {
        "pkg/sub/__init__.py": "from .inner import f\nNAME = 1\n",
        "pkg/sub/inner.py": "def f() -> int:\n    from pkg.sub import NAME\n    return NAME\n",
    }
    assert loops_in(tmp_path, files) == ["pkg.sub pkg.sub.inner"]


def test_from_a_package_import_a_module_imports_that_module(tmp_path: Path) -> None:
    files = {
        "pkg/sub/__init__.py": "",
        "pkg/sub/inner.py": "import pkg.top\n",
        "pkg/top.py": "from pkg.sub import inner\n",
    }
    assert loops_in(tmp_path, files) == ["pkg.sub.inner pkg.top"]


def test_the_imports_of_an_ignored_package_close_no_loop(tmp_path: Path) -> None:
    files = {
        "pkg/cli/__init__.py": "",
        "pkg/cli/main.py": "def main() -> None:\n    from pkg import core\n",
        "pkg/core.py": "from pkg.cli import main\n",
    }
    assert loops_in(tmp_path, files) == ["pkg.cli.main pkg.core"]
    assert loops_in(tmp_path, files, ignore_from=["pkg.cli"]) == []


def test_each_loop_is_reported_once_with_a_cycle_through_it(tmp_path: Path) -> None:
    files = {
        "pkg/a.py": "import pkg.b\n",
        "pkg/b.py": "import pkg.c\n",
        "pkg/c.py": "def f() -> None:\n    import pkg.a\n",
        "pkg/d.py": "import pkg.e\n",
        "pkg/e.py": "import pkg.d\n",
    }
    assert loops_in(tmp_path, files) == ["pkg.a pkg.b pkg.c", "pkg.d pkg.e"]
    cycle = import_loops(tmp_path, "pkg")[0].cycle
    assert [e.source for e in cycle] == ["pkg.a", "pkg.b", "pkg.c"]
    assert [e.target for e in cycle] == ["pkg.b", "pkg.c", "pkg.a"]


TIERED = "import pytest\n\npytestmark = pytest.mark.core\n\n\ndef test_x() -> None:\n    pass\n"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (TIERED, None),
        ("import pytest\n\npytestmark = [pytest.mark.e2e, pytest.mark.other_path]\n", None),
        ("def test_x() -> None:\n    pass\n", "declares no tier"),
        ("import pytest\n\npytestmark = pytest.mark.slow\n", "without its tier"),
        ("import pytest\n\npytestmark = [pytest.mark.core, pytest.mark.stats]\n", "2 tiers"),
        (TIERED + "if True:\n    pytestmark = pytest.mark.skip\n", "without its tier"),
        (TIERED.replace("pytestmark = ", "def f() -> None:\n    pytestmark = "), "no tier"),
    ],
)
def test_a_test_file_without_one_tier_is_named(
    tmp_path: Path, text: str, problem: str | None
) -> None:
    write(tmp_path, {"tests/sub/test_one.py": text, "tests/helper.py": ""})
    problems = tier_problems(tmp_path / "tests")
    if problem is None:
        assert problems == []
    else:
        (found,) = problems
        assert str(tmp_path / "tests/sub/test_one.py") in found and problem in found


@pytest.mark.parametrize(
    ("marks", "problem"),
    [
        (pytest.mark.core, None),
        ([pytest.mark.browser, pytest.mark.skip], None),
        (None, "declares no tier"),
        ([pytest.mark.core, pytest.mark.e2e], "2 tiers"),
    ],
)
def test_the_run_stops_at_a_module_without_one_tier(marks: object, problem: str | None) -> None:
    """The collection hook's check (tests/conftest.py) of an imported test module."""
    module = types.ModuleType("test_one")
    module.__file__ = "tests/test_one.py"
    if marks is not None:
        module.pytestmark = marks  # type: ignore[attr-defined]
    found = module_tier_problem(module)
    assert (found is None) if problem is None else (problem in (found or ""))


E2E = "import pytest\n\npytestmark = pytest.mark.e2e\n\n\ndef test_x() -> None:\n    pass\n"


@pytest.mark.parametrize(
    ("text", "markexpr", "left_out"),
    [
        (TIERED, "core and not stats", False),
        (E2E, "core and not stats", True),
        (E2E, "core or stats", True),
        (E2E, "not core", False),
        (TIERED, "e2e", True),
        # a test of the file may carry the mark the expression looks for
        (E2E + "@pytest.mark.core\ndef test_y() -> None:\n    pass\n", "core", False),
        (TIERED + "@pytest.mark.slow\ndef test_y() -> None:\n    pass\n", "stats", False),
        (TIERED + "@pytest.mark.slow\ndef test_y() -> None:\n    pass\n", "core", False),
        (E2E + "@pytest.mark.slow\ndef test_y() -> None:\n    pass\n", "core", True),
        (TIERED.replace("core", "stats"), "core and not stats", True),
        # a doctest is core, whatever the file's tier
        (E2E + 'def f() -> None:\n    """>>> f()"""\n', "core and not stats", False),
        # a file whose tier is not declared once is imported, to say what is wrong
        ("def test_x() -> None:\n    pass\n", "core", False),
        ("import pytest\n\npytestmark = [pytest.mark.e2e, pytest.mark.stats]\n", "core", False),
    ],
)
def test_a_run_with_m_leaves_out_only_files_it_cannot_select(
    tmp_path: Path, text: str, markexpr: str, left_out: bool
) -> None:
    """What the collection hook (tests/conftest.py) leaves out under ``-m``, read from the
    file's text (tests/test_tier_filter.py checks it on the whole suite)."""
    write(tmp_path, {"test_one.py": text})
    found = _mark_expression(markexpr)
    assert found is not None
    selects, names = found
    assert file_ruled_out(tmp_path / "test_one.py", selects, names) is left_out
    assert file_ruled_out(tmp_path / "test_one.py", selects) is left_out


def test_a_makefile_that_names_a_test_file_is_named(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Makefile": "# the reference (tests/test_ref.py) is a comment\n"
            "check:\n\tpytest -m core\nLIST := tests/a/test_one.py \\\n\ttests/test_two.py\n"
        },
    )
    assert named_test_files(tmp_path / "Makefile") == [
        "Makefile:4: tests/a/test_one.py",
        "Makefile:5: tests/test_two.py",
    ]


def test_array_types_are_defined_once() -> None:
    """``FloatArray`` and its kin are defined in :mod:`tradeoff.arrays` only (once they were
    defined in 38 modules, each its own)."""
    alias = re.compile(r"^(\w*Array)\s*(?::\s*TypeAlias\s*)?=\s*\S*NDArray\[", re.M)
    found = [
        f"{path.relative_to(SRC.parent)}: {m.group(1)}"
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "arrays.py"
        for m in alias.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not found, "import the array types from tradeoff.arrays instead: " + ", ".join(found)
