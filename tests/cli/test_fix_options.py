"""A fix never names an option that does not exist: every ``--option`` written anywhere in
``src/`` is one of the command line's, and a core error's fix is renamed to a command's
flags only when that command has them (``select`` has no ``--drop-missing``)."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

from tradeoff.cli import build_parser, main
from tradeoff.cli.common import (
    FIX_FALLBACKS,
    FIX_NAMES,
    FLAG_NAMES,
    command_options,
    flags_of,
    known_names,
)

from ..conftest import ROOT, SCENARIOS

pytestmark = pytest.mark.core


def all_options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option of every command."""
    out: set[str] = set()
    for action in parser._actions:
        out |= set(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out |= all_options(sub)
    return out


def named_options(source: str) -> list[tuple[int, str]]:
    """(line, option) of every ``--option`` in a string of ``source`` (f-strings too).

    >>> named_options('x = 1\\nfix = f"give --top {n}, or --dry"\\n')
    [(2, '--dry'), (2, '--top')]
    """
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out += [(node.lineno, flag) for flag in sorted(flags_of(node.value))]
    return sorted(out)


def test_every_option_a_text_names_exists() -> None:
    options = all_options(build_parser())
    assert {"--drop-missing", "--session", "--panel-ids"} <= options
    missing = [
        f"{path.relative_to(ROOT)}:{line}: {flag}"
        for path in sorted((ROOT / "src" / "tradeoff").rglob("*.py"))
        for line, flag in named_options(path.read_text(encoding="utf-8"))
        if flag not in options
    ]
    assert missing == []
    for names in (FLAG_NAMES, FIX_NAMES, FIX_FALLBACKS):
        assert set().union(*map(flags_of, names.values())) <= options


def test_a_command_renames_a_fix_only_to_its_own_options() -> None:
    parser = build_parser()
    select = command_options(parser, ["select", "pool.csv", "--session", "a.jsonl"])
    rank = command_options(parser, ["rank", "pool.csv"])
    assert "--session" in select and "--drop-missing" not in select
    assert "--drop-missing" in rank and "--session" not in rank
    for options in (select, rank):
        for names in (FLAG_NAMES, FIX_NAMES):
            renamed = known_names(names, options, FIX_FALLBACKS)
            assert set().union(*map(flags_of, renamed.values())) <= options


def test_select_does_not_offer_an_option_it_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (SCENARIOS / "pools" / "breast-cancer.csv").read_text().splitlines()
    column = lines[0].split(",").index("latency_ms")
    cells = lines[3].split(",")
    cells[column] = ""
    lines[3] = ",".join(cells)
    pool = tmp_path / "pool.csv"
    pool.write_text("\n".join(lines) + "\n")
    sessions = sorted((ROOT / "sessions" / "examples").glob("*/*.jsonl"))
    scenario = str(SCENARIOS / "breast-cancer-triage.toml")
    assert main(["select", str(pool), "--scenario", scenario, "--session", str(sessions[0])]) == 2
    said = capsys.readouterr().err
    assert "missing" in said and "--drop-missing" not in said
    assert "leave those models out of the file" in said
    objectives = ["--objective", "recall_malignant:max", "--objective", "latency_ms:min"]
    assert main(["rank", str(pool), *objectives]) == 2
    assert "use --drop-missing to leave those models out" in capsys.readouterr().err
