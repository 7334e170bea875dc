"""docs/architecture.md matches the code: every module it names exists, every module of the
package is named there, and the house's tree lists each stage folder's modules."""

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


def tree_in_doc() -> dict[str, set[str]]:
    """The folders of the house's tree (``## The house``) and the modules each line lists
    (a note in brackets is not a module)."""
    block = DOC.split("## The house", 1)[1].split("```", 2)[1]
    folders: dict[str, set[str]] = {}
    current = None
    for line in block.splitlines():
        match = re.match(r"  ([a-z_]+)/\s+(.*)", line)
        if match:
            current, text = match.groups()
            folders[current] = set()
        elif current is not None and line.startswith("      "):
            text = line
        else:
            current = None
            continue
        text = re.sub(r"\([^)]*\)", "", text)
        folders[current] |= {word.strip() for word in text.split(",") if word.strip()}
    return folders


def test_the_tree_lists_every_module_of_each_stage_folder() -> None:
    """The tree names each stage folder's modules, no more and no fewer (a module split or
    renamed shows here first)."""
    tree = tree_in_doc()
    assert {"ask", "learn", "record", "judge", "pool", "choose", "study", "simulation"} <= set(tree)
    package = ROOT / "src" / "tradeoff"
    for folder, listed in tree.items():
        on_disk = {p.stem for p in (package / folder).glob("*.py") if p.stem != "__init__"}
        assert listed == on_disk, (
            f"docs/architecture.md's tree, {folder}/: missing {sorted(on_disk - listed)}, "
            f"gone {sorted(listed - on_disk)}"
        )
