"""A study with arms in the terminal app: the participant who enters their code is
assigned (as on the web page) and their session runs with their arm's strategy; a
participant already assigned keeps their arm."""

from __future__ import annotations

from pathlib import Path

import pytest

from tradeoff.record.log import read_session
from tradeoff.study.arm_specs import ArmSpec
from tradeoff.study.arms import assign_arm
from tradeoff.study.entries import read_entries
from tradeoff.study.folder import create_study
from tradeoff.tui import make_app
from tradeoff.tui.screens.question import QuestionScreen
from tradeoff.tui.screens.start import StudyStartScreen

from .test_tui import scenario_file, wait_for

pytestmark = pytest.mark.e2e


async def test_the_terminal_app_runs_the_participants_arm(tmp_path: Path) -> None:
    scenario = scenario_file(tmp_path, budget=4)
    study, codes = create_study(
        scenario,
        ["p01", "p02"],
        tmp_path / "study",
        arms=[ArmSpec("joint", None, "joint"), ArmSpec("bisection", None, "bisection")],
    )
    first = assign_arm(study.path, study.arms, study.arm_seed, "p01")
    for pid in ("p01", "p02"):
        app = make_app(scenario, study=study, sessions_dir=study.sessions_dir)
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_for(pilot, StudyStartScreen)
            pilot.app.screen.query_one("#code").value = codes[pid]  # type: ignore[attr-defined]
            await pilot.press("enter")
            await wait_for(pilot, QuestionScreen)
    arms = read_entries(study.path).arms
    assert arms["p01"] == first and {arms["p01"], arms["p02"]} == {"joint", "bisection"}
    for pid in ("p01", "p02"):
        [path] = sorted((study.sessions_dir / pid).glob("*.jsonl"))
        assert read_session(path).header.spec.strategy == arms[pid]


async def test_the_terminal_start_says_the_length_as_the_studys_page_does(tmp_path: Path) -> None:
    """Before anyone is assigned, a study with arms says the length of the arm that asks
    the most, "about" when one of them does not stop once the pick is settled (the page's
    words: tests/web/test_arm_length.py)."""
    import shutil

    from ..conftest import SCENARIOS, small_scenario_file

    (tmp_path / "pools").mkdir()
    shutil.copy(SCENARIOS / "pools" / "breast-cancer.csv", tmp_path / "pools")
    scenario = small_scenario_file(
        tmp_path, "breast-cancer-triage", **{"budget = 30": "budget = 12"}
    )
    said = {}
    for arms in (("joint", "bisection"), ("joint", "probabilistic")):
        study, _ = create_study(
            scenario,
            ["p01"],
            tmp_path / "-".join(arms),
            arms=[ArmSpec(a, None, a) for a in arms],
        )
        app = make_app(scenario, study=study, sessions_dir=study.sessions_dir)
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_for(pilot, StudyStartScreen)
            said[arms[1]] = str(pilot.app.screen.query_one("#expect").render())
    assert said["bisection"].startswith("About 12 questions"), said
    assert said["probabilistic"].startswith("At most 12 questions (fewer once"), said
