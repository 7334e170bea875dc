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


def test_a_study_without_consent_says_so_and_quotas_short_of_the_cap_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A study made without --consent says that participants start at question 1 (one made
    with it names the page); quotas that add up to fewer places than the cap say how many
    can take part, and one that fills it says nothing of it."""
    scenario = small_scenario_file(tmp_path)
    base = ["study", "create", str(scenario)]
    assert main([*base, "--participants", "2", "--study", str(tmp_path / "a")]) == 0
    said = capsys.readouterr().out
    assert "No consent page: participants start at question 1 (--consent FILE gives one)." in said
    consent = tmp_path / "consent.md"
    consent.write_text("# Consent\n\nI agree.\n")
    argv = [*base, "--participants", "2", "--consent", str(consent), "--study", str(tmp_path / "b")]
    assert main(argv) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "No consent page" not in said and "participants read and agree to" in said
    panel = [*base, "--panel", "prolific", "--quota-field", "sex", "--panel-keep-param", "sex"]
    short = [*panel, "--cap", "100", "--quota", "female=30", "--quota", "male=30"]
    assert main([*short, "--study", str(tmp_path / "c")]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "the quotas add up to 60 places, fewer than the cap of 100: at most 60" in said
    full = [*panel, "--cap", "60", "--quota", "female=30", "--quota", "male=30"]
    assert main([*full, "--study", str(tmp_path / "d")]) == 0
    assert "fewer than the cap" not in capsys.readouterr().out


def test_a_consent_text_in_german_is_offered_and_said_to_ask_no_one_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page can be switched to German, but the consent text is given in one language:
    `study create` says how to give it in German too, and `study consent` then says that
    the same version in another language asks no one to consent again (it said they
    would be)."""
    scenario = small_scenario_file(tmp_path)
    consent = tmp_path / "consent.md"
    consent.write_text("# Consent\n\nI agree.\n")
    folder = str(tmp_path / "s")
    argv = ["study", "create", str(scenario), "--participants", "2", "--consent", str(consent)]
    assert main([*argv, "--study", folder]) == 0
    said = " ".join(capsys.readouterr().out.split())
    hint = f"tradeoff study consent {folder} TEXT.md --version 1 --language de"
    assert hint in said, said
    german = tmp_path / "consent.de.md"
    german.write_text("# Einwilligung\n\nIch stimme zu.\n")
    assert (
        main(["study", "consent", folder, str(german), "--version", "1", "--language", "de"]) == 0
    )
    said = " ".join(capsys.readouterr().out.split())
    assert "no one is asked to consent again, as the version is the same" in said
    assert main(["study", "consent", folder, str(consent), "--version", "2"]) == 0
    assert "is asked to consent again" in capsys.readouterr().out
