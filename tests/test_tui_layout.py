"""The app's screens in their own rooms: one module per screen, each small, typed without
``Any``; the import contracts (pyproject.toml) keep screens from importing each other or
the app."""

from __future__ import annotations

import re

from .conftest import ROOT

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
