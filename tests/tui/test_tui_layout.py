"""The app's screens in their own rooms: one module per screen, each small, typed without
``Any``; the import contracts (pyproject.toml) keep screens from importing each other or
the app."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT

pytestmark = pytest.mark.core

TUI = ROOT / "src" / "tradeoff" / "tui"


def test_no_tui_module_is_over_300_lines() -> None:
    sizes = {p.name: len(p.read_text().splitlines()) for p in TUI.rglob("*.py")}
    assert {name: n for name, n in sizes.items() if n > 300} == {}
    assert {"start.py", "question.py", "review.py", "result.py"} <= {
        p.name for p in (TUI / "screens").glob("*.py")
    }


def test_the_tui_says_what_it_holds() -> None:
    """No ``Any`` in the app's code: the pool, the advice and the screen factory are typed."""
    found = [
        f"{p.relative_to(TUI)}:{i}"
        for p in TUI.rglob("*.py")
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"\bAny\b", line)
    ]
    assert found == []


def test_the_printed_resume_command_runs_from_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After `make run` the program is .venv/bin/tradeoff, not on the PATH: the command
    printed names it so that it runs as printed (it said `tradeoff …`: command not found)."""
    from tradeoff.tui.sessions import resume_command

    program = tmp_path / ".venv" / "bin" / "tradeoff"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(sys, "argv", [str(program), "elicit"])
    assert resume_command(Path("sessions/p 1.jsonl")) == (
        ".venv/bin/tradeoff elicit --resume 'sessions/p 1.jsonl'"
    )
    # run from another folder by its whole path: named whole, not "../.venv/bin/tradeoff"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert resume_command(Path("s.jsonl")) == f"{program} elicit --resume s.jsonl"
    monkeypatch.setattr(sys, "argv", ["pytest"])
    assert resume_command(Path("s.jsonl")).endswith("-m tradeoff elicit --resume s.jsonl")
