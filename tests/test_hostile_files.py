"""Reproductions of mistakes a user can make with files and folders: each a located error
(exit 2) or the right result, never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.elicitation import Choice
from tradeoff.opening import start_session
from tradeoff.scenario import load_scenario
from tradeoff.session import summarise

from .conftest import ROOT


def test_a_real_probability_session_reads_back_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The scenario names its probabilities file relative to itself; a session read from
    another working folder finds it beside the scenario it was recorded from."""
    monkeypatch.chdir(ROOT)
    rec = start_session(
        load_scenario("scenarios/breast-cancer-triage-real.toml"), "p01", tmp_path / "s"
    )
    for choice in (Choice.LEFT, Choice.RIGHT, Choice.LEFT):
        rec.answer(choice)
    monkeypatch.chdir(tmp_path)
    assert summarise(rec.path).answers == 3
    pool = str(ROOT / "scenarios" / "pools" / "breast-cancer.csv")
    scenario = str(ROOT / "scenarios" / "breast-cancer-triage-real.toml")
    assert main(["session", "show", str(rec.path)]) == 0
    assert main(["select", pool, "--scenario", scenario, "--session", str(rec.path)]) == 0
    assert "recommended" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("out", "says"),
    [
        ("/proc/tradeoff-report", "could not be written"),
        ("/dev/null", "is a file"),
        ("/dev/null/report", "lies below the file"),
    ],
)
def test_a_report_folder_that_cannot_be_written_is_a_located_error(
    capsys: pytest.CaptureFixture[str], out: str, says: str
) -> None:
    session = next((ROOT / "sessions" / "examples").glob("*/*.jsonl"))
    assert main(["report", "--session", str(session), "--out", out]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_a_report_folder_is_not_made_when_the_decision_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r"
    assert main(["report", "--session", str(tmp_path / "missing.jsonl"), "--out", str(out)]) == 2
    assert not out.exists()
    assert os.listdir(tmp_path) == []
