"""The README's command list is complete: every command of the command line is there, with
every one of its options (so a user reading it learns of the panel, quota and language
options, the pilot commands and ``pool from-optuna`` as of anything else)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from tradeoff.cli import build_parser

from ..conftest import ROOT

pytestmark = pytest.mark.core


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every command that runs something (``("study", "create")``), with its parser."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs or path:
        yield path, parser
    for name, sub in subs[0].choices.items() if subs else ():
        yield from commands(sub, (*path, name))


def listed() -> dict[tuple[str, ...], str]:
    """The README's "## Commands" block: each ``tradeoff …`` line with the lines that
    continue it, by the command words it starts with."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("\n## Commands", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    out: dict[tuple[str, ...], str] = {}
    current: tuple[str, ...] | None = None
    for line in block.splitlines():
        found = re.match(r"tradeoff((?: [a-z][a-z-]*)*)", line)
        if found is not None:
            current = tuple(found.group(1).split())
            out.setdefault(current, "")
        if current is not None:
            out[current] += " " + line
    return out


def test_the_readme_lists_every_command_with_every_option() -> None:
    said = listed()
    gaps = []
    for path, parser in commands(build_parser()):
        text = " ".join(v for k, v in said.items() if k[: len(path)] == path)
        if not text:
            gaps.append(f"tradeoff {' '.join(path)}: not listed")
            continue
        options = {s for a in parser._actions for s in a.option_strings if s.startswith("--")} - {
            "--help",
            "--version",
        }
        missing = sorted(o for o in options if not re.search(rf"{re.escape(o)}(?![\w-])", text))
        if missing:
            gaps.append(f"tradeoff {' '.join(path)}: {', '.join(missing)}")
    assert gaps == []
