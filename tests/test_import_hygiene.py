"""The numeric core must not import the terminal UI (checked in a clean interpreter).

The list of core modules is read from the import-linter contract in pyproject.toml, so the
test and the contract cannot drift apart.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib

from .conftest import ROOT

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
