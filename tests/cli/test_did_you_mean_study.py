"""A mistyped study folder or participant id is answered with "did you mean …?" when a
study of a close name lies beside it, or the study has a participant of a close id; nothing
is suggested when no name, or more than one, is as close."""

from __future__ import annotations

from pathlib import Path

import pytest

from tradeoff.cli import main

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core


@pytest.fixture
def study(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    folder = tmp_path / "studies" / "my-study"
    folder.parent.mkdir()
    scenario = str(small_scenario_file(tmp_path))
    assert main(["study", "create", scenario, "--participants", "3", "--study", str(folder)]) == 0
    capsys.readouterr()
    return folder


def _err(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("command", ["status", "export", "pilot-link", "remove-pilots"])
def test_a_mistyped_study_folder_names_the_study_beside_it(
    command: str, study: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typo = study.parent / "my-stdy"
    extra = ["--out", str(study.parent / "x.csv")] if command == "export" else []
    err = _err(["study", command, str(typo), *extra], capsys)
    assert f"{typo}: does not exist. Fix: did you mean {study}?" in err


def test_report_consent_and_elicit_suggest_the_study_too(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typo = str(study.parent / "mystudy")
    out = str(tmp_path / "report")
    assert f"did you mean {study}?" in _err(["study", "report", typo, "--out", out], capsys)
    text = tmp_path / "consent.md"
    text.write_text("# Consent\n", encoding="utf-8")
    argv = ["study", "consent", typo, str(text), "--version", "2"]
    assert f"did you mean {study}?" in _err(argv, capsys)
    assert f"did you mean {study}?" in _err(["elicit", "--study", typo], capsys)


def test_a_folder_with_no_study_of_a_close_name_is_not_given_one(
    study: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (study.parent / "results").mkdir()  # close, but holds no study
    err = _err(["study", "status", str(study.parent / "resuts")], capsys)
    assert "did you mean" not in err
    assert "did you mean" not in _err(["study", "status", str(study.parent / "zzz")], capsys)


def test_a_mistyped_participant_is_given_the_close_id(
    study: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _err(["study", "withdraw", str(study), "p0l"], capsys)
    assert "no participant 'p0l' in this study. Fix: did you mean p01?" in err
    assert not (study / "withdrawals.jsonl").exists()
    err = _err(["study", "erase", str(study), "PO2"], capsys)
    assert "did you mean p02?" in err
    assert "--yes" not in err  # the id is wrong: not "add --yes to erase"


def test_no_participant_is_guessed_among_equally_close_ids(
    study: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _err(["study", "withdraw", str(study), "p0"], capsys)  # p01, p02, p03 alike
    assert "no participant 'p0'" in err and "did you mean" not in err


def test_a_study_folder_that_does_not_exist_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no study of a close name beside it, a missing folder read "has no study.json",
    as if it were there: it is said not to exist; a folder without a study keeps that."""
    assert main(["study", "status", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: does not exist. Fix: give a folder made by" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["study", "status", str(tmp_path / "empty")]) == 2
    assert "empty: has no study.json." in capsys.readouterr().err
