"""What `study create` says about the study it made, read as a sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from tradeoff.cli import main

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core


def test_a_capped_open_enrolment_is_said_without_a_stray_comma(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = small_scenario_file(tmp_path)
    argv = ["study", "create", str(scenario), "--panel", "prolific", "--cap", "3"]
    assert main([*argv, "--out", str(tmp_path / "s")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "for open enrolment by the panel's link, at most 3 people (scenario sha256 " in first
