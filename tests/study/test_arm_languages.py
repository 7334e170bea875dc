"""An arm's ``language``: read from ``--arm`` and an arms file, checked as a language tag
(and, given the tags the page has words for, as one of them), a condition of its own,
recorded in ``study.json`` only when given and read back; a bad one named with its arm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tradeoff.errors import InputError
from tradeoff.study.arm_specs import (
    Arm,
    ArmSpec,
    check_arm_languages,
    check_arms,
    parse_arm_option,
    read_arms_file,
)
from tradeoff.study.folder import create_study, load_study

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core


def test_an_arms_language_is_read_and_checked_as_a_tag(tmp_path: Path) -> None:
    assert parse_arm_option("de:language=de") == ArmSpec("de", language="de")
    assert parse_arm_option("mx:strategy=joint,language=es-MX").language == "es-MX"
    for bad in ("German", "DE", "de_DE", "d", "de-"):
        with pytest.raises(InputError) as refused:
            parse_arm_option(f"g:language={bad}")
        text = refused.value.message()
        assert "--arm" in text and f"'g:language={bad}'.language" in text
        assert "not a language tag" in text and "such as de" in text
    arms = tmp_path / "arms.toml"
    arms.write_text('[[arms]]\nname = "en"\n\n[[arms]]\nname = "de"\nlanguage = "de"\n')
    assert read_arms_file(arms) == [ArmSpec("en"), ArmSpec("de", language="de")]
    arms.write_text('[[arms]]\nname = "en"\n\n[[arms]]\nname = "de"\nlanguage = 5\n')
    with pytest.raises(InputError) as refused:
        read_arms_file(arms)
    assert str(arms) in refused.value.message() and "arms[2].language" in refused.value.message()


def test_a_language_makes_a_condition_of_its_own() -> None:
    assert len(check_arms("--arm", [ArmSpec("en"), ArmSpec("de", language="de")])) == 2
    with pytest.raises(InputError, match="same condition"):
        check_arms("--arm", [ArmSpec("a", language="de"), ArmSpec("b", language="de")])


def test_a_language_the_page_has_no_words_for_is_named_with_its_arm() -> None:
    arms = [ArmSpec("en"), ArmSpec("fr", language="fr")]
    check_arm_languages("--arm", arms[:1], {"en", "de"})
    with pytest.raises(InputError) as refused:
        check_arm_languages("arms.toml", arms, {"en", "de"})
    text = refused.value.message()
    assert "arms.toml" in text and "arms[2].language" in text and "'fr'" in text
    assert "de, en" in text


def test_the_language_is_recorded_only_when_given_and_read_back(tmp_path: Path) -> None:
    study, _ = create_study(
        small_scenario_file(tmp_path),
        ["p01"],
        tmp_path / "s",
        arms=[ArmSpec("plain"), ArmSpec("german", language="de")],
    )
    data = json.loads((tmp_path / "s" / "study.json").read_text())
    assert "language" not in data["arms"][0] and data["arms"][1]["language"] == "de"
    assert load_study(study.path).arms == (
        Arm("plain", "scenario.toml"),
        Arm("german", "scenario.toml", None, "de"),
    )
    data["arms"][1]["language"] = "Deutsch"
    (tmp_path / "s" / "study.json").write_text(json.dumps(data))
    with pytest.raises(InputError) as refused:
        load_study(study.path)
    assert "arms" in refused.value.message() and "Deutsch" in refused.value.message()
