"""``study create`` at an 80-column terminal: what it says of a panel's quota links, the
place held before consent and the coordinator's key was in lines of up to 447 characters,
which the terminal broke wherever its width ended. On a terminal its sentences are now
broken between words, no word lost; a link or a code is kept whole on a line of its own
(the one kind of line still wider than the terminal); written to a pipe nothing is
broken."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tradeoff.cli import main

from ..conftest import small_scenario_file
from .test_terminal_lines import terminal, written

pytestmark = pytest.mark.core

ARGS = [
    "--panel", "prolific", "--panel-keep-param", "sex", "--cap", "10", "--quota-field", "sex",
    "--quota", "female=5", "--quota", "male=5", "--declined-code", "C2DECL",
]  # fmt: skip


def test_study_create_fits_an_80_column_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 4"})
    with capsys.disabled(), terminal(80) as (stream, master):
        monkeypatch.setattr(sys, "stdout", stream)
        assert main(["study", "create", str(scenario), "--study", str(tmp_path / "a"), *ARGS]) == 0
        stream.flush()
        shown = written(master)
        monkeypatch.undo()
    lines = shown.rstrip("\n").split("\n")
    wide = [line for line in lines if len(line) > 80]
    assert wide and all(
        line.strip().startswith("http") and " " not in line.strip() for line in wide
    )
    assert any(line.startswith("key, shown once: ") or "shown once:" in line for line in lines)
    # the same words as written to a pipe, where no line is broken
    assert main(["study", "create", str(scenario), "--study", str(tmp_path / "b"), *ARGS]) == 0
    piped = capsys.readouterr().out
    assert max(len(line) for line in piped.split("\n")) > 300  # the quota links' paragraph
    shown = shown.replace(str(tmp_path / "a"), str(tmp_path / "b"))
    keyless = [w for w in shown.split() if len(w) != 22]  # the two keys differ
    assert keyless == [w for w in piped.split() if len(w) != 22]


def test_study_create_names_the_terminal_route_only_with_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A study with access codes can also be answered at the study's machine
    (``tradeoff elicit --study``): ``study create`` says how, beside the web page's command;
    a panel study without codes, which the terminal cannot open, is not told so."""
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 4"})
    coded = tmp_path / "coded"
    assert (
        main(["study", "create", str(scenario), "--participants", "2", "--study", str(coded)]) == 0
    )
    said = capsys.readouterr().out
    assert f"tradeoff elicit --study {coded}" in said
    assert f"tradeoff study serve {coded}" in said
    assert main(["study", "create", str(scenario), "--study", str(tmp_path / "p"), *ARGS]) == 0
    assert "elicit --study" not in capsys.readouterr().out
