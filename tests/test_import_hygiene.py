"""The numeric core must not import the terminal UI (checked in a clean interpreter).

The list of core modules is read from the import-linter contract in pyproject.toml, so the
test and the contract cannot drift apart.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib

import pytest

from .conftest import ROOT

pytestmark = pytest.mark.e2e

CONTRACT = "The core never imports the faces (tui, cli, web) or textual or the web server"


def core_modules() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if c["name"] == CONTRACT]
    return ["tradeoff", *contract["source_modules"]]


def core_modules_all() -> list[str]:
    """The contract's modules and every module inside its packages."""
    import importlib
    import pkgutil

    out = []
    for name in core_modules():
        out.append(name)
        module = importlib.import_module(name)
        if hasattr(module, "__path__") and name != "tradeoff":
            out += [info.name for info in pkgutil.walk_packages(module.__path__, f"{name}.")]
    return out


def test_contract_names_every_core_module() -> None:
    """Every module of the package is either in the core contract or a face."""
    import pkgutil

    import tradeoff

    core = set(core_modules())
    for info in pkgutil.iter_modules(tradeoff.__path__):
        name = f"tradeoff.{info.name}"
        if name in ("tradeoff.cli", "tradeoff.tui", "tradeoff.web", "tradeoff.__main__"):
            continue
        assert name in core, f"{name} is in neither the core contract nor a face"


def test_core_does_not_import_textual() -> None:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in core_modules_all())
        + "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'textual'"
        " or m.startswith(('tradeoff.cli', 'tradeoff.tui', 'tradeoff.web')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"core imported: {out}"


def test_import_tradeoff_is_cheap() -> None:
    code = "import sys, tradeoff; print(sorted(m for m in sys.modules if m.startswith('tradeoff')))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "['tradeoff', 'tradeoff.version']"


def test_the_study_web_page_does_not_import_textual_or_the_app() -> None:
    code = (
        "import sys\nimport tradeoff.web.flow, tradeoff.web.serving\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'textual'"
        " or m.startswith(('tradeoff.cli', 'tradeoff.tui')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"the web page imported: {out}"


#: What the command line's help must not load: the numeric stack, the data frames, the
#: scenario model (pydantic), the app's toolkit and the engine (hundreds of milliseconds
#: before a word of help; benchmarks/commands.py times ``tradeoff --help``).
HEAVY = ("numpy", "pandas", "scipy", "pydantic", "textual", "moocore", "tradeoff.learn")

HELP_OF_EVERY_COMMAND = """
import argparse, contextlib, io, sys
from tradeoff.cli import build_parser

def commands(parser, path=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name)
                yield from commands(sub, (*path, name))

parser = build_parser()
skip = tuple(tuple(s.split()) for s in sys.argv[1:])
paths = [()] + [p for p in commands(parser) if p not in skip]
for path in paths:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        parser.parse_args([*path, "--help"])
heavy = {HEAVY!r}
print(len(paths), sorted({{m for m in sys.modules if m.startswith(heavy)}}))
"""


def _help_imports(*skip: str) -> tuple[int, list[str]]:
    code = HELP_OF_EVERY_COMMAND.format(HEAVY=HEAVY)
    out = subprocess.run(
        [sys.executable, "-c", code, *skip], capture_output=True, text=True, check=True
    ).stdout.split(" ", 1)
    return int(out[0]), ast.literal_eval(out[1])


def test_the_help_of_every_command_loads_nothing_heavy() -> None:
    """``tradeoff --help`` and each command's ``--help``: the parser is built and every help
    written, and none of the heavy modules is imported (``pool rank``'s help lists the
    ranking methods, read from :mod:`tradeoff.choose.copa`: it alone, and its old name
    ``rank``, are allowed them)."""
    count, loaded = _help_imports("pool rank", "rank")
    assert count > 20  # the walk found the commands
    assert loaded == []


def test_the_rank_help_loads_the_ranking_registry_only() -> None:
    code = (
        "import contextlib, io, sys\nfrom tradeoff.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    main(['pool', 'rank', '--help'])\n"
        "assert 'copa, naive, ideal, delta, norm' in out.getvalue()\n"
        "print(sorted(m for m in sys.modules if m.startswith(('scipy', 'textual', "
        "'tradeoff.learn', 'tradeoff.record'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"


def test_python_m_tradeoff_help_loads_nothing_heavy() -> None:
    """The console script's own path (``python -m tradeoff --help``), as a person runs it."""
    code = (
        "import runpy, sys\nsys.argv = ['tradeoff', '--help']\n"
        "try:\n    runpy.run_module('tradeoff', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})), file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "usage: tradeoff" in out.stdout
    assert out.stderr.strip() == "[]"
