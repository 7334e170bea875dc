"""Scenario files: the shipped ones load, and every mistake gets a located, fixable message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.errors import InputError

from ..conftest import PAPER_SCENARIOS, SCENARIOS

pytestmark = pytest.mark.core

GOOD = """
id = "demo"
title = "Demo"

[population]
seed = 1

[[classes]]
name = "sick"
label = "sick people"

[[classes]]
name = "well"
label = "well people"

[[attributes]]
name = "cost"
kind = "cost"
range = [0.0, 1.0]
label = "per test"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", [*PAPER_SCENARIOS, "glaucoma-screening"])
def test_shipped_scenarios_load(name: str) -> None:
    loaded = load_scenario(SCENARIOS / f"{name}.toml")
    assert loaded.scenario.id == name
    assert len(loaded.sha256) == 64


def test_paper_scenarios_declare_rewards_before_costs() -> None:
    for name in PAPER_SCENARIOS:
        kinds = [a.kind for a in load_scenario(SCENARIOS / f"{name}.toml").scenario.attributes]
        assert kinds == sorted(kinds, key=lambda k: k != "reward"), name


def test_paper_ranges_match_table1() -> None:
    ranges = {
        n: [(a.kind, a.range) for a in load_scenario(SCENARIOS / f"{n}.toml").scenario.attributes]
        for n in PAPER_SCENARIOS
    }
    assert ranges["paper-k2-reward-cost"] == [("reward", (0, 5)), ("cost", (0, 0.3))]
    assert ranges["paper-k2-two-costs"] == [("cost", (0, 15)), ("cost", (0, 18))]
    assert ranges["paper-k3-two-costs-reward"] == [
        ("reward", (0, 15.5)),
        ("cost", (0, 8)),
        ("cost", (0, 20)),
    ]
    assert ranges["paper-k3-cost-two-rewards"] == [
        ("reward", (0, 20)),
        ("reward", (0, 30)),
        ("cost", (0, 0.5)),
    ]


def test_clinical_scenario_has_money_and_time_costs() -> None:
    sc = load_scenario(SCENARIOS / "glaucoma-screening.toml").scenario
    assert len(sc.classes) == 2
    units = {a.unit for a in sc.attributes if a.kind == "cost"}
    assert {"$", "min"} <= units
    assert sc.attributes[0].render(0.214) == "$0.21 per scan"


BAD = {
    "unknown key": (
        GOOD.replace('title = "Demo"', 'title = "Demo"\ncolour = "red"'),
        "colour",
        "unknown key 'colour'",
    ),
    "misspelt key": (
        GOOD.replace('label = "per test"', 'lable = "per test"'),
        "attributes[0].lable",
        "did you mean 'label'",
    ),
    "wrong type": (GOOD.replace("seed = 1", 'seed = "one"'), "population.seed", "whole number"),
    "range low >= high": (
        GOOD.replace("range = [0.0, 1.0]", "range = [2.0, 1.0]"),
        "attributes[0].range",
        "must be smaller than high",
    ),
    "range equal": (
        GOOD.replace("range = [0.0, 1.0]", "range = [1.0, 1.0]"),
        "attributes[0].range",
        "must be smaller than high",
    ),
    "duplicate class": (
        GOOD.replace('name = "well"', 'name = "sick"'),
        "(top level)",
        "used twice",
    ),
    "duplicate attribute/class": (
        GOOD.replace('name = "cost"', 'name = "well"'),
        "(top level)",
        "used twice",
    ),
    "one class": (
        GOOD.replace('[[classes]]\nname = "well"\nlabel = "well people"\n', ""),
        "classes: ",
        "at least 2 [[classes]]",
    ),
    "missing seed": (GOOD.replace("seed = 1", ""), "population.seed", "add e.g. 'seed = 1'"),
    "bad kind": (
        GOOD.replace('kind = "cost"', 'kind = "price"'),
        "attributes[0].kind",
        "'cost' or 'reward'",
    ),
    "bad toml": (GOOD.replace('title = "Demo"', 'title = "Demo'), "line 3", "not valid TOML"),
    "prevalence length": (
        GOOD.replace("seed = 1", "seed = 1\nprevalence = [0.2, 0.3, 0.5]"),
        "(top level)",
        "prevalence has 3 values",
    ),
    "prevalence sum": (
        GOOD.replace("seed = 1", "seed = 1\nprevalence = [0.2, 0.3]"),
        "population.prevalence",
        "sum to 1",
    ),
    "bad format": (
        GOOD.replace('label = "per test"', 'label = "x"\nformat = "{val}"'),
        "attributes[0].format",
        "format",
    ),
    "bad strategy": (
        GOOD + '\n[elicitation]\nstrategy = "guess"\n',
        "elicitation.strategy",
        "'paper'",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_scenarios_are_located_and_fixable(tmp_path: Path, case: str) -> None:
    text, location, fragment = BAD[case]
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_scenario(path)
    message = info.value.message()
    assert str(path) in message
    assert location in message, message
    assert fragment in message, message
    assert all(p.fix for p in info.value.problems), message


@pytest.mark.parametrize("case", sorted(BAD))
def test_cli_check_bad_scenario_exit_2_without_traceback(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, BAD[case][0])
    assert main(["scenario", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert str(path) in err and "Fix:" in err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "check", str(tmp_path / "nope.toml")]) == 2
    assert "file not found" in capsys.readouterr().err


def test_cli_check_good_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "check", str(SCENARIOS / "glaucoma-screening.toml")]) == 0
    out = capsys.readouterr().out
    assert "glaucoma" in out and "OK" in out


def test_console_script_bad_scenario_in_subprocess(tmp_path: Path) -> None:
    path = write(tmp_path, BAD["range low >= high"][0])
    proc = subprocess.run(
        [sys.executable, "-m", "tradeoff", "scenario", "check", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "attributes[0].range" in proc.stderr
