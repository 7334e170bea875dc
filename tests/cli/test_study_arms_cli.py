"""``study create --arm`` and ``--arms``: the arms made, shown, and a mistake named with
its option or file, the arm and the field, without a traceback and without a study."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.study.folder import load_study

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core


def test_arms_by_option_and_by_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = str(small_scenario_file(tmp_path))
    out = tmp_path / "a"
    argv = ["study", "create", scenario, "--participants", "2", "--out", str(out)]
    assert main([*argv, "--arm", "joint:strategy=joint", "--arm", "b:strategy=bisection"]) == 0
    said = capsys.readouterr().out
    assert "joint: scenario.toml, strategy joint" in said and "b: scenario.toml" in said
    assert [a.name for a in load_study(out).arms] == ["joint", "b"]
    assert main(["study", "status", str(out)]) == 0
    assert "arms: joint 0 (0 complete, 0 in progress); b 0" in capsys.readouterr().out
    arms = tmp_path / "arms.toml"
    arms.write_text('[[arms]]\nname = "j"\nstrategy = "joint"\n\n[[arms]]\nname = "p"\n')
    out2 = tmp_path / "b"
    argv2 = ["study", "create", scenario, "--participants", "2", "--out", str(out2)]
    assert main([*argv2, "--arms", str(arms), "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert [a["strategy"] for a in made["arms"]] == ["joint", None]


def test_a_mistake_in_the_arms_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = str(small_scenario_file(tmp_path))
    out = tmp_path / "s"
    argv = ["study", "create", scenario, "--participants", "2", "--out", str(out)]
    assert main([*argv, "--arm", "a:strategy=joint", "--arm", "b:strategy=fast"]) == 2
    said = capsys.readouterr().err
    assert "--arm" in said and "'b:strategy=fast'.strategy" in said and "bisection" in said
    assert "Traceback" not in said and not out.exists()
    arms = tmp_path / "arms.toml"
    arms.write_text('[[arms]]\nname = "a"\n\n[[arms]]\nname = "b"\nscenario = "nowhere.toml"\n')
    assert main([*argv, "--arms", str(arms)]) == 2
    said = capsys.readouterr().err
    assert str(arms) in said and "arms[2].scenario" in said and not out.exists()
    assert main([*argv, "--arms", str(arms), "--arm", "a"]) == 2
    assert "not both" in capsys.readouterr().err


def test_language_arms(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An arm's language is one the page has words for; the terminal app, in English only,
    refuses a study whose arms show a language."""
    scenario = str(small_scenario_file(tmp_path))
    out = tmp_path / "s"
    argv = ["study", "create", scenario, "--participants", "2", "--out", str(out)]
    assert main([*argv, "--arm", "plain", "--arm", "fr:language=fr"]) == 2
    said = capsys.readouterr().err
    assert "--arm" in said and "arms[2].language" in said and "'fr'" in said
    assert "Traceback" not in said and not out.exists()
    arms = tmp_path / "arms.toml"
    arms.write_text('[[arms]]\nname = "a"\n\n[[arms]]\nname = "b"\nlanguage = "xx"\n')
    assert main([*argv, "--arms", str(arms)]) == 2
    assert str(arms) in capsys.readouterr().err and not out.exists()
    assert main([*argv, "--arm", "plain", "--arm", "german:language=de"]) == 0
    assert "german: scenario.toml, strategy of the scenario, pages in de" in capsys.readouterr().out
    assert main(["elicit", "--study", str(out)]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "the arm german (de) shows the study" in said and "English only" in said
    assert "study serve" in said
    two = ["--arm", "de1:language=de", "--arm", "de2:language=de,strategy=joint"]
    out2 = str(tmp_path / "two")
    assert main(["study", "create", scenario, "--participants", "2", "--study", out2, *two]) == 0
    capsys.readouterr()
    assert main(["elicit", "--study", out2]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "the arms de1 (de) and de2 (de) show the study" in said and "(s)" not in said
