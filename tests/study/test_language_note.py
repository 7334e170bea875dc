"""``study create --language de`` says that the scenario's own text is shown as written (a
participant read German page words around an English scenario, with no word of it to the
coordinator); English says nothing of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tradeoff.cli import main

from ..conftest import SCENARIOS

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(("language", "noted"), [("de", True), ("en", False)])
def test_a_page_language_notes_the_scenario_s_own_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], language: str, noted: bool
) -> None:
    scenario = str(SCENARIOS / "train-trips.toml")
    args = ["study", "create", scenario, "--participants", "2", "--language", language]
    assert main([*args, "--study", str(tmp_path / "s")]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert ("the page speaks de, but the scenario's own text" in said) == noted
