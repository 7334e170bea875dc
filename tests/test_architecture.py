"""docs/architecture.md matches the code: every module it names exists, and every module
of the package is named there."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import tradeoff

from .conftest import ROOT

pytestmark = pytest.mark.core

DOC = (ROOT / "docs" / "architecture.md").read_text()


def named_in_doc() -> set[str]:
    names = set(re.findall(r"`(tradeoff(?:\.[a-z_][a-z0-9_]*)*)`", DOC))
    # "`tradeoff.cli` | `parser`, `common`, …": submodules listed in a package's row.
    for row in DOC.splitlines():
        match = re.match(r"\| `(tradeoff\.[a-z_]+)` \| ([^|]*)\|", row)
        if match:
            package, listed = match.groups()
            names |= {f"{package}.{m}" for m in re.findall(r"`([a-z_][a-z0-9_]*)`", listed)}
    return names


def modules_in_code() -> set[str]:
    out = {"tradeoff"}
    for info in pkgutil.walk_packages(tradeoff.__path__, "tradeoff."):
        if info.name.endswith("__main__"):
            continue
        out.add(info.name)
    return out


def test_every_module_named_exists() -> None:
    for name in sorted(named_in_doc()):
        if name.startswith("tradeoff.") and name.count(".") <= 2:
            parent, _, attr = name.rpartition(".")
            try:
                importlib.import_module(name)
            except ModuleNotFoundError:
                assert hasattr(importlib.import_module(parent), attr), name


def test_every_module_is_named() -> None:
    missing = modules_in_code() - named_in_doc()
    assert not missing, f"not described in docs/architecture.md: {sorted(missing)}"
