"""The numeric core must not import the terminal UI (checked in a clean interpreter)."""

from __future__ import annotations

import subprocess
import sys

CORE = (
    "tradeoff",
    "tradeoff.scenario",
    "tradeoff.population",
    "tradeoff.queries",
    "tradeoff.metric",
    "tradeoff.elicitation",
    "tradeoff.oracles",
    "tradeoff.simulate",
    "tradeoff.pool",
    "tradeoff.copa",
    "tradeoff.ranking",
    "tradeoff.bench",
    "tradeoff.evaluation",
)


def test_core_does_not_import_textual() -> None:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in CORE)
        + "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'textual'"
        " or m in ('tradeoff.cli', 'tradeoff.tui'))\n"
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
    assert out == "['tradeoff']"
